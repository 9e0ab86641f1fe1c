/*
 * GTP's experiments (Hernandez and Cole, ../shared/papers/gtp.txt section
 * 7), reproduced in the simulator; docs/results/gtp.md reads the results.
 *
 * The setting of section 6: STG-shaped random graphs (the set's sameprob
 * generator, whole costs 1..10, about 2 predecessors a task), CCR 0.1, 0.5
 * and 1.5, 10 processors (Topcuoglu's beta 0.5: the paper does not give
 * its heterogeneity), linked pairwise at 125 MB/s with no start-up time;
 * scenarios of GTP's variability bound, 0 to 90 % (every processor and
 * link changes at exponential intervals of a tenth of the graph's lower
 * bound to a value in [1 - bound, 1] of its peak). Several graphs and
 * scenarios a point; means with 95 % confidence intervals.
 *
 *  fig4    SCE10-300, CCR 0.5: mean NSL, migrations, remappings and bytes
 *          sent again against the bound, for HEFT (without insertion: the
 *          first schedule of GTP), GTP, GTP/c and DLS/sr
 *  sizes   GTP's, GTP/c's and DLS/sr's NSL over HEFT's for 50..1,000 tasks
 *          and the three CCRs, at bounds 0, 40 and 80 %
 *  fig5    SCEr10-300, CCR 0.5, one processor failing for good at a time
 *          uniform in 10..60 % of the fault-free makespan: NSL, rewound
 *          tasks (RT) and levels (RL) and bytes sent again for GTP/r and
 *          GTP/c/r against the bound
 *  period  GTP/c's NSL against its rescheduling period and against
 *          rescheduling on speed changes (beyond the paper)
 *  oracle  mean makespans against HEFT planned knowing the scenario (a
 *          clairvoyant static schedule), and how much of the gap between
 *          it and static HEFT each method closes (beyond the paper)
 *  perf    what a rescheduling point costs on 1,000-task graphs, and the
 *          time of the 1,000-task, 90 % point with every policy
 *
 *   repro_gtp [--out DIR] [--quick] [--rate D] [EXPERIMENT...]  (default: all, into docs/results)
 *   --rate D: each resource changes every lower bound / D on average (default 10,
 *   locus sim's --var-period default; docs/results/gtp.md, "the rate of change")
 *
 * Prints a Markdown table per experiment and writes charts (gtp-*.svg; at
 * another rate than the default, gtp-NAME-rateD.svg).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "repro.h"

#define PROCS	    10
#define BETA	    0.5
#define LINK_BW	    1.25e8
#define MAX_SAMPLES 64

static const char *out_dir = "docs/results";
static int quick;
/* Each resource changes every lower bound / rate_div on average (--rate). */
static double rate_div = 10;

/* Saves chart c as `name` (gtp-NAME.svg); at another rate than the
 * default as gtp-NAME-rateD.svg, its subtitle saying the rate. */
static void save_at_rate(struct locus_chart *c, const char *dir, const char *name)
{
	if (rate_div == 10) {
		repro_save(c, dir, name);
		return;
	}
	char file[128], sub[256];
	const char *dot = strrchr(name, '.');
	int stem = dot ? (int)(dot - name) : (int)strlen(name);
	snprintf(file, sizeof file, "%.*s-rate%g%s", stem, name, rate_div, dot ? dot : "");
	snprintf(sub, sizeof sub, "%s; each resource changing every lower bound / %g",
		 c->subtitle ? c->subtitle : "", rate_div);
	c->subtitle = sub;
	repro_save(c, dir, file);
}
static int time_policy; /* perf: the runs time their policy */

static void die(const char *what, const struct locus_error *err)
{
	fprintf(stderr, "repro_gtp: %s: %s\n", what, err && err->message[0] ? err->message : "");
	exit(1);
}

/* A graph of n tasks with its CCR on `procs` processors (instance_make:
 * PROCS). */
struct instance {
	struct locus_graph *g;
	struct locus_platform *p;
	struct locus_workload *wl;
	double lower, heft_makespan;
	size_t procs;
};

static void instance_make_on(struct instance *in, size_t n, double ccr, uint64_t seed, size_t procs)
{
	struct locus_error err = {0};
	struct locus_dag_gen spec = {.method = LOCUS_DAG_SAMEPROB, .n_tasks = n, .seed = seed};
	struct locus_dag_bounds b;
	memset(in, 0, sizeof *in);
	in->procs = procs;
	if (locus_dag_generate(&in->g, &spec, &err) ||
	    locus_dag_set_heterogeneity(in->g, procs, BETA, seed, &err) ||
	    locus_dag_set_ccr(in->g, ccr, LINK_BW, seed, &err))
		die("graph", &err);
	if (locus_platform_generate(&in->p, procs, 1, 1, "p"))
		die("platform", NULL);
	locus_platform_set_pairs(in->p, LINK_BW, 0);
	if (locus_workload_from_graph(&in->wl, in->p, in->g, NULL, &err))
		die("workload", &err);
	if (locus_dag_bounds(in->wl, NULL, &b))
		die("bounds", NULL);
	in->lower = b.lower;
}

