/*
 * A Dask.distributed-like scheduler as a baseline workflow policy
 * ("dask"), to compare AME/AMFS's decisions (amfs.c) with what users run
 * today.
 *
 * The system modelled: the distributed scheduler of Dask (Rocklin, "Dask:
 * Parallel Computation with Blocked Algorithms and Task Scheduling",
 * SciPy 2015; github.com/dask/distributed), as distributed/scheduler.py
 * places tasks (decide_worker, worker_objective, get_comm_cost,
 * check_idle_saturated, the task prefixes' duration averages) and
 * distributed/stealing.py balances them (steal_time_ratio's cost levels,
 * balance, move_task_request and move_task_confirm) - read for the ideas,
 * not copied.
 *
 * One scheduler process (on a node without cores when the platform has
 * one). A Dask worker is a node with one thread per core: the Locus
 * worker processes of the node. Everything the scheduler knows comes in
 * messages: a worker says when a task ended, on which core, and how long
 * it computed.
 *
 *  - A task is ready when the tasks writing its inputs have ended; it is
 *    sent at once (tasks queue at workers; no scheduler-side queuing of
 *    root tasks: worker-saturation = inf). The worker: among the nodes
 *    holding one of its dependencies (the produced files it reads; every
 *    node when it has none) the one with the least
 *        occupancy / threads + bytes of dependencies not there / bandwidth
 *    (worker_objective: the estimated start time), ties to the fewest
 *    bytes held, then the lowest id. Workflow inputs (files nobody
 *    produced) are no dependencies: the task reads them where it runs.
 *  - A node's occupancy is what its processing tasks are expected to
 *    take: for each prefix (a task's stage) their number times the
 *    prefix's duration now, plus the bytes they had to fetch over the
 *    bandwidth (WorkerState.occupancy, _calc_occupancy). A prefix's
 *    duration is the average of its measured compute times, each new one
 *    weighing half (TaskPrefix.add_duration), 0.5 s before any
 *    (unknown-task-duration); -o durations=known uses each task's own
 *    cost instead.
 *  - On the node, the task goes to the core with the fewest tasks; its
 *    missing dependencies are fetched from peers as soon as it arrives
 *    (LOCUS_GATHER_AUTO: the worker's gather_dep), and it runs when its
 *    core is free and they are there. The threads of one worker share
 *    its tasks: a core without work takes the next task queued at the
 *    busiest core of its node (a local message).
 *  - Work stealing (steal=1, stealing.py): every steal_interval seconds
 *    (work-stealing-interval, 1 s) while tasks queue, the idle nodes
 *    (fewer processing tasks than threads, or less than half the mean
 *    occupancy) steal from the saturated ones (else the 10 busiest with
 *    more tasks than threads). A task's level is round(log2(ratio) + 6),
 *    ratio = (bytes of its dependencies / bandwidth + 0.1 s) / its
 *    duration (1 .. 14; 0 without dependencies; not stolen from 15 on):
 *    cheap-to-move tasks first; its thief is the idle node minimising the
 *    objective, and it moves when
 *        occ(thief) + comm(thief) + d <= occ(victim) - (comm(victim) + d) / 2
 *    (occupancies with the steals on their way). A task's level is
 *    set when it is sent, and again when its prefix's first duration is
 *    measured. The scheduler asks the victim, which gives the task up
 *    only when it has not started; then it goes to the thief, else it
 *    stays (move_task_confirm's "already computing"). Tasks are looked
 *    at newest first. A dependency still on its way to the victim comes
 *    anyway (the engine's fetch goes on): the victim tells the scheduler
 *    when it has, so that it is deleted with the other copies.
 *  - A produced file is deleted from every node once its last reader has
 *    ended (Dask releases a key no dependent needs); -o keep=1 keeps
 *    them. Outputs stay on the node; those no task reads also go to the
 *    file system (LOCUS_OUTPUT_FINAL).
 *
 * Left out: root-task queuing, memory limits and spilling, limits on
 * concurrent fetches, dependencies fetched while other ready tasks run (a
 * core waits for its next task's inputs), failures.
 *
 * Options: steal=0|1 (1), steal_interval=S (1), durations=learned|known,
 * unknown=S (0.5), bandwidth=B (bytes/s; default the platform's mean
 * bandwidth between nodes, what Dask measures, else 100 MB/s), keep=0|1.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "flow/assign.h"
#include "flow/links.h"
#include "flow/setup.h"
#include "sched/policies.h"

#define NONE UINT32_MAX

/* Stealing levels (stealing.py's cost_multipliers: 15 of them), and the
 * latency its ratio adds to a transfer. */
#define LEVELS	      15
#define STEAL_LATENCY 0.1
#define STEAL_TIMER   1
#define ORPHAN_TIMER  2

/* Messages beside the assignments. */
enum {
	M_DONE = LOCUS_MSG_USER + 1, /* worker -> scheduler: arg0 task, arg1 core; value compute */
	M_MOVED,		     /* worker -> scheduler: arg0 task now on core arg1 */
	M_STEAL,		     /* scheduler -> victim core: give up task arg0? */
	M_ANSWER,		     /* victim -> scheduler: arg0 task, arg1 1 if given up */
	M_HAVE			     /* worker -> scheduler: file arg0 reached node arg1 */
};

/* A task at the scheduler. */
enum { S_WAITING, S_PROCESSING, S_MEMORY };

enum { D_LEARNED, D_KNOWN };

/* A node and its occupancy, to sort the victims busiest first. */
struct busy {
	double occ;
	uint32_t node;
};

