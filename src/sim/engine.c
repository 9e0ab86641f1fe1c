/*
 * The simulator's event loop (engine.h says how the engine works and what
 * each of its files holds): events in time order, the processes' inboxes
 * and the policy's handling of what reaches them, the run's set-up, its
 * end and its result's summary; locus_sim_run.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locus/bounds.h"
#include "locus/dag.h"
#include "sim/engine.h"

/* What the policy's calls cost on this machine (time_policy), never the
 * simulated time: the monotonic clock (1), or this thread's CPU time (2),
 * which the machine's load does not inflate but which is a system call
 * each read on some kernels. */
static double policy_clock(const struct locus_sim_config *cfg)
{
	struct timespec ts;
	clock_gettime(cfg->time_policy == 2 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Completions come first at an instant: a computation ended (its outputs
 * registered) and an object arrived (contention-free) before anything
 * that observes the run at that time - a message or timer reaching a
 * policy, which reads the monitor, a platform change, a worker starting
 * its next task - as the sharing model's flows already do. Otherwise a
 * policy woken at the instant a task ends would see it computed and its
 * output nowhere. */
static int ev_class(uint32_t kind)
{
	return kind == EV_COMPUTED || kind == EV_MOVED ? 0 : 1;
}

/* Events by time, then class, then the order they were pushed: the class
 * is bit 63 of seq, so one comparison of (t, seq) orders them. Keys are
 * unique, so the order of pops does not depend on the heap's shape. */
static int ev_before(const struct ev *x, const struct ev *y)
{
	return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static int evq_push(struct engine *e, const struct ev *v)
{
	if (locus__grow(&e->evq, &e->ev_cap, e->n_ev + 1, sizeof *e->evq))
		return LOCUS_ENOMEM;
	size_t i = e->n_ev++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!ev_before(v, &e->evq[p]))
			break;
		e->evq[i] = e->evq[p];
		i = p;
	}
	e->evq[i] = *v;
	return 0;
}

static void evq_pop(struct engine *e, struct ev *out)
{
	*out = e->evq[0];
	struct ev last = e->evq[--e->n_ev];
	size_t i = 0, n = e->n_ev;
	if (!n)
		return;
	for (;;) {
		size_t l = 2 * i + 1, m = l;
		if (l >= n)
			break;
		if (l + 1 < n && ev_before(&e->evq[l + 1], &e->evq[l]))
			m = l + 1;
		if (!ev_before(&e->evq[m], &last))
			break;
		e->evq[i] = e->evq[m];
		i = m;
	}
	e->evq[i] = last;
}

/* Event v, made d after its time, into the lane of delay d (or a lane
 * holding nothing) if its key comes after that lane's last; 0 when it
 * went there, 1 when it goes into the heap. */
static int lane_push(struct engine *e, double d, const struct ev *v)
{
	struct lane *l = NULL, *idle = NULL;
	const struct ev *at = NULL;
	for (unsigned k = 0; k < LANES; k++) {
		struct lane *x = &e->lanes[k];
		if (!x->n) {
			idle = idle ? idle : x;
			continue;
		}
		const struct ev *last = &x->ring[(x->head + x->n - 1) & (x->cap - 1)];
		if (x->d == d && !ev_before(v, last) && (!at || ev_before(at, last))) {
			l = x;
			at = last;
		}
	}
	if (!l) {
		if (!idle)
			return 1;
		l = idle;
		l->d = d;
		l->head = 0;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct ev *r = locus__reallocarray(NULL, cap, sizeof *r);
		if (!r)
			return 1;
		for (size_t i = 0; i < l->n; i++)
			r[i] = l->ring[(l->head + i) & (l->cap - 1)];
		free(l->ring);
		l->ring = r;
		l->cap = cap;
		l->head = 0;
	}
	l->ring[(l->head + l->n++) & (l->cap - 1)] = *v;
	return 0;
}

/* The next event: the least of the heap's top and the lanes' heads; *src
 * says where (-1 the heap, else the lane). NULL when none is left. */
static const struct ev *ev_next(const struct engine *e, int *src)
{
	const struct ev *best = e->n_ev ? &e->evq[0] : NULL;
	*src = -1;
	for (unsigned k = 0; k < LANES; k++) {
		const struct lane *l = &e->lanes[k];
		if (l->n && (!best || ev_before(&l->ring[l->head], best))) {
			best = &l->ring[l->head];
			*src = (int)k;
		}
	}
	return best;
}

/* Takes the next event off where ev_next found it. */
static void ev_take(struct engine *e, int src, struct ev *out)
{
	if (src < 0) {
		evq_pop(e, out);
		return;
	}
	struct lane *l = &e->lanes[src];
	*out = l->ring[l->head];
	l->head = (l->head + 1) & (l->cap - 1);
	l->n--;
}

/* Records the first failure of a run; later ones are consequences. */
int locus__sim_fail(struct engine *e, int code, const char *fmt, ...)
{
	if (!e->x.failed && e->err) {
		va_list ap;
		locus_error_clear(e->err);
		e->err->code = code;
		va_start(ap, fmt);
		vsnprintf(e->err->message, sizeof e->err->message, fmt, ap);
		va_end(ap);
	}
	if (!e->x.failed)
		e->x.failed = code;
	return code;
}

/* The run cannot finish for a reason of the platform's (a failure the
 * policy does not get past): the result says why. */
void locus__sim_halt(struct engine *e, const char *fmt, ...)
{
	if (e->x.halted)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->r->failure, sizeof e->r->failure, fmt, ap);
	va_end(ap);
	e->r->failed = 1;
	e->x.halted = 1;
}

