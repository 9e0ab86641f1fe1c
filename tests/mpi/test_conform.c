/*
 * The engines conform: the same workflow under the same policy and seed,
 * run on MPI ranks (locus_mpi_flow_run with task functions that sleep
 * each task's work) and simulated on the platform that run had
 * (locus_sim_run), makes the same decisions: the worker each task ran on,
 * how many attempts it took, and the copies made (each gather and each
 * copy a policy asked for: object, source, destination). Both engines
 * carry decisions out through one executor (src/exec); this test is
 * what holds them to it.
 *
 *   mpirun -np 3 test_conform [CASE...]
 *
 * Rank 0 hosts the policy's schedulers; ranks 1 and 2 are workers on two
 * emulated nodes. Where a decision depends on time the cases are made so
 * that it does not:
 *  - "waves": 9 tasks in three stages whose works are chosen so that no
 *    decision is a near tie (workflow() says how), and tasks end, and
 *    become ready, in one order on both engines (a real run's times
 *    wander by milliseconds);
 *  - work stealing is off (amfs steal=0, dask steal=0): a thief steals
 *    when it idles, which real time decides;
 *  - dask plans with the tasks' known durations (durations=known), not
 *    those it measures;
 *  - the chunk policies (fifo, scal, dlmpi) run the "bag" (independent
 *    tasks) with one worker: with two, which worker asks first at the
 *    start is a race of real time;
 *  - GTP reads a monitor of every task at each rescheduling point: the
 *    real run's is what the workers last told the scheduler's rank,
 *    the simulator's exact, and the works keep the difference from
 *    mattering. DLS/sr is not here: it reschedules when a task ends
 *    later than planned, which on a critical path (no spare time) a
 *    real task always does, by milliseconds, and a simulated one never.
 * A failure is injected in both (the first attempt of task b1 fails: the
 * function returns an error, the simulator's `fails` says so): a policy
 * that places failed tasks itself (the example policy "follow", GTP/r)
 * hears of it and moves the task; the executor runs heft's task again on
 * another node's worker and brings its outputs home; both engines alike.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../examples/follow/follow.h"
#include "locus/locus.h"
#include "locus/mpi.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAK_CHECK() __lsan_do_recoverable_leak_check()
#else
#define LEAK_CHECK() 0
#endif

#define FILE_BYTES 4096

/* "rewind": the example policy, follow, that also runs task a0 again
 * once it has finished (locus_act_rewind), on worker 1: its consumers
 * are placed when it first finishes, and its second end is not news. */
struct rewind {
	void *follow;
	uint32_t task, n_workers;
	int done; /* its ends heard */
};

static int rewind_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	struct rewind *s = calloc(1, sizeof *s);
	if (!s)
		return LOCUS_ENOMEM;
	int rc = follow_policy.create(&s->follow, ctx, err);
	if (rc) {
		free(s);
		return rc;
	}
	s->task = (uint32_t)locus_graph_find_task(ctx->wl->graph, "a0");
	s->n_workers = (uint32_t)ctx->n_workers;
	*state = s;
	return 0;
}

static void rewind_destroy(void *state)
{
	struct rewind *s = state;
	follow_policy.destroy(s->follow);
	free(s);
}

static size_t rewind_schedulers(size_t n_workers, size_t requested)
{
	return follow_policy.schedulers(n_workers, requested);
}

static void rewind_on_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct rewind *s = state;
	/* follow's workers tell its scheduler of each task done (arg[0]). */
	int a0_done = ev->proc == s->n_workers && ev->kind == LOCUS_EV_MESSAGE &&
		      ev->msg->type == LOCUS_MSG_USER && ev->msg->arg[0] == (int64_t)s->task;
	if (a0_done && s->done++)
		return;
	follow_policy.on_event(s->follow, ev, act);
	if (a0_done) {
		locus_act_rewind(act, s->task);
		locus_act_assign(act, s->n_workers, 1, s->task, -1);
	}
}

