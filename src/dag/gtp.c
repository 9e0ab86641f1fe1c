/*
 * GTP, GTP/c, GTP/r, GTP/c/r (Hernandez and Cole; ../shared/papers/gtp.txt,
 * sections 3 to 5) and DLS/sr (section 6): reactive DAG scheduling by the
 * cyclic use of a static mapping (docs/sim.md).
 *
 * The first schedule is HEFT's without insertion (upward ranks with mean
 * costs, earliest finish time, each task after its processor's last), sent
 * to the workers as the heft policy sends it, so with no rescheduling
 * point before the end the run is heft's (-o insertion=0). Then, at every
 * rescheduling point (a period, and on events with on=speed|fail|all),
 * the scheduler reads the situated task graph from the engine's monitor -
 * Pi (where each task is placed: it has begun to gather its inputs, or to
 * run), kappa^c (the fraction of each task computed), kappa^d (the
 * fraction of each input on its task's node), avail^t and bandwidth^t -
 * and maps every unfinished task again, in the order of the upward ranks,
 * by Eqs. 3 to 11:
 *   C   = StartUp + data (1 - kappa^d) / bandwidth^t        (3, 4)
 *   EST = t for a task started on that processor             (5)
 *       = max(PA, DA) otherwise                              (6)
 *   PA  = the latest EFT mapped on the processor             (7)
 *   DA  = max over the inputs of EFT(pred) + C               (8)
 *   EFT = t for a finished task, else EST + W^t              (9, 10)
 *   W^t = W (1 - kappa^c) / avail^t                          (11)
 * A placed task mapped elsewhere migrates: the engine cancels it and it
 * restarts from scratch on its new processor, where kappa^c and kappa^d
 * count as 0 (section 3.3). GTP regathers every input from its producer's
 * processor, even one its new node holds a copy of (GTP keeps no copies:
 * the copy is dropped and the input sent again; only the producer's own
 * node has it for nothing); GTP/c (section 4) keeps every complete copy
 * as a source (Omega: the nodes holding the object) and takes each input
 * from the cheapest (CM, Eqs. 12 and 13), one on the node for nothing. A
 * task not placed yet has gathered nothing: moving it is no migration,
 * and what its new node has of an input, or is receiving, counts.
 *
 * What the engine needs to keep to the new schedule: each worker runs its
 * assignments in the order they came, so at a rescheduling point the
 * tasks of a worker whose sequence changed are withdrawn after the part
 * that stays the same, and sent again in the new order (every sequence
 * follows one topological order, so no worker waits for a task queued
 * behind its own). A task that has started and stays on its processor
 * heads that processor's sequence (the costing let it carry on: Eq. 5),
 * so it is never withdrawn to be run again from scratch there. A
 * withdrawn task that stays where it was keeps what it had gathered; a
 * migrated task's inputs that exist are sent to its new node from the
 * source the variant names (send).
 *
 * GTP and GTP/c do not place a lost task again: a failure that loses a
 * task or the data a task still needs ends the run with a result that
 * says which (LOCUS_POLICY_RETRIES is not set). GTP/r and GTP/c/r place
 * lost tasks again and rewind (section 5, rewind_failed). DLS/sr starts
 * from DLS's plan and, when a task ends later than its spare time, maps
 * what is left by DLS's dynamic levels with the same cost equations.
 *
 * On a shared network (not the paper's contention-free links) the costing
 * books every transfer on the resources it crosses - the source's disk
 * and interface, the reader's interface, the racks' uplinks, the backbone
 * - in the first gap where its rate fits (arrival), so transfers that
 * share an interface queue in the estimate as they do in the run; and a
 * point costs the schedule in force the same way and keeps it unless the
 * new mapping is estimated to end sooner by a fraction `gain` (the
 * guard). Without both, GTP remapped at every point on estimates that
 * assumed free links, and migrated without end (issue 27).
 *
 * Options: period=SECONDS (default: a tenth of the first schedule's
 * makespan), on=none|speed|fail|all (also reschedule when a node's speed
 * or a link's bandwidth changes, when a node goes down or up, or both;
 * default speed: docs/results/gtp.md measured it ahead of every period;
 * on=none is the paper's periodic rescheduling), guard=auto|on|off (the
 * guard above; auto: on a shared network only, so the paper's GTP is
 * unchanged on contention-free links), gain=FRACTION (the guard's least
 * estimated gain, default 0.3: docs/results/gtp.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "dag/gtp.h"
#include "locus/dag.h"
#include "sched/policies.h"

#define TIMER_TAG 1
/* guard: the least relative gain in estimated makespan for which a point
 * replaces the schedule in force (gain=FRACTION). */
#define DEFAULT_GAIN 0.3
#define MSG_FAILED   1 /* arg[1] of a worker's message: a task's attempt failed */

struct gtp {
	const struct locus_workload *wl;
	const struct locus_graph *g;
	const struct locus_monitor *mon;
	uint32_t nw, n;
	int copies;	       /* GTP/c */
	int rewind;	       /* GTP/r, GTP/c/r */
	int dls;	       /* DLS/sr: DLS mappings, rescheduling on slack */
	int on_speed, on_fail; /* reschedule on events too */
	double period;
	int finished; /* every task done: no more timers */
	/* The tasks by decreasing upward rank (ties: topological order). */
	uint32_t *order;
	/* The schedule in force: each task's worker and, per worker, its
	 * tasks in the order they were sent (a list through next). */
	uint32_t *mu, *next, *head, *tail;
	/* Scratch of a rescheduling point. */
	uint32_t *pi, *newmu, *seq, *seq_at, *fill;
	double *kc, *eft, *pa, *avail;
	uint8_t *done;
	uint8_t *handled;   /* per worker: its failure was rewound */
	uint8_t *rewound;   /* per task, at a point */
	uint8_t *level_hit; /* per DAG level: some task there was rewound */
	double planned;
	/* What it did (docs/sim.md): rescheduling points, those that changed
	 * the schedule, migrations, bytes sent again because of them. */
	uint64_t points, remaps, migrations, resent, sent;
	/* GTP/r: tasks rewound (RT) and the DAG levels they were on (RL). */
	uint64_t rt, rl;
	/* The order the last mapping took the tasks in (a topological one). */
	uint32_t *morder;
	/* DLS/sr: static levels, the planned start and finish of each task,
	 * its spare time, whether a point is asked for, and scratch. */
	double *sl, *est, *spare;
	uint8_t *mapped;
	uint32_t *ready;
	/* Per ready slot of map_dls: the task's mean cost, its data's arrival
	 * and cost on each worker (rows of nw), its best worker and level
	 * there. */
	double *rmean, *rdl, *rda, *rcost;
	uint32_t *rw, rows_cap;
	int asked;
	uint64_t triggers;
	/* A shared network (not contention-free links): transfers queue on
	 * what they cross - the source's disk and interface, the reader's
	 * interface, the racks' uplinks, the backbone - and the costing
	 * books them: each resource (numbered as in res_of) a lane of the
	 * spans it is taken, a transfer in the first gap of all its
	 * resources from when it is ready (insertion, so one booked late
	 * does not hold back one ready sooner). undo: the lanes a candidate
	 * booked, to take back. A point keeps the schedule in force unless
	 * the new one is estimated to end sooner (guard). */
	int shared, guard;
	double gain; /* the least relative gain in estimated makespan taken */
	uint32_t nn, n_racks, *rack, n_lanes;
	struct lane {
		double *at; /* start, end, rate triples */
		uint32_t n, cap;
	} * lanes;
	uint32_t *src; /* GTP/c: by object, the copy the mapping read it from */
	/* What one event computes once (what the engine reports does not
	 * change during it), each valid where its gen array holds `event`:
	 * the pairs' bandwidth (pair_bw_now: bw_at[a * nodes + b]), and under
	 * GTP/c on contention-free links when a done input o reaches node n,
	 * t staying or migrating (cm_at[(o * nodes + n) * 2 + migrates]),
	 * rather than for every task and processor. NULL: too many to keep. */
	double *bw_at, *cm_at;
	uint32_t *bw_gen, *cm_gen, event;
	uint32_t *undo;
	size_t n_undo, undo_cap;
	int oom;
	int booking;		 /* map_all books transfers */
	double est_new, est_cur; /* the estimated makespans of the last point */
	uint64_t kept;		 /* points that kept the schedule (guard) */
	/* The tests' view of the costing (gtp.h), or NULL; the length of
	 * the graph's inputs (rows of watch->input). */
	struct locus__gtp_watch *watch;
	size_t n_inputs;
};

