/*
 * Divisible workloads: UMR and PTUMR multi-round plans (ptumr.txt, with
 * papers/NOTES.md; derivations in docs/divisible.md).
 *
 * A master holds W units of data behind a link of b0 units/s and sends
 * them out to N workers in M rounds of growing chunks, so that transfers
 * overlap computation. Worker i computes s_i units/s, receives at most b_i
 * units/s, and pays delta_i seconds per chunk computed and eps_i per chunk
 * received. PTUMR groups the workers (Eq. 4, and the Grouping Threshold of
 * Eq. 5), treats each group as one virtual worker (Eq. 1-3) that receives
 * its members' chunks in parallel, keeps the virtual workers the link can
 * feed (Eq. 6), sizes the chunks (Eq. 7-8), and picks the number of rounds
 * M+ that minimises T_real (Appendix A) among the integers around the M*
 * that minimises T_ideal (Eq. 9 corrected). UMR (Yang and Casanova, IPDPS
 * 2003) is the same machinery with one worker per group.
 *
 * The plan is a decision, computed without a clock. locus_divisible_simulate
 * executes it in simulated time (the master's link shared max-min by a
 * group's concurrent transfers); the MPI engine executes it for real
 * (locus scatter).
 */
#ifndef LOCUS_DIVISIBLE_H
#define LOCUS_DIVISIBLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "locus/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One worker: s units/s of computation (> 0), b units/s of link (> 0),
 * delta s of overhead per computation and eps s per transfer (>= 0). */
struct locus_divisible_worker {
	double s, b, delta, eps;
};

enum locus_divisible_method {
	LOCUS_DIVISIBLE_PTUMR = 0, /* groups by Eq. 4 (+ Eq. 5 when gt is set) */
	LOCUS_DIVISIBLE_UMR = 1,   /* one worker per group, sequential transfers */
};

#define LOCUS_DIVISIBLE_OPTIONS_VERSION 1

struct locus_divisible_options {
	/* LOCUS_DIVISIBLE_OPTIONS_VERSION, set by locus_divisible_options_init with the other
	 * defaults; 0 (a struct zeroed by hand) reads as version 1 (docs/formats.md). */
	int version;
	enum locus_divisible_method method;
	int gt;		   /* PTUMR: apply the Grouping Threshold (Eq. 5) */
	long lambda;	   /* PTUMR: workers added to a group by Eq. 4 (paper: 10) */
	double mu;	   /* PTUMR: Grouping Threshold (paper: 1.5) */
	size_t group_size; /* > 0: groups of this many workers in r order
			    * (the homogeneous study of Sect. 4), not Eq. 4-5 */
	size_t rounds;	   /* > 0: use this M instead of M+ */
};

/* The current version and the paper's defaults: PTUMR with GT, lambda
 * 10, mu 1.5. */
void locus_divisible_options_init(struct locus_divisible_options *o);

/* Parses "umr", "ptumr" (with GT) or "ptumr-nogt" into o->method and o->gt.
 * Returns 0 or LOCUS_EINVAL. */
int locus_divisible_method_parse(const char *name, struct locus_divisible_options *o);
/* The name locus_divisible_method_parse reads for o's method and gt. */
const char *locus_divisible_method_name(const struct locus_divisible_options *o);

/* A virtual worker (a group): its members are order[first, first + count)
 * of the plan; Eq. 1-3 give S, B, Delta, E; R = S / B. */
struct locus_divisible_group {
	size_t first, count;
	double S, B, Delta, E, R;
};

/* The rounds tried for M+: M*'s four neighbours, their T_real (INFINITY
 * when a chunk would be negative), and whether any was feasible. */
struct locus_divisible_candidate {
	size_t rounds;
	double t_real; /* INFINITY when infeasible */
	/* Why it is infeasible (a static string), or NULL. */
	const char *infeasible;
};

struct locus_divisible_plan {
	struct locus_divisible_options opt;
	double W, b0;
	size_t n_workers;
	struct locus_divisible_worker *workers; /* copy, n_workers, in the caller's order */
	size_t *order;	   /* n_workers: worker ids by r = s / min(b0, b), grouped */
	double *rate;	   /* n_workers: b'_i (0 for a worker left out) */
	int32_t *group_of; /* n_workers: its virtual worker, or -1 when left out */
	size_t n_groups;   /* groups formed (Eq. 4-5), sorted by R */
	size_t n_used;	   /* N_v: the groups that take part (Eq. 6) */
	struct locus_divisible_group *groups;
	double S_total;	     /* sum of S_k over the used groups */
	double theta, gamma; /* Eq. 8 (gamma with the sign re-derived) */
	double m_star;	     /* the real M minimising T_ideal */
	/* The distinct integers around M* that were tried (n_cand of them,
	 * in increasing order; none when opt.rounds was given). */
	struct locus_divisible_candidate cand[4];
	size_t n_cand;
	int fallback;	/* 1: no candidate was feasible; M is the largest
			 * feasible M below them */
	size_t rounds;	/* M (M+ unless opt.rounds was given) */
	double *chunk;	/* rounds x n_used: C_jk; row rounds-1 is aligned */
	double t_ideal; /* Eq. 9 at M */
	double t_real;	/* Appendix A at M, with the last-chunk alignment */
	double t_bound; /* Eq. 10: W / sum of every worker's s */
};

/* Computes the plan of W units over the n workers. Errors: LOCUS_EINVAL
 * (with a message saying which value) for W <= 0, b0 <= 0, n == 0, a
 * speed or bandwidth <= 0 or an overhead < 0 (or any of them not finite),
 * mu <= 0; LOCUS_ERANGE for a value outside [1e-9, 1e12] (overheads may
 * be 0), or a given M so large that some chunk would be negative;
 * LOCUS_ENOMEM. The caller frees *out with locus_divisible_plan_destroy. */
