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
 * O(c) per task searched again, for r tasks ready at a time and c the
 * workers a choice looks at (plan.h): those of touched nodes and one idle
 * worker per class of alike ones, whose DL every idle member shares
 * (TF 0, the same DA and cost), the lowest of them standing for all, as
 * in HEFT. 1,000 tasks on 100,000 processors took 33 s; the plan is the
 * same.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "dag/plan.h"

/* The ready tasks, each with its data-arrival times and its best pair.
 * DA(i, p) depends on p's node alone: it is kept by touched node (rows of
 * `width`, in s->touched_nodes' order, filled up to filled[k]) and by
 * class (rows of n_classes: the DA on any idle member). */
struct dls_ready {
	uint32_t *task;
	double *da_node, *da_class;
	uint32_t *filled;
	double *best_dl;
	uint32_t *best_w;
	size_t n, cap, width; /* ready tasks, rows allocated, touched nodes at most */
	uint32_t *touched_at; /* by node: its place in s->touched_nodes */
	size_t n_known;	      /* of s->touched_nodes, in touched_at */
};

/* Row k's DA on the nodes touched since it was last filled. */
static void fill(const struct locus__dag *s, struct dls_ready *r, size_t k)
{
	double *row = &r->da_node[k * r->width];
	for (size_t j = r->filled[k]; j < s->n_touched; j++)
		row[j] = locus__dag_ready_on(s, r->task[k], s->touched_nodes[j]);
	r->filled[k] = (uint32_t)s->n_touched;
}

/* DL of ready task k (filled) on worker w, a worker a choice looks at. */
static double dl_of(const struct locus__dag *s, const struct dls_ready *r, size_t k, uint32_t w,
		    const double *sl, const double *tf)
{
	uint32_t t = r->task[k], nd = s->wl->worker_node[w];
	double da = s->touched[nd] ? r->da_node[k * r->width + r->touched_at[nd]]
				   : r->da_class[k * s->n_classes + s->cls[w]];
	double start = da > tf[w] ? da : tf[w];
	return sl[t] - start + (s->mean_cost[t] - locus_workload_cost(s->wl, t, w));
}

/* The workers a choice looks at, into s->cand (in no order): every worker
 * of a touched node, and each class's first idle one. */
static void candidates(struct locus__dag *s)
{
	size_t n = 0;
	for (size_t j = 0; j < s->n_touched; j++) {
		uint32_t nd = s->touched_nodes[j];
		for (uint32_t w = s->node_first[nd]; w < s->node_first[nd + 1]; w++)
			s->cand[n++] = w;
	}
	for (size_t c = 0; c < s->n_classes; c++) {
		uint32_t w = locus__dag_class_idle(s, c);
		if (w != UINT32_MAX)
			s->cand[n++] = w;
	}
	s->n_cand = n;
}

/* Whether worker w's node can hold task t (always, without demands). A
 * class's members hold alike, so a task some node holds has a candidate
 * that holds it: a worker of a touched node, or its class's idle one. */
static int holds(const struct locus__dag *s, uint32_t t, uint32_t w)
{
	return !s->g->demand || locus_workload_fits(s->wl, t, s->wl->worker_node[w]);
}

/* Searches the candidates that can hold ready task k for its best DL
 * (ties: the lower worker, which an idle member's class representative
 * is). */
static void search(const struct locus__dag *s, struct dls_ready *r, size_t k, const double *sl,
		   const double *tf)
{
	fill(s, r, k);
	r->best_w[k] = UINT32_MAX;
	for (size_t i = 0; i < s->n_cand; i++) {
		uint32_t w = s->cand[i];
		if (!holds(s, r->task[k], w))
			continue;
		double dl = dl_of(s, r, k, w, sl, tf);
		if (r->best_w[k] == UINT32_MAX || dl > r->best_dl[k] ||
		    (dl == r->best_dl[k] && w < r->best_w[k])) {
			r->best_dl[k] = dl;
			r->best_w[k] = w;
		}
	}
}

/* Task t becomes ready: its rows and best pair. */
static void add_ready(struct locus__dag *s, struct dls_ready *r, uint32_t t, const double *sl,
		      const double *tf)
{
	size_t k = r->n++;
	r->task[k] = t;
	r->filled[k] = 0;
	for (size_t c = 0; c < s->n_classes; c++) {
		uint32_t w = locus__dag_class_idle(s, c);
		r->da_class[k * s->n_classes + c] =
		    w == UINT32_MAX ? 0 : locus__dag_ready_on(s, t, s->wl->worker_node[w]);
	}
	search(s, r, k, sl, tf);
}

static void remove_ready(struct locus__dag *s, struct dls_ready *r, size_t k)
{
	size_t last = --r->n, nc = s->n_classes;
	if (k == last)
		return;
	r->task[k] = r->task[last];
	r->filled[k] = r->filled[last];
	memcpy(&r->da_node[k * r->width], &r->da_node[last * r->width],
	       r->filled[last] * sizeof *r->da_node);
	memcpy(&r->da_class[k * nc], &r->da_class[last * nc], nc * sizeof *r->da_class);
	r->best_dl[k] = r->best_dl[last];
	r->best_w[k] = r->best_w[last];
}

