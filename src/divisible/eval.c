/*
 * The round model of a plan and its evaluation: T_ideal (Eq. 9, with w_0
 * as Eq. A.5 writes it), M*, and T_real (Appendix A) with the last-chunk
 * alignment. docs/divisible.md derives every formula used here.
 *
 * Round condition (UMR's, kept by PTUMR): the master sends round j+1 to all
 * used virtual workers while each computes its round-j chunk, and every
 * virtual worker computes a round in the same time. Eq. 7 gives that time
 * as (w_j + D) / S; sending round j+1 takes w_{j+1} A + sum (beta_k / B_k +
 * E_k). Equal, they give w_{j+1} = theta w_j + c with theta = 1 / (S A) and
 * c = (D / S - sum (E_k + beta_k / B_k)) / A. The paper prints +E_k in
 * gamma = c / (1 - theta); the re-derivation gives -E_k (more setup time
 * per transfer leaves less of the round for data), which is also what the
 * homogeneous case reduces to.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"
#include "divisible/model.h"

int locus__divisible_model_init(struct locus__divisible_model *m,
				const struct locus_divisible_plan *p)
{
	size_t K = p->n_used;
	m->alpha = locus__calloc(K ? K : 1, sizeof *m->alpha);
	m->beta = locus__calloc(K ? K : 1, sizeof *m->beta);
	if (!m->alpha || !m->beta) {
		locus__divisible_model_fini(m);
		return LOCUS_ENOMEM;
	}
	double S = 0, D = 0;
	for (size_t k = 0; k < K; k++) {
		S += p->groups[k].S;
		D += p->groups[k].S * p->groups[k].Delta;
	}
	m->S = S;
	m->D = D;
	double A = 0, sum_eb = 0;
	for (size_t k = 0; k < K; k++) {
		const struct locus_divisible_group *g = &p->groups[k];
		m->alpha[k] = g->S / S;
		m->beta[k] = g->S * D / S - g->S * g->Delta;
		A += m->alpha[k] / g->B;
		sum_eb += g->E + m->beta[k] / g->B;
	}
	m->A = A;
	m->theta = 1.0 / (S * A);
	m->c = (D / S - sum_eb) / A;
	/* T_ideal's start offsets: sum_k S_k o_k with o_k = sum_{t<=k}
	 * (C_0t / B_t + E_t) = sum_t Stail_t (alpha_t w_0 + beta_t) / B_t +
	 * Stail_t E_t, Stail_t = sum_{k>=t} S_k. */
	double P = 0, Q = 0, tail = S;
	for (size_t t = 0; t < K; t++) {
		const struct locus_divisible_group *g = &p->groups[t];
		Q += tail * m->alpha[t] / g->B;
		P += tail * (m->beta[t] / g->B + g->E);
		tail -= g->S;
	}
	m->P = P;
	m->Q = Q;
	return 0;
}

void locus__divisible_model_fini(struct locus__divisible_model *m)
{
	free(m->alpha);
	free(m->beta);
	m->alpha = m->beta = NULL;
}

/* G(M) = sum_{j<M} theta^j and H(M) = sum_{j<M} G(j), for real M, stable
 * near theta = 1 (where the closed forms divide 0 by 0). */
static void geo_sums(double theta, double M, double *G, double *H)
{
	double d = theta - 1.0;
	if (fabs(d) < 1e-7) {
		*G = M + d * M * (M - 1) / 2;
		*H = M * (M - 1) / 2 + d * M * (M - 1) * (M - 2) / 6;
		return;
	}
	*G = expm1(M * log(theta)) / d;
	*H = (*G - M) / d;
}

double locus__divisible_w0(const struct locus__divisible_model *m, double W, double M)
{
	double G, H;
	geo_sums(m->theta, M, &G, &H);
	return (W - m->c * H) / G;
}

double locus__divisible_t_ideal(const struct locus__divisible_model *m, double W, double M)
{
	return (W + M * m->D + m->P + m->Q * locus__divisible_w0(m, W, M)) / m->S;
}

/* w_j of M rounds. */
static double w_round(const struct locus__divisible_model *m, double w0, double j)
{
	double G, H;
	geo_sums(m->theta, j, &G, &H);
	return pow(m->theta, j) * w0 + m->c * G;
}

/* Whether the M round totals are all positive (they are monotone in j, so
 * the first and the last tell). */
static int totals_positive(const struct locus__divisible_model *m, double W, double M)
{
	double w0 = locus__divisible_w0(m, W, M);
	return w0 > 0 && w_round(m, w0, M - 1) > 0;
}

