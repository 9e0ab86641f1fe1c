/*
 * PTUMR's experiments (ptumr.txt, Sect. 4-5), reproduced with the planner
 * of locus/divisible.h (docs/results/ptumr.md reads the results):
 *
 *  fig5    homogeneous, W = 1000, N = 100, s = 1, b = 120, delta = 0.5:
 *          T_real against the group size m = 1..100 for b0 in {120, 600}
 *          and eps in {0.1, 0.01, 0.001} (m = 1 is UMR)
 *  fig6    homogeneous (Table 2, eps = 0.01): T_real against N = 10..1000
 *          for UMR and PTUMR (the group size the search finds), b0 in
 *          {120, 600}, with T_bound; also every m from 1 to N, for the
 *          best m and the range of m within 101 % of it (Fig. 7)
 *  fig8    heterogeneity het = 0..0.5, Table 3 means (s 1, b 200, delta
 *          0.1, eps 0.01), b0 = 1000, W = 1000, N = 100, lambda 10, mu
 *          1.5: mean and largest T_real / T_bound of UMR, PTUMR without
 *          and with GT over the instances (seeds 0..99)
 *  fig9    b0 = 200..2000 at het = sqrt(3)/4, W = 1000, mean eps 0.001
 *          and 0.01: mean T_real / T_bound of UMR and PTUMR
 *  fig10   W = 100..10000 at b0 = 1000, het = sqrt(3)/4, the same eps
 *  perf    the time to plan 10,000 heterogeneous workers (umr, ptumr,
 *          ptumr-nogt, and the lambda search), median of several runs
 *
 * Beyond the paper, fig8-fig10 also plan every instance with the lambda
 * that locus_divisible_search finds and print the gain over lambda = 10. On the
 * way, every plan is executed by locus_divisible_simulate: its makespan must
 * equal T_real when each group's members have the same delta, and never
 * exceed it; the counts are printed at the end.
 *
 *   repro_ptumr [--out DIR] [--quick] [fig5|fig6|fig8|fig9|fig10|perf]...
 *
 * (default: all, into docs/results; --quick: 10 instances a point and
 * fewer runs). Instance s of a point uses seed s. Prints a Markdown table
 * per experiment and writes its charts (ptumr-*.svg) into DIR.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "repro.h"

#define MAX_INST 100

static const char *out_dir = "docs/results";
static int n_inst = MAX_INST; /* instances (seeds 0..n_inst-1) a point */
static int quick;

/* Table 2 (homogeneous) and Table 3 (heterogeneous means). */
static const struct locus_divisible_worker table2 = {1, 120, 0.5, 0.01};
static const struct locus_divisible_worker table3 = {1, 200, 0.1, 0.01};
#define HET_HIGH 0.43301270189221932 /* sqrt(3) / 4 */

static void die(const char *what, const struct locus_error *err)
{
	fprintf(stderr, "repro_ptumr: %s: %s\n", what, err->message);
	exit(1);
}

/* ---- the check against the simulator ------------------------------------ */

/* Plans whose simulated makespan disagrees with T_real: the first few are
 * kept, with what reproduces them. */
#define MAX_NOTES 8
static struct {
	size_t plans;	    /* plans simulated */
	size_t equal;	    /* of them, every group's members with one delta */
	size_t mismatch;    /* equal, and |sim - T_real| / T_real > 1e-6 */
	size_t over;	    /* sim > T_real (1 + 1e-9) */
	size_t infinite;    /* T_real not finite */
	double worst_equal; /* largest |sim - T_real| / T_real when equal */
	double least_ratio; /* least sim / T_real among the others */
	double mean_ratio;  /* sum of sim / T_real among the others */
	char notes[MAX_NOTES][200];
	size_t n_notes;
} chk = {.least_ratio = INFINITY};

