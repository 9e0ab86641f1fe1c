/*
 * The AME/AMFS policy (src/flow/amfs.c) in the simulator: every
 * configuration runs every task of Montage- and BLAST-shaped workflows
 * exactly once, the same way twice, leaving no intermediate file behind;
 * the patterns drive the collectives they should (a gather per gather
 * task, a multicast per group, a scatter); every tree's files flow from
 * lower to higher nodes, with several dispatchers too; replication
 * follows section V-F (its example: one copy a file, on the idle
 * servers, the readers split between the holders; the count in file
 * groups; none where no task reads the group; the writer run again
 * instead); the shared and staging configurations put what they should
 * on the file system; stealing moves queued work to idle neighbours and
 * shortens an unbalanced run; an asynchronous gather's copies are set
 * up one after another. (That each process reads only its own part of
 * the policy's state is test_flow_amfs_split.c's.)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

static const char *const configs[] = {"staging",  "cache",  "aware", "cogather",
				      "asgather", "shared", "auto"};
#define N_CONFIGS (sizeof configs / sizeof configs[0])

/* n worker nodes of `cores` cores and a dispatcher node. */
static struct locus_platform *cluster(int n, int cores)
{
	return test_flow_cluster(n, cores, 1);
}

struct run {
	struct locus_result *r;
	int rc;
	char msg[512];
};

static struct run simulate(const struct locus_workload *wl, const char *opts, int keep_xfers)
{
	struct run x = {0};
	struct locus_error err = {0};
	struct locus_sim_config cfg = test_flow_config(wl, "amfs", opts, 1, 0, keep_xfers);
	x.rc = locus_sim_run(&x.r, &cfg, &err);
	snprintf(x.msg, sizeof x.msg, "%s", err.message);
	if (x.rc)
		fprintf(stderr, "  amfs %s: %s\n", opts, err.message);
	return x;
}

/* As simulate, with D dispatchers (and D metadata servers) and a seed. */
static struct run simulate_d(const struct locus_workload *wl, const char *opts, int D,
			     uint64_t seed, int keep_xfers)
{
	struct run x = {0};
	struct locus_error err = {0};
	struct locus_sim_config cfg = test_flow_config(wl, "amfs", opts, D, seed, keep_xfers);
	x.rc = locus_sim_run(&x.r, &cfg, &err);
	snprintf(x.msg, sizeof x.msg, "%s", err.message);
	if (x.rc)
		fprintf(stderr, "  amfs %s, %d dispatchers: %s\n", opts, D, err.message);
	return x;
}

static uint64_t counter(const struct locus_result *r, const char *name)
{
	for (size_t k = 0; k < 8 && r->pstats.counter_names[k]; k++)
		if (!strcmp(r->pstats.counter_names[k], name))
			return r->pstats.counters[k];
	return UINT64_MAX;
}

/* Every task once, the same run twice, nothing intermediate left. */
TEST(every_configuration_runs_every_task_once)
{
	struct locus_platform *p = cluster(8, 4);
	/* The hand-made shapes, and the generated Montage, whose mDiffFit
	 * tasks read files of two multicast groups and whose mImgtbl reads
	 * multicast files as a gather. */
	struct locus_montage_spec ms = {.images = 30, .seed = 3};
	struct locus_graph *gs[3] = {test_workflow_montage(24), test_workflow_blast(20, 10), NULL};
	struct locus_error gerr;
	CHECK_EQ_INT(locus_flow_montage(&gs[2], &ms, &gerr), 0);
	for (int k = 0; k < 3; k++) {
		struct locus_workload *wl = NULL;
		struct locus_error err;
		CHECK(gs[k] != NULL);
		CHECK_EQ_INT(locus_workload_from_graph(&wl, p, gs[k], NULL, &err), 0);
		for (size_t c = 0; c < N_CONFIGS && wl; c++) {
			char opts[64];
			snprintf(opts, sizeof opts, "config=%s", configs[c]);
			struct run a = simulate(wl, opts, 0), b = simulate(wl, opts, 0);
			CHECK_EQ_INT(a.rc, 0);
			CHECK_EQ_INT(b.rc, 0);
			if (a.rc || b.rc)
				continue;
			CHECK(!a.r->failed);
			CHECK_EQ_INT(a.r->tasks_done, gs[k]->n_tasks);
			for (size_t t = 0; t < gs[k]->n_tasks; t++)
				CHECK_EQ_INT(a.r->tasks[t].attempts, 1);
			/* The same seed, the same run. */
			CHECK(a.r->makespan == b.r->makespan && a.r->messages == b.r->messages &&
			      a.r->bytes_moved == b.r->bytes_moved);
			CHECK(a.r->makespan >= a.r->lb_makespan * (1 - 1e-9));
			/* Every intermediate file was deleted from the nodes. */
			if (a.r->intermediate_end != 0)
				fprintf(stderr, "  %s on workflow %d left %.0f bytes\n", configs[c],
					k, a.r->intermediate_end);
			CHECK_NEAR(a.r->intermediate_end, 0, 0);
			/* The final outputs are on the file system. */
			CHECK(a.r->fs_bytes_written > 0);
			locus_result_destroy(a.r);
			locus_result_destroy(b.r);
		}
		/* keep=1 keeps them. */
		struct run kept = simulate(wl, "config=aware,keep=1", 0);
		CHECK_EQ_INT(kept.rc, 0);
		if (!kept.rc)
			CHECK(kept.r->intermediate_end > 0);
		locus_result_destroy(kept.r);
		locus_workload_destroy(wl);
		locus_graph_destroy(gs[k]);
	}
	locus_platform_destroy(p);
}

/* A multicast's or scatter's end dispatches tasks that start gathers of
 * their own: the collectives' table grows under the ending one (it read
 * its files through a moved table, and crashed, on the generated 100-image
 * Montage with a gather threshold of 4 or 2, as `locus flow sim` runs it). */
TEST(collectives_started_while_others_end)
{
	struct locus_platform *p = cluster(64, 4);
	struct locus_montage_spec ms = {.images = 100, .seed = 1};
	struct locus_graph *g = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_flow_montage(&g, &ms, &err), 0);
	struct locus_workload *wl = NULL;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	static const char *const opts[] = {"config=cogather,gather=4", "config=cogather,gather=2",
					   "config=auto,gather=4,multicast=2"};
	for (size_t k = 0; k < sizeof opts / sizeof *opts && wl; k++) {
		struct run a = simulate_d(wl, opts[k], 2, 1, 0);
		CHECK_EQ_INT(a.rc, 0);
		if (a.rc)
			continue;
		CHECK_EQ_INT(a.r->tasks_done, g->n_tasks);
		CHECK(counter(a.r, "gathers") > 0);
		locus_result_destroy(a.r);
	}
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

/* BLAST (Fig. 5): the split scatters its 20 pieces (one scatter), each
 * fragment's database is multicast as a group (20), the 10 merges gather
 * (10) when collectives are on; and with them, every gather copy goes
 * from a lower node to a higher one (section V-D). Without data-aware
 * dispatch there is no collective at all. */
TEST(patterns_drive_the_collectives)
{
	struct locus_platform *p = cluster(8, 4);
	struct locus_graph *g = test_workflow_blast(20, 10);
	struct locus_workload *wl = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run co = simulate(wl, "config=cogather", 1);
	CHECK_EQ_INT(co.rc, 0);
	if (!co.rc) {
		CHECK_EQ_INT(counter(co.r, "scatters"), 1);
		CHECK_EQ_INT(counter(co.r, "multicasts"), 20);
		CHECK_EQ_INT(counter(co.r, "gathers"), 10);
		/* The hits of a merge: each copy of a gather goes up. */
		size_t up = 0, down = 0;
		for (size_t i = 0; i < co.r->n_xfers; i++) {
			const struct locus_transfer_result *x = &co.r->xfers[i];
			const char *nm =
			    x->object < g->n_objects ? g->objects[x->object].name : NULL;
			if (!nm || strncmp(nm, "hits_", 5))
				continue;
			up += x->from < x->to;
			down += x->from > x->to;
		}
		CHECK(up > 0);
		CHECK_EQ_INT(down, 0);
		/* Per stage: the collectives that brought its tasks their
		 * inputs, and the patterns found. */
		static const struct {
			const char *stage;
			uint64_t collectives;
			int patterns;
		} want[] = {{"fastasplitn", 0, LOCUS_PATTERN_SCATTER},
			    {"formatdb", 1, 0},
			    {"blastp", 20, LOCUS_PATTERN_MULTICAST},
			    {"merge", 10, LOCUS_PATTERN_GATHER}};
		for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
			uint32_t st = LOCUS_NONE;
			for (uint32_t i = 0; i < g->n_stages; i++)
				if (!strcmp(g->stage_names[i], want[k].stage))
					st = i;
			CHECK(st != LOCUS_NONE);
			if (st == LOCUS_NONE)
				continue;
			CHECK_EQ_INT(co.r->stages[st].collectives, want[k].collectives);
			CHECK_EQ_INT(co.r->stages[st].patterns, want[k].patterns);
		}
	}
	locus_result_destroy(co.r);
	struct run as = simulate(wl, "config=asgather", 0);
	CHECK_EQ_INT(as.rc, 0);
	if (!as.rc)
		CHECK_EQ_INT(counter(as.r, "gathers"), 0);
	locus_result_destroy(as.r);
	struct run ca = simulate(wl, "config=cache", 0);
	CHECK_EQ_INT(ca.rc, 0);
	if (!ca.rc) {
		CHECK_EQ_INT(counter(ca.r, "scatters"), 0);
		CHECK_EQ_INT(counter(ca.r, "multicasts"), 0);
		CHECK_EQ_INT(counter(ca.r, "gathers"), 0);
	}
	locus_result_destroy(ca.r);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

