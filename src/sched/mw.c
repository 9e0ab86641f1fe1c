/*
 * The master/worker driver shared by fifo, monolithic, dlmpi and delay
 * (mw.h says the protocol and what it guarantees).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "sched/mw.h"

/* ---- the unassigned tasks ---------------------------------------------- */

static int taskset_init(struct locus__taskset *ts, const struct locus_workload *wl)
{
	size_t n = wl->n_tasks, n_nodes = wl->platform->n_nodes;
	size_t n_pos = wl->node_at[n_nodes];

	memset(ts, 0, sizeof *ts);
	ts->next = locus__calloc(n, sizeof *ts->next);
	ts->prev = locus__calloc(n, sizeof *ts->prev);
	ts->taken = locus__calloc(n, 1);
	ts->node_head = locus__calloc(n_nodes, sizeof *ts->node_head);
	ts->node_left = locus__calloc(n_nodes, sizeof *ts->node_left);
	ts->pnext = locus__calloc(n_pos, sizeof *ts->pnext);
	ts->pprev = locus__calloc(n_pos, sizeof *ts->pprev);
	ts->pos = locus__calloc(n_pos, sizeof *ts->pos);
	ts->fen = locus__calloc(n + 1, sizeof *ts->fen);
	if (!ts->next || !ts->prev || !ts->taken || !ts->node_head || !ts->node_left ||
	    !ts->pnext || !ts->pprev || !ts->pos || !ts->fen)
		return LOCUS_ENOMEM;
	/* Every task unassigned: node i of the tree covers (i - lowbit(i), i]. */
	for (size_t i = 1; i <= n; i++)
		ts->fen[i] = (uint32_t)(i & (~i + 1));
	for (size_t t = 0; t < n; t++) {
		ts->next[t] = t + 1 < n ? (uint32_t)(t + 1) : LOCUS__NIL;
		ts->prev[t] = t > 0 ? (uint32_t)(t - 1) : LOCUS__NIL;
	}
	ts->head = n ? 0 : LOCUS__NIL;
	ts->n_left = n;
	for (size_t node = 0; node < n_nodes; node++) {
		uint32_t a = wl->node_at[node], b = wl->node_at[node + 1];
		ts->node_head[node] = a < b ? a : LOCUS__NIL;
		ts->node_left[node] = b - a;
		for (uint32_t p = a; p < b; p++) {
			ts->pnext[p] = p + 1 < b ? p + 1 : LOCUS__NIL;
			ts->pprev[p] = p > a ? p - 1 : LOCUS__NIL;
			/* Tie the holder entry (task, node) to this position. */
			const struct locus_task *tk = &wl->tasks[wl->node_tasks[p]];
			for (uint32_t k = 0; k < tk->n_holders; k++)
				if (wl->holders[tk->holders_at + k] == node)
					ts->pos[tk->holders_at + k] = p;
		}
	}
	return 0;
}

static void taskset_fini(struct locus__taskset *ts)
{
	free(ts->next);
	free(ts->prev);
	free(ts->taken);
	free(ts->node_head);
	free(ts->node_left);
	free(ts->pnext);
	free(ts->pprev);
	free(ts->pos);
	free(ts->fen);
	memset(ts, 0, sizeof *ts);
}

/* Removes task `t` from every list it is on. */
static void taskset_take(struct locus__taskset *ts, const struct locus_workload *wl, uint32_t t)
{
	const struct locus_task *tk = &wl->tasks[t];

	ts->taken[t] = 1;
	ts->n_left--;
	for (size_t i = (size_t)t + 1; i <= wl->n_tasks; i += i & (~i + 1))
		ts->fen[i]--;
	if (ts->prev[t] != LOCUS__NIL)
		ts->next[ts->prev[t]] = ts->next[t];
	else
		ts->head = ts->next[t];
	if (ts->next[t] != LOCUS__NIL)
		ts->prev[ts->next[t]] = ts->prev[t];
	for (uint32_t k = 0; k < tk->n_holders; k++) {
		uint32_t node = wl->holders[tk->holders_at + k];
		uint32_t p = ts->pos[tk->holders_at + k];
		if (ts->pprev[p] != LOCUS__NIL)
			ts->pnext[ts->pprev[p]] = ts->pnext[p];
		else
			ts->node_head[node] = ts->pnext[p];
		if (ts->pnext[p] != LOCUS__NIL)
			ts->pprev[ts->pnext[p]] = ts->pprev[p];
		ts->node_left[node]--;
	}
}

