/*
 * The simulator on a large workflow: a Montage-shaped graph of 100,000
 * tasks (WfCommons' montage instances have this structure at a few
 * hundred tasks) on 1,024 processors, planned by HEFT and run.
 *
 * The workflow, stage by stage (names as Montage's programs):
 *   mProject     P tasks, each reads a stored image (4 MB) and writes a
 *                projected one (8 MB);
 *   mDiffFit     D tasks, each reads two projected images (neighbours)
 *                and writes a fit (1 KB);
 *   mConcatFit   one task reads every fit (a gather of D inputs);
 *   mBgModel     one task reads the table, writes the corrections,
 *                which every mBackground reads (a multicast);
 *   mBackground  P tasks, each reads its projected image and the
 *                corrections, writes a corrected image (8 MB);
 *   mImgtbl      G tasks, each gathers P/G corrected images' headers
 *                (reads the images);
 *   mAdd         G tasks, each adds its group's images (reads them and
 *                its mImgtbl's table), then one final mAdd of the G tiles.
 * Work per task is uniform in a stage's range (seconds); stored inputs
 * are on a shared store, read through each reader's interface.
 *
 * The platform: 1,024 nodes of one processor, each pair linked at
 * 1 GB/s (contention-free, the DAG papers' model), or (--shared) the
 * same nodes on a shared network with max-min sharing at 125 MB/s per
 * interface. The target: under 10 s and under 1 GiB.
 *
 * Prints the graph's size, the plan time (HEFT planned again on its own),
 * the simulation time (the run less the plan), events, makespan against the lower bound, and the
 * peak resident memory of the process. Times are printed, never asserted.
 *
 *   bench_sim_graph            the contention-free run
 *   bench_sim_graph --shared   the shared network
 *   bench_sim_graph --tasks N  another size (about N tasks)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "locus/locus.h"

#define PROCS  1024
#define GROUPS 48

static void die(const char *what, const struct locus_error *err)
{
	fprintf(stderr, "bench_sim_graph: %s: %s\n", what,
		err && err->message[0] ? err->message : "");
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint32_t task(struct locus_graph *g, struct locus_rng *rng, double lo, double hi)
{
	long t = locus_graph_add_task(g, NULL, lo + (hi - lo) * locus_rng_uniform(rng));
	if (t < 0)
		die("add task", NULL);
	return (uint32_t)t;
}

static uint32_t object(struct locus_graph *g, uint64_t bytes)
{
	long o = locus_graph_add_object(g, NULL, bytes);
	if (o < 0)
		die("add object", NULL);
	return (uint32_t)o;
}

static void output(struct locus_graph *g, uint32_t t, uint32_t o)
{
	struct locus_error err = {0};
	if (locus_graph_add_output(g, t, o, &err))
		die("add output", &err);
}

static void input(struct locus_graph *g, uint32_t t, uint32_t o)
{
	if (locus_graph_add_input(g, t, o))
		die("add input", NULL);
}

/* The Montage-shaped graph of about n tasks. */
static struct locus_graph *montage(size_t n, uint64_t seed)
{
	struct locus_graph *g;
	struct locus_error err = {0};
	struct locus_rng rng;
	locus_rng_init(&rng, seed);
	/* n = 2P + D + 3 + 2G with D about 4/3 P, as Montage's overlaps. */
	size_t p = (n - 3 - 2 * GROUPS) * 3 / 10, d = n - 3 - 2 * GROUPS - 2 * p;
	uint32_t *proj = malloc(p * sizeof *proj), *bg = malloc(p * sizeof *bg);
	if (!proj || !bg || locus_graph_create(&g, "montage-like", &err))
		die("graph", &err);
	for (size_t i = 0; i < p; i++) {
		uint32_t t = task(g, &rng, 10, 15), in = object(g, 4u << 20);
		input(g, t, in);
		output(g, t, proj[i] = object(g, 8u << 20));
	}
	uint32_t concat = task(g, &rng, 60, 60), table = object(g, 64u << 10);
	for (size_t i = 0; i < d; i++) {
		uint32_t t = task(g, &rng, 1, 3), fit = object(g, 1024);
		size_t a = i % p, b = (a + 1 + i / p) % p;
		input(g, t, proj[a]);
		input(g, t, proj[b == a ? (a + 1) % p : b]);
		output(g, t, fit);
		input(g, concat, fit);
	}
	output(g, concat, table);
	uint32_t model = task(g, &rng, 120, 120), corr = object(g, 256u << 10);
	input(g, model, table);
	output(g, model, corr);
	for (size_t i = 0; i < p; i++) {
		uint32_t t = task(g, &rng, 1, 2);
		input(g, t, proj[i]);
		input(g, t, corr);
		output(g, t, bg[i] = object(g, 8u << 20));
	}
	uint32_t final = task(g, &rng, 60, 60);
	for (size_t k = 0; k < GROUPS; k++) {
		uint32_t tbl = task(g, &rng, 5, 5), add = task(g, &rng, 30, 30);
		uint32_t list = object(g, 16u << 10), tile = object(g, 64u << 20);
		for (size_t i = k; i < p; i += GROUPS) {
			input(g, tbl, bg[i]);
			input(g, add, bg[i]);
		}
		output(g, tbl, list);
		input(g, add, list);
		output(g, add, tile);
		input(g, final, tile);
	}
	output(g, final, object(g, 1u << 30));
	if (locus_graph_finish(g, &err))
		die("finish", &err);
	free(proj);
	free(bg);
	return g;
}

