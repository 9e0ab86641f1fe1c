/*
 * Bounds: the makespan and balanced-cap formulas on a heterogeneous
 * platform, the locality bound on hand-made instances (one where the
 * balanced caps force remote reads, one that needs a long augmenting
 * path), the maximum flow against GLPK's min-cost flow and against brute
 * force over hundreds of random instances, the assignment it returns, and
 * DL-MPI's integer program against brute-force enumeration. Also prints
 * (does not assert) the time of the locality bound at 327,680 tasks.
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

/* A platform of nodes "n0".."n<k-1>", one rack per `racks` nodes (round
 * robin), with the given cores and speeds (NULL: 1 core, speed 1). */
static struct locus_platform *platform(int k, int racks, const int *cores, const double *speed)
{
	size_t size = 128 + (size_t)k * 128, at;
	char *json = malloc(size);
	struct locus_platform *p = NULL;
	struct locus_error err;

	if (!json)
		return NULL;
	at = (size_t)snprintf(json, size,
			      "{\"format\": \"locus-platform\", \"version\": 1, \"nodes\": [");
	for (int i = 0; i < k; i++)
		at += (size_t)snprintf(json + at, size - at,
				       "%s{\"name\": \"n%d\", \"rack\": \"/r%d\", \"cores\": %d, "
				       "\"speed\": %.17g}",
				       i ? ", " : "", i, racks ? i % racks : 0,
				       cores ? cores[i] : 1, speed ? speed[i] : 1.0);
	snprintf(json + at, size - at, "]}");
	if (locus_platform_parse(&p, json, strlen(json), "test", &err))
		fprintf(stderr, "platform: %s\n", err.message);
	free(json);
	return p;
}

/* The workload of one dataset whose chunk t is held by the nodes
 * reps[t * stride .. t * stride + n_reps[t]) (n_reps NULL: `stride` each)
 * and has work[t] (NULL: 1 each). Host i of the catalog is node i. */
static struct locus_workload *workload(const struct locus_platform *p, size_t n,
				       const uint32_t *reps, uint32_t stride,
				       const uint32_t *n_reps, const double *work)
{
	struct locus_catalog *cat = NULL;
	struct locus_workload *wl = NULL;
	struct locus_work_spec spec = {.dist = LOCUS_WORK_FIXED, .mean = 1};
	struct locus_error err;

	if (locus_catalog_create(&cat))
		return NULL;
	for (size_t i = 0; i < p->n_nodes; i++)
		locus_catalog_add_host(cat, p->nodes[i].name, NULL);
	long ds = locus_catalog_add_dataset(cat, "d");
	for (size_t t = 0; t < n; t++)
		locus_catalog_add_chunk(cat, (size_t)ds, 1 << 20, reps + t * stride,
					n_reps ? n_reps[t] : stride, 0);
	if (work && n) {
		spec.dist = LOCUS_WORK_TRACE;
		spec.trace = work;
		spec.n_trace = n;
	}
	if (locus_workload_build(&wl, p, cat, NULL, &spec, 1, &err))
		fprintf(stderr, "workload: %s\n", err.message);
	locus_catalog_destroy(cat);
	return wl;
}

/* Holders written as digit strings, one per task ("" for none). */
static struct locus_workload *workload_str(const struct locus_platform *p, size_t n,
					   const char **holders, const double *work)
{
	uint32_t reps[64 * 8], n_reps[64];

	for (size_t t = 0; t < n; t++) {
		n_reps[t] = 0;
		for (const char *h = holders[t]; *h; h++)
			reps[t * 8 + n_reps[t]++] = (uint32_t)(*h - '0');
	}
	return workload(p, n, reps, 8, n_reps, work);
}

/* Whether `task_node` gives every task a node, keeps within `cap` when the
 * caps leave room for all, and has exactly `best` local tasks then (more
 * is possible only past the caps). */
