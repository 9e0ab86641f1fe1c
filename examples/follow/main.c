/*
 * follow: the example policy of docs/architecture.md (follow.c) beside
 * HEFT in the simulator, on a generated Montage workflow.
 *
 *   follow [IMAGES [NODES]]
 *
 * Build against an installed Locus:
 *   cc main.c follow.c $(pkg-config --cflags --libs locus) -o follow
 * The same policy runs on MPI ranks through locus_mpi_flow_run, with
 * options.policy_def = &follow_policy (tests/mpi/test_conform.c does).
 */
#include <stdio.h>
#include <stdlib.h>

#include "follow.h"

static int run(const struct locus_workload *wl, const struct locus_policy *p)
{
	struct locus_sim_config cfg;
	locus_sim_config_init(&cfg); /* the version, and the defaults: latency -1 */
	cfg.wl = wl;
	cfg.policy = p;
	cfg.seed = 1;
	struct locus_result *r = NULL;
	struct locus_error err;
	if (locus_sim_run(&r, &cfg, &err)) {
		fprintf(stderr, "follow: %s: %s\n", p->name, err.message);
		return 1;
	}
	printf("%-8s makespan %10.3f s   lower bound %10.3f s   %6zu transfers\n", p->name,
	       r->makespan, r->lb_makespan, (size_t)r->transfers);
	locus_result_destroy(r);
	return 0;
}

int main(int argc, char **argv)
{
	char spec[64];
	int nodes = argc > 2 ? atoi(argv[2]) : 8;
	snprintf(spec, sizeof spec, "gen:montage:%d", argc > 1 ? atoi(argv[1]) : 50);
	struct locus_graph *g = NULL;
	struct locus_platform *p = NULL;
	struct locus_workload *wl = NULL;
	struct locus_error err;
	if (nodes < 1 || locus_flow_load(&g, spec, NULL, &err) ||
	    locus_platform_generate(&p, (size_t)nodes, 1, 2, NULL) ||
	    locus_workload_from_graph(&wl, p, g, NULL, &err)) {
		fprintf(stderr, "follow: cannot set up %s on %d nodes\n", spec, nodes);
		return 1;
	}
	printf("%s: %zu tasks on %d nodes of 2 cores\n", spec, g->n_tasks, nodes);
	int rc = run(wl, &follow_policy) || run(wl, locus_policy_find("heft"));
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
	return rc;
}