static void note(const char *fmt, ...)
{
	if (chk.n_notes >= MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(chk.notes[chk.n_notes++], sizeof chk.notes[0], fmt, ap);
	va_end(ap);
}

/* Whether every used group's members have the same delta (the simulator
 * then computes each chunk in exactly the plan's time). */
static int equal_delta(const struct locus_divisible_plan *p)
{
	for (size_t k = 0; k < p->n_used; k++) {
		const struct locus_divisible_group *g = &p->groups[k];
		for (size_t t = g->first; t < g->first + g->count; t++)
			if (p->workers[p->order[t]].delta != g->Delta)
				return 0;
	}
	return 1;
}

/* Simulates p and counts what disagrees; `what` says how to reproduce it. */
static void check(const struct locus_divisible_plan *p, const char *what)
{
	struct locus_error err = {0};
	struct locus_divisible_run *r;
	chk.plans++;
	if (!isfinite(p->t_real)) {
		chk.infinite++;
		note("%s: T_real = %g", what, p->t_real);
		return;
	}
	if (locus_divisible_simulate(&r, p, &err))
		die("simulate", &err);
	double sim = r->makespan, rel = fabs(sim - p->t_real) / p->t_real;
	if (equal_delta(p)) {
		chk.equal++;
		if (rel > chk.worst_equal)
			chk.worst_equal = rel;
		if (rel > 1e-6) {
			chk.mismatch++;
			note("%s: simulated %.9g, T_real %.9g (M %zu, N_v %zu)", what, sim,
			     p->t_real, p->rounds, p->n_used);
		}
	} else {
		chk.least_ratio = fmin(chk.least_ratio, sim / p->t_real);
		chk.mean_ratio += sim / p->t_real;
	}
	if (sim > p->t_real * (1 + 1e-9)) {
		chk.over++;
		note("%s: simulated %.9g > T_real %.9g (M %zu, N_v %zu)", what, sim, p->t_real,
		     p->rounds, p->n_used);
	}
	locus_divisible_run_destroy(r);
}

static void check_report(void)
{
	size_t other = chk.plans - chk.equal - chk.infinite;
	printf("### Check: every plan executed by locus_divisible_simulate\n\n"
	       "| plans | with one delta per group | of them, off T_real by > 1e-6 | largest "
	       "relative difference | simulated > T_real (1 + 1e-9) | T_real not finite | "
	       "others: mean (least) simulated / T_real |\n"
	       "|---:|---:|---:|---:|---:|---:|---|\n");
	printf("| %zu | %zu | %zu | %.1e | %zu | %zu | ", chk.plans, chk.equal, chk.mismatch,
	       chk.worst_equal, chk.over, chk.infinite);
	if (other)
		printf("%.4f (%.4f) |\n\n", chk.mean_ratio / (double)other, chk.least_ratio);
	else
		printf("- |\n\n");
	for (size_t i = 0; i < chk.n_notes; i++)
		printf("- %s\n", chk.notes[i]);
	if (chk.n_notes)
		printf("\n");
}

/* ---- planning ----------------------------------------------------------- */

static struct locus_divisible_plan *plan(double W, double b0,
					 const struct locus_divisible_worker *w, size_t n,
					 const struct locus_divisible_options *o)
{
	struct locus_error err = {0};
	struct locus_divisible_plan *p;
	if (locus_divisible_plan_create(&p, W, b0, w, n, o, &err))
		die("plan", &err);
	return p;
}

static struct locus_divisible_options method(const char *name)
{
	struct locus_divisible_options o;
	locus_divisible_options_init(&o);
	if (locus_divisible_method_parse(name, &o))
		abort();
	return o;
}

/* Plans, checks against the simulator, and returns T_real; *rounds and
 * *used (may be NULL) get M and N_v. */
static double t_real_of(double W, double b0, const struct locus_divisible_worker *w, size_t n,
			const struct locus_divisible_options *o, const char *what, size_t *rounds,
			size_t *used)
{
	struct locus_divisible_plan *p = plan(W, b0, w, n, o);
	check(p, what);
	double t = p->t_real;
	if (rounds)
		*rounds = p->rounds;
	if (used)
		*used = p->n_used;
	locus_divisible_plan_destroy(p);
	return t;
}

static void homogeneous(struct locus_divisible_worker *w, size_t n, double eps)
{
	for (size_t i = 0; i < n; i++) {
		w[i] = table2;
		w[i].eps = eps;
	}
}

/* ---- Fig. 5: T_real against the group size ------------------------------ */

static void fig5(void)
{
	enum { N = 100, NE = 3 };
	static const double b0s[] = {120, 600}, epss[NE] = {0.1, 0.01, 0.001};
	static double t[2][NE][N], x[N], bound[N];
	static size_t rounds[2][NE][N], used[2][NE][N];
	struct locus_divisible_worker w[N];
	const double W = 1000;
	for (int b = 0; b < 2; b++)
		for (int e = 0; e < NE; e++) {
			homogeneous(w, N, epss[e]);
			for (size_t m = 1; m <= N; m++) {
				struct locus_divisible_options o = method("ptumr");
				o.group_size = m;
				char what[160];
				snprintf(what, sizeof what,
					 "fig5: W 1000, N 100, s 1, b 120, delta 0.5, eps %g, b0 "
					 "%g, group_size %zu",
					 epss[e], b0s[b], m);
				t[b][e][m - 1] =
				    t_real_of(W, b0s[b], w, N, &o, what, &rounds[b][e][m - 1],
					      &used[b][e][m - 1]);
			}
		}
	printf("### Fig. 5: T_real against the group size m (W = 1000, N = 100, s = 1, b = "
	       "120, delta = 0.5; T_bound = 10)\n\n"
	       "| m | b0 120, eps 0.1 | b0 120, eps 0.01 | b0 120, eps 0.001 | b0 600, eps 0.1 "
	       "| b0 600, eps 0.01 | b0 600, eps 0.001 |\n"
	       "|---:|---:|---:|---:|---:|---:|---:|\n");
	static const size_t rows[] = {1,  2,  3,  4,  5,  6,  8,  10, 12, 15,
				      20, 25, 30, 40, 50, 60, 70, 80, 90, 100};
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		size_t m = rows[r];
		printf("| %zu |", m);
		for (int b = 0; b < 2; b++)
			for (int e = 0; e < NE; e++)
				printf(" %.3f |", t[b][e][m - 1]);
		printf("\n");
	}
	printf("| best m (T_real, M, N_v) |");
	for (int b = 0; b < 2; b++)
		for (int e = 0; e < NE; e++) {
			size_t best = 0;
			for (size_t m = 1; m < N; m++)
				if (t[b][e][m] < t[b][e][best])
					best = m;
			printf(" %zu (%.3f, %zu, %zu) |", best + 1, t[b][e][best],
			       rounds[b][e][best], used[b][e][best]);
		}
	printf("\n| m = 1 over best |");
	for (int b = 0; b < 2; b++)
		for (int e = 0; e < NE; e++) {
			double best = INFINITY;
			for (size_t m = 0; m < N; m++)
				best = fmin(best, t[b][e][m]);
			printf(" %.2f |", t[b][e][0] / best);
		}
	printf("\n");
	for (size_t m = 0; m < N; m++) {
		x[m] = (double)(m + 1);
		bound[m] = W / N;
	}
	for (int b = 0; b < 2; b++) {
		static const char *const labels[NE] = {"eps = 0.1", "eps = 0.01", "eps = 0.001"};
		struct locus_series s[NE + 1];
		for (int e = 0; e < NE; e++)
			s[e] =
			    (struct locus_series){.label = labels[e], .n = N, .x = x, .y = t[b][e]};
		s[NE] = (struct locus_series){
		    .label = "T_bound", .n = N, .x = x, .y = bound, .bound = 1};
		char title[120];
		snprintf(title, sizeof title,
			 "PTUMR Fig. 5%s: T_real against the group size, b0 = %g", b ? "b" : "a",
			 b0s[b]);
		struct locus_chart c = {.title = title,
					.subtitle =
					    "homogeneous: W = 1000, N = 100, s = 1, b = 120, "
					    "delta = 0.5; m = 1 is UMR",
					.x_label = "workers per virtual worker m",
					.y_label = "T_real (s)",
					.y_zoom = 1,
					.series = s,
					.n_series = NE + 1};
		repro_save(&c, out_dir, b ? "ptumr-fig5b.svg" : "ptumr-fig5a.svg");
	}
}