static const struct locus_policy rewind_policy = {
    .version = LOCUS_POLICY_VERSION,
    .name = "follow-rewind",
    .summary = "follow, and task a0 once more after it finished",
    .schedulers = rewind_schedulers,
    .create = rewind_create,
    .destroy = rewind_destroy,
    .on_event = rewind_on_event,
    .flags = LOCUS_POLICY_GRAPHS | LOCUS_POLICY_RETRIES,
    .needs = LOCUS_NEEDS_FAILED | LOCUS_NEEDS_REWIND,
};

struct ccase {
	const char *name;
	const char *policy; /* NULL: the policy `def` */
	const struct locus_policy *def;
	const char *opts;
	int bag;	  /* the bag of independent tasks on one worker */
	const char *fail; /* the task whose first attempt fails, or NULL */
};

static const struct ccase cases[] = {
    {"heft", "heft", NULL, NULL, 0, NULL},
    {"heft-failure", "heft", NULL, NULL, 0, "b1"},
    {"follow", NULL, &follow_policy, NULL, 0, NULL},
    {"follow-failure", NULL, &follow_policy, NULL, 0, "b1"},
    {"amfs-aware", "amfs", NULL, "config=aware,steal=0", 0, NULL},
    {"amfs-cache", "amfs", NULL, "config=cache,steal=0", 0, NULL},
    {"amfs-staging", "amfs", NULL, "config=staging,steal=0", 0, NULL},
    {"amfs-cogather", "amfs", NULL, "config=cogather,steal=0", 0, NULL},
    {"dask", "dask", NULL, "steal=0,durations=known", 0, NULL},
    {"taskvine", "taskvine", NULL, NULL, 0, NULL},
    {"fifo", "fifo", NULL, NULL, 1, NULL},
    {"scal", "scal", NULL, NULL, 1, NULL},
    {"dlmpi", "dlmpi", NULL, NULL, 1, NULL},
    {"gtp", "gtp", NULL, "period=0.3", 0, NULL},
    {"gtp-c", "gtp-c", NULL, "period=0.3", 0, NULL},
    {"gtp-r-failure", "gtp-r", NULL, "period=0.3", 0, "b1"},
    {"rewind", NULL, &rewind_policy, NULL, 0, NULL},
};

/* What the task functions need. */
struct ctx {
	const struct locus_graph *g;
	long fail; /* task id whose first attempt fails, or -1 */
};

static int task_fn(void *user, const struct locus_mpi_flow_task *t, char *why, size_t why_size)
{
	const struct ctx *x = user;
	double work = x->g->tasks[t->task].work;
	struct timespec ts = {(time_t)work, (long)((work - (double)(time_t)work) * 1e9)};
	nanosleep(&ts, NULL);
	if ((long)t->task == x->fail && t->attempt == 0) {
		snprintf(why, why_size, "a first attempt that fails (injected)");
		return -1;
	}
	static char buf[FILE_BYTES];
	memset(buf, (int)('a' + t->task % 26), sizeof buf);
	for (uint32_t k = 0; k < t->n_out; k++) {
		int fd = open(t->out[k], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, buf, sizeof buf) != (ssize_t)sizeof buf || close(fd)) {
			snprintf(why, why_size, "cannot write %s", t->out[k]);
			return -1;
		}
	}
	return 0;
}

static int sim_fails(void *user, uint32_t task, uint32_t attempt)
{
	const struct ctx *x = user;
	return (long)task == x->fail && attempt == 0;
}

/* Adds task `name` of `work` seconds reading objects in[0 .. n_in) and
 * writing one file, "NAME.out"; returns that file's id, or -1. */
static long add_task(struct locus_graph *g, const char *name, double work, const long *in,
		     size_t n_in)
{
	struct locus_error err;
	char out[64];
	long t = locus_graph_add_task(g, name, work);
	for (size_t k = 0; t >= 0 && k < n_in; k++)
		if (in[k] < 0 || locus_graph_add_input(g, (uint32_t)t, (uint32_t)in[k]))
			return -1;
	snprintf(out, sizeof out, "%s.out", name);
	long o = locus_graph_add_object(g, out, FILE_BYTES);
	if (t < 0 || o < 0 || locus_graph_add_output(g, (uint32_t)t, (uint32_t)o, &err))
		return -1;
	return o;
}

