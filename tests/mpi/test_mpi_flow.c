/*
 * Workflows of task functions (locus_mpi_flow_run with options.fn) under
 * mpirun: every task runs exactly once, after its inputs, and the final
 * outputs equal a sequential evaluation of the same functions.
 *
 *   mpirun -np N test_mpi_flow SEED TASKS POLICY [OPTS] [MODE...]
 *
 * The workflow is random (SEED): task i reads 0 to 3 earlier files or
 * workflow inputs (one in eight reads up to 12: a gather) and writes 1 or
 * 2 files; each output holds a hash of the task's name, its output's
 * position and its inputs' bytes. OPTS ("-" for none) are the policy's
 * options. Rank 0 is the policy's; the others are workers on N - 1
 * emulated nodes. Modes:
 *   flaky      the first attempt of every fifth task fails (retries = 1):
 *              those run twice, the others once;
 *   broken=T   task T fails on every attempt: the run ends with an error
 *              that names it and quotes the function's reason;
 *   resume     a first run with a journal is cancelled after about half
 *              the tasks; a second run on the same journal runs no task
 *              the journal recorded, and each task the first did not
 *              finish exactly once;
 *   slow       each call takes 20 ms and an idle rank sleeps up to 1 s:
 *              the run takes well under 5 s only if the ranks' doorbells
 *              wake them when a message comes (and some did).
 * Exits 0 when every check holds.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "locus/locus.h"
#include "locus/mpi.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAK_CHECK() __lsan_do_recoverable_leak_check()
#else
#define LEAK_CHECK() 0
#endif

#define MAX_IN 12

struct ctx {
	const struct locus_graph *g;
	int flaky;
	long broken;
	unsigned char *calls;	 /* by task: calls this rank made */
	unsigned char *finished; /* by task: calls that succeeded here */
	size_t n_finished, cancel_after;
	volatile int cancel;
	int bad;  /* a check inside a call failed */
	int slow; /* each call takes 20 ms */
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	return h;
}

/* What output k of task t holds, its inputs' bytes given. */
static int output_text(char *buf, size_t size, const char *task, uint32_t k, uint64_t inputs)
{
	uint64_t h = fnv(14695981039346656037ULL, task, strlen(task));
	h = fnv(h, &k, sizeof k);
	h = fnv(h, &inputs, sizeof inputs);
	return snprintf(buf, size, "%s.%u %016" PRIx64 "\n", task, k, h);
}

static int read_all(const char *path, char *buf, size_t size, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size);
	close(fd);
	if (n < 0)
		return -1;
	*len = (size_t)n;
	return 0;
}

static int task_fn(void *user, const struct locus_mpi_flow_task *t, char *why, size_t why_size)
{
	struct ctx *x = user;
	const struct locus_task *tk = &x->g->tasks[t->task];
	/* The index is the full workflow's, also in a resumed run. */
	if (!t->name || strcmp(t->name, tk->name) || t->n_in != tk->n_in || t->n_out != tk->n_out)
		x->bad = 1;
	x->calls[t->task]++;
	if (x->slow) {
		struct timespec ts = {0, 20000000};
		nanosleep(&ts, NULL);
	}
	if ((long)t->task == x->broken) {
		snprintf(why, why_size, "task %s is broken on purpose", t->name);
		return -1;
	}
	if (x->flaky && t->task % 5 == 0 && t->attempt == 0) {
		snprintf(why, why_size, "a first attempt that fails");
		return -1;
	}
	uint64_t h = 14695981039346656037ULL;
	for (uint32_t k = 0; k < t->n_in; k++) {
		char buf[256];
		size_t n = 0;
		if (read_all(t->in[k], buf, sizeof buf, &n)) {
			snprintf(why, why_size, "cannot read %s", t->in[k]);
			return -1;
		}
		h = fnv(h, buf, n);
	}
	for (uint32_t k = 0; k < t->n_out; k++) {
		char buf[256];
		int n = output_text(buf, sizeof buf, t->name, k, h);
		int fd = open(t->out[k], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, buf, (size_t)n) != n || close(fd)) {
			snprintf(why, why_size, "cannot write %s", t->out[k]);
			return -1;
		}
	}
	x->finished[t->task] = 1;
	if (x->cancel_after && ++x->n_finished >= x->cancel_after)
		x->cancel = 1;
	return 0;
}

