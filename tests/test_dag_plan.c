/*
 * Static list schedulers and bounds (locus/dag.h): HEFT, CPOP, DLS and PEFT
 * on published examples, each schedule asserted task by task; validity,
 * determinism and agreement with plain reference implementations over
 * hundreds of random graphs; and the errors.
 *
 * Published examples:
 *  - Topcuoglu, Hariri and Wu, IEEE TPDS 13(3) 2002, the sample DAG of
 *    Fig. 2 as ../shared/data/dag-examples/topcuoglu2002.txt gives it
 *    (ranks, the HEFT schedule, makespan 80; CPOP 86 with the critical
 *    path n1 n2 n9 n10 on P2).
 *  - Arabnejad and Barbosa, IEEE TPDS 25(3) 2014, the paper's sample DAG
 *    (its optimistic cost table, rank_oct and the PEFT schedule of
 *    makespan 122), with the costs, edges and schedule as
 *    github.com/mackncheesiest/peft gives them in test/peftgraph_*.csv
 *    and peft/test/test_peft.py.
 *  - github.com/mrocklin/heft heft/tests/test_core.py test_schedule: a
 *    7-task graph on 3 alike agents, HEFT's schedule of makespan 29.
 * Every schedule asserted, published or not (HEFT without insertion, DLS
 * and PEFT on the first graph; HEFT and CPOP on the second), was derived
 * by hand (the derivations are in the comments) and agrees with an
 * independent computation in exact rational arithmetic.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

/* ---- building examples ------------------------------------------------------ */

struct fixture {
	struct locus_graph *g;
	struct locus_platform *p;
	struct locus_workload *wl;
};

static void fixture_fini(struct fixture *f)
{
	locus_workload_destroy(f->wl);
	locus_platform_destroy(f->p);
	locus_graph_destroy(f->g);
	memset(f, 0, sizeof *f);
}

/* n tasks with `procs` costs each (cost NULL: work[] on alike nodes),
 * edges {from, to, bytes} 1-based as the papers number them, on `procs`
 * nodes of one core linked pairwise at 1 byte/s with no start-up: an
 * edge's bytes are its transfer time, as in the papers. */
static int fixture_init(struct fixture *f, size_t n, size_t procs, const double *cost,
			const double *work, const unsigned (*edge)[3], size_t n_edges)
{
	struct locus_error err;
	memset(f, 0, sizeof *f);
	if (locus_graph_create(&f->g, "example", &err))
		return -1;
	for (size_t t = 0; t < n; t++)
		if (locus_graph_add_task(f->g, NULL, work ? work[t] : 1) != (long)t)
			return -1;
	for (size_t e = 0; e < n_edges; e++)
		if (locus_graph_add_edge(f->g, edge[e][0] - 1, edge[e][1] - 1, edge[e][2]) < 0)
			return -1;
	if (cost && locus_graph_set_costs(f->g, procs, cost, &err))
		return -1;
	if (locus_graph_finish(f->g, &err) || locus_platform_generate(&f->p, procs, 1, 1, "p"))
		return -1;
	locus_platform_set_pairs(f->p, 1.0, 0);
	if (locus_workload_from_graph(&f->wl, f->p, f->g, NULL, &err)) {
		fprintf(stderr, "workload: %s\n", err.message);
		return -1;
	}
	return 0;
}

/* One row of a published schedule: task and processor 1-based. */
struct row {
	unsigned task, proc;
	double start, finish;
};

/* Whether `plan` places every task as rows[] says (exactly: these times
 * are sums of whole numbers) and in the order rows[] lists them when
 * `placed` is set. */
