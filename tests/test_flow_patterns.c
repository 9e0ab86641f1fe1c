/*
 * Pattern identification, replication and the collectives' tree
 * (src/flow/patterns.c) on the AME/AMFS paper's own examples: the binomial
 * tree of an 8-node gather (Fig. 8), multicasts finishing in ceil(log2 N)
 * rounds, the replica count and placement of section V-F's example, and
 * the patterns of small Montage- and BLAST-shaped workflows (Figs. 4, 5).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

/* Fig. 8: eight nodes, node 0 the root. Halving the list [1..7]: 4 takes
 * [4..7], 2 takes [2, 3], 1 takes [1]; 4 hands [6, 7] to 6 and [5] to 5;
 * 2 hands [3] to 3; 6 hands [7] to 7. A gather sends in reverse: first
 * 1->0, 3->2, 5->4, 7->6, then 2->0, 6->4, then 4->0. */
TEST(binomial_tree_of_fig8)
{
	uint32_t parent[8], round[8];
	locus_flow_binomial(8, parent, round);
	static const uint32_t want_parent[8] = {UINT32_MAX, 0, 0, 2, 0, 4, 4, 6};
	static const uint32_t want_round[8] = {0, 3, 2, 3, 1, 3, 2, 3};
	for (int i = 0; i < 8; i++) {
		CHECK_EQ_INT(parent[i], want_parent[i]);
		CHECK_EQ_INT(round[i], want_round[i]);
	}
	/* Gather step k sends the nodes of round 4 - k to their parents. */
	int step_of[8];
	for (int i = 1; i < 8; i++)
		step_of[i] = 4 - (int)round[i];
	CHECK(step_of[1] == 1 && step_of[3] == 1 && step_of[5] == 1 && step_of[7] == 1);
	CHECK(step_of[2] == 2 && step_of[6] == 2 && step_of[4] == 3);
	/* A node sends to its parent only once it heard from its children:
	 * every child's step comes before its parent's. */
	for (int i = 1; i < 8; i++)
		if (parent[i] != 0)
			CHECK(step_of[i] < step_of[parent[i]]);
}

/* A multicast (or any collective) over N nodes takes ceil(log2 N) rounds,
 * every node but the root has a parent earlier in the list that received
 * its list in an earlier round, and no node sends twice in one round. */
TEST(binomial_rounds_are_log2)
{
	uint32_t *parent = malloc(4096 * sizeof *parent), *round = malloc(4096 * sizeof *round);
	uint8_t *busy = malloc(4096 * 16);
	CHECK(parent && round && busy);
	for (size_t n = 1; n <= 4096 && parent && round && busy; n += n < 40 ? 1 : 97) {
		locus_flow_binomial(n, parent, round);
		uint32_t most = 0;
		memset(busy, 0, 4096 * 16);
		for (size_t i = 1; i < n; i++) {
			CHECK(parent[i] < i);
			CHECK(round[parent[i]] < round[i]);
			if (round[i] > most)
				most = round[i];
			/* One send per sender per round. */
			CHECK(round[i] < 16);
			CHECK(!busy[parent[i] * 16 + round[i]]++);
		}
		CHECK_EQ_INT(most, n > 1 ? (uint32_t)ceil(log2((double)n)) : 0);
	}
	free(parent);
	free(round);
	free(busy);
}

/* Section V-F's example: 100 stage-a tasks each write one file that 10
 * stage-b tasks read (1,000 of them), 200 storage servers: file1's share
 * of stage b's consumption is 1 %, so 2 servers should hold it; it is on
 * one already: one copy, on the server holding the fewest of stage b's
 * input files. Never more holders than readers, none without one. */
