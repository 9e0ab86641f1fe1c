/*
 * AME/AMFS (amfs.c): metadata servers.
 */
#include "flow/amfs.h"

/* The slot of key (file o, node n) in the transit table: its own, or the
 * free one where it would go. */
static size_t transit_slot(const struct amfs *s, uint32_t o, uint32_t n)
{
	uint64_t key = ((uint64_t)o << 32 | n) + 1, h = key * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 20) & (s->tcap - 1);
	while (s->tkeys[i] && s->tkeys[i] != key)
		i = (i + 1) & (s->tcap - 1);
	return i;
}

/* Server: a gather holds o at node n (one more). */
static int transit_hold(struct amfs *s, uint32_t o, uint32_t n)
{
	if (2 * (s->tused + 1) > s->tcap) {
		size_t old = s->tcap, cap = old ? 2 * old : 64;
		uint64_t *keys = s->tkeys;
		uint32_t *count = s->tcount;
		s->tkeys = calloc(cap, sizeof *s->tkeys);
		s->tcount = calloc(cap, sizeof *s->tcount);
		if (!s->tkeys || !s->tcount) {
			free(s->tkeys);
			free(s->tcount);
			s->tkeys = keys;
			s->tcount = count;
			return LOCUS_ENOMEM;
		}
		s->tcap = cap;
		for (size_t i = 0; i < old; i++)
			if (keys[i]) {
				uint64_t k = keys[i] - 1;
				size_t j = transit_slot(s, (uint32_t)(k >> 32), (uint32_t)k);
				s->tkeys[j] = keys[i];
				s->tcount[j] = count[i];
			}
		free(keys);
		free(count);
	}
	size_t i = transit_slot(s, o, n);
	if (!s->tkeys[i]) {
		s->tkeys[i] = ((uint64_t)o << 32 | n) + 1;
		s->tused++;
	}
	s->tcount[i]++;
	return 0;
}

/* Server: a gather no longer holds o at node n; whether none does now. */
static int transit_unhold(struct amfs *s, uint32_t o, uint32_t n)
{
	if (!s->tcap)
		return 1;
	size_t i = transit_slot(s, o, n);
	if (!s->tkeys[i])
		return 1;
	if (--s->tcount[i])
		return 0;
	/* Removed by shifting the run that follows back (linear probing). */
	size_t j = i;
	for (;;) {
		j = (j + 1) & (s->tcap - 1);
		if (!s->tkeys[j])
			break;
		uint64_t k = s->tkeys[j] - 1;
		size_t home = (size_t)(((k + 1) * 0x9E3779B97F4A7C15ull) >> 20) & (s->tcap - 1);
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			s->tkeys[i] = s->tkeys[j];
			s->tcount[i] = s->tcount[j];
			i = j;
		}
	}
	s->tkeys[i] = 0;
	s->tcount[i] = 0;
	s->tused--;
	return 1;
}

/* Server: whether node n is a location of o it knows (o was made there,
 * or a copy there was registered): those stay until o's last reader. */
static int registered(const struct amfs *s, uint32_t o, uint32_t n)
{
	for (uint32_t l = s->loc_head[o]; l != NONE; l = s->links[l].next)
		if (s->links[l].val == n)
			return 1;
	return 0;
}

static int link_push(struct amfs *s, uint32_t *head, uint32_t val)
{
	for (uint32_t l = *head; l != NONE; l = s->links[l].next)
		if (s->links[l].val == val)
			return 0;
	uint32_t l = s->free_links;
	if (l != NONE) {
		s->free_links = s->links[l].next;
	} else {
		if (locus__grow(&s->links, &s->links_cap, s->n_links + 1, sizeof *s->links))
			return LOCUS_ENOMEM;
		l = (uint32_t)s->n_links++;
	}
	s->links[l] = (struct link){val, *head};
	*head = l;
	return 0;
}