int main(int argc, char **argv)
{
	int shared = 0;
	size_t n = 100000;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--shared") == 0) {
			shared = 1;
		} else if (strcmp(argv[i], "--tasks") == 0 && i + 1 < argc) {
			n = strtoul(argv[++i], NULL, 10);
		} else {
			fprintf(stderr, "usage: bench_sim_graph [--shared] [--tasks N]\n");
			return 2;
		}
	}
	if (n < 1000)
		n = 1000;
	struct locus_error err = {0};
	struct locus_platform *p;
	struct locus_workload *wl;
	struct locus_dag_bounds b;
	double t0 = now_s();
	struct locus_graph *g = montage(n, 1);
	double t_build = now_s() - t0;
	if (locus_platform_generate(&p, PROCS, 1, 1, "p"))
		die("platform", NULL);
	if (!shared)
		locus_platform_set_pairs(p, 1e9, 0);
	if (locus_workload_from_graph(&wl, p, g, NULL, &err))
		die("workload", &err);
	if (locus_dag_bounds(wl, NULL, &b))
		die("bounds", NULL);
	printf("montage-like graph: %zu tasks, %zu objects, %zu edges, %zu levels; built in "
	       "%.2f s\n",
	       g->n_tasks, g->n_objects, g->n_edges, g->n_levels, t_build);
	printf("platform: %d processors, %s\n", PROCS,
	       shared ? "shared network, 125 MB/s interfaces" : "contention-free links of 1 GB/s");
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = locus_policy_find("heft"),
				       .seed = 1,
				       .latency = -1,
				       .no_task_results = 1,
				       .no_transfer_results = 1};
	struct locus_result *r;
	t0 = now_s();
	if (locus_sim_run(&r, &cfg, &err))
		die("run", &err);
	double t_run = now_s() - t0;
	/* The plan the policy made, timed on its own. */
	struct locus_dag_plan *pl;
	if (locus_dag_plan(&pl, wl, LOCUS_DAG_HEFT, NULL, &err))
		die("plan", &err);
	double plan = pl->seconds;
	locus_dag_plan_destroy(pl);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("heft: status %s, %zu of %zu tasks, makespan %.1f s, lower bound %.1f s (ratio "
	       "%.3f), planned %.1f s\n",
	       r->failed ? "failed" : "complete", r->tasks_done, r->n_tasks, r->makespan, b.lower,
	       r->makespan / b.lower, r->pstats.planned_makespan);
	printf("  run %.2f s in all (plan %.2f s, simulation %.2f s), %llu events, %llu "
	       "transfers, peak memory %.0f MiB\n",
	       t_run, plan, t_run - plan, (unsigned long long)r->events,
	       (unsigned long long)r->transfers, (double)ru.ru_maxrss / 1024.0);
	locus_result_destroy(r);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
	return 0;
}