const char *locus__sim_task_name(const struct engine *e, uint32_t t, char *buf, size_t size)
{
	return locus_graph_task_name(e->g, t, buf, size);
}

const char *locus__sim_object_name(const struct engine *e, uint32_t o, char *buf, size_t size)
{
	return locus__exec_object_name(&e->x, o, buf, size);
}

/* An event at `now` plus a delay d: in a lane where one takes it, else in
 * the heap (as locus__sim_push_ev). */
int locus__sim_push_after(struct engine *e, double now, double d, uint32_t kind, uint32_t proc,
			  uint32_t item)
{
	double t = now + d;
	if (!(t < INFINITY))
		return locus__sim_push_ev(e, t, kind, proc, item);
	struct ev v = {t, (uint64_t)ev_class(kind) << 63 | e->seq++, kind, proc, item};
	if (lane_push(e, d, &v) && evq_push(e, &v))
		return locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
	return 0;
}

int locus__sim_push_ev(struct engine *e, double t, uint32_t kind, uint32_t proc, uint32_t item)
{
	/* Every time the model makes is finite: one that is not comes of
	 * values past its range (a speed near 0, an enormous work or
	 * latency), and the run stops saying so rather than never ending
	 * the tasks behind it. */
	if (!(t < INFINITY))
		return locus__sim_fail(
		    e, LOCUS_ERANGE,
		    "an event at time %g: a speed, work, size or latency is out of the "
		    "range the simulator can run (works up to %g s, speeds from 1e-6)",
		    t, LOCUS_WORK_MAX);
	struct ev v = {t, (uint64_t)ev_class(kind) << 63 | e->seq++, kind, proc, item};
	if (evq_push(e, &v))
		return locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
	return 0;
}

/* An item off the free list (or a new one), as it was left: the caller
 * writes every field. */
static uint32_t take_item(struct engine *e)
{
	uint32_t i = e->free_items;
	if (i != NONE) {
		e->free_items = e->items[i].next;
	} else {
		if (locus__grow(&e->items, &e->items_cap, e->n_items + 1, sizeof *e->items)) {
			locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
			return NONE;
		}
		i = (uint32_t)e->n_items++;
	}
	return i;
}

static uint32_t new_item(struct engine *e)
{
	uint32_t i = take_item(e);
	if (i == NONE)
		return NONE;
	memset(&e->items[i], 0, sizeof e->items[i]);
	e->items[i].next = NONE;
	return i;
}

static void free_item(struct engine *e, uint32_t i)
{
	e->items[i].next = e->free_items;
	e->free_items = i;
}

/* Task t's stage in the result, or NULL (no stages). */
struct locus_stage_result *locus__sim_stage_of(const struct engine *e, uint32_t t)
{
	if (!e->r->stages || t >= e->wl->n_tasks || e->g->task_stage[t] == LOCUS_NONE)
		return NULL;
	return &e->r->stages[e->g->task_stage[t]];
}

/* ---- inboxes and actions ------------------------------------------------------ */

static void schedule_handle(struct engine *e, uint32_t proc, double now);

/* The inbox of a process grows or shrinks by one at `now`. */
static void queue_step(struct proc *pr, int up, double now)
{
	pr->qint += pr->qlen * (now - pr->qlast);
	pr->qlast = now;
	pr->qlen = up ? pr->qlen + 1 : pr->qlen - 1;
	if (up && pr->busy && pr->qlen > pr->qmax)
		pr->qmax = pr->qlen;
}

/* A process's end of handling that the queue does not hold (lazy): it
 * came before the event being handled, which then finds the process free;
 * else it goes into the queue under its own key, where it would have been
 * all along. Most ends find nothing more to handle (20 of the 40 million
 * events of scal's run at 2,048 x 16 were ends), so most never enter the
 * queue; the order of everything else is the same. */
