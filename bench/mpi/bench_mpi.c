/*
 * The MPI engine's dispatch rate and request latency with empty tasks, and
 * its cost against a hand-written static partition of the same chunks.
 *
 *   bench_mpi [--tasks N] [--ranks 4,8,16,32] [--mpirun PATH]
 *
 * Run without a launcher, it writes a store of N tiny chunks (one replica
 * each, over 4 emulated nodes) and starts itself under mpirun for each
 * rank count; each job runs monolithic, dlmpi and scal (locality on: a
 * chunk goes to a holder when the policy can), then the static partition,
 * and prints one line per run. The anchor is ADLB on this kind of
 * machine: one server and three workers dispatch about 280,000 empty
 * tasks/s untargeted and 74,000/s when each task is pinned to a worker.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "locus/locus.h"
#include "locus/mpi.h"

#define ADLB_UNTARGETED 280000.0
#define ADLB_PINNED	74000.0
/* Emulated nodes the chunks are placed on (--nodes). */
static int NODES = 4;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile uint64_t sink;

static int empty(void *user, const struct locus_mpi_chunk *c, char *why, size_t why_size)
{
	(void)user;
	(void)why;
	(void)why_size;
	sink += c->index;
	return 0;
}

static int zero_bytes(void *user, uint64_t offset, void *buf, size_t len)
{
	(void)user;
	(void)offset;
	memset(buf, 'A', len);
	return 0;
}

