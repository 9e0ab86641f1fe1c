/* Shared pieces of bench/ (repro.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repro.h"

struct locus_result *repro_go(const struct locus_scenario_spec *spec, uint64_t seed,
			      const struct repro_run *run)
{
	struct locus_scenario_spec sp = *spec;
	struct locus_scenario *sc;
	struct locus_error err = {0};
	struct locus_result *r;
	sp.seed = seed;
	if (locus_scenario_build(&sc, &sp, &err)) {
		fprintf(stderr, "bench: scenario: %s\n", err.message);
		exit(1);
	}
	struct locus_sim_config cfg = {.wl = sc->workload,
				       .policy = locus_policy_find(run->policy),
				       .policy_opts = run->opts,
				       .schedulers = run->schedulers,
				       .seed = seed,
				       .latency = -1,
				       .cost_per_msg = run->cost_msg,
				       .cost_per_entry = run->cost_entry,
				       .shared_fs_bw = run->shared_fs,
				       .no_task_results = 1};
	if (!cfg.policy || locus_sim_run(&r, &cfg, &err)) {
		fprintf(stderr, "bench: %s: %s\n", run->policy, err.message);
		exit(1);
	}
	if (run->opt_local &&
	    locus_bound_locality(sc->workload, NULL, run->opt_local, NULL, &err)) {
		fprintf(stderr, "bench: locality bound: %s\n", err.message);
		exit(1);
	}
	locus_scenario_destroy(sc);
	return r;
}

uint64_t repro_counter(const struct locus_result *r, const char *name)
{
	for (size_t i = 0; i < 8 && r->pstats.counter_names[i]; i++)
		if (strcmp(r->pstats.counter_names[i], name) == 0)
			return r->pstats.counters[i];
	return 0;
}

struct repro_stat repro_stat(const double *v, size_t n)
{
	struct repro_stat s = {0, INFINITY, -INFINITY};
	for (size_t i = 0; i < n; i++) {
		s.mean += v[i] / (double)n;
		if (v[i] < s.lo)
			s.lo = v[i];
		if (v[i] > s.hi)
			s.hi = v[i];
	}
	return s;
}

void repro_line_add(struct repro_line *l, double x, struct repro_stat s)
{
	if (l->n >= sizeof l->x / sizeof l->x[0])
		return;
	l->x[l->n] = x;
	l->y[l->n] = s.mean;
	l->lo[l->n] = s.lo;
	l->hi[l->n] = s.hi;
	l->n++;
}

struct locus_series repro_series(const struct repro_line *l, const char *label, int band, int bound)
{
	struct locus_series s = {.label = label, .n = l->n, .x = l->x, .y = l->y, .bound = bound};
	if (band) {
		s.y_lo = l->lo;
		s.y_hi = l->hi;
	}
	return s;
}

void repro_save(const struct locus_chart *c, const char *dir, const char *name)
{
	char path[1024];
	struct locus_error err = {0};
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (locus_report_chart_save(c, path, &err)) {
		fprintf(stderr, "bench: chart: %s\n", err.message);
		exit(1);
	}
	printf("\n(chart: %s)\n\n", path);
}