/* ---- Fig. 6 (and 7): T_real against N ------------------------------------ */

static void fig6(void)
{
	static const size_t ns[] = {10, 20, 30, 50, 70, 100, 200, 300, 500, 700, 1000};
	enum { NN = sizeof ns / sizeof ns[0] };
	static const double b0s[] = {120, 600};
	const double W = 1000, eps = table2.eps;
	struct locus_divisible_worker *w = calloc(1000, sizeof *w);
	double *scan = calloc(1001, sizeof *scan);
	if (!w || !scan)
		abort();
	for (int b = 0; b < 2; b++) {
		static double x[NN], umr[NN], pt[NN], bound[NN], link[NN];
		printf("### Fig. 6 and 7: T_real against N, b0 = %g (W = 1000, s = 1, b = 120, "
		       "delta = 0.5, eps = %g)\n\n"
		       "| N | T_bound | W / b0 | UMR | PTUMR (searched m) | m found | best m of "
		       "1..N | its T_real | searched / best | m within 101 %% of the best (Fig. 7) "
		       "| UMR / PTUMR | PTUMR / T_bound |\n"
		       "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n",
		       b0s[b], eps);
		for (size_t i = 0; i < NN; i++) {
			size_t n = ns[i];
			homogeneous(w, n, eps);
			char what[160];
			snprintf(what, sizeof what,
				 "fig6: W 1000, N %zu, s 1, b 120, delta 0.5, eps %g, b0 %g", n,
				 eps, b0s[b]);
			struct locus_divisible_options o = method("umr");
			char w2[200];
			snprintf(w2, sizeof w2, "%s, umr", what);
			umr[i] = t_real_of(W, b0s[b], w, n, &o, w2, NULL, NULL);
			o = method("ptumr");
			struct locus_divisible_options best;
			struct locus_divisible_plan *p;
			struct locus_error err = {0};
			if (locus_divisible_search(&p, &best, W, b0s[b], w, n, &o, &err))
				die("search", &err);
			snprintf(w2, sizeof w2, "%s, ptumr, searched group_size %zu", what,
				 best.group_size);
			check(p, w2);
			pt[i] = p->t_real;
			locus_divisible_plan_destroy(p);
			/* Every group size: the true best, and Fig. 7's range. */
			size_t arg = 1;
			for (size_t m = 1; m <= n; m++) {
				o.group_size = m;
				struct locus_divisible_plan *q = plan(W, b0s[b], w, n, &o);
				snprintf(w2, sizeof w2, "%s, ptumr, group_size %zu", what, m);
				check(q, w2);
				scan[m] = q->t_real;
				locus_divisible_plan_destroy(q);
				if (scan[m] < scan[arg])
					arg = m;
			}
			size_t lo = 0, hi = 0;
			for (size_t m = 1; m <= n; m++)
				if (scan[m] <= 1.01 * scan[arg]) {
					if (!lo)
						lo = m;
					hi = m;
				}
			x[i] = (double)n;
			bound[i] = W / (double)n;
			link[i] = W / b0s[b];
			printf("| %zu | %.3f | %.3f | %.4f | %.4f | %zu | %zu | %.4f | %.5f | "
			       "%zu-%zu | %.2f | %.3f |\n",
			       n, bound[i], link[i], umr[i], pt[i], best.group_size, arg, scan[arg],
			       pt[i] / scan[arg], lo, hi, umr[i] / pt[i], pt[i] / bound[i]);
		}
		struct locus_series s[] = {
		    {.label = "UMR", .n = NN, .x = x, .y = umr},
		    {.label = "PTUMR (searched m)", .n = NN, .x = x, .y = pt},
		    {.label = "T_bound = W / (N s)", .n = NN, .x = x, .y = bound, .bound = 1},
		    {.label = "W / b0 (the master's link)",
		     .n = NN,
		     .x = x,
		     .y = link,
		     .bound = 1}};
		char title[120];
		snprintf(title, sizeof title, "PTUMR Fig. 6%s: T_real against workers, b0 = %g",
			 b ? "b" : "a", b0s[b]);
		struct locus_chart c = {.title = title,
					.subtitle =
					    "homogeneous: W = 1000, s = 1, b = 120, delta = "
					    "0.5, eps = 0.01",
					.x_label = "workers N",
					.y_label = "T_real (s)",
					.x_log2 = 1,
					.y_log10 = 1,
					.series = s,
					.n_series = 4};
		repro_save(&c, out_dir, b ? "ptumr-fig6b.svg" : "ptumr-fig6a.svg");
	}
	free(w);
	free(scan);
}