/* One job: every policy, then the static partition. */
static int rank_main(const char *store, int inl, const char *policies)
{
	int rank, size, level;
	MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &level);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	char plist[256];
	snprintf(plist, sizeof plist, "%s", policies);
	const char *pols[16];
	size_t n_pols = 0;
	for (char *tok = strtok(plist, ","); tok && n_pols < 16; tok = strtok(NULL, ","))
		pols[n_pols++] = tok;
	for (size_t p = 0; p < n_pols; p++) {
		/* "NAME+K": the policy with K requests in flight per worker. */
		char name[64], opts[32] = "";
		snprintf(name, sizeof name, "%s", pols[p]);
		char *plus = strchr(name, '+');
		if (plus) {
			*plus = 0;
			snprintf(opts, sizeof opts, "prefetch=%s", plus + 1);
		}
		struct locus_mpi_options o = {.store = store,
					      .policy = name,
					      .policy_opts = opts[0] ? opts : NULL,
					      .emulate_nodes = NODES,
					      .seed = 1,
					      .inline_tasks = inl};
		struct locus_mpi_report rep;
		struct locus_error err;
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = now();
		int rc = locus_mpi_run(MPI_COMM_WORLD, &o, empty, NULL, &rep, &err);
		double wall = now() - t0;
		if (rc) {
			char buf[1024];
			if (rank == 0)
				fprintf(stderr, "bench_mpi: %s\n",
					locus_error_format(&err, buf, sizeof buf));
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		if (rank == 0) {
			const struct locus_result *r = rep.result;
			printf("RUN %s %d %zu %zu %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", pols[p],
			       size, r->n_tasks, r->n_workers, r->makespan, wall, r->wait_mean,
			       r->wait_p50, r->wait_p99,
			       (double)r->local_tasks / (double)(r->n_tasks ? r->n_tasks : 1),
			       rep.latency);
			fflush(stdout);
		}
		locus_mpi_report_fini(&rep);
	}
	/* The static partition: rank r takes chunks r, r + P, ... of the
	 * store's catalog (each rank scans it, as a hand-written program
	 * would) and calls the same function on each. */
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = now();
	struct locus_catalog *cat;
	struct locus_error err;
	if (locus_store_scan(&cat, store, &err))
		MPI_Abort(MPI_COMM_WORLD, 1);
	size_t n = 0;
	for (size_t d = 0; d < cat->n_datasets; d++) {
		const struct locus_dataset *ds = &cat->datasets[d];
		for (size_t c = 0; c < ds->n_chunks; c++, n++) {
			if ((int)(n % (size_t)size) != rank)
				continue;
			struct locus_mpi_chunk ch = {.dataset = ds->name,
						     .index = c,
						     .offset = ds->chunks[c].offset,
						     .length = ds->chunks[c].length,
						     .rank = rank};
			char why[64];
			empty(NULL, &ch, why, sizeof why);
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	double t1 = now();
	if (rank == 0)
		printf("STATIC %d %zu %.9g\n", size, n, t1 - t0);
	locus_catalog_destroy(cat);
	MPI_Finalize();
	return 0;
}

static int launcher_is_open_mpi(const char *mpirun)
{
	char cmd[PATH_MAX + 32], line[256] = "";
	snprintf(cmd, sizeof cmd, "'%s' --version 2>&1", mpirun);
	FILE *fp = popen(cmd, "r");
	if (!fp)
		return 0;
	int open = 0;
	while (fgets(line, sizeof line, fp))
		open |= strstr(line, "Open MPI") != NULL || strstr(line, "OpenRTE") != NULL;
	pclose(fp);
	return open;
}

int main(int argc, char **argv)
{
	const char *store = NULL, *ranks = "4,8,16,32", *mpirun = "mpirun";
	size_t n_tasks = 20000;
	int inl = 1, both = 1;
	const char *policies = "monolithic,monolithic+8,dlmpi,dlmpi+8,scal";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rank") && i + 4 < argc) {
			store = argv[++i];
			inl = atoi(argv[++i]);
			policies = argv[++i];
			NODES = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--nodes") && i + 1 < argc) {
			NODES = atoi(argv[++i]);
			if (NODES < 1 || NODES > 64) {
				fprintf(stderr, "bench_mpi: --nodes expects 1 to 64\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--policies") && i + 1 < argc) {
			policies = argv[++i];
		} else if (!strcmp(argv[i], "--tasks") && i + 1 < argc) {
			n_tasks = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--ranks") && i + 1 < argc) {
			ranks = argv[++i];
		} else if (!strcmp(argv[i], "--mpirun") && i + 1 < argc) {
			mpirun = argv[++i];
		} else if (!strcmp(argv[i], "--inline-only")) {
			both = 0;
		} else {
			fprintf(stderr,
				"usage: bench_mpi [--tasks N] [--ranks 4,8,16,32] "
				"[--mpirun PATH] [--inline-only] [--policies LIST] [--nodes N]\n"
				"LIST: policies, NAME+K for NAME with prefetch=K (default "
				"monolithic,monolithic+8,dlmpi,dlmpi+8,scal)\n");
			return 2;
		}
	}
	if (store)
		return rank_main(store, inl, policies);

	/* The driver: a store of n_tasks chunks of 8 bytes. */
	char root[] = "/tmp/locus-bench-mpi-XXXXXX";
	if (!mkdtemp(root))
		return perror("mkdtemp"), 1;
	struct locus_platform *plat;
	struct locus_catalog *cat;
	struct locus_error err;
	struct locus_place_options po = {.policy = LOCUS_PLACE_RANDOM, .replicas = 1, .seed = 1};
	if (locus_platform_generate(&plat, NODES, 1, 1, "node") ||
	    locus_place_catalog(&cat, plat, "empty", n_tasks, 8, &po, &err) ||
	    locus_store_write(cat, 0, root, zero_bytes, NULL, false, &err)) {
		fprintf(stderr, "bench_mpi: cannot write the store in %s\n", root);
		return 1;
	}
	locus_catalog_destroy(cat);
	locus_platform_destroy(plat);
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0)
		return 1;
	self[len] = 0;
	int open_mpi = launcher_is_open_mpi(mpirun);
	if (open_mpi) {
		setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
		setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
		setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
	}
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	printf("bench_mpi: %zu empty tasks over %d emulated nodes (1 replica each), %ld cores\n"
	       "anchor: ADLB, 1 server + 3 workers: %.0f tasks/s untargeted, %.0f/s pinned\n\n",
	       n_tasks, NODES, cores, ADLB_UNTARGETED, ADLB_PINNED);
	printf("%-13s %5s %6s %8s %12s %8s %10s %10s %10s %7s %9s\n", "policy", "ranks", "thread",
	       "workers", "tasks/s", "vs ADLB", "wait mean", "wait p50", "wait p99", "local",
	       "job s");
	char list[256];
	snprintf(list, sizeof list, "%s", ranks);
	int status = 0;
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		for (int mode = 1; mode >= (both ? 0 : 1); mode--) {
			char cmd[2 * PATH_MAX + 256];
			snprintf(cmd, sizeof cmd, "'%s' %s -np %s '%s' --rank '%s' %d '%s' %d 2>&1",
				 mpirun, open_mpi ? "--oversubscribe --quiet" : "", tok, self, root,
				 mode, policies, NODES);
			FILE *fp = popen(cmd, "r");
			char line[512];
			while (fp && fgets(line, sizeof line, fp)) {
				char pol[32];
				int np;
				size_t tasks, workers;
				double mk, wall, wmean, wp50, wp99, local, lat, total;
				if (sscanf(line, "RUN %31s %d %zu %zu %lf %lf %lf %lf %lf %lf %lf",
					   pol, &np, &tasks, &workers, &mk, &wall, &wmean, &wp50,
					   &wp99, &local, &lat) == 11) {
					double rate = mk > 0 ? (double)tasks / mk : 0;
					printf("%-13s %5d %6s %8zu %12.0f %8.2f %8.1fus %8.1fus "
					       "%8.1fus %6.1f%% %9.3f\n",
					       pol, np, mode ? "no" : "yes", workers, rate,
					       rate / ADLB_UNTARGETED, 1e6 * wmean, 1e6 * wp50,
					       1e6 * wp99, 100 * local, wall);
				} else if (sscanf(line, "STATIC %d %zu %lf", &np, &tasks, &total) ==
					   3) {
					if (mode == 1)
						printf(
						    "%-13s %5d %6s %8d %12.0f %8s %10s %10s %10s "
						    "%7s %9.3f\n",
						    "static", np, "-", np,
						    total > 0 ? (double)tasks / total : 0, "", "",
						    "", "", "", total);
				} else {
					fputs(line, stderr);
				}
			}
			if (!fp || pclose(fp) != 0) {
				fprintf(stderr, "bench_mpi: the job on %s ranks failed\n", tok);
				status = 1;
			}
			fflush(stdout);
		}
	}
	printf("\ntasks/s = tasks / makespan (first barrier to the last report); job s =\n"
	       "the whole locus_mpi_run call, setup (store listing, catalog, roles) included;\n"
	       "static: the same empty calls on a hand-written round-robin partition, each\n"
	       "rank scanning the store itself (tasks/s and job s over the whole of it).\n");
	char rm[PATH_MAX + 16];
	snprintf(rm, sizeof rm, "rm -rf '%s'", root);
	if (system(rm) != 0)
		fprintf(stderr, "bench_mpi: could not remove %s\n", root);
	return status;
}
