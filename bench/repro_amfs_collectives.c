/*
 * The AME/AMFS collective operation benchmarks (Zhang et al., SC 2012,
 * ../shared/papers/ame-amfs.txt section VI-A, Fig. 9), reproduced in the
 * simulator: the time the amfs policy's multicast, gather, scatter and
 * reduce take on 2 to 8,192 nodes, against the section's cost models;
 * docs/results/amfs-collectives.md reads the results.
 *
 * Each point is a workflow whose only data movement is the collective:
 *
 *  multicast  one task writes a file of S bytes that N tasks of the next
 *             stage read (1, 10 and 100 MiB, as Fig. 9): with every task
 *             reading it, V-F's replica count is every server, so the
 *             file goes to all N nodes down one binomial tree
 *  gather     N tasks, one a node, each write one file of S/N bytes that
 *             one task reads (S = 1 GiB in all; M = N files)
 *  scatter    one task writes N pieces of S/N bytes, each read by one task
 *             (S = 1 GiB in all; M = N files)
 *  reduce     as gather, the reading stage having a reduce function
 *             (-o reduce=r), with 1 KiB, 1 MiB and 16 MiB on each node
 *
 * The platform: N worker nodes of one core, links of 425 MB/s, RAM disks
 * of 1 GB/s, 50 us latency (`locus flow sim`'s defaults, from BG/P), and
 * one node without cores for the submitter, the one dispatcher and its
 * metadata server. One dispatcher, not the paper's one per 63 worker
 * nodes: with D of them, each multicasts the file to its own nodes (the
 * scopes chained in a binomial tree, each from its parent scope's first
 * holder) and scatters its own readers' pieces, so the run holds D trees
 * where Fig. 9 measures one tree over N nodes.
 * Processes handle messages at no cost (cost_per_msg and cost_per_entry
 * 0): this measures the data movement. (The engine tells a policy of a
 * copy's end at once and for nothing, so the dispatcher that drives each
 * step of a tree adds no time to it in any case.) The shared file system
 * is there (1.25 GB/s, 2,000 operations a second), but nothing in a
 * measured interval touches it.
 *
 * Measured: the collective's span, from the first of its copies being
 * asked for (an archive's or a reduction's making included: the copy's
 * delay) to the last one's arrival, over the copies between nodes (a
 * check says when a run had other copies, another collective, or writers
 * not one a node); beside it, end to end: from the last writer's end to
 * the last reader's start, the metadata messages and the assignment
 * included.
 *
 * At one size of each collective, two more settings show what the
 * measurement leaves out: the paper's one dispatcher per 63 worker nodes
 * (the collective's span), and messages at 5 us and metadata entries at
 * 0.1 us, as `locus flow sim` (end to end).
 *
 * Models (section VI-A): T time, S bytes, N nodes, M files; a the latency
 * of a transfer, b seconds a byte, c the cost of a file in an archive
 * (the policy's file_cost) or, for reduce, of a byte reduced (its
 * reduce_cost); the same constants the runs use:
 *
 *  multicast         T = log2 N (a + b S)   (the paper prints (a + b) * S,
 *                                            which adds seconds to seconds
 *                                            a byte: a typo)
 *  gather, scatter   T = log2 N a + (N - 1) / N S b + (M - 1) c
 *  reduce            T = log2 N a + S c      (S: the bytes on each node)
 *
 *   repro_amfs_collectives [--out DIR] [--quick] [COLLECTIVE...]
 *
 * COLLECTIVE: multicast, gather, scatter, reduce (default: all); --quick
 * stops at 1,024 nodes. Prints a Markdown table per collective and writes
 * charts (amfs-fig9-*.svg) into DIR (default docs/results).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "repro.h"

#define LATENCY	    50e-6
#define NET_BW	    425e6
#define DISK_BW	    1e9
#define FS_BW	    1.25e9
#define FS_OPS	    2000
#define FILE_COST   1e-3
#define REDUCE_COST 1e-8
#define MIB	    1048576.0
#define MAX_NODES   8192
#define MAX_POINTS  13 /* 2 .. 8,192 */
#define MAX_SIZES   3

static const char *out_dir = "docs/results";
static int quick;