static int assignment_ok(const struct locus_workload *wl, const uint32_t *cap,
			 const uint32_t *task_node, long best)
{
	size_t m = wl->platform->n_nodes;
	uint32_t *load = calloc(m ? m : 1, sizeof *load);
	uint64_t room = 0;
	long local = 0;
	int ok = 1;

	for (size_t n = 0; n < m; n++)
		room += cap[n];
	for (size_t t = 0; t < wl->n_tasks && ok; t++) {
		ok = task_node[t] < m;
		if (ok) {
			load[task_node[t]]++;
			local += locus_workload_is_local(wl, (uint32_t)t, task_node[t]);
		}
	}
	if (room >= wl->n_tasks) {
		for (size_t n = 0; n < m && ok; n++)
			ok = load[n] <= cap[n];
		ok = ok && local == best;
	} else {
		ok = ok && local >= best;
	}
	if (!ok)
		fprintf(stderr, "  bad assignment: %ld local, bound %ld\n", local, best);
	free(load);
	return ok;
}

TEST(makespan_on_a_heterogeneous_platform)
{
	/* Power per node: 2 x 1, 1 x 3, 4 x 0.5 = 7 speed-1 workers. Chunks
	 * of 1 MiB, disks of 100 MB/s, links of 125 MB/s. */
	int cores[] = {2, 1, 4};
	double speed[] = {1, 3, 0.5};
	struct locus_platform *p = platform(3, 1, cores, speed);
	const char *holders[] = {"0", "1", "2", "01"};
	double w1[] = {7, 14, 21, 6}, w2[] = {20, 20, 20, 10};
	const double mib = 1048576, all = 4 * mib;
	struct locus_makespan_bound b;

	CHECK(p);
	/* 48 / 7 < 21 / 3 + 1 MiB / 125 MB/s: the longest task decides. */
	struct locus_workload *wl = workload_str(p, 4, holders, w1);
	CHECK(wl);
	CHECK_EQ_INT(wl->n_workers, 7);
	CHECK_NEAR(locus_bound_makespan(wl, NULL, &b), 7 + mib / 125e6, 1e-12);
	CHECK_NEAR(b.work, 48.0 / 7.0, 1e-12);
	CHECK_NEAR(b.io, all / 300e6, 1e-15);
	/* Slowest read per unit of speed: node 2, 0.5 / 125 MB/s. */
	CHECK_NEAR(b.serial, (48 + all * 0.5 / 125e6) / 7, 1e-12);
	CHECK_NEAR(b.longest, 7 + mib / 125e6, 1e-12);
	CHECK(b.lower == b.longest);
	locus_workload_destroy(wl);

	/* 70 / 7 = 10 > 20 / 3: the work decides, with its reading. */
	wl = workload_str(p, 4, holders, w2);
	CHECK(wl);
	CHECK_NEAR(locus_bound_makespan(wl, NULL, NULL), (70 + all * 0.5 / 125e6) / 7, 1e-12);
	CHECK_NEAR(locus_bound_makespan(wl, NULL, &b), b.serial, 0);
	CHECK_NEAR(b.work, 10.0, 1e-12);
	CHECK_NEAR(b.longest, 20.0 / 3.0 + mib / 125e6, 1e-12);

	/* Node 1 slows from 3 to 0.5 at t = 1: 7 done by then, 63 at 4.5. */
	struct locus_speed_change slow[] = {{1.0, 1, 0.5}};
	struct locus_bound_env env = {.speed = slow, .n_speed = 1};
	CHECK_NEAR(locus_bound_makespan(wl, &env, &b), 15.0, 1e-12);
	CHECK_NEAR(b.work, 15.0, 1e-12);
	/* Node 2 (4 cores) speeds up from 0.5 to 2 at t = 2: 14 done, 56 at
	 * 13; peaks 1, 3 and 2 for the other parts. */
	struct locus_speed_change fast[] = {{0.5, 0, 1.0}, {2.0, 2, 2.0}};
	env = (struct locus_bound_env){.speed = fast, .n_speed = 2};
	CHECK_NEAR(locus_bound_makespan(wl, &env, &b), 20.0 / 3.0 + mib / 125e6, 1e-12);
	CHECK_NEAR(b.work, 2 + 56.0 / 13.0, 1e-12);
	CHECK_NEAR(b.serial, (70 + all / 125e6) / 13, 1e-12);
	CHECK_NEAR(b.longest, 20.0 / 3.0 + mib / 125e6, 1e-12);

	/* A shared file system of 1 MB/s: every byte through it. */
	env = (struct locus_bound_env){.shared_fs_bw = 1e6};
	CHECK_NEAR(locus_bound_makespan(wl, &env, &b), (70 + all * 0.5 / 1e6) / 7, 1e-12);
	CHECK_NEAR(b.io, all / 1e6, 1e-12);
	CHECK_NEAR(b.longest, mib / 1e6 + 20.0 / 3.0, 1e-12);
	locus_workload_destroy(wl);

	/* A chunk no node holds arrives over the links (375 MB/s in all),
	 * one that is held from the disks (300 MB/s). */
	const char *some[] = {"0", ""};
	double w3[] = {0, 0};
	wl = workload_str(p, 2, some, w3);
	CHECK(wl);
	locus_bound_makespan(wl, NULL, &b);
	CHECK_NEAR(b.io, mib / 300e6, 1e-15);
	CHECK(b.work == 0);
	locus_workload_destroy(wl);

	/* No tasks: 0. */
	wl = workload(p, 0, NULL, 0, NULL, NULL);
	CHECK(wl);
	CHECK_NEAR(locus_bound_makespan(wl, NULL, &b), 0.0, 0);
	CHECK(b.work == 0 && b.io == 0 && b.serial == 0 && b.longest == 0);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
}