/* Where the data goes: shared reads and writes everything on the file
 * system and moves nothing between nodes; staging writes every output
 * there and copies each task's inputs from it (a file already on the node
 * for another task is not copied again); cache writes only the final
 * ones. */
TEST(file_system_traffic_of_the_configurations)
{
	struct locus_platform *p = cluster(4, 2);
	struct locus_graph *g = test_workflow_montage(12);
	struct locus_workload *wl = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	uint64_t outputs = 0, finals = 0, inputs = 0, distinct = 0;
	for (size_t o = 0; o < g->n_objects; o++)
		distinct += g->objects[o].n_cons ? g->objects[o].bytes : 0;
	for (size_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task *tk = &g->tasks[t];
		inputs += tk->bytes;
		for (uint32_t k = 0; k < tk->n_out; k++) {
			const struct locus_object *o = &g->objects[g->outputs[tk->out_at + k]];
			outputs += o->bytes;
			finals += o->n_cons ? 0 : o->bytes;
		}
	}
	struct run sh = simulate(wl, "config=shared", 0), st = simulate(wl, "config=staging", 0),
		   ca = simulate(wl, "config=cache", 0);
	CHECK(!sh.rc && !st.rc && !ca.rc);
	if (!sh.rc && !st.rc && !ca.rc) {
		CHECK_EQ_INT(sh.r->fs_bytes_written, outputs);
		CHECK_EQ_INT(sh.r->fs_bytes_read, inputs);
		CHECK_EQ_INT(sh.r->transfers, 0);
		CHECK_EQ_INT(st.r->fs_bytes_written, outputs);
		CHECK(st.r->fs_bytes_read >= distinct && st.r->fs_bytes_read <= inputs);
		CHECK_EQ_INT(ca.r->fs_bytes_written, finals);
		CHECK(ca.r->fs_bytes_read < inputs);
		CHECK(ca.r->transfers > 0);
	}
	locus_result_destroy(sh.r);
	locus_result_destroy(st.r);
	locus_result_destroy(ca.r);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

/* Work stealing (V-I): one file that 64 tasks read, written on one node;
 * data-aware dispatch sends them all there (the multicast threshold is
 * above 64: no replicas). Idle neighbours steal queued ones; the run is
 * shorter than without stealing, and every task still runs once. */
TEST(stealing_balances_a_data_aware_pile_up)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	locus_graph_create(&g, "pile", &err);
	uint32_t src = (uint32_t)locus_graph_add_task(g, "src", 1);
	uint32_t f = (uint32_t)locus_graph_add_object(g, "f", 1000);
	locus_graph_add_output(g, src, f, &err);
	for (int i = 0; i < 64; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "t%d", i);
		uint32_t t = (uint32_t)locus_graph_add_task(g, nm, 10);
		locus_graph_add_input(g, t, f);
	}
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	struct locus_platform *p = cluster(8, 2);
	struct locus_workload *wl = NULL;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	/* (The paper's rule, aware=first, piles the readers on the writer's
	 * node; aware=now would spread them: readers_spread_over_...) */
	struct run none = simulate(wl, "config=aware,aware=first,multicast=1000,steal=0", 0);
	struct run near = simulate(wl, "config=aware,aware=first,multicast=1000,steal=2", 0);
	struct run all = simulate(wl, "config=aware,aware=first,multicast=1000,steal=100", 0);
	struct run global = simulate(wl, "config=aware,aware=first,multicast=1000,steal=1e9", 0);
	CHECK(!none.rc && !near.rc && !all.rc && !global.rc);
	if (!none.rc && !near.rc && !all.rc && !global.rc) {
		/* Without stealing: 64 tasks of 10 s on one node's 2 workers. */
		CHECK(none.r->makespan > 320);
		CHECK_EQ_INT(counter(none.r, "steals"), 0);
		CHECK(counter(near.r, "steals") > 0);
		CHECK(near.r->makespan < none.r->makespan * 0.7);
		/* Stealing from anyone does at least as well. */
		CHECK(all.r->makespan <= near.r->makespan * 1.01);
		/* Global stealing (the longest queue) balances as well. */
		CHECK(global.r->makespan <= near.r->makespan * 1.01);
		CHECK(global.r->makespan < 1.2 * all.r->makespan);
		for (size_t t = 0; t < g->n_tasks; t++)
			CHECK_EQ_INT(near.r->tasks[t].attempts, 1);
		fprintf(stderr,
			"  makespan: no stealing %.1f s, 2 hops %.1f s, all %.1f s, the "
			"longest queue %.1f s\n",
			none.r->makespan, near.r->makespan, all.r->makespan, global.r->makespan);
	}
	locus_result_destroy(global.r);
	locus_result_destroy(none.r);
	locus_result_destroy(near.r);
	locus_result_destroy(all.r);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
}

/* The most tasks of `readers` (n of them) any node ran. */
static int most_on_a_node(const struct locus_result *r, const uint32_t *readers, int n, int nodes)
{
	int per[64] = {0}, most = 0;
	for (int i = 0; i < n; i++) {
		uint32_t node = r->tasks[readers[i]].node;
		if (node < (uint32_t)nodes && node < 64 && ++per[node] > most)
			most = per[node];
	}
	return most;
}

/* Placement by where inputs are now (aware=now): 64 readers of one file
 * on 8 nodes of 2 cores, without stealing. No collective (multicast=1000):
 * the paper's rule (aware=first) sends all 64 to the writer's node (321 s
 * of 10 s tasks on 2 cores); by where the file is now, each reader sent
 * elsewhere brings it to its node, so the readers spread over the nodes
 * (no node runs more than twice its share, 8) and the run beats
 * round-robin staging's. As a multicast (copies on every node) and as a
 * scatter (a piece a reader, from one writer), the readers spread over
 * the holders too. */
