/*
 * Bounds and metrics of a DAG workload (locus/dag.h): the lower bound no
 * schedule beats, and the denominators of the papers' normalised lengths.
 *
 *  - A task's least cost is its least time on any worker when every node
 *    runs at its peak speed: min over workers w of cost(t, w) * speed(w) /
 *    peak(w) (work / peak without a cost matrix; W(t, w) scaled the same
 *    way with one, as a slower run of the same processor). A peak that
 *    is not above 0 stands for the node's speed.
 *  - critical_path: the longest path of least costs, transfers free (a
 *    chain runs one task at a time, each at best on its fastest worker).
 *  - work: without a cost matrix, the total work over the summed peak
 *    speeds of the workers (they cannot do more together); with one, the
 *    sum of least costs over the number of workers.
 *  - lower: the larger of the two.
 *  - cp_mean (GTP's Eq. 14, NSL = makespan / cp_mean): the largest sum of
 *    mean costs (locus_workload_mean_cost) along a path.
 *  - cp_min (Topcuoglu et al.'s SLR = makespan / cp_min): the largest sum
 *    of minimum costs at the nominal speeds along a path (their CP_MIN).
 * Without tasks or workers every figure is 0.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "dag/plan.h"

/* The largest sum of w[] along a path; len[] is scratch. */
static double longest(const struct locus_graph *g, const double *w, double *len)
{
	double best = 0;
	for (size_t k = 0; k < g->n_tasks; k++) {
		uint32_t t = g->topo[k];
		double head = 0;
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
			if (len[g->preds[e].task] > head)
				head = len[g->preds[e].task];
		len[t] = head + w[t];
		if (len[t] > best)
			best = len[t];
	}
	return best;
}

/* A kind of worker: its node's speed and peak (0: none), and the first
 * worker of that kind. */
struct kind {
	double speed, peak;
	uint32_t worker;
};

static int kind_cmp(const void *a, const void *b)
{
	const struct kind *x = a, *y = b;
	if (x->speed != y->speed)
		return x->speed < y->speed ? -1 : 1;
	if (x->peak != y->peak)
		return x->peak < y->peak ? -1 : 1;
	return (x->worker > y->worker) - (x->worker < y->worker);
}

/* The kinds of the workers of wl, *n of them. NULL: out of memory. */
static struct kind *worker_kinds(const struct locus_workload *wl, const double *peak, size_t *n)
{
	size_t p = wl->n_workers, m = 0;
	struct kind *k = locus__calloc(p ? p : 1, sizeof *k);
	if (!k)
		return NULL;
	for (uint32_t w = 0; w < p; w++) {
		uint32_t nd = wl->worker_node[w];
		k[w] = (struct kind){wl->platform->nodes[nd].speed,
				     peak && peak[nd] > 0 ? peak[nd] : 0, w};
	}
	qsort(k, p, sizeof *k, kind_cmp);
	for (size_t i = 0; i < p; i++)
		if (i == 0 || k[i].speed != k[m - 1].speed || k[i].peak != k[m - 1].peak)
			k[m++] = k[i];
	*n = m;
	return k;
}

int locus_dag_bounds(const struct locus_workload *wl, const double *peak,
		     struct locus_dag_bounds *out)
{
	if (!out)
		return LOCUS_EINVAL;
	memset(out, 0, sizeof *out);
	if (!wl || !wl->graph || wl->graph->n_tasks != wl->n_tasks)
		return LOCUS_EINVAL;
	size_t n = wl->n_tasks, p = wl->n_workers;
	if (!n || !p)
		return 0;
	const struct locus_node *nodes = wl->platform->nodes;
	double *least = locus__calloc(n, sizeof *least), *mean = locus__calloc(n, sizeof *mean);
	double *nominal = locus__calloc(n, sizeof *nominal), *len = locus__calloc(n, sizeof *len);
	if (!least || !mean || !nominal || !len) {
		free(least);
		free(mean);
		free(nominal);
		free(len);
		return LOCUS_ENOMEM;
	}
	double sum_least = 0, sum_peak = 0;
	for (size_t w = 0; w < p; w++) {
		uint32_t nd = wl->worker_node[w];
		sum_peak += peak && peak[nd] > 0 ? peak[nd] : nodes[nd].speed;
	}
	/* Without a cost matrix a worker's costs are its node's speed and
	 * peak: workers alike in both give the same figures, so one of each
	 * kind is looked at (O(v k + p log p) for k kinds, not O(v p)). */
	struct kind *kinds = NULL;
	size_t n_kinds = p;
	if (!wl->cost && (kinds = worker_kinds(wl, peak, &n_kinds)) == NULL) {
		free(least);
		free(mean);
		free(nominal);
		free(len);
		return LOCUS_ENOMEM;
	}
	for (uint32_t t = 0; t < n; t++) {
		for (uint32_t k = 0; k < n_kinds; k++) {
			uint32_t w = kinds ? kinds[k].worker : k, nd = wl->worker_node[w];
			double c = locus_workload_cost(wl, t, w);
			double at_peak = peak && peak[nd] > 0 ? c * nodes[nd].speed / peak[nd] : c;
			if (k == 0 || c < nominal[t])
				nominal[t] = c;
			if (k == 0 || at_peak < least[t])
				least[t] = at_peak;
		}
		sum_least += least[t];
	}
	free(kinds);
	locus__dag_mean_costs(wl, mean);
	out->critical_path = longest(wl->graph, least, len);
	out->work = wl->cost ? sum_least / (double)p : wl->total_work / sum_peak;
	out->lower = out->critical_path > out->work ? out->critical_path : out->work;
	out->cp_mean = longest(wl->graph, mean, len);
	out->cp_min = longest(wl->graph, nominal, len);
	free(least);
	free(mean);
	free(nominal);
	free(len);
	return 0;
}
