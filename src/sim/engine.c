/*
 * The discrete-event engine: delivers events to a policy in simulated time
 * and carries out its actions (see include/locus/sim.h for the model).
 *
 * Every process is a serial server with an inbox: an event that reaches a
 * busy process waits; handling one costs cost_per_msg plus cost_per_entry
 * per metadata entry the policy examined, and the actions take effect when
 * the handling ends. Events are ordered by time, then by a sequence number,
 * and flow completions (from the max-min sharing model) come before events
 * at the same instant, so a run is a pure function of its inputs.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "locus/bounds.h"
#include "locus/heap.h"
#include "locus/sim.h"
#include "sched/actions.h"
#include "sim/share.h"

enum ev_kind {
	EV_ARRIVE,   /* an item reaches proc's inbox */
	EV_FREE,     /* proc finished handling an event */
	EV_COMPUTED, /* worker proc finished computing its task */
	EV_READ	     /* worker proc's remote read gets its first byte */
};

struct ev {
	double t;
	uint64_t seq;
	uint32_t kind;
	uint32_t proc;
	uint32_t item; /* EV_ARRIVE */
};

/* What waits in an inbox: everything a policy can be told. */
struct item {
	struct locus_event ev; /* ev.msg points at msg below when a message */
	struct locus_msg msg;
	uint32_t next; /* inbox chain or free list */
};

#define NONE UINT32_MAX

struct proc {
	uint32_t node;
	uint32_t head, tail; /* inbox */
	int busy;	     /* handling an event until an EV_FREE */
	uint32_t qlen;	     /* events in its inbox */
	uint32_t qmax;	     /* most of them waiting at once */
	double qint, qlast;  /* integral of qlen over time, and when it last changed */
	/* workers */
	int stopped;
	uint32_t task; /* running task, or NONE */
	/* Assignments that arrived while it ran one (a policy's prefetch):
	 * run in arrival order, chained through engine.anext. */
	uint32_t ahead, atail;
	double idle_since; /* free for work since */
	double read_start;
	double read_end;
	/* The running task's read: its resources and the node it comes from
	 * (NONE: a shared file system or no holder), and the next worker
	 * waiting for a transfer slot of the same source. */
	uint32_t res[LOCUS__SHARE_MAX_RES], n_res;
	uint32_t source;
	uint32_t qnext;
};