TEST(replicas_of_section_v_f)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_graph_create(&g, "v-f", &err), 0);
	uint32_t sa = (uint32_t)locus_graph_stage(g, "a"), sb = (uint32_t)locus_graph_stage(g, "b");
	for (int i = 0; i < 100; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "a%d", i);
		uint32_t t = (uint32_t)locus_graph_add_task(g, nm, 1);
		locus_graph_set_stage(g, t, sa);
		snprintf(nm, sizeof nm, "file%d", i + 1);
		uint32_t f = (uint32_t)locus_graph_add_object(g, nm, 1000);
		locus_graph_add_output(g, t, f, &err);
		for (int k = 0; k < 10; k++) {
			snprintf(nm, sizeof nm, "b%d", 10 * i + k);
			uint32_t b = (uint32_t)locus_graph_add_task(g, nm, 1);
			locus_graph_set_stage(g, b, sb);
			locus_graph_add_input(g, b, f);
		}
	}
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	struct locus_flow_analysis *a = NULL;
	CHECK_EQ_INT(locus_flow_analyse(&a, g, NULL, &err), 0);
	if (a) {
		CHECK_EQ_INT(a->n_stages, 2);
		/* Table IV: stage a reads nothing, stage b the 100 files;
		 * Table V: each file has 10 readers; 1,000 in all. */
		CHECK_EQ_INT(a->stages[sa].inputs, 0);
		CHECK_EQ_INT(a->stages[sb].inputs, 100);
		CHECK_EQ_INT(a->stages[sb].consumption, 1000);
		CHECK_EQ_INT(a->stages[sb].group_reads, 1000);
		CHECK_EQ_INT(a->stages[sb].max_consumers, 10);
		CHECK_EQ_INT(a->stages[sb].multicast_files, 100);
		CHECK(a->stages[sb].patterns & LOCUS_PATTERN_MULTICAST);
		uint32_t f1 = (uint32_t)locus_graph_find_object(g, "file1");
		CHECK_EQ_INT(a->consumers_in_stage[f1], 10);
		CHECK(a->object_patterns[f1] & LOCUS_PATTERN_MULTICAST);
		uint32_t n =
		    locus_flow_replicas(a->consumers_in_stage[f1], a->stages[sb].group_reads, 200);
		CHECK_EQ_INT(n, 2);
		CHECK_EQ_INT(locus_flow_copies(n, 1), 1);
		CHECK_EQ_INT(locus_flow_copies(n, 0), 2);
		CHECK_EQ_INT(a->critical_path, 2);
		CHECK_EQ_INT(a->n_cp, 2);
	}
	/* Placement: servers 0..199 hold stage b's files as stage a put them
	 * (server i holds file i+1 for i < 100); file1 is on server 0: the
	 * copy goes to the first server holding none, 100. */
	uint32_t load[200] = {0}, holder = 0, out[4];
	for (int i = 0; i < 100; i++)
		load[i] = 1;
	CHECK_EQ_INT(locus_flow_place_replicas(load, 200, 1, &holder, 1, out), 1);
	CHECK_EQ_INT(out[0], 100);
	/* Fewest first; the holder never; fewer when too few are left. */
	uint32_t small[4] = {3, 0, 2, 0};
	CHECK_EQ_INT(locus_flow_place_replicas(small, 4, 3, &(uint32_t){1}, 1, out), 3);
	CHECK(out[0] == 3 && out[1] == 2 && out[2] == 0);
	CHECK_EQ_INT(locus_flow_place_replicas(small, 4, 9, &(uint32_t){1}, 1, out), 3);
	/* The count's bounds. */
	CHECK_EQ_INT(locus_flow_replicas(1, 1000000, 10), 1);
	CHECK_EQ_INT(locus_flow_replicas(500, 1000, 10), 5);
	CHECK_EQ_INT(locus_flow_replicas(999, 1000, 10), 10);
	CHECK_EQ_INT(locus_flow_replicas(2, 1000, 10), 1);
	/* No reader, no replica; at most one a reader (a stage of fewer
	 * tasks than servers: in proportion to its consumption). */
	CHECK_EQ_INT(locus_flow_replicas(0, 1000, 10), 0);
	CHECK_EQ_INT(locus_flow_replicas(0, 0, 10), 0);
	CHECK_EQ_INT(locus_flow_replicas(3, 3, 10), 3);
	CHECK_EQ_INT(locus_flow_replicas(5, 0, 10), 5);
	CHECK_EQ_INT(locus_flow_replicas(12, 12, 10), 10);
	CHECK_EQ_INT(locus_flow_replicas(5, 10, 0), 0);
	CHECK_EQ_INT(locus_flow_replicas(UINT64_MAX / 2, UINT64_MAX, 4000000000u), 2000000000u);
	locus_flow_analysis_destroy(a);
	locus_graph_destroy(g);
}

