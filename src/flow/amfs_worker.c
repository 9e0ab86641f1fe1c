/*
 * AME/AMFS (amfs.c): workers.
 */
#include "flow/amfs.h"

/* Worker w brings the next input its head task t lacks (F_SEQ): it asks
 * the file's server where it is. */
static void fetch_next(struct amfs *s, struct locus_actions *act, uint32_t w, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t node = node_of(s, w);
	/* Two passes: the workflow's inputs it lacks, copied into the
	 * node's storage (a cache: the node's later tasks read them there)
	 * from a node that has one, else the file system; then the produced
	 * ones, from peers. The file's server says where each is; the task
	 * (LOCUS_GATHER_ALL) runs when all are there. */
	while (s->cursor[t] < 2 * tk->n_in) {
		uint32_t k = s->cursor[t] % tk->n_in, pass = s->cursor[t] / tk->n_in;
		uint32_t o = s->g->inputs[tk->in_at + k];
		int stored = s->g->objects[o].producer == LOCUS_NONE;
		if ((pass == 0 && stored && !s->tcat[t] && !here(s, o, node)) ||
		    (pass == 1 && !stored && !here(s, o, node))) {
			amfs_send(act, w, p_server(s, server_of(s, o)), M_QUERY, 0, 2, o, w);
			s->queries++;
			return;
		}
		s->cursor[t]++;
	}
}

/* Staging (F_FS): worker w copies every input its head task t lacks from
 * the file system to its node, as a task's wrapper copies its inputs to
 * the RAM disk (the file system opens a node's files one after another;
 * the task waits for them all, LOCUS_GATHER_ALL). */
static void stage_all(struct amfs *s, struct locus_actions *act, uint32_t w, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t node = node_of(s, w);
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (here(s, o, node) || (s->tcat[t] && s->g->objects[o].producer == LOCUS_NONE))
			continue;
		struct locus_copy c = {.objects = &o,
				       .n = 1,
				       .from = LOCUS_FS,
				       .to = node,
				       .tag = TAG(K_FETCH, t, 0),
				       .task = t};
		locus_act_copy(act, &c);
		s->fetches++;
	}
}

/* The task now at the head of worker w's queue: bring its inputs. */
static void head_changed(struct amfs *s, struct locus_actions *act, uint32_t w)
{
	uint32_t t = s->qhead[w];
	if (t == NONE)
		return;
	s->cursor[t] = 0;
	if (s->tfetch[t] == F_SEQ)
		fetch_next(s, act, w, t);
	else if (s->tfetch[t] == F_FS)
		stage_all(s, act, w, t);
}

/* Worker w copies o (which its head task t lacks) from `from`. */
static void fetch_from(struct amfs *s, struct locus_actions *act, uint32_t w, uint32_t t,
		       uint32_t o, uint32_t from)
{
	uint32_t node = node_of(s, w);
	struct locus_copy c = {.objects = &o,
			       .n = 1,
			       .from = from == node ? LOCUS_NONE : from,
			       .to = node,
			       .delay = from == LOCUS_NONE ? 0 : s->fetch_cost,
			       .task = t,
			       .tag = TAG(K_FETCH, t, 0)};
	locus_act_copy(act, &c);
	s->fetches++;
}

/* Worker w, idle, asks its next neighbour for a task; when it has asked
 * them all in vain it waits (twice as long each time) and asks again. */