static void settle(struct engine *e, struct proc *pr, uint32_t proc)
{
	if (!pr->lazy)
		return;
	pr->lazy = 0;
	if (pr->free_at < e->now || (pr->free_at == e->now && pr->free_seq < e->cur_seq)) {
		pr->busy = 0;
		return;
	}
	struct ev v = {pr->free_at, pr->free_seq, EV_FREE, proc, NONE};
	if (evq_push(e, &v))
		locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
}

/* Puts item `i` into proc's inbox at time `now` and handles it if idle. */
static void arrive(struct engine *e, uint32_t proc, uint32_t i, double now)
{
	struct proc *pr = &e->procs[proc];
	settle(e, pr, proc);
	queue_step(pr, 1, now);
	if (pr->tail == NONE)
		pr->head = i;
	else
		e->items[pr->tail].next = i;
	pr->tail = i;
	if (!pr->busy)
		schedule_handle(e, proc, now);
}

/* Tells process `proc` about `ev` at `now` (an event of the engine's own). */
void locus__sim_tell(struct engine *e, uint32_t proc, const struct locus_event *ev, double now)
{
	uint32_t i = new_item(e);
	if (i == NONE)
		return;
	e->items[i].ev = *ev;
	e->items[i].ev.proc = proc;
	arrive(e, proc, i, now);
}

/* Tells every scheduler. */
void locus__sim_tell_schedulers(struct engine *e, const struct locus_event *ev, double now)
{
	for (size_t s = 0; s < e->n_scheds && !e->x.failed; s++)
		locus__sim_tell(e, (uint32_t)(e->n_workers + s), ev, now);
}

/* A message takes the latency and its size over the slower of the two
 * nodes' links; on a contention-free platform none (the HEFT and GTP
 * papers' model counts no scheduling messages: its start-up is the time
 * a transfer of data takes to begin). */
static double msg_delay(const struct engine *e, const struct locus_msg *m)
{
	if (e->p->network == LOCUS_NET_PAIRS)
		return 0;
	double bw = e->msg_bw[0];
	if (!e->msg_bw_one) {
		double a = e->msg_bw[m->from], b = e->msg_bw[m->to];
		bw = a < b ? a : b;
	}
	uint32_t bytes = m->bytes ? m->bytes : 16 + 8 * m->n_args;
	return e->latency + bytes / bw;
}

/* ---- the executor's operations: messages and timers ----------------------------- */

void locus__sim_op_tell(void *eng, uint32_t proc, const struct locus_event *ev, double now)
{
	locus__sim_tell(eng, proc, ev, now);
}

void locus__sim_op_send(void *eng, const struct locus_msg *m, uint32_t aseq, double now)
{
	struct engine *e = eng;
	e->r->messages++;
	e->r->message_bytes += m->bytes ? m->bytes : 16 + 8 * m->n_args;
	/* Every field written once (a message is most events: the zeroing
	 * of a whole item before it was a string store a message). */
	uint32_t i = take_item(e);
	if (i == NONE)
		return;
	struct item *it = &e->items[i];
	it->ev = (struct locus_event){.kind = LOCUS_EV_MESSAGE, .proc = m->to};
	it->msg = *m;
	it->aseq = aseq;
	it->next = NONE;
	locus__sim_push_after(e, now, msg_delay(e, m), EV_ARRIVE, m->to, i);
}

void locus__sim_op_timer(void *eng, uint32_t proc, double delay, uint64_t tag, double now)
{
	struct engine *e = eng;
	uint32_t i = new_item(e);
	if (i == NONE)
		return;
	e->items[i].ev.kind = LOCUS_EV_TIMER;
	e->items[i].ev.proc = proc;
	e->items[i].ev.tag = tag;
	locus__sim_push_after(e, now, delay, EV_ARRIVE, proc, i);
}

void locus__sim_op_halt(void *eng, const char *why)
{
	locus__sim_halt(eng, "%s", why);
}

void locus__sim_op_fail(void *eng, int code, const char *why)
{
	locus__sim_fail(eng, code, "%s", why);
}

