/*
 * Reference figures for bench/mpi/flow_rates.sh (docs/results/flow-run.md):
 * what the same MPI ranks achieve without the workflow engine.
 *
 *   mpirun -np N flow_probe spawn M [D] [CMD]
 *       Ranks D.. (the engine's worker ranks; D = 1 by default) each run
 *       /bin/sh -c CMD (default "true") M times, one after the other, by
 *       posix_spawn + waitpid, stdin from /dev/null and stdout/stderr to
 *       /dev/null; ranks 0..D-1 (the dispatchers' ranks) only wait. Every
 *       rank waits without spinning (MPI_Ibarrier polled every 100 us), so
 *       the waiting ranks take no core from the spawning ones. Prints
 *       "spawn ranks W each M total T seconds S rate R" on rank 0, R =
 *       W x M / (last end - first start), times on one machine's monotonic
 *       clock.
 *
 *   mpirun -np 2 flow_probe bw BYTES [REPS]
 *       Rank 0 sends one message of BYTES bytes to rank 1 REPS times (3 by
 *       default), each after a barrier, and rank 1 answers with one byte;
 *       prints "bw bytes B best S median S MBps R" (R from the best).
 *
 * Built by flow_rates.sh with mpicc; nothing of the library is used.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A barrier that sleeps while it waits (Open MPI's blocking calls spin). */
static void polite_barrier(void)
{
	MPI_Request r;
	int done = 0;
	MPI_Ibarrier(MPI_COMM_WORLD, &r);
	for (;;) {
		MPI_Test(&r, &done, MPI_STATUS_IGNORE);
		if (done)
			break;
		struct timespec ts = {0, 100000};
		nanosleep(&ts, NULL);
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int spawn(int rank, long m, int d, const char *cmd)
{
	polite_barrier();
	double t0 = mono(), t1 = t0;
	long did = 0;
	if (rank >= d) {
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
		char *argv[] = {"sh", "-c", (char *)cmd, NULL};
		for (long i = 0; i < m; i++) {
			pid_t pid;
			int st;
			if (posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ)) {
				perror("posix_spawn");
				return 1;
			}
			if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
				fprintf(stderr, "flow_probe: %s failed\n", cmd);
				return 1;
			}
			did++;
		}
		posix_spawn_file_actions_destroy(&fa);
		t1 = mono();
	}
	polite_barrier();
	double first = 0, last = 0;
	long total = 0;
	MPI_Reduce(&t0, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
	MPI_Reduce(&t1, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&did, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	int size;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0)
		printf("spawn ranks %d each %ld total %ld seconds %.6f rate %.1f\n", size - d, m,
		       total, last - first, (double)total / (last - first));
	return 0;
}

static int bw(int rank, long bytes, int reps)
{
	char *buf = malloc((size_t)bytes);
	if (!buf)
		return 1;
	memset(buf, rank + 1, (size_t)bytes); /* touch every page first */
	double *t = calloc((size_t)reps, sizeof *t);
	char ack = 0;
	for (int i = 0; i < reps; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = mono();
		if (rank == 0) {
			MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(&ack, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(&ack, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
		}
		t[i] = mono() - t0;
	}
	if (rank == 0) {
		qsort(t, (size_t)reps, sizeof *t, cmp);
		printf("bw bytes %ld best %.6f median %.6f MBps %.1f\n", bytes, t[0], t[reps / 2],
		       (double)bytes / t[0] / 1e6);
	}
	free(t);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, rc = 2;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc >= 3 && !strcmp(argv[1], "spawn"))
		rc = spawn(rank, atol(argv[2]), argc > 3 ? atoi(argv[3]) : 1,
			   argc > 4 ? argv[4] : "true");
	else if (argc >= 3 && !strcmp(argv[1], "bw"))
		rc = bw(rank, atol(argv[2]), argc > 3 ? atoi(argv[3]) : 3);
	else if (rank == 0)
		fprintf(stderr, "usage: flow_probe spawn M [D] [CMD] | bw BYTES [REPS]\n");
	MPI_Finalize();
	return rc;
}
