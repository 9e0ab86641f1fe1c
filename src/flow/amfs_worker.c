/*
 * AME/AMFS (amfs.c): a worker, also its node's storage server (V-A,
 * VI-B1a, V-I). It runs its tasks in the order they came; for the task
 * at the head of its queue it brings the inputs its node lacks: from the
 * shared file system (staging), or by asking each file's server where it
 * is and copying it from a peer, one file after another (the "sequential
 * file location lookup and transfer"); when the task ends it tells its
 * dispatcher. An idle worker steals the last task queued at a neighbour:
 * another worker of its own node (an AME worker serves a node's cores),
 * then a worker of each node within `steal` hops of its own on the 3-D
 * torus (VI-B2a: "we limit stealing to a compute node's neighbors ... on
 * the 3D torus network").
 *
 * An idle worker asks its neighbours one after the other; after a round
 * in which none had a task to spare it looks again 50 ms later, waiting
 * twice as long after each round in vain, up to 12.8 s. Those later looks
 * are not simulated one by one while they would find nothing: the worker
 * sleeps, each neighbour that answered "nothing" keeps its name, and when
 * a task it could give joins its queue it wakes them all (M_WAKE). A
 * woken worker works out when its next look would have been and looks
 * then. Every worker starts asleep, as if its neighbours had all answered
 * "nothing" (its first look 50 ms after the start). So an idle worker
 * costs messages per task that could move to it, not per simulated
 * second.
 */
#include "flow/amfs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flow/assign.h"

/* An idle worker first looks for work STEAL_WAIT seconds after the start
 * (the first assignments are on their way), and after each round in vain
 * waits twice as long, up to STEAL_WAIT_MAX. */
#define STEAL_WAIT     0.05
#define STEAL_WAIT_MAX 12.8
#define STEAL_TIMER    1

/* A task in a worker's queue, with the ways its assignment said. */
struct amfs_queued {
	uint32_t task;
	uint32_t cursor;	/* the next input to bring (F_SEQ) */
	uint8_t fetch;		/* enum fetch */
	uint8_t gather, output; /* enum locus_gather, enum locus_output */
	uint8_t stay;		/* assigned where a gather brought its inputs: never stolen */
};

struct amfs_worker {
	/* Its queue, in the order the tasks came: q[head .. head + len). */
	struct amfs_queued *q;
	uint32_t head, len, cap;
	uint32_t stole;	   /* steal tries in this round */
	double steal_wait; /* the wait before its next round */
	uint8_t timer_set; /* a steal timer is pending */
	/* Asleep: idle, every neighbour answered "nothing", and its next
	 * look (at next_look) would find nothing until one wakes it. */
	uint8_t asleep;
	double next_look;
	/* Thieves this worker had nothing for (woken when a task they could
	 * take joins the queue), and whether its neighbours, asleep from the
	 * start, were woken once. */
	uint32_t *hungry;
	uint32_t n_hungry, hungry_cap;
	uint8_t woke_start;
	/* Its neighbours: the nodes within `steal` hops of its node on the
	 * torus, nearest first; the workers it asks: its own node's others,
	 * then on each near node one (its own place on its node, modulo that
	 * node's workers). */
	uint32_t *near, n_near;
	uint32_t *nb, n_nb;
	uint8_t known; /* near and nb are worked out (know_neighbours) */
};

/* Whether node `node` holds o now (the engine's monitor). */
static int here(const struct amfs *s, uint32_t o, uint32_t node)
{
	return locus_replicas_has(s->mon->replicas, o, node);
}

/* ---- its state and its queue ----------------------------------------------------------------- */

/* Worker w's state, as it starts: nothing queued. NULL when memory ran
 * out. */
struct amfs_worker *locus__amfs_worker_create(const struct amfs *s, uint32_t w)
{
	(void)s;
	(void)w;
	return locus__calloc(1, sizeof(struct amfs_worker));
}

int locus__amfs_worker_start_acts(const struct amfs *s)
{
	return s->opt.steal == UINT32_MAX;
}

void locus__amfs_worker_started(const struct amfs *s, struct amfs_worker *wk, double now)
{
	if (!s->opt.steal)
		return;
	wk->steal_wait = STEAL_WAIT;
	wk->next_look = now + STEAL_WAIT;
	wk->asleep = 1;
}