/* Handles the events of proc's inbox at time `now`, while it is free. */
static void schedule_handle(struct engine *e, uint32_t proc, double now)
{
	struct proc *pr = &e->procs[proc];
	while (pr->head != NONE && !locus__sim_over(e)) {
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
		int is_assign =
		    it->ev.kind == LOCUS_EV_MESSAGE &&
		    (it->msg.type == LOCUS_MSG_ASSIGN || it->msg.type == LOCUS_MSG_ASSIGN_FLOW);
		int worker = proc < e->n_workers;
		if (worker && e->x.w[proc].down) {
			/* A worker whose node is down hears nothing; what was
			 * sent to it is lost. */
			struct locus_msg m = it->msg;
			uint32_t aseq = it->aseq;
			free_item(e, i);
			if (is_assign)
				locus__exec_assign_lost(&e->x, proc, &m, aseq, now);
			continue;
		}
		/* An assignment places the task on arrival; the policy is told too. */
		if (is_assign) {
			int64_t t = it->msg.arg[0];
			if (worker && t >= 0 && (uint64_t)t < e->wl->n_tasks &&
			    locus__exec_void(&e->x, (uint32_t)t, it->aseq)) {
				/* Cancelled while on its way: void. */
				free_item(e, i);
				continue;
			}
			locus__exec_assign(&e->x, proc, &it->msg, now);
			if (locus__sim_over(e))
				return;
		}
		struct locus_actions *act = locus__actions_at(&e->acts, e->depth);
		if (!act) {
			locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
			return;
		}
		locus__actions_reset(act);
		e->now = now;
		if (e->cfg->time_policy) {
			double t0 = policy_clock(e->cfg);
			e->cfg->policy->on_event(e->pol, &it->ev, act);
			double dt = policy_clock(e->cfg) - t0;
			struct locus_result *r = e->r;
			r->policy_seconds += dt;
			if (dt > r->policy_event_max)
				r->policy_event_max = dt;
			if (e->cfg->time_policy == 2 &&
			    !locus__grow(&r->policy_event_times, &e->event_times_cap,
					 r->n_policy_events + 1, sizeof *r->policy_event_times))
				r->policy_event_times[r->n_policy_events++] = dt;
		} else {
			e->cfg->policy->on_event(e->pol, &it->ev, act);
		}
		e->r->events++;
		if (act->oom) {
			locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
			return;
		}
		/* Handling a message costs cost_per_msg; any decision costs its
		 * metadata entries. Starts, timers and completions are free. */
		double cost = (it->ev.kind == LOCUS_EV_MESSAGE ? e->cfg->cost_per_msg : 0) +
			      e->cfg->cost_per_entry * (double)act->entries;
		if (proc >= e->n_workers) {
			struct locus_sched_result *s = &e->r->scheds[proc - e->n_workers];
			s->events++;
			s->busy += cost;
		}
		e->r->pstats.entries_examined += act->entries;
		free_item(e, i);
		e->depth++;
		if (cost > 0) {
			pr->busy = 1;
			locus__exec_apply(&e->x, act, proc, now + cost);
			e->depth--;
			if (is_assign && !locus__sim_over(e))
				locus__sim_push_ev(e, now + cost, EV_START, proc, NONE);
			/* Its end goes into the queue now when more waits in
			 * its inbox (or the time is out of range: the push
			 * says so). */
			if (pr->head != NONE || !(now + cost < INFINITY)) {
				locus__sim_push_ev(e, now + cost, EV_FREE, proc, NONE);
				return;
			}
			pr->lazy = 1;
			pr->free_at = now + cost;
			pr->free_seq = (uint64_t)ev_class(EV_FREE) << 63 | e->seq++;
			return;
		}
		locus__exec_apply(&e->x, act, proc, now);
		e->depth--;
		if (is_assign && !locus__sim_over(e))
			locus__exec_try_start(&e->x, proc, now);
	}
}

/* ---- set-up ------------------------------------------------------------------------ */

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

/* The sharing model's resources, their capacities into cap: disks,
 * outgoing and incoming links, then the backbone, the shared file system
 * and the racks' uplinks when there are; returns how many. */
static size_t resources(struct engine *e, double *cap, size_t n_racks)
{
	const struct locus_sim_config *cfg = e->cfg;
	size_t nn = e->p->n_nodes;
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
	return n_res;
}