TEST(readers_spread_over_where_their_inputs_are)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	locus_graph_create(&g, "spread", &err);
	uint32_t src = (uint32_t)locus_graph_add_task(g, "src", 1);
	uint32_t f = (uint32_t)locus_graph_add_object(g, "f", 1000000);
	locus_graph_add_output(g, src, f, &err);
	uint32_t split = (uint32_t)locus_graph_add_task(g, "split", 1);
	uint32_t readers[64], pieces[64];
	char nm[16];
	for (int i = 0; i < 64; i++) {
		snprintf(nm, sizeof nm, "t%d", i);
		readers[i] = (uint32_t)locus_graph_add_task(g, nm, 10);
		locus_graph_add_input(g, readers[i], f);
	}
	for (int i = 0; i < 64; i++) {
		snprintf(nm, sizeof nm, "p%d", i);
		pieces[i] = (uint32_t)locus_graph_add_object(g, nm, 100000);
		locus_graph_add_output(g, split, pieces[i], &err);
		snprintf(nm, sizeof nm, "s%d", i);
		uint32_t t = (uint32_t)locus_graph_add_task(g, nm, 10);
		locus_graph_add_input(g, t, pieces[i]);
		pieces[i] = t;
	}
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	struct locus_platform *p = cluster(8, 2);
	struct locus_workload *wl = NULL;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run first = simulate(wl, "config=aware,aware=first,multicast=1000,steal=0", 0);
	struct run now = simulate(wl, "config=aware,aware=now,multicast=1000,steal=0", 0);
	struct run staging = simulate(wl, "config=staging,multicast=1000,steal=0", 0);
	struct run mc = simulate(wl, "config=aware,aware=now,steal=0", 0);
	CHECK(!first.rc && !now.rc && !staging.rc && !mc.rc);
	if (!first.rc && !now.rc && !staging.rc && !mc.rc) {
		CHECK_EQ_INT(most_on_a_node(first.r, readers, 64, 8), 64);
		CHECK(most_on_a_node(now.r, readers, 64, 8) <= 16);
		CHECK(now.r->makespan < first.r->makespan / 2);
		CHECK(now.r->makespan <= staging.r->makespan);
		CHECK_EQ_INT(counter(mc.r, "multicasts"), 1);
		CHECK_EQ_INT(counter(mc.r, "scatters"), 1);
		CHECK(most_on_a_node(mc.r, readers, 64, 8) <= 16);
		CHECK(most_on_a_node(mc.r, pieces, 64, 8) <= 16);
		CHECK(most_on_a_node(now.r, pieces, 64, 8) <= 16);
		fprintf(stderr,
			"  64 readers: aware=first %.1f s (%d on one node), now %.1f s (%d), "
			"staging %.1f s; multicast %d, scatter %d a node at most\n",
			first.r->makespan, most_on_a_node(first.r, readers, 64, 8), now.r->makespan,
			most_on_a_node(now.r, readers, 64, 8), staging.r->makespan,
			most_on_a_node(mc.r, readers, 64, 8), most_on_a_node(mc.r, pieces, 64, 8));
	}
	locus_result_destroy(first.r);
	locus_result_destroy(now.r);
	locus_result_destroy(staging.r);
	locus_result_destroy(mc.r);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
}

/* An asynchronous gather's worker copies its inputs one after another
 * (IV-C), each a peer copy with its set-up (fetch_cost, V-B2): 32
 * writers of 1 KB on 8 nodes of 4 cores end together at 1 s, and the
 * gather reads once the set-ups of its remote inputs have passed one by
 * one (28 of them: 2.8 s at 0.1 s each), not once the first has (1.1 s,
 * as before); with no set-up it reads as soon as the bytes arrive. */
TEST(asynchronous_gather_sets_up_its_copies_one_after_another)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	locus_graph_create(&g, "async", &err);
	uint32_t gather = (uint32_t)locus_graph_add_task(g, "gather", 1);
	char nm[16];
	for (int i = 0; i < 32; i++) {
		snprintf(nm, sizeof nm, "w%d", i);
		uint32_t w = (uint32_t)locus_graph_add_task(g, nm, 1);
		snprintf(nm, sizeof nm, "f%d", i);
		uint32_t f = (uint32_t)locus_graph_add_object(g, nm, 1000);
		locus_graph_add_output(g, w, f, &err);
		locus_graph_add_input(g, gather, f);
	}
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	struct locus_platform *p = cluster(8, 4);
	struct locus_workload *wl = NULL;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run slow = simulate(wl, "config=asgather,steal=0,fetch_cost=0.1", 0);
	struct run free_ = simulate(wl, "config=asgather,steal=0", 0);
	CHECK(!slow.rc && !free_.rc);
	if (!slow.rc && !free_.rc) {
		double last = 0;
		int remote = 0;
		for (uint32_t t = 0; t < g->n_tasks; t++) {
			if (t == gather)
				continue;
			last = slow.r->tasks[t].end > last ? slow.r->tasks[t].end : last;
			remote += slow.r->tasks[t].node != slow.r->tasks[gather].node;
		}
		CHECK_EQ_INT(remote, 28);
		double waited = slow.r->tasks[gather].read_end - last;
		CHECK(waited >= 0.1 * remote - 1e-9);
		CHECK(waited <= 0.1 * remote + 0.05);
		CHECK(free_.r->tasks[gather].read_end - last < 0.05);
		fprintf(stderr,
			"  asynchronous gather of 32 files, %d remote: read %.3f s after "
			"the last writer (0.1 s set-up each), %.3f s with none\n",
			remote, waited, free_.r->tasks[gather].read_end - last);
	}
	locus_result_destroy(slow.r);
	locus_result_destroy(free_.r);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
}

/* Stealing on the torus (VI-B2a): 26 worker nodes of 2 cores and a
 * dispatcher node make a 3 x 3 x 3 torus; 48 readers of a file all go to
 * its writer's node 0 (aware=first, no multicast). Thieves one hop away
 * (steal=1) are node 0's other worker and the workers of nodes 1, 2 (x),
 * 3, 6 (y), 9 and 18 (z): every reader runs on node 0 or one of those
 * six, and each of the six runs some (before, the neighbours were worker
 * ranks w +- 1: node 0's other core and node 1). */
TEST(stealing_only_between_torus_neighbours)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	locus_graph_create(&g, "torus", &err);
	uint32_t src = (uint32_t)locus_graph_add_task(g, "src", 1);
	uint32_t f = (uint32_t)locus_graph_add_object(g, "f", 1000);
	locus_graph_add_output(g, src, f, &err);
	uint32_t readers[48];
	for (int i = 0; i < 48; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "t%d", i);
		readers[i] = (uint32_t)locus_graph_add_task(g, nm, 10);
		locus_graph_add_input(g, readers[i], f);
	}
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	struct locus_platform *p = cluster(26, 2);
	struct locus_workload *wl = NULL;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run x = simulate(wl, "config=aware,aware=first,multicast=1000,steal=1", 0);
	struct run bad = simulate(wl, "config=aware,torus=3x3x4,steal=1", 0);
	struct run shaped = simulate(wl, "config=aware,aware=first,multicast=1000,torus=27x1x1", 0);
	CHECK(!x.rc && !shaped.rc);
	CHECK_EQ_INT(bad.rc, LOCUS_EINVAL);
	CHECK(strstr(bad.msg, "torus=3x3x4: 36 nodes, but the platform has 27") != NULL);
	if (!x.rc && !shaped.rc) {
		uint32_t src_node = x.r->tasks[src].node;
		CHECK_EQ_INT(src_node, 0);
		int ran[27] = {0};
		for (int i = 0; i < 48; i++)
			ran[x.r->tasks[readers[i]].node]++;
		static const int near[] = {1, 2, 3, 6, 9, 18};
		int off = 48 - ran[0];
		for (int k = 0; k < 6; k++) {
			CHECK(ran[near[k]] > 0);
			off -= ran[near[k]];
		}
		CHECK_EQ_INT(off, 0);
		CHECK(counter(x.r, "steals") > 0);
		/* A ring of 27 (torus=27x1x1): the neighbours are nodes 1 and 26
		 * (the dispatcher's, no workers): node 1 alone. */
		int ring = 0;
		for (int i = 0; i < 48; i++) {
			uint32_t n = shaped.r->tasks[readers[i]].node;
			CHECK(n == 0 || n == 1);
			ring += n == 1;
		}
		CHECK(ring > 0);
		fprintf(stderr, "  torus: %d of 48 readers stolen, %.1f s (a ring: %d, %.1f s)\n",
			48 - ran[0], x.r->makespan, ring, shaped.r->makespan);
	}
	locus_result_destroy(x.r);
	locus_result_destroy(shaped.r);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
}

/* Stealing waits for a task to spare, not on a timer: idle workers cost
 * no message while no queue holds one (two independent tasks over 256
 * workers), neither at the start nor as simulated time goes by, so a task
 * of 1e9 s costs as many events as one of 1 s. (Issue 28's hang: before,
 * each idle worker asked again every 12.8 simulated seconds.) */
static struct run two_tasks(struct locus_platform *p, double work, const char *opts)
{
	struct locus_graph *g = NULL;
	struct locus_workload *wl = NULL;
	struct locus_error err;
	struct run x = {.rc = -1};
	locus_graph_create(&g, "two", &err);
	locus_graph_add_task(g, "a", work);
	locus_graph_add_task(g, "b", work);
	if (!locus_graph_finish(g, &err) && !locus_workload_from_graph(&wl, p, g, NULL, &err))
		x = simulate(wl, opts, 0);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	return x;
}

/* Adds to g a chain of n tasks named PREFIXi, 1 s each, each writing an
 * object of 1 MB named as it, which the next reads; their ids in ids. */
