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

#include "locus/locus.h"

#define MAX_POINTS 16
#define MAX_SEEDS  10

static const char *out_dir = "docs/results";

static void die(const char *what, const struct locus_error *err)
{
	fprintf(stderr, "repro_dlmpi: %s: %s\n", what, err ? err->message : "");
	exit(1);
}

/* One platform of generated nodes, as `locus sim --nodes N -P P --racks R
 * --disk-bw D --net-bw L [--backbone-bw B] [--speeds 1:K]` makes it. */
struct shape {
	size_t nodes, racks;
	int ppn;
	double disk_bw, net_bw, backbone_bw, speed_hi;
};

struct spec {
	struct shape sh;
	size_t tasks;
	uint64_t chunk;
	const char *work;
	double shared_fs;
};

/* Runs `policy` on the workload of `sp` under `seed`. */
static struct locus_result *run(const struct spec *sp, const char *policy, uint64_t seed,
				long *opt_local)
{
	struct locus_platform *p;
	struct locus_catalog *cat;
	struct locus_workload *wl;
	struct locus_work_spec work;
	struct locus_error err = {0};
	struct locus_result *r;
	struct locus_place_options po = {.policy = LOCUS_PLACE_HDFS, .replicas = 3, .seed = seed};

	if (locus_platform_generate(&p, sp->sh.nodes, sp->sh.racks, sp->sh.ppn, "node"))
		die("platform", NULL);
	for (size_t i = 0; i < p->n_nodes; i++) {
		p->nodes[i].disk_bw = sp->sh.disk_bw;
		p->nodes[i].net_bw = sp->sh.net_bw;
	}
	p->backbone_bw = sp->sh.backbone_bw;
	if (sp->sh.speed_hi > 1)
		locus_platform_random_speeds(p, 1, sp->sh.speed_hi, seed);
	if (locus_place_catalog(p, "generated", sp->tasks, sp->chunk, &po, &cat, &err))
		die("placement", &err);
	if (locus_work_spec_parse(&work, sp->work, &err) ||
	    locus_workload_build(&wl, p, cat, NULL, &work, seed, &err))
		die("workload", &err);
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = locus_policy_find(policy),
				       .seed = seed,
				       .latency = -1,
				       .cost_per_msg = 5e-6,
				       .cost_per_entry = 1e-7,
				       .shared_fs_bw = sp->shared_fs,
				       .no_task_results = 1};
	if (!cfg.policy || locus_sim_run(&cfg, &r, &err))
		die(policy, &err);
	if (opt_local && locus_bound_locality(wl, NULL, opt_local, NULL, &err))
		die("locality bound", &err);
	locus_workload_destroy(wl);
	locus_work_spec_fini(&work);
	locus_catalog_destroy(cat);
	locus_platform_destroy(p);
	return r;
}

/* Mean, least and largest of n values. */
struct stat3 {
	double mean, lo, hi;
};

static struct stat3 stat3(const double *v, size_t n)
{
	struct stat3 s = {0, INFINITY, -INFINITY};
	for (size_t i = 0; i < n; i++) {
		s.mean += v[i] / (double)n;
		if (v[i] < s.lo)
			s.lo = v[i];
		if (v[i] > s.hi)
			s.hi = v[i];
	}
	return s;
}

/* A series with its band, filled point by point. */
struct line {
	double x[MAX_POINTS], y[MAX_POINTS], lo[MAX_POINTS], hi[MAX_POINTS];
	size_t n;
};

static void line_add(struct line *l, double x, struct stat3 s)
{
	l->x[l->n] = x;
	l->y[l->n] = s.mean;
	l->lo[l->n] = s.lo;
	l->hi[l->n] = s.hi;
	l->n++;
}

static struct locus_series series_of(const struct line *l, const char *label, int band, int bound)
{
	struct locus_series s = {.label = label, .n = l->n, .x = l->x, .y = l->y, .bound = bound};
	if (band) {
		s.y_lo = l->lo;
		s.y_hi = l->hi;
	}
	return s;
}

