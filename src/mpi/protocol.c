/*
 * The policy's side of the runtime: events delivered to the processes a
 * rank hosts, their actions carried out through the executor (src/exec),
 * the executor's operations that are messages, timers and copies, and
 * the monitor the policy reads.
 */
#define _GNU_SOURCE
#include "mpi/runtime.h"

/* ---- the policy ------------------------------------------------------------------ */

void locus__rt_deliver(struct flow *f, struct locus_event *ev)
{
	if (f->failed || f->finishing || !f->pstate)
		return;
	ev->now = locus__rt_now_of(f);
	struct locus_actions *act = locus__actions_at(&f->acts, f->depth);
	if (!act) {
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	locus__actions_reset(act);
	/* Two clock reads around every event cost a task function's run a
	 * tenth of its rate: an event in about DECIDE_EVERY is timed, at
	 * random (events come in cycles a fixed stride would alias with),
	 * and counts for the events since the last one timed. */
	f->decide_gap++;
	if (f->decide_left > 0) {
		f->decide_left--;
		f->pol->on_event(f->pstate, ev, act);
	} else {
		double t = locus__rt_mono();
		f->pol->on_event(f->pstate, ev, act);
		f->rk.decide_seconds += (locus__rt_mono() - t) * f->decide_gap;
		f->decide_gap = 0;
		f->decide_rng = f->decide_rng * 6364136223846793005ull + 1442695040888963407ull;
		f->decide_left = (uint32_t)(f->decide_rng >> 33) % (2 * DECIDE_EVERY - 1);
	}
	f->rk.events++;
	if (act->oom) {
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	/* What this rank knows goes out before anything the policy says. */
	locus__rt_flush_updates(f);
	f->depth++;
	locus__exec_apply(&f->x, act, ev->proc, locus__rt_now_of(f));
	f->depth--;
	locus__rt_flush_updates(f);
}

/* A message for process w->to, which this rank hosts: an assignment
 * places its task on this rank's worker (the executor), then the process
 * hears of it. */
void locus__rt_take_message(struct flow *f, const struct fwire *w)
{
	struct locus_msg m = {.type = w->type,
			      .from = w->from,
			      .to = w->to,
			      .bytes = w->bytes,
			      .n_args = w->n_args,
			      .value = w->value};
	memcpy(m.arg, w->arg, sizeof m.arg);
	int assign = w->type == LOCUS_MSG_ASSIGN || w->type == LOCUS_MSG_ASSIGN_FLOW;
	if (assign) {
		if (w->to != f->worker) {
			locus__rt_local_fail(f, LOCUS_EINCOMPLETE,
					     "policy %s assigned a task to process %" PRIu32
					     ", which is no worker",
					     f->pol->name, w->to);
			return;
		}
		/* Attempts that failed elsewhere count here too. */
		if (m.arg[0] >= 0 && (uint64_t)m.arg[0] < f->g->n_tasks &&
		    w->attempt > f->x.tattempt[m.arg[0]])
			f->x.tattempt[m.arg[0]] = w->attempt;
		if (locus__exec_assign(&f->x, f->worker, &m, locus__rt_now_of(f)))
			return;
	}
	struct locus_event ev = {.kind = LOCUS_EV_MESSAGE, .proc = w->to, .msg = &m};
	locus__rt_deliver(f, &ev);
	/* A task the policy brings inputs to may start once it has heard. */
	if (assign && !f->failed)
		locus__exec_try_start(&f->x, f->worker, locus__rt_now_of(f));
}

/* ---- the executor's operations: messages, timers, copies -------------------------- */

static void op_tell(void *eng, uint32_t proc, const struct locus_event *ev, double now)
{
	struct flow *f = eng;
	(void)now;
	if (proc >= f->n_procs || f->proc_rank[proc] != f->rank) {
		locus__rt_local_fail(f, LOCUS_EINCOMPLETE,
				     "an event for process %" PRIu32 " reached rank %d", proc,
				     f->rank);
		return;
	}
	struct locus_event e = *ev;
	e.proc = proc;
	if (ev->kind == LOCUS_EV_FAILED) {
		/* Whichever rank runs it next counts this attempt: every rank
		 * hears of it before the policy does (and so before whatever
		 * the policy then says). */
		struct retry q = {ev->failed.task, ev->failed.attempt + 1, 0, 0};
		for (int r = 0; r < f->size; r++)
			if (r != f->rank)
				locus__rt_post_copy(f, r, F_ATTEMPT, &q, sizeof q);
	}
	locus__rt_deliver(f, &e);
}

static void op_send(void *eng, const struct locus_msg *m, uint32_t aseq, double now)
{
	struct flow *f = eng;
	(void)now;
	struct fwire w = {.type = m->type,
			  .from = m->from,
			  .to = m->to,
			  .bytes = m->bytes,
			  .n_args = m->n_args,
			  .aseq = aseq,
			  .value = m->value};
	if (aseq)
		w.attempt = f->x.tattempt[m->arg[0]];
	memcpy(w.arg, m->arg, sizeof w.arg);
	int dest = f->proc_rank[m->to];
	if (dest != f->rank) {
		/* The arguments it has, no more: a message a task, and MPI
		 * copies a message of more than about 100 bytes once more on
		 * its way in (Open MPI's unexpected-message buffer). */
		locus__rt_post_copy(f, dest, F_POLICY, &w, locus__rt_fwire_len(&w));
		f->rk.msgs_sent++;
		return;
	}
	if (locus__grow(&f->inbox, &f->in_cap, f->in_head + f->in_len + 1, sizeof *f->inbox)) {
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	f->inbox[f->in_head + f->in_len++] = w;
}

static void op_timer(void *eng, uint32_t proc, double delay, uint64_t tag, double now)
{
	struct flow *f = eng;
	(void)now;
	struct timer t = {
	    .due = locus__rt_now_of(f) + delay, .seq = f->timer_seq++, .tag = tag, .proc = proc};
	if (locus_heap_push(&f->timers, &t))
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
}

static void op_transfer(void *eng, uint32_t proc, uint32_t o, uint32_t from, uint32_t to,
			double now)
{
	(void)now;
	locus__rt_start_copy(eng, proc, &o, 1, from, to, 0, LOCUS_NONE);
}

static void op_copy(void *eng, uint32_t proc, const struct locus__action *a, const uint32_t *objs,
		    const uint32_t *reduced, double now)
{
	struct flow *f = eng;
	(void)now;
	if (a->reduce && a->r_n && !f->opt->fn) {
		locus__rt_start_reduce(f, proc, a, reduced);
		return;
	}
	locus__rt_start_copy(f, proc, objs, a->n, a->from, a->to, a->tag, a->task);
}

static void op_drop(void *eng, uint32_t o, uint32_t place, double now)
{
	struct flow *f = eng;
	(void)now;
	if (place == LOCUS_FS) {
		/* Only an intermediate file: never an input of the workflow nor
		 * one of its results. */
		const struct locus_object *ob = &f->g->objects[o];
		if (ob->producer != LOCUS_NONE && ob->n_cons && f->on_fs[o]) {
			char p[PATH_MAX];
			locus__rt_shared_path(f, o, p, sizeof p);
			unlink(p);
			locus__rt_note(f, o, LOCUS_FS, 0);
		}
	} else if (place < f->K) {
		if (place == f->node && f->worker != NONE) {
			locus__rt_drop_here(f, o);
		} else {
			struct repl d = {o, place, 0, 0, 0, 0};
			locus__rt_post_copy(f, locus__rt_rank_of_node(f, place, o), F_DROP, &d,
					    sizeof d);
		}
	}
}

/* The task is withdrawn wherever it is placed: every other worker rank
 * is told (a cancel is rare; whoever has it placed withdraws it). */
static void op_cancel(void *eng, uint32_t t, double now)
{
	struct flow *f = eng;
	(void)now;
	struct retry q = {t, 0, 0, 0};
	for (int r = (int)f->D; r < f->size; r++)
		if (r != f->rank)
			locus__rt_post_copy(f, r, F_CANCEL, &q, sizeof q);
}

/* A task's state for the monitor: to every scheduler rank, when the policy
 * needs it. */
static void op_state(void *eng, uint32_t t, uint32_t w, enum locus__mon_state state, double now)
{
	struct flow *f = eng;
	(void)now;
	if (!f->monitor_all)
		return;
	struct tstate m = {t, w, (uint32_t)state, 0, locus__rt_now_of(f)};
	for (int r = 0; r < (int)f->D; r++)
		if (r == f->rank)
			locus__rt_take_state(f, &m);
		else
			locus__rt_post_copy(f, r, F_STATE, &m, sizeof m);
}

void locus__rt_take_state(struct flow *f, const struct tstate *m)
{
	if (!f->mon_worker || m->task >= f->g->n_tasks || m->state > LOCUS__M_DONE)
		return;
	f->mon_worker[m->task] = m->worker;
	f->mon_state[m->task] = (uint8_t)m->state;
	f->mon_since[m->task] = m->since;
}

/* A rewind: every rank hears (the one where the task finished rewinds it,
 * the one where it runs cancels it), and rank 0 takes its end back. A
 * finished task's next run is its next attempt, as on the rank where it
 * finished: the assignment that follows carries the count. (Rank 0 hosts
 * the scheduler of a policy that rewinds, GTP/r's one, and knows the task
 * finished by then: the worker's report went ahead of its news.) */
static void op_rewind(void *eng, uint32_t t, double now)
{
	struct flow *f = eng;
	(void)now;
	struct retry q = {t, 0, 0, 0};
	for (int r = 0; r < f->size; r++)
		if (r != f->rank)
			locus__rt_post_copy(f, r, F_REWIND, &q, sizeof q);
	if (f->rank == 0 && f->done[t]) {
		f->x.tattempt[t]++;
		locus__rt_undone(f, t);
	}
}

/* Rewinding a finished task here: rank 0 takes its end back (op_rewind,
 * F_REWIND); nothing else to undo on this rank. */
static void op_unended(void *eng, uint32_t w, uint32_t t)
{
	(void)eng;
	(void)w;
	(void)t;
}

static void op_halt(void *eng, const char *why)
{
	locus__rt_local_fail(eng, LOCUS_EINCOMPLETE, "%s", why);
}

static void op_fail(void *eng, int code, const char *why)
{
	locus__rt_local_fail(eng, code, "%s", why);
}

const struct locus__exec_ops locus__rt_mpi_ops = {
    .tell = op_tell,
    .send = op_send,
    .timer = op_timer,
    .transfer = op_transfer,
    .copy = op_copy,
    .drop = op_drop,
    .underway = locus__rt_op_underway,
    .fetch = locus__rt_op_fetch,
    .placed = locus__rt_op_placed,
    .start = locus__rt_op_start,
    .abort = locus__rt_op_abort,
    .keep = locus__rt_op_keep,
    .write = locus__rt_op_write,
    .ended = locus__rt_op_ended,
    .halt = op_halt,
    .fail = op_fail,
    .cancel = op_cancel,
    .state = op_state,
    .rewind = op_rewind,
    .unended = op_unended,
    .ran = locus__rt_op_ran,
    .retry_away = locus__rt_op_retry_away,
    .gave_up = locus__rt_op_gave_up,
};

/* ---- set-up ------------------------------------------------------------------------ */

/* The same outcome on every rank: the first failing rank's error. */
int locus__rt_agree(struct flow *f, int rc)
{
	int mine = rc ? f->rank : f->size, first = f->size;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, f->comm);
	if (first == f->size)
		return 0;
	struct endmsg m = {.code = rc};
	if (f->rank == first)
		locus__rt_fmt(m.message, sizeof m.message, "%s", f->err->message);
	MPI_Bcast(&m, sizeof m, MPI_BYTE, first, f->comm);
	if (f->rank != first) {
		f->err->code = m.code;
		locus__rt_fmt(f->err->message, sizeof f->err->message, "%s", m.message);
	}
	return m.code;
}

uint32_t locus__rt_mon_placed(const struct locus_monitor *m, uint32_t t, double *computed)
{
	struct flow *f = m->engine;
	if (computed)
		*computed = 0;
	if (f->monitor_all && t < f->g->n_tasks && f->mon_worker) {
		/* As the task's worker last said: a running task's computed
		 * part estimated from the time it has run over its cost. */
		uint32_t w = f->mon_worker[t];
		switch (f->mon_state[t]) {
		case LOCUS__M_DONE:
			if (computed)
				*computed = 1;
			return w;
		case LOCUS__M_RUNNING:
			if (computed) {
				double c = locus_workload_cost(f->wl, t, w),
				       run = locus__rt_now_of(f) - f->mon_since[t];
				*computed = c > 0 ? fmin(run / c, 0.999) : 0.999;
			}
			return w;
		case LOCUS__M_GATHERING:
			return w;
		default:
			return LOCUS_NONE;
		}
	}
	/* This rank's worker's tasks (queued or running) alone. */
	if (t < f->g->n_tasks && f->worker != NONE && f->x.tworker[t] == f->worker &&
	    f->x.tstate[t] != LOCUS__T_NEW && f->x.tstate[t] != LOCUS__T_DONE)
		return f->worker;
	return LOCUS_NONE;
}

double locus__rt_mon_moved(const struct locus_monitor *m, uint32_t o, uint32_t node)
{
	const struct flow *f = m->engine;
	return locus_replicas_has(f->rep, o, node) ? 1 : 0;
}

double locus__rt_mon_one(const struct locus_monitor *m, uint32_t node)
{
	(void)m;
	(void)node;
	return 1;
}

int locus__rt_mon_room(const struct locus_monitor *m, uint32_t node, struct locus_demand *free)
{
	const struct flow *f = m->engine;
	/* A node's ledger lives in memory its machine's ranks share: the
	 * policy's rank sees every node's only when all are on its machine. */
	if (!f->one_host)
		return LOCUS_ENOTSUP;
	return locus__exec_room(&f->x, node, free);
}

double locus__rt_mon_pair_bw(const struct locus_monitor *m, uint32_t a, uint32_t b)
{
	const struct flow *f = m->engine;
	double x = f->plat->nodes[a].net_bw, y = f->plat->nodes[b].net_bw;
	return x < y ? x : y;
}
