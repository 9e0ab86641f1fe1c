/*
 * What the files of src/divisible share: the round model of a plan's used
 * groups (Eq. 7-8) and the evaluation of T_ideal and T_real over it.
 */
#ifndef LOCUS_DIVISIBLE_DL_H
#define LOCUS_DIVISIBLE_DL_H

#include <stddef.h>

#include "locus/divisible.h"

/* Rounds are searched up to this many (T_ideal is scanned over 1..MAX). */
#define LOCUS__DL_MAX_ROUNDS 4096

/* Inputs are refused (LOCUS_ERANGE) outside [MIN, MAX]: sums and ratios
 * of such values stay finite and keep their precision. */
#define LOCUS__DL_MIN_VALUE 1e-9
#define LOCUS__DL_MAX_VALUE 1e12

/* Eq. 6 compares sums of R with 1 to this tolerance: a sum within it of 1
 * is not below 1 (120 * (1/120) must not decide the plan). */
#define LOCUS__DL_RTOL 1e-9

/* The per-group constants of Eq. 7-8 for the plan's used groups, set by
 * locus__divisible_model: alpha_k, beta_k, and the round recurrence
 * w_{j+1} = theta w_j + c (gamma = c / (1 - theta)). */
struct locus__divisible_model {
	double S, D;	      /* sum S_k, sum S_k Delta_k */
	double A;	      /* sum alpha_k / B_k */
	double theta, c;      /* w_{j+1} = theta w_j + c */
	double P, Q;	      /* T_ideal = (W + M D + P + Q w_0(M)) / S */
	double *alpha, *beta; /* n_used each, owned */
};

/* Fills m for p's used groups (p->groups[0..n_used)). Returns 0 or
 * LOCUS_ENOMEM. */
int locus__divisible_model_init(struct locus__divisible_model *m,
				const struct locus_divisible_plan *p);
void locus__divisible_model_fini(struct locus__divisible_model *m);

/* w_0 for M rounds (real M >= 1): the first round's total such that the
 * M totals of the recurrence sum to W. */
double locus__divisible_w0(const struct locus__divisible_model *m, double W, double M);

/* T_ideal for M rounds. */
double locus__divisible_t_ideal(const struct locus__divisible_model *m, double W, double M);

/* T_real for M rounds (Appendix A with the last-chunk alignment); chunk
 * (M x n_used, may be NULL) gets C_jk. INFINITY when infeasible. `scratch`
 * holds 2 n_used doubles. */
double locus__divisible_t_real(const struct locus__divisible_model *m,
			       const struct locus_divisible_plan *p, size_t M, double *chunk,
			       double *scratch);

/* The real M in [1, LOCUS__DL_MAX_ROUNDS] minimising T_ideal over the M
 * whose round totals stay positive. */
double locus__divisible_m_star(const struct locus__divisible_model *m, double W);

#endif