enum coll { MULTICAST, GATHER, SCATTER, REDUCE, N_COLLS };
static const char *const coll_names[N_COLLS] = {"multicast", "gather", "scatter", "reduce"};

/* The sizes of each collective's curves: the file (multicast), the total
 * (gather, scatter), each node's bytes (reduce). */
static const struct {
	size_t n;
	double bytes[MAX_SIZES];
	const char *label[MAX_SIZES];
} sizes[N_COLLS] = {
    {3, {1 * MIB, 10 * MIB, 100 * MIB}, {"1 MiB", "10 MiB", "100 MiB"}},
    {1, {1024 * MIB}, {"1 GiB"}},
    {1, {1024 * MIB}, {"1 GiB"}},
    {3, {1024, 1 * MIB, 16 * MIB}, {"1 KiB", "1 MiB", "16 MiB"}},
};
/* What the size is, for the tables. */
static const char *const size_names[N_COLLS] = {"file", "in all", "in all", "on each node"};

/* The model's constants, from the platform (a copy flows through its
 * source's disk and both links, so b is 1 / the slowest of them) and the
 * policy's options (FILE_COST, REDUCE_COST). */
static const double A = LATENCY;
static const double B = 1 / (NET_BW < DISK_BW ? NET_BW : DISK_BW);

static void die(const char *what, const struct locus_error *err)
{
	fprintf(stderr, "repro_amfs_collectives: %s: %s\n", what,
		err && err->message[0] ? err->message : "failed");
	exit(1);
}

/* Section VI-A's time for collective k on n nodes: `bytes` is S (the
 * file, the total, or each node's for reduce). */
static double model(enum coll k, uint32_t n, double bytes)
{
	double lg = log2((double)n), files = n; /* M = N */
	switch (k) {
	case MULTICAST:
		return lg * (A + B * bytes);
	case GATHER:
	case SCATTER:
		return lg * A + (n - 1.0) / n * bytes * B + (files - 1) * FILE_COST;
	default:
		return lg * A + bytes * REDUCE_COST;
	}
}

/* n worker nodes of one core, then d dispatcher nodes (no cores). */
static struct locus_platform *cluster(uint32_t n, uint32_t d)
{
	char *json = malloc(48 * ((size_t)n + d) + 512);
	struct locus_platform *p = NULL;
	struct locus_error err = {0};
	if (!json)
		die("platform", NULL);
	int k = sprintf(json,
			"{\"format\": \"locus-platform\", \"version\": 1, \"network\": "
			"{\"latency\": %g}, \"defaults\": {\"cores\": 1, \"disk_bw\": %g, "
			"\"net_bw\": %g}, \"nodes\": [",
			LATENCY, DISK_BW, NET_BW);
	for (uint32_t i = 0; i < n; i++)
		k += sprintf(json + k, "%s{\"name\": \"n%u\"}", i ? ", " : "", i);
	for (uint32_t i = 0; i < d; i++)
		k += sprintf(json + k, ", {\"name\": \"disp%u\", \"cores\": 0}", i);
	sprintf(json + k, "]}");
	if (locus_platform_parse(&p, json, strlen(json), "cluster", &err))
		die("platform", &err);
	free(json);
	return p;
}

static uint32_t task(struct locus_graph *g, const char *name, uint32_t stage)
{
	long t = locus_graph_add_task(g, name, 0);
	if (t < 0 || locus_graph_set_stage(g, (uint32_t)t, stage))
		die("graph", NULL);
	return (uint32_t)t;
}

static uint32_t file(struct locus_graph *g, const char *name, double bytes, uint32_t writer)
{
	struct locus_error err = {0};
	long o = locus_graph_add_object(g, name, (uint64_t)bytes);
	if (o < 0 || locus_graph_add_output(g, writer, (uint32_t)o, &err))
		die("graph", &err);
	return (uint32_t)o;
}

static void reads(struct locus_graph *g, uint32_t t, uint32_t o)
{
	if (locus_graph_add_input(g, t, o))
		die("graph", NULL);
}