static void add_chain(struct locus_graph *g, const char *prefix, int n, uint32_t *ids)
{
	struct locus_error err = {0};
	long prev = -1;
	for (int i = 0; g && i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "%s%d", prefix, i);
		long t = locus_graph_add_task(g, name, 1.0);
		long o = locus_graph_add_object(g, name, 1000000);
		CHECK(t >= 0 && o >= 0);
		if (prev >= 0)
			CHECK_EQ_INT(locus_graph_add_input(g, (uint32_t)t, (uint32_t)prev), 0);
		CHECK_EQ_INT(locus_graph_add_output(g, (uint32_t)t, (uint32_t)o, &err), 0);
		ids[i] = (uint32_t)t;
		prev = o;
	}
}

/* pipeline=1: a chain of 20 tasks, each reading the file its predecessor
 * alone writes (an object of 1 MB, 1 s a task), on 3 nodes of 2 cores.
 * Without it each task waits after its predecessor for the dispatcher
 * to learn the file is made and send it (messages and their latency);
 * with it every task after the first goes with the first to its worker
 * and starts the instant its predecessor ends, on that worker, the makespan
 * 20 s and some set-up; the same run twice gives the same makespan. */
TEST(a_pipeline_goes_with_its_first_task)
{
	struct locus_platform *p = cluster(3, 2);
	struct locus_graph *g = NULL;
	struct locus_workload *wl = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_graph_create(&g, "chain", &err), 0);
	uint32_t chain[20];
	add_chain(g, "c", 20, chain);
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run off = simulate(wl, "", 0), on = simulate(wl, "pipeline=1", 0),
		   again = simulate(wl, "pipeline=1", 0);
	CHECK(!off.rc && !on.rc && !again.rc);
	if (!off.rc && !on.rc && !again.rc) {
		double gap_off = 0;
		for (uint32_t t = 1; t < 20; t++) {
			const struct locus_task_result *a = &on.r->tasks[t - 1],
						       *b = &on.r->tasks[t];
			CHECK_EQ_INT(b->worker, on.r->tasks[0].worker);
			CHECK(fabs(b->start - a->end) < 1e-9);
			gap_off += off.r->tasks[t].start - off.r->tasks[t - 1].end;
		}
		CHECK(gap_off > 19 * 1e-5);
		CHECK(on.r->makespan < off.r->makespan);
		CHECK(on.r->makespan < 20.01);
		CHECK(on.r->makespan == again.r->makespan);
		CHECK_EQ_INT(counter(on.r, "assignments"), 20);
	}
	locus_result_destroy(off.r);
	locus_result_destroy(on.r);
	locus_result_destroy(again.r);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

/* pipeline=1 with several dispatchers: the submitter deals a pipeline's
 * next task to its predecessor's dispatcher, which sends it with the
 * predecessor. Three chains of 6 tasks (1 MB, 1 s each) and a root read
 * by two side tasks, which shift the round-robin of stages 0 and 1, on 4
 * nodes of 2 cores with 3 dispatchers: every chain task after the first
 * starts the instant its predecessor ends, on its worker. Dealt by stage
 * alone, a chain's second task went to another dispatcher, which learnt
 * of its input and sent it after a round of messages. */
TEST(a_pipeline_goes_with_its_first_task_across_dispatchers)
{
	struct locus_platform *p = cluster(4, 2);
	struct locus_graph *g = NULL;
	struct locus_workload *wl = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_graph_create(&g, "chains", &err), 0);
	long root = locus_graph_add_task(g, "r", 1.0), ro = locus_graph_add_object(g, "r", 1000000);
	CHECK(root >= 0 && ro >= 0);
	CHECK_EQ_INT(locus_graph_add_output(g, (uint32_t)root, (uint32_t)ro, &err), 0);
	for (int k = 0; k < 2; k++) {
		char name[16];
		snprintf(name, sizeof name, "s%d", k);
		long t = locus_graph_add_task(g, name, 1.0);
		CHECK(t >= 0);
		CHECK_EQ_INT(locus_graph_add_input(g, (uint32_t)t, (uint32_t)ro), 0);
	}
	uint32_t chain[3][6];
	add_chain(g, "c0_", 6, chain[0]);
	add_chain(g, "c1_", 6, chain[1]);
	add_chain(g, "c2_", 6, chain[2]);
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run on = simulate_d(wl, "pipeline=1", 3, 1, 0);
	CHECK(!on.rc);
	for (int c = 0; !on.rc && c < 3; c++)
		for (int i = 1; i < 6; i++) {
			const struct locus_task_result *a = &on.r->tasks[chain[c][i - 1]],
						       *b = &on.r->tasks[chain[c][i]];
			if (b->worker != a->worker || fabs(b->start - a->end) > 1e-9)
				fprintf(stderr,
					"  c%d_%d: worker %u after %u, %g s after its input\n", c,
					i, b->worker, a->worker, b->start - a->end);
			CHECK_EQ_INT(b->worker, a->worker);
			CHECK(fabs(b->start - a->end) < 1e-9);
		}
	locus_result_destroy(on.r);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

TEST(idle_workers_send_nothing)
{
	struct locus_platform *p = cluster(64, 4);
	struct run off = two_tasks(p, 1, "config=aware,steal=0");
	struct run on = two_tasks(p, 1, "config=aware,steal=1");
	struct run lng = two_tasks(p, 1e9, "config=aware,steal=1");
	CHECK(!off.rc && !on.rc && !lng.rc);
	if (!off.rc && !on.rc && !lng.rc) {
		/* Beside steal=0: a worker whose queue empties asks its seven
		 * neighbours once (a request and an answer each), nothing more:
		 * its node's 3 other workers, and one on each of the 4 nodes one
		 * hop away (65 nodes: a 1 x 5 x 13 torus). */
		CHECK(on.r->messages > off.r->messages);
		CHECK(on.r->messages <= off.r->messages + 2 * (3 + 4) * 2);
		CHECK_EQ_INT(lng.r->messages, on.r->messages);
		CHECK_EQ_INT(lng.r->events, on.r->events);
		CHECK_EQ_INT(counter(on.r, "steals"), 0);
		CHECK(lng.r->makespan >= 1e9 && lng.r->makespan < 1e9 + 1);
	}
	locus_result_destroy(off.r);
	locus_result_destroy(on.r);
	locus_result_destroy(lng.r);
	locus_platform_destroy(p);
}

/* A sleeping thief looks when the polling would have: worker 1 (its own
 * node) is idle from the start; its looks would come at 0.05, 0.15, 0.35
 * s and so on, the wait doubling up to 12.8 s (12.75, 25.55, ... 89.55,
 * 102.35). Task a runs 100 s on worker 0 and writes f; b and c read f and
 * queue there at 100 s, c a task to spare: worker 1, woken, steals it at
 * its look of 102.35 s, not at once. */
TEST(a_woken_thief_looks_when_the_polling_would)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	locus_graph_create(&g, "late", &err);
	uint32_t a = (uint32_t)locus_graph_add_task(g, "a", 100);
	uint32_t f = (uint32_t)locus_graph_add_object(g, "f", 1000);
	locus_graph_add_output(g, a, f, &err);
	uint32_t b = (uint32_t)locus_graph_add_task(g, "b", 10);
	uint32_t c = (uint32_t)locus_graph_add_task(g, "c", 10);
	locus_graph_add_input(g, b, f);
	locus_graph_add_input(g, c, f);
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	struct locus_platform *p = cluster(2, 1);
	struct locus_workload *wl = NULL;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	/* (aware=first: c waits behind b on a's node for a thief; aware=now
	 * would send it to the idle node at once.) */
	struct run x = simulate(wl, "config=aware,aware=first,steal=1", 0);
	CHECK_EQ_INT(x.rc, 0);
	if (!x.rc) {
		CHECK_EQ_INT(counter(x.r, "steals"), 1);
		CHECK_EQ_INT(x.r->tasks[a].worker, x.r->tasks[b].worker);
		CHECK(x.r->tasks[c].worker != x.r->tasks[a].worker);
		CHECK(x.r->tasks[c].assigned > 102.35 && x.r->tasks[c].assigned < 102.4);
	}
	locus_result_destroy(x.r);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
}

/* Options are checked and named in errors; the scheduler count must be
 * a submitter and pairs. */
