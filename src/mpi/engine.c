/*
 * The MPI engine's event loop (engine.h, docs/mpi.md).
 *
 * Every rank runs one process of the policy. Its main thread is the only
 * one that calls MPI: it receives what arrived (a policy message, a peer
 * asking for a chunk, the bytes of a chunk it asked for, a retry, and on
 * rank 0 the outcomes), hands chunks to the function's thread, fires the
 * policy's timers and sends what the policy decided. When nothing is
 * going on it polls a little, then yields, then sleeps, longer each time
 * up to max_idle_sleep, so that idle ranks leave the cores to busy ones
 * (an oversubscribed machine runs many ranks per core).
 *
 * Rank 0, always a scheduler, also keeps the run's outcome: every worker
 * reports each finished chunk (at once when there is a journal, else in
 * batches), and rank 0 tells every rank to finish when every chunk is done
 * or failed for good. A run ends cleanly: each rank has received every
 * message sent to it before it returns (docs/mpi.md, "Ending").
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "locus/place.h"
#include "mpi/engine.h"
#include "mpi/journal.h"

#define RECV_BATCH   64
#define REPORT_BATCH 64
#define SPIN_POLLS   200
#define YIELD_POLLS  200
#define SLEEP_FIRST  20e-6
#define REPORT_EVERY 0.1

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double locus__mpi_now(const struct engine *e)
{
	return mono() - e->t0;
}

/* ---- failing ------------------------------------------------------------ */

static void post(struct engine *e, int dest, int tag, void *buf, size_t len);

struct end_msg {
	int32_t code;
	char message[sizeof(((struct locus_error *)0)->message)];
};

/* Rank 0 ends the run: every rank is told, with the error if any. */
static void finish(struct engine *e, int code, const char *message)
{
	if (e->finishing)
		return;
	e->finishing = 1;
	e->end_code = code;
	snprintf(e->end_msg, sizeof e->end_msg, "%s", message ? message : "");
	for (int r = 1; r < e->size; r++) {
		struct end_msg *m = malloc(sizeof *m);
		if (!m)
			continue; /* the rank is then never told: cannot happen in practice */
		m->code = code;
		snprintf(m->message, sizeof m->message, "%s", e->end_msg);
		post(e, r, TAG_FINISH, m, sizeof *m);
	}
}

/* This rank cannot go on: it stops delivering events and asks rank 0 to
 * end the run with this error. */
static void local_fail(struct engine *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void local_fail(struct engine *e, int code, const char *fmt, ...)
{
	if (e->failed || e->finishing)
		return;
	e->failed = code;
	struct end_msg m = {.code = code};
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m.message, sizeof m.message, fmt, ap);
	va_end(ap);
	if (e->rank == 0) {
		finish(e, code, m.message);
		return;
	}
	struct end_msg *copy = malloc(sizeof *copy);
	if (copy) {
		*copy = m;
		post(e, 0, TAG_ERROR, copy, sizeof *copy);
	}
}

/* ---- sending ------------------------------------------------------------ */

/* Sends `len` bytes of `buf` (which the engine then owns and frees). */
static void post(struct engine *e, int dest, int tag, void *buf, size_t len)
{
	struct outbox *o = &e->out;
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 64;
		MPI_Request *req = realloc(o->req, cap * sizeof *req);
		if (req)
			o->req = req;
		void **bufs = req ? realloc(o->buf, cap * sizeof *bufs) : NULL;
		if (bufs)
			o->buf = bufs;
		if (!req || !bufs) {
			free(buf);
			local_fail(e, LOCUS_ENOMEM, "out of memory");
			return;
		}
		o->cap = cap;
	}
	MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, e->comm, &o->req[o->n]);
	o->buf[o->n++] = buf;
	e->sent[dest]++;
}

/* Frees the buffers of finished sends; returns 1 if any finished. */
static int outbox_progress(struct engine *e)
{
	struct outbox *o = &e->out;
	if (!o->n)
		return 0;
	int flag = 0;
	/* The common case: everything went (small messages go at once). */
	MPI_Testall((int)o->n, o->req, &flag, MPI_STATUSES_IGNORE);
	if (flag) {
		for (size_t i = 0; i < o->n; i++)
			free(o->buf[i]);
		o->n = 0;
		return 1;
	}
	size_t k = 0;
	for (size_t i = 0; i < o->n; i++) {
		if (o->req[i] == MPI_REQUEST_NULL) {
			free(o->buf[i]);
			continue;
		}
		o->req[k] = o->req[i];
		o->buf[k++] = o->buf[i];
	}
	int moved = k != o->n;
	o->n = k;
	return moved;
}

/* ---- the policy --------------------------------------------------------- */

static void enqueue(struct engine *e, struct run_item it);
static void start_next(struct engine *e);

