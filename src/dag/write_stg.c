/*
 * Writes a graph in the STG format (docs/formats.md, "Task graphs"): the
 * number of tasks, a dummy entry task 0 of cost 0 before every task
 * without predecessors, the tasks 1..N in topological order, each with
 * its predecessors, and a dummy exit task N + 1 of cost 0 after every
 * task without successors. Costs are the tasks' work (rounded to whole
 * units when asked, at least 1 for a task that has work, as the STG
 * set's costs are); data sizes are not part of the format.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "locus/dag.h"

int locus_dag_write_stg(const struct locus_graph *g, int round_costs, FILE *fp)
{
	if (!g || !fp)
		return LOCUS_EINVAL;
	size_t n = g->n_tasks;
	/* STG ids: 1 + the position in the topological order, so every
	 * predecessor has a smaller id. */
	uint32_t *id = malloc((n ? n : 1) * sizeof *id);
	if (!id)
		return LOCUS_ENOMEM;
	for (size_t k = 0; k < n; k++)
		id[g->topo[k]] = (uint32_t)(k + 1);
	fprintf(fp, "%zu\n0 0 0\n", n);
	for (size_t k = 0; k < n; k++) {
		uint32_t t = g->topo[k];
		double w = g->tasks[t].work;
		if (round_costs)
			w = w > 0 && w < 1 ? 1 : floor(w + 0.5);
		uint32_t np = g->pred_at[t + 1] - g->pred_at[t];
		fprintf(fp, "%" PRIu32 " %.17g %" PRIu32, id[t], w, np ? np : 1);
		if (!np)
			fputs(" 0", fp);
		/* Predecessors by STG id, as the set lists them. */
		uint32_t *ps = malloc((np ? np : 1) * sizeof *ps);
		if (!ps) {
			free(id);
			return LOCUS_ENOMEM;
		}
		for (uint32_t j = 0; j < np; j++) {
			uint32_t v = id[g->preds[g->pred_at[t] + j].task], i = j;
			while (i && ps[i - 1] > v) {
				ps[i] = ps[i - 1];
				i--;
			}
			ps[i] = v;
		}
		for (uint32_t j = 0; j < np; j++)
			fprintf(fp, " %" PRIu32, ps[j]);
		free(ps);
		fputc('\n', fp);
	}
	size_t sinks = 0;
	for (size_t t = 0; t < n; t++)
		sinks += g->succ_at[t + 1] == g->succ_at[t];
	fprintf(fp, "%zu 0 %zu", n + 1, n ? sinks : 1);
	if (!n)
		fputs(" 0", fp);
	for (size_t k = 0; k < n; k++) {
		uint32_t t = g->topo[k];
		if (g->succ_at[t + 1] == g->succ_at[t])
			fprintf(fp, " %" PRIu32, id[t]);
	}
	fputc('\n', fp);
	free(id);
	return ferror(fp) ? LOCUS_EIO : 0;
}