/* The workflow of collective k on n nodes: stage 0 writes, stage 1 reads. */
static struct locus_graph *workflow(enum coll k, uint32_t n, double bytes)
{
	struct locus_graph *g;
	struct locus_error err = {0};
	char name[32];
	if (locus_graph_create(&g, coll_names[k], &err))
		die("graph", &err);
	long p = locus_graph_stage(g, "p"), c = locus_graph_stage(g, k == REDUCE ? "r" : "c");
	if (p < 0 || c < 0)
		die("graph", NULL);
	if (k == MULTICAST) {
		uint32_t w = task(g, "write", (uint32_t)p);
		uint32_t o = file(g, "data", bytes, w);
		for (uint32_t i = 0; i < n; i++) {
			snprintf(name, sizeof name, "read%u", i);
			reads(g, task(g, name, (uint32_t)c), o);
		}
	} else if (k == SCATTER) {
		uint32_t w = task(g, "split", (uint32_t)p);
		for (uint32_t i = 0; i < n; i++) {
			snprintf(name, sizeof name, "piece%u", i);
			uint32_t o = file(g, name, bytes / n, w);
			snprintf(name, sizeof name, "read%u", i);
			reads(g, task(g, name, (uint32_t)c), o);
		}
	} else {
		/* Gather, reduce: the writers go one a node (round-robin over
		 * the workers, in task order); S/N bytes each in all, or S
		 * each for reduce. */
		uint32_t o[MAX_NODES];
		for (uint32_t i = 0; i < n; i++) {
			snprintf(name, sizeof name, "write%u", i);
			uint32_t w = task(g, name, (uint32_t)p);
			snprintf(name, sizeof name, "part%u", i);
			o[i] = file(g, name, k == REDUCE ? bytes : bytes / n, w);
		}
		uint32_t r = task(g, k == REDUCE ? "min" : "gather", (uint32_t)c);
		for (uint32_t i = 0; i < n; i++)
			reads(g, r, o[i]);
		/* A reduction's result: the smallest number (its partials are
		 * this size). */
		if (k == REDUCE)
			file(g, "min.txt", 16, r);
	}
	if (locus_graph_finish(g, &err))
		die("graph", &err);
	return g;
}

struct point {
	double span;	/* the collective: first copy asked to last copy in */
	double e2e;	/* last writer's end to last reader's start */
	size_t copies;	/* copies between nodes */
	uint64_t colls; /* collectives the policy ran */
	int one_a_node; /* gather, reduce: the writers were one a node */
};

/* How a point runs: one dispatcher, or one per 63 worker nodes (the
 * paper's); what handling a message and examining an entry cost. */
struct setting {
	int ratio63;
	double msg, entry;
};

static struct point measure(enum coll k, uint32_t n, double bytes, const struct setting *st)
{
	struct point pt = {0};
	uint32_t D = st->ratio63 ? (n + 62) / 63 : 1;
	struct locus_platform *pl = cluster(n, D);
	struct locus_graph *g = workflow(k, n, bytes);
	struct locus_workload *wl = NULL;
	struct locus_result *r = NULL;
	struct locus_error err = {0};
	char opts[160];
	/* cogather: never the asynchronous gather auto picks for big
	 * inputs; thresholds of 2 so that 2 nodes gather, multicast and
	 * scatter too (the defaults, 16 and 8, hold from 16 nodes on). */
	snprintf(opts, sizeof opts,
		 "config=cogather,file_cost=%g,reduce_cost=%g,gather=2,multicast=2,scatter=2%s",
		 FILE_COST, REDUCE_COST, k == REDUCE ? ",reduce=r" : "");
	if (locus_workload_from_graph(&wl, pl, g, NULL, &err))
		die("workload", &err);
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = locus_policy_find("amfs"),
				       .policy_opts = opts,
				       .schedulers = 1 + 2 * (size_t)D,
				       .latency = -1,
				       .cost_per_msg = st->msg,
				       .cost_per_entry = st->entry,
				       .shared_fs_bw = FS_BW,
				       .fs_ops = FS_OPS};
	if (!cfg.policy || locus_sim_run(&r, &cfg, &err))
		die(coll_names[k], &err);
	if (r->failed || r->tasks_done != g->n_tasks)
		die(coll_names[k], NULL);
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < r->n_xfers; i++) {
		const struct locus_transfer_result *x = &r->xfers[i];
		if (x->from == UINT32_MAX || x->to == UINT32_MAX)
			continue;
		lo = fmin(lo, x->start);
		hi = fmax(hi, x->end);
		pt.copies++;
	}
	pt.span = pt.copies ? hi - lo : 0;
	double wrote = 0, started = 0;
	for (size_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task_result *tr = &r->tasks[t];
		if (g->task_stage[t] == 0)
			wrote = fmax(wrote, tr->end);
		else
			started = fmax(started, tr->start);
	}
	pt.e2e = started - wrote;
	pt.colls = repro_counter(r, k == MULTICAST ? "multicasts"
				    : k == SCATTER ? "scatters"
						   : "gathers");
	/* Gather, reduce: did each node write its part? */
	pt.one_a_node = 1;
	if (k == GATHER || k == REDUCE) {
		static uint8_t seen[MAX_NODES];
		memset(seen, 0, n);
		for (size_t t = 0; t < g->n_tasks; t++)
			if (g->task_stage[t] == 0) {
				uint32_t node = r->tasks[t].node;
				if (node >= n || seen[node]++)
					pt.one_a_node = 0;
			}
	}
	locus_result_destroy(r);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(pl);
	return pt;
}