double locus__divisible_m_star(const struct locus__divisible_model *m, double W)
{
	/* Scan the integers, then refine around the best by golden section
	 * (T_ideal is smooth in M). */
	size_t best = 1;
	double best_t = locus__divisible_t_ideal(m, W, 1);
	for (size_t M = 2; M <= LOCUS__DL_MAX_ROUNDS; M++) {
		if (!totals_positive(m, W, (double)M))
			continue;
		double t = locus__divisible_t_ideal(m, W, (double)M);
		if (t < best_t) {
			best_t = t;
			best = M;
		}
	}
	double lo = best > 1 ? (double)best - 1 : 1, hi = (double)best + 1;
	if (hi > LOCUS__DL_MAX_ROUNDS) {
		hi = (double)best;
	} else if (!totals_positive(m, W, hi)) {
		/* The real minimiser may lie past the best integer, up to where
		 * the totals stop being positive: find that edge (feasible at
		 * best, not at best + 1) rather than stopping at best. */
		double ok = (double)best, bad = hi;
		for (int it = 0; it < 60 && bad - ok > 1e-12; it++) {
			double mid = (ok + bad) / 2;
			if (totals_positive(m, W, mid))
				ok = mid;
			else
				bad = mid;
		}
		hi = ok;
	}
	const double g = (sqrt(5.0) - 1) / 2;
	double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
	double fa = locus__divisible_t_ideal(m, W, a), fb = locus__divisible_t_ideal(m, W, b);
	for (int it = 0; it < 100 && hi - lo > 1e-10; it++) {
		if (fa <= fb) {
			hi = b;
			b = a;
			fb = fa;
			a = hi - g * (hi - lo);
			fa = locus__divisible_t_ideal(m, W, a);
		} else {
			lo = a;
			a = b;
			fa = fb;
			b = lo + g * (hi - lo);
			fb = locus__divisible_t_ideal(m, W, b);
		}
	}
	double x = (lo + hi) / 2;
	return locus__divisible_t_ideal(m, W, x) <= best_t ? x : (double)best;
}

/* The last round's chunk of virtual worker g, free from `prev`, when the
 * master may start sending it at `a` and all must end by T: the largest
 * it finishes by T if the chunk arrives while g is busy (first form) or
 * after (second form); not clipped at 0. */
static double chunk_by(const struct locus_divisible_group *g, double T, double a, double prev)
{
	double busy = g->S * (T - g->Delta - prev);
	double late = (T - a - g->E - g->Delta) / (1 / g->B + 1 / g->S);
	return busy < late ? busy : late;
}

/* The last round's chunks for a common finishing time T: virtual worker k
 * (free from prev[k], its chunk sent after the master's time `a`) gets the
 * largest chunk it can finish by T, none when that is not positive. The
 * chunks go to out[]; returns their sum. */
static double last_chunks(const struct locus_divisible_plan *p, double T, double a,
			  const double *prev, double *out)
{
	double sum = 0;
	for (size_t k = 0; k < p->n_used; k++) {
		const struct locus_divisible_group *g = &p->groups[k];
		double C = chunk_by(g, T, a, prev[k]);
		if (!(C > 0))
			C = 0;
		else
			a += C / g->B + g->E;
		out[k] = C;
		sum += C;
	}
	return sum;
}

/* Over T in [T1, T2], an upper bound of the chunks' sum f(T), and whether
 * f is linear there (no chunk changes its form: none, busy or late). The
 * master's clock before virtual worker k lies in [alo, ahi]: a chunk
 * grows with T and shrinks with the clock, and the clock after a positive
 * chunk, a + C / B + E, grows with both (the second form's slope in the
 * clock is 1 - S / (S + B) > 0); so the bounds stay tight except where a
 * chunk may or may not be positive, which widens them by E. */
static double chunks_bound(const struct locus_divisible_plan *p, double T1, double T2, double comm,
			   const double *prev, int *linear)
{
	double alo = comm, ahi = comm, fub = 0;
	*linear = 1;
	for (size_t k = 0; k < p->n_used; k++) {
		const struct locus_divisible_group *g = &p->groups[k];
		double chi = chunk_by(g, T2, alo, prev[k]);
		if (!(chi > 0))
			continue; /* none over the whole interval */
		fub += chi;
		double clo = chunk_by(g, T1, ahi, prev[k]);
		double top = chunk_by(g, T2, ahi, prev[k]);
		double h = 1 / g->B + 1 / g->S;
		/* busy - late grows with T and with the clock. */
		double most = g->S * (T2 - g->Delta - prev[k]) - (T2 - ahi - g->E - g->Delta) / h;
		double least = g->S * (T1 - g->Delta - prev[k]) - (T1 - alo - g->E - g->Delta) / h;
		if (!(clo > 0) || (most > 0 && least < 0))
			*linear = 0;
		if (clo > 0)
			alo += clo / g->B + g->E;
		ahi += (top > 0 ? top : 0) / g->B + g->E;
	}
	return fub;
}