struct dask {
	const struct locus_workload *wl;
	const struct locus_graph *g;
	const struct locus_monitor *mon;
	uint32_t nw, nn, nt, no, n_prefixes;
	int steal, keep, durations;
	double interval, unknown, bw;
	/* Nodes (Dask workers): threads; what their occupancy sums (the
	 * known durations, the bytes to fetch, and how many tasks of each
	 * prefix: pcnt[n * P + p], the prefixes with some listed in pact,
	 * ppos their place there; gcnt over all nodes), processing tasks,
	 * what steals on their way add (fl_*), bytes held, stealable tasks
	 * by level (lists of tasks). */
	uint32_t *wfirst, *ncores, *wnodes, n_wnodes;
	double *fixed, *netb, *fl_occ;
	uint32_t *pcnt, *pact, *pact_n, *ppos, *gcnt;
	uint32_t *nproc;
	int32_t *fl_n;
	uint64_t *nbytes;
	uint32_t *st_head, *st_tail;
	double fixed_total, netb_total;
	uint64_t total_threads, queued;
	/* The scheduler's view of each core: its tasks. */
	uint32_t *cproc;
	/* Tasks at the scheduler. */
	uint32_t *unready;
	uint8_t *sst, *slevel;
	uint32_t *snode, *score, *sprev, *snext, *steal_to;
	double *sdur, *snetb, *fl_vd, *fl_td;
	uint32_t done;
	uint32_t *readyq;
	/* Prefixes (stages): mean compute time, < 0 unknown; their tasks
	 * (ptasks[ptask_at[p] .. ptask_at[p + 1])). */
	double *avg;
	uint32_t *ptask_at, *ptasks;
	/* Files: where they are (lists of links: val a node holding the
	 * file, aux 1 when the scheduler was told it holds it: who_has, 0
	 * when a reader was sent there), readers still to end. */
	uint32_t *hold_head, *cons_left;
	struct locus__links links;
	/* The workers' side: each core's tasks in the order they came (the
	 * order it runs them), handoffs on their way to it. */
	uint32_t *lhead, *ltail, *llen, *incoming;
	uint32_t *lprev, *lnext, *wcore;
	/* Each node's dependencies of tasks it gave up that were still on
	 * their way (a list of links, val the file), and whether a core of
	 * it looks for them on a timer. */
	uint32_t *orph_head;
	uint8_t *orph_timer;
	/* Scratch. */
	uint64_t *acc;
	uint32_t *touched, *thieves, *victims;
	struct busy *busy;
	int timer_armed;
	/* What it did. */
	uint64_t assigned, requests, steals, rejects, handoffs, balances, drops, late;
};

/* ---- helpers ----------------------------------------------------------------------------- */

static uint32_t node_of(const struct dask *s, uint32_t w)
{
	return s->wl->worker_node[w];
}

static uint32_t p_sched(const struct dask *s)
{
	return s->nw;
}

static int is_produced(const struct dask *s, uint32_t o)
{
	return s->g->objects[o].producer != LOCUS_NONE;
}

static uint32_t prefix_of(const struct dask *s, uint32_t t)
{
	uint32_t st = s->g->task_stage ? s->g->task_stage[t] : LOCUS_NONE;
	return st == LOCUS_NONE ? s->n_prefixes - 1 : st;
}

static void send(struct locus_actions *act, uint32_t from, uint32_t to, uint32_t type, int64_t a0,
		 int64_t a1, double value)
{
	struct locus_msg m = {.type = type, .from = from, .to = to, .n_args = 2, .value = value};
	m.arg[0] = a0;
	m.arg[1] = a1;
	locus_act_send(act, &m);
}

static void send_task(struct dask *s, struct locus_actions *act, uint32_t from, uint32_t core,
		      uint32_t t)
{
	struct locus_msg m =
	    locus__flow_assign_msg(s->g, from, core, t, LOCUS_GATHER_AUTO, LOCUS_OUTPUT_FINAL);
	locus_act_send(act, &m);
}

/* Node n holds o (told: reported 1) or a reader of o was sent there
 * (reported 0). */
static int hold_add(struct dask *s, uint32_t o, uint32_t n, int reported)
{
	uint32_t l = locus__links_find(&s->links, s->hold_head[o], n);
	if (l == NONE) {
		if ((l = locus__links_new(&s->links, n, 0, s->hold_head[o])) == NONE)
			return LOCUS_ENOMEM;
		s->hold_head[o] = l;
	}
	if (reported && !s->links.cell[l].aux) {
		s->links.cell[l].aux = 1;
		s->nbytes[n] += s->g->objects[o].bytes;
	}
	return 0;
}

/* Processing tasks on node n change by d (queued: those beyond its
 * threads, summed over the nodes). */
static void nproc_add(struct dask *s, uint32_t n, int d)
{
	uint32_t before = s->nproc[n] > s->ncores[n] ? s->nproc[n] - s->ncores[n] : 0;
	s->nproc[n] = (uint32_t)((int64_t)s->nproc[n] + d);
	uint32_t after = s->nproc[n] > s->ncores[n] ? s->nproc[n] - s->ncores[n] : 0;
	s->queued = s->queued + after - before;
}

/* ---- estimates --------------------------------------------------------------------------- */

/* Seconds a task of prefix p is expected to compute (learned). */
static double prefix_duration(const struct dask *s, uint32_t p)
{
	return s->avg[p] >= 0 ? s->avg[p] : s->unknown;
}

/* Seconds task t is expected to compute on node n. */
static double duration(const struct dask *s, uint32_t t, uint32_t n)
{
	if (s->durations == D_KNOWN)
		return locus_workload_cost(s->wl, t, s->wfirst[n]);
	return prefix_duration(s, prefix_of(s, t));
}

/* Node n's occupancy (WorkerState.occupancy, computed as Dask does, with
 * the durations known now): its processing tasks' durations and the
 * transfers they need. */
static double occupancy(const struct dask *s, uint32_t n)
{
	size_t at = (size_t)n * s->n_prefixes;
	double occ = s->fixed[n] + s->netb[n] / s->bw;
	for (uint32_t i = 0; i < s->pact_n[n]; i++)
		occ += s->pcnt[at + s->pact[at + i]] * prefix_duration(s, s->pact[at + i]);
	return occ > 0 ? occ : 0;
}

/* Every node's occupancy, summed. */
static double total_occupancy(const struct dask *s)
{
	double occ = s->fixed_total + s->netb_total / s->bw;
	for (uint32_t p = 0; p < s->n_prefixes; p++)
		occ += s->gcnt[p] * prefix_duration(s, p);
	return occ > 0 ? occ : 0;
}