static void try_steal(struct amfs *s, struct locus_actions *act, uint32_t w)
{
	if (!s->steal || s->qhead[w] != NONE || s->wstopped[w])
		return;
	if (s->steal == UINT32_MAX) {
		/* Global stealing (beyond the paper, to measure what the
		 * neighbours' limit costs): the worker with the longest queue,
		 * as a global work queue would know it, once a round. */
		uint32_t v = NONE;
		for (uint32_t x = 0; x < s->nw && !s->stole[w]; x++)
			if (x != w && s->qlen[x] >= 2 && (v == NONE || s->qlen[x] > s->qlen[v]))
				v = x;
		if (v != NONE) {
			s->stole[w] = 1;
			amfs_send(act, w, v, M_STEAL, 0, 1, w, 0);
			s->steal_tries++;
			return;
		}
	}
	uint64_t span = s->steal == UINT32_MAX ? 0 : 2 * (uint64_t)s->steal;
	while (s->stole[w] < span) {
		uint32_t k = s->stole[w]++, dist = k / 2 + 1;
		/* Nearest first: w + 1, w - 1, w + 2, w - 2, ... */
		int64_t v = k % 2 ? (int64_t)w - dist : (int64_t)w + dist;
		if (v < 0 || v >= (int64_t)s->nw)
			continue;
		amfs_send(act, w, (uint32_t)v, M_STEAL, 0, 1, w, 0);
		s->steal_tries++;
		return;
	}
	s->stole[w] = 0;
	if (!s->timer_set[w]) {
		s->steal_wait[w] = s->steal_wait[w] > 0 ? 2 * s->steal_wait[w] : STEAL_WAIT;
		if (s->steal_wait[w] > STEAL_WAIT_MAX)
			s->steal_wait[w] = STEAL_WAIT_MAX;
		locus_act_timer(act, w, s->steal_wait[w], STEAL_TIMER);
		s->timer_set[w] = 1;
	}
}

