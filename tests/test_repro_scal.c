/*
 * ScalScheduling's claims as trends the simulator must keep
 * (bench/repro_scal.c draws the full figures; docs/results/
 * scalscheduling.md reads them), on the same platform and cost model
 * (10 us per metadata entry, 5 us per message), smaller:
 *  - Fig. 4: close to monolithic at 256 workers, clearly faster at 1,536;
 *  - Fig. 5 and 8: monolithic's mean and longest waits grow with the
 *    workers (and the metadata), scal's stay low;
 *  - Fig. 7: on the skewed placements, more than 95.6 % of the chunks are
 *    read locally;
 *  - local requests approved: more than 95 % with tau = 2 when each chunk
 *    has one copy (Fig. 6's 30 local chunks per process).
 * Asserted on ratios, never on absolute times.
 */
#include <string.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

static struct locus_result *run(size_t nodes, int ppn, size_t tasks, unsigned replicas,
				enum locus_place_policy placement, double skew, const char *policy,
				long *opt)
{
	struct locus_scenario_spec spec = {.nodes = nodes,
					   .racks = nodes >= 32 ? 32 : 1,
					   .cores = ppn,
					   .chunks = tasks,
					   .chunk_size = 1 << 20,
					   .placement = placement,
					   .replicas = replicas,
					   .skew_std = skew,
					   .work = "uniform:1:3",
					   .seed = 1};
	return test_simulate(&spec, policy, 5e-6, 1e-5, 0, opt);
}

static uint64_t counter(const struct locus_result *r, const char *name)
{
	for (size_t i = 0; i < 8 && r->pstats.counter_names[i]; i++)
		if (strcmp(r->pstats.counter_names[i], name) == 0)
			return r->pstats.counters[i];
	return 0;
}

TEST(fig4_5_8_scal_scales_monolithic_does_not)
{
	/* 128 nodes, ten chunks per worker. */
	struct locus_result *m1 = run(128, 2, 2560, 3, LOCUS_PLACE_HDFS, 0, "monolithic", NULL);
	struct locus_result *s1 = run(128, 2, 2560, 3, LOCUS_PLACE_HDFS, 0, "scal", NULL);
	struct locus_result *m2 = run(128, 12, 15360, 3, LOCUS_PLACE_HDFS, 0, "monolithic", NULL);
	struct locus_result *s2 = run(128, 12, 15360, 3, LOCUS_PLACE_HDFS, 0, "scal", NULL);
	CHECK(m1 && s1 && m2 && s2);
	printf("256 workers: monolithic %.2f s, scal %.2f s; 1536: %.2f s, %.2f s\n", m1->makespan,
	       s1->makespan, m2->makespan, s2->makespan);
	printf("mean wait: monolithic %.4f -> %.4f s, scal %.4f -> %.4f s\n", m1->wait_mean,
	       m2->wait_mean, s1->wait_mean, s2->wait_mean);
	printf("longest wait: monolithic %.3f -> %.3f s, scal %.3f -> %.3f s\n", m1->wait_max,
	       m2->wait_max, s1->wait_max, s2->wait_max);
	/* Fig. 4: close at 256 workers, clearly lower at 1,536. */
	CHECK(m1->makespan < 1.02 * s1->makespan);
	CHECK(m2->makespan > 1.04 * s2->makespan);
	CHECK_EQ_INT(s2->n_schedulers, 3);
	/* Fig. 5: monolithic's mean wait grows steeply, scal's little. */
	CHECK(m2->wait_mean > 10 * m1->wait_mean);
	CHECK(s2->wait_mean < 10 * s1->wait_mean && s2->wait_mean < m2->wait_mean / 10);
	/* Fig. 8: the longest wait grows with monolithic, not with scal. */
	CHECK(m2->wait_max > 10 * m1->wait_max);
	CHECK(s2->wait_max < 0.2 && s2->wait_max < m2->wait_max / 10);
	locus_result_destroy(m1);
	locus_result_destroy(s1);
	locus_result_destroy(m2);
	locus_result_destroy(s2);
}

TEST(fig7_locality_on_skewed_placements)
{
	long opt = 0;
	struct locus_result *s = run(1024, 1, 30720, 3, LOCUS_PLACE_SKEWED, 8.82, "scal", &opt);
	struct locus_result *m =
	    run(1024, 1, 30720, 3, LOCUS_PLACE_SKEWED, 8.82, "monolithic", NULL);
	CHECK(s && m && opt > 0);
	double ls = (double)s->local_tasks / (double)s->n_tasks;
	double lm = (double)m->local_tasks / (double)m->n_tasks;
	double lo = (double)opt / (double)s->n_tasks;
	printf("read locally: scal %.4f, monolithic %.4f, optimum %.4f\n", ls, lm, lo);
	CHECK(ls >= 0.956);
	/* Measured: 0.2 points below monolithic, 1.2 below the optimum
	 * (docs/results/scalscheduling.md); these keep it there. */
	CHECK(ls >= lm - 0.005 && ls >= lo - 0.015);
	locus_result_destroy(s);
	locus_result_destroy(m);
}

TEST(approval_with_one_copy)
{
	struct locus_result *s = run(1024, 1, 30720, 1, LOCUS_PLACE_SKEWED, 7.42, "scal", NULL);
	CHECK(s);
	double approved =
	    (double)counter(s, "local_approved") / (double)counter(s, "local_requests");
	printf("local requests approved with one copy: %.3f\n", approved);
	CHECK(approved > 0.95);
	locus_result_destroy(s);
}

TEST_MAIN(TEST_ENTRY(fig4_5_8_scal_scales_monolithic_does_not),
	  TEST_ENTRY(fig7_locality_on_skewed_placements), TEST_ENTRY(approval_with_one_copy))
