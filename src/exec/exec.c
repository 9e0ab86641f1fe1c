/*
 * The executor (exec.h): the engine side of the policy protocol, once.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "exec/exec.h"

#define NONE UINT32_MAX

static void fail(struct locus__exec *x, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The run ends with an error (a policy's mistake, or no memory). */
static void fail(struct locus__exec *x, int code, const char *fmt, ...)
{
	char why[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	x->cfg.ops->fail(x->cfg.eng, code, why);
	if (!x->failed)
		x->failed = code;
}

static void halt(struct locus__exec *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The run cannot finish for a reason of the platform's. */
static void halt(struct locus__exec *x, const char *fmt, ...)
{
	char why[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	x->cfg.ops->halt(x->cfg.eng, why);
	x->halted = 1;
}

static const char *pname(const struct locus__exec *x)
{
	return x->cfg.policy->name;
}

static const char *task_name(const struct locus__exec *x, uint32_t t, char *buf, size_t size)
{
	return locus_graph_task_name(x->g, t, buf, size);
}

const char *locus__exec_object_name(const struct locus__exec *x, uint32_t o, char *buf, size_t size)
{
	const struct locus_object *ob = &x->g->objects[o];
	char tb[64];
	if (ob->name)
		snprintf(buf, size, "file \"%.200s\"", ob->name);
	else if (ob->producer != LOCUS_NONE)
		snprintf(buf, size, "the output of task %s",
			 locus_graph_task_name(x->g, ob->producer, tb, sizeof tb));
	else
		snprintf(buf, size, "object %" PRIu32, o);
	return buf;
}

static uint32_t node_of(const struct locus__exec *x, uint32_t w)
{
	return x->cfg.wl->worker_node[w];
}

static int hosted(const struct locus__exec *x, uint32_t w)
{
	return !x->cfg.hosted || x->cfg.hosted[w];
}

static int on_fs(const struct locus__exec *x, uint32_t o)
{
	return x->cfg.on_fs && x->cfg.on_fs[o];
}

static int ended(const struct locus__exec *x)
{
	return x->failed || x->halted;
}

/* Task t's state as a monitor sees it is now m (on worker w). */
static void monitor(struct locus__exec *x, uint32_t t, uint32_t w, enum locus__mon_state m,
		    double now)
{
	if (x->tmon[t] == m)
		return;
	x->tmon[t] = (uint8_t)m;
	if (x->cfg.ops->state)
		x->cfg.ops->state(x->cfg.eng, t, m == LOCUS__M_NONE ? NONE : w, m, now);
}

/* Whether queued task t on worker w has begun to gather: an input of it
 * on its node, or coming. */
static int gathering(const struct locus__exec *x, uint32_t t, uint32_t w)
{
	const struct locus_task *tk = &x->cfg.wl->tasks[t];
	uint32_t node = x->cfg.wl->worker_node[w];
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = x->g->inputs[tk->in_at + k];
		if (x->g->objects[o].producer != LOCUS_NONE &&
		    (locus_replicas_has(x->cfg.rep, o, node) ||
		     x->cfg.ops->underway(x->cfg.eng, o, node)))
			return 1;
	}
	return 0;
}

/* ---- resources ------------------------------------------------------------------ */

/* The ledgers: the engine's, or the executor's own (one a node), when the
 * graph has demands; else none, and every task starts as before. */
static int ledgers_init(struct locus__exec *x)
{
	const struct locus_platform *p = x->cfg.wl->platform;
	if (!locus__demands(x->g))
		return 0;
	size_t most = 1, *workers = locus__calloc(p->n_nodes + 1, sizeof *workers);
	if (!workers)
		return -1;
	for (size_t w = 0; w < x->n_workers; w++)
		if (++workers[node_of(x, (uint32_t)w)] > most)
			most = workers[node_of(x, (uint32_t)w)];
	x->wake = locus__calloc(most, sizeof *x->wake);
	x->ledger =
	    x->cfg.ledgers ? x->cfg.ledgers : locus__calloc(p->n_nodes + 1, sizeof *x->ledger);
	size_t at = 0, size = 0;
	for (size_t n = 0; !x->cfg.ledgers && n < p->n_nodes; n++)
		size += (locus__ledger_size(workers[n]) + 15) & ~(size_t)15;
	if (!x->cfg.ledgers && x->ledger)
		x->own_ledgers = locus__calloc(size + 1, 1);
	int bad = !x->wake || !x->ledger || (!x->cfg.ledgers && !x->own_ledgers);
	for (size_t n = 0; !bad && !x->cfg.ledgers && n < p->n_nodes; n++) {
		x->ledger[n] = (struct locus__ledger *)((char *)x->own_ledgers + at);
		locus__ledger_init(x->ledger[n], &p->nodes[n]);
		at += (locus__ledger_size(workers[n]) + 15) & ~(size_t)15;
	}
	free(workers);
	return bad ? -1 : 0;
}

static void stop_waiting(struct locus__exec *x, uint32_t w, double now);

static struct locus__ledger *ledger_of(const struct locus__exec *x, uint32_t w)
{
	return x->ledger ? x->ledger[node_of(x, w)] : NULL;
}

/* Worker w's ready head t takes its room on w's node: 1, or 0 when w
 * waits for room (a task coming home takes none), or when t can never
 * fit there (the run fails: a retry placed it there). */
static int take_room(struct locus__exec *x, uint32_t w, uint32_t t, double now)
{
	struct locus__ledger *l = ledger_of(x, w);
	if (!l)
		return 1;
	if (x->thoming[t]) {
		stop_waiting(x, w, now);
		return 1;
	}
	if (!locus_workload_fits(x->cfg.wl, t, node_of(x, w))) {
		char tb[128];
		stop_waiting(x, w, now);
		fail(x, LOCUS_EINCOMPLETE,
		     "task %s was placed again on worker %" PRIu32 ", whose node %s cannot hold it",
		     task_name(x, t, tb, sizeof tb), w,
		     x->cfg.wl->platform->nodes[node_of(x, w)].name);
		return 0;
	}
	struct locus_demand d = locus_graph_demand(x->g, t);
	x->w[w].waiting = !locus__ledger_take(l, w, &d);
	x->w[w].holds = !x->w[w].waiting;
	return x->w[w].holds;
}

/* Worker w's task t no longer runs: its room is free. */
static void give_room(struct locus__exec *x, uint32_t w, uint32_t t)
{
	if (!x->w[w].holds)
		return;
	struct locus_demand d = locus_graph_demand(x->g, t);
	locus__ledger_give(ledger_of(x, w), &d);
	x->w[w].holds = 0;
}

/* The workers of w's node that wait for room and this executor hosts,
 * but w, try again in their order (an engine whose other workers are
 * elsewhere has them try by themselves: locus__exec_try_start). */
static void wake_node(struct locus__exec *x, uint32_t w, double now)
{
	struct locus__ledger *l = ledger_of(x, w);
	if (!l || ended(x))
		return;
	size_t n = locus__ledger_waiting(l, x->wake);
	for (size_t i = 0; i < n && !ended(x); i++)
		if (x->wake[i] != w && hosted(x, x->wake[i]))
			locus__exec_try_start(x, x->wake[i], now);
}

/* Worker w's head is no longer ready, or it changed: w stops waiting. */
static void stop_waiting(struct locus__exec *x, uint32_t w, double now)
{
	if (!x->w[w].waiting)
		return;
	x->w[w].waiting = 0;
	locus__ledger_withdraw(ledger_of(x, w), w);
	wake_node(x, w, now);
}

/* ---- set-up ------------------------------------------------------------------- */

int locus__exec_init(struct locus__exec *x, const struct locus__exec_config *cfg)
{
	memset(x, 0, sizeof *x);
	x->cfg = *cfg;
	x->g = cfg->wl->graph;
	x->pflags = locus_policy_flags(cfg->policy);
	x->has_edges = locus_graph_has_edges(x->g);
	if (cfg->keep_going && (x->has_edges || !cfg->ops->gave_up))
		return LOCUS_EINVAL;
	x->n_workers = cfg->wl->n_workers;
	x->n_procs = x->n_workers + cfg->n_schedulers;
	size_t nt = cfg->wl->n_tasks ? cfg->wl->n_tasks : 1;
	x->w = locus__calloc(x->n_workers ? x->n_workers : 1, sizeof *x->w);
	x->tstate = locus__calloc(nt, 1);
	x->tfrom_policy = locus__calloc(nt, 1);
	x->tvoid = locus__calloc(nt, 1);
	x->tmon = locus__calloc(nt, 1);
	x->tgather = locus__calloc(nt, 1);
	x->toutput = locus__calloc(nt, 1);
	x->tworker = locus__calloc(nt, sizeof *x->tworker);
	x->thome = locus__calloc(nt, sizeof *x->thome);
	x->thoming = locus__calloc(nt, 1);
	x->tran_by = locus__calloc(nt, sizeof *x->tran_by);
	x->tassigner = locus__calloc(nt, sizeof *x->tassigner);
	x->tmissing = locus__calloc(nt, sizeof *x->tmissing);
	x->tawait = locus__calloc(nt, sizeof *x->tawait);
	x->tattempt = locus__calloc(nt, sizeof *x->tattempt);
	x->tlost_node = locus__calloc(nt, sizeof *x->tlost_node);
	x->asent = locus__calloc(nt, sizeof *x->asent);
	x->acut = locus__calloc(nt, sizeof *x->acut);
	x->anext = locus__calloc(nt, sizeof *x->anext);
	x->ahint = locus__calloc(nt, sizeof *x->ahint);
	if (!x->w || !x->tstate || !x->tfrom_policy || !x->tvoid || !x->tmon || !x->tgather ||
	    !x->toutput || !x->tworker || !x->thome || !x->thoming || !x->tran_by ||
	    !x->tassigner || !x->tmissing || !x->tawait || !x->tattempt || !x->tlost_node ||
	    !x->asent || !x->acut || !x->anext || !x->ahint) {
		locus__exec_fini(x);
		return LOCUS_ENOMEM;
	}
	for (size_t t = 0; t < cfg->wl->n_tasks; t++)
		x->tworker[t] = x->thome[t] = x->tran_by[t] = x->tassigner[t] = x->tlost_node[t] =
		    NONE;
	/* The tables left zeroed are written a task at a time as the run
	 * goes: mapped now, in one call each, not a page fault at a time. */
	const struct {
		void *p;
		size_t width;
	} zeroed[] = {{x->tstate, 1},
		      {x->tfrom_policy, 1},
		      {x->tvoid, 1},
		      {x->tmon, 1},
		      {x->tgather, 1},
		      {x->toutput, 1},
		      {x->thoming, 1},
		      {x->tmissing, sizeof *x->tmissing},
		      {x->tawait, sizeof *x->tawait},
		      {x->tattempt, sizeof *x->tattempt},
		      {x->asent, sizeof *x->asent},
		      {x->acut, sizeof *x->acut},
		      {x->anext, sizeof *x->anext},
		      {x->ahint, sizeof *x->ahint}};
	for (size_t i = 0; i < sizeof zeroed / sizeof *zeroed; i++)
		locus__prefault(zeroed[i].p, nt * zeroed[i].width);
	/* Each input edge's consumer edge (consumers are listed in task
	 * order, an entry per input edge). */
	const struct locus_graph *g = x->g;
	size_t ne = g->n_tasks ? g->tasks[g->n_tasks - 1].in_at + g->tasks[g->n_tasks - 1].n_in : 0;
	uint32_t *fill = locus__calloc(g->n_objects ? g->n_objects : 1, sizeof *fill);
	x->in_cons = locus__calloc(ne ? ne : 1, sizeof *x->in_cons);
	x->cwait = locus__calloc(ne ? ne : 1, 1);
	if (!fill || !x->in_cons || !x->cwait) {
		free(fill);
		locus__exec_fini(x);
		return LOCUS_ENOMEM;
	}
	for (uint32_t t = 0; t < g->n_tasks; t++)
		for (uint32_t k = 0; k < g->tasks[t].n_in; k++) {
			uint32_t o = g->inputs[g->tasks[t].in_at + k];
			x->in_cons[g->tasks[t].in_at + k] = g->objects[o].cons_at + fill[o]++;
		}
	free(fill);
	for (size_t w = 0; w < x->n_workers; w++)
		x->w[w] = (struct locus__xworker){.head = NONE, .tail = NONE, .task = NONE};
	if (ledgers_init(x)) {
		locus__exec_fini(x);
		return LOCUS_ENOMEM;
	}
	return 0;
}

void locus__exec_fini(struct locus__exec *x)
{
	free(x->w);
	free(x->tstate);
	free(x->tfrom_policy);
	free(x->tvoid);
	free(x->tmon);
	free(x->tgather);
	free(x->toutput);
	free(x->tworker);
	free(x->thome);
	free(x->thoming);
	free(x->in_cons);
	free(x->cwait);
	free(x->tran_by);
	free(x->tassigner);
	free(x->tmissing);
	free(x->tawait);
	free(x->tattempt);
	free(x->tlost_node);
	free(x->asent);
	free(x->acut);
	free(x->anext);
	free(x->ahint);
	free(x->wake);
	if (!x->cfg.ledgers)
		free(x->ledger);
	free(x->own_ledgers);
	memset(x, 0, sizeof *x);
}

/* ---- actions ------------------------------------------------------------------- */

/* The engine cannot do what the policy asks. */
static void unsupported(struct locus__exec *x, const char *what)
{
	fail(x, LOCUS_ENOTSUP, "policy %s %s, which %s does not do", pname(x), what, x->cfg.engine);
}

static int bad_send(struct locus__exec *x, const struct locus_msg *m)
{
	if (m->to < x->n_procs && m->n_args <= LOCUS_MSG_ARGS)
		return 0;
	fail(x, LOCUS_EINCOMPLETE, "policy %s sent a message to process %ld of %ld", pname(x),
	     (long)m->to, (long)x->n_procs);
	return 1;
}

/* A copy's (or reduction step's) places and objects, checked. */
static int bad_copy(struct locus__exec *x, const struct locus_actions *act,
		    const struct locus__action *a)
{
	size_t nn = x->cfg.wl->platform->n_nodes;
	int bad = a->at == SIZE_MAX || a->to == LOCUS_NONE || a->from == a->to ||
		  (a->to != LOCUS_FS && a->to >= nn) ||
		  (a->from != LOCUS_FS && a->from != LOCUS_NONE && a->from >= nn) ||
		  (a->from == LOCUS_NONE && a->n != 1) ||
		  (a->task != LOCUS_NONE && a->task >= x->g->n_tasks);
	for (uint32_t i = 0; i < a->n && !bad; i++)
		bad = act->pool[a->at + i] >= x->g->n_objects;
	/* A reduction's step: what `from` reduces is its own business (a
	 * model moves its result's bytes). */
	bad |= a->reduce && (a->r_at == SIZE_MAX || a->n || a->task == LOCUS_NONE);
	for (uint32_t i = 0; a->reduce && i < a->r_n && !bad; i++)
		bad = act->pool[a->r_at + i] >= x->g->n_objects;
	if (bad)
		fail(x, LOCUS_EINCOMPLETE,
		     "policy %s asked for a copy of %" PRIu32 " objects from %" PRIu32
		     " to %" PRIu32 ": no such objects or places",
		     pname(x), a->n, a->from, a->to);
	return bad;
}

static void apply_send(struct locus__exec *x, struct locus__action *a, uint32_t proc, double now)
{
	struct locus_msg *m = &a->msg;
	if (bad_send(x, m))
		return;
	m->from = proc;
	uint32_t aseq = 0;
	if ((m->type == LOCUS_MSG_ASSIGN || m->type == LOCUS_MSG_ASSIGN_FLOW) && m->arg[0] >= 0 &&
	    (uint64_t)m->arg[0] < x->g->n_tasks)
		aseq = ++x->asent[m->arg[0]];
	x->cfg.ops->send(x->cfg.eng, m, aseq, now);
}

void locus__exec_apply(struct locus__exec *x, struct locus_actions *act, uint32_t proc, double now)
{
	const struct locus__exec_ops *ops = x->cfg.ops;
	size_t nt = x->g->n_tasks, no = x->g->n_objects, nn = x->cfg.wl->platform->n_nodes;
	for (size_t k = 0; k < act->n && !ended(x); k++) {
		struct locus__action *a = &act->list[k];
		switch (a->kind) {
		case LOCUS__ACT_SEND:
			apply_send(x, a, proc, now);
			break;
		case LOCUS__ACT_TIMER:
			if (a->proc >= x->n_procs) {
				fail(x, LOCUS_EINCOMPLETE,
				     "policy %s set a timer for process %ld of %ld", pname(x),
				     (long)a->proc, (long)x->n_procs);
				return;
			}
			ops->timer(x->cfg.eng, a->proc, a->delay, a->tag, now);
			break;
		case LOCUS__ACT_STOP:
			if (a->proc < x->n_workers)
				x->w[a->proc].stopped = 1;
			break;
		case LOCUS__ACT_CANCEL:
		case LOCUS__ACT_REWIND:
			if (a->tag >= nt) {
				fail(x, LOCUS_EINCOMPLETE, "policy %s %s task %" PRIu64 " of %zu",
				     pname(x),
				     a->kind == LOCUS__ACT_CANCEL ? "cancelled" : "rewound", a->tag,
				     nt);
				return;
			}
			/* Placed (or finished) on another executor's worker,
			 * perhaps: it is told too. */
			if (a->kind == LOCUS__ACT_CANCEL) {
				if (x->tstate[a->tag] == LOCUS__T_NEW && ops->cancel)
					ops->cancel(x->cfg.eng, (uint32_t)a->tag, now);
				locus__exec_cancel(x, (uint32_t)a->tag, now);
			} else {
				if (x->tstate[a->tag] != LOCUS__T_DONE && ops->rewind)
					ops->rewind(x->cfg.eng, (uint32_t)a->tag, now);
				locus__exec_rewind(x, (uint32_t)a->tag, now);
			}
			break;
		case LOCUS__ACT_TRANSFER:
			if (a->tag >= no || a->to >= nn ||
			    (a->from != LOCUS_NONE && a->from >= nn)) {
				fail(x, LOCUS_EINCOMPLETE,
				     "policy %s asked to move object %" PRIu64 " from %" PRIu32
				     " to %" PRIu32 ": no such object or node",
				     pname(x), a->tag, a->from, a->to);
				return;
			}
			if (!ops->transfer)
				return unsupported(x, "moves objects between nodes");
			ops->transfer(x->cfg.eng, proc, (uint32_t)a->tag, a->from, a->to, now);
			break;
		case LOCUS__ACT_COPY:
			if (bad_copy(x, act, a))
				return;
			if (!ops->copy)
				return unsupported(x, "copies objects between nodes");
			ops->copy(x->cfg.eng, proc, a, a->n ? &act->pool[a->at] : NULL,
				  a->reduce && a->r_n ? &act->pool[a->r_at] : NULL, now);
			break;
		case LOCUS__ACT_DROP:
			if (a->tag >= no || (a->to != LOCUS_FS && a->to >= nn)) {
				fail(x, LOCUS_EINCOMPLETE,
				     "policy %s dropped object %" PRIu64 " from %" PRIu32
				     ": no such object or place",
				     pname(x), a->tag, a->to);
				return;
			}
			if (!ops->drop)
				return unsupported(x, "drops objects from nodes");
			ops->drop(x->cfg.eng, (uint32_t)a->tag, a->to, now);
			break;
		}
	}
}

/* ---- placing tasks --------------------------------------------------------------- */

static void want(struct locus__exec *x, uint32_t o, uint32_t node, uint32_t task, double now);

/* Task t joins worker w's tasks, last (or first: front); its produced
 * inputs start to come (or, as its assignment says, it waits for them to
 * exist, or for the policy's copies, or for nothing). */
static void place(struct locus__exec *x, uint32_t w, uint32_t t, int64_t hint, int start, int front,
		  double now)
{
	struct locus__xworker *xw = &x->w[w];
	const struct locus_task *tk = &x->cfg.wl->tasks[t];
	const struct locus_replicas *rep = x->cfg.rep;
	uint32_t node = node_of(x, w);
	x->tworker[t] = w;
	x->tstate[t] = LOCUS__T_QUEUED;
	x->tmissing[t] = 0;
	x->ahint[t] = hint;
	x->anext[t] = NONE;
	if (front) {
		x->anext[t] = xw->head;
		xw->head = t;
		if (xw->tail == NONE)
			xw->tail = t;
	} else {
		if (xw->tail == NONE)
			xw->head = t;
		else
			x->anext[xw->tail] = t;
		xw->tail = t;
	}
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = x->g->inputs[tk->in_at + k];
		uint8_t *waits = &x->cwait[x->in_cons[tk->in_at + k]];
		int miss = 0;
		if (x->g->objects[o].producer == LOCUS_NONE) {
			/* LOCUS_GATHER_ALL: stored inputs come to it too. */
			miss =
			    x->tgather[t] == LOCUS_GATHER_ALL && !locus_replicas_has(rep, o, node);
		} else {
			switch (x->tgather[t]) {
			case LOCUS_GATHER_AUTO:
			case LOCUS_GATHER_POLICY:
			case LOCUS_GATHER_ALL:
				miss = !locus_replicas_has(rep, o, node);
				break;
			case LOCUS_GATHER_READ:
				miss = !locus_replicas_count(rep, o) && !on_fs(x, o);
				break;
			default:
				break;
			}
		}
		*waits = (uint8_t)miss;
		x->tmissing[t] += (uint32_t)miss;
		if (miss && x->tgather[t] == LOCUS_GATHER_AUTO)
			want(x, o, node, t, now);
	}
	if (x->cfg.ops->state)
		monitor(x, t, w, gathering(x, t, w) ? LOCUS__M_GATHERING : LOCUS__M_NONE, now);
	if (start)
		locus__exec_try_start(x, w, now);
}

int locus__exec_room(const struct locus__exec *x, uint32_t n, struct locus_demand *free)
{
	if (!x->ledger || n >= x->cfg.wl->platform->n_nodes || !x->ledger[n])
		return LOCUS_ENOTSUP;
	locus__ledger_room(x->ledger[n], free);
	return 0;
}

int locus__exec_void(const struct locus__exec *x, uint32_t t, uint32_t aseq)
{
	return t < x->g->n_tasks &&
	       (aseq <= x->acut[t] || (x->tvoid[t] && x->tstate[t] == LOCUS__T_DONE));
}

int locus__exec_assign_waits(const struct locus_msg *m)
{
	int64_t gather = m->type == LOCUS_MSG_ASSIGN_FLOW ? m->arg[2] : LOCUS_GATHER_AUTO;
	return gather == LOCUS_GATHER_POLICY || gather == LOCUS_GATHER_ALL;
}

int locus__exec_assign(struct locus__exec *x, uint32_t w, const struct locus_msg *m, double now)
{
	int64_t t = m->arg[0];
	if (w >= x->n_workers) {
		fail(x, LOCUS_EINCOMPLETE, "policy %s assigned a task to scheduler %ld", pname(x),
		     (long)w);
		return -1;
	}
	int flow = m->type == LOCUS_MSG_ASSIGN_FLOW;
	int64_t gather = flow ? m->arg[2] : 0, output = flow ? m->arg[3] : 0;
	if (gather < LOCUS_GATHER_AUTO || gather > LOCUS_GATHER_ALL ||
	    output < LOCUS_OUTPUT_LOCAL || output > LOCUS_OUTPUT_FS) {
		fail(x, LOCUS_EINCOMPLETE,
		     "policy %s assigned task %ld with gathering %ld and outputs %ld: no such ways",
		     pname(x), (long)t, (long)gather, (long)output);
		return -1;
	}
	if (t < 0 || (uint64_t)t >= x->g->n_tasks) {
		fail(x, LOCUS_EINCOMPLETE, "policy %s assigned task %ld of %ld", pname(x), (long)t,
		     (long)x->g->n_tasks);
		return -1;
	}
	if (x->tstate[t] != LOCUS__T_NEW) {
		fail(x, LOCUS_EINCOMPLETE,
		     "policy %s assigned task %ld twice (second time to worker %ld)", pname(x),
		     (long)t, (long)w);
		return -1;
	}
	if (x->w[w].stopped) {
		fail(x, LOCUS_EINCOMPLETE,
		     "policy %s assigned task %ld to worker %ld, which it had stopped", pname(x),
		     (long)t, (long)w);
		return -1;
	}
	if (x->ledger && !locus_workload_fits(x->cfg.wl, (uint32_t)t, node_of(x, w))) {
		char tb[128];
		struct locus_demand d = locus_graph_demand(x->g, (uint32_t)t);
		fail(x, LOCUS_EINCOMPLETE,
		     "policy %s assigned task %s (%" PRIu32 " cores, %" PRIu64
		     " bytes of memory, %" PRIu64
		     " of disk) to worker %ld, whose node %s cannot hold "
		     "it: expected a node where it fits",
		     pname(x), task_name(x, (uint32_t)t, tb, sizeof tb), d.cores, d.memory, d.disk,
		     (long)w, x->cfg.wl->platform->nodes[node_of(x, w)].name);
		return -1;
	}
	x->tassigner[t] = m->from;
	x->tfrom_policy[t] = 1;
	x->tgather[t] = (uint8_t)gather;
	x->toutput[t] = (uint8_t)output;
	if (x->cfg.ops->placed)
		x->cfg.ops->placed(x->cfg.eng, w, (uint32_t)t, 1, now);
	/* A task the policy brings inputs to waits for the worker to have
	 * handled its assignment: the copies it asks for then hold it. */
	place(x, w, (uint32_t)t, m->arg[1], !locus__exec_assign_waits(m), 0, now);
	return ended(x) ? -1 : 0;
}

void locus__exec_assign_lost(struct locus__exec *x, uint32_t w, const struct locus_msg *m,
			     uint32_t aseq, double now)
{
	int64_t t = m->arg[0];
	if (t < 0 || (uint64_t)t >= x->g->n_tasks || aseq <= x->acut[t] ||
	    x->tstate[t] != LOCUS__T_NEW)
		return;
	x->tassigner[t] = m->from;
	x->tfrom_policy[t] = 1;
	locus__exec_lost(x, (uint32_t)t, w, LOCUS_FAIL_NODE, now);
}

/* ---- gathering --------------------------------------------------------------------- */

/* What locus_source_pick is salted with for what task t reads or
 * gathers: its id and attempt, so that the reads of different tasks
 * spread over an object's holders and a retry reads elsewhere; for no
 * task, the object. */
static uint64_t salt(const struct locus__exec *x, uint32_t t, uint32_t o)
{
	return t == NONE ? o : (uint64_t)t + x->tattempt[t];
}

/* Object o should reach `node` (for task `task`, or NONE): nothing to do
 * if it is there or on its way; else it is sent from a holder, or the
 * file system, when there is one (when there is none yet,
 * locus__exec_appeared asks again). */
static void want(struct locus__exec *x, uint32_t o, uint32_t node, uint32_t task, double now)
{
	const struct locus_replicas *rep = x->cfg.rep;
	if (locus_replicas_has(rep, o, node) || x->cfg.ops->underway(x->cfg.eng, o, node))
		return;
	uint32_t n = locus_replicas_count(rep, o);
	if (!n && !on_fs(x, o))
		return;
	uint32_t src = n ? locus_source_pick(x->cfg.wl->platform, locus_replicas_nodes(rep, o), n,
					     node, salt(x, task, o))
			 : LOCUS_FS;
	x->cfg.ops->fetch(x->cfg.eng, o, src, node, task, now);
}

void locus__exec_want(struct locus__exec *x, uint32_t o, uint32_t node, double now)
{
	want(x, o, node, NONE, now);
}

/* Object o is now on `node` (LOCUS_FS: the file system): the tasks placed
 * there that waited for it count one input fewer, and, when it is the
 * object's only copy, those placed elsewhere can have it sent (with a
 * copy elsewhere already, each of them asked for it when it was placed,
 * or again when the transfer's source failed: asking once more would only
 * find the transfer under way, at a cost of every holder and transfer of
 * a widely read object for every copy made of it). A task that reads its
 * inputs when it starts (LOCUS_GATHER_READ) waits for its first copy
 * anywhere. */
void locus__exec_appeared(struct locus__exec *x, uint32_t o, uint32_t node, double now)
{
	locus__exec_appeared_as(x, o, node, locus_replicas_count(x->cfg.rep, o) + on_fs(x, o) == 1,
				now);
}

void locus__exec_appeared_as(struct locus__exec *x, uint32_t o, uint32_t node, int only, double now)
{
	const struct locus_object *ob = &x->g->objects[o];
	int stored = ob->producer == LOCUS_NONE;
	/* A task coming home waits for its outputs. */
	uint32_t p = ob->producer;
	if (!stored && x->thoming[p] && x->tstate[p] == LOCUS__T_QUEUED &&
	    node_of(x, x->tworker[p]) == node && x->tmissing[p] && !--x->tmissing[p] &&
	    x->w[x->tworker[p]].head == p)
		locus__exec_try_start(x, x->tworker[p], now);
	for (uint32_t k = 0; k < ob->n_cons && !x->failed; k++) {
		uint32_t c = x->g->consumers[ob->cons_at + k], w = x->tworker[c];
		if (w == NONE || x->tstate[c] != LOCUS__T_QUEUED)
			continue;
		/* A stored input is waited for only with LOCUS_GATHER_ALL. */
		if (stored && x->tgather[c] != LOCUS_GATHER_ALL)
			continue;
		uint32_t cn = node_of(x, w);
		/* What it waits for: the object on its node (AUTO, POLICY),
		 * or anywhere (READ: its first copy). */
		int got = x->tgather[c] == LOCUS_GATHER_READ
			      ? only
			      : cn == node && x->tgather[c] != LOCUS_GATHER_NONE;
		if (got && cn == node && x->tmon[c] == LOCUS__M_NONE)
			monitor(x, c, w, LOCUS__M_GATHERING, now);
		if (got) {
			uint8_t *waits = &x->cwait[ob->cons_at + k];
			if (*waits && x->tmissing[c]) {
				*waits = 0;
				if (!--x->tmissing[c] && x->w[w].head == c)
					locus__exec_try_start(x, w, now);
			}
		} else if (only && x->tgather[c] == LOCUS_GATHER_AUTO) {
			want(x, o, cn, c, now);
		}
	}
}

void locus__exec_copy_over(struct locus__exec *x, uint32_t t, double now)
{
	if (t == NONE || !x->tawait[t] || --x->tawait[t] || x->tstate[t] != LOCUS__T_QUEUED)
		return;
	uint32_t w = x->tworker[t];
	if (w != NONE && x->w[w].head == t)
		locus__exec_try_start(x, w, now);
}

/* ---- running ----------------------------------------------------------------------- */

void locus__exec_try_start(struct locus__exec *x, uint32_t w, double now)
{
	struct locus__xworker *xw = &x->w[w];
	uint32_t t = xw->head;
	/* While one of its tasks runs elsewhere its own wait (the policy
	 * hears of its tasks in the order it gave them); attempts it runs
	 * for others, and tasks come home, do not. */
	if (xw->task != NONE || xw->down || t == NONE || x->tmissing[t] || x->tawait[t] ||
	    (xw->away && x->thome[t] == NONE && !x->thoming[t])) {
		stop_waiting(x, w, now);
		return;
	}
	/* It fits what its node has free, or it waits for room. */
	if (!take_room(x, w, t, now))
		return;
	xw->head = x->anext[t];
	if (xw->head == NONE)
		xw->tail = NONE;
	xw->task = t;
	if (x->thoming[t]) {
		/* Its outputs must all be here (told late, or twice, a copy
		 * may have counted for another): it ends as if it had computed
		 * here. */
		const struct locus_task *tk = &x->cfg.wl->tasks[t];
		for (uint32_t k = 0; k < tk->n_out; k++)
			if (!locus_replicas_has(x->cfg.rep, x->g->outputs[tk->out_at + k],
						node_of(x, w))) {
				xw->task = NONE;
				xw->head = t;
				if (xw->tail == NONE)
					xw->tail = t;
				x->tmissing[t]++;
				return;
			}
		x->thoming[t] = 0;
		x->tstate[t] = LOCUS__T_COMPUTING;
		locus__exec_computed(x, w, now);
		return;
	}
	x->tran_by[t] = w;
	x->tstate[t] = LOCUS__T_READING;
	monitor(x, t, w, LOCUS__M_RUNNING, now);
	x->cfg.ops->start(x->cfg.eng, w, t, now);
}

uint32_t locus__exec_source(const struct locus__exec *x, uint32_t t, uint32_t o, uint32_t node,
			    int64_t hint, int *local)
{
	const struct locus_replicas *rep = x->cfg.rep;
	*local = 0;
	if (locus_replicas_has(rep, o, node)) {
		*local = 1;
		return node;
	}
	uint32_t n = locus_replicas_count(rep, o);
	const uint32_t *h = locus_replicas_nodes(rep, o);
	if (hint >= 0)
		for (uint32_t k = 0; k < n; k++)
			if (h[k] == (uint32_t)hint)
				return h[k];
	uint32_t s = locus_source_pick(x->cfg.wl->platform, h, n, node, salt(x, t, o));
	return s == LOCUS_NONE ? LOCUS_FS : s;
}

long locus__exec_reads(struct locus__exec *x, uint32_t t, uint32_t node, struct locus__read *reads,
		       struct locus__read_plan *plan)
{
	const struct locus_task *tk = &x->cfg.wl->tasks[t];
	const struct locus_replicas *rep = x->cfg.rep;
	/* Its main stored input: the largest (the workload's locality). */
	uint32_t main = LOCUS_NONE;
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = x->g->inputs[tk->in_at + k];
		if (x->g->objects[o].producer == LOCUS_NONE &&
		    (main == LOCUS_NONE || x->g->objects[o].bytes > x->g->objects[main].bytes))
			main = o;
	}
	int local = 0;
	uint32_t source = LOCUS_FS;
	if (main != LOCUS_NONE)
		source = locus__exec_source(x, t, main, node, x->ahint[t], &local);
	*plan = (struct locus__read_plan){main, source, local, 0};
	long n = 0;
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = x->g->inputs[tk->in_at + k];
		int l, produced = x->g->objects[o].producer != LOCUS_NONE;
		plan->upto = k;
		if (produced &&
		    (x->tgather[t] != LOCUS_GATHER_READ || locus_replicas_has(rep, o, node)))
			continue;
		uint32_t src = o == main ? source : locus__exec_source(x, t, o, node, -1, &l);
		if (src == LOCUS_FS && !on_fs(x, o))
			return -1; /* held nowhere: plan->upto says which */
		reads[n++] = (struct locus__read){o, src};
	}
	plan->upto = tk->n_in;
	return n;
}

