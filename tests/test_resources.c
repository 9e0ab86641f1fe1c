/*
 * Resources (docs/flow.md, "Resources"): what tasks declare (Makeflow's
 * CORES, MEMORY and DISK by category; WfCommons' coreCount and
 * memoryInBytes), the refusal of a task no node holds, and the
 * simulator's executor starting a task only where it fits: tasks of 2
 * cores on nodes of 2 never run two at once on a node, under every
 * workflow policy; memory likewise; a mix never exceeds a node.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

static struct locus_graph *makeflow(const char *text, struct locus_error *err)
{
	struct locus_graph *g = NULL;
	struct locus_makeflow_options opt = {.runtime = 1};
	if (locus_flow_read_makeflow(&g, text, strlen(text), "res.mf", &opt, err))
		return NULL;
	return g;
}

/* n independent rules of 1 s, each with `decl` among its variables
 * (before its command). */
static struct locus_graph *rules(int n, const char *top, const char *decl)
{
	char text[4096];
	size_t k = (size_t)snprintf(text, sizeof text, "%s", top);
	for (int i = 0; i < n; i++)
		k += (size_t)snprintf(text + k, sizeof text - k, "t%d:\n%s\techo %d > t%d\n", i,
				      decl, i, i);
	struct locus_error err = {0};
	struct locus_graph *g = makeflow(text, &err);
	if (!g)
		fprintf(stderr, "%s:%ld: %s\n", err.file, err.line, err.message);
	return g;
}

/* n independent rules (t0, t1, ...), rule i of 2 cores when i % every
 * == which, of 1 otherwise. */
static struct locus_graph *mixed(int n, int every, int which)
{
	char text[4096];
	size_t k = 0;
	for (int i = 0; i < n; i++)
		k += (size_t)snprintf(text + k, sizeof text - k, "t%d:\n%s\techo > t%d\n", i,
				      i % every == which ? "CORES=2\n" : "", i);
	struct locus_error err = {0};
	return makeflow(text, &err);
}

TEST(makeflow_declarations)
{
	/* Top-level values belong to the category then current; a rule's
	 * own win; the default category's stand for the others'. */
	const char *text = ".MAKEFLOW CORES 2\n"
			   ".MAKEFLOW CATEGORY big\n"
			   ".MAKEFLOW CORES 4\n"
			   ".MAKEFLOW MEMORY 1024\n"
			   ".MAKEFLOW DISK 2G\n"
			   "CATEGORY=small\n"
			   "MEMORY=512\n"
			   "a:\n"
			   "\techo a > a\n"
			   "b:\n"
			   "CATEGORY=big\n"
			   "\techo b > b\n"
			   "c:\n"
			   "CORES=3\n"
			   "CATEGORY=none\n"
			   "\techo c > c\n";
	struct locus_error err = {0};
	struct locus_graph *g = makeflow(text, &err);
	CHECK(g != NULL);
	struct locus_demand a = locus_graph_demand(g, 0), b = locus_graph_demand(g, 1),
			    c = locus_graph_demand(g, 2);
	CHECK_EQ_INT(a.cores, 2);
	CHECK(a.memory == 512ull << 20 && a.disk == 0);
	CHECK_EQ_INT(b.cores, 4);
	CHECK(b.memory == 1024ull << 20 && b.disk == 2ull << 30);
	CHECK_EQ_INT(c.cores, 3);
	CHECK(c.memory == 0 && c.disk == 0);
	CHECK(g->task_line && g->task_line[0] == 8 && g->task_line[1] == 10 &&
	      g->task_line[2] == 13);
	locus_graph_destroy(g);
	/* Nothing declared: no demands at all. */
	g = rules(2, "", "");
	CHECK(g && g->demand == NULL);
	locus_graph_destroy(g);
	/* Bad values, with their line and column. */
	static const struct {
		const char *text;
		long line, col;
		const char *msg;
	} bad[] = {
	    {".MAKEFLOW CORES 0\n", 1, 17, "expected CORES a whole number of cores from 1"},
	    {".MAKEFLOW CORES 1.5\n", 1, 17, "expected CORES a whole number of cores"},
	    {"x=1\nMEMORY=lots\n", 2, 8, "expected MEMORY in megabytes"},
	    {"MEMORY=12Q\n", 1, 8, "expected MEMORY in megabytes"},
	    {".MAKEFLOW DISK 3X\n", 1, 16, "expected DISK in megabytes"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err = (struct locus_error){0};
		CHECK(makeflow(bad[i].text, &err) == NULL);
		if (!strstr(err.message, bad[i].msg) || err.line != bad[i].line ||
		    err.column != bad[i].col)
			fprintf(stderr, "case %zu: %ld:%ld: %s\n", i, err.line, err.column,
				err.message);
		CHECK(strstr(err.message, bad[i].msg) != NULL);
		CHECK_EQ_INT(err.line, bad[i].line);
		CHECK_EQ_INT(err.column, bad[i].col);
	}
}

TEST(wfcommons_declarations)
{
	const char *json =
	    "{\"name\": \"w\", \"schemaVersion\": \"1.5\", \"workflow\": {\"specification\": "
	    "{\"tasks\": [{\"id\": \"a\", \"name\": \"a\", \"parents\": [], \"children\": [], "
	    "\"inputFiles\": [], \"outputFiles\": []}, {\"id\": \"b\", \"name\": \"b\", "
	    "\"parents\": [], \"children\": [], \"inputFiles\": [], \"outputFiles\": []}], "
	    "\"files\": []}, \"execution\": {\"tasks\": [{\"id\": \"a\", \"runtimeInSeconds\": 1, "
	    "\"coreCount\": 2, \"memoryInBytes\": 1000}, {\"id\": \"b\", \"runtimeInSeconds\": "
	    "1}]}}}";
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_dag_read_wfcommons(&g, json, strlen(json), "w.json", &err), 0);
	struct locus_demand a = locus_graph_demand(g, 0), b = locus_graph_demand(g, 1);
	CHECK(a.cores == 2 && a.memory == 1000 && a.disk == 0);
	CHECK(b.cores == 1 && b.memory == 0);
	locus_graph_destroy(g);
	const char *zero = "{\"workflow\": {\"tasks\": [{\"name\": \"a\", \"cores\": 0}]}}";
	CHECK(locus_dag_read_wfcommons(&g, zero, strlen(zero), "z.json", &err) != 0);
	CHECK(strstr(err.message, "workflow.tasks[0].cores: expected a number of cores") != NULL);
}