TEST(balanced_caps)
{
	int cores[] = {2, 1, 4};
	double speed[] = {1, 3, 0.5}, tenths[] = {0.3, 0.6, 0.9};
	static const char *h[32];
	uint32_t cap[3];

	for (int i = 0; i < 32; i++)
		h[i] = "0";
	struct locus_platform *p = platform(3, 1, cores, speed);
	CHECK(p);
	/* Shares 2/7, 3/7, 2/7 of 4 tasks: 8/7, 12/7, 8/7. */
	struct locus_workload *wl = workload_str(p, 4, h, NULL);
	CHECK(wl);
	locus_bound_balanced_caps(wl, cap);
	CHECK(cap[0] == 2 && cap[1] == 2 && cap[2] == 2);
	locus_workload_destroy(wl);
	/* 7 and 14 tasks divide exactly. */
	wl = workload_str(p, 7, h, NULL);
	locus_bound_balanced_caps(wl, cap);
	CHECK(cap[0] == 2 && cap[1] == 3 && cap[2] == 2);
	locus_workload_destroy(wl);
	wl = workload_str(p, 14, h, NULL);
	locus_bound_balanced_caps(wl, cap);
	CHECK(cap[0] == 4 && cap[1] == 6 && cap[2] == 4);
	locus_workload_destroy(wl);
	/* 1 task: every node could take it alone. */
	wl = workload_str(p, 1, h, NULL);
	locus_bound_balanced_caps(wl, cap);
	CHECK(cap[0] == 1 && cap[1] == 1 && cap[2] == 1);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);

	/* 30 tasks over speeds 0.3, 0.6, 0.9: 5, 10, 15 exactly, although
	 * the floating-point shares come out a hair above. */
	p = platform(3, 1, NULL, tenths);
	CHECK(p);
	wl = workload_str(p, 30, h, NULL);
	CHECK(wl);
	locus_bound_balanced_caps(wl, cap);
	CHECK(cap[0] == 5 && cap[1] == 10 && cap[2] == 15);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
}

TEST(balanced_caps_force_a_remote_read)
{
	/* Four chunks, all on n0, two equal nodes: each takes 2, so two tasks
	 * must read remotely. */
	struct locus_platform *p = platform(2, 1, NULL, NULL);
	const char *holders[] = {"0", "0", "0", "0"};
	uint32_t task_node[4], cap[2], all_on_0[2] = {4, 0};
	struct locus_error err;
	long best = -1, ref = -1;

	CHECK(p);
	struct locus_workload *wl = workload_str(p, 4, holders, NULL);
	CHECK(wl);
	locus_bound_balanced_caps(wl, cap);
	CHECK(cap[0] == 2 && cap[1] == 2);
	CHECK_EQ_INT(locus_bound_locality(wl, NULL, &best, task_node, &err), 0);
	CHECK_EQ_INT(best, 2);
	CHECK_EQ_INT(locus_bound_locality_glpk(wl, NULL, &ref, &err), 0);
	CHECK_EQ_INT(ref, 2);
	CHECK(assignment_ok(wl, cap, task_node, best));
	CHECK_EQ_INT((task_node[0] == 1) + (task_node[1] == 1) + (task_node[2] == 1) +
			 (task_node[3] == 1),
		     2);
	/* Caps that let n0 take everything. */
	CHECK_EQ_INT(locus_bound_locality(wl, all_on_0, &best, task_node, &err), 0);
	CHECK_EQ_INT(best, 4);
	CHECK(task_node[0] == 0 && task_node[1] == 0 && task_node[2] == 0 && task_node[3] == 0);
	CHECK_EQ_INT(locus_bound_locality_glpk(wl, all_on_0, &ref, &err), 0);
	CHECK_EQ_INT(ref, 4);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
}

