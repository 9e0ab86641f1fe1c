/*
 * DL-MPI's claims as trends the simulator must keep (bench/repro_dlmpi.c
 * draws the full figures; docs/results/dlmpi.md reads them):
 *  - Fig. 2: with DL-MPI's scheduler the processing time stays well below
 *    that of a scheduler blind to locality, and the gap widens with the
 *    input size;
 *  - Fig. 3: the aggregate read bandwidth over node-local data grows about
 *    linearly with the nodes, over a shared file system it levels off;
 *  - heterogeneous nodes (speeds 1..4): dlmpi ends no further from the
 *    lower bound than monolithic, with locality within a few points of the
 *    optimum.
 * Small versions of the same platforms, asserted on ratios, never on times.
 */
#include <string.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

struct setup {
	size_t nodes;
	int ppn;
	double backbone, speed_hi, shared_fs;
	size_t tasks;
	const char *work;
};

/* Runs `policy` on generated nodes (80 MB/s disks, 117 MB/s links, two
 * racks) with 64 MB chunks placed by HDFS's rule; *opt gets the locality
 * optimum when not NULL. */
static struct locus_result *run(const struct setup *su, const char *policy, uint64_t seed,
				long *opt)
{
	struct locus_scenario_spec spec = {.nodes = su->nodes,
					   .racks = 2,
					   .cores = su->ppn,
					   .speed_hi = su->speed_hi,
					   .disk_bw = 80e6,
					   .net_bw = 117e6,
					   .backbone_bw = su->backbone,
					   .chunks = su->tasks,
					   .chunk_size = 64ull << 20,
					   .placement = LOCUS_PLACE_HDFS,
					   .replicas = 3,
					   .work = su->work,
					   .seed = seed};
	return test_simulate(&spec, policy, 5e-6, 1e-7, su->shared_fs, opt);
}

TEST(fig2_locality_pays_more_as_input_grows)
{
	/* 32 nodes of 4 workers behind a 1 GB/s switch; 8, 32 and 64 GB. */
	static const size_t chunks[] = {128, 512, 1024};
	double gap_before = 0;
	for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
		struct setup su = {32, 4, 1e9, 1, 0, chunks[i], "per-mib:0.002"};
		struct locus_result *f = run(&su, "fifo", 1, NULL), *d = run(&su, "dlmpi", 1, NULL);
		CHECK(f && d);
		printf("%zu chunks: fifo %.2f s, dlmpi %.2f s, bound %.2f s\n", chunks[i],
		       f->makespan, d->makespan, d->lb_makespan);
		CHECK(f->makespan > 1.4 * d->makespan);
		CHECK(f->makespan - d->makespan > gap_before);
		CHECK(d->makespan >= d->lb_makespan);
		gap_before = f->makespan - d->makespan;
		locus_result_destroy(f);
		locus_result_destroy(d);
	}
}

TEST(fig3_local_bandwidth_scales_shared_levels_off)
{
	/* 64 GB over 16, 64 and 128 nodes of 2 workers; a 2 GB/s shared FS. */
	static const size_t nodes[] = {16, 64, 128};
	double local[3], shared[3], bytes = 1024.0 * (64 << 20);
	for (size_t i = 0; i < 3; i++) {
		struct setup su = {nodes[i], 2, 0, 1, 0, 1024, "per-mib:0.002"};
		struct locus_result *a = run(&su, "dlmpi", 1, NULL);
		su.shared_fs = 2e9;
		struct locus_result *b = run(&su, "dlmpi", 1, NULL);
		CHECK(a && b);
		local[i] = bytes / a->makespan;
		shared[i] = bytes / b->makespan;
		printf("%zu nodes: node-local %.2f GB/s, shared %.2f GB/s\n", nodes[i],
		       local[i] / 1e9, shared[i] / 1e9);
		locus_result_destroy(a);
		locus_result_destroy(b);
	}
	/* About linear: 8 times the nodes give at least 6 times the bandwidth. */
	CHECK(local[2] > 6 * local[0]);
	CHECK(local[2] > 1.6 * local[1]);
	/* Levelled: twice the nodes add under 5 %, at the file system's cap. */
	CHECK(shared[2] < 1.05 * shared[1]);
	CHECK(shared[2] <= 2e9 * (1 + 1e-9));
	CHECK(local[2] > 3 * shared[2]);
}

TEST(heterogeneous_dlmpi_close_to_bound_and_local)
{
	/* The repro's setting at speeds 1..4, 10 seeds. */
	struct setup su = {32, 2, 1e9, 4, 0, 1280, "fixed:2"};
	double mono = 0, dl = 0, worst_local = 1;
	for (uint64_t seed = 1; seed <= 10; seed++) {
		long opt = 0;
		struct locus_result *m = run(&su, "monolithic", seed, NULL);
		struct locus_result *d = run(&su, "dlmpi", seed, &opt);
		CHECK(m && d && opt > 0);
		mono += m->makespan / m->lb_makespan / 10;
		dl += d->makespan / d->lb_makespan / 10;
		if ((double)d->local_tasks / (double)opt < worst_local)
			worst_local = (double)d->local_tasks / (double)opt;
		locus_result_destroy(m);
		locus_result_destroy(d);
	}
	printf("makespan / bound: monolithic %.4f, dlmpi %.4f; dlmpi locality >= %.3f of optimum\n",
	       mono, dl, worst_local);
	/* As close to the bound as monolithic, within the seeds' noise: the
	 * mean ratios differ by 0.1 to 0.5 % either way with the draws' order
	 * (docs/results/dlmpi.md), while a policy that ignored speeds or
	 * locality would be far off. */
	CHECK(dl <= mono * 1.01);
	CHECK(worst_local >= 0.97);
}

TEST_MAIN(TEST_ENTRY(fig2_locality_pays_more_as_input_grows),
	  TEST_ENTRY(fig3_local_bandwidth_scales_shared_levels_off),
	  TEST_ENTRY(heterogeneous_dlmpi_close_to_bound_and_local))
