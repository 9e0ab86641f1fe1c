/*
 * The static list schedulers at scale: how long HEFT, CPOP, DLS and PEFT
 * take to plan a random layered graph, and how good the plans are.
 *
 * The graph: layers of about 100 tasks, each task after the first layer
 * with 2 or 3 predecessors drawn from the earlier layers; work uniform in
 * 1..10 and a cost on each of 64 processors with Topcuoglu's
 * heterogeneity beta = 1 (W uniform in [w/2, 3w/2]); edge sizes uniform
 * so that the graph's CCR (mean transfer time over mean cost) is about
 * 0.5, on 64 nodes of one worker each, linked pairwise (contention-free,
 * locus_platform_set_pairs) at 1 GB/s with no start-up time. The issue's
 * target: HEFT plans 10,000 tasks on 64 workers in well under a second.
 *
 * Prints, per size and algorithm, the planning time (the plan's own
 * wall-clock figure), the makespan, and the makespan over the lower bound,
 * over cp_min (Topcuoglu's SLR) and over cp_mean (GTP's NSL). Times are
 * printed, never asserted.
 *
 *   bench_dag            1,000 and 10,000 tasks
 *   bench_dag --large    and 100,000 (DLS left out there: it scans its
 *                        ready list at every step, O(v r) for r ready
 *                        tasks; 100,000 tasks took 86 s on a 2-core
 *                        development machine, 10,000 well under 1 s)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"

#define PROCS	64
#define LAYER	100
#define BETA	1.0
#define CCR	0.5
#define BW	1e9
#define DLS_MAX 10000 /* tasks: DLS beyond takes more than a few seconds */

static void die(const char *what, const struct locus_error *err)
{
	fprintf(stderr, "bench_dag: %s: %s\n", what, err && err->message[0] ? err->message : "");
	exit(1);
}

/* The layered graph of n tasks described above; *ccr gets its CCR. */
static struct locus_graph *layered(size_t n, uint64_t seed, double *ccr)
{
	struct locus_graph *g;
	struct locus_error err = {0};
	struct locus_rng rng;
	double *cost = malloc(n * PROCS * sizeof *cost);
	double sum_cost = 0, sum_time = 0;
	size_t n_edges = 0;
	if (!cost)
		die("out of memory", NULL);
	locus_rng_init(&rng, seed);
	if (locus_graph_create(&g, "layered", &err))
		die("graph", &err);
	for (size_t t = 0; t < n; t++) {
		double work = 1 + (double)locus_rng_below(&rng, 10);
		if (locus_graph_add_task(g, NULL, work) < 0)
			die("graph", NULL);
		for (size_t m = 0; m < PROCS; m++) {
			cost[t * PROCS + m] =
			    work * (1 - BETA / 2 + BETA * locus_rng_uniform(&rng));
			sum_cost += cost[t * PROCS + m];
		}
	}
	if (locus_graph_set_costs(g, PROCS, cost, &err))
		die("costs", &err);
	/* Transfer times uniform in [0, 2 CCR x the mean cost]. */
	double mean_cost = sum_cost / (double)(n * PROCS);
	for (size_t t = LAYER; t < n; t++) {
		size_t first = t / LAYER * LAYER; /* t's layer starts here */
		size_t k = 2 + locus_rng_below(&rng, 2);
		uint32_t chosen[3];
		for (size_t i = 0; i < k; i++) {
			uint32_t p;
			int again;
			do {
				p = (uint32_t)locus_rng_below(&rng, first);
				again = 0;
				for (size_t j = 0; j < i; j++)
					again |= chosen[j] == p;
			} while (again);
			chosen[i] = p;
			uint64_t bytes =
			    (uint64_t)(2 * CCR * mean_cost * BW * locus_rng_uniform(&rng));
			sum_time += (double)bytes / BW;
			n_edges++;
			if (locus_graph_add_edge(g, p, (uint32_t)t, bytes) < 0)
				die("graph", NULL);
		}
	}
	*ccr = n_edges ? sum_time / (double)n_edges / mean_cost : 0;
	if (locus_graph_finish(g, &err))
		die("graph", &err);
	free(cost);
	return g;
}

static void run(size_t n, uint64_t seed)
{
	struct locus_platform *p;
	struct locus_workload *wl;
	struct locus_error err = {0};
	struct locus_dag_bounds b;
	double ccr;
	struct locus_graph *g = layered(n, seed, &ccr);
	if (locus_platform_generate(&p, PROCS, 1, 1, "p"))
		die("platform", NULL);
	locus_platform_set_pairs(p, BW, 0);
	if (locus_workload_from_graph(&wl, p, g, NULL, &err))
		die("workload", &err);
	if (locus_dag_bounds(wl, NULL, &b))
		die("bounds", NULL);
	printf("%zu tasks, %zu edges, %d workers, CCR %.3f, lower bound %.1f s, cp_min %.1f s, "
	       "cp_mean %.1f s\n",
	       n, g->n_edges, PROCS, ccr, b.lower, b.cp_min, b.cp_mean);
	printf("  %-16s %10s %12s %9s %7s %7s\n", "algorithm", "plan (s)", "makespan (s)",
	       "/ lower", "SLR", "NSL");
	static const struct {
		enum locus_dag_algorithm a;
		int insertion;
		const char *label;
	} runs[] = {{LOCUS_DAG_HEFT, 1, "heft"}, {LOCUS_DAG_HEFT, 0, "heft (no ins.)"},
		    {LOCUS_DAG_CPOP, 1, "cpop"}, {LOCUS_DAG_DLS, 0, "dls"},
		    {LOCUS_DAG_PEFT, 1, "peft"}, {LOCUS_DAG_PEFT, 0, "peft (no ins.)"}};
	for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
		struct locus_dag_options o = {.insertion = runs[k].insertion};
		struct locus_dag_plan *plan;
		if (runs[k].a == LOCUS_DAG_DLS && n > DLS_MAX) {
			printf("  %-16s %10s   (more than a few seconds past %d tasks)\n",
			       runs[k].label, "-", DLS_MAX);
			continue;
		}
		if (locus_dag_plan(&plan, wl, runs[k].a, &o, &err))
			die(runs[k].label, &err);
		printf("  %-16s %10.4f %12.1f %9.3f %7.3f %7.3f\n", runs[k].label, plan->seconds,
		       plan->makespan, plan->makespan / b.lower, plan->makespan / b.cp_min,
		       plan->makespan / b.cp_mean);
		fflush(stdout);
		locus_dag_plan_destroy(plan);
	}
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
}

int main(int argc, char **argv)
{
	int large = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--large") == 0) {
			large = 1;
		} else {
			fprintf(stderr, "usage: bench_dag [--large]\n");
			return 2;
		}
	}
	run(1000, 1);
	run(10000, 2);
	if (large)
		run(100000, 3);
	return 0;
}