uint32_t locus__taskset_rank(const struct locus__taskset *ts, uint32_t t)
{
	uint32_t sum = 0;
	for (size_t i = (size_t)t + 1; i > 0; i -= i & (~i + 1))
		sum += ts->fen[i];
	return sum;
}

/* ---- instances ----------------------------------------------------------- */

int locus__mw_create(void **state, size_t size, const struct locus_policy_ctx *ctx,
		     const struct locus__mw_ops *ops, const char *name, const char *takes,
		     struct locus_error *err)
{
	const struct locus_workload *wl = ctx->wl;
	struct locus__mw *mw;
	double prefetch = 1;

	*state = NULL;
	int rc =
	    locus_kv_double(ctx->opts, "prefetch", 1, 1, LOCUS__MW_MAX_PREFETCH, &prefetch, err);
	if (rc)
		return rc;
	if (prefetch != floor(prefetch))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s: prefetch must be a whole number of requests, got %g",
				  name, prefetch);
	if (ops->defers && prefetch > 1)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s defers requests and keeps one per worker: prefetch "
				  "must be 1",
				  name);
	const char *unknown = locus_kv_unused(ctx->opts);
	if (unknown)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s: unknown option \"%s\" (it takes %s)", name, unknown,
				  takes ? takes : "prefetch=K");
	if (!wl)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "policy %s: no workload", name);
	if (ctx->n_workers == 0 || ctx->n_workers > wl->n_workers || ctx->n_workers >= UINT32_MAX)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s: %zu workers for a workload of %zu", name,
				  ctx->n_workers, wl->n_workers);
	if (ctx->n_schedulers != 1)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s runs one master, not %zu schedulers", name,
				  ctx->n_schedulers);
	mw = calloc(1, size);
	if (!mw)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	mw->ops = ops;
	mw->wl = wl;
	mw->n_workers = (uint32_t)ctx->n_workers;
	mw->master = mw->n_workers;
	mw->prefetch = (uint32_t)prefetch;
	mw->n_nodes = wl->platform->n_nodes;
	locus_rng_init(&mw->rng, ctx->seed);
	mw->node_workers = locus__calloc(mw->n_nodes, sizeof *mw->node_workers);
	mw->req = locus__calloc(mw->n_workers, sizeof *mw->req);
	mw->w_out = locus__calloc(mw->n_workers, sizeof *mw->w_out);
	mw->w_no_more = locus__calloc(mw->n_workers, 1);
	mw->node_done = locus__calloc(mw->n_nodes, sizeof *mw->node_done);
	mw->node_busy = locus__calloc(mw->n_nodes, sizeof *mw->node_busy);
	mw->node_compute = locus__calloc(mw->n_nodes, sizeof *mw->node_compute);
	mw->node_rate = locus__calloc(mw->n_nodes, sizeof *mw->node_rate);
	if (!mw->node_workers || !mw->req || !mw->w_out || !mw->w_no_more || !mw->node_done ||
	    !mw->node_busy || !mw->node_compute || !mw->node_rate || taskset_init(&mw->ts, wl)) {
		locus__mw_destroy(mw);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	for (uint32_t w = 0; w < mw->n_workers; w++)
		mw->node_workers[wl->worker_node[w]]++;
	*state = mw;
	return 0;
}

void locus__mw_destroy(void *state)
{
	struct locus__mw *mw = state;

	if (!mw)
		return;
	if (mw->ops && mw->ops->fini)
		mw->ops->fini(mw);
	taskset_fini(&mw->ts);
	free(mw->node_workers);
	free(mw->req);
	free(mw->w_out);
	free(mw->w_no_more);
	free(mw->node_done);
	free(mw->node_busy);
	free(mw->node_compute);
	free(mw->node_rate);
	free(mw);
}

size_t locus__mw_schedulers(size_t n_workers, size_t requested)
{
	return 1;
}

/* ---- learning node speeds ------------------------------------------------ */