/* ---- Fig. 8-10: heterogeneous instances ------------------------------------ */

/* One point of Fig. 8-10: its instances' T_real / T_bound per method, and
 * with the searched lambda. */
enum { UMR, NOGT, GT, SEARCH, NM };
static const char *const mnames[NM] = {"umr", "ptumr-nogt", "ptumr", "ptumr, searched lambda"};

struct point {
	double ratio[NM][MAX_INST];
	double lambda[MAX_INST];
	size_t better; /* instances where the search beats lambda = 10 by > 0.1 % */
	size_t worse;  /* instances where it is worse (must be none) */
};

static void run_point(struct point *pt, double W, double b0, double het, double eps, int nogt,
		      const char *fig)
{
	enum { N = 100 };
	struct locus_divisible_worker w[N], mean = table3;
	mean.eps = eps;
	memset(pt, 0, sizeof *pt);
	for (int s = 0; s < n_inst; s++) {
		if (locus_divisible_workers_generate(w, N, het, &mean, (uint64_t)s))
			abort();
		char what[200];
		for (int k = UMR; k <= GT; k++) {
			if (k == NOGT && !nogt)
				continue;
			struct locus_divisible_options o = method(mnames[k]);
			snprintf(what, sizeof what,
				 "%s: W %g, b0 %g, N 100, het %g, means s 1 b 200 delta 0.1 eps "
				 "%g, seed %d, %s",
				 fig, W, b0, het, eps, s, mnames[k]);
			struct locus_divisible_plan *p = plan(W, b0, w, N, &o);
			check(p, what);
			pt->ratio[k][s] = p->t_real / p->t_bound;
			locus_divisible_plan_destroy(p);
		}
		struct locus_divisible_options o = method("ptumr"), best;
		struct locus_divisible_plan *p;
		struct locus_error err = {0};
		if (locus_divisible_search(&p, &best, W, b0, w, N, &o, &err))
			die("search", &err);
		snprintf(what, sizeof what,
			 "%s: W %g, b0 %g, N 100, het %g, means s 1 b 200 delta 0.1 eps %g, seed "
			 "%d, ptumr, lambda %ld (searched), group_size %zu",
			 fig, W, b0, het, eps, s, best.lambda, best.group_size);
		check(p, what);
		pt->ratio[SEARCH][s] = p->t_real / p->t_bound;
		/* At het = 0 the workers are alike and the search picks a group
		 * size; report it in lambda's place. */
		pt->lambda[s] = best.group_size ? (double)best.group_size : (double)best.lambda;
		if (pt->ratio[SEARCH][s] < pt->ratio[GT][s] * (1 - 1e-3))
			pt->better++;
		if (pt->ratio[SEARCH][s] > pt->ratio[GT][s] * (1 + 1e-12))
			pt->worse++;
		locus_divisible_plan_destroy(p);
	}
}

