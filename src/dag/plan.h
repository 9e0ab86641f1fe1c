/*
 * What the static list schedulers of src/dag share (locus/dag.h): the
 * planning state, each processor's timeline with insertion, the data-ready
 * time of a task on a worker, and the mean costs and ranks.
 *
 * The model is the simulator's: task t on worker w takes
 * locus_workload_cost(wl, t, w) seconds and may start once w is free and,
 * for each predecessor p (an edge of `bytes`), p has finished and its
 * data have arrived: locus_workload_arrival(wl, finish(p), bytes,
 * node(worker(p)), node(w)), finish(p) on one node. Transfers never contend and
 * start when their producer finishes. Every time below is computed with
 * exactly those operations, so that an engine running a plan's per-worker
 * orders as early as it can reproduces the plan's times to the bit.
 */
#ifndef LOCUS_DAG_PLAN_H
#define LOCUS_DAG_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "locus/dag.h"
#include "locus/heap.h"

/* Priorities (ranks, dynamic levels) within this relative distance of
 * each other are equal: the papers' ties are exact in rational numbers,
 * but the means they are made of are not in binary (the HEFT example's
 * n3 and n4 both rank 80, computed as 79.99999999999999 and 80). The
 * same tolerance says which tasks are on CPOP's critical path. Finish
 * times are compared exactly.
 *
 * A ready list's static priorities are grouped once: in decreasing order,
 * a priority joins the group of the largest before it when within the
 * tolerance of it, else starts a group; a group's tasks count as equal. A
 * dynamic level (DLS) ties with the largest of a step when within the
 * tolerance of it. */
#define LOCUS__DAG_RTOL 1e-9

/* Whether v ties with or beats `best`, the largest value in a choice. */
static inline int locus__dag_ties(double v, double best)
{
	return v >= best - LOCUS__DAG_RTOL * (best < 0 ? -best : best);
}

/* A task placed on a processor, [start, finish). */
struct locus__busy {
	double start, finish;
	uint32_t task;
};

/* One processor's tasks in start order (finish[k] <= start[k + 1]). */
struct locus__timeline {
	struct locus__busy *busy;
	size_t n, cap;
};

/* The state of one planning run: the plan being filled, a timeline per
 * worker, and what every algorithm needs per task.
 *
 * Idle workers are interchangeable when nothing is placed on their nodes
 * and those nodes are alike for every task: the same speed (no cost
 * matrix), and the same links from any node (the same interface and rack,
 * or no pair of their own). Such workers form a class; a task would start
 * and finish on each of them at the same instant, computed by the same
 * operations, so the first of them (the lowest index) stands for all, and
 * a choice over the workers of touched nodes and one worker per class is
 * the choice over every worker (ties to the lower worker), in time
 * independent of the idle ones. A worker alone in its class (a cost
 * matrix) is its own representative: the plan is the same either way. */
struct locus__dag {
	const struct locus_workload *wl;
	const struct locus_graph *g;
	struct locus_dag_plan *plan;
	int insertion;
	size_t n_tasks, n_procs;
	struct locus__timeline *tl; /* by worker */
	double *mean_cost;	    /* by task: locus_workload_mean_cost */
	double *node_ready;	    /* scratch: a data-ready time by node */
	size_t n_placed;
	/* The classes: members[member_at[c] .. member_at[c + 1]) in index
	 * order, cursor[c] the first of them whose node may be untouched. */
	uint32_t *members, *member_at, *cursor;
	uint32_t *cls; /* by worker: its class */
	size_t n_classes;
	uint32_t *node_first;	/* by node: its first worker (n_nodes + 1) */
	unsigned char *touched; /* by node: a task is placed there */
	uint32_t *touched_nodes;
	size_t n_touched;
	uint32_t *cand; /* scratch: the workers a choice looks at */
	size_t n_cand;
};

/* Where a task would run on one worker: its start and finish, and the
 * position in the worker's timeline it would take. */
struct locus__fit {
	double start, finish;
	size_t pos;
};

/* Sets up `s` for planning every task of `wl` into `plan` (allocated by
 * the caller with its arrays). 0 or LOCUS_ENOMEM. */
