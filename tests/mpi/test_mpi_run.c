/*
 * The MPI engine under mpirun: every policy runs every chunk of a store
 * exactly once, and each chunk's bytes - read locally or fetched from a
 * peer - equal the source file's bytes at the chunk's offset.
 *
 *   mpirun -np N test_mpi_run STORE SOURCE DATASET K [POLICY...]
 *
 * STORE holds DATASET split from SOURCE (locus place) over at least K node
 * directories; the run emulates K nodes. Options after the policies:
 * "bytes" passes the bytes instead of the path, "inline" runs the function
 * on the main thread, "flaky" makes the first attempt of every chunk whose
 * index is 3 mod 7 fail (and checks that a retry on another rank ran it;
 * chunks past 4095 are not checked),
 * "broken=I" makes chunk I fail on every attempt (and checks it is
 * reported, with its reason, after 1 + retries attempts), "schedulers=S"
 * asks for S scheduler ranks. K = 0 maps ranks to nodes by processor name.
 * "conform" (with one worker rank) also runs the simulator on the run's
 * platform and the store's chunks, same policy and seed, and checks that
 * the worker ran the same chunks in the same order, each read from the
 * same node: the engines drive a policy alike and read where the shared
 * rules say (with one worker the order depends on decisions alone, not on
 * timing, so it must agree exactly).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locus/locus.h"
#include "locus/mpi.h"

/* Under AddressSanitizer, leaks are looked for before MPI_Finalize: once
 * Open MPI has unloaded its components their allocations can no longer be
 * told from ours (tests/mpi/mpienv.sh turns the check at exit off). */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAK_CHECK() __lsan_do_recoverable_leak_check()
#else
#define LEAK_CHECK() 0
#endif

struct ctx {
	int fd;		   /* the source */
	const char *store; /* a chunk read in place has a path under it */
	int flaky;
	long broken;
	size_t mismatches;
	size_t wrong_local; /* calls whose `local` says other than their path */
	size_t n, cap;
	uint32_t *ran; /* chunk index of each successful call */
	int *attempt;
	size_t n_flaky;
	uint32_t flaky_failed[4096]; /* chunks whose first attempt failed here */
};

static int on_chunk(void *user, const struct locus_mpi_chunk *c, char *why, size_t why_size)
{
	struct ctx *x = user;
	if ((long)c->index == x->broken) {
		snprintf(why, why_size, "chunk %zu is broken on purpose", c->index);
		return 1;
	}
	if (x->flaky && c->index % 7 == 3 && c->attempt == 0) {
		if (x->n_flaky < 4096)
			x->flaky_failed[x->n_flaky++] = (uint32_t)c->index;
		snprintf(why, why_size, "flaky first attempt");
		return 1;
	}
	/* Local: read in place, in this node's part of the store; else a
	 * copy in the node's storage. */
	size_t sl = strlen(x->store);
	int in_store = c->path && !strncmp(c->path, x->store, sl) && c->path[sl] == '/';
	if (in_store != (c->local != 0))
		x->wrong_local++;
	char *want = malloc(c->length + 1), *got = malloc(c->length + 1);
	const char *have = c->data;
	int ok =
	    want && got && pread(x->fd, want, c->length, (off_t)c->offset) == (ssize_t)c->length;
	if (ok && !have) {
		int fd = open(c->path, O_RDONLY);
		ok = fd >= 0 && read(fd, got, c->length + 1) == (ssize_t)c->length;
		if (fd >= 0)
			close(fd);
		have = got;
	}
	if (!ok || memcmp(want, have, c->length))
		x->mismatches++;
	free(want);
	free(got);
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 64;
		x->ran = realloc(x->ran, x->cap * sizeof *x->ran);
		x->attempt = realloc(x->attempt, x->cap * sizeof *x->attempt);
	}
	x->ran[x->n] = (uint32_t)c->index;
	x->attempt[x->n++] = c->attempt;
	return 0;
}

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL %s: ", policy);                                      \
			fprintf(stderr, __VA_ARGS__);                                              \
			fprintf(stderr, "\n");                                                     \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