static size_t gtp_schedulers(size_t n_workers, size_t requested)
{
	return 1;
}

struct rank_key {
	double rank;
	uint32_t topo, task;
};

static int cmp_key(const void *a, const void *b)
{
	const struct rank_key *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	return x->topo < y->topo ? -1 : x->topo > y->topo;
}

static void destroy(void *state)
{
	struct gtp *s = state;
	if (!s)
		return;
	free(s->order);
	free(s->mu);
	free(s->next);
	free(s->head);
	free(s->tail);
	free(s->pi);
	free(s->newmu);
	free(s->seq);
	free(s->seq_at);
	free(s->fill);
	free(s->kc);
	free(s->eft);
	free(s->pa);
	free(s->avail);
	free(s->done);
	free(s->handled);
	free(s->rewound);
	free(s->level_hit);
	free(s->morder);
	free(s->sl);
	free(s->est);
	free(s->spare);
	free(s->mapped);
	free(s->ready);
	free(s->rmean);
	free(s->rdl);
	free(s->rda);
	free(s->rcost);
	free(s->rw);
	free(s->rack);
	for (uint32_t r = 0; s->lanes && r < s->n_lanes; r++)
		free(s->lanes[r].at);
	free(s->lanes);
	free(s->src);
	free(s->cm_at);
	free(s->cm_gen);
	free(s->bw_at);
	free(s->bw_gen);
	free(s->undo);
	free(s);
}

struct rack_key {
	const char *name;
	uint32_t node;
};