TEST(long_augmenting_path)
{
	/* Task i on n_i and n_{i+1} (i < 4), task 4 only on n0, caps 1. The
	 * greedy start puts task i on n_i, leaving task 4 out; only the path
	 * 4 -> n0 -> 0 -> n1 -> 1 -> ... -> 3 -> n4 makes all five local. */
	struct locus_platform *p = platform(5, 1, NULL, NULL);
	const char *holders[] = {"01", "12", "23", "34", "0"};
	uint32_t cap[5] = {1, 1, 1, 1, 1}, task_node[5];
	struct locus_error err;
	long best = -1, ref = -1;

	CHECK(p);
	struct locus_workload *wl = workload_str(p, 5, holders, NULL);
	CHECK(wl);
	CHECK_EQ_INT(locus_bound_locality(wl, cap, &best, task_node, &err), 0);
	CHECK_EQ_INT(best, 5);
	for (uint32_t t = 0; t < 4; t++)
		CHECK_EQ_INT(task_node[t], t + 1);
	CHECK_EQ_INT(task_node[4], 0);
	CHECK_EQ_INT(locus_bound_locality_glpk(wl, cap, &ref, &err), 0);
	CHECK_EQ_INT(ref, 5);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
}

TEST(unplaced_and_overflowing_tasks)
{
	/* Task 2 has no replica; caps sum to 2 < 4 tasks: two tasks local at
	 * most, every task still gets a node, and the overflow goes to the
	 * node with the least load per power (n1, four times the power). */
	double speed[] = {1, 4};
	struct locus_platform *p = platform(2, 1, NULL, speed);
	const char *holders[] = {"0", "0", "", "1"};
	uint32_t cap[2] = {1, 1}, task_node[4];
	struct locus_error err;
	long best = -1, ref = -1;

	CHECK(p);
	struct locus_workload *wl = workload_str(p, 4, holders, NULL);
	CHECK(wl);
	CHECK_EQ_INT(wl->n_unplaced, 1);
	CHECK_EQ_INT(locus_bound_locality(wl, cap, &best, task_node, &err), 0);
	CHECK_EQ_INT(best, 2);
	CHECK_EQ_INT(locus_bound_locality_glpk(wl, cap, &ref, &err), 0);
	CHECK_EQ_INT(ref, 2);
	CHECK_EQ_INT(task_node[0], 0);
	CHECK_EQ_INT(task_node[3], 1);
	CHECK_EQ_INT(task_node[1], 1);
	CHECK_EQ_INT(task_node[2], 1);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
}

/* The most local tasks by trying every choice (each task: one of its
 * holders, or not local). */
static long brute_locality(const struct locus_workload *wl, const uint32_t *cap, size_t t,
			   uint32_t *load)
{
	if (t == wl->n_tasks)
		return 0;
	long best = brute_locality(wl, cap, t + 1, load);
	const struct locus_task *tk = &wl->tasks[t];
	for (uint32_t k = 0; k < tk->n_holders; k++) {
		uint32_t n = wl->holders[tk->holders_at + k];
		if (load[n] < cap[n]) {
			load[n]++;
			long v = 1 + brute_locality(wl, cap, t + 1, load);
			load[n]--;
			if (v > best)
				best = v;
		}
	}
	return best;
}

/* A random instance: m nodes on a few racks with random cores and speeds,
 * n chunks with r replicas placed by HDFS, random or skewed placement, or
 * crowded onto a few hot nodes, some chunks with no replica. */
