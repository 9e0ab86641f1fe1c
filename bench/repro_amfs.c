/*
 * The AME/AMFS paper's application experiments (Zhang et al., SC 2012,
 * ../shared/papers/ame-amfs.txt section VI-B), reproduced in the
 * simulator with the amfs policy, beside the taskvine and dask baselines;
 * docs/results/amfs.md reads the results.
 *
 * The machine is the library's "bgp" preset (include/locus/flow.h, the
 * one `locus flow sim --platform preset:bgp` runs on), the paper's BG/P:
 * nodes of 4 cores linked at 425 MB/s
 * (a torus link), a RAM disk of 1 GB/s each, one dispatcher node (a
 * dispatcher and a metadata server, no workers) per 63 worker nodes, 50 us
 * of latency, 5 us a message; GPFS of 1.25 GB/s per 64 nodes (one I/O node
 * with 10 Gb/s Ethernet each, at most 60 GB/s) on which opening a file
 * costs a client 11.3 ms, a node opening its files one after another
 * while their bytes flow: Table VII's GPFS rows, one task reading 1,319
 * files of 2.1 MB in 14.74 s and 3,883 of 1 MB in 44.64 s (11.2 and 11.5
 * ms a file, whatever its size); its
 * metadata serves at most 2,000 operations a second in all (an
 * assumption: the paper gives none). One more constant was calibrated:
 * the set-up of a worker's peer copy of one file (amfs's fetch_cost), so
 * that Data Cache's mImgtbl takes 6.2 times Staging's (the paper's
 * figure): the preset holds it, and montage prints the calibration again
 * beside it; every other ratio is then the model's prediction, printed
 * next to the paper's.
 *
 *  montage  the 6x6 degree Montage (Table VI: 1,319 images) on 512 cores:
 *           each stage's time for every configuration over Staging's
 *           (Fig. 10), the sums, and the baselines
 *  table7   the time distribution of the gather stages (Table VII)
 *  scale    the same Montage on 2,048 to 32,768 cores: makespans, and what
 *           a run costs (seconds, memory)
 *  blast    mtcBLAST (Table VIII: 63 fragments, cores / 16 query files)
 *           from 256 to 32,768 cores: stealing's gain on blastp (the paper:
 *           3 to 9 %), collective against asynchronous gather (143.3 s
 *           against 139.6 s)
 *  auto     the automatic choice of gather against both fixed choices
 *  replicate  V-F5's alternative: the writer of a multicast group run again
 *           on the replicas' nodes instead of copying the group, against
 *           copying it, on Montage 6x6 and mtcBLAST
 *  wfcommons  the WfCommons instances of tests/fixtures, every configuration
 *  million  a million-task workflow, simulated
 *  sweep    Fig. 10's ratios and the headline on 512 cores with each
 *           constant the paper does not state changed alone, and with
 *           VI-B1b's runtimes: what value of which constant would give
 *           the paper's figure
 *
 *   repro_amfs [--out DIR] [--quick] [EXPERIMENT...]  (default: all, into docs/results)
 *
 * Prints a Markdown table per experiment and writes charts (amfs-*.svg).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "repro.h"

/* The machine: the library's preset (include/locus/flow.h, "bgp"), the
 * one `locus flow sim --platform preset:bgp` runs on. */
static const struct locus_flow_preset *bgp;
static struct locus_flow_preset mach; /* *bgp's copy, which sweep changes */
#define CORES	 (bgp->cores)
#define FS_OPS	 (bgp->fs_ops)
#define FS_OPEN	 (bgp->fs_latency)
#define COST_MSG (bgp->cost_msg)
#define COST_ENT (bgp->cost_entry)

static const char *out_dir = "docs/results";
static int quick;
static double fetch_cost = -1; /* calibrated by montage (or its default) */

static void die(const char *what, const struct locus_error *err)
{
	fprintf(stderr, "repro_amfs: %s: %s\n", what, err && err->message[0] ? err->message : "");
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double rss_mib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

/* ---- the machine ------------------------------------------------------------------------- */

/* A BG/P partition of `cores` cores: 63 of every 64 nodes work, the rest
 * run a dispatcher and a metadata server each. */
struct machine {
	struct locus_platform *p;
	size_t workers, dispatchers;
	double fs_bw;
};

static struct machine machine(size_t cores)
{
	struct machine m = {0};
	struct locus_error err = {0};
	if (locus_flow_preset_platform(bgp, cores / (size_t)CORES, &m.p, &m.dispatchers, &m.fs_bw,
				       &err))
		die("machine", &err);
	m.workers = m.p->n_nodes - m.dispatchers;
	return m;
}

/* One run: a policy ("amfs" in a configuration, or a baseline). */
struct run {
	const char *label; /* an amfs configuration, or a policy's name */
	const char *more;  /* more amfs options, or NULL */
};

static int is_config(const char *s)
{
	static const char *const c[] = {"staging",  "cache",  "aware", "cogather",
					"asgather", "shared", "auto"};
	for (size_t k = 0; k < sizeof c / sizeof c[0]; k++)
		if (!strcmp(s, c[k]))
			return 1;
	return 0;
}

static struct locus_result *go(const struct locus_workload *wl, const struct machine *m,
			       const struct run *run, int keep_tasks, double *wall)
{
	char opts[256];
	int amfs = is_config(run->label);
	if (amfs)
		snprintf(opts, sizeof opts, "config=%s,fetch_cost=%.6g%s%s", run->label,
			 fetch_cost > 0 ? fetch_cost : 0, run->more ? "," : "",
			 run->more ? run->more : "");
	struct locus_error err = {0};
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = locus_policy_find(amfs ? "amfs" : run->label),
				       .policy_opts = amfs ? opts : run->more,
				       .schedulers = amfs ? 1 + 2 * m->dispatchers : 0,
				       .seed = 1,
				       .latency = bgp->latency,
				       .cost_per_msg = COST_MSG,
				       .cost_per_entry = COST_ENT,
				       .shared_fs_bw = m->fs_bw,
				       .fs_ops = FS_OPS,
				       .fs_latency = FS_OPEN,
				       .no_task_results = !keep_tasks,
				       .no_transfer_results = 1};
	struct locus_result *r = NULL;
	double t0 = now_s();
	if (!cfg.policy || locus_sim_run(&r, &cfg, &err))
		die(run->label, &err);
	if (wall)
		*wall = now_s() - t0;
	if (r->failed)
		die(run->label, &(struct locus_error){.message = "the run failed"});
	return r;
}