static void instance_make(struct instance *in, size_t n, double ccr, uint64_t seed)
{
	instance_make_on(in, n, ccr, seed, PROCS);
}

static void instance_fini(struct instance *in)
{
	locus_workload_destroy(in->wl);
	locus_platform_destroy(in->p);
	locus_graph_destroy(in->g);
}

static struct locus_result *go(const struct instance *in, const char *policy, const char *opts,
			       const struct locus_change *ch, size_t n_ch)
{
	struct locus_error err = {0};
	struct locus_sim_config cfg = {.wl = in->wl,
				       .policy = locus_policy_find(policy),
				       .policy_opts = opts,
				       .seed = 1,
				       .latency = -1,
				       .changes = ch,
				       .n_changes = n_ch,
				       .no_task_results = 1,
				       .no_transfer_results = 1,
				       .time_policy = time_policy};
	struct locus_result *r = NULL;
	if (!cfg.policy || locus_sim_run(&r, &cfg, &err))
		die(policy, &err);
	return r;
}

/* GTP's scenario of `bound` for instance `in`, seeded. */
static struct locus_change *scenario(const struct instance *in, double bound, uint64_t seed,
				     size_t *n)
{
	struct locus_error err = {0};
	struct locus_variability v = {.bound = bound,
				      .period = in->lower / rate_div,
				      .horizon = 10 * in->lower,
				      .links = 1,
				      .seed = seed};
	struct locus_change *ch = NULL;
	if (locus_changes_generate(&ch, n, in->p, &v, &err))
		die("scenario", &err);
	return ch;
}

/* Mean and 95 % confidence half-width (normal approximation). */
struct ci {
	double mean, half;
};

static struct ci ci_of(const double *v, size_t n)
{
	double sum = 0, sq = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	double mean = n ? sum / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - mean) * (v[i] - mean);
	double sd = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	return (struct ci){mean, n > 1 ? 1.96 * sd / sqrt((double)n) : 0};
}

static struct repro_stat band(struct ci c)
{
	return (struct repro_stat){c.mean, c.mean - c.half, c.mean + c.half};
}

/* ---- fig4 ------------------------------------------------------------------------ */

#define N_POL4 4
static const char *const pol4[N_POL4] = {"heft", "gtp", "gtp-c", "dls-sr"};
/* GTP as the paper runs it: periodic rescheduling only. */
static const char *const opt4[N_POL4] = {"insertion=0", "on=none", "on=none", NULL};
static const char *const label4[N_POL4] = {"HEFT", "GTP", "GTP/c", "DLS/sr"};

