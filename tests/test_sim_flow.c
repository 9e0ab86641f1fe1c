/*
 * The simulator's workflow mechanisms (policy version 3), checked against
 * times worked out by hand: a task that reads its inputs when it starts
 * and writes its outputs to the shared file system, the file system's
 * bandwidth and metadata rate, a policy's copies of several objects as
 * one flow (and of bytes that are no object), drops, staging from the file
 * system, inputs sent ahead from the file system, stages in the result.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

/* ---- a scripted flow policy ----------------------------------------------------- */

/* Step k runs once the scheduler has heard of `after` things (a task done,
 * a copy ended): an assignment (task >= 0), a copy (task < 0) or a drop
 * (drop >= 0). */
struct step {
	int after;
	int task;
	uint32_t worker;
	enum locus_gather gather;
	enum locus_output output;
	uint32_t objects[4], n;
	uint64_t bytes;
	uint32_t from, to;
	double delay;
	uint64_t tag;
	int drop;
	uint32_t for_task; /* a copy's task (LOCUS_NONE unless set) */
};

#define MAX_STEPS 16
#define DONE_MSG  (LOCUS_MSG_USER + 1)

struct flow_script {
	struct step steps[MAX_STEPS];
	int n_steps, next, done;
	size_t n_workers;
	/* LOCUS_EV_TRANSFER events the scheduler got. */
	struct {
		double at;
		uint64_t tag;
		uint32_t object, n, from, to;
		int ok;
	} got[8];
	int n_got;
	uint32_t sched_node; /* where scheduler_node puts it */
};

static struct flow_script fs_script;

static size_t one_scheduler(size_t n, size_t req)
{
	(void)n;
	(void)req;
	return 1;
}

static uint32_t put_scheduler(const struct locus_workload *wl, size_t n, size_t s)
{
	(void)wl;
	(void)n;
	(void)s;
	return fs_script.sched_node;
}

static int flow_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *e)
{
	(void)e;
	fs_script.n_workers = ctx->n_workers;
	*state = &fs_script;
	return 0;
}

static void flow_destroy(void *state)
{
	(void)state;
}

/* Runs the steps whose turn has come. */
static void run_steps(struct flow_script *s, struct locus_actions *act)
{
	uint32_t me = (uint32_t)s->n_workers;
	while (s->next < s->n_steps && s->steps[s->next].after <= s->done) {
		const struct step *st = &s->steps[s->next++];
		if (st->drop >= 0) {
			locus_act_drop(act, (uint32_t)st->drop, st->to);
		} else if (st->task >= 0) {
			locus_act_assign_flow(act, me, st->worker, (uint32_t)st->task, -1,
					      st->gather, st->output);
		} else {
			struct locus_copy c = {.objects = st->n ? st->objects : NULL,
					       .n = st->n,
					       .bytes = st->bytes,
					       .from = st->from,
					       .to = st->to,
					       .delay = st->delay,
					       .tag = st->tag,
					       .task = st->for_task};
			locus_act_copy(act, &c);
		}
	}
}

static void flow_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct flow_script *s = state;
	uint32_t me = (uint32_t)s->n_workers;
	if (ev->proc < me) {
		if (ev->kind == LOCUS_EV_DONE) {
			struct locus_msg m = {
			    .type = DONE_MSG, .from = ev->proc, .to = me, .n_args = 1};
			m.arg[0] = ev->done.task;
			locus_act_send(act, &m);
		}
		return;
	}
	if (ev->kind == LOCUS_EV_MESSAGE && ev->msg->type == DONE_MSG)
		s->done++;
	if (ev->kind == LOCUS_EV_TRANSFER)
		s->done++;
	if (ev->kind == LOCUS_EV_TRANSFER && s->n_got < 8) {
		s->got[s->n_got].at = ev->now;
		s->got[s->n_got].tag = ev->transfer.tag;
		s->got[s->n_got].object = ev->transfer.object;
		s->got[s->n_got].n = ev->transfer.n;
		s->got[s->n_got].from = ev->transfer.from;
		s->got[s->n_got].to = ev->transfer.to;
		s->got[s->n_got++].ok = ev->transfer.ok;
	}
	run_steps(s, act);
}