/* Task t starts (d 1) or stops (d -1) processing on node n. */
static void processing(struct dask *s, uint32_t t, uint32_t n, int d)
{
	nproc_add(s, n, d);
	s->netb[n] += d * s->snetb[t];
	s->netb_total += d * s->snetb[t];
	if (s->durations == D_KNOWN) {
		s->fixed[n] += d * s->sdur[t];
		s->fixed_total += d * s->sdur[t];
		return;
	}
	uint32_t p = prefix_of(s, t);
	size_t at = (size_t)n * s->n_prefixes;
	s->gcnt[p] = (uint32_t)((int64_t)s->gcnt[p] + d);
	if (d > 0 && s->pcnt[at + p]++ == 0) {
		s->ppos[at + p] = s->pact_n[n];
		s->pact[at + s->pact_n[n]++] = p;
	} else if (d < 0 && --s->pcnt[at + p] == 0) {
		uint32_t last = s->pact[at + --s->pact_n[n]];
		s->pact[at + s->ppos[at + p]] = last;
		s->ppos[at + last] = s->ppos[at + p];
	}
}

/* Bytes of t's dependencies (its produced inputs). */
static uint64_t dep_bytes(const struct dask *s, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	uint64_t b = 0;
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (is_produced(s, o))
			b += s->g->objects[o].bytes;
	}
	return b;
}

/* Fills acc[n] with the bytes of t's dependencies each node is known to
 * hold (touched[0 .. return value) the nodes with some). */
static uint32_t held(struct dask *s, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t n_touched = 0;
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (!is_produced(s, o))
			continue;
		for (uint32_t l = s->hold_head[o]; l != NONE; l = s->links.cell[l].next) {
			uint32_t n = s->links.cell[l].val;
			if (!s->links.cell[l].aux)
				continue;
			if (!s->acc[n]) {
				s->touched[n_touched++] = n;
				s->acc[n] = 1; /* marks it; the bytes count from 1 */
			}
			s->acc[n] += s->g->objects[o].bytes;
		}
	}
	return n_touched;
}

static void held_clear(struct dask *s, uint32_t n_touched)
{
	for (uint32_t i = 0; i < n_touched; i++)
		s->acc[s->touched[i]] = 0;
}

/* Seconds to bring t's dependencies that node n lacks (acc filled). */
static double comm(const struct dask *s, uint64_t deps, uint32_t n)
{
	uint64_t have = s->acc[n] ? s->acc[n] - 1 : 0;
	return (double)(deps - have) / s->bw;
}

/* stealing.py's level of t: 0 without dependencies, else
 * round(log2(ratio) + 6) from 1; LEVELS when it is not stolen. */
static uint32_t steal_level(const struct dask *s, uint32_t t, uint32_t n)
{
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t n_deps = 0;
	for (uint32_t k = 0; k < tk->n_in; k++)
		n_deps += is_produced(s, s->g->inputs[tk->in_at + k]);
	if (!n_deps)
		return 0;
	uint64_t deps = dep_bytes(s, t);
	double d = duration(s, t, n);
	if (!(d > 0))
		return LEVELS;
	double ratio = ((double)deps / s->bw + STEAL_LATENCY) / d;
	double level = round(log2(ratio) + 6);
	if (level < 1)
		return 1;
	return level >= LEVELS ? LEVELS : (uint32_t)level;
}

/* ---- stealable lists --------------------------------------------------------------------- */

static void st_push(struct dask *s, uint32_t t, uint32_t n, uint32_t level)
{
	size_t i = (size_t)n * LEVELS + level;
	s->slevel[t] = (uint8_t)level;
	s->snext[t] = NONE;
	s->sprev[t] = s->st_tail[i];
	if (s->sprev[t] != NONE)
		s->snext[s->sprev[t]] = t;
	else
		s->st_head[i] = t;
	s->st_tail[i] = t;
}

static void st_remove(struct dask *s, uint32_t t)
{
	if (s->slevel[t] >= LEVELS)
		return;
	size_t i = (size_t)s->snode[t] * LEVELS + s->slevel[t];
	if (s->sprev[t] != NONE)
		s->snext[s->sprev[t]] = s->snext[t];
	else
		s->st_head[i] = s->snext[t];
	if (s->snext[t] != NONE)
		s->sprev[s->snext[t]] = s->sprev[t];
	else
		s->st_tail[i] = s->sprev[t];
	s->slevel[t] = LEVELS;
}

/* ---- the scheduler ------------------------------------------------------------------------ */

static void arm(struct dask *s, struct locus_actions *act)
{
	if (s->steal && !s->timer_armed && s->queued && s->done < s->nt) {
		locus_act_timer(act, p_sched(s), s->interval, STEAL_TIMER);
		s->timer_armed = 1;
	}
}

/* Task t is processing on node n: to its core with the fewest tasks. */
static void assign(struct dask *s, struct locus_actions *act, uint32_t t, uint32_t n)
{
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t core = s->wfirst[n];
	for (uint32_t c = s->wfirst[n] + 1; c < s->wfirst[n] + s->ncores[n]; c++)
		if (s->cproc[c] < s->cproc[core])
			core = c;
	uint64_t deps = dep_bytes(s, t);
	uint32_t nt = held(s, t);
	s->snetb[t] = (double)deps - (double)(s->acc[n] ? s->acc[n] - 1 : 0);
	s->sdur[t] = duration(s, t, n);
	held_clear(s, nt);
	processing(s, t, n, 1);
	s->cproc[core]++;
	s->score[t] = core;
	s->snode[t] = n;
	s->sst[t] = S_PROCESSING;
	uint32_t level = steal_level(s, t, n);
	s->slevel[t] = LEVELS;
	if (level < LEVELS)
		st_push(s, t, n, level);
	/* Its dependencies come to n: they will be deleted there too. */
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (is_produced(s, o) && hold_add(s, o, n, 0)) {
			locus_act_oom(act);
			return;
		}
	}
	send_task(s, act, p_sched(s), core, t);
	s->assigned++;
	arm(s, act);
}

/* Whether node n can hold task t (its demand; version 6 of the policy
 * protocol): every node when the tasks declare nothing. */
