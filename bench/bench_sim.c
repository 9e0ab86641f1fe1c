/*
 * The simulator against SimGrid, and at the scale of the papers.
 *
 * 1. SimGrid's master/worker star (bench/simgrid/simgrid_mw.c says the
 *    scenario): 2,048 and 8,192 workers, ten 1-Gflop tasks each with 1 MB
 *    of input held by the master, the master sending one input at a time
 *    (serial: a source with one transfer slot in Locus) or all of them
 *    sharing its link max-min (maxmin). Locus runs it with the fifo policy
 *    at zero decision cost; when bench_simgrid_mw was built (SimGrid
 *    installed) it runs too, in a child process, and the table gives both
 *    makespans and both CPU times. Without it, the CPU times the issue
 *    recorded for SimGrid 3.32 on this machine kind are the baseline.
 *
 * 2. Scale: 32,768 workers and 327,680 tasks (64 MB chunks, three HDFS
 *    replicas, work uniform in 1..3 s) for every registered policy, on
 *    2,048 nodes of 16 workers and on 32,768 nodes of one; each run in a
 *    child process, so that its peak memory is its own. Prints events per
 *    second, wall time and memory, and the makespan and locality next to
 *    their bounds.
 *
 *   bench_sim           both parts (the 8,192-worker maxmin run of SimGrid
 *                       takes minutes and is left out)
 *   bench_sim --all     with it
 *   bench_sim --star | --scale   one part
 */
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "locus/locus.h"
#include "repro.h"

extern char **environ;

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, const struct locus_error *err)
{
	fprintf(stderr, "bench_sim: %s: %s\n", what, err && err->message[0] ? err->message : "");
	exit(1);
}

/* ---- 1. the star ---------------------------------------------------------- */

/* The star of simgrid_mw.c as a Locus platform: node 0 the master (no
 * cores, a 1.25 GB/s link, a disk that never limits, one transfer slot when
 * serial), nodes 1..n the workers (125 MB/s links, speeds uniform in
 * 0.5..2 from the same generator and seed); 100 us from master to worker. */
static struct locus_platform *star_platform(size_t n, int serial, uint64_t seed)
{
	struct locus_platform *p;
	struct locus_rng rng;
	if (locus_platform_generate(&p, n + 1, 1, 1, "w"))
		die("platform", NULL);
	locus_rng_init(&rng, seed);
	p->latency = 1e-4;
	p->nodes[0].cores = 0;
	p->nodes[0].net_bw = 1.25e9;
	p->nodes[0].disk_bw = 1e15;
	p->nodes[0].max_transfers = serial ? 1 : 0;
	for (size_t i = 1; i <= n; i++) {
		p->nodes[i].speed = 0.5 + 1.5 * locus_rng_uniform(&rng);
		p->nodes[i].net_bw = 1.25e8;
	}
	return p;
}

struct star_run {
	double makespan, cpu;
	uint64_t events;
};

static struct star_run star_locus(size_t n, int serial, uint64_t seed)
{
	struct locus_platform *p = star_platform(n, serial, seed);
	struct locus_catalog *cat;
	struct locus_workload *wl;
	struct locus_work_spec work = {.dist = LOCUS_WORK_FIXED, .mean = 1.0};
	struct locus_error err = {0};
	struct locus_result *r;
	struct star_run out;

	/* Every input on the master. */
	if (locus_catalog_create(&cat))
		die("catalog", NULL);
	for (size_t i = 0; i < p->n_nodes; i++)
		locus_catalog_add_host(cat, p->nodes[i].name, NULL);
	locus_catalog_add_dataset(cat, "inputs");
	uint32_t master = 0;
	for (size_t t = 0; t < 10 * n; t++)
		if (locus_catalog_add_chunk(cat, 0, 1000000, &master, 1, 0) < 0)
			die("catalog", NULL);
	if (locus_workload_build(&wl, p, cat, NULL, &work, seed, &err))
		die("workload", &err);
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = locus_policy_find("fifo"),
				       .seed = seed,
				       .latency = -1,
				       .no_task_results = 1};
	double c0 = cpu_seconds();
	if (locus_sim_run(&r, &cfg, &err))
		die("simulation", &err);
	out.cpu = cpu_seconds() - c0;
	out.makespan = r->makespan;
	out.events = r->events;
	locus_result_destroy(r);
	locus_workload_destroy(wl);
	locus_catalog_destroy(cat);
	locus_platform_destroy(p);
	return out;
}

/* Runs SimGrid's version; returns 0 and its makespan and CPU time, or -1
 * when the program is not there or fails. */