static const struct locus_policy flow_policy = {
    .version = 3,
    .name = "flow-script",
    .summary = "test",
    .schedulers = one_scheduler,
    .create = flow_create,
    .destroy = flow_destroy,
    .on_event = flow_event,
    .flags = LOCUS_POLICY_GRAPHS,
    .scheduler_node = put_scheduler,
};

static void script_reset(void)
{
	memset(&fs_script, 0, sizeof fs_script);
}

static struct step *add_step(int after)
{
	struct step *st = &fs_script.steps[fs_script.n_steps++];
	memset(st, 0, sizeof *st);
	st->after = after;
	st->task = -1;
	st->drop = -1;
	return st;
}

static void add_assign(int after, int task, uint32_t w, enum locus_gather g, enum locus_output o)
{
	struct step *st = add_step(after);
	st->task = task;
	st->worker = w;
	st->gather = g;
	st->output = o;
}

static void add_copy(int after, const uint32_t *objs, uint32_t n, uint64_t bytes, uint32_t from,
		     uint32_t to, double delay, uint64_t tag)
{
	struct step *st = add_step(after);
	for (uint32_t k = 0; k < n; k++)
		st->objects[k] = objs[k];
	st->n = n;
	st->bytes = bytes;
	st->from = from;
	st->to = to;
	st->delay = delay;
	st->tag = tag;
	st->for_task = LOCUS_NONE;
}

/* ---- fixtures ---------------------------------------------------------------------- */

/* n nodes of one core: disks 100 MB/s, links 125 MB/s, latency 0, local
 * storage of `storage` bytes (0: no limit). */
static struct locus_platform *platform_with(int n, double storage)
{
	char json[2048];
	int k = snprintf(json, sizeof json,
			 "{\"format\": \"locus-platform\", \"version\": 1, \"network\": "
			 "{\"latency\": 0}, \"defaults\": {\"cores\": 1, \"disk_bw\": 1e8, "
			 "\"net_bw\": 1.25e8, \"storage\": %.17g}, \"nodes\": [",
			 storage);
	for (int i = 0; i < n; i++)
		k += snprintf(json + k, sizeof json - (size_t)k, "%s{\"name\": \"n%d\"}",
			      i ? ", " : "", i);
	snprintf(json + k, sizeof json - (size_t)k, "]}");
	struct locus_platform *p = NULL;
	struct locus_error err;
	locus_platform_parse(&p, json, strlen(json), "test", &err);
	return p;
}

static struct locus_platform *platform(int n)
{
	return platform_with(n, 0);
}

/* Message delays with no latency: bytes over 125 MB/s; an assignment of
 * a workflow task carries 4 arguments (48 bytes), a done message 1 (24). */
#define ASG (48 / 1.25e8)
#define DON (24 / 1.25e8)

struct run {
	struct locus_graph *g;
	struct locus_platform *p;
	struct locus_workload *wl;
	struct locus_result *r;
	int rc;
	char msg[512];
};

static double fs_latency; /* the next runs' */

static void run_flow_on(struct run *x, struct locus_platform *p, double fs_bw, double fs_ops)
{
	struct locus_error err = {0};
	x->p = p;
	x->rc = locus_graph_finish(x->g, &err);
	if (!x->rc)
		x->rc = locus_workload_from_graph(&x->wl, x->p, x->g, NULL, &err);
	struct locus_sim_config cfg = {.wl = x->wl,
				       .policy = &flow_policy,
				       .latency = -1,
				       .shared_fs_bw = fs_bw,
				       .fs_ops = fs_ops,
				       .fs_latency = fs_latency};
	if (!x->rc)
		x->rc = locus_sim_run(&x->r, &cfg, &err);
	snprintf(x->msg, sizeof x->msg, "%s", err.message);
	if (x->rc)
		fprintf(stderr, "  run: %s\n", err.message);
}

static void run_flow(struct run *x, int nodes, double fs_bw, double fs_ops)
{
	run_flow_on(x, platform(nodes), fs_bw, fs_ops);
}