/* Whether the run was the collective it should be: one collective, a
 * copy to each other node, the writers one a node. */
static void check(enum coll k, uint32_t n, double bytes, const struct point *pt)
{
	if (pt->colls != 1 || pt->copies != n - 1 || !pt->one_a_node)
		fprintf(stderr,
			"repro_amfs_collectives: %s of %.0f bytes on %u nodes: %llu collectives, "
			"%zu copies, writers one a node: %s (expected 1, %u, yes)\n",
			coll_names[k], bytes, n, (unsigned long long)pt->colls, pt->copies,
			pt->one_a_node ? "yes" : "no", n - 1);
}

static const char *const chart_names[N_COLLS] = {"amfs-fig9-multicast.svg", "amfs-fig9-gather.svg",
						 "amfs-fig9-scatter.svg", "amfs-fig9-reduce.svg"};
static const char *const chart_titles[N_COLLS] = {
    "AMFS multicast (Fig. 9): one file to N nodes",
    "AMFS gather (Fig. 9): 1 GiB in all from N nodes, one file each",
    "AMFS scatter (Fig. 9): 1 GiB in all to N nodes, one piece each",
    "AMFS reduce (Fig. 9): S bytes on each of N nodes to one result"};

/* The settings: the measurement's, and two that show what it leaves out,
 * run at one size of each collective (vsize). */
static const struct setting base = {0, 0, 0}, ratio63 = {1, 0, 0}, costly = {0, 5e-6, 1e-7};
static const size_t vsize[N_COLLS] = {2, 0, 0, 0};