/* Worker w's neighbours (near, nb), worked out when it first needs them,
 * to steal or to wake them: most workers of a large platform never do (a
 * million workers' lists were half the set-up of a two-task workflow).
 * 0, or -1 out of memory. */
static int know_neighbours(const struct amfs *s, struct amfs_worker *wk, uint32_t w)
{
	uint32_t hops = s->opt.steal, node = node_of(s, w);
	if (wk->known || !hops || hops == UINT32_MAX)
		return 0;
	/* At most (2 hops + 1)^3 - 1 nodes are that near, and nn - 1. */
	uint64_t side = 2 * (uint64_t)hops + 1, room = s->nn;
	if (side < 2000000 && side * side * side < room)
		room = side * side * side;
	uint32_t mates = s->nworkers_at[node + 1] - s->nworkers_at[node] - 1;
	ALLOC(wk->near, room);
	ALLOC(wk->nb, room + mates);
	if (!wk->near || !wk->nb) {
		free(wk->near);
		free(wk->nb);
		wk->near = wk->nb = NULL;
		return -1;
	}
	wk->n_near = locus__amfs_torus_near(s, node, hops, wk->near, (uint32_t)room);
	/* (Kept to size: steal=N hops may reach many nodes.) */
	uint32_t *fit = realloc(wk->near, (wk->n_near ? wk->n_near : 1) * sizeof *fit);
	if (fit)
		wk->near = fit;
	uint32_t place = 0;
	while (s->nworkers[s->nworkers_at[node] + place] != w)
		place++;
	/* Its own node's other workers first (the node's one queue, as an
	 * AME worker serves a BG/P node's cores: a task taken there needs no
	 * copy), then one on each near node. */
	for (uint32_t k = 1; k <= mates; k++)
		wk->nb[wk->n_nb++] = s->nworkers[s->nworkers_at[node] + (place + k) % (mates + 1)];
	for (uint32_t i = 0; i < wk->n_near; i++) {
		uint32_t m = wk->near[i], k = s->nworkers_at[m + 1] - s->nworkers_at[m];
		if (k)
			wk->nb[wk->n_nb++] = s->nworkers[s->nworkers_at[m] + place % k];
	}
	fit = realloc(wk->nb, (wk->n_nb ? wk->n_nb : 1) * sizeof *fit);
	if (fit)
		wk->nb = fit;
	wk->known = 1;
	return 0;
}

void locus__amfs_worker_destroy(struct amfs_worker *wk)
{
	if (!wk)
		return;
	free(wk->q);
	free(wk->hungry);
	free(wk->near);
	free(wk->nb);
	free(wk);
}

/* The task at the head of the queue, or NULL. */
static struct amfs_queued *head(struct amfs_worker *wk)
{
	return wk->len ? &wk->q[wk->head] : NULL;
}

/* Whether task t heads the queue. */
static int heads(const struct amfs_worker *wk, uint32_t t)
{
	return wk->len && wk->q[wk->head].task == t;
}

/* Appends q to the queue: 0, or LOCUS_ENOMEM. */
static int enqueue(struct amfs_worker *wk, const struct amfs_queued *q)
{
	if (wk->head + wk->len == wk->cap) {
		if (wk->head) {
			memmove(wk->q, wk->q + wk->head, wk->len * sizeof *wk->q);
			wk->head = 0;
		} else {
			size_t cap = wk->cap;
			if (locus__grow(&wk->q, &cap, (size_t)wk->len + 1, sizeof *wk->q))
				return LOCUS_ENOMEM;
			wk->cap = (uint32_t)cap;
		}
	}
	wk->q[wk->head + wk->len++] = *q;
	return 0;
}

/* Takes the i-th task of the queue (0: the head) out of it. */
static void unqueue(struct amfs_worker *wk, uint32_t i)
{
	if (i) {
		struct amfs_queued *at = &wk->q[wk->head + i];
		memmove(at, at + 1, (wk->len - i - 1) * sizeof *at);
	} else {
		wk->head++;
	}
	if (!--wk->len)
		wk->head = 0;
}

