/*
 * Random task graphs in the Standard Task Graph set's four families of
 * precedence constraints (Tobita and Kasahara 2002; docs/formats.md, "Task
 * graphs"), for the sizes the shipped set lacks. Every edge goes from a
 * lower id to a higher one (and, in the layered methods, from an earlier
 * layer to a later one), so a graph is acyclic by construction; the work
 * drawn is a whole number in [cost_lo, cost_hi]. The same spec and seed
 * give the same graph.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/dag.h"
#include "locus/rng.h"

#define GEN_MAX_TASKS 100000000u

static const char *const method_names[] = {"sameprob", "samepred", "layrprob", "layrpred"};

int locus_dag_gen_method_parse(const char *name, enum locus_dag_gen_method *out)
{
	for (size_t k = 0; name && k < sizeof method_names / sizeof method_names[0]; k++)
		if (strcmp(name, method_names[k]) == 0) {
			*out = (enum locus_dag_gen_method)k;
			return 0;
		}
	return LOCUS_EINVAL;
}

struct gen {
	struct locus_graph *g;
	struct locus_rng rng;
	uint32_t *pick; /* predecessors of the task being built */
	uint32_t *mark; /* per task: the last task that picked it, + 1 */
};

/* How many candidates a geometric skip passes over before the next one
 * taken with probability p (0 < p < 1). */
static uint64_t skip(struct gen *s, double p)
{
	double u = locus_rng_uniform(&s->rng);
	double k = floor(log1p(-u) / log1p(-p));
	return k > 1e18 ? (uint64_t)1e18 : (uint64_t)k;
}

static int edge(struct gen *s, uint32_t from, uint32_t to)
{
	return locus_graph_add_edge(s->g, from, to, 0) < 0 ? LOCUS_ENOMEM : 0;
}

/* Each of the candidates [0, hi) an edge to `to` with probability p. */
static int by_prob(struct gen *s, uint32_t to, uint32_t hi, double p)
{
	if (p >= 1) {
		for (uint32_t i = 0; i < hi; i++)
			if (edge(s, i, to))
				return LOCUS_ENOMEM;
		return 0;
	}
	if (p <= 0)
		return 0;
	for (uint64_t i = skip(s, p); i < hi; i += 1 + skip(s, p))
		if (edge(s, (uint32_t)i, to))
			return LOCUS_ENOMEM;
	return 0;
}

/* k distinct candidates of [lo, hi) (k <= hi - lo), edges to `to` in
 * increasing order; `first` (LOCUS_NONE: none) is one of them. */
static int by_count(struct gen *s, uint32_t to, uint32_t lo, uint32_t hi, uint32_t k,
		    uint32_t first)
{
	uint32_t n = 0;
	if (first != LOCUS_NONE) {
		s->pick[n++] = first;
		s->mark[first] = to + 1;
	}
	while (n < k) {
		uint32_t c = lo + (uint32_t)locus_rng_below(&s->rng, hi - lo);
		if (s->mark[c] == to + 1)
			continue;
		s->mark[c] = to + 1;
		s->pick[n++] = c;
	}
	/* Insertion sort: k is small. */
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j && s->pick[j - 1] > s->pick[j]; j--) {
			uint32_t t = s->pick[j];
			s->pick[j] = s->pick[j - 1];
			s->pick[j - 1] = t;
		}
	for (uint32_t i = 0; i < n; i++)
		if (edge(s, s->pick[i], to))
			return LOCUS_ENOMEM;
	return 0;
}

/* A predecessor count around `mean`: uniform in [0, 2 mean] (whole
 * numbers, the mean exact for whole means). */
static uint32_t count(struct gen *s, double mean, uint32_t at_least)
{
	uint64_t hi = (uint64_t)floor(2 * mean + 0.5);
	uint64_t k = locus_rng_below(&s->rng, hi + 1);
	if (k < at_least)
		k = at_least;
	return k > UINT32_MAX ? UINT32_MAX : (uint32_t)k;
}