/* The smallest common end T at which the last round's chunks hold what is
 * left (at least `left`), the chunks at it in C[]. The sum f(T) is
 * piecewise linear in T but not monotone: when a chunk becomes positive,
 * its E delays every later transfer (a drop), and a busy virtual worker
 * with a slow link can advance the master's clock faster than T (a
 * falling piece); so f = left can have several solutions and a bisection
 * finds one of them. Here an end hi with f(hi) >= left is found by
 * doubling, then [comm, hi] is searched leftmost first, dropping every
 * interval whose upper bound of f stays below left and solving exactly
 * on an interval where f is linear (a resolution of 1e-15 of hi ends the
 * splitting where f has a breakpoint). */
static double smallest_end(const struct locus_divisible_plan *p, double left, double comm,
			   const double *prev, double *C)
{
	double lo = comm;
	for (size_t k = 0; k < p->n_used; k++)
		if (prev[k] > lo)
			lo = prev[k];
	double hi = lo + 1;
	while (last_chunks(p, hi, comm, prev, C) < left) {
		hi = lo + 2 * (hi - lo);
		if (!isfinite(hi))
			return INFINITY;
	}
	double resolution = 1e-15 * hi;
	struct {
		double t1, t2;
	} stack[256];
	size_t n = 0;
	stack[n].t1 = comm, stack[n++].t2 = hi;
	while (n) {
		double t1 = stack[n - 1].t1, t2 = stack[--n].t2;
		int linear;
		if (chunks_bound(p, t1, t2, comm, prev, &linear) < left)
			continue;
		if (linear || t2 - t1 <= resolution || n + 2 > sizeof stack / sizeof *stack) {
			double f1 = last_chunks(p, t1, comm, prev, C);
			if (f1 >= left)
				return t1;
			double f2 = last_chunks(p, t2, comm, prev, C);
			if (f2 < left)
				continue;
			if (!linear)
				return t2;
			double t = t1 + (left - f1) / (f2 - f1) * (t2 - t1);
			return t < t1 ? t1 : t > t2 ? t2 : t;
		}
		double mid = t1 + (t2 - t1) / 2;
		stack[n].t1 = mid, stack[n++].t2 = t2;
		stack[n].t1 = t1, stack[n++].t2 = mid;
	}
	return hi;
}

double locus__divisible_t_real(const struct locus__divisible_model *m,
			       const struct locus_divisible_plan *p, size_t M, double *chunk,
			       double *scratch)
{
	size_t K = p->n_used;
	double *prev = scratch, *C = scratch + K;
	double W = p->W, w0 = locus__divisible_w0(m, W, (double)M);
	double comm = 0, sent = 0;
	for (size_t k = 0; k < K; k++)
		prev[k] = 0;
	/* A first round of nothing (or one lost to overflow, theta^M beyond
	 * the doubles) is no plan. */
	if (M > 1 && !(w0 > 0 && isfinite(w0)))
		return INFINITY;
	/* Rounds 0..M-2 (Fig. A.1, lines 6-14). */
	double w = w0;
	for (size_t j = 0; j + 1 < M; j++) {
		for (size_t k = 0; k < K; k++) {
			const struct locus_divisible_group *g = &p->groups[k];
			double c = m->alpha[k] * w + m->beta[k];
			if (!(c >= 0) || !isfinite(c))
				return INFINITY;
			if (chunk)
				chunk[j * K + k] = c;
			if (c == 0)
				continue;
			sent += c;
			comm += c / g->B + g->E;
			prev[k] = (prev[k] > comm ? prev[k] : comm) + c / g->S + g->Delta;
		}
		w = m->theta * w + m->c;
	}
	/* The last round gets what is left, aligned (lines 16-22). */
	double left = W - sent;
	if (!isfinite(left))
		return INFINITY;
	if (left < 0) {
		if (left < -1e-9 * W)
			return INFINITY;
		left = 0;
	}
	for (size_t k = 0; k < K; k++)
		C[k] = 0;
	if (left > 0) {
		double T = smallest_end(p, left, comm, prev, C);
		if (!isfinite(T))
			return INFINITY;
		/* At T the chunks hold what is left, to rounding: step T up
		 * until they hold it all, then take any excess off the last
		 * ones (a smaller chunk never finishes later). */
		double sum = last_chunks(p, T, comm, prev, C);
		for (int it = 0; it < 64 && sum < left; it++) {
			T += ldexp(DBL_EPSILON, it) * T;
			sum = last_chunks(p, T, comm, prev, C);
		}
		if (!(sum >= left))
			return INFINITY;
		double excess = sum - left;
		for (size_t k = K; k-- > 0 && excess > 0;) {
			double cut = C[k] < excess ? C[k] : excess;
			C[k] -= cut;
			excess -= cut;
		}
	}
	double T = 0;
	for (size_t k = 0; k < K; k++) {
		const struct locus_divisible_group *g = &p->groups[k];
		if (chunk)
			chunk[(M - 1) * K + k] = C[k];
		if (C[k] > 0) {
			comm += C[k] / g->B + g->E;
			prev[k] = (prev[k] > comm ? prev[k] : comm) + C[k] / g->S + g->Delta;
		}
		if (prev[k] > T)
			T = prev[k];
	}
	return T;
}