/* The random workflow: 4 inputs i0..i3, tasks t0.. */
static struct locus_graph *workflow(uint64_t seed, size_t n)
{
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	if (locus_graph_create(&g, "random", &err))
		return NULL;
	struct locus_rng rng;
	locus_rng_init(&rng, seed);
	char name[64];
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "i%d", i);
		locus_graph_add_object(g, name, 32);
	}
	for (size_t t = 0; t < n; t++) {
		snprintf(name, sizeof name, "t%zu", t);
		long id = locus_graph_add_task(g, name, 0.001);
		size_t objs = g->n_objects;
		size_t n_in = locus_rng_below(&rng, 8) == 0 ? 4 + locus_rng_below(&rng, MAX_IN - 3)
							    : locus_rng_below(&rng, 4);
		for (size_t k = 0; k < n_in; k++)
			locus_graph_add_input(g, (uint32_t)id,
					      (uint32_t)locus_rng_below(&rng, objs));
		size_t n_out = 1 + locus_rng_below(&rng, 2);
		for (size_t k = 0; k < n_out; k++) {
			snprintf(name, sizeof name, "t%zu.%zu", t, k);
			long o = locus_graph_add_object(g, name, 32);
			if (o < 0 || locus_graph_add_output(g, (uint32_t)id, (uint32_t)o, &err)) {
				locus_graph_destroy(g);
				return NULL;
			}
		}
	}
	if (locus_graph_finish(g, &err)) {
		fprintf(stderr, "test_mpi_flow: %s\n", err.message);
		locus_graph_destroy(g);
		return NULL;
	}
	return g;
}

/* Rank 0: the workflow's inputs in the shared directory. */
static int write_inputs(const struct locus_graph *g, const char *shared)
{
	for (uint32_t o = 0; o < g->n_objects; o++) {
		if (g->objects[o].producer != LOCUS_NONE)
			continue;
		char p[PATH_MAX * 2];
		snprintf(p, sizeof p, "%s/%s", shared, g->objects[o].name);
		FILE *fp = fopen(p, "w");
		if (!fp)
			return -1;
		fprintf(fp, "input %s\n", g->objects[o].name);
		fclose(fp);
	}
	return 0;
}

/* Rank 0: the sequential evaluation, compared with the final outputs the
 * run left in the shared directory. Returns the number of mismatches. */
