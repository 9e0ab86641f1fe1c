/*
 * locus_mpi_scatter under mpirun: a plan executed for real delivers every
 * byte of the input exactly once, each chunk as large as the plan says
 * (within a byte of rounding) and with the input's bytes at its offset;
 * each worker gets its rounds in order; the measured run is the plan's
 * chunks in send order with times that make sense. A failing function and
 * a plan for another number of ranks give the same error on every rank,
 * and ranks holding different plans are refused.
 *
 *   mpirun -np N test_mpi_scatter INPUT [umr|ptumr|ptumr-nogt...] [het=H]
 *          [rounds=M] [work=US] [fail=ROUND:WORKER] [inline]
 *
 * Each method listed runs once (default ptumr). work=US makes the function
 * take US microseconds per KiB; fail=R:W makes plan worker W fail on its
 * chunk of round R (the run must then fail with that chunk named, and the
 * checks of a good run are skipped); "inline" initialises MPI with
 * MPI_THREAD_SINGLE, so the function runs on the calling thread. Then, in
 * every case, a plan for N ranks and one differing on one rank are tried.
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "locus/locus.h"
#include "locus/mpi.h"

/* Under AddressSanitizer, leaks are looked for before MPI_Finalize
 * (tests/mpi/sanitizer-env.sh turns the check at exit off). */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAK_CHECK() __lsan_do_recoverable_leak_check()
#else
#define LEAK_CHECK() 0
#endif

struct rec {
	uint64_t offset, len;
	uint32_t round, worker;
};

struct ctx {
	int fd;
	uint32_t worker;
	long work_us; /* per KiB */
	long fail_round, fail_worker;
	size_t mismatches, out_of_order;
	long last_round;
	struct rec *recs;
	size_t n, cap;
};

static int on_chunk(const void *data, size_t len, uint64_t offset, uint32_t round, void *user)
{
	struct ctx *x = user;
	if ((long)round <= x->last_round)
		x->out_of_order++;
	x->last_round = round;
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 64;
		x->recs = realloc(x->recs, x->cap * sizeof *x->recs);
	}
	x->recs[x->n++] = (struct rec){offset, len, round, x->worker};
	char *want = malloc(len + 1);
	if (!want || pread(x->fd, want, len, (off_t)offset) != (ssize_t)len ||
	    memcmp(want, data, len))
		x->mismatches++;
	free(want);
	if (x->work_us > 0) {
		long us = x->work_us * (long)(len / 1024 + 1);
		struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
		nanosleep(&ts, NULL);
	}
	return (long)round == x->fail_round && (long)x->worker == x->fail_worker ? 7 : 0;
}

/* Times taken on different ranks are on rank 0's clock within half the
 * fastest of a few round trips; a worker sees a chunk arrive when it next
 * polls, which under load (ranks outnumbering cores, sanitizers) can be
 * milliseconds after the master's send completed. */
#define SKEW 0.05

