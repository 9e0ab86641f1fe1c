/*
 * libFuzzer target for the text form of a graph with costs per processor:
 * an input either fails cleanly or gives a finished acyclic graph with
 * finite costs; small ones are planned by HEFT on their processors
 * (contention-free links at the form's data unit), and the plan never
 * beats the bounds.
 */
#include <stdint.h>
#include <stdlib.h>

#include "dag_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct locus_graph *g = (struct locus_graph *)1;
	struct locus_error err = {0};
	int rc = locus_dag_read_text(&g, (const char *)data, size, "fuzz.txt", &err);
	if (rc) {
		dag_check(g == NULL && err.code == rc && err.message[0]);
		return 0;
	}
	dag_check_graph(g);
	dag_check(g->cost && g->n_procs > 0 && g->data_bw > 0);
	if (g->n_tasks <= 64 && g->n_procs <= 8) {
		struct locus_platform *p = NULL;
		struct locus_workload *wl = NULL;
		struct locus_dag_plan *plan = NULL;
		struct locus_dag_bounds b;
		dag_check(locus_platform_generate(&p, g->n_procs, 1, 1, "p") == 0);
		locus_platform_set_pairs(p, g->data_bw, 0);
		dag_check(locus_workload_from_graph(&wl, p, g, NULL, &err) == 0);
		dag_check(locus_dag_plan(&plan, wl, LOCUS_DAG_HEFT, NULL, &err) == 0);
		dag_check(locus_dag_bounds(wl, NULL, &b) == 0);
		dag_check(plan->makespan >= b.lower * (1 - 1e-9));
		locus_dag_plan_destroy(plan);
		locus_workload_destroy(wl);
		locus_platform_destroy(p);
	}
	locus_graph_destroy(g);
	return 0;
}
