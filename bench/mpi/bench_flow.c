/*
 * The workflow engine's rate with task functions in the process
 * (locus_mpi_flow_run with options.fn), for bench/mpi/flow_rates.sh:
 *
 *   mpirun -np N bench_flow [--tasks T] [--chain C] [--policy P] [--reps R]
 *
 * Rank 0 is the policy's (one dispatcher), every other rank a worker on an
 * emulated node of its own. Two workflows, each run R times (default 3):
 *  - T independent empty tasks (no files: the function returns at once);
 *  - a chain of C tasks, each reading its predecessor's output (a file of
 *    a few bytes on a node's storage, /dev/shm) and writing its own.
 * Prints one line a run: "bench_flow KIND ranks N tasks T makespan S rate
 * R wall W", where rate = T / makespan (the run's own clock, first
 * assignment to last end) and W the whole call (set-up and results too).
 * Checks that every task ran exactly once and that the chain's last file
 * holds C - 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locus/locus.h"
#include "locus/mpi.h"

struct counts {
	unsigned char *ran; /* by task: calls */
	int chain;
};

static int task_fn(void *user, const struct locus_mpi_flow_task *t, char *why, size_t why_size)
{
	struct counts *c = user;
	c->ran[t->task]++;
	if (!c->chain)
		return 0;
	/* The predecessor's number, plus one. */
	long v = -1;
	if (t->n_in) {
		char buf[32] = {0};
		int fd = open(t->in[0], O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n <= 0) {
			snprintf(why, why_size, "cannot read %s: %s", t->in[0], strerror(errno));
			return -1;
		}
		v = strtol(buf, NULL, 10);
	}
	char out[32];
	int len = snprintf(out, sizeof out, "%ld\n", v + 1);
	int fd = open(t->out[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, out, (size_t)len) != len || close(fd)) {
		snprintf(why, why_size, "cannot write %s: %s", t->out[0], strerror(errno));
		return -1;
	}
	return 0;
}

static int build(struct locus_graph **g, size_t n, int chain)
{
	struct locus_error err = {0};
	int rc = locus_graph_create(g, chain ? "chain" : "independent", &err);
	char name[32];
	long prev = -1;
	for (size_t i = 0; !rc && i < n; i++) {
		snprintf(name, sizeof name, "t%zu", i);
		long t = locus_graph_add_task(*g, name, 0);
		if (t < 0)
			return (int)t;
		if (!chain)
			continue;
		snprintf(name, sizeof name, "o%zu", i);
		long o = locus_graph_add_object(*g, name, 8);
		if (o < 0)
			return (int)o;
		rc = locus_graph_add_output(*g, (uint32_t)t, (uint32_t)o, &err);
		if (!rc && prev >= 0)
			rc = locus_graph_add_input(*g, (uint32_t)t, (uint32_t)prev);
		prev = o;
	}
	if (!rc)
		rc = locus_graph_finish(*g, &err);
	if (rc)
		fprintf(stderr, "bench_flow: %s\n", err.message);
	return rc;
}

static int run(const char *kind, size_t n, const char *policy, const char *shared, int rank,
	       int size)
{
	struct locus_graph *g = NULL;
	int chain = !strcmp(kind, "chain");
	int rc = build(&g, n, chain);
	if (rc)
		return rc;
	struct counts c = {calloc(n + 1, 1), chain};
	struct locus_mpi_flow_options o = {.graph = g,
					   .shared = shared,
					   .policy = policy,
					   .dispatchers = 1,
					   .emulate_nodes = (size_t)size - 1,
					   .seed = 1,
					   .fn = task_fn,
					   .user = &c};
	struct locus_mpi_flow_report rep;
	struct locus_error err = {0};
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	rc = locus_mpi_flow_run(MPI_COMM_WORLD, &o, &rep, &err);
	double wall = MPI_Wtime() - t0;
	if (rc && rank == 0)
		fprintf(stderr, "bench_flow: %s\n", err.message);
	/* Every task once, over all ranks. */
	unsigned char *all = rank == 0 ? calloc(n + 1, 1) : NULL;
	MPI_Reduce(c.ran, all, (int)n, MPI_UNSIGNED_CHAR, MPI_SUM, 0, MPI_COMM_WORLD);
	if (!rc && rank == 0) {
		for (size_t i = 0; i < n; i++)
			if (all[i] != 1) {
				fprintf(stderr, "bench_flow: task %zu ran %d times\n", i, all[i]);
				rc = -1;
			}
		if (chain) {
			char p[PATH_MAX * 2], buf[32] = {0};
			snprintf(p, sizeof p, "%s/o%zu", shared, n - 1);
			FILE *fp = fopen(p, "r");
			if (!fp || !fgets(buf, sizeof buf, fp) ||
			    strtol(buf, NULL, 10) != (long)n - 1) {
				fprintf(stderr, "bench_flow: %s holds \"%s\", not %zu\n", p, buf,
					n - 1);
				rc = -1;
			}
			if (fp)
				fclose(fp);
			unlink(p);
		}
		double ms = rep.result ? rep.result->makespan : 0;
		printf("bench_flow %s ranks %d tasks %zu makespan %.6f rate %.0f wall %.6f\n", kind,
		       size, n, ms, ms > 0 ? (double)n / ms : 0, wall);
		fflush(stdout);
	}
	free(all);
	free(c.ran);
	locus_mpi_flow_report_fini(&rep);
	locus_graph_destroy(g);
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return rc;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	size_t tasks = 50000, chain = 5000;
	int reps = 3;
	const char *policy = "amfs";
	static const struct option longs[] = {{"tasks", required_argument, NULL, 't'},
					      {"chain", required_argument, NULL, 'c'},
					      {"policy", required_argument, NULL, 'p'},
					      {"reps", required_argument, NULL, 'r'},
					      {NULL, 0, NULL, 0}};
	int ch;
	while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		if (ch == 't')
			tasks = strtoul(optarg, NULL, 10);
		else if (ch == 'c')
			chain = strtoul(optarg, NULL, 10);
		else if (ch == 'p')
			policy = optarg;
		else if (ch == 'r')
			reps = atoi(optarg);
		else {
			if (rank == 0)
				fprintf(stderr,
					"usage: mpirun -np N %s [--tasks T] [--chain C] "
					"[--policy P] [--reps R]\n",
					argv[0]);
			MPI_Finalize();
			return 2;
		}
	}
	if (size < 2) {
		if (rank == 0)
			fprintf(stderr, "bench_flow: needs 2 ranks or more\n");
		MPI_Finalize();
		return 2;
	}
	/* The shared directory: rank 0's, on this machine. */
	char shared[PATH_MAX] = "";
	if (rank == 0) {
		const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
		snprintf(shared, sizeof shared, "%s/bench_flow.XXXXXX", tmp);
		if (!mkdtemp(shared))
			shared[0] = 0;
	}
	MPI_Bcast(shared, sizeof shared, MPI_CHAR, 0, MPI_COMM_WORLD);
	int rc = shared[0] ? 0 : 1;
	for (int r = 0; !rc && r < reps; r++) {
		if (tasks)
			rc = run("independent", tasks, policy, shared, rank, size);
		if (!rc && chain)
			rc = run("chain", chain, policy, shared, rank, size);
	}
	if (rank == 0 && shared[0])
		rmdir(shared);
	MPI_Finalize();
	return rc ? 1 : 0;
}