static void run_fini(struct run *x)
{
	locus_result_destroy(x->r);
	locus_workload_destroy(x->wl);
	locus_platform_destroy(x->p);
	locus_graph_destroy(x->g);
}

static uint32_t task(struct locus_graph *g, const char *name, double work, const char *stage)
{
	long t = locus_graph_add_task(g, name, work);
	if (stage)
		locus_graph_set_stage(g, (uint32_t)t, (uint32_t)locus_graph_stage(g, stage));
	return (uint32_t)t;
}

static uint32_t file(struct locus_graph *g, const char *name, uint64_t bytes)
{
	return (uint32_t)locus_graph_add_object(g, name, bytes);
}

/* ---- tests ------------------------------------------------------------------------ */

/* A copy naming a task holds it: a stored input of 100 MB is being
 * copied from the file system (100 MB/s) to the task's node when its
 * assignment arrives; the task waits for it and reads it on its node (1
 * s at the disk's 100 MB/s) instead of reading it from the file system
 * too. With LOCUS_GATHER_ALL it would wait for it anyway; with
 * LOCUS_GATHER_POLICY and no copy, it reads it from the file system. */
TEST(a_copy_naming_a_task_holds_it)
{
	for (int mode = 0; mode < 3; mode++) {
		struct run x = {0};
		struct locus_error err;
		locus_graph_create(&x.g, "hold", &err);
		uint32_t t = task(x.g, "t", 1, "t");
		uint32_t in = file(x.g, "in", 100000000);
		locus_graph_add_input(x.g, t, in);
		script_reset();
		add_assign(0, (int)t, 0, mode == 1 ? LOCUS_GATHER_ALL : LOCUS_GATHER_POLICY,
			   LOCUS_OUTPUT_LOCAL);
		if (mode < 2) {
			add_copy(0, &in, 1, 0, LOCUS_FS, 0, 0, 7);
			fs_script.steps[fs_script.n_steps - 1].for_task =
			    mode == 0 ? t : LOCUS_NONE;
		}
		run_flow(&x, 1, 1e8, 0);
		CHECK_EQ_INT(x.rc, 0);
		if (!x.rc) {
			/* Copied in 1 s, read on the node in 1 s, computed in
			 * 1 s; or read from the file system in 1 s. */
			double end = mode < 2 ? 3 : ASG + 2;
			CHECK_NEAR(x.r->tasks[t].end, end, 1e-9);
			CHECK_EQ_INT(x.r->fs_bytes_read, 100000000);
		}
		run_fini(&x);
	}
}

/* A task opens its files on the file system one after another, each after
 * fs_latency (0.1 s): three inputs of 10 MB at 100 MB/s start at 0.1,
 * 0.2 and 0.3 s after its assignment and each is read in 0.1 s, alone;
 * after 1 s of computing, its two outputs of 5 MB start 0.1 and 0.2 s
 * later and take 0.05 s each. */
TEST(opens_on_the_file_system_one_after_another)
{
	struct run x = {0};
	struct locus_error err;
	locus_graph_create(&x.g, "opens", &err);
	uint32_t t = task(x.g, "t", 1, "t");
	for (int k = 0; k < 3; k++) {
		char nm[16];
		snprintf(nm, sizeof nm, "in%d", k);
		locus_graph_add_input(x.g, t, file(x.g, nm, 10000000));
	}
	locus_graph_add_output(x.g, t, file(x.g, "out0", 5000000), &err);
	locus_graph_add_output(x.g, t, file(x.g, "out1", 5000000), &err);
	script_reset();
	add_assign(0, (int)t, 0, LOCUS_GATHER_READ, LOCUS_OUTPUT_FS);
	fs_latency = 0.1;
	run_flow(&x, 1, 1e8, 0);
	fs_latency = 0;
	CHECK_EQ_INT(x.rc, 0);
	if (!x.rc) {
		CHECK_NEAR(x.r->tasks[t].read_end, ASG + 0.4, 1e-9);
		CHECK_NEAR(x.r->tasks[t].end, ASG + 1.65, 1e-9);
		CHECK_EQ_INT(x.r->fs_ops, 5);
	}
	run_fini(&x);
}

