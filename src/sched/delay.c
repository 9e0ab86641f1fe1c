/*
 * delay: delay scheduling (Zaharia et al., EuroSys 2010) by one master.
 *
 * A worker whose node still holds unassigned chunks gets the first of them
 * in id order. A worker whose node holds none is deferred: its request
 * waits D seconds (option delay=SECONDS, default 1), leaving the remaining
 * chunks to the nodes that hold them; when the timer fires it gets a local
 * task if one is there (none can appear in a static workload, but the rule
 * is the general one) or else a remote one. If the last task is assigned
 * while it waits, the driver tells it to stop at once. With delay=0 a
 * drained node's worker gets a remote task at once.
 *
 * The remote task is the one least likely to be run locally soon: the one
 * whose holders have the most remaining local work, each task scored by
 * the smallest backlog among its participating holders (|D_k| over the
 * workers of node k: the holder that would get to it first), the highest
 * score taken, ties to the lowest id; a chunk no participating node holds
 * scores infinity and goes first. Counts, not task work: the master knows
 * where chunks are, not how long they will take.
 *
 * Zaharia's rule keeps one skip timer per job, reset whenever the job
 * launches a local task; with the single job here every other node's
 * local launch would reset it, so each request instead waits at most D
 * from its arrival: the idle time a worker spends for locality is bounded
 * by D per request.
 *
 * Cost: 1 entry for a local pick or a deferral (the head of the node's
 * list); a remote pick reads the holders of every unassigned task, the sum
 * of their holders (at least 1 each).
 */
#include <math.h>

#include "sched/mw.h"
#include "sched/policies.h"

#define DELAY_DEFAULT 1.0
#define DELAY_MAX     1e9

struct delay {
	struct locus__mw mw; /* first: the driver's block */
	double delay;	     /* D, seconds */
	uint64_t timeouts;   /* remote assignments after a wait */
};

/* How good a remote task is: how long its soonest local runner is busy. */
static double backlog(const struct locus__mw *mw, uint32_t t)
{
	const struct locus_task *tk = &mw->wl->tasks[t];
	double best = INFINITY;

	for (uint32_t h = 0; h < tk->n_holders; h++) {
		uint32_t k = mw->wl->holders[tk->holders_at + h];
		if (mw->node_workers[k] == 0)
			continue;
		double b = (double)mw->ts.node_left[k] / mw->node_workers[k];
		if (b < best)
			best = b;
	}
	return best;
}

/* The remote task with the highest backlog score, ties to the lowest id. */
static void pick_remote(const struct locus__mw *mw, struct locus__mw_choice *out)
{
	const struct locus__taskset *ts = &mw->ts;
	double best = -1;

	out->verdict = LOCUS__MW_ASSIGN;
	out->task = ts->head;
	out->entries = 0;
	for (uint32_t t = ts->head; t != LOCUS__NIL; t = ts->next[t]) {
		uint32_t nh = mw->wl->tasks[t].n_holders;
		out->entries += nh ? nh : 1;
		double b = backlog(mw, t);
		if (b > best) {
			best = b;
			out->task = t;
			if (isinf(b))
				break; /* nothing scores higher */
		}
	}
}

static void delay_choose(struct locus__mw *mw, uint32_t worker, const struct locus__mw_req *req,
			 double now, struct locus__mw_choice *out)
{
	struct delay *dl = (struct delay *)mw;
	const struct locus__taskset *ts = &mw->ts;
	uint32_t i = mw->wl->worker_node[worker];

	if (ts->node_left[i] > 0) {
		out->verdict = LOCUS__MW_ASSIGN;
		out->task = mw->wl->node_tasks[ts->node_head[i]];
		out->entries = 1;
	} else if (req->retries == 0 && dl->delay > 0) {
		out->verdict = LOCUS__MW_WAIT;
		out->wait = dl->delay;
		out->entries = 1;
	} else {
		dl->timeouts += req->retries > 0;
		pick_remote(mw, out);
	}
}

static void delay_stats(struct locus__mw *mw, struct locus_policy_stats *out)
{
	locus__mw_counter(out, "waits", mw->deferrals);
	locus__mw_counter(out, "timeouts", ((struct delay *)mw)->timeouts);
	locus__mw_counter(out, "released", mw->released);
}

static const struct locus__mw_ops delay_ops = {
    .choose = delay_choose, .stats = delay_stats, .defers = 1};

static int delay_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	double d;
	int rc = locus_kv_double(ctx->opts, "delay", DELAY_DEFAULT, 0, DELAY_MAX, &d, err);
	if (rc)
		return rc;
	rc = locus__mw_create(state, sizeof(struct delay), ctx, &delay_ops, "delay",
			      "delay=SECONDS, prefetch=1", err);
	if (rc)
		return rc;
	((struct delay *)*state)->delay = d;
	return 0;
}

const struct locus_policy locus__policy_delay = {
    .version = LOCUS_POLICY_VERSION,
    .name = "delay",
    .summary = "one master gives local tasks first; a worker with none left waits "
	       "up to delay=SECONDS (1), then takes a remote task",
    .schedulers = locus__mw_schedulers,
    .create = delay_create,
    .destroy = locus__mw_destroy,
    .on_event = locus__mw_on_event,
    .stats = locus__mw_stats,
};