struct engine {
	const struct locus_sim_config *cfg;
	const struct locus_workload *wl;
	const struct locus_platform *p;
	struct locus_error *err;
	void *pol;
	size_t n_workers, n_scheds, n_procs;
	struct proc *procs;
	struct locus_heap heap;
	uint64_t seq;
	struct item *items;
	size_t n_items, items_cap;
	uint32_t free_items;
	struct locus__share *share;
	uint32_t res_backbone, res_fs; /* NONE when absent */
	uint32_t res_racks;	       /* rack k's uplink: out res_racks + 2k, in + 1; NONE: none */
	uint32_t *node_rack;	       /* by node: its rack's index */
	uint32_t *out_flows;	       /* active outgoing remote reads per node */
	uint32_t *serving;	       /* by node: remote reads it is serving */
	uint32_t *qhead, *qtail;       /* by node: reads waiting for a transfer slot */
	struct locus_actions act;
	/* speed changes per node: seg_at[n] .. seg_at[n+1] in segs */
	size_t *seg_at;
	struct locus_speed_change *segs;
	double latency;
	/* bookkeeping */
	uint8_t *assigned;
	uint32_t *anext; /* by task: the next queued assignment of its worker */
	int64_t *ahint;	 /* by task: the hint its assignment carried */
	size_t done, next_progress;
	double *waits;
	size_t n_waits;
	struct locus_result *r;
	int failed;
};

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int fail(struct engine *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Records the first failure of a run; later ones are consequences. */
static int fail(struct engine *e, int code, const char *fmt, ...)
{
	if (!e->failed && e->err) {
		va_list ap;
		locus_error_clear(e->err);
		e->err->code = code;
		va_start(ap, fmt);
		vsnprintf(e->err->message, sizeof e->err->message, fmt, ap);
		va_end(ap);
	}
	if (!e->failed)
		e->failed = code;
	return code;
}

static int push_ev(struct engine *e, double t, uint32_t kind, uint32_t proc, uint32_t item)
{
	struct ev v = {t, e->seq++, kind, proc, item};
	if (locus_heap_push(&e->heap, &v))
		return fail(e, LOCUS_ENOMEM, "out of memory");
	return 0;
}

static uint32_t new_item(struct engine *e)
{
	uint32_t i = e->free_items;
	if (i != NONE) {
		e->free_items = e->items[i].next;
	} else {
		if (locus__grow(&e->items, &e->items_cap, e->n_items + 1, sizeof *e->items)) {
			fail(e, LOCUS_ENOMEM, "out of memory");
			return NONE;
		}
		i = (uint32_t)e->n_items++;
	}
	memset(&e->items[i], 0, sizeof e->items[i]);
	e->items[i].next = NONE;
	return i;
}

static void free_item(struct engine *e, uint32_t i)
{
	e->items[i].next = e->free_items;
	e->free_items = i;
}

/* Node speed at time t. */
static double speed_at(const struct engine *e, uint32_t node, double t)
{
	double s = e->p->nodes[node].speed;
	for (size_t k = e->seg_at[node]; k < e->seg_at[node + 1] && e->segs[k].time <= t; k++)
		s = e->segs[k].speed;
	return s;
}

/* When `work` seconds of speed-1 compute started at t0 on `node` end. */
static double compute_end(const struct engine *e, uint32_t node, double t0, double work)
{
	double t = t0, s = speed_at(e, node, t0);
	for (size_t k = e->seg_at[node]; k < e->seg_at[node + 1]; k++) {
		if (e->segs[k].time <= t)
			continue;
		double span = e->segs[k].time - t;
		if (span * s >= work)
			break;
		work -= span * s;
		t = e->segs[k].time;
		s = e->segs[k].speed;
	}
	return t + work / s;
}

static void schedule_handle(struct engine *e, uint32_t proc, double now);

/* Puts item `i` into proc's inbox at time `now` and handles it if idle. */
/* The inbox of a process grows or shrinks by one at `now`. */
static void queue_step(struct proc *pr, int up, double now)
{
	pr->qint += pr->qlen * (now - pr->qlast);
	pr->qlast = now;
	pr->qlen = up ? pr->qlen + 1 : pr->qlen - 1;
	if (up && pr->busy && pr->qlen > pr->qmax)
		pr->qmax = pr->qlen;
}

static void arrive(struct engine *e, uint32_t proc, uint32_t i, double now)
{
	struct proc *pr = &e->procs[proc];
	queue_step(pr, 1, now);
	if (pr->tail == NONE)
		pr->head = i;
	else
		e->items[pr->tail].next = i;
	pr->tail = i;
	if (!pr->busy)
		schedule_handle(e, proc, now);
}

static double msg_delay(const struct engine *e, const struct locus_msg *m)
{
	uint32_t a = e->procs[m->from].node, b = e->procs[m->to].node;
	double bw = e->p->nodes[a].net_bw < e->p->nodes[b].net_bw ? e->p->nodes[a].net_bw
								  : e->p->nodes[b].net_bw;
	uint32_t bytes = m->bytes ? m->bytes : 16 + 8 * m->n_args;
	return e->latency + bytes / bw;
}

static void start_task(struct engine *e, uint32_t w, uint32_t t, int64_t hint, double now);
static void assign(struct engine *e, uint32_t w, uint32_t t, int64_t hint, double now);

/* Carries out the actions of one handled event, at time `now`. */
static void apply_actions(struct engine *e, uint32_t proc, double now)
{
	for (size_t k = 0; k < e->act.n && !e->failed; k++) {
		struct locus__action *a = &e->act.list[k];
		if (a->kind == LOCUS__ACT_SEND) {
			struct locus_msg *m = &a->msg;
			if (m->to >= e->n_procs) {
				fail(e, LOCUS_EINCOMPLETE,
				     "policy %s sent a message to process %ld of %ld",
				     e->cfg->policy->name, (long)m->to, (long)e->n_procs);
				return;
			}
			m->from = proc;
			e->r->messages++;
			e->r->message_bytes += m->bytes ? m->bytes : 16 + 8 * m->n_args;
			uint32_t i = new_item(e);
			if (i == NONE)
				return;
			e->items[i].msg = *m;
			e->items[i].ev.kind = LOCUS_EV_MESSAGE;
			e->items[i].ev.proc = m->to;
			push_ev(e, now + msg_delay(e, m), EV_ARRIVE, m->to, i);
		} else if (a->kind == LOCUS__ACT_TIMER) {
			uint32_t i = new_item(e);
			if (i == NONE)
				return;
			e->items[i].ev.kind = LOCUS_EV_TIMER;
			e->items[i].ev.proc = a->proc;
			e->items[i].ev.tag = a->tag;
			push_ev(e, now + a->delay, EV_ARRIVE, a->proc, i);
		} else if (a->kind == LOCUS__ACT_STOP) {
			if (a->proc < e->n_workers)
				e->procs[a->proc].stopped = 1;
		}
	}
}

/* Handles the first event of proc's inbox at time `now`. */
static void schedule_handle(struct engine *e, uint32_t proc, double now)
{
	struct proc *pr = &e->procs[proc];
	while (pr->head != NONE && !e->failed) {
		uint32_t i = pr->head;
		queue_step(pr, 0, now);
		pr->head = e->items[i].next;
		if (pr->head == NONE)
			pr->tail = NONE;
		struct item *it = &e->items[i];
		it->ev.now = now;
		it->ev.proc = proc;
		if (it->ev.kind == LOCUS_EV_MESSAGE)
			it->ev.msg = &it->msg;
		/* An assignment starts the task on arrival; the policy is told too. */
		if (it->ev.kind == LOCUS_EV_MESSAGE && it->msg.type == LOCUS_MSG_ASSIGN) {
			if (proc >= e->n_workers) {
				fail(e, LOCUS_EINCOMPLETE,
				     "policy %s assigned a task to scheduler %ld",
				     e->cfg->policy->name, (long)proc);
				return;
			}
			assign(e, proc, (uint32_t)it->msg.arg[0], it->msg.arg[1], now);
			if (e->failed)
				return;
		}
		locus__actions_reset(&e->act);
		e->cfg->policy->on_event(e->pol, &it->ev, &e->act);
		e->r->events++;
		if (e->act.oom) {
			fail(e, LOCUS_ENOMEM, "out of memory");
			return;
		}
		/* Handling a message costs cost_per_msg; any decision costs its
		 * metadata entries. Starts, timers and completions are free. */
		double cost = (it->ev.kind == LOCUS_EV_MESSAGE ? e->cfg->cost_per_msg : 0) +
			      e->cfg->cost_per_entry * (double)e->act.entries;
		if (proc >= e->n_workers) {
			struct locus_sched_result *s = &e->r->scheds[proc - e->n_workers];
			s->events++;
			s->busy += cost;
		}
		e->r->pstats.entries_examined += e->act.entries;
		free_item(e, i);
		if (cost > 0) {
			pr->busy = 1;
			apply_actions(e, proc, now + cost);
			push_ev(e, now + cost, EV_FREE, proc, NONE);
			return;
		}
		apply_actions(e, proc, now);
	}
}

/* Where task t's stored input is read from: the policy's hint when it
 * names a holder, else the shared rule (locus_source_pick). */
static uint32_t pick_source(struct engine *e, uint32_t t, uint32_t node, int64_t hint)
{
	const struct locus_task *tk = &e->wl->tasks[t];
	const uint32_t *h = e->wl->holders + tk->holders_at;
	if (hint >= 0)
		for (uint32_t k = 0; k < tk->n_holders; k++)
			if (h[k] == (uint32_t)hint)
				return h[k];
	return locus_source_pick(e->p, h, tk->n_holders, node, t);
}

/* Starts worker w's read as a flow through its resources. */
static void start_flow(struct engine *e, uint32_t w, double now)
{
	struct proc *pr = &e->procs[w];
	if (locus__share_start(e->share, now, pr->res, pr->n_res, 0,
			       (double)e->wl->tasks[pr->task].bytes, w))
		fail(e, LOCUS_ENOMEM, "out of memory");
}

/* A read over the network gets a transfer slot of its source (a node
 * serves at most max_transfers remote reads at once; the others wait in
 * the order they came) and starts one latency later. */
static void request_read(struct engine *e, uint32_t w, double now)
{
	struct proc *pr = &e->procs[w];
	uint32_t src = pr->source;
	if (src != NONE) {
		int limit = e->p->nodes[src].max_transfers;
		if (limit > 0 && e->serving[src] >= (uint32_t)limit) {
			pr->qnext = NONE;
			if (e->qhead[src] == NONE)
				e->qhead[src] = w;
			else
				e->procs[e->qtail[src]].qnext = w;
			e->qtail[src] = w;
			return;
		}
		e->serving[src]++;
	}
	if (e->latency > 0)
		push_ev(e, now + e->latency, EV_READ, w, NONE);
	else
		start_flow(e, w, now);
}

/* An assignment of task t reached worker w: it starts now if the worker is
 * free, else waits in the worker's queue. */
static void assign(struct engine *e, uint32_t w, uint32_t t, int64_t hint, double now)
{
	struct proc *pr = &e->procs[w];
	if (t >= e->wl->n_tasks) {
		fail(e, LOCUS_EINCOMPLETE, "policy %s assigned task %ld of %ld",
		     e->cfg->policy->name, (long)t, (long)e->wl->n_tasks);
		return;
	}
	if (e->assigned[t]) {
		fail(e, LOCUS_EINCOMPLETE,
		     "policy %s assigned task %ld twice (second time to worker %ld)",
		     e->cfg->policy->name, (long)t, (long)w);
		return;
	}
	if (pr->stopped) {
		fail(e, LOCUS_EINCOMPLETE,
		     "policy %s assigned task %ld to worker %ld, which it had stopped",
		     e->cfg->policy->name, (long)t, (long)w);
		return;
	}
	e->assigned[t] = 1;
	if (e->r->tasks)
		e->r->tasks[t].assigned = now;
	if (pr->task == NONE) {
		start_task(e, w, t, hint, now);
		return;
	}
	e->anext[t] = NONE;
	e->ahint[t] = hint;
	if (pr->atail == NONE)
		pr->ahead = t;
	else
		e->anext[pr->atail] = t;
	pr->atail = t;
}

static void start_task(struct engine *e, uint32_t w, uint32_t t, int64_t hint, double now)
{
	struct proc *pr = &e->procs[w];
	pr->task = t;
	pr->read_start = now;
	double wait = now - pr->idle_since;
	e->waits[e->n_waits++] = wait;
	struct locus_worker_result *wr = &e->r->workers[w];
	if (wait > wr->max_wait)
		wr->max_wait = wait;
	wr->idle += wait;
	const struct locus_task *tk = &e->wl->tasks[t];
	uint32_t node = pr->node, n_nodes = (uint32_t)e->p->n_nodes;
	uint32_t res[LOCUS__SHARE_MAX_RES], n = 0, source;
	int local = 0;
	if (e->res_fs != NONE) {
		source = NONE;
		res[n++] = e->res_fs;
		res[n++] = 2 * n_nodes + node;
	} else if (locus_workload_is_local(e->wl, t, node)) {
		source = node;
		local = 1;
		res[n++] = node;
	} else {
		source = pick_source(e, t, node, hint);
		if (source == NONE) {
			/* No node holds it: it arrives over the reader's link. */
			res[n++] = 2 * n_nodes + node;
		} else {
			res[n++] = source;
			res[n++] = n_nodes + source;
			res[n++] = 2 * n_nodes + node;
			if (e->res_backbone != NONE)
				res[n++] = e->res_backbone;
			if (e->res_racks != NONE && e->node_rack[source] != e->node_rack[node]) {
				res[n++] = e->res_racks + 2 * e->node_rack[source];
				res[n++] = e->res_racks + 2 * e->node_rack[node] + 1;
			}
			e->out_flows[source]++;
		}
	}
	if (e->r->tasks) {
		struct locus_task_result *tr = &e->r->tasks[t];
		tr->worker = w;
		tr->node = node;
		tr->source = source;
		tr->local = (uint32_t)local;
		tr->idle_since = pr->idle_since;
	}
	wr->tasks++;
	if (local) {
		wr->local_tasks++;
		wr->bytes_local += tk->bytes;
		e->r->local_tasks++;
		e->r->bytes_local += tk->bytes;
	} else {
		wr->bytes_remote += tk->bytes;
		e->r->bytes_remote += tk->bytes;
	}
	pr->n_res = n;
	memcpy(pr->res, res, n * sizeof *res);
	pr->source = local ? node : source;
	if (local)
		start_flow(e, w, now);
	else
		request_read(e, w, now);
}

static void read_done(struct engine *e, uint64_t user, double now)
{
	uint32_t w = (uint32_t)user;
	struct proc *pr = &e->procs[w];
	uint32_t t = pr->task, source = pr->source;
	if (source != NONE && source != pr->node) {
		e->out_flows[source]--;
		e->serving[source]--;
		/* The slot goes to the first waiting read. */
		uint32_t next = e->qhead[source];
		if (next != NONE) {
			e->qhead[source] = e->procs[next].qnext;
			request_read(e, next, now);
		}
	}
	pr->read_end = now;
	if (e->r->tasks)
		e->r->tasks[t].read_end = now;
	double end = compute_end(e, pr->node, now, e->wl->tasks[t].work);
	push_ev(e, end, EV_COMPUTED, w, NONE);
}

static void computed(struct engine *e, uint32_t w, double now)
{
	struct proc *pr = &e->procs[w];
	uint32_t t = pr->task;
	double duration = now - pr->read_start;
	e->r->workers[w].busy += duration;
	if (e->r->tasks)
		e->r->tasks[t].end = now;
	if (now > e->r->makespan)
		e->r->makespan = now;
	pr->task = NONE;
	pr->idle_since = now;
	e->done++;
	if (e->cfg->progress && e->done >= e->next_progress) {
		e->cfg->progress(e->cfg->progress_user, e->done, e->wl->n_tasks, now);
		e->next_progress = e->done + (e->wl->n_tasks + 99) / 100;
	}
	uint32_t i = new_item(e);
	if (i == NONE)
		return;
	struct locus_event *ev = &e->items[i].ev;
	ev->kind = LOCUS_EV_DONE;
	ev->done.task = t;
	ev->done.duration = duration;
	ev->done.compute = now - pr->read_end;
	ev->done.remote = !locus_workload_is_local(e->wl, t, pr->node) || e->res_fs != NONE;
	arrive(e, w, i, now);
	/* The next queued assignment starts at once. */
	uint32_t next = pr->ahead;
	if (next != NONE) {
		pr->ahead = e->anext[next];
		if (pr->ahead == NONE)
			pr->atail = NONE;
		start_task(e, w, next, e->ahint[next], now);
	}
}

struct rack_of {
	const char *rack;
	uint32_t node;
};

static int cmp_rack(const void *a, const void *b)
{
	const struct rack_of *x = a, *y = b;
	int c = strcmp(x->rack, y->rack);
	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* Numbers the racks in name order into node_rack (by node); returns how
 * many there are (0 when out of memory). */
static size_t rack_index(const struct locus_platform *p, uint32_t *node_rack)
{
	size_t nn = p->n_nodes, k = 0;
	struct rack_of *order = locus__calloc(nn, sizeof *order);
	if (!order)
		return 0;
	for (size_t n = 0; n < nn; n++)
		order[n] = (struct rack_of){p->nodes[n].rack, (uint32_t)n};
	qsort(order, nn, sizeof *order, cmp_rack);
	for (size_t i = 0; i < nn; i++) {
		if (i && strcmp(order[i].rack, order[i - 1].rack))
			k++;
		node_rack[order[i].node] = (uint32_t)k;
	}
	free(order);
	return nn ? k + 1 : 0;
}

static int setup(struct engine *e)
{
	const struct locus_sim_config *cfg = e->cfg;
	size_t nn = e->p->n_nodes;
	e->n_workers = e->wl->n_workers;
	e->n_scheds = cfg->policy->schedulers(e->n_workers, cfg->schedulers);
	if (cfg->schedulers && e->n_scheds != cfg->schedulers)
		return fail(e, LOCUS_EINVAL, "policy %s runs %zu scheduler%s, not %zu",
			    cfg->policy->name, e->n_scheds, e->n_scheds == 1 ? "" : "s",
			    cfg->schedulers);
	if (!e->n_workers)
		return fail(e, LOCUS_EINVAL,
			    "the platform runs no worker (every node has 0 cores)");
	e->n_procs = e->n_workers + e->n_scheds;
	e->latency = cfg->latency >= 0 ? cfg->latency : e->p->latency;
	e->procs = locus__calloc(e->n_procs, sizeof *e->procs);
	e->assigned = locus__calloc(e->wl->n_tasks, 1);
	e->anext = locus__calloc(e->wl->n_tasks ? e->wl->n_tasks : 1, sizeof *e->anext);
	e->ahint = locus__calloc(e->wl->n_tasks ? e->wl->n_tasks : 1, sizeof *e->ahint);
	e->waits = locus__calloc(e->wl->n_tasks, sizeof *e->waits);
	e->out_flows = locus__calloc(nn, sizeof *e->out_flows);
	e->serving = locus__calloc(nn, sizeof *e->serving);
	e->qhead = locus__calloc(nn, sizeof *e->qhead);
	e->qtail = locus__calloc(nn, sizeof *e->qtail);
	e->seg_at = locus__calloc(nn + 1, sizeof *e->seg_at);
	e->segs = locus__calloc(cfg->n_speed, sizeof *e->segs);
	struct locus_result *r = e->r;
	r->workers = locus__calloc(e->n_workers, sizeof *r->workers);
	r->scheds = locus__calloc(e->n_scheds, sizeof *r->scheds);
	if (!cfg->no_task_results)
		r->tasks = locus__calloc(e->wl->n_tasks, sizeof *r->tasks);
	e->node_rack = locus__calloc(nn, sizeof *e->node_rack);
	size_t n_racks = e->node_rack ? rack_index(e->p, e->node_rack) : 0;
	double *cap = locus__calloc(3 * nn + 2 + 2 * n_racks, sizeof *cap);
	if (!e->procs || !e->assigned || !e->anext || !e->ahint || !e->waits || !e->out_flows ||
	    !e->serving || !e->qhead || !e->qtail || !e->node_rack || !n_racks || !e->seg_at ||
	    !e->segs || !r->workers || !r->scheds || (!cfg->no_task_results && !r->tasks) || !cap) {
		free(cap);
		return fail(e, LOCUS_ENOMEM, "out of memory");
	}
	/* Resources: disks, outgoing and incoming links, then the backbone,
	 * the shared file system and the racks' uplinks when there are. */
	size_t n_res = 3 * nn;
	for (size_t n = 0; n < nn; n++) {
		cap[n] = e->p->nodes[n].disk_bw;
		cap[nn + n] = e->p->nodes[n].net_bw;
		cap[2 * nn + n] = e->p->nodes[n].net_bw;
	}
	e->res_backbone = e->res_fs = NONE;
	if (e->p->backbone_bw > 0) {
		e->res_backbone = (uint32_t)n_res;
		cap[n_res++] = e->p->backbone_bw;
	}
	if (cfg->shared_fs_bw > 0) {
		e->res_fs = (uint32_t)n_res;
		cap[n_res++] = cfg->shared_fs_bw;
	}
	e->res_racks = NONE;
	if (e->p->rack_bw > 0 && n_racks > 1) {
		e->res_racks = (uint32_t)n_res;
		for (size_t k = 0; k < 2 * n_racks; k++)
			cap[n_res++] = e->p->rack_bw;
	}
	int rc = locus__share_create(&e->share, n_res, cap);
	free(cap);
	if (rc)
		return fail(e, rc, "cannot set up the resources");
	/* Speed changes by node, in time order. */
	for (size_t k = 0; k < cfg->n_speed; k++) {
		const struct locus_speed_change *c = &cfg->speed[k];
		if (c->node >= nn || !(c->speed > 0) || !(c->time >= 0) ||
		    (k && c->time < cfg->speed[k - 1].time))
			return fail(e, LOCUS_EINVAL,
				    "speed change %zu: expected a node below %zu, a speed > 0 and "
				    "times in order",
				    k, nn);
		e->seg_at[c->node + 1]++;
	}
	for (size_t n = 0; n < nn; n++)
		e->seg_at[n + 1] += e->seg_at[n];
	size_t *fill = locus__calloc(nn, sizeof *fill);
	if (!fill)
		return fail(e, LOCUS_ENOMEM, "out of memory");
	for (size_t k = 0; k < cfg->n_speed; k++) {
		uint32_t n = cfg->speed[k].node;
		e->segs[e->seg_at[n] + fill[n]++] = cfg->speed[k];
	}
	free(fill);
	for (size_t w = 0; w < e->n_workers; w++) {
		e->procs[w].node = e->wl->worker_node[w];
		e->r->workers[w].node = e->wl->worker_node[w];
	}
	/* Schedulers spread over the nodes. */
	for (size_t s = 0; s < e->n_scheds; s++)
		e->procs[e->n_workers + s].node = (uint32_t)(s * nn / e->n_scheds);
	for (size_t i = 0; i < e->n_procs; i++) {
		e->procs[i].head = e->procs[i].tail = NONE;
		e->procs[i].ahead = e->procs[i].atail = NONE;
		e->procs[i].task = NONE;
	}
	for (size_t n = 0; n < nn; n++)
		e->qhead[n] = e->qtail[n] = NONE;
	e->free_items = NONE;
	return locus_heap_init(&e->heap, sizeof(struct ev), cmp_ev)
		   ? fail(e, LOCUS_ENOMEM, "out of memory")
		   : 0;
}

static int run(struct engine *e)
{
	/* Every process starts at time 0, in id order; speed changes are told
	 * to every scheduler. */
	for (uint32_t i = 0; i < e->n_procs && !e->failed; i++) {
		uint32_t it = new_item(e);
		if (it == NONE)
			break;
		e->items[it].ev.kind = LOCUS_EV_START;
		push_ev(e, 0, EV_ARRIVE, i, it);
	}
	for (size_t k = 0; k < e->cfg->n_speed && !e->failed; k++)
		for (size_t s = 0; s < e->n_scheds && !e->failed; s++) {
			uint32_t it = new_item(e);
			if (it == NONE)
				break;
			e->items[it].ev.kind = LOCUS_EV_SPEED;
			e->items[it].ev.speed.node = e->cfg->speed[k].node;
			e->items[it].ev.speed.speed = e->cfg->speed[k].speed;
			push_ev(e, e->cfg->speed[k].time, EV_ARRIVE, (uint32_t)(e->n_workers + s),
				it);
		}
	while (!e->failed) {
		const struct ev *top = locus_heap_peek(&e->heap);
		double te = top ? top->t : INFINITY, tf = locus__share_next(e->share);
		if (te == INFINITY && tf == INFINITY)
			break;
		if (tf <= te) {
			uint64_t user;
			if (locus__share_pop(e->share, tf, &user))
				read_done(e, user, tf);
			continue;
		}
		struct ev v;
		locus_heap_pop(&e->heap, &v);
		switch (v.kind) {
		case EV_ARRIVE:
			arrive(e, v.proc, v.item, v.t);
			break;
		case EV_FREE:
			e->procs[v.proc].busy = 0;
			schedule_handle(e, v.proc, v.t);
			break;
		case EV_COMPUTED:
			computed(e, v.proc, v.t);
			break;
		case EV_READ:
			start_flow(e, v.proc, v.t);
			break;
		}
	}
	if (e->failed)
		return e->failed;
	if (e->done < e->wl->n_tasks) {
		size_t t = 0;
		while (t < e->wl->n_tasks && e->assigned[t])
			t++;
		if (t < e->wl->n_tasks)
			return fail(e, LOCUS_EINCOMPLETE,
				    "policy %s ended the run with %zu of %zu tasks done (task %zu "
				    "was never assigned)",
				    e->cfg->policy->name, e->done, e->wl->n_tasks, t);
		return fail(e, LOCUS_EINCOMPLETE, "the run ended with %zu of %zu tasks done",
			    e->done, e->wl->n_tasks);
	}
	return 0;
}

static void summarise(struct engine *e)
{
	struct locus_result *r = e->r;
	locus_result_set_waits(r, e->waits, e->n_waits);
	for (size_t s = 0; s < e->n_scheds; s++) {
		const struct proc *pr = &e->procs[e->n_workers + s];
		r->sched_busy_total += r->scheds[s].busy;
		if (r->scheds[s].busy > r->sched_busy_max)
			r->sched_busy_max = r->scheds[s].busy;
		r->scheds[s].queue_max = pr->qmax;
		r->scheds[s].queue_mean = r->makespan > 0 ? pr->qint / r->makespan : 0;
	}
	for (size_t w = 0; w < e->n_workers; w++)
		r->worker_idle_total += r->workers[w].idle;
	struct locus_bound_env env = {.shared_fs_bw = e->cfg->shared_fs_bw,
				      .speed = e->cfg->speed,
				      .n_speed = e->cfg->n_speed};
	struct locus_makespan_bound mb;
	r->lb_makespan = locus_bound_makespan(e->wl, &env, &mb);
	r->lb_work = mb.work;
	r->lb_io = mb.io;
	r->lb_serial = mb.serial;
	r->lb_longest = mb.longest;
	uint64_t entries = r->pstats.entries_examined;
	if (e->cfg->policy->stats)
		e->cfg->policy->stats(e->pol, &r->pstats);
	if (!r->pstats.entries_examined)
		r->pstats.entries_examined = entries;
}

int locus_sim_run(struct locus_result **out, const struct locus_sim_config *cfg,
		  struct locus_error *err)
{
	struct engine e = {0};
	struct locus_kv kv = {0};
	struct timespec t0, t1;
	*out = NULL;
	if (!cfg || !cfg->wl || !cfg->policy)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no workload or no policy");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	e.cfg = cfg;
	e.wl = cfg->wl;
	e.p = cfg->wl->platform;
	e.err = err;
	e.r = calloc(1, sizeof *e.r);
	if (!e.r)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	snprintf(e.r->engine, sizeof e.r->engine, "sim");
	snprintf(e.r->policy, sizeof e.r->policy, "%s", cfg->policy->name);
	e.r->seed = cfg->seed;
	e.r->opt_local = -1;
	int rc = locus_kv_parse(&kv, cfg->policy_opts, err);
	if (!rc)
		rc = setup(&e);
	if (!rc) {
		struct locus_policy_ctx ctx = {.wl = e.wl,
					       .n_workers = e.n_workers,
					       .n_schedulers = e.n_scheds,
					       .seed = cfg->seed,
					       .opts = &kv};
		rc = cfg->policy->create(&e.pol, &ctx, err);
		if (!rc && locus_kv_unused(&kv))
			rc = locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
					"policy %s has no option \"%s\"", cfg->policy->name,
					locus_kv_unused(&kv));
	}
	if (!rc)
		rc = run(&e);
	if (!rc) {
		e.r->n_tasks = e.wl->n_tasks;
		e.r->n_workers = e.n_workers;
		e.r->n_schedulers = e.n_scheds;
		e.r->n_nodes = e.p->n_nodes;
		summarise(&e);
	}
	if (e.pol)
		cfg->policy->destroy(e.pol);
	locus_kv_fini(&kv);
	locus_heap_fini(&e.heap);
	locus__share_destroy(e.share);
	locus__actions_fini(&e.act);
	free(e.procs);
	free(e.items);
	free(e.assigned);
	free(e.anext);
	free(e.ahint);
	free(e.waits);
	free(e.out_flows);
	free(e.serving);
	free(e.qhead);
	free(e.qtail);
	free(e.node_rack);
	free(e.seg_at);
	free(e.segs);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc) {
		locus_result_destroy(e.r);
		return rc;
	}
	e.r->wall_seconds =
	    (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	*out = e.r;
	return 0;
}