TEST(workflow_default_demand)
{
	/* The workflow's default (locus flow --task-cores, --task-memory,
	 * --task-disk) is what a task takes of each resource the workflow
	 * does not state for it: a Makeflow's rule, category and default
	 * category each win over it, resource by resource. */
	const char *text = "a:\n\techo > a\n"
			   "b:\nCORES=1\n\techo > b\n"
			   "CATEGORY=big\nMEMORY=8\n"
			   "c:\n\techo > c\n";
	struct locus_makeflow_options opt = {.runtime = 1, .task_default = {2, 1 << 20, 3 << 20}};
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_flow_read_makeflow(&g, text, strlen(text), "d.mf", &opt, &err), 0);
	struct locus_demand a = locus_graph_demand(g, 0), b = locus_graph_demand(g, 1),
			    c = locus_graph_demand(g, 2);
	CHECK(a.cores == 2 && a.memory == 1 << 20 && a.disk == 3 << 20);
	CHECK(b.cores == 1 && b.memory == 1 << 20 && b.disk == 3 << 20);
	CHECK(c.cores == 2 && c.memory == 8 << 20 && c.disk == 3 << 20);
	locus_graph_destroy(g);
	/* The built-in default given explicitly: no demands, as before. */
	opt.task_default = (struct locus_demand){1, 0, 0};
	CHECK_EQ_INT(locus_flow_read_makeflow(&g, "a:\n\techo > a\n", 11, "d.mf", &opt, &err), 0);
	CHECK(g && g->demand == NULL);
	locus_graph_destroy(g);

	/* WfCommons through locus_flow_load: coreCount and memoryInBytes
	 * each win alone; disk always from the default. */
	char path[4096];
	snprintf(path, sizeof path, "%s/d.json", test_tmpdir());
	CHECK_EQ_INT(test_write(path, "{\"workflow\": {\"tasks\": [{\"name\": \"a\"}, "
				      "{\"name\": \"b\", \"coreCount\": 1}, {\"name\": \"c\", "
				      "\"memoryInBytes\": 5}]}}"),
		     0);
	struct locus_flow_load_options lo = {.runtime = 1, .task_default = {2, 1000, 7}};
	CHECK_EQ_INT(locus_flow_load(&g, path, &lo, &err), 0);
	a = locus_graph_demand(g, 0), b = locus_graph_demand(g, 1), c = locus_graph_demand(g, 2);
	CHECK(a.cores == 2 && a.memory == 1000 && a.disk == 7);
	CHECK(b.cores == 1 && b.memory == 1000 && b.disk == 7);
	CHECK(c.cores == 2 && c.memory == 5 && c.disk == 7);
	locus_graph_destroy(g);
	/* A generated workflow states nothing: every task takes it. */
	lo.task_default = (struct locus_demand){0, 4096, 0}; /* cores 0: 1 */
	CHECK_EQ_INT(locus_flow_load(&g, "gen:montage:2", &lo, &err), 0);
	CHECK(g && g->demand != NULL);
	for (uint32_t t = 0; g && t < g->n_tasks; t++) {
		struct locus_demand d = locus_graph_demand(g, t);
		CHECK(d.cores == 1 && d.memory == 4096 && d.disk == 0);
	}
	locus_graph_destroy(g);
	/* Without one, nothing changes. */
	lo.task_default = (struct locus_demand){0, 0, 0};
	CHECK_EQ_INT(locus_flow_load(&g, "gen:montage:2", &lo, &err), 0);
	CHECK(g && g->demand == NULL);
	locus_graph_destroy(g);
}