/* Removes val from the list at *head, if it is there. */
static void link_remove(struct amfs *s, uint32_t *head, uint32_t val)
{
	for (uint32_t *at = head; *at != NONE; at = &s->links[*at].next)
		if (s->links[*at].val == val) {
			uint32_t l = *at;
			*at = s->links[l].next;
			s->links[l].next = s->free_links;
			s->free_links = l;
			return;
		}
}

static void link_clear(struct amfs *s, uint32_t *head)
{
	while (*head != NONE) {
		uint32_t l = *head;
		*head = s->links[l].next;
		s->links[l].next = s->free_links;
		s->free_links = l;
	}
}

void locus__amfs_server_event(struct amfs *s, uint32_t m, const struct locus_event *ev,
			      struct locus_actions *act)
{
	uint32_t me = p_server(s, m);
	if (ev->kind != LOCUS_EV_MESSAGE)
		return;
	const struct locus_msg *msg = ev->msg;
	uint32_t o = (uint32_t)msg->arg[0];
	if (msg->type != M_FILES && o >= s->g->n_objects)
		return;
	switch (msg->type) {
	case M_QUERY: {
		uint32_t asker = (uint32_t)msg->arg[1];
		struct locus_msg r = {.type = M_LOCATED, .from = me, .to = asker};
		r.arg[0] = o;
		/* A produced file's locations, or a workflow input's copies
		 * on nodes (none: the asker reads the file system). */
		if (s->produced[o] || s->g->objects[o].producer == LOCUS_NONE) {
			uint32_t n = 0;
			for (uint32_t l = s->loc_head[o]; l != NONE && n < LOCUS_MSG_ARGS - 2;
			     l = s->links[l].next)
				r.arg[2 + n++] = s->links[l].val;
			r.arg[1] = n;
			r.n_args = 2 + n;
		} else {
			r.arg[1] = 0;
			r.n_args = 2;
			if (link_push(s, &s->sub_head[o], asker))
				locus_act_oom(act);
		}
		locus_act_send(act, &r);
		locus_act_cost(act, 1);
		break;
	}
	case M_PRODUCED: {
		uint32_t node = (uint32_t)msg->arg[1];
		s->produced[o] = 1;
		if (link_push(s, &s->loc_head[o], node))
			locus_act_oom(act);
		for (uint32_t l = s->sub_head[o]; l != NONE; l = s->links[l].next)
			amfs_send(act, me, s->links[l].val, M_NOTIFY, 0, 2, o, node);
		link_clear(s, &s->sub_head[o]);
		break;
	}
	case M_ADDLOC:
		if (link_push(s, &s->loc_head[o], (uint32_t)msg->arg[1]))
			locus_act_oom(act);
		break;
	case M_DELLOC:
		link_remove(s, &s->loc_head[o], (uint32_t)msg->arg[1]);
		break;
	case M_HOLD:
		if (transit_hold(s, o, (uint32_t)msg->arg[1]))
			locus_act_oom(act);
		break;
	case M_UNHOLD: {
		/* No gather holds it there now: a registered location stays;
		 * a copy a task sent there still reads becomes one; the rest
		 * goes. */
		uint32_t node = (uint32_t)msg->arg[1];
		if (!transit_unhold(s, o, node) || registered(s, o, node))
			break;
		if (msg->arg[2] && s->consumed[o] < s->g->objects[o].n_cons) {
			if (link_push(s, &s->loc_head[o], node))
				locus_act_oom(act);
			break;
		}
		locus_act_drop(act, o, node);
		s->drops++;
		break;
	}
	case M_CONSUMED:
		/* Its last reader has read it: every copy goes. */
		if (++s->consumed[o] == s->g->objects[o].n_cons) {
			for (uint32_t l = s->loc_head[o]; l != NONE; l = s->links[l].next) {
				locus_act_drop(act, o, s->links[l].val);
				s->drops++;
			}
			link_clear(s, &s->loc_head[o]);
		}
		break;
	default:
		break;
	}
}