void locus__exec_unreadable(struct locus__exec *x, uint32_t t, uint32_t k)
{
	char nb[64], ob[256];
	uint32_t o = x->g->inputs[x->cfg.wl->tasks[t].in_at + k];
	halt(x,
	     x->g->objects[o].producer != LOCUS_NONE
		 ? "task %s cannot read %s: every copy of it was lost"
		 : "task %s cannot read %s: every node holding it failed",
	     task_name(x, t, nb, sizeof nb), locus__exec_object_name(x, o, ob, sizeof ob));
}

/* Its outputs on worker w's node, as the first copy or not. */
static void outputs_here(struct locus__exec *x, uint32_t w, uint32_t t, double now)
{
	const struct locus_task *tk = &x->cfg.wl->tasks[t];
	uint32_t node = node_of(x, w);
	for (uint32_t k = 0; k < tk->n_out && !x->failed; k++) {
		uint32_t o = x->g->outputs[tk->out_at + k];
		if (x->cfg.ops->keep(x->cfg.eng, o, node, now) > 0)
			locus__exec_appeared(x, o, node, now);
	}
}

/* Worker w's task ends: its outputs on its node when they stay there
 * alone, its worker told, the next task started. */
static void came_home(struct locus__exec *x, uint32_t home, uint32_t t, double now);