static int same_schedule(const struct locus_dag_plan *plan, const struct row *rows, size_t n,
			 int placed)
{
	int bad = 0;
	for (size_t k = 0; k < n; k++) {
		const struct locus_dag_slot *s = &plan->slot[rows[k].task - 1];
		if (s->proc + 1 != rows[k].proc || s->start != rows[k].start ||
		    s->finish != rows[k].finish) {
			fprintf(stderr, "n%u: P%u %g-%g, expected P%u %g-%g\n", rows[k].task,
				s->proc + 1, s->start, s->finish, rows[k].proc, rows[k].start,
				rows[k].finish);
			bad = 1;
		}
		if (placed && plan->placed[k] + 1 != rows[k].task) {
			fprintf(stderr, "placed[%zu] = n%u, expected n%u\n", k, plan->placed[k] + 1,
				rows[k].task);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

static struct locus_dag_plan *plan_of(const struct locus_workload *wl, enum locus_dag_algorithm a,
				      int insertion)
{
	struct locus_dag_options o;
	struct locus_dag_plan *plan = NULL;
	struct locus_error err;
	locus_dag_options_init(&o);
	o.insertion = insertion;
	if (locus_dag_plan(&plan, wl, a, &o, &err))
		fprintf(stderr, "%s: %s\n", locus_dag_algorithm_name(a), err.message);
	return plan;
}

/* ---- Topcuoglu et al. 2002 ------------------------------------------------- */

/* W(n, P) of Fig. 2 (rows n1..n10, columns P1..P3) and its 15 edges with
 * their communication costs (the shared data file; comments there). */
static const double topc_cost[10][3] = {{14, 16, 9},  {13, 19, 18}, {11, 13, 19}, {13, 8, 17},
					{12, 13, 10}, {13, 16, 9},  {7, 15, 11},  {5, 11, 14},
					{18, 12, 20}, {21, 7, 16}};
static const unsigned topc_edge[15][3] = {{1, 2, 18},  {1, 3, 12},  {1, 4, 9},	{1, 5, 11},
					  {1, 6, 14},  {2, 8, 19},  {2, 9, 16}, {3, 7, 23},
					  {4, 8, 27},  {4, 9, 23},  {5, 9, 13}, {6, 8, 15},
					  {7, 10, 17}, {8, 10, 11}, {9, 10, 13}};

TEST(topcuoglu_ranks_and_bounds)
{
	struct fixture f;
	double r[10];
	struct locus_dag_bounds b;
	CHECK(fixture_init(&f, 10, 3, topc_cost[0], NULL, topc_edge, 15) == 0);
	/* The paper's Table 1 (the data file): mean costs 13, 50/3, 43/3, ...
	 * and the edge costs themselves as mean transfer times. */
	static const double up[10] = {108,	 77,	    80,	       80,	  69,
				      190.0 / 3, 128.0 / 3, 107.0 / 3, 133.0 / 3, 44.0 / 3};
	CHECK_EQ_INT(locus_dag_upward_rank(f.wl, r), 0);
	for (int t = 0; t < 10; t++)
		CHECK_NEAR(r[t], up[t], 1e-9);
	/* rank_d by hand: n2 = 13 + 18, n3 = 13 + 12, n4 = 13 + 9, n5 = 13 +
	 * 11, n6 = 13 + 14, n7 = 25 + 43/3 + 23, n8 = max(31 + 50/3 + 19, 22 +
	 * 38/3 + 27, 27 + 38/3 + 15), n9 = max(31 + 50/3 + 16, 22 + 38/3 + 23,
	 * 24 + 35/3 + 13), n10 = max(187/3 + 11 + 17, 200/3 + 10 + 11, 191/3 +
	 * 50/3 + 13). rank_u + rank_d is 108 on n1 n2 n9 n10 only. */
	static const double down[10] = {0,  31,	       25,	  22,	     24,
					27, 187.0 / 3, 200.0 / 3, 191.0 / 3, 280.0 / 3};
	CHECK_EQ_INT(locus_dag_downward_rank(f.wl, r), 0);
	for (int t = 0; t < 10; t++)
		CHECK_NEAR(r[t], down[t], 1e-9);
	/* Least costs 9 13 11 8 10 9 7 5 12 7: the longest path of them is
	 * n1 n2 n9 n10, 9 + 13 + 12 + 7 = 41 (Topcuoglu's CP_MIN); the work
	 * bound is their sum over 3, 91/3; mean costs along n1 n2 n9 n10: 13
	 * + 50/3 + 50/3 + 44/3 = 61, the largest. */
	CHECK_EQ_INT(locus_dag_bounds(f.wl, NULL, &b), 0);
	CHECK_NEAR(b.critical_path, 41, 1e-12);
	CHECK_NEAR(b.cp_min, 41, 1e-12);
	CHECK_NEAR(b.work, 91.0 / 3, 1e-12);
	CHECK_NEAR(b.lower, 41, 1e-12);
	CHECK_NEAR(b.cp_mean, 61, 1e-12);
	/* Half the speed at peak: every least cost halves. */
	double peak[3] = {2, 2, 2};
	CHECK_EQ_INT(locus_dag_bounds(f.wl, peak, &b), 0);
	CHECK_NEAR(b.critical_path, 20.5, 1e-12);
	CHECK_NEAR(b.work, 91.0 / 6, 1e-12);
	CHECK_NEAR(b.cp_min, 41, 1e-12);
	fixture_fini(&f);
}

TEST(topcuoglu_heft)
{
	struct fixture f;
	CHECK(fixture_init(&f, 10, 3, topc_cost[0], NULL, topc_edge, 15) == 0);
	/* The data file's schedule, in the paper's order n1 n3 n4 n2 n5 n6
	 * n9 n7 n8 n10: n3 and n4 both rank 80 (computed 79.99999999999999
	 * and 80) and tie to the lower id. */
	static const struct row heft[10] = {
	    {1, 3, 0, 9},   {3, 3, 9, 28},  {4, 2, 18, 26}, {2, 1, 27, 40}, {5, 3, 28, 38},
	    {6, 2, 26, 42}, {9, 2, 56, 68}, {7, 3, 38, 49}, {8, 1, 57, 62}, {10, 2, 73, 80}};
	struct locus_dag_plan *p = plan_of(f.wl, LOCUS_DAG_HEFT, 1);
	CHECK(p != NULL);
	CHECK_EQ_INT(p->algorithm, LOCUS_DAG_HEFT);
	CHECK(same_schedule(p, heft, 10, 1) == 0);
	CHECK(p->makespan == 80);
	CHECK_NEAR(p->priority[0], 108, 1e-9);
	CHECK(p->seconds >= 0);
	/* Each processor's tasks in start order. */
	static const uint32_t order[10] = {1, 7, 3, 5, 8, 9, 0, 2, 4, 6};
	static const uint32_t order_at[4] = {0, 2, 6, 10};
	for (int k = 0; k < 10; k++)
		CHECK_EQ_INT(p->order[k], order[k]);
	for (int k = 0; k < 4; k++)
		CHECK_EQ_INT(p->order_at[k], order_at[k]);
	locus_dag_plan_destroy(p);

	/* Without insertion: every task of the schedule above lands after
	 * its processor's last task (no gap is used), so each processor's
	 * finish time is the same for the task chosen and no earlier on any
	 * other processor: by induction the same choices, the same schedule,
	 * 80. */
	p = plan_of(f.wl, LOCUS_DAG_HEFT, 0);
	CHECK(p != NULL);
	CHECK(same_schedule(p, heft, 10, 1) == 0);
	CHECK(p->makespan == 80);
	locus_dag_plan_destroy(p);
	fixture_fini(&f);
}

TEST(topcuoglu_cpop)
{
	struct fixture f;
	CHECK(fixture_init(&f, 10, 3, topc_cost[0], NULL, topc_edge, 15) == 0);
	/* |CP| = 108, the critical path n1 n2 n9 n10 costs 66, 54, 63 on
	 * P1..P3: P2. By hand, the ready list by priority (n1 108, n2 108, n3
	 * 105, n7 105, n4 102, n8 307/3, n5 93, n6 271/3, n9 108, n10 108):
	 *  n1 P2 0-16; n2 P2 16-35; n3 EFT P1 28+11=39 (P2 48, P3 47);
	 *  n7 (ready, 105) P1 39+7=46 (P2 62+15, P3 62+11); n4 P3 25+17=42
	 *  (P1 46+13 as 25+13 > 28, P2 35+8=43); n5 P2 35+13=48 (P1 46+12,
	 *  P3 42+10); n9 on P2 at max(35, 42+23, 48) = 65, 77; n6 P3 42+9=51
	 *  (P1 46+13, P2 in the gap 48-65: 48+16=64); n8 at P3 max(35+19,
	 *  42, 51) = 54, 68 (P1 69+5, P2 77+11); n10 on P2 at max(46+17,
	 *  68+11, 77) = 79, 86. The paper's makespan: 86. */
	static const struct row cpop[10] = {
	    {1, 2, 0, 16},  {2, 2, 16, 35}, {3, 1, 28, 39}, {7, 1, 39, 46}, {4, 3, 25, 42},
	    {5, 2, 35, 48}, {9, 2, 65, 77}, {6, 3, 42, 51}, {8, 3, 54, 68}, {10, 2, 79, 86}};
	for (int ins = 1; ins >= 0; ins--) {
		/* No gap holds a task either way (n6 finishes earlier on P3
		 * than in P2's gap). */
		struct locus_dag_plan *p = plan_of(f.wl, LOCUS_DAG_CPOP, ins);
		CHECK(p != NULL);
		CHECK(same_schedule(p, cpop, 10, 1) == 0);
		CHECK(p->makespan == 86);
		for (int t = 0; t < 10; t++) {
			int cp = t == 0 || t == 1 || t == 8 || t == 9;
			CHECK_EQ_INT(fabs(p->priority[t] - 108) < 1e-9, cp);
			if (cp)
				CHECK_EQ_INT(p->slot[t].proc, 1);
		}
		locus_dag_plan_destroy(p);
	}
	fixture_fini(&f);
}

TEST(topcuoglu_dls)
{
	struct fixture f;
	CHECK(fixture_init(&f, 10, 3, topc_cost[0], NULL, topc_edge, 15) == 0);
	/* By hand. SL: n10 44/3, n7 77/3, n8 74/3, n9 94/3, n2 48, n3 40, n4
	 * 44, n5 43, n6 112/3, n1 61. DL = SL - max(DA, TF) + mean - cost:
	 *  1. n1: P1 61-0-1, P2 61-0-3, P3 61-0+4 = 65: P3 0-9.
	 *  2. best per task: n2 P3 48-9-4/3 = 37.67, n3 P1 40-21+10/3 =
	 *     22.33, n4 P2 44-18+14/3 = 30.67 (= P3 44-9-13/3), n5 P3
	 *     43-9+5/3 = 35.67, n6 P3 112/3-9+11/3 = 32: n2 P3 9-27.
	 *  3. P3 now free at 27: n3 P1 22.33, n4 P2 30.67, n5 P1 43-20-1/3 =
	 *     22.67, n6 P1 = P3 = 14: n4 P2 18-26.
	 *  4. n3 P1 22.33, n5 P1 22.67, n6 14: n5 P1 20-32.
	 *  5. n3 P2 40-26+4/3 = 15.33, n6 P3 14, n9 (DA 49 45 49) P2
	 *     94/3-45+14/3 = -9: n3 P2 26-39.
	 *  6. n6 P3 14, n9 P2 -9, n7 (DA 62 39 62) P2 77/3-39-4 = -17.33:
	 *     n6 P3 27-36.
	 *  7. n9 P2 -9, n7 -17.33, n8 (DA 53 51 53) P1 74/3-53+5 = -23.33:
	 *     n9 P2 45-57.
	 *  8. n7 P1 77/3-62+4 = -32.33, n8 P1 -23.33: n8 P1 53-58.
	 *  9. n7 P1 62-69.
	 * 10. n10 (DA 70 86 86) P1 44/3-70-19/3 = -61.67 (P2 -63.67, P3
	 *     -72.67): P1 70-91. Makespan 91. */
	static const struct row dls[10] = {
	    {1, 3, 0, 9},   {2, 3, 9, 27},  {4, 2, 18, 26}, {5, 1, 20, 32}, {3, 2, 26, 39},
	    {6, 3, 27, 36}, {9, 2, 45, 57}, {8, 1, 53, 58}, {7, 1, 62, 69}, {10, 1, 70, 91}};
	struct locus_dag_plan *p = plan_of(f.wl, LOCUS_DAG_DLS, 1); /* DLS ignores insertion */
	CHECK(p != NULL);
	CHECK(same_schedule(p, dls, 10, 1) == 0);
	CHECK(p->makespan == 91);
	CHECK_NEAR(p->priority[0], 61, 1e-9);
	CHECK_NEAR(p->priority[9], 44.0 / 3, 1e-9);
	locus_dag_plan_destroy(p);
	fixture_fini(&f);
}

TEST(topcuoglu_peft)
{
	struct fixture f;
	CHECK(fixture_init(&f, 10, 3, topc_cost[0], NULL, topc_edge, 15) == 0);
	/* By hand. OCT rows (P1 P2 P3): n10 0 0 0; n7 21 7 16 (n10 on P1
	 * 21, on P2 7 (+17 elsewhere), on P3 16); n8 18 7 16; n9 20 7 16; n3
	 * 28 22 27; n2 35 19 35; n4 38 19 36; n5 32 19 32; n6 23 18 30; n1
	 * 48 38 53. rank_oct = their means: 139/3, 89/3, 77/3, 31, 83/3,
	 * 71/3, 44/3, 41/3, 43/3, 0. EFT + OCT:
	 *  n1 P2 16+38 = 54 (P1 62, P3 62); n4 P2 24+19 (P1 38+38, P3 42+36);
	 *  n2 P2 43+19 (P1 47+35, P3 52+35); n5 P3 37+32 (P1 39+32, P2
	 *  56+19); n3 P1 39+28 (P2 56+22, P3 56+27); n6 P1 52+23 (P2 59+18,
	 *  P3 46+30); n7 P1 59+21 (P2 77+7, P3 73+16); n9 P2 62+7 (P1
	 *  77+20, P3 79+16); n8 P1 67+18 = 85 = P2 78+7: the lower, P1; n10
	 *  P2 at max(59+17, 67+11, 62) = 78, 85 (P1 96, P3 94). */
	static const struct row peft[10] = {
	    {1, 2, 0, 16},  {4, 2, 16, 24}, {2, 2, 24, 43}, {5, 3, 27, 37}, {3, 1, 28, 39},
	    {6, 1, 39, 52}, {7, 1, 52, 59}, {9, 2, 50, 62}, {8, 1, 62, 67}, {10, 2, 78, 85}};
	static const double rank_oct[10] = {139.0 / 3, 89.0 / 3, 77.0 / 3, 31,	     83.0 / 3,
					    71.0 / 3,  44.0 / 3, 41.0 / 3, 43.0 / 3, 0};
	for (int ins = 1; ins >= 0; ins--) {
		struct locus_dag_plan *p = plan_of(f.wl, LOCUS_DAG_PEFT, ins);
		CHECK(p != NULL);
		CHECK(same_schedule(p, peft, 10, 1) == 0);
		CHECK(p->makespan == 85);
		for (int t = 0; t < 10; t++)
			CHECK_NEAR(p->priority[t], rank_oct[t], 1e-9);
		locus_dag_plan_destroy(p);
	}
	fixture_fini(&f);
}

/* ---- Arabnejad and Barbosa 2014 -------------------------------------------- */

static const double peft_cost[10][3] = {{22, 21, 36}, {22, 18, 18}, {32, 27, 43}, {7, 10, 4},
					{29, 27, 35}, {26, 17, 24}, {14, 25, 30}, {29, 23, 36},
					{15, 21, 8},  {13, 16, 33}};
static const unsigned peft_edge[15][3] = {
    {1, 2, 17}, {1, 3, 31}, {1, 4, 29}, {1, 5, 13}, {1, 6, 7},	{2, 8, 3},   {2, 9, 30}, {3, 7, 16},
    {4, 8, 11}, {4, 9, 7},  {5, 9, 57}, {6, 8, 5},  {7, 10, 9}, {8, 10, 42}, {9, 10, 7}};

TEST(arabnejad_peft)
{
	struct fixture f;
	CHECK(fixture_init(&f, 10, 3, peft_cost[0], NULL, peft_edge, 15) == 0);
	/* The paper's optimistic cost table (P1 P2 P3), checked by hand
	 * from the exit up: T1 64 68 86, T2 42 39 42, T3 27 41 43, T4 42 39
	 * 50, T5 28 37 28, T6 42 39 44, T7 13 16 22, T8 13 16 33, T9 13 16
	 * 20, T10 0 0 0 (T7 on P3, say: T10 on P1 13 + 9, on P2 16 + 9, on P3
	 * 33: 22); rank_oct their means. */
	static const double rank_oct[10] = {218.0 / 3, 41, 37,	     131.0 / 3, 31,
					    125.0 / 3, 17, 62.0 / 3, 49.0 / 3,	0};
	/* The paper's PEFT schedule, makespan 122 (checked by hand: T1 P1
	 * 22+64 (P2 21+68, P3 36+86); T4 P1 29+42; T6 P2 29+17+39; T2 P1
	 * 51+42; T3 P1 83+27 (P2 80+41, P3 96+43); T5 P3 35+35+28; T8 P2
	 * 54+23+16; T7 P1 83+14+13; T9 P3 81+8+20; T10 P2 106+16). */
	static const struct row peft[10] = {
	    {1, 1, 0, 22},  {4, 1, 22, 29}, {6, 2, 29, 46}, {2, 1, 29, 51}, {3, 1, 51, 83},
	    {5, 3, 35, 70}, {8, 2, 54, 77}, {7, 1, 83, 97}, {9, 3, 81, 89}, {10, 2, 106, 122}};
	struct locus_dag_plan *p = plan_of(f.wl, LOCUS_DAG_PEFT, 1);
	CHECK(p != NULL);
	CHECK(same_schedule(p, peft, 10, 1) == 0);
	CHECK(p->makespan == 122);
	for (int t = 0; t < 10; t++)
		CHECK_NEAR(p->priority[t], rank_oct[t], 1e-9);
	locus_dag_plan_destroy(p);

	/* HEFT on the same graph, by hand: rank_u 169, 343/3, 308/3, 110,
	 * 389/3, 358/3, 158/3, 92, 127/3, 62/3, so T1 T5 T6 T2 T4 T3 T8 T7 T9
	 * T10. T1 P2 0-21; T5 P2 21-48 (P1 34+29, P3 34+35); T6 P3 28-52
	 * (P1 28+26 = 54, P2 48+17); T2 P1 38-60; T4 P3 52-56 (P1 67, P2
	 * 58); T3 P2 48-75 (P1 92, P3 99); T8 P1 67-96 (P2 75+23, P3
	 * 63+36); T7 P2 75-100 (P1 110, P3 121); T9 P3 105-113 (P1 120, P2
	 * 121); T10 P1 max(109, 96, 120) + 13 = 133 (P2 138+16, P3 138+33). */
	static const struct row heft[10] = {
	    {1, 2, 0, 21},  {5, 2, 21, 48}, {6, 3, 28, 52},  {2, 1, 38, 60},   {4, 3, 52, 56},
	    {3, 2, 48, 75}, {8, 1, 67, 96}, {7, 2, 75, 100}, {9, 3, 105, 113}, {10, 1, 120, 133}};
	p = plan_of(f.wl, LOCUS_DAG_HEFT, 1);
	CHECK(p != NULL);
	CHECK(same_schedule(p, heft, 10, 1) == 0);
	CHECK(p->makespan == 133);
	locus_dag_plan_destroy(p);

	/* CPOP, where insertion matters. Priorities 169 on T1 T5 T9 T10 (the
	 * critical path; it costs 79, 85, 112 on P1..P3: P1); the others
	 * 473/3, 160, 496/3, 458/3, 160, 496/3. By hand: T1 P1 0-22; T5 P1
	 * 22-51; T4 P3 51-55 (P1 58, P2 61); T3 P2 53-80 (P1 83, P3 98); T7
	 * P2 80-105; T2 P1 51-73 (= P3 55+18, the lower); T9 P1 73-88; T6:
	 * P2's gap 0-53 holds it, 29-46 (P1 114, P3 79); T8 P3 76-112; T10
	 * P1 at 112+42 = 154, 167. Without insertion T6 goes to P3 55-79, T8
	 * P3 79-115, T10 157-170. */
	static const struct row cpop_ins[10] = {
	    {1, 1, 0, 22},  {5, 1, 22, 51}, {4, 3, 51, 55}, {3, 2, 53, 80},  {7, 2, 80, 105},
	    {2, 1, 51, 73}, {9, 1, 73, 88}, {6, 2, 29, 46}, {8, 3, 76, 112}, {10, 1, 154, 167}};
	static const struct row cpop_no[10] = {
	    {1, 1, 0, 22},  {5, 1, 22, 51}, {4, 3, 51, 55}, {3, 2, 53, 80},  {7, 2, 80, 105},
	    {2, 1, 51, 73}, {9, 1, 73, 88}, {6, 3, 55, 79}, {8, 3, 79, 115}, {10, 1, 157, 170}};
	p = plan_of(f.wl, LOCUS_DAG_CPOP, 1);
	CHECK(p != NULL);
	CHECK(same_schedule(p, cpop_ins, 10, 1) == 0);
	CHECK(p->makespan == 167);
	/* P2 runs T6 before T3 and T7 though it was placed after them. */
	CHECK_EQ_INT(p->order[p->order_at[1]], 5);
	locus_dag_plan_destroy(p);
	p = plan_of(f.wl, LOCUS_DAG_CPOP, 0);
	CHECK(p != NULL);
	CHECK(same_schedule(p, cpop_no, 10, 1) == 0);
	CHECK(p->makespan == 170);
	locus_dag_plan_destroy(p);

	/* The bounds: least costs 21 18 27 4 27 17 14 23 8 13 (sum 172);
	 * the longest path of them is T1 T3 T7 T10 = 21 + 27 + 14 + 13 = 75
	 * (T1 T2 T8 T10 too; T1 T5 T9 T10 is 69). */
	struct locus_dag_bounds b;
	CHECK_EQ_INT(locus_dag_bounds(f.wl, NULL, &b), 0);
	CHECK_NEAR(b.cp_min, 75, 1e-12);
	CHECK_NEAR(b.work, 172.0 / 3, 1e-12);
	fixture_fini(&f);
}

/* ---- mrocklin/heft --------------------------------------------------------- */

TEST(mrocklin_heft)
{
	/* Jobs 3..9 (here tasks 1..7) cost their number on any of three
	 * agents; every transfer between agents takes 3. Edges 3->5, 4->6,
	 * 5->7, 6->7, 7->8, 7->9. Work only (no cost matrix): speed-1 nodes.
	 * Ranks 33 35 27 28 19 8 9: jobs 4 3 6 5 7 9 8. Job 4 on a (0-4), 3
	 * on b (0-3), 6 on a 4-10 (b 7+6, c 7+6), 5 on b 3-8, 7 on a at
	 * max(10, 8+3) = 11, 18, 9 on a 18-27 (b, c 21+9), 8 on b 21-29 (c
	 * the same: the lower). */
	static const double work[7] = {3, 4, 5, 6, 7, 8, 9};
	static const unsigned edge[6][3] = {{1, 3, 3}, {2, 4, 3}, {3, 5, 3},
					    {4, 5, 3}, {5, 6, 3}, {5, 7, 3}};
	static const struct row heft[7] = {{2, 1, 0, 4},  {1, 2, 0, 3},	  {4, 1, 4, 10},
					   {3, 2, 3, 8},  {5, 1, 11, 18}, {7, 1, 18, 27},
					   {6, 2, 21, 29}};
	struct fixture f;
	CHECK(fixture_init(&f, 7, 3, NULL, work, edge, 6) == 0);
	struct locus_dag_plan *p = plan_of(f.wl, LOCUS_DAG_HEFT, 1);
	CHECK(p != NULL);
	CHECK(same_schedule(p, heft, 7, 1) == 0);
	CHECK(p->makespan == 29);
	CHECK_EQ_INT(p->order_at[2], 7); /* the third agent runs nothing */
	CHECK_EQ_INT(p->order_at[3], 7);
	locus_dag_plan_destroy(p);
	fixture_fini(&f);
}

/* ---- what every plan must be ------------------------------------------------ */

/* The time the data of t's predecessors can be on worker w under `slot`:
 * each object sent on its own when its producer ends, as the simulator
 * sends them, in locus_workload_arrival's operations. */
static double data_ready(const struct locus_workload *wl, const struct locus_dag_slot *slot,
			 uint32_t t, uint32_t w)
{
	const struct locus_graph *g = wl->graph;
	const struct locus_task *tk = &g->tasks[t];
	double ready = 0;
	for (uint32_t k = 0; k < tk->n_in; k++) {
		const struct locus_object *o = &g->objects[g->inputs[tk->in_at + k]];
		if (o->producer == LOCUS_NONE)
			continue;
		const struct locus_dag_slot *ps = &slot[o->producer];
		double at = locus_workload_arrival(wl, ps->finish, o->bytes,
						   wl->worker_node[ps->proc], wl->worker_node[w]);
		if (at > ready)
			ready = at;
	}
	return ready;
}

#define BAD(...)                                                                                   \
	do {                                                                                       \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fprintf(stderr, "\n");                                                             \
		bad = -1;                                                                          \
		goto out;                                                                          \
	} while (0)

/* Whether `plan` is a valid plan of wl: every task once on one worker,
 * orders in start order without overlap, finish = start + cost, every
 * start the latest of the worker's previous finish and the data's arrival
 * (so an engine running the orders as early as it can keeps every time),
 * the placement order topological, the makespan the last finish and not
 * below the lower bound. */
static int check_plan(const struct locus_workload *wl, const struct locus_dag_plan *plan)
{
	const struct locus_graph *g = wl->graph;
	size_t n = wl->n_tasks, p = wl->n_workers;
	int bad = 0;
	unsigned char *seen = calloc(n + 1, 1);
	size_t *pos = calloc(n + 1, sizeof *pos);
	double last = 0;
	struct locus_dag_bounds b;
	if (!seen || !pos)
		BAD("out of memory");
	if (plan->n_tasks != n || plan->n_procs != p || plan->order_at[0] != 0 ||
	    plan->order_at[p] != n)
		BAD("sizes");
	for (uint32_t w = 0; w < p; w++) {
		double free_at = 0;
		if (plan->order_at[w] > plan->order_at[w + 1])
			BAD("order_at not monotone at %u", w);
		for (uint32_t k = plan->order_at[w]; k < plan->order_at[w + 1]; k++) {
			uint32_t t = plan->order[k];
			const struct locus_dag_slot *s = &plan->slot[t];
			if (t >= n || seen[t]++)
				BAD("task %u twice or out of range", t);
			if (s->proc != w)
				BAD("task %u in worker %u's order, on %u", t, w, s->proc);
			if (s->finish != s->start + locus_workload_cost(wl, t, w))
				BAD("task %u: finish %.17g != start %.17g + cost", t, s->finish,
				    s->start);
			double ready = data_ready(wl, plan->slot, t, w);
			double asap = free_at > ready ? free_at : ready;
			if (s->start != asap)
				BAD("task %u starts at %.17g, its worker and data allow %.17g", t,
				    s->start, asap);
			free_at = s->finish;
			if (s->finish > last)
				last = s->finish;
		}
	}
	for (size_t k = 0; k < n; k++) {
		if (plan->placed[k] >= n || pos[plan->placed[k]])
			BAD("placed[%zu] = %u", k, plan->placed[k]);
		pos[plan->placed[k]] = k + 1;
	}
	for (uint32_t t = 0; t < n; t++)
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
			if (pos[g->preds[e].task] >= pos[t])
				BAD("task %u placed before its predecessor %u", t,
				    g->preds[e].task);
	/* An engine that runs each worker's order, a task once its
	 * predecessors are done, runs every task (tasks of no duration
	 * once went before their predecessor on its worker: no run ended). */
	memset(seen, 0, n + 1);
	for (size_t done = 0; done < n;) {
		size_t before = done;
		for (uint32_t w = 0; w < p; w++)
			for (uint32_t k = plan->order_at[w]; k < plan->order_at[w + 1]; k++) {
				uint32_t t = plan->order[k], e;
				if (seen[t])
					continue;
				for (e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
					if (!seen[g->preds[e].task])
						break;
				if (e < g->pred_at[t + 1])
					break;
				seen[t] = 1;
				done++;
			}
		if (done == before)
			BAD("the orders wait on each other: %zu of %zu tasks run", done, n);
	}
	if (plan->makespan != last)
		BAD("makespan %.17g, last finish %.17g", plan->makespan, last);
	if (locus_dag_bounds(wl, NULL, &b) || plan->makespan < b.lower * (1 - 1e-12))
		BAD("makespan %.17g below the lower bound %.17g", plan->makespan, b.lower);
	if (b.critical_path > b.lower || b.work > b.lower || b.cp_min < b.critical_path)
		BAD("bounds %g %g %g %g", b.critical_path, b.work, b.lower, b.cp_min);
out:
	free(seen);
	free(pos);
	return bad;
}

static int same_plan(const struct locus_dag_plan *a, const struct locus_dag_plan *b)
{
	size_t n = a->n_tasks, p = a->n_procs;
	if (a->n_tasks != b->n_tasks || a->n_procs != b->n_procs || a->algorithm != b->algorithm)
		return 0;
	return memcmp(a->slot, b->slot, n * sizeof *a->slot) == 0 &&
	       memcmp(a->order, b->order, n * sizeof *a->order) == 0 &&
	       memcmp(a->order_at, b->order_at, (p + 1) * sizeof *a->order_at) == 0 &&
	       memcmp(a->placed, b->placed, n * sizeof *a->placed) == 0 &&
	       memcmp(a->priority, b->priority, n * sizeof *a->priority) == 0 &&
	       memcmp(&a->makespan, &b->makespan, sizeof a->makespan) == 0;
}

/* ---- plain reference implementations ----------------------------------------- */

/* The library's rule for a tie with the largest of a choice (relative
 * 1e-9). */
static int ties(double v, double best)
{
	return v >= best - 1e-9 * fabs(best);
}

/* A reference schedule being built: slots, and each worker's tasks in
 * start order. */
struct ref {
	const struct locus_workload *wl;
	struct locus_dag_slot *slot;
	uint32_t *placed, *waiting, *list, *len;
	unsigned char *done;
	size_t n, p, n_placed;
};

static int ref_init(struct ref *r, const struct locus_workload *wl)
{
	memset(r, 0, sizeof *r);
	r->wl = wl;
	r->n = wl->n_tasks;
	r->p = wl->n_workers;
	r->slot = calloc(r->n + 1, sizeof *r->slot);
	r->placed = calloc(r->n + 1, sizeof *r->placed);
	r->waiting = calloc(r->n + 1, sizeof *r->waiting);
	r->list = calloc(r->n * r->p + 1, sizeof *r->list);
	r->len = calloc(r->p + 1, sizeof *r->len);
	r->done = calloc(r->n + 1, 1);
	for (size_t t = 0; t < r->n && r->waiting; t++)
		r->waiting[t] = wl->graph->pred_at[t + 1] - wl->graph->pred_at[t];
	return r->slot && r->placed && r->waiting && r->list && r->len && r->done ? 0 : -1;
}

static void ref_fini(struct ref *r)
{
	free(r->slot);
	free(r->placed);
	free(r->waiting);
	free(r->list);
	free(r->len);
	free(r->done);
}

/* The earliest start on w at or after `ready` for `cost`, trying every gap
 * from time 0 (insertion) or after the last task; *gap gets the position.
 * A gap holds the task if it ends by the next task's start and starts
 * before it (a task of no duration goes after those starting with it). */
static double ref_fit(const struct ref *r, uint32_t w, double ready, double cost, int insertion,
		      size_t *gap)
{
	const uint32_t *l = &r->list[w * r->n];
	size_t n = r->len[w];
	double prev = 0;
	for (size_t k = 0; insertion && k < n; k++) {
		double start = prev > ready ? prev : ready;
		if (start < r->slot[l[k]].start && start + cost <= r->slot[l[k]].start) {
			*gap = k;
			return start;
		}
		prev = r->slot[l[k]].finish;
	}
	if (n)
		prev = r->slot[l[n - 1]].finish;
	*gap = n;
	return prev > ready ? prev : ready;
}

static void ref_place(struct ref *r, uint32_t t, uint32_t w, double start, size_t gap)
{
	uint32_t *l = &r->list[w * r->n];
	memmove(&l[gap + 1], &l[gap], (r->len[w] - gap) * sizeof *l);
	l[gap] = t;
	r->len[w]++;
	r->slot[t] = (struct locus_dag_slot){w, 0, start, start + locus_workload_cost(r->wl, t, w)};
	r->placed[r->n_placed++] = t;
	r->done[t] = 1;
	const struct locus_graph *g = r->wl->graph;
	for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++)
		r->waiting[g->succs[e].task]--;
}

static const double *sort_key;

static int by_key(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (sort_key[x] != sort_key[y])
		return sort_key[x] > sort_key[y] ? -1 : 1;
	return (x > y) - (x < y);
}

/* A list scheduler from its definition: the ready task of largest
 * priority, on the worker where its finish plus extra[t * p + w] (NULL:
 * 0) is least (ties: lower worker). Priorities are grouped as the library
 * says (in decreasing order, each joins the group of the largest before
 * it when it ties with it); a group's priorities tie, ties go to the lower
 * id. */
static int ref_list(struct ref *r, const double *prio, const double *extra, int insertion)
{
	double *key = calloc(r->n + 1, sizeof *key);
	uint32_t *by = calloc(r->n + 1, sizeof *by);
	if (!key || !by) {
		free(key);
		free(by);
		return -1;
	}
	for (uint32_t i = 0; i < r->n; i++)
		by[i] = i;
	sort_key = prio;
	qsort(by, r->n, sizeof *by, by_key);
	for (size_t k = 0; k < r->n; k++)
		key[by[k]] = k && ties(prio[by[k]], key[by[k - 1]]) ? key[by[k - 1]] : prio[by[k]];
	for (size_t step = 0; step < r->n; step++) {
		double top = -INFINITY;
		uint32_t t = UINT32_MAX;
		for (uint32_t i = 0; i < r->n; i++)
			if (!r->done[i] && !r->waiting[i] && key[i] > top)
				top = key[i];
		for (uint32_t i = 0; i < r->n && t == UINT32_MAX; i++)
			if (!r->done[i] && !r->waiting[i] && key[i] == top)
				t = i;
		uint32_t best = 0;
		double best_v = 0, best_s = 0;
		size_t best_gap = 0;
		for (uint32_t w = 0; w < r->p; w++) {
			size_t gap;
			double cost = locus_workload_cost(r->wl, t, w);
			double s =
			    ref_fit(r, w, data_ready(r->wl, r->slot, t, w), cost, insertion, &gap);
			double v = s + cost + (extra ? extra[t * r->p + w] : 0);
			if (w == 0 || v < best_v) {
				best = w;
				best_v = v;
				best_s = s;
				best_gap = gap;
			}
		}
		ref_place(r, t, best, best_s, best_gap);
	}
	free(key);
	free(by);
	return 0;
}

/* HEFT: upward ranks, the least finish. */
static int ref_heft(struct ref *r, int insertion)
{
	double *rank = calloc(r->n + 1, sizeof *rank);
	int rc =
	    !rank || locus_dag_upward_rank(r->wl, rank) ? -1 : ref_list(r, rank, NULL, insertion);
	free(rank);
	return rc;
}

/* CPOP: upward + downward ranks; the critical path walked from the entry
 * task of largest priority (lowest id among those tied, relative 1e-9),
 * each step to the lowest-id successor tied with |CP|; its tasks only on
 * the worker with the least sum of their costs, the others at their least
 * finish. */
static int ref_cpop(struct ref *r, int insertion)
{
	const struct locus_graph *g = r->wl->graph;
	double *prio = calloc(r->n + 1, sizeof *prio), *down = calloc(r->n + 1, sizeof *down);
	double *extra = calloc(r->n * r->p + 1, sizeof *extra);
	int rc = -1;
	if (!prio || !down || !extra || locus_dag_upward_rank(r->wl, prio) ||
	    locus_dag_downward_rank(r->wl, down))
		goto out;
	double cp = -INFINITY;
	for (uint32_t t = 0; t < r->n; t++) {
		prio[t] += down[t];
		if (g->pred_at[t] == g->pred_at[t + 1] && prio[t] > cp)
			cp = prio[t];
	}
	uint32_t t = 0, on_path[64], len = 0;
	while (g->pred_at[t] != g->pred_at[t + 1] || fabs(prio[t] - cp) > 1e-9 * fabs(cp))
		t++;
	for (;;) {
		on_path[len++] = t;
		uint32_t e = g->succ_at[t];
		while (e < g->succ_at[t + 1] && fabs(prio[g->succs[e].task] - cp) > 1e-9 * fabs(cp))
			e++;
		if (e == g->succ_at[t + 1])
			break;
		t = g->succs[e].task;
	}
	uint32_t cp_w = 0;
	double least = 0;
	for (uint32_t w = 0; w < r->p; w++) {
		double sum = 0;
		for (uint32_t i = 0; i < r->n; i++)
			for (uint32_t k = 0; k < len; k++)
				if (on_path[k] == i)
					sum += locus_workload_cost(r->wl, i, w);
		if (w == 0 || sum < least) {
			least = sum;
			cp_w = w;
		}
	}
	for (uint32_t k = 0; k < len; k++)
		for (uint32_t w = 0; w < r->p; w++)
			extra[on_path[k] * r->p + w] = w == cp_w ? 0 : INFINITY;
	rc = ref_list(r, prio, extra, insertion);
out:
	free(prio);
	free(down);
	free(extra);
	return rc;
}

/* PEFT: OCT(t, p) = max over successors j of min over workers w of
 * OCT(j, w) + cost(j, w) + (0 when w and p share a node, else the mean
 * transfer); rank_oct its mean over p; the least finish + OCT. */
static int ref_peft(struct ref *r, int insertion, double *rank)
{
	const struct locus_graph *g = r->wl->graph;
	const struct locus_workload *wl = r->wl;
	double *oct = calloc(r->n * r->p + 1, sizeof *oct);
	if (!oct)
		return -1;
	for (size_t k = r->n; k-- > 0;) {
		uint32_t t = g->topo[k];
		double sum = 0;
		for (uint32_t p = 0; p < r->p; p++) {
			double worst = 0;
			for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++) {
				uint32_t j = g->succs[e].task;
				double best = INFINITY;
				for (uint32_t w = 0; w < r->p; w++) {
					double v =
					    oct[j * r->p + w] + locus_workload_cost(wl, j, w) +
					    (wl->worker_node[w] == wl->worker_node[p]
						 ? 0
						 : locus_workload_mean_comm(wl, g->succs[e].bytes));
					if (v < best)
						best = v;
				}
				if (best > worst)
					worst = best;
			}
			oct[t * r->p + p] = worst;
			sum += worst;
		}
		rank[t] = sum / (double)r->p;
	}
	int rc = ref_list(r, rank, oct, insertion);
	free(oct);
	return rc;
}

/* DLS from its definition: every ready task on every worker at every
 * step. */
static int ref_dls(struct ref *r)
{
	const struct locus_graph *g = r->wl->graph;
	double *sl = calloc(r->n + 1, sizeof *sl), *tf = calloc(r->p + 1, sizeof *tf);
	if (!sl || !tf) {
		free(sl);
		free(tf);
		return -1;
	}
	for (size_t k = r->n; k-- > 0;) {
		uint32_t t = g->topo[k];
		double tail = 0;
		for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++)
			if (sl[g->succs[e].task] > tail)
				tail = sl[g->succs[e].task];
		sl[t] = locus_workload_mean_cost(r->wl, t) + tail;
	}
#define DL(i, w)                                                                                   \
	(sl[i] - fmax(data_ready(r->wl, r->slot, i, w), tf[w]) +                                   \
	 (locus_workload_mean_cost(r->wl, i) - locus_workload_cost(r->wl, i, w)))
	for (size_t step = 0; step < r->n; step++) {
		double top = 0;
		int any = 0;
		for (uint32_t i = 0; i < r->n; i++)
			for (uint32_t w = 0; w < r->p && !r->done[i] && !r->waiting[i]; w++)
				if (!any++ || DL(i, w) > top)
					top = DL(i, w);
		uint32_t t = UINT32_MAX, best = UINT32_MAX;
		for (uint32_t i = 0; i < r->n && t == UINT32_MAX; i++)
			for (uint32_t w = 0; w < r->p && !r->done[i] && !r->waiting[i]; w++)
				if (ties(DL(i, w), top)) {
					t = i;
					best = w;
					break;
				}
		double start = fmax(data_ready(r->wl, r->slot, t, best), tf[best]);
		ref_place(r, t, best, start, r->len[best]);
		tf[best] = r->slot[t].finish;
	}
#undef DL
	free(sl);
	free(tf);
	return 0;
}

static int same_as_ref(const struct locus_dag_plan *plan, const struct ref *r)
{
	for (size_t t = 0; t < r->n; t++)
		if (memcmp(&plan->slot[t], &r->slot[t], sizeof r->slot[t]) ||
		    plan->placed[t] != r->placed[t]) {
			fprintf(stderr, "task %zu: P%u %.17g-%.17g, reference P%u %.17g-%.17g\n", t,
				plan->slot[t].proc, plan->slot[t].start, plan->slot[t].finish,
				r->slot[t].proc, r->slot[t].start, r->slot[t].finish);
			return -1;
		}
	return 0;
}

/* ---- random graphs ------------------------------------------------------------ */

/* A random case for `seed`: 1 to 60 tasks with ids in a random order
 * relative to the edges, edges of a random density, costs with zeros
 * (work on nodes of random speeds, or a matrix with Topcuoglu's
 * heterogeneity up to 1.5), 1 to 8 workers on 1 to 4 nodes, a shared
 * network or pairwise links; one case in eight is flat: every cost and
 * transfer 0, where only the tie rules keep precedence. */
static int random_case(struct fixture *f, uint64_t seed)
{
	struct locus_rng rng;
	struct locus_error err;
	uint32_t perm[60];
	memset(f, 0, sizeof *f);
	locus_rng_init(&rng, seed);
	size_t nodes = 1 + locus_rng_below(&rng, 4);
	int cores = 1 + (int)locus_rng_below(&rng, nodes > 2 ? 2 : 3);
	int flat = locus_rng_below(&rng, 8) == 0, net = (int)locus_rng_below(&rng, 3);
	double scale = 0;
	if (locus_platform_generate(&f->p, nodes, 1 + locus_rng_below(&rng, 2), cores, "n"))
		return -1;
	if (flat) {
		locus_platform_set_pairs(f->p, 1.0, 0);
	} else if (net == 0) {
		scale = 4e8; /* the shared network's 100 MB/s: up to 4 s */
	} else {
		locus_platform_set_pairs(f->p, 1.0 + (double)locus_rng_below(&rng, 4),
					 net == 2 ? 0.5 * locus_rng_uniform(&rng) : 0);
		if (nodes > 1 && locus_rng_below(&rng, 2))
			locus_platform_set_link(f->p, 0, 1, 0.5);
		scale = 20;
	}
	if (!flat && locus_rng_below(&rng, 2))
		locus_platform_random_speeds(f->p, 0.5, 2, seed);
	size_t n = 1 + locus_rng_below(&rng, 60);
	for (uint32_t i = 0; i < n; i++)
		perm[i] = i;
	locus_rng_shuffle(&rng, perm, n, sizeof *perm);
	if (locus_graph_create(&f->g, "random", &err))
		return -1;
	for (size_t t = 0; t < n; t++) {
		double w =
		    flat || locus_rng_below(&rng, 6) == 0 ? 0 : 1 + 9 * locus_rng_uniform(&rng);
		if (locus_graph_add_task(f->g, NULL, w) < 0)
			return -1;
	}
	double density = locus_rng_uniform(&rng) * (locus_rng_below(&rng, 2) ? 0.15 : 0.5);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			if (locus_rng_uniform(&rng) >= density)
				continue;
			uint64_t bytes = flat || locus_rng_below(&rng, 5) == 0
					     ? 0
					     : (uint64_t)(scale * locus_rng_uniform(&rng));
			if (locus_graph_add_edge(f->g, perm[i], perm[j], bytes) < 0)
				return -1;
		}
	if (!flat && locus_rng_below(&rng, 2)) {
		size_t P = nodes * (size_t)cores;
		double beta = 1.5 * locus_rng_uniform(&rng);
		double *cost = calloc(n * P, sizeof *cost);
		if (!cost)
			return -1;
		for (size_t t = 0; t < n; t++)
			for (size_t m = 0; m < P; m++)
				cost[t * P + m] =
				    locus_rng_below(&rng, 8) == 0
					? 0
					: f->g->tasks[t].work *
					      (1 - beta / 2 + beta * locus_rng_uniform(&rng));
		int rc = locus_graph_set_costs(f->g, P, cost, &err);
		free(cost);
		if (rc)
			return -1;
	}
	if (locus_graph_finish(f->g, &err) ||
	    locus_workload_from_graph(&f->wl, f->p, f->g, NULL, &err))
		return -1;
	return 0;
}