TEST(options)
{
	struct locus_platform *p = cluster(2, 1);
	struct locus_graph *g = test_workflow_montage(4);
	struct locus_workload *wl = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run x = simulate(wl, "config=fast", 0);
	CHECK_EQ_INT(x.rc, LOCUS_EINVAL);
	CHECK(strstr(x.msg, "config=fast") && strstr(x.msg, "cogather"));
	x = simulate(wl, "config=aware,nope=1", 0);
	CHECK_EQ_INT(x.rc, LOCUS_EINVAL);
	CHECK(strstr(x.msg, "\"nope\""));
	struct locus_sim_config cfg = {
	    .wl = wl, .policy = locus_policy_find("amfs"), .schedulers = 2, .latency = -1};
	struct locus_result *r = NULL;
	CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "3, 5, 7"));
	cfg.schedulers = 5; /* two dispatchers */
	CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), 0);
	CHECK(r && r->tasks_done == g->n_tasks);
	locus_result_destroy(r);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

#define N_RANDOM 120

/* Many random workflows (maps, gathers, multicasts, scatters: collectives
 * overlapping in time and across dispatchers), every configuration, one
 * to three dispatchers: every task runs once, never before the tasks
 * whose files it reads have made them (its inputs were whole), nothing
 * intermediate is left, no run stalls, the same run twice. */
TEST(random_workflows_under_every_configuration)
{
	int runs = 0;
	for (uint64_t seed = 1; seed <= N_RANDOM; seed++) {
		struct locus_graph *g = test_workflow_random(seed);
		CHECK(g != NULL);
		if (!g)
			continue;
		int D = 1 + (int)(seed % 3), nodes = 3 + (int)(seed * 7 % 10);
		struct locus_platform *p = test_flow_cluster(nodes, 1 + (int)(seed % 4), D);
		struct locus_workload *wl = NULL;
		struct locus_error err;
		CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
		for (size_t c = 0; c < N_CONFIGS && wl; c++) {
			/* The options vary with the seed: placement by bytes,
			 * no stealing or stealing from all, reductions, the
			 * writers replicated instead of their files. */
			char opts[160];
			snprintf(opts, sizeof opts, "config=%s%s%s%s%s", configs[c],
				 seed % 2 ? ",aware=bytes" : "",
				 seed % 5 == 0	 ? ",steal=0"
				 : seed % 5 == 1 ? ",steal=1e9"
						 : "",
				 seed % 3 == 0 ? ",reduce=stage2+stage3" : "",
				 seed % 7 == 3 ? ",replicate=task" : "");
			struct locus_error e1 = {0}, e2 = {0};
			struct locus_sim_config cfg =
			    test_flow_config(wl, "amfs", opts, D, seed, 0);
			struct locus_result *a = NULL, *b = NULL;
			int ra = locus_sim_run(&a, &cfg, &e1), rb = locus_sim_run(&b, &cfg, &e2);
			if (ra || rb)
				fprintf(stderr, "  seed %llu %s D=%d: %s\n",
					(unsigned long long)seed, opts, D,
					ra ? e1.message : e2.message);
			CHECK_EQ_INT(ra, 0);
			CHECK_EQ_INT(rb, 0);
			if (!ra && !rb) {
				runs++;
				CHECK(!a->failed);
				CHECK_EQ_INT(a->tasks_done, g->n_tasks);
				for (uint32_t t = 0; t < g->n_tasks; t++) {
					CHECK_EQ_INT(a->tasks[t].attempts, 1);
					const struct locus_task *tk = &g->tasks[t];
					for (uint32_t k = 0; k < tk->n_in; k++) {
						/* Its writer's output exists once it has
						 * computed (speed 1: read_end + work); writing
						 * its final outputs may go on. */
						uint32_t pr =
						    g->objects[g->inputs[tk->in_at + k]].producer;
						double made =
						    pr == LOCUS_NONE
							? 0
							: a->tasks[pr].read_end + g->tasks[pr].work;
						if (!(a->tasks[t].start >= made - 1e-9)) {
							fprintf(stderr,
								"  seed %llu %s: task %u started "
								"at %.9g, "
								"before task %u wrote its input at "
								"%.9g\n",
								(unsigned long long)seed, opts, t,
								a->tasks[t].start, pr, made);
							CHECK(a->tasks[t].start >= made - 1e-9);
						}
					}
				}
				if (a->intermediate_end != 0)
					fprintf(stderr, "  seed %llu %s D=%d: %.0f bytes left\n",
						(unsigned long long)seed, opts, D,
						a->intermediate_end);
				CHECK_NEAR(a->intermediate_end, 0, 0);
				CHECK(a->makespan >= a->lb_makespan * (1 - 1e-9));
				CHECK(a->makespan == b->makespan && a->messages == b->messages &&
				      a->bytes_moved == b->bytes_moved && a->fs_ops == b->fs_ops);
			}
			locus_result_destroy(a);
			locus_result_destroy(b);
		}
		locus_workload_destroy(wl);
		locus_platform_destroy(p);
		locus_graph_destroy(g);
	}
	CHECK_EQ_INT(runs, N_RANDOM * (int)N_CONFIGS);
}

/* The result of a workflow is written as version 6: the file system's
 * traffic and the nodes' storage in the summary, each stage by name with
 * its tasks and bytes, and staging copies from the file system as
 * transfers whose source is null. */
TEST(result_json_version_6)
{
	struct locus_platform *p = cluster(4, 2);
	struct locus_graph *g = test_workflow_montage(12);
	struct locus_workload *wl = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run st = simulate(wl, "config=staging", 1);
	CHECK_EQ_INT(st.rc, 0);
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	CHECK_EQ_INT(st.rc ? -1 : locus_report_json(st.r, fp), 0);
	fclose(fp);
	json_error_t jerr;
	json_t *doc = json_loads(text, 0, &jerr);
	CHECK(doc != NULL);
	if (doc && !st.rc) {
		CHECK_EQ_INT(json_integer_value(json_object_get(doc, "version")), 6);
		/* The locality bound under its name since version 4 (null). */
		json_t *bounds = json_object_get(doc, "bounds");
		CHECK(json_is_null(json_object_get(bounds, "balanced_local_tasks")));
		CHECK(json_object_get(bounds, "optimal_local_tasks") == NULL);
		json_t *fs = json_object_get(json_object_get(doc, "summary"), "file_system");
		CHECK_EQ_INT(json_integer_value(json_object_get(fs, "bytes_written")),
			     st.r->fs_bytes_written);
		CHECK_EQ_INT(json_integer_value(json_object_get(fs, "bytes_read")),
			     st.r->fs_bytes_read);
		CHECK_EQ_INT(json_integer_value(json_object_get(fs, "operations")), st.r->fs_ops);
		json_t *ls = json_object_get(json_object_get(doc, "summary"), "local_storage");
		CHECK(json_number_value(json_object_get(ls, "peak")) == st.r->storage_peak);
		CHECK(json_number_value(json_object_get(ls, "peak")) > 0);
		json_t *ss = json_object_get(doc, "stages");
		CHECK_EQ_INT(json_array_size(ss), g->n_stages);
		json_int_t tasks = 0, written = 0, from_fs = 0;
		for (size_t s = 0; s < json_array_size(ss); s++) {
			json_t *x = json_array_get(ss, s);
			CHECK_EQ_STR(json_string_value(json_object_get(x, "name")),
				     g->stage_names[s]);
			tasks += json_integer_value(json_object_get(x, "tasks"));
			written += json_integer_value(json_object_get(x, "bytes_fs_written"));
			from_fs += json_integer_value(json_object_get(x, "bytes_fs_read"));
			CHECK(json_number_value(json_object_get(x, "last_end")) >=
			      json_number_value(json_object_get(x, "first_start")));
			/* The patterns found, the collectives run (staging runs
			 * none). */
			CHECK(json_is_array(json_object_get(x, "patterns")));
			CHECK_EQ_INT(json_integer_value(json_object_get(x, "collectives")), 0);
		}
		CHECK_EQ_INT(tasks, g->n_tasks);
		CHECK_EQ_INT(written, st.r->fs_bytes_written);
		CHECK_EQ_INT(from_fs, st.r->fs_bytes_read);
		json_t *xs = json_object_get(doc, "transfers");
		size_t nulls = 0;
		for (size_t i = 0; i < json_array_size(xs); i++)
			nulls += json_is_null(json_object_get(json_array_get(xs, i), "from"));
		CHECK(nulls > 0);
	}
	json_decref(doc);
	free(text);
	locus_result_destroy(st.r);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

/* ---- replication (section V-F) ------------------------------------------------------------ */

/* Section V-F's example as a workflow: 100 stage-a tasks (1 s) each write
 * one file of 1 MB that 10 stage-b tasks (1 s) read; 200 nodes of one
 * core, one dispatcher. a[i] and b[10 i + k] get the task ids. */
static struct locus_graph *section_v_f(uint32_t *a, uint32_t *b)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	if (locus_graph_create(&g, "v-f", &err))
		return NULL;
	uint32_t sa = (uint32_t)locus_graph_stage(g, "a"), sb = (uint32_t)locus_graph_stage(g, "b");
	for (int i = 0; i < 100; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "a%d", i);
		a[i] = (uint32_t)locus_graph_add_task(g, nm, 1);
		locus_graph_set_stage(g, a[i], sa);
		snprintf(nm, sizeof nm, "file%d", i + 1);
		uint32_t f = (uint32_t)locus_graph_add_object(g, nm, 1000000);
		locus_graph_add_output(g, a[i], f, &err);
		for (int k = 0; k < 10; k++) {
			uint32_t t;
			snprintf(nm, sizeof nm, "b%d", 10 * i + k);
			b[10 * i + k] = t = (uint32_t)locus_graph_add_task(g, nm, 1);
			locus_graph_set_stage(g, t, sb);
			locus_graph_add_input(g, t, f);
			snprintf(nm, sizeof nm, "out%d", 10 * i + k);
			locus_graph_add_output(g, t, (uint32_t)locus_graph_add_object(g, nm, 1000),
					       &err);
		}
	}
	if (locus_graph_finish(g, &err)) {
		locus_graph_destroy(g);
		return NULL;
	}
	return g;
}