/* Worker w has run an attempt of another worker's task: it goes home. */
static void ran_away(struct locus__exec *x, uint32_t w, uint32_t t, double now)
{
	uint32_t home = x->thome[t];
	give_room(x, w, t);
	x->w[w].task = NONE;
	x->thome[t] = NONE;
	if (x->cfg.ops->ran)
		x->cfg.ops->ran(x->cfg.eng, w, home, t, x->tattempt[t], 1, NULL, now);
	if (hosted(x, home)) {
		x->w[home].away--;
		came_home(x, home, t, now);
	} else {
		x->tstate[t] = LOCUS__T_NEW;
		x->tworker[t] = NONE;
	}
	wake_node(x, w, now);
	locus__exec_try_start(x, w, now);
}

static void finished(struct locus__exec *x, uint32_t w, double now)
{
	struct locus__xworker *xw = &x->w[w];
	uint32_t t = xw->task;
	if (x->thome[t] != NONE) {
		ran_away(x, w, t, now);
		return;
	}
	struct locus_event ev = {.kind = LOCUS_EV_DONE, .done = {.task = t}};
	give_room(x, w, t);
	xw->task = NONE;
	x->tstate[t] = LOCUS__T_DONE;
	monitor(x, t, w, LOCUS__M_DONE, now);
	x->done++;
	x->cfg.ops->ended(x->cfg.eng, w, t, &ev, now);
	/* Its outputs are on its node (the other cases put them there when
	 * it computed). */
	if (x->toutput[t] == LOCUS_OUTPUT_LOCAL)
		outputs_here(x, w, t, now);
	if (x->tfrom_policy[t])
		x->cfg.ops->tell(x->cfg.eng, w, &ev, now);
	/* Those waiting for its room first, then the next task placed on it
	 * may start at once. */
	wake_node(x, w, now);
	locus__exec_try_start(x, w, now);
}