/* ---- phases ------------------------------------------------------------------------------- */

/* A phase of a workflow (a stage, the corrected mImgtbl apart): the time
 * from its first task being ready (every file it reads written) to its
 * last task's end, its tasks' input time (ready to the end of reading:
 * gathering, dispatch, copies), execution and output. */
struct phase {
	char name[32];
	double ready, end, input, execute, output;
	size_t tasks;
};

#define MAX_PHASES 16

static size_t phase_key(const struct locus_graph *g, uint32_t t, char *out, size_t size)
{
	char buf[64];
	const char *nm = locus_graph_task_name(g, t, buf, sizeof buf);
	if (!strcmp(nm, "mImgtbl_corrected"))
		snprintf(out, size, "mImgtbl (corrected)");
	else
		snprintf(out, size, "%s", g->stage_names[g->task_stage[t]]);
	return strlen(out);
}

static size_t phases(const struct locus_result *r, const struct locus_graph *g, struct phase *ph)
{
	size_t n = 0;
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task_result *tr = &r->tasks[t];
		const struct locus_task *tk = &g->tasks[t];
		double ready = 0;
		for (uint32_t k = 0; k < tk->n_in; k++) {
			uint32_t p = g->objects[g->inputs[tk->in_at + k]].producer;
			if (p == LOCUS_NONE)
				continue;
			double made = r->tasks[p].read_end + g->tasks[p].work;
			ready = made > ready ? made : ready;
		}
		char key[32];
		phase_key(g, t, key, sizeof key);
		size_t i = 0;
		while (i < n && strcmp(ph[i].name, key))
			i++;
		if (i == n) {
			if (n == MAX_PHASES)
				die("phases", NULL);
			memset(&ph[n], 0, sizeof ph[n]);
			snprintf(ph[n].name, sizeof ph[n].name, "%s", key);
			ph[n].ready = INFINITY;
			n++;
		}
		struct phase *p = &ph[i];
		p->tasks++;
		p->ready = ready < p->ready ? ready : p->ready;
		p->end = tr->end > p->end ? tr->end : p->end;
		p->input += tr->read_end - ready;
		p->execute += tk->work;
		p->output += tr->end - tr->read_end - tk->work;
	}
	return n;
}

static const struct phase *phase_find(const struct phase *ph, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ph[i].name, name))
			return &ph[i];
	return NULL;
}

static double phase_time(const struct phase *ph, size_t n, const char *name)
{
	const struct phase *p = phase_find(ph, n, name);
	return p ? p->end - p->ready : NAN;
}

static struct locus_graph *montage(uint32_t images)
{
	struct locus_montage_spec s = {.images = images, .seed = 1};
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	if (locus_flow_montage(&g, &s, &err))
		die("montage", &err);
	return g;
}

/* ---- Fig. 10 and Table VII ----------------------------------------------------------------------
 */

static const char *const fig10_stages[] = {"mProject", "mImgtbl", "mDiffFit", "mConcatFit",
					   "mBackground"};
#define N_FIG10 5

/* The paper's ratios to Staging (section VI-B1; NAN: not given). */
struct paper_row {
	const char *config;
	double r[N_FIG10];
};
static const struct paper_row paper_fig10[] = {
    {"cache", {0.604, 6.2, 0.533, 4.5, 0.983}},
    {"aware", {NAN, 7.7, 0.316, 5.8, 0.539}},
    {"cogather", {NAN, 0.290, NAN, 0.464, NAN}},
};

static const struct paper_row *paper_for(const char *config)
{
	for (size_t i = 0; i < sizeof paper_fig10 / sizeof paper_fig10[0]; i++)
		if (!strcmp(paper_fig10[i].config, config))
			return &paper_fig10[i];
	return NULL;
}

static void put_ratio(double v, double paper)
{
	if (isnan(paper))
		printf(" %6.3f |", v);
	else
		printf(" %6.3f (%s%.3g) |", v, "paper ", paper);
}

#define MAX_RUNS 16

/* Fig. 10's chart: each configuration's ratios to the first's (Staging),
 * the stages along x. */