static void fig4(void)
{
	size_t graphs = quick ? 2 : 4, scen = quick ? 3 : 8;
	struct repro_line nsl[N_POL4], migr[2], remap[2];
	memset(nsl, 0, sizeof nsl);
	memset(migr, 0, sizeof migr);
	memset(remap, 0, sizeof remap);
	printf("\n## fig4: SCE10-300, CCR 0.5 (%zu graphs x %zu scenarios a point)\n\n", graphs,
	       scen);
	printf("| bound | HEFT NSL | GTP NSL | GTP/c NSL | DLS/sr NSL | GTP/c vs HEFT | GTP/c vs "
	       "GTP | GTP/c vs DLS/sr | migrations GTP, GTP/c | remappings GTP, GTP/c, DLS/sr "
	       "| GB sent again GTP, GTP/c |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	struct instance in[8];
	for (size_t gi = 0; gi < graphs; gi++)
		instance_make(&in[gi], 300, 0.5, 100 + gi);
	for (int b = 0; b <= 9; b++) {
		double bound = b / 10.0;
		double v[N_POL4][MAX_SAMPLES], mg[2][MAX_SAMPLES], rm[3][MAX_SAMPLES],
		    rs[2][MAX_SAMPLES];
		size_t k = 0;
		for (size_t gi = 0; gi < graphs; gi++)
			for (size_t si = 0; si < scen; si++, k++) {
				size_t n_ch = 0;
				struct locus_change *ch =
				    scenario(&in[gi], bound, 1000 * gi + si, &n_ch);
				for (int p = 0; p < N_POL4; p++) {
					struct locus_result *r =
					    go(&in[gi], pol4[p], opt4[p], ch, n_ch);
					v[p][k] = r->nsl;
					if (p)
						rm[p - 1][k] =
						    (double)repro_counter(r, "remappings");
					if (p == 1 || p == 2) {
						mg[p - 1][k] =
						    (double)repro_counter(r, "migrations");
						rs[p - 1][k] =
						    (double)repro_counter(r, "bytes_resent") / 1e9;
					}
					locus_result_destroy(r);
				}
				free(ch);
			}
		struct ci c[N_POL4], cm[2], cr[3], cs[2];
		for (int p = 0; p < N_POL4; p++) {
			c[p] = ci_of(v[p], k);
			repro_line_add(&nsl[p], b * 10, band(c[p]));
		}
		for (int p = 0; p < 3; p++)
			cr[p] = ci_of(rm[p], k);
		for (int p = 0; p < 2; p++) {
			cm[p] = ci_of(mg[p], k);
			cs[p] = ci_of(rs[p], k);
			repro_line_add(&migr[p], b * 10, band(cm[p]));
			repro_line_add(&remap[p], b * 10, band(cr[p]));
		}
		printf(
		    "| %d %% | %.3f ± %.3f | %.3f ± %.3f | %.3f ± %.3f | %.3f ± %.3f | %+.1f %% | "
		    "%+.1f %% | %+.1f %% | %.0f, %.0f | %.1f, %.1f, %.1f | %.1f, %.1f |\n",
		    b * 10, c[0].mean, c[0].half, c[1].mean, c[1].half, c[2].mean, c[2].half,
		    c[3].mean, c[3].half, 100 * (c[2].mean / c[0].mean - 1),
		    100 * (c[2].mean / c[1].mean - 1), 100 * (c[2].mean / c[3].mean - 1),
		    cm[0].mean, cm[1].mean, cr[0].mean, cr[1].mean, cr[2].mean, cs[0].mean,
		    cs[1].mean);
		fflush(stdout);
	}
	for (size_t gi = 0; gi < graphs; gi++)
		instance_fini(&in[gi]);
	struct locus_series s[N_POL4];
	for (int p = 0; p < N_POL4; p++)
		s[p] = repro_series(&nsl[p], label4[p], 1, 0);
	struct locus_chart ch = {.title = "GTP, Fig. 4: SCE10-300, CCR 0.5",
				 .subtitle = "mean NSL, 95 % confidence bands",
				 .x_label = "variability bound (%)",
				 .y_label = "NSL",
				 .y_zoom = 1,
				 .series = s,
				 .n_series = N_POL4};
	save_at_rate(&ch, out_dir, "gtp-fig4.svg");
	struct locus_series sm[2] = {repro_series(&migr[0], "GTP", 1, 0),
				     repro_series(&migr[1], "GTP/c", 1, 0)};
	struct locus_chart chm = {.title = "GTP, Fig. 4: migrated tasks",
				  .subtitle = "mean over the scenarios, 95 % bands",
				  .x_label = "variability bound (%)",
				  .y_label = "migrations a run",
				  .series = sm,
				  .n_series = 2};
	save_at_rate(&chm, out_dir, "gtp-fig4-migrations.svg");
}

/* ---- sizes ----------------------------------------------------------------------- */

static void sizes(void)
{
	static const size_t ns[] = {50, 100, 300, 500, 1000};
	static const double ccrs[] = {0.1, 0.5, 1.5};
	static const int bounds[] = {0, 4, 8};
	size_t graphs = quick ? 1 : 2, scen = quick ? 2 : 5;
	printf("\n## sizes: NSL of GTP and GTP/c over HEFT's (%zu graphs x %zu scenarios a "
	       "cell; below 1: better than HEFT)\n\n",
	       graphs, scen);
	printf("| tasks | CCR | GTP 0 %% | GTP/c 0 %% | DLS/sr 0 %% | GTP 40 %% | GTP/c 40 %% | "
	       "DLS/sr 40 %% | GTP 80 %% | GTP/c 80 %% | DLS/sr 80 %% |\n"
	       "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
		for (size_t c = 0; c < 3; c++) {
			printf("| %zu | %.1f |", ns[a], ccrs[c]);
			struct instance in[4];
			for (size_t gi = 0; gi < graphs; gi++)
				instance_make(&in[gi], ns[a], ccrs[c], 200 + gi);
			for (size_t bi = 0; bi < 3; bi++) {
				double sum[N_POL4] = {0};
				for (size_t gi = 0; gi < graphs; gi++)
					for (size_t si = 0; si < scen; si++) {
						size_t n_ch = 0;
						struct locus_change *ch =
						    scenario(&in[gi], bounds[bi] / 10.0,
							     1000 * gi + si, &n_ch);
						for (int p = 0; p < N_POL4; p++) {
							struct locus_result *r =
							    go(&in[gi], pol4[p], opt4[p], ch, n_ch);
							sum[p] += r->nsl;
							locus_result_destroy(r);
						}
						free(ch);
					}
				printf(" %.3f | %.3f | %.3f |", sum[1] / sum[0], sum[2] / sum[0],
				       sum[3] / sum[0]);
			}
			printf("\n");
			fflush(stdout);
			for (size_t gi = 0; gi < graphs; gi++)
				instance_fini(&in[gi]);
		}
}

/* ---- fig5 ------------------------------------------------------------------------ */

/* The scenario var with one processor, drawn by `seed`, failing for good at
 * a time uniform in 10..60 % of in's fault-free makespan (heft_makespan). */
static struct locus_change *with_failure(const struct instance *in, const struct locus_change *var,
					 size_t n_var, uint64_t seed, size_t *n)
{
	struct locus_rng rng;
	locus_rng_init(&rng, seed);
	struct locus_change fail = {in->heft_makespan * (0.1 + 0.5 * locus_rng_uniform(&rng)),
				    LOCUS_CHANGE_FAIL, (uint32_t)locus_rng_below(&rng, in->procs),
				    LOCUS_NONE, 0};
	struct locus_change *ch = NULL;
	if (locus_changes_merge(&ch, n, var, n_var, &fail, 1))
		die("merge", NULL);
	return ch;
}

static void fig5(void)
{
	size_t graphs = quick ? 2 : 4, scen = quick ? 3 : 8;
	struct repro_line nsl[2], rt[2];
	memset(nsl, 0, sizeof nsl);
	memset(rt, 0, sizeof rt);
	printf("\n## fig5: SCEr10-300, CCR 0.5, one processor failing (%zu graphs x %zu "
	       "scenarios a point)\n\n",
	       graphs, scen);
	printf("| bound | GTP/r NSL | GTP/c/r NSL | GTP/c/r vs GTP/r | RT GTP/r, GTP/c/r | RL "
	       "GTP/r, GTP/c/r | GB sent again GTP/r, GTP/c/r |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|\n");
	struct instance in[8];
	for (size_t gi = 0; gi < graphs; gi++) {
		instance_make(&in[gi], 300, 0.5, 300 + gi);
		struct locus_result *h = go(&in[gi], "heft", "insertion=0", NULL, 0);
		in[gi].heft_makespan = h->makespan;
		locus_result_destroy(h);
	}
	for (int b = 0; b <= 9; b++) {
		double v[2][MAX_SAMPLES], r_t[2][MAX_SAMPLES], r_l[2][MAX_SAMPLES],
		    rs[2][MAX_SAMPLES];
		size_t k = 0;
		for (size_t gi = 0; gi < graphs; gi++)
			for (size_t si = 0; si < scen; si++, k++) {
				size_t n_var = 0, n_ch = 0;
				struct locus_change *var =
				    scenario(&in[gi], b / 10.0, 1000 * gi + si, &n_var);
				struct locus_change *ch =
				    with_failure(&in[gi], var, n_var, 7000 + 100 * gi + si, &n_ch);
				for (int p = 0; p < 2; p++) {
					struct locus_result *r = go(
					    &in[gi], p ? "gtp-c-r" : "gtp-r", "on=none", ch, n_ch);
					if (r->failed)
						die(r->failure, NULL);
					v[p][k] = r->nsl;
					r_t[p][k] = (double)repro_counter(r, "rewound_tasks");
					r_l[p][k] = (double)repro_counter(r, "rewound_levels");
					rs[p][k] = (double)repro_counter(r, "bytes_resent") / 1e9;
					locus_result_destroy(r);
				}
				free(var);
				free(ch);
			}
		struct ci c[2], ct[2], cl[2], cs[2];
		for (int p = 0; p < 2; p++) {
			c[p] = ci_of(v[p], k);
			ct[p] = ci_of(r_t[p], k);
			cl[p] = ci_of(r_l[p], k);
			cs[p] = ci_of(rs[p], k);
			repro_line_add(&nsl[p], b * 10, band(c[p]));
			repro_line_add(&rt[p], b * 10, band(ct[p]));
		}
		printf("| %d %% | %.3f ± %.3f | %.3f ± %.3f | %+.1f %% | %.2f, %.2f | %.2f, %.2f | "
		       "%.1f, %.1f |\n",
		       b * 10, c[0].mean, c[0].half, c[1].mean, c[1].half,
		       100 * (c[1].mean / c[0].mean - 1), ct[0].mean, ct[1].mean, cl[0].mean,
		       cl[1].mean, cs[0].mean, cs[1].mean);
		fflush(stdout);
	}
	for (size_t gi = 0; gi < graphs; gi++)
		instance_fini(&in[gi]);
	struct locus_series s[2] = {repro_series(&nsl[0], "GTP/r", 1, 0),
				    repro_series(&nsl[1], "GTP/c/r", 1, 0)};
	struct locus_chart ch = {.title = "GTP, Fig. 5: SCEr10-300, CCR 0.5, one processor fails",
				 .subtitle = "mean NSL, 95 % confidence bands",
				 .x_label = "variability bound (%)",
				 .y_label = "NSL",
				 .y_zoom = 1,
				 .series = s,
				 .n_series = 2};
	save_at_rate(&ch, out_dir, "gtp-fig5.svg");
	struct locus_series st[2] = {repro_series(&rt[0], "GTP/r", 1, 0),
				     repro_series(&rt[1], "GTP/c/r", 1, 0)};
	struct locus_chart cht = {.title = "GTP, Fig. 5: rewound tasks",
				  .subtitle = "mean over the scenarios, 95 % bands",
				  .x_label = "variability bound (%)",
				  .y_label = "tasks rewound a run",
				  .series = st,
				  .n_series = 2};
	save_at_rate(&cht, out_dir, "gtp-fig5-rewound.svg");
}

/* ---- oracle (beyond the paper) ----------------------------------------------------- */

/* A resource's factor over time: piecewise constant, 1 before the first
 * change. */
struct profile {
	double *t, *f;
	size_t n, cap;
};

static void profile_add(struct profile *pr, double t, double f)
{
	if (pr->n == pr->cap) {
		pr->cap = pr->cap ? 2 * pr->cap : 8;
		pr->t = realloc(pr->t, pr->cap * sizeof *pr->t);
		pr->f = realloc(pr->f, pr->cap * sizeof *pr->f);
		if (!pr->t || !pr->f)
			die("out of memory", NULL);
	}
	pr->t[pr->n] = t;
	pr->f[pr->n++] = f;
}

/* When `amount` (seconds at factor 1) is done, from `start` on. */
static double profile_end(const struct profile *pr, double start, double amount)
{
	double f = 1, t = start;
	size_t k = 0;
	while (k < pr->n && pr->t[k] <= start)
		f = pr->f[k++];
	while (amount > 0) {
		double next = k < pr->n ? pr->t[k] : INFINITY;
		double can = (next - t) * f;
		if (can >= amount)
			return t + amount / f;
		amount -= can;
		t = next;
		f = pr->f[k++];
	}
	return t;
}

/* Seconds of work at factor 1 a resource delivers in [0, T]. */
static double profile_work(const struct profile *pr, double T)
{
	double f = 1, t = 0, sum = 0;
	for (size_t k = 0; k < pr->n && pr->t[k] < T; k++) {
		sum += (pr->t[k] - t) * f;
		t = pr->t[k];
		f = pr->f[k];
	}
	return sum + (T - t) * f;
}

/* A scenario as profiles: every processor's availability and every
 * link's bandwidth factor over time. */
struct profiles {
	struct profile avail[PROCS], link[PROCS * PROCS];
};

static void profiles_make(struct profiles *pf, const struct locus_change *ch, size_t n_ch)
{
	memset(pf, 0, sizeof *pf);
	for (size_t i = 0; i < n_ch; i++) {
		if (ch[i].kind == LOCUS_CHANGE_AVAIL)
			profile_add(&pf->avail[ch[i].node], ch[i].time, ch[i].value);
		else if (ch[i].kind == LOCUS_CHANGE_LINK) {
			profile_add(&pf->link[ch[i].node * PROCS + ch[i].node2], ch[i].time,
				    ch[i].value);
			profile_add(&pf->link[ch[i].node2 * PROCS + ch[i].node], ch[i].time,
				    ch[i].value);
		}
	}
}

static void profiles_fini(struct profiles *pf)
{
	for (size_t i = 0; i < PROCS; i++)
		free(pf->avail[i].t), free(pf->avail[i].f);
	for (size_t i = 0; i < PROCS * PROCS; i++)
		free(pf->link[i].t), free(pf->link[i].f);
}

/* A lower bound on any schedule's makespan under the scenario: the
 * larger of the work bound (the first T by which the processors, at
 * their availability over time, can have done every task's least cost)
 * and the critical path with each task at its best processor's
 * availability from its predecessors' earliest ends, without transfers
 * or waiting for a processor. */
static double scenario_lower(const struct instance *in, const struct profiles *pf)
{
	const struct locus_workload *wl = in->wl;
	const struct locus_graph *g = in->g;
	size_t n = g->n_tasks;
	double need = 0, *end = malloc(n * sizeof *end);
	if (!end)
		die("out of memory", NULL);
	double cp = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t t = g->topo[k];
		double least = INFINITY, ready = 0, best = INFINITY;
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
			if (end[g->preds[e].task] > ready)
				ready = end[g->preds[e].task];
		for (uint32_t p = 0; p < PROCS; p++) {
			double c = locus_workload_cost(wl, t, p);
			if (c < least)
				least = c;
			double f = profile_end(&pf->avail[p], ready, c);
			if (f < best)
				best = f;
		}
		need += least;
		end[t] = best;
		if (best > cp)
			cp = best;
	}
	free(end);
	/* The work bound by bisection: delivered work grows with T. */
	double lo = 0, hi = 1;
	for (;;) {
		double can = 0;
		for (uint32_t p = 0; p < PROCS; p++)
			can += profile_work(&pf->avail[p], hi);
		if (can >= need)
			break;
		lo = hi;
		hi *= 2;
	}
	for (int it = 0; it < 100 && hi - lo > 1e-12 * hi; it++) {
		double mid = (lo + hi) / 2, can = 0;
		for (uint32_t p = 0; p < PROCS; p++)
			can += profile_work(&pf->avail[p], mid);
		if (can >= need)
			hi = mid;
		else
			lo = mid;
	}
	return hi > cp ? hi : cp;
}

/* HEFT without insertion, planned knowing the scenario: each task's
 * compute follows its processor's availability over time, each transfer
 * its link's bandwidth (contention-free, as the runs). The makespan a
 * static schedule reaches with perfect foresight of the scenario. */
static double oracle_makespan(const struct instance *in, const struct profiles *pf)
{
	const struct locus_workload *wl = in->wl;
	const struct locus_graph *g = in->g;
	size_t n = g->n_tasks, np = PROCS;
	double *rank = malloc(n * sizeof *rank), *eft = malloc(n * sizeof *eft), pa[PROCS] = {0};
	uint32_t *proc = malloc(n * sizeof *proc);
	struct rank_order {
		double r;
		uint32_t topo, t;
	} *ord = malloc(n * sizeof *ord);
	if (!rank || !eft || !proc || !ord || locus_dag_upward_rank(wl, rank))
		die("oracle", NULL);
	for (uint32_t k = 0; k < n; k++)
		ord[k] = (struct rank_order){rank[g->topo[k]], k, g->topo[k]};
	for (size_t i = 1; i < n; i++) /* by rank, then topological order */
		for (size_t j = i;
		     j > 0 && (ord[j].r > ord[j - 1].r ||
			       (ord[j].r == ord[j - 1].r && ord[j].topo < ord[j - 1].topo));
		     j--) {
			struct rank_order x = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = x;
		}
	double makespan = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t t = ord[k].t, best_p = 0;
		double best = INFINITY;
		for (uint32_t p = 0; p < np; p++) {
			double da = 0;
			for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++) {
				uint32_t u = g->preds[e].task;
				double r = eft[u];
				if (proc[u] != p)
					r = profile_end(&pf->link[proc[u] * np + p],
							r + in->p->latency,
							(double)g->preds[e].bytes / in->p->link_bw);
				if (r > da)
					da = r;
			}
			double est = da > pa[p] ? da : pa[p];
			double f = profile_end(&pf->avail[p], est, locus_workload_cost(wl, t, p));
			if (f < best) {
				best = f;
				best_p = p;
			}
		}
		proc[t] = best_p;
		eft[t] = best;
		pa[best_p] = best;
		if (best > makespan)
			makespan = best;
	}
	free(rank);
	free(eft);
	free(proc);
	free(ord);
	return makespan;
}