static unsigned stage_patterns(const struct locus_graph *g, const struct locus_flow_analysis *a,
			       const char *name)
{
	for (size_t s = 0; s < g->n_stages; s++)
		if (!strcmp(g->stage_names[s], name))
			return a->stages[s].patterns;
	return 0xff;
}

/* Fig. 4 (Montage: gathers and pipelines) and Fig. 5 (BLAST: scatter,
 * multicast, gather); Montage's small tables read by every task of a
 * stage are multicasts too (the corrections table; the figure marks only
 * G and P). A reduce function turns the merge gathers into reductions. */
TEST(patterns_of_montage_and_blast)
{
	struct locus_error err;
	struct locus_graph *g = test_workflow_montage(20);
	CHECK(g != NULL);
	struct locus_flow_analysis *a = NULL;
	CHECK_EQ_INT(locus_flow_analyse(&a, g, NULL, &err), 0);
	if (g && a) {
		CHECK_EQ_INT(stage_patterns(g, a, "mProject"), 0);
		CHECK_EQ_INT(stage_patterns(g, a, "mImgtbl"), LOCUS_PATTERN_GATHER);
		CHECK_EQ_INT(stage_patterns(g, a, "mDiffFit"), LOCUS_PATTERN_PIPELINE);
		CHECK_EQ_INT(stage_patterns(g, a, "mConcatFit"), LOCUS_PATTERN_GATHER);
		CHECK_EQ_INT(stage_patterns(g, a, "mBgModel"), LOCUS_PATTERN_PIPELINE);
		CHECK_EQ_INT(stage_patterns(g, a, "mBackground"),
			     LOCUS_PATTERN_PIPELINE | LOCUS_PATTERN_MULTICAST);
		CHECK_EQ_INT(stage_patterns(g, a, "mAdd"), LOCUS_PATTERN_GATHER);
		/* The critical path: mProject, mDiffFit, mConcatFit,
		 * mBgModel, mBackground, mAdd: 10 + 1 + 20 + 5 + 7 + 30. */
		CHECK_NEAR(a->critical_path, 73, 1e-12);
		CHECK_EQ_INT(a->n_cp, 6);
	}
	locus_flow_analysis_destroy(a);
	locus_graph_destroy(g);

	/* The generated Montage's mDiffFit reads six files a task: two
	 * images and their areas (two groups, one mProject each), the
	 * overlaps table (mOverlaps' group) and the region header (a
	 * workflow input): three groups. mBackground reads two groups of
	 * three files. */
	struct locus_montage_spec ms = {.images = 30, .seed = 3};
	g = NULL;
	CHECK_EQ_INT(locus_flow_montage(&g, &ms, &err), 0);
	a = NULL;
	CHECK_EQ_INT(g ? locus_flow_analyse(&a, g, NULL, &err) : -1, 0);
	for (size_t s = 0; g && a && s < g->n_stages; s++) {
		const struct locus_flow_stage *st = &a->stages[s];
		if (!strcmp(g->stage_names[s], "mDiffFit")) {
			CHECK_EQ_INT(st->consumption, 6 * (uint64_t)st->tasks);
			CHECK_EQ_INT(st->group_reads, 3 * (uint64_t)st->tasks);
		}
		if (!strcmp(g->stage_names[s], "mBackground")) {
			CHECK_EQ_INT(st->consumption, 3 * (uint64_t)st->tasks);
			CHECK_EQ_INT(st->group_reads, 2 * (uint64_t)st->tasks);
		}
	}
	locus_flow_analysis_destroy(a);
	locus_graph_destroy(g);

	g = test_workflow_blast(20, 10);
	CHECK(g != NULL);
	a = NULL;
	CHECK_EQ_INT(locus_flow_analyse(&a, g, NULL, &err), 0);
	if (g && a) {
		CHECK_EQ_INT(stage_patterns(g, a, "fastasplitn"), LOCUS_PATTERN_SCATTER);
		/* formatdb reads what the scatter wrote: no pipeline. */
		CHECK_EQ_INT(stage_patterns(g, a, "formatdb"), 0);
		CHECK_EQ_INT(stage_patterns(g, a, "blastp"), LOCUS_PATTERN_MULTICAST);
		CHECK_EQ_INT(stage_patterns(g, a, "merge"), LOCUS_PATTERN_GATHER);
		uint32_t b = 0;
		for (size_t s = 0; s < g->n_stages; s++)
			if (!strcmp(g->stage_names[s], "blastp"))
				b = (uint32_t)s;
		/* 20 db fragments read by 10 tasks each; 10 queries (stored:
		 * not multicast) by 20 each; 400 inputs read in all, of which
		 * 200 file groups (a query is a workflow input: no group), so
		 * a fragment's share q is 10 / 200, not 10 / 400. */
		CHECK_EQ_INT(a->stages[b].multicast_files, 20);
		CHECK_EQ_INT(a->stages[b].inputs, 30);
		CHECK_EQ_INT(a->stages[b].consumption, 400);
		CHECK_EQ_INT(a->stages[b].group_reads, 200);
		CHECK_EQ_INT(locus_flow_replicas(10, a->stages[b].group_reads, 40), 2);
	}
	locus_flow_analysis_destroy(a);
	struct locus_pattern_options o;
	locus_pattern_options_init(&o);
	const char *red[] = {"merge"};
	o.reduce = red;
	o.n_reduce = 1;
	a = NULL;
	CHECK_EQ_INT(locus_flow_analyse(&a, g, &o, &err), 0);
	if (g && a)
		CHECK_EQ_INT(stage_patterns(g, a, "merge"), LOCUS_PATTERN_REDUCE);
	locus_flow_analysis_destroy(a);
	/* Thresholds: 0 is refused; a higher gather threshold leaves the
	 * merges of 20 inputs as pipelines. */
	o.gather = 0;
	CHECK_EQ_INT(locus_flow_analyse(&a, g, &o, &err), LOCUS_EINVAL);
	o.gather = 21;
	o.n_reduce = 0;
	CHECK_EQ_INT(locus_flow_analyse(&a, g, &o, &err), 0);
	if (g && a)
		CHECK_EQ_INT(stage_patterns(g, a, "merge"), LOCUS_PATTERN_PIPELINE);
	locus_flow_analysis_destroy(a);
	locus_graph_destroy(g);
}

