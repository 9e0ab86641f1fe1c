/*
 * CPOP, Critical Path On a Processor (Topcuoglu, Hariri and Wu, IEEE TPDS
 * 13(3), 2002, Fig. 5).
 *
 * A task's priority is rank_u + rank_d (mean costs); |CP| is the entry
 * task's. The critical path is walked from the entry task, each step to a
 * successor whose priority is |CP| (within LOCUS__DAG_RTOL, relative);
 * the critical-path processor is the worker with the least sum of those
 * tasks' costs. A ready list takes the task of highest priority; a task on
 * the critical path goes to the critical-path processor, any other to the
 * worker where it finishes first (insertion as in HEFT when enabled).
 *
 * The paper's graphs have one entry task. With several, |CP| is the
 * largest priority of an entry task (the length of the longest path) and
 * the walk starts from the lowest-id entry task that has it. Ties: the
 * lower task id in the ready list and in the walk, the lower worker for
 * the critical-path processor and for the earliest finish.
 */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"
#include "dag/plan.h"

static int on_cp(double priority, double cp)
{
	return fabs(priority - cp) <= LOCUS__DAG_RTOL * fabs(cp);
}

/* Marks the critical path in is_cp[] and returns its processor. */
static uint32_t critical_path(const struct locus__dag *s, const double *prio, unsigned char *is_cp)
{
	const struct locus_graph *g = s->g;
	double cp = 0;
	uint32_t t = UINT32_MAX;
	for (uint32_t i = 0; i < s->n_tasks; i++)
		if (g->pred_at[i] == g->pred_at[i + 1] && (t == UINT32_MAX || prio[i] > cp)) {
			cp = prio[i];
			t = i;
		}
	/* The lowest-id entry task on the path (t is the first with the
	 * largest priority; an earlier one may be within the tolerance). */
	for (uint32_t i = 0; i < t; i++)
		if (g->pred_at[i] == g->pred_at[i + 1] && on_cp(prio[i], cp)) {
			t = i;
			break;
		}
	while (t != UINT32_MAX) {
		uint32_t next = UINT32_MAX;
		is_cp[t] = 1;
		for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++)
			if (on_cp(prio[g->succs[e].task], cp)) {
				next = g->succs[e].task; /* successors are in id order */
				break;
			}
		t = next;
	}
	/* Alike workers (plan.h) have the same sum: the first of each class
	 * stands for it, the least sum going to the lower worker. */
	uint32_t best = UINT32_MAX;
	double best_sum = 0;
	for (size_t c = 0; c < s->n_classes; c++) {
		uint32_t w = s->members[s->member_at[c]];
		double sum = 0;
		for (uint32_t i = 0; i < s->n_tasks; i++)
			if (is_cp[i])
				sum += locus_workload_cost(s->wl, i, w);
		if (best == UINT32_MAX || sum < best_sum || (sum == best_sum && w < best)) {
			best_sum = sum;
			best = w;
		}
	}
	return best;
}

int locus__dag_cpop(struct locus__dag *s)
{
	const struct locus_graph *g = s->g;
	double *prio = s->plan->priority;
	double *down = locus__calloc(s->n_tasks, sizeof *down);
	unsigned char *is_cp = locus__calloc(s->n_tasks, sizeof *is_cp);
	struct locus__ready ready;
	int rc = LOCUS_ENOMEM;
	if (!down || !is_cp)
		goto out;
	locus__dag_upward(s->wl, s->mean_cost, prio);
	locus__dag_downward(s->wl, s->mean_cost, down);
	for (size_t t = 0; t < s->n_tasks; t++)
		prio[t] += down[t];
	uint32_t cp_proc = critical_path(s, prio, is_cp);
	if ((rc = locus__ready_init(&ready, g, prio)))
		goto out;
	for (size_t k = 0; k < s->n_tasks && !rc; k++) {
		uint32_t t = locus__ready_pop(&ready), w = cp_proc;
		struct locus__fit fit;
		/* A critical-path task the critical-path processor's node cannot
		 * hold goes where it fits best, as the others. */
		int on_cp =
		    is_cp[t] &&
		    (!g->demand || locus_workload_fits(s->wl, t, s->wl->worker_node[cp_proc]));
		if (!on_cp)
			locus__dag_ready_all(s, t);
		if (on_cp)
			fit = locus__dag_fit(s, w, locus__dag_ready_on(s, t, s->wl->worker_node[w]),
					     locus_workload_cost(s->wl, t, w));
		else
			fit = locus__dag_best_eft(s, t, &w);
		if (!(rc = locus__dag_place(s, t, w, fit)))
			rc = locus__ready_done(&ready, g, t);
	}
	locus__ready_fini(&ready);
out:
	free(down);
	free(is_cp);
	return rc;
}