static int holds(const struct dask *s, uint32_t t, uint32_t n)
{
	return !s->g->demand || locus_workload_fits(s->wl, t, n);
}

/* decide_worker: the node where ready task t should start soonest, among
 * those that can hold it (all of them when none of the nodes holding its
 * dependencies can). */
static void decide(struct dask *s, struct locus_actions *act, uint32_t t)
{
	uint64_t deps = dep_bytes(s, t);
	uint32_t nt = held(s, t), best = NONE, n_cand = nt ? nt : s->n_wnodes;
	double best_obj = 0;
	for (int all = 0; all < 2 && best == NONE && (!all || nt); all++) {
		uint32_t m = all ? s->n_wnodes : n_cand;
		for (uint32_t i = 0; i < m; i++) {
			uint32_t n = nt && !all ? s->touched[i] : s->wnodes[i];
			if (!holds(s, t, n))
				continue;
			double obj = occupancy(s, n) / s->ncores[n] + comm(s, deps, n);
			if (best == NONE || obj < best_obj ||
			    (obj == best_obj && (s->nbytes[n] < s->nbytes[best] ||
						 (s->nbytes[n] == s->nbytes[best] && n < best)))) {
				best = n;
				best_obj = obj;
			}
		}
	}
	held_clear(s, nt);
	locus_act_cost(act, (uint64_t)n_cand + s->g->tasks[t].n_in);
	assign(s, act, t, best);
}

static double comb_occ(const struct dask *s, uint32_t n)
{
	return occupancy(s, n) + s->fl_occ[n];
}

/* A node is idle (a possible thief) with fewer processing tasks than
 * threads, or less than half the mean occupancy of a thread `mean`
 * (is_unoccupied). */
static int unoccupied(const struct dask *s, uint32_t n, double mean)
{
	int64_t p = (int64_t)s->nproc[n] + s->fl_n[n];
	return p < (int64_t)s->ncores[n] || comb_occ(s, n) < s->ncores[n] * mean / 2;
}

/* The steal on its way for t is over: what it added goes. */
static void steal_settle(struct dask *s, uint32_t t)
{
	uint32_t thief = s->steal_to[t], victim = s->snode[t];
	s->fl_occ[victim] += s->fl_vd[t];
	s->fl_occ[thief] -= s->fl_td[t];
	s->fl_n[victim]++;
	s->fl_n[thief]--;
	s->steal_to[t] = NONE;
}

/* move_task_request: ask t's core to give it up for `thief`. */
static void steal_request(struct dask *s, struct locus_actions *act, uint32_t t, uint32_t thief,
			  double vd, double td)
{
	uint32_t victim = s->snode[t];
	st_remove(s, t);
	s->fl_vd[t] = vd;
	s->fl_td[t] = td;
	s->fl_occ[victim] -= vd;
	s->fl_occ[thief] += td;
	s->fl_n[victim]--;
	s->fl_n[thief]++;
	s->steal_to[t] = thief;
	send(act, p_sched(s), s->score[t], M_STEAL, t, 0, 0);
	s->requests++;
}