/* Every read and write on the file system (the MPI Montage baseline): a
 * writes f there, b waits for f, reads it when it starts, computes and
 * writes g. The file system's 50 MB/s is the narrowest on every way. */
TEST(reads_and_writes_on_the_file_system)
{
	for (int ops = 0; ops < 2; ops++) {
		struct run x = {0};
		struct locus_error err;
		locus_graph_create(&x.g, "fs", &err);
		uint32_t a = task(x.g, "a", 1, "mkf"), b = task(x.g, "b", 2, "use");
		uint32_t f = file(x.g, "f", 125000000), g = file(x.g, "g", 25000000);
		locus_graph_add_output(x.g, a, f, &err);
		locus_graph_add_input(x.g, b, f);
		locus_graph_add_output(x.g, b, g, &err);
		script_reset();
		add_assign(0, (int)a, 0, LOCUS_GATHER_READ, LOCUS_OUTPUT_FS);
		add_assign(0, (int)b, 1, LOCUS_GATHER_READ, LOCUS_OUTPUT_FS);
		/* With 2 metadata operations a second, each access waits 0.5 s
		 * for its operation first. */
		run_flow(&x, 2, 5e7, ops ? 2 : 0);
		CHECK_EQ_INT(x.rc, 0);
		if (!x.rc) {
			double m = ops ? 0.5 : 0;
			double a_end = ASG + 1 + m + 2.5, b_read = a_end + m + 2.5;
			double b_end = b_read + 2 + m + 0.5;
			CHECK_NEAR(x.r->tasks[a].end, a_end, 1e-9);
			CHECK_NEAR(x.r->tasks[b].start, a_end, 1e-9);
			CHECK_NEAR(x.r->tasks[b].read_end, b_read, 1e-9);
			CHECK_NEAR(x.r->tasks[b].end, b_end, 1e-9);
			CHECK_NEAR(x.r->makespan, b_end, 1e-9);
			CHECK_EQ_INT(x.r->fs_ops, 3);
			CHECK_EQ_INT(x.r->fs_bytes_read, 125000000);
			CHECK_EQ_INT(x.r->fs_bytes_written, 150000000);
			/* Nothing is kept on a node, nothing moved between
			 * nodes. */
			CHECK_EQ_INT(x.r->transfers, 0);
			CHECK(x.r->flow && x.r->stages);
			const struct locus_stage_result *sb = &x.r->stages[1];
			CHECK_EQ_INT(sb->tasks, 1);
			CHECK_NEAR(sb->read, m + 2.5, 1e-9);
			CHECK_NEAR(sb->compute, 2, 1e-9);
			CHECK_NEAR(sb->write, m + 0.5, 1e-9);
			CHECK_EQ_INT(sb->bytes_fs_read, 125000000);
			CHECK_EQ_INT(sb->bytes_fs_written, 25000000);
			CHECK_EQ_INT(x.r->stages[0].bytes_fs_written, 125000000);
			CHECK_NEAR(x.r->stages[0].first_start, ASG, 1e-12);
		}
		run_fini(&x);
	}
}

/* Metadata operations are served one at a time: three tasks that each
 * write a file at once wait their turn (1 operation a second). */
TEST(metadata_operations_queue)
{
	struct run x = {0};
	struct locus_error err;
	locus_graph_create(&x.g, "ops", &err);
	for (int i = 0; i < 3; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "t%d", i);
		uint32_t t = task(x.g, nm, 1, "w");
		snprintf(nm, sizeof nm, "o%d", i);
		locus_graph_add_output(x.g, t, file(x.g, nm, 0), &err);
	}
	script_reset();
	for (uint32_t i = 0; i < 3; i++)
		add_assign(0, (int)i, i, LOCUS_GATHER_AUTO, LOCUS_OUTPUT_BOTH);
	run_flow(&x, 3, 0, 1);
	CHECK_EQ_INT(x.rc, 0);
	if (!x.rc) {
		/* Empty files: each write is its operation alone. */
		for (uint32_t i = 0; i < 3; i++)
			CHECK_NEAR(x.r->tasks[i].end, ASG + 1 + (i + 1), 1e-9);
		CHECK_EQ_INT(x.r->fs_ops, 3);
	}
	run_fini(&x);
}