static int setup(struct engine *e)
{
	const struct locus_sim_config *cfg = e->cfg;
	size_t nn = e->p->n_nodes, nt = e->wl->n_tasks;
	e->g = e->wl->graph;
	unsigned pflags = locus_policy_flags(cfg->policy);
	int has_edges = locus_graph_has_edges(e->g);
	e->n_workers = e->wl->n_workers;
	e->n_scheds = cfg->policy->schedulers(e->n_workers, cfg->schedulers);
	if (cfg->schedulers && e->n_scheds != cfg->schedulers)
		return locus__sim_fail(e, LOCUS_EINVAL, "policy %s runs %zu scheduler%s, not %zu",
				       cfg->policy->name, e->n_scheds, e->n_scheds == 1 ? "" : "s",
				       cfg->schedulers);
	if (!e->n_workers)
		return locus__sim_fail(e, LOCUS_EINVAL,
				       "the platform runs no worker (every node has 0 cores)");
	if (has_edges && !(pflags & LOCUS_POLICY_GRAPHS))
		return locus__sim_fail(
		    e, LOCUS_EINVAL,
		    "policy %s schedules independent tasks, and the graph has %zu "
		    "dependencies: use a policy for task graphs (heft, cpop, dls, peft)",
		    cfg->policy->name, e->g->n_edges);
	e->n_procs = e->n_workers + e->n_scheds;
	e->latency = cfg->latency >= 0 ? cfg->latency : e->p->latency;
	e->procs = locus__calloc(e->n_procs, sizeof *e->procs);
	e->msg_bw = locus__calloc(e->n_procs, sizeof *e->msg_bw);
	size_t nt1 = nt ? nt : 1, no = e->g->n_objects ? e->g->n_objects : 1;
	e->tlocal = locus__calloc(nt1, 1);
	e->on_fs = locus__calloc(no, 1);
	e->held = locus__calloc(nn ? nn : 1, sizeof *e->held);
	e->tassigned = locus__calloc(nt1, sizeof *e->tassigned);
	e->tcstart = locus__calloc(nt1, sizeof *e->tcstart);
	e->tran_start = locus__calloc(nt1, sizeof *e->tran_start);
	e->tran_read = locus__calloc(nt1, sizeof *e->tran_read);
	e->tran_computed = locus__calloc(nt1, sizeof *e->tran_computed);
	e->xhead = locus__calloc(no, sizeof *e->xhead);
	e->lost_node = locus__calloc(no, sizeof *e->lost_node);
	e->lost_at = locus__calloc(no, sizeof *e->lost_at);
	e->node_down = locus__calloc(nn, 1);
	e->bw_factor = locus__calloc(nn, sizeof *e->bw_factor);
	e->serving = locus__calloc(nn, sizeof *e->serving);
	e->fs_opened = locus__calloc(nn, sizeof *e->fs_opened);
	e->qhead = locus__calloc(nn, sizeof *e->qhead);
	e->qtail = locus__calloc(nn, sizeof *e->qtail);
	e->seg_at = locus__calloc(nn + 1, sizeof *e->seg_at);
	struct locus_result *r = e->r;
	r->workers = locus__calloc(e->n_workers, sizeof *r->workers);
	r->scheds = locus__calloc(e->n_scheds, sizeof *r->scheds);
	if (!cfg->no_task_results)
		r->tasks = locus__calloc(nt1, sizeof *r->tasks);
	r->flow = e->g->task_stage != NULL;
	if (r->flow &&
	    !(r->stages = locus__calloc(e->g->n_stages ? e->g->n_stages : 1, sizeof *r->stages)))
		return locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
	e->node_rack = locus__calloc(nn, sizeof *e->node_rack);
	size_t n_racks = e->node_rack ? rack_index(e->p, e->node_rack) : 0;
	double *cap = locus__calloc(3 * nn + 2 + 2 * n_racks, sizeof *cap);
	if (!e->procs || !e->msg_bw || !e->tlocal || !e->on_fs || !e->held || !e->tassigned ||
	    !e->tcstart || !e->tran_start || !e->tran_read || !e->tran_computed || !e->xhead ||
	    !e->lost_node || !e->lost_at || !e->node_down || !e->bw_factor || !e->serving ||
	    !e->fs_opened || !e->qhead || !e->qtail || !e->node_rack || !n_racks || !e->seg_at ||
	    !r->workers || !r->scheds || (!cfg->no_task_results && !r->tasks) || !cap ||
	    locus_replicas_create(&e->rep, e->g->n_objects, nn)) {
		free(cap);
		return locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
	}
	struct locus__exec_config xc = {.wl = e->wl,
					.policy = cfg->policy,
					.n_schedulers = e->n_scheds,
					.rep = e->rep,
					.on_fs = e->on_fs,
					.ops = &locus__sim_ops,
					.eng = e,
					.engine = "the simulator",
					.retries = cfg->retries};
	if (locus__exec_init(&e->x, &xc)) {
		free(cap);
		return locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
	}
	/* Stored objects are where the catalog says, or on the file system
	 * when no node holds them; with a file system of its own bandwidth
	 * (shared_fs_bw) they are all on it alone. */
	for (size_t o = 0; o < e->g->n_objects; o++) {
		e->xhead[o] = e->lost_node[o] = NONE;
		for (uint32_t k = e->wl->obj_at[o];
		     k < e->wl->obj_at[o + 1] && !(cfg->shared_fs_bw > 0); k++)
			if (locus__sim_hold(e, (uint32_t)o, e->wl->holders[k]) < 0) {
				free(cap);
				return e->x.failed
					   ? e->x.failed
					   : locus__sim_fail(
						 e, LOCUS_EINVAL,
						 "the catalog's data does not fit in the nodes' "
						 "local storage: %s",
						 e->r->failure);
			}
		e->on_fs[o] = e->g->objects[o].producer == LOCUS_NONE &&
			      !locus_replicas_count(e->rep, (uint32_t)o);
	}
	for (size_t n = 0; n < nn; n++)
		e->bw_factor[n] = 1;
	if (e->p->network == LOCUS_NET_PAIRS && nn <= 4096) {
		e->link_factor = locus__calloc(nn * nn, sizeof *e->link_factor);
		if (!e->link_factor) {
			free(cap);
			return locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
		}
		for (size_t k = 0; k < nn * nn; k++)
			e->link_factor[k] = 1;
	}
	size_t n_res = resources(e, cap, n_racks);
	int rc = locus__share_create(&e->share, n_res, cap);
	free(cap);
	if (rc)
		return locus__sim_fail(e, rc, "cannot set up the resources");
	/* Platform changes: speeds by node, in time order; the rest as events. */
	if ((rc = locus__sim_setup_changes(e)))
		return rc;
	for (size_t w = 0; w < e->n_workers; w++) {
		e->procs[w].node = e->wl->worker_node[w];
		e->r->workers[w].node = e->wl->worker_node[w];
	}
	/* Schedulers where the policy puts them, else spread over the nodes. */
	for (size_t s = 0; s < e->n_scheds; s++) {
		uint32_t node = (uint32_t)(s * nn / e->n_scheds);
		if (cfg->policy->version >= 3 && cfg->policy->scheduler_node) {
			node = cfg->policy->scheduler_node(e->wl, e->n_scheds, s);
			if (node >= nn)
				return locus__sim_fail(
				    e, LOCUS_EINVAL,
				    "policy %s put scheduler %zu on node %" PRIu32 " of %zu",
				    cfg->policy->name, s, node, nn);
		}
		e->procs[e->n_workers + s].node = node;
	}
	for (size_t i = 0; i < e->n_procs; i++) {
		e->procs[i].head = e->procs[i].tail = NONE;
		e->msg_bw[i] = e->p->nodes[e->procs[i].node].net_bw;
	}
	e->msg_bw_one = e->n_procs > 0;
	for (size_t i = 1; i < e->n_procs && e->msg_bw_one; i++)
		e->msg_bw_one = e->msg_bw[i] == e->msg_bw[0];
	for (size_t n = 0; n < nn; n++)
		e->qhead[n] = e->qtail[n] = NONE;
	e->free_items = NONE;
	e->free_moves = NONE;
	locus__sim_monitor(e);
	return 0;
}

