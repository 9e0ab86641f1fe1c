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
 * point keeps the schedule in force unless the new mapping ends sooner
 * by a fraction `gain` (the guard) when both are played out as the
 * engine runs them, transfers sharing what they cross max-min fairly
 * (locus__gtp_play; only a mapping costed sooner is played). The costing
 * chooses, task by task, a mapping that fills the gaps of transfers booked
 * one after another, which fair sharing does not leave: on a case of
 * docs/results/gtp.md it costed the new mapping 33 % sooner and the run
 * ended 20 % later, as the play-out foresaw. Without the guard, GTP
 * remapped at every point on estimates that assumed free links, and
 * migrated without end (issue 27). With it on contention-free links
 * (guard=on) the costing, exact there, judges.
 *
 * Options: period=SECONDS (default: a tenth of the first schedule's
 * makespan), on=none|speed|fail|all (also reschedule when a node's speed
 * or a link's bandwidth changes, when a node goes down or up, or both;
 * default speed: docs/results/gtp.md measured it ahead of every period;
 * on=none is the paper's periodic rescheduling), guard=auto|on|off (the
 * guard above; auto: on a shared network only, so the paper's GTP is
 * unchanged on contention-free links), gain=FRACTION (the guard's least
 * gain, default 0.3: docs/results/gtp.md).
 *
 * This file is the policy; the costing of a point (Eqs. 3 to 13, the
 * booking) is gtp_cost.c, DLS/sr's mapping gtp_dls.c, the instance they
 * share gtp_impl.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "dag/gtp_impl.h"
#include "locus/dag.h"
#include "sched/policies.h"

#define TIMER_TAG 1
/* guard: the least relative gain in makespan (played out on a shared
 * network, costed on contention-free links) for which a point replaces
 * the schedule in force (gain=FRACTION). The play-out sees the platform
 * as it is now: where it keeps changing, a migration that gains a little
 * now is undone by the next change and its inputs sent again (with 0,
 * GTP/c ended at 2,448 s where 0.3 gives 623 and HEFT 929:
 * docs/results/gtp.md). */
#define DEFAULT_GAIN 0.3
#define MSG_FAILED   1 /* arg[1] of a worker's message: a task's attempt failed */

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
	free(s->sent_src);
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
	free(s->fly);
	free(s->fly_head);
	free(s->fly_gen);
	free(s);
}

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
	if ((s->shared && locus__gtp_shared_init(s)) || locus__gtp_caches_init(s)) {
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
		locus__gtp_plan_spare(s);
	}
	if (!(s->period > 0))
		s->period = 1;
	*state = s;
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
	uint32_t to = locus__gtp_node(s, w), was = s->pi[t];
	int migrated = was != LOCUS_NONE && was != w;
	for (uint32_t i = 0; (moved || migrated) && i < tk->n_in; i++) {
		uint32_t o = s->g->inputs[tk->in_at + i], u = s->g->objects[o].producer;
		if (u == LOCUS_NONE || !s->done[u])
			continue;
		uint64_t bytes = s->g->objects[o].bytes;
		uint32_t from = s->pi[u] != LOCUS_NONE ? locus__gtp_node(s, s->pi[u]) : LOCUS_NONE;
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
				double c = locus__gtp_comm(s, (double)bytes, h[k], to, 0);
				if (c < best) {
					best = c;
					from = h[k];
				}
			}
		}
		locus_act_transfer(act, o, from, to);
		/* (Out of memory, a point takes it to come from the
		 * producer's node.) */
		if (s->shared)
			(void)locus__gtp_asked(s, o, from, to);
		if (migrated) {
			uint32_t old = locus__gtp_node(s, was), pn = locus__gtp_node(s, s->pi[u]);
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
					? s->mon->moved(s->mon, o, locus__gtp_node(s, s->pi[c]))
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
		int down = !(s->mon->avail(s->mon, locus__gtp_node(s, w)) > 0);
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
		if (!s->done[t] && (s->mu[t] >= s->nw ||
				    !(s->mon->avail(s->mon, locus__gtp_node(s, s->mu[t])) > 0)))
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
			s->avail[w] = s->mon->avail(s->mon, locus__gtp_node(s, w));
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
		if (locus__gtp_map_dls(s, now)) {
			locus_act_oom(act);
			return;
		}
	} else if (s->guard && !forced(s)) {
		/* The schedule in force, costed as the new one will be: the
		 * new one replaces it only if it is estimated to end sooner. */
		s->est_cur = locus__gtp_map_all(s, now, 1);
		s->est_new = locus__gtp_map_all(s, now, 0);
		if (s->oom) {
			locus_act_oom(act);
			return;
		}
		int take = s->est_new < s->est_cur * (1 - (s->shared ? 0 : s->gain));
		if (take && s->shared) {
			double cur = locus__gtp_play(s, now, s->mu);
			double next = locus__gtp_play(s, now, s->newmu);
			if (isnan(cur) || isnan(next)) {
				locus_act_oom(act);
				return;
			}
			if (s->watch && !s->watch->played++) {
				s->watch->first_cur = cur;
				s->watch->first_new = next;
			}
			/* (A margin of rounding: two mappings that end alike
			 * are not worth a migration.) */
			take = next < cur * (1 - s->gain - 1e-9);
		}
		if (!take) {
			s->kept++;
			return;
		}
	} else {
		s->est_new = locus__gtp_map_all(s, now, 0);
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
		locus__gtp_plan_spare(s);
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
