/*
 * The discrete-event engine: time for the policy protocol in simulation
 * (see include/locus/sim.h for the model).
 *
 * Every process is a serial server with an inbox: an event that reaches a
 * busy process waits; handling one costs cost_per_msg plus cost_per_entry
 * per metadata entry the policy examined, and the actions take effect when
 * the handling ends. Events are ordered by time, then by a sequence number,
 * and flow completions (from the max-min sharing model) come before events
 * at the same instant, so a run is a pure function of its inputs.
 *
 * Data move in "moves": a worker's read of a task's stored input when the
 * task starts (MV_READ), and an object sent to a node (MV_XFER) because a
 * task placed there needs it or a policy asked for a copy. A move waits
 * for a transfer slot of its source (max_transfers), then one latency,
 * then flows: through the disks and links of the sharing model, or, on a
 * contention-free platform, alone at its pair's bandwidth (a flow capped
 * at it, restarted with what it has left when the bandwidth changes).
 *
 * The engine only keeps time and moves bytes. The executor (src/exec)
 * carries out the policy's decisions, as it does for the MPI runtime:
 * which worker runs a task and in what order, which holder a move reads
 * from, where outputs go and where a failed task runs again. This file
 * supplies its operations (struct locus__exec_ops) with simulated time.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "exec/exec.h"
#include "locus/bounds.h"
#include "locus/dag.h"
#include "locus/heap.h"
#include "locus/sim.h"
#include "sched/actions.h"
#include "sim/share.h"

#define NONE UINT32_MAX
#define MAXR LOCUS__SHARE_MAX_RES

enum ev_kind {
	EV_ARRIVE,   /* an item reaches proc's inbox */
	EV_FREE,     /* proc finished handling an event */
	EV_COMPUTED, /* worker proc finished computing its task (item: its generation) */
	EV_MOVE,     /* move `item` (of generation proc) has waited its latency: it flows */
	EV_CHANGE,   /* platform change `item` (not a speed change) */
	EV_MOVED,    /* contention-free move `item` (of generation proc) has arrived */
	EV_READY,    /* move `item` (of generation proc) has had its delay and its
			file system operations: it asks for a slot */
	EV_START     /* worker proc has handled an assignment: its head may start */
};

struct ev {
	double t;
	uint64_t seq;
	uint32_t kind;
	uint32_t proc;
	uint32_t item;
};

/* What waits in an inbox: everything a policy can be told. */
struct item {
	struct locus_event ev; /* ev.msg points at msg below when a message */
	struct locus_msg msg;
	uint32_t aseq; /* an assignment: its number among its task's */
	uint32_t next; /* inbox chain or free list */
};

/* MV_READ: a task's read of an input when it starts; MV_XFER: an object
 * sent to a node for a task placed there, or a policy's transfer;
 * MV_WRITE: a task's output written to the file system; MV_COPY: a
 * policy's copy (locus_act_copy) of objects (objs) or bytes. */
enum { MV_READ, MV_XFER, MV_WRITE, MV_COPY };
/* MV_DIRECT: a contention-free move, alone at its pair's bandwidth: its
 * end is computed, not shared (an EV_MOVED). MV_PREP: waiting for its
 * delay and the file system's metadata operations (an EV_READY). */
enum { MV_FREE, MV_SLOT, MV_LATENCY, MV_FLOW, MV_DIRECT, MV_PREP };

struct move {
	uint8_t kind, state;
	uint8_t holds_slot; /* it took a transfer slot of src */
	uint8_t pad;
	uint32_t w;	   /* READ, WRITE: the worker */
	uint32_t task;	   /* READ, WRITE: its task; XFER: the consumer it is for, or NONE */
	uint32_t obj;	   /* COPY: its first object, or NONE */
	uint32_t src, dst; /* nodes; NONE: the shared file system */
	uint32_t *objs;	   /* COPY: its objects (n_objs), owned */
	uint32_t n_objs;
	uint64_t tag;	    /* COPY: the policy's tag */
	uint32_t res[MAXR]; /* resources of the sharing model */
	uint32_t n_res;
	uint32_t flow;	    /* MV_FLOW: its flow */
	uint32_t qnext;	    /* MV_SLOT: next move waiting for src's slot */
	uint32_t onext;	    /* XFER: next transfer of the same object; free list */
	uint32_t requester; /* the process that asked for it, or NONE */
	uint32_t gen;	    /* its EV_MOVE carries it: an older one is stale */
	double cap;	    /* contention-free: the pair's bandwidth; 0: shared */
	double bytes;	    /* what it has to move (MV_DIRECT: left at t_flow) */
	double t_flow;	    /* MV_DIRECT: when it (last) went on at `cap` */
	double size;	    /* the object's bytes */
	double asked;	    /* when it was asked for */
};

struct proc {
	uint32_t node;
	uint32_t head, tail; /* inbox */
	int busy;	     /* handling an event until an EV_FREE */
	uint32_t qlen;	     /* events in its inbox */
	uint32_t qmax;	     /* most of them waiting at once */
	double qint, qlast;  /* integral of qlen over time, and when it last changed */
	/* workers (what runs, and what is placed on them: the executor's) */
	uint32_t gen;	     /* compute generation: an older EV_COMPUTED is stale */
	uint32_t reads_left; /* moves of the current task's read still going */
	double idle_since;   /* free for work since */
	double read_start;
	double read_end;
	double compute_end;
};

struct engine {
	const struct locus_sim_config *cfg;
	const struct locus_workload *wl;
	const struct locus_graph *g;
	const struct locus_platform *p;
	struct locus_error *err;
	void *pol;
	/* The policy's side of the protocol, carried out (and the run's
	 * end: x.failed, x.halted). */
	struct locus__exec x;
	size_t n_workers, n_scheds, n_procs;
	struct proc *procs;
	struct locus_heap heap;
	uint64_t seq;
	struct item *items;
	size_t n_items, items_cap;
	uint32_t free_items;
	struct locus__share *share;
	uint32_t res_backbone, res_fs; /* NONE when absent */
	double fs_free;		       /* when the file system's metadata server is free */
	double *fs_opened;	       /* by node: when its last open on the file system ends */
	uint8_t *on_fs;		       /* by object: the file system has it */
	double *held;		       /* by node: bytes of the objects it holds */
	uint32_t res_racks;	       /* rack k's uplink: out res_racks + 2k, in + 1; NONE: none */
	uint32_t *node_rack;	       /* by node: its rack's index */
	uint32_t *serving;	       /* by node: remote moves it is serving */
	uint32_t *qhead, *qtail;       /* by node: moves waiting for a transfer slot */
	/* The actions of the event being handled, one buffer per nesting
	 * level: applying them may tell an idle process something, which it
	 * handles at once, with a buffer of its own (acts[depth]). */
	struct locus__action_stack acts;
	size_t depth;
	/* speed changes per node: seg_at[n] .. seg_at[n+1] in segs */
	size_t *seg_at;
	struct locus_speed_change *segs;
	struct locus_speed_change *speeds; /* cfg->speed with the scenario's */
	size_t n_speeds;
	const struct locus_change **others; /* the other changes, in time order */
	size_t n_others;
	double latency;
	/* Data. */
	struct locus_replicas *rep;
	struct move *moves;
	size_t n_moves, moves_cap;
	uint32_t free_moves;
	uint32_t *xhead; /* by object: its transfers going on */
	uint8_t *node_down;
	double *bw_factor;   /* by node */
	double *link_factor; /* contention-free pairs that changed: n_nodes^2 when small */
	uint32_t *lost_node; /* by object: the node it was lost with, or NONE */
	double *lost_at;
	/* Tasks, as the engine measures them. */
	uint8_t *tlocal; /* its attempt running now read its main input locally */
	double *tcstart; /* when its computation began */
	/* By task, an attempt that ran on a worker other than the one it
	 * ends on (a retry come home): when it started, read, computed. */
	double *tran_start, *tran_read, *tran_computed;
	double *tassigned; /* by task: when its assignment reached its worker */
	size_t next_progress;
	double *waits;
	size_t n_waits, waits_cap;
	struct locus__read *reads; /* a starting task's (locus__exec_reads) */
	size_t reads_cap;
	struct locus_monitor mon;
	double now; /* the time of the event being handled (the monitor's) */
	/* When something last ran, moved or changed, and the platform
	 * changes still to come: a run where for long only messages and
	 * timers happen has stalled (stalled()). */
	double progress_at, stalled_since; /* stalled_since: NAN unless it stalled */
	size_t changes_left;
	struct locus_result *r;
	size_t xfers_cap;
};

/* This machine's monotonic clock, in seconds (for timing, never for the
 * simulated time). */
static double seconds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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

static void halt(struct engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The run cannot finish for a reason of the platform's (a failure the
 * policy does not get past): the result says why. */
static void halt(struct engine *e, const char *fmt, ...)
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

/* Whether the run has ended (a failure, or a halt). */
static int over(const struct engine *e)
{
	return e->x.failed || e->x.halted;
}

static const char *task_name(const struct engine *e, uint32_t t, char *buf, size_t size)
{
	return locus_graph_task_name(e->g, t, buf, size);
}