/* A policy's copy of two objects as one flow, after its delay, gives the
 * task waiting for them on its node (LOCUS_GATHER_POLICY) its inputs; the
 * copy's event carries its tag and count. A copy of bytes alone moves no
 * object; a copy from a node that dropped the object fails. */
TEST(copies_in_one_flow_and_drops)
{
	struct run x = {0};
	struct locus_error err;
	locus_graph_create(&x.g, "copy", &err);
	uint32_t p = task(x.g, "p", 1, "prod"), c = task(x.g, "c", 0.5, "cons");
	uint32_t xo = file(x.g, "x", 100000000), yo = file(x.g, "y", 25000000);
	locus_graph_add_output(x.g, p, xo, &err);
	locus_graph_add_output(x.g, p, yo, &err);
	locus_graph_add_input(x.g, c, xo);
	locus_graph_add_input(x.g, c, yo);
	script_reset();
	add_assign(0, (int)p, 0, LOCUS_GATHER_AUTO, LOCUS_OUTPUT_LOCAL);
	add_assign(0, (int)c, 1, LOCUS_GATHER_POLICY, LOCUS_OUTPUT_LOCAL);
	uint32_t both[2] = {xo, yo};
	add_copy(1, both, 2, 0, 0, 1, 0.25, 7);
	add_copy(1, NULL, 0, 100000000, 0, 2, 0, 9);
	struct step *d = add_step(1);
	d->drop = (int)yo;
	d->to = 0;
	add_copy(1, &yo, 1, 0, 0, 2, 0, 11);
	run_flow(&x, 3, 0, 0);
	CHECK_EQ_INT(x.rc, 0);
	if (!x.rc) {
		double told = ASG + 1 + DON;
		/* 125 MB at the source disk's 100 MB/s after 0.25 s; the
		 * bytes-only copy shares that disk (and n2's link is free):
		 * both flows share the 100 MB/s until the 100 MB one ends. */
		CHECK_EQ_INT(fs_script.n_got, 3);
		/* The drop came before the third copy: it fails at once. */
		CHECK_EQ_INT(fs_script.got[0].tag, 11);
		CHECK_EQ_INT(fs_script.got[0].ok, 0);
		CHECK_NEAR(fs_script.got[0].at, told, 1e-12);
		/* Bytes-only: 100 MB alone on n0's disk for 0.25 s (25 MB),
		 * then shared at 50 MB/s with the archive. */
		int bytes_first = fs_script.got[1].tag == 9;
		int ib = bytes_first ? 1 : 2, ia = bytes_first ? 2 : 1;
		CHECK_EQ_INT(fs_script.got[ib].tag, 9);
		CHECK_EQ_INT(fs_script.got[ib].n, 0);
		CHECK_EQ_INT(fs_script.got[ib].object, LOCUS_NONE);
		CHECK_EQ_INT(fs_script.got[ia].tag, 7);
		CHECK_EQ_INT(fs_script.got[ia].n, 2);
		CHECK_EQ_INT(fs_script.got[ia].object, xo);
		CHECK_EQ_INT(fs_script.got[ia].ok, 1);
		CHECK_EQ_INT(fs_script.got[ia].from, 0);
		CHECK_EQ_INT(fs_script.got[ia].to, 1);
		/* 0.25 s alone: 25 MB of the bytes; then both at 50 MB/s:
		 * the bytes' 75 MB left end after 1.5 s, the archive has 75
		 * of its 125 MB by then, and the rest alone at 100 MB/s takes
		 * 0.5 s. */
		CHECK_NEAR(fs_script.got[ib].at, told + 0.25 + 1.5, 1e-9);
		double arrive = told + 0.25 + 1.5 + 0.5;
		CHECK_NEAR(fs_script.got[ia].at, arrive, 1e-9);
		CHECK_NEAR(x.r->tasks[c].start, arrive, 1e-9);
		CHECK_NEAR(x.r->tasks[c].end, arrive + 0.5, 1e-9);
		/* c found both inputs on its node. */
		CHECK_EQ_INT(x.r->stages[1].bytes_local, 125000000);
		CHECK_EQ_INT(x.r->stages[1].bytes_peer, 0);
		CHECK_EQ_INT(x.r->transfers, 2);
	}
	run_fini(&x);
}

