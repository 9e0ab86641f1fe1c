/*
 * dlmpi: DL-MPI's probability based data scheduler (Algorithm 1, Eq. 3
 * and 4), run by one master as in the paper's benchmark and DL-mpiBLAST.
 *
 * For a request from a worker on node i:
 *  - the candidates are D_i, the unassigned chunks local to node i, when
 *    it is not empty (lines 8-15), else D, every unassigned chunk (lines
 *    16-23, where the sum of Eq. 4 runs over D: NOTES.md);
 *  - T_dx = min over the other nodes k holding d_x of |D_k| / s_k (Eq. 3):
 *    how soon the holder that would run d_x locally gets to it. Only
 *    participating nodes count (C, line 1: nodes running a worker);
 *  - a candidate no other participating node holds has T = infinity: it is
 *    taken first, uniformly among such candidates (NOTES.md); a chunk no
 *    node holds at all is one of those in the remote branch;
 *  - otherwise d_x is drawn with P(d_x) = T_dx / sum of T over the
 *    candidates (Eq. 4) from the instance's generator.
 *
 * s_k (line 7, NOTES.md: starts at 1, updated from the tasks node k
 * finished per unit time) is locus__mw_speed: node k's rate, its workers
 * times its finished tasks over their summed durations (read + compute),
 * relative to the mean rate of the nodes measured so far; 1 until node k
 * reports a task. The ratio keeps an unmeasured node's 1 on the same scale
 * as the measured ones; Eq. 4 does not change when every s_k is scaled by
 * one factor, so this is the paper's rule with its unit settled.
 *
 * |D_k| is kept by the driver as tasks are assigned (locus__taskset).
 * Cost: for each candidate its holder list is read: the sum over the
 * candidates of their holders (at least 1 each).
 */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"
#include "sched/mw.h"
#include "sched/policies.h"

struct dlmpi {
	struct locus__mw mw; /* first: the driver's block */
	/* Scratch for one decision, n_tasks each. */
	uint32_t *cand; /* candidates with a finite T */
	double *T;	/* their T */
	uint32_t *inf;	/* candidates with T = infinity */
	size_t n_cand, n_inf;
	double sum;
	uint64_t entries;
	/* Counters. */
	uint64_t local_branch, remote_branch, infinite_picks;
};

/* Eq. 3 for task t and requesting node i, into the decision's scratch. */
static void consider(struct dlmpi *dl, uint32_t t, uint32_t i)
{
	const struct locus__mw *mw = &dl->mw;
	const struct locus_task *tk = &mw->wl->tasks[t];
	double best = INFINITY;

	for (uint32_t h = 0; h < tk->n_holders; h++) {
		uint32_t k = mw->wl->holders[tk->holders_at + h];
		if (k == i || mw->node_workers[k] == 0)
			continue;
		double v = mw->ts.node_left[k] / locus__mw_speed(mw, k);
		if (v < best)
			best = v;
	}
	dl->entries += tk->n_holders ? tk->n_holders : 1;
	if (isinf(best)) {
		dl->inf[dl->n_inf++] = t;
	} else {
		dl->cand[dl->n_cand] = t;
		dl->T[dl->n_cand++] = best;
		dl->sum += best;
	}
}

static void dlmpi_choose(struct locus__mw *mw, uint32_t worker, const struct locus__mw_req *req,
			 double now, struct locus__mw_choice *out)
{
	struct dlmpi *dl = (struct dlmpi *)mw;
	const struct locus__taskset *ts = &mw->ts;
	uint32_t i = mw->wl->worker_node[worker];

	dl->n_cand = dl->n_inf = 0;
	dl->sum = 0;
	dl->entries = 0;
	if (ts->node_left[i] > 0) {
		dl->local_branch++;
		for (uint32_t p = ts->node_head[i]; p != LOCUS__NIL; p = ts->pnext[p])
			consider(dl, mw->wl->node_tasks[p], i);
	} else {
		dl->remote_branch++;
		for (uint32_t t = ts->head; t != LOCUS__NIL; t = ts->next[t])
			consider(dl, t, i);
	}
	out->verdict = LOCUS__MW_ASSIGN;
	out->entries = dl->entries;
	if (dl->n_inf) {
		dl->infinite_picks++;
		out->task = dl->inf[locus_rng_below(&mw->rng, dl->n_inf)];
		return;
	}
	/* Inverse transform over the cumulative T; the last candidate takes
	 * what rounding leaves at the top. */
	double u = locus_rng_uniform(&mw->rng) * dl->sum, acc = 0;
	out->task = dl->cand[dl->n_cand - 1];
	for (size_t j = 0; j < dl->n_cand; j++) {
		acc += dl->T[j];
		if (u < acc) {
			out->task = dl->cand[j];
			break;
		}
	}
}

static void dlmpi_stats(struct locus__mw *mw, struct locus_policy_stats *out)
{
	struct dlmpi *dl = (struct dlmpi *)mw;

	locus__mw_counter(out, "local_branch", dl->local_branch);
	locus__mw_counter(out, "remote_branch", dl->remote_branch);
	locus__mw_counter(out, "infinite_picks", dl->infinite_picks);
}

static void dlmpi_fini(struct locus__mw *mw)
{
	struct dlmpi *dl = (struct dlmpi *)mw;

	free(dl->cand);
	free(dl->T);
	free(dl->inf);
}

static const struct locus__mw_ops dlmpi_ops = {
    .choose = dlmpi_choose,
    .stats = dlmpi_stats,
    .fini = dlmpi_fini,
};

static int dlmpi_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	int rc = locus__mw_create(state, sizeof(struct dlmpi), ctx, &dlmpi_ops, "dlmpi", NULL, err);
	if (rc)
		return rc;
	struct dlmpi *dl = *state;
	size_t n = ctx->wl->n_tasks ? ctx->wl->n_tasks : 1;
	dl->cand = locus__calloc(n, sizeof *dl->cand);
	dl->T = locus__calloc(n, sizeof *dl->T);
	dl->inf = locus__calloc(n, sizeof *dl->inf);
	if (!dl->cand || !dl->T || !dl->inf) {
		locus__mw_destroy(dl);
		*state = NULL;
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	return 0;
}

const struct locus_policy locus__policy_dlmpi = {
    .name = "dlmpi",
    .summary = "one master draws a local chunk with DL-MPI's probability "
	       "(Algorithm 1), weighing other holders' remaining local work",
    .schedulers = locus__mw_schedulers,
    .create = dlmpi_create,
    .destroy = locus__mw_destroy,
    .on_event = locus__mw_on_event,
    .stats = locus__mw_stats,
};