static int failures;
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL rank %d, line %d: ", rank, __LINE__);                \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static int by_offset(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The plan of W units over n workers generated with heterogeneity het,
 * whose chunks come in several rounds (PTUMR's M+ is 5 for 183 units over
 * 5 alike workers, UMR's 8). */
static struct locus_divisible_plan *make_plan(const char *method, double W, size_t n, double het,
					      size_t rounds, uint64_t seed)
{
	struct locus_divisible_worker mean = {10, 100, 0.01, 0.001};
	struct locus_divisible_worker *w = calloc(n, sizeof *w);
	struct locus_divisible_options o;
	locus_divisible_options_init(&o);
	locus_divisible_method_parse(method, &o);
	o.rounds = rounds;
	locus_divisible_workers_generate(w, n, het, &mean, seed);
	struct locus_divisible_plan *p = NULL;
	struct locus_error err;
	if (locus_divisible_plan_create(&p, W, 300, w, n, &o, &err)) {
		char buf[600];
		fprintf(stderr, "plan: %s\n", locus_error_format(&err, buf, sizeof buf));
	}
	free(w);
	return p;
}

int main(int argc, char **argv)
{
	int level, rank, size, inl = 0;
	for (int i = 2; i < argc; i++)
		inl |= !strcmp(argv[i], "inline");
	MPI_Init_thread(&argc, &argv, inl ? MPI_THREAD_SINGLE : MPI_THREAD_FUNNELED, &level);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2 || size < 2) {
		if (rank == 0)
			fprintf(stderr, "usage: mpirun -np N (N >= 2) test_mpi_scatter INPUT "
					"[METHOD...] [het=H] [rounds=M] [work=US] [fail=R:W] "
					"[inline]\n");
		MPI_Finalize();
		return 2;
	}
	const char *methods[4];
	size_t n_methods = 0, rounds = 0;
	double het = 0.3;
	long work = 0, fail_round = -1, fail_worker = -1;
	for (int i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "het=", 4))
			het = atof(argv[i] + 4);
		else if (!strncmp(argv[i], "rounds=", 7))
			rounds = (size_t)atol(argv[i] + 7);
		else if (!strncmp(argv[i], "work=", 5))
			work = atol(argv[i] + 5);
		else if (!strncmp(argv[i], "fail=", 5))
			sscanf(argv[i] + 5, "%ld:%ld", &fail_round, &fail_worker);
		else if (strcmp(argv[i], "inline") && n_methods < 4)
			methods[n_methods++] = argv[i];
	}
	if (!n_methods)
		methods[n_methods++] = "ptumr";
	struct stat st;
	stat(argv[1], &st);
	uint64_t file_size = (uint64_t)st.st_size;
	double W = (double)file_size / 16384; /* units of 16 KiB */
	char ebuf[1024];

	for (size_t mi = 0; mi < n_methods; mi++) {
		struct locus_divisible_plan *plan =
		    make_plan(methods[mi], W, (size_t)size - 1, het, rounds, 3);
		CHECK(plan, "no plan");
		if (!plan)
			break;
		struct ctx x = {.fd = open(argv[1], O_RDONLY),
				.worker = (uint32_t)(rank - 1),
				.work_us = work,
				.fail_round = fail_round,
				.fail_worker = fail_worker,
				.last_round = -1};
		struct locus_divisible_run *run = NULL;
		struct locus_error err;
		double t = MPI_Wtime();
		int rc = locus_mpi_scatter(MPI_COMM_WORLD, plan, argv[1], on_chunk, &x,
					   rank == 0 ? &run : NULL, &err);
		t = MPI_Wtime() - t;
		locus_error_format(&err, ebuf, sizeof ebuf);
		/* The same outcome everywhere. */
		int lo, hi;
		MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
		MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
		CHECK(lo == hi, "ranks returned %d to %d", lo, hi);
		if (fail_round >= 0) {
			char want[160];
			snprintf(want, sizeof want,
				 "rank %ld (plan worker %ld) failed on its chunk "
				 "of round %ld at byte offset ",
				 fail_worker + 1, fail_worker, fail_round);
			CHECK(rc == LOCUS_EINCOMPLETE && strstr(ebuf, want) &&
				  strstr(ebuf, "returned 7"),
			      "%s: a failing function gave %d, \"%s\"", methods[mi], rc, ebuf);
			CHECK(!run, "a failed run was returned");
			if (rank == 0)
				printf("%-10s failure reported on every rank in %.3f s: %s\n",
				       methods[mi], t, ebuf);
		} else {
			CHECK(rc == 0, "%s: locus_mpi_scatter: %s", methods[mi], ebuf);
		}
		CHECK(x.out_of_order == 0, "rounds out of order on worker %d", rank - 1);
		/* Every chunk any worker got, on rank 0. */
		int n = (int)(x.n * sizeof *x.recs), *counts = NULL, *displs = NULL, total = 0;
		struct rec *all = NULL;
		if (rank == 0) {
			counts = calloc((size_t)size, sizeof *counts);
			displs = calloc((size_t)size, sizeof *displs);
		}
		MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
		if (rank == 0) {
			for (int r = 0; r < size; r++) {
				displs[r] = total;
				total += counts[r];
			}
			all = malloc((size_t)total + 1);
		}
		MPI_Gatherv(x.recs, n, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
		unsigned long mism = x.mismatches, mism_all = 0;
		MPI_Reduce(&mism, &mism_all, 1, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
		if (rank == 0 && rc == 0 && run) {
			size_t nr = (size_t)total / sizeof *all;
			CHECK(mism_all == 0, "%lu chunks had other bytes than the input", mism_all);
			/* Every byte exactly once. */
			qsort(all, nr, sizeof *all, by_offset);
			uint64_t at = 0;
			for (size_t i = 0; i < nr; i++) {
				CHECK(all[i].offset == at, "a chunk starts at %llu, expected %llu",
				      (unsigned long long)all[i].offset, (unsigned long long)at);
				at = all[i].offset + all[i].len;
			}
			CHECK(at == file_size, "the chunks end at %llu of %llu bytes",
			      (unsigned long long)at, (unsigned long long)file_size);
			/* One event per chunk, each chunk as large as the plan says. */
			CHECK(run->n_events == nr, "%zu events for %zu chunks", run->n_events, nr);
			double units = 0;
			for (size_t e = 0; e < run->n_events; e++)
				units += run->events[e].units;
			CHECK(fabs(units - W) < 1e-6 * W, "events hold %g units of %g", units, W);
			size_t matched = 0, planned = 0;
			for (size_t j = 0; j < plan->rounds; j++)
				for (size_t i = 0; i < plan->n_workers; i++)
					planned += locus_divisible_worker_chunk(plan, j, i) > 0;
			for (size_t i = 0; i < nr; i++)
				for (size_t e = 0; e < run->n_events; e++) {
					const struct locus_divisible_event *v = &run->events[e];
					if (v->worker != all[i].worker || v->round != all[i].round)
						continue;
					double want = v->units / units * (double)file_size;
					double plan_units =
					    locus_divisible_worker_chunk(plan, v->round, v->worker);
					CHECK(fabs((double)all[i].len - want) < 1 + 1e-6 &&
						  fabs(plan_units - v->units) < 1e-9 * W,
					      "worker %u round %u: %llu bytes, the plan says %.3f "
					      "(%g units)",
					      v->worker, v->round, (unsigned long long)all[i].len,
					      want, plan_units);
					matched++;
				}
			CHECK(matched == nr && nr == planned,
			      "%zu of %zu chunks match an event "
			      "(%zu planned)",
			      matched, nr, planned);
			/* Send order: rounds, then the used groups in order. A
			 * group starts when the master has the one before it
			 * sent (both times on its clock: a worker's record of
			 * the arrival comes later, by as long as the worker
			 * waits for a processor, 60 ms on a loaded machine). */
			double last_end = 0;
			for (size_t e = 0; e < run->n_events; e++) {
				const struct locus_divisible_event *v = &run->events[e];
				if (e) {
					const struct locus_divisible_event *u = &run->events[e - 1];
					CHECK(
					    u->round < v->round ||
						(u->round == v->round && u->group <= v->group),
					    "event %zu (round %u, group %u) after round %u, group "
					    "%u",
					    e, v->round, v->group, u->round, u->group);
					if (u->round != v->round || u->group != v->group)
						CHECK(v->send_start >= last_end,
						      "group sent at %g before the previous one "
						      "was (%g)",
						      v->send_start, last_end);
				}
				if (!e || run->events[e - 1].group != v->group ||
				    run->events[e - 1].round != v->round)
					last_end = 0;
				CHECK(v->send_end >= v->send_start,
				      "event %zu: its group sent at %g, itself at %g", e,
				      v->send_end, v->send_start);
				if (v->send_end > last_end)
					last_end = v->send_end;
				CHECK(v->send_start >= 0 && v->send_start <= v->recv_end + SKEW &&
					  v->recv_end <= v->comp_start + 1e-3 &&
					  v->comp_start <= v->comp_end &&
					  v->comp_end <= run->makespan,
				      "event %zu: sent %g, arrived %g, computed %g to %g, makespan "
				      "%g",
				      e, v->send_start, v->recv_end, v->comp_start, v->comp_end,
				      run->makespan);
				CHECK((int)v->group == plan->group_of[v->worker],
				      "event %zu: group %u, the plan says %d", e, v->group,
				      plan->group_of[v->worker]);
			}
			/* Each group's span may include a late look at its last
			 * arrival: the sum is near, not always below, the makespan. */
			CHECK(run->makespan > 0 && run->link_busy > 0 &&
				  run->link_busy <= 2 * run->makespan + SKEW,
			      "makespan %g, link busy %g", run->makespan, run->link_busy);
			printf("%-10s %zu chunks (%zu rounds, %zu of %zu groups used) over %d "
			       "workers, %llu bytes: measured makespan %.4f s (link busy %.4f s); "
			       "plan T_real %.4g model s\n",
			       methods[mi], nr, plan->rounds, plan->n_used, plan->n_groups,
			       size - 1, (unsigned long long)file_size, run->makespan,
			       run->link_busy, plan->t_real);
		}
		locus_divisible_run_destroy(run);
		free(all);
		free(counts);
		free(displs);
		free(x.recs);
		close(x.fd);
		locus_divisible_plan_destroy(plan);
	}

	/* A plan for another number of ranks: the same clear error on every rank. */
	struct locus_divisible_plan *wrong = make_plan("ptumr", W, (size_t)size, 0, 0, 3);
	struct locus_error err;
	struct ctx x = {.fd = -1, .last_round = -1, .fail_round = -1};
	int rc = locus_mpi_scatter(MPI_COMM_WORLD, wrong, argv[1], on_chunk, &x, NULL, &err);
	locus_error_format(&err, ebuf, sizeof ebuf);
	char want[120];
	snprintf(want, sizeof want, "the plan has %d workers but the job has %d ranks: it needs %d",
		 size, size, size + 1);
	CHECK(rc == LOCUS_EINVAL && strstr(ebuf, want), "worker count mismatch: %d, \"%s\"", rc,
	      ebuf);
	CHECK(x.n == 0, "a refused run called the function");
	locus_divisible_plan_destroy(wrong);
	/* Different plans on different ranks: refused, not run wrongly. */
	struct locus_divisible_plan *mixed =
	    make_plan("ptumr", W * (rank == size - 1 ? 0.5 : 1), (size_t)size - 1, het, 0, 3);
	rc = locus_mpi_scatter(MPI_COMM_WORLD, mixed, argv[1], on_chunk, &x, NULL, &err);
	locus_error_format(&err, ebuf, sizeof ebuf);
	CHECK(rc == LOCUS_EINVAL && strstr(ebuf, "different plans"), "mixed plans: %d, \"%s\"", rc,
	      ebuf);
	CHECK(x.n == 0, "a refused run called the function");
	locus_divisible_plan_destroy(mixed);
	free(x.recs);
	/* A missing input: named, on every rank. */
	struct locus_divisible_plan *plan = make_plan("umr", W, (size_t)size - 1, het, 0, 3);
	rc =
	    locus_mpi_scatter(MPI_COMM_WORLD, plan, "/nonexistent/input", on_chunk, &x, NULL, &err);
	locus_error_format(&err, ebuf, sizeof ebuf);
	CHECK(rc == LOCUS_ENOENT && strstr(ebuf, "cannot open /nonexistent/input"),
	      "missing input: %d, \"%s\"", rc, ebuf);
	locus_divisible_plan_destroy(plan);

	if (LEAK_CHECK()) {
		fprintf(stderr, "FAIL: memory leaked on rank %d\n", rank);
		failures++;
	}
	int bad = 0;
	MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (rank == 0)
		printf(bad ? "test_mpi_scatter: FAILED\n"
			   : "test_mpi_scatter: all checks passed\n");
	MPI_Finalize();
	return bad ? 1 : 0;
}