static void fig10_chart(const struct run *runs, size_t n_runs, double (*t)[N_FIG10 + 2])
{
	double xs[N_FIG10 + 2], ys[MAX_RUNS][N_FIG10 + 2];
	struct locus_series se[MAX_RUNS];
	for (size_t k = 0; k < N_FIG10 + 2; k++)
		xs[k] = (double)(k + 1);
	size_t ns = 0;
	for (size_t i = 1; i < n_runs; i++) {
		for (size_t k = 0; k < N_FIG10 + 2; k++)
			ys[i][k] = t[i][k] / t[0][k];
		se[ns++] = (struct locus_series){
		    .label = runs[i].label, .n = N_FIG10 + 2, .x = xs, .y = ys[i]};
	}
	static const char *const names[] = {"mProject",	   "mImgtbl",  "mDiffFit", "mConcatFit",
					    "mBackground", "Sum_Para", "Sum_All"};
	struct locus_chart c = {.title = "Montage 6x6 on 512 cores: time over Staging's (Fig. 10)",
				.subtitle = "below 1: faster than Staging",
				.x_label = "stage",
				.y_label = "time / Staging's",
				.y_log10 = 1,
				.series = se,
				.n_series = ns,
				.x_names = names,
				.n_x_names = N_FIG10 + 2};
	repro_save(&c, out_dir, "amfs-fig10.svg");
}

/* Table VII: the gather stages' input, execute and output times under
 * Staging (res[0]) and the collective gather (res[3]). */
static void table7(struct locus_result *const *res, const struct locus_graph *g)
{
	struct phase ph[MAX_PHASES];
	size_t n;
	printf("## The gather stages (Table VII)\n\n");
	printf("Seconds: input from the task being ready (its last input written) to the "
	       "end of its reading (the gather, the task's dispatch, its copies), "
	       "execute, output (writing it); the paper's in parentheses.\n\n");
	printf("| stage | input | execute | output |\n|---|---|---|---|\n");
	static const double paper[4][3] = {
	    {14.74, 0.43, 0.07}, {44.64, 28.49, 0.1}, {3.29, 0.42, 0.07}, {5.97, 27.08, 0.11}};
	const size_t which[2] = {0, 3};
	for (size_t w = 0; w < 2; w++) {
		n = phases(res[which[w]], g, ph);
		for (int s = 0; s < 2; s++) {
			const struct phase *p =
			    phase_find(ph, n, s == 0 ? "mImgtbl" : "mConcatFit");
			const double *pp = paper[2 * w + (size_t)s];
			printf("| %s (%s) | %.2f (%.2f) | %.2f (%.2f) | %.2f (%.2f) |\n", p->name,
			       w == 0 ? "GPFS: staging" : "collective gather", p->input, pp[0],
			       p->execute, pp[1], p->output > 0 ? p->output : 0, pp[2]);
		}
	}
	printf("\n");
}

static void exp_montage(int with_table7)
{
	struct locus_graph *g = montage(1319);
	struct machine m = machine(512);
	struct locus_workload *wl = NULL;
	struct locus_error err = {0};
	if (locus_workload_from_graph(&wl, m.p, g, NULL, &err))
		die("workload", &err);
	struct phase ph[MAX_PHASES];

	/* Calibration: Data Cache's mImgtbl over Staging's, 6.2 in the
	 * paper; the cost per file that gives it. */
	fetch_cost = 0;
	struct locus_result *st = go(wl, &m, &(struct run){"staging", NULL}, 1, NULL);
	size_t n = phases(st, g, ph);
	double t_st = phase_time(ph, n, "mImgtbl");
	struct locus_result *ca = go(wl, &m, &(struct run){"cache", NULL}, 1, NULL);
	n = phases(ca, g, ph);
	double t_ca = phase_time(ph, n, "mImgtbl");
	const struct phase *im = phase_find(ph, n, "mImgtbl");
	size_t files = 0;
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		char buf[64];
		if (!strcmp(locus_graph_task_name(g, t, buf, sizeof buf), "mImgtbl"))
			files = g->tasks[t].n_in;
	}
	double cal = (6.2 * t_st - t_ca) / (double)files;
	if (cal < 0)
		cal = 0;
	/* The runs use the preset's (the calibration as it was made once):
	 * every figure and `locus flow sim --platform preset:bgp` on the same
	 * machine. */
	fetch_cost = bgp->fetch_cost;
	locus_result_destroy(st);
	locus_result_destroy(ca);
	(void)im;
	printf("## Montage 6x6 on 512 cores (Fig. 10)\n\n");
	printf(
	    "%zu tasks on %zu worker nodes of %d cores and %zu dispatcher nodes; GPFS %.2f GB/s, "
	    "%.1f ms to open a file, %.0f operations/s in all. Calibration: with no set-up cost "
	    "per peer copy, Data Cache's "
	    "mImgtbl takes %.1f s against Staging's %.1f s; %.1f ms a file (%zu files) makes "
	    "it the paper's 6.2 times: fetch_cost = %.4f s (the preset's, which every run "
	    "uses: %.4f s).\n\n",
	    g->n_tasks, m.workers, CORES, m.dispatchers, m.fs_bw / 1e9, 1e3 * FS_OPEN, FS_OPS, t_ca,
	    t_st, 1e3 * cal, files, cal, fetch_cost);

	static const struct run runs[] = {{"staging", NULL},  {"cache", NULL},	  {"aware", NULL},
					  {"cogather", NULL}, {"asgather", NULL}, {"shared", NULL},
					  {"auto", NULL},     {"taskvine", NULL}, {"dask", NULL}};