int locus_divisible_plan_create(struct locus_divisible_plan **out, double W, double b0,
				const struct locus_divisible_worker *workers, size_t n,
				const struct locus_divisible_options *opt, struct locus_error *err);
void locus_divisible_plan_destroy(struct locus_divisible_plan *p);

/* C_jk: the chunk of virtual worker k (0-based, < n_used) in round j. */
double locus_divisible_group_chunk(const struct locus_divisible_plan *p, size_t j, size_t k);
/* c_ji = C_jk s_i / S_k: worker i's chunk in round j (0 when left out). */
double locus_divisible_worker_chunk(const struct locus_divisible_plan *p, size_t j, size_t i);

/* T_ideal of the plan's groups with M rounds (M real, >= 1), Eq. 9 with
 * w_0 = (1 - theta) / (1 - theta^M) (W - M gamma) + gamma. */
double locus_divisible_t_ideal(const struct locus_divisible_plan *p, double M);

/* T_real of the plan's groups with M rounds (Appendix A with the last-chunk
 * alignment); INFINITY when a chunk of rounds 0..M-2 or the last round's
 * total would be negative. `chunk` (M x n_used, may be NULL) gets C_jk. */
double locus_divisible_t_real(const struct locus_divisible_plan *p, size_t M, double *chunk);

/* Generates n workers by Eq. 11: each of s, b, delta, eps uniform in
 * ((1 - sqrt(3) het) mean, (1 + sqrt(3) het) mean), drawn in that order
 * per worker from a generator seeded by `seed`. het in [0, 1/sqrt(3)).
 * Returns 0 or LOCUS_EINVAL. */
int locus_divisible_workers_generate(struct locus_divisible_worker *out, size_t n, double het,
				     const struct locus_divisible_worker *mean, uint64_t seed);

/* Reads a workers file (docs/formats.md, "locus-workers" version 1):
 * *out (caller frees) gets n workers, *b0 the master's bandwidth when the
 * file gives one (else left alone). Errors with file, line and column:
 * LOCUS_EPARSE, LOCUS_EINVAL, LOCUS_ENOENT, LOCUS_EIO, LOCUS_ENOMEM. */
int locus_divisible_workers_load(struct locus_divisible_worker **out, size_t *n, double *b0,
				 const char *path, struct locus_error *err);
/* The same from text in memory (`name` names it in messages). */
int locus_divisible_workers_parse(struct locus_divisible_worker **out, size_t *n, double *b0,
				  const char *text, size_t len, const char *name,
				  struct locus_error *err);

/* Beyond the paper: the lambda (PTUMR) or group size (when the workers are
 * all alike, or opt->group_size > 0) that minimises T_real, found over a
 * coarse grid refined around its best point. *best gets the options with
 * that choice; *plan (may be NULL) the plan. Errors as locus_divisible_plan_create. */
int locus_divisible_search(struct locus_divisible_plan **plan, struct locus_divisible_options *best,
			   double W, double b0, const struct locus_divisible_worker *workers,
			   size_t n, const struct locus_divisible_options *opt,
			   struct locus_error *err);

/* One chunk of an execution: worker i's chunk of round j, `units` large;
 * the master began sending at send_start, the worker had it at recv_end,
 * computed it from comp_start to comp_end. send_end: when the master
 * took the chunk's group as sent (simulated: its last chunk's arrival;
 * measured: the group's sends complete, on the master's clock), after
 * which it starts the next group. */
struct locus_divisible_event {
	uint32_t worker, round, group;
	double units;
	double send_start, recv_end, comp_start, comp_end;
	double send_end;
};

/* An execution of a plan: simulated (locus_divisible_simulate) or measured
 * (locus scatter). Events are in send order. */
struct locus_divisible_run {
	double makespan;
	size_t n_events;
	struct locus_divisible_event *events;
	uint64_t flows;	  /* simulated: flows through the network model */
	double link_busy; /* time the master's link carried data */
};

/* Executes the plan in simulated time: the master sends to the virtual
 * workers one after the other, round after round; a group's transfers run
 * at once as flows over the master's link (b0) and the worker's (b_i),
 * shared max-min and capped at b'_i, each starting eps_i after the group
 * does; the next group starts when the last of them ends. A worker
 * computes its chunks in arrival order, c / s_i + delta_i each. The
 * caller frees *out with locus_divisible_run_destroy. Errors: LOCUS_ENOMEM. */
int locus_divisible_simulate(struct locus_divisible_run **out, const struct locus_divisible_plan *p,
			     struct locus_error *err);
void locus_divisible_run_destroy(struct locus_divisible_run *r);

/* Reports. JSON ("locus-plan" version 1, docs/formats.md): the plan, and
 * `run` (may be NULL) as the execution beside it, with `label` ("simulated"
 * or "measured"). Table: the summary and one line per virtual worker.
 * SVG: the timing chart of `run` (as Fig. 4 of the paper): the master's
 * link, then per worker its transfers and computations, rounds coloured.
 * Return 0 or LOCUS_EIO/LOCUS_ENOMEM. */
int locus_divisible_report_json(const struct locus_divisible_plan *p,
				const struct locus_divisible_run *run, const char *label, FILE *fp);
int locus_divisible_report_table(const struct locus_divisible_plan *p,
				 const struct locus_divisible_run *run, FILE *fp);
int locus_divisible_report_svg(const struct locus_divisible_plan *p,
			       const struct locus_divisible_run *run, FILE *fp);

#ifdef __cplusplus
}
#endif
#endif