static struct locus_workload *random_instance(struct locus_rng *rng, int m, size_t n, int r,
					      struct locus_platform **pp)
{
	int cores[64];
	double speed[64];
	struct locus_place_options opt = {.replicas = (unsigned)r, .seed = locus_rng_next(rng)};
	struct locus_error err;
	uint32_t *reps = calloc(n * (size_t)r + 1, sizeof *reps);
	uint32_t *n_reps = calloc(n + 1, sizeof *n_reps);
	int mode = (int)locus_rng_below(rng, 4);

	for (int i = 0; i < m; i++) {
		cores[i] = 1 + (int)locus_rng_below(rng, 3);
		speed[i] = 0.25 + 2 * locus_rng_uniform(rng);
	}
	*pp = platform(m, 1 + (int)locus_rng_below(rng, 3), cores, speed);
	if (!*pp || !reps || !n_reps)
		abort();
	if (mode < 3) {
		opt.policy = mode == 0	 ? LOCUS_PLACE_HDFS
			     : mode == 1 ? LOCUS_PLACE_RANDOM
					 : LOCUS_PLACE_SKEWED;
		/* A spread of up to 1.5 times the mean replicas per node, within
		 * what locus_place can reach. */
		double mean = (double)n * r / m, widest = sqrt(mean * ((double)n - mean));
		opt.skew_std = 1.5 * mean < 0.8 * widest ? 1.5 * mean : 0.8 * widest;
		if (locus_place(*pp, n, &opt, reps, &err)) {
			fprintf(stderr, "place: %s\n", err.message);
			abort();
		}
	} else {
		/* Hot spots: each replica on one of the first two nodes with
		 * probability 0.7 (if still free), else anywhere. */
		for (size_t c = 0; c < n; c++)
			for (int j = 0; j < r; j++) {
				uint32_t v;
				int dup;
				do {
					v = locus_rng_uniform(rng) < 0.7
						? (uint32_t)locus_rng_below(rng, m < 2 ? 1 : 2)
						: (uint32_t)locus_rng_below(rng, (uint64_t)m);
					dup = 0;
					for (int k = 0; k < j; k++)
						dup |= reps[c * r + k] == v;
				} while (dup);
				reps[c * r + j] = v;
			}
	}
	for (size_t c = 0; c < n; c++)
		n_reps[c] = locus_rng_uniform(rng) < 0.05 ? 0 : (uint32_t)r;
	struct locus_workload *wl = workload(*pp, n, reps, (uint32_t)r, n_reps, NULL);
	free(reps);
	free(n_reps);
	if (!wl)
		abort();
	return wl;
}

/* Caps of one of five kinds: balanced, random around the balanced share,
 * tight (summing to less than n), all 1, or unbounded. */
static void random_caps(struct locus_rng *rng, const struct locus_workload *wl, uint32_t *cap)
{
	size_t m = wl->platform->n_nodes, n = wl->n_tasks;
	int kind = (int)locus_rng_below(rng, 5);

	locus_bound_balanced_caps(wl, cap);
	for (size_t i = 0; i < m; i++) {
		switch (kind) {
		case 1:
			cap[i] = (uint32_t)locus_rng_below(rng, 2 * n / m + 2);
			break;
		case 2:
			cap[i] = (uint32_t)locus_rng_below(rng, n / (2 * m) + 1);
			break;
		case 3:
			cap[i] = 1;
			break;
		case 4:
			cap[i] = UINT32_MAX;
			break;
		}
	}
}