void locus__exec_computed(struct locus__exec *x, uint32_t w, double now)
{
	struct locus__xworker *xw = &x->w[w];
	uint32_t t = xw->task;
	const struct locus_task *tk = &x->cfg.wl->tasks[t];
	uint8_t out = x->toutput[t];
	if (x->thome[t] != NONE) {
		/* An attempt for another worker: its outputs stay here, to
		 * be brought home. */
		outputs_here(x, w, t, now);
		finished(x, w, now);
		return;
	}
	if (out == LOCUS_OUTPUT_LOCAL && x->cfg.finals_to_fs)
		out = LOCUS_OUTPUT_FINAL;
	if (out == LOCUS_OUTPUT_LOCAL) {
		finished(x, w, now);
		return;
	}
	if (out != LOCUS_OUTPUT_FS)
		outputs_here(x, w, t, now);
	/* Held while the writes are asked for (an engine may end one at
	 * once). */
	xw->writes = 1;
	for (uint32_t k = 0; k < tk->n_out && !x->failed; k++) {
		uint32_t o = x->g->outputs[tk->out_at + k];
		if (out != LOCUS_OUTPUT_FINAL || !x->g->objects[o].n_cons) {
			xw->writes++;
			x->cfg.ops->write(x->cfg.eng, w, o, now);
		}
	}
	if (--xw->writes) {
		x->tstate[t] = LOCUS__T_WRITING;
		return;
	}
	finished(x, w, now);
}