/* Room for `need` ready rows. 0 or LOCUS_ENOMEM. */
static int reserve(struct dls_ready *r, size_t need, size_t classes)
{
	if (need <= r->cap)
		return 0;
	size_t cap = r->cap ? 2 * r->cap : 16;
	if (cap < need)
		cap = need;
	if ((r->width && cap > SIZE_MAX / r->width) || (classes && cap > SIZE_MAX / classes))
		return LOCUS_ENOMEM;
	double *da = locus__reallocarray(r->da_node, cap * r->width, sizeof *da);
	if (!da)
		return LOCUS_ENOMEM;
	r->da_node = da;
	da = locus__reallocarray(r->da_class, cap * classes, sizeof *da);
	if (!da)
		return LOCUS_ENOMEM;
	r->da_class = da;
	r->cap = cap;
	return 0;
}
/* The lowest worker whose DL for ready task k ties with `top` (k's best
 * does): among the candidates, an idle one standing for its class. */
static uint32_t lowest_tied(const struct locus__dag *s, const struct dls_ready *r, size_t k,
			    double top, const double *sl, const double *tf)
{
	uint32_t w = r->best_w[k];
	for (size_t i = 0; i < s->n_cand; i++)
		if (s->cand[i] < w && holds(s, r->task[k], s->cand[i]) &&
		    locus__dag_ties(dl_of(s, r, k, s->cand[i], sl, tf), top))
			w = s->cand[i];
	return w;
}

/* Worker w took a task: the nodes touched since are known, the
 * candidates follow, and the tasks whose best worker was w search again. */
static void after_place(struct locus__dag *s, struct dls_ready *r, uint32_t w, const double *sl,
			const double *tf)
{
	if (r->n_known < s->n_touched) {
		for (; r->n_known < s->n_touched; r->n_known++)
			r->touched_at[s->touched_nodes[r->n_known]] = (uint32_t)r->n_known;
		candidates(s);
	}
	/* Only DL(., w) changed, and only down: a task whose best worker
	 * was another keeps it (a DL that was not above its best, or equal
	 * from a higher worker, stays so; an idle worker that became a
	 * candidate has its class representative's DL and a higher index). */
	for (size_t i = 0; i < r->n; i++)
		if (r->best_w[i] == w)
			search(s, r, i, sl, tf);
}

int locus__dag_dls(struct locus__dag *s)
{
	const struct locus_graph *g = s->g;
	size_t n = s->n_tasks, p = s->n_procs, nodes = s->wl->platform->n_nodes;
	double *sl = s->plan->priority;
	double *tf = locus__calloc(p ? p : 1, sizeof *tf);
	uint32_t *waiting = locus__calloc(n ? n : 1, sizeof *waiting);
	struct dls_ready r = {.width = nodes < n ? nodes : n};
	int rc = LOCUS_ENOMEM;
	r.task = locus__calloc(n ? n : 1, sizeof *r.task);
	r.filled = locus__calloc(n ? n : 1, sizeof *r.filled);
	r.best_dl = locus__calloc(n ? n : 1, sizeof *r.best_dl);
	r.best_w = locus__calloc(n ? n : 1, sizeof *r.best_w);
	r.touched_at = locus__calloc(nodes ? nodes : 1, sizeof *r.touched_at);
	if (!tf || !waiting || !r.task || !r.filled || !r.best_dl || !r.best_w || !r.touched_at)
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
	candidates(s);
	for (uint32_t t = 0; t < n; t++) {
		waiting[t] = g->pred_at[t + 1] - g->pred_at[t];
		if (waiting[t])
			continue;
		if (reserve(&r, r.n + 1, s->n_classes))
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
		fill(s, &r, k); /* nodes touched since k's last search */
		uint32_t t = r.task[k], w = lowest_tied(s, &r, k, top, sl, tf);
		uint32_t nd = s->wl->worker_node[w];
		double da = s->touched[nd] ? r.da_node[k * r.width + r.touched_at[nd]]
					   : r.da_class[k * s->n_classes + s->cls[w]];
		struct locus__fit fit;
		fit.start = da > tf[w] ? da : tf[w];
		fit.finish = fit.start + locus_workload_cost(s->wl, t, w);
		fit.pos = s->tl[w].n;
		if (locus__dag_place(s, t, w, fit))
			goto out;
		tf[w] = fit.finish;
		remove_ready(s, &r, k);
		after_place(s, &r, w, sl, tf);
		for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++) {
			uint32_t j = g->succs[e].task;
			if (--waiting[j])
				continue;
			if (reserve(&r, r.n + 1, s->n_classes))
				goto out;
			add_ready(s, &r, j, sl, tf);
		}
	}
	rc = 0;
out:
	free(tf);
	free(waiting);
	free(r.task);
	free(r.filled);
	free(r.da_node);
	free(r.da_class);
	free(r.best_dl);
	free(r.best_w);
	free(r.touched_at);
	return rc;
}
