/*
 * What a graph lacks, derived on demand (docs/formats.md, "Task graphs"):
 * a cost per processor with Topcuoglu's heterogeneity factor beta, and
 * edge data sizes for a communication-to-computation ratio (GTP section
 * 6.1). Both are seeded, so the same graph, parameters and seed give the
 * same costs and sizes.
 */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"
#include "locus/dag.h"
#include "locus/rng.h"

int locus_dag_set_heterogeneity(struct locus_graph *g, size_t n_procs, double beta, uint64_t seed,
				struct locus_error *err)
{
	if (!g)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no graph");
	if (!n_procs || n_procs > 1000000)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "heterogeneity needs 1 to 1000000 processors, not %zu", n_procs);
	if (!(beta >= 0 && beta < 2))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "the heterogeneity factor beta is in [0, 2), not %g", beta);
	if (g->n_tasks && n_procs > SIZE_MAX / sizeof(double) / g->n_tasks)
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0, "too many costs");
	size_t n_cost = g->n_tasks * n_procs;
	double *cost = malloc((n_cost ? n_cost : 1) * sizeof *cost);
	if (!cost)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	struct locus_rng rng;
	locus_rng_init(&rng, seed);
	/* Topcuoglu et al. 2002, section 5.1: W(t, m) uniform in
	 * [w (1 - beta / 2), w (1 + beta / 2)] around the task's work w. */
	for (size_t t = 0; t < g->n_tasks; t++) {
		double w = g->tasks[t].work;
		for (size_t m = 0; m < n_procs; m++)
			cost[t * n_procs + m] =
			    beta > 0 ? w * (1 - beta / 2 + beta * locus_rng_uniform(&rng)) : w;
	}
	int rc = locus_graph_set_costs(g, n_procs, cost, err);
	free(cost);
	return rc;
}

/* Whether object o is an edge of the graph: one task writes it and
 * another reads it. */
static int is_edge(const struct locus_graph *g, uint32_t o)
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

int locus_dag_set_ccr(struct locus_graph *g, double ccr, double bw, uint64_t seed,
		      struct locus_error *err)
{
	if (!g)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no graph");
	if (!(ccr >= 0) || !isfinite(ccr))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "a CCR is a number >= 0, not %g",
				  ccr);
	if (!(bw > 0) || !isfinite(bw))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "a CCR is stated on links of a bandwidth > 0, not %g", bw);
	size_t n_edges = 0;
	for (size_t o = 0; o < g->n_objects; o++)
		n_edges += is_edge(g, (uint32_t)o);
	if (!n_edges)
		return 0;
	double target = ccr * mean_work(g); /* the mean transfer time, seconds */
	if (!(target > 0)) {
		for (size_t o = 0; o < g->n_objects; o++)
			if (is_edge(g, (uint32_t)o))
				locus_graph_set_object_bytes(g, (uint32_t)o, 0);
		return 0;
	}
	if (target * bw > 1e18)
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
				  "CCR %g at %g bytes/s: the edges would exceed 1e18 bytes", ccr,
				  bw);
	/* Times uniform in [0, 2 x mean], then scaled so their mean is the
	 * target exactly (up to the rounding to whole bytes). */
	double *draw = malloc(n_edges * sizeof *draw), sum = 0;
	if (!draw)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	struct locus_rng rng;
	locus_rng_init(&rng, seed);
	for (size_t k = 0; k < n_edges; k++)
		sum += draw[k] = 2 * target * locus_rng_uniform(&rng);
	double scale = sum > 0 ? target * (double)n_edges / sum : 0;
	size_t k = 0;
	for (size_t o = 0; o < g->n_objects; o++)
		if (is_edge(g, (uint32_t)o)) {
			double bytes = scale > 0 ? draw[k] * scale * bw : target * bw;
			locus_graph_set_object_bytes(g, (uint32_t)o, (uint64_t)llround(bytes));
			k++;
		}
	free(draw);
	return 0;
}

double locus_dag_ccr(const struct locus_graph *g, double bw)
{
	if (!g || !(bw > 0))
		return 0;
	double sum = 0, w = mean_work(g);
	size_t n = 0;
	for (size_t o = 0; o < g->n_objects; o++)
		if (is_edge(g, (uint32_t)o)) {
			sum += (double)g->objects[o].bytes / bw;
			n++;
		}
	return n && w > 0 ? sum / (double)n / w : 0;
}