/* Staging: a stored input is copied from the file system to the node,
 * read there, and the output stays on the node and goes to the file
 * system too (LOCUS_OUTPUT_BOTH), which the task waits for. */
TEST(staging_from_and_to_the_file_system)
{
	struct run x = {0};
	struct locus_error err;
	locus_graph_create(&x.g, "stage", &err);
	uint32_t t = task(x.g, "t", 1, "s");
	uint32_t in = file(x.g, "in", 50000000), out = file(x.g, "out", 100000000);
	locus_graph_add_input(x.g, t, in);
	locus_graph_add_output(x.g, t, out, &err);
	script_reset();
	add_copy(0, &in, 1, 0, LOCUS_FS, 0, 0, 1);
	run_flow(&x, 1, 0, 0);
	/* Without an assignment the run cannot finish: said clearly. */
	CHECK_EQ_INT(x.rc, LOCUS_EINCOMPLETE);
	CHECK(strstr(x.msg, "never assigned") != NULL);
	CHECK_EQ_INT(fs_script.n_got, 1);
	/* 50 MB over n0's 125 MB/s link (the file system has no bandwidth
	 * of its own here). */
	CHECK_NEAR(fs_script.got[0].at, 0.4, 1e-12);
	CHECK_EQ_INT(fs_script.got[0].from, LOCUS_FS);
	run_fini(&x);

	memset(&x, 0, sizeof x);
	locus_graph_create(&x.g, "stage", &err);
	t = task(x.g, "t", 1, "s");
	in = file(x.g, "in", 50000000);
	out = file(x.g, "out", 100000000);
	locus_graph_add_input(x.g, t, in);
	locus_graph_add_output(x.g, t, out, &err);
	script_reset();
	add_copy(0, &in, 1, 0, LOCUS_FS, 0, 0, 1);
	add_assign(1, (int)t, 0, LOCUS_GATHER_POLICY, LOCUS_OUTPUT_BOTH);
	run_flow(&x, 1, 0, 0);
	CHECK_EQ_INT(x.rc, 0);
	if (!x.rc) {
		/* Assigned when the copy ended (0.4 s), it reads its input
		 * from n0's disk (0.5 s), computes 1 s, writes 100 MB through
		 * n0's disk (1 s). */
		double start = 0.4 + ASG;
		CHECK_NEAR(x.r->tasks[t].start, start, 1e-9);
		CHECK_NEAR(x.r->tasks[t].read_end, start + 0.5, 1e-9);
		CHECK_NEAR(x.r->tasks[t].end, start + 0.5 + 1 + 1, 1e-9);
		CHECK_EQ_INT(x.r->fs_bytes_read, 50000000);
		CHECK_EQ_INT(x.r->fs_bytes_written, 100000000);
		CHECK_EQ_INT(x.r->stages[0].bytes_local, 50000000);
		CHECK_EQ_INT(x.r->fs_ops, 2);
	}
	run_fini(&x);
}

/* Inputs sent ahead (LOCUS_GATHER_AUTO) come from the file system when no
 * node has them; a task reading at start (LOCUS_GATHER_READ) reads a
 * produced input from the node holding it. */
