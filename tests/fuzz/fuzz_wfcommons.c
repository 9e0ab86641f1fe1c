/*
 * libFuzzer target for the WfCommons reader (locus_dag_read_wfcommons).
 * Each input either fails cleanly (no graph, an error with its code and a
 * message; a line and column only for malformed JSON) or gives a finished
 * graph that keeps the model's promises: named tasks found by their
 * names, works >= 0, one producer per object, edges that go down the
 * topological order, the same graph when read again; and on two nodes
 * HEFT plans it at no less than the bounds.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static struct locus_platform *two;

static void check_graph(const struct locus_graph *g)
{
	check(g->n_tasks > 0 && g->data_bw == 0 && g->n_procs == 0);
	unsigned char *seen = calloc(g->n_tasks, 1);
	uint32_t *pos = calloc(g->n_tasks, sizeof *pos);
	check(seen && pos);
	for (size_t k = 0; k < g->n_tasks; k++) {
		uint32_t t = g->topo[k];
		check(t < g->n_tasks && !seen[t]++);
		pos[t] = (uint32_t)k;
	}
	for (size_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task *tk = &g->tasks[t];
		check(tk->name && locus_graph_find_task(g, tk->name) == (long)t);
		check(tk->work >= 0 && isfinite(tk->work));
		uint64_t bytes = 0;
		for (uint32_t k = 0; k < tk->n_in; k++) {
			const struct locus_object *o = &g->objects[g->inputs[tk->in_at + k]];
			check(o->producer != t);
			bytes += o->bytes;
		}
		check(bytes == tk->bytes);
		for (uint32_t k = 0; k < tk->n_out; k++)
			check(g->objects[g->outputs[tk->out_at + k]].producer == t);
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++) {
			uint32_t p = g->preds[e].task;
			check(p < g->n_tasks && pos[p] < pos[t] && g->level[p] < g->level[t]);
		}
	}
	for (size_t o = 0; o < g->n_objects; o++) {
		const struct locus_object *ob = &g->objects[o];
		check(ob->producer == LOCUS_NONE || ob->producer < g->n_tasks);
		if (ob->name)
			check(locus_graph_find_object(g, ob->name) == (long)o);
		else /* an edge of 0 bytes for a parent relation */
			check(ob->bytes == 0 && ob->producer != LOCUS_NONE && ob->n_cons == 1);
	}
	free(seen);
	free(pos);
}

static void check_plan(const struct locus_graph *g)
{
	struct locus_workload *wl = NULL;
	struct locus_dag_plan *plan = NULL;
	struct locus_dag_bounds b;
	struct locus_error err = {0};
	/* A task of more cores than a node has (coreCount) is refused at
	 * load, naming it; the nodes state no memory, so no other is. */
	int big = 0;
	for (uint32_t t = 0; t < g->n_tasks; t++)
		big |= locus_graph_demand(g, t).cores > 1;
	if (big) {
		check(locus_workload_from_graph(&wl, two, g, NULL, &err) == LOCUS_EINVAL && !wl);
		check(strstr(err.message, "which no node holds") != NULL);
		return;
	}
	check(locus_workload_from_graph(&wl, two, g, NULL, &err) == 0);
	check(locus_dag_bounds(wl, NULL, &b) == 0);
	check(b.lower >= b.critical_path && b.lower >= b.work && isfinite(b.lower));
	check(locus_dag_plan(&plan, wl, LOCUS_DAG_HEFT, NULL, &err) == 0);
	check(plan->makespan >= b.lower * (1 - 1e-9));
	locus_dag_plan_destroy(plan);
	locus_workload_destroy(wl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!two) {
		if (locus_platform_generate(&two, 2, 1, 1, "n"))
			abort();
		locus_platform_set_pairs(two, 1e6, 0);
	}
	const char *text = (const char *)data;
	struct locus_graph *g = (struct locus_graph *)&two, *again = NULL;
	struct locus_error err = {0};
	int rc = locus_dag_read_wfcommons(&g, text, size, "fuzz", &err);
	if (rc) {
		check(g == NULL && err.code == rc && err.message[0]);
		check(rc == LOCUS_EPARSE || rc == LOCUS_ENOMEM);
		check((err.line > 0) == !strncmp(err.message, "invalid JSON", 12));
		return 0;
	}
	check_graph(g);
	check(locus_dag_read_wfcommons(&again, text, size, "fuzz", &err) == 0);
	check(again->n_tasks == g->n_tasks && again->n_objects == g->n_objects &&
	      again->n_edges == g->n_edges);
	for (size_t e = 0; e < g->n_edges; e++)
		check(again->preds[e].task == g->preds[e].task &&
		      again->preds[e].bytes == g->preds[e].bytes);
	locus_graph_destroy(again);
	double work = 0;
	for (size_t t = 0; t < g->n_tasks; t++)
		work += g->tasks[t].work;
	if (g->n_tasks <= 300 && work < 1e300) /* sums of works stay finite */
		check_plan(g);
	locus_graph_destroy(g);
	return 0;
}