static size_t check_finals(const struct locus_graph *g, const char *shared)
{
	char(*text)[128] = calloc(g->n_objects, sizeof *text);
	size_t bad = 0;
	for (uint32_t o = 0; o < g->n_objects; o++)
		if (g->objects[o].producer == LOCUS_NONE)
			snprintf(text[o], sizeof text[o], "input %s\n", g->objects[o].name);
	for (size_t k = 0; k < g->n_tasks; k++) {
		uint32_t t = g->topo[k];
		const struct locus_task *tk = &g->tasks[t];
		uint64_t h = 14695981039346656037ULL;
		for (uint32_t i = 0; i < tk->n_in; i++) {
			const char *s = text[g->inputs[tk->in_at + i]];
			h = fnv(h, s, strlen(s));
		}
		for (uint32_t i = 0; i < tk->n_out; i++)
			output_text(text[g->outputs[tk->out_at + i]], sizeof text[0], tk->name, i,
				    h);
	}
	for (uint32_t o = 0; o < g->n_objects; o++) {
		if (g->objects[o].producer == LOCUS_NONE || g->objects[o].n_cons)
			continue;
		char p[PATH_MAX * 2], buf[256];
		size_t n = 0;
		snprintf(p, sizeof p, "%s/%s", shared, g->objects[o].name);
		if (read_all(p, buf, sizeof buf, &n) || n != strlen(text[o]) ||
		    memcmp(buf, text[o], n)) {
			if (bad++ < 3)
				fprintf(stderr,
					"test_mpi_flow: final %s differs from the sequential one: "
					"\"%.*s\", not \"%s\"\n",
					g->objects[o].name, (int)n, buf, text[o]);
		}
		unlink(p);
	}
	free(text);
	return bad;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 4 || size < 2) {
		if (rank == 0)
			fprintf(stderr,
				"usage: mpirun -np N %s SEED TASKS POLICY [OPTS] [MODE...]\n",
				argv[0]);
		MPI_Finalize();
		return 2;
	}
	uint64_t seed = strtoull(argv[1], NULL, 10);
	size_t n = strtoul(argv[2], NULL, 10);
	const char *policy = argv[3];
	const char *opts = argc > 4 && strcmp(argv[4], "-") ? argv[4] : NULL;
	int flaky = 0, resume = 0, slow = 0;
	long broken = -1;
	for (int i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "flaky"))
			flaky = 1;
		else if (!strncmp(argv[i], "broken=", 7))
			broken = atol(argv[i] + 7);
		else if (!strcmp(argv[i], "resume"))
			resume = 1;
		else if (!strcmp(argv[i], "slow"))
			slow = 1;
	}
	struct locus_graph *g = workflow(seed, n);
	char shared[PATH_MAX] = "", journal[PATH_MAX + 16] = "";
	if (rank == 0) {
		const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
		snprintf(shared, sizeof shared, "%s/test_mpi_flow.XXXXXX", tmp);
		if (!g || !mkdtemp(shared) || write_inputs(g, shared))
			shared[0] = 0;
	}
	MPI_Bcast(shared, sizeof shared, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (!shared[0]) {
		MPI_Finalize();
		return 1;
	}
	snprintf(journal, sizeof journal, "%s.journal", shared);
	struct ctx x = {.g = g, .flaky = flaky, .broken = broken, .slow = slow};
	x.calls = calloc(n + 1, 1);
	x.finished = calloc(n + 1, 1);
	struct locus_mpi_flow_options o = {.graph = g,
					   .shared = shared,
					   .policy = policy,
					   .policy_opts = opts,
					   .dispatchers = 1,
					   .emulate_nodes = (size_t)size - 1,
					   .seed = seed,
					   .retries = flaky,
					   .fn = task_fn,
					   .user = &x,
					   .journal = resume ? journal : NULL,
					   .cancel = &x.cancel,
					   /* slow: ranks sleep up to 1 s unless rung */
					   .max_idle_sleep = slow ? 1.0 : 0};
	struct locus_mpi_flow_report rep;
	struct locus_error err = {0};
	int fails = 0;
	unsigned char *first = rank == 0 ? calloc(n + 1, 1) : NULL;
	if (resume) {
		/* Cancelled once about half the tasks have finished. */
		x.cancel_after = n / 2 / (size_t)(size - 1) + 1;
		int rc = locus_mpi_flow_run(MPI_COMM_WORLD, &o, &rep, &err);
		locus_mpi_flow_report_fini(&rep);
		if (!rc) {
			if (rank == 0)
				fprintf(stderr, "FAIL: the cancelled run succeeded\n");
			fails++;
		}
		MPI_Reduce(x.finished, first, (int)n, MPI_UNSIGNED_CHAR, MPI_MAX, 0,
			   MPI_COMM_WORLD);
		memset(x.calls, 0, n);
		x.cancel_after = 0;
		x.cancel = 0;
	}
	double t0 = MPI_Wtime();
	int rc = locus_mpi_flow_run(MPI_COMM_WORLD, &o, &rep, &err);
	double secs = MPI_Wtime() - t0;
	unsigned long long rings = 0, my_rings = rep.rings;
	MPI_Reduce(&my_rings, &rings, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	unsigned char *calls = rank == 0 ? calloc(n + 1, 1) : NULL;
	MPI_Reduce(x.calls, calls, (int)n, MPI_UNSIGNED_CHAR, MPI_SUM, 0, MPI_COMM_WORLD);
	int bad = x.bad, any_bad = 0;
	MPI_Reduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		if (any_bad) {
			fprintf(stderr, "FAIL: a function was told another task's name or files\n");
			fails++;
		}
		if (broken >= 0) {
			char want[64];
			snprintf(want, sizeof want, "task t%ld is broken on purpose", broken);
			if (!rc || !strstr(err.message, want)) {
				fprintf(stderr, "FAIL: broken task: rc %d, \"%s\"\n", rc,
					err.message);
				fails++;
			}
		} else if (rc) {
			fprintf(stderr, "FAIL: %s\n", err.message);
			fails++;
		} else {
			/* Resumed: a task the first run finished runs again only
			 * when its line had not reached the journal, and the
			 * tasks not run again are those the journal kept. */
			size_t skipped = 0;
			for (size_t t = 0; t < n; t++) {
				int want = flaky && t % 5 == 0 ? 2 : 1;
				if (resume && first[t] && calls[t] == 0) {
					skipped++;
					continue;
				}
				if (calls[t] != want && fails++ < 3)
					fprintf(stderr, "FAIL: task t%zu ran %d times, not %d\n", t,
						calls[t], want);
			}
			if (resume &&
			    (skipped == 0 || skipped == n || rep.skipped != skipped || rep.rerun)) {
				fprintf(stderr,
					"FAIL: %zu tasks not run again, the journal kept %zu, %zu "
					"run again\n",
					skipped, rep.skipped, rep.rerun);
				fails++;
			}
			fails += (int)check_finals(g, shared);
			/* slow: every rank waits for its peers' messages asleep (up
			 * to 1 s a sleep); their doorbells wake it. Without them
			 * each step of the workflow's longest path could wait a
			 * second (about 20 s in all). */
			if (slow && (!rings || secs > 5.0)) {
				fprintf(stderr,
					"FAIL: %llu sleeps ended by a doorbell, %.2f s for %zu "
					"tasks of 20 ms\n",
					rings, secs, n);
				fails++;
			}
			/* The run's own times: every task after its inputs. */
			const struct locus_result *r = rep.result;
			for (size_t t = 0; r && !resume && t < n; t++)
				for (uint32_t k = 0; k < g->tasks[t].n_in; k++) {
					uint32_t p =
					    g->objects[g->inputs[g->tasks[t].in_at + k]].producer;
					if (p != LOCUS_NONE &&
					    r->tasks[t].start < r->tasks[p].end) {
						fprintf(stderr,
							"FAIL: t%zu started before t%u ended\n", t,
							p);
						fails++;
					}
				}
		}
		printf("%s %s%s%s%s%s: %zu tasks, %s\n", policy, opts ? opts : "",
		       flaky ? " flaky" : "", broken >= 0 ? " broken" : "", resume ? " resume" : "",
		       slow ? " slow" : "", n, fails ? "FAILED" : "ok");
	}
	locus_mpi_flow_report_fini(&rep);
	if (rank == 0) {
		char p[PATH_MAX * 2];
		for (uint32_t ob = 0; ob < g->n_objects; ob++) {
			snprintf(p, sizeof p, "%s/%s", shared, g->objects[ob].name);
			unlink(p);
		}
		rmdir(shared);
		unlink(journal);
	}
	free(calls);
	free(first);
	free(x.calls);
	free(x.finished);
	locus_graph_destroy(g);
	MPI_Bcast(&fails, 1, MPI_INT, 0, MPI_COMM_WORLD);
	(void)LEAK_CHECK();
	MPI_Finalize();
	return fails ? 1 : 0;
}
