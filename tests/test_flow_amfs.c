/*
 * The AME/AMFS policy (src/flow/amfs.c) in the simulator: every
 * configuration runs every task of Montage- and BLAST-shaped workflows
 * exactly once, the same way twice, leaving no intermediate file behind;
 * the patterns drive the collectives they should (a gather per gather
 * task, a multicast per group, a scatter); a gather's files only flow
 * from lower to higher nodes; the shared and staging configurations put
 * what they should on the file system; stealing moves queued work to idle
 * neighbours and shortens an unbalanced run.
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
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = locus_policy_find("amfs"),
				       .policy_opts = opts,
				       .schedulers = 3,
				       .latency = -1,
				       .cost_per_msg = 5e-6,
				       .cost_per_entry = 1e-7,
				       .shared_fs_bw = 1.25e9,
				       .fs_ops = 2000,
				       .no_transfer_results = !keep_xfers};
	x.rc = locus_sim_run(&x.r, &cfg, &err);
	snprintf(x.msg, sizeof x.msg, "%s", err.message);
	if (x.rc)
		fprintf(stderr, "  amfs %s: %s\n", opts, err.message);
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
				fprintf(stderr, "  %s on workflow %d left %.0f bytes\n", configs[c], k,
					a.r->intermediate_end);
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
			const char *nm = x->object < g->n_objects ? g->objects[x->object].name : NULL;
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
	struct run none = simulate(wl, "config=aware,multicast=1000,steal=0", 0);
	struct run near = simulate(wl, "config=aware,multicast=1000,steal=2", 0);
	struct run all = simulate(wl, "config=aware,multicast=1000,steal=100", 0);
	struct run global = simulate(wl, "config=aware,multicast=1000,steal=1e9", 0);
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
			"  makespan: no stealing %.1f s, 2 neighbours %.1f s, all %.1f s, the "
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
			 * no stealing or stealing from all, reductions. */
			char opts[128];
			snprintf(opts, sizeof opts, "config=%s%s%s%s", configs[c],
				 seed % 2 ? ",aware=bytes" : "",
				 seed % 5 == 0   ? ",steal=0"
				 : seed % 5 == 1 ? ",steal=1e9"
						 : "",
				 seed % 3 == 0 ? ",reduce=stage2+stage3" : "");
			struct locus_error e1 = {0}, e2 = {0};
			struct locus_sim_config cfg = {.wl = wl,
						       .policy = locus_policy_find("amfs"),
						       .policy_opts = opts,
						       .schedulers = (size_t)(1 + 2 * D),
						       .seed = seed,
						       .latency = -1,
						       .cost_per_msg = 5e-6,
						       .cost_per_entry = 1e-7,
						       .shared_fs_bw = 1.25e9,
						       .fs_ops = 2000,
						       .no_transfer_results = 1};
			struct locus_result *a = NULL, *b = NULL;
			int ra = locus_sim_run(&a, &cfg, &e1), rb = locus_sim_run(&b, &cfg, &e2);
			if (ra || rb)
				fprintf(stderr, "  seed %llu %s D=%d: %s\n", (unsigned long long)seed,
					opts, D, ra ? e1.message : e2.message);
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
						uint32_t pr = g->objects[g->inputs[tk->in_at + k]].producer;
						double made = pr == LOCUS_NONE
								  ? 0
								  : a->tasks[pr].read_end + g->tasks[pr].work;
						if (!(a->tasks[t].start >= made - 1e-9)) {
							fprintf(stderr,
								"  seed %llu %s: task %u started at %.9g, "
								"before task %u wrote its input at %.9g\n",
								(unsigned long long)seed, opts, t,
								a->tasks[t].start, pr, made);
							CHECK(a->tasks[t].start >= made - 1e-9);
						}
					}
				}
				if (a->intermediate_end != 0)
					fprintf(stderr, "  seed %llu %s D=%d: %.0f bytes left\n",
						(unsigned long long)seed, opts, D, a->intermediate_end);
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

/* The result of a workflow is written as version 3: the file system's
 * traffic and the nodes' storage in the summary, each stage by name with
 * its tasks and bytes, and staging copies from the file system as
 * transfers whose source is null. */
TEST(result_json_version_3)
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
		CHECK_EQ_INT(json_integer_value(json_object_get(doc, "version")), 3);
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
			CHECK_EQ_STR(json_string_value(json_object_get(x, "name")), g->stage_names[s]);
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

TEST_MAIN(TEST_ENTRY(every_configuration_runs_every_task_once),
	  TEST_ENTRY(patterns_drive_the_collectives),
	  TEST_ENTRY(file_system_traffic_of_the_configurations),
	  TEST_ENTRY(stealing_balances_a_data_aware_pile_up), TEST_ENTRY(options),
	  TEST_ENTRY(result_json_version_3), TEST_ENTRY(random_workflows_under_every_configuration))