void locus__exec_written(struct locus__exec *x, uint32_t w, uint32_t o, double now)
{
	(void)o;
	if (!x->failed && x->w[w].writes && --x->w[w].writes == 0)
		finished(x, w, now);
}

/* ---- cancelling, failing, retrying ----------------------------------------------- */

void locus__exec_unplace(struct locus__exec *x, uint32_t t, double now)
{
	uint32_t w = x->tworker[t];
	struct locus__xworker *xw = &x->w[w];
	int state = x->tstate[t], was_head = state == LOCUS__T_QUEUED && xw->head == t;
	if (state == LOCUS__T_QUEUED) {
		uint32_t *at = &xw->head, prev = NONE;
		while (*at != NONE && *at != t) {
			prev = *at;
			at = &x->anext[*at];
		}
		if (*at == t) {
			*at = x->anext[t];
			if (xw->tail == t)
				xw->tail = prev;
		}
	} else if (state == LOCUS__T_READING || state == LOCUS__T_COMPUTING ||
		   state == LOCUS__T_WRITING) {
		x->cfg.ops->abort(x->cfg.eng, w, t, state, now);
		give_room(x, w, t);
		xw->task = NONE;
		xw->writes = 0;
	} else if (state == LOCUS__T_AWAY) {
		xw->away--; /* what comes back of it is ignored */
	}
	/* An attempt for another worker of this executor: that one no
	 * longer waits for it. */
	if (x->thome[t] != NONE && hosted(x, x->thome[t])) {
		x->w[x->thome[t]].away--;
		x->thome[t] = NONE;
	}
	x->thoming[t] = 0;
	x->tworker[t] = NONE;
	x->tstate[t] = LOCUS__T_NEW;
	monitor(x, t, NONE, LOCUS__M_NONE, now);
	/* Its worker waited for room for it, or it held room. */
	if (was_head && xw->waiting)
		stop_waiting(x, w, now);
	else if (state >= LOCUS__T_READING && state <= LOCUS__T_WRITING)
		wake_node(x, w, now);
}

