/*
 * DL-MPI's experiments, reproduced in the simulator (docs/results/dlmpi.md
 * explains the platforms and reads the results):
 *
 *  fig2    32 nodes of 4 workers (CASS-like: 80 MB/s disks, 117 MB/s links,
 *          a switch of 1 GB/s in all), input of 8 to 128 GB in 64 MB chunks
 *          with three HDFS replicas, sequence-length analysis (2 ms of
 *          compute per MiB): processing time of fifo ("without DL-MPI")
 *          and dlmpi, 5 seeds a point;
 *  fig3    8 to 128 nodes of 2 workers (Marmot-like: 80 MB/s disks, 117
 *          MB/s links), 256 GB: aggregate read bandwidth of dlmpi over
 *          node-local data and over a shared file system of 2 GB/s, 3
 *          seeds a point;
 *  het     32 nodes of 2 workers, speeds uniform in 1..k for k = 1..4, the
 *          CASS-like network, 1,280 tasks of 64 MB and 2 s: makespan over
 *          its lower bound and locality over the optimum for fifo,
 *          monolithic, dlmpi and delay, 10 seeds a point.
 *
 *   repro_dlmpi [--out DIR] [fig2] [fig3] [het]    (default: all, into
 *                                                    docs/results)
 *
 * Prints a Markdown table per experiment and writes its chart as SVG
 * (dlmpi-fig2.svg, dlmpi-fig3.svg, dlmpi-het.svg) into DIR. Every point is
 * also one `locus sim` command, which the tables' captions give.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repro.h"

#define MAX_SEEDS 10

static const char *out_dir = "docs/results";

/* A point: `nodes` nodes of `cores` workers in two racks with the disks
 * and links of the experiment, `chunks` of 64 MB with three HDFS replicas,
 * the given work; speeds uniform in 1..speed_hi. */
static struct locus_scenario_spec spec_of(size_t nodes, int cores, double backbone, double speed_hi,
					  size_t chunks, const char *work)
{
	struct locus_scenario_spec sp = {.nodes = nodes,
					 .racks = 2,
					 .cores = cores,
					 .speed_hi = speed_hi,
					 .disk_bw = 80e6,
					 .net_bw = 117e6,
					 .backbone_bw = backbone,
					 .chunks = chunks,
					 .chunk_size = 64ull << 20,
					 .placement = LOCUS_PLACE_HDFS,
					 .replicas = 3,
					 .work = work};
	return sp;
}

static struct locus_result *run(const struct locus_scenario_spec *sp, const char *policy,
				uint64_t seed, double shared_fs, long *opt_local)
{
	struct repro_run r = {.policy = policy,
			      .cost_msg = 5e-6,
			      .cost_entry = 1e-7,
			      .shared_fs = shared_fs,
			      .opt_local = opt_local};
	return repro_go(sp, seed, &r);
}

/* ---- Fig. 2 ------------------------------------------------------------- */