static int cmp_busy(const void *a, const void *b)
{
	const struct busy *x = a, *y = b;
	if (x->occ != y->occ)
		return x->occ > y->occ ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

/* stealing.py's balance, once per interval while tasks queue. */
static void balance(struct dask *s, struct locus_actions *act)
{
	uint32_t n_thieves = 0, n_victims = 0;
	uint64_t examined = 0;
	double mean = total_occupancy(s) / (double)s->total_threads;
	s->balances++;
	for (uint32_t i = 0; i < s->n_wnodes; i++)
		if (unoccupied(s, s->wnodes[i], mean))
			s->thieves[n_thieves++] = s->wnodes[i];
	if (!n_thieves || n_thieves == s->n_wnodes)
		return;
	/* Victims, the busiest first: the saturated (more tasks than
	 * threads, and what waits is long beside the mean), else those of
	 * the ten busiest with more tasks than threads (topk(10)). */
	uint32_t n_busy = 0;
	for (uint32_t i = 0; i < s->n_wnodes; i++) {
		uint32_t n = s->wnodes[i], p = s->nproc[n], nc = s->ncores[n];
		if (p <= nc)
			continue;
		double pending = occupancy(s, n) * (p - nc) / ((double)p * nc);
		if (pending > 0.4 && pending > 1.9 * mean)
			s->busy[n_busy++] = (struct busy){comb_occ(s, n), n};
	}
	int saturated = n_busy > 0;
	if (!saturated)
		for (uint32_t i = 0; i < s->n_wnodes; i++)
			s->busy[n_busy++] = (struct busy){comb_occ(s, s->wnodes[i]), s->wnodes[i]};
	qsort(s->busy, n_busy, sizeof *s->busy, cmp_busy);
	for (uint32_t i = 0; i < n_busy && (saturated || i < 10); i++) {
		uint32_t n = s->busy[i].node;
		if (saturated || (s->busy[i].occ > 0.2 &&
				  (int64_t)s->nproc[n] + s->fl_n[n] > (int64_t)s->ncores[n] &&
				  !unoccupied(s, n, mean)))
			s->victims[n_victims++] = n;
	}
	for (uint32_t level = 0; level < LEVELS && n_thieves; level++) {
		for (uint32_t v = 0; v < n_victims && n_thieves; v++) {
			uint32_t victim = s->victims[v];
			uint32_t t = s->st_tail[(size_t)victim * LEVELS + level];
			while (t != NONE && n_thieves) {
				uint32_t prev = s->sprev[t];
				uint64_t deps = dep_bytes(s, t);
				uint32_t nt = held(s, t), best = NONE, bi = 0;
				double best_obj = 0;
				for (uint32_t i = 0; i < n_thieves; i++) {
					uint32_t n = s->thieves[i];
					if (!holds(s, t, n))
						continue;
					double obj =
					    comb_occ(s, n) / s->ncores[n] + comm(s, deps, n);
					if (best == NONE || obj < best_obj ||
					    (obj == best_obj &&
					     (s->nbytes[n] < s->nbytes[best] ||
					      (s->nbytes[n] == s->nbytes[best] && n < best)))) {
						best = n;
						bi = i;
						best_obj = obj;
					}
				}
				examined += n_thieves;
				if (best == NONE) { /* no thief can hold it */
					held_clear(s, nt);
					t = prev;
					continue;
				}
				double d = duration(s, t, victim), c_thief = comm(s, deps, best),
				       c_victim = comm(s, deps, victim);
				held_clear(s, nt);
				if (comb_occ(s, best) + c_thief + d <=
				    comb_occ(s, victim) - (c_victim + d) / 2) {
					steal_request(s, act, t, best, d + c_victim,
						      duration(s, t, best) + c_thief);
					if (!unoccupied(s, best, mean))
						s->thieves[bi] = s->thieves[--n_thieves];
				}
				t = prev;
			}
		}
	}
	locus_act_cost(act, examined + s->n_wnodes);
}

/* Prefix p's duration is known at last: its stealable tasks move to the
 * level it gives them (stealing.py's unknown_durations). */
static void relevel(struct dask *s, uint32_t p)
{
	if (s->durations == D_KNOWN)
		return;
	for (uint32_t i = s->ptask_at[p]; i < s->ptask_at[p + 1]; i++) {
		uint32_t t = s->ptasks[i];
		if (s->sst[t] != S_PROCESSING || s->steal_to[t] != NONE)
			continue;
		st_remove(s, t);
		uint32_t level = steal_level(s, t, s->snode[t]);
		if (level < LEVELS)
			st_push(s, t, s->snode[t], level);
	}
}

/* Task t ended on core `core` after computing `compute` seconds. */
static void sched_done(struct dask *s, struct locus_actions *act, uint32_t t, uint32_t core,
		       double compute)
{
	if (t >= s->nt || s->sst[t] != S_PROCESSING)
		return;
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t n = s->snode[t], n_ready = 0;
	if (s->steal_to[t] != NONE)
		steal_settle(s, t);
	st_remove(s, t);
	processing(s, t, n, -1);
	if (core < s->nw && s->cproc[core])
		s->cproc[core]--;
	s->sst[t] = S_MEMORY;
	s->done++;
	uint32_t p = prefix_of(s, t);
	if (s->avg[p] < 0) {
		s->avg[p] = compute;
		relevel(s, p);
	} else {
		s->avg[p] = 0.5 * compute + 0.5 * s->avg[p];
	}
	for (uint32_t k = 0; k < tk->n_out; k++) {
		uint32_t o = s->g->outputs[tk->out_at + k];
		const struct locus_object *ob = &s->g->objects[o];
		if (!ob->n_cons)
			continue;
		if (hold_add(s, o, n, 1)) {
			locus_act_oom(act);
			return;
		}
		for (uint32_t j = 0; j < ob->n_cons; j++) {
			uint32_t c = s->g->consumers[ob->cons_at + j];
			if (s->sst[c] == S_WAITING && !--s->unready[c])
				s->readyq[n_ready++] = c;
		}
	}
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (!is_produced(s, o))
			continue;
		/* The worker holds what it read (add-keys). */
		if (hold_add(s, o, n, 1)) {
			locus_act_oom(act);
			return;
		}
		if (--s->cons_left[o] || s->keep)
			continue;
		/* No dependent needs it: released everywhere. */
		uint32_t h, told;
		while (locus__links_pop(&s->links, &s->hold_head[o], &h, &told)) {
			locus_act_drop(act, o, h);
			s->drops++;
			if (told)
				s->nbytes[h] -= s->g->objects[o].bytes;
		}
	}
	for (uint32_t i = 0; i < n_ready; i++)
		decide(s, act, s->readyq[i]);
}

/* The victim's answer to a steal request. */
static void sched_answer(struct dask *s, struct locus_actions *act, uint32_t t, int ok)
{
	if (t >= s->nt || s->steal_to[t] == NONE || s->sst[t] != S_PROCESSING)
		return;
	uint32_t thief = s->steal_to[t], victim = s->snode[t];
	steal_settle(s, t);
	if (!ok) {
		s->rejects++;
		return;
	}
	processing(s, t, victim, -1);
	if (s->cproc[s->score[t]])
		s->cproc[s->score[t]]--;
	s->steals++;
	assign(s, act, t, thief);
}

/* A file a worker gave up waiting for reached its node: known there now,
 * or deleted at once when no reader needs it any more. */
static void sched_have(struct dask *s, struct locus_actions *act, uint32_t o, uint32_t n)
{
	s->late++;
	if (!s->cons_left[o] && !s->keep) {
		locus_act_drop(act, o, n);
		s->drops++;
	} else if (hold_add(s, o, n, 1)) {
		locus_act_oom(act);
	}
}

static void sched_event(struct dask *s, const struct locus_event *ev, struct locus_actions *act)
{
	switch (ev->kind) {
	case LOCUS_EV_START: {
		uint32_t n_ready = 0;
		for (uint32_t t = 0; t < s->nt; t++)
			if (!s->unready[t])
				s->readyq[n_ready++] = t;
		for (uint32_t i = 0; i < n_ready; i++)
			decide(s, act, s->readyq[i]);
		break;
	}
	case LOCUS_EV_MESSAGE: {
		const struct locus_msg *m = ev->msg;
		if (m->type == M_HAVE) {
			if (m->arg[0] >= 0 && (uint64_t)m->arg[0] < s->no && m->arg[1] >= 0 &&
			    (uint64_t)m->arg[1] < s->nn)
				sched_have(s, act, (uint32_t)m->arg[0], (uint32_t)m->arg[1]);
			break;
		}
		if (m->arg[0] < 0 || (uint64_t)m->arg[0] >= s->nt)
			break;
		uint32_t t = (uint32_t)m->arg[0];
		if (m->type == M_DONE) {
			sched_done(s, act, t, (uint32_t)m->arg[1], m->value);
		} else if (m->type == M_MOVED) {
			uint32_t core = (uint32_t)m->arg[1];
			if (s->sst[t] == S_PROCESSING && core < s->nw) {
				if (s->cproc[s->score[t]])
					s->cproc[s->score[t]]--;
				s->cproc[core]++;
				s->score[t] = core;
			}
		} else if (m->type == M_ANSWER) {
			sched_answer(s, act, t, m->arg[1] != 0);
		}
		break;
	}
	case LOCUS_EV_TIMER:
		if (ev->tag == STEAL_TIMER) {
			s->timer_armed = 0;
			if (s->done < s->nt)
				balance(s, act);
			arm(s, act);
		}
		break;
	default:
		break;
	}
}