/* "waves": a0..a3 read i0..i3; b_k reads a_k's and a_(k+1)'s outputs; c
 * reads every b's. The works are 0.08 s or more apart within a stage and
 * chosen so that no decision is a near tie: in the simulator, the plans
 * (heft, dask, GTP) stay the same with every work 2% off and GTP's
 * rescheduling points 6 ms off, and the policies that place tasks as
 * they become ready decide alike with every work up to 50 ms off, as
 * often as with the works this test had before (a real run's times
 * wander by milliseconds, by tens of them on a loaded machine; equal sums
 * of works would let them decide). The bag: eight independent tasks over
 * the four inputs. */
static const double a_work[4] = {0.33, 0.18, 0.48, 0.10}, b_work[4] = {0.13, 0.49, 0.32, 0.21};

static struct locus_graph *workflow(int bag)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	char name[32];
	long in[4], a[4], b[4];
	if (locus_graph_create(&g, bag ? "bag" : "waves", &err))
		return NULL;
	int ok = 1;
	for (int k = 0; k < 4; k++) {
		snprintf(name, sizeof name, "i%d", k);
		ok &= (in[k] = locus_graph_add_object(g, name, FILE_BYTES)) >= 0;
	}
	for (int k = 0; bag && k < 8 && ok; k++) {
		snprintf(name, sizeof name, "t%d", k);
		ok = add_task(g, name, 0.05 + 0.1 * ((k * 3) % 8) + 0.007 * k, &in[k % 4], 1) >= 0;
	}
	for (int k = 0; !bag && k < 4 && ok; k++) {
		snprintf(name, sizeof name, "a%d", k);
		ok = (a[k] = add_task(g, name, a_work[k], &in[k], 1)) >= 0;
	}
	for (int k = 0; !bag && k < 4 && ok; k++) {
		snprintf(name, sizeof name, "b%d", k);
		long two[] = {a[k], a[(k + 1) % 4]};
		ok = (b[k] = add_task(g, name, b_work[k], two, 2)) >= 0;
	}
	if (!bag && ok)
		ok = add_task(g, "c", 0.05, b, 4) >= 0;
	if (!ok || locus_graph_finish(g, &err)) {
		locus_graph_destroy(g);
		return NULL;
	}
	return g;
}

static int write_inputs(const struct locus_graph *g, const char *shared)
{
	static char buf[FILE_BYTES];
	memset(buf, 'i', sizeof buf);
	for (uint32_t o = 0; o < g->n_objects; o++) {
		if (g->objects[o].producer != LOCUS_NONE)
			continue;
		char p[PATH_MAX * 2];
		snprintf(p, sizeof p, "%s/%s", shared, g->objects[o].name);
		int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, buf, sizeof buf) != (ssize_t)sizeof buf || close(fd))
			return -1;
	}
	return 0;
}

/* A copy as both engines list it. */
struct copy {
	uint32_t object, from, to;
};

static int copy_cmp(const void *a, const void *b)
{
	const struct copy *x = a, *y = b;
	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

static struct copy *copies_of(const struct locus_result *r)
{
	struct copy *c = calloc(r->n_xfers + 1, sizeof *c);
	for (size_t i = 0; c && i < r->n_xfers; i++)
		c[i] = (struct copy){r->xfers[i].object, r->xfers[i].from, r->xfers[i].to};
	if (c)
		qsort(c, r->n_xfers, sizeof *c, copy_cmp);
	return c;
}

static const char *place_name(const struct locus_platform *p, uint32_t n)
{
	return n == UINT32_MAX ? "the file system" : n < p->n_nodes ? p->nodes[n].name : "?";
}

/* How far the run's first tasks (those that read the workflow's inputs
 * alone) ended from their simulated ends, in seconds: the works keep the
 * decisions 50 ms apart, so a run whose first tasks wandered further (a
 * loaded machine: tens of milliseconds late each) cannot be judged. */
static double wander(const struct locus_graph *g, const struct locus_result *real,
		     const struct locus_result *sim)
{
	double most = 0;
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task *tk = &g->tasks[t];
		int first = 1;
		for (uint32_t k = 0; k < tk->n_in; k++)
			first &= g->objects[g->inputs[tk->in_at + k]].producer == LOCUS_NONE;
		double d = fabs(real->tasks[t].end - sim->tasks[t].end);
		if (first && d > most)
			most = d;
	}
	return most;
}