void locus__exec_requeue(struct locus__exec *x, uint32_t w, double now)
{
	uint32_t t = x->w[w].task;
	if (t == NONE)
		return;
	locus__exec_unplace(x, t, now);
	place(x, w, t, x->ahint[t], 1, 1, now);
}

void locus__exec_cancel(struct locus__exec *x, uint32_t t, double now)
{
	x->acut[t] = x->asent[t];
	if (x->tstate[t] == LOCUS__T_DONE) {
		x->tvoid[t] = 1;
		return;
	}
	if (x->tstate[t] == LOCUS__T_NEW)
		return;
	uint32_t w = x->tworker[t];
	locus__exec_unplace(x, t, now);
	locus__exec_try_start(x, w, now);
}

/* GTP/r's rewinding: finished task t runs again when next assigned. Its
 * completion no longer counts; its outputs stay where they are. */
void locus__exec_rewind(struct locus__exec *x, uint32_t t, double now)
{
	if (x->tstate[t] != LOCUS__T_DONE) {
		locus__exec_cancel(x, t, now);
		return;
	}
	if (!x->cfg.ops->unended) {
		unsupported(x, "rewinds a finished task");
		return;
	}
	x->acut[t] = x->asent[t];
	x->tvoid[t] = 0;
	uint32_t w = x->tworker[t];
	if (w != NONE)
		x->cfg.ops->unended(x->cfg.eng, w, t);
	x->tattempt[t]++;
	x->tworker[t] = NONE;
	x->tstate[t] = LOCUS__T_NEW;
	monitor(x, t, NONE, LOCUS__M_NONE, now);
	x->done--;
}