/* ---- the workers ------------------------------------------------------------------------- */

static void l_append(struct dask *s, uint32_t w, uint32_t t)
{
	s->wcore[t] = w;
	s->lnext[t] = NONE;
	s->lprev[t] = s->ltail[w];
	if (s->lprev[t] != NONE)
		s->lnext[s->lprev[t]] = t;
	else
		s->lhead[w] = t;
	s->ltail[w] = t;
	s->llen[w]++;
}

static void l_remove(struct dask *s, uint32_t t)
{
	uint32_t w = s->wcore[t];
	if (w == NONE)
		return;
	if (s->lprev[t] != NONE)
		s->lnext[s->lprev[t]] = s->lnext[t];
	else
		s->lhead[w] = s->lnext[t];
	if (s->lnext[t] != NONE)
		s->lprev[s->lnext[t]] = s->lprev[t];
	else
		s->ltail[w] = s->lprev[t];
	s->llen[w]--;
	s->wcore[t] = NONE;
}

/* Whether t, queued on core c, surely has not started: a task runs after
 * every one that came before it to its core, so t waits while the one
 * before it has not finished computing. */
static int not_started(const struct dask *s, uint32_t c, uint32_t t)
{
	uint32_t p = s->lprev[t];
	double computed = 1;
	if (s->wcore[t] != c || p == NONE)
		return 0;
	s->mon->placed(s->mon, p, &computed);
	return computed < 1;
}

/* Core w gave up task t: the dependencies of t its node still lacks are
 * on their way there (the engine's fetch goes on); the node tells the
 * scheduler of each when it has come, so that it is deleted with the
 * others (a Dask worker drops what it fetched for a released task). */
static int orphans(struct dask *s, struct locus_actions *act, uint32_t w, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t n = node_of(s, w);
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k], l;
		if (!is_produced(s, o) || locus_replicas_has(s->mon->replicas, o, n))
			continue;
		if ((l = locus__links_new(&s->links, o, 0, s->orph_head[n])) == NONE)
			return LOCUS_ENOMEM;
		s->orph_head[n] = l;
	}
	if (s->orph_head[n] != NONE && !s->orph_timer[n]) {
		locus_act_timer(act, w, s->interval, ORPHAN_TIMER);
		s->orph_timer[n] = 1;
	}
	return 0;
}

/* Core w looks for its node's files on their way: those come are
 * reported, and it looks again later while some are not. */
static void orphans_check(struct dask *s, struct locus_actions *act, uint32_t w)
{
	uint32_t n = node_of(s, w), *at = &s->orph_head[n];
	while (*at != NONE) {
		uint32_t l = *at, o = s->links.cell[l].val;
		if (!locus_replicas_has(s->mon->replicas, o, n)) {
			at = &s->links.cell[l].next;
			continue;
		}
		send(act, w, p_sched(s), M_HAVE, o, n, 0);
		*at = s->links.cell[l].next;
		locus__links_free(&s->links, l);
	}
	s->orph_timer[n] = s->orph_head[n] != NONE;
	if (s->orph_timer[n])
		locus_act_timer(act, w, s->interval, ORPHAN_TIMER);
}

/* Core `to` takes task t queued at a sibling core (`by`, one of the two,
 * acts): t leaves the sibling, comes to `to` by a local message, and the
 * scheduler hears of it. */
static void handoff(struct dask *s, struct locus_actions *act, uint32_t by, uint32_t to, uint32_t t)
{
	locus_act_cancel(act, t);
	l_remove(s, t);
	s->incoming[to]++;
	send_task(s, act, by, to, t);
	send(act, by, p_sched(s), M_MOVED, t, to, 0);
	s->handoffs++;
}

/* A core of node n without work (`idle`, acting as `by`) takes the next
 * task of its busiest sibling that has not started. */
static void share_work(struct dask *s, struct locus_actions *act, uint32_t by, uint32_t idle)
{
	uint32_t n = node_of(s, idle), best = NONE;
	for (uint32_t c = s->wfirst[n]; c < s->wfirst[n] + s->ncores[n]; c++) {
		if (c == idle || s->llen[c] < 2 || !not_started(s, c, s->lnext[s->lhead[c]]))
			continue;
		if (best == NONE || s->llen[c] > s->llen[best])
			best = c;
	}
	if (best != NONE)
		handoff(s, act, by, idle, s->lnext[s->lhead[best]]);
}

static void worker_event(struct dask *s, uint32_t w, const struct locus_event *ev,
			 struct locus_actions *act)
{
	uint32_t n = node_of(s, w);
	if (ev->kind == LOCUS_EV_DONE) {
		uint32_t t = ev->done.task;
		if (t < s->nt)
			l_remove(s, t);
		send(act, w, p_sched(s), M_DONE, t, w, ev->done.compute);
		if (!s->llen[w] && !s->incoming[w])
			share_work(s, act, w, w);
		return;
	}
	if (ev->kind == LOCUS_EV_TIMER && ev->tag == ORPHAN_TIMER) {
		orphans_check(s, act, w);
		return;
	}
	if (ev->kind != LOCUS_EV_MESSAGE)
		return;
	const struct locus_msg *m = ev->msg;
	if (m->arg[0] < 0 || (uint64_t)m->arg[0] >= s->nt)
		return;
	uint32_t t = (uint32_t)m->arg[0];
	if (m->type == LOCUS_MSG_ASSIGN_FLOW) {
		if (m->from < s->nw && s->incoming[w])
			s->incoming[w]--;
		l_append(s, w, t);
		/* It waits behind another task while a sibling has none: the
		 * sibling takes it. */
		if (s->llen[w] < 2 || !not_started(s, w, t))
			return;
		for (uint32_t c = s->wfirst[n]; c < s->wfirst[n] + s->ncores[n]; c++)
			if (c != w && !s->llen[c] && !s->incoming[c]) {
				handoff(s, act, w, c, t);
				return;
			}
	} else if (m->type == M_STEAL) {
		/* Give it up only if it has not started (on this node). */
		uint32_t c = s->wcore[t];
		int ok = c != NONE && node_of(s, c) == n && not_started(s, c, t);
		if (ok) {
			locus_act_cancel(act, t);
			l_remove(s, t);
			if (orphans(s, act, w, t)) {
				locus_act_oom(act);
				return;
			}
		}
		send(act, w, p_sched(s), M_ANSWER, t, ok, 0);
	}
}