static void apply_actions(struct engine *e, double now)
{
	for (size_t k = 0; k < e->act.n && !e->failed; k++) {
		struct locus__action *a = &e->act.list[k];
		if (a->kind == LOCUS__ACT_SEND) {
			struct locus_msg *m = &a->msg;
			if (m->to >= e->n_procs || m->n_args > LOCUS_MSG_ARGS) {
				local_fail(e, LOCUS_EINCOMPLETE,
					   "policy %s sent a message to process %" PRIu32 " of %zu",
					   e->pol->name, m->to, e->n_procs);
				return;
			}
			if (m->type == LOCUS_MSG_ASSIGN_FLOW) {
				local_fail(e, LOCUS_ENOTSUP,
					   "policy %s assigns workflow tasks, which the MPI engine "
					   "does not run yet",
					   e->pol->name);
				return;
			}
			int dest = e->proc_rank[m->to];
			if (dest == e->rank) {
				local_fail(e, LOCUS_ENOTSUP,
					   "policy %s sent process %" PRIu32
					   " a message from itself",
					   e->pol->name, m->to);
				return;
			}
			size_t len = WIRE_HEAD + 8 * (size_t)m->n_args;
			struct wire *w = malloc(sizeof *w);
			if (!w) {
				local_fail(e, LOCUS_ENOMEM, "out of memory");
				return;
			}
			*w = (struct wire){.type = m->type,
					   .from = e->proc,
					   .to = m->to,
					   .bytes = m->bytes,
					   .n_args = m->n_args,
					   .value = m->value};
			memcpy(w->arg, m->arg, 8 * (size_t)m->n_args);
			e->self.msgs_sent++;
			e->msg_bytes += m->bytes ? m->bytes : 16 + 8 * m->n_args;
			post(e, dest, TAG_POLICY, w, len);
		} else if (a->kind == LOCUS__ACT_TIMER) {
			if (a->proc != e->proc) {
				local_fail(e, LOCUS_ENOTSUP,
					   "policy %s set a timer for another process",
					   e->pol->name);
				return;
			}
			struct timer t = {now + a->delay, e->timer_seq++, a->tag};
			if (locus_heap_push(&e->timers, &t))
				local_fail(e, LOCUS_ENOMEM, "out of memory");
		} else if (a->kind == LOCUS__ACT_CANCEL || a->kind == LOCUS__ACT_TRANSFER ||
			   a->kind == LOCUS__ACT_REWIND || a->kind == LOCUS__ACT_COPY ||
			   a->kind == LOCUS__ACT_DROP) {
			local_fail(
			    e, LOCUS_ENOTSUP,
			    "policy %s cancels or rewinds tasks or moves or drops objects, which "
			    "the MPI engine does not do yet",
			    e->pol->name);
			return;
		} else if (a->kind == LOCUS__ACT_STOP) {
			if (a->proc == e->proc)
				e->stopped = 1;
		}
	}
}

