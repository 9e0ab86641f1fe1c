/*
 * AME/AMFS (amfs.c): a metadata server (V-B1, V-C). Each file's record is
 * at one server (a hash of the file: the DHT): where its copies are, who
 * waits to hear that it is produced, how many of its readers have read
 * it. A server answers queries, notifies subscribers, and deletes a
 * file's copies once its last reader has read it; it also keeps the
 * copies gathers bring on their way (M_HOLD, M_UNHOLD), dropping one when
 * no gather holds it and it is not a registered location.
 */
#include "flow/amfs.h"

#include <stdlib.h>

/* A file's record at its server. */
struct amfs_record {
	uint32_t loc;	   /* its locations (a list of links) */
	uint32_t sub;	   /* who waits to hear that it is produced (a list of links) */
	uint32_t consumed; /* readers that have read it */
	uint8_t produced;
};

struct amfs_server {
	uint32_t m;
	struct amfs_record *rec; /* its files', by place (s->file_place) */
	struct locus__links links;
	/* Copies gathers brought to nodes that are not the file's
	 * registered locations: (file << 32 | node) -> how many gathers
	 * still hold it there (open addressing; key 0 free, so keys are
	 * stored + 1). */
	uint64_t *tkeys;
	uint32_t *tcount;
	size_t tcap, tused;
};

/* ---- its state ------------------------------------------------------------------------------- */

void locus__amfs_server_destroy(struct amfs_server *sv)
{
	if (!sv)
		return;
	free(sv->rec);
	locus__links_fini(&sv->links);
	free(sv->tkeys);
	free(sv->tcount);
	free(sv);
}

/* Server m's state, as it starts: no file produced, none located. NULL
 * when memory ran out. */
struct amfs_server *locus__amfs_server_create(const struct amfs *s, uint32_t m)
{
	struct amfs_server *sv = locus__calloc(1, sizeof *sv);
	if (!sv)
		return NULL;
	sv->m = m;
	locus__links_init(&sv->links);
	ALLOC(sv->rec, s->server_files[m]);
	if (!sv->rec) {
		locus__amfs_server_destroy(sv);
		return NULL;
	}
	for (uint32_t i = 0; i < s->server_files[m]; i++)
		sv->rec[i].loc = sv->rec[i].sub = NONE;
	return sv;
}

/* ---- copies gathers bring -------------------------------------------------------------------- */

/* The slot of key (file o, node n) in the transit table: its own, or the
 * free one where it would go. */
static size_t transit_slot(const struct amfs_server *sv, uint32_t o, uint32_t n)
{
	uint64_t key = ((uint64_t)o << 32 | n) + 1, h = key * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 20) & (sv->tcap - 1);
	while (sv->tkeys[i] && sv->tkeys[i] != key)
		i = (i + 1) & (sv->tcap - 1);
	return i;
}

/* A gather holds o at node n (one more). */
static int transit_hold(struct amfs_server *sv, uint32_t o, uint32_t n)
{
	if (2 * (sv->tused + 1) > sv->tcap) {
		size_t old = sv->tcap, cap = old ? 2 * old : 64;
		uint64_t *keys = sv->tkeys;
		uint32_t *count = sv->tcount;
		sv->tkeys = calloc(cap, sizeof *sv->tkeys);
		sv->tcount = calloc(cap, sizeof *sv->tcount);
		if (!sv->tkeys || !sv->tcount) {
			free(sv->tkeys);
			free(sv->tcount);
			sv->tkeys = keys;
			sv->tcount = count;
			return LOCUS_ENOMEM;
		}
		sv->tcap = cap;
		for (size_t i = 0; i < old; i++)
			if (keys[i]) {
				uint64_t k = keys[i] - 1;
				size_t j = transit_slot(sv, (uint32_t)(k >> 32), (uint32_t)k);
				sv->tkeys[j] = keys[i];
				sv->tcount[j] = count[i];
			}
		free(keys);
		free(count);
	}
	size_t i = transit_slot(sv, o, n);
	if (!sv->tkeys[i]) {
		sv->tkeys[i] = ((uint64_t)o << 32 | n) + 1;
		sv->tused++;
	}
	sv->tcount[i]++;
	return 0;
}

