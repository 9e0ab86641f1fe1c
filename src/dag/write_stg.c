/*
 * Writing a graph in the STG format (read_stg.c): tasks numbered 1..N in
 * the graph's topological order, so that predecessors have smaller ids
 * whatever the graph's own ids; a dummy entry 0 of cost 0 before every
 * task without a predecessor, a dummy exit N+1 of cost 0 after every
 * task without a successor; then an information block. Data sizes are
 * not part of the format.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/dag.h"

/* A cost as the STG set writes it: rounded half away from zero, and a
 * positive cost below one half is 1, so a task that works never becomes
 * free; or else the shortest decimal that reads back as the same double. */
static void format_cost(char *buf, size_t size, double c, int round_costs)
{
	if (round_costs) {
		double r = round(c);
		if (c > 0 && r < 1)
			r = 1;
		snprintf(buf, size, "%.0f", r);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, c);
		if (strtod(buf, NULL) == c)
			return;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int locus_dag_write_stg(const struct locus_graph *g, int round_costs, FILE *fp)
{
	char cost[40];
	if (!g || !fp || (g->n_tasks && !g->topo))
		return LOCUS_EINVAL;
	size_t n = g->n_tasks;
	uint32_t *id = locus__calloc(n ? n : 1, sizeof *id);
	uint32_t *preds = locus__calloc(n ? n : 1, sizeof *preds);
	if (!id || !preds) {
		free(id);
		free(preds);
		return LOCUS_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		id[g->topo[i]] = (uint32_t)(i + 1);
	size_t from_entry = 0, to_exit = 0;
	for (size_t t = 0; t < n; t++) {
		from_entry += g->pred_at[t] == g->pred_at[t + 1];
		to_exit += g->succ_at[t] == g->succ_at[t + 1];
	}

	fprintf(fp, " %10zu\n", n);
	fprintf(fp, " %10d %10d %10d\n", 0, 0, 0);
	for (size_t i = 0; i < n; i++) {
		uint32_t t = g->topo[i];
		uint32_t a = g->pred_at[t], b = g->pred_at[t + 1], k = b - a;
		format_cost(cost, sizeof cost, g->tasks[t].work, round_costs);
		fprintf(fp, " %10zu %10s %10" PRIu32, i + 1, cost, k ? k : 1);
		if (!k) {
			fprintf(fp, " %10d\n", 0);
			continue;
		}
		for (uint32_t e = a; e < b; e++)
			preds[e - a] = id[g->preds[e].task];
		qsort(preds, k, sizeof *preds, cmp_u32);
		for (uint32_t j = 0; j < k; j++)
			fprintf(fp, " %10" PRIu32, preds[j]);
		fputc('\n', fp);
	}
	/* The exit's predecessors in id order: the tasks without successors. */
	fprintf(fp, " %10zu %10d %10zu", n + 1, 0, n ? to_exit : (size_t)1);
	if (!n)
		fprintf(fp, " %10d", 0);
	for (size_t i = 0; i < n; i++) {
		uint32_t t = g->topo[i];
		if (g->succ_at[t] == g->succ_at[t + 1])
			fprintf(fp, " %10zu", i + 1);
	}
	fputc('\n', fp);
	double pairs = (double)n * ((double)n - 1) / 2;
	fprintf(fp, "# Written by Locus\n");
	fprintf(fp, "#   Tasks             : %zu (+dummy tasks : 2)\n", n);
	fprintf(fp, "#   Edges             : %zu / %.0f (+dummy edges : %zu)\n", g->n_edges, pairs,
		n ? from_entry + to_exit : (size_t)1);
	free(id);
	free(preds);
	return ferror(fp) ? LOCUS_EIO : 0;
}