/* Where the readers of each file ran: 5 on its writer's node and 5 on
 * one other node, `other[i]` (NONE when not so). */
static int readers_split(const struct locus_result *r, const uint32_t *a, const uint32_t *b,
			 uint32_t *other)
{
	int all = 1;
	for (int i = 0; i < 100; i++) {
		uint32_t wn = r->tasks[a[i]].node, on = LOCUS_NONE, at_w = 0, at_o = 0;
		for (int k = 0; k < 10; k++) {
			uint32_t n = r->tasks[b[10 * i + k]].node;
			if (n == wn)
				at_w++;
			else if (on == LOCUS_NONE || n == on)
				at_o++, on = n;
		}
		other[i] = at_w == 5 && at_o == 5 ? on : LOCUS_NONE;
		all &= other[i] != LOCUS_NONE;
	}
	return all;
}

/* V-F: file1 is 1 % of stage b's consumption, so 2 of 200 servers hold
 * it: one copy, on a server holding the fewest of stage b's input files.
 * The table counts a file on its writer's node when the writer is sent
 * (V-F3), so the copies go to the 100 nodes that write nothing (before,
 * each went to the node about to write the next file: 89 workers ran 10
 * readers each, 11.06 s); the readers split 5 and 5 between the holders,
 * about 6 s (a's 1 s, five waves of b). */
TEST(replica_placement_of_section_v_f)
{
	uint32_t a[100], b[1000], other[100];
	struct locus_graph *g = section_v_f(a, b);
	struct locus_platform *p = test_flow_cluster(200, 1, 1);
	struct locus_workload *wl = NULL;
	struct locus_error err;
	CHECK(g && p);
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	/* The paper's placement (aware=first: each reader to a holder);
	 * aware=now sends readers to idle nodes too, which bring the file
	 * (1 MB, 2.4 ms, against a 1 s wait), as fast. */
	struct run x = simulate(wl, "config=cogather,aware=first", 1);
	struct run now = simulate(wl, "config=cogather,aware=now", 0);
	CHECK_EQ_INT(x.rc, 0);
	CHECK_EQ_INT(now.rc, 0);
	if (!x.rc && !now.rc) {
		fprintf(stderr, "  V-F example, aware=now: %.2f s\n", now.r->makespan);
	}
	locus_result_destroy(now.r);
	if (!x.rc) {
		CHECK_EQ_INT(counter(x.r, "multicasts"), 100);
		CHECK_EQ_INT(counter(x.r, "replicas"), 100);
		int got[200] = {0};
		size_t copies = 0;
		for (size_t i = 0; i < x.r->n_xfers; i++) {
			const struct locus_transfer_result *t = &x.r->xfers[i];
			if (t->from >= 200 || t->to >= 200)
				continue;
			copies++;
			CHECK(t->from < 100 && t->to >= 100);
			got[t->to]++;
		}
		CHECK_EQ_INT(copies, 100);
		for (int n = 100; n < 200; n++)
			CHECK_EQ_INT(got[n], 1);
		CHECK(readers_split(x.r, a, b, other));
		for (int i = 0; i < 100; i++)
			CHECK(other[i] == LOCUS_NONE || other[i] >= 100);
		CHECK(x.r->makespan < 7);
		fprintf(stderr, "  V-F example: %.2f s (lower bound %.2f s)\n", x.r->makespan,
			x.r->lb_makespan);
	}
	locus_result_destroy(x.r);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
}

/* The alternative of V-F5: the writer of a multicast file runs again on
 * the servers a copy would go to, instead of the copy. On V-F's example:
 * 100 replicas run, no file moves between nodes, the readers split 5 and
 * 5 between each writer's node and its replica's, as fast as the copies. */
TEST(replicating_the_writer_instead_of_the_file)
{
	uint32_t a[100], b[1000], other[100];
	struct locus_graph *g = section_v_f(a, b);
	struct locus_platform *p = test_flow_cluster(200, 1, 1);
	struct locus_workload *wl = NULL;
	struct locus_error err;
	CHECK(g && p);
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run x = simulate(wl, "config=cogather,replicate=task", 1);
	CHECK_EQ_INT(x.rc, 0);
	if (!x.rc) {
		CHECK_EQ_INT(counter(x.r, "multicasts"), 0);
		CHECK_EQ_INT(counter(x.r, "replicas"), 100);
		size_t copies = 0;
		for (size_t i = 0; i < x.r->n_xfers; i++)
			copies += x.r->xfers[i].from < 200 && x.r->xfers[i].to < 200;
		CHECK_EQ_INT(copies, 0);
		CHECK(readers_split(x.r, a, b, other));
		for (int i = 0; i < 100; i++)
			CHECK(other[i] == LOCUS_NONE || other[i] >= 100);
		CHECK(x.r->makespan < 7);
		CHECK_NEAR(x.r->intermediate_end, 0, 0);
	}
	locus_result_destroy(x.r);
	struct run bad = simulate(wl, "config=cogather,replicate=both", 0);
	CHECK_EQ_INT(bad.rc, LOCUS_EINVAL);
	CHECK(strstr(bad.msg, "replicate"));
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
	/* On the Montage- and BLAST-shaped workflows, with one to three
	 * dispatchers: every task once, nothing left, the same run twice. */
	struct locus_montage_spec ms = {.images = 30, .seed = 3};
	struct locus_graph *gs[3] = {test_workflow_blast(20, 10), NULL, test_workflow_montage(24)};
	uint64_t replicas = 0;
	CHECK_EQ_INT(locus_flow_montage(&gs[1], &ms, &err), 0);
	for (int k = 0; k < 3; k++) {
		CHECK(gs[k] != NULL);
		for (int D = 1; D <= 3 && gs[k]; D++) {
			p = test_flow_cluster(9, 2, D);
			wl = NULL;
			CHECK_EQ_INT(locus_workload_from_graph(&wl, p, gs[k], NULL, &err), 0);
			const char *opts = D == 2 ? "config=auto,replicate=task,multicast=4"
						  : "config=cogather,replicate=task";
			struct run r1 = simulate_d(wl, opts, D, 1, 0),
				   r2 = simulate_d(wl, opts, D, 1, 0);
			CHECK(!r1.rc && !r2.rc);
			if (!r1.rc && !r2.rc) {
				CHECK(!r1.r->failed);
				CHECK_EQ_INT(r1.r->tasks_done, gs[k]->n_tasks);
				for (size_t t = 0; t < gs[k]->n_tasks; t++)
					CHECK_EQ_INT(r1.r->tasks[t].attempts, 1);
				CHECK_NEAR(r1.r->intermediate_end, 0, 0);
				CHECK(r1.r->makespan == r2.r->makespan &&
				      r1.r->messages == r2.r->messages &&
				      r1.r->bytes_moved == r2.r->bytes_moved);
				replicas += counter(r1.r, "replicas");
			}
			locus_result_destroy(r1.r);
			locus_result_destroy(r2.r);
			locus_workload_destroy(wl);
			locus_platform_destroy(p);
		}
		locus_graph_destroy(gs[k]);
	}
	CHECK(replicas > 0);
}