TEST(max_flow_agrees_with_glpk)
{
	struct locus_rng rng;
	struct locus_error err;
	uint32_t cap[64];
	int cases = 0, remote = 0;

	locus_rng_init(&rng, 20240601);
	for (int iter = 0; iter < 400; iter++) {
		int m = 2 + (int)locus_rng_below(&rng, 39);
		int r = 1 + (int)locus_rng_below(&rng, m < 3 ? (uint64_t)m : 3);
		size_t n = 1 + locus_rng_below(&rng, iter % 4 == 0 ? 1500 : 250);
		struct locus_platform *p;
		struct locus_workload *wl = random_instance(&rng, m, n, r, &p);
		uint32_t *task_node = calloc(n, sizeof *task_node);
		long best = -1, ref = -2;
		const uint32_t *use = NULL;

		CHECK(task_node);
		if (iter % 3) {
			random_caps(&rng, wl, cap);
			use = cap;
		} else {
			locus_bound_balanced_caps(wl, cap);
		}
		CHECK_EQ_INT(locus_bound_locality(wl, use, &best, task_node, &err), 0);
		CHECK_EQ_INT(locus_bound_locality_glpk(wl, use, &ref, &err), 0);
		if (best != ref)
			fprintf(stderr, "  instance %d: %d nodes, %zu tasks, r %d\n", iter, m, n,
				r);
		CHECK_EQ_INT(best, ref);
		CHECK(assignment_ok(wl, cap, task_node, best));
		remote += best < (long)(n - wl->n_unplaced);
		cases++;
		free(task_node);
		locus_workload_destroy(wl);
		locus_platform_destroy(p);
	}
	CHECK_EQ_INT(cases, 400);
	/* The instances must exercise the interesting case. */
	CHECK(remote > 100);
}

TEST(max_flow_agrees_with_brute_force)
{
	struct locus_rng rng;
	struct locus_error err;
	uint32_t cap[8], load[8];

	locus_rng_init(&rng, 7);
	for (int iter = 0; iter < 500; iter++) {
		int m = 1 + (int)locus_rng_below(&rng, 4);
		int r = 1 + (int)locus_rng_below(&rng, m < 3 ? (uint64_t)m : 3);
		size_t n = 1 + locus_rng_below(&rng, 8);
		struct locus_platform *p;
		struct locus_workload *wl = random_instance(&rng, m, n, r, &p);
		uint32_t task_node[8];
		long best = -1;

		for (int i = 0; i < m; i++)
			cap[i] = (uint32_t)locus_rng_below(&rng, 4);
		memset(load, 0, sizeof load);
		CHECK_EQ_INT(locus_bound_locality(wl, cap, &best, task_node, &err), 0);
		CHECK_EQ_INT(best, brute_locality(wl, cap, 0, load));
		CHECK(assignment_ok(wl, cap, task_node, best));
		locus_workload_destroy(wl);
		locus_platform_destroy(p);
	}
}

/* DL-MPI's objective of one assignment, from the definitions. */
static double eq1(const struct locus_workload *wl, const uint32_t *task_node, double alpha,
		  double beta)
{
	const struct locus_platform *p = wl->platform;
	double t_i[8] = {0}, power = 0, worst = 0, local = 0;

	for (size_t i = 0; i < p->n_nodes; i++)
		power += p->nodes[i].cores * p->nodes[i].speed;
	for (size_t t = 0; t < wl->n_tasks; t++) {
		const struct locus_node *nd = &p->nodes[task_node[t]];
		if (nd->cores == 0)
			return -INFINITY; /* a storage node runs no task */
		t_i[task_node[t]] += wl->tasks[t].work / (nd->cores * nd->speed);
		local += locus_workload_is_local(wl, (uint32_t)t, task_node[t]);
	}
	for (size_t i = 0; i < p->n_nodes; i++)
		if (t_i[i] > worst)
			worst = t_i[i];
	return alpha * local / (double)wl->n_tasks + beta * (wl->total_work / power) / worst;
}

/* The best objective over all m^n assignments. */
static double brute_ip(const struct locus_workload *wl, double alpha, double beta)
{
	size_t n = wl->n_tasks, m = wl->platform->n_nodes, total = 1;
	uint32_t task_node[8];
	double best = -1;

	for (size_t t = 0; t < n; t++)
		total *= m;
	for (size_t code = 0; code < total; code++) {
		size_t c = code;
		for (size_t t = 0; t < n; t++, c /= m)
			task_node[t] = (uint32_t)(c % m);
		double v = eq1(wl, task_node, alpha, beta);
		if (v > best)
			best = v;
	}
	return best;
}

