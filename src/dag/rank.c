/*
 * HEFT's upward rank and CPOP's downward rank (Topcuoglu, Hariri and Wu,
 * IEEE TPDS 13(3), 2002, Eq. 7 and 8), over the mean costs of the
 * workload's workers and the mean communication between them.
 */
#include <stdlib.h>

#include "core/internal.h"
#include "dag/plan.h"

void locus__dag_mean_costs(const struct locus_workload *wl, double *mean)
{
	if (wl->cost || !wl->n_workers) {
		for (size_t t = 0; t < wl->n_tasks; t++)
			mean[t] = locus_workload_mean_cost(wl, (uint32_t)t);
		return;
	}
	/* locus_workload_mean_cost's sum of inverse speeds, made once: the
	 * same operations, in O(v + p) rather than O(v p). */
	double inv = 0;
	for (size_t w = 0; w < wl->n_workers; w++)
		inv += 1 / wl->platform->nodes[wl->worker_node[w]].speed;
	for (size_t t = 0; t < wl->n_tasks; t++)
		mean[t] = wl->tasks[t].work * inv / (double)wl->n_workers;
}

/* rank_u(i) = w(i) + max over successors j of (c(i, j) + rank_u(j)), 0
 * for the max over no successor; in reverse topological order. */
void locus__dag_upward(const struct locus_workload *wl, const double *mean, double *rank)
{
	const struct locus_graph *g = wl->graph;
	for (size_t k = g->n_tasks; k-- > 0;) {
		uint32_t t = g->topo[k];
		double tail = 0;
		for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++) {
			const struct locus_edge *se = &g->succs[e];
			double v = locus_workload_mean_comm(wl, se->bytes) + rank[se->task];
			if (v > tail)
				tail = v;
		}
		rank[t] = mean[t] + tail;
	}
}

/* rank_d(i) = max over predecessors p of (rank_d(p) + w(p) + c(p, i)), 0
 * for an entry task; in topological order. */
void locus__dag_downward(const struct locus_workload *wl, const double *mean, double *rank)
{
	const struct locus_graph *g = wl->graph;
	for (size_t k = 0; k < g->n_tasks; k++) {
		uint32_t t = g->topo[k];
		double head = 0;
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++) {
			const struct locus_edge *pe = &g->preds[e];
			double v = rank[pe->task] + mean[pe->task] +
				   locus_workload_mean_comm(wl, pe->bytes);
			if (v > head)
				head = v;
		}
		rank[t] = head;
	}
}

/* One of the ranks into rank[], the mean costs computed once. */
static int ranks(const struct locus_workload *wl, double *rank,
		 void (*fn)(const struct locus_workload *, const double *, double *))
{
	if (!wl || !wl->graph || !rank || wl->graph->n_tasks != wl->n_tasks)
		return LOCUS_EINVAL;
	double *mean = locus__calloc(wl->n_tasks ? wl->n_tasks : 1, sizeof *mean);
	if (!mean)
		return LOCUS_ENOMEM;
	locus__dag_mean_costs(wl, mean);
	fn(wl, mean, rank);
	free(mean);
	return 0;
}

int locus_dag_upward_rank(const struct locus_workload *wl, double *rank)
{
	return ranks(wl, rank, locus__dag_upward);
}

int locus_dag_downward_rank(const struct locus_workload *wl, double *rank)
{
	return ranks(wl, rank, locus__dag_downward);
}
