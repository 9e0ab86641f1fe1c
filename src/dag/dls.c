/*
 * DLS, Dynamic Level Scheduling (Sih and Lee, IEEE TPDS 4(2), 1993), as a
 * static list scheduler on heterogeneous processors.
 *
 * The variant is the paper's generalised dynamic level with the
 * heterogeneity term (its section on heterogeneous processors):
 *   DL(i, p) = SL(i) - max(DA(i, p), TF(p)) + Delta(i, p)
 * where SL(i) = w(i) + max over successors j of SL(j) is the static level
 * (mean costs w, no communication), DA(i, p) the time the data of every
 * predecessor can be on p (finish + transfer, 0 on one node), TF(p) the
 * time p finishes its last task, and Delta(i, p) = w(i) - cost(i, p) (the
 * paper's adjusted execution time E* is taken to be the mean cost, as
 * HEFT's). At each step, over every ready task i and every worker p, the
 * pair with the largest DL is scheduled at max(DA, TF), after p's last
 * task (no insertion); DLs within LOCUS__DAG_RTOL of the largest tie, and
 * ties go to the lower task id, then the lower worker.
 *
 * DL(i, p) only changes, and only decreases, when p takes a task (TF
 * grows; DA is fixed once i is ready), so each ready task keeps its
 * largest DL and the first worker with it, and only the tasks whose
 * worker was the one just used are searched again: the choices of trying
 * every pair at every step (O(v^2 p) in the worst case), in O(v r) plus
 * O(p) per task searched again, for r tasks ready at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "dag/plan.h"

/* The ready tasks, each with its data-arrival time and cost on every
 * worker (rows of n_procs), and its best pair. */
struct dls_ready {
	uint32_t *task;
	double *da, *cost;
	double *best_dl;
	uint32_t *best_w;
	size_t n, cap; /* ready tasks, rows allocated */
};

static double dl_of(const struct locus__dag *s, const struct dls_ready *r, size_t k, uint32_t w,
		    const double *sl, const double *tf)
{
	const double *da = &r->da[k * s->n_procs], *cost = &r->cost[k * s->n_procs];
	uint32_t t = r->task[k];
	double start = da[w] > tf[w] ? da[w] : tf[w];
	return sl[t] - start + (s->mean_cost[t] - cost[w]);
}

/* Searches every worker for ready task k's best DL (ties: lower worker). */
static void search(const struct locus__dag *s, struct dls_ready *r, size_t k, const double *sl,
		   const double *tf)
{
	for (uint32_t w = 0; w < s->n_procs; w++) {
		double dl = dl_of(s, r, k, w, sl, tf);
		if (w == 0 || dl > r->best_dl[k]) {
			r->best_dl[k] = dl;
			r->best_w[k] = w;
		}
	}
}

/* Task t becomes ready: its row and best pair. */
static void add_ready(struct locus__dag *s, struct dls_ready *r, uint32_t t, const double *sl,
		      const double *tf)
{
	size_t k = r->n++, p = s->n_procs;
	r->task[k] = t;
	locus__dag_ready_every(s, t);
	for (uint32_t w = 0; w < p; w++) {
		r->da[k * p + w] = s->node_ready[s->wl->worker_node[w]];
		r->cost[k * p + w] = locus_workload_cost(s->wl, t, w);
	}
	search(s, r, k, sl, tf);
}

static void remove_ready(struct locus__dag *s, struct dls_ready *r, size_t k)
{
	size_t last = --r->n, p = s->n_procs;
	if (k == last)
		return;
	r->task[k] = r->task[last];
	memcpy(&r->da[k * p], &r->da[last * p], p * sizeof *r->da);
	memcpy(&r->cost[k * p], &r->cost[last * p], p * sizeof *r->cost);
	r->best_dl[k] = r->best_dl[last];
	r->best_w[k] = r->best_w[last];
}

