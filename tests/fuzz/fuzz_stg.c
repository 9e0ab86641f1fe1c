/*
 * libFuzzer target for the STG reader: the input is read as an STG file.
 * It either fails cleanly (no graph, a parse error with its line, column
 * and message) or gives a finished graph whose ids are a topological
 * order, whose tasks are named by their STG ids and whose edges carry no
 * data; written in STG and read back, it is the same graph (exactly, with
 * costs unrounded; the same edges, rounded). Its heterogeneity and CCR
 * are then set from the input's first bytes and checked.
 */
#include <inttypes.h>
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

static void check_graph(const struct locus_graph *g)
{
	check(g->topo != NULL || g->n_tasks == 0);
	check(g->n_objects == g->n_edges);
	for (size_t i = 0; i < g->n_tasks; i++) {
		const struct locus_task *t = &g->tasks[i];
		check(g->topo[i] == i); /* STG ids are a topological order */
		check(t->work >= 0 && isfinite(t->work));
		check(t->name != NULL && t->name[0] >= '0' && t->name[0] <= '9');
		if (i)
			check(strtoull(t->name, NULL, 10) >
			      strtoull(g->tasks[i - 1].name, NULL, 10));
		for (uint32_t e = g->pred_at[i]; e < g->pred_at[i + 1]; e++) {
			check(g->preds[e].task < i);
			check(g->preds[e].bytes == 0 && g->preds[e].n_objects == 1);
			check(e == g->pred_at[i] || g->preds[e].task > g->preds[e - 1].task);
		}
	}
}

/* Writes g and reads it back. */
static struct locus_graph *round_trip(const struct locus_graph *g, int round_costs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	if (!fp)
		abort();
	check(locus_dag_write_stg(g, round_costs, fp) == 0);
	fclose(fp);
	struct locus_graph *back = NULL;
	struct locus_error err = {0};
	check(locus_dag_read_stg(&back, buf, len, "written", &err) == 0);
	free(buf);
	check(back->n_tasks == g->n_tasks && back->n_edges == g->n_edges);
	for (size_t t = 0; t < g->n_tasks; t++) {
		check(back->pred_at[t + 1] == g->pred_at[t + 1]);
		if (!round_costs)
			check(back->tasks[t].work == g->tasks[t].work);
		else
			check(back->tasks[t].work == floor(back->tasks[t].work) &&
			      (back->tasks[t].work > 0) == (g->tasks[t].work > 0));
	}
	for (size_t e = 0; e < g->n_edges; e++)
		check(back->preds[e].task == g->preds[e].task);
	return back;
}

static void derive(struct locus_graph *g, const uint8_t *data, size_t size)
{
	uint8_t b[4] = {0};
	memcpy(b, data, size < sizeof b ? size : sizeof b);
	struct locus_error err = {0};
	size_t procs = 1 + b[0] % 4;
	double beta = b[1] / 128.0;
	check(locus_dag_set_heterogeneity(g, procs, beta, b[2], &err) == 0);
	check(g->n_procs == procs);
	double ccr = b[3] / 64.0, bw = 1e6;
	double w = 0;
	for (size_t t = 0; t < g->n_tasks; t++) {
		for (size_t m = 0; m < procs; m++) {
			double c = g->cost[t * procs + m];
			check(c >= 0 && isfinite(c));
		}
		w += g->tasks[t].work;
	}
	int rc = locus_dag_set_ccr(g, ccr, bw, b[0], &err);
	if (g->n_edges && ccr > 0 && !(w > 0)) {
		check(rc == LOCUS_EINVAL);
		return;
	}
	if (rc == LOCUS_ERANGE)
		return;
	check(rc == 0);
	double got = locus_dag_ccr(g, bw);
	if (!g->n_edges || ccr == 0)
		check(got == 0);
	else
		check(fabs(got - ccr) <=
		      1e-9 * ccr + 1 / (bw * w / (double)g->n_tasks * (double)g->n_edges));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct locus_graph *g = (void *)&g;
	struct locus_error err = {0};
	int rc = locus_dag_read_stg(&g, (const char *)data, size, "fuzz", &err);
	if (rc) {
		check(g == NULL && err.code == rc && rc == LOCUS_EPARSE);
		check(err.line > 0 && err.column > 0 && err.message[0]);
		return 0;
	}
	check_graph(g);
	struct locus_graph *back = round_trip(g, 0);
	locus_graph_destroy(back);
	back = round_trip(g, 1);
	locus_graph_destroy(back);
	derive(g, data, size);
	locus_graph_destroy(g);
	return 0;
}