static int alive_worker(void *user, uint32_t w)
{
	const struct locus__exec *x = user;
	return !x->w[w].down;
}

void locus__exec_lost(struct locus__exec *x, uint32_t t, uint32_t w, enum locus_fail_reason why,
		      double now)
{
	char nb[64];
	const struct locus_platform *p = x->cfg.wl->platform;
	uint32_t attempt = x->tattempt[t]++;
	x->attempts_lost++;
	x->tlost_node[t] = node_of(x, w);
	if (x->tfrom_policy[t] && (x->pflags & LOCUS_POLICY_RETRIES) && x->tassigner[t] != NONE) {
		struct locus_event ev = {
		    .kind = LOCUS_EV_FAILED,
		    .failed = {
			.task = t, .worker = w, .attempt = attempt, .final = 0, .reason = why}};
		uint32_t to = x->tassigner[t];
		if (to < x->n_workers && x->w[to].down)
			to = (uint32_t)x->n_workers; /* the first scheduler */
		x->cfg.ops->tell(x->cfg.eng, to, &ev, now);
		return;
	}
	if (x->has_edges) {
		halt(x,
		     "task %s was lost when node %s failed at %.9g s, and policy %s does not "
		     "place failed tasks again",
		     task_name(x, t, nb, sizeof nb), p->nodes[node_of(x, w)].name, now, pname(x));
		return;
	}
	uint32_t to = locus_retry_worker(x->cfg.wl, t, attempt, w, alive_worker, x);
	if (to == LOCUS_NONE) {
		halt(x, "task %s was lost when node %s failed at %.9g s and no worker is left",
		     task_name(x, t, nb, sizeof nb), p->nodes[node_of(x, w)].name, now);
		return;
	}
	x->tfrom_policy[t] = 0;
	x->tassigner[t] = NONE;
	if (x->cfg.ops->placed)
		x->cfg.ops->placed(x->cfg.eng, to, t, 0, now);
	place(x, to, t, -1, 1, 1, now);
}

/* Task t failed its last attempt (`attempt`, on worker `by`) and the run
 * goes on without it: it counts as ended, the engine records why, and the
 * process that was given it hears LOCUS_EV_FAILED (final) unless it heard
 * so already (LOCUS_POLICY_RETRIES). */
static void give_up(struct locus__exec *x, uint32_t home, uint32_t t, uint32_t attempt, uint32_t by,
		    enum locus_fail_reason why, const char *text, double now)
{
	int told = (x->pflags & LOCUS_POLICY_RETRIES) && x->tassigner[t] != NONE;
	x->tattempt[t] = attempt;
	x->tstate[t] = LOCUS__T_DONE;
	x->tworker[t] = NONE;
	monitor(x, t, by, LOCUS__M_DONE, now);
	x->done++;
	x->cfg.ops->gave_up(x->cfg.eng, home, by, t, attempt + 1, text ? text : "", now);
	if (x->tfrom_policy[t] && !told) {
		struct locus_event ev = {
		    .kind = LOCUS_EV_FAILED,
		    .failed = {
			.task = t, .worker = by, .attempt = attempt, .final = 1, .reason = why}};
		x->cfg.ops->tell(x->cfg.eng, home, &ev, now);
	}
}

/* Attempt `attempt` of worker home's task t failed on worker `by`: the
 * policy hears of it, or it runs again (at the head of a queue), or the
 * run fails. The task is unplaced. */
static void retry_or_fail(struct locus__exec *x, uint32_t home, uint32_t t, uint32_t attempt,
			  uint32_t by, enum locus_fail_reason why, const char *text, double now)
{
	char nb[64];
	const struct locus_platform *p = x->cfg.wl->platform;
	int final = attempt >= x->cfg.retries;
	x->tlost_node[t] = node_of(x, by);
	if (x->tfrom_policy[t] && (x->pflags & LOCUS_POLICY_RETRIES) && x->tassigner[t] != NONE) {
		struct locus_event ev = {.kind = LOCUS_EV_FAILED,
					 .failed = {.task = t,
						    .worker = by,
						    .attempt = attempt,
						    .final = final,
						    .reason = why}};
		x->tattempt[t] = attempt + 1;
		x->cfg.ops->tell(x->cfg.eng, home, &ev, now);
		if (!final)
			return;
	}
	if (final && x->cfg.keep_going) {
		give_up(x, home, t, attempt, by, why, text, now);
		return;
	}
	if (final) {
		fail(x, LOCUS_EINCOMPLETE,
		     "task %s failed on %" PRIu32 " attempt%s (last on node %s): %s",
		     task_name(x, t, nb, sizeof nb), attempt + 1, attempt ? "s" : "",
		     p->nodes[node_of(x, by)].name, text ? text : "");
		return;
	}
	x->tattempt[t] = attempt + 1;
	uint32_t to = locus_retry_worker(x->cfg.wl, t, attempt, by, alive_worker, x);
	if (to == LOCUS_NONE) {
		halt(x, "task %s failed on node %s and no worker is left to run it again",
		     task_name(x, t, nb, sizeof nb), p->nodes[node_of(x, by)].name);
		return;
	}
	/* The next attempt reads what it needs as it starts. */
	x->tgather[t] = LOCUS_GATHER_READ;
	if (to != home)
		x->w[home].away++;
	if (!hosted(x, to)) {
		x->tstate[t] = LOCUS__T_AWAY;
		x->tworker[t] = home;
		x->cfg.ops->retry_away(x->cfg.eng, home, to, t, attempt + 1, now);
		return;
	}
	x->thome[t] = to == home ? NONE : home;
	if (x->cfg.ops->placed)
		x->cfg.ops->placed(x->cfg.eng, to, t, 0, now);
	place(x, to, t, -1, 1, 1, now);
}

