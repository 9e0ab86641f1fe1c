/*
 * UMR and PTUMR plans (locus/divisible.h): the grouping of the workers into
 * virtual workers (Eq. 1-6), then the rounds (Eq. 7-9, Appendix A) from
 * eval.c, and the search over lambda or the group size.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "divisible/model.h"

void locus_divisible_options_init(struct locus_divisible_options *o)
{
	memset(o, 0, sizeof *o);
	o->version = LOCUS_DIVISIBLE_OPTIONS_VERSION;
	o->method = LOCUS_DIVISIBLE_PTUMR;
	o->gt = 1;
	o->lambda = 10;
	o->mu = 1.5;
}

int locus_divisible_method_parse(const char *name, struct locus_divisible_options *o)
{
	if (strcmp(name, "umr") == 0) {
		o->method = LOCUS_DIVISIBLE_UMR;
		o->gt = 0;
	} else if (strcmp(name, "ptumr") == 0) {
		o->method = LOCUS_DIVISIBLE_PTUMR;
		o->gt = 1;
	} else if (strcmp(name, "ptumr-nogt") == 0) {
		o->method = LOCUS_DIVISIBLE_PTUMR;
		o->gt = 0;
	} else {
		return LOCUS_EINVAL;
	}
	return 0;
}

const char *locus_divisible_method_name(const struct locus_divisible_options *o)
{
	if (o->method == LOCUS_DIVISIBLE_UMR)
		return "umr";
	return o->gt ? "ptumr" : "ptumr-nogt";
}

void locus_divisible_plan_destroy(struct locus_divisible_plan *p)
{
	if (!p)
		return;
	free(p->workers);
	free(p->order);
	free(p->rate);
	free(p->group_of);
	free(p->groups);
	free(p->chunk);
	free(p);
}

/* The sort key of worker i: r_i = s_i / min(b0, b_i) (Sect. 3.2 step 1). */
static double r_of(const struct locus_divisible_plan *p, size_t i)
{
	const struct locus_divisible_worker *w = &p->workers[i];
	return w->s / (w->b < p->b0 ? w->b : p->b0);
}

struct keyed {
	double r;
	size_t i;
};