TEST(a_task_no_node_holds_is_refused)
{
	struct locus_graph *g = rules(2, "", "CORES=4\n");
	struct locus_platform *p = test_flow_cluster(2, 2, 1);
	struct locus_workload *wl = NULL;
	struct locus_error err = {0};
	CHECK(g && p);
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), LOCUS_EINVAL);
	CHECK_EQ_STR(err.file, "res.mf");
	CHECK_EQ_INT(err.line, 1);
	CHECK(strstr(err.message, "task t0 needs 4 cores") != NULL);
	locus_graph_destroy(g);
	/* Memory: nodes of 1 GiB, a task of 2 GiB (its rule on line 3). */
	g = rules(2, "", "");
	locus_graph_destroy(g);
	g = makeflow("a:\n\techo > a\nb:\nMEMORY=2048\n\techo > b\n", &err);
	CHECK(g);
	for (size_t n = 0; n < p->n_nodes; n++)
		p->nodes[n].memory = 1024.0 * 1024 * 1024;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), LOCUS_EINVAL);
	CHECK_EQ_INT(err.line, 3);
	CHECK(strstr(err.message, "task b needs 1 core, 2147483648 bytes of memory") != NULL);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

/* The run of g on `nodes` nodes of 2 cores (and `memory` bytes each, 0:
 * no limit) under `policy`: the cores its tasks hold at once on a node
 * never exceed 2, nor their memory the node's; returns the makespan, or
 * -1. */
static double run_policy(const struct locus_graph *g, int nodes, double memory,
			 const struct locus_policy *pol)
{
	const char *policy = pol->name;
	struct locus_platform *p = test_flow_cluster(nodes, 2, 1);
	struct locus_workload *wl = NULL;
	struct locus_result *r = NULL;
	struct locus_error err = {0};
	double makespan = -1;
	for (size_t n = 0; p && n < (size_t)nodes; n++)
		p->nodes[n].memory = memory;
	if (!p || locus_workload_from_graph(&wl, p, g, NULL, &err))
		goto out;
	struct locus_sim_config cfg = {
	    .wl = wl, .policy = pol, .seed = 1, .latency = -1, .shared_fs_bw = 1.25e9};
	if (locus_sim_run(&r, &cfg, &err)) {
		fprintf(stderr, "%s: %s\n", policy, err.message);
		goto out;
	}
	makespan = r->makespan;
	/* At each task's start, what the tasks running on its node hold. */
	for (size_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task_result *a = &r->tasks[t];
		double cores = 0, mem = 0;
		for (size_t u = 0; u < g->n_tasks; u++) {
			const struct locus_task_result *b = &r->tasks[u];
			if (b->node == a->node && b->read_end <= a->read_end &&
			    b->end > a->read_end) {
				cores += locus_graph_demand(g, (uint32_t)u).cores;
				mem += (double)locus_graph_demand(g, (uint32_t)u).memory;
			}
		}
		if (cores > 2 || (memory > 0 && mem > memory)) {
			fprintf(stderr, "%s: at %g node %u holds %g cores, %g bytes\n", policy,
				a->read_end, a->node, cores, mem);
			makespan = -1;
		}
	}
out:
	locus_result_destroy(r);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	return makespan;
}

