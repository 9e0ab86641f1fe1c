/*
 * Bounds: what no schedule can beat, to put next to what a policy did.
 *
 *  - makespan: no schedule finishes before the workers have computed the
 *    total work, nor before every byte has been read from where it lives,
 *    nor before each worker has read and computed its share in turn, nor
 *    before the longest task is read and computed at the best rates any
 *    node offers;
 *  - locality: the most tasks any assignment can read locally when each
 *    node takes at most its balanced share (a maximum flow, checked against
 *    a min-cost flow solved by GLPK);
 *  - DL-MPI's integer program (Eq. 1-2), solved exactly by GLPK for small
 *    instances.
 */
#ifndef LOCUS_BOUNDS_H
#define LOCUS_BOUNDS_H

#include <stddef.h>
#include <stdint.h>

#include "locus/error.h"
#include "locus/platform.h"
#include "locus/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a run adds to its workload that changes the makespan bound. */
struct locus_bound_env {
	double shared_fs_bw; /* > 0: every chunk is read from a shared file system */
	const struct locus_speed_change *speed; /* node speed changes, by time */
	size_t n_speed;
	/* Each task's work in place of the workload's (NULL: the workload's):
	 * what a real run measured. */
	const double *work;
	/* Reading costs nothing: the work already includes it (a real run
	 * times each task's reading inside its function). */
	int free_io;
};

/* The parts of the makespan bound, each a time no schedule beats. */
struct locus_makespan_bound {
	double lower; /* the largest of the four below */
	/* compute: the first time the workers, at their speeds over time,
	 * can have done the total work */
	double work;
	/* reading: the bytes over the aggregate bandwidth of where they are
	 * read from (the disks, links for chunks no node holds, or the
	 * shared file system) */
	double io;
	/* each worker reads a task, then computes it: over all workers,
	 * sum(work) + sum(bytes) * min(peak speed / read bandwidth) is done
	 * at no more than the sum of peak speeds per second */
	double serial;
	/* the longest task, read at the highest bandwidth and computed at
	 * the highest speed of any node at any time */
	double longest;
};

/* The makespan lower bound of `wl` under `env` (NULL: node-local reads at
 * constant speeds); fills `out` if not NULL. Ignores message latencies and
 * scheduling costs, so it holds for every policy and engine model. */
double locus_bound_makespan(const struct locus_workload *wl, const struct locus_bound_env *env,
			    struct locus_makespan_bound *out);

/* Balanced capacity of each node, in tasks: ceil(n_tasks * share) where a
 * node's share is its cores * speed over the platform's total. `cap` has
 * one entry per platform node. */
void locus_bound_balanced_caps(const struct locus_workload *wl, uint32_t *cap);

/* The most tasks that can read locally when node n takes at most cap[n]
 * tasks (cap NULL: balanced caps) - a maximum bipartite flow. If
 * `task_node` is not NULL it receives one such assignment (node per task;
 * tasks that cannot be local get a node with spare capacity). */
int locus_bound_locality(const struct locus_workload *wl, const uint32_t *cap, long *best,
			 uint32_t *task_node, struct locus_error *err);

/* The same optimum from GLPK's min-cost flow, for cross-checking. */
int locus_bound_locality_glpk(const struct locus_workload *wl, const uint32_t *cap, long *best,
			      struct locus_error *err);

/* DL-MPI Eq. 1-2: assign every task to one node maximising
 *   alpha * (local tasks / n_tasks) + beta * (OPT / max_i T(F_i))
 * where T(F_i) is the work given to node i over its cores * speed and OPT
 * the work bound. Solved exactly with GLPK (branch and bound); refuses
 * instances above `max_tasks` tasks with LOCUS_ERANGE. */
int locus_dlmpi_ip(const struct locus_workload *wl, double alpha, double beta, size_t max_tasks,
		   uint32_t *task_node, double *objective, struct locus_error *err);

/* The value of Eq. 1 for the assignment task_node (node of each task),
 * as locus_dlmpi_ip defines it: what a policy's run scored, to put next to
 * the optimum. NaN when out of memory. */
double locus_dlmpi_objective(const struct locus_workload *wl, double alpha, double beta,
			     const uint32_t *task_node);

#ifdef __cplusplus
}
#endif
#endif
