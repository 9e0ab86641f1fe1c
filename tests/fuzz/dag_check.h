/* What every finished task graph promises, for the graph fuzzers. */
#ifndef LOCUS_FUZZ_DAG_CHECK_H
#define LOCUS_FUZZ_DAG_CHECK_H

#include <math.h>
#include <stdlib.h>

#include "locus/locus.h"

static void dag_check(int ok)
{
	if (!ok)
		abort();
}

/* Edges go from a lower level to a higher one, both lists agree, the
 * topological order is a permutation, costs are finite and >= 0. */
static void dag_check_graph(const struct locus_graph *g)
{
	size_t n = g->n_tasks;
	char *seen = calloc(n ? n : 1, 1);
	dag_check(seen != NULL);
	for (size_t k = 0; k < n; k++) {
		dag_check(g->topo[k] < n && !seen[g->topo[k]]);
		seen[g->topo[k]] = 1;
	}
	free(seen);
	dag_check(g->pred_at[n] == g->n_edges && g->succ_at[n] == g->n_edges);
	for (size_t t = 0; t < n; t++) {
		dag_check(g->tasks[t].work >= 0 && isfinite(g->tasks[t].work));
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
			dag_check(g->level[g->preds[e].task] < g->level[t]);
		for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++)
			dag_check(g->level[g->succs[e].task] > g->level[t]);
		for (size_t m = 0; g->cost && m < g->n_procs; m++)
			dag_check(g->cost[t * g->n_procs + m] >= 0 &&
				  isfinite(g->cost[t * g->n_procs + m]));
	}
}

#endif