static void on_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct dask *s = state;
	if (ev->proc < s->nw)
		worker_event(s, ev->proc, ev, act);
	else
		sched_event(s, ev, act);
}

/* ---- creation ----------------------------------------------------------------------------- */

static void destroy(void *state)
{
	struct dask *s = state;
	if (!s)
		return;
	free(s->wfirst);
	free(s->ncores);
	free(s->wnodes);
	free(s->fixed);
	free(s->netb);
	free(s->fl_occ);
	free(s->pcnt);
	free(s->pact);
	free(s->pact_n);
	free(s->ppos);
	free(s->gcnt);
	free(s->nproc);
	free(s->fl_n);
	free(s->nbytes);
	free(s->st_head);
	free(s->st_tail);
	free(s->cproc);
	free(s->unready);
	free(s->sst);
	free(s->slevel);
	free(s->snode);
	free(s->score);
	free(s->sprev);
	free(s->snext);
	free(s->steal_to);
	free(s->sdur);
	free(s->snetb);
	free(s->fl_vd);
	free(s->fl_td);
	free(s->readyq);
	free(s->avg);
	free(s->ptask_at);
	free(s->ptasks);
	free(s->hold_head);
	free(s->cons_left);
	locus__links_fini(&s->links);
	free(s->lhead);
	free(s->ltail);
	free(s->llen);
	free(s->incoming);
	free(s->lprev);
	free(s->lnext);
	free(s->wcore);
	free(s->orph_head);
	free(s->orph_timer);
	free(s->acc);
	free(s->touched);
	free(s->thieves);
	free(s->victims);
	free(s->busy);
	free(s);
}

#define ALLOC(p, n) ((p) = locus__calloc((n) ? (n) : 1, sizeof *(p)))

static int alloc_arrays(struct dask *s);
static int start_state(struct dask *s);

static int create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	static const char *const durations[] = {"learned", "known", NULL};
	const struct locus_workload *wl = ctx->wl;
	double steal, keep, interval, unknown, bw;
	int dur, rc;
	*state = NULL;
	double mean_bw = wl->mean_bw > 0 ? wl->mean_bw : 1e8;
	if ((rc = locus_kv_double(ctx->opts, "steal", 1, 0, 1, &steal, err)) ||
	    (rc = locus_kv_double(ctx->opts, "steal_interval", 1, 1e-6, 1e6, &interval, err)) ||
	    (rc = locus_kv_choice(ctx->opts, "durations", durations, D_LEARNED, &dur, err)) ||
	    (rc = locus_kv_double(ctx->opts, "unknown", 0.5, 0, 1e6, &unknown, err)) ||
	    (rc = locus_kv_double(ctx->opts, "bandwidth", mean_bw, 1, 1e15, &bw, err)) ||
	    (rc = locus_kv_double(ctx->opts, "keep", 0, 0, 1, &keep, err)))
		return rc;
	if (steal != 0 && steal != 1)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy dask: steal is 0 (no work stealing) or 1, got %g", steal);
	if ((rc = locus__flow_check_keep(keep, "dask", err)))
		return rc;
	if ((rc = locus__flow_check_central(ctx, "dask", "runs one scheduler: expected 1",
					    "with a monitor", err)))
		return rc;
	struct dask *s = calloc(1, sizeof *s);
	if (!s)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	s->wl = wl;
	s->g = wl->graph;
	s->mon = ctx->monitor;
	s->nw = (uint32_t)ctx->n_workers;
	s->nn = (uint32_t)wl->platform->n_nodes;
	s->nt = (uint32_t)s->g->n_tasks;
	s->no = (uint32_t)s->g->n_objects;
	s->n_prefixes = (uint32_t)s->g->n_stages + 1;
	s->steal = steal > 0;
	s->keep = keep > 0;
	s->durations = dur;
	s->interval = interval;
	s->unknown = unknown;
	s->bw = bw;
	locus__links_init(&s->links);
	if (alloc_arrays(s) || start_state(s)) {
		destroy(s);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	*state = s;
	return 0;
}