TEST(random_graphs)
{
	static const struct {
		enum locus_dag_algorithm a;
		int insertion;
	} runs[] = {{LOCUS_DAG_HEFT, 1}, {LOCUS_DAG_HEFT, 0}, {LOCUS_DAG_CPOP, 1},
		    {LOCUS_DAG_CPOP, 0}, {LOCUS_DAG_DLS, 0},  {LOCUS_DAG_PEFT, 1},
		    {LOCUS_DAG_PEFT, 0}};
	int gaps_used = 0;
	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct fixture f;
		CHECK(random_case(&f, seed) == 0);
		for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
			struct locus_dag_plan *p = plan_of(f.wl, runs[k].a, runs[k].insertion);
			struct locus_dag_plan *q = plan_of(f.wl, runs[k].a, runs[k].insertion);
			CHECK(p != NULL && q != NULL);
			if (check_plan(f.wl, p)) {
				fprintf(stderr, "seed %llu, %s, insertion %d\n",
					(unsigned long long)seed,
					locus_dag_algorithm_name(runs[k].a), runs[k].insertion);
				CHECK(0);
			}
			CHECK(same_plan(p, q));
			/* Against the plain definitions. */
			struct ref r;
			CHECK(ref_init(&r, f.wl) == 0);
			double rank_oct[60];
			int rc = runs[k].a == LOCUS_DAG_HEFT   ? ref_heft(&r, runs[k].insertion)
				 : runs[k].a == LOCUS_DAG_CPOP ? ref_cpop(&r, runs[k].insertion)
				 : runs[k].a == LOCUS_DAG_DLS
				     ? ref_dls(&r)
				     : ref_peft(&r, runs[k].insertion, rank_oct);
			CHECK(rc == 0);
			if (same_as_ref(p, &r) ||
			    (runs[k].a == LOCUS_DAG_PEFT &&
			     memcmp(p->priority, rank_oct, p->n_tasks * sizeof *rank_oct))) {
				fprintf(stderr, "seed %llu, %s, insertion %d\n",
					(unsigned long long)seed,
					locus_dag_algorithm_name(runs[k].a), runs[k].insertion);
				CHECK(0);
			}
			ref_fini(&r);
			/* Did any task go into a gap before a task placed earlier? */
			for (size_t i = 0; runs[k].insertion && i + 1 < f.wl->n_tasks; i++) {
				const struct locus_dag_slot *s = &p->slot[p->placed[i + 1]];
				for (size_t j = 0; j <= i; j++) {
					const struct locus_dag_slot *e = &p->slot[p->placed[j]];
					gaps_used += e->proc == s->proc && e->start > s->start;
				}
			}
			locus_dag_plan_destroy(p);
			locus_dag_plan_destroy(q);
		}
		fixture_fini(&f);
	}
	/* The cases exercise insertion. */
	CHECK(gaps_used > 0);
}