TEST(dlmpi_ip_hand_computed)
{
	/* Four unit tasks on n0 of two equal nodes; OPT = 2. All on n0 gives
	 * P(D) = 1, P(T) = 1/2; three on n0: 3/4, 2/3; two each: 1/2, 1. */
	struct locus_platform *p = platform(2, 1, NULL, NULL);
	const char *holders[] = {"0", "0", "0", "0"};
	uint32_t task_node[4];
	struct locus_error err;
	double obj = 0;

	CHECK(p);
	struct locus_workload *wl = workload_str(p, 4, holders, NULL);
	CHECK(wl);
	/* alpha 0.6: all local, 0.6 + 0.2 beats 0.45 + 0.2667 and 0.3 + 0.4. */
	CHECK_EQ_INT(locus_dlmpi_ip(wl, 0.6, 0.4, 16, task_node, &obj, &err), 0);
	CHECK_NEAR(obj, 0.8, 1e-9);
	CHECK(task_node[0] == 0 && task_node[1] == 0 && task_node[2] == 0 && task_node[3] == 0);
	/* alpha 0.4: two each, 0.2 + 0.6 beats 0.4 + 0.3 and 0.3 + 0.4. */
	CHECK_EQ_INT(locus_dlmpi_ip(wl, 0.4, 0.6, 16, task_node, &obj, &err), 0);
	CHECK_NEAR(obj, 0.8, 1e-9);
	CHECK_EQ_INT((task_node[0] == 0) + (task_node[1] == 0) + (task_node[2] == 0) +
			 (task_node[3] == 0),
		     2);
	/* Only time counts: the balanced split, P(T) = 1. */
	CHECK_EQ_INT(locus_dlmpi_ip(wl, 0, 1, 16, NULL, &obj, &err), 0);
	CHECK_NEAR(obj, 1.0, 1e-9);
	/* Too many tasks for the exact program. */
	locus_error_clear(&err);
	CHECK_EQ_INT(locus_dlmpi_ip(wl, 0.5, 0.5, 3, task_node, &obj, &err), LOCUS_ERANGE);
	CHECK_EQ_INT(err.code, LOCUS_ERANGE);
	CHECK_EQ_INT(locus_dlmpi_ip(wl, -1, 0.5, 16, task_node, &obj, &err), LOCUS_EINVAL);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
}