TEST(auto_from_the_file_system_and_read_from_a_peer)
{
	struct run x = {0};
	struct locus_error err;
	locus_graph_create(&x.g, "auto", &err);
	uint32_t a = task(x.g, "a", 1, "p"), b = task(x.g, "b", 1, "q"), c = task(x.g, "c", 1, "q");
	uint32_t f = file(x.g, "f", 125000000), h = file(x.g, "h", 125000000);
	locus_graph_add_output(x.g, a, f, &err);
	locus_graph_add_output(x.g, a, h, &err);
	locus_graph_add_input(x.g, b, f);
	locus_graph_add_input(x.g, c, h);
	script_reset();
	/* a writes f and h to the file system alone. */
	add_assign(0, (int)a, 0, LOCUS_GATHER_AUTO, LOCUS_OUTPUT_FS);
	add_assign(0, (int)b, 1, LOCUS_GATHER_AUTO, LOCUS_OUTPUT_LOCAL);
	add_assign(0, (int)c, 2, LOCUS_GATHER_READ, LOCUS_OUTPUT_LOCAL);
	run_flow(&x, 3, 1.25e8, 0);
	CHECK_EQ_INT(x.rc, 0);
	if (!x.rc) {
		/* a's two writes share n0's disk: 250 MB at 100 MB/s, 2.5 s.
		 * Then b's f is sent from the file system and c reads h
		 * from it, sharing the file system's 125 MB/s: 2 s. */
		double a_end = ASG + 1 + 2.5;
		CHECK_NEAR(x.r->tasks[a].end, a_end, 1e-9);
		CHECK_NEAR(x.r->tasks[b].start, a_end + 2, 1e-9);
		CHECK_NEAR(x.r->tasks[c].read_end, a_end + 2, 1e-9);
		CHECK_EQ_INT(x.r->stages[1].bytes_fs_read, 250000000);
	}
	run_fini(&x);
}

/* The policy puts its scheduler on a node; a node that is not is an error. */
TEST(scheduler_placement)
{
	struct run x = {0};
	struct locus_error err;
	locus_graph_create(&x.g, "one", &err);
	task(x.g, "a", 1, NULL);
	script_reset();
	add_assign(0, 0, 0, LOCUS_GATHER_AUTO, LOCUS_OUTPUT_LOCAL);
	fs_script.sched_node = 5;
	run_flow(&x, 2, 0, 0);
	CHECK_EQ_INT(x.rc, LOCUS_EINVAL);
	CHECK(strstr(x.msg, "put scheduler 0 on node 5 of 2") != NULL);
	/* No stages: not a workflow result. */
	run_fini(&x);
	memset(&x, 0, sizeof x);
	locus_graph_create(&x.g, "one", &err);
	task(x.g, "a", 1, NULL);
	script_reset();
	add_assign(0, 0, 0, LOCUS_GATHER_AUTO, LOCUS_OUTPUT_LOCAL);
	fs_script.sched_node = 1;
	run_flow(&x, 2, 0, 0);
	CHECK_EQ_INT(x.rc, 0);
	CHECK(x.r && !x.r->flow && !x.r->stages);
	run_fini(&x);
}

/* Local storage: a node holds what is written or copied there and lets
 * go of what is dropped; the peak and the end are reported, and a file
 * that does not fit ends the run saying so. */
TEST(local_storage_is_counted_and_bounded)
{
	for (int small = 0; small < 2; small++) {
		struct run x = {0};
		struct locus_error err;
		locus_graph_create(&x.g, "store", &err);
		uint32_t a = task(x.g, "a", 1, "w"), b = task(x.g, "b", 1, "r");
		uint32_t f = file(x.g, "f", 100000000), h = file(x.g, "h", 60000000);
		locus_graph_add_output(x.g, a, f, &err);
		locus_graph_add_output(x.g, a, h, &err);
		locus_graph_add_input(x.g, b, f);
		script_reset();
		add_assign(0, (int)a, 0, LOCUS_GATHER_AUTO, LOCUS_OUTPUT_LOCAL);
		add_assign(0, (int)b, 0, LOCUS_GATHER_AUTO, LOCUS_OUTPUT_LOCAL);
		struct step *d = add_step(2);
		d->drop = (int)f;
		d->to = 0;
		run_flow_on(&x, platform_with(1, small ? 1.5e8 : 2e8), 0, 0);
		CHECK_EQ_INT(x.rc, 0);
		if (!x.rc && small) {
			/* 160 MB in 150 MB: the second file does not fit. */
			CHECK(x.r->failed);
			CHECK(strstr(x.r->failure,
				     "node n0's local storage (150000000 bytes) cannot "
				     "hold file \"h\" (60000000 bytes) beside the 100000000"));
		} else if (!x.rc) {
			CHECK(!x.r->failed);
			CHECK_NEAR(x.r->storage_peak, 1.6e8, 0);
			/* f was dropped after b read it; h stays (nobody reads
			 * it: not an intermediate). */
			CHECK_NEAR(x.r->storage_end, 6e7, 0);
			CHECK_NEAR(x.r->intermediate_end, 0, 0);
		}
		run_fini(&x);
	}
}