/* ---- errors, names, edge cases ---------------------------------------------- */

TEST(names_and_options)
{
	enum locus_dag_algorithm a;
	struct locus_dag_options o;
	static const char *const names[] = {"heft", "cpop", "dls", "peft"};
	for (int k = 0; k < 4; k++) {
		CHECK_EQ_INT(locus_dag_algorithm_parse(names[k], &a), 0);
		CHECK_EQ_INT(a, k);
		CHECK_EQ_STR(locus_dag_algorithm_name(a), names[k]);
	}
	CHECK_EQ_INT(locus_dag_algorithm_parse("HEFT", &a), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_dag_algorithm_parse("gtp", &a), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_dag_algorithm_parse(NULL, &a), LOCUS_EINVAL);
	CHECK_EQ_STR(locus_dag_algorithm_name((enum locus_dag_algorithm)9), "unknown");
	memset(&o, 0x55, sizeof o);
	locus_dag_options_init(&o);
	CHECK_EQ_INT(o.insertion, 1);
}

TEST(errors)
{
	struct fixture f;
	static struct locus_dag_plan dummy;
	struct locus_dag_plan *p = &dummy; /* an error must clear it */
	struct locus_dag_options o = {.insertion = 2};
	struct locus_error err;
	CHECK(fixture_init(&f, 10, 3, topc_cost[0], NULL, topc_edge, 15) == 0);
	CHECK_EQ_INT(locus_dag_plan(&p, f.wl, LOCUS_DAG_HEFT, &o, &err), LOCUS_EINVAL);
	CHECK(p == NULL);
	CHECK(strstr(err.message, "insertion") != NULL);
	CHECK_EQ_INT(locus_dag_plan(&p, f.wl, (enum locus_dag_algorithm)7, NULL, &err),
		     LOCUS_EINVAL);
	CHECK_EQ_INT(locus_dag_plan(&p, NULL, LOCUS_DAG_HEFT, NULL, &err), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_dag_plan(NULL, f.wl, LOCUS_DAG_HEFT, NULL, NULL), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_dag_upward_rank(NULL, NULL), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_dag_bounds(f.wl, NULL, NULL), LOCUS_EINVAL);
	/* NULL options: the defaults (insertion), the paper's schedule. */
	CHECK_EQ_INT(locus_dag_plan(&p, f.wl, LOCUS_DAG_HEFT, NULL, NULL), 0);
	CHECK(p->makespan == 80);
	locus_dag_plan_destroy(p);
	locus_dag_plan_destroy(NULL);
	fixture_fini(&f);

	/* Tasks but no worker: every node only stores. */
	static const double work[2] = {1, 2};
	static const unsigned edge[1][3] = {{1, 2, 5}};
	CHECK(fixture_init(&f, 2, 2, NULL, work, edge, 1) == 0);
	locus_workload_destroy(f.wl);
	f.p->nodes[0].cores = f.p->nodes[1].cores = 0;
	CHECK_EQ_INT(locus_workload_from_graph(&f.wl, f.p, f.g, NULL, &err), 0);
	CHECK_EQ_INT(f.wl->n_workers, 0);
	CHECK_EQ_INT(locus_dag_plan(&p, f.wl, LOCUS_DAG_PEFT, NULL, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "no worker") != NULL);
	struct locus_dag_bounds b;
	CHECK_EQ_INT(locus_dag_bounds(f.wl, NULL, &b), 0);
	CHECK(b.lower == 0 && b.cp_mean == 0);
	fixture_fini(&f);
}