/* Room for `need` ready rows. 0 or LOCUS_ENOMEM. */
static int reserve(struct dls_ready *r, size_t need, size_t p)
{
	if (need <= r->cap)
		return 0;
	size_t cap = r->cap ? 2 * r->cap : 16;
	if (cap < need)
		cap = need;
	if (p && cap > SIZE_MAX / p)
		return LOCUS_ENOMEM;
	double *da = locus__reallocarray(r->da, cap * p, sizeof *da);
	if (!da)
		return LOCUS_ENOMEM;
	r->da = da;
	double *cost = locus__reallocarray(r->cost, cap * p, sizeof *cost);
	if (!cost)
		return LOCUS_ENOMEM;
	r->cost = cost;
	r->cap = cap;
	return 0;
}

int locus__dag_dls(struct locus__dag *s)
{
	const struct locus_graph *g = s->g;
	size_t n = s->n_tasks, p = s->n_procs;
	double *sl = s->plan->priority;
	double *tf = locus__calloc(p, sizeof *tf);
	uint32_t *waiting = locus__calloc(n, sizeof *waiting);
	struct dls_ready r = {0};
	int rc = LOCUS_ENOMEM;
	r.task = locus__calloc(n, sizeof *r.task);
	r.best_dl = locus__calloc(n, sizeof *r.best_dl);
	r.best_w = locus__calloc(n, sizeof *r.best_w);
	if (!tf || !waiting || !r.task || !r.best_dl || !r.best_w)
		goto out;

	/* Static levels, in reverse topological order. */
	for (size_t k = n; k-- > 0;) {
		uint32_t t = g->topo[k];
		double tail = 0;
		for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++)
			if (sl[g->succs[e].task] > tail)
				tail = sl[g->succs[e].task];
		sl[t] = s->mean_cost[t] + tail;
	}
	for (uint32_t t = 0; t < n; t++) {
		waiting[t] = g->pred_at[t + 1] - g->pred_at[t];
		if (waiting[t])
			continue;
		if (reserve(&r, r.n + 1, p))
			goto out;
		add_ready(s, &r, t, sl, tf);
	}
	while (r.n) {
		/* The pair with the largest DL; pairs within LOCUS__DAG_RTOL
		 * of it tie: the lower task id, then the lower worker. */
		double top = r.best_dl[0];
		for (size_t i = 1; i < r.n; i++)
			if (r.best_dl[i] > top)
				top = r.best_dl[i];
		size_t k = SIZE_MAX;
		for (size_t i = 0; i < r.n; i++)
			if (locus__dag_ties(r.best_dl[i], top) &&
			    (k == SIZE_MAX || r.task[i] < r.task[k]))
				k = i;
		uint32_t t = r.task[k], w = 0;
		while (w < r.best_w[k] && !locus__dag_ties(dl_of(s, &r, k, w, sl, tf), top))
			w++;
		double da = r.da[k * p + w];
		struct locus__fit fit;
		fit.start = da > tf[w] ? da : tf[w];
		fit.finish = fit.start + r.cost[k * p + w];
		fit.pos = s->tl[w].n;
		if (locus__dag_place(s, t, w, fit))
			goto out;
		tf[w] = fit.finish;
		remove_ready(s, &r, k);
		/* Only DL(., w) changed, and only down: a task whose best
		 * worker was another keeps it (a DL that was not above its
		 * best, or equal from a higher worker, stays so). */
		for (size_t i = 0; i < r.n; i++)
			if (r.best_w[i] == w)
				search(s, &r, i, sl, tf);
		for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++) {
			uint32_t j = g->succs[e].task;
			if (--waiting[j])
				continue;
			if (reserve(&r, r.n + 1, p))
				goto out;
			add_ready(s, &r, j, sl, tf);
		}
	}
	rc = 0;
out:
	free(tf);
	free(waiting);
	free(r.task);
	free(r.da);
	free(r.cost);
	free(r.best_dl);
	free(r.best_w);
	return rc;
}
