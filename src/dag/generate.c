/*
 * Random task graphs in the four families of the STG set's precedence
 * generators (docs/formats.md, "Generated graphs"). Tasks are numbered in
 * a topological order: every edge goes from a lower id (or an earlier
 * layer) to a higher one, so no graph has a cycle. Each task's cost is
 * drawn first, in id order, then the edges, from one generator seeded
 * with spec->seed: the same seed gives the same graph, and the same costs
 * whatever the method.
 *
 *  - sameprob: each pair i < j is an edge with probability
 *    p = 2 mean / (n - 1), drawn by geometric skips over each task's
 *    candidates (time in n + edges, not n^2).
 *  - samepred: task j > 0 takes k distinct predecessors among 0..j-1,
 *    k uniform around mean n / (n - 1) (task 0 has none).
 *  - layrprob: the tasks in `layers` layers of equal size (the first ones
 *    one larger when n does not divide), each pair (i in an earlier
 *    layer, j) an edge with one probability, set so that the expected
 *    mean is `mean`.
 *  - layrpred: each task past the first layer takes k distinct
 *    predecessors from the earlier layers, k uniform around a mean set so
 *    that the overall mean is `mean`.
 *
 * k is "uniform around m": x uniform in [0, 2m), rounded down or up at
 * random so that E[k] = m, at most the candidates there are. The mean is
 * at most (n - 1) / 2, the complete DAG's.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/dag.h"
#include "locus/rng.h"

/* The most edges a graph may be expected to have. */
#define GEN_MAX_EDGES 1e9
/* The largest cost (integers are exact in a double up to 2^53). */
#define GEN_MAX_COST 9007199254740992.0

static const struct {
	const char *name;
	enum locus_dag_gen_method method;
} method_names[] = {
    {"sameprob", LOCUS_DAG_SAMEPROB},
    {"samepred", LOCUS_DAG_SAMEPRED},
    {"layrprob", LOCUS_DAG_LAYRPROB},
    {"layrpred", LOCUS_DAG_LAYRPRED},
};

int locus_dag_gen_method_parse(const char *name, enum locus_dag_gen_method *out)
{
	if (!name || !out)
		return LOCUS_EINVAL;
	for (size_t i = 0; i < LOCUS__ARRAY_LEN(method_names); i++)
		if (strcmp(name, method_names[i].name) == 0) {
			*out = method_names[i].method;
			return 0;
		}
	return LOCUS_EINVAL;
}

struct gen {
	struct locus_graph *g;
	struct locus_rng rng;
	uint32_t *mark; /* by task: 1 + the task whose predecessors it is among */
};

/* Trials before the next success at probability p (0 when p >= 1). */
static double skip(struct gen *s, double p)
{
	if (p >= 1)
		return 0;
	return floor(log1p(-locus_rng_uniform(&s->rng)) / log1p(-p));
}

/* Each of the tasks 0..c-1 a predecessor of j with probability p. */
static int by_probability(struct gen *s, uint32_t j, uint32_t c, double p)
{
	if (!(p > 0))
		return 0;
	double i = -1;
	for (;;) {
		i += 1 + skip(s, p);
		if (!(i < c))
			return 0;
		if (locus_graph_add_edge(s->g, (uint32_t)i, j, 0) < 0)
			return LOCUS_ENOMEM;
	}
}

/* k around m distinct predecessors of j among the tasks 0..c-1 (Floyd's
 * sampling). */
static int by_count(struct gen *s, uint32_t j, uint32_t c, double m)
{
	double x = 2 * m * locus_rng_uniform(&s->rng);
	double kd = floor(x + locus_rng_uniform(&s->rng));
	uint32_t k = kd < c ? (uint32_t)kd : c;
	for (uint32_t r = c - k; r < c; r++) {
		uint32_t t = (uint32_t)locus_rng_below(&s->rng, (uint64_t)r + 1);
		if (s->mark[t] == j + 1)
			t = r;
		s->mark[t] = j + 1;
		if (locus_graph_add_edge(s->g, t, j, 0) < 0)
			return LOCUS_ENOMEM;
	}
	return 0;
}

