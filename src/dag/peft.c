/*
 * PEFT, Predict Earliest Finish Time (Arabnejad and Barbosa, IEEE TPDS
 * 25(3), 2014, Algorithm 1).
 *
 * The optimistic cost table, from the exit tasks (0) up:
 *   OCT(i, p) = max over successors j of
 *               min over workers w of OCT(j, w) + cost(j, w) + c(i, j, p, w)
 * where c is 0 when w and p are on one node (the paper: one processor;
 * here a node's workers share its data, as the model's transfers do) and
 * else the mean transfer time of the edge (locus_workload_mean_comm).
 * rank_oct(i) is the mean of OCT(i, .) over the workers. A ready list
 * takes the task of highest rank_oct (ties: the lower id) and puts it on
 * the worker with the least EFT(i, p) + OCT(i, p) (insertion-based EFT
 * when enabled; ties: the lower worker).
 *
 * The inner minimum is min(the least OCT + cost on p's node, the least
 * over all workers + c): the same value as the paper's loop in O(e p)
 * rather than O(e p^2).
 */
#include <stdlib.h>

#include "core/internal.h"
#include "dag/plan.h"

/* Fills oct (n x p, row by task) and rank (by task). node_min is scratch
 * of one double per node. */
static void optimistic_costs(const struct locus__dag *s, double *oct, double *rank,
			     double *node_min)
{
	const struct locus_graph *g = s->g;
	const struct locus_workload *wl = s->wl;
	size_t p = s->n_procs;
	for (size_t k = s->n_tasks; k-- > 0;) {
		uint32_t t = g->topo[k];
		double *row = &oct[(size_t)t * p];
		for (size_t w = 0; w < p; w++)
			row[w] = 0;
		for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++) {
			uint32_t j = g->succs[e].task;
			const double *jrow = &oct[(size_t)j * p];
			double c = locus_workload_mean_comm(wl, g->succs[e].bytes);
			double all_min = 0;
			for (uint32_t w = 0; w < p; w++) {
				double v = jrow[w] + locus_workload_cost(wl, j, w);
				uint32_t nd = wl->worker_node[w];
				if (w == 0 || v < all_min)
					all_min = v;
				if (w == 0 || nd != wl->worker_node[w - 1] || v < node_min[nd])
					node_min[nd] = v;
			}
			double far = all_min + c;
			for (uint32_t w = 0; w < p; w++) {
				double near = node_min[wl->worker_node[w]];
				double v = near < far ? near : far;
				if (v > row[w])
					row[w] = v;
			}
		}
		double sum = 0;
		for (size_t w = 0; w < p; w++)
			sum += row[w];
		rank[t] = p ? sum / (double)p : 0;
	}
}

/* The same table without a cost matrix, a column per class of alike
 * workers (plan.h) rather than per worker: a node's workers are of one
 * class and alike workers have the same optimistic costs, computed by the
 * same operations (so the least over a node's workers is its class's
 * value). rank_oct sums the workers' values in their order, as above. */
static void optimistic_costs_by_class(const struct locus__dag *s, double *oct, double *rank)
{
	const struct locus_graph *g = s->g;
	const struct locus_workload *wl = s->wl;
	size_t q = s->n_classes, p = s->n_procs;
	for (size_t k = s->n_tasks; k-- > 0;) {
		uint32_t t = g->topo[k];
		double *row = &oct[(size_t)t * q];
		for (size_t c = 0; c < q; c++)
			row[c] = 0;
		for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++) {
			uint32_t j = g->succs[e].task;
			const double *jrow = &oct[(size_t)j * q];
			double c = locus_workload_mean_comm(wl, g->succs[e].bytes);
			double all_min = 0;
			for (size_t k2 = 0; k2 < q; k2++) {
				double v = jrow[k2] +
					   locus_workload_cost(wl, j, s->members[s->member_at[k2]]);
				if (k2 == 0 || v < all_min)
					all_min = v;
			}
			double far = all_min + c;
			for (size_t k2 = 0; k2 < q; k2++) {
				double near = jrow[k2] + locus_workload_cost(
							     wl, j, s->members[s->member_at[k2]]);
				double v = near < far ? near : far;
				if (v > row[k2])
					row[k2] = v;
			}
		}
		double sum = 0;
		for (size_t w = 0; w < p; w++)
			sum += row[s->cls[w]];
		rank[t] = p ? sum / (double)p : 0;
	}
}

int locus__dag_peft(struct locus__dag *s)
{
	const struct locus_graph *g = s->g;
	/* Columns: a worker's own with a cost matrix, else its class's. */
	int by_class = !s->wl->cost;
	size_t p = by_class ? s->n_classes : s->n_procs;
	double *rank = s->plan->priority;
	size_t cells = s->n_tasks && p <= SIZE_MAX / s->n_tasks ? s->n_tasks * p : 0;
	double *oct = cells ? locus__reallocarray(NULL, cells, sizeof *oct) : NULL;
	double *node_min = locus__calloc(s->wl->platform->n_nodes, sizeof *node_min);
	struct locus__ready ready;
	int rc = LOCUS_ENOMEM;
	if (!oct || !node_min)
		goto out;
	if (by_class)
		optimistic_costs_by_class(s, oct, rank);
	else
		optimistic_costs(s, oct, rank, node_min);
	if ((rc = locus__ready_init(&ready, g, rank)))
		goto out;
	for (size_t k = 0; k < s->n_tasks && !rc; k++) {
		uint32_t t = locus__ready_pop(&ready), best = 0;
		const double *row = &oct[(size_t)t * p];
		struct locus__fit fit = {0, 0, 0};
		double best_v = 0;
		/* The workers of touched nodes and one of each class of alike
		 * ones (plan.h): their optimistic costs are alike too. */
		locus__dag_ready_all(s, t);
		for (size_t c = 0; c < s->n_cand; c++) {
			uint32_t w = s->cand[c];
			struct locus__fit f =
			    locus__dag_fit(s, w, s->node_ready[s->wl->worker_node[w]],
					   locus_workload_cost(s->wl, t, w));
			double v = f.finish + row[by_class ? s->cls[w] : w];
			if (c == 0 || v < best_v) {
				best_v = v;
				best = w;
				fit = f;
			}
		}
		if (!(rc = locus__dag_place(s, t, best, fit)))
			rc = locus__ready_done(&ready, g, t);
	}
	locus__ready_fini(&ready);
out:
	free(oct);
	free(node_min);
	return rc;
}