static void save(const struct locus_chart *c, const char *name)
{
	char path[1024];
	struct locus_error err = {0};
	snprintf(path, sizeof path, "%s/%s", out_dir, name);
	if (locus_report_chart_save(c, path, &err))
		die("chart", &err);
	printf("\n(chart: %s)\n\n", path);
}

/* ---- Fig. 2 ------------------------------------------------------------- */

static const struct shape cass = {32, 2, 4, 80e6, 117e6, 1e9, 1};

static void fig2(void)
{
	static const int gb[] = {8, 16, 32, 64, 128};
	const int n_seeds = 5;
	struct line fifo = {0}, dl = {0}, lb = {0};
	printf("### Fig. 2: processing time against input size (32 nodes)\n\n"
	       "| input | fifo (s) | dlmpi (s) | fifo / dlmpi | dlmpi local | lower bound (s) |\n"
	       "|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < sizeof gb / sizeof gb[0]; i++) {
		struct spec sp = {cass, (size_t)gb[i] * 16, 64ull << 20, "per-mib:0.002", 0};
		double tf[MAX_SEEDS], td[MAX_SEEDS], tb[MAX_SEEDS], loc[MAX_SEEDS];
		for (int s = 0; s < n_seeds; s++) {
			struct locus_result *a = run(&sp, "fifo", (uint64_t)s + 1, NULL);
			struct locus_result *b = run(&sp, "dlmpi", (uint64_t)s + 1, NULL);
			tf[s] = a->makespan;
			td[s] = b->makespan;
			tb[s] = b->lb_makespan;
			loc[s] = 100.0 * (double)b->local_tasks / (double)b->n_tasks;
			locus_result_destroy(a);
			locus_result_destroy(b);
		}
		struct stat3 f = stat3(tf, n_seeds), d = stat3(td, n_seeds), b = stat3(tb, n_seeds);
		line_add(&fifo, gb[i], f);
		line_add(&dl, gb[i], d);
		line_add(&lb, gb[i], b);
		printf("| %d GB | %.1f (%.1f-%.1f) | %.1f (%.1f-%.1f) | %.2f | %.1f %% | %.1f |\n",
		       gb[i], f.mean, f.lo, f.hi, d.mean, d.lo, d.hi, f.mean / d.mean,
		       stat3(loc, n_seeds).mean, b.mean);
	}
	struct locus_series s[] = {series_of(&fifo, "fifo (without DL-MPI)", 1, 0),
				   series_of(&dl, "dlmpi (with DL-MPI)", 1, 0),
				   series_of(&lb, "lower bound", 0, 1)};
	struct locus_chart c = {.title = "DL-MPI Fig. 2: processing time against input size",
				.subtitle = "32 nodes x 4 workers, 80 MB/s disks, 117 MB/s links, "
					    "1 GB/s switch; mean and range of 5 seeds",
				.x_label = "input size (GB)",
				.y_label = "processing time (s)",
				.series = s,
				.n_series = 3};
	save(&c, "dlmpi-fig2.svg");
}

/* ---- Fig. 3 ------------------------------------------------------------- */