static int check_spec(const struct locus_dag_gen *spec, struct locus_error *err)
{
	if (spec->method != LOCUS_DAG_SAMEPROB && spec->method != LOCUS_DAG_SAMEPRED &&
	    spec->method != LOCUS_DAG_LAYRPROB && spec->method != LOCUS_DAG_LAYRPRED)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "unknown generator method %d: expected sameprob, samepred, "
				  "layrprob or layrpred",
				  (int)spec->method);
	if (spec->n_tasks == 0)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "expected 1 task or more, got 0");
	if (spec->n_tasks > UINT32_MAX - 2)
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
				  "expected fewer than %" PRIu32 " tasks, got %zu", UINT32_MAX - 2,
				  spec->n_tasks);
	if (!(spec->mean_preds >= 0) || isinf(spec->mean_preds))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected a mean number of predecessors >= 0, got %g",
				  spec->mean_preds);
	if (spec->layers > spec->n_tasks)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected at most one layer per task (%zu), got %zu layers",
				  spec->n_tasks, spec->layers);
	double lo = spec->cost_lo, hi = spec->cost_hi;
	if (lo == 0 && hi == 0)
		return 0;
	if (!(lo >= 0 && lo <= hi && hi <= GEN_MAX_COST))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected costs 0 <= lo <= hi <= 2^53, got [%g, %g]", lo, hi);
	if (ceil(lo) > floor(hi))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected a whole number between the costs lo and hi, got [%g, "
				  "%g]",
				  lo, hi);
	return 0;
}

int locus_dag_generate(struct locus_graph **out, const struct locus_dag_gen *spec,
		       struct locus_error *err)
{
	struct gen s = {0};
	char name[24];
	int rc;

	if (!out)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no place for the graph");
	*out = NULL;
	if (!spec)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no generator spec");
	if ((rc = check_spec(spec, err)))
		return rc;
	uint32_t n = (uint32_t)spec->n_tasks;
	double mean = spec->mean_preds > 0 ? spec->mean_preds : 2;
	if (mean > ((double)n - 1) / 2)
		mean = ((double)n - 1) / 2;
	if ((double)n * mean > GEN_MAX_EDGES)
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
				  "about %.3g edges expected (%" PRIu32 " tasks, mean %g "
				  "predecessors), more than %.0e",
				  (double)n * mean, n, mean, GEN_MAX_EDGES);
	double lo = 1, hi = 10;
	if (spec->cost_lo != 0 || spec->cost_hi != 0) {
		lo = ceil(spec->cost_lo);
		hi = floor(spec->cost_hi);
	}
	uint64_t span = (uint64_t)(hi - lo) + 1;

	if ((rc = locus_graph_create(&s.g, NULL, err)))
		return rc;
	s.mark = locus__calloc(n, sizeof *s.mark);
	if (!s.mark)
		goto oom;
	locus_rng_init(&s.rng, spec->seed);
	for (uint32_t t = 0; t < n; t++) {
		snprintf(name, sizeof name, "%" PRIu32, t + 1);
		double c = lo + (double)locus_rng_below(&s.rng, span);
		if (locus_graph_add_task(s.g, name, c) < 0)
			goto oom;
	}

	/* Layers: sizes n / L, the first n % L one larger. */
	size_t L = spec->layers;
	if (!L)
		L = (size_t)llround(sqrt((double)n));
	if (L < 1)
		L = 1;
	uint32_t base = (uint32_t)(n / L), extra = (uint32_t)(n % L);
	uint32_t first = base + (extra > 0);

	rc = 0;
	switch (spec->method) {
	case LOCUS_DAG_SAMEPROB: {
		double p = n > 1 ? 2 * mean / ((double)n - 1) : 0;
		for (uint32_t j = 1; !rc && j < n; j++)
			rc = by_probability(&s, j, j, p);
		break;
	}
	case LOCUS_DAG_SAMEPRED: {
		double m = n > 1 ? mean * n / ((double)n - 1) : 0;
		for (uint32_t j = 1; !rc && j < n; j++)
			rc = by_count(&s, j, j, m);
		break;
	}
	case LOCUS_DAG_LAYRPROB:
	case LOCUS_DAG_LAYRPRED: {
		/* pairs: (earlier-layer task, task) pairs there are. */
		double pairs = 0;
		uint32_t start = 0;
		for (size_t l = 0; l < L; l++) {
			uint32_t size = base + (l < extra);
			pairs += (double)size * start;
			start += size;
		}
		double p = pairs > 0 ? mean * n / pairs : 0;
		double m = n > first ? mean * n / ((double)n - first) : 0;
		start = 0;
		for (size_t l = 0; !rc && l < L; l++) {
			uint32_t size = base + (l < extra);
			for (uint32_t j = start; !rc && j < start + size; j++)
				rc = spec->method == LOCUS_DAG_LAYRPROB
					 ? by_probability(&s, j, start, p)
					 : by_count(&s, j, start, m);
			start += size;
		}
		break;
	}
	}
	if (rc)
		goto oom;
	free(s.mark);
	s.mark = NULL;
	if ((rc = locus_graph_finish(s.g, err))) {
		locus_graph_destroy(s.g);
		return rc;
	}
	*out = s.g;
	return 0;
oom:
	free(s.mark);
	locus_graph_destroy(s.g);
	return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
}