/* Node `node` finished a task that took `duration` (read + compute). */
static void learn(struct locus__mw *mw, uint32_t node, double duration, double compute)
{
	if (!(duration >= 0) || isinf(duration))
		return;
	mw->node_done[node]++;
	mw->node_busy[node] += duration;
	if (compute >= 0 && !isinf(compute))
		mw->node_compute[node] += compute;
	if (!(mw->node_busy[node] > 0))
		return; /* only instant tasks so far: no rate yet */
	double rate = mw->node_workers[node] * (double)mw->node_done[node] / mw->node_busy[node];
	if (mw->node_rate[node] > 0)
		mw->rate_sum -= mw->node_rate[node];
	else
		mw->n_rated++;
	mw->node_rate[node] = rate;
	mw->rate_sum += rate;
}

double locus__mw_speed(const struct locus__mw *mw, uint32_t node)
{
	if (!(mw->node_rate[node] > 0) || !(mw->rate_sum > 0))
		return 1.0;
	return mw->node_rate[node] * (double)mw->n_rated / mw->rate_sum;
}

/* ---- the master ----------------------------------------------------------- */

static void no_more(struct locus__mw *mw, uint32_t worker, struct locus_actions *act)
{
	struct locus_msg m = {.type = LOCUS__MW_NO_MORE, .from = mw->master, .to = worker};

	mw->req[worker].pending = 0;
	locus_act_send(act, &m);
}

/* The policy's choice for `worker` when its node can hold the task
 * (locus_workload_fits); else the first unassigned task in id order that
 * it can hold, or none: the unassigned tasks only grow fewer, so a worker
 * no task fits now stops. So fifo, monolithic, delay and dlmpi place a
 * task only where it fits without knowing of demands. */
static void fit_choice(struct locus__mw *mw, uint32_t worker, struct locus__mw_choice *c)
{
	uint32_t node = mw->wl->worker_node[worker];
	if (locus_workload_fits(mw->wl, c->task, node))
		return;
	c->verdict = LOCUS__MW_NONE;
	for (uint32_t t = mw->ts.head; t != LOCUS__NIL; t = mw->ts.next[t]) {
		c->entries++;
		if (locus_workload_fits(mw->wl, t, node)) {
			c->verdict = LOCUS__MW_ASSIGN;
			c->task = t;
			return;
		}
	}
}

/* Decides for `worker`'s request (fresh, or deferred and now due). */
static void decide(struct locus__mw *mw, uint32_t worker, double now, struct locus_actions *act)
{
	struct locus__mw_req *r = &mw->req[worker];
	struct locus__mw_choice c = {.verdict = LOCUS__MW_NONE};

	if (mw->ts.n_left == 0) {
		no_more(mw, worker, act);
		return;
	}
	mw->ops->choose(mw, worker, r, now, &c);
	if (c.verdict == LOCUS__MW_ASSIGN && mw->wl->graph->demand)
		fit_choice(mw, worker, &c);
	if (c.verdict == LOCUS__MW_ASSIGN && mw->ops->take)
		mw->ops->take(mw, c.task);
	mw->entries += c.entries;
	locus_act_cost(act, c.entries);
	switch (c.verdict) {
	case LOCUS__MW_ASSIGN:
		taskset_take(&mw->ts, mw->wl, c.task);
		if (locus_workload_is_local(mw->wl, c.task, mw->wl->worker_node[worker]))
			mw->local++;
		else
			mw->remote++;
		r->pending = 0;
		locus_act_assign(act, mw->master, worker, c.task, -1);
		/* The last task is gone: nobody waits for a timer any more. */
		if (mw->ts.n_left == 0)
			for (uint32_t w = 0; w < mw->n_workers; w++)
				if (mw->req[w].pending) {
					mw->released++;
					no_more(mw, w, act);
				}
		break;
	case LOCUS__MW_WAIT:
		r->pending = 1;
		r->gen++;
		r->retries++;
		mw->deferrals++;
		locus_act_timer(act, mw->master, c.wait, (uint64_t)r->gen << 32 | worker);
		break;
	case LOCUS__MW_NONE:
		no_more(mw, worker, act);
		break;
	}
}

static void master_event(struct locus__mw *mw, const struct locus_event *ev,
			 struct locus_actions *act)
{
	const struct locus_msg *m = ev->msg;