static struct repro_stat stat_of(const struct point *pt, int k)
{
	return repro_stat(pt->ratio[k], (size_t)n_inst);
}

/* One line of a search table. */
static void search_row(const char *label, const struct point *pt)
{
	double a = stat_of(pt, GT).mean, b = stat_of(pt, SEARCH).mean;
	struct repro_stat l = repro_stat(pt->lambda, (size_t)n_inst);
	printf("| %s | %.4f | %.4f | %.2f %% | %zu / %d | %.1f (%.0f-%.0f) | %zu |\n", label, a, b,
	       100 * (1 - b / a), pt->better, n_inst, l.mean, l.lo, l.hi, pt->worse);
}

static const char search_head[] =
    "| mean T_real / T_bound, lambda = 10 | mean, searched lambda | gain | instances "
    "improved by > 0.1 % | searched lambda, mean (range) | searched worse than lambda = "
    "10 |\n";

static void fig8(void)
{
	enum { NH = 11 };
	static struct point pts[NH];
	static double x[NH], y[6][NH];
	for (int h = 0; h < NH; h++) {
		x[h] = 0.05 * h;
		run_point(&pts[h], 1000, 1000, x[h], table3.eps, 1, "fig8");
	}
	printf("### Fig. 8: T_real / T_bound against heterogeneity (W = 1000, b0 = 1000, N = "
	       "100, lambda = 10, mu = 1.5; %d instances a point)\n\n"
	       "| het | UMR mean | UMR max | PTUMR without GT mean | without GT max | PTUMR "
	       "(GT) mean | PTUMR (GT) max |\n"
	       "|---:|---:|---:|---:|---:|---:|---:|\n",
	       n_inst);
	for (int h = 0; h < NH; h++) {
		struct repro_stat u = stat_of(&pts[h], UMR), n = stat_of(&pts[h], NOGT),
				  g = stat_of(&pts[h], GT);
		y[0][h] = u.mean, y[1][h] = u.hi, y[2][h] = n.mean, y[3][h] = n.hi;
		y[4][h] = g.mean, y[5][h] = g.hi;
		printf("| %.2f | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f |\n", x[h], u.mean, u.hi,
		       n.mean, n.hi, g.mean, g.hi);
	}
	static const char *const labels[6] = {"UMR, mean",
					      "UMR, maximum",
					      "PTUMR without GT, mean",
					      "PTUMR without GT, maximum",
					      "PTUMR (GT), mean",
					      "PTUMR (GT), maximum"};
	struct locus_series s[6];
	for (int k = 0; k < 6; k++)
		s[k] = (struct locus_series){.label = labels[k], .n = NH, .x = x, .y = y[k]};
	char sub[160];
	snprintf(sub, sizeof sub,
		 "W = 1000, b0 = 1000, N = 100, means s 1, b 200, delta 0.1, eps 0.01; "
		 "lambda 10, mu 1.5; %d instances a point",
		 n_inst);
	struct locus_chart c = {.title = "PTUMR Fig. 8: T_real / T_bound against heterogeneity",
				.subtitle = sub,
				.x_label = "heterogeneity het",
				.y_label = "T_real / T_bound",
				.y_zoom = 1,
				.series = s,
				.n_series = 6};
	repro_save(&c, out_dir, "ptumr-fig8.svg");
	printf("#### Fig. 8 points: PTUMR (GT) with the searched lambda (at het = 0 the workers "
	       "are alike and the search picks the group size, shown as lambda)\n\n"
	       "| het ");
	fputs(search_head, stdout);
	printf("|---:|---:|---:|---:|---:|---|---:|\n");
	for (int h = 0; h < NH; h++) {
		char label[32];
		snprintf(label, sizeof label, "%.2f", x[h]);
		search_row(label, &pts[h]);
	}
	printf("\n");
}