/* ---- the run ------------------------------------------------------------------------ */

/* A run has stalled when, for as long as it had run and at least an hour
 * of simulated time, nothing ran, moved or changed and no platform change
 * is to come: only the policy's messages and timers (a policy waiting for
 * what will not happen, polling as it waits). */
#define STALL_AFTER(t) ((t) > 3600 ? (t) : 3600.0)

static uint32_t lost_node_of(void *eng, uint32_t o, double *at)
{
	const struct engine *e = eng;
	*at = e->lost_at[o];
	return e->lost_node[o];
}

/* Why the run ended with tasks not done: a failure of the platform the
 * policy did not get past (the result says so), or a policy's mistake
 * (an error). */
static int unfinished(struct engine *e)
{
	char why[160] = "", msg[sizeof e->r->failure];
	int is_halt = 0;
	if (!isnan(e->stalled_since))
		snprintf(why, sizeof why,
			 " and stalled: after %.9g s nothing ran, moved or changed, only its "
			 "messages and timers, for %.9g s",
			 e->stalled_since, STALL_AFTER(e->stalled_since));
	locus__exec_unfinished(&e->x, msg, sizeof msg, &is_halt, lost_node_of, why);
	if (is_halt) {
		locus__sim_halt(e, "%s", msg);
		return 0;
	}
	return locus__sim_fail(e, LOCUS_EINCOMPLETE, "%s", msg);
}

/* Checked that rarely, so a scan is cheap; a task still running or a
 * move under way is progress. */
static int stalled(struct engine *e, double t)
{
	int busy = e->changes_left > 0;
	for (uint32_t w = 0; w < e->n_workers && !busy; w++)
		busy = e->x.w[w].task != NONE;
	for (uint32_t m = 0; m < e->n_moves && !busy; m++)
		busy = e->moves[m].state != MV_FREE;
	if (busy) {
		e->progress_at = t;
		return 0;
	}
	e->stalled_since = e->progress_at;
	return 1;
}

/* Process p's start, at time 0 in the place it has among the events
 * pushed: the run's first n_procs sequence numbers are kept for them,
 * from begin_seq on. */
static void push_begin(struct engine *e, uint32_t p)
{
	struct ev v = {0, (uint64_t)ev_class(EV_BEGIN) << 63 | (e->begin_seq + p), EV_BEGIN, p,
		       NONE};
	if (evq_push(e, &v))
		locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
}

/* Process p starts: pushes the next process's start, then tells p. One
 * start waits in the queue at a time, not one per process (400,000
 * workers took 120 MB for them), in the order they had. */