static double run_within(const struct locus_graph *g, int nodes, double memory, const char *policy)
{
	return run_policy(g, nodes, memory, locus_policy_find(policy));
}

static const char *const policies[] = {"amfs", "dask", "taskvine", "heft"};

TEST(two_cores_on_nodes_of_two)
{
	/* 8 tasks of 1 s and 2 cores on 2 nodes of 2: one at a time a node,
	 * 4 s; ignoring the cores they would end in 2. */
	struct locus_graph *g = rules(8, ".MAKEFLOW CORES 2\n", "");
	CHECK(g);
	for (size_t i = 0; i < sizeof policies / sizeof *policies; i++) {
		double m = run_within(g, 2, 0, policies[i]);
		if (!(m >= 4 && m < 4.1))
			fprintf(stderr, "%s: makespan %g\n", policies[i], m);
		CHECK(m >= 4 && m < 4.1);
	}
	/* A policy of version 5, which knows nothing of demands: the same. */
	struct locus_policy old = *locus_policy_find("dask");
	old.version = 5;
	double m = run_policy(g, 2, 0, &old);
	CHECK(m >= 4 && m < 4.1);
	locus_graph_destroy(g);
}

TEST(memory_on_nodes)
{
	/* Tasks of 600 MiB on nodes of 1 GiB: one at a time a node. */
	struct locus_graph *g = rules(8, ".MAKEFLOW MEMORY 600\n", "");
	CHECK(g);
	for (size_t i = 0; i < sizeof policies / sizeof *policies; i++) {
		double m = run_within(g, 2, 1024.0 * 1024 * 1024, policies[i]);
		CHECK(m >= 4 && m < 4.1);
	}
	/* Without a node memory nothing waits: 2 s. */
	double m = run_within(g, 2, 0, "amfs");
	CHECK(m >= 2 && m < 2.1);
	locus_graph_destroy(g);
}

TEST(a_mix_never_exceeds_a_node)
{
	/* One- and two-core tasks on one node of 2 cores: every task runs,
	 * never more than 2 cores at once; the 2-core tasks are not passed
	 * over for ever (all 12 of 1 s end within the serial 9 s). */
	struct locus_graph *g = mixed(12, 4, 1);
	CHECK(g);
	for (size_t i = 0; i < sizeof policies / sizeof *policies; i++) {
		double m = run_within(g, 1, 0, policies[i]);
		CHECK(m > 0 && m <= 9.1);
	}
	locus_graph_destroy(g);
}

TEST(default_demands_change_nothing)
{
	/* Tasks that declare the default (CORES 1): the same run, to the
	 * bit, as tasks that declare nothing. */
	struct locus_graph *a = rules(6, "", ""), *b = rules(6, ".MAKEFLOW CORES 1\n", "");
	CHECK(a && b && a->demand == NULL && b->demand != NULL);
	for (size_t i = 0; i < sizeof policies / sizeof *policies; i++)
		CHECK(run_within(a, 2, 0, policies[i]) == run_within(b, 2, 0, policies[i]));
	locus_graph_destroy(a);
	locus_graph_destroy(b);
}

/* Runs g under `spec` ("NAME" or "NAME:OPTIONS") on two nodes, of 2
 * cores and of 1 (n00 and n01), its stored inputs where catalog `cat`
 * (may be NULL) says: every task ends, each on a node that can hold it
 * (locus_workload_fits). *makespan: the run's, or -1 when it failed. */
static void run_with_catalog(const struct locus_graph *g, const struct locus_catalog *cat,
			     const char *spec, double *makespan)
{
	char name[64];
	snprintf(name, sizeof name, "%s", spec);
	char *opts = strchr(name, ':');
	if (opts)
		*opts++ = 0;
	*makespan = -1;
	struct locus_error err = {0};
	struct locus_platform *p = test_flow_cluster(2, 2, 1);
	struct locus_workload *wl = NULL;
	struct locus_result *r = NULL;
	CHECK(p && p->nodes[1].cores == 2);
	p->nodes[1].cores = 1;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, cat, &err), 0);
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = locus_policy_find(name),
				       .policy_opts = opts,
				       .seed = 1,
				       .latency = -1,
				       .shared_fs_bw = 1.25e9};
	int rc = locus_sim_run(&r, &cfg, &err);
	if (rc)
		fprintf(stderr, "%s: %s\n", spec, err.message);
	CHECK_EQ_INT(rc, 0);
	for (size_t t = 0; t < g->n_tasks; t++) {
		CHECK(r->tasks[t].end > 0);
		CHECK(locus_workload_fits(wl, (uint32_t)t, r->tasks[t].node));
	}
	*makespan = r->makespan;
	locus_result_destroy(r);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
}