static void fig2(void)
{
	static const int gb[] = {8, 16, 32, 64, 128};
	const int n_seeds = 5;
	struct repro_line fifo = {0}, dl = {0}, lb = {0};
	printf("### Fig. 2: processing time against input size (32 nodes)\n\n"
	       "| input | fifo (s) | dlmpi (s) | fifo / dlmpi | dlmpi local | lower bound (s) |\n"
	       "|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < sizeof gb / sizeof gb[0]; i++) {
		struct locus_scenario_spec sp =
		    spec_of(32, 4, 1e9, 1, (size_t)gb[i] * 16, "per-mib:0.002");
		double tf[MAX_SEEDS], td[MAX_SEEDS], tb[MAX_SEEDS], loc[MAX_SEEDS];
		for (int s = 0; s < n_seeds; s++) {
			struct locus_result *a = run(&sp, "fifo", (uint64_t)s + 1, 0, NULL);
			struct locus_result *b = run(&sp, "dlmpi", (uint64_t)s + 1, 0, NULL);
			tf[s] = a->makespan;
			td[s] = b->makespan;
			tb[s] = b->lb_makespan;
			loc[s] = 100.0 * (double)b->local_tasks / (double)b->n_tasks;
			locus_result_destroy(a);
			locus_result_destroy(b);
		}
		struct repro_stat f = repro_stat(tf, n_seeds), d = repro_stat(td, n_seeds),
				  b = repro_stat(tb, n_seeds);
		repro_line_add(&fifo, gb[i], f);
		repro_line_add(&dl, gb[i], d);
		repro_line_add(&lb, gb[i], b);
		printf("| %d GB | %.1f (%.1f-%.1f) | %.1f (%.1f-%.1f) | %.2f | %.1f %% | %.1f |\n",
		       gb[i], f.mean, f.lo, f.hi, d.mean, d.lo, d.hi, f.mean / d.mean,
		       repro_stat(loc, n_seeds).mean, b.mean);
	}
	struct locus_series s[] = {repro_series(&fifo, "fifo (without DL-MPI)", 1, 0),
				   repro_series(&dl, "dlmpi (with DL-MPI)", 1, 0),
				   repro_series(&lb, "lower bound", 0, 1)};
	struct locus_chart c = {.title = "DL-MPI Fig. 2: processing time against input size",
				.subtitle = "32 nodes x 4 workers, 80 MB/s disks, 117 MB/s links, "
					    "1 GB/s switch; mean and range of 5 seeds",
				.x_label = "input size (GB)",
				.y_label = "processing time (s)",
				.series = s,
				.n_series = 3};
	repro_save(&c, out_dir, "dlmpi-fig2.svg");
}

/* ---- Fig. 3 ------------------------------------------------------------- */

static void fig3(void)
{
	static const int nodes[] = {8, 16, 32, 48, 64, 80, 96, 112, 128};
	const int n_seeds = 3;
	const double bytes = 4096.0 * (64 << 20), fs = 2e9;
	struct repro_line loc = {0}, shared = {0}, disks = {0}, cap = {0};
	printf("### Fig. 3: aggregate read bandwidth against nodes (256 GB)\n\n"
	       "| nodes | dlmpi, node-local (GB/s) | dlmpi, shared FS (GB/s) | ratio |\n"
	       "|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
		struct locus_scenario_spec sp =
		    spec_of((size_t)nodes[i], 2, 0, 1, 4096, "per-mib:0.002");
		double bl[MAX_SEEDS], bs[MAX_SEEDS];
		for (int s = 0; s < n_seeds; s++) {
			struct locus_result *a = run(&sp, "dlmpi", (uint64_t)s + 1, 0, NULL);
			struct locus_result *b = run(&sp, "dlmpi", (uint64_t)s + 1, fs, NULL);
			bl[s] = bytes / a->makespan / 1e9;
			bs[s] = bytes / b->makespan / 1e9;
			locus_result_destroy(a);
			locus_result_destroy(b);
		}
		struct repro_stat a = repro_stat(bl, n_seeds), b = repro_stat(bs, n_seeds);
		repro_line_add(&loc, nodes[i], a);
		repro_line_add(&shared, nodes[i], b);
		repro_line_add(&disks, nodes[i], (struct repro_stat){nodes[i] * 80e6 / 1e9, 0, 0});
		repro_line_add(&cap, nodes[i], (struct repro_stat){fs / 1e9, 0, 0});
		printf("| %d | %.2f | %.2f | %.2f |\n", nodes[i], a.mean, b.mean, a.mean / b.mean);
	}
	struct locus_series s[] = {repro_series(&loc, "dlmpi over node-local data", 1, 0),
				   repro_series(&shared, "dlmpi over a shared file system", 1, 0),
				   repro_series(&disks, "all disks at full speed", 0, 1),
				   repro_series(&cap, "shared file system's bandwidth", 0, 1)};
	struct locus_chart c = {.title = "DL-MPI Fig. 3: aggregate read bandwidth against nodes",
				.subtitle = "2 workers a node, 80 MB/s disks, 117 MB/s links; "
					    "256 GB; shared FS 2 GB/s",
				.x_label = "nodes",
				.y_label = "aggregate bandwidth (GB/s)",
				.series = s,
				.n_series = 4};
	repro_save(&c, out_dir, "dlmpi-fig3.svg");
}