static void begin(struct engine *e, uint32_t p, double now)
{
	if (p + 1 < e->n_procs)
		push_begin(e, p + 1);
	uint32_t it = new_item(e);
	if (it == NONE)
		return;
	e->items[it].ev.kind = LOCUS_EV_START;
	arrive(e, p, it, now);
}

static int run(struct engine *e)
{
	/* Every process starts at time 0, in id order (begin); speed changes
	 * are told to every scheduler. */
	e->begin_seq = e->seq;
	e->seq += e->n_procs;
	if (e->n_procs)
		push_begin(e, 0);
	for (size_t k = 0; k < e->n_speeds && !e->x.failed; k++)
		for (size_t s = 0; s < e->n_scheds && !e->x.failed; s++) {
			uint32_t it = new_item(e);
			if (it == NONE)
				break;
			e->items[it].ev.kind = LOCUS_EV_SPEED;
			e->items[it].ev.speed.node = e->speeds[k].node;
			e->items[it].ev.speed.speed = e->speeds[k].speed;
			locus__sim_push_ev(e, e->speeds[k].time, EV_ARRIVE,
					   (uint32_t)(e->n_workers + s), it);
		}
	for (size_t k = 0; k < e->n_others && !e->x.failed; k++)
		locus__sim_push_ev(e, e->others[k]->time, EV_CHANGE, NONE, (uint32_t)k);
	e->changes_left = e->n_others;
	while (!locus__sim_over(e)) {
		int src;
		const struct ev *nx = ev_next(e, &src);
		double te = nx ? nx->t : INFINITY, tf = locus__share_next(e->share);
		if (te == INFINITY && tf == INFINITY) {
			/* Nothing left but ends of handling: they are handled
			 * as they would have been (the stall watch sees them). */
			size_t before = e->n_ev;
			for (uint32_t p = 0; p < e->n_procs; p++)
				settle(e, &e->procs[p], p);
			if (e->n_ev == before)
				break;
			continue;
		}
		if (tf <= te) {
			uint64_t user;
			if (locus__share_pop(e->share, tf, &user) == 1) {
				e->cur_seq = 0;
				e->now = e->progress_at = tf;
				locus__sim_move_done(e, (uint32_t)user, tf);
			}
			continue;
		}
		if (te > e->progress_at + STALL_AFTER(e->progress_at) && stalled(e, te))
			break;
		struct ev v;
		ev_take(e, src, &v);
		e->now = v.t;
		e->cur_seq = v.seq;
		if (v.kind == EV_COMPUTED || v.kind == EV_MOVED || v.kind == EV_CHANGE)
			e->progress_at = v.t;
		e->changes_left -= v.kind == EV_CHANGE;
		switch (v.kind) {
		case EV_ARRIVE:
			arrive(e, v.proc, v.item, v.t);
			break;
		case EV_FREE:
			e->procs[v.proc].busy = 0;
			schedule_handle(e, v.proc, v.t);
			break;
		case EV_COMPUTED:
			if (e->procs[v.proc].gen == v.item && e->x.w[v.proc].task != NONE)
				locus__sim_computed(e, v.proc, v.t);
			break;
		case EV_MOVE:
			if (e->moves[v.item].state == MV_LATENCY && e->moves[v.item].gen == v.proc)
				locus__sim_start_flow(e, v.item, v.t);
			break;
		case EV_CHANGE:
			locus__sim_change(e, e->others[v.item], v.t);
			break;
		case EV_MOVED:
			if (e->moves[v.item].state == MV_DIRECT && e->moves[v.item].gen == v.proc)
				locus__sim_move_done(e, v.item, v.t);
			break;
		case EV_READY:
			if (e->moves[v.item].state == MV_PREP && e->moves[v.item].gen == v.proc)
				locus__sim_request_move(e, v.item, v.t);
			break;
		case EV_START:
			locus__exec_try_start(&e->x, v.proc, v.t);
			break;
		case EV_BEGIN:
			begin(e, v.proc, v.t);
			break;
		}
	}
	if (e->x.failed)
		return e->x.failed;
	if (e->x.halted || e->x.done < e->wl->n_tasks)
		return e->x.halted ? 0 : unfinished(e);
	return 0;
}

