/*
 * The task policies, driven without either engine.
 *
 * A tiny deterministic driver (drive_run) plays the engine: it delivers
 * LOCUS_EV_START to every process at time 0, messages after a fixed
 * latency, runs each assigned task for work / speed (plus a fixed penalty
 * when the chunk is not on the worker's node), delivers LOCUS_EV_DONE,
 * fires timers and honours stops; events are ordered by time, then by
 * sequence number. It records who ran which task when and flags every
 * protocol fault (a task assigned twice, to a busy or stopped worker, a
 * message from the wrong process, a worker never stopped).
 *
 * On it: exact schedules computed by hand for every policy on tiny
 * workloads, conformance of every registered policy over many random
 * workloads, determinism, DL-MPI's probabilities (Eq. 4) measured over
 * many draws, the monolithic master's cost against the metadata size, and
 * option errors.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"
#include "sched/actions.h"
#include "sched/mw.h"
#include "sched/scal.h"
#include "test.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- workloads ------------------------------------------------------------ */

struct fixture {
	struct locus_platform *p;
	struct locus_catalog *cat;
	struct locus_workload *wl;
};

static void fixture_free(struct fixture *f)
{
	locus_workload_destroy(f->wl);
	locus_catalog_destroy(f->cat);
	locus_platform_destroy(f->p);
	memset(f, 0, sizeof *f);
}

/*
 * n_nodes nodes with cores[n] cores and speed speed[n] (NULL: 1 and 1);
 * task t's chunk is on the nodes of bit mask holders[t] (0: on none) and
 * its work is work[t] seconds (NULL: 1). Returns 0 or an error code.
 */
static int fixture_make(struct fixture *f, size_t n_nodes, const int *cores, const double *speed,
			size_t n_tasks, const uint32_t *holders, const double *work)
{
	struct locus_work_spec spec = {.dist = LOCUS_WORK_FIXED, .mean = 1.0};
	struct locus_error err = {0};
	uint32_t reps[32];
	int rc;

	memset(f, 0, sizeof *f);
	if ((rc = locus_platform_generate(&f->p, n_nodes, 1, 1, "n")) ||
	    (rc = locus_catalog_create(&f->cat)))
		goto fail;
	for (size_t n = 0; n < n_nodes; n++) {
		if (cores)
			f->p->nodes[n].cores = cores[n];
		if (speed)
			f->p->nodes[n].speed = speed[n];
		if (locus_catalog_add_host(f->cat, f->p->nodes[n].name, NULL) != (long)n) {
			rc = LOCUS_ENOMEM;
			goto fail;
		}
	}
	if (locus_catalog_add_dataset(f->cat, "d") != 0) {
		rc = LOCUS_ENOMEM;
		goto fail;
	}
	for (size_t t = 0; t < n_tasks; t++) {
		uint32_t nr = 0;
		for (uint32_t n = 0; n < n_nodes && n < 32; n++)
			if (holders[t] >> n & 1)
				reps[nr++] = n;
		long c = locus_catalog_add_chunk(f->cat, 0, 64, reps, nr, 0);
		if (c < 0) {
			rc = (int)c;
			goto fail;
		}
	}
	if (work && n_tasks) {
		spec.dist = LOCUS_WORK_TRACE;
		spec.trace = work;
		spec.n_trace = n_tasks;
	}
	if ((rc = locus_workload_build(&f->wl, f->p, f->cat, NULL, &spec, 1, &err)))
		goto fail;
	return 0;
fail:
	fixture_free(f);
	return rc ? rc : LOCUS_EINVAL;
}

/* ---- the driver ----------------------------------------------------------- */

#define MAX_EVENTS 1000000

struct dev {
	double time;
	uint64_t seq;
	enum locus_event_kind kind;
	uint32_t proc;
	struct locus_msg msg; /* MESSAGE */
	uint32_t task;	      /* DONE */
	double duration, compute;
	int remote;
	uint64_t tag; /* TIMER */
};