/* How much of the gap between static HEFT and the clairvoyant one each
 * reactive method closes. */
static void oracle(void)
{
	static const char *const pols[] = {"heft", "gtp", "gtp-c", "gtp-c", "dls-sr"};
	static const char *const opts[] = {"insertion=0", "on=none", "on=none", NULL, NULL};
	size_t graphs = quick ? 2 : 4, scen = quick ? 3 : 8;
	printf("\n## oracle: SCE10-300, CCR 0.5, against HEFT planned knowing the scenario "
	       "and a lower bound under it (%zu graphs x %zu scenarios a point)\n\n",
	       graphs, scen);
	printf("| bound | lower bound | HEFT | clairvoyant HEFT | GTP | GTP/c | GTP/c on changes | "
	       "DLS/sr | gap closed: GTP, GTP/c, on changes, DLS/sr | over the lower bound: "
	       "HEFT, clairvoyant, on changes, DLS/sr |\n"
	       "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	struct instance in[8];
	for (size_t gi = 0; gi < graphs; gi++)
		instance_make(&in[gi], 300, 0.5, 100 + gi);
	for (int b = 0; b <= 8; b += 2) {
		double sum[5] = {0}, orc = 0, low = 0;
		for (size_t gi = 0; gi < graphs; gi++)
			for (size_t si = 0; si < scen; si++) {
				size_t n_ch = 0;
				struct locus_change *ch =
				    scenario(&in[gi], b / 10.0, 1000 * gi + si, &n_ch);
				struct profiles pf;
				profiles_make(&pf, ch, n_ch);
				double lower = scenario_lower(&in[gi], &pf),
				       o = oracle_makespan(&in[gi], &pf);
				for (int k = 0; k < 5; k++) {
					struct locus_result *r =
					    go(&in[gi], pols[k], opts[k], ch, n_ch);
					/* A bound that a run beats is no bound. */
					if (r->makespan < lower * (1 - 1e-9) ||
					    o < lower * (1 - 1e-9))
						die("a run beats the scenario's lower bound", NULL);
					sum[k] += r->makespan;
					locus_result_destroy(r);
				}
				orc += o;
				low += lower;
				profiles_fini(&pf);
				free(ch);
			}
		double gap = sum[0] - orc, runs = (double)(graphs * scen);
		printf("| %d %% | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | ", b * 10,
		       low / runs, sum[0] / runs, orc / runs, sum[1] / runs, sum[2] / runs,
		       sum[3] / runs, sum[4] / runs);
		if (gap > 1e-9 * sum[0])
			printf("%.0f %%, %.0f %%, %.0f %%, %.0f %% |",
			       100 * (sum[0] - sum[1]) / gap, 100 * (sum[0] - sum[2]) / gap,
			       100 * (sum[0] - sum[3]) / gap, 100 * (sum[0] - sum[4]) / gap);
		else
			printf("- |");
		printf(" %.2f, %.2f, %.2f, %.2f |\n", sum[0] / low, orc / low, sum[3] / low,
		       sum[4] / low);
		fflush(stdout);
	}
	for (size_t gi = 0; gi < graphs; gi++)
		instance_fini(&in[gi]);
}

/* ---- perf ------------------------------------------------------------------------ */

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The machine's load average over the last minute and its processors
 * online, for the timings' context (-1 when unknown). */
static void machine_load(double *load, long *cpus)
{
	FILE *fp = fopen("/proc/loadavg", "r");
	*load = -1;
	if (fp) {
		if (fscanf(fp, "%lf", load) != 1)
			*load = -1;
		fclose(fp);
	}
	*cpus = sysconf(_SC_NPROCESSORS_ONLN);
}

#define PERF_PROCS 16

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

/* Appends a run's points to *pts: the `points` slowest of its events (a
 * rescheduling point, O(v p), is by far a policy's costliest event; a
 * run's other events take microseconds). */
static void take_points(const struct locus_result *r, size_t points, double **pts, size_t *n,
			size_t *cap)
{
	double *ev = malloc((r->n_policy_events + 1) * sizeof *ev);
	if (!ev)
		die("out of memory", NULL);
	memcpy(ev, r->policy_event_times, r->n_policy_events * sizeof *ev);
	qsort(ev, r->n_policy_events, sizeof *ev, cmp_desc);
	if (points > r->n_policy_events)
		points = r->n_policy_events;
	if (*n + points > *cap) {
		*cap = 2 * (*n + points);
		*pts = realloc(*pts, *cap * sizeof **pts);
		if (!*pts)
			die("out of memory", NULL);
	}
	memcpy(*pts + *n, ev, points * sizeof *ev);
	*n += points;
	free(ev);
}

/* The p-quantile of v[0..n) (sorted here), by the nearest rank. */
static double quantile(double *v, size_t n, double p)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, cmp_desc);
	size_t k = (size_t)ceil((1 - p) * (double)n);
	return v[k ? k - 1 : 0];
}