/* The tasks queued at worker x, as a global work queue would know them
 * (global stealing's look at every worker): 0 for one this instance does
 * not host. */
static uint32_t queued(const struct amfs *s, uint32_t x)
{
	return s->worker[x] ? s->worker[x]->len : 0;
}

/* ---- bringing the head task's inputs --------------------------------------------------------- */

/* Worker w brings the next input its head task q lacks (F_SEQ): it asks
 * the file's server where it is. */
static void fetch_next(struct amfs *s, struct locus_actions *act, uint32_t w, struct amfs_queued *q)
{
	uint32_t t = q->task;
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t node = node_of(s, w);
	/* Two passes: the workflow's inputs it lacks, copied into the
	 * node's storage (a cache: the node's later tasks read them there)
	 * from a node that has one, else the file system; then the produced
	 * ones, from peers. The file's server says where each is; the task
	 * (LOCUS_GATHER_ALL) runs when all are there. */
	while (q->cursor < 2 * tk->n_in) {
		uint32_t k = q->cursor % tk->n_in, pass = q->cursor / tk->n_in;
		uint32_t o = s->g->inputs[tk->in_at + k];
		int stored = s->g->objects[o].producer == LOCUS_NONE;
		if ((pass == 0 && stored && !s->tcat[t] && !here(s, o, node)) ||
		    (pass == 1 && !stored && !here(s, o, node))) {
			amfs_send(act, w, p_server(s, server_of(s, o)), M_QUERY, 0, 2, o, w);
			s->count.queries++;
			return;
		}
		q->cursor++;
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
		s->count.fetches++;
	}
}

/* The task now at the head of worker w's queue: bring its inputs. */
static void head_changed(struct amfs *s, struct amfs_worker *wk, struct locus_actions *act,
			 uint32_t w)
{
	struct amfs_queued *q = head(wk);
	if (!q)
		return;
	q->cursor = 0;
	if (q->fetch == F_SEQ)
		fetch_next(s, act, w, q);
	else if (q->fetch == F_FS)
		stage_all(s, act, w, q->task);
}

/* The head task's input brought (or found there): the next one. */
static void fetched(struct amfs *s, struct locus_actions *act, uint32_t w, struct amfs_queued *q)
{
	if (q->fetch == F_SEQ) {
		q->cursor++;
		fetch_next(s, act, w, q);
	}
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
			       .delay = from == LOCUS_NONE ? 0 : s->opt.fetch_cost,
			       .task = t,
			       .tag = TAG(K_FETCH, t, 0)};
	locus_act_copy(act, &c);
	s->count.fetches++;
}

/* A file's server answered (M_LOCATED) or notified (M_NOTIFY) where o
 * is: the head task's input is copied from there, unless it is here. */
static void file_located(struct amfs *s, struct amfs_worker *wk, struct locus_actions *act,
			 uint32_t w, const struct locus_msg *m)
{
	struct amfs_queued *q = head(wk);
	uint32_t o = (uint32_t)m->arg[0];
	if (!q)
		return;
	int input = s->g->objects[o].producer == LOCUS_NONE;
	if (m->type == M_LOCATED && m->arg[1] == 0 && !input)
		return; /* N/A: the server will notify */
	/* From one of the nodes named, by this worker's rank (the copies of
	 * a file many workers fetch spread over its holders); a workflow
	 * input none caches, where it is stored (the file system, or a
	 * catalog's nodes: LOCUS_NONE lets the engine's locus_source_pick
	 * say which). */
	uint32_t from = (uint32_t)(m->type == M_NOTIFY ? m->arg[1]
				   : m->arg[1] == 0    ? LOCUS_NONE
						       : m->arg[2 + w % (uint32_t)m->arg[1]]);
	if (here(s, o, node_of(s, w))) {
		fetched(s, act, w, q);
		return;
	}
	fetch_from(s, act, w, q->task, o, from);
}

/* A copy of worker w's ended: its server learns of it, and the next input
 * comes; a peer that had the file no more is forgotten by the server,
 * which is asked again. */