TEST(empty_graph)
{
	struct fixture f;
	CHECK(fixture_init(&f, 0, 2, NULL, NULL, NULL, 0) == 0);
	for (int a = 0; a < 4; a++) {
		struct locus_dag_plan *p = plan_of(f.wl, (enum locus_dag_algorithm)a, 1);
		CHECK(p != NULL);
		CHECK_EQ_INT(p->n_tasks, 0);
		CHECK_EQ_INT(p->n_procs, 2);
		CHECK(p->makespan == 0);
		CHECK_EQ_INT(p->order_at[0] + p->order_at[1] + p->order_at[2], 0);
		locus_dag_plan_destroy(p);
	}
	fixture_fini(&f);
}

TEST(work_bounds)
{
	/* a (4) -> b (2), and c (6), on nodes of speed 1 and 2: least costs
	 * 2, 1, 3; the chain 3, c 3; work 12 over speeds 3 = 4. Mean costs
	 * are work x (1 + 1/2) / 2: the chain 4.5, c 4.5. At peaks 2 and 2:
	 * least costs are work / 2 (the chain 3), work 12 / 4 = 3. */
	static const double work[3] = {4, 2, 6};
	static const unsigned edge[1][3] = {{1, 2, 100}};
	struct fixture f;
	struct locus_dag_bounds b;
	CHECK(fixture_init(&f, 3, 2, NULL, work, edge, 1) == 0);
	f.p->nodes[1].speed = 2;
	CHECK_EQ_INT(locus_dag_bounds(f.wl, NULL, &b), 0);
	CHECK_NEAR(b.critical_path, 3, 1e-12);
	CHECK_NEAR(b.work, 4, 1e-12);
	CHECK_NEAR(b.lower, 4, 1e-12);
	CHECK_NEAR(b.cp_min, 3, 1e-12);
	CHECK_NEAR(b.cp_mean, 4.5, 1e-12);
	double peak[2] = {2, 2};
	CHECK_EQ_INT(locus_dag_bounds(f.wl, peak, &b), 0);
	CHECK_NEAR(b.critical_path, 3, 1e-12);
	CHECK_NEAR(b.work, 3, 1e-12);
	CHECK_NEAR(b.lower, 3, 1e-12);
	for (int a = 0; a < 4; a++) {
		struct locus_dag_plan *p = plan_of(f.wl, (enum locus_dag_algorithm)a, 1);
		CHECK(p != NULL);
		CHECK(check_plan(f.wl, p) == 0);
		locus_dag_plan_destroy(p);
	}
	fixture_fini(&f);
}