/* What a rescheduling point costs on 1,000-task graphs and 16 processors,
 * in the CPU time of the simulator's thread (the engine reads its thread's
 * CPU clock around each of the policy's calls: time_policy), so that the
 * machine's load does not count: a point's mean, 99th percentile and
 * longest over every run (a run's points are its `resched_points` slowest
 * events); the first plan, made when the policy is created; and how long
 * the 1,000-task, 90 % point of the experiments takes with every policy
 * and scenario (wall clock). */
static void perf(void)
{
	static const double ccrs[] = {0.1, 0.5, 1.5};
	static const char *const pols[] = {"heft", "gtp", "gtp-c", "dls-sr", "gtp-r", "gtp-c-r"};
	static const char *const opts[] = {"insertion=0", "on=none", "on=none",
					   NULL,	  "on=none", "on=none"};
	enum { N_POL = sizeof pols / sizeof pols[0] };
	size_t graphs = quick ? 1 : 2, scen = quick ? 2 : 5;
	printf("\n## perf: 1,000 tasks on %d processors, bound 90 %%, %zu graphs x %zu "
	       "scenarios a CCR (GTP/r and GTP/c/r with one processor failing, as fig5)\n\n",
	       PERF_PROCS, graphs, scen);
	printf("| CCR | policy | rescheduling points a run | a point, mean (ms CPU) | a point, "
	       "99th percentile (ms CPU) | longest event (ms CPU) | first plan, mean (ms CPU) "
	       "| the runs (s, wall) |\n"
	       "|---:|---|---:|---:|---:|---:|---:|---:|\n");
	double load0, load1;
	long cpus;
	machine_load(&load0, &cpus);
	time_policy = 2; /* the thread's CPU time */
	double t_all = now_seconds();
	size_t runs = 0;
	for (size_t c = 0; c < 3; c++) {
		struct instance in[4];
		for (size_t gi = 0; gi < graphs; gi++) {
			instance_make_on(&in[gi], 1000, ccrs[c], 200 + gi, PERF_PROCS);
			struct locus_result *h = go(&in[gi], "heft", "insertion=0", NULL, 0);
			in[gi].heft_makespan = h->makespan;
			locus_result_destroy(h);
		}
		for (size_t p = 0; p < N_POL; p++) {
			double points = 0, longest = 0, first = 0, wall = 0;
			double *pts = NULL;
			size_t n_pts = 0, pts_cap = 0;
			for (size_t gi = 0; gi < graphs; gi++)
				for (size_t si = 0; si < scen; si++) {
					size_t n_ch = 0;
					struct locus_change *var =
					    scenario(&in[gi], 0.9, 1000 * gi + si, &n_ch);
					struct locus_change *ch =
					    p >= 4 ? with_failure(&in[gi], var, n_ch,
								  7000 + 100 * gi + si, &n_ch)
						   : var;
					double t0 = now_seconds();
					struct locus_result *r =
					    go(&in[gi], pols[p], opts[p], ch, n_ch);
					wall += now_seconds() - t0;
					runs++;
					if (r->failed)
						die(r->failure, NULL);
					uint64_t k = repro_counter(r, "resched_points");
					points += (double)k;
					take_points(r, (size_t)k, &pts, &n_pts, &pts_cap);
					first += r->policy_create_seconds;
					if (r->policy_event_max > longest)
						longest = r->policy_event_max;
					locus_result_destroy(r);
					if (ch != var)
						free(ch);
					free(var);
				}
			double n_runs = (double)(graphs * scen);
			printf("| %.1f | %s | %.1f | ", ccrs[c], pols[p], points / n_runs);
			if (n_pts) {
				double sum = 0;
				for (size_t i = 0; i < n_pts; i++)
					sum += pts[i];
				printf("%.3f | %.3f", 1e3 * sum / (double)n_pts,
				       1e3 * quantile(pts, n_pts, 0.99));
			} else {
				printf("- | -");
			}
			printf(" | %.3f | %.3f | %.2f |\n", 1e3 * longest, 1e3 * first / n_runs,
			       wall);
			free(pts);
			fflush(stdout);
		}
		for (size_t gi = 0; gi < graphs; gi++)
			instance_fini(&in[gi]);
	}
	time_policy = 0;
	double t_end = now_seconds();
	machine_load(&load1, &cpus);
	printf("\nAll %zu runs: %.1f s; %ld processors online, load average %.2f before and "
	       "%.2f after\n",
	       runs, t_end - t_all, cpus, load0, load1);
}