/* Time limits (locus_sim_config.time_limit, a Makeflow's WALL_TIME): a
 * limit no attempt passes changes nothing, to the bit; a task whose
 * compute exceeds its limit stops at the limit and fails, each attempt
 * alike, and the run fails after the retries saying so. */
static int limited_run(struct locus_result **r, const struct locus_workload *wl,
		       const double *limit, uint32_t retries, char *msg, size_t size)
{
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = locus_policy_find("amfs"),
				       .schedulers = 3,
				       .latency = -1,
				       .cost_per_msg = 5e-6,
				       .cost_per_entry = 1e-7,
				       .shared_fs_bw = 1.25e9,
				       .time_limit = limit,
				       .retries = retries};
	struct locus_error err = {0};
	*r = NULL;
	int rc = locus_sim_run(r, &cfg, &err);
	snprintf(msg, size, "%s", rc ? err.message : "");
	return rc;
}

TEST(time_limits)
{
	struct locus_graph *g = test_workflow_montage(4);
	struct locus_platform *p = test_flow_cluster(2, 2, 1);
	struct locus_workload *wl = NULL;
	struct locus_error err = {0};
	char msg[600];
	CHECK(g && p);
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	double *limit = calloc(g->n_tasks, sizeof *limit);
	CHECK(limit);
	struct locus_result *free_run = NULL, *in_time = NULL, *over = NULL;
	CHECK_EQ_INT(limited_run(&free_run, wl, NULL, 0, msg, sizeof msg), 0);
	/* Every task's limit its own work (30 s for mAdd, the longest): an
	 * attempt ending at its limit is in time; nothing changes. */
	uint32_t add = LOCUS_NONE;
	for (size_t t = 0; t < g->n_tasks; t++) {
		limit[t] = g->tasks[t].work;
		if (!strcmp(g->stage_names[g->task_stage[t]], "mAdd"))
			add = (uint32_t)t;
	}
	CHECK(add != LOCUS_NONE && g->tasks[add].work == 30);
	CHECK_EQ_INT(limited_run(&in_time, wl, limit, 0, msg, sizeof msg), 0);
	CHECK(in_time->makespan == free_run->makespan);
	/* mAdd limited to 29.9 s: each of its 3 attempts stops there and
	 * fails, and the run fails after the third. */
	limit[add] = 29.9;
	CHECK_EQ_INT(limited_run(&over, wl, limit, 2, msg, sizeof msg), LOCUS_EINCOMPLETE);
	CHECK(over == NULL);
	CHECK(strstr(msg, "task mAdd failed on 3 attempts") != NULL);
	CHECK(strstr(msg, "attempt 3 timed out after 29.9 s") != NULL);
	/* No retries: the first attempt ends the run. */
	CHECK_EQ_INT(limited_run(&over, wl, limit, 0, msg, sizeof msg), LOCUS_EINCOMPLETE);
	CHECK(strstr(msg, "failed on 1 attempt ") != NULL);
	CHECK(strstr(msg, "attempt 1 timed out after 29.9 s") != NULL);
	locus_result_destroy(in_time);
	locus_result_destroy(free_run);
	free(limit);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
}

TEST_MAIN(TEST_ENTRY(reads_and_writes_on_the_file_system), TEST_ENTRY(time_limits),
	  TEST_ENTRY(opens_on_the_file_system_one_after_another),
	  TEST_ENTRY(a_copy_naming_a_task_holds_it), TEST_ENTRY(metadata_operations_queue),
	  TEST_ENTRY(copies_in_one_flow_and_drops), TEST_ENTRY(staging_from_and_to_the_file_system),
	  TEST_ENTRY(auto_from_the_file_system_and_read_from_a_peer),
	  TEST_ENTRY(scheduler_placement), TEST_ENTRY(local_storage_is_counted_and_bounded))