#define N_RUNS (sizeof runs / sizeof runs[0])
	_Static_assert(N_RUNS <= MAX_RUNS, "fig10_chart draws at most MAX_RUNS runs");
	double t[N_RUNS][N_FIG10 + 2];
	struct locus_result *res[N_RUNS];
	for (size_t i = 0; i < N_RUNS; i++) {
		res[i] = go(wl, &m, &runs[i], 1, NULL);
		n = phases(res[i], g, ph);
		double sum = 0;
		for (size_t k = 0; k < N_FIG10; k++) {
			t[i][k] = phase_time(ph, n, fig10_stages[k]);
			sum += t[i][k];
		}
		t[i][N_FIG10] = sum;
		t[i][N_FIG10 + 1] = res[i]->makespan;
	}
	printf("Time of each stage (first task ready to last task's end, seconds) and its ratio "
	       "to Staging; Sum_Para: the five parallel stages; Sum_All: the makespan.\n\n");
	printf("| run |");
	for (size_t k = 0; k < N_FIG10; k++)
		printf(" %s |", fig10_stages[k]);
	printf(" Sum_Para | Sum_All |\n|---|");
	for (size_t k = 0; k < N_FIG10 + 2; k++)
		printf("---|");
	printf("\n");
	for (size_t i = 0; i < N_RUNS; i++) {
		printf("| %s |", runs[i].label);
		for (size_t k = 0; k < N_FIG10 + 2; k++)
			printf(" %.1f |", t[i][k]);
		printf("\n");
	}
	printf("\nRatios to Staging (the paper's in parentheses where it gives one):\n\n| run |");
	for (size_t k = 0; k < N_FIG10; k++)
		printf(" %s |", fig10_stages[k]);
	printf(" Sum_Para | Sum_All |\n|---|");
	for (size_t k = 0; k < N_FIG10 + 2; k++)
		printf("---|");
	printf("\n");
	for (size_t i = 1; i < N_RUNS; i++) {
		const struct paper_row *pr = paper_for(runs[i].label);
		printf("| %s |", runs[i].label);
		for (size_t k = 0; k < N_FIG10; k++)
			put_ratio(t[i][k] / t[0][k], pr ? pr->r[k] : NAN);
		/* Staging ran in 45 % of MPI Montage's time (shared): 2.22. */
		double paper_all = !strcmp(runs[i].label, "shared") ? 1 / 0.45 : NAN;
		put_ratio(t[i][N_FIG10] / t[0][N_FIG10], NAN);
		put_ratio(t[i][N_FIG10 + 1] / t[0][N_FIG10 + 1], paper_all);
		printf("\n");
	}
	/* Collective gather against MPI Montage (shared): -83.2 %. */
	printf("\nCollective gather's makespan over MPI Montage's (shared): %.3f (the paper: "
	       "0.168, a decrease of 83.2 %%).\n\n",
	       t[3][N_FIG10 + 1] / t[5][N_FIG10 + 1]);

	fig10_chart(runs, N_RUNS, t);

	if (with_table7)
		table7(res, g);
	for (size_t i = 0; i < N_RUNS; i++)
		locus_result_destroy(res[i]);
#undef N_RUNS
	locus_workload_destroy(wl);
	locus_platform_destroy(m.p);
	locus_graph_destroy(g);
}

/* fetch_cost: the preset's (montage prints the calibration beside it). */
static void calibrated(void)
{
	fetch_cost = bgp->fetch_cost;
}

/* ---- Montage on more cores ----------------------------------------------------------------------
 */

static void exp_scale(void)
{
	calibrated();
	struct locus_graph *g = montage(1319);
	static const size_t cores[] = {512, 2048, 8192, 32768};
	static const struct run runs[] = {{"staging", NULL},
					  {"cogather", NULL},
					  {"auto", NULL},
					  {"taskvine", NULL},
					  {"dask", NULL}};
	size_t n_cores = quick ? 2 : sizeof cores / sizeof cores[0];
	printf("## Montage 6x6 from 512 to 32,768 cores\n\n");
	printf("Makespan (s), and the simulation's own time (s on one core of this machine) and "
	       "peak memory of the process so far (MiB).\n\n| cores |");
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
		printf(" %s |", runs[r].label);
	printf(" slowest run (s) | peak MiB |\n|---|");
	for (size_t r = 0; r < sizeof runs / sizeof runs[0] + 2; r++)
		printf("---|");
	printf("\n");
	struct repro_line lines[5] = {0};
	for (size_t i = 0; i < n_cores; i++) {
		struct machine m = machine(cores[i]);
		struct locus_workload *wl = NULL;
		struct locus_error err = {0};
		if (locus_workload_from_graph(&wl, m.p, g, NULL, &err))
			die("workload", &err);
		printf("| %zu |", cores[i]);
		double slowest = 0;
		for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
			double wall;
			struct locus_result *res = go(wl, &m, &runs[r], 0, &wall);
			printf(" %.1f |", res->makespan);
			repro_line_add(
			    &lines[r], (double)cores[i],
			    (struct repro_stat){res->makespan, res->makespan, res->makespan});
			slowest = wall > slowest ? wall : slowest;
			locus_result_destroy(res);
		}
		printf(" %.2f | %.0f |\n", slowest, rss_mib());
		fflush(stdout);
		locus_workload_destroy(wl);
		locus_platform_destroy(m.p);
	}
	printf("\n");
	struct locus_series se[5];
	for (size_t r = 0; r < 5; r++)
		se[r] = repro_series(&lines[r], runs[r].label, 0, 0);
	struct locus_chart c = {.title = "Montage 6x6: makespan against cores",
				.x_label = "cores",
				.y_label = "makespan (s)",
				.x_log2 = 1,
				.y_log10 = 1,
				.series = se,
				.n_series = 5};
	repro_save(&c, out_dir, "amfs-scale.svg");
	locus_graph_destroy(g);
}

/* ---- mtcBLAST ------------------------------------------------------------------------------- */

static struct locus_graph *blast(uint32_t queries)
{
	struct locus_blast_spec s = {.fragments = 63, .queries = queries, .seed = 1};
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	if (locus_flow_blast(&g, &s, &err))
		die("blast", &err);
	return g;
}