static void copy_ended(struct amfs *s, struct amfs_worker *wk, struct locus_actions *act,
		       uint32_t w, const struct locus_event *ev)
{
	uint32_t t = TAG_A(ev->transfer.tag), o = ev->transfer.object;
	uint32_t from = ev->transfer.from, node = node_of(s, w),
		 server = p_server(s, server_of(s, o));
	if (ev->transfer.ok) {
		amfs_send(act, w, server, M_ADDLOC, 0, 2, o, node);
	} else if (from < s->nn && !here(s, o, node)) {
		amfs_send(act, w, server, M_DELLOC, 0, 2, o, from);
		if (heads(wk, t)) {
			amfs_send(act, w, server, M_QUERY, 0, 2, o, w);
			s->count.queries++;
		}
		return;
	}
	if (heads(wk, t))
		fetched(s, act, w, head(wk));
}

/* ---- stealing -------------------------------------------------------------------------------- */

/* Adds thief to a list of waiting thieves (once): 0, or LOCUS_ENOMEM. */
static int wait_list_add(uint32_t **list, uint32_t *n, uint32_t *cap, uint32_t thief)
{
	for (uint32_t i = 0; i < *n; i++)
		if ((*list)[i] == thief)
			return 0;
	if (*n == *cap) {
		size_t c = *cap;
		if (locus__grow(list, &c, (size_t)*n + 1, sizeof **list))
			return LOCUS_ENOMEM;
		*cap = (uint32_t)c;
	}
	(*list)[(*n)++] = thief;
	return 0;
}

/* Takes the first thief off a list: it, or NONE when the list is empty. */
static uint32_t wait_list_pop(uint32_t *list, uint32_t *n)
{
	if (!*n)
		return NONE;
	uint32_t thief = list[0];
	memmove(list, list + 1, (*n - 1) * sizeof *list);
	(*n)--;
	return thief;
}

/* Whether a thief could take a task of wk's queue: one behind the head
 * that no gather placed there. */
static int stealable(const struct amfs_worker *wk)
{
	for (uint32_t k = 1; k < wk->len; k++)
		if (!wk->q[wk->head + k].stay)
			return 1;
	return 0;
}

/* Worker w has a task to spare: it wakes the thieves it had nothing for,
 * the first time every other worker of its node and its neighbour nodes (asleep since the
 * start: those that ask w among them), and under global stealing one
 * thief of the instance's list. */
static void wake_thieves(struct amfs *s, struct amfs_worker *wk, struct locus_actions *act,
			 uint32_t w)
{
	for (uint32_t i = 0; i < wk->n_hungry; i++)
		amfs_send(act, w, wk->hungry[i], M_WAKE, 0, 0, 0, 0);
	wk->n_hungry = 0;
	if (s->opt.steal == UINT32_MAX) {
		uint32_t thief = wait_list_pop(s->hungry, &s->n_hungry);
		if (thief != NONE)
			amfs_send(act, w, thief, M_WAKE, 0, 0, 0, 0);
	} else if (!wk->woke_start) {
		if (know_neighbours(s, wk, w)) {
			locus_act_oom(act);
			return;
		}
		wk->woke_start = 1;
		for (uint32_t i = 0; i <= wk->n_near; i++) {
			uint32_t m = i < wk->n_near ? wk->near[i] : node_of(s, w);
			for (uint32_t k = s->nworkers_at[m]; k < s->nworkers_at[m + 1]; k++)
				if (s->nworkers[k] != w)
					amfs_send(act, w, s->nworkers[k], M_WAKE, 0, 0, 0, 0);
		}
	}
}

/* The wait after a round in vain: 50 ms, then twice the last, at most
 * 12.8 s. */
static double next_wait(double wait)
{
	return wait > 0 ? (2 * wait < STEAL_WAIT_MAX ? 2 * wait : STEAL_WAIT_MAX) : STEAL_WAIT;
}

/* Worker w, idle, found no task: its next look is in steal_wait seconds
 * (unless a timer is pending already). It sleeps until a task to spare
 * wakes it when its look was in vain everywhere it could look (every
 * neighbour said "nothing"; under global stealing, no queue had one),
 * else (a queue had one, given to another first) the look is a timer. */