/* Idle processors (issue 28, item 5): 400 tasks on 1,000,000 alike
 * processors are planned by HEFT, CPOP, PEFT and DLS as on 400 (no plan
 * needs more: a task goes to the lowest of the idle ones, which stand for
 * each other), and in processor time that does not grow with the idle
 * ones: the list schedulers used to try every processor for every task
 * (400 million fits, a minute; PEFT's table 3.2 GB; DLS kept each ready
 * task's arrival and cost on every processor, 16 MB a task). */
static int chain_and_fan(struct fixture *f, size_t n, size_t procs)
{
	struct locus_rng rng;
	struct locus_error err;
	memset(f, 0, sizeof *f);
	locus_rng_init(&rng, 7);
	if (locus_graph_create(&f->g, "fan", &err))
		return -1;
	for (size_t t = 0; t < n; t++)
		if (locus_graph_add_task(f->g, NULL, 1 + (double)locus_rng_below(&rng, 9)) < 0)
			return -1;
	for (size_t t = 1; t < n; t++) {
		uint32_t from = (uint32_t)locus_rng_below(&rng, t);
		if (locus_graph_add_edge(f->g, from, (uint32_t)t, locus_rng_below(&rng, 20)) < 0)
			return -1;
	}
	if (locus_graph_finish(f->g, &err) || locus_platform_generate(&f->p, procs, 1, 1, "p"))
		return -1;
	locus_platform_set_pairs(f->p, 1.0, 0);
	return locus_workload_from_graph(&f->wl, f->p, f->g, NULL, &err) ? -1 : 0;
}