/* The instance's arrays, zeroed: 0, or LOCUS_ENOMEM. */
static int alloc_arrays(struct dask *s)
{
	uint32_t nn = s->nn, nt = s->nt, no = s->no, nw = s->nw;
	ALLOC(s->wfirst, nn);
	ALLOC(s->ncores, nn);
	ALLOC(s->wnodes, nn);
	size_t n_counts = (size_t)nn * s->n_prefixes;
	ALLOC(s->fixed, nn);
	ALLOC(s->netb, nn);
	ALLOC(s->fl_occ, nn);
	ALLOC(s->pcnt, n_counts);
	ALLOC(s->pact, n_counts);
	ALLOC(s->pact_n, nn);
	ALLOC(s->ppos, n_counts);
	ALLOC(s->gcnt, s->n_prefixes);
	ALLOC(s->nproc, nn);
	ALLOC(s->fl_n, nn);
	ALLOC(s->nbytes, nn);
	size_t n_lists = (size_t)nn * LEVELS;
	ALLOC(s->st_head, n_lists);
	ALLOC(s->st_tail, n_lists);
	ALLOC(s->cproc, nw);
	ALLOC(s->unready, nt);
	ALLOC(s->sst, nt);
	ALLOC(s->slevel, nt);
	ALLOC(s->snode, nt);
	ALLOC(s->score, nt);
	ALLOC(s->sprev, nt);
	ALLOC(s->snext, nt);
	ALLOC(s->steal_to, nt);
	ALLOC(s->sdur, nt);
	ALLOC(s->snetb, nt);
	ALLOC(s->fl_vd, nt);
	ALLOC(s->fl_td, nt);
	ALLOC(s->readyq, nt);
	ALLOC(s->avg, s->n_prefixes);
	ALLOC(s->ptask_at, s->n_prefixes + 1);
	ALLOC(s->ptasks, nt);
	ALLOC(s->hold_head, no);
	ALLOC(s->cons_left, no);
	ALLOC(s->lhead, nw);
	ALLOC(s->ltail, nw);
	ALLOC(s->llen, nw);
	ALLOC(s->incoming, nw);
	ALLOC(s->lprev, nt);
	ALLOC(s->lnext, nt);
	ALLOC(s->wcore, nt);
	ALLOC(s->orph_head, nn);
	ALLOC(s->orph_timer, nn);
	ALLOC(s->acc, nn);
	ALLOC(s->touched, nn);
	ALLOC(s->thieves, nn);
	ALLOC(s->victims, nn);
	ALLOC(s->busy, nn);
	if (!s->wfirst || !s->ncores || !s->wnodes || !s->fixed || !s->netb || !s->fl_occ ||
	    !s->pcnt || !s->pact || !s->pact_n || !s->ppos || !s->gcnt || !s->nproc || !s->fl_n ||
	    !s->nbytes || !s->st_head || !s->st_tail || !s->cproc || !s->unready || !s->sst ||
	    !s->slevel || !s->snode || !s->score || !s->sprev || !s->snext || !s->steal_to ||
	    !s->sdur || !s->snetb || !s->fl_vd || !s->fl_td || !s->readyq || !s->avg ||
	    !s->ptask_at || !s->ptasks || !s->hold_head || !s->cons_left || !s->lhead ||
	    !s->ltail || !s->llen || !s->incoming || !s->lprev || !s->lnext || !s->wcore ||
	    !s->orph_head || !s->orph_timer || !s->acc || !s->touched || !s->thieves ||
	    !s->victims || !s->busy) {
		return LOCUS_ENOMEM;
	}
	return 0;
}

/* Nothing processing, nothing held: each node's cores, each prefix's
 * tasks, each task's dependencies not ready. 0, or LOCUS_ENOMEM. */
static int start_state(struct dask *s)
{
	uint32_t nn = s->nn, nt = s->nt, no = s->no, nw = s->nw;
	size_t n_lists = (size_t)nn * LEVELS;
	locus__flow_node_cores(s->wl, nw, s->wfirst, s->ncores);
	for (uint32_t n = 0; n < nn; n++)
		s->orph_head[n] = NONE;
	for (size_t i = 0; i < n_lists; i++)
		s->st_head[i] = s->st_tail[i] = NONE;
	for (uint32_t w = 0; w < nw; w++)
		s->lhead[w] = s->ltail[w] = NONE;
	for (uint32_t n = 0; n < nn; n++)
		if (s->ncores[n]) {
			s->wnodes[s->n_wnodes++] = n;
			s->total_threads += s->ncores[n];
		}
	for (uint32_t p = 0; p < s->n_prefixes; p++)
		s->avg[p] = -1;
	for (uint32_t t = 0; t < nt; t++)
		s->ptask_at[prefix_of(s, t) + 1]++;
	for (uint32_t p = 0; p < s->n_prefixes; p++)
		s->ptask_at[p + 1] += s->ptask_at[p];
	uint32_t *fill = locus__calloc(s->n_prefixes, sizeof *fill);
	if (!fill)
		return LOCUS_ENOMEM;
	for (uint32_t t = 0; t < nt; t++) {
		uint32_t p = prefix_of(s, t);
		s->ptasks[s->ptask_at[p] + fill[p]++] = t;
	}
	free(fill);
	for (uint32_t o = 0; o < no; o++) {
		s->hold_head[o] = NONE;
		s->cons_left[o] = s->g->objects[o].n_cons;
	}
	for (uint32_t t = 0; t < nt; t++) {
		const struct locus_task *tk = &s->g->tasks[t];
		s->snode[t] = s->score[t] = s->steal_to[t] = s->wcore[t] = NONE;
		s->sprev[t] = s->snext[t] = s->lprev[t] = s->lnext[t] = NONE;
		s->slevel[t] = LEVELS;
		for (uint32_t k = 0; k < tk->n_in; k++)
			s->unready[t] += is_produced(s, s->g->inputs[tk->in_at + k]);
	}
	return 0;
}

static void stats(void *state, struct locus_policy_stats *out)
{
	struct dask *s = state;
	/* late_copies: dependencies that reached a node after it gave up
	 * the task they were for. */
	static const char *const names[] = {"assigned", "steal_requests", "steals", "steal_rejects",
					    "handoffs", "balances",	  "drops",  "late_copies"};
	uint64_t vals[] = {s->assigned, s->requests, s->steals, s->rejects,
			   s->handoffs, s->balances, s->drops,	s->late};
	locus__flow_counters(out, names, vals, LOCUS__ARRAY_LEN(vals));
}

const struct locus_policy locus__policy_dask = {
    .version = LOCUS_POLICY_VERSION,
    .name = "dask",
    .summary = "Dask.distributed-like scheduler: earliest start, queues at workers, work "
	       "stealing (workflows)",
    .schedulers = locus__flow_one_scheduler,
    .create = create,
    .destroy = destroy,
    .on_event = on_event,
    .stats = stats,
    .flags = LOCUS_POLICY_GRAPHS,
    .options = "steal=0|1, steal_interval=S, durations=learned|known, unknown=S, "
	       "bandwidth=B, keep=0|1",
    .scheduler_node = locus__flow_one_scheduler_node,
    .needs = LOCUS_NEEDS_FLOW | LOCUS_NEEDS_CANCEL | LOCUS_NEEDS_COPIES,
};