static void fall_asleep(struct amfs *s, struct amfs_worker *wk, struct locus_actions *act,
			uint32_t w, double now, int everywhere)
{
	if (wk->timer_set)
		return;
	wk->steal_wait = next_wait(wk->steal_wait);
	if (!everywhere) {
		locus_act_timer(act, w, wk->steal_wait, STEAL_TIMER);
		wk->timer_set = 1;
		return;
	}
	wk->next_look = now + wk->steal_wait;
	wk->asleep = 1;
	if (s->opt.steal == UINT32_MAX &&
	    wait_list_add(&s->hungry, &s->n_hungry, &s->hungry_cap, w))
		locus_act_oom(act);
}

/* A sleeping worker is woken, or given a task: the looks it slept
 * through found nothing (each doubling the wait), and the next one is a
 * timer now. */
static void wake_up(struct amfs_worker *wk, struct locus_actions *act, uint32_t w, double now)
{
	while (wk->next_look < now) {
		if (wk->steal_wait >= STEAL_WAIT_MAX) {
			wk->next_look +=
			    ceil((now - wk->next_look) / STEAL_WAIT_MAX) * STEAL_WAIT_MAX;
			break;
		}
		wk->steal_wait = next_wait(wk->steal_wait);
		wk->next_look += wk->steal_wait;
	}
	wk->asleep = 0;
	wk->timer_set = 1;
	locus_act_timer(act, w, wk->next_look - now, STEAL_TIMER);
}

/* Worker w, idle, asks its next neighbour for a task; when it has asked
 * them all in vain it sleeps until its next look or a neighbour's task to
 * spare, whichever is later. */
static void try_steal(struct amfs *s, struct amfs_worker *wk, struct locus_actions *act, uint32_t w,
		      double now)
{
	uint32_t steal = s->opt.steal;
	if (!steal || wk->len)
		return;
	if (steal == UINT32_MAX) {
		/* Global stealing (beyond the paper, to measure what the
		 * neighbours' limit costs): the worker with the longest queue
		 * that has a task to spare, as a global work queue would know
		 * it, once a round. (The one place a process reads others'
		 * state: on MPI ranks it sees only its own instance's
		 * workers.) */
		uint32_t v = NONE, most = 0;
		for (uint32_t x = 0; x < s->nw && !wk->stole; x++) {
			uint32_t n = queued(s, x);
			if (x != w && n >= 2 && (v == NONE || n > most) &&
			    stealable(s->worker[x])) {
				v = x;
				most = n;
			}
		}
		if (v != NONE) {
			wk->stole = 1;
			amfs_send(act, w, v, M_STEAL, 0, 1, w, 0);
			s->count.steal_tries++;
			return;
		}
	}
	if (know_neighbours(s, wk, w)) {
		locus_act_oom(act);
		return;
	}
	uint32_t span = steal == UINT32_MAX ? 0 : wk->n_nb;
	while (wk->stole < span) {
		uint32_t v = wk->nb[wk->stole++];
		amfs_send(act, w, v, M_STEAL, 0, 1, w, 0);
		s->count.steal_tries++;
		return;
	}
	/* Global: the queue picked gave its task to another first (stole),
	 * or none had one. */
	int everywhere = steal != UINT32_MAX || !wk->stole;
	wk->stole = 0;
	fall_asleep(s, wk, act, w, now, everywhere);
}

/* A thief asks: it gets the last task queued, never the head nor one that
 * runs where a gather brought its inputs or that the thief's node cannot
 * hold, with the ways its assignment said; the task's dispatcher hears
 * where it went. */
static void give_task(struct amfs *s, struct amfs_worker *wk, struct locus_actions *act, uint32_t w,
		      uint32_t thief)
{
	uint32_t i = NONE;
	for (uint32_t k = 1; k < wk->len; k++)
		if (!wk->q[wk->head + k].stay && fits(s, wk->q[wk->head + k].task, thief))
			i = k;
	if (i == NONE) {
		/* Nothing now: the next task to spare wakes the thief. */
		if (wait_list_add(&wk->hungry, &wk->n_hungry, &wk->hungry_cap, thief))
			locus_act_oom(act);
		amfs_send(act, w, thief, M_NOTHING, 0, 0, 0, 0);
		return;
	}
	struct amfs_queued q = wk->q[wk->head + i];
	unqueue(wk, i);
	locus_act_cancel(act, q.task);
	struct locus_msg a = locus__flow_assign_msg(s->g, w, thief, q.task, q.gather, q.output);
	a.arg[4] = q.fetch;
	a.arg[5] = 0;
	a.n_args = 6;
	locus_act_send(act, &a);
	amfs_send(act, w, p_disp(s, s->tdisp[q.task]), M_MOVED, 0, 2, q.task, thief);
	s->count.steals++;
}