/* A graph without stages is one stage; tasks without one join an extra. */
TEST(graphs_without_stages)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	locus_graph_create(&g, "plain", &err);
	uint32_t x = (uint32_t)locus_graph_add_task(g, "x", 2);
	uint32_t y = (uint32_t)locus_graph_add_task(g, "y", 3);
	locus_graph_add_edge(g, x, y, 5);
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	struct locus_flow_analysis *a = NULL;
	CHECK_EQ_INT(locus_flow_analyse(&a, g, NULL, &err), 0);
	if (a) {
		CHECK_EQ_INT(a->n_stages, 1);
		CHECK_EQ_INT(a->stages[0].tasks, 2);
		CHECK_EQ_INT(a->stages[0].patterns, LOCUS_PATTERN_PIPELINE);
		CHECK_NEAR(a->critical_path, 5, 1e-12);
		CHECK(a->n_cp == 2 && a->cp_tasks[0] == x && a->cp_tasks[1] == y);
	}
	locus_flow_analysis_destroy(a);
	locus_graph_destroy(g);
	locus_graph_create(&g, "mixed", &err);
	x = (uint32_t)locus_graph_add_task(g, "x", 1);
	y = (uint32_t)locus_graph_add_task(g, "y", 1);
	locus_graph_set_stage(g, x, (uint32_t)locus_graph_stage(g, "s"));
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	CHECK_EQ_INT(locus_flow_stage_of(g, y), 1);
	CHECK_EQ_INT(locus_flow_analyse(&a, g, NULL, &err), 0);
	if (a) {
		CHECK_EQ_INT(a->n_stages, 2);
		CHECK(a->stages[0].tasks == 1 && a->stages[1].tasks == 1);
	}
	locus_flow_analysis_destroy(a);
	locus_graph_destroy(g);
}

TEST_MAIN(TEST_ENTRY(binomial_tree_of_fig8), TEST_ENTRY(binomial_rounds_are_log2),
	  TEST_ENTRY(replicas_of_section_v_f), TEST_ENTRY(patterns_of_montage_and_blast),
	  TEST_ENTRY(graphs_without_stages))