/* ---- period (beyond the paper) ----------------------------------------------------- */

/* GTP/c's NSL against its rescheduling period (a fraction of HEFT's
 * planned makespan) and against rescheduling on events instead. */
static void period(void)
{
	static const double fractions[] = {0.025, 0.05, 0.1, 0.2, 0.5};
	static const int bounds[] = {4, 8};
	size_t graphs = quick ? 2 : 4, scen = quick ? 3 : 8;
	printf("\n## period: GTP/c on SCE10-300, CCR 0.5, NSL over HEFT's against the "
	       "rescheduling period (%zu graphs x %zu scenarios a cell)\n\n",
	       graphs, scen);
	printf("| bound | 1/40 | 1/20 | 1/10 | 1/5 | 1/2 | on speed changes only | 1/10 "
	       "and on speed changes (default) |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	struct instance in[8];
	double planned[8];
	for (size_t gi = 0; gi < graphs; gi++) {
		instance_make(&in[gi], 300, 0.5, 100 + gi);
		struct locus_result *h = go(&in[gi], "heft", "insertion=0", NULL, 0);
		planned[gi] = h->pstats.planned_makespan;
		locus_result_destroy(h);
	}
	for (size_t bi = 0; bi < 2; bi++) {
		double heft = 0, sum[7] = {0};
		for (size_t gi = 0; gi < graphs; gi++)
			for (size_t si = 0; si < scen; si++) {
				size_t n_ch = 0;
				struct locus_change *ch =
				    scenario(&in[gi], bounds[bi] / 10.0, 1000 * gi + si, &n_ch);
				struct locus_result *r =
				    go(&in[gi], "heft", "insertion=0", ch, n_ch);
				heft += r->nsl;
				locus_result_destroy(r);
				for (size_t k = 0; k < 7; k++) {
					char opts[96];
					if (k < 5)
						snprintf(opts, sizeof opts, "period=%.17g,on=none",
							 planned[gi] * fractions[k]);
					else if (k == 5)
						snprintf(opts, sizeof opts, "period=%.17g,on=speed",
							 planned[gi] * 100);
					else
						snprintf(opts, sizeof opts, "period=%.17g,on=speed",
							 planned[gi] / 10);
					r = go(&in[gi], "gtp-c", opts, ch, n_ch);
					sum[k] += r->nsl;
					locus_result_destroy(r);
				}
				free(ch);
			}
		printf("| %d %% |", bounds[bi] * 10);
		for (size_t k = 0; k < 7; k++)
			printf(" %.3f |", sum[k] / heft);
		printf("\n");
		fflush(stdout);
	}
	for (size_t gi = 0; gi < graphs; gi++)
		instance_fini(&in[gi]);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} all[] = {{"fig4", fig4},     {"sizes", sizes},   {"fig5", fig5},
		   {"period", period}, {"oracle", oracle}, {"perf", perf}};
	int any = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
			out_dir = argv[++i];
		} else if (strcmp(argv[i], "--quick") == 0) {
			quick = 1;
		} else if (strcmp(argv[i], "--rate") == 0 && i + 1 < argc) {
			rate_div = strtod(argv[++i], NULL);
			if (!(rate_div > 0) || rate_div > 1e6) {
				fprintf(stderr, "repro_gtp: --rate takes a number in (0, 1e6]\n");
				return 2;
			}
		} else {
			int found = 0;
			for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
				found |= strcmp(argv[i], all[k].name) == 0;
			if (!found) {
				fprintf(stderr, "usage: repro_gtp [--out DIR] [--quick] [--rate D] "
						"[fig4|sizes|fig5|period|oracle|perf]...\n");
				return 2;
			}
		}
	}
	for (int i = 1; i < argc; i++)
		for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
			if (strcmp(argv[i], all[k].name) == 0) {
				all[k].fn();
				any = 1;
			}
	if (!any)
		for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
			all[k].fn();
	return 0;
}