static int cmp_rack(const void *a, const void *b)
{
	const struct rack_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* On a shared network: each node's rack index and the booking arrays.
 * Returns 0 or LOCUS_ENOMEM. */
static int shared_init(struct gtp *s)
{
	const struct locus_platform *p = s->wl->platform;
	s->nn = (uint32_t)p->n_nodes;
	struct rack_key *k = malloc((s->nn ? s->nn : 1) * sizeof *k);
	s->rack = malloc((s->nn ? s->nn : 1) * sizeof *s->rack);
	if (!k || !s->rack) {
		free(k);
		return LOCUS_ENOMEM;
	}
	for (uint32_t n = 0; n < s->nn; n++)
		k[n] = (struct rack_key){p->nodes[n].rack, n};
	qsort(k, s->nn, sizeof *k, cmp_rack);
	s->n_racks = 0;
	for (uint32_t i = 0; i < s->nn; i++) {
		if (i && strcmp(k[i].name, k[i - 1].name))
			s->n_racks++;
		s->rack[k[i].node] = s->n_racks;
	}
	s->n_racks += s->nn > 0;
	free(k);
	s->n_lanes = 3 * s->nn + 2 * s->n_racks + 1;
	s->lanes = calloc(s->n_lanes, sizeof *s->lanes);
	/* A candidate books at most 6 resources an input. */
	uint32_t most = 0;
	for (uint32_t t = 0; t < s->n; t++)
		if (s->g->tasks[t].n_in > most)
			most = s->g->tasks[t].n_in;
	s->undo_cap = (size_t)6 * most + 6;
	s->undo = malloc(s->undo_cap * sizeof *s->undo);
	s->src = malloc((s->g->n_objects ? s->g->n_objects : 1) * sizeof *s->src);
	for (size_t o = 0; s->src && o < s->g->n_objects; o++)
		s->src[o] = LOCUS_NONE;
	return s->lanes && s->undo && s->src ? 0 : LOCUS_ENOMEM;
}

/* What an event computes once (struct gtp's bw_at, cm_at), where it fits:
 * the pairs' bandwidth up to 1 Mi pairs, GTP/c's arrivals of done inputs
 * on contention-free links up to 16 Mi entries (else each is computed
 * where it is needed). Returns 0 or LOCUS_ENOMEM. */
static int caches_init(struct gtp *s)
{
	/* Generation 0 is no one's: the caches start empty. */
	s->event = 1;
	size_t nodes = s->wl->platform->n_nodes, pairs = nodes * nodes;
	if (pairs && pairs <= ((size_t)1 << 20)) {
		s->bw_at = malloc(pairs * sizeof *s->bw_at);
		s->bw_gen = calloc(pairs, sizeof *s->bw_gen);
		if (!s->bw_at || !s->bw_gen)
			return LOCUS_ENOMEM;
	}
	size_t cm = (size_t)s->g->n_objects * nodes * 2;
	if (s->copies && !s->shared && cm && cm <= ((size_t)1 << 24)) {
		s->cm_at = malloc(cm * sizeof *s->cm_at);
		s->cm_gen = calloc(cm, sizeof *s->cm_gen);
		if (!s->cm_at || !s->cm_gen)
			return LOCUS_ENOMEM;
	}
	return 0;
}

static void plan_spare(struct gtp *s);

static int create(void **state, const struct locus_policy_ctx *ctx, int copies, int rewind, int dls,
		  struct locus_error *err)
{
	static const char *const ons[] = {"none", "speed", "fail", "all", NULL};
	const char *name = dls	    ? "dls-sr"
			   : copies ? (rewind ? "gtp-c-r" : "gtp-c")
				    : (rewind ? "gtp-r" : "gtp");
	static const char *const guards[] = {"auto", "on", "off", NULL};
	double period = 0, gain = DEFAULT_GAIN;
	int on = 0, guard = 0, rc;
	*state = NULL;
	if (!dls && ((rc = locus_kv_double(ctx->opts, "period", 0, 0, 1e15, &period, err)) ||
		     (rc = locus_kv_choice(ctx->opts, "on", ons, 1, &on, err)) ||
		     (rc = locus_kv_choice(ctx->opts, "guard", guards, 0, &guard, err)) ||
		     (rc = locus_kv_double(ctx->opts, "gain", DEFAULT_GAIN, 0, 1, &gain, err))))
		return rc;
	const char *unknown = locus_kv_unused(ctx->opts);
	if (unknown)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s: unknown option \"%s\" (it takes %s)", name, unknown,
				  dls ? "none"
				      : "period=SECONDS, on=none|speed|fail|all, "
					"guard=auto|on|off, gain=FRACTION");
	if (ctx->n_schedulers != 1 || ctx->n_workers != ctx->wl->n_workers)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s runs one scheduler on the workload's workers", name);
	if (!ctx->monitor)
		return locus__err(err, LOCUS_ENOTSUP, NULL, 0, 0,
				  "policy %s needs an engine with a monitor", name);
	struct gtp *s = calloc(1, sizeof *s);
	if (!s)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	s->wl = ctx->wl;
	s->g = ctx->wl->graph;
	s->mon = ctx->monitor;
	s->nw = (uint32_t)ctx->n_workers;
	s->n = (uint32_t)ctx->wl->n_tasks;
	s->copies = copies;
	s->rewind = rewind;
	s->dls = dls;
	s->on_speed = on == 1 || on == 3;
	s->on_fail = on == 2 || on == 3;
	s->shared = !dls && s->wl->platform->network != LOCUS_NET_PAIRS;
	s->guard = !dls && (guard == 1 || (guard == 0 && s->shared));
	s->gain = gain;
	if ((s->shared && shared_init(s)) || caches_init(s)) {
		destroy(s);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	for (uint32_t t = 0; t < s->n; t++) {
		const struct locus_task *tk = &s->g->tasks[t];
		if ((size_t)tk->in_at + tk->n_in > s->n_inputs)
			s->n_inputs = (size_t)tk->in_at + tk->n_in;
	}
	size_t n = s->n ? s->n : 1, nw = s->nw ? s->nw : 1;
	s->order = malloc(n * sizeof *s->order);
	s->mu = malloc(n * sizeof *s->mu);
	s->next = malloc(n * sizeof *s->next);
	s->head = malloc(nw * sizeof *s->head);
	s->tail = malloc(nw * sizeof *s->tail);
	s->pi = malloc(n * sizeof *s->pi);
	s->newmu = malloc(n * sizeof *s->newmu);
	s->seq = malloc(n * sizeof *s->seq);
	s->seq_at = malloc((nw + 1) * sizeof *s->seq_at);
	s->fill = malloc(nw * sizeof *s->fill);
	s->kc = malloc(n * sizeof *s->kc);
	s->eft = malloc(n * sizeof *s->eft);
	s->pa = malloc(nw * sizeof *s->pa);
	s->avail = malloc(nw * sizeof *s->avail);
	s->done = calloc(n, 1);
	s->handled = calloc(nw, 1);
	s->rewound = calloc(n, 1);
	s->level_hit = calloc(s->g->n_levels ? s->g->n_levels : 1, 1);
	s->morder = malloc(n * sizeof *s->morder);
	s->sl = malloc(n * sizeof *s->sl);
	s->est = malloc(n * sizeof *s->est);
	s->spare = malloc(n * sizeof *s->spare);
	s->mapped = calloc(n, 1);
	s->ready = malloc(n * sizeof *s->ready);
	double *rank = malloc(n * sizeof *rank);
	struct rank_key *keys = malloc(n * sizeof *keys);
	if (!s->order || !s->mu || !s->next || !s->head || !s->tail || !s->pi || !s->newmu ||
	    !s->seq || !s->seq_at || !s->fill || !s->kc || !s->eft || !s->pa || !s->avail ||
	    !s->done || !s->handled || !s->rewound || !s->level_hit || !s->morder || !s->sl ||
	    !s->est || !s->spare || !s->mapped || !s->ready || !rank || !keys) {
		free(rank);
		free(keys);
		destroy(s);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	/* The upward ranks (Eqs. 1, 2), and the order of mapping. */
	if ((rc = locus_dag_upward_rank(s->wl, rank))) {
		free(rank);
		free(keys);
		destroy(s);
		return locus__err(err, rc, NULL, 0, 0, "policy %s: cannot rank the tasks", name);
	}
	for (uint32_t k = 0; k < s->n; k++) {
		uint32_t t = s->g->topo[k];
		keys[t] = (struct rank_key){rank[t], k, t};
	}
	qsort(keys, s->n, sizeof *keys, cmp_key);
	for (uint32_t k = 0; k < s->n; k++)
		s->order[k] = keys[k].task;
	free(rank);
	free(keys);
	/* The first schedule: HEFT without insertion (DLS for DLS/sr). */
	struct locus_dag_options opt = {.insertion = 0};
	struct locus_dag_plan *plan = NULL;
	if ((rc = locus_dag_plan(&plan, s->wl, dls ? LOCUS_DAG_DLS : LOCUS_DAG_HEFT, &opt, err))) {
		destroy(s);
		return rc;
	}
	for (uint32_t k = 0; k < s->n; k++)
		s->morder[k] = plan->placed[k];
	for (uint32_t t = 0; t < s->n; t++) {
		s->sl[t] = plan->priority[t]; /* DLS: the static level */
		s->est[t] = plan->slot[t].start;
		s->eft[t] = plan->slot[t].finish;
		s->newmu[t] = plan->slot[t].proc;
	}
	for (uint32_t w = 0; w < s->nw; w++)
		s->head[w] = s->tail[w] = LOCUS_NONE;
	for (uint32_t t = 0; t < s->n; t++)
		s->mu[t] = s->next[t] = LOCUS_NONE;
	for (uint32_t w = 0; w < s->nw; w++)
		for (uint32_t k = plan->order_at[w]; k < plan->order_at[w + 1]; k++) {
			uint32_t t = plan->order[k];
			s->mu[t] = w;
			if (s->tail[w] == LOCUS_NONE)
				s->head[w] = t;
			else
				s->next[s->tail[w]] = t;
			s->tail[w] = t;
		}
	s->planned = plan->makespan;
	s->period = period > 0 ? period : plan->makespan / 10;
	locus_dag_plan_destroy(plan);
	if (dls) {
		/* The spare times of the plan, at nominal speeds. */
		for (uint32_t w = 0; w < s->nw; w++)
			s->avail[w] = 1;
		plan_spare(s);
	}
	if (!(s->period > 0))
		s->period = 1;
	*state = s;
	return 0;
}

/* ---- the costs of a rescheduling point --------------------------------------- */

static uint32_t node_of(const struct gtp *s, uint32_t w)
{
	return s->wl->worker_node[w];
}

/* Eq. 3: moving `left` bytes from node a to node b, a transfer begun
 * (no start-up) or not. */
/* The bandwidth from node a to node b now: the monitor's, asked once an
 * event for each pair (a point asks it for every input of every task on
 * every processor). */
static double pair_bw_now(struct gtp *s, uint32_t a, uint32_t b)
{
	if (!s->bw_at)
		return s->mon->pair_bw(s->mon, a, b);
	size_t at = (size_t)a * s->wl->platform->n_nodes + b;
	if (s->bw_gen[at] != s->event) {
		s->bw_gen[at] = s->event;
		s->bw_at[at] = s->mon->pair_bw(s->mon, a, b);
	}
	return s->bw_at[at];
}

static double comm(struct gtp *s, double left, uint32_t a, uint32_t b, int begun)
{
	if (a == b || !(left > 0))
		return 0;
	double bw = pair_bw_now(s, a, b);
	if (!(bw > 0))
		return INFINITY;
	return (begun ? 0 : s->wl->platform->latency) + left / bw;
}

/* The resources a transfer from node a to node b crosses on a shared
 * network, into r (at most 6): a's disk and interface out, b's interface
 * in, the racks' uplinks between racks, the backbone (as the simulator
 * routes it). Returns how many. */
static uint32_t res_of(const struct gtp *s, uint32_t a, uint32_t b, uint32_t *r)
{
	const struct locus_platform *p = s->wl->platform;
	uint32_t n = 0, nn = s->nn;
	r[n++] = a;
	r[n++] = nn + a;
	r[n++] = 2 * nn + b;
	if (p->rack_bw > 0 && s->rack[a] != s->rack[b]) {
		r[n++] = 3 * nn + 2 * s->rack[a];
		r[n++] = 3 * nn + 2 * s->rack[b] + 1;
	}
	if (p->backbone_bw > 0)
		r[n++] = 3 * nn + 2 * s->n_racks;
	return n;
}

/* The capacity of resource r of res_of, bytes/s, now. */
static double lane_cap(const struct gtp *s, uint32_t r)
{
	const struct locus_platform *p = s->wl->platform;
	uint32_t nn = s->nn;
	if (r < nn)
		return p->nodes[r].disk_bw;
	if (r < 3 * nn) {
		uint32_t node = r < 2 * nn ? r - nn : r - 2 * nn;
		return p->nodes[node].net_bw * s->mon->bandwidth(s->mon, node);
	}
	return r < 3 * nn + 2 * s->n_racks ? p->rack_bw : p->backbone_bw;
}

/* When `left` bytes sent from node a to node b, ready to go at `ready`,
 * would have arrived (a transfer begun: no start-up). Contention-free
 * (Eq. 3): at once, at the pair's bandwidth. On a shared network while
 * the costing books (map_all), in the first gap from `ready` that every
 * resource it crosses has free for its whole time, which it then holds
 * (`commit`; 0: only looks): so inputs sent to one node, or from one
 * node, queue behind each other as they do on the interfaces they share,
 * where the contention-free estimate has them all at once. */
static double arrival(struct gtp *s, double left, uint32_t a, uint32_t b, int begun, double ready,
		      int commit)
{
	double c = comm(s, left, a, b, begun);
	if (!s->booking || a == b || !(left > 0) || !(c < INFINITY))
		return ready + c;
	uint32_t r[6], n = res_of(s, a, b, r);
	/* It flows at the pair's rate: a resource carries it beside others
	 * as long as their rates fit in its capacity (a disk or backbone
	 * wider than an interface carries several at once). */
	double rate = (left / (c - (begun ? 0 : s->wl->platform->latency)));
	double start = ready;
	for (int moved = 1; moved;) {
		moved = 0;
		for (uint32_t k = 0; k < n; k++) {
			const struct lane *l = &s->lanes[r[k]];
			/* (A rate above the capacity - an engine's pair
			 * bandwidth that is not its interfaces' - takes it all;
			 * alone on a resource a transfer always fits.) */
			double cap = lane_cap(s, r[k]), first = INFINITY;
			double sum = rate < cap ? rate : cap;
			for (uint32_t i = 0; i < l->n; i++)
				if (l->at[3 * i] < start + c && l->at[3 * i + 1] > start) {
					sum += l->at[3 * i + 2];
					if (l->at[3 * i + 1] < first)
						first = l->at[3 * i + 1];
				}
			if (sum > cap * (1 + 1e-9) && first < INFINITY) {
				start = first;
				moved = 1;
			}
		}
	}
	double end = start + c;
	for (uint32_t k = 0; commit && k < n; k++) {
		struct lane *l = &s->lanes[r[k]];
		if (l->n == l->cap) {
			uint32_t cap = l->cap ? 2 * l->cap : 16;
			double *at = realloc(l->at, (size_t)3 * cap * sizeof *at);
			if (!at) {
				s->oom = 1;
				continue;
			}
			l->at = at;
			l->cap = cap;
		}
		if (s->n_undo == s->undo_cap)
			continue;
		l->at[3 * l->n] = start;
		l->at[3 * l->n + 1] = end;
		l->at[3 * l->n + 2] = rate;
		l->n++;
		s->undo[s->n_undo++] = r[k];
	}
	return end;
}

/* Takes back what was booked since the undo log held `mark` entries. */
static void unbook(struct gtp *s, size_t mark)
{
	while (s->n_undo > mark)
		s->lanes[s->undo[--s->n_undo]].n--;
}

/* When input object o of task t would be on worker w's node, mapped
 * there now (Eq. 8, or 13 with copies): its producer's EFT and the
 * transfer from the producer's processor (GTP) or the cheapest copy
 * (GTP/c), less what has reached the node (kappa^d) when t stays where it
 * is placed or is not placed yet (its node gathers it then, and what is
 * there or on its way there serves it). A migration counts nothing
 * there: it restarts from scratch (kappa^d = 0, section 3.3), so GTP
 * regathers the whole input from its producer's processor, even onto a
 * node that holds a copy (only the producer's own node has it for
 * nothing), while GTP/c takes a copy on the node for nothing (CM). */
static double cheapest_copy(struct gtp *s, uint32_t o, uint32_t to, double bytes, double got,
			    double now);

static double input_ready(struct gtp *s, uint32_t t, uint32_t o, uint32_t w, double now)
{
	const struct locus_object *ob = &s->g->objects[o];
	uint32_t u = ob->producer, to = node_of(s, w);
	if (u == LOCUS_NONE)
		return now; /* a stored input: read when the task starts */
	double bytes = (double)ob->bytes;
	int migrates = s->pi[t] != LOCUS_NONE && s->pi[t] != w;
	/* A done input's arrival on contention-free links depends on the
	 * input, the node and whether t migrates, not on t: once a point. */
	size_t at = ((size_t)o * s->wl->platform->n_nodes + to) * 2 + (size_t)migrates;
	int cache = s->cm_at && s->done[u] && !s->booking;
	if (cache && s->cm_gen[at] == s->event)
		return s->cm_at[at];
	double got = migrates ? 0 : s->mon->moved(s->mon, o, to);
	if (!s->done[u]) {
		/* Sent from the processor u is mapped on, after it ends. */
		return arrival(s, bytes * (1 - got), node_of(s, s->newmu[u]), to, got > 0,
			       s->eft[u], 1);
	}
	/* u is done: EFT(u) = t (Eq. 9). */
	if (got >= 1)
		return now;
	if (!s->copies) {
		uint32_t from = s->pi[u] != LOCUS_NONE ? node_of(s, s->pi[u]) : LOCUS_NONE;
		if (from == LOCUS_NONE)
			return now;
		return arrival(s, bytes * (1 - got), from, to, got > 0, now, 1);
	}
	/* CM (Eq. 12): the cheapest of the copies; one on the node itself
	 * costs nothing. */
	double r = cheapest_copy(s, o, to, bytes, got, now);
	if (cache) {
		s->cm_gen[at] = s->event;
		s->cm_at[at] = r;
	}
	return r;
}

/* CM (Eq. 12) for input o, done, to node `to`, `got` of it there: when the
 * cheapest of its copies would be there (one on the node itself costs
 * nothing), booked on a shared network. */
static double cheapest_copy(struct gtp *s, uint32_t o, uint32_t to, double bytes, double got,
			    double now)
{
	uint32_t n = locus_replicas_count(s->mon->replicas, o);
	const uint32_t *h = locus_replicas_nodes(s->mon->replicas, o);
	double best = INFINITY;
	uint32_t from = LOCUS_NONE;
	for (uint32_t k = 0; k < n; k++) {
		double c =
		    h[k] == to ? now : arrival(s, bytes * (1 - got), h[k], to, got > 0, now, 0);
		if (c < best) {
			best = c;
			from = h[k];
		}
	}
	if (from != LOCUS_NONE && from != to && best < INFINITY)
		arrival(s, bytes * (1 - got), from, to, got > 0, now, 1);
	if (s->shared) /* the last costing of t is its mapping's: send uses it */
		s->src[o] = from;
	return n ? best : now;
}

/* When the inputs of unfinished task t would be on worker w's node, mapped
 * there now (Eqs. 6 to 8 without the processor's availability). */
static double data_ready(struct gtp *s, uint32_t t, uint32_t w, double now)
{
	const struct locus_task *tk = &s->g->tasks[t];
	double da = now;
	for (uint32_t i = 0; i < tk->n_in; i++) {
		double r = input_ready(s, t, s->g->inputs[tk->in_at + i], w, now);
		if (s->watch)
			s->watch->input[((size_t)tk->in_at + i) * s->nw + w] = r;
		if (r > da)
			da = r;
	}
	return da;
}

/* EST and EFT of unfinished task t on worker w now (Eqs. 5 to 11), its
 * data ready at da (data_ready; not read when t has started there: EST is
 * now, Eq. 5). */
static double cost_on(const struct gtp *s, uint32_t t, uint32_t w, double now, double da,
		      double *est_out)
{
	int started = s->pi[t] == w && s->kc[t] > 0;
	double est = started ? now : s->pa[w] > da ? s->pa[w] : da;
	*est_out = est;
	return est + locus_workload_cost(s->wl, t, w) * (started ? 1 - s->kc[t] : 1) / s->avail[w];
}

/* Maps every unfinished task (Eqs. 5 to 11) into s->newmu and s->eft;
 * with `fixed`, only costs the schedule in force (each task on the worker
 * it was last sent to) the same way. Returns the estimated makespan: the
 * latest EFT of an unfinished task (INFINITY when one has no processor). */
static double map_all(struct gtp *s, double now, int fixed)
{
	double makespan = now;
	for (uint32_t w = 0; w < s->nw; w++) {
		s->avail[w] = s->mon->avail(s->mon, node_of(s, w));
		s->pa[w] = now;
	}
	s->booking = s->shared;
	s->n_undo = 0;
	for (uint32_t r = 0; s->shared && r < s->n_lanes; r++)
		s->lanes[r].n = 0;
	/* A task running stays on its processor until it ends or moves:
	 * its processor is not free before that. */
	for (uint32_t t = 0; t < s->n; t++) {
		s->newmu[t] = s->mu[t];
		if (s->done[t] || s->pi[t] == LOCUS_NONE || !(s->kc[t] > 0))
			continue;
		uint32_t w = s->pi[t];
		if (s->avail[w] > 0) {
			double left =
			    now + locus_workload_cost(s->wl, t, w) * (1 - s->kc[t]) / s->avail[w];
			if (left > s->pa[w])
				s->pa[w] = left;
		}
	}
	memcpy(s->morder, s->order, s->n * sizeof *s->morder);
	if (s->watch) {
		size_t cells = (size_t)s->n * s->nw;
		for (size_t i = 0; i < cells; i++)
			s->watch->est[i] = s->watch->eft[i] = s->watch->da[i] = NAN;
		cells = (size_t)s->n_inputs * s->nw;
		for (size_t i = 0; i < cells; i++)
			s->watch->input[i] = NAN;
	}
	for (uint32_t k = 0; k < s->n; k++) {
		uint32_t t = s->order[k];
		if (s->done[t]) {
			s->eft[t] = now; /* Eq. 9 */
			s->newmu[t] = s->pi[t];
			continue;
		}
		double best = INFINITY;
		uint32_t best_w = LOCUS_NONE;
		for (uint32_t w = 0; w < s->nw; w++) {
			if (!(s->avail[w] > 0) || (fixed && w != s->mu[t]))
				continue;
			size_t mark = s->n_undo;
			int started = s->pi[t] == w && s->kc[t] > 0;
			double da = started ? NAN : data_ready(s, t, w, now);
			double est, eft = cost_on(s, t, w, now, started ? now : da, &est);
			unbook(s, mark);
			if (s->watch && !fixed) {
				size_t at = (size_t)t * s->nw + w;
				s->watch->est[at] = est;
				s->watch->eft[at] = eft;
				s->watch->da[at] = da;
			}
			/* A placed task stays where it is on a tie: a migration
			 * must gain. */
			if (eft < best || (eft == best && w == s->pi[t])) {
				best = eft;
				best_w = w;
			}
		}
		if (best_w == LOCUS_NONE) { /* no processor left: keep it */
			s->eft[t] = INFINITY;
			makespan = INFINITY;
			continue;
		}
		if (s->booking && !(s->pi[t] == best_w && s->kc[t] > 0))
			data_ready(s, t, best_w, now); /* its transfers, booked */
		s->n_undo = 0;
		s->newmu[t] = best_w;
		s->eft[t] = best;
		if (best > s->pa[best_w])
			s->pa[best_w] = best; /* Eq. 7 */
		if (best > makespan)
			makespan = best;
	}
	s->booking = 0;
	return makespan;
}

/* ---- DLS/sr -------------------------------------------------------------------- */

/* The time an edge's data takes from task t's processor to task c's in
 * the schedule s->newmu (nominal start-up; bandwidth now, or the
 * platform's before the run). */
static double edge_time(const struct gtp *s, uint32_t t, uint32_t c, uint64_t bytes)
{
	uint32_t a = node_of(s, s->newmu[t]), b = node_of(s, s->newmu[c]);
	if (a == b)
		return 0;
	double bw = s->mon->pair_bw(s->mon, a, b);
	if (!(bw > 0))
		bw = locus_platform_pair_bw(s->wl->platform, a, b);
	return s->wl->platform->latency + (double)bytes / bw;
}

/* The spare time of every task in the schedule (newmu, est, eft; section
 * 6 of the paper after Zhao and Sakellariou 2004): how much later it may
 * end without delaying a successor's start (its data included) or the
 * next task on its processor. */
static void plan_spare(struct gtp *s)
{
	for (uint32_t t = 0; t < s->n; t++)
		s->spare[t] = INFINITY;
	for (uint32_t t = 0; t < s->n; t++) {
		for (uint32_t e = s->g->succ_at[t]; e < s->g->succ_at[t + 1]; e++) {
			uint32_t c = s->g->succs[e].task;
			double room =
			    s->est[c] - (s->eft[t] + edge_time(s, t, c, s->g->succs[e].bytes));
			if (room < s->spare[t])
				s->spare[t] = room;
		}
	}
	/* The next task on the same processor: by start time, per worker. */
	for (uint32_t w = 0; w < s->nw; w++) {
		uint32_t prev = LOCUS_NONE;
		for (uint32_t k = 0; k < s->n; k++) {
			uint32_t t = s->morder[k];
			if (s->newmu[t] != w)
				continue;
			if (prev != LOCUS_NONE && s->est[t] - s->eft[prev] < s->spare[prev])
				s->spare[prev] = s->est[t] - s->eft[prev];
			prev = t;
		}
	}
	for (uint32_t t = 0; t < s->n; t++)
		if (s->spare[t] < 0)
			s->spare[t] = 0;
}

/* The dynamic level of ready slot k's task on worker w (w up), its EST
 * and EFT (as cost_on, from the slot's rows). */
static double dls_level(const struct gtp *s, uint32_t k, uint32_t w, double now, double *est,
			double *eft)
{
	uint32_t t = s->ready[k];
	size_t at = (size_t)k * s->nw + w;
	int started = s->pi[t] == w && s->kc[t] > 0;
	double cost = s->rcost[at];
	*est = started ? now : s->pa[w] > s->rda[at] ? s->pa[w] : s->rda[at];
	*eft = *est + cost * (started ? 1 - s->kc[t] : 1) / s->avail[w];
	return s->sl[t] - *est + (s->rmean[k] - cost / s->avail[w]);
}

/* Ready slot k's best worker now: the largest dynamic level, the first
 * worker within a relative 1e-9 of it on ties. */
static void dls_search(struct gtp *s, uint32_t k, double now)
{
	double best = -INFINITY, est, eft;
	uint32_t bw = LOCUS_NONE;
	for (uint32_t w = 0; w < s->nw; w++) {
		if (!(s->avail[w] > 0))
			continue;
		double dl = dls_level(s, k, w, now, &est, &eft);
		if (bw == LOCUS_NONE || dl > best + 1e-9 * fabs(best)) {
			best = dl;
			bw = w;
		}
	}
	s->rdl[k] = best;
	s->rw[k] = bw;
}

/* Puts task t on the ready list of map_dls, with what stays fixed while
 * it waits there: its mean cost, its data's arrival and cost on every worker
 * (its predecessors are mapped, and the monitor does not change during a
 * point); then finds its best worker. Returns 0 or LOCUS_ENOMEM. */
static int dls_ready(struct gtp *s, uint32_t t, uint32_t *n_ready, double now)
{
	uint32_t k = (*n_ready)++;
	if (k >= s->rows_cap) {
		size_t cap = s->rows_cap ? 2 * (size_t)s->rows_cap : 64;
		double *da = realloc(s->rda, cap * s->nw * sizeof *da);
		if (!da)
			return LOCUS_ENOMEM;
		s->rda = da;
		double *cost = realloc(s->rcost, cap * s->nw * sizeof *cost);
		if (!cost)
			return LOCUS_ENOMEM;
		s->rcost = cost;
		double *mean = realloc(s->rmean, cap * sizeof *mean);
		if (!mean)
			return LOCUS_ENOMEM;
		s->rmean = mean;
		double *dl = realloc(s->rdl, cap * sizeof *dl);
		if (!dl)
			return LOCUS_ENOMEM;
		s->rdl = dl;
		uint32_t *rw = realloc(s->rw, cap * sizeof *rw);
		if (!rw)
			return LOCUS_ENOMEM;
		s->rw = rw;
		s->rows_cap = (uint32_t)cap;
	}
	s->ready[k] = t;
	s->rmean[k] = locus_workload_mean_cost(s->wl, t);
	double *row = s->rda + (size_t)k * s->nw, *cost = s->rcost + (size_t)k * s->nw;
	for (uint32_t w = 0; w < s->nw; w++) {
		row[w] = s->avail[w] > 0 && !(s->pi[t] == w && s->kc[t] > 0)
			     ? data_ready(s, t, w, now)
			     : now;
		cost[w] = locus_workload_cost(s->wl, t, w);
	}
	dls_search(s, k, now);
	return 0;
}

/* DLS over what is left (Sih and Lee; as src/dag/dls.c, from the state
 * now): repeatedly the ready task and processor with the largest dynamic
 * level SL - EST + (mean cost - cost now), until every unfinished task is
 * mapped (ties within a relative 1e-9: the lower task, then the lower
 * worker). As in dls.c, a level only falls when its worker takes a task,
 * so each ready task keeps its best worker and only those whose best
 * worker was just taken are searched again. Returns 0 or LOCUS_ENOMEM. */
static int map_dls(struct gtp *s, double now)
{
	uint32_t n_ready = 0, n_left = 0, k_order = 0;
	for (uint32_t t = 0; t < s->n; t++) {
		s->mapped[t] = s->done[t];
		if (s->done[t]) {
			s->eft[t] = now;
			s->newmu[t] = s->pi[t];
			s->morder[k_order++] = t;
		} else {
			n_left++;
		}
	}
	for (uint32_t t = 0; t < s->n; t++) {
		if (s->mapped[t])
			continue;
		int ready = 1;
		for (uint32_t e = s->g->pred_at[t]; e < s->g->pred_at[t + 1] && ready; e++)
			ready = s->mapped[s->g->preds[e].task];
		if (ready && dls_ready(s, t, &n_ready, now))
			return LOCUS_ENOMEM;
	}
	while (n_left && n_ready) {
		double best = -INFINITY;
		uint32_t bt = LOCUS_NONE, bk = 0;
		for (uint32_t k = 0; k < n_ready; k++) {
			uint32_t t = s->ready[k];
			double dl = s->rdl[k];
			if (s->rw[k] == LOCUS_NONE)
				continue;
			if (bt == LOCUS_NONE || dl > best + 1e-9 * fabs(best) ||
			    (fabs(dl - best) <= 1e-9 * fabs(best) && t < bt)) {
				best = dl;
				bt = t;
				bk = k;
			}
		}
		if (bt == LOCUS_NONE)
			break; /* no processor up */
		uint32_t bw = s->rw[bk];
		double est, eft;
		dls_level(s, bk, bw, now, &est, &eft);
		s->newmu[bt] = bw;
		s->est[bt] = est;
		s->eft[bt] = eft;
		if (eft > s->pa[bw])
			s->pa[bw] = eft;
		s->mapped[bt] = 1;
		s->morder[k_order++] = bt;
		n_left--;
		/* The last ready task takes bt's place, with its row. */
		if (bk != --n_ready) {
			s->ready[bk] = s->ready[n_ready];
			s->rmean[bk] = s->rmean[n_ready];
			s->rdl[bk] = s->rdl[n_ready];
			s->rw[bk] = s->rw[n_ready];
			memcpy(s->rda + (size_t)bk * s->nw, s->rda + (size_t)n_ready * s->nw,
			       s->nw * sizeof *s->rda);
			memcpy(s->rcost + (size_t)bk * s->nw, s->rcost + (size_t)n_ready * s->nw,
			       s->nw * sizeof *s->rcost);
		}
		for (uint32_t k = 0; k < n_ready; k++)
			if (s->rw[k] == bw)
				dls_search(s, k, now);
		for (uint32_t e = s->g->succ_at[bt]; e < s->g->succ_at[bt + 1]; e++) {
			uint32_t c = s->g->succs[e].task;
			if (s->mapped[c])
				continue;
			int ready = 1;
			for (uint32_t f = s->g->pred_at[c]; f < s->g->pred_at[c + 1] && ready; f++)
				ready = s->mapped[s->g->preds[f].task];
			/* A task enters once: when its last predecessor is mapped. */
			if (ready) {
				int in = 0;
				for (uint32_t k = 0; k < n_ready && !in; k++)
					in = s->ready[k] == c;
				if (!in && dls_ready(s, c, &n_ready, now))
					return LOCUS_ENOMEM;
			}
		}
	}
	/* Tasks left unmapped (no processor up) keep their worker. */
	for (uint32_t t = 0; t < s->n; t++)
		if (!s->mapped[t]) {
			s->eft[t] = INFINITY;
			s->morder[k_order++] = t;
		}
	return 0;
}

/* ---- carrying a schedule out ----------------------------------------------------- */

/* Sends task t to worker w. A task that moved (it was sent elsewhere
 * last) has each of its inputs already produced sent to its new node,
 * unless the node has it or it is on its way there: GTP from the
 * producer's processor, GTP/c from the cheapest copy (CM). A migration
 * (t was placed elsewhere: section 3.3) under GTP regathers every input
 * from its producer's processor, as the costing assumed (input_ready):
 * GTP keeps no copies, so a copy its new node holds is dropped and the
 * input sent again from the producer's processor (Fig. 2a, v1's data
 * sent twice to p4); one on its way there is that regathering under way;
 * only the producer's own node has it for nothing. (Dropped, not kept
 * beside the new one: a copy still there would let t start before its
 * own arrived, and the engine would hold t for a copy it sends to a node
 * t has left.) When the producer's processor no longer holds the input
 * (it failed, and a copy saved the producer from rewinding), there is no
 * producer to regather from: t takes what its node has, the rest from a
 * copy the engine picks. bytes_resent counts what a migration sends of
 * the inputs that had reached, or were reaching, t's old node from
 * elsewhere. */
static void send(struct gtp *s, struct locus_actions *act, uint32_t t, uint32_t w, int moved)
{
	const struct locus_task *tk = &s->g->tasks[t];
	const struct locus_replicas *rep = s->mon->replicas;
	uint32_t to = node_of(s, w), was = s->pi[t];
	int migrated = was != LOCUS_NONE && was != w;
	for (uint32_t i = 0; (moved || migrated) && i < tk->n_in; i++) {
		uint32_t o = s->g->inputs[tk->in_at + i], u = s->g->objects[o].producer;
		if (u == LOCUS_NONE || !s->done[u])
			continue;
		uint64_t bytes = s->g->objects[o].bytes;
		uint32_t from = s->pi[u] != LOCUS_NONE ? node_of(s, s->pi[u]) : LOCUS_NONE;
		if (from != LOCUS_NONE && !locus_replicas_has(rep, o, from))
			from = LOCUS_NONE;
		double there = s->mon->moved(s->mon, o, to);
		int again =
		    !s->copies && migrated && from != LOCUS_NONE && from != to && there >= 1;
		if (there > 0 && !again)
			continue;
		if (again)
			locus_act_drop(act, o, to);
		if (s->copies && s->shared && s->src[o] != LOCUS_NONE &&
		    locus_replicas_has(rep, o, s->src[o])) {
			/* The copy the booked costing chose (the least busy). */
			from = s->src[o];
		} else if (s->copies) {
			uint32_t n = locus_replicas_count(rep, o);
			const uint32_t *h = locus_replicas_nodes(rep, o);
			double best = INFINITY;
			for (uint32_t k = 0; k < n; k++) {
				double c = comm(s, (double)bytes, h[k], to, 0);
				if (c < best) {
					best = c;
					from = h[k];
				}
			}
		}
		locus_act_transfer(act, o, from, to);
		if (migrated) {
			uint32_t old = node_of(s, was), pn = node_of(s, s->pi[u]);
			if (old != pn && s->mon->moved(s->mon, o, old) > 0)
				s->resent += bytes;
		}
	}
	locus_act_assign(act, s->nw, w, t, -1);
	s->sent++;
}

/* ---- rewinding (section 5) ---------------------------------------------------- */

/* Whether finished task t must run again: some edge (t, c) is not
 * satisfied - c needs an output of t (c is not done, or was rewound)
 * and has not all of it on its node (kappa^d < 1: GTP/r, rule 1; a
 * rewound successor has kappa^d 0: rule 2) - and, for GTP/c/r, no copy
 * of that output is left on a live node (the failed one's are dropped). */
static int must_rewind(const struct gtp *s, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	for (uint32_t i = 0; i < tk->n_out; i++) {
		uint32_t o = s->g->outputs[tk->out_at + i];
		const struct locus_object *ob = &s->g->objects[o];
		if (s->copies && locus_replicas_count(s->mon->replicas, o))
			continue;
		for (uint32_t k = 0; k < ob->n_cons; k++) {
			uint32_t c = s->g->consumers[ob->cons_at + k];
			if (s->done[c] && !s->rewound[c])
				continue;
			double kd = !s->rewound[c] && s->pi[c] != LOCUS_NONE
					? s->mon->moved(s->mon, o, node_of(s, s->pi[c]))
					: 0;
			if (kd < 1)
				return 1;
		}
	}
	return 0;
}

/* The rewinding procedure for every processor found down (avail 0) at
 * this point and not handled yet: its placed tasks (Q, the finished
 * ones: the engine has taken the others off it) in reverse topological
 * order, each rewound when must_rewind says so. Beyond the paper, a
 * finished task whose output a waiting task needs and no node holds is
 * rewound too (its processor failed and came back between two points,
 * unseen). Rewound tasks are reset: not done, not placed, nothing
 * computed (the engine forgets their completion). */
static void rewind_failed(struct gtp *s, struct locus_actions *act)
{
	int any = 0;
	for (uint32_t w = 0; w < s->nw; w++) {
		int down = !(s->mon->avail(s->mon, node_of(s, w)) > 0);
		if (!down)
			s->handled[w] = 0;
		else if (!s->handled[w])
			s->handled[w] = 2, any = 1; /* 2: to handle now */
	}
	for (uint32_t k = s->n; k-- > 0;) {
		uint32_t t = s->g->topo[k];
		s->rewound[t] = 0;
		if (!s->done[t] || s->pi[t] == LOCUS_NONE)
			continue;
		int on_failed = any && s->handled[s->pi[t]] == 2;
		int lost = 0;
		if (!on_failed) {
			/* The safety net: an output needed and held nowhere. */
			const struct locus_task *tk = &s->g->tasks[t];
			for (uint32_t i = 0; i < tk->n_out && !lost; i++) {
				uint32_t o = s->g->outputs[tk->out_at + i];
				if (locus_replicas_count(s->mon->replicas, o))
					continue;
				const struct locus_object *ob = &s->g->objects[o];
				for (uint32_t j = 0; j < ob->n_cons && !lost; j++) {
					uint32_t c = s->g->consumers[ob->cons_at + j];
					lost = !s->done[c] || s->rewound[c];
				}
			}
		}
		if ((on_failed && must_rewind(s, t)) || lost)
			s->rewound[t] = 1;
	}
	for (uint32_t w = 0; w < s->nw; w++)
		if (s->handled[w] == 2)
			s->handled[w] = 1;
	for (uint32_t t = 0; t < s->n; t++) {
		if (!s->rewound[t])
			continue;
		locus_act_rewind(act, t);
		s->done[t] = 0;
		s->pi[t] = LOCUS_NONE;
		s->kc[t] = 0;
		s->rt++;
		if (!s->level_hit[s->g->level[t]]) {
			s->level_hit[s->g->level[t]] = 1;
			s->rl++;
		}
	}
}

/* Whether the schedule in force cannot stand as it is: a task was
 * rewound at this point or its attempt failed (it is in no worker's
 * list), or it is sent to a processor that is down. */
static int forced(const struct gtp *s)
{
	uint32_t linked = 0, left = 0;
	for (uint32_t t = 0; t < s->n; t++) {
		left += !s->done[t];
		if (!s->done[t] &&
		    (s->mu[t] >= s->nw || !(s->mon->avail(s->mon, node_of(s, s->mu[t])) > 0)))
			return 1;
	}
	for (uint32_t w = 0; w < s->nw; w++)
		for (uint32_t t = s->head[w]; t != LOCUS_NONE; t = s->next[t])
			linked += !s->done[t];
	return linked != left;
}

/* A rescheduling point at `now`. */
static void reschedule(struct gtp *s, double now, struct locus_actions *act)
{
	uint32_t left = 0;
	for (uint32_t t = 0; t < s->n; t++) {
		s->pi[t] = s->mon->placed(s->mon, t, &s->kc[t]);
		s->done[t] = s->pi[t] != LOCUS_NONE && s->kc[t] >= 1;
		left += !s->done[t];
	}
	if (!left) {
		s->finished = 1;
		return;
	}
	if (s->rewind)
		rewind_failed(s, act);
	/* An input no node holds any more, whose producer is done: without
	 * rewinding nothing will write it again. No more points: the run
	 * ends when what is under way has, and says which task lost what
	 * (rescheduling on would keep a run that cannot finish alive). */
	for (uint32_t t = 0; t < s->n; t++) {
		if (s->done[t])
			continue;
		const struct locus_task *tk = &s->g->tasks[t];
		for (uint32_t i = 0; i < tk->n_in; i++) {
			uint32_t o = s->g->inputs[tk->in_at + i], u = s->g->objects[o].producer;
			if (u != LOCUS_NONE && s->done[u] &&
			    !locus_replicas_count(s->mon->replicas, o)) {
				s->finished = 1;
				return;
			}
		}
	}
	s->points++;
	locus_act_cost(act, (uint64_t)s->n * s->nw);
	if (s->dls) {
		for (uint32_t w = 0; w < s->nw; w++) {
			s->avail[w] = s->mon->avail(s->mon, node_of(s, w));
			s->pa[w] = now;
		}
		/* A task running keeps its processor busy until it ends. */
		for (uint32_t t = 0; t < s->n; t++) {
			uint32_t w = s->pi[t];
			if (s->done[t] || w == LOCUS_NONE || !(s->kc[t] > 0) || !(s->avail[w] > 0))
				continue;
			double end =
			    now + locus_workload_cost(s->wl, t, w) * (1 - s->kc[t]) / s->avail[w];
			if (end > s->pa[w])
				s->pa[w] = end;
		}
		if (map_dls(s, now)) {
			locus_act_oom(act);
			return;
		}
	} else if (s->guard && !forced(s)) {
		/* The schedule in force, costed as the new one will be: the
		 * new one replaces it only if it is estimated to end sooner. */
		s->est_cur = map_all(s, now, 1);
		s->est_new = map_all(s, now, 0);
		if (s->oom) {
			locus_act_oom(act);
			return;
		}
		if (!(s->est_new < s->est_cur * (1 - s->gain))) {
			s->kept++;
			return;
		}
	} else {
		s->est_new = map_all(s, now, 0);
		if (s->oom) {
			locus_act_oom(act);
			return;
		}
	}
	/* The new sequences: each worker's unfinished tasks in mapping order. */
	memset(s->seq_at, 0, (s->nw + 1) * sizeof *s->seq_at);
	for (uint32_t t = 0; t < s->n; t++)
		if (!s->done[t] && s->newmu[t] != LOCUS_NONE)
			s->seq_at[s->newmu[t] + 1]++;
	for (uint32_t w = 0; w < s->nw; w++) {
		s->seq_at[w + 1] += s->seq_at[w];
		s->fill[w] = s->seq_at[w];
	}
	/* A task that has started and stays where it runs comes first: the
	 * costing let it carry on (EST = t, Eq. 5) and mapped the others on
	 * its processor after its EFT (PA); withdrawn to be sent again
	 * behind a task ranked higher, it would lose what it computed. Its
	 * predecessors are done, so the sequence stays topological. */
	for (uint32_t t = 0; t < s->n; t++)
		if (!s->done[t] && s->newmu[t] != LOCUS_NONE && s->pi[t] == s->newmu[t] &&
		    s->kc[t] > 0)
			s->seq[s->fill[s->newmu[t]]++] = t;
	for (uint32_t k = 0; k < s->n; k++) {
		uint32_t t = s->morder[k];
		if (!s->done[t] && s->newmu[t] != LOCUS_NONE &&
		    !(s->pi[t] == s->newmu[t] && s->kc[t] > 0))
			s->seq[s->fill[s->newmu[t]]++] = t;
	}
	/* Per worker: keep the part of its list that matches the new
	 * sequence, withdraw the rest (last first, so that nothing behind a
	 * withdrawn task starts in between), then send the new rest. fill[w]
	 * gets where the new rest starts in seq. */
	int changed = 0;
	for (uint32_t w = 0; w < s->nw; w++) {
		uint32_t k = s->seq_at[w], end = s->seq_at[w + 1];
		uint32_t at = s->head[w], prev = LOCUS_NONE;
		while (at != LOCUS_NONE && (s->done[at] || (k < end && s->seq[k] == at))) {
			k += !s->done[at];
			prev = at;
			at = s->next[at];
		}
		s->fill[w] = k;
		if (at == LOCUS_NONE && k == end)
			continue;
		changed = 1;
		uint32_t cnt = 0;
		for (uint32_t x = at; x != LOCUS_NONE; x = s->next[x])
			cnt++;
		for (uint32_t i = cnt; i > 0; i--) {
			uint32_t x = at;
			for (uint32_t j = 1; j < i; j++)
				x = s->next[x];
			if (!s->done[x])
				locus_act_cancel(act, x);
		}
		if (prev == LOCUS_NONE)
			s->head[w] = LOCUS_NONE;
		else
			s->next[prev] = LOCUS_NONE;
		s->tail[w] = prev;
	}
	for (uint32_t w = 0; w < s->nw && changed; w++) {
		for (uint32_t k = s->fill[w]; k < s->seq_at[w + 1]; k++) {
			uint32_t t = s->seq[k], was = s->pi[t];
			int moved = s->mu[t] != w;
			s->migrations += was != LOCUS_NONE && was != w;
			s->mu[t] = w;
			s->next[t] = LOCUS_NONE;
			if (s->tail[w] == LOCUS_NONE)
				s->head[w] = t;
			else
				s->next[s->tail[w]] = t;
			s->tail[w] = t;
			send(s, act, t, w, moved);
		}
	}
	s->remaps += changed;
	if (s->dls)
		plan_spare(s);
}

/* Task t is off worker w's list (a failed attempt: the list goes on
 * without it). */
static void unlink_task(struct gtp *s, uint32_t w, uint32_t t)
{
	uint32_t prev = LOCUS_NONE;
	for (uint32_t x = s->head[w]; x != LOCUS_NONE; prev = x, x = s->next[x]) {
		if (x != t)
			continue;
		if (prev == LOCUS_NONE)
			s->head[w] = s->next[t];
		else
			s->next[prev] = s->next[t];
		if (s->tail[w] == t)
			s->tail[w] = prev;
		s->next[t] = LOCUS_NONE;
		return;
	}
}

static void on_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct gtp *s = state;
	s->event++; /* what the engine reports may have changed since the last */
	if (ev->proc < s->nw && ev->kind == LOCUS_EV_FAILED && !ev->failed.final &&
	    ev->failed.task < s->n) {
		/* GTP/r, GTP/c/r (the policies that place failed tasks again):
		 * an attempt of a task of this worker failed. The scheduler
		 * hears of it, and maps it again at once: it is no longer in
		 * the worker's list, and sent anew behind what precedes it
		 * in the new sequences (every task queued after it that the
		 * mapping changes is withdrawn first, so that nothing waits
		 * for it from ahead of it). */
		struct locus_msg m = {.type = LOCUS_MSG_USER,
				      .from = ev->proc,
				      .to = s->nw,
				      .n_args = 2,
				      .arg = {(int64_t)ev->failed.task, MSG_FAILED}};
		locus_act_send(act, &m);
		return;
	}
	if (ev->proc < s->nw && s->dls && ev->kind == LOCUS_EV_DONE) {
		/* DLS/sr: a task that ended later than its spare time allows
		 * asks the scheduler for a rescheduling point. */
		uint32_t t = ev->done.task;
		if (!s->asked && t < s->n &&
		    ev->now > s->eft[t] + s->spare[t] + 1e-9 * (1 + ev->now)) {
			struct locus_msg m = {.type = LOCUS_MSG_USER,
					      .from = ev->proc,
					      .to = s->nw,
					      .n_args = 1,
					      .arg = {(int64_t)t}};
			locus_act_send(act, &m);
			s->asked = 1;
		}
		return;
	}
	if (ev->proc != s->nw)
		return;
	switch (ev->kind) {
	case LOCUS_EV_START:
		/* HEFT's schedule (DLS's), as the heft policy sends it. */
		for (uint32_t w = 0; w < s->nw; w++)
			for (uint32_t t = s->head[w]; t != LOCUS_NONE; t = s->next[t]) {
				locus_act_assign(act, s->nw, w, t, -1);
				s->sent++;
			}
		if (!s->dls)
			locus_act_timer(act, s->nw, s->period, TIMER_TAG);
		break;
	case LOCUS_EV_MESSAGE:
		if (ev->msg->type == LOCUS_MSG_USER && ev->msg->n_args == 2 &&
		    ev->msg->arg[1] == MSG_FAILED) {
			uint32_t t = (uint32_t)ev->msg->arg[0];
			if (t < s->n && s->mu[t] < s->nw) {
				unlink_task(s, s->mu[t], t);
				if (!s->finished)
					reschedule(s, ev->now, act);
			}
		} else if (s->dls && ev->msg->type == LOCUS_MSG_USER) {
			s->asked = 0;
			s->triggers++;
			reschedule(s, ev->now, act);
		}
		break;
	case LOCUS_EV_TIMER:
		if (ev->tag != TIMER_TAG || s->finished)
			break;
		reschedule(s, ev->now, act);
		if (!s->finished)
			locus_act_timer(act, s->nw, s->period, TIMER_TAG);
		break;
	case LOCUS_EV_SPEED:
	case LOCUS_EV_BANDWIDTH:
		if (s->on_speed && !s->finished)
			reschedule(s, ev->now, act);
		break;
	case LOCUS_EV_NODE_DOWN:
	case LOCUS_EV_NODE_UP:
		if (s->on_fail && !s->finished)
			reschedule(s, ev->now, act);
		break;
	default:
		break;
	}
}

void locus__gtp_watch(void *state, struct locus__gtp_watch *w)
{
	struct gtp *s = state;
	s->watch = w;
}

static void stats(void *state, struct locus_policy_stats *out)
{
	struct gtp *s = state;
	out->planned_makespan = s->planned;
	out->counter_names[0] = "assignments";
	out->counters[0] = s->sent;
	out->counter_names[1] = "resched_points";
	out->counters[1] = s->points;
	out->counter_names[2] = "remappings";
	out->counters[2] = s->remaps;
	out->counter_names[3] = "migrations";
	out->counters[3] = s->migrations;
	out->counter_names[4] = "bytes_resent";
	out->counters[4] = s->resent;
	if (s->dls) {
		out->counter_names[5] = "slack_exceeded";
		out->counters[5] = s->triggers;
	}
	if (s->guard) {
		out->counter_names[s->rewind ? 7 : 5] = "points_kept";
		out->counters[s->rewind ? 7 : 5] = s->kept;
	}
	if (s->rewind) {
		out->counter_names[5] = "rewound_tasks";
		out->counters[5] = s->rt;
		out->counter_names[6] = "rewound_levels";
		out->counters[6] = s->rl;
	}
}

static int gtp_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	return create(state, ctx, 0, 0, 0, err);
}