/* run_with_catalog under each of n specs: every makespan in [lo, hi). */
static void run_each(const struct locus_graph *g, const struct locus_catalog *cat,
		     const char *const *specs, size_t n, double lo, double hi)
{
	for (size_t i = 0; g && i < n; i++) {
		double m;
		run_with_catalog(g, cat, specs[i], &m);
		if (!(m >= lo && m < hi))
			fprintf(stderr, "%s: makespan %g\n", specs[i], m);
		CHECK(m >= lo && m < hi);
	}
}

TEST(policies_place_only_where_a_task_fits)
{
	/* Nodes of 2 cores and 1 core (the second): tasks of 2 cores and of
	 * 1 among them. Every policy that places (the HEFT family's and DLS's
	 * plans, GTP's rescheduling points, dask, taskvine, amfs's
	 * dispatchers and thieves, the master of fifo, monolithic and delay)
	 * puts each only on a node that can hold it (locus_workload_fits),
	 * so the run completes; placed anywhere, a 2-core task on the 1-core
	 * node would fail it (in id order the third task, of 2 cores, goes
	 * to the third worker, the small node's, when nothing stops it). */
	struct locus_graph *g = mixed(8, 2, 0);
	CHECK(g);
	/* amfs's configurations by their options (after the name); delay
	 * with a short delay (by default it waits seconds for a local task,
	 * which none of these has). */
	static const char *const placing[] = {"heft",
					      "dls",
					      "gtp",
					      "gtp-c",
					      "gtp-c-r",
					      "dls-sr",
					      "fifo",
					      "monolithic",
					      "delay:delay=0.01",
					      "dlmpi",
					      "scal",
					      "cpop",
					      "peft",
					      "dask",
					      "taskvine",
					      "amfs",
					      "amfs:config=staging",
					      "amfs:config=cache",
					      "amfs:config=cogather",
					      "amfs:config=asgather",
					      "amfs:config=shared",
					      "amfs:config=auto,steal=3"};
	/* The 1-core tasks still use the small node: 4 s alone on the big
	 * one, less with it (the 2-core tasks take 4 s there). */
	run_each(g, NULL, placing, sizeof placing / sizeof *placing, 4, 6.1);
	locus_graph_destroy(g);
}

/* amfs's collectives place a task where its inputs are brought: a
 * gather's root, a replicated group's holder. Eight 1-core tasks write
 * files on both nodes (of 2 cores and of 1), then one task of 2 cores
 * reads them all (a gather) and two of 2 cores read each of the first
 * two (multicast readers, replicated under replicate=file): each
 * collective's place is a node that can hold its task. */
TEST(amfs_collectives_place_where_a_task_fits)
{
	char text[4096];
	size_t k = 0;
	for (int i = 0; i < 8; i++)
		k +=
		    (size_t)snprintf(text + k, sizeof text - k, "f%d:\n\techo %d > f%d\n", i, i, i);
	k += (size_t)snprintf(
	    text + k, sizeof text - k,
	    "g: f0 f1 f2 f3 f4 f5 f6 f7\nCORES=2\n\tcat f0 f1 f2 f3 f4 f5 f6 f7 > g\n");
	for (int i = 0; i < 4; i++)
		k += (size_t)snprintf(text + k, sizeof text - k,
				      "r%d: f%d\nCORES=2\n\tcat f%d > r%d\n", i, i / 2, i / 2, i);
	struct locus_error err = {0};
	struct locus_graph *g = makeflow(text, &err);
	CHECK(g);
	/* (gather=8 and multicast=2 make g a gather and f0, f1 multicast
	 * groups: the defaults, 16 and 8, would not.) */
	static const char *const configs[] = {
	    "amfs:config=cogather,gather=8,multicast=2",
	    "amfs:config=asgather,gather=8,multicast=2",
	    "amfs:config=aware,gather=8,multicast=2",
	    "amfs:config=auto,gather=8,multicast=2",
	    "amfs:config=cache,replicate=file,gather=8,multicast=2",
	    "amfs:config=cogather,gather=8,multicast=2,reduce=cat"};
	run_each(g, NULL, configs, sizeof configs / sizeof *configs, 0, INFINITY);
	locus_graph_destroy(g);
}