	if (ev->kind == LOCUS_EV_MESSAGE && m && m->type == LOCUS__MW_REQUEST &&
	    m->from < mw->n_workers) {
		uint32_t w = m->from;
		mw->requests++;
		if (m->arg[0] >= 0 && (uint64_t)m->arg[0] < mw->wl->n_tasks)
			learn(mw, mw->wl->worker_node[w], m->value, (double)m->arg[2] * 1e-9);
		mw->req[w] = (struct locus__mw_req){.gen = mw->req[w].gen, .since = ev->now};
		decide(mw, w, ev->now, act);
	} else if (ev->kind == LOCUS_EV_TIMER) {
		uint32_t w = (uint32_t)(ev->tag & 0xffffffffu);
		/* A timer of a request answered since then is stale. */
		if (w < mw->n_workers && mw->req[w].pending && mw->req[w].gen == ev->tag >> 32)
			decide(mw, w, ev->now, act);
	}
	/* START and SPEED need nothing: speeds are learned from what the
	 * workers report, as DL-MPI does, not told by the engine. */
}

/* ---- the workers ---------------------------------------------------------- */

static void request(struct locus__mw *mw, const struct locus_event *ev, struct locus_actions *act)
{
	struct locus_msg m = {
	    .type = LOCUS__MW_REQUEST, .from = ev->proc, .to = mw->master, .n_args = 1};

	m.arg[0] = -1;
	if (ev->kind == LOCUS_EV_DONE) {
		double ns = ev->done.compute * 1e9;
		m.n_args = 3;
		m.arg[0] = ev->done.task;
		m.arg[1] = ev->done.remote != 0;
		m.arg[2] = ns >= 0 && ns < 9e18 ? (int64_t)llround(ns) : 0;
		m.value = ev->done.duration;
	}
	locus_act_send(act, &m);
}

/* A worker keeps `prefetch` requests outstanding (docs/sim.md): it stops
 * once told there is no more work and every request it sent is answered,
 * so that no assignment can reach it after it stopped (a NO_MORE may
 * overtake an assignment sent just before it). */
static void worker_event(struct locus__mw *mw, const struct locus_event *ev,
			 struct locus_actions *act)
{
	uint32_t w = ev->proc;
	switch (ev->kind) {
	case LOCUS_EV_START:
		for (uint32_t i = 0; i < mw->prefetch; i++)
			request(mw, ev, act);
		mw->w_out[w] += mw->prefetch;
		break;
	case LOCUS_EV_DONE:
	case LOCUS_EV_FAILED:
		/* A failed attempt frees the worker as a finished one does; the
		 * engine runs the task again elsewhere (locus_retry_worker). */
		if (!mw->w_no_more[w]) {
			request(mw, ev, act);
			mw->w_out[w]++;
		}
		break;
	case LOCUS_EV_MESSAGE:
		/* LOCUS_MSG_ASSIGN needs nothing else: the engine starts the
		 * task (or queues it behind the running one). */
		if (!ev->msg ||
		    (ev->msg->type != LOCUS_MSG_ASSIGN && ev->msg->type != LOCUS__MW_NO_MORE))
			break;
		if (mw->w_out[w])
			mw->w_out[w]--;
		if (ev->msg->type == LOCUS__MW_NO_MORE)
			mw->w_no_more[w] = 1;
		if (mw->w_no_more[w] && !mw->w_out[w])
			locus_act_stop(act, ev->proc);
		break;
	default:
		break;
	}
}

void locus__mw_on_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct locus__mw *mw = state;

	if (ev->proc < mw->n_workers)
		worker_event(mw, ev, act);
	else if (ev->proc == mw->master)
		master_event(mw, ev, act);
}

/* ---- counters ------------------------------------------------------------- */

void locus__mw_counter(struct locus_policy_stats *out, const char *name, uint64_t value)
{
	for (size_t i = 0; i < LOCUS__ARRAY_LEN(out->counters); i++)
		if (!out->counter_names[i]) {
			out->counter_names[i] = name;
			out->counters[i] = value;
			return;
		}
}

void locus__mw_stats(void *state, struct locus_policy_stats *out)
{
	struct locus__mw *mw = state;

	memset(out, 0, sizeof *out);
	out->entries_examined = mw->entries;
	out->local_assignments = mw->local;
	out->remote_assignments = mw->remote;
	locus__mw_counter(out, "requests", mw->requests);
	if (mw->ops->stats)
		mw->ops->stats(mw, out);
}