void locus__amfs_worker_event(struct amfs *s, uint32_t w, const struct locus_event *ev,
			      struct locus_actions *act)
{
	uint32_t node = node_of(s, w);
	switch (ev->kind) {
	case LOCUS_EV_MESSAGE: {
		const struct locus_msg *m = ev->msg;
		if (m->type == LOCUS_MSG_ASSIGN_FLOW) {
			uint32_t t = (uint32_t)m->arg[0];
			/* The worker keeps the ways it was told (a thief is
			 * told them again): a process knows what its messages
			 * said, not what another process decided. */
			s->tgm[t] = (uint8_t)m->arg[2];
			s->tom[t] = (uint8_t)m->arg[3];
			s->tfetch[t] = (uint8_t)(m->n_args > 4 ? m->arg[4] : F_NONE);
			s->tstay[t] = (uint8_t)(m->n_args > 5 && m->arg[5]);
			s->qnext[t] = NONE;
			if (s->qtail[w] == NONE)
				s->qhead[w] = t;
			else
				s->qnext[s->qtail[w]] = t;
			s->qtail[w] = t;
			s->qlen[w]++;
			s->stole[w] = 0;
			s->steal_wait[w] = 0;
			locus_act_cost(act, s->g->tasks[t].n_in + s->g->tasks[t].n_out);
			if (s->qhead[w] == t)
				head_changed(s, act, w);
		} else if (m->type == M_LOCATED || m->type == M_NOTIFY) {
			uint32_t t = s->qhead[w], o = (uint32_t)m->arg[0];
			if (t == NONE)
				break;
			int input = s->g->objects[o].producer == LOCUS_NONE;
			if (m->type == M_LOCATED && m->arg[1] == 0 && !input)
				break; /* N/A: the server will notify */
			/* A workflow input: from a node caching it (one of those
			 * named, by this worker's rank), else where it is stored
			 * (the file system, or a catalog's nodes: LOCUS_NONE lets
			 * the engine's locus_source_pick say which). */
			uint32_t from = (uint32_t)(m->type == M_NOTIFY ? m->arg[1]
						   : m->arg[1] == 0    ? LOCUS_NONE
						   : input ? m->arg[2 + w % (uint32_t)m->arg[1]]
							   : m->arg[2]);
			if (here(s, o, node)) {
				if (s->tfetch[t] == F_SEQ) {
					s->cursor[t]++;
					fetch_next(s, act, w, t);
				}
				break;
			}
			fetch_from(s, act, w, t, o, from);
		} else if (m->type == M_STEAL) {
			uint32_t thief = (uint32_t)m->arg[0];
			/* The last task queued, never the head nor one that
			 * runs where a gather brought its inputs. */
			uint32_t prev = NONE, t = NONE;
			for (uint32_t q = s->qhead[w]; q != NONE && s->qnext[q] != NONE;
			     q = s->qnext[q])
				if (!s->tstay[s->qnext[q]]) {
					prev = q;
					t = s->qnext[q];
				}
			if (t == NONE) {
				amfs_send(act, w, thief, M_NOTHING, 0, 0, 0, 0);
				break;
			}
			s->qnext[prev] = s->qnext[t];
			if (s->qtail[w] == t)
				s->qtail[w] = prev;
			s->qlen[w]--;
			locus_act_cancel(act, t);
			struct locus_msg a = {.type = LOCUS_MSG_ASSIGN_FLOW,
					      .from = w,
					      .to = thief,
					      .bytes = description(s, t),
					      .n_args = 6};
			a.arg[0] = t;
			a.arg[1] = -1;
			a.arg[2] = s->tgm[t];
			a.arg[3] = s->tom[t];
			a.arg[4] = s->tfetch[t];
			a.arg[5] = 0;
			locus_act_send(act, &a);
			amfs_send(act, w, p_disp(s, s->tdisp[t]), M_MOVED, 0, 2, t, thief);
			s->steals++;
		} else if (m->type == M_NOTHING) {
			if (s->qhead[w] == NONE)
				try_steal(s, act, w);
		} else if (m->type == M_STOP) {
			s->wstopped[w] = 1;
		}
		break;
	}
	case LOCUS_EV_START:
		/* Idle from the start: it looks for work after a while. */
		if (s->steal && !s->timer_set[w]) {
			s->steal_wait[w] = STEAL_WAIT;
			locus_act_timer(act, w, STEAL_WAIT, STEAL_TIMER);
			s->timer_set[w] = 1;
		}
		break;
	case LOCUS_EV_TIMER:
		if (ev->tag == STEAL_TIMER) {
			s->timer_set[w] = 0;
			try_steal(s, act, w);
		}
		break;
	case LOCUS_EV_TRANSFER:
		if (TAG_KIND(ev->transfer.tag) == K_FETCH) {
			uint32_t t = TAG_A(ev->transfer.tag), o = ev->transfer.object;
			uint32_t from = ev->transfer.from;
			if (ev->transfer.ok) {
				amfs_send(act, w, p_server(s, server_of(s, o)), M_ADDLOC, 0, 2, o,
					  node);
			} else if (from < s->nn && !here(s, o, node)) {
				/* The node the server named had it no more: the
				 * server forgets it, and is asked again. */
				amfs_send(act, w, p_server(s, server_of(s, o)), M_DELLOC, 0, 2, o,
					  from);
				if (s->qhead[w] == t) {
					amfs_send(act, w, p_server(s, server_of(s, o)), M_QUERY, 0,
						  2, o, w);
					s->queries++;
				}
				break;
			}
			if (s->qhead[w] != t)
				break;
			if (s->tfetch[t] == F_SEQ) {
				s->cursor[t]++;
				fetch_next(s, act, w, t);
			}
		}
		break;
	case LOCUS_EV_DONE: {
		uint32_t t = ev->done.task;
		amfs_send(act, w, p_disp(s, s->tdisp[t]), M_DONE, 0, 2, t, node);
		if (s->qhead[w] == t) {
			s->qhead[w] = s->qnext[t];
			if (s->qhead[w] == NONE)
				s->qtail[w] = NONE;
			s->qlen[w]--;
		}
		if (s->qhead[w] != NONE)
			head_changed(s, act, w);
		else if (s->steal)
			try_steal(s, act, w);
		break;
	}
	default:
		break;
	}
}