static int by_r(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->r != y->r)
		return x->r < y->r ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int by_R(const void *a, const void *b)
{
	const struct locus_divisible_group *x = a, *y = b;
	if (x->R != y->R)
		return x->R < y->R ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Members of the group starting at order[pos] (Eq. 4, Eq. 5). */
static size_t group_size(const struct locus_divisible_plan *p, size_t pos)
{
	size_t left = p->n_workers - pos;
	const struct locus_divisible_options *o = &p->opt;
	if (o->group_size)
		return o->group_size < left ? o->group_size : left;
	if (o->method == LOCUS_DIVISIBLE_UMR)
		return 1;
	/* Eq. 4: as many as the master's link can feed at their own b, plus
	 * lambda, at least one. */
	size_t m = 0;
	double sum = 0;
	while (m < left) {
		sum += p->workers[p->order[pos + m]].b;
		if (sum > p->b0 * (1 + 1e-12))
			break;
		m++;
	}
	long want = (long)m + o->lambda;
	if (want < 1)
		want = 1;
	if ((size_t)want < left)
		left = (size_t)want;
	if (!o->gt)
		return left;
	/* Eq. 5, read sequentially: stop at the first worker whose r exceeds
	 * mu times the mean r of the group so far. */
	size_t n = 1;
	double rsum = r_of(p, p->order[pos]);
	while (n < left) {
		double r = r_of(p, p->order[pos + n]);
		if (r > o->mu * rsum / (double)n)
			break;
		rsum += r;
		n++;
	}
	return n;
}

/* Forms the groups and picks N_v (Eq. 1-6). */
static int form_groups(struct locus_divisible_plan *p)
{
	size_t n = p->n_workers;
	struct keyed *key = locus__calloc(n, sizeof *key);
	p->groups = locus__calloc(n, sizeof *p->groups);
	if (!key || !p->groups) {
		free(key);
		return LOCUS_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		key[i] = (struct keyed){r_of(p, i), i};
	qsort(key, n, sizeof *key, by_r);
	for (size_t i = 0; i < n; i++)
		p->order[i] = key[i].i;
	free(key);
	size_t ng = 0;
	for (size_t pos = 0; pos < n;) {
		size_t m = group_size(p, pos);
		struct locus_divisible_group *g = &p->groups[ng++];
		g->first = pos;
		g->count = m;
		double S = 0, rho_link = 0;
		for (size_t t = pos; t < pos + m; t++) {
			const struct locus_divisible_worker *w = &p->workers[p->order[t]];
			S += w->s;
			if (w->s / w->b > rho_link)
				rho_link = w->s / w->b;
			if (w->delta > g->Delta)
				g->Delta = w->delta;
			if (w->eps > g->E)
				g->E = w->eps;
		}
		/* Eq. 2: the least rho = s_i / b'_i that no link exceeds. */
		double rho = S / p->b0 > rho_link ? S / p->b0 : rho_link;
		g->S = S;
		g->B = S / rho;
		g->R = rho;
		pos += m;
	}
	p->n_groups = ng;
	qsort(p->groups, ng, sizeof *p->groups, by_R);
	/* Eq. 6, with a tolerance on the comparison with 1. */
	size_t nv = 1;
	double sum = p->groups[0].R;
	if (sum < 1 - LOCUS__DL_RTOL) {
		while (nv < ng && sum + p->groups[nv].R < 1 - LOCUS__DL_RTOL)
			sum += p->groups[nv++].R;
	}
	p->n_used = nv;
	for (size_t i = 0; i < n; i++)
		p->group_of[i] = -1;
	for (size_t k = 0; k < nv; k++) {
		const struct locus_divisible_group *g = &p->groups[k];
		for (size_t t = g->first; t < g->first + g->count; t++) {
			size_t i = p->order[t];
			p->group_of[i] = (int32_t)k;
			p->rate[i] = p->workers[i].s / g->R;
		}
	}
	return 0;
}

static int check_input(double W, double b0, const struct locus_divisible_worker *w, size_t n,
		       const struct locus_divisible_options *opt, struct locus_error *err)
{
	if (!(W > 0) || !isfinite(W))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "the workload W must be a positive number, got %g", W);
	if (!(b0 > 0) || !isfinite(b0))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "the master's bandwidth b0 must be a positive number, got %g",
				  b0);
	if (n == 0 || !w)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no workers");
	if (n > (size_t)INT32_MAX)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "too many workers (%zu)", n);
	if (opt->method == LOCUS_DIVISIBLE_PTUMR && opt->gt && !(opt->mu > 0))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "the Grouping Threshold mu must be positive, got %g", opt->mu);
	if (opt->rounds > LOCUS__DL_MAX_ROUNDS)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "at most %d rounds, got %zu",
				  LOCUS__DL_MAX_ROUNDS, opt->rounds);
	if (W < LOCUS__DL_MIN_VALUE || W > LOCUS__DL_MAX_VALUE || b0 > LOCUS__DL_MAX_VALUE ||
	    b0 < LOCUS__DL_MIN_VALUE)
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
				  "W and b0 must lie in [%g, %g], got W=%g b0=%g",
				  LOCUS__DL_MIN_VALUE, LOCUS__DL_MAX_VALUE, W, b0);
	for (size_t i = 0; i < n; i++) {
		const struct locus_divisible_worker *x = &w[i];
		if (!(x->s > 0) || !isfinite(x->s) || !(x->b > 0) || !isfinite(x->b))
			return locus__err(
			    err, LOCUS_EINVAL, NULL, 0, 0,
			    "worker %zu: s and b must be positive numbers, got s=%g b=%g", i, x->s,
			    x->b);
		if (!(x->delta >= 0) || !isfinite(x->delta) || !(x->eps >= 0) || !isfinite(x->eps))
			return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
					  "worker %zu: delta and eps must be non-negative numbers, "
					  "got delta=%g eps=%g",
					  i, x->delta, x->eps);
		if (x->s < LOCUS__DL_MIN_VALUE || x->s > LOCUS__DL_MAX_VALUE ||
		    x->b < LOCUS__DL_MIN_VALUE || x->b > LOCUS__DL_MAX_VALUE ||
		    x->delta > LOCUS__DL_MAX_VALUE || x->eps > LOCUS__DL_MAX_VALUE)
			return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
					  "worker %zu: values must lie in [%g, %g] (0 allowed for "
					  "delta and eps), got s=%g b=%g delta=%g eps=%g",
					  i, LOCUS__DL_MIN_VALUE, LOCUS__DL_MAX_VALUE, x->s, x->b,
					  x->delta, x->eps);
	}
	return 0;
}

/* Picks M (M+ from the four neighbours of M*, or opt.rounds) and fills the
 * chunks and times. */
