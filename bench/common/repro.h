/*
 * What the benchmarks and reproductions of bench/ share: running a policy
 * on a generated scenario, summarising seeds, and series for charts.
 */
#ifndef LOCUS_BENCH_REPRO_H
#define LOCUS_BENCH_REPRO_H

#include <stddef.h>

#include "locus/locus.h"

/* How one point is run beside its scenario. */
struct repro_run {
	const char *policy;
	const char *opts;  /* policy options, or NULL */
	size_t schedulers; /* 0: the policy's */
	double cost_msg;   /* seconds per message */
	double cost_entry; /* seconds per metadata entry */
	double shared_fs;  /* > 0: reads from a shared file system */
	long *opt_local;   /* when not NULL: the locality optimum */
};

/* Builds the scenario of `spec` with `seed` and runs `run` on it; exits
 * with a message on any error (a benchmark has no one to return to). */
struct locus_result *repro_go(const struct locus_scenario_spec *spec, uint64_t seed,
			      const struct repro_run *run);

/* The value of policy counter `name` in r (0 when it has none). */
uint64_t repro_counter(const struct locus_result *r, const char *name);

/* Mean, least and largest of n values. */
struct repro_stat {
	double mean, lo, hi;
};
struct repro_stat repro_stat(const double *v, size_t n);

/* A series with a band, filled point by point (at most 16). */
struct repro_line {
	double x[16], y[16], lo[16], hi[16];
	size_t n;
};
void repro_line_add(struct repro_line *l, double x, struct repro_stat s);
struct locus_series repro_series(const struct repro_line *l, const char *label, int band,
				 int bound);

/* Saves chart c as DIR/name and says where. */
void repro_save(const struct locus_chart *c, const char *dir, const char *name);

#endif
