/*
 * Running tasks in the simulator (engine.h): the executor's operations
 * that start a task's reads, compute it, write its outputs and count its
 * end, and the table of every operation the simulator supplies.
 */
#include <inttypes.h>
#include <stdio.h>

#include "sim/engine.h"

/* ---- running tasks ------------------------------------------------------------- */

/* Starts a read of input o for task t on worker w, from node src (NONE:
 * the file system). */
static void start_read(struct engine *e, uint32_t w, uint32_t t, uint32_t o, uint32_t src,
		       double now)
{
	uint32_t m = locus__sim_new_move(e);
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
	locus__sim_route(e, mv);
	e->procs[w].reads_left++;
	/* A local read starts at once; one from the file system after its
	 * metadata operation. */
	if (mv->src == mv->dst)
		locus__sim_start_flow(e, m, now);
	else
		locus__sim_launch(e, m, now, 0, 1);
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
	struct locus_stage_result *wst = locus__sim_stage_of(e, t);
	if (wst) {
		/* Its wait for its inputs: since it could have run. */
		double ready = e->tassigned[t] > pr->idle_since ? e->tassigned[t] : pr->idle_since;
		wst->input_wait += now - ready;
	}
	if (locus__grow(&e->waits, &e->waits_cap, e->n_waits + 1, sizeof *e->waits) ||
	    locus__grow(&e->reads, &e->reads_cap, tk->n_in + 1, sizeof *e->reads)) {
		locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
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
	struct locus_stage_result *st = locus__sim_stage_of(e, t);
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
			 : locus__sim_compute_end(e, pr->node, now, locus__sim_work_units(e, t, w));
	/* Past its time limit, the attempt ends there and fails. */
	double limit = e->cfg->time_limit ? e->cfg->time_limit[t] : 0;
	pr->timed_out = limit > 0 && end > now + limit;
	if (pr->timed_out)
		end = now + limit;
	locus__sim_push_ev(e, end, EV_COMPUTED, w, pr->gen);
}

/* Worker w's task has computed: it ends (the executor places its
 * outputs), or its attempt fails of itself (cfg->fails). */
void locus__sim_computed(struct engine *e, uint32_t w, double now)
{
	uint32_t t = e->x.w[w].task;
	e->procs[w].compute_end = now;
	if (e->procs[w].timed_out) {
		char why[96];
		e->procs[w].timed_out = 0;
		snprintf(why, sizeof why, "attempt %" PRIu32 " timed out after %g s",
			 e->x.tattempt[t] + 1, e->cfg->time_limit[t]);
		locus__exec_failed(&e->x, w, LOCUS_FAIL_ERROR, why, now);
		return;
	}
	if (e->cfg->fails && e->cfg->fails(e->cfg->fails_user, t, e->x.tattempt[t])) {
		char why[64];
		snprintf(why, sizeof why, "attempt %" PRIu32 " failed (as the run was told)",
			 e->x.tattempt[t] + 1);
		locus__exec_failed(&e->x, w, LOCUS_FAIL_ERROR, why, now);
		return;
	}
	locus__exec_computed(&e->x, w, now);
}

void locus__sim_read_done(struct engine *e, uint32_t m, double now)
{
	const struct move *mv = &e->moves[m];
	uint32_t w = mv->w;
	struct locus_stage_result *st = locus__sim_stage_of(e, mv->task);
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
	locus__sim_release_slot(e, m, now);
	locus__sim_free_move(e, m);
	struct proc *pr = &e->procs[w];
	if (--pr->reads_left == 0)
		computing(e, w, now);
}

/* Node `node` keeps output o: new, or not (-1: it does not fit). */
static int op_keep(void *eng, uint32_t o, uint32_t node, double now)
{
	struct engine *e = eng;
	(void)now;
	int added = locus__sim_hold(e, o, node);
	if (added > 0)
		e->lost_node[o] = NONE;
	return added;
}

/* Worker w writes output o of its task to the file system. */
static void op_write(void *eng, uint32_t w, uint32_t o, double now)
{
	struct engine *e = eng;
	uint32_t m = locus__sim_new_move(e);
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
	locus__sim_route(e, mv);
	locus__sim_launch(e, m, now, 0, 1);
}

void locus__sim_write_done(struct engine *e, uint32_t m, double now)
{
	const struct move *mv = &e->moves[m];
	uint32_t w = mv->w, o = mv->obj;
	struct locus_stage_result *st = locus__sim_stage_of(e, mv->task);
	if (st)
		st->bytes_fs_written += (uint64_t)mv->size;
	e->r->fs_bytes_written += (uint64_t)mv->size;
	locus__sim_release_slot(e, m, now);
	locus__sim_free_move(e, m);
	locus__sim_on_fs(e, o, now);
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
	struct locus_stage_result *st = locus__sim_stage_of(e, t);
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
				locus__sim_stop_move(e, m, now);
				locus__sim_free_move(e, m);
			}
		pr->reads_left = 0;
	}
	pr->idle_since = now;
}

/* The simulator's operations, as the executor calls them: messages,
 * timers and the run's end from engine.c, moves from moves.c, a task's
 * course from here. */
const struct locus__exec_ops locus__sim_ops = {
    .tell = locus__sim_op_tell,
    .send = locus__sim_op_send,
    .timer = locus__sim_op_timer,
    .transfer = locus__sim_op_transfer,
    .copy = locus__sim_op_copy,
    .drop = locus__sim_op_drop,
    .underway = locus__sim_op_underway,
    .fetch = locus__sim_op_fetch,
    .placed = op_placed,
    .start = op_start,
    .abort = op_abort,
    .keep = op_keep,
    .write = op_write,
    .ended = op_ended,
    .unended = op_unended,
    .ran = op_ran,
    .halt = locus__sim_op_halt,
    .fail = locus__sim_op_fail,
};