/* Task ids in the order their assignment reached the worker. */
static uint32_t *order_of(const struct locus_result *r)
{
	uint32_t *o = malloc((r->n_tasks ? r->n_tasks : 1) * sizeof *o);
	for (uint32_t t = 0; o && t < r->n_tasks; t++)
		o[t] = t;
	/* Insertion sort by (assigned, id): a few hundred tasks. */
	for (size_t i = 1; o && i < r->n_tasks; i++)
		for (size_t j = i; j > 0; j--) {
			const struct locus_task_result *x = &r->tasks[o[j - 1]],
						       *y = &r->tasks[o[j]];
			if (x->assigned < y->assigned ||
			    (x->assigned == y->assigned && o[j - 1] < o[j]))
				break;
			uint32_t tmp = o[j];
			o[j] = o[j - 1];
			o[j - 1] = tmp;
		}
	return o;
}

/* The simulator against the MPI run just done (rank 0): same chunks,
 * same order, same sources. Returns the number of problems. */
static int conformance(const char *policy, const char *store, const char *dataset,
		       const struct locus_mpi_report *rep)
{
	int failures = 0;
	char spec[4200];
	struct locus_catalog *cat = NULL;
	struct locus_workload *wl = NULL;
	struct locus_work_spec work;
	struct locus_error err;
	struct locus_result *sim = NULL;
	const struct locus_result *real = rep->result;
	snprintf(spec, sizeof spec, "store:%s", store);
	CHECK(locus_source_open(&cat, spec, &err) == 0, "store: %s", err.message);
	CHECK(locus_work_spec_parse(&work, "fixed:0.001", &err) == 0, "work");
	CHECK(cat && locus_workload_build(&wl, rep->platform, cat, dataset, &work, 7, &err) == 0,
	      "workload: %s", err.message);
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = locus_policy_find(policy),
				       .seed = 7,
				       .latency = -1,
				       .cost_per_msg = 5e-6,
				       .cost_per_entry = 1e-7};
	CHECK(wl && locus_sim_run(&sim, &cfg, &err) == 0, "simulator: %s", err.message);
	CHECK(real->n_workers == 1, "conform needs one worker, the run had %zu", real->n_workers);
	if (sim && real->n_workers == 1) {
		CHECK(sim->n_tasks == real->n_tasks, "%zu tasks simulated, %zu run", sim->n_tasks,
		      real->n_tasks);
		uint32_t *a = order_of(real), *b = order_of(sim);
		size_t same = 0, sources = 0;
		for (size_t i = 0; a && b && i < sim->n_tasks && i < real->n_tasks; i++) {
			same += a[i] == b[i];
			sources += real->tasks[a[i]].source == sim->tasks[a[i]].source;
		}
		CHECK(same == real->n_tasks, "%zu of %zu chunks in the simulator's order", same,
		      real->n_tasks);
		CHECK(sources == real->n_tasks, "%zu of %zu chunks read from the simulator's node",
		      sources, real->n_tasks);
		printf("%-10s the simulator ran the %zu chunks in the same order, from the same "
		       "nodes (%zu local)\n",
		       policy, real->n_tasks, sim->local_tasks);
		free(a);
		free(b);
	}
	locus_result_destroy(sim);
	locus_workload_destroy(wl);
	locus_catalog_destroy(cat);
	locus_work_spec_fini(&work);
	return failures;
}