/* Fig. 9 and Fig. 10 share their shape: a sweep at het = sqrt(3)/4 for two
 * mean eps. */
static void sweep(const char *fig, const char *xname, const double *xs, size_t nx, int vary_b0)
{
	static const double epss[2] = {0.001, 0.01};
	static struct point pts[2][16];
	static double y[4][16];
	printf("### %s: mean T_real / T_bound against %s (het = sqrt(3)/4, N = 100, %s; %d "
	       "instances a point)\n\n"
	       "| %s | UMR, eps 0.001 | PTUMR, eps 0.001 | UMR, eps 0.01 | PTUMR, eps 0.01 |\n"
	       "|---:|---:|---:|---:|---:|\n",
	       fig, xname, vary_b0 ? "W = 1000" : "b0 = 1000", n_inst, xname);
	for (size_t i = 0; i < nx; i++) {
		for (int e = 0; e < 2; e++) {
			double W = vary_b0 ? 1000 : xs[i], b0 = vary_b0 ? xs[i] : 1000;
			run_point(&pts[e][i], W, b0, HET_HIGH, epss[e], 0, fig);
			y[2 * e][i] = stat_of(&pts[e][i], UMR).mean;
			y[2 * e + 1][i] = stat_of(&pts[e][i], GT).mean;
		}
		printf("| %g | %.4f | %.4f | %.4f | %.4f |\n", xs[i], y[0][i], y[1][i], y[2][i],
		       y[3][i]);
	}
	static const char *const labels[4] = {"UMR, eps 0.001", "PTUMR, eps 0.001", "UMR, eps 0.01",
					      "PTUMR, eps 0.01"};
	struct locus_series s[4];
	for (int k = 0; k < 4; k++)
		s[k] = (struct locus_series){.label = labels[k], .n = nx, .x = xs, .y = y[k]};
	char title[120], file[64], sub[160];
	snprintf(title, sizeof title, "PTUMR %s: T_real / T_bound against %s", fig, xname);
	snprintf(sub, sizeof sub,
		 "het = sqrt(3)/4, %s, N = 100, means s 1, b 200, delta 0.1; lambda 10, mu "
		 "1.5; %d instances a point",
		 vary_b0 ? "W = 1000" : "b0 = 1000", n_inst);
	snprintf(file, sizeof file, "ptumr-fig%s.svg", fig + strlen("Fig. "));
	struct locus_chart c = {.title = title,
				.subtitle = sub,
				.x_label = xname,
				.y_label = "mean T_real / T_bound",
				.x_log2 = !vary_b0,
				.y_zoom = 1,
				.series = s,
				.n_series = 4};
	repro_save(&c, out_dir, file);
	printf("#### %s points: PTUMR with the searched lambda\n\n| %s, mean eps ", fig, xname);
	fputs(search_head, stdout);
	printf("|---|---:|---:|---:|---:|---|---:|\n");
	for (int e = 0; e < 2; e++)
		for (size_t i = 0; i < nx; i++) {
			char label[48];
			snprintf(label, sizeof label, "%g, %g", xs[i], epss[e]);
			search_row(label, &pts[e][i]);
		}
	printf("\n");
}