static int dev_cmp(const void *a, const void *b)
{
	const struct dev *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct drive {
	/* What to run. */
	const struct locus_policy *pol;
	const struct locus_workload *wl;
	const char *opts;
	uint64_t seed;
	size_t schedulers; /* requested (0: the policy's default) */
	double latency;	   /* every message */
	double penalty;	   /* added to a task whose chunk is not on the worker's node */
	/* What happened. */
	struct locus_error err; /* create's error */
	int32_t *worker;	/* by task: who ran it, -1 */
	double *start, *end;	/* by task */
	uint32_t *runs;		/* by task: times assigned */
	double *stop;		/* by worker: when it stopped, -1 */
	size_t local, remote;
	uint64_t entries; /* locus_act_cost over the run */
	uint64_t events;
	double last; /* time of the last event */
	struct locus_policy_stats stats;
	char fault[256]; /* the first protocol fault, "" if none */
};

static void fault(struct drive *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records the first protocol fault of a run. */
static void fault(struct drive *d, const char *fmt, ...)
{
	va_list ap;

	if (d->fault[0])
		return;
	va_start(ap, fmt);
	vsnprintf(d->fault, sizeof d->fault, fmt, ap);
	va_end(ap);
}

static void drive_free(struct drive *d)
{
	free(d->worker);
	free(d->start);
	free(d->end);
	free(d->runs);
	free(d->stop);
	d->worker = NULL;
	d->start = d->end = d->stop = NULL;
	d->runs = NULL;
}

/* Worker p starts task t at `now`: it runs for its work over the node's
 * speed, plus the penalty when read remotely; its end goes on the queue. */
static void start(struct drive *d, struct locus_heap *q, uint64_t *seq, uint32_t p, uint32_t t,
		  double now)
{
	const struct locus_workload *wl = d->wl;
	uint32_t node = wl->worker_node[p];
	int local = locus_workload_is_local(wl, t, node);
	double compute = wl->tasks[t].work / wl->platform->nodes[node].speed;
	double dur = compute + (local ? 0 : d->penalty);
	d->local += local;
	d->remote += !local;
	d->worker[t] = (int32_t)p;
	d->start[t] = now;
	d->end[t] = now + dur;
	struct dev x = {.time = now + dur,
			.seq = (*seq)++,
			.kind = LOCUS_EV_DONE,
			.proc = p,
			.task = t,
			.duration = dur,
			.compute = compute,
			.remote = !local};
	locus_heap_push(q, &x);
}

/* Runs d->pol over d->wl. Returns create's result (0: the run happened;
 * check d->fault). */
static int drive_run(struct drive *d)
{
	const struct locus_workload *wl = d->wl;
	size_t nt = wl->n_tasks, nw = wl->n_workers;
	struct locus_kv kv;
	struct locus_actions act = {0};
	struct locus_heap q;
	void *state = NULL;
	int32_t *busy = NULL;
	unsigned char *stopped = NULL;
	uint64_t seq = 0;
	int rc;

	d->worker = calloc(nt + 1, sizeof *d->worker);
	d->start = calloc(nt + 1, sizeof *d->start);
	d->end = calloc(nt + 1, sizeof *d->end);
	d->runs = calloc(nt + 1, sizeof *d->runs);
	d->stop = calloc(nw, sizeof *d->stop);
	busy = calloc(nw, sizeof *busy);
	stopped = calloc(nw, 1);
	/* Assignments that reach a busy worker (prefetch) wait in its queue. */
	int32_t *qnext = calloc(nt + 1, sizeof *qnext), *qhead = calloc(nw, sizeof *qhead),
		*qtail = calloc(nw, sizeof *qtail);
	for (size_t w = 0; w < nw; w++)
		qhead[w] = qtail[w] = -1;
	d->fault[0] = 0;
	d->local = d->remote = 0;
	d->entries = d->events = 0;
	d->last = 0;
	memset(&d->stats, 0, sizeof d->stats);
	for (size_t t = 0; t < nt; t++)
		d->worker[t] = -1;
	for (size_t w = 0; w < nw; w++) {
		d->stop[w] = -1;
		busy[w] = -1;
	}
	if ((rc = locus_kv_parse(&kv, d->opts, &d->err))) {
		free(busy);
		free(stopped);
		return rc;
	}
	struct locus_policy_ctx ctx = {
	    .wl = wl,
	    .n_workers = nw,
	    .n_schedulers = d->pol->schedulers(nw, d->schedulers),
	    .seed = d->seed,
	    .opts = &kv,
	};
	size_t n_procs = nw + ctx.n_schedulers;
	if ((rc = d->pol->create(&state, &ctx, &d->err))) {
		locus_kv_fini(&kv);
		free(busy);
		free(stopped);
		return rc;
	}
	locus_heap_init(&q, sizeof(struct dev), dev_cmp);
	for (uint32_t p = 0; p < n_procs; p++) {
		struct dev e = {.time = 0, .seq = seq++, .kind = LOCUS_EV_START, .proc = p};
		locus_heap_push(&q, &e);
	}
	struct dev e;
	while (locus_heap_pop(&q, &e) == 0) {
		if (++d->events > MAX_EVENTS) {
			fault(d, "more than %d events", MAX_EVENTS);
			break;
		}
		double now = e.time;
		uint32_t p = e.proc;
		d->last = now;
		struct locus_event ev = {.kind = e.kind, .proc = p, .now = now};
		if (e.kind == LOCUS_EV_MESSAGE)
			ev.msg = &e.msg;
		else if (e.kind == LOCUS_EV_TIMER)
			ev.tag = e.tag;
		else if (e.kind == LOCUS_EV_DONE) {
			ev.done.task = e.task;
			ev.done.remote = e.remote;
			ev.done.duration = e.duration;
			ev.done.compute = e.compute;
		}
		/* A stopped worker still finishes what it runs and has queued. */
		if (p < nw && stopped[p] && e.kind != LOCUS_EV_START && e.kind != LOCUS_EV_DONE) {
			fault(d, "event %d at stopped worker %u", (int)e.kind, p);
			continue;
		}
		if (e.kind == LOCUS_EV_DONE)
			busy[p] = -1;
		locus__actions_reset(&act);
		d->pol->on_event(state, &ev, &act);
		if (act.oom)
			fault(d, "actions out of memory");
		d->entries += act.entries;
		if (e.kind == LOCUS_EV_MESSAGE && e.msg.type == LOCUS_MSG_ASSIGN) {
			int64_t t = e.msg.arg[0];
			if (p >= nw || t < 0 || (uint64_t)t >= nt) {
				fault(d, "bad assignment of %lld to %u", (long long)t, p);
			} else if (stopped[p]) {
				fault(d, "task %lld assigned to stopped worker %u", (long long)t,
				      p);
			} else if (d->runs[t]++) {
				fault(d, "task %lld assigned twice (to %u)", (long long)t, p);
			} else if (busy[p] >= 0) {
				qnext[t] = -1;
				if (qtail[p] < 0)
					qhead[p] = (int32_t)t;
				else
					qnext[qtail[p]] = (int32_t)t;
				qtail[p] = (int32_t)t;
			} else {
				start(d, &q, &seq, p, (uint32_t)t, now);
				busy[p] = (int32_t)t;
			}
		}
		/* A worker that finished takes its next queued assignment. */
		if (e.kind == LOCUS_EV_DONE && p < nw && busy[p] < 0 && qhead[p] >= 0) {
			int32_t t = qhead[p];
			qhead[p] = qnext[t];
			if (qhead[p] < 0)
				qtail[p] = -1;
			start(d, &q, &seq, p, (uint32_t)t, now);
			busy[p] = t;
		}
		for (size_t i = 0; i < act.n; i++) {
			const struct locus__action *a = &act.list[i];
			struct dev x = {.seq = seq++};
			switch (a->kind) {
			case LOCUS__ACT_SEND:
				if (a->msg.from != p || a->msg.to >= n_procs) {
					fault(d, "message from %u to %u handled by %u", a->msg.from,
					      a->msg.to, p);
					continue;
				}
				x.time = now + d->latency;
				x.kind = LOCUS_EV_MESSAGE;
				x.proc = a->msg.to;
				x.msg = a->msg;
				locus_heap_push(&q, &x);
				break;
			case LOCUS__ACT_CANCEL:
			case LOCUS__ACT_TRANSFER:
			case LOCUS__ACT_REWIND:
			case LOCUS__ACT_COPY:
			case LOCUS__ACT_DROP:
				fault(
				    d,
				    "a task policy cancelled, rewound, moved or dropped something");
				continue;
			case LOCUS__ACT_TIMER:
				x.time = now + a->delay;
				x.kind = LOCUS_EV_TIMER;
				x.proc = a->proc;
				x.tag = a->tag;
				locus_heap_push(&q, &x);
				break;
			case LOCUS__ACT_STOP:
				if (a->proc >= nw || stopped[a->proc]) {
					fault(d, "bad stop of %u at %u", a->proc, p);
					continue;
				}
				stopped[a->proc] = 1;
				d->stop[a->proc] = now;
				break;
			}
		}
	}
	for (size_t t = 0; t < nt; t++)
		if (d->runs[t] != 1)
			fault(d, "task %zu ran %u times", t, d->runs[t]);
	for (size_t w = 0; w < nw; w++) {
		/* A task policy stops its workers when work runs out; a static
		 * plan (a graph policy) hands out everything at once and never
		 * needs to. */
		if (!stopped[w] && !(locus_policy_flags(d->pol) & LOCUS_POLICY_GRAPHS))
			fault(d, "worker %zu never stopped (busy with %d)", w, (int)busy[w]);
		if (qhead[w] >= 0)
			fault(d, "worker %zu ended with task %d queued", w, (int)qhead[w]);
	}
	free(qnext);
	free(qhead);
	free(qtail);
	if (d->pol->stats)
		d->pol->stats(state, &d->stats);
	d->pol->destroy(state);
	locus_heap_fini(&q);
	locus__actions_fini(&act);
	locus_kv_fini(&kv);
	free(busy);
	free(stopped);
	return 0;
}

/* Whether task t ran on worker w from start to end. */
static int ran(const struct drive *d, uint32_t t, int w, double start, double end)
{
	if (d->worker[t] == w && fabs(d->start[t] - start) < 1e-12 && fabs(d->end[t] - end) < 1e-12)
		return 1;
	fprintf(stderr, "task %u: worker %d [%g, %g], expected %d [%g, %g]\n", t, (int)d->worker[t],
		d->start[t], d->end[t], w, start, end);
	return 0;
}

/* The value of counter `name`, or -1. */
static long long counter(const struct locus_policy_stats *s, const char *name)
{
	for (size_t i = 0; i < 8 && s->counter_names[i]; i++)
		if (strcmp(s->counter_names[i], name) == 0)
			return (long long)s->counters[i];
	return -1;
}

static struct drive drive_of(const char *policy, const struct fixture *f, const char *opts,
			     uint64_t seed)
{
	struct drive d = {.pol = locus_policy_find(policy),
			  .wl = f->wl,
			  .opts = opts,
			  .seed = seed,
			  .latency = 0,
			  .penalty = 0.5};
	return d;
}

/* ---- stepping one instance by hand ------------------------------------- */

struct inst {
	const struct locus_policy *pol;
	void *state;
	struct locus_actions act;
	struct locus_kv kv;
	uint32_t nw;
};

static int inst_open(struct inst *in, const char *policy, const struct locus_workload *wl,
		     uint64_t seed, const char *opts, struct locus_error *err)
{
	memset(in, 0, sizeof *in);
	in->pol = locus_policy_find(policy);
	in->nw = (uint32_t)wl->n_workers;
	int rc = locus_kv_parse(&in->kv, opts, err);
	if (rc)
		return rc;
	struct locus_policy_ctx ctx = {
	    .wl = wl, .n_workers = wl->n_workers, .n_schedulers = 1, .seed = seed, .opts = &in->kv};
	rc = in->pol->create(&in->state, &ctx, err);
	if (rc)
		locus_kv_fini(&in->kv);
	return rc;
}

static void inst_close(struct inst *in)
{
	in->pol->destroy(in->state);
	locus__actions_fini(&in->act);
	locus_kv_fini(&in->kv);
}

/*
 * Worker w asks the master for work at `now`, after finishing task `done`
 * in `duration` seconds (done < 0: it just started). Returns the task
 * assigned, -1 when told to stop, -2 when deferred; *entries gets what the
 * master examined.
 */
static long ask(struct inst *in, uint32_t w, long done, double duration, double now,
		uint64_t *entries)
{
	struct locus_event ev = {
	    .kind = done < 0 ? LOCUS_EV_START : LOCUS_EV_DONE,
	    .proc = w,
	    .now = now,
	    .done = {.task = (uint32_t)done, .duration = duration, .compute = duration}};
	locus__actions_reset(&in->act);
	in->pol->on_event(in->state, &ev, &in->act);
	if (in->act.n != 1 || in->act.list[0].kind != LOCUS__ACT_SEND)
		return -3;
	struct locus_msg m = in->act.list[0].msg;
	struct locus_event at = {.kind = LOCUS_EV_MESSAGE, .proc = in->nw, .now = now, .msg = &m};
	locus__actions_reset(&in->act);
	in->pol->on_event(in->state, &at, &in->act);
	if (entries)
		*entries = in->act.entries;
	for (size_t i = 0; i < in->act.n; i++) {
		const struct locus__action *a = &in->act.list[i];
		if (a->kind == LOCUS__ACT_TIMER)
			return -2;
		if (a->kind == LOCUS__ACT_SEND && a->msg.to == w)
			return a->msg.type == LOCUS_MSG_ASSIGN ? (long)a->msg.arg[0] : -1;
	}
	return -3;
}

/* ---- the registry ---------------------------------------------------------- */

TEST(registry)
{
	const struct locus_policy *const *all = locus_policies();
	const char *want[] = {"fifo", "monolithic", "dlmpi", "delay", "scal",
			      "heft", "cpop",	    "dls",   "peft"};
	size_t n = 0;

	for (; all[n]; n++) {
		CHECK(all[n]->name && all[n]->summary && all[n]->create && all[n]->destroy &&
		      all[n]->on_event && all[n]->schedulers);
		CHECK(locus_policy_find(all[n]->name) == all[n]);
		for (size_t m = 0; m < n; m++)
			CHECK(strcmp(all[m]->name, all[n]->name) != 0);
		/* One master, ScalScheduling's one per 512 workers, or
		 * AMFS's submitter with D dispatchers and D servers. */
		if (strcmp(all[n]->name, "amfs") == 0) {
			CHECK_EQ_INT(all[n]->schedulers(1, 0), 3);
			CHECK_EQ_INT(all[n]->schedulers(20000, 7), 7);
			continue;
		}
		CHECK_EQ_INT(all[n]->schedulers(1, 0), 1);
		if (strcmp(all[n]->name, "scal") == 0) {
			CHECK_EQ_INT(all[n]->schedulers(20000, 7), 7);
			CHECK_EQ_INT(all[n]->schedulers(512, 0), 1);
			CHECK_EQ_INT(all[n]->schedulers(513, 0), 2);
			CHECK_EQ_INT(all[n]->schedulers(2048, 0), 4);
		} else {
			CHECK_EQ_INT(all[n]->schedulers(20000, 7), 1);
		}
	}
	CHECK(n >= 9);
	for (size_t i = 0; i < 9; i++)
		CHECK(locus_policy_find(want[i]) != NULL);
	/* Version 2 policies say what they handle. */
	CHECK(locus_policy_flags(locus_policy_find("heft")) & LOCUS_POLICY_GRAPHS);
	CHECK(!(locus_policy_flags(locus_policy_find("fifo")) & LOCUS_POLICY_GRAPHS));
	CHECK(locus_policy_find("nope") == NULL);
	CHECK(locus_policy_find("") == NULL);
	CHECK(locus_policy_find(NULL) == NULL);
}

/* ---- the protocol ------------------------------------------------------------ */

TEST(worker_protocol)
{
	uint32_t holders[] = {1, 2};
	struct fixture f;
	struct inst in;
	struct locus_error err = {0};

	CHECK(fixture_make(&f, 2, NULL, NULL, 2, holders, NULL) == 0);
	CHECK(inst_open(&in, "fifo", f.wl, 1, NULL, &err) == 0);
	/* START: a request with no finished task. */
	struct locus_event ev = {.kind = LOCUS_EV_START, .proc = 1};
	in.pol->on_event(in.state, &ev, &in.act);
	CHECK_EQ_INT(in.act.n, 1);
	CHECK(in.act.list[0].kind == LOCUS__ACT_SEND);
	CHECK(in.act.list[0].msg.type >= LOCUS_MSG_USER);
	CHECK_EQ_INT(in.act.list[0].msg.from, 1);
	CHECK_EQ_INT(in.act.list[0].msg.to, 2);
	CHECK_EQ_INT(in.act.list[0].msg.arg[0], -1);
	/* DONE: the task, its duration and compute time. */
	locus__actions_reset(&in.act);
	ev = (struct locus_event){.kind = LOCUS_EV_DONE,
				  .proc = 0,
				  .now = 3,
				  .done = {.task = 1, .remote = 1, .duration = 2.5, .compute = 2}};
	in.pol->on_event(in.state, &ev, &in.act);
	CHECK_EQ_INT(in.act.n, 1);
	const struct locus_msg *m = &in.act.list[0].msg;
	CHECK_EQ_INT(m->arg[0], 1);
	CHECK_EQ_INT(m->arg[1], 1);
	CHECK_EQ_INT(m->arg[2], 2000000000);
	CHECK(m->value == 2.5);
	/* The master's reply to a worker: ASSIGN needs nothing, NO_MORE stops. */
	locus__actions_reset(&in.act);
	struct locus_msg a = {.type = LOCUS_MSG_ASSIGN, .from = 2, .to = 0};
	ev = (struct locus_event){.kind = LOCUS_EV_MESSAGE, .proc = 0, .msg = &a};
	in.pol->on_event(in.state, &ev, &in.act);
	CHECK_EQ_INT(in.act.n, 0);
	struct locus_msg nm = {.type = LOCUS__MW_NO_MORE, .from = 2, .to = 0};
	ev.msg = &nm;
	in.pol->on_event(in.state, &ev, &in.act);
	CHECK_EQ_INT(in.act.n, 1);
	CHECK(in.act.list[0].kind == LOCUS__ACT_STOP);
	CHECK_EQ_INT(in.act.list[0].proc, 0);
	inst_close(&in);
	fixture_free(&f);
}

/* ---- exact schedules --------------------------------------------------------- */

/*
 * Two nodes, one core each (worker 0 on n0, worker 1 on n1, the master is
 * process 2), work 1, latency 0, a remote read costs 0.5 more.
 *   layout A: t0 {n1}  t1 {n1}  t2 {n0}  t3 {n0, n1}
 *   layout B: t0 {n1}  t1 {n1}  t2 {n1}  t3 {n0}
 *   layout C: t0 {n0}  t1 {n1}  t2 {n0, n1}  t3 {} (on no node)
 * At time 0 worker 0's request reaches the master first; at equal times
 * the event queued first goes first.
 */
static const uint32_t layout_a[] = {2, 2, 1, 3};
static const uint32_t layout_b[] = {2, 2, 2, 1};
static const uint32_t layout_c[] = {1, 2, 3, 0};

TEST(fifo_exact)
{
	struct fixture f;
	CHECK(fixture_make(&f, 2, NULL, NULL, 4, layout_a, NULL) == 0);
	struct drive d = drive_of("fifo", &f, NULL, 1);
	CHECK(drive_run(&d) == 0);
	CHECK_EQ_STR(d.fault, "");
	/* Id order, locality ignored: w0 t0 (remote) while w1 runs t1; w1 is
	 * free first and gets t2 (remote), w0 then t3. */
	CHECK(ran(&d, 0, 0, 0, 1.5));
	CHECK(ran(&d, 1, 1, 0, 1));
	CHECK(ran(&d, 2, 1, 1, 2.5));
	CHECK(ran(&d, 3, 0, 1.5, 2.5));
	CHECK_EQ_INT(d.local, 2);
	CHECK_EQ_INT(d.stats.local_assignments, 2);
	CHECK_EQ_INT(d.stats.remote_assignments, 2);
	CHECK_EQ_INT(d.entries, 4);
	CHECK_EQ_INT(d.stats.entries_examined, 4);
	CHECK_EQ_INT(counter(&d.stats, "requests"), 6);
	CHECK(d.stop[0] == 2.5 && d.stop[1] == 2.5);
	drive_free(&d);
	fixture_free(&f);
}

TEST(monolithic_exact)
{
	struct fixture f;
	CHECK(fixture_make(&f, 2, NULL, NULL, 4, layout_a, NULL) == 0);
	struct drive d = drive_of("monolithic", &f, NULL, 1);
	CHECK(drive_run(&d) == 0);
	CHECK_EQ_STR(d.fault, "");
	/* w0 scans t0 t1 t2 and takes t2 (3 entries); w1 takes t0 (1). At 1,
	 * w0 scans t1 t3, takes t3 (2); w1 takes t1 (1). All local. */
	CHECK(ran(&d, 2, 0, 0, 1));
	CHECK(ran(&d, 0, 1, 0, 1));
	CHECK(ran(&d, 3, 0, 1, 2));
	CHECK(ran(&d, 1, 1, 1, 2));
	CHECK_EQ_INT(d.local, 4);
	CHECK_EQ_INT(d.entries, 7);
	CHECK_EQ_INT(d.stats.entries_examined, 7);
	CHECK_EQ_INT(counter(&d.stats, "max_scan"), 3);
	drive_free(&d);

	/* Layout B: w0's node is drained at 1; with nothing local it takes
	 * the first unassigned task, t1, remote, after scanning t1 t2. */
	fixture_free(&f);
	CHECK(fixture_make(&f, 2, NULL, NULL, 4, layout_b, NULL) == 0);
	d = drive_of("monolithic", &f, NULL, 1);
	CHECK(drive_run(&d) == 0);
	CHECK_EQ_STR(d.fault, "");
	CHECK(ran(&d, 3, 0, 0, 1));
	CHECK(ran(&d, 0, 1, 0, 1));
	CHECK(ran(&d, 1, 0, 1, 2.5));
	CHECK(ran(&d, 2, 1, 1, 2));
	CHECK_EQ_INT(d.entries, 4 + 1 + 2 + 1);
	CHECK_EQ_INT(d.stats.remote_assignments, 1);
	drive_free(&d);
	fixture_free(&f);
}

TEST(delay_exact)
{
	struct fixture f;
	CHECK(fixture_make(&f, 2, NULL, NULL, 4, layout_b, NULL) == 0);
	/* w0 runs t3 (its only local chunk), w1 t0. At 1 w0 finds nothing
	 * local and waits 0.25; w1 takes t1. At exactly 1.25 w0 takes t2,
	 * remote. */
	struct drive d = drive_of("delay", &f, "delay=0.25", 1);
	CHECK(drive_run(&d) == 0);
	CHECK_EQ_STR(d.fault, "");
	CHECK(ran(&d, 3, 0, 0, 1));
	CHECK(ran(&d, 0, 1, 0, 1));
	CHECK(ran(&d, 1, 1, 1, 2));
	CHECK(ran(&d, 2, 0, 1.25, 2.75));
	CHECK_EQ_INT(d.stats.local_assignments, 3);
	CHECK_EQ_INT(d.stats.remote_assignments, 1);
	CHECK_EQ_INT(counter(&d.stats, "waits"), 1);
	CHECK_EQ_INT(counter(&d.stats, "timeouts"), 1);
	CHECK_EQ_INT(counter(&d.stats, "released"), 0);
	/* 1 per local pick, 1 for the deferral, 1 holder read for t2. */
	CHECK_EQ_INT(d.entries, 5);
	CHECK(d.stop[1] == 2 && d.stop[0] == 2.75);
	drive_free(&d);

	/* A long delay: w1 takes t2 at 2, the last task, and w0, waiting
	 * since 1, is told to stop then, not at its timer (11). */
	d = drive_of("delay", &f, "delay=10", 1);
	CHECK(drive_run(&d) == 0);
	CHECK_EQ_STR(d.fault, "");
	CHECK(ran(&d, 1, 1, 1, 2));
	CHECK(ran(&d, 2, 1, 2, 3));
	CHECK_EQ_INT(d.stats.local_assignments, 4);
	CHECK(d.stop[0] == 2 && d.stop[1] == 3);
	CHECK_EQ_INT(counter(&d.stats, "released"), 1);
	CHECK_EQ_INT(counter(&d.stats, "timeouts"), 0);
	CHECK(d.last == 11); /* the stale timer fired and was ignored */
	drive_free(&d);

	/* delay=0: w0 goes remote at once, to t1 (t1 and t2 tie: both held
	 * only by n1, with 2 chunks left). */
	d = drive_of("delay", &f, "delay=0", 1);
	CHECK(drive_run(&d) == 0);
	CHECK_EQ_STR(d.fault, "");
	CHECK(ran(&d, 1, 0, 1, 2.5));
	CHECK(ran(&d, 2, 1, 1, 2));
	CHECK_EQ_INT(counter(&d.stats, "waits"), 0);
	drive_free(&d);
	fixture_free(&f);
}

TEST(delay_remote_choice)
{
	/* Three nodes; n0 holds nothing. Tasks: t0 {n1,n2}, t1 {n1},
	 * t2 {n2}, t3 {n2}, t4 {n2}. Backlogs: n1 2, n2 4. Scores (smallest
	 * holder backlog): t0 2, t1 2, t2..t4 4: worker 0's remote pick is
	 * t2, the first of the tasks of the busiest node. */
	uint32_t holders[] = {6, 2, 4, 4, 4};
	struct fixture f;
	struct inst in;
	struct locus_error err = {0};
	uint64_t e;

	CHECK(fixture_make(&f, 3, NULL, NULL, 5, holders, NULL) == 0);
	CHECK(inst_open(&in, "delay", f.wl, 1, "delay=0", &err) == 0);
	CHECK_EQ_INT(ask(&in, 0, -1, 0, 0, &e), 2);
	CHECK_EQ_INT(e, 2 + 1 + 1 + 1 + 1);
	/* A chunk on no participating node scores infinity: none here. Next
	 * pick: n1 2, n2 3: t3 (score 3) beats t0 and t1 (2). */
	CHECK_EQ_INT(ask(&in, 0, 2, 1, 1, &e), 3);
	inst_close(&in);
	fixture_free(&f);
}

TEST(dlmpi_exact)
{
	struct fixture f;
	CHECK(fixture_make(&f, 2, NULL, NULL, 4, layout_c, NULL) == 0);
	CHECK_EQ_INT(f.wl->n_unplaced, 1);
	/* t0 is only on n0 and t1 only on n1: T = infinity, taken first.
	 * At 1 w0's only candidate is t2; w1's node is drained: the remote
	 * branch over D = {t3}, a chunk no node holds (T = infinity). */
	struct drive d = drive_of("dlmpi", &f, NULL, 7);
	CHECK(drive_run(&d) == 0);
	CHECK_EQ_STR(d.fault, "");
	CHECK(ran(&d, 0, 0, 0, 1));
	CHECK(ran(&d, 1, 1, 0, 1));
	CHECK(ran(&d, 2, 0, 1, 2));
	CHECK(ran(&d, 3, 1, 1, 2.5));
	CHECK_EQ_INT(d.stats.local_assignments, 3);
	CHECK_EQ_INT(d.stats.remote_assignments, 1);
	/* Holders read: t0 + t2 (1 + 2), t1 + t2 (1 + 2), t2 (2), t3 (1). */
	CHECK_EQ_INT(d.entries, 9);
	CHECK_EQ_INT(counter(&d.stats, "local_branch"), 3);
	CHECK_EQ_INT(counter(&d.stats, "remote_branch"), 1);
	CHECK_EQ_INT(counter(&d.stats, "infinite_picks"), 3);
	drive_free(&d);
	fixture_free(&f);
}

/* ---- DL-MPI's probabilities -------------------------------------------------- */

/* Draws `n` times, each with a fresh instance seeded 1..n, after `setup`
 * has brought it to the state under test; counts the tasks worker `w` gets. */
static int draw_many(const struct fixture *f, void (*setup)(struct inst *), uint32_t w, long n,
		     long *count, size_t n_count)
{
	struct locus_error err = {0};

	for (long s = 1; s <= n; s++) {
		struct inst in;
		if (inst_open(&in, "dlmpi", f->wl, (uint64_t)s, NULL, &err))
			return -1;
		if (setup)
			setup(&in);
		long t = ask(&in, w, -1, 0, 10, NULL);
		inst_close(&in);
		if (t < 0 || (size_t)t >= n_count)
			return -1;
		count[t]++;
	}
	return 0;
}

/*
 * Local branch with learned speeds. Four nodes, one core each. Node 0's
 * candidates: t0 {n0,n1}, t1 {n0,n2}, t2 {n0,n1,n3}. Node 1 also holds 4
 * chunks of its own (t3..t6), node 2 four (t7..t10), node 3 three
 * (t11..t13). Setup: workers 1, 2, 3 each ask (and get a chunk of their
 * own: T = infinity goes first), then report it done in 1, 2 and 4
 * seconds and get another. Then |D_1| = 4, |D_2| = 3, |D_3| = 2 and the
 * rates are 1, 1/2, 1/4, so s_k is proportional to 1/d_k and
 *   T_t0 = |D_1| d_1 = 4, T_t1 = |D_2| d_2 = 6,
 *   T_t2 = min(|D_1| d_1, |D_3| d_3) = min(4, 8) = 4   (times one factor)
 * and Eq. 4 gives P = 4/14, 6/14, 4/14.
 */
static const uint32_t layout_p[] = {3, 5, 11, 2, 2, 2, 2, 4, 4, 4, 4, 8, 8, 8};

static void setup_speeds(struct inst *in)
{
	static const double d[] = {0, 1, 2, 4};
	for (uint32_t w = 1; w <= 3; w++) {
		long t = ask(in, w, -1, 0, 0, NULL);
		ask(in, w, t, d[w], d[w], NULL);
	}
}

TEST(dlmpi_probabilities_local)
{
	struct fixture f;
	long count[14] = {0};
	const long n = 20000;

	CHECK(fixture_make(&f, 4, NULL, NULL, 14, layout_p, NULL) == 0);
	CHECK(draw_many(&f, setup_speeds, 0, n, count, 14) == 0);
	CHECK_EQ_INT(count[0] + count[1] + count[2], n);
	/* 5 standard deviations is under 0.018 here; 0.02 for a fixed seed
	 * set cannot flake, and a wrong T (ignoring speeds: 4/9, 3/9, 2/9) is
	 * far outside it. */
	CHECK_NEAR((double)count[0] / n, 4.0 / 14, 0.02);
	CHECK_NEAR((double)count[1] / n, 6.0 / 14, 0.02);
	CHECK_NEAR((double)count[2] / n, 4.0 / 14, 0.02);
	fixture_free(&f);
}

/*
 * Remote branch (NOTES.md: the sum runs over D). Three nodes; node 0 holds
 * nothing. t0 {n1}, t1 {n2}, t2 {n1,n2}, t3 {n1}: |D_1| = 3, |D_2| = 2,
 * every s_k = 1, so T = 3, 2, 2, 3 and P = 0.3, 0.2, 0.2, 0.3.
 */
TEST(dlmpi_probabilities_remote)
{
	uint32_t holders[] = {2, 4, 6, 2};
	struct fixture f;
	long count[4] = {0};
	const long n = 20000;
	static const double want[] = {0.3, 0.2, 0.2, 0.3};

	CHECK(fixture_make(&f, 3, NULL, NULL, 4, holders, NULL) == 0);
	CHECK(draw_many(&f, NULL, 0, n, count, 4) == 0);
	for (int t = 0; t < 4; t++)
		CHECK_NEAR((double)count[t] / n, want[t], 0.02);
	fixture_free(&f);
}

/* Chunks only the requester holds go first, uniformly among them. */
TEST(dlmpi_infinite_first)
{
	/* n0 holds t0 {n0,n1}, t1 {n0}, t2 {n0}, t3 {n0,n1}. */
	uint32_t holders[] = {3, 1, 1, 3};
	struct fixture f;
	long count[4] = {0};
	const long n = 4000;

	CHECK(fixture_make(&f, 2, NULL, NULL, 4, holders, NULL) == 0);
	CHECK(draw_many(&f, NULL, 0, n, count, 4) == 0);
	CHECK_EQ_INT(count[0] + count[3], 0);
	CHECK_NEAR((double)count[1] / n, 0.5, 0.04);
	fixture_free(&f);
}

/* ---- the monolithic master's cost ------------------------------------------- */

TEST(monolithic_cost_linear)
{
	/* n tasks: t0 .. t(n-2) on n1, t(n-1) on n0. Worker 0's first scan
	 * reads all n entries to find its local task at the end. */
	static const size_t sizes[] = {10, 100, 1000, 5000};
	for (size_t s = 0; s < LEN(sizes); s++) {
		size_t n = sizes[s];
		uint32_t *holders = malloc(n * sizeof *holders);
		struct fixture f;
		struct inst in;
		struct locus_error err = {0};
		uint64_t e;

		CHECK(holders);
		for (size_t t = 0; t < n; t++)
			holders[t] = t + 1 < n ? 2 : 1;
		int rc = fixture_make(&f, 2, NULL, NULL, n, holders, NULL);
		free(holders);
		CHECK(rc == 0);
		CHECK(inst_open(&in, "monolithic", f.wl, 1, NULL, &err) == 0);
		CHECK_EQ_INT(ask(&in, 0, -1, 0, 0, &e), (long)n - 1);
		CHECK_EQ_INT(e, n);
		/* Worker 1 takes t0, t1, t2 at the head: 1 entry each; the
		 * list stays compact, so worker 0 (drained) then reads exactly
		 * the n - 4 tasks left before taking the first, remote. */
		for (long k = 0; k < 3; k++) {
			CHECK_EQ_INT(ask(&in, 1, k ? k - 1 : -1, 1, 1, &e), k);
			CHECK_EQ_INT(e, 1);
		}
		CHECK_EQ_INT(ask(&in, 0, (long)n - 1, 1, 1, &e), n > 4 ? 3 : -1);
		CHECK_EQ_INT(e, n - 4);
		inst_close(&in);
		fixture_free(&f);
	}
}

/* The master decides as a literal scan of the unassigned tasks in id order
 * would, and is charged the entries that scan reads, whatever the order in
 * which workers ask (it computes both from its indexes). */
TEST(monolithic_is_the_scan)
{
	struct locus_rng r;
	locus_rng_init(&r, 777);
	for (int c = 0; c < 200; c++) {
		struct fixture f;
		struct inst in;
		struct locus_error err = {0};
		size_t n_nodes = 1 + locus_rng_below(&r, 6), n_tasks = 1 + locus_rng_below(&r, 60);
		uint32_t holders[60];
		unsigned char taken[60] = {0};
		long last[32];

		for (size_t t = 0; t < n_tasks; t++)
			holders[t] = (uint32_t)locus_rng_below(&r, 1u << n_nodes);
		CHECK(fixture_make(&f, n_nodes, NULL, NULL, n_tasks, holders, NULL) == 0);
		CHECK(inst_open(&in, "monolithic", f.wl, 1, NULL, &err) == 0);
		for (size_t w = 0; w < f.wl->n_workers; w++)
			last[w] = -1;
		for (size_t k = 0; k < n_tasks; k++) {
			uint32_t w = (uint32_t)locus_rng_below(&r, f.wl->n_workers);
			uint32_t node = f.wl->worker_node[w];
			long want = -1, first = -1;
			uint64_t seen = 0, e;
			for (size_t t = 0; t < n_tasks && want < 0; t++) {
				if (taken[t])
					continue;
				seen++;
				if (first < 0)
					first = (long)t;
				if (holders[t] >> node & 1)
					want = (long)t;
			}
			if (want < 0)
				want = first;
			long got = ask(&in, w, last[w], 1, (double)k, &e);
			CHECK_EQ_INT(got, want);
			CHECK_EQ_INT(e, seen);
			taken[got] = 1;
			last[w] = got;
		}
		inst_close(&in);
		fixture_free(&f);
	}
}

/* ---- ScalScheduling ----------------------------------------------------------- */

TEST(scal_priority)
{
	/* Eq. 1 by hand: n = 4 workers, f = 12 tasks (b = 3), m = 2. Task z = 5
	 * has x = 2, y = 1; on worker 2: 3 * ((1 + 4 - 2) % 4) + (2 + 3 - 0) % 3
	 * = 9 + 2; on worker 1: 3 * 0 + (2 + 3 - 1) % 3 = 1. */
	CHECK_EQ_INT(locus__scal_priority(4, 12, 2, 5, 2), 11);
	CHECK_EQ_INT(locus__scal_priority(4, 12, 2, 5, 1), 1);
	/* Worker i's first task is the one with y = i - 1 (mod n). */
	CHECK_EQ_INT(locus__scal_priority(4, 12, 2, 2, 3), 3 * 3 + (1 + 3 - 1) % 3);
	/* x + b - i % m below 0 (m > b + 1) wraps to a non-negative rank:
	 * n = 10, f = 10 (b = 1): every second key is 0. */
	CHECK_EQ_INT(locus__scal_priority(10, 10, 8, 1, 7), 1 * ((1 + 10 - 7) % 10));
	/* For every worker the priorities of all tasks are distinct: an order. */
	static const uint64_t shapes[][3] = {{4, 12, 2}, {7, 50, 3}, {16, 160, 1}, {5, 23, 9}};
	for (size_t s = 0; s < LEN(shapes); s++) {
		uint64_t n = shapes[s][0], f = shapes[s][1], m = shapes[s][2];
		for (uint64_t i = 1; i <= n; i++) {
			uint64_t seen[256] = {0};
			for (uint64_t z = 1; z <= f; z++) {
				uint64_t pr = locus__scal_priority(n, f, m, z, i);
				CHECK(pr < 256);
				CHECK_EQ_INT(seen[pr]++, 0);
			}
		}
	}
}

TEST(scal_local_order)
{
	/* Each worker runs its local tasks in Eq. 1's order, highest first.
	 * 3 nodes of 2 workers (n = 6), 2 schedulers, 60 tasks (b = 10),
	 * task t on node t mod 3 alone, one candidate a request: a worker's
	 * local tasks are those of its node, which the node keeps once for
	 * both workers (every worker starts it at its own place: y - i and
	 * x - (i mod m) turn round), and a candidate its neighbour ran first
	 * is passed over. */
	struct locus_platform *p;
	struct locus_catalog *cat;
	struct locus_workload *wl;
	struct locus_result *r;
	struct locus_error err = {0};
	CHECK(locus_platform_generate(&p, 3, 1, 2, "n") == 0);
	CHECK(locus_catalog_create(&cat) == 0);
	for (size_t i = 0; i < p->n_nodes; i++)
		locus_catalog_add_host(cat, p->nodes[i].name, NULL);
	locus_catalog_add_dataset(cat, "d");
	for (uint32_t t = 0; t < 60; t++) {
		uint32_t h = t % 3;
		CHECK(locus_catalog_add_chunk(cat, 0, 1000, &h, 1, 0) >= 0);
	}
	struct locus_work_spec work = {.dist = LOCUS_WORK_FIXED, .mean = 1.0};
	CHECK(locus_workload_build(&wl, p, cat, NULL, &work, 1, &err) == 0);
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = locus_policy_find("scal"),
				       .policy_opts = "tau=1",
				       .schedulers = 2,
				       .seed = 1,
				       .latency = 0};
	CHECK(locus_sim_run(&r, &cfg, &err) == 0);
	CHECK_EQ_INT(r->n_tasks, 60);
	size_t local = 0;
	for (uint32_t w = 0; w < 6; w++) {
		/* Its local tasks: of any two, the one assigned first has the
		 * higher priority. */
		uint32_t mine[60], k = 0;
		for (uint32_t t = 0; t < 60; t++)
			if (r->tasks[t].worker == w && r->tasks[t].local)
				mine[k++] = t;
		CHECK(k >= 2);
		for (uint32_t a = 0; a < k; a++)
			for (uint32_t c = 0; c < k; c++)
				if (r->tasks[mine[a]].assigned < r->tasks[mine[c]].assigned)
					CHECK(locus__scal_priority(6, 60, 2, mine[a] + 1, w + 1) >
					      locus__scal_priority(6, 60, 2, mine[c] + 1, w + 1));
		local += k;
	}
	CHECK_EQ_INT(local, 60);
	locus_result_destroy(r);
	locus_workload_destroy(wl);
	locus_catalog_destroy(cat);
	locus_platform_destroy(p);
}

TEST(scal_exact)
{
	/* Workers w0 (node 0) and w1 (node 1), one scheduler, tasks t0 on n0,
	 * t1 on both, t2 on n1, t3 on n0; work 1, remote reads 0.5 more, no
	 * latency. Eq. 1 (n = 2, f = 4, b = 2, m = 1) orders w0's tasks t1, t3,
	 * t0 (priorities 3, 2, 1) and w1's t2, t1 (2, 1). At 0: w0 sends (t1,
	 * t3): t1 approved, t3 kept (alpha); w1 sends (t2, t1): t2 approved,
	 * t1 done (beta). At 1: w0 sends (t0, NULL): its kept-list gives t3
	 * (ID) and keeps t0; w1, with nothing left to send, asks remotely and
	 * gets t0 from the longest kept-list (w0's), remote: 1.5 s. At 2 w0's
	 * NULL request finds nothing kept (chi, n_k = 0): it stops; w1 stops
	 * at 2.5. */
	uint32_t holders[] = {1, 3, 2, 1};
	struct fixture f;
	CHECK(fixture_make(&f, 2, NULL, NULL, 4, holders, NULL) == 0);
	struct drive d = drive_of("scal", &f, NULL, 1);
	CHECK(drive_run(&d) == 0);
	CHECK_EQ_STR(d.fault, "");
	CHECK(ran(&d, 1, 0, 0, 1) && ran(&d, 2, 1, 0, 1));
	CHECK(ran(&d, 3, 0, 1, 2) && ran(&d, 0, 1, 1, 2.5));
	CHECK(d.stop[0] == 2 && d.stop[1] == 2.5);
	CHECK_EQ_INT(counter(&d.stats, "local_requests"), 4);
	CHECK_EQ_INT(counter(&d.stats, "local_approved"), 3);
	CHECK_EQ_INT(counter(&d.stats, "kept_answers"), 1);
	CHECK_EQ_INT(counter(&d.stats, "null_requests"), 1);
	CHECK_EQ_INT(counter(&d.stats, "remote_requests"), 1);
	CHECK_EQ_INT(counter(&d.stats, "remote_kept"), 1);
	CHECK_EQ_INT(d.stats.local_assignments, 3);
	CHECK_EQ_INT(d.stats.remote_assignments, 1);
	drive_free(&d);
	fixture_free(&f);
}

/* A random workload for ScalScheduling's guarantee: up to 12 nodes of up
 * to 4 workers, speeds spread up to 1:10, 0-200 tasks with 1-3 replicas
 * placed by HDFS's rule, at random or skewed, work 0-2 s. */
static int scal_fixture(struct fixture *f, struct locus_rng *r)
{
	size_t n_nodes = 1 + locus_rng_below(r, 12), n_tasks = locus_rng_below(r, 201);
	struct locus_error err = {0};
	struct locus_work_spec spec = {.dist = LOCUS_WORK_UNIFORM, .lo = 0, .hi = 2};
	unsigned reps = 1 + (unsigned)locus_rng_below(r, 3);
	int rc;

	memset(f, 0, sizeof *f);
	if (reps > n_nodes)
		reps = (unsigned)n_nodes;
	size_t racks = 1 + locus_rng_below(r, 3);
	if ((rc = locus_platform_generate(&f->p, n_nodes, racks < n_nodes ? racks : n_nodes,
					  1 + (int)locus_rng_below(r, 4), "n")))
		return rc;
	double spread = 1 + 9 * locus_rng_uniform(r);
	locus_platform_random_speeds(f->p, 1, spread, locus_rng_next(r));
	struct locus_place_options po = {.policy = (enum locus_place_policy)locus_rng_below(r, 3),
					 .replicas = reps,
					 .seed = locus_rng_next(r)};
	/* Skewed: a spread the counts can have (at most what every node at 0
	 * or at every chunk would give, and at most half the mean). */
	double mean = (double)n_tasks * reps / (double)n_nodes;
	double widest = sqrt(mean * ((double)n_tasks - mean));
	po.skew_std = 0.9 * fmin(widest, 0.5 * mean) * locus_rng_uniform(r);
	if ((rc = locus_place_catalog(&f->cat, f->p, "d", n_tasks, 1 << 20, &po, &err)) ||
	    (rc = locus_workload_build(&f->wl, f->p, f->cat, NULL, &spec, locus_rng_next(r),
				       &err))) {
		fprintf(stderr, "scal fixture: %s\n", err.message);
		fixture_free(f);
		return rc;
	}
	return 0;
}

/* The fallback of a remote request (Algorithm 3's last resort): a chunk no
 * participating node holds first, lowest id first among them, then the
 * chunk whose holders have the most unassigned tasks per worker. Node n2
 * runs no worker; w0 (n0) holds nothing, so every request of w0 is remote
 * and, with nothing kept, goes to the fallback. */
TEST(scal_fallback_order)
{
	/* t0 {n1}, t1 {n2}, t2 {n1}, t3 {n2}, t4 {n1,n2}, t5 {n2}. */
	uint32_t holders[] = {2, 4, 2, 4, 6, 4};
	int cores[] = {1, 1, 0};
	struct fixture f;
	CHECK(fixture_make(&f, 3, cores, NULL, 6, holders, NULL) == 0);
	struct drive d = drive_of("scal", &f, NULL, 1);
	CHECK(drive_run(&d) == 0);
	CHECK_EQ_STR(d.fault, "");
	/* w1 sends (t2, t4): t2 approved, t4 kept. At 0 w0's remote request
	 * finds nothing kept yet: the fallback gives t1 (only n2 holds t1, t3,
	 * t5: T infinite; lowest id), remote, 1.5 s. At 1 w1 takes t0. At 1.5
	 * w0 gets t4 from the longest kept-list (w1's). At 2 w1, with nothing
	 * of its own left, asks remotely: the fallback gives t3 (infinite,
	 * lowest id of t3, t5); at 3 w0 gets t5 the same way. */
	CHECK(ran(&d, 2, 1, 0, 1) && ran(&d, 1, 0, 0, 1.5));
	CHECK(ran(&d, 0, 1, 1, 2) && ran(&d, 4, 0, 1.5, 3));
	CHECK(ran(&d, 3, 1, 2, 3.5) && ran(&d, 5, 0, 3, 4.5));
	CHECK_EQ_INT(counter(&d.stats, "remote_kept"), 1);
	CHECK_EQ_INT(counter(&d.stats, "remote_owned"), 3);
	drive_free(&d);
	fixture_free(&f);
}

TEST(scal_every_task_once)
{
	/* ScalScheduling's guarantee over 1,000 random workloads: every task
	 * runs exactly once and every worker is stopped, whatever the
	 * interleaving (random latencies), tau, the number of schedulers and
	 * the ownership. drive_run reports any task run twice or never. */
	static const char *const opts[] = {
	    "tau=1", "tau=2", "tau=3", "tau=4", "tau=2,own=cyclic", "tau=1,own=cyclic"};
	struct locus_rng r;
	locus_rng_init(&r, 4242);
	uint64_t approved = 0, requests = 0;
	for (int c = 0; c < 1000; c++) {
		struct fixture f;
		CHECK(scal_fixture(&f, &r) == 0);
		struct drive d = {.pol = locus_policy_find("scal"),
				  .wl = f.wl,
				  .opts = opts[c % LEN(opts)],
				  .seed = (uint64_t)c,
				  .schedulers = 1 + locus_rng_below(&r, 8),
				  .latency = 0.001 * (double)locus_rng_below(&r, 50),
				  .penalty = 0.25};
		CHECK(drive_run(&d) == 0);
		if (d.fault[0])
			fprintf(stderr, "case %d (%zu tasks, %zu workers, %s): %s\n", c,
				f.wl->n_tasks, f.wl->n_workers, d.opts, d.fault);
		CHECK_EQ_STR(d.fault, "");
		CHECK_EQ_INT(d.local + d.remote, f.wl->n_tasks);
		CHECK_EQ_INT(d.stats.local_assignments, d.local);
		CHECK_EQ_INT(d.stats.remote_assignments, d.remote);
		approved += (uint64_t)counter(&d.stats, "local_approved");
		requests += (uint64_t)counter(&d.stats, "local_requests");
		drive_free(&d);
		fixture_free(&f);
	}
	CHECK(approved > 0 && approved <= requests);
}

TEST(fifo_prefetch_exact)
{
	struct fixture f;
	CHECK(fixture_make(&f, 2, NULL, NULL, 4, layout_a, NULL) == 0);
	struct drive d = drive_of("fifo", &f, "prefetch=2", 1);
	CHECK(drive_run(&d) == 0);
	CHECK_EQ_STR(d.fault, "");
	/* Each worker asks twice at its start; the master answers in arrival
	 * order w0, w0, w1, w1 with the ids in order: w0 gets t0 and t1 (both
	 * remote, 1.5 each), w1 t2 (remote) and t3 (local, 1), each second
	 * one run right after the first, with no request between. */
	CHECK(ran(&d, 0, 0, 0, 1.5));
	CHECK(ran(&d, 1, 0, 1.5, 3));
	CHECK(ran(&d, 2, 1, 0, 1.5));
	CHECK(ran(&d, 3, 1, 1.5, 2.5));
	/* 4 requests at the start, then one per worker at 1.5, answered "no
	 * more": each worker stops then, still running its second task, and
	 * asks nothing when that ends. */
	CHECK_EQ_INT(counter(&d.stats, "requests"), 6);
	CHECK(d.stop[0] == 1.5 && d.stop[1] == 1.5);
	drive_free(&d);
	fixture_free(&f);
}

/* ---- conformance and determinism ------------------------------------------- */

/* A random workload: 1-6 nodes of 1-3 cores and speeds 0.5-2, 0-60 tasks
 * with 0-3 replicas (rarely none) and work 0-2 (sometimes exactly 0). */
static int random_fixture(struct fixture *f, struct locus_rng *r)
{
	size_t n_nodes = 1 + locus_rng_below(r, 6), n_tasks = locus_rng_below(r, 61);
	int cores[6];
	double speed[6], work[60];
	uint32_t holders[60];

	for (size_t n = 0; n < n_nodes; n++) {
		cores[n] = 1 + (int)locus_rng_below(r, 3);
		speed[n] = 0.5 + 1.5 * locus_rng_uniform(r);
	}
	for (size_t t = 0; t < n_tasks; t++) {
		size_t nr = locus_rng_below(r, 10) == 0 ? 0 : 1 + locus_rng_below(r, 3);
		holders[t] = 0;
		for (size_t k = 0; k < nr; k++)
			holders[t] |= 1u << locus_rng_below(r, n_nodes);
		work[t] = locus_rng_below(r, 8) == 0 ? 0 : 2 * locus_rng_uniform(r);
	}
	return fixture_make(f, n_nodes, cores, speed, n_tasks, holders, work);
}

static const char *const delay_opts[] = {NULL, "delay=0", "delay=0.05", "delay=5"};
static const char *const prefetch_opts[] = {NULL, "prefetch=2", "prefetch=7"};

TEST(conformance)
{
	struct locus_rng r;
	static const double latencies[] = {0, 0.01, 0.3};

	locus_rng_init(&r, 20240601);
	for (int c = 0; c < 300; c++) {
		struct fixture f;
		CHECK(random_fixture(&f, &r) == 0);
		for (const struct locus_policy *const *p = locus_policies(); *p; p++) {
			if (locus_policy_flags(*p) & LOCUS_POLICY_GRAPHS)
				continue; /* a static plan: test_sim_graph, test_dag_plan */
			/* delay's deferrals; the others' prefetch (scal has none). */
			int is_delay = strcmp((*p)->name, "delay") == 0,
			    is_mw = (*p)->schedulers(100, 3) == 1 && !is_delay;
			int n_opts = is_delay ? 4 : is_mw ? 3 : 1;
			for (int o = 0; o < n_opts; o++) {
				struct drive d = {.pol = *p,
						  .wl = f.wl,
						  .opts =
						      is_delay ? delay_opts[o] : prefetch_opts[o],
						  .seed = (uint64_t)c,
						  .latency = latencies[c % 3],
						  .penalty = c % 2 ? 0.5 : 0};
				CHECK(drive_run(&d) == 0);
				if (d.fault[0])
					fprintf(stderr, "%s case %d: %s\n", (*p)->name, c, d.fault);
				CHECK_EQ_STR(d.fault, "");
				CHECK_EQ_INT(d.stats.local_assignments, d.local);
				CHECK_EQ_INT(d.stats.remote_assignments, d.remote);
				CHECK_EQ_INT(d.stats.entries_examined, d.entries);
				/* A master/worker policy answers each worker once per
				 * task and once more to stop it; with prefetch=K a
				 * worker has 1 to K requests answered "no more". */
				long k = is_mw && o ? (o == 1 ? 2 : 7) : 1;
				long req = (long)counter(&d.stats, "requests"),
				     base = (long)(f.wl->n_tasks + f.wl->n_workers);
				if ((*p)->schedulers(100, 3) == 1) {
					CHECK(req >= base);
					CHECK(req <= base + (long)f.wl->n_workers * (k - 1));
					if (k == 1)
						CHECK_EQ_INT(req, base);
				}
				drive_free(&d);
			}
		}
		fixture_free(&f);
	}
}

/* Larger runs: 24 nodes of 4 cores, 3 replicas, 960 tasks. */
TEST(conformance_large)
{
	struct locus_rng r;
	uint32_t holders[960];
	double work[960];
	struct fixture f;

	locus_rng_init(&r, 99);
	for (size_t t = 0; t < 960; t++) {
		uint32_t a = (uint32_t)locus_rng_below(&r, 24);
		holders[t] = 1u << a | 1u << (a + 1) % 24 | 1u << (a + 7) % 24;
		work[t] = 0.5 + locus_rng_uniform(&r);
	}
	int cores[24];
	double speed[24];
	for (size_t n = 0; n < 24; n++) {
		cores[n] = 4;
		speed[n] = n % 3 ? 1 : 0.5;
	}
	CHECK(fixture_make(&f, 24, cores, speed, 960, holders, work) == 0);
	for (const struct locus_policy *const *p = locus_policies(); *p; p++) {
		if (locus_policy_flags(*p) & LOCUS_POLICY_GRAPHS)
			continue; /* a static plan: test_sim_graph, test_dag_plan */
		struct drive d = {
		    .pol = *p, .wl = f.wl, .seed = 5, .latency = 0.001, .penalty = 0.5};
		CHECK(drive_run(&d) == 0);
		CHECK_EQ_STR(d.fault, "");
		/* Every locality-aware policy beats fifo's locality here. */
		if (strcmp((*p)->name, "fifo") != 0)
			CHECK(d.local > 960 * 3 / 4);
		drive_free(&d);
	}
	fixture_free(&f);
}

TEST(determinism)
{
	struct locus_rng r;

	locus_rng_init(&r, 7);
	for (int c = 0; c < 30; c++) {
		struct fixture f;
		CHECK(random_fixture(&f, &r) == 0);
		for (const struct locus_policy *const *p = locus_policies(); *p; p++) {
			if (locus_policy_flags(*p) & LOCUS_POLICY_GRAPHS)
				continue; /* a static plan: test_sim_graph, test_dag_plan */
			struct drive a = {
			    .pol = *p, .wl = f.wl, .seed = 42, .latency = 0.01, .penalty = 0.5};
			struct drive b = a;
			CHECK(drive_run(&a) == 0 && drive_run(&b) == 0);
			size_t nt = f.wl->n_tasks;
			CHECK(memcmp(a.worker, b.worker, nt * sizeof *a.worker) == 0);
			CHECK(memcmp(a.start, b.start, nt * sizeof *a.start) == 0);
			CHECK(memcmp(a.end, b.end, nt * sizeof *a.end) == 0);
			CHECK(a.entries == b.entries && a.events == b.events);
			drive_free(&a);
			drive_free(&b);
		}
		fixture_free(&f);
	}
}

/* dlmpi draws from its seed: on a workload with real choices, some seed
 * among a few gives another schedule. */
TEST(dlmpi_seeds_matter)
{
	uint32_t holders[40];
	struct fixture f;
	int differ = 0;

	for (size_t t = 0; t < 40; t++)
		holders[t] = 1u << t % 4 | 1u << (t + 1) % 4;
	CHECK(fixture_make(&f, 4, NULL, NULL, 40, holders, NULL) == 0);
	struct drive a = drive_of("dlmpi", &f, NULL, 1);
	CHECK(drive_run(&a) == 0);
	for (uint64_t s = 2; s < 6 && !differ; s++) {
		struct drive b = drive_of("dlmpi", &f, NULL, s);
		CHECK(drive_run(&b) == 0);
		differ = memcmp(a.worker, b.worker, 40 * sizeof *a.worker) != 0;
		drive_free(&b);
	}
	CHECK(differ);
	drive_free(&a);
	fixture_free(&f);
}

/* ---- options and contexts ----------------------------------------------------- */

TEST(options)
{
	uint32_t holders[] = {1, 2};
	struct fixture f;
	struct inst in;
	struct locus_error err;

	CHECK(fixture_make(&f, 2, NULL, NULL, 2, holders, NULL) == 0);
	for (const struct locus_policy *const *p = locus_policies(); *p; p++) {
		if (locus_policy_flags(*p) & LOCUS_POLICY_GRAPHS)
			continue; /* a static plan: test_sim_graph, test_dag_plan */
		memset(&err, 0, sizeof err);
		CHECK_EQ_INT(inst_open(&in, (*p)->name, f.wl, 1, "bogus=1", &err), LOCUS_EINVAL);
		CHECK(strstr(err.message, "unknown option \"bogus\"") != NULL);
		CHECK(strstr(err.message, (*p)->name) != NULL);
	}
	memset(&err, 0, sizeof err);
	CHECK_EQ_INT(inst_open(&in, "fifo", f.wl, 1, "delay=1", &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "it takes prefetch=K") != NULL);
	/* prefetch: a whole number from 1 to 64; not with delay's deferrals. */
	static const char *const bad_prefetch[] = {"prefetch=0", "prefetch=65", "prefetch=2.5",
						   "prefetch=x", "prefetch="};
	for (size_t i = 0; i < LEN(bad_prefetch); i++) {
		memset(&err, 0, sizeof err);
		CHECK_EQ_INT(inst_open(&in, "monolithic", f.wl, 1, bad_prefetch[i], &err),
			     LOCUS_EINVAL);
		CHECK(strstr(err.message, "prefetch"));
	}
	CHECK_EQ_INT(inst_open(&in, "dlmpi", f.wl, 1, "prefetch=64", &err), 0);
	inst_close(&in);
	CHECK_EQ_INT(inst_open(&in, "delay", f.wl, 1, "prefetch=2", &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "prefetch must be 1"));
	CHECK_EQ_INT(inst_open(&in, "delay", f.wl, 1, "prefetch=1,delay=0.5", &err), 0);
	inst_close(&in);
	static const char *const bad[] = {
	    "delay=abc", "delay=-1", "delay=", "delay=nan", "delay=1e300", "delay=2x"};
	for (size_t i = 0; i < LEN(bad); i++) {
		memset(&err, 0, sizeof err);
		CHECK_EQ_INT(inst_open(&in, "delay", f.wl, 1, bad[i], &err), LOCUS_EINVAL);
		CHECK(err.message[0]);
	}
	memset(&err, 0, sizeof err);
	CHECK_EQ_INT(inst_open(&in, "delay", f.wl, 1, "delay=0.5,oops=2", &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "\"oops\"") && strstr(err.message, "delay=SECONDS"));
	CHECK_EQ_INT(inst_open(&in, "delay", f.wl, 1, "delay=0.5", &err), 0);
	inst_close(&in);
	CHECK_EQ_INT(inst_open(&in, "delay", f.wl, 1, NULL, &err), 0);
	inst_close(&in);

	/* One master (for master/worker policies), and workers the workload
	 * has. */
	void *state = NULL;
	struct locus_policy_ctx ctx = {.wl = f.wl, .n_workers = 2, .n_schedulers = 2};
	for (const struct locus_policy *const *p = locus_policies(); *p; p++) {
		ctx.n_schedulers = 2;
		ctx.n_workers = 2;
		if ((*p)->schedulers(100, 3) == 1)
			CHECK_EQ_INT((*p)->create(&state, &ctx, &err), LOCUS_EINVAL);
		ctx.n_schedulers = 1;
		ctx.n_workers = 3;
		CHECK_EQ_INT((*p)->create(&state, &ctx, &err), LOCUS_EINVAL);
		ctx.n_workers = 0;
		CHECK_EQ_INT((*p)->create(&state, &ctx, &err), LOCUS_EINVAL);
		CHECK(state == NULL);
	}
	fixture_free(&f);
}

/* No task at all: every worker is told to stop at its first request. */
TEST(empty_workload)
{
	struct fixture f;
	CHECK(fixture_make(&f, 3, NULL, NULL, 0, NULL, NULL) == 0);
	for (const struct locus_policy *const *p = locus_policies(); *p; p++) {
		if (locus_policy_flags(*p) & LOCUS_POLICY_GRAPHS)
			continue; /* a static plan: test_sim_graph, test_dag_plan */
		struct drive d = {.pol = *p, .wl = f.wl, .seed = 1};
		CHECK(drive_run(&d) == 0);
		CHECK_EQ_STR(d.fault, "");
		CHECK(d.stop[0] == 0 && d.stop[2] == 0);
		if ((*p)->schedulers(100, 3) == 1)
			CHECK_EQ_INT(d.entries, 0);
		drive_free(&d);
	}
	fixture_free(&f);
}

/* What a policy needs of an engine (version 5), checked when it is
 * created: every registered policy runs in the simulator; a policy an
 * engine cannot serve is refused with a message naming both. */
TEST(engine_offers)
{
	struct locus_error err;
	for (const struct locus_policy *const *p = locus_policies(); *p; p++) {
		CHECK_EQ_INT((*p)->version, LOCUS_POLICY_VERSION);
		CHECK_EQ_INT(locus_policy_check(*p, LOCUS_POLICY_VERSION, LOCUS_SIM_OFFERS,
						"the simulator", &err),
			     0);
		/* What places failed tasks itself must hear of failures. */
		if (locus_policy_flags(*p) & LOCUS_POLICY_RETRIES)
			CHECK(locus_policy_needs(*p) & LOCUS_NEEDS_FAILED);
	}
	const char *chunky[] = {"fifo", "monolithic", "dlmpi", "delay", "scal", "heft"};
	for (size_t i = 0; i < sizeof chunky / sizeof *chunky; i++)
		CHECK_EQ_INT(locus_policy_check(locus_policy_find(chunky[i]), LOCUS_POLICY_VERSION,
						0, "an engine of assignments only", &err),
			     0);
	CHECK_EQ_INT(locus_policy_check(locus_policy_find("gtp-r"), LOCUS_POLICY_VERSION,
					LOCUS_NEEDS_COPIES | LOCUS_NEEDS_CANCEL, "the test engine",
					&err),
		     LOCUS_ENOTSUP);
	CHECK(strstr(err.message, "policy gtp-r needs being told of failed attempts and running "
				  "finished tasks again and a monitor of every task's progress, "
				  "which the test engine does not offer") != NULL);
	CHECK_EQ_INT(locus_policy_check(locus_policy_find("amfs"), LOCUS_POLICY_VERSION,
					LOCUS_NEEDS_FLOW, "the test engine", &err),
		     LOCUS_ENOTSUP);
	CHECK(strstr(err.message, "amfs needs moving and deleting objects,") != NULL);
	/* A policy of an older version: its needs from its flags; one newer
	 * than the engine is refused. */
	struct locus_policy old = *locus_policy_find("fifo");
	old.version = 4;
	old.flags = LOCUS_POLICY_RETRIES;
	old.needs = LOCUS_NEEDS_REWIND; /* not read below version 5 */
	CHECK_EQ_INT(locus_policy_needs(&old), LOCUS_NEEDS_FAILED);
	CHECK_EQ_INT(locus_policy_check(&old, LOCUS_POLICY_VERSION, LOCUS_NEEDS_FAILED, "e", &err),
		     0);
	old.version = LOCUS_POLICY_VERSION + 1;
	CHECK_EQ_INT(
	    locus_policy_check(&old, LOCUS_POLICY_VERSION, LOCUS_SIM_OFFERS, "engine E", &err),
	    LOCUS_ENOTSUP);
	CHECK(strstr(err.message, "and engine E version 7 at most") != NULL);
}

TEST_MAIN(TEST_ENTRY(registry), TEST_ENTRY(engine_offers), TEST_ENTRY(worker_protocol),
	  TEST_ENTRY(fifo_exact), TEST_ENTRY(monolithic_exact), TEST_ENTRY(delay_exact),
	  TEST_ENTRY(delay_remote_choice), TEST_ENTRY(dlmpi_exact),
	  TEST_ENTRY(dlmpi_probabilities_local), TEST_ENTRY(dlmpi_probabilities_remote),
	  TEST_ENTRY(dlmpi_infinite_first), TEST_ENTRY(monolithic_cost_linear),
	  TEST_ENTRY(monolithic_is_the_scan), TEST_ENTRY(scal_priority),
	  TEST_ENTRY(scal_local_order), TEST_ENTRY(scal_exact), TEST_ENTRY(scal_fallback_order),
	  TEST_ENTRY(scal_every_task_once), TEST_ENTRY(fifo_prefetch_exact),
	  TEST_ENTRY(conformance), TEST_ENTRY(conformance_large), TEST_ENTRY(determinism),
	  TEST_ENTRY(dlmpi_seeds_matter), TEST_ENTRY(options), TEST_ENTRY(empty_workload))