static void exp_blast(void)
{
	calibrated();
	static const size_t cores[] = {256, 1024, 4096, 16384, 32768};
	size_t n_cores = quick ? 2 : sizeof cores / sizeof cores[0];
	printf("## mtcBLAST (63 fragments, cores / 16 query files)\n\n");
	printf(
	    "blastp: its time (first task ready to last end, s) without stealing, stealing from "
	    "the nodes next to a worker's own on the 3-D torus (steal=1, the paper's neighbours) "
	    "and from every worker, and stealing's gain; blastp + merge (blastp's first ready to "
	    "merge's last end) with collective and with asynchronous gather, both with "
	    "steal=1.\n\n");
	printf("| cores | tasks | blastp, no stealing | steal=1 | gain | every worker | gain "
	       "| blastp+merge, collective | asynchronous | async / coll. |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|\n");
	struct repro_line gain2 = {0}, gainall = {0};
	for (size_t i = 0; i < n_cores; i++) {
		struct machine m = machine(cores[i]);
		struct locus_graph *g = blast((uint32_t)(cores[i] / 16));
		struct locus_workload *wl = NULL;
		struct locus_error err = {0};
		if (locus_workload_from_graph(&wl, m.p, g, NULL, &err))
			die("workload", &err);
		static const struct run runs[] = {{"cogather", "steal=0"},
						  {"cogather", "steal=1"},
						  {"cogather", "steal=1e9"},
						  {"asgather", "steal=1"}};
		double bp[4], bm[4];
		for (size_t r = 0; r < 4; r++) {
			struct locus_result *res = go(wl, &m, &runs[r], 1, NULL);
			struct phase ph[MAX_PHASES];
			size_t n = phases(res, g, ph);
			const struct phase *b = phase_find(ph, n, "blastp"),
					   *mg = phase_find(ph, n, "merge");
			bp[r] = b->end - b->ready;
			bm[r] = mg->end - b->ready;
			locus_result_destroy(res);
		}
		printf(
		    "| %zu | %zu | %.1f | %.1f | %.1f %% | %.1f | %.1f %% | %.1f | %.1f | %.3f |\n",
		    cores[i], g->n_tasks, bp[0], bp[1], 100 * (1 - bp[1] / bp[0]), bp[2],
		    100 * (1 - bp[2] / bp[0]), bm[1], bm[3], bm[3] / bm[1]);
		fflush(stdout);
		repro_line_add(&gain2, (double)cores[i],
			       (struct repro_stat){100 * (1 - bp[1] / bp[0]), 0, 0});
		repro_line_add(&gainall, (double)cores[i],
			       (struct repro_stat){100 * (1 - bp[2] / bp[0]), 0, 0});
		locus_workload_destroy(wl);
		locus_graph_destroy(g);
		locus_platform_destroy(m.p);
	}
	printf("\n");
	struct locus_series se[2] = {
	    repro_series(&gain2, "steal=1, torus neighbours (the paper: 3-9 %)", 0, 0),
	    repro_series(&gainall, "every worker", 0, 0)};
	struct locus_chart c = {.title = "mtcBLAST: stealing's gain on blastp (Fig. 11)",
				.x_label = "cores",
				.y_label = "decrease of blastp's time (%)",
				.x_log2 = 1,
				.series = se,
				.n_series = 2};
	repro_save(&c, out_dir, "amfs-fig11.svg");
}

/* ---- the automatic choice of gather ---------------------------------------------------------- */

static void exp_auto(void)
{
	calibrated();
	printf("## Collective or asynchronous gather, chosen per task (auto)\n\n");
	printf("auto gathers asynchronously when a task's inputs are written over a spread of time "
	       "(its writers' waves and runtimes' spread) at least as long as moving them to one "
	       "node takes, collectively otherwise. Makespans (s):\n\n");
	printf("| workflow | cores | gather tasks | of them asynchronous (auto) | cogather | "
	       "asgather | auto | auto / best |\n|---|---|---|---|---|---|---|---|\n");
	for (int w = 0; w < 2; w++) {
		size_t cores = w ? 1024 : 512;
		struct machine m = machine(cores);
		struct locus_graph *g = w ? blast((uint32_t)(cores / 16)) : montage(1319);
		struct locus_workload *wl = NULL;
		struct locus_error err = {0};
		if (locus_workload_from_graph(&wl, m.p, g, NULL, &err))
			die("workload", &err);
		struct locus_flow_analysis *an = NULL;
		if (locus_flow_analyse(&an, g, NULL, &err))
			die("analysis", &err);
		size_t gathers = 0;
		for (size_t s = 0; s < an->n_stages; s++)
			gathers += an->stages[s].gathers;
		double ms[3];
		uint64_t coll = 0;
		static const char *const cf[] = {"cogather", "asgather", "auto"};
		for (int k = 0; k < 3; k++) {
			struct locus_result *res = go(wl, &m, &(struct run){cf[k], NULL}, 0, NULL);
			ms[k] = res->makespan;
			if (k == 2)
				coll = repro_counter(res, "gathers");
			locus_result_destroy(res);
		}
		double best = ms[0] < ms[1] ? ms[0] : ms[1];
		printf("| %s | %zu | %zu | %zu | %.1f | %.1f | %.1f | %.3f |\n",
		       w ? "mtcBLAST" : "Montage 6x6", cores, gathers, gathers - (size_t)coll,
		       ms[0], ms[1], ms[2], ms[2] / best);
		locus_flow_analysis_destroy(an);
		locus_workload_destroy(wl);
		locus_graph_destroy(g);
		locus_platform_destroy(m.p);
	}
	printf("\n");
}