static void fig3(void)
{
	static const int nodes[] = {8, 16, 32, 48, 64, 80, 96, 112, 128};
	const int n_seeds = 3;
	const double bytes = 4096.0 * (64 << 20), fs = 2e9;
	struct line loc = {0}, shared = {0}, disks = {0}, cap = {0};
	printf("### Fig. 3: aggregate read bandwidth against nodes (256 GB)\n\n"
	       "| nodes | dlmpi, node-local (GB/s) | dlmpi, shared FS (GB/s) | ratio |\n"
	       "|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
		struct shape sh = {(size_t)nodes[i], 2, 2, 80e6, 117e6, 0, 1};
		struct spec sp = {sh, 4096, 64ull << 20, "per-mib:0.002", 0};
		double bl[MAX_SEEDS], bs[MAX_SEEDS];
		for (int s = 0; s < n_seeds; s++) {
			struct locus_result *a = run(&sp, "dlmpi", (uint64_t)s + 1, NULL);
			sp.shared_fs = fs;
			struct locus_result *b = run(&sp, "dlmpi", (uint64_t)s + 1, NULL);
			sp.shared_fs = 0;
			bl[s] = bytes / a->makespan / 1e9;
			bs[s] = bytes / b->makespan / 1e9;
			locus_result_destroy(a);
			locus_result_destroy(b);
		}
		struct stat3 a = stat3(bl, n_seeds), b = stat3(bs, n_seeds);
		line_add(&loc, nodes[i], a);
		line_add(&shared, nodes[i], b);
		line_add(&disks, nodes[i], (struct stat3){nodes[i] * 80e6 / 1e9, 0, 0});
		line_add(&cap, nodes[i], (struct stat3){fs / 1e9, 0, 0});
		printf("| %d | %.2f | %.2f | %.2f |\n", nodes[i], a.mean, b.mean, a.mean / b.mean);
	}
	struct locus_series s[] = {series_of(&loc, "dlmpi over node-local data", 1, 0),
				   series_of(&shared, "dlmpi over a shared file system", 1, 0),
				   series_of(&disks, "all disks at full speed", 0, 1),
				   series_of(&cap, "shared file system's bandwidth", 0, 1)};
	struct locus_chart c = {.title = "DL-MPI Fig. 3: aggregate read bandwidth against nodes",
				.subtitle = "2 workers a node, 80 MB/s disks, 117 MB/s links; "
					    "256 GB; shared FS 2 GB/s",
				.x_label = "nodes",
				.y_label = "aggregate bandwidth (GB/s)",
				.series = s,
				.n_series = 4};
	save(&c, "dlmpi-fig3.svg");
}

/* ---- heterogeneous nodes ---------------------------------------------------- */

static void het(void)
{
	static const char *const pols[] = {"fifo", "monolithic", "dlmpi", "delay"};
	enum { NP = 4 };
	static const double spread[] = {1, 2, 3, 4};
	const int n_seeds = 10;
	static struct line ratio[NP], local[NP];
	memset(ratio, 0, sizeof ratio);
	memset(local, 0, sizeof local);
	printf("### Heterogeneous nodes: makespan over its lower bound\n\n"
	       "| speeds | fifo | monolithic | dlmpi | delay | dlmpi local / optimum | "
	       "monolithic local / optimum |\n|---|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < sizeof spread / sizeof spread[0]; i++) {
		struct shape sh = {32, 2, 2, 80e6, 117e6, 1e9, spread[i]};
		struct spec sp = {sh, 1280, 64ull << 20, "fixed:2", 0};
		struct stat3 rs[NP], ls[NP];
		for (int k = 0; k < NP; k++) {
			double rv[MAX_SEEDS], lv[MAX_SEEDS];
			for (int s = 0; s < n_seeds; s++) {
				long opt = 0;
				struct locus_result *r = run(&sp, pols[k], (uint64_t)s + 1, &opt);
				rv[s] = r->makespan / r->lb_makespan;
				lv[s] = opt > 0 ? (double)r->local_tasks / (double)opt : 1;
				locus_result_destroy(r);
			}
			rs[k] = stat3(rv, n_seeds);
			ls[k] = stat3(lv, n_seeds);
			line_add(&ratio[k], spread[i], rs[k]);
			line_add(&local[k], spread[i], ls[k]);
		}
		printf(
		    "| 1:%g | %.3f | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) | %.3f | %.3f | %.3f |\n",
		    spread[i], rs[0].mean, rs[1].mean, rs[1].lo, rs[1].hi, rs[2].mean, rs[2].lo,
		    rs[2].hi, rs[3].mean, ls[2].mean, ls[1].mean);
	}
	struct locus_series s[NP];
	for (int k = 0; k < NP; k++)
		s[k] = series_of(&ratio[k], pols[k], k == 1 || k == 2, 0);
	struct locus_chart c = {.title = "Heterogeneous nodes: makespan over its lower bound",
				.subtitle = "32 nodes x 2 workers, speeds uniform in 1..k, 1,280 "
					    "tasks of 64 MB and 2 s; mean (range) of 10 seeds",
				.x_label = "speed spread k (fastest / slowest)",
				.y_label = "makespan / lower bound",
				.series = s,
				.n_series = NP};
	save(&c, "dlmpi-het.svg");
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