static const char *object_name(const struct engine *e, uint32_t o, char *buf, size_t size)
{
	return locus__exec_object_name(&e->x, o, buf, size);
}

static int push_ev(struct engine *e, double t, uint32_t kind, uint32_t proc, uint32_t item)
{
	/* Every time the model makes is finite: one that is not comes of
	 * values past its range (a speed near 0, an enormous work or
	 * latency), and the run stops saying so rather than never ending
	 * the tasks behind it. */
	if (!(t < INFINITY))
		return fail(e, LOCUS_ERANGE,
			    "an event at time %g: a speed, work, size or latency is out of the "
			    "range the simulator can run (works up to %g s, speeds from 1e-6)",
			    t, LOCUS_WORK_MAX);
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

/* Task t's stage in the result, or NULL (no stages). */
static struct locus_stage_result *stage_of(const struct engine *e, uint32_t t)
{
	if (!e->r->stages || t >= e->wl->n_tasks || e->g->task_stage[t] == LOCUS_NONE)
		return NULL;
	return &e->r->stages[e->g->task_stage[t]];
}

/* ---- compute over time ------------------------------------------------------ */

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

/* Speed-1 seconds of work `node` does from t0 to t1. */
static double work_between(const struct engine *e, uint32_t node, double t0, double t1)
{
	double t = t0, s = speed_at(e, node, t0), w = 0;
	for (size_t k = e->seg_at[node]; k < e->seg_at[node + 1]; k++) {
		if (e->segs[k].time <= t)
			continue;
		if (e->segs[k].time >= t1)
			break;
		w += (e->segs[k].time - t) * s;
		t = e->segs[k].time;
		s = e->segs[k].speed;
	}
	return w + (t1 > t ? (t1 - t) * s : 0);
}

/* Task t's computation on worker w, in speed-1 seconds. */
static double work_units(const struct engine *e, uint32_t t, uint32_t w)
{
	if (e->wl->cost)
		return e->wl->cost[(size_t)t * e->n_workers + w] *
		       e->p->nodes[e->procs[w].node].speed;
	return e->wl->tasks[t].work;
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

/* Puts item `i` into proc's inbox at time `now` and handles it if idle. */
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

/* Tells process `proc` about `ev` at `now` (an event of the engine's own). */
static void tell(struct engine *e, uint32_t proc, const struct locus_event *ev, double now)
{
	uint32_t i = new_item(e);
	if (i == NONE)
		return;
	e->items[i].ev = *ev;
	e->items[i].ev.proc = proc;
	arrive(e, proc, i, now);
}

/* Tells every scheduler. */
static void tell_schedulers(struct engine *e, const struct locus_event *ev, double now)
{
	for (size_t s = 0; s < e->n_scheds && !e->x.failed; s++)
		tell(e, (uint32_t)(e->n_workers + s), ev, now);
}

/* A message takes the latency and its size over the slower of the two
 * nodes' links; on a contention-free platform none (the HEFT and GTP
 * papers' model counts no scheduling messages: its start-up is the time
 * a transfer of data takes to begin). */
static double msg_delay(const struct engine *e, const struct locus_msg *m)
{
	if (e->p->network == LOCUS_NET_PAIRS)
		return 0;
	uint32_t a = e->procs[m->from].node, b = e->procs[m->to].node;
	double bw = e->p->nodes[a].net_bw < e->p->nodes[b].net_bw ? e->p->nodes[a].net_bw
								  : e->p->nodes[b].net_bw;
	uint32_t bytes = m->bytes ? m->bytes : 16 + 8 * m->n_args;
	return e->latency + bytes / bw;
}

static void drop(struct engine *e, uint32_t o, uint32_t place);
static void policy_transfer(struct engine *e, uint32_t proc, uint32_t o, uint32_t from, uint32_t to,
			    double now);
static void policy_copy(struct engine *e, uint32_t proc, const uint32_t *objs, uint32_t n,
			uint64_t bytes, uint32_t from, uint32_t to, double delay, uint64_t tag,
			uint32_t task, double now);

/* ---- the executor's operations: messages and timers ----------------------------- */

static void op_tell(void *eng, uint32_t proc, const struct locus_event *ev, double now)
{
	tell(eng, proc, ev, now);
}

static void op_send(void *eng, const struct locus_msg *m, uint32_t aseq, double now)
{
	struct engine *e = eng;
	e->r->messages++;
	e->r->message_bytes += m->bytes ? m->bytes : 16 + 8 * m->n_args;
	uint32_t i = new_item(e);
	if (i == NONE)
		return;
	e->items[i].msg = *m;
	e->items[i].ev.kind = LOCUS_EV_MESSAGE;
	e->items[i].ev.proc = m->to;
	e->items[i].aseq = aseq;
	push_ev(e, now + msg_delay(e, m), EV_ARRIVE, m->to, i);
}

static void op_timer(void *eng, uint32_t proc, double delay, uint64_t tag, double now)
{
	struct engine *e = eng;
	uint32_t i = new_item(e);
	if (i == NONE)
		return;
	e->items[i].ev.kind = LOCUS_EV_TIMER;
	e->items[i].ev.proc = proc;
	e->items[i].ev.tag = tag;
	push_ev(e, now + delay, EV_ARRIVE, proc, i);
}

static void op_transfer(void *eng, uint32_t proc, uint32_t o, uint32_t from, uint32_t to,
			double now)
{
	policy_transfer(eng, proc, o, from, to, now);
}

static void op_copy(void *eng, uint32_t proc, const struct locus__action *a, const uint32_t *objs,
		    const uint32_t *reduced, double now)
{
	/* A reduction step moves its result's bytes, as the model says:
	 * what `from` reduces is its own business here. */
	(void)reduced;
	policy_copy(eng, proc, objs, a->n, a->bytes, a->from, a->to, a->delay, a->tag, a->task,
		    now);
}

static void op_drop(void *eng, uint32_t o, uint32_t place, double now)
{
	(void)now;
	drop(eng, o, place == LOCUS_FS ? NONE : place);
}

static void op_halt(void *eng, const char *why)
{
	halt(eng, "%s", why);
}

static void op_fail(void *eng, int code, const char *why)
{
	fail(eng, code, "%s", why);
}

/* Handles the events of proc's inbox at time `now`, while it is free. */
static void schedule_handle(struct engine *e, uint32_t proc, double now)
{
	struct proc *pr = &e->procs[proc];
	while (pr->head != NONE && !over(e)) {
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
			if (over(e))
				return;
		}
		struct locus_actions *act = locus__actions_at(&e->acts, e->depth);
		if (!act) {
			fail(e, LOCUS_ENOMEM, "out of memory");
			return;
		}
		locus__actions_reset(act);
		e->now = now;
		if (e->cfg->time_policy) {
			double t0 = seconds_now();
			e->cfg->policy->on_event(e->pol, &it->ev, act);
			double dt = seconds_now() - t0;
			e->r->policy_seconds += dt;
			if (dt > e->r->policy_event_max)
				e->r->policy_event_max = dt;
		} else {
			e->cfg->policy->on_event(e->pol, &it->ev, act);
		}
		e->r->events++;
		if (act->oom) {
			fail(e, LOCUS_ENOMEM, "out of memory");
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
			if (is_assign && !over(e))
				push_ev(e, now + cost, EV_START, proc, NONE);
			push_ev(e, now + cost, EV_FREE, proc, NONE);
			return;
		}
		locus__exec_apply(&e->x, act, proc, now);
		e->depth--;
		if (is_assign && !over(e))
			locus__exec_try_start(&e->x, proc, now);
	}
}

/* ---- moves -------------------------------------------------------------------- */

static uint32_t new_move(struct engine *e)
{
	uint32_t m = e->free_moves;
	if (m != NONE) {
		e->free_moves = e->moves[m].onext;
	} else {
		if (locus__grow(&e->moves, &e->moves_cap, e->n_moves + 1, sizeof *e->moves)) {
			fail(e, LOCUS_ENOMEM, "out of memory");
			return NONE;
		}
		m = (uint32_t)e->n_moves++;
	}
	uint32_t gen = e->moves[m].gen + 1;
	memset(&e->moves[m], 0, sizeof e->moves[m]);
	e->moves[m].flow = e->moves[m].qnext = e->moves[m].onext = NONE;
	e->moves[m].requester = NONE;
	e->moves[m].gen = gen;
	return m;
}

static void free_move(struct engine *e, uint32_t m)
{
	free(e->moves[m].objs);
	e->moves[m].objs = NULL;
	e->moves[m].state = MV_FREE;
	e->moves[m].onext = e->free_moves;
	e->free_moves = m;
}

/* Takes transfer m out of its object's list. */
static void unlink_xfer(struct engine *e, uint32_t m)
{
	uint32_t *at = &e->xhead[e->moves[m].obj];
	while (*at != NONE && *at != m)
		at = &e->moves[*at].onext;
	if (*at == m)
		*at = e->moves[m].onext;
}

/* The pair's bandwidth now on a contention-free platform. */
static double pair_cap(const struct engine *e, uint32_t a, uint32_t b)
{
	double f = e->bw_factor[a] < e->bw_factor[b] ? e->bw_factor[a] : e->bw_factor[b];
	if (e->link_factor)
		f *= e->link_factor[(size_t)a * e->p->n_nodes + b];
	return locus_platform_pair_bw(e->p, a, b) * f;
}

/* Sets move m's way: a local read is its node's disk; from the file
 * system (src NONE), its bandwidth when it has one and the reader's link;
 * to it (dst NONE), the writer's disk and link and its bandwidth; else
 * the source's disk and link, the reader's link, the backbone and the
 * racks' uplinks between racks (or, contention-free, the pair's own
 * link). */
static void route(struct engine *e, struct move *mv)
{
	uint32_t n_nodes = (uint32_t)e->p->n_nodes, node = mv->dst, src = mv->src;
	mv->n_res = 0;
	mv->cap = 0;
	if (node == NONE) {
		/* To the file system: the source's disk and link, and the
		 * file system's bandwidth. */
		mv->res[mv->n_res++] = src;
		mv->res[mv->n_res++] = n_nodes + src;
		if (e->res_fs != NONE)
			mv->res[mv->n_res++] = e->res_fs;
	} else if (src == node) {
		mv->res[mv->n_res++] = node;
	} else if (src == NONE) {
		if (e->res_fs != NONE)
			mv->res[mv->n_res++] = e->res_fs;
		mv->res[mv->n_res++] = 2 * n_nodes + node;
	} else if (e->p->network == LOCUS_NET_PAIRS) {
		mv->cap = pair_cap(e, src, node);
	} else {
		mv->res[mv->n_res++] = src;
		mv->res[mv->n_res++] = n_nodes + src;
		mv->res[mv->n_res++] = 2 * n_nodes + node;
		if (e->res_backbone != NONE)
			mv->res[mv->n_res++] = e->res_backbone;
		if (e->res_racks != NONE && e->node_rack[src] != e->node_rack[node]) {
			mv->res[mv->n_res++] = e->res_racks + 2 * e->node_rack[src];
			mv->res[mv->n_res++] = e->res_racks + 2 * e->node_rack[node] + 1;
		}
	}
}

static void start_flow(struct engine *e, uint32_t m, double now)
{
	struct move *mv = &e->moves[m];
	if (!mv->n_res && mv->cap > 0) {
		/* Contention-free: (start + latency) + bytes / bandwidth, the
		 * arithmetic of locus_workload_arrival. */
		mv->state = MV_DIRECT;
		mv->t_flow = now;
		mv->gen++;
		push_ev(e, now + mv->bytes / mv->cap, EV_MOVED, mv->gen, m);
		return;
	}
	mv->state = MV_FLOW;
	if (locus__share_start_id(e->share, now, mv->res, mv->n_res, mv->cap, mv->bytes, m,
				  &mv->flow))
		fail(e, LOCUS_ENOMEM, "out of memory");
}

/* What a contention-free move has left at `now`. */
static double direct_left(const struct move *mv, double now)
{
	double left = mv->bytes - (now - mv->t_flow) * mv->cap;
	return left > 0 ? left : 0;
}

/* A move from another node gets a transfer slot of its source (a node
 * serves at most max_transfers at once; the others wait in the order
 * they came) and flows one latency later. */
static void request_move(struct engine *e, uint32_t m, double now)
{
	struct move *mv = &e->moves[m];
	uint32_t src = mv->src;
	if (src != NONE) {
		int limit = e->p->nodes[src].max_transfers;
		if (limit > 0 && e->serving[src] >= (uint32_t)limit) {
			mv->state = MV_SLOT;
			mv->qnext = NONE;
			if (e->qhead[src] == NONE)
				e->qhead[src] = m;
			else
				e->moves[e->qtail[src]].qnext = m;
			e->qtail[src] = m;
			return;
		}
		e->serving[src]++;
		mv->holds_slot = 1;
	}
	if (e->latency > 0) {
		mv->state = MV_LATENCY;
		push_ev(e, now + e->latency, EV_MOVE, mv->gen, m);
	} else {
		start_flow(e, m, now);
	}
}

/* Move m no longer holds its source's slot: the first waiting move gets it. */
static void release_slot(struct engine *e, uint32_t m, double now)
{
	struct move *mv = &e->moves[m];
	if (!mv->holds_slot)
		return;
	mv->holds_slot = 0;
	uint32_t src = mv->src;
	e->serving[src]--;
	uint32_t next = e->qhead[src];
	if (next != NONE) {
		e->qhead[src] = e->moves[next].qnext;
		request_move(e, next, now);
	}
}

/* Move m goes once `delay` has passed and, when it reads from or writes to
 * the file system, that has served `files` metadata operations for it
 * (one server, first come first served, fs_ops a second); then it asks
 * for its source's slot. */
static void launch(struct engine *e, uint32_t m, double now, double delay, uint32_t files)
{
	struct move *mv = &e->moves[m];
	double t = now + delay;
	if (files && (mv->src == NONE || mv->dst == NONE)) {
		/* The server's queue, and the client node's opens one after
		 * another (their bytes overlap): whichever ends later. */
		uint32_t client = mv->dst == NONE ? mv->src : mv->dst;
		double opened = t;
		if (e->cfg->fs_latency > 0 && client != NONE) {
			opened = (t > e->fs_opened[client] ? t : e->fs_opened[client]) +
				 files * e->cfg->fs_latency;
			e->fs_opened[client] = opened;
		}
		e->r->fs_ops += files;
		if (e->cfg->fs_ops > 0) {
			double start = t > e->fs_free ? t : e->fs_free;
			e->fs_free = start + files / e->cfg->fs_ops;
			t = e->fs_free;
		}
		t = opened > t ? opened : t;
	}
	if (t > now) {
		mv->state = MV_PREP;
		push_ev(e, t, EV_READY, mv->gen, m);
		return;
	}
	request_move(e, m, now);
}

/* Stops move m wherever it is (waiting for a slot or its latency, or
 * flowing); returns the bytes it had left. */
static double stop_move(struct engine *e, uint32_t m, double now)
{
	struct move *mv = &e->moves[m];
	double left = mv->bytes;
	if (mv->state == MV_SLOT) {
		uint32_t *at = &e->qhead[mv->src], prev = NONE;
		while (*at != NONE && *at != m) {
			prev = *at;
			at = &e->moves[*at].qnext;
		}
		if (*at == m) {
			*at = mv->qnext;
			if (e->qtail[mv->src] == m)
				e->qtail[mv->src] = prev;
		}
	} else if (mv->state == MV_FLOW) {
		if (locus__share_cancel(e->share, now, mv->flow, &left))
			fail(e, LOCUS_ENOMEM, "out of memory");
	} else if (mv->state == MV_DIRECT) {
		left = direct_left(mv, now);
	}
	/* MV_LATENCY, MV_DIRECT: their event finds them in another state,
	 * or of another generation. */
	mv->gen++;
	release_slot(e, m, now);
	mv->state = MV_FREE;
	return left;
}

/* ---- objects reaching nodes ------------------------------------------------------ */

/* Node `node` now holds object o: 1 if new, 0 if it held it, -1 when out
 * of memory or when o does not fit in the node's local storage (the run
 * ends saying so). */
static int hold(struct engine *e, uint32_t o, uint32_t node)
{
	int added = locus_replicas_add(e->rep, o, node);
	if (added < 0) {
		fail(e, LOCUS_ENOMEM, "out of memory");
		return -1;
	}
	if (!added)
		return 0;
	double bytes = (double)e->g->objects[o].bytes, cap = e->p->nodes[node].storage;
	e->held[node] += bytes;
	if (e->held[node] > e->r->storage_peak)
		e->r->storage_peak = e->held[node];
	if (cap > 0 && e->held[node] > cap) {
		char ob[256];
		halt(e,
		     "node %s's local storage (%.0f bytes) cannot hold %s (%.0f bytes) beside the "
		     "%.0f bytes it holds",
		     e->p->nodes[node].name, cap, object_name(e, o, ob, sizeof ob), bytes,
		     e->held[node] - bytes);
		return -1;
	}
	return 1;
}

/* Node `node` no longer holds object o. */
static void unhold(struct engine *e, uint32_t o, uint32_t node)
{
	if (locus_replicas_remove(e->rep, o, node) > 0)
		e->held[node] -= (double)e->g->objects[o].bytes;
}

static void record_xfer(struct engine *e, const struct move *mv, double now)
{
	e->r->transfers++;
	e->r->bytes_moved += (uint64_t)mv->size;
	if (e->cfg->no_transfer_results)
		return;
	if (locus__grow(&e->r->xfers, &e->xfers_cap, e->r->n_xfers + 1, sizeof *e->r->xfers)) {
		fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	e->r->xfers[e->r->n_xfers++] = (struct locus_transfer_result){
	    mv->obj, mv->src, mv->dst, mv->task, mv->asked, now, (uint64_t)mv->size};
}

/* Object o is now on `node` (written there, or arrived; NONE: the file
 * system): the tasks placed there that waited for it count one input
 * fewer, and, when it is the object's only copy, those placed elsewhere
 * can have it sent (with a copy elsewhere already, each of them asked for
 * it when it was placed, or again when the transfer's source failed:
 * asking once more would only find the transfer under way, at a cost of
 * every holder and transfer of a widely read object for every copy made
 * of it). A task that reads its inputs when it starts (LOCUS_GATHER_READ)
 * waits for its first copy anywhere. */
/* Object o is now on `node` (written there, or arrived; NONE: the file
 * system), new there: no longer lost, and the executor hears of it. */
static void appeared(struct engine *e, uint32_t o, uint32_t node, double now)
{
	e->lost_node[o] = NONE;
	locus__exec_appeared(&e->x, o, node == NONE ? LOCUS_FS : node, now);
}

static int op_underway(void *eng, uint32_t o, uint32_t node)
{
	const struct engine *e = eng;
	for (uint32_t m = e->xhead[o]; m != NONE; m = e->moves[m].onext)
		if (e->moves[m].dst == node)
			return 1;
	return 0;
}

/* Sends object o to `node` from `src` (LOCUS_FS: the file system) for
 * task `task` (or NONE). */
static void op_fetch(void *eng, uint32_t o, uint32_t src, uint32_t node, uint32_t task, double now)
{
	struct engine *e = eng;
	uint32_t m = new_move(e);
	if (m == NONE)
		return;
	struct move *mv = &e->moves[m];
	mv->kind = MV_XFER;
	mv->w = NONE;
	mv->task = task;
	mv->obj = o;
	mv->src = src == LOCUS_FS ? NONE : src;
	mv->dst = node;
	mv->size = mv->bytes = (double)e->g->objects[o].bytes;
	mv->asked = now;
	route(e, mv);
	mv->onext = e->xhead[o];
	e->xhead[o] = m;
	launch(e, m, now, 0, 1);
}

static void policy_transfer(struct engine *e, uint32_t proc, uint32_t o, uint32_t from, uint32_t to,
			    double now)
{
	struct locus_event ev = {
	    .kind = LOCUS_EV_TRANSFER,
	    .transfer = {.object = o, .from = from, .to = to, .ok = 1, .n = 1}};
	if (locus_replicas_has(e->rep, o, to) || e->node_down[to]) {
		ev.transfer.ok = !e->node_down[to];
		tell(e, proc, &ev, now);
		return;
	}
	uint32_t n = locus_replicas_count(e->rep, o);
	const uint32_t *h = locus_replicas_nodes(e->rep, o);
	if (from == LOCUS_NONE || !locus_replicas_has(e->rep, o, from))
		from = locus_source_pick(e->p, h, n, to, o);
	if (from == LOCUS_NONE) {
		ev.transfer.ok = 0;
		tell(e, proc, &ev, now);
		return;
	}
	uint32_t m = new_move(e);
	if (m == NONE)
		return;
	struct move *mv = &e->moves[m];
	mv->kind = MV_XFER;
	mv->w = mv->task = NONE;
	mv->obj = o;
	mv->src = from;
	mv->dst = to;
	mv->requester = proc;
	mv->size = mv->bytes = (double)e->g->objects[o].bytes;
	mv->asked = now;
	route(e, mv);
	mv->onext = e->xhead[o];
	e->xhead[o] = m;
	request_move(e, m, now);
}

static void xfer_done(struct engine *e, uint32_t m, double now)
{
	struct move *mv = &e->moves[m];
	release_slot(e, m, now);
	unlink_xfer(e, m);
	record_xfer(e, mv, now);
	mv = &e->moves[m];
	uint32_t o = mv->obj, dst = mv->dst, src = mv->src, req = mv->requester, task = mv->task;
	free_move(e, m);
	int added = hold(e, o, dst);
	if (added < 0)
		return;
	if (src == NONE)
		e->r->fs_bytes_read += e->g->objects[o].bytes;
	struct locus_stage_result *st = stage_of(e, task);
	if (st)
		*(src == NONE ? &st->bytes_fs_read : &st->bytes_peer) += e->g->objects[o].bytes;
	if (req != NONE) {
		struct locus_event ev = {
		    .kind = LOCUS_EV_TRANSFER,
		    .transfer = {.object = o, .from = src, .to = dst, .ok = 1, .n = 1}};
		tell(e, req, &ev, now);
	}
	if (added)
		appeared(e, o, dst, now);
}

/* Object o is on the file system now. */
static void on_fs(struct engine *e, uint32_t o, double now)
{
	if (e->on_fs[o])
		return;
	e->on_fs[o] = 1;
	appeared(e, o, NONE, now);
}

/* ---- a policy's copies and drops ------------------------------------------------------ */

/* Tells `proc` how copy `tag` of n objects (the first `o`) from `from` to
 * `to` (internal names: NONE is the file system) went. */
static void copy_told(struct engine *e, uint32_t proc, uint32_t o, uint32_t n, uint32_t from,
		      uint32_t to, uint64_t tag, int ok, double now)
{
	struct locus_event ev = {.kind = LOCUS_EV_TRANSFER,
				 .transfer = {.object = o,
					      .from = from == NONE ? LOCUS_FS : from,
					      .to = to == NONE ? LOCUS_FS : to,
					      .ok = ok,
					      .tag = tag,
					      .n = n}};
	tell(e, proc, &ev, now);
}

/* Whether `place` (a node, or NONE: the file system) has object o. */
static int has_at(const struct engine *e, uint32_t o, uint32_t place)
{
	return place == NONE ? e->on_fs[o] : locus_replicas_has(e->rep, o, place);
}

/* Carries out locus_act_copy for process `proc`: from and to are nodes
 * or LOCUS_FS (here NONE, the engine's name for it), from LOCUS_NONE a
 * holder of the one object (or the file system) locus_source_pick names. */
static void policy_copy(struct engine *e, uint32_t proc, const uint32_t *objs, uint32_t n,
			uint64_t bytes, uint32_t from, uint32_t to, double delay, uint64_t tag,
			uint32_t task, double now)
{
	uint32_t first = n ? objs[0] : LOCUS_NONE;
	if (to == LOCUS_FS)
		to = NONE;
	if (from == LOCUS_FS) {
		from = NONE;
	} else if (from == LOCUS_NONE) {
		uint32_t c = locus_replicas_count(e->rep, first);
		from = c ? locus_source_pick(e->p, locus_replicas_nodes(e->rep, first), c,
					     to == NONE ? 0 : to, first)
			 : NONE;
		if (!c && !e->on_fs[first]) {
			copy_told(e, proc, first, n, from, to, tag, 0, now);
			return;
		}
	}
	int there = n > 0,
	    ok = !(from != NONE && e->node_down[from]) && !(to != NONE && e->node_down[to]);
	double size = 0;
	for (uint32_t k = 0; k < n && ok; k++) {
		ok = has_at(e, objs[k], from);
		there &= has_at(e, objs[k], to);
		size += (double)e->g->objects[objs[k]].bytes;
	}
	if (!ok || there) {
		copy_told(e, proc, first, n, from, to, tag, ok, now);
		return;
	}
	uint32_t m = new_move(e);
	if (m == NONE)
		return;
	struct move *mv = &e->moves[m];
	if (n) {
		mv->objs = malloc(n * sizeof *mv->objs);
		if (!mv->objs) {
			free_move(e, m);
			fail(e, LOCUS_ENOMEM, "out of memory");
			return;
		}
		memcpy(mv->objs, objs, n * sizeof *objs);
	}
	mv->kind = MV_COPY;
	mv->n_objs = n;
	mv->w = NONE;
	mv->task = task == LOCUS_NONE ? NONE : task;
	locus__exec_copy_starts(&e->x, mv->task);
	mv->obj = first;
	mv->src = from;
	mv->dst = to;
	mv->requester = proc;
	mv->tag = tag;
	mv->size = mv->bytes = n ? size : (double)bytes;
	mv->asked = now;
	route(e, mv);
	launch(e, m, now, delay, n);
}

/* A copy naming task t (or NONE) has ended, or failed: t may start, when
 * it waits at the head of its worker's tasks. */
static void copy_done(struct engine *e, uint32_t m, double now)
{
	struct move *mv = &e->moves[m];
	release_slot(e, m, now);
	record_xfer(e, mv, now);
	mv = &e->moves[m];
	if (mv->src == NONE)
		e->r->fs_bytes_read += (uint64_t)mv->size;
	if (mv->dst == NONE)
		e->r->fs_bytes_written += (uint64_t)mv->size;
	struct locus_stage_result *st = stage_of(e, mv->task);
	if (st)
		*(mv->src == NONE   ? &st->bytes_fs_read
		  : mv->dst == NONE ? &st->bytes_fs_written
				    : &st->bytes_peer) += (uint64_t)mv->size;
	uint32_t *objs = mv->objs, n = mv->n_objs, src = mv->src, dst = mv->dst,
		 req = mv->requester, first = mv->obj, task = mv->task;
	uint64_t tag = mv->tag;
	mv->objs = NULL;
	free_move(e, m);
	/* The objects are there before the requester hears of it (it may
	 * copy them on at once). */
	for (uint32_t k = 0; k < n && !e->x.failed; k++) {
		if (dst == NONE) {
			on_fs(e, objs[k], now);
			continue;
		}
		if (hold(e, objs[k], dst) > 0)
			appeared(e, objs[k], dst, now);
	}
	free(objs);
	if (!e->x.failed)
		copy_told(e, req, first, n, src, dst, tag, 1, now);
	locus__exec_copy_over(&e->x, task, now);
}

/* Carries out locus_act_drop: `place` (a node, or NONE) drops o. */
static void drop(struct engine *e, uint32_t o, uint32_t place)
{
	if (place == NONE)
		e->on_fs[o] = 0;
	else
		unhold(e, o, place);
}

/* ---- running tasks ------------------------------------------------------------- */

/* Starts a read of input o for task t on worker w, from node src (NONE:
 * the file system). */
static void start_read(struct engine *e, uint32_t w, uint32_t t, uint32_t o, uint32_t src,
		       double now)
{
	uint32_t m = new_move(e);
	if (m == NONE)
		return;
	struct move *mv = &e->moves[m];
	mv->kind = MV_READ;
	mv->w = w;
	mv->task = t;
	mv->obj = o;
	mv->src = src;
	mv->dst = e->procs[w].node;
	mv->size = mv->bytes = (double)e->g->objects[o].bytes;
	mv->asked = now;
	route(e, mv);
	e->procs[w].reads_left++;
	/* A local read starts at once; one from the file system after its
	 * metadata operation. */
	if (mv->src == mv->dst)
		start_flow(e, m, now);
	else
		launch(e, m, now, 0, 1);
}

static void computing(struct engine *e, uint32_t w, double now);

/* Task t starts on worker w (the executor's choice): its wait counted,
 * its reads started from where the executor says. */
static void op_start(void *eng, uint32_t w, uint32_t t, double now)
{
	struct engine *e = eng;
	struct proc *pr = &e->procs[w];
	const struct locus_task *tk = &e->wl->tasks[t];
	uint32_t node = pr->node;
	pr->read_start = now;
	pr->reads_left = 0;
	double wait = now - pr->idle_since;
	struct locus_stage_result *wst = stage_of(e, t);
	if (wst) {
		/* Its wait for its inputs: since it could have run. */
		double ready = e->tassigned[t] > pr->idle_since ? e->tassigned[t] : pr->idle_since;
		wst->input_wait += now - ready;
	}
	if (locus__grow(&e->waits, &e->waits_cap, e->n_waits + 1, sizeof *e->waits) ||
	    locus__grow(&e->reads, &e->reads_cap, tk->n_in + 1, sizeof *e->reads)) {
		fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	e->waits[e->n_waits++] = wait;
	struct locus_worker_result *wr = &e->r->workers[w];
	if (wait > wr->max_wait)
		wr->max_wait = wait;
	wr->idle += wait;
	/* What it reads and from where (its main stored input says whether
	 * it is local: the workload's locality). */
	struct locus__read_plan plan;
	long n = locus__exec_reads(&e->x, t, node, e->reads, &plan);
	uint32_t source = plan.source == LOCUS_FS ? NONE : plan.source;
	int local = plan.local;
	uint64_t stored = 0;
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = e->g->inputs[tk->in_at + k];
		if (e->g->objects[o].producer == LOCUS_NONE)
			stored += e->g->objects[o].bytes;
	}
	if (e->r->tasks) {
		struct locus_task_result *tr = &e->r->tasks[t];
		tr->worker = w;
		tr->node = node;
		tr->source = source;
		tr->local = (uint32_t)local;
		tr->idle_since = pr->idle_since;
		tr->start = now;
		tr->attempts = e->x.tattempt[t] + 1;
	}
	/* Bytes count as they are read; the task and its locality when it
	 * ends (an attempt cancelled or lost is not a task done). */
	e->tlocal[t] = (uint8_t)local;
	if (local) {
		wr->bytes_local += stored;
		e->r->bytes_local += stored;
	} else {
		wr->bytes_remote += stored;
		e->r->bytes_remote += stored;
	}
	/* Produced inputs on the node already (those it goes without aside). */
	struct locus_stage_result *st = stage_of(e, t);
	for (uint32_t k = 0; st && k < plan.upto; k++) {
		uint32_t o = e->g->inputs[tk->in_at + k];
		if (e->g->objects[o].producer != LOCUS_NONE &&
		    locus_replicas_has(e->rep, o, node) && e->x.tgather[t] != LOCUS_GATHER_NONE)
			st->bytes_local += e->g->objects[o].bytes;
	}
	if (n < 0) {
		locus__exec_unreadable(&e->x, t, plan.upto); /* held nowhere */
		return;
	}
	for (long k = 0; k < n && !e->x.failed; k++)
		start_read(e, w, t, e->reads[k].object,
			   e->reads[k].source == LOCUS_FS ? NONE : e->reads[k].source, now);
	if (!pr->reads_left)
		computing(e, w, now);
}

/* Worker w's reads are done: it computes. */
static void computing(struct engine *e, uint32_t w, double now)
{
	struct proc *pr = &e->procs[w];
	uint32_t t = e->x.w[w].task;
	pr->read_end = now;
	e->x.tstate[t] = LOCUS__T_COMPUTING;
	e->tcstart[t] = now;
	if (e->r->tasks)
		e->r->tasks[t].read_end = now;
	/* At a constant speed, the cost as the planners see it (the same
	 * operations, so the same bits). */
	double end = e->seg_at[pr->node] == e->seg_at[pr->node + 1]
			 ? now + locus_workload_cost(e->wl, t, w)
			 : compute_end(e, pr->node, now, work_units(e, t, w));
	push_ev(e, end, EV_COMPUTED, w, pr->gen);
}

static void read_done(struct engine *e, uint32_t m, double now)
{
	const struct move *mv = &e->moves[m];
	uint32_t w = mv->w;
	struct locus_stage_result *st = stage_of(e, mv->task);
	if (st)
		*(mv->src == mv->dst ? &st->bytes_local
		  : mv->src == NONE  ? &st->bytes_fs_read
				     : &st->bytes_peer) += (uint64_t)mv->size;
	if (mv->src == NONE)
		e->r->fs_bytes_read += (uint64_t)mv->size;
	else if (mv->src != mv->dst && e->g->objects[mv->obj].producer != LOCUS_NONE) {
		/* A produced input read from a peer: data over the network. */
		e->r->transfers++;
		e->r->bytes_moved += (uint64_t)mv->size;
	}
	release_slot(e, m, now);
	free_move(e, m);
	struct proc *pr = &e->procs[w];
	if (--pr->reads_left == 0)
		computing(e, w, now);
}

/* Node `node` keeps output o: new, or not (-1: it does not fit). */
static int op_keep(void *eng, uint32_t o, uint32_t node, double now)
{
	struct engine *e = eng;
	(void)now;
	int added = hold(e, o, node);
	if (added > 0)
		e->lost_node[o] = NONE;
	return added;
}

/* Worker w writes output o of its task to the file system. */
static void op_write(void *eng, uint32_t w, uint32_t o, double now)
{
	struct engine *e = eng;
	uint32_t m = new_move(e);
	if (m == NONE)
		return;
	struct move *mv = &e->moves[m];
	mv->kind = MV_WRITE;
	mv->w = w;
	mv->task = e->x.w[w].task;
	mv->obj = o;
	mv->src = e->procs[w].node;
	mv->dst = NONE;
	mv->size = mv->bytes = (double)e->g->objects[o].bytes;
	mv->asked = now;
	route(e, mv);
	launch(e, m, now, 0, 1);
}

static void write_done(struct engine *e, uint32_t m, double now)
{
	const struct move *mv = &e->moves[m];
	uint32_t w = mv->w, o = mv->obj;
	struct locus_stage_result *st = stage_of(e, mv->task);
	if (st)
		st->bytes_fs_written += (uint64_t)mv->size;
	e->r->fs_bytes_written += (uint64_t)mv->size;
	release_slot(e, m, now);
	free_move(e, m);
	on_fs(e, o, now);
	locus__exec_written(&e->x, w, o, now);
}

/* Worker w's task t ended: counted (the executor tells the policy). An
 * attempt that ran elsewhere and came home counted for the worker that
 * ran it (op_ran), and its times are that attempt's. */
static void op_ended(void *eng, uint32_t w, uint32_t t, struct locus_event *ev, double now)
{
	struct engine *e = eng;
	struct proc *pr = &e->procs[w];
	uint32_t by = e->x.tran_by[t];
	int home = by != w;
	double start = home ? e->tran_start[t] : pr->read_start;
	double read_end = home ? e->tran_read[t] : pr->read_end;
	double compute_end = home ? e->tran_computed[t] : pr->compute_end;
	double duration = now - start;
	struct locus_stage_result *st = stage_of(e, t);
	if (st) {
		if (!st->tasks || start < st->first_start)
			st->first_start = start;
		if (now > st->last_end)
			st->last_end = now;
		st->tasks++;
		st->read += read_end - start;
		st->compute += compute_end - read_end;
		st->write += now - compute_end;
	}
	if (!home) {
		e->r->workers[w].busy += duration;
		e->r->workers[w].tasks++;
		if (e->tlocal[t]) {
			e->r->workers[w].local_tasks++;
			e->r->local_tasks++;
		}
	}
	if (e->r->tasks)
		e->r->tasks[t].end = now;
	if (now > e->r->makespan)
		e->r->makespan = now;
	pr->idle_since = now;
	if (e->cfg->progress && e->x.done >= e->next_progress) {
		e->cfg->progress(e->cfg->progress_user, e->x.done, e->wl->n_tasks, now);
		e->next_progress = e->x.done + (e->wl->n_tasks + 99) / 100;
	}
	ev->done.duration = duration;
	ev->done.compute = compute_end - read_end;
	ev->done.remote =
	    !locus_workload_is_local(e->wl, t, e->procs[home ? by : w].node) || e->res_fs != NONE;
}

/* Worker `by` ran an attempt of worker home's task t (a retry): its
 * time counts for `by`, and so does the task when it comes home. */
static void op_ran(void *eng, uint32_t by, uint32_t home, uint32_t t, uint32_t attempt, int ok,
		   const char *why, double now)
{
	struct engine *e = eng;
	struct proc *pr = &e->procs[by];
	(void)home;
	(void)attempt;
	(void)why;
	pr->idle_since = now;
	if (!ok)
		return;
	e->tran_start[t] = pr->read_start;
	e->tran_read[t] = pr->read_end;
	e->tran_computed[t] = pr->compute_end;
	e->r->workers[by].busy += now - pr->read_start;
	e->r->workers[by].tasks++;
	if (e->tlocal[t]) {
		e->r->workers[by].local_tasks++;
		e->r->local_tasks++;
	}
}

/* Finished task t of worker w runs again (GTP/r's rewinding): its
 * completion no longer counts, nor its worker's task, nor its locality. */
static void op_unended(void *eng, uint32_t w, uint32_t t)
{
	struct engine *e = eng;
	e->r->workers[w].tasks--;
	if (e->tlocal[t]) {
		e->r->workers[w].local_tasks--;
		e->r->local_tasks--;
	}
}

static void op_placed(void *eng, uint32_t w, uint32_t t, int from_policy, double now)
{
	struct engine *e = eng;
	(void)w;
	if (!from_policy)
		return;
	e->tassigned[t] = now;
	if (e->r->tasks)
		e->r->tasks[t].assigned = now;
}

/* Task t on worker w stops where it is: its reads or writes stopped, its
 * computation forgotten. */
static void op_abort(void *eng, uint32_t w, uint32_t t, int state, double now)
{
	struct engine *e = eng;
	struct proc *pr = &e->procs[w];
	(void)t;
	if (state == LOCUS__T_COMPUTING) {
		pr->gen++; /* its EV_COMPUTED is stale */
	} else {
		int kind = state == LOCUS__T_READING ? MV_READ : MV_WRITE;
		for (uint32_t m = 0; m < e->n_moves; m++)
			if (e->moves[m].state != MV_FREE && e->moves[m].kind == kind &&
			    e->moves[m].w == w) {
				stop_move(e, m, now);
				free_move(e, m);
			}
		pr->reads_left = 0;
	}
	pr->idle_since = now;
}

static const struct locus__exec_ops sim_ops = {
    .tell = op_tell,
    .send = op_send,
    .timer = op_timer,
    .transfer = op_transfer,
    .copy = op_copy,
    .drop = op_drop,
    .underway = op_underway,
    .fetch = op_fetch,
    .placed = op_placed,
    .start = op_start,
    .abort = op_abort,
    .keep = op_keep,
    .write = op_write,
    .ended = op_ended,
    .unended = op_unended,
    .ran = op_ran,
    .halt = op_halt,
    .fail = op_fail,
};

/* ---- nodes failing and coming back ------------------------------------------- */

static void node_down(struct engine *e, uint32_t n, double now)
{
	if (e->node_down[n])
		return;
	e->node_down[n] = 1;
	for (uint32_t w = 0; w < e->n_workers; w++)
		if (e->procs[w].node == n)
			locus__exec_worker_down(&e->x, w);
	/* Its workers lose what they run and what waits for them. */
	for (uint32_t w = 0; w < e->n_workers && !over(e); w++)
		if (e->procs[w].node == n)
			locus__exec_worker_lose(&e->x, w, now);
	if (over(e))
		return;
	/* Moves from and to it stop: reads by other nodes from it start
	 * again from another holder, transfers to others are asked again. */
	uint32_t *again = NULL, *reread = NULL;
	size_t n_again = 0, cap_again = 0, n_reread = 0, cap_reread = 0;
	for (uint32_t m = 0; m < e->n_moves && !e->x.failed; m++) {
		struct move *mv = &e->moves[m];
		if (mv->state == MV_FREE || (mv->src != n && mv->dst != n))
			continue;
		stop_move(e, m, now);
		if (mv->kind == MV_COPY) {
			uint32_t task = mv->task;
			copy_told(e, mv->requester, mv->obj, mv->n_objs, mv->src, mv->dst, mv->tag,
				  0, now);
			free_move(e, m);
			locus__exec_copy_over(&e->x, task, now);
		} else if (mv->kind == MV_WRITE) {
			free_move(e, m); /* its task was lost with the node */
		} else if (mv->kind == MV_XFER) {
			unlink_xfer(e, m);
			if (mv->requester != NONE) {
				struct locus_event ev = {.kind = LOCUS_EV_TRANSFER,
							 .transfer = {.object = mv->obj,
								      .from = mv->src,
								      .to = mv->dst}};
				tell(e, mv->requester, &ev, now);
			}
			if (mv->dst != n) {
				if (locus__grow(&again, &cap_again, n_again + 2, sizeof *again)) {
					fail(e, LOCUS_ENOMEM, "out of memory");
					break;
				}
				again[n_again++] = mv->obj;
				again[n_again++] = mv->dst;
			}
			free_move(e, m);
		} else if (locus__grow(&reread, &cap_reread, n_reread + 1, sizeof *reread)) {
			fail(e, LOCUS_ENOMEM, "out of memory");
			break;
		} else {
			reread[n_reread++] = m; /* a read by a worker elsewhere */
		}
	}
	e->serving[n] = 0;
	e->qhead[n] = e->qtail[n] = NONE;
	/* What only it held is lost. */
	for (uint32_t o = 0; o < e->g->n_objects; o++)
		if (locus_replicas_has(e->rep, o, n) && locus_replicas_count(e->rep, o) == 1 &&
		    !e->on_fs[o]) {
			e->lost_node[o] = n;
			e->lost_at[o] = now;
		}
	locus_replicas_drop_node(e->rep, n, NULL, NULL);
	e->held[n] = 0;
	for (size_t i = 0; i < n_reread && !over(e); i++) {
		struct move *mv = &e->moves[reread[i]];
		uint32_t cnt = locus_replicas_count(e->rep, mv->obj);
		if (!cnt && !e->on_fs[mv->obj]) {
			char nb[64], ob[256];
			halt(e, "task %s cannot read %s: every node holding it failed",
			     task_name(e, mv->task, nb, sizeof nb),
			     object_name(e, mv->obj, ob, sizeof ob));
			break;
		}
		mv->src = cnt ? locus_source_pick(e->p, locus_replicas_nodes(e->rep, mv->obj), cnt,
						  mv->dst, mv->task)
			      : NONE;
		route(e, mv);
		launch(e, reread[i], now, 0, 1);
	}
	for (size_t i = 0; i + 1 < n_again && !e->x.failed; i += 2)
		locus__exec_want(&e->x, again[i], again[i + 1], now);
	free(again);
	free(reread);
	struct locus_event ev = {.kind = LOCUS_EV_NODE_DOWN, .node = {.node = n}};
	tell_schedulers(e, &ev, now);
}

static void node_up(struct engine *e, uint32_t n, double now)
{
	if (!e->node_down[n])
		return;
	e->node_down[n] = 0;
	struct locus_event up = {.kind = LOCUS_EV_NODE_UP, .node = {.node = n}};
	tell_schedulers(e, &up, now);
	for (uint32_t w = 0; w < e->n_workers; w++) {
		struct proc *pr = &e->procs[w];
		if (pr->node != n)
			continue;
		locus__exec_worker_up(&e->x, w);
		pr->idle_since = now;
		struct locus_event start = {.kind = LOCUS_EV_START};
		tell(e, w, &start, now);
	}
}

/* A bandwidth changed: the shared links get their new capacity, and the

 * contention-free transfers of the pairs concerned go on at theirs. */
static void bandwidth(struct engine *e, uint32_t a, uint32_t b, double now)
{
	uint32_t nn = (uint32_t)e->p->n_nodes;
	if (e->p->network != LOCUS_NET_PAIRS) {
		double bw = e->p->nodes[a].net_bw * e->bw_factor[a];
		if (locus__share_set_capacity(e->share, now, nn + a, bw) ||
		    locus__share_set_capacity(e->share, now, 2 * nn + a, bw))
			fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	for (uint32_t m = 0; m < e->n_moves && !e->x.failed; m++) {
		struct move *mv = &e->moves[m];
		if (mv->state == MV_FREE || mv->cap == 0)
			continue;
		if (b == NONE ? mv->src != a && mv->dst != a
			      : !((mv->src == a && mv->dst == b) || (mv->src == b && mv->dst == a)))
			continue;
		if (mv->state == MV_DIRECT)
			mv->bytes = direct_left(mv, now);
		mv->cap = pair_cap(e, mv->src, mv->dst);
		if (mv->state == MV_DIRECT)
			start_flow(e, m, now);
	}
}

static void change(struct engine *e, const struct locus_change *c, double now)
{
	uint32_t nn = (uint32_t)e->p->n_nodes;
	switch (c->kind) {
	case LOCUS_CHANGE_FAIL:
		node_down(e, c->node, now);
		break;
	case LOCUS_CHANGE_RECOVER:
		node_up(e, c->node, now);
		break;
	case LOCUS_CHANGE_BANDWIDTH: {
		e->bw_factor[c->node] = c->value;
		bandwidth(e, c->node, NONE, now);
		struct locus_event ev = {.kind = LOCUS_EV_BANDWIDTH,
					 .bandwidth = {.node = c->node, .factor = c->value}};
		tell_schedulers(e, &ev, now);
		break;
	}
	case LOCUS_CHANGE_LINK:
		if (e->link_factor) {
			e->link_factor[(size_t)c->node * nn + c->node2] = c->value;
			e->link_factor[(size_t)c->node2 * nn + c->node] = c->value;
			bandwidth(e, c->node, c->node2, now);
		}
		break;
	default:
		break;
	}
}

/* ---- the monitor ---------------------------------------------------------------- */

static uint32_t mon_placed(const struct locus_monitor *m, uint32_t t, double *computed)
{
	const struct engine *e = m->engine;
	if (computed)
		*computed = 0;
	if (t >= e->wl->n_tasks)
		return LOCUS_NONE;
	switch (e->x.tstate[t]) {
	case LOCUS__T_DONE:
		if (computed)
			*computed = 1;
		return e->x.tworker[t];
	case LOCUS__T_COMPUTING: {
		uint32_t w = e->x.tworker[t];
		double units = work_units(e, t, w);
		if (computed && units > 0) {
			double f = work_between(e, e->procs[w].node, e->tcstart[t], e->now) / units;
			*computed = f < 1 ? f : 1;
		}
		return w;
	}
	case LOCUS__T_WRITING:
		if (computed)
			*computed = 1;
		return e->x.tworker[t];
	case LOCUS__T_READING:
		return e->x.tworker[t];
	case LOCUS__T_QUEUED: {
		/* Placed once it has begun to gather its inputs. */
		uint32_t w = e->x.tworker[t], node = e->procs[w].node;
		const struct locus_task *tk = &e->wl->tasks[t];
		for (uint32_t k = 0; k < tk->n_in; k++) {
			uint32_t o = e->g->inputs[tk->in_at + k];
			if (e->g->objects[o].producer == LOCUS_NONE)
				continue;
			if (locus_replicas_has(e->rep, o, node))
				return w;
			for (uint32_t x = e->xhead[o]; x != NONE; x = e->moves[x].onext)
				if (e->moves[x].dst == node && (e->moves[x].state == MV_FLOW ||
								e->moves[x].state == MV_DIRECT))
					return w;
		}
		return LOCUS_NONE;
	}
	default:
		return LOCUS_NONE;
	}
}

static double mon_moved(const struct locus_monitor *m, uint32_t o, uint32_t node)
{
	const struct engine *e = m->engine;
	if (o < e->g->n_objects && node == LOCUS_FS)
		return e->on_fs[o];
	if (o >= e->g->n_objects || node >= e->p->n_nodes)
		return 0;
	if (locus_replicas_has(e->rep, o, node))
		return 1;
	for (uint32_t x = e->xhead[o]; x != NONE; x = e->moves[x].onext) {
		const struct move *mv = &e->moves[x];
		if (mv->dst != node || (mv->state != MV_FLOW && mv->state != MV_DIRECT) ||
		    !(mv->size > 0))
			continue;
		double left = mv->state == MV_DIRECT
				  ? direct_left(mv, e->now)
				  : locus__share_left(e->share, mv->flow, e->now);
		return 1 - left / mv->size;
	}
	return 0;
}

static double mon_avail(const struct locus_monitor *m, uint32_t node)
{
	const struct engine *e = m->engine;
	if (node >= e->p->n_nodes || e->node_down[node])
		return 0;
	return speed_at(e, node, e->now) / e->p->nodes[node].speed;
}

static double mon_bandwidth(const struct locus_monitor *m, uint32_t node)
{
	const struct engine *e = m->engine;
	return node < e->p->n_nodes && !e->node_down[node] ? e->bw_factor[node] : 0;
}

static double mon_pair_bw(const struct locus_monitor *m, uint32_t a, uint32_t b)
{
	const struct engine *e = m->engine;
	if (a >= e->p->n_nodes || b >= e->p->n_nodes || e->node_down[a] || e->node_down[b])
		return 0;
	if (e->p->network == LOCUS_NET_PAIRS)
		return pair_cap(e, a, b);
	double fa = e->p->nodes[a].net_bw * e->bw_factor[a];
	double fb = e->p->nodes[b].net_bw * e->bw_factor[b];
	double bw = locus_platform_pair_bw(e->p, a, b);
	return fmin(bw, fmin(fa, fb));
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

/* The speed changes of the run: cfg->speed with the scenario's speed and
 * availability changes, in time order (cfg->speed's first at a tie). */
static int merge_speeds(struct engine *e)
{
	const struct locus_sim_config *cfg = e->cfg;
	size_t n = cfg->n_speed;
	for (size_t k = 0; k < cfg->n_changes; k++)
		n += cfg->changes[k].kind == LOCUS_CHANGE_SPEED ||
		     cfg->changes[k].kind == LOCUS_CHANGE_AVAIL;
	e->speeds = locus__calloc(n ? n : 1, sizeof *e->speeds);
	e->others = locus__calloc(cfg->n_changes ? cfg->n_changes : 1, sizeof *e->others);
	if (!e->speeds || !e->others)
		return LOCUS_ENOMEM;
	size_t i = 0, j = 0;
	while (i < cfg->n_speed || j < cfg->n_changes) {
		const struct locus_change *c = j < cfg->n_changes ? &cfg->changes[j] : NULL;
		if (c && c->kind != LOCUS_CHANGE_SPEED && c->kind != LOCUS_CHANGE_AVAIL) {
			e->others[e->n_others++] = c;
			j++;
			continue;
		}
		if (i < cfg->n_speed && (!c || cfg->speed[i].time <= c->time)) {
			e->speeds[e->n_speeds++] = cfg->speed[i++];
			continue;
		}
		if (c->node >= e->p->n_nodes)
			return LOCUS_EINVAL;
		double s = c->kind == LOCUS_CHANGE_AVAIL ? c->value * e->p->nodes[c->node].speed
							 : c->value;
		e->speeds[e->n_speeds++] = (struct locus_speed_change){c->time, c->node, s};
		j++;
	}
	return 0;
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
		return fail(e, LOCUS_EINVAL, "policy %s runs %zu scheduler%s, not %zu",
			    cfg->policy->name, e->n_scheds, e->n_scheds == 1 ? "" : "s",
			    cfg->schedulers);
	if (!e->n_workers)
		return fail(e, LOCUS_EINVAL,
			    "the platform runs no worker (every node has 0 cores)");
	if (has_edges && !(pflags & LOCUS_POLICY_GRAPHS))
		return fail(e, LOCUS_EINVAL,
			    "policy %s schedules independent tasks, and the graph has %zu "
			    "dependencies: use a policy for task graphs (heft, cpop, dls, peft)",
			    cfg->policy->name, e->g->n_edges);
	e->n_procs = e->n_workers + e->n_scheds;
	e->latency = cfg->latency >= 0 ? cfg->latency : e->p->latency;
	e->procs = locus__calloc(e->n_procs, sizeof *e->procs);
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
		return fail(e, LOCUS_ENOMEM, "out of memory");
	e->node_rack = locus__calloc(nn, sizeof *e->node_rack);
	size_t n_racks = e->node_rack ? rack_index(e->p, e->node_rack) : 0;
	double *cap = locus__calloc(3 * nn + 2 + 2 * n_racks, sizeof *cap);
	if (!e->procs || !e->tlocal || !e->on_fs || !e->held || !e->tassigned || !e->tcstart ||
	    !e->tran_start || !e->tran_read || !e->tran_computed || !e->xhead || !e->lost_node ||
	    !e->lost_at || !e->node_down || !e->bw_factor || !e->serving || !e->fs_opened ||
	    !e->qhead || !e->qtail || !e->node_rack || !n_racks || !e->seg_at || !r->workers ||
	    !r->scheds || (!cfg->no_task_results && !r->tasks) || !cap ||
	    locus_replicas_create(&e->rep, e->g->n_objects, nn)) {
		free(cap);
		return fail(e, LOCUS_ENOMEM, "out of memory");
	}
	struct locus__exec_config xc = {.wl = e->wl,
					.policy = cfg->policy,
					.n_schedulers = e->n_scheds,
					.rep = e->rep,
					.on_fs = e->on_fs,
					.ops = &sim_ops,
					.eng = e,
					.engine = "the simulator",
					.retries = cfg->retries};
	if (locus__exec_init(&e->x, &xc)) {
		free(cap);
		return fail(e, LOCUS_ENOMEM, "out of memory");
	}
	/* Stored objects are where the catalog says, or on the file system
	 * when no node holds them; with a file system of its own bandwidth
	 * (shared_fs_bw) they are all on it alone. */
	for (size_t o = 0; o < e->g->n_objects; o++) {
		e->xhead[o] = e->lost_node[o] = NONE;
		for (uint32_t k = e->wl->obj_at[o];
		     k < e->wl->obj_at[o + 1] && !(cfg->shared_fs_bw > 0); k++)
			if (hold(e, (uint32_t)o, e->wl->holders[k]) < 0) {
				free(cap);
				return e->x.failed
					   ? e->x.failed
					   : fail(e, LOCUS_EINVAL,
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
			return fail(e, LOCUS_ENOMEM, "out of memory");
		}
		for (size_t k = 0; k < nn * nn; k++)
			e->link_factor[k] = 1;
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
	/* Platform changes: speeds by node, in time order; the rest as events. */
	if ((rc = merge_speeds(e)))
		return rc == LOCUS_ENOMEM
			   ? fail(e, rc, "out of memory")
			   : fail(e, rc, "a platform change names no node of the platform");
	e->segs = locus__calloc(e->n_speeds ? e->n_speeds : 1, sizeof *e->segs);
	if (!e->segs)
		return fail(e, LOCUS_ENOMEM, "out of memory");
	for (size_t k = 0; k < e->n_speeds; k++) {
		const struct locus_speed_change *c = &e->speeds[k];
		if (c->node >= nn || !(c->speed > 0) || !(c->time >= 0) ||
		    (k && c->time < e->speeds[k - 1].time))
			return fail(e, LOCUS_EINVAL,
				    "speed change %zu: expected a node below %zu, a speed > 0 and "
				    "times in order",
				    k, nn);
		e->seg_at[c->node + 1]++;
	}
	for (size_t k = 0; k < e->n_others; k++) {
		const struct locus_change *c = e->others[k];
		int two = c->kind == LOCUS_CHANGE_LINK;
		if (c->node >= nn || (two && (c->node2 >= nn || c->node2 == c->node)) ||
		    !(c->time >= 0) || (k && c->time < e->others[k - 1]->time) ||
		    ((c->kind == LOCUS_CHANGE_BANDWIDTH || two) &&
		     !(c->value > 0 && isfinite(c->value))))
			return fail(
			    e, LOCUS_EINVAL,
			    "platform change %zu: expected nodes below %zu, a value > 0 and "
			    "times in order",
			    k, nn);
		if (two && e->p->network != LOCUS_NET_PAIRS)
			return fail(e, LOCUS_EINVAL,
				    "a link changes, but the platform's network is shared: links "
				    "of their own need a contention-free platform");
	}
	for (size_t n = 0; n < nn; n++)
		e->seg_at[n + 1] += e->seg_at[n];
	size_t *fill = locus__calloc(nn, sizeof *fill);
	if (!fill)
		return fail(e, LOCUS_ENOMEM, "out of memory");
	for (size_t k = 0; k < e->n_speeds; k++) {
		uint32_t n = e->speeds[k].node;
		e->segs[e->seg_at[n] + fill[n]++] = e->speeds[k];
	}
	free(fill);
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
				return fail(e, LOCUS_EINVAL,
					    "policy %s put scheduler %zu on node %" PRIu32
					    " of %zu",
					    cfg->policy->name, s, node, nn);
		}
		e->procs[e->n_workers + s].node = node;
	}
	for (size_t i = 0; i < e->n_procs; i++) {
		e->procs[i].head = e->procs[i].tail = NONE;
	}
	for (size_t n = 0; n < nn; n++)
		e->qhead[n] = e->qtail[n] = NONE;
	e->free_items = NONE;
	e->free_moves = NONE;
	e->mon = (struct locus_monitor){.engine = e,
					.replicas = e->rep,
					.placed = mon_placed,
					.moved = mon_moved,
					.avail = mon_avail,
					.bandwidth = mon_bandwidth,
					.pair_bw = mon_pair_bw};
	return locus_heap_init(&e->heap, sizeof(struct ev), cmp_ev)
		   ? fail(e, LOCUS_ENOMEM, "out of memory")
		   : 0;
}

/* ---- the run ------------------------------------------------------------------------ */

/* Worker w's task has computed: it ends (the executor places its
 * outputs), or its attempt fails of itself (cfg->fails). */
static void computed(struct engine *e, uint32_t w, double now)
{
	uint32_t t = e->x.w[w].task;
	e->procs[w].compute_end = now;
	if (e->cfg->fails && e->cfg->fails(e->cfg->fails_user, t, e->x.tattempt[t])) {
		char why[64];
		snprintf(why, sizeof why, "attempt %" PRIu32 " failed (as the run was told)",
			 e->x.tattempt[t] + 1);
		locus__exec_failed(&e->x, w, LOCUS_FAIL_ERROR, why, now);
		return;
	}
	locus__exec_computed(&e->x, w, now);
}

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
		halt(e, "%s", msg);
		return 0;
	}
	return fail(e, LOCUS_EINCOMPLETE, "%s", msg);
}

/* Move m has arrived. */
static void move_done(struct engine *e, uint32_t m, double now)
{
	switch (e->moves[m].kind) {
	case MV_READ:
		read_done(e, m, now);
		break;
	case MV_WRITE:
		write_done(e, m, now);
		break;
	case MV_COPY:
		copy_done(e, m, now);
		break;
	default:
		xfer_done(e, m, now);
		break;
	}
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

static int run(struct engine *e)
{
	/* Every process starts at time 0, in id order; speed changes are told
	 * to every scheduler. */
	for (uint32_t i = 0; i < e->n_procs && !e->x.failed; i++) {
		uint32_t it = new_item(e);
		if (it == NONE)
			break;
		e->items[it].ev.kind = LOCUS_EV_START;
		push_ev(e, 0, EV_ARRIVE, i, it);
	}
	for (size_t k = 0; k < e->n_speeds && !e->x.failed; k++)
		for (size_t s = 0; s < e->n_scheds && !e->x.failed; s++) {
			uint32_t it = new_item(e);
			if (it == NONE)
				break;
			e->items[it].ev.kind = LOCUS_EV_SPEED;
			e->items[it].ev.speed.node = e->speeds[k].node;
			e->items[it].ev.speed.speed = e->speeds[k].speed;
			push_ev(e, e->speeds[k].time, EV_ARRIVE, (uint32_t)(e->n_workers + s), it);
		}
	for (size_t k = 0; k < e->n_others && !e->x.failed; k++)
		push_ev(e, e->others[k]->time, EV_CHANGE, NONE, (uint32_t)k);
	e->changes_left = e->n_others;
	while (!over(e)) {
		const struct ev *top = locus_heap_peek(&e->heap);
		double te = top ? top->t : INFINITY, tf = locus__share_next(e->share);
		if (te == INFINITY && tf == INFINITY)
			break;
		if (tf <= te) {
			uint64_t user;
			if (locus__share_pop(e->share, tf, &user) == 1) {
				e->now = e->progress_at = tf;
				move_done(e, (uint32_t)user, tf);
			}
			continue;
		}
		if (te > e->progress_at + STALL_AFTER(e->progress_at) && stalled(e, te))
			break;
		struct ev v;
		locus_heap_pop(&e->heap, &v);
		e->now = v.t;
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
				computed(e, v.proc, v.t);
			break;
		case EV_MOVE:
			if (e->moves[v.item].state == MV_LATENCY && e->moves[v.item].gen == v.proc)
				start_flow(e, v.item, v.t);
			break;
		case EV_CHANGE:
			change(e, e->others[v.item], v.t);
			break;
		case EV_MOVED:
			if (e->moves[v.item].state == MV_DIRECT && e->moves[v.item].gen == v.proc)
				move_done(e, v.item, v.t);
			break;
		case EV_READY:
			if (e->moves[v.item].state == MV_PREP && e->moves[v.item].gen == v.proc)
				request_move(e, v.item, v.t);
			break;
		case EV_START:
			locus__exec_try_start(&e->x, v.proc, v.t);
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
		double c0 = seconds_now();
		rc = cfg->policy->create(&e.pol, &ctx, err);
		if (cfg->time_policy)
			e.r->policy_create_seconds = seconds_now() - c0;
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
	locus__action_stack_fini(&e.acts);
	locus__exec_fini(&e.x);
	locus_replicas_destroy(e.rep);
	free(e.procs);
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