int locus__dag_init(struct locus__dag *s, const struct locus_workload *wl,
		    struct locus_dag_plan *plan, int insertion);
void locus__dag_fini(struct locus__dag *s);

/* The time every produced input of t (their producers all placed) can be
 * on node `node`: the latest locus_workload_arrival of one, each object
 * on its own (an edge of several objects is that many transfers at
 * once, as the simulator sends them); 0 for an entry task. */
double locus__dag_ready_on(const struct locus__dag *s, uint32_t t, uint32_t node);

/* The workers a choice for t looks at, into s->cand[0 .. s->n_cand) in
 * increasing order: every worker of a touched node and the first
 * untouched worker of each class, those whose node can hold t
 * (locus_workload_fits) when the tasks have demands; s->node_ready[node]
 * set for each of their nodes (locus__dag_ready_on). */
void locus__dag_ready_all(struct locus__dag *s, uint32_t t);

/* The first worker of class c whose node is untouched (it stands for
 * every such member), or UINT32_MAX when none is. */
uint32_t locus__dag_class_idle(struct locus__dag *s, size_t c);

/* The earliest start of a task of `cost` seconds on worker w whose data
 * are ready at `ready`: the first idle gap at or after `ready` that holds
 * it when s->insertion (the gaps are searched from `ready` on, found by
 * binary search; a gap holds it only if it starts before the task after
 * the gap, so a task of no duration goes after the tasks that start at
 * its start), else after the worker's last task. */
struct locus__fit locus__dag_fit(const struct locus__dag *s, uint32_t w, double ready, double cost);

/* The fit of t on w with the least finish over the workers (ties: the
 * lower worker), looking at s->cand with their data-ready times from
 * s->node_ready (both set by locus__dag_ready_all). *best gets the
 * worker. */
struct locus__fit locus__dag_best_eft(const struct locus__dag *s, uint32_t t, uint32_t *best);

/* Places task t on worker w at `fit` (from locus__dag_fit for w): records
 * its slot, enters it in w's timeline and in the placement order. 0 or
 * LOCUS_ENOMEM. */
int locus__dag_place(struct locus__dag *s, uint32_t t, uint32_t w, struct locus__fit fit);

/* Fills the plan's per-worker orders and makespan from the timelines. */
void locus__dag_finish(struct locus__dag *s);

/* Mean costs of every task (locus_workload_mean_cost), into mean[]. */
void locus__dag_mean_costs(const struct locus_workload *wl, double *mean);

/* Upward and downward ranks from given mean costs. */
void locus__dag_upward(const struct locus_workload *wl, const double *mean, double *rank);
void locus__dag_downward(const struct locus_workload *wl, const double *mean, double *rank);

/* A ready list: the tasks whose predecessors are all placed, taken by the
 * largest priority, tasks of one group of priorities (LOCUS__DAG_RTOL)
 * by the lower id. */
struct locus__ready {
	struct locus_heap heap; /* of struct locus__ready_item */
	double *key;		/* by task: the largest priority of its group */
	uint32_t *waiting;	/* by task: predecessors not yet placed */
};

/* Fills r with the entry tasks of g, by priority[task]. 0 or
 * LOCUS_ENOMEM. */
int locus__ready_init(struct locus__ready *r, const struct locus_graph *g, const double *priority);
void locus__ready_fini(struct locus__ready *r);
/* Takes the next ready task; the list must not be empty. */
uint32_t locus__ready_pop(struct locus__ready *r);
/* Task t is placed: its successors whose predecessors are now all placed
 * become ready. 0 or LOCUS_ENOMEM. */
int locus__ready_done(struct locus__ready *r, const struct locus_graph *g, uint32_t t);

/* The algorithms: each fills s->plan (slots through locus__dag_place, and
 * the priorities). 0 or LOCUS_ENOMEM. */
int locus__dag_heft(struct locus__dag *s);
int locus__dag_cpop(struct locus__dag *s);
int locus__dag_dls(struct locus__dag *s);
int locus__dag_peft(struct locus__dag *s);

#endif