int locus_dag_generate(struct locus_graph **out, const struct locus_dag_gen *spec,
		       struct locus_error *err)
{
	if (!out || !spec)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no output or no spec");
	*out = NULL;
	double lo = spec->cost_lo, hi = spec->cost_hi, mean = spec->mean_preds;
	if (lo == 0 && hi == 0) {
		lo = 1;
		hi = 10;
	}
	if (mean == 0)
		mean = 2;
	if ((unsigned)spec->method > LOCUS_DAG_LAYRPRED)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "unknown generation method %d",
				  (int)spec->method);
	if (!spec->n_tasks || spec->n_tasks > GEN_MAX_TASKS)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "a generated graph has 1 to %u tasks, not %zu", GEN_MAX_TASKS,
				  spec->n_tasks);
	if (!(lo >= 0) || !(hi >= lo) || !isfinite(hi) || ceil(lo) > floor(hi))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "costs in [%g, %g]: expected 0 <= LO <= HI with a whole number "
				  "between",
				  lo, hi);
	if (!(mean > 0) || !isfinite(mean) || mean > 1e6)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected a mean predecessor count > 0, got %g", mean);
	uint32_t n = (uint32_t)spec->n_tasks;
	size_t layers = spec->layers ? spec->layers : (size_t)ceil(sqrt((double)n));
	if (layers > n)
		layers = n;
	struct gen s = {0};
	char nm[24];
	int rc = 0;
	locus_rng_init(&s.rng, spec->seed);
	s.mark = calloc(n, sizeof *s.mark);
	s.pick = malloc((size_t)n * sizeof *s.pick);
	if (!s.mark || !s.pick ||
	    (rc = locus_graph_create(&s.g, method_names[spec->method], err))) {
		rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		goto done;
	}
	uint64_t c_lo = (uint64_t)ceil(lo), c_span = (uint64_t)floor(hi) - c_lo + 1;
	for (uint32_t t = 0; t < n; t++) {
		snprintf(nm, sizeof nm, "%u", t + 1);
		double w = (double)(c_lo + locus_rng_below(&s.rng, c_span));
		if (locus_graph_add_task(s.g, nm, w) < 0) {
			rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
			goto done;
		}
	}
	/* Layer l holds ids [l n / L, (l + 1) n / L). */
#define LAYER_START(l) ((uint32_t)((uint64_t)(l)*n / layers))
	switch (spec->method) {
	case LOCUS_DAG_SAMEPROB: {
		/* Task j has j candidates: a mean of p (n - 1) / 2. */
		double p = n > 1 ? 2 * mean / (double)(n - 1) : 0;
		for (uint32_t t = 1; t < n && !rc; t++)
			rc = by_prob(&s, t, t, p);
		break;
	}
	case LOCUS_DAG_SAMEPRED:
		for (uint32_t t = 1; t < n && !rc; t++) {
			uint32_t k = count(&s, mean, 0);
			rc = by_count(&s, t, 0, t, k < t ? k : t, LOCUS_NONE);
		}
		break;
	case LOCUS_DAG_LAYRPROB: {
		/* A task of layer l has the l earlier layers as candidates:
		 * about (L - 1) / 2 layers of n / L tasks on average. */
		double cand =
		    layers > 1 ? (double)(layers - 1) / 2 * (double)n / (double)layers : 0;
		double p = cand > 0 ? mean / cand : 0;
		for (size_t l = 1; l < layers && !rc; l++)
			for (uint32_t t = LAYER_START(l); t < LAYER_START(l + 1) && !rc; t++)
				rc = by_prob(&s, t, LAYER_START(l), p);
		break;
	}
	case LOCUS_DAG_LAYRPRED:
		/* One predecessor in the layer just before (so the layers are
		 * the graph's levels), the others in any earlier layer. */
		for (size_t l = 1; l < layers && !rc; l++) {
			uint32_t prev = LAYER_START(l - 1), start = LAYER_START(l);
			for (uint32_t t = start; t < LAYER_START(l + 1) && !rc; t++) {
				uint32_t k = count(&s, mean, 1);
				uint32_t first =
				    prev + (uint32_t)locus_rng_below(&s.rng, start - prev);
				rc = by_count(&s, t, 0, start, k < start ? k : start, first);
			}
		}
		break;
	}
#undef LAYER_START
	if (rc) {
		rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		goto done;
	}
	if ((rc = locus_graph_finish(s.g, err)))
		goto done;
	*out = s.g;
	s.g = NULL;
done:
	free(s.mark);
	free(s.pick);
	locus_graph_destroy(s.g);
	return rc;
}