static void summarise(struct engine *e)
{
	struct locus_result *r = e->r;
	for (size_t n = 0; n < e->p->n_nodes; n++)
		r->storage_end += e->held[n];
	/* Intermediate files (written by a task, read by others) still on
	 * some node: what a workflow left behind. */
	for (uint32_t o = 0; r->flow && o < e->g->n_objects; o++)
		if (e->g->objects[o].producer != LOCUS_NONE && e->g->objects[o].n_cons)
			r->intermediate_end +=
			    (double)e->g->objects[o].bytes * locus_replicas_count(e->rep, o);
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
	struct locus_bound_env env = {
	    .shared_fs_bw = e->cfg->shared_fs_bw, .speed = e->speeds, .n_speed = e->n_speeds};
	struct locus_makespan_bound mb;
	r->lb_makespan = locus_bound_makespan(e->wl, &env, &mb);
	r->lb_work = mb.work;
	r->lb_io = mb.io;
	r->lb_serial = mb.serial;
	r->lb_longest = mb.longest;
	r->tasks_done = e->x.done;
	r->attempts_lost = e->x.attempts_lost;
	r->dag = e->x.has_edges || e->wl->cost || e->n_others || r->failed;
	if (r->dag) {
		/* A task graph's bounds: its critical path, and its metrics. */
		struct locus_dag_bounds db;
		double *peak = locus__calloc(e->p->n_nodes, sizeof *peak);
		for (size_t n = 0; peak && n < e->p->n_nodes; n++)
			peak[n] = e->p->nodes[n].speed;
		for (size_t k = 0; peak && k < e->n_speeds; k++)
			if (e->speeds[k].speed > peak[e->speeds[k].node])
				peak[e->speeds[k].node] = e->speeds[k].speed;
		if (peak && !locus_dag_bounds(e->wl, peak, &db)) {
			r->lb_cp = db.critical_path;
			r->cp_mean = db.cp_mean;
			r->cp_min = db.cp_min;
			r->nsl = db.cp_mean > 0 && !r->failed ? r->makespan / db.cp_mean : 0;
			r->slr = db.cp_min > 0 && !r->failed ? r->makespan / db.cp_min : 0;
			if (db.lower > r->lb_makespan)
				r->lb_makespan = db.lower;
		}
		free(peak);
	}
	uint64_t entries = r->pstats.entries_examined;
	for (size_t s = 0; r->stages && s < e->g->n_stages; s++)
		r->stages[s].patterns = -1;
	r->pstats.stages = r->stages;
	r->pstats.n_stages = r->stages ? e->g->n_stages : 0;
	if (e->cfg->policy->stats)
		e->cfg->policy->stats(e->pol, &r->pstats);
	r->pstats.stages = NULL;
	r->pstats.n_stages = 0;
	if (!r->pstats.entries_examined)
		r->pstats.entries_examined = entries;
}

void locus_sim_config_init(struct locus_sim_config *c)
{
	*c = (struct locus_sim_config){.version = LOCUS_SIM_CONFIG_VERSION, .latency = -1};
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
	if (locus__check_version(cfg->version, LOCUS_SIM_CONFIG_VERSION, "locus_sim_config", err))
		return LOCUS_EINVAL;
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
	if (cfg->policy_opts && *cfg->policy_opts &&
	    !(e.r->policy_options = locus__strdup(cfg->policy_opts))) {
		free(e.r);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	e.r->seed = cfg->seed;
	e.r->opt_local = -1;
	e.stalled_since = NAN;
	e.r->graph = cfg->wl->graph;
	int rc = locus_policy_check(cfg->policy, LOCUS_POLICY_VERSION, LOCUS_SIM_OFFERS,
				    "the simulator", err);
	if (!rc)
		rc = locus_kv_parse(&kv, cfg->policy_opts, err);
	if (!rc)
		rc = setup(&e);
	if (!rc) {
		struct locus_policy_ctx ctx = {.wl = e.wl,
					       .n_workers = e.n_workers,
					       .n_schedulers = e.n_scheds,
					       .seed = cfg->seed,
					       .opts = &kv,
					       .monitor = &e.mon};
		double c0 = policy_clock(cfg);
		rc = cfg->policy->create(&e.pol, &ctx, err);
		if (cfg->time_policy)
			e.r->policy_create_seconds = policy_clock(cfg) - c0;
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
	free(e.evq);
	for (unsigned k = 0; k < LANES; k++)
		free(e.lanes[k].ring);
	locus__share_destroy(e.share);
	locus__action_stack_fini(&e.acts);
	locus__exec_fini(&e.x);
	locus_replicas_destroy(e.rep);
	free(e.procs);
	free(e.msg_bw);
	free(e.items);
	for (size_t m = 0; m < e.n_moves; m++)
		free(e.moves[m].objs);
	free(e.moves);
	free(e.tlocal);
	free(e.on_fs);
	free(e.held);
	free(e.tassigned);
	free(e.tcstart);
	free(e.tran_start);
	free(e.tran_read);
	free(e.tran_computed);
	free(e.xhead);
	free(e.lost_node);
	free(e.lost_at);
	free(e.node_down);
	free(e.bw_factor);
	free(e.out_binds);
	free(e.link_factor);
	free(e.waits);
	free(e.reads);
	free(e.serving);
	free(e.fs_opened);
	free(e.qhead);
	free(e.qtail);
	free(e.node_rack);
	free(e.seg_at);
	free(e.segs);
	free(e.speeds);
	free(e.others);
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