int main(int argc, char **argv)
{
	int level, rank, size, failures = 0;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &level);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 5) {
		if (rank == 0)
			fprintf(stderr, "usage: test_mpi_run STORE SOURCE DATASET K [POLICY...] "
					"[bytes] [inline] [flaky] [broken=I] [schedulers=S]\n");
		MPI_Finalize();
		return 2;
	}
	const char *policies[8];
	size_t n_pol = 0;
	int bytes = 0, inl = 0, flaky = 0, conform = 0;
	long broken = -1, schedulers = 0;
	for (int i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "bytes"))
			bytes = 1;
		else if (!strcmp(argv[i], "inline"))
			inl = 1;
		else if (!strcmp(argv[i], "flaky"))
			flaky = 1;
		else if (!strcmp(argv[i], "conform"))
			conform = 1;
		else if (!strncmp(argv[i], "broken=", 7))
			broken = atol(argv[i] + 7);
		else if (!strncmp(argv[i], "schedulers=", 11))
			schedulers = atol(argv[i] + 11);
		else if (n_pol < 8)
			policies[n_pol++] = argv[i];
	}
	if (!n_pol)
		policies[n_pol++] = "scal";
	for (size_t p = 0; p < n_pol; p++) {
		const char *policy = policies[p];
		struct ctx x = {.fd = open(argv[2], O_RDONLY),
				.store = argv[1],
				.flaky = flaky,
				.broken = broken};
		struct locus_mpi_options o = {.store = argv[1],
					      .dataset = argv[3],
					      .policy = policy,
					      .emulate_nodes = (size_t)atol(argv[4]),
					      .seed = 7,
					      .retries = 2,
					      .schedulers = (size_t)schedulers,
					      .want_bytes = bytes,
					      .inline_tasks = inl};
		struct locus_mpi_report rep;
		struct locus_error err;
		int rc = locus_mpi_run(MPI_COMM_WORLD, &o, on_chunk, &x, &rep, &err);
		char ebuf[1024];
		CHECK(rc == 0, "locus_mpi_run: %s", locus_error_format(&err, ebuf, sizeof ebuf));
		CHECK(x.fd >= 0, "cannot open %s", argv[2]);
		/* Every chunk ran exactly once (the broken one never). */
		int n = (int)x.n, *counts = NULL, *displs = NULL, total = 0;
		uint32_t *all = NULL;
		int *att = NULL;
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
			all = calloc((size_t)total + 1, sizeof *all);
			att = calloc((size_t)total + 1, sizeof *att);
		}
		MPI_Gatherv(x.ran, n, MPI_UINT32_T, all, counts, displs, MPI_UINT32_T, 0,
			    MPI_COMM_WORLD);
		MPI_Gatherv(x.attempt, n, MPI_INT, att, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
		/* Which rank failed each flaky chunk's first attempt. */
		int *failed_rank = NULL;
		if (rank == 0) {
			failed_rank = malloc(4096 * sizeof *failed_rank);
			for (int i = 0; i < 4096; i++)
				failed_rank[i] = -1;
		}
		for (int r = 0; r < size; r++) {
			unsigned long nf = x.n_flaky;
			uint32_t buf[4096];
			memcpy(buf, x.flaky_failed, sizeof buf);
			MPI_Bcast(&nf, 1, MPI_UNSIGNED_LONG, r, MPI_COMM_WORLD);
			MPI_Bcast(buf, (int)nf, MPI_UINT32_T, r, MPI_COMM_WORLD);
			for (unsigned long i = 0; rank == 0 && i < nf; i++)
				failed_rank[buf[i]] = r;
		}
		unsigned long mism = x.mismatches, mism_all = 0;
		MPI_Reduce(&mism, &mism_all, 1, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
		unsigned long wl = x.wrong_local, wl_all = 0;
		MPI_Reduce(&wl, &wl_all, 1, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
		if (rank == 0 && rc == 0) {
			const struct locus_result *r = rep.result;
			size_t n_chunks = r->n_tasks;
			unsigned *seen = calloc(n_chunks + 1, sizeof *seen);
			size_t retried = 0;
			for (int rk = 0, i = 0; rk < size; rk++)
				for (int j = 0; j < counts[rk]; j++, i++) {
					if (all[i] < n_chunks)
						seen[all[i]]++;
					retried += att[i] > 0;
					/* A retry runs on another rank. */
					if (att[i] > 0 && all[i] < 4096)
						CHECK(
						    failed_rank[all[i]] != rk,
						    "chunk %u retried on rank %d, where it failed",
						    all[i], rk);
				}
			for (size_t c = 0; c < n_chunks; c++)
				CHECK(seen[c] == ((long)c == broken ? 0u : 1u),
				      "chunk %zu ran %u times", c, seen[c]);
			CHECK(mism_all == 0, "%lu chunks had other bytes than the source",
			      mism_all);
			CHECK(wl_all == 0,
			      "%lu calls were told local where the chunk was not read in place, "
			      "or the other way round",
			      wl_all);
			CHECK(rep.n_failures == (broken >= 0 && (size_t)broken < n_chunks),
			      "%zu chunks failed", rep.n_failures);
			if (rep.n_failures) {
				CHECK(rep.failures[0].index == (size_t)broken &&
					  rep.failures[0].attempts == 3 &&
					  strstr(rep.failures[0].why, "broken on purpose"),
				      "failure: chunk %zu, %d attempts, \"%s\"",
				      rep.failures[0].index, rep.failures[0].attempts,
				      rep.failures[0].why);
			}
			size_t want_retried = 0;
			for (size_t c = 0; flaky && c < n_chunks; c++)
				want_retried += c % 7 == 3 && (long)c != broken;
			CHECK(retried == want_retried, "%zu retried runs, expected %zu", retried,
			      want_retried);
			/* The bytes the result says moved are those the ranks fetched. */
			uint64_t fetched = 0, served = 0, local = 0;
			for (size_t k = 0; k < rep.n_ranks; k++) {
				fetched += rep.ranks[k].bytes_fetched;
				served += rep.ranks[k].bytes_served;
				local += rep.ranks[k].local_tasks;
			}
			CHECK(fetched == served, "fetched %llu bytes, served %llu",
			      (unsigned long long)fetched, (unsigned long long)served);
			if (!flaky && broken < 0)
				CHECK(fetched == r->bytes_remote && local == r->local_tasks,
				      "result: %llu remote bytes and %zu local tasks; ranks: %llu "
				      "and %llu",
				      (unsigned long long)r->bytes_remote, r->local_tasks,
				      (unsigned long long)fetched, (unsigned long long)local);
			CHECK(r->makespan > 0 && r->makespan >= r->lb_makespan * 0.999999,
			      "makespan %g below its bound %g", r->makespan, r->lb_makespan);
			CHECK(schedulers == 0 || r->n_schedulers == (size_t)schedulers,
			      "%zu schedulers, asked for %ld", r->n_schedulers, schedulers);
			printf("%-10s %zu chunks on %zu workers: %zu local (%.1f%%), %llu bytes "
			       "fetched, %zu failed, makespan %.3f s, wait p50 %.1f us\n",
			       policy, n_chunks, r->n_workers, r->local_tasks,
			       100.0 * (double)r->local_tasks / (double)(n_chunks ? n_chunks : 1),
			       (unsigned long long)fetched, rep.n_failures, r->makespan,
			       1e6 * r->wait_p50);
			free(seen);
			if (conform)
				failures += conformance(policy, argv[1], argv[3], &rep);
		}
		free(all);
		free(att);
		free(failed_rank);
		free(counts);
		free(displs);
		free(x.ran);
		free(x.attempt);
		if (x.fd >= 0)
			close(x.fd);
		locus_mpi_report_fini(&rep);
	}
	if (LEAK_CHECK()) {
		fprintf(stderr, "FAIL: memory leaked on rank %d\n", rank);
		failures++;
	}
	int bad = 0;
	MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (rank == 0)
		printf(bad ? "test_mpi_run: FAILED\n" : "test_mpi_run: all checks passed\n");
	MPI_Finalize();
	return bad ? 1 : 0;
}
