/*
 * libFuzzer target for the text form of a graph with a cost per
 * processor: the input is read as that form. It either fails cleanly (no
 * graph, a parse error with its message, and its line and column unless
 * it is a cycle, which the graph's check finds) or gives a finished graph:
 * every edge forward in the topological order, each task's work the mean
 * of its costs, distinct names, data at 1 or 1e6 bytes per unit. Written
 * in STG and read back it has the same tasks, edges and critical path.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

/* The longest path of the tasks' work over g->topo. */
static double critical_path(const struct locus_graph *g)
{
	double *f = calloc(g->n_tasks + 1, sizeof *f), best = 0;
	if (!f)
		abort();
	for (size_t i = 0; i < g->n_tasks; i++) {
		uint32_t t = g->topo[i];
		double start = 0;
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
			start = fmax(start, f[g->preds[e].task]);
		f[t] = start + g->tasks[t].work;
		best = fmax(best, f[t]);
	}
	free(f);
	return best;
}

static void check_graph(const struct locus_graph *g)
{
	uint32_t *pos = calloc(g->n_tasks + 1, sizeof *pos);
	if (!pos)
		abort();
	check(g->n_tasks > 0 && g->n_procs > 0 && g->cost != NULL);
	check(g->data_bw == 1 || g->data_bw == 1e6);
	check(g->n_objects == g->n_edges);
	for (size_t i = 0; i < g->n_tasks; i++)
		pos[g->topo[i]] = (uint32_t)i;
	for (size_t t = 0; t < g->n_tasks; t++) {
		double sum = 0;
		for (size_t m = 0; m < g->n_procs; m++) {
			double c = g->cost[t * g->n_procs + m];
			check(c >= 0 && isfinite(c));
			sum += c;
		}
		check(g->tasks[t].work == sum / (double)g->n_procs);
		check(g->tasks[t].name && locus_graph_find_task(g, g->tasks[t].name) == (long)t);
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++) {
			check(pos[g->preds[e].task] < pos[t]);
			check(g->preds[e].n_objects == 1);
			if (g->data_bw == 1)
				check(g->preds[e].bytes <= 1000000000000ull);
		}
	}
	free(pos);
}

static void round_trip(const struct locus_graph *g)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	if (!fp)
		abort();
	check(locus_dag_write_stg(g, 0, fp) == 0);
	fclose(fp);
	struct locus_graph *back = NULL;
	struct locus_error err = {0};
	check(locus_dag_read_stg(&back, buf, len, "written", &err) == 0);
	free(buf);
	check(back->n_tasks == g->n_tasks && back->n_edges == g->n_edges);
	for (size_t i = 0; i < g->n_tasks; i++)
		check(back->tasks[i].work == g->tasks[g->topo[i]].work);
	check(critical_path(back) == critical_path(g));
	locus_graph_destroy(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct locus_graph *g = (void *)&g;
	struct locus_error err = {0};
	int rc = locus_dag_read_text(&g, (const char *)data, size, "fuzz", &err);
	if (rc) {
		check(g == NULL && err.code == rc && rc == LOCUS_EPARSE && err.message[0]);
		check((err.line > 0 && err.column > 0) || strstr(err.message, "cycle"));
		return 0;
	}
	check_graph(g);
	round_trip(g);
	locus_graph_destroy(g);
	return 0;
}