static void run(enum coll k, uint32_t max_nodes)
{
	static double xs[MAX_POINTS], ym[MAX_SIZES][MAX_POINTS], ys[MAX_SIZES][MAX_POINTS],
	    y63[MAX_POINTS];
	static struct point pts[MAX_SIZES][MAX_POINTS], p63[MAX_POINTS], pmsg[MAX_POINTS];
	static char labels[2 * MAX_SIZES + 1][64];
	struct locus_series series[2 * MAX_SIZES + 1];
	size_t np = 0, nz = sizes[k].n, v = vsize[k];
	for (uint32_t n = 2; n <= max_nodes; n *= 2)
		xs[np++] = n;
	for (size_t z = 0; z < nz; z++)
		for (size_t i = 0; i < np; i++) {
			uint32_t n = (uint32_t)xs[i];
			double bytes = sizes[k].bytes[z];
			pts[z][i] = measure(k, n, bytes, &base);
			check(k, n, bytes, &pts[z][i]);
			ym[z][i] = model(k, n, bytes);
			ys[z][i] = pts[z][i].span;
			if (z == v) {
				p63[i] = measure(k, n, bytes, &ratio63);
				pmsg[i] = measure(k, n, bytes, &costly);
				y63[i] = p63[i].span;
			}
		}
	printf("## %s\n\n", coll_names[k]);
	printf("| %s | N | model (s) | simulated (s) | simulated / model |\n", size_names[k]);
	printf("|---|---:|---:|---:|---:|\n");
	for (size_t z = 0; z < nz; z++)
		for (size_t i = 0; i < np; i++)
			printf("| %s | %.0f | %.4g | %.4g | %.3f |\n", sizes[k].label[z], xs[i],
			       ym[z][i], ys[z][i], ys[z][i] / ym[z][i]);
	printf("\n%s, %s %s: the same collective run at the paper's one dispatcher per 63 "
	       "worker nodes, and end to end (the last writer's end to the last reader's "
	       "start) with messages free and at 5 us a message and 0.1 us an entry:\n\n",
	       coll_names[k], sizes[k].label[v], size_names[k]);
	printf("| N | model (s) | simulated (s) | 1:63 dispatchers (s) | 1:63 / model | "
	       "end to end (s) | end to end, 5 us a message (s) |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < np; i++)
		printf("| %.0f | %.4g | %.4g | %.4g | %.3f | %.4g | %.4g |\n", xs[i], ym[v][i],
		       ys[v][i], p63[i].span, p63[i].span / ym[v][i], pts[v][i].e2e, pmsg[i].e2e);
	fflush(stdout);
	for (size_t z = 0; z < nz; z++) {
		snprintf(labels[2 * z], sizeof labels[0], "simulated, %s", sizes[k].label[z]);
		snprintf(labels[2 * z + 1], sizeof labels[0], "model, %s", sizes[k].label[z]);
		series[2 * z] =
		    (struct locus_series){.label = labels[2 * z], .n = np, .x = xs, .y = ys[z]};
		series[2 * z + 1] = (struct locus_series){
		    .label = labels[2 * z + 1], .n = np, .x = xs, .y = ym[z], .bound = 1};
	}
	snprintf(labels[2 * nz], sizeof labels[0], "1:63 dispatchers, %s", sizes[k].label[v]);
	series[2 * nz] = (struct locus_series){.label = labels[2 * nz], .n = np, .x = xs, .y = y63};
	struct locus_chart ch = {.title = chart_titles[k],
				 .subtitle =
				     "simulated (solid) against section VI-A's model (dashed)",
				 .x_label = "nodes",
				 .y_label = "seconds",
				 .x_log2 = 1,
				 .y_log10 = nz > 1,
				 .series = series,
				 .n_series = 2 * nz + 1};
	repro_save(&ch, out_dir, chart_names[k]);
}

int main(int argc, char **argv)
{
	int want[N_COLLS] = {0}, any = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			out_dir = argv[++i];
		} else if (!strcmp(argv[i], "--quick")) {
			quick = 1;
		} else {
			int k = 0;
			while (k < N_COLLS && strcmp(argv[i], coll_names[k]))
				k++;
			if (k == N_COLLS) {
				fprintf(stderr,
					"usage: repro_amfs_collectives [--out DIR] [--quick] "
					"[multicast|gather|scatter|reduce...]\n");
				return 2;
			}
			want[k] = any = 1;
		}
	}
	uint32_t max_nodes = quick ? 1024 : MAX_NODES;
	printf("# AMFS collectives against section VI-A's models (Fig. 9)\n\n");
	printf("N worker nodes of 1 core, links %.0f MB/s, disks %.0f MB/s, latency %g s; "
	       "1 dispatcher; 0 s a message.\n\n",
	       NET_BW / 1e6, DISK_BW / 1e6, LATENCY);
	printf("Model constants: a = %g s (the latency of a copy), b = %.4g s/byte (1 / "
	       "min(link, disk) = 1 / %.0f B/s), c = %g s a file (file_cost) for gather and "
	       "scatter, %g s a byte (reduce_cost) for reduce; M = N files.\n\n",
	       A, B, fmin(NET_BW, DISK_BW), FILE_COST, REDUCE_COST);
	printf("Multicast: T = log2(N) (a + b S); the paper prints log2(N) * (a + b) * S, "
	       "which adds a latency to a time a byte (a typo).\n\n");
	clock_t t0 = clock();
	for (int k = 0; k < N_COLLS; k++)
		if (!any || want[k])
			run((enum coll)k, max_nodes);
	fprintf(stderr, "repro_amfs_collectives: %.1f s of CPU\n",
		(double)(clock() - t0) / CLOCKS_PER_SEC);
	return 0;
}