/* The chunk policies' local tasks: tasks of 2 and 1 cores each read a
 * stored chunk that both nodes hold, so each is local to the node of 1
 * core too. scal's workers there ask only for those their node can hold
 * (the others go by remote requests to the node of 2); dlmpi's draw of a
 * local task the node cannot hold gives way to the first that it can. */
TEST(chunk_policies_leave_local_tasks_a_node_cannot_hold)
{
	struct locus_error err = {0};
	struct locus_graph *g = NULL;
	struct locus_catalog *cat = NULL;
	CHECK_EQ_INT(locus_graph_create(&g, "chunks", &err), 0);
	CHECK_EQ_INT(locus_catalog_create(&cat), 0);
	if (!g || !cat)
		goto out;
	uint32_t both[2] = {(uint32_t)locus_catalog_add_host(cat, "n00", NULL),
			    (uint32_t)locus_catalog_add_host(cat, "n01", NULL)};
	long ds = locus_catalog_add_dataset(cat, "in");
	CHECK(ds >= 0);
	const struct locus_demand two = {.cores = 2};
	for (uint32_t i = 0; i < 8; i++) {
		long t = locus_graph_add_task(g, NULL, 1.0);
		long o = locus_graph_add_object(g, NULL, 1000000);
		long c = locus_catalog_add_chunk(cat, (size_t)ds, 1000000, both, 2, 0);
		CHECK(t == i && o == i && c == i);
		CHECK_EQ_INT(locus_graph_set_chunk(g, i, (uint32_t)ds, i), 0);
		CHECK_EQ_INT(locus_graph_add_input(g, i, i), 0);
		if (i % 2 == 0)
			CHECK_EQ_INT(locus_graph_set_demand(g, i, &two), 0);
	}
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	static const char *const chunky[] = {"scal", "dlmpi", "fifo", "delay:delay=0.01"};
	run_each(g, cat, chunky, sizeof chunky / sizeof *chunky, 4, INFINITY);
out:
	locus_catalog_destroy(cat);
	locus_graph_destroy(g);
}

/* A policy that assigns every task to the last worker, at once. */
static size_t last_schedulers(size_t n_workers, size_t requested)
{
	(void)n_workers;
	(void)requested;
	return 1;
}

static int last_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	(void)err;
	*state = (void *)ctx->wl;
	return 0;
}

static void last_destroy(void *state)
{
	(void)state;
}

static void last_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	const struct locus_workload *wl = state;
	if (ev->kind != LOCUS_EV_START || ev->proc != wl->n_workers)
		return;
	for (uint32_t t = 0; t < wl->n_tasks; t++)
		locus_act_assign(act, (uint32_t)wl->n_workers, (uint32_t)wl->n_workers - 1, t, -1);
}

static const struct locus_policy last_policy = {.version = 5,
						.name = "last",
						.summary = "test",
						.schedulers = last_schedulers,
						.create = last_create,
						.destroy = last_destroy,
						.on_event = last_event,
						.flags = LOCUS_POLICY_GRAPHS};

/* A policy of version 7: `last`'s assignments, and at each event the
 * monitor's room of every node, kept in `seen`. */
static struct {
	const struct locus_monitor *mon;
	int calls, notsup, start_ok;
	uint32_t min_cores, max_cores;
	uint64_t memory;
} seen;

static int roomy_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	seen.mon = ctx->monitor;
	return last_create(state, ctx, err);
}

static void roomy_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	const struct locus_workload *wl = state;
	for (uint32_t n = 0; seen.mon && seen.mon->room && n < wl->platform->n_nodes; n++) {
		struct locus_demand free;
		if (seen.mon->room(seen.mon, n, &free)) {
			seen.notsup++;
			continue;
		}
		seen.calls++;
		if (!wl->platform->nodes[n].cores)
			continue;
		seen.min_cores = free.cores < seen.min_cores ? free.cores : seen.min_cores;
		seen.max_cores = free.cores > seen.max_cores ? free.cores : seen.max_cores;
		seen.memory = free.memory;
		if (ev->kind == LOCUS_EV_START && ev->proc == wl->n_workers)
			seen.start_ok += free.cores == (uint32_t)wl->platform->nodes[n].cores;
	}
	last_event(state, ev, act);
}