/* Rank 0: the simulated run on the real run's platform, compared with it.
 * Returns the mismatches; *wandered, wander()'s. */
static int compare(const struct ccase *c, const struct locus_graph *g,
		   const struct locus_mpi_flow_report *rep, struct ctx *x, double *wandered)
{
	int bad = 0;
	struct locus_workload *wl = NULL;
	struct locus_result *sim = NULL;
	struct locus_error err;
	const struct locus_result *real = rep->result;
	if (locus_workload_from_graph(&wl, rep->platform, g, NULL, &err)) {
		fprintf(stderr, "%s: workload: %s\n", c->name, err.message);
		return 1;
	}
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = c->policy ? locus_policy_find(c->policy) : c->def,
				       .policy_opts = c->opts,
				       .seed = 7,
				       .latency = -1,
				       .fails = sim_fails,
				       .fails_user = x,
				       .retries = 1};
	if (locus_sim_run(&sim, &cfg, &err)) {
		fprintf(stderr, "%s: the simulator: %s\n", c->name, err.message);
		locus_workload_destroy(wl);
		return 1;
	}
	/* The task that failed once, or that policy rewound, ran twice; every
	 * other once. */
	long twice = locus_graph_find_task(g, c->fail			 ? c->fail
					      : c->def == &rewind_policy ? "a0"
									 : "");
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task_result *a = &real->tasks[t], *b = &sim->tasks[t];
		if (a->attempts != 1 + ((long)t == twice)) {
			bad++;
			fprintf(stderr, "%s: task %s ran %" PRIu32 " times\n", c->name,
				g->tasks[t].name, a->attempts);
		}
		if (a->worker != b->worker || a->attempts != b->attempts) {
			if (bad++ < 4)
				fprintf(stderr,
					"%s: task %s ran on worker %" PRIu32 " (%" PRIu32
					" attempts), in the simulator on %" PRIu32 " (%" PRIu32
					")\n",
					c->name, g->tasks[t].name, a->worker, a->attempts,
					b->worker, b->attempts);
		}
	}
	struct copy *ca = copies_of(real), *cb = copies_of(sim);
	size_t i = 0, j = 0;
	while (ca && cb && (i < real->n_xfers || j < sim->n_xfers)) {
		int d = i == real->n_xfers ? 1 : j == sim->n_xfers ? -1 : copy_cmp(&ca[i], &cb[j]);
		if (!d) {
			i++, j++;
			continue;
		}
		const struct copy *k = d < 0 ? &ca[i++] : &cb[j++];
		if (bad++ < 8)
			fprintf(stderr, "%s: %s copied %s from %s to %s; %s did not\n", c->name,
				d < 0 ? "the run" : "the simulator", g->objects[k->object].name,
				place_name(rep->platform, k->from),
				place_name(rep->platform, k->to),
				d < 0 ? "the simulator" : "the run");
	}
	*wandered = wander(g, real, sim);
	if (bad || getenv("CONFORM_VERBOSE"))
		for (uint32_t t = 0; t < g->n_tasks; t++)
			fprintf(
			    stderr,
			    "%s: %-3s run: worker %u %.3f-%.3f   simulated: worker %u %.3f-%.3f\n",
			    c->name, g->tasks[t].name, real->tasks[t].worker, real->tasks[t].start,
			    real->tasks[t].end, sim->tasks[t].worker, sim->tasks[t].start,
			    sim->tasks[t].end);
	if (!bad)
		printf("ok   %-14s %zu tasks on the same workers, %zu copies alike%s\n", c->name,
		       g->n_tasks, real->n_xfers,
		       c->fail			  ? ", the failure recovered alike"
		       : c->def == &rewind_policy ? ", the task rewound alike"
						  : "");
	free(ca);
	free(cb);
	locus_result_destroy(sim);
	locus_workload_destroy(wl);
	return bad;
}