/* ---- replicating the writer (V-F5) ------------------------------------------------------------
 */

static void exp_replicate(void)
{
	calibrated();
	printf("## Replicating the writer instead of the file (V-F5)\n\n");
	printf("config=auto, the multicast groups copied to their replicas' nodes (replicate=file) "
	       "or their writers run again there (replicate=task): the replicas made, the MB "
	       "copied between nodes, two stages' times (first task ready to last end, s: "
	       "Montage's readers of the overlaps and corrections tables, mtcBLAST's formatdb, "
	       "the writer, and blastp, the readers) and the makespan (s).\n\n");
	printf("| workflow | cores | replicate | replicas | MB copied | stage | its time | "
	       "stage | its time | makespan |\n|---|---|---|---|---|---|---|---|---|---|\n");
	static const struct {
		int blast;
		size_t cores;
	} rows[] = {{0, 512}, {0, 2048}, {1, 1024}, {1, 4096}};
	size_t n_rows = quick ? 2 : sizeof rows / sizeof rows[0];
	for (size_t i = 0; i < n_rows; i++) {
		size_t cores = rows[quick ? 2 * i : i].cores;
		int bl = rows[quick ? 2 * i : i].blast;
		struct machine m = machine(cores);
		struct locus_graph *g = bl ? blast((uint32_t)(cores / 16)) : montage(1319);
		struct locus_workload *wl = NULL;
		struct locus_error err = {0};
		if (locus_workload_from_graph(&wl, m.p, g, NULL, &err))
			die("workload", &err);
		static const char *const ways[] = {"replicate=file", "replicate=task"};
		const char *st[2] = {bl ? "formatdb" : "mDiffFit", bl ? "blastp" : "mBackground"};
		for (int k = 0; k < 2; k++) {
			struct locus_result *res =
			    go(wl, &m, &(struct run){"auto", ways[k]}, 1, NULL);
			struct phase ph[MAX_PHASES];
			size_t n = phases(res, g, ph);
			printf("| %s | %zu | %s | %llu | %.0f | %s | %.1f | %s | %.1f | %.1f |\n",
			       bl ? "mtcBLAST" : "Montage 6x6", cores, ways[k] + 10,
			       (unsigned long long)repro_counter(res, "replicas"),
			       (double)res->bytes_moved / 1e6, st[0], phase_time(ph, n, st[0]),
			       st[1], phase_time(ph, n, st[1]), res->makespan);
			fflush(stdout);
			locus_result_destroy(res);
		}
		locus_workload_destroy(wl);
		locus_graph_destroy(g);
		locus_platform_destroy(m.p);
	}
	printf("\n");
}

/* ---- WfCommons --------------------------------------------------------------------------------
 */

static void exp_wfcommons(void)
{
	calibrated();
	static const char *const inst[] = {
	    "blast-chameleon-small-001.json", "epigenomics-chameleon-hep-1seq-100k-001.json",
	    "montage-chameleon-2mass-005d-001.json", "seismology-chameleon-100p-001.json"};
	static const struct run runs[] = {{"staging", NULL},  {"cache", NULL},	  {"aware", NULL},
					  {"cogather", NULL}, {"asgather", NULL}, {"shared", NULL},
					  {"auto", NULL},     {"taskvine", NULL}, {"dask", NULL}};
	printf("## WfCommons instances (64 cores)\n\n");
	printf("Makespan (s) of each configuration and baseline, and over Staging's.\n\n| "
	       "instance | tasks |");
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
		printf(" %s |", runs[r].label);
	printf("\n|---|---|");
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
		printf("---|");
	printf("\n");
	for (size_t i = 0; i < sizeof inst / sizeof inst[0]; i++) {
		/* The copies in tests/fixtures, from the repository (make
		 * repro) or its build directory. */
		char path[512];
		snprintf(path, sizeof path, "tests/fixtures/wfcommons/%s", inst[i]);
		FILE *probe = fopen(path, "r");
		if (probe)
			fclose(probe);
		else
			snprintf(path, sizeof path, "../tests/fixtures/wfcommons/%s", inst[i]);
		struct locus_graph *g = NULL;
		struct locus_error err = {0};
		if (locus_flow_load(&g, path, NULL, &err)) {
			printf("| %s | (not read: %s) |\n", inst[i], err.message);
			continue;
		}
		struct machine m = machine(64 + 4);
		struct locus_workload *wl = NULL;
		if (locus_workload_from_graph(&wl, m.p, g, NULL, &err))
			die("workload", &err);
		printf("| %.*s | %zu |", (int)(strlen(inst[i]) - 9), inst[i], g->n_tasks);
		double base = 0;
		for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
			struct locus_result *res = go(wl, &m, &runs[r], 0, NULL);
			if (!r)
				base = res->makespan;
			printf(" %.1f (%.2f) |", res->makespan, res->makespan / base);
			locus_result_destroy(res);
		}
		printf("\n");
		locus_workload_destroy(wl);
		locus_platform_destroy(m.p);
		locus_graph_destroy(g);
	}
	printf("\n");
}

/* ---- what the paper does not state: a sweep ----------------------------------------------------
 */

/* The ratios of Fig. 10 and the headline (VI-B1) that a sweep reports:
 * run a over run b, both in stage k (N_FIG10: Sum_Para, N_FIG10 + 1:
 * Sum_All); runs index sweep_runs. */
struct sweep_ratio {
	const char *label;
	int a, b, k;
	double paper;
};

static const struct run sweep_runs[] = {
    {"staging", NULL}, {"cache", NULL}, {"aware", NULL}, {"cogather", NULL}, {"shared", NULL}};