/* ---- its events ------------------------------------------------------------------------------ */

/* An assignment: the task joins the queue, with the ways it was told (a
 * thief is told them again: a process knows what its messages said, not
 * what another process decided). */
static void assigned(struct amfs *s, struct amfs_worker *wk, struct locus_actions *act, uint32_t w,
		     const struct locus_msg *m, double now)
{
	struct amfs_queued q = {.task = (uint32_t)m->arg[0],
				.gather = (uint8_t)m->arg[2],
				.output = (uint8_t)m->arg[3],
				.fetch = (uint8_t)(m->n_args > 4 ? m->arg[4] : F_NONE),
				.stay = (uint8_t)(m->n_args > 5 && m->arg[5])};
	if (enqueue(wk, &q)) {
		locus_act_oom(act);
		return;
	}
	/* Asleep: the looks it slept through first (with the waits they
	 * had), its next one a timer; then the wait starts again. */
	if (wk->asleep)
		wake_up(wk, act, w, now);
	wk->stole = 0;
	wk->steal_wait = 0;
	locus_act_cost(act, s->g->tasks[q.task].n_in + s->g->tasks[q.task].n_out);
	if (heads(wk, q.task))
		head_changed(s, wk, act, w);
	else if (!q.stay)
		wake_thieves(s, wk, act, w); /* a task to spare */
}

static void message(struct amfs *s, struct amfs_worker *wk, struct locus_actions *act, uint32_t w,
		    const struct locus_msg *m, double now)
{
	switch (m->type) {
	case LOCUS_MSG_ASSIGN_FLOW:
		assigned(s, wk, act, w, m, now);
		break;
	case M_LOCATED:
	case M_NOTIFY:
		file_located(s, wk, act, w, m);
		break;
	case M_STEAL:
		give_task(s, wk, act, w, (uint32_t)m->arg[0]);
		break;
	case M_NOTHING:
		if (!wk->len)
			try_steal(s, wk, act, w, now);
		break;
	case M_WAKE:
		if (wk->asleep)
			wake_up(wk, act, w, now);
		break;
	default:
		break;
	}
}

void locus__amfs_worker_event(struct amfs *s, struct amfs_worker *wk, uint32_t w,
			      const struct locus_event *ev, struct locus_actions *act)
{
	switch (ev->kind) {
	case LOCUS_EV_MESSAGE:
		message(s, wk, act, w, ev->msg, ev->now);
		break;
	case LOCUS_EV_START:
		/* Idle from the start: it first looks STEAL_WAIT later, asleep
		 * until a neighbour has a task to spare; under global stealing
		 * (no neighbours to wake it) on a timer. */
		if (locus__amfs_worker_start_acts(s)) {
			wk->steal_wait = STEAL_WAIT;
			locus_act_timer(act, w, STEAL_WAIT, STEAL_TIMER);
			wk->timer_set = 1;
		} else {
			locus__amfs_worker_started(s, wk, ev->now);
		}
		break;
	case LOCUS_EV_TIMER:
		if (ev->tag == STEAL_TIMER) {
			wk->timer_set = 0;
			try_steal(s, wk, act, w, ev->now);
		}
		break;
	case LOCUS_EV_TRANSFER:
		if (TAG_KIND(ev->transfer.tag) == K_FETCH)
			copy_ended(s, wk, act, w, ev);
		break;
	case LOCUS_EV_DONE: {
		uint32_t t = ev->done.task;
		amfs_send(act, w, p_disp(s, s->tdisp[t]), M_DONE, 0, 2, t, node_of(s, w));
		if (heads(wk, t))
			unqueue(wk, 0);
		if (wk->len)
			head_changed(s, wk, act, w);
		else if (s->opt.steal)
			try_steal(s, wk, act, w, ev->now);
		break;
	}
	default:
		break;
	}
}