void locus__exec_failed(struct locus__exec *x, uint32_t w, enum locus_fail_reason why,
			const char *text, double now)
{
	uint32_t t = x->w[w].task;
	if (t == NONE)
		return;
	uint32_t home = x->thome[t], attempt = x->tattempt[t];
	locus__exec_unplace(x, t, now);
	x->attempts_lost++;
	x->tran_by[t] = w;
	if (home != NONE) {
		/* An attempt for another worker (unplacing it told that one, if
		 * this executor's): it hears why. */
		if (x->cfg.ops->ran)
			x->cfg.ops->ran(x->cfg.eng, w, home, t, attempt, 0, text, now);
		if (hosted(x, home))
			retry_or_fail(x, home, t, attempt, w, why, text, now);
	} else {
		retry_or_fail(x, w, t, attempt, w, why, text, now);
	}
	if (!ended(x))
		locus__exec_try_start(x, w, now);
}

void locus__exec_retry_here(struct locus__exec *x, uint32_t w, uint32_t t, uint32_t attempt,
			    uint32_t home, double now)
{
	if (x->tstate[t] != LOCUS__T_NEW) {
		fail(x, LOCUS_EINCOMPLETE,
		     "task %" PRIu32 " came to run again on worker %" PRIu32 " while placed", t, w);
		return;
	}
	x->tattempt[t] = attempt;
	x->thome[t] = home == w ? NONE : home;
	x->tfrom_policy[t] = 0;
	x->tgather[t] = LOCUS_GATHER_READ;
	x->toutput[t] = LOCUS_OUTPUT_LOCAL;
	if (x->cfg.ops->placed)
		x->cfg.ops->placed(x->cfg.eng, w, t, 0, now);
	place(x, w, t, -1, 1, 1, now);
}

/* Task t, run elsewhere, comes home to worker `home`: its outputs come
 * to home's node, then it ends there (locus__exec_try_start). */
static void came_home(struct locus__exec *x, uint32_t home, uint32_t t, double now)
{
	const struct locus_task *tk = &x->cfg.wl->tasks[t];
	struct locus__xworker *xw = &x->w[home];
	uint32_t node = node_of(x, home);
	x->tworker[t] = home;
	x->tstate[t] = LOCUS__T_QUEUED;
	x->thoming[t] = 1;
	x->tmissing[t] = 0;
	x->anext[t] = xw->head;
	xw->head = t;
	if (xw->tail == NONE)
		xw->tail = t;
	for (uint32_t k = 0; k < tk->n_out; k++) {
		uint32_t o = x->g->outputs[tk->out_at + k];
		if (!locus_replicas_has(x->cfg.rep, o, node)) {
			x->tmissing[t]++;
			want(x, o, node, t, now);
		}
	}
	locus__exec_try_start(x, home, now);
}

void locus__exec_came_back(struct locus__exec *x, uint32_t home, uint32_t t, uint32_t attempt,
			   uint32_t by, int ok, const char *why, double now)
{
	if (x->tstate[t] != LOCUS__T_AWAY || x->tworker[t] != home)
		return; /* cancelled meanwhile */
	x->w[home].away--;
	x->tran_by[t] = by;
	if (ok) {
		came_home(x, home, t, now);
		return;
	}
	x->tstate[t] = LOCUS__T_NEW;
	x->tworker[t] = NONE;
	retry_or_fail(x, home, t, attempt, by, LOCUS_FAIL_ERROR, why, now);
	if (!ended(x))
		locus__exec_try_start(x, home, now);
}

void locus__exec_worker_down(struct locus__exec *x, uint32_t w)
{
	x->w[w].down = 1;
}

void locus__exec_worker_lose(struct locus__exec *x, uint32_t w, double now)
{
	struct locus__xworker *xw = &x->w[w];
	/* It loses what it runs and what waits for it. */
	while (!ended(x)) {
		uint32_t t = xw->task != NONE ? xw->task : xw->head;
		if (t == NONE)
			break;
		locus__exec_unplace(x, t, now);
		locus__exec_lost(x, t, w, LOCUS_FAIL_NODE, now);
	}
}

void locus__exec_worker_up(struct locus__exec *x, uint32_t w)
{
	x->w[w].down = 0;
	x->w[w].stopped = 0;
}

/* ---- why a run did not finish ------------------------------------------------------ */

void locus__exec_unfinished(const struct locus__exec *x, char *why, size_t size, int *halt_out,
			    uint32_t (*lost_node)(void *eng, uint32_t o, double *at),
			    const char *suffix)
{
	char nb[64], ob[256], pb[64];
	const struct locus_platform *p = x->cfg.wl->platform;
	size_t n = x->g->n_tasks;
	*halt_out = 1;
	/* A task waiting for an object that was lost. */
	for (size_t t = 0; t < n; t++) {
		if (x->tstate[t] != LOCUS__T_QUEUED || !x->tmissing[t])
			continue;
		const struct locus_task *tk = &x->cfg.wl->tasks[t];
		uint32_t node = node_of(x, x->tworker[t]);
		for (uint32_t k = 0; k < tk->n_in; k++) {
			uint32_t o = x->g->inputs[tk->in_at + k];
			uint32_t pr = x->g->objects[o].producer;
			if (pr == LOCUS_NONE || locus_replicas_has(x->cfg.rep, o, node) ||
			    locus_replicas_count(x->cfg.rep, o))
				continue;
			double at = 0;
			uint32_t ln = lost_node ? lost_node(x->cfg.eng, o, &at) : NONE;
			if (ln != NONE) {
				snprintf(why, size,
					 "task %s lost %s from node %s, which failed at %.9g s",
					 task_name(x, (uint32_t)t, nb, sizeof nb),
					 locus__exec_object_name(x, o, ob, sizeof ob),
					 p->nodes[ln].name, at);
				return;
			}
			if (x->tstate[pr] == LOCUS__T_NEW && x->tlost_node[pr] == NONE) {
				*halt_out = 0;
				snprintf(
				    why, size,
				    "policy %s ended the run with %zu of %zu tasks done (task %s "
				    "waits for %s, which task %s writes, and that was never "
				    "assigned)",
				    pname(x), x->done, n, task_name(x, (uint32_t)t, nb, sizeof nb),
				    locus__exec_object_name(x, o, ob, sizeof ob),
				    task_name(x, pr, pb, sizeof pb));
				return;
			}
		}
	}
	/* A task lost with its node and never placed again. */
	for (size_t t = 0; t < n; t++)
		if (x->tstate[t] == LOCUS__T_NEW && x->tlost_node[t] != NONE) {
			snprintf(
			    why, size,
			    "task %s was lost when node %s failed, and policy %s did not place "
			    "it again",
			    task_name(x, (uint32_t)t, nb, sizeof nb),
			    p->nodes[x->tlost_node[t]].name, pname(x));
			return;
		}
	*halt_out = 0;
	size_t t = 0;
	while (t < n && x->tstate[t] != LOCUS__T_NEW)
		t++;
	if (t < n)
		snprintf(why, size,
			 "policy %s ended the run with %zu of %zu tasks done (task %zu was never "
			 "assigned)%s",
			 pname(x), x->done, n, t, suffix ? suffix : "");
	else
		snprintf(why, size, "the run ended with %zu of %zu tasks done%s", x->done, n,
			 suffix ? suffix : "");
}