static int gtpc_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	return create(state, ctx, 1, 0, 0, err);
}

static int gtpr_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	return create(state, ctx, 0, 1, 0, err);
}

static int gtpcr_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	return create(state, ctx, 1, 1, 0, err);
}

static int dlssr_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	return create(state, ctx, 0, 0, 1, err);
}

const struct locus_policy locus__policy_gtp = {
    .version = LOCUS_POLICY_VERSION,
    .name = "gtp",
    .summary = "GTP (Hernandez and Cole): HEFT again at every rescheduling point from what a "
	       "monitor reports; migrated tasks regather their inputs",
    .schedulers = gtp_schedulers,
    .create = gtp_create,
    .destroy = destroy,
    .on_event = on_event,
    .stats = stats,
    .flags = LOCUS_POLICY_GRAPHS,
    .options = "period=SECONDS,on=none|speed|fail|all,guard=auto|on|off,gain=FRACTION",
    .needs = LOCUS_NEEDS_MONITOR | LOCUS_NEEDS_CANCEL | LOCUS_NEEDS_COPIES,
};

const struct locus_policy locus__policy_gtp_c = {
    .version = LOCUS_POLICY_VERSION,
    .name = "gtp-c",
    .summary = "GTP/c: GTP whose migrated tasks take each input from its cheapest copy",
    .schedulers = gtp_schedulers,
    .create = gtpc_create,
    .destroy = destroy,
    .on_event = on_event,
    .stats = stats,
    .flags = LOCUS_POLICY_GRAPHS,
    .options = "period=SECONDS,on=none|speed|fail|all,guard=auto|on|off,gain=FRACTION",
    .needs = LOCUS_NEEDS_MONITOR | LOCUS_NEEDS_CANCEL | LOCUS_NEEDS_COPIES,
};