#define N_SWEEP_RUNS 5

static const struct sweep_ratio sweep_ratios[] = {
    {"cache mProject", 1, 0, 0, 0.604},
    {"cache mImgtbl", 1, 0, 1, 6.2},
    {"cache mDiffFit", 1, 0, 2, 0.533},
    {"cache mConcatFit", 1, 0, 3, 4.5},
    {"cache mBackground", 1, 0, 4, 0.983},
    {"aware mImgtbl", 2, 0, 1, 7.7},
    {"aware mDiffFit", 2, 0, 2, 0.316},
    {"aware mConcatFit", 2, 0, 3, 5.8},
    {"aware mBackground", 2, 0, 4, 0.539},
    {"cogather mImgtbl", 3, 0, 1, 0.290},
    {"cogather mConcatFit", 3, 0, 3, 0.464},
    {"cogather Sum_Para", 3, 0, N_FIG10, 0.427},
    {"cogather / MPI Sum_Para", 3, 4, N_FIG10, 0.427},
    {"cogather Sum_All", 3, 0, N_FIG10 + 1, 0.168 / 0.45},
    {"staging / MPI Sum_All", 0, 4, N_FIG10 + 1, 0.45},
    {"cogather / MPI Sum_All", 3, 4, N_FIG10 + 1, 0.168}};
#define N_SWEEP_RATIOS (sizeof sweep_ratios / sizeof sweep_ratios[0])

/* One point of the sweep: the preset with one constant changed (or
 * the paper's runtimes of VI-B1b: cold), the Fig. 10 set on 512 cores. */
static void sweep_point(const char *what, int cold, double mpi_ops, struct locus_graph *g,
			struct locus_graph *gc)
{
	struct machine m = machine(512);
	struct locus_workload *wl = NULL, *wc = NULL;
	struct locus_error err = {0};
	if (locus_workload_from_graph(&wl, m.p, g, NULL, &err) ||
	    locus_workload_from_graph(&wc, m.p, gc, NULL, &err))
		die("workload", &err);
	double t[N_SWEEP_RUNS][N_FIG10 + 2];
	for (size_t i = 0; i < N_SWEEP_RUNS; i++) {
		/* VI-B1b: the runtimes fall where a task's input is in the
		 * node's memory (data-aware dispatch, collective gather). */
		int c = cold && i != 2 && i != 3;
		/* mpi_ops: MPI Montage's direct reads and writes alone served
		 * at another rate. */
		double ops = mach.fs_ops;
		if (i == 4 && mpi_ops > 0)
			mach.fs_ops = mpi_ops;
		struct locus_result *r = go(c ? wc : wl, &m, &sweep_runs[i], 1, NULL);
		mach.fs_ops = ops;
		struct phase ph[MAX_PHASES];
		size_t n = phases(r, c ? gc : g, ph);
		t[i][N_FIG10] = 0;
		for (size_t k = 0; k < N_FIG10; k++) {
			t[i][k] = phase_time(ph, n, fig10_stages[k]);
			t[i][N_FIG10] += t[i][k];
		}
		t[i][N_FIG10 + 1] = r->makespan;
		locus_result_destroy(r);
	}
	printf("| %s |", what);
	for (size_t j = 0; j < N_SWEEP_RATIOS; j++) {
		const struct sweep_ratio *q = &sweep_ratios[j];
		double v = t[q->a][q->k] / t[q->b][q->k];
		int in = fabs(v / q->paper - 1) <= 0.25;
		printf(" %s%.3f%s |", in ? "**" : "", v, in ? "**" : "");
	}
	printf(" %.1f | %.1f |\n", t[0][N_FIG10 + 1], t[4][N_FIG10 + 1]);
	fflush(stdout);
	locus_workload_destroy(wl);
	locus_workload_destroy(wc);
	locus_platform_destroy(m.p);
}

/* Montage with VI-B1b's runtimes where the input is not in memory:
 * mDiffFit 10 s (1.2 s once in memory), mBackground 8.3 s (6.9 s). */
static struct locus_graph *montage_cold(void)
{
	struct locus_graph *g = montage(1319);
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		const char *st = g->stage_names[g->task_stage[t]];
		if (!strcmp(st, "mDiffFit"))
			g->tasks[t].work *= 10.0 / 1.2;
		else if (!strcmp(st, "mBackground"))
			g->tasks[t].work *= 8.3 / 6.9;
	}
	return g;
}

/* Each constant the paper does not state, swept alone over the preset's
 * value; and VI-B1b's runtimes. Bold: within 25 % of the paper's. */