static void fig9(void)
{
	static const double b0s[] = {200, 400, 600, 800, 1000, 1200, 1400, 1600, 1800, 2000};
	sweep("Fig. 9", "b0", b0s, sizeof b0s / sizeof b0s[0], 1);
}

static void fig10(void)
{
	static const double ws[] = {100, 500, 1000, 5000, 10000};
	sweep("Fig. 10", "W", ws, sizeof ws / sizeof ws[0], 0);
}

/* ---- performance -------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void perf(void)
{
	enum { N = 10000 };
	static const double Ws[] = {1000, 100000};
	const int runs = quick ? 3 : 7;
	const double b0 = 1000;
	struct locus_divisible_worker *w = calloc(N, sizeof *w);
	if (!w || locus_divisible_workers_generate(w, N, HET_HIGH, &table3, 0))
		abort();
	printf("### Performance: planning 10,000 workers (het = sqrt(3)/4, Table 3 means, b0 = "
	       "1000, seed 0); median of %d runs\n\n"
	       "| W | method | median (s) | fastest (s) | slowest (s) | of the 1 s goal | lambda | "
	       "M | N_v | groups | T_real / T_bound |\n"
	       "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
	       runs);
	static const char *const names[] = {"umr", "ptumr", "ptumr-nogt", "ptumr, search"};
	for (size_t iw = 0; iw < sizeof Ws / sizeof Ws[0]; iw++)
		for (int k = 0; k < 4; k++) {
			double t[16], W = Ws[iw];
			struct locus_divisible_plan *keep = NULL;
			struct locus_divisible_options o = method(k == 3 ? "ptumr" : names[k]),
						       best = o;
			for (int r = 0; r < runs; r++) {
				struct locus_error err = {0};
				struct locus_divisible_plan *p;
				double t0 = now();
				if (k == 3) {
					if (locus_divisible_search(&p, &best, W, b0, w, N, &o,
								   &err))
						die("search", &err);
				} else if (locus_divisible_plan_create(&p, W, b0, w, N, &o, &err)) {
					die("plan", &err);
				}
				t[r] = now() - t0;
				locus_divisible_plan_destroy(keep);
				keep = p;
			}
			qsort(t, (size_t)runs, sizeof t[0], by_value);
			double med = t[runs / 2];
			char what[160];
			snprintf(
			    what, sizeof what,
			    "perf: W %g, b0 1000, N 10000, het sqrt(3)/4, Table 3 means, seed 0, "
			    "%s, lambda %ld",
			    W, names[k], best.lambda);
			check(keep, what);
			printf("| %g | %s | %.4f | %.4f | %.4f | %.1f %% | ", W, names[k], med,
			       t[0], t[runs - 1], 100 * med);
			if (k == UMR)
				printf("- ");
			else
				printf("%ld ", best.lambda);
			printf("| %zu | %zu | %zu | %.4f |\n", keep->rounds, keep->n_used,
			       keep->n_groups, keep->t_real / keep->t_bound);
			locus_divisible_plan_destroy(keep);
		}
	printf("\n");
	free(w);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} exps[] = {{"fig5", fig5}, {"fig6", fig6},   {"fig8", fig8},
		    {"fig9", fig9}, {"fig10", fig10}, {"perf", perf}};
	enum { NE = sizeof exps / sizeof exps[0] };
	int want[NE] = {0}, any = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
			out_dir = argv[++i];
			continue;
		}
		if (strcmp(argv[i], "--quick") == 0) {
			quick = 1;
			n_inst = 10;
			continue;
		}
		int found = 0;
		for (int e = 0; e < NE; e++)
			if (!strcmp(argv[i], exps[e].name) ||
			    (!strcmp(argv[i], "fig7") && !strcmp(exps[e].name, "fig6")))
				want[e] = any = found = 1;
		if (!found) {
			fprintf(stderr, "usage: repro_ptumr [--out DIR] [--quick] "
					"[fig5|fig6|fig7|fig8|fig9|fig10|perf]...\n");
			return 2;
		}
	}
	for (int e = 0; e < NE; e++)
		if (!any || want[e]) {
			double t0 = now();
			exps[e].fn();
			fprintf(stderr, "repro_ptumr: %s took %.1f s\n", exps[e].name, now() - t0);
		}
	check_report();
	return 0;
}