TEST(idle_processors)
{
	struct fixture few, many;
	CHECK(chain_and_fan(&few, 400, 400) == 0);
	CHECK(chain_and_fan(&many, 400, 1000000) == 0);
	static const enum locus_dag_algorithm algs[] = {LOCUS_DAG_HEFT, LOCUS_DAG_CPOP,
							LOCUS_DAG_PEFT, LOCUS_DAG_DLS};
	for (size_t k = 0; k < 4; k++)
		for (int insertion = 0; insertion <= 1; insertion++) {
			struct locus_dag_plan *a = plan_of(few.wl, algs[k], insertion);
			/* Processor time, which a loaded machine does not stretch. */
			struct timespec t0, t1;
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
			struct locus_dag_plan *b = plan_of(many.wl, algs[k], insertion);
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
			double cpu = (double)(t1.tv_sec - t0.tv_sec) +
				     1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
			CHECK(a != NULL && b != NULL);
			CHECK(check_plan(many.wl, b) == 0);
			int same = b->makespan == a->makespan;
			for (size_t t = 0; same && t < 400; t++)
				same = !memcmp(&a->slot[t], &b->slot[t], sizeof a->slot[t]) &&
				       a->placed[t] == b->placed[t];
			CHECK(same);
			if (cpu > 5)
				fprintf(stderr, "%s on 1,000,000 processors: %.1f s\n",
					locus_dag_algorithm_name(algs[k]), cpu);
			CHECK(cpu < 5);
			locus_dag_plan_destroy(a);
			locus_dag_plan_destroy(b);
		}
	fixture_fini(&few);
	fixture_fini(&many);
}

TEST_MAIN(TEST_ENTRY(topcuoglu_ranks_and_bounds), TEST_ENTRY(topcuoglu_heft),
	  TEST_ENTRY(topcuoglu_cpop), TEST_ENTRY(topcuoglu_dls), TEST_ENTRY(topcuoglu_peft),
	  TEST_ENTRY(arabnejad_peft), TEST_ENTRY(mrocklin_heft), TEST_ENTRY(random_graphs),
	  TEST_ENTRY(names_and_options), TEST_ENTRY(errors), TEST_ENTRY(empty_graph),
	  TEST_ENTRY(work_bounds), TEST_ENTRY(idle_processors))