TEST(dlmpi_ip_agrees_with_brute_force)
{
	static const double weights[][2] = {{0.5, 0.5}, {1, 0},	    {0, 1},
					    {0.2, 0.8}, {0.8, 0.2}, {0.35, 0.65}};
	struct locus_rng rng;
	struct locus_error err;
	int solved = 0;

	locus_rng_init(&rng, 99);
	for (int iter = 0; iter < 300; iter++) {
		int m = 1 + (int)locus_rng_below(&rng, 3), cores[3];
		size_t n = 1 + locus_rng_below(&rng, 6);
		double speed[3], work[6];
		uint32_t reps[6 * 3], n_reps[6], task_node[6];

		for (int i = 0; i < m; i++) {
			/* Now and then a storage node, which runs no worker. */
			cores[i] = (int)locus_rng_below(&rng, i ? 3 : 2) + (i ? 0 : 1);
			speed[i] = 0.5 + 1.5 * locus_rng_uniform(&rng);
		}
		for (size_t t = 0; t < n; t++) {
			/* Now and then equal works, to make ties. */
			work[t] = iter % 5 == 0 ? 1 : 0.5 + 2.5 * locus_rng_uniform(&rng);
			n_reps[t] = (uint32_t)locus_rng_below(&rng, (uint64_t)m + 1);
			uint32_t first = (uint32_t)locus_rng_below(&rng, (uint64_t)m);
			for (uint32_t k = 0; k < n_reps[t]; k++)
				reps[t * 3 + k] = (first + k) % (uint32_t)m;
		}
		struct locus_platform *p = platform(m, 1, cores, speed);
		CHECK(p);
		struct locus_workload *wl = workload(p, n, reps, 3, n_reps, work);
		CHECK(wl);
		const double *wt = weights[iter % (sizeof weights / sizeof weights[0])];
		double alpha = iter % 7 == 6 ? locus_rng_uniform(&rng) : wt[0];
		double beta = iter % 7 == 6 ? locus_rng_uniform(&rng) : wt[1];
		double obj = -1, want = brute_ip(wl, alpha, beta);

		CHECK_EQ_INT(locus_dlmpi_ip(wl, alpha, beta, 6, task_node, &obj, &err), 0);
		if (fabs(obj - want) > 1e-6)
			fprintf(stderr, "  instance %d: %zu tasks, %d nodes, alpha %g beta %g\n",
				iter, n, m, alpha, beta);
		CHECK_NEAR(obj, want, 1e-6);
		/* The objective is that of the assignment returned, and the
		 * library evaluates any assignment the same way. */
		CHECK_NEAR(eq1(wl, task_node, alpha, beta), obj, 1e-12);
		CHECK_NEAR(locus_dlmpi_objective(wl, alpha, beta, task_node), obj, 1e-12);
		solved++;
		locus_workload_destroy(wl);
		locus_platform_destroy(p);
	}
	CHECK_EQ_INT(solved, 300);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A platform of `m` speed-1 nodes on 32 racks and `n` chunks with 3
 * replicas placed by `policy`. */
static struct locus_workload *big_instance(size_t m, size_t n, enum locus_place_policy policy,
					   struct locus_platform **pp)
{
	struct locus_place_options opt = {.policy = policy, .replicas = 3, .seed = 42};
	struct locus_error err;
	uint32_t *reps = calloc(n * 3, sizeof *reps);

	opt.skew_std = 2 * 3.0 * (double)n / (double)m;
	if (!reps || locus_platform_generate(pp, m, 32, 1, "n") ||
	    locus_place(*pp, n, &opt, reps, &err))
		abort();
	struct locus_workload *wl = workload(*pp, n, reps, 3, NULL, NULL);
	free(reps);
	return wl;
}

TEST(locality_at_scale)
{
	static const struct {
		size_t m, n;
		enum locus_place_policy policy;
		int glpk;
	} runs[] = {
	    {128, 3840, LOCUS_PLACE_HDFS, 1},	  {128, 3840, LOCUS_PLACE_SKEWED, 1},
	    {1024, 30720, LOCUS_PLACE_HDFS, 0},	  {1024, 30720, LOCUS_PLACE_SKEWED, 0},
	    {32768, 327680, LOCUS_PLACE_HDFS, 0}, {32768, 327680, LOCUS_PLACE_SKEWED, 0},
	};
	struct locus_error err;

	for (size_t i = 0; i < (sizeof runs / sizeof runs[0]); i++) {
		struct locus_platform *p;
		struct locus_workload *wl = big_instance(runs[i].m, runs[i].n, runs[i].policy, &p);
		uint32_t *task_node = calloc(runs[i].n, sizeof *task_node);
		uint32_t *cap = calloc(runs[i].m, sizeof *cap);
		long best = -1, ref = -1;

		CHECK(wl && task_node && cap);
		locus_bound_balanced_caps(wl, cap);
		double t0 = now();
		CHECK_EQ_INT(locus_bound_locality(wl, NULL, &best, task_node, &err), 0);
		double t1 = now();
		CHECK(assignment_ok(wl, cap, task_node, best));
		printf("locality bound: %zu tasks x 3 replicas (%s) over %zu nodes: %ld local "
		       "(%.2f%%) in %.1f ms",
		       runs[i].n, locus_place_policy_name(runs[i].policy), runs[i].m, best,
		       100.0 * (double)best / (double)runs[i].n, (t1 - t0) * 1e3);
		if (runs[i].glpk) {
			CHECK_EQ_INT(locus_bound_locality_glpk(wl, NULL, &ref, &err), 0);
			printf("; GLPK min-cost flow %.1f ms", (now() - t1) * 1e3);
			CHECK_EQ_INT(ref, best);
		}
		printf("\n");
		free(task_node);
		free(cap);
		locus_workload_destroy(wl);
		locus_platform_destroy(p);
	}
}

TEST_MAIN(TEST_ENTRY(makespan_on_a_heterogeneous_platform), TEST_ENTRY(balanced_caps),
	  TEST_ENTRY(balanced_caps_force_a_remote_read), TEST_ENTRY(long_augmenting_path),
	  TEST_ENTRY(unplaced_and_overflowing_tasks), TEST_ENTRY(max_flow_agrees_with_brute_force),
	  TEST_ENTRY(max_flow_agrees_with_glpk), TEST_ENTRY(dlmpi_ip_hand_computed),
	  TEST_ENTRY(dlmpi_ip_agrees_with_brute_force), TEST_ENTRY(locality_at_scale))