static const struct locus_policy roomy_policy = {.version = 7,
						 .name = "roomy",
						 .summary = "test",
						 .schedulers = last_schedulers,
						 .create = roomy_create,
						 .destroy = last_destroy,
						 .on_event = roomy_event,
						 .flags = LOCUS_POLICY_GRAPHS};

TEST(the_monitor_tells_a_nodes_room)
{
	/* Version 7's monitor call: 2-core tasks all on the last worker of
	 * 2 nodes of 2 cores. Every node has its 2 cores free at the start;
	 * while the tasks run, the last node's room goes down to 0 and never
	 * past what it has; memory without a limit reads UINT64_MAX. A
	 * workflow without declarations keeps no count: LOCUS_ENOTSUP. */
	for (int declared = 1; declared >= 0; declared--) {
		struct locus_graph *g = rules(4, declared ? ".MAKEFLOW CORES 2\n" : "", "");
		struct locus_platform *p = test_flow_cluster(2, 2, 1);
		struct locus_workload *wl = NULL;
		struct locus_result *r = NULL;
		struct locus_error err = {0};
		CHECK(g && p);
		CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
		memset(&seen, 0, sizeof seen);
		seen.min_cores = UINT32_MAX;
		struct locus_sim_config cfg = {
		    .wl = wl, .policy = &roomy_policy, .seed = 1, .latency = -1};
		CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), 0);
		if (declared) {
			CHECK(seen.calls > 0 && seen.notsup == 0);
			CHECK_EQ_INT(seen.start_ok, 2);
			CHECK_EQ_INT(seen.min_cores, 0);
			CHECK_EQ_INT(seen.max_cores, 2);
			CHECK(seen.memory == UINT64_MAX);
		} else {
			CHECK(seen.calls == 0 && seen.notsup > 0);
		}
		locus_result_destroy(r);
		locus_workload_destroy(wl);
		locus_platform_destroy(p);
		locus_graph_destroy(g);
	}
}

TEST(a_task_placed_where_it_never_fits_fails_the_run)
{
	/* Nodes of 4 and 2 cores: a 4-core task fits the first; placed on
	 * the second's worker, the run fails saying so (it would wait for
	 * ever). */
	const char *json = "{\"format\": \"locus-platform\", \"version\": 1, \"nodes\": "
			   "[{\"name\": \"big\", \"cores\": 4}, {\"name\": \"small\", "
			   "\"cores\": 2}, {\"name\": \"d\", \"cores\": 0}]}";
	struct locus_platform *p = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_platform_parse(&p, json, strlen(json), "p", &err), 0);
	struct locus_graph *g = rules(2, "", "CORES=4\n");
	struct locus_workload *wl = NULL;
	struct locus_result *r = NULL;
	CHECK(g);
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	CHECK(locus_workload_fits(wl, 0, 0) && !locus_workload_fits(wl, 0, 1));
	struct locus_sim_config cfg = {.wl = wl, .policy = &last_policy, .seed = 1, .latency = -1};
	CHECK(locus_sim_run(&r, &cfg, &err) != 0);
	CHECK(strstr(err.message, "policy last assigned task t0 (4 cores, 0 bytes of memory, 0 "
				  "of disk) to worker 5, whose node small cannot hold it") != NULL);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

TEST_MAIN(TEST_ENTRY(a_task_placed_where_it_never_fits_fails_the_run),
	  TEST_ENTRY(amfs_collectives_place_where_a_task_fits),
	  TEST_ENTRY(chunk_policies_leave_local_tasks_a_node_cannot_hold),
	  TEST_ENTRY(makeflow_declarations), TEST_ENTRY(wfcommons_declarations),
	  TEST_ENTRY(workflow_default_demand), TEST_ENTRY(a_task_no_node_holds_is_refused),
	  TEST_ENTRY(two_cores_on_nodes_of_two), TEST_ENTRY(memory_on_nodes),
	  TEST_ENTRY(a_mix_never_exceeds_a_node), TEST_ENTRY(default_demands_change_nothing),
	  TEST_ENTRY(policies_place_only_where_a_task_fits),
	  TEST_ENTRY(the_monitor_tells_a_nodes_room))
