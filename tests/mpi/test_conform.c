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
 *  - "waves": 9 tasks in three stages whose works differ by 0.1 s or
 *    more, so that tasks end, and become ready, in one order on both
 *    engines (a real run's times wander by milliseconds);
 *  - work stealing is off (amfs steal=0, dask steal=0): a thief steals
 *    when it idles, which real time decides;
 *  - dask plans with the tasks' known durations (durations=known), not
 *    those it measures;
 *  - the chunk policies (fifo, scal, dlmpi) run the "bag" (independent
 *    tasks) with one worker: with two, which worker asks first at the
 *    start is a race of real time.
 * A failure is injected in both (the first attempt of task b1 fails: the
 * function returns an error, the simulator's `fails` says so): a policy
 * that places failed tasks itself (the example policy "follow") hears of
 * it and moves the task; the executor runs heft's task again on another
 * node's worker and brings its outputs home; both engines alike. GTP/c is
 * refused by the MPI runtime (it needs a monitor of every task), with a
 * message that names both.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
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

struct ccase {
	const char *name;
	const char *policy; /* NULL: the example policy, follow */
	const char *opts;
	int bag;	     /* the bag of independent tasks on one worker */
	const char *fail;    /* the task whose first attempt fails, or NULL */
	const char *refused; /* the MPI runtime refuses it, saying this */
};

static const struct ccase cases[] = {
    {"heft", "heft", NULL, 0, NULL, NULL},
    {"heft-failure", "heft", NULL, 0, "b1", NULL},
    {"follow", NULL, NULL, 0, NULL, NULL},
    {"follow-failure", NULL, NULL, 0, "b1", NULL},
    {"amfs-aware", "amfs", "config=aware,steal=0", 0, NULL, NULL},
    {"amfs-cache", "amfs", "config=cache,steal=0", 0, NULL, NULL},
    {"amfs-staging", "amfs", "config=staging,steal=0", 0, NULL, NULL},
    {"amfs-cogather", "amfs", "config=cogather,steal=0", 0, NULL, NULL},
    {"dask", "dask", "steal=0,durations=known", 0, NULL, NULL},
    {"taskvine", "taskvine", NULL, 0, NULL, NULL},
    {"fifo", "fifo", NULL, 1, NULL, NULL},
    {"scal", "scal", NULL, 1, NULL, NULL},
    {"dlmpi", "dlmpi", NULL, 1, NULL, NULL},
    {"gtp-c", "gtp-c", NULL, 0, NULL,
     "policy gtp-c needs a monitor of every task's progress, which the MPI runtime does not "
     "offer"},
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
 * reads every b's. Works 0.1 s apart within a stage, and no two sums of
 * them alike (the simulator's ties are real time's races). The bag:
 * eight independent tasks over the four inputs. */
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
		ok = (a[k] = add_task(g, name, 0.1 * (k + 1) + 0.017 * k, &in[k], 1)) >= 0;
	}
	for (int k = 0; !bag && k < 4 && ok; k++) {
		snprintf(name, sizeof name, "b%d", k);
		long two[] = {a[k], a[(k + 1) % 4]};
		ok = (b[k] = add_task(g, name, 0.1 * (4 - k) + 0.05 + 0.011 * k, two, 2)) >= 0;
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

/* Rank 0: the simulated run on the real run's platform, compared with it.
 * Returns the mismatches. */
static int compare(const struct ccase *c, const struct locus_graph *g,
		   const struct locus_mpi_flow_report *rep, struct ctx *x)
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
				       .policy = c->policy ? locus_policy_find(c->policy)
							   : &follow_policy,
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
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task_result *a = &real->tasks[t], *b = &sim->tasks[t];
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
		       g->n_tasks, real->n_xfers, c->fail ? ", the failure recovered alike" : "");
	free(ca);
	free(cb);
	locus_result_destroy(sim);
	locus_workload_destroy(wl);
	return bad;
}

/* One case on the ranks of comm (all of them: rank 0 the scheduler). */
static int run_case(MPI_Comm comm, const struct ccase *c, const char *dir)
{
	int rank;
	MPI_Comm_rank(comm, &rank);
	struct locus_graph *g = workflow(c->bag);
	char shared[PATH_MAX], local[PATH_MAX];
	snprintf(shared, sizeof shared, "%s/%s-shared", dir, c->name);
	snprintf(local, sizeof local, "%s/%s-local", dir, c->name);
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
					   .policy_def = c->policy ? NULL : &follow_policy,
					   .policy_opts = c->opts,
					   .emulate_nodes = 2,
					   .seed = 7,
					   .retries = 1,
					   .fn = task_fn,
					   .user = &x};
	struct locus_mpi_flow_report rep;
	struct locus_error err;
	int rc = locus_mpi_flow_run(comm, &o, &rep, &err), bad = 0;
	if (c->refused) {
		bad = rc != LOCUS_ENOTSUP || !strstr(err.message, c->refused);
		if (rank == 0)
			printf("%s %-14s refused: %s\n", bad ? "FAIL" : "ok  ", c->name,
			       rc ? err.message : "(it ran)");
	} else if (rc) {
		bad = 1;
		if (rank == 0)
			fprintf(stderr, "%s: the run failed: %s\n", c->name, err.message);
	} else if (rank == 0) {
		bad = compare(c, g, &rep, &x);
	}
	MPI_Bcast(&bad, 1, MPI_INT, 0, comm);
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
		if (!c->bag)
			failures += run_case(MPI_COMM_WORLD, c, dir) != 0;
		else if (pair != MPI_COMM_NULL)
			failures += run_case(pair, c, dir) != 0;
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