/* One case on the ranks of comm (all of them: rank 0 the scheduler). */
static int run_case(MPI_Comm comm, const struct ccase *c, const char *dir, int attempt, int *again)
{
	int rank;
	MPI_Comm_rank(comm, &rank);
	struct locus_graph *g = workflow(c->bag);
	char shared[PATH_MAX], local[PATH_MAX];
	snprintf(shared, sizeof shared, "%s/%s-shared-%d", dir, c->name, attempt);
	snprintf(local, sizeof local, "%s/%s-local-%d", dir, c->name, attempt);
	*again = 0;
	int ok = g != NULL;
	if (rank == 0 && ok)
		ok = !mkdir(shared, 0755) && !mkdir(local, 0755) && !write_inputs(g, shared);
	MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
	if (!ok) {
		locus_graph_destroy(g);
		if (rank == 0)
			fprintf(stderr, "%s: cannot set up\n", c->name);
		return 1;
	}
	long fail = c->fail ? locus_graph_find_task(g, c->fail) : -1;
	struct ctx x = {g, fail};
	struct locus_mpi_flow_options o = {.graph = g,
					   .shared = shared,
					   .local = local,
					   .policy = c->policy,
					   .policy_def = c->policy ? NULL : c->def,
					   .policy_opts = c->opts,
					   .emulate_nodes = 2,
					   .seed = 7,
					   .retries = 1,
					   .fn = task_fn,
					   .user = &x};
	struct locus_mpi_flow_report rep;
	struct locus_error err;
	int rc = locus_mpi_flow_run(comm, &o, &rep, &err), bad = 0;
	double wandered = 0;
	if (rc) {
		bad = 1;
		if (rank == 0)
			fprintf(stderr, "%s: the run failed: %s\n", c->name, err.message);
	} else if (rank == 0) {
		bad = compare(c, g, &rep, &x, &wandered);
		if (bad && wandered > 0.05 && attempt < 3) {
			fprintf(
			    stderr,
			    "%s: the run's first tasks ended up to %.0f ms from their simulated "
			    "ends, more than the 50 ms the works allow (a loaded machine): "
			    "again\n",
			    c->name, 1e3 * wandered);
			*again = 1;
		}
	}
	MPI_Bcast(&bad, 1, MPI_INT, 0, comm);
	MPI_Bcast(again, 1, MPI_INT, 0, comm);
	locus_mpi_flow_report_fini(&rep);
	locus_graph_destroy(g);
	return bad;
}

int main(int argc, char **argv)
{
	/* Task functions on a thread of their own: a rank serves its files
	 * while one runs, as a simulated node does. */
	int level;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &level);
	int rank, size, failures = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 3) {
		if (rank == 0)
			fprintf(stderr, "usage: mpirun -np 3 %s [CASE...]\n", argv[0]);
		MPI_Finalize();
		return 2;
	}
	char dir[] = "/tmp/locus-conform.XXXXXX";
	int made = rank == 0 ? mkdtemp(dir) != NULL : 1;
	MPI_Bcast(&made, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
	/* The bag's one worker: ranks 0 and 1. */
	MPI_Comm pair;
	MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
	for (size_t i = 0; made && i < sizeof cases / sizeof *cases; i++) {
		const struct ccase *c = &cases[i];
		int wanted = argc < 2;
		for (int a = 1; a < argc; a++)
			wanted |= !strcmp(argv[a], c->name);
		if (!wanted)
			continue;
		/* A case whose run wandered too far to be judged is run again,
		 * twice at most; then its mismatches count. */
		int again = 1, bad = 0;
		for (int attempt = 1; again; attempt++) {
			if (!c->bag)
				bad = run_case(MPI_COMM_WORLD, c, dir, attempt, &again) != 0;
			else if (pair != MPI_COMM_NULL)
				bad = run_case(pair, c, dir, attempt, &again) != 0;
			MPI_Bcast(&again, 1, MPI_INT, 0, MPI_COMM_WORLD);
		}
		failures += bad;
		MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
	}
	if (pair != MPI_COMM_NULL)
		MPI_Comm_free(&pair);
	if (rank == 0 && made) {
		char cmd[PATH_MAX];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "test_conform: cannot remove %s\n", dir);
	}
	if (LEAK_CHECK())
		failures++;
	MPI_Finalize();
	if (rank == 0)
		printf("%s\n", failures ? "conform: FAILED" : "conform: all passed");
	return !made || failures > 0;
}