static void exp_sweep(void)
{
	calibrated();
	struct locus_flow_preset base = mach;
	struct locus_graph *g = montage(1319), *gc = montage_cold();
	printf("## What the paper does not state: Fig. 10 and the headline against each "
	       "constant\n\n");
	printf("Montage 6x6 on 512 cores, the preset with one constant changed; each ratio of the "
	       "paper's (VI-B1) and Locus's, bold within 25 %% of the paper's; the last two "
	       "columns are Staging's and MPI Montage's (shared) makespans (s).\n\n| point |");
	for (size_t j = 0; j < N_SWEEP_RATIOS; j++)
		printf(" %s (%.3g) |", sweep_ratios[j].label, sweep_ratios[j].paper);
	printf(" staging | MPI |\n|---|");
	for (size_t j = 0; j < N_SWEEP_RATIOS + 2; j++)
		printf("---|");
	printf("\n");
	char what[96];
	sweep_point("the preset", 0, 0, g, gc);
	sweep_point("VI-B1b's runtimes (mDiffFit 10 s, mBackground 8.3 s unless aware)", 1, 0, g,
		    gc);
	static const struct {
		const char *fmt;
		double *field;
		double v[9];
		int cold;
	} pts[] = {
	    {"GPFS %.0f operations/s",
	     &mach.fs_ops,
	     {1000, 850, 700, 500, 250, 125, 90, 60, 30},
	     0},
	    {"GPFS %.0f MB/s per 64 nodes", &mach.fs_bw_per64, {600, 300, 200, 150, 75}, 0},
	    {"RAM disk %.0f MB/s", &mach.disk_bw, {300, 100, 30}, 0},
	    {"node interface %.0f MB/s", &mach.net_bw, {850, 1700, 2550}, 0},
	    {"VI-B1b's runtimes, GPFS %.0f operations/s",
	     &mach.fs_ops,
	     {1000, 500, 250, 125, 90},
	     1},
	};
	for (size_t p = 0; p < sizeof pts / sizeof pts[0]; p++)
		for (size_t i = 0; i < 9 && pts[p].v[i] > 0; i++) {
			double mb = pts[p].field == &mach.fs_ops ? 1 : 1e6;
			*pts[p].field = pts[p].v[i] * mb;
			snprintf(what, sizeof what, pts[p].fmt, pts[p].v[i]);
			sweep_point(what, pts[p].cold, 0, g, gc);
			mach = base;
		}
	/* The set-up of a peer copy: calibrated on Data Cache's mImgtbl
	 * (6.2); Data-aware's gathers (7.7, 5.8) would want more. */
	static const double fc[] = {0.085, 0.1, 0.12};
	for (size_t i = 0; i < sizeof fc / sizeof fc[0]; i++) {
		fetch_cost = fc[i];
		snprintf(what, sizeof what, "peer copy set-up %.1f ms", 1e3 * fc[i]);
		sweep_point(what, 0, 0, g, gc);
	}
	calibrated();
	/* MPI Montage's reads and writes, each an operation of GPFS: its
	 * small requests as fewer operations a second for it alone. */
	static const double mpi[] = {500, 200, 100, 90, 85, 80};
	for (size_t i = 0; i < sizeof mpi / sizeof mpi[0]; i++) {
		snprintf(what, sizeof what, "MPI Montage's GPFS %.0f operations/s", mpi[i]);
		sweep_point(what, 0, mpi[i], g, gc);
	}
	printf("\n");
	locus_graph_destroy(g);
	locus_graph_destroy(gc);
}

/* ---- a million tasks ------------------------------------------------------------------------ */

static void exp_million(void)
{
	calibrated();
	printf("## A million-task workflow\n\n");
	printf("| workflow | tasks | files | cores | policy | makespan (s) | simulated in (s) | "
	       "events | peak MiB |\n|---|---|---|---|---|---|---|---|---|\n");
	uint32_t q = quick ? 1600 : 16000;
	double t0 = now_s();
	struct locus_graph *g = blast(q);
	double gen = now_s() - t0;
	struct machine m = machine(32768);
	struct locus_workload *wl = NULL;
	struct locus_error err = {0};
	if (locus_workload_from_graph(&wl, m.p, g, NULL, &err))
		die("workload", &err);
	/* (taskvine's manager looks at every replica of a task's inputs
	 * when it places it, as TaskVine's does: with 16,000 readers of each
	 * fragment on up to 8,192 nodes that is too slow here.) */
	static const struct run runs[] = {{"cogather", NULL}};
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
		double wall;
		struct locus_result *res = go(wl, &m, &runs[r], 0, &wall);
		printf("| mtcBLAST 63 x %u | %zu | %zu | %d | %s | %.1f | %.1f | %llu | %.0f |\n",
		       q, g->n_tasks, g->n_objects, 32768, runs[r].label, res->makespan, wall,
		       (unsigned long long)res->events, rss_mib());
		fflush(stdout);
		locus_result_destroy(res);
	}
	printf("\n(The workflow is generated in %.1f s.)\n\n", gen);
	locus_workload_destroy(wl);
	locus_platform_destroy(m.p);
	locus_graph_destroy(g);
}

int main(int argc, char **argv)
{
	bgp = locus_flow_preset_find("bgp");
	if (!bgp)
		die("the bgp preset", NULL);
	mach = *bgp;
	bgp = &mach;
	static const struct {
		const char *name;
		void (*fn)(void);
	} exps[] = {{"montage", NULL},
		    {"table7", NULL},
		    {"scale", exp_scale},
		    {"blast", exp_blast},
		    {"auto", exp_auto},
		    {"replicate", exp_replicate},
		    {"wfcommons", exp_wfcommons},
		    {"million", exp_million},
		    {"sweep", exp_sweep}};
	int chosen[sizeof exps / sizeof exps[0]] = {0}, any = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			out_dir = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "--quick")) {
			quick = 1;
			continue;
		}
		size_t k = 0;
		while (k < sizeof exps / sizeof exps[0] && strcmp(argv[i], exps[k].name))
			k++;
		if (k == sizeof exps / sizeof exps[0]) {
			fprintf(stderr, "usage: repro_amfs [--out DIR] [--quick] "
					"[montage|table7|scale|blast|auto|replicate|wfcommons|"
					"million|sweep]...\n");
			return 2;
		}
		chosen[k] = any = 1;
	}
	if (chosen[0] || chosen[1] || !any)
		exp_montage(chosen[1] || !any);
	for (size_t k = 2; k < sizeof exps / sizeof exps[0]; k++)
		if (chosen[k] || !any)
			exps[k].fn();
	return 0;
}