/* Tells this rank's process of the policy about `ev`. */
static void deliver(struct engine *e, struct locus_event *ev)
{
	if (e->failed || e->finishing || !e->pstate)
		return;
	double t = mono();
	ev->proc = e->proc;
	ev->now = t - e->t0;
	locus__actions_reset(&e->act);
	e->pol->on_event(e->pstate, ev, &e->act);
	double spent = mono() - t;
	e->self.events++;
	e->self.decide_seconds += spent;
	e->entries += e->act.entries;
	if (e->act.oom) {
		local_fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	apply_actions(e, ev->now + spent);
}

static int timer_cmp(const void *a, const void *b)
{
	const struct timer *x = a, *y = b;
	if (x->due != y->due)
		return x->due < y->due ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int fire_timers(struct engine *e)
{
	const struct timer *top = locus_heap_peek(&e->timers);
	if (!top || top->due > locus__mpi_now(e))
		return 0;
	struct timer t;
	locus_heap_pop(&e->timers, &t);
	struct locus_event ev = {.kind = LOCUS_EV_TIMER, .tag = t.tag};
	deliver(e, &ev);
	return 1;
}

/* ---- reports to rank 0 --------------------------------------------------- */

static void handle_reports(struct engine *e, const struct report *r, size_t n);

static void flush_reports(struct engine *e)
{
	if (!e->n_reps)
		return;
	if (e->rank == 0) {
		handle_reports(e, e->reps, e->n_reps);
		e->n_reps = 0;
		return;
	}
	size_t len = e->n_reps * sizeof *e->reps;
	void *buf = malloc(len);
	if (!buf) {
		local_fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	memcpy(buf, e->reps, len);
	post(e, 0, TAG_REPORT, buf, len);
	e->n_reps = 0;
	e->last_flush = locus__mpi_now(e);
}

static void report(struct engine *e, uint32_t kind, uint32_t task, uint32_t attempt)
{
	if (locus__grow(&e->reps, &e->reps_cap, e->n_reps + 1, sizeof *e->reps)) {
		local_fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	e->reps[e->n_reps++] = (struct report){kind, task, attempt, e->rank};
	/* With a journal each chunk is recorded as soon as it is done; a
	 * worker that leaves the run says so at once. */
	if (e->opt->journal || e->n_reps >= REPORT_BATCH || kind == REP_IDLE)
		flush_reports(e);
}

/* ---- rank 0: the outcome of the run ------------------------------------- */

static void task_name(const struct engine *e, uint32_t t, char *buf, size_t size)
{
	const struct locus_task *tk = &e->wl->tasks[t];
	snprintf(buf, size, "chunk %" PRIu32 " of \"%s\"", tk->chunk,
		 e->cat->datasets[tk->dataset].name);
}

static void settle(struct engine *e, uint32_t t, unsigned char how, uint32_t attempt, int rank)
{
	char name[600];
	if (t >= e->wl->n_tasks) {
		local_fail(e, LOCUS_EINCOMPLETE, "rank %d reported task %" PRIu32 " of %zu", rank,
			   t, e->wl->n_tasks);
		return;
	}
	if (e->outcome[t]) {
		task_name(e, t, name, sizeof name);
		local_fail(e, LOCUS_EINCOMPLETE,
			   "policy %s ran %s twice (the second time on rank %d)", e->pol->name,
			   name, rank);
		return;
	}
	e->outcome[t] = how;
	if (attempt > 0)
		e->pending_retries--;
	if (how == 1) {
		e->n_done++;
		if (e->journal_fd >= 0) {
			const struct locus_task *tk = &e->wl->tasks[t];
			const struct locus_dataset *ds = &e->cat->datasets[tk->dataset];
			if (locus__journal_format(&e->journal_buf, ds->name, tk->chunk,
						  ds->chunks[tk->chunk].offset, tk->bytes))
				local_fail(e, LOCUS_ENOMEM, "out of memory");
		}
	} else {
		e->n_failed++;
	}
}

static void handle_reports(struct engine *e, const struct report *r, size_t n)
{
	for (size_t i = 0; i < n && !e->failed; i++) {
		switch (r[i].kind) {
		case REP_DONE:
			settle(e, r[i].task, 1, r[i].attempt, r[i].rank);
			break;
		case REP_RETRIED:
			e->pending_retries++;
			break;
		case REP_IDLE: {
			uint32_t w = e->rank_proc[r[i].rank];
			if (w < e->n_workers && !e->worker_idle[w]) {
				e->worker_idle[w] = 1;
				e->idle_workers++;
			}
			break;
		}
		default:
			local_fail(e, LOCUS_EINCOMPLETE, "rank %d sent a report of kind %" PRIu32,
				   r[i].rank, r[i].kind);
		}
	}
}

static void add_failure(struct engine *e, const struct retry *f, const char *why, size_t len)
{
	if (locus__grow(&e->failures, &e->failures_cap, e->n_failures + 1, sizeof *e->failures)) {
		local_fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	if (f->task >= e->wl->n_tasks) {
		local_fail(e, LOCUS_EINCOMPLETE, "rank %d reported task %" PRIu32 " of %zu",
			   f->rank, f->task, e->wl->n_tasks);
		return;
	}
	const struct locus_task *tk = &e->wl->tasks[f->task];
	struct locus_mpi_failure *x = &e->failures[e->n_failures];
	x->dataset = locus__strdup(e->cat->datasets[tk->dataset].name);
	x->why = malloc(len + 1);
	if (!x->dataset || !x->why) {
		free(x->dataset);
		free(x->why);
		local_fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	memcpy(x->why, why, len);
	x->why[len] = 0;
	x->index = tk->chunk;
	x->task = f->task;
	x->attempts = (int)f->attempt + 1;
	x->rank = f->rank;
	e->n_failures++;
	settle(e, f->task, 2, f->attempt, f->rank);
}

/* Rank 0's part of each round: the journal, progress, and the end. */
static int coordinate(struct engine *e)
{
	int moved = 0;
	if (e->journal_buf.len && !e->failed) {
		struct locus_error jerr = {0};
		if (locus__journal_write(e->journal_fd, e->opt->journal, e->journal_buf.data,
					 e->journal_buf.len, &jerr))
			local_fail(e, jerr.code, "%s: %s", e->opt->journal, jerr.message);
		e->journal_buf.len = 0;
		moved = 1;
	}
	size_t settled = e->n_done + e->n_failed, n = e->wl->n_tasks;
	if (e->opt->progress && (settled >= e->next_progress || settled == n)) {
		e->opt->progress(e->opt->progress_user, e->n_done, e->n_failed, n,
				 locus__mpi_now(e));
		e->next_progress = settled + (n + 99) / 100;
		if (settled == n)
			e->next_progress = SIZE_MAX;
	}
	if (e->failed || e->finishing)
		return moved;
	if (settled == n) {
		finish(e, 0, NULL);
		return 1;
	}
	if (e->idle_workers == e->n_workers && e->pending_retries == 0) {
		size_t t = 0;
		while (t < n && e->outcome[t])
			t++;
		char name[600];
		task_name(e, (uint32_t)t, name, sizeof name);
		local_fail(e, LOCUS_EINCOMPLETE,
			   "policy %s stopped every worker with %zu of %zu chunks done (%s was "
			   "never run)",
			   e->pol->name, settled, n, name);
		return 1;
	}
	return moved;
}

/* ---- workers: running chunks -------------------------------------------- */

static void enqueue(struct engine *e, struct run_item it)
{
	if (e->q_len == e->q_cap) {
		size_t cap = e->q_cap ? 2 * e->q_cap : 8;
		struct run_item *q = malloc(cap * sizeof *q);
		if (!q) {
			local_fail(e, LOCUS_ENOMEM, "out of memory");
			return;
		}
		for (size_t i = 0; i < e->q_len; i++)
			q[i] = e->queue[(e->q_head + i) % e->q_cap];
		free(e->queue);
		e->queue = q;
		e->q_cap = cap;
		e->q_head = 0;
	}
	e->queue[(e->q_head + e->q_len++) % e->q_cap] = it;
	e->idle_told = 0;
}

/* The path of task t's chunk in node `node`'s directory. */
static int chunk_path(const struct engine *e, uint32_t t, uint32_t node, char *buf, size_t size)
{
	const struct locus_task *tk = &e->wl->tasks[t];
	const struct locus_dataset *ds = &e->cat->datasets[tk->dataset];
	char name[64];
	locus_store_chunk_name(name, sizeof name, tk->chunk, ds->chunks[tk->chunk].offset);
	int n =
	    snprintf(buf, size, "%s/%s/%s/%s", e->opt->store, e->node_dir[node], ds->name, name);
	return n < 0 || (size_t)n >= size ? LOCUS_ERANGE : 0;
}

/* The holders of t this rank may fetch from, in the order to try them:
 * the policy's choice first, else the one locus_source_pick names (as the
 * simulator reads), then round the others from it. */
static uint32_t holder_to_try(const struct engine *e, uint32_t t, int32_t hint, uint32_t k, int *ok)
{
	const struct locus_task *tk = &e->wl->tasks[t];
	const uint32_t *h = e->wl->holders + tk->holders_at;
	uint32_t n = tk->n_holders, start = 0;
	uint32_t first =
	    locus_source_pick(e->plat, h, n, e->node, (uint64_t)t + (uint32_t)e->cur.attempt);
	for (uint32_t i = 0; i < n; i++)
		if (h[i] == first)
			start = i;
	for (uint32_t i = 0; i < n; i++)
		if (hint >= 0 && h[i] == (uint32_t)hint)
			start = i;
	*ok = k < n;
	return *ok ? h[(start + k) % n] : 0;
}

static void attempt_done(struct engine *e, int rc, const char *why, double read_end, double end);

/* Asks the next holder for the bytes of the current task. */
static void fetch_next(struct engine *e, const char *last_why)
{
	int ok;
	uint32_t node = holder_to_try(e, e->cur.task, e->cur.hint, e->fetch_try++, &ok);
	size_t n_srv = ok ? e->server_at[node + 1] - e->server_at[node] : 0;
	if (!ok || !n_srv) {
		if (ok) {
			fetch_next(e, last_why); /* a holder without ranks: next one */
			return;
		}
		char why[1024];
		snprintf(why, sizeof why, "cannot fetch the chunk from any node holding it%s%s",
			 last_why ? ": " : "", last_why ? last_why : "");
		double now = locus__mpi_now(e);
		attempt_done(e, LOCUS_EIO, why, now, now);
		return;
	}
	e->cur_source = node;
	e->fetch_server =
	    e->servers[e->server_at[node] + (e->cur.task + (uint32_t)e->cur.attempt) % n_srv];
	e->fetch_got = 0;
	e->fetching = 1;
	struct fetch *f = malloc(sizeof *f);
	if (!f) {
		local_fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	*f = (struct fetch){e->cur.task, (uint32_t)e->cur.attempt};
	post(e, e->fetch_server, TAG_FETCH, f, sizeof *f);
}

/* Hands the current task, its bytes at hand, to the function. */
static void hand_over(struct engine *e)
{
	struct job *j = &e->job;
	const struct locus_task *tk = &e->wl->tasks[e->cur.task];
	const struct locus_dataset *ds = &e->cat->datasets[tk->dataset];
	int local = e->cur_source == e->node;
	memset(&j->chunk, 0, sizeof j->chunk);
	j->chunk = (struct locus_mpi_chunk){.dataset = ds->name,
					    .index = tk->chunk,
					    .offset = ds->chunks[tk->chunk].offset,
					    .length = tk->bytes,
					    .path = j->path,
					    .local = local,
					    .task = e->cur.task,
					    .attempt = e->cur.attempt,
					    .rank = e->rank,
					    .node = e->plat->nodes[e->node].name};
	j->rc = 0;
	j->why[0] = 0;
	j->length = tk->bytes;
	if (local) {
		j->data = NULL;
		if (chunk_path(e, e->cur.task, e->node, j->path, sizeof j->path)) {
			double now = locus__mpi_now(e);
			attempt_done(e, LOCUS_ERANGE, "the chunk's path is too long", now, now);
			return;
		}
	} else {
		char name[64];
		j->data = e->fetch_buf;
		e->fetch_buf = NULL;
		locus_store_chunk_name(name, sizeof name, tk->chunk, ds->chunks[tk->chunk].offset);
		if (snprintf(j->path, sizeof j->path, "%s/%s", e->scratch, name) >=
		    (int)sizeof j->path) {
			double now = locus__mpi_now(e);
			attempt_done(e, LOCUS_ERANGE, "the scratch path is too long", now, now);
			return;
		}
	}
	if (!e->threaded) {
		locus__task_run(e, j);
		attempt_done(e, j->rc, j->why, j->read_end, j->end);
		return;
	}
	pthread_mutex_lock(&e->mu);
	e->job_ready = 1;
	e->job_done = 0;
	pthread_cond_signal(&e->cv_job);
	pthread_mutex_unlock(&e->mu);
}

/* The bytes of the current task arrived: now, or once the emulated
 * network would have carried them. */
static void fetched(struct engine *e)
{
	double now = locus__mpi_now(e);
	e->fetching = 0;
	e->self.fetches++;
	e->self.bytes_fetched += e->fetch_got;
	e->self.fetch_seconds += now - e->fetch_start;
	if (e->opt->emulate_net_bw > 0) {
		double until = e->fetch_start + (double)e->fetch_got / e->opt->emulate_net_bw;
		if (until > now) {
			e->paced_until = until;
			e->pacing = 1;
			return;
		}
	}
	hand_over(e);
}

/* Another worker rank to retry task t on, as locus_retry_worker says. */
static int retry_rank(const struct engine *e, uint32_t t, uint32_t attempt)
{
	uint32_t w = locus_retry_worker(e->wl, t, attempt, e->proc, NULL, NULL);
	return w == LOCUS_NONE ? e->rank : e->proc_rank[w];
}

/* An attempt of the current item ended (rc 0: done). */
static void attempt_done(struct engine *e, int rc, const char *why, double read_end, double end)
{
	struct run_item it = e->cur;
	const struct locus_task *tk = &e->wl->tasks[it.task];
	int local = e->cur_source == e->node;
	if (rc == 0 && e->job.output) {
		/* Before the report, so that rank 0 has it when the chunk
		 * counts as done (messages between two ranks keep their
		 * order). */
		char *o = e->job.output;
		size_t len = e->job.output_len;
		e->job.output = NULL;
		if (e->rank == 0) {
			e->opt->output(e->opt->output_user, o, len);
			free(o);
		} else if (len > (size_t)INT32_MAX) {
			free(o);
			rc = LOCUS_ERANGE;
			why = "the chunk's output is larger than 2 GiB (write it to a file)";
		} else {
			post(e, 0, TAG_OUTPUT, o, len);
		}
	}
	free(e->job.output);
	e->job.output = NULL;
	free(e->job.data);
	e->job.data = NULL;
	free(e->fetch_buf);
	e->fetch_buf = NULL;
	e->busy = 0;
	e->self.tasks++;
	e->self.local_tasks += local;
	e->self.busy += end - read_end;
	e->wres.tasks++;
	e->wres.local_tasks += local;
	if (local)
		e->wres.bytes_local += tk->bytes, e->self.bytes_local += tk->bytes;
	else
		e->wres.bytes_remote += tk->bytes;
	e->wres.busy += end - it.assigned;
	if (it.from_policy) {
		double wait = it.assigned > e->idle_since ? it.assigned - e->idle_since : 0;
		e->wres.idle += wait;
		if (wait > e->wres.max_wait)
			e->wres.max_wait = wait;
	}
	if (locus__grow(&e->recs, &e->recs_cap, e->n_recs + 1, sizeof *e->recs)) {
		local_fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	e->recs[e->n_recs++] = (struct task_rec){.task = it.task,
						 .worker = e->proc,
						 .node = e->node,
						 .source = e->cur_source,
						 .local = (uint32_t)local,
						 .attempt = (uint32_t)it.attempt,
						 .ok = rc == 0,
						 .from_policy = (uint32_t)it.from_policy,
						 .idle_since = e->idle_since,
						 .assigned = it.assigned,
						 .read_end = read_end,
						 .end = end};
	e->idle_since = end;
	if (rc == 0) {
		report(e, REP_DONE, it.task, (uint32_t)it.attempt);
	} else if (it.attempt < e->opt->retries) {
		e->self.failed++;
		int r = retry_rank(e, it.task, (uint32_t)it.attempt);
		struct run_item next = {it.task, it.attempt + 1, 0, -1, end};
		report(e, REP_RETRIED, it.task, (uint32_t)it.attempt + 1);
		if (r == e->rank) {
			enqueue(e, next);
		} else {
			struct retry *m = malloc(sizeof *m);
			if (!m) {
				local_fail(e, LOCUS_ENOMEM, "out of memory");
				return;
			}
			*m = (struct retry){it.task, (uint32_t)it.attempt + 1, e->rank, 0};
			post(e, r, TAG_RETRY, m, sizeof *m);
		}
	} else {
		e->self.failed++;
		size_t wl_len = strlen(why);
		char *m = malloc(sizeof(struct retry) + wl_len);
		if (!m) {
			local_fail(e, LOCUS_ENOMEM, "out of memory");
			return;
		}
		struct retry f = {it.task, (uint32_t)it.attempt, e->rank, 0};
		memcpy(m, &f, sizeof f);
		memcpy(m + sizeof f, why, wl_len);
		if (e->rank == 0) {
			add_failure(e, &f, why, wl_len);
			free(m);
		} else {
			/* Reports first, so rank 0 sees them in order. */
			flush_reports(e);
			post(e, 0, TAG_FAILURE, m, sizeof f + wl_len);
		}
	}
	if (it.from_policy && rc == 0) {
		struct locus_event ev = {.kind = LOCUS_EV_DONE,
					 .done = {.task = it.task,
						  .remote = !local,
						  .duration = end - it.assigned,
						  .compute = end - read_end}};
		deliver(e, &ev);
	} else if (it.from_policy) {
		struct locus_event ev = {
		    .kind = LOCUS_EV_FAILED,
		    .failed = {.task = it.task,
			       .worker = e->proc,
			       .attempt = (uint32_t)it.attempt,
			       .final = it.attempt >= e->opt->retries,
			       .reason = rc == LOCUS_EIO && e->cur_source != e->node
					     ? LOCUS_FAIL_INPUT
					     : LOCUS_FAIL_ERROR}};
		deliver(e, &ev);
	}
	start_next(e);
}

static void start_next(struct engine *e)
{
	if (e->busy || !e->q_len || e->failed || e->finishing)
		return;
	e->cur = e->queue[e->q_head];
	e->q_head = (e->q_head + 1) % e->q_cap;
	e->q_len--;
	e->busy = 1;
	double now = locus__mpi_now(e);
	if (!e->cur.from_policy)
		e->cur.assigned = now;
	uint32_t t = e->cur.task;
	if (locus_workload_is_local(e->wl, t, e->node)) {
		e->cur_source = e->node;
		hand_over(e);
		return;
	}
	e->fetch_try = 0;
	e->fetch_start = now;
	fetch_next(e, NULL);
}

/* The function's thread finished, or a paced fetch is due. */
static int worker_progress(struct engine *e)
{
	int moved = 0;
	if (e->threaded && e->busy && __atomic_load_n(&e->job_done, __ATOMIC_ACQUIRE)) {
		e->job_done = 0;
		attempt_done(e, e->job.rc, e->job.why, e->job.read_end, e->job.end);
		moved = 1;
	}
	if (e->pacing && locus__mpi_now(e) >= e->paced_until) {
		e->pacing = 0;
		hand_over(e);
		moved = 1;
	}
	if (!e->busy && e->q_len) {
		start_next(e);
		moved = 1;
	}
	if (e->stopped && !e->busy && !e->q_len && !e->idle_told && !e->failed) {
		e->idle_told = 1;
		report(e, REP_IDLE, 0, 0);
		moved = 1;
	}
	/* Outcomes go in batches; a quiet worker's now and then. */
	if (e->n_reps && locus__mpi_now(e) - e->last_flush > REPORT_EVERY) {
		flush_reports(e);
		moved = 1;
	}
	return moved;
}

/* ---- receiving ----------------------------------------------------------- */

/* Serves a peer's request for a chunk of this node. */
static void serve(struct engine *e, int from, const struct fetch *f)
{
	char why[1024] = "", path[4096];
	void *buf = NULL;
	uint64_t len = 0;
	int status = 0;
	double t0 = mono();
	if (f->task >= e->wl->n_tasks || !e->node_dir[e->node]) {
		status = LOCUS_ENOENT;
		snprintf(why, sizeof why, "rank %d holds no such chunk", e->rank);
	} else {
		len = e->wl->tasks[f->task].bytes;
		int fd = -1;
		struct stat st;
		if (chunk_path(e, f->task, e->node, path, sizeof path))
			status = LOCUS_ERANGE;
		else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) != 0)
			status = LOCUS_EIO;
		else if ((uint64_t)st.st_size != len)
			status = LOCUS_EINCOMPLETE;
		else if (!(buf = malloc(len ? len : 1)))
			status = LOCUS_ENOMEM;
		for (uint64_t at = 0; !status && at < len;) {
			ssize_t got = pread(fd, (char *)buf + at, len - at, (off_t)at);
			if (got <= 0 && !(got < 0 && errno == EINTR))
				status = LOCUS_EIO;
			else if (got > 0)
				at += (uint64_t)got;
		}
		if (status == LOCUS_EINCOMPLETE)
			snprintf(why, sizeof why,
				 "%.700s on %.200s is %lld bytes, the catalog says %" PRIu64, path,
				 e->plat->nodes[e->node].name, (long long)st.st_size, len);
		else if (status)
			snprintf(why, sizeof why, "%.700s on %.200s: %.100s", path,
				 e->plat->nodes[e->node].name,
				 status == LOCUS_EIO ? strerror(errno) : locus_strerror(status));
		if (fd >= 0)
			close(fd);
	}
	size_t wl_len = strlen(why);
	struct data_head *h = malloc(sizeof *h + wl_len);
	if (!h) {
		free(buf);
		local_fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	*h = (struct data_head){f->task, status, status ? 0 : len};
	memcpy(h + 1, why, wl_len);
	post(e, from, TAG_DATA_HEAD, h, sizeof *h + wl_len);
	if (status) {
		free(buf);
		return;
	}
	e->self.serves++;
	e->self.bytes_served += len;
	e->self.serve_read_seconds += mono() - t0;
	/* The bytes in pieces; the first piece sends the buffer itself. */
	for (uint64_t at = 0; at < len; at += DATA_PIECE) {
		size_t part = len - at < DATA_PIECE ? (size_t)(len - at) : DATA_PIECE;
		void *piece = at == 0 ? buf : malloc(part);
		if (!piece) {
			local_fail(e, LOCUS_ENOMEM, "out of memory");
			break;
		}
		if (at)
			memcpy(piece, (char *)buf + at, part);
		post(e, from, TAG_DATA, piece, part);
	}
	if (len == 0)
		free(buf); /* else it went with the first piece */
}

static void on_data_head(struct engine *e, int from, const struct data_head *h, const char *why,
			 size_t why_len)
{
	if (!e->fetching || from != e->fetch_server || h->task != e->cur.task)
		return; /* a reply to a fetch given up: cannot happen while running */
	if (h->status) {
		char msg[700];
		snprintf(msg, sizeof msg, "%.*s", (int)why_len, why);
		fetch_next(e, msg);
		return;
	}
	if (h->length != e->wl->tasks[e->cur.task].bytes) {
		local_fail(e, LOCUS_EINCOMPLETE,
			   "rank %d sent %" PRIu64 " bytes for a chunk of %" PRIu64, from,
			   h->length, e->wl->tasks[e->cur.task].bytes);
		return;
	}
	e->fetch_buf = malloc(h->length ? h->length : 1);
	if (!e->fetch_buf) {
		local_fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	e->fetch_got = 0;
	if (h->length == 0)
		fetched(e);
}

/* Receives one probed message and acts on it. */
static void on_message(struct engine *e, MPI_Message *msg, MPI_Status *st)
{
	int count;
	MPI_Get_count(st, MPI_BYTE, &count);
	int from = st->MPI_SOURCE, tag = st->MPI_TAG;
	e->received[from]++;
	/* The bytes of a chunk go straight where they belong. */
	if (tag == TAG_DATA && e->fetching && from == e->fetch_server && e->fetch_buf &&
	    e->fetch_got + (uint64_t)count <= e->wl->tasks[e->cur.task].bytes) {
		MPI_Mrecv((char *)e->fetch_buf + e->fetch_got, count, MPI_BYTE, msg,
			  MPI_STATUS_IGNORE);
		e->fetch_got += (uint64_t)count;
		if (e->fetch_got == e->wl->tasks[e->cur.task].bytes)
			fetched(e);
		return;
	}
	union {
		struct wire w;
		struct end_msg end;
		char small[sizeof(struct end_msg) + 64];
	} u;
	char *buf = (size_t)count <= sizeof u ? u.small : malloc((size_t)count);
	if (!buf) {
		/* Take it off the queue all the same (truncated), then fail. */
		MPI_Comm_set_errhandler(e->comm, MPI_ERRORS_RETURN);
		MPI_Mrecv(u.small, (int)sizeof u, MPI_BYTE, msg, MPI_STATUS_IGNORE);
		MPI_Comm_set_errhandler(e->comm, MPI_ERRORS_ARE_FATAL);
		local_fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	MPI_Mrecv(buf, count, MPI_BYTE, msg, MPI_STATUS_IGNORE);
	size_t n = (size_t)count;
	if (e->finishing && tag != TAG_FINISH)
		goto out; /* the run is over: what still arrives is dropped */
	switch (tag) {
	case TAG_POLICY: {
		struct wire w = {0};
		memcpy(&w, buf, n < sizeof w ? n : sizeof w);
		e->self.msgs_received++;
		if (n < WIRE_HEAD || w.n_args > LOCUS_MSG_ARGS || n != WIRE_HEAD + 8 * w.n_args) {
			local_fail(e, LOCUS_EINCOMPLETE,
				   "rank %d sent a policy message of %zu bytes", from, n);
			break;
		}
		struct locus_msg m = {.type = w.type,
				      .from = w.from,
				      .to = w.to,
				      .bytes = w.bytes,
				      .n_args = w.n_args,
				      .value = w.value};
		memcpy(m.arg, w.arg, 8 * (size_t)w.n_args);
		if (m.type == LOCUS_MSG_ASSIGN) {
			if (!e->is_worker || m.arg[0] < 0 || (uint64_t)m.arg[0] >= e->wl->n_tasks) {
				local_fail(e, LOCUS_EINCOMPLETE,
					   "policy %s assigned task %" PRId64
					   " to process %" PRIu32,
					   e->pol->name, m.arg[0], e->proc);
				break;
			}
			struct run_item it = {(uint32_t)m.arg[0], 0, 1,
					      m.n_args > 1 && m.arg[1] >= 0 &&
						      m.arg[1] < (int64_t)e->plat->n_nodes
						  ? (int32_t)m.arg[1]
						  : -1,
					      locus__mpi_now(e)};
			enqueue(e, it);
		}
		struct locus_event ev = {.kind = LOCUS_EV_MESSAGE, .msg = &m};
		deliver(e, &ev);
		start_next(e);
		break;
	}
	case TAG_FETCH:
		if (n == sizeof(struct fetch))
			serve(e, from, (const struct fetch *)buf);
		break;
	case TAG_DATA_HEAD:
		if (n >= sizeof(struct data_head))
			on_data_head(e, from, (const struct data_head *)buf,
				     buf + sizeof(struct data_head), n - sizeof(struct data_head));
		break;
	case TAG_DATA:
		break; /* bytes of a fetch given up */
	case TAG_RETRY:
		if (n == sizeof(struct retry) && e->is_worker) {
			const struct retry *r = (const struct retry *)buf;
			e->self.retried++;
			enqueue(e, (struct run_item){r->task, (int)r->attempt, 0, -1, 0});
			start_next(e);
		}
		break;
	case TAG_REPORT:
		if (e->rank == 0)
			handle_reports(e, (const struct report *)buf, n / sizeof(struct report));
		break;
	case TAG_FAILURE:
		if (e->rank == 0 && n >= sizeof(struct retry))
			add_failure(e, (const struct retry *)buf, buf + sizeof(struct retry),
				    n - sizeof(struct retry));
		break;
	case TAG_OUTPUT:
		if (e->rank == 0 && e->opt->output)
			e->opt->output(e->opt->output_user, buf, n);
		break;
	case TAG_ERROR:
		if (e->rank == 0 && n == sizeof(struct end_msg))
			finish(e, ((struct end_msg *)buf)->code, ((struct end_msg *)buf)->message);
		break;
	case TAG_FINISH:
		if (n == sizeof(struct end_msg)) {
			e->finishing = 1;
			e->end_code = ((struct end_msg *)buf)->code;
			snprintf(e->end_msg, sizeof e->end_msg, "%s",
				 ((struct end_msg *)buf)->message);
		}
		break;
	}
out:
	if (buf != u.small)
		free(buf);
}

/* Receives what arrived, up to a batch; returns how many. */
static int receive(struct engine *e)
{
	int n = 0;
	while (n < RECV_BATCH) {
		int flag;
		MPI_Message msg;
		MPI_Status st;
		MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, e->comm, &flag, &msg, &st);
		if (!flag)
			break;
		on_message(e, &msg, &st);
		n++;
	}
	if (!e->is_worker && n) {
		e->qlooks++;
		e->qsum += (uint64_t)n;
		if ((uint32_t)n > e->qmax)
			e->qmax = (uint32_t)n;
	}
	return n;
}

/* ---- waiting -------------------------------------------------------------- */

/* Nothing happened this round: poll again, yield, or sleep a while (woken
 * early when the function's thread finishes). */
static void idle(struct engine *e, unsigned long *rounds)
{
	unsigned long k = (*rounds)++;
	if (k < SPIN_POLLS)
		return;
	if (k < SPIN_POLLS + YIELD_POLLS) {
		sched_yield();
		return;
	}
	double cap = e->opt->max_idle_sleep > 0 ? e->opt->max_idle_sleep : 1e-3;
	unsigned long step = k - SPIN_POLLS - YIELD_POLLS;
	double d = SLEEP_FIRST * (double)(1ul << (step < 20 ? step : 20));
	if (d > cap)
		d = cap;
	const struct timer *top = locus_heap_peek(&e->timers);
	if (top) {
		double until = top->due - locus__mpi_now(e);
		if (until < d)
			d = until > 0 ? until : 0;
	}
	if (e->pacing) {
		double until = e->paced_until - locus__mpi_now(e);
		if (until < d)
			d = until > 0 ? until : 0;
	}
	if (e->threaded && e->busy && !e->fetching && !e->pacing) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		double at = (double)ts.tv_nsec * 1e-9 + d;
		ts.tv_sec += (time_t)at;
		ts.tv_nsec = (long)((at - (double)(time_t)at) * 1e9);
		pthread_mutex_lock(&e->mu);
		if (!e->job_done)
			pthread_cond_timedwait(&e->cv_main, &e->mu, &ts);
		pthread_mutex_unlock(&e->mu);
		return;
	}
	struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
	nanosleep(&ts, NULL);
}

/* ---- the loop ------------------------------------------------------------ */

static void loop(struct engine *e)
{
	unsigned long rounds = 0;
	struct locus_event start = {.kind = LOCUS_EV_START};
	deliver(e, &start);
	start_next(e);
	while (!e->finishing) {
		int moved = receive(e) > 0;
		if (e->is_worker)
			moved |= worker_progress(e);
		moved |= fire_timers(e);
		moved |= outbox_progress(e);
		if (e->rank == 0)
			moved |= coordinate(e);
		if (e->opt->cancel && *e->opt->cancel && !e->failed)
			local_fail(e, LOCUS_EINCOMPLETE, "the run was cancelled");
		if (moved)
			rounds = 0;
		else if (!e->finishing)
			idle(e, &rounds);
	}
}

/* After the end: the function's thread has nothing left, every send is
 * done, and every message sent to this rank has been received. */
static void drain(struct engine *e)
{
	unsigned long rounds = 0;
	while (e->threaded && e->busy && !e->fetching && !e->pacing &&
	       !__atomic_load_n(&e->job_done, __ATOMIC_ACQUIRE)) {
		receive(e);
		idle(e, &rounds);
	}
	while (e->out.n) {
		receive(e);
		if (!outbox_progress(e))
			idle(e, &rounds);
	}
	uint64_t *expect = locus__calloc((size_t)e->size, sizeof *expect);
	MPI_Request req;
	int flag = 0;
	MPI_Ialltoall(e->sent, 1, MPI_UINT64_T, expect, 1, MPI_UINT64_T, e->comm, &req);
	rounds = 0;
	while (!flag) {
		MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
		if (!flag && !receive(e))
			idle(e, &rounds);
	}
	for (int r = 0; expect && r < e->size; r++)
		while (e->received[r] < expect[r])
			if (!receive(e))
				idle(e, &rounds);
	free(expect);
}

/* ---- the run -------------------------------------------------------------- */

static void engine_fini(struct engine *e)
{
	if (e->threaded)
		locus__task_stop_thread(e);
	if (e->pstate)
		e->pol->destroy(e->pstate);
	locus_kv_fini(&e->kv);
	locus__actions_fini(&e->act);
	for (size_t i = 0; i < e->out.n; i++)
		free(e->out.buf[i]);
	free(e->out.req);
	free(e->out.buf);
	free(e->sent);
	free(e->received);
	locus_heap_fini(&e->timers);
	free(e->queue);
	free(e->recs);
	free(e->reps);
	free(e->fetch_buf);
	free(e->job.data);
	free(e->outcome);
	free(e->worker_idle);
	for (size_t i = 0; i < e->n_failures; i++) {
		free(e->failures[i].dataset);
		free(e->failures[i].why);
	}
	free(e->failures);
	if (e->journal_fd >= 0)
		close(e->journal_fd);
	locus__buf_fini(&e->journal_buf);
	if (e->scratch[0])
		rmdir(e->scratch);
	locus_workload_destroy(e->wl);
	locus_platform_destroy(e->plat);
	locus_catalog_destroy(e->cat);
	for (size_t i = 0; e->node_dir && i < e->n_nodes; i++)
		free(e->node_dir[i]);
	free(e->node_dir);
	free(e->proc_rank);
	free(e->rank_proc);
	free(e->rank_node);
	free(e->servers);
	free(e->server_at);
}

int locus_mpi_run(MPI_Comm comm, const struct locus_mpi_options *opt, locus_mpi_chunk_fn fn,
		  void *user, struct locus_mpi_report *report, struct locus_error *err)
{
	struct locus_error local_err = {0};
	struct engine e = {0};
	int rc;

	memset(report, 0, sizeof *report);
	e.err = err ? err : &local_err;
	locus_error_clear(e.err);
	e.opt = opt;
	e.fn = fn;
	e.user = user;
	e.journal_fd = -1;
	MPI_Comm_dup(comm, &e.comm);
	MPI_Comm_rank(e.comm, &e.rank);
	MPI_Comm_size(e.comm, &e.size);
	e.sent = locus__calloc((size_t)e.size, sizeof *e.sent);
	e.received = locus__calloc((size_t)e.size, sizeof *e.received);
	rc = e.sent && e.received && !locus_heap_init(&e.timers, sizeof(struct timer), timer_cmp)
		 ? 0
		 : locus__err(e.err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if (!fn && !rc)
		rc = locus__err(e.err, LOCUS_EINVAL, NULL, 0, 0, "no function to run on chunks");
	rc = locus__mpi_agree(&e, rc);
	if (!rc)
		rc = locus__mpi_setup(&e);
	if (!rc) {
		int level;
		MPI_Query_thread(&level);
		e.threaded = e.is_worker && !opt->inline_tasks && level >= MPI_THREAD_FUNNELED;
		if (e.threaded && locus__task_start_thread(&e)) {
			e.threaded = 0;
			rc = locus__err(e.err, LOCUS_ENOMEM, NULL, 0, 0,
					"cannot start the function's thread");
		}
		rc = locus__mpi_agree(&e, rc);
	}
	if (!rc) {
		MPI_Barrier(e.comm);
		e.t0 = mono();
		e.idle_since = 0;
		if (e.wl->n_tasks == 0) {
			if (e.rank == 0)
				finish(&e, 0, NULL);
		}
		loop(&e);
		drain(&e);
		if (e.end_code) {
			e.err->code = e.end_code;
			e.err->file[0] = 0;
			e.err->line = e.err->column = 0;
			snprintf(e.err->message, sizeof e.err->message, "%s", e.end_msg);
			rc = e.end_code;
		}
		if (!rc)
			rc = locus__mpi_results(&e, report);
	}
	engine_fini(&e);
	MPI_Comm_free(&e.comm);
	if (rc)
		locus_mpi_report_fini(report);
	return rc;
}

void locus_mpi_report_fini(struct locus_mpi_report *report)
{
	if (!report)
		return;
	locus_result_destroy(report->result);
	free(report->ranks);
	for (size_t i = 0; i < report->n_failures; i++) {
		free(report->failures[i].dataset);
		free(report->failures[i].why);
	}
	free(report->failures);
	locus_platform_destroy(report->platform);
	free(report->work);
	memset(report, 0, sizeof *report);
}