/* A dispatcher none of whose tasks reads a group as a multicast copies
 * none of it, and no scope gets more holders than it has readers: one
 * task writes f and g; f is read by two tasks of stage use and by one of
 * stage other, g by two of stage other (threshold 2: multicasts in both
 * stages); three dispatchers of 4 nodes. The first has a reader of each
 * where the group is made (1 holder: no copy), the second one of each
 * outside it (1 copy), the third reads f in stage other only, as a
 * pipeline (no copy). Before, q counted 0 readers of 0 and every reader
 * of 1 as the whole scope: 11 copies. */
TEST(no_copies_where_no_task_reads_the_group)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_graph_create(&g, "six", &err), 0);
	uint32_t sg = (uint32_t)locus_graph_stage(g, "gen"),
		 su = (uint32_t)locus_graph_stage(g, "use"),
		 so = (uint32_t)locus_graph_stage(g, "other");
	uint32_t gen = (uint32_t)locus_graph_add_task(g, "gen", 1);
	locus_graph_set_stage(g, gen, sg);
	uint32_t f = (uint32_t)locus_graph_add_object(g, "f", 10000000);
	uint32_t gf = (uint32_t)locus_graph_add_object(g, "g", 10000000);
	locus_graph_add_output(g, gen, f, &err);
	locus_graph_add_output(g, gen, gf, &err);
	static const char *const names[] = {"u0", "u1", "o0", "o1", "o2"};
	for (int i = 0; i < 5; i++) {
		uint32_t t = (uint32_t)locus_graph_add_task(g, names[i], 1);
		locus_graph_set_stage(g, t, i < 2 ? su : so);
		locus_graph_add_input(g, t, i < 2 || i == 4 ? f : gf);
		char nm[16];
		snprintf(nm, sizeof nm, "%s.out", names[i]);
		locus_graph_add_output(g, t, (uint32_t)locus_graph_add_object(g, nm, 10), &err);
	}
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	struct locus_platform *p = test_flow_cluster(12, 1, 3);
	struct locus_workload *wl = NULL;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run x = simulate_d(wl, "config=cogather,multicast=2", 3, 1, 0);
	CHECK_EQ_INT(x.rc, 0);
	if (!x.rc) {
		CHECK_EQ_INT(x.r->tasks_done, 6);
		CHECK_EQ_INT(counter(x.r, "replicas"), 1);
		CHECK_NEAR(x.r->intermediate_end, 0, 0);
	}
	locus_result_destroy(x.r);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
}

/* q counts file groups (V-F: "we replace the role of file in the Tables
 * V and IV with file group"): 16 tasks each read a file m that one task
 * wrote, three files their own writer wrote (one group) and a workflow
 * input (no group). m's share is 16 of 32 groups: half of 8 servers hold
 * it, 3 copies (counted in files, 16 of 80 reads: 2 holders, 1 copy). */
TEST(replica_count_in_file_groups)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_graph_create(&g, "groups", &err), 0);
	uint32_t ss = (uint32_t)locus_graph_stage(g, "src"),
		 sp = (uint32_t)locus_graph_stage(g, "prep"),
		 su = (uint32_t)locus_graph_stage(g, "use");
	uint32_t src = (uint32_t)locus_graph_add_task(g, "src", 1);
	locus_graph_set_stage(g, src, ss);
	uint32_t m = (uint32_t)locus_graph_add_object(g, "m", 1000000);
	locus_graph_add_output(g, src, m, &err);
	uint32_t ref = (uint32_t)locus_graph_add_object(g, "ref", 1000);
	for (int i = 0; i < 16; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "prep%d", i);
		uint32_t pt = (uint32_t)locus_graph_add_task(g, nm, 1);
		locus_graph_set_stage(g, pt, sp);
		snprintf(nm, sizeof nm, "use%d", i);
		uint32_t ut = (uint32_t)locus_graph_add_task(g, nm, 1);
		locus_graph_set_stage(g, ut, su);
		locus_graph_add_input(g, ut, m);
		locus_graph_add_input(g, ut, ref);
		for (int k = 0; k < 3; k++) {
			snprintf(nm, sizeof nm, "x%d_%d", i, k);
			uint32_t x = (uint32_t)locus_graph_add_object(g, nm, 1000);
			locus_graph_add_output(g, pt, x, &err);
			locus_graph_add_input(g, ut, x);
		}
		snprintf(nm, sizeof nm, "res%d", i);
		locus_graph_add_output(g, ut, (uint32_t)locus_graph_add_object(g, nm, 10), &err);
	}
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	struct locus_platform *p = test_flow_cluster(8, 1, 1);
	struct locus_workload *wl = NULL;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run x = simulate(wl, "config=cogather", 0);
	CHECK_EQ_INT(x.rc, 0);
	if (!x.rc) {
		CHECK_EQ_INT(counter(x.r, "multicasts"), 1);
		CHECK_EQ_INT(counter(x.r, "replicas"), 3);
	}
	locus_result_destroy(x.r);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
}

/* ---- the global order (V-D) ------------------------------------------------------------- */

/* Three dispatchers of 8 one-core nodes. 33 writers (11 a dispatcher,
 * so each dispatcher's next task goes to its fourth node) write a part
 * each; three gathers read 16 parts each, from every dispatcher's nodes;
 * two tasks write a file each that 24 tasks read (8 in each scope, half
 * of its reads: 4 servers of a scope hold it). Every copy of a gather goes from a
 * lower node to a higher one; so does every copy of a multicast, but the
 * one by which the file enters a scope's tree at its lowest node from
 * above (its source, or another scope's holder in the chain across
 * dispatchers, waits for no child). Before, a gather rooted at its
 * own dispatcher's highest node took inputs down from the others', and
 * a multicast's tree followed the servers' loads. */
TEST(trees_follow_the_global_order)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_graph_create(&g, "order", &err), 0);
	uint32_t sw = (uint32_t)locus_graph_stage(g, "w"), sg = (uint32_t)locus_graph_stage(g, "g"),
		 sm = (uint32_t)locus_graph_stage(g, "m"), sr = (uint32_t)locus_graph_stage(g, "r");
	uint32_t part[33], mc[2], writer[2];
	char nm[32];
	for (int i = 0; i < 33; i++) {
		snprintf(nm, sizeof nm, "w%d", i);
		uint32_t t = (uint32_t)locus_graph_add_task(g, nm, 1);
		locus_graph_set_stage(g, t, sw);
		snprintf(nm, sizeof nm, "part%d", i);
		part[i] = (uint32_t)locus_graph_add_object(g, nm, 100000);
		locus_graph_add_output(g, t, part[i], &err);
	}
	for (int j = 0; j < 3; j++) {
		snprintf(nm, sizeof nm, "g%d", j);
		uint32_t t = (uint32_t)locus_graph_add_task(g, nm, 1);
		locus_graph_set_stage(g, t, sg);
		for (int k = 0; k < 16; k++)
			locus_graph_add_input(g, t, part[(11 * j + 2 * k) % 33]);
		snprintf(nm, sizeof nm, "sum%d", j);
		locus_graph_add_output(g, t, (uint32_t)locus_graph_add_object(g, nm, 10), &err);
	}
	for (int j = 0; j < 2; j++) {
		snprintf(nm, sizeof nm, "m%d", j);
		writer[j] = (uint32_t)locus_graph_add_task(g, nm, 1);
		locus_graph_set_stage(g, writer[j], sm);
		snprintf(nm, sizeof nm, "mc%d", j);
		mc[j] = (uint32_t)locus_graph_add_object(g, nm, 1000000);
		locus_graph_add_output(g, writer[j], mc[j], &err);
	}
	for (int i = 0; i < 48; i++) {
		snprintf(nm, sizeof nm, "r%d", i);
		uint32_t t = (uint32_t)locus_graph_add_task(g, nm, 1);
		locus_graph_set_stage(g, t, sr);
		locus_graph_add_input(g, t, mc[i % 2]);
		snprintf(nm, sizeof nm, "res%d", i);
		locus_graph_add_output(g, t, (uint32_t)locus_graph_add_object(g, nm, 10), &err);
	}
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	struct locus_platform *p = test_flow_cluster(24, 1, 3);
	struct locus_workload *wl = NULL;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	/* (aware=first keeps every reader on a holder: aware=now sends some
	 * elsewhere, which fetch the file from a holder, lower or higher, as
	 * any worker does; the trees are the same.) */
	struct run x = simulate_d(wl, "config=cogather,aware=first,steal=0", 3, 1, 1);
	CHECK_EQ_INT(x.rc, 0);
	if (!x.rc) {
		CHECK_EQ_INT(counter(x.r, "gathers"), 3);
		CHECK_EQ_INT(counter(x.r, "multicasts"), 6);
		CHECK_EQ_INT(counter(x.r, "replicas"), 2 * (3 + 4 + 4));
		size_t up = 0, entries = 0, bad = 0;
		for (size_t i = 0; i < x.r->n_xfers; i++) {
			const struct locus_transfer_result *t = &x.r->xfers[i];
			if (t->from >= 24 || t->to >= 24)
				continue;
			int k = t->object == mc[0] ? 0 : t->object == mc[1] ? 1 : -1;
			if (t->from < t->to) {
				up++;
				continue;
			}
			/* Down: only a multicast's source, or its holder in
			 * another scope (the chain across dispatchers), into a
			 * scope's lowest holder of the file. */
			uint32_t low = UINT32_MAX, from_low = UINT32_MAX;
			for (size_t j = 0; k >= 0 && j < x.r->n_xfers; j++) {
				const struct locus_transfer_result *u = &x.r->xfers[j];
				if (u->object == t->object && u->to < 24 &&
				    u->to / 8 == t->to / 8 && u->to < low)
					low = u->to;
				if (u->object == t->object && u->to < 24 &&
				    u->to / 8 == t->from / 8 && u->to < from_low)
					from_low = u->to;
			}
			if (k >= 0 &&
			    (t->from == x.r->tasks[writer[k]].node || t->from == from_low) &&
			    t->to == low)
				entries++;
			else {
				bad++;
				fprintf(stderr, "  copy of %s from node %u down to node %u\n",
					g->objects[t->object].name, t->from, t->to);
			}
		}
		CHECK(up > 0);
		CHECK(entries > 0);
		CHECK_EQ_INT(bad, 0);
		CHECK_NEAR(x.r->intermediate_end, 0, 0);
	}
	locus_result_destroy(x.r);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
}