const struct locus_policy locus__policy_gtp_r = {
    .version = LOCUS_POLICY_VERSION,
    .name = "gtp-r",
    .summary = "GTP/r: GTP that rewinds the tasks a failed processor's loss disrupts and "
	       "places lost tasks again",
    .schedulers = gtp_schedulers,
    .create = gtpr_create,
    .destroy = destroy,
    .on_event = on_event,
    .stats = stats,
    .flags = LOCUS_POLICY_GRAPHS | LOCUS_POLICY_RETRIES,
    .options = "period=SECONDS,on=none|speed|fail|all,guard=auto|on|off,gain=FRACTION",
    .needs = LOCUS_NEEDS_MONITOR | LOCUS_NEEDS_CANCEL | LOCUS_NEEDS_COPIES | LOCUS_NEEDS_REWIND |
	     LOCUS_NEEDS_FAILED,
};

const struct locus_policy locus__policy_gtp_c_r = {
    .version = LOCUS_POLICY_VERSION,
    .name = "gtp-c-r",
    .summary = "GTP/c/r: GTP/c with rewinding; a copy elsewhere saves a task from it",
    .schedulers = gtp_schedulers,
    .create = gtpcr_create,
    .destroy = destroy,
    .on_event = on_event,
    .stats = stats,
    .flags = LOCUS_POLICY_GRAPHS | LOCUS_POLICY_RETRIES,
    .options = "period=SECONDS,on=none|speed|fail|all,guard=auto|on|off,gain=FRACTION",
    .needs = LOCUS_NEEDS_MONITOR | LOCUS_NEEDS_CANCEL | LOCUS_NEEDS_COPIES | LOCUS_NEEDS_REWIND |
	     LOCUS_NEEDS_FAILED,
};

const struct locus_policy locus__policy_dls_sr = {
    .version = LOCUS_POLICY_VERSION,
    .name = "dls-sr",
    .summary = "DLS/sr: DLS planned again from the monitor's state when a task ends later "
	       "than its spare time (selective rescheduling, Zhao and Sakellariou 2004)",
    .schedulers = gtp_schedulers,
    .create = dlssr_create,
    .destroy = destroy,
    .on_event = on_event,
    .stats = stats,
    .flags = LOCUS_POLICY_GRAPHS,
    .options = NULL,
    .needs = LOCUS_NEEDS_MONITOR | LOCUS_NEEDS_CANCEL | LOCUS_NEEDS_COPIES,
};
