/*
 * Bounds: what no schedule can beat, to put next to what a policy did.
 *
 *  - makespan: no schedule finishes before the total work over the total
 *    speed of the workers, nor before the longest task runs on the fastest
 *    node;
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
#include "locus/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The makespan lower bound: max(work bound, longest-task bound). Either
 * output pointer may be NULL. */
double locus_bound_makespan(const struct locus_workload *wl, double *work_bound, double *longest);

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

#ifdef __cplusplus
}
#endif
#endif