/* A multicast across D dispatchers (4 worker nodes of 1 core each, 8
 * readers each of a 100 MB file: 4 holders a scope) keeps the binomial
 * tree: the scopes form a chain in which each gets the file from its
 * parent's first holder, one child after another, so its time grows with
 * log2 D, not D (before, the writer's node sent one copy to every other
 * scope at once: 10.5 times the model at 8,192 nodes). The copies out of
 * the writer's node are a few a round, not one a dispatcher. */
static double multicast_time(int D, size_t *from_source)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	double t = -1;
	locus_graph_create(&g, "mc", &err);
	uint32_t sm = (uint32_t)locus_graph_stage(g, "m"), sr = (uint32_t)locus_graph_stage(g, "r");
	uint32_t w = (uint32_t)locus_graph_add_task(g, "m", 1);
	locus_graph_set_stage(g, w, sm);
	uint32_t f = (uint32_t)locus_graph_add_object(g, "mc", 100000000);
	locus_graph_add_output(g, w, f, &err);
	for (int i = 0; i < 8 * D; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "r%d", i);
		uint32_t r = (uint32_t)locus_graph_add_task(g, nm, 1);
		locus_graph_set_stage(g, r, sr);
		locus_graph_add_input(g, r, f);
	}
	struct locus_platform *p = test_flow_cluster(4 * D, 1, D);
	struct locus_workload *wl = NULL;
	if (!locus_graph_finish(g, &err) && p &&
	    !locus_workload_from_graph(&wl, p, g, NULL, &err)) {
		struct run x = simulate_d(wl, "config=aware,steal=0", D, 1, 1);
		if (!x.rc) {
			double last = 0;
			*from_source = 0;
			for (size_t i = 0; i < x.r->n_xfers; i++) {
				const struct locus_transfer_result *c = &x.r->xfers[i];
				if (c->object != f || c->from >= (uint32_t)(4 * D))
					continue;
				last = c->end > last ? c->end : last;
				*from_source += c->from == x.r->tasks[w].node;
			}
			t = last - x.r->tasks[w].end;
		}
		locus_result_destroy(x.r);
	}
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
	return t;
}

TEST(multicast_time_logarithmic_in_the_dispatchers)
{
	size_t src[6] = {0};
	double t[6];
	for (int k = 1; k <= 5; k++) {
		t[k] = multicast_time(1 << k, &src[k]);
		CHECK(t[k] > 0);
		fprintf(stderr,
			"  multicast over %d dispatchers: %.2f s, %zu copies from the source\n",
			1 << k, t[k], src[k]);
	}
	/* 100 MB over 425 MB/s: 0.235 s a copy. 2 dispatchers: 3 rounds at
	 * least (into the second scope, two in a scope); each doubling one
	 * more round, not twice the time. */
	CHECK(t[1] >= 3 * 0.235);
	for (int k = 2; k <= 5; k++)
		CHECK(t[k] <= t[k - 1] + 2 * 0.235 + 0.01);
	CHECK(t[5] < 3 * t[1]);
	CHECK(src[5] <= 5 + 3);
}

/* The BG/P preset (include/locus/flow.h): a partition of 512 nodes is
 * 504 worker nodes of 4 cores and 8 dispatcher nodes, GPFS 1.25 GB/s per
 * 64 nodes (10 GB/s); 8,192 nodes reach the 60 GB/s cap. Unknown names
 * and partitions of one node are refused. */
TEST(the_bgp_preset)
{
	const struct locus_flow_preset *bgp = locus_flow_preset_find("bgp");
	CHECK(bgp != NULL);
	CHECK(locus_flow_preset_find("bgq") == NULL);
	if (!bgp)
		return;
	struct locus_platform *p = NULL;
	struct locus_error err = {0};
	size_t D = 0;
	double fs = 0;
	CHECK_EQ_INT(locus_flow_preset_platform(bgp, 512, &p, &D, &fs, &err), 0);
	if (p) {
		CHECK_EQ_INT(p->n_nodes, 512);
		CHECK_EQ_INT(D, 8);
		CHECK_NEAR(fs, 10e9, 1);
		CHECK_EQ_INT(p->nodes[0].cores, 4);
		CHECK_EQ_INT(p->nodes[503].cores, 4);
		CHECK_EQ_INT(p->nodes[504].cores, 0);
		CHECK_NEAR(p->nodes[0].net_bw, 425e6, 1);
		CHECK_NEAR(p->nodes[0].disk_bw, 1e9, 1);
	}
	locus_platform_destroy(p);
	p = NULL;
	CHECK_EQ_INT(locus_flow_preset_platform(bgp, 8192, &p, &D, &fs, &err), 0);
	CHECK_NEAR(fs, 60e9, 1);
	CHECK_EQ_INT(D, 128);
	locus_platform_destroy(p);
	p = NULL;
	CHECK_EQ_INT(locus_flow_preset_platform(bgp, 1, &p, &D, &fs, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "a partition of 1 nodes: expected 2 to 10000000") != NULL);
	CHECK(p == NULL);
}

TEST_MAIN(TEST_ENTRY(every_configuration_runs_every_task_once),
	  TEST_ENTRY(readers_spread_over_where_their_inputs_are),
	  TEST_ENTRY(asynchronous_gather_sets_up_its_copies_one_after_another),
	  TEST_ENTRY(stealing_only_between_torus_neighbours),
	  TEST_ENTRY(multicast_time_logarithmic_in_the_dispatchers), TEST_ENTRY(the_bgp_preset),
	  TEST_ENTRY(collectives_started_while_others_end),
	  TEST_ENTRY(patterns_drive_the_collectives),
	  TEST_ENTRY(file_system_traffic_of_the_configurations),
	  TEST_ENTRY(stealing_balances_a_data_aware_pile_up), TEST_ENTRY(idle_workers_send_nothing),
	  TEST_ENTRY(a_pipeline_goes_with_its_first_task),
	  TEST_ENTRY(a_pipeline_goes_with_its_first_task_across_dispatchers),
	  TEST_ENTRY(a_woken_thief_looks_when_the_polling_would), TEST_ENTRY(options),
	  TEST_ENTRY(result_json_version_6), TEST_ENTRY(random_workflows_under_every_configuration),
	  TEST_ENTRY(replica_placement_of_section_v_f),
	  TEST_ENTRY(replicating_the_writer_instead_of_the_file),
	  TEST_ENTRY(no_copies_where_no_task_reads_the_group),
	  TEST_ENTRY(replica_count_in_file_groups), TEST_ENTRY(trees_follow_the_global_order))