static int pick_rounds(struct locus_divisible_plan *p)
{
	struct locus__divisible_model m;
	int rc = locus__divisible_model_init(&m, p);
	if (rc)
		return rc;
	size_t K = p->n_used;
	double *scratch = locus__calloc(2 * K, sizeof *scratch);
	if (!scratch) {
		locus__divisible_model_fini(&m);
		return LOCUS_ENOMEM;
	}
	p->theta = m.theta;
	p->gamma = fabs(1 - m.theta) < 1e-12 ? INFINITY : m.c / (1 - m.theta);
	p->m_star = locus__divisible_m_star(&m, p->W);
	size_t M = p->opt.rounds;
	if (!M) {
		double f = floor(p->m_star), c = ceil(p->m_star);
		double tries[4] = {f - 1, f, c, c + 1};
		if (c == f)
			tries[2] = f + 1, tries[3] = f + 2;
		double best = INFINITY;
		p->n_cand = 0;
		for (int i = 0; i < 4; i++) {
			size_t t = tries[i] < 1 ? 1 : (size_t)tries[i];
			if (t > LOCUS__DL_MAX_ROUNDS)
				t = LOCUS__DL_MAX_ROUNDS;
			/* Clamped to 1 or to the cap, two tries can be one M:
			 * each is listed once. */
			if (p->n_cand && p->cand[p->n_cand - 1].rounds == t)
				continue;
			struct locus_divisible_candidate *cd = &p->cand[p->n_cand++];
			cd->rounds = t;
			cd->t_real = locus__divisible_t_real(&m, p, t, NULL, scratch);
			cd->infeasible = isfinite(cd->t_real)
					     ? NULL
					     : "a round before the last would need a chunk that is "
					       "not positive";
			if (cd->t_real < best) {
				best = cd->t_real;
				M = t;
			}
		}
		if (!M) {
			/* No neighbour is feasible: the largest M below them
			 * that is (M = 1 always is). */
			p->fallback = 1;
			size_t t = p->cand[0].rounds;
			while (t > 1 &&
			       !isfinite(locus__divisible_t_real(&m, p, t - 1, NULL, scratch)))
				t--;
			M = t > 1 ? t - 1 : 1;
		}
	}
	p->rounds = M;
	p->chunk = locus__calloc(M * K, sizeof *p->chunk);
	if (!p->chunk) {
		free(scratch);
		locus__divisible_model_fini(&m);
		return LOCUS_ENOMEM;
	}
	p->t_real = locus__divisible_t_real(&m, p, M, p->chunk, scratch);
	p->t_ideal = locus__divisible_t_ideal(&m, p->W, (double)M);
	free(scratch);
	locus__divisible_model_fini(&m);
	return 0;
}

int locus_divisible_plan_create(struct locus_divisible_plan **out, double W, double b0,
				const struct locus_divisible_worker *workers, size_t n,
				const struct locus_divisible_options *opt, struct locus_error *err)
{
	*out = NULL;
	struct locus_divisible_options def;
	if (!opt) {
		locus_divisible_options_init(&def);
		opt = &def;
	}
	int rc = locus__check_version(opt->version, LOCUS_DIVISIBLE_OPTIONS_VERSION,
				      "locus_divisible_options", err);
	if (!rc)
		rc = check_input(W, b0, workers, n, opt, err);
	if (rc)
		return rc;
	struct locus_divisible_plan *p = locus__calloc(1, sizeof *p);
	if (!p)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	p->opt = *opt;
	p->W = W;
	p->b0 = b0;
	p->n_workers = n;
	p->workers = locus__calloc(n, sizeof *p->workers);
	p->order = locus__calloc(n, sizeof *p->order);
	p->rate = locus__calloc(n, sizeof *p->rate);
	p->group_of = locus__calloc(n, sizeof *p->group_of);
	if (!p->workers || !p->order || !p->rate || !p->group_of) {
		locus_divisible_plan_destroy(p);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	memcpy(p->workers, workers, n * sizeof *workers);
	double s_all = 0;
	for (size_t i = 0; i < n; i++)
		s_all += workers[i].s;
	p->t_bound = W / s_all;
	rc = form_groups(p);
	if (!rc)
		rc = pick_rounds(p);
	if (rc) {
		locus_divisible_plan_destroy(p);
		return locus__err(err, rc, NULL, 0, 0, "out of memory");
	}
	if (!isfinite(p->t_real)) {
		/* Only a given M can be infeasible: M+ never is. */
		size_t M = p->rounds;
		locus_divisible_plan_destroy(p);
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
				  "with %zu rounds some chunk would be negative or empty (the "
				  "first round is too small for the overheads, or theta^M "
				  "overflows): ask for fewer rounds",
				  M);
	}
	*out = p;
	return 0;
}

double locus_divisible_group_chunk(const struct locus_divisible_plan *p, size_t j, size_t k)
{
	if (j >= p->rounds || k >= p->n_used)
		return 0;
	return p->chunk[j * p->n_used + k];
}

double locus_divisible_worker_chunk(const struct locus_divisible_plan *p, size_t j, size_t i)
{
	if (i >= p->n_workers || p->group_of[i] < 0)
		return 0;
	size_t k = (size_t)p->group_of[i];
	return locus_divisible_group_chunk(p, j, k) * p->workers[i].s / p->groups[k].S;
}