/* ---- heterogeneous nodes ---------------------------------------------------- */

static void het(void)
{
	static const char *const pols[] = {"fifo", "monolithic", "dlmpi", "delay"};
	enum { NP = 4 };
	static const double spread[] = {1, 2, 3, 4};
	const int n_seeds = 10;
	static struct repro_line ratio[NP], local[NP];
	memset(ratio, 0, sizeof ratio);
	memset(local, 0, sizeof local);
	printf("### Heterogeneous nodes: makespan over its lower bound\n\n"
	       "| speeds | fifo | monolithic | dlmpi | delay | dlmpi local / optimum | "
	       "monolithic local / optimum |\n|---|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < sizeof spread / sizeof spread[0]; i++) {
		struct locus_scenario_spec sp = spec_of(32, 2, 1e9, spread[i], 1280, "fixed:2");
		struct repro_stat rs[NP], ls[NP];
		for (int k = 0; k < NP; k++) {
			double rv[MAX_SEEDS], lv[MAX_SEEDS];
			for (int s = 0; s < n_seeds; s++) {
				long opt = 0;
				struct locus_result *r =
				    run(&sp, pols[k], (uint64_t)s + 1, 0, &opt);
				rv[s] = r->makespan / r->lb_makespan;
				lv[s] = opt > 0 ? (double)r->local_tasks / (double)opt : 1;
				locus_result_destroy(r);
			}
			rs[k] = repro_stat(rv, n_seeds);
			ls[k] = repro_stat(lv, n_seeds);
			repro_line_add(&ratio[k], spread[i], rs[k]);
			repro_line_add(&local[k], spread[i], ls[k]);
		}
		printf(
		    "| 1:%g | %.3f | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) | %.3f | %.3f | %.3f |\n",
		    spread[i], rs[0].mean, rs[1].mean, rs[1].lo, rs[1].hi, rs[2].mean, rs[2].lo,
		    rs[2].hi, rs[3].mean, ls[2].mean, ls[1].mean);
	}
	struct locus_series s[NP];
	for (int k = 0; k < NP; k++)
		s[k] = repro_series(&ratio[k], pols[k], k == 1 || k == 2, 0);
	struct locus_chart c = {.title = "Heterogeneous nodes: makespan over its lower bound",
				.subtitle = "32 nodes x 2 workers, speeds uniform in 1..k, 1,280 "
					    "tasks of 64 MB and 2 s; mean (range) of 10 seeds",
				.x_label = "speed spread k (fastest / slowest)",
				.y_label = "makespan / lower bound",
				.series = s,
				.n_series = NP};
	repro_save(&c, out_dir, "dlmpi-het.svg");
}

int main(int argc, char **argv)
{
	int want[3] = {0, 0, 0}, any = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
			out_dir = argv[++i];
		else if (strcmp(argv[i], "fig2") == 0)
			want[0] = any = 1;
		else if (strcmp(argv[i], "fig3") == 0)
			want[1] = any = 1;
		else if (strcmp(argv[i], "het") == 0)
			want[2] = any = 1;
		else {
			fprintf(stderr, "usage: repro_dlmpi [--out DIR] [fig2] [fig3] [het]\n");
			return 2;
		}
	}
	if (!any || want[0])
		fig2();
	if (!any || want[1])
		fig3();
	if (!any || want[2])
		het();
	return 0;
}