/* A gather no longer holds o at node n; whether none does now. */
static int transit_unhold(struct amfs_server *sv, uint32_t o, uint32_t n)
{
	if (!sv->tcap)
		return 1;
	size_t i = transit_slot(sv, o, n);
	if (!sv->tkeys[i])
		return 1;
	if (--sv->tcount[i])
		return 0;
	/* Removed by shifting the run that follows back (linear probing). */
	size_t j = i;
	for (;;) {
		j = (j + 1) & (sv->tcap - 1);
		if (!sv->tkeys[j])
			break;
		uint64_t k = sv->tkeys[j] - 1;
		size_t home = (size_t)(((k + 1) * 0x9E3779B97F4A7C15ull) >> 20) & (sv->tcap - 1);
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			sv->tkeys[i] = sv->tkeys[j];
			sv->tcount[i] = sv->tcount[j];
			i = j;
		}
	}
	sv->tkeys[i] = 0;
	sv->tcount[i] = 0;
	sv->tused--;
	return 1;
}

/* ---- its events ------------------------------------------------------------------------------ */

/* Where o is: a produced file's locations, or a workflow input's copies
 * on nodes (none: the asker reads the file system); or, o not produced
 * yet, "N/A", and the asker hears when it is. */
static void query(struct amfs *s, struct amfs_server *sv, struct locus_actions *act, uint32_t o,
		  uint32_t asker)
{
	struct amfs_record *r = &sv->rec[s->file_place[o]];
	struct locus_msg a = {.type = M_LOCATED, .from = p_server(s, sv->m), .to = asker};
	a.arg[0] = o;
	if (r->produced || s->g->objects[o].producer == LOCUS_NONE) {
		uint32_t n = 0;
		for (uint32_t l = r->loc; l != NONE && n < LOCUS_MSG_ARGS - 2;
		     l = sv->links.cell[l].next)
			a.arg[2 + n++] = sv->links.cell[l].val;
		a.arg[1] = n;
		a.n_args = 2 + n;
	} else {
		a.arg[1] = 0;
		a.n_args = 2;
		if (locus__links_add(&sv->links, &r->sub, asker))
			locus_act_oom(act);
	}
	locus_act_send(act, &a);
	locus_act_cost(act, 1);
}

/* No gather holds o at `node` now: a registered location (o was made
 * there, or a copy there was registered) stays, those stay until o's
 * last reader; a copy a task sent there still reads (`needed`) becomes
 * one; the rest goes. */
static void unhold(struct amfs *s, struct amfs_server *sv, struct locus_actions *act, uint32_t o,
		   uint32_t node, int needed)
{
	struct amfs_record *r = &sv->rec[s->file_place[o]];
	if (!transit_unhold(sv, o, node) ||
	    locus__links_find(&sv->links, r->loc, node) != LOCUS__LINK_END)
		return;
	if (needed && r->consumed < s->g->objects[o].n_cons) {
		if (locus__links_add(&sv->links, &r->loc, node))
			locus_act_oom(act);
		return;
	}
	locus_act_drop(act, o, node);
	s->count.drops++;
}

void locus__amfs_server_event(struct amfs *s, struct amfs_server *sv, const struct locus_event *ev,
			      struct locus_actions *act)
{
	if (ev->kind != LOCUS_EV_MESSAGE)
		return;
	const struct locus_msg *msg = ev->msg;
	uint32_t o = (uint32_t)msg->arg[0], node = (uint32_t)msg->arg[1];
	/* (Every message names a file of this server's, but its file list.) */
	if (msg->type == M_FILES || o >= s->g->n_objects || server_of(s, o) != sv->m)
		return;
	struct amfs_record *r = &sv->rec[s->file_place[o]];
	switch (msg->type) {
	case M_QUERY:
		query(s, sv, act, o, node);
		break;
	case M_PRODUCED:
		r->produced = 1;
		if (locus__links_add(&sv->links, &r->loc, node))
			locus_act_oom(act);
		for (uint32_t l = r->sub; l != NONE; l = sv->links.cell[l].next)
			amfs_send(act, p_server(s, sv->m), sv->links.cell[l].val, M_NOTIFY, 0, 2, o,
				  node);
		locus__links_clear(&sv->links, &r->sub);
		break;
	case M_ADDLOC:
		if (locus__links_add(&sv->links, &r->loc, node))
			locus_act_oom(act);
		break;
	case M_DELLOC:
		locus__links_remove(&sv->links, &r->loc, node);
		break;
	case M_HOLD:
		if (transit_hold(sv, o, node))
			locus_act_oom(act);
		break;
	case M_UNHOLD:
		unhold(s, sv, act, o, node, msg->arg[2] != 0);
		break;
	case M_CONSUMED:
		/* Its last reader has read it: every copy goes. */
		if (++r->consumed == s->g->objects[o].n_cons) {
			uint32_t holder;
			while (locus__links_pop(&sv->links, &r->loc, &holder, NULL)) {
				locus_act_drop(act, o, holder);
				s->count.drops++;
			}
		}
		break;
	default:
		break;
	}
}