double locus_divisible_t_ideal(const struct locus_divisible_plan *p, double M)
{
	struct locus__divisible_model m;
	if (locus__divisible_model_init(&m, p))
		return NAN;
	double t = locus__divisible_t_ideal(&m, p->W, M);
	locus__divisible_model_fini(&m);
	return t;
}

double locus_divisible_t_real(const struct locus_divisible_plan *p, size_t M, double *chunk)
{
	if (M < 1)
		return INFINITY;
	struct locus__divisible_model m;
	if (locus__divisible_model_init(&m, p))
		return NAN;
	double *scratch = locus__calloc(2 * p->n_used, sizeof *scratch);
	double t = scratch ? locus__divisible_t_real(&m, p, M, chunk, scratch) : NAN;
	free(scratch);
	locus__divisible_model_fini(&m);
	return t;
}

/* Whether every worker has the same s, b, delta and eps. */
static int all_alike(const struct locus_divisible_worker *w, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (w[i].s != w[0].s || w[i].b != w[0].b || w[i].delta != w[0].delta ||
		    w[i].eps != w[0].eps)
			return 0;
	return 1;
}

/* Plans with `value` as the searched parameter; returns its T_real (or
 * INFINITY) and keeps the plan in *keep when it beats *best_t. */
static int try_value(double W, double b0, const struct locus_divisible_worker *w, size_t n,
		     struct locus_divisible_options *o, int by_size, long value, double *best_t,
		     long *best_v, struct locus_error *err)
{
	if (by_size)
		o->group_size = (size_t)value;
	else
		o->lambda = value;
	struct locus_divisible_plan *p;
	int rc = locus_divisible_plan_create(&p, W, b0, w, n, o, err);
	if (rc)
		return rc;
	if (p->t_real < *best_t) {
		*best_t = p->t_real;
		*best_v = value;
	}
	locus_divisible_plan_destroy(p);
	return 0;
}

int locus_divisible_search(struct locus_divisible_plan **plan, struct locus_divisible_options *best,
			   double W, double b0, const struct locus_divisible_worker *workers,
			   size_t n, const struct locus_divisible_options *opt,
			   struct locus_error *err)
{
	if (plan)
		*plan = NULL;
	struct locus_divisible_options o;
	if (opt)
		o = *opt;
	else
		locus_divisible_options_init(&o);
	int rc = locus__check_version(o.version, LOCUS_DIVISIBLE_OPTIONS_VERSION,
				      "locus_divisible_options", err);
	if (!rc)
		rc = check_input(W, b0, workers, n, &o, err);
	if (rc)
		return rc;
	*best = o;
	if (o.method == LOCUS_DIVISIBLE_PTUMR) {
		/* Groups of one size when the workers are alike (Sect. 4), else
		 * lambda (Eq. 4), from the least value up to n. */
		int by_size = o.group_size > 0 || all_alike(workers, n);
		long lo = by_size ? 1 : 0, hi = (long)n;
		/* A grid: every value up to 32, then steps of about 1/8. */
		double best_t = INFINITY;
		long best_v = by_size ? 1 : o.lambda;
		long v = lo;
		long grid[512];
		size_t ng = 0;
		while (v <= hi && ng < LOCUS__ARRAY_LEN(grid)) {
			grid[ng++] = v;
			long step = v < 32 ? 1 : v / 8;
			v += step;
		}
		if (grid[ng - 1] != hi && ng < LOCUS__ARRAY_LEN(grid))
			grid[ng++] = hi;
		size_t at = 0;
		for (size_t g = 0; g < ng; g++) {
			double before = best_t;
			rc = try_value(W, b0, workers, n, &o, by_size, grid[g], &best_t, &best_v,
				       err);
			if (rc)
				return rc;
			if (best_t < before)
				at = g;
		}
		/* Between the best grid point's neighbours: a finer grid of
		 * at most 16 steps, narrowed around its best point, until the
		 * step is 1 (every value when the gap is small). */
		long prev = at > 0 ? grid[at - 1] : grid[0];
		long next_after = at + 1 < ng ? grid[at + 1] : grid[at];
		while (next_after - prev > 1) {
			long step = (next_after - prev) / 16;
			if (step < 1)
				step = 1;
			long around = best_v;
			for (long x = prev + step; x < next_after; x += step) {
				if (x == around)
					continue;
				rc = try_value(W, b0, workers, n, &o, by_size, x, &best_t, &best_v,
					       err);
				if (rc)
					return rc;
			}
			if (step == 1)
				break;
			prev = best_v - step > prev ? best_v - step : prev;
			next_after = best_v + step < next_after ? best_v + step : next_after;
		}
		if (by_size)
			o.group_size = (size_t)best_v;
		else
			o.lambda = best_v;
		*best = o;
	}
	if (plan)
		return locus_divisible_plan_create(plan, W, b0, workers, n, best, err);
	return 0;
}