static int star_simgrid(const char *prog, size_t n, int serial, uint64_t seed, struct star_run *out)
{
	char a1[32], a4[32], path[] = "/tmp/locus-bench-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	snprintf(a1, sizeof a1, "%zu", n);
	snprintf(a4, sizeof a4, "%llu", (unsigned long long)seed);
	char *argv[] = {(char *)prog, a1, "10", serial ? "serial" : "maxmin", a4, NULL};
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	pid_t pid;
	int status = -1;
	struct rusage ru;
	if (posix_spawn(&pid, prog, &fa, NULL, argv, environ) == 0 &&
	    wait4(pid, &status, 0, &ru) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		char buf[128] = {0};
		lseek(fd, 0, SEEK_SET);
		ssize_t k = read(fd, buf, sizeof buf - 1);
		if (k > 0 && sscanf(buf, "makespan %lf", &out->makespan) == 1) {
			out->cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
				   (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
			status = 0;
		} else {
			status = -1;
		}
	} else {
		status = -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
	remove(path);
	return status;
}

static void star_part(const char *self, int all)
{
	/* SimGrid 3.32's CPU seconds for these runs as the issue recorded them. */
	static const struct {
		size_t n;
		int serial;
		double recorded;
	} cases[] = {{2048, 1, 0.75}, {8192, 1, 9.0}, {2048, 0, 8.9}, {8192, 0, 242.0}};
	char prog[4096];
	const char *slash = strrchr(self, '/');
	snprintf(prog, sizeof prog, "%.*sbench_simgrid_mw", slash ? (int)(slash - self + 1) : 0,
		 self);
	int have = access(prog, X_OK) == 0;

	printf("SimGrid's master/worker star: 10 tasks of 1 Gflop and 1 MB per worker\n");
	if (!have)
		printf("(bench_simgrid_mw not built: install libsimgrid-dev and rebuild to run "
		       "SimGrid here; its CPU times recorded in the issue are the baseline)\n");
	printf("%-7s %7s  %12s %12s %10s  %9s %9s %8s  %10s\n", "sharing", "workers", "makespan",
	       "simgrid", "rel.diff", "cpu s", "simgrid s", "speedup", "events/s");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct star_run l = star_locus(cases[i].n, cases[i].serial, 7);
		struct star_run g = {NAN, cases[i].recorded, 0};
		int ran = 0;
		if (have && (all || !(cases[i].n == 8192 && !cases[i].serial)))
			ran = star_simgrid(prog, cases[i].n, cases[i].serial, 7, &g) == 0;
		printf("%-7s %7zu  %12.6f ", cases[i].serial ? "serial" : "maxmin", cases[i].n,
		       l.makespan);
		if (ran)
			printf("%12.6f %10.2e  ", g.makespan,
			       fabs(l.makespan - g.makespan) / g.makespan);
		else
			printf("%12s %10s  ", "-", "-");
		printf("%9.3f %8.2f%s %8.0fx  %10.0f\n", l.cpu, g.cpu, ran ? " " : "*",
		       g.cpu / l.cpu, (double)l.events / l.cpu);
	}
	printf("* recorded in the issue, not measured in this run\n\n");
}

/* ---- 2. scale ---------------------------------------------------------- */

struct scale_shape {
	size_t nodes;
	int ppn;
};

/* One policy on one shape, in this (child) process. */
static void scale_one(const struct scale_shape *sh, const char *policy)
{
	struct locus_scenario_spec sc = {.nodes = sh->nodes,
					 .racks = sh->nodes >= 32 ? 32 : 1,
					 .cores = sh->ppn,
					 .chunks = 327680,
					 .chunk_size = 64ull << 20,
					 .placement = LOCUS_PLACE_HDFS,
					 .replicas = 3,
					 .work = "uniform:1:3"};
	long opt = -1;
	struct repro_run run = {
	    .policy = policy, .cost_msg = 5e-6, .cost_entry = 1e-7, .opt_local = &opt};
	struct locus_result *r = repro_go(&sc, 1, &run);
	double dt = r->wall_seconds; /* the simulation alone */
	printf("%6zu x %-2d  %-11s %9.3f %10.0f %9.1f %8.3f %8.4f  ", sh->nodes, sh->ppn, policy,
	       dt, (double)r->events / dt, r->makespan, r->makespan / r->lb_makespan,
	       opt > 0 ? (double)r->local_tasks / (double)opt : 1.0);
	fflush(stdout);
	locus_result_destroy(r);
}

static void scale_part(void)
{
	static const struct scale_shape shapes[] = {{2048, 16}, {32768, 1}};
	printf("32,768 workers, 327,680 tasks (64 MB, 3 HDFS replicas, work uniform 1..3 s)\n");
	printf("%-10s  %-11s %9s %10s %9s %8s %8s  %8s\n", "nodes x ppn", "policy", "wall s",
	       "events/s", "makespan", "/bound", "/optloc", "peak MB");
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
		for (const struct locus_policy *const *pp = locus_policies(); *pp; pp++) {
			/* The static DAG planners (heft, cpop, dls, peft) plan a
			 * bag of chunks too, but at O(tasks x workers) per task:
			 * not the chunk scheduling this measures (bench_dag and
			 * bench_sim_graph time them). */
			if (locus_policy_flags(*pp) & LOCUS_POLICY_GRAPHS)
				continue;
			fflush(stdout);
			pid_t pid = fork();
			if (pid == 0) {
				scale_one(&shapes[s], (*pp)->name);
				_exit(0);
			}
			int status;
			struct rusage ru;
			if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
			    WEXITSTATUS(status))
				die("a scale run failed", NULL);
			printf("%8.0f\n", (double)ru.ru_maxrss / 1024.0);
		}
	printf("/bound: makespan over its lower bound; /optloc: local tasks over the most "
	       "any balanced assignment reads locally\n");
}

int main(int argc, char **argv)
{
	int all = 0, star = 1, scale = 1;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--all") == 0)
			all = 1;
		else if (strcmp(argv[i], "--star") == 0)
			scale = 0;
		else if (strcmp(argv[i], "--scale") == 0)
			star = 0;
		else {
			fprintf(stderr, "usage: bench_sim [--all] [--star | --scale]\n");
			return 2;
		}
	}
	if (star)
		star_part(argv[0], all);
	if (scale)
		scale_part();
	return 0;
}
