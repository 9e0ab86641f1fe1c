/*
 * What a graph read from STG or generated lacks: a cost per processor
 * (Topcuoglu et al. 2002, section 5.1: the heterogeneity factor beta) and
 * data on its edges for a communication to computation ratio (GTP,
 * Hernandez and Cole, section 6.1).
 *
 * An edge object is an object that a task writes and another reads: the
 * stored inputs (no producer) and the outputs no task reads are not
 * communication between tasks and keep their sizes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/dag.h"
#include "locus/rng.h"

int locus_dag_set_heterogeneity(struct locus_graph *g, size_t n_procs, double beta, uint64_t seed,
				struct locus_error *err)
{
	if (!g)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no graph");
	if (n_procs == 0 || n_procs > UINT32_MAX)
		return locus__err(err, LOCUS_EINVAL, g->name, 0, 0,
				  "expected 1 processor or more (below 2^32), got %zu", n_procs);
	if (!(beta >= 0 && beta < 2))
		return locus__err(err, LOCUS_EINVAL, g->name, 0, 0,
				  "expected a heterogeneity factor beta in [0, 2), got %g", beta);
	size_t n = g->n_tasks;
	if (n && n_procs > SIZE_MAX / sizeof(double) / n)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	double *cost = locus__calloc(n ? n * n_procs : 1, sizeof *cost);
	if (!cost)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	struct locus_rng rng;
	locus_rng_init(&rng, seed);
	for (size_t t = 0; t < n; t++) {
		double w = g->tasks[t].work;
		for (size_t m = 0; m < n_procs; m++)
			cost[t * n_procs + m] = w * (1 - beta / 2 + beta * locus_rng_uniform(&rng));
	}
	int rc = locus_graph_set_costs(g, n_procs, cost, err);
	free(cost);
	return rc;
}

static int is_edge_object(const struct locus_graph *g, size_t o)
{
	return g->objects[o].producer != LOCUS_NONE && g->objects[o].n_cons > 0;
}

static double mean_work(const struct locus_graph *g)
{
	double sum = 0;
	for (size_t t = 0; t < g->n_tasks; t++)
		sum += g->tasks[t].work;
	return g->n_tasks ? sum / (double)g->n_tasks : 0;
}

double locus_dag_ccr(const struct locus_graph *g, double bw)
{
	if (!g || !(bw > 0) || isinf(bw))
		return 0;
	double bytes = 0;
	size_t k = 0;
	for (size_t o = 0; o < g->n_objects; o++)
		if (is_edge_object(g, o)) {
			bytes += (double)g->objects[o].bytes;
			k++;
		}
	double w = mean_work(g);
	if (!k || !(w > 0))
		return 0;
	return bytes / (double)k / bw / w;
}

/* An edge object's bytes while they are rounded: its draw's fraction
 * below the whole bytes it has. */
struct share {
	uint32_t object;
	uint64_t bytes;
	double frac;
};

/* Largest fraction first, then the lower object id. */
static int cmp_share(const void *a, const void *b)
{
	const struct share *x = a, *y = b;
	if (x->frac != y->frac)
		return x->frac > y->frac ? -1 : 1;
	return (x->object > y->object) - (x->object < y->object);
}

int locus_dag_set_ccr(struct locus_graph *g, double ccr, double bw, uint64_t seed,
		      struct locus_error *err)
{
	if (!g)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no graph");
	if (!(ccr >= 0) || isinf(ccr))
		return locus__err(err, LOCUS_EINVAL, g->name, 0, 0, "expected a CCR >= 0, got %g",
				  ccr);
	if (!(bw > 0) || isinf(bw))
		return locus__err(err, LOCUS_EINVAL, g->name, 0, 0,
				  "expected a bandwidth > 0 bytes/s, got %g", bw);
	if (g->n_tasks && !g->topo)
		return locus__err(err, LOCUS_EINVAL, g->name, 0, 0,
				  "the graph is not finished: expected locus_graph_finish first");
	size_t k = 0;
	for (size_t o = 0; o < g->n_objects; o++)
		k += is_edge_object(g, o);
	if (!k)
		return 0;
	if (ccr == 0) {
		for (size_t o = 0; o < g->n_objects; o++)
			if (is_edge_object(g, o))
				locus_graph_set_object_bytes(g, (uint32_t)o, 0);
		return 0;
	}
	double w = mean_work(g);
	if (!(w > 0))
		return locus__err(err, LOCUS_EINVAL, g->name, 0, 0,
				  "the tasks have no work: no CCR of %g can be set", ccr);
	/* The bytes all edges carry together, to the nearest byte. */
	double total = round(ccr * w * bw * (double)k);
	if (!(total < 9223372036854775808.0))
		return locus__err(err, LOCUS_ERANGE, g->name, 0, 0,
				  "a CCR of %g at %g bytes/s needs %.3g bytes on the edges, 2^63 "
				  "or more",
				  ccr, bw, total);
	struct share *sh = locus__calloc(k, sizeof *sh);
	if (!sh)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	/* Times uniform in [0, 2 x mean], scaled so that they add up to the
	 * total; each rounded down, then the largest fractions get a byte
	 * more until the total, and so the mean, is exact. */
	struct locus_rng rng;
	locus_rng_init(&rng, seed);
	double sum = 0;
	size_t i = 0;
	for (size_t o = 0; o < g->n_objects; o++)
		if (is_edge_object(g, o)) {
			sh[i].object = (uint32_t)o;
			sh[i].frac = locus_rng_uniform(&rng);
			sum += sh[i].frac;
			i++;
		}
	int64_t left = (int64_t)total;
	for (i = 0; i < k; i++) {
		double x = sum > 0 ? sh[i].frac / sum * total : total / (double)k;
		double f = floor(x);
		sh[i].bytes = (uint64_t)f;
		sh[i].frac = x - f;
		left -= (int64_t)sh[i].bytes;
	}
	qsort(sh, k, sizeof *sh, cmp_share);
	/* Rounding errors of the scaling leave |left| at most a few more
	 * than k: walk the shares as often as it takes. */
	for (i = 0; left > 0; i = (i + 1) % k, left--)
		sh[i].bytes++;
	for (i = k; left<0; i = i> 1 ? i - 1 : k)
		if (sh[i - 1].bytes > 0) {
			sh[i - 1].bytes--;
			left++;
		}
	for (i = 0; i < k; i++)
		locus_graph_set_object_bytes(g, sh[i].object, sh[i].bytes);
	free(sh);
	return 0;
}
