/*
 * The WfCommons reader (locus_dag_read_wfcommons): the four shipped
 * WfInstances (tests/fixtures/wfcommons, WfFormat 1.5) against counts made
 * here from the same JSON with jansson; each run in the simulator under
 * HEFT, CPOP, DLS and PEFT on 4 and 16 nodes (every task once, in
 * dependency order, never below the bounds), with a node failing mid-run
 * and with a node failing once it holds nothing needed; the same small
 * workflow in the 1.4, 1.5 and 1.6 shapes giving the same graph; and the
 * errors, each naming the JSON path (or the line and column) at fault.
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

static const char *const instances[] = {
    "blast-chameleon-small-001.json",
    "epigenomics-chameleon-hep-1seq-100k-001.json",
    "montage-chameleon-2mass-005d-001.json",
    "seismology-chameleon-100p-001.json",
};
#define N_INSTANCES (sizeof instances / sizeof instances[0])

static const char *const policies[] = {"heft", "cpop", "dls", "peft"};

static char *instance_text(size_t k, size_t *len)
{
	char path[512];
	snprintf(path, sizeof path, "%s", test_fixture("wfcommons"));
	size_t dl = strlen(path);
	snprintf(path + dl, sizeof path - dl, "/%s", instances[k]);
	char *text = test_slurp(path, len);
	if (!text)
		fprintf(stderr, "cannot read %s\n", path);
	return text;
}

static struct locus_graph *read_instance(size_t k)
{
	size_t len;
	char *text = instance_text(k, &len);
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	if (text && locus_dag_read_wfcommons(&g, text, len, instances[k], &err)) {
		char buf[800];
		fprintf(stderr, "%s\n", locus_error_format(&err, buf, sizeof buf));
	}
	free(text);
	return g;
}

/* ---- what the JSON says, counted plainly ---------------------------------------- */

/* Index of string s in list[0..n), or -1 (linear: the instances are small). */
static long find_str(const char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return (long)i;
	return -1;
}

struct pair {
	long p, c;
};

static int has_pair(const struct pair *list, size_t n, long p, long c)
{
	for (size_t i = 0; i < n; i++)
		if (list[i].p == p && list[i].c == c)
			return 1;
	return 0;
}

struct expect {
	size_t tasks, files, edges, zero_edges, stored;
	double work;
	uint64_t stored_bytes;
	/* The parent relations, by task index (as listed). */
	struct pair *parent;
	size_t n_parent;
	const char **ids;
	/* Each task's program (its execution entry's command) and how many
	 * arguments it has. */
	const char **program;
	size_t *n_args;
};

static void expect_fini(struct expect *x)
{
	for (size_t i = 0; x->ids && i < x->tasks; i++)
		free((void *)x->ids[i]);
	for (size_t i = 0; x->program && i < x->tasks; i++)
		free((void *)x->program[i]);
	free(x->parent);
	free((void *)x->ids);
	free((void *)x->program);
	free(x->n_args);
}

static int add_pair(struct pair **list, size_t *n, long p, long c)
{
	if (has_pair(*list, *n, p, c))
		return 0;
	struct pair *nl = realloc(*list, (*n + 1) * sizeof **list);
	if (!nl)
		return -1;
	*list = nl;
	nl[(*n)++] = (struct pair){p, c};
	return 0;
}

/* Counts, from the JSON of a 1.5 instance: tasks, referenced files,
 * distinct task pairs linked by a file or a parent relation, work, the
 * files nobody writes and their bytes. */
static int count_instance(const char *text, size_t len, struct expect *x)
{
	memset(x, 0, sizeof *x);
	json_error_t je;
	json_t *root = json_loadb(text, len, 0, &je);
	if (!root)
		return -1;
	json_t *spec = json_object_get(json_object_get(root, "workflow"), "specification");
	json_t *exec = json_object_get(json_object_get(root, "workflow"), "execution");
	json_t *tasks = json_object_get(spec, "tasks"), *files = json_object_get(spec, "files");
	size_t n = json_array_size(tasks);
	x->tasks = n;
	x->ids = calloc(n, sizeof *x->ids);
	const char **fid = calloc(json_array_size(files) + 1, sizeof *fid);
	long *producer = calloc(json_array_size(files) + 1, sizeof *producer);
	int *used = calloc(json_array_size(files) + 1, sizeof *used);
	struct pair *linked = NULL;
	size_t n_linked = 0;
	for (size_t i = 0; i < n; i++)
		x->ids[i] = json_string_value(json_object_get(json_array_get(tasks, i), "id"));
	for (size_t f = 0; f < json_array_size(files); f++) {
		fid[f] = json_string_value(json_object_get(json_array_get(files, f), "id"));
		producer[f] = -1;
	}
	size_t nf = json_array_size(files);
	for (size_t i = 0; i < n; i++) {
		json_t *outs = json_object_get(json_array_get(tasks, i), "outputFiles");
		for (size_t k = 0; k < json_array_size(outs); k++) {
			long f = find_str(fid, nf, json_string_value(json_array_get(outs, k)));
			producer[f] = (long)i;
			used[f] = 1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		json_t *t = json_array_get(tasks, i);
		json_t *ins = json_object_get(t, "inputFiles");
		for (size_t k = 0; k < json_array_size(ins); k++) {
			long f = find_str(fid, nf, json_string_value(json_array_get(ins, k)));
			used[f] = 1;
			if (producer[f] >= 0 && producer[f] != (long)i)
				add_pair(&linked, &n_linked, producer[f], (long)i);
		}
		json_t *par = json_object_get(t, "parents"), *ch = json_object_get(t, "children");
		for (size_t k = 0; k < json_array_size(par); k++)
			add_pair(&x->parent, &x->n_parent,
				 find_str(x->ids, n, json_string_value(json_array_get(par, k))),
				 (long)i);
		for (size_t k = 0; k < json_array_size(ch); k++)
			add_pair(&x->parent, &x->n_parent, (long)i,
				 find_str(x->ids, n, json_string_value(json_array_get(ch, k))));
	}
	x->edges = n_linked;
	for (size_t k = 0; k < x->n_parent; k++)
		if (!has_pair(linked, n_linked, x->parent[k].p, x->parent[k].c)) {
			x->edges++;
			x->zero_edges++;
		}
	for (size_t f = 0; f < nf; f++) {
		x->files += (size_t)used[f];
		if (used[f] && producer[f] < 0) {
			x->stored++;
			x->stored_bytes += (uint64_t)json_integer_value(
			    json_object_get(json_array_get(files, f), "sizeInBytes"));
		}
	}
	json_t *et = json_object_get(exec, "tasks");
	x->program = calloc(n, sizeof *x->program);
	x->n_args = calloc(n, sizeof *x->n_args);
	for (size_t i = 0; i < json_array_size(et); i++) {
		json_t *e = json_array_get(et, i), *cmd = json_object_get(e, "command");
		x->work += json_number_value(json_object_get(e, "runtimeInSeconds"));
		long t = find_str(x->ids, n, json_string_value(json_object_get(e, "id")));
		if (t >= 0 && cmd) {
			x->program[t] = strdup(json_string_value(json_object_get(cmd, "program")));
			x->n_args[t] = json_array_size(json_object_get(cmd, "arguments"));
		}
	}
	free(linked);
	free(fid);
	free(producer);
	free(used);
	/* The ids point into root: keep it alive with a copy of each. */
	for (size_t i = 0; i < n; i++)
		x->ids[i] = x->ids[i] ? strdup(x->ids[i]) : NULL;
	json_decref(root);
	return 0;
}

static int has_edge(const struct locus_graph *g, uint32_t p, uint32_t c)
{
	for (uint32_t e = g->pred_at[c]; e < g->pred_at[c + 1]; e++)
		if (g->preds[e].task == p)
			return 1;
	return 0;
}

TEST(shipped_instances_read)
{
	for (size_t k = 0; k < N_INSTANCES; k++) {
		size_t len;
		char *text = instance_text(k, &len);
		CHECK(text != NULL);
		struct expect x;
		CHECK_EQ_INT(count_instance(text, len, &x), 0);
		free(text);
		struct locus_graph *g = read_instance(k);
		CHECK(g != NULL);
		CHECK_EQ_INT(g->n_tasks, x.tasks);
		CHECK_EQ_INT(g->n_edges, x.edges);
		CHECK_EQ_INT(g->n_objects, x.files + x.zero_edges);
		CHECK(g->data_bw == 0);
		CHECK_EQ_STR(g->name, instances[k]);
		double work = 0;
		for (size_t t = 0; t < g->n_tasks; t++) {
			work += g->tasks[t].work;
			CHECK_EQ_STR(g->tasks[t].name, x.ids[t]);
		}
		CHECK_NEAR(work, x.work, 1e-9 * x.work);
		size_t stored = 0, named = 0;
		uint64_t stored_bytes = 0;
		for (size_t o = 0; o < g->n_objects; o++) {
			named += g->objects[o].name != NULL;
			if (g->objects[o].producer == LOCUS_NONE) {
				stored++;
				stored_bytes += g->objects[o].bytes;
			}
		}
		CHECK_EQ_INT(named, x.files);
		CHECK_EQ_INT(stored, x.stored);
		/* Each task's stage is its program, and it runs the program
		 * with its arguments. */
		CHECK(g->task_stage && g->commands);
		for (size_t t = 0; t < g->n_tasks && g->task_stage && g->commands; t++) {
			CHECK(x.program[t] != NULL);
			CHECK(g->task_stage[t] < g->n_stages);
			CHECK_EQ_STR(g->stage_names[g->task_stage[t]], x.program[t]);
			CHECK_EQ_INT(g->commands[t].argc, 1 + x.n_args[t]);
			CHECK_EQ_STR(g->commands[t].argv[0], x.program[t]);
			CHECK(g->commands[t].line == NULL);
		}
		CHECK_EQ_INT(stored_bytes, x.stored_bytes);
		for (size_t i = 0; i < x.n_parent; i++) {
			CHECK(x.parent[i].p >= 0 && x.parent[i].c >= 0);
			CHECK(has_edge(g, (uint32_t)x.parent[i].p, (uint32_t)x.parent[i].c));
		}
		fprintf(stderr,
			"%s: %zu tasks, %zu edges (%zu without a file), %zu files (%zu stored, "
			"%llu bytes), work %.6g s, %zu levels\n",
			instances[k], g->n_tasks, g->n_edges, x.zero_edges, x.files, x.stored,
			(unsigned long long)x.stored_bytes, x.work, g->n_levels);
		expect_fini(&x);
		locus_graph_destroy(g);
	}
}

/* ---- in the simulator ------------------------------------------------------------ */

static struct locus_result *simulate(const struct locus_workload *wl, const char *policy,
				     const struct locus_change *ch, size_t n_ch)
{
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = locus_policy_find(policy),
				       .seed = 1,
				       .latency = -1,
				       .changes = ch,
				       .n_changes = n_ch};
	struct locus_result *r = NULL;
	struct locus_error err = {0};
	if (!cfg.policy || locus_sim_run(&r, &cfg, &err)) {
		fprintf(stderr, "%s: %s\n", policy, err.message);
		return NULL;
	}
	return r;
}

/* A complete run: every task done once, each after its predecessors,
 * never below the bounds. */
static void check_complete(const struct locus_workload *wl, const struct locus_result *r)
{
	const struct locus_graph *g = wl->graph;
	struct locus_dag_bounds b;
	CHECK(!r->failed);
	CHECK_EQ_INT(r->tasks_done, g->n_tasks);
	CHECK(r->tasks != NULL);
	double last = 0;
	for (size_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task_result *tr = &r->tasks[t];
		CHECK_EQ_INT(tr->attempts, 1);
		CHECK(tr->end >= tr->start && tr->start >= 0);
		if (tr->end > last)
			last = tr->end;
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
			CHECK(tr->start >= r->tasks[g->preds[e].task].end);
	}
	CHECK(r->makespan >= last);
	CHECK_EQ_INT(locus_dag_bounds(wl, NULL, &b), 0);
	CHECK(b.lower > 0 && b.lower >= b.critical_path && b.lower >= b.work);
	CHECK(r->makespan >= b.lower * (1 - 1e-12));
	CHECK(r->makespan >= r->lb_makespan * (1 - 1e-12));
}

/* The platforms: 4 nodes on the default shared network, 16 nodes linked
 * pairwise at 125 MB/s (contention-free), one core each. Stored inputs
 * are on a shared store (no catalog): read over the reader's interface. */
static struct locus_platform *platform(int k)
{
	struct locus_platform *p = NULL;
	if (locus_platform_generate(&p, k ? 16 : 4, 1, 1, "n"))
		return NULL;
	if (k)
		locus_platform_set_pairs(p, 125e6, 0);
	return p;
}

/* The name of a task the failure message names ("task NAME ..."), or "". */
static const char *named_task(const struct locus_graph *g, const char *msg)
{
	static char name[256];
	const char *s = strstr(msg, "task ");
	name[0] = 0;
	if (!s)
		return name;
	s += 5;
	size_t n = strcspn(s, " ");
	if (n >= sizeof name)
		return name;
	memcpy(name, s, n);
	name[n] = 0;
	return locus_graph_find_task(g, name) >= 0 ? name : "";
}

static size_t n_finished_after_failure, n_failed_runs, n_quiet_failures;

/* Node 1 fails at 30 % of the fault-free makespan (a --fail spec). A
 * static plan does not place lost tasks again (no LOCUS_POLICY_RETRIES):
 * when the node had a task running or queued then, the run ends at once
 * with the result failed, naming the task; else it finishes unless a
 * task still needed an output only that node held (it then ends naming
 * the task and the input). */
static void check_failure(const struct locus_workload *wl, const char *pol,
			  const struct locus_result *r0)
{
	const struct locus_graph *g = wl->graph;
	const struct locus_platform *p = wl->platform;
	double at = 0.3 * r0->makespan;
	char spec[128];
	struct locus_change ch[2];
	struct locus_error err = {0};
	snprintf(spec, sizeof spec, "%s@%.17g", p->nodes[1].name, at);
	CHECK_EQ_INT(locus_change_parse_fail(ch, p, spec, &err), 1);
	CHECK(ch[0].kind == LOCUS_CHANGE_FAIL && ch[0].node == 1 && ch[0].time == at);
	int busy = 0;
	for (size_t t = 0; t < g->n_tasks; t++)
		if (r0->tasks[t].node == 1 && r0->tasks[t].end > at)
			busy = 1;
	struct locus_result *r = simulate(wl, pol, ch, 1);
	CHECK(r != NULL);
	CHECK(r->tasks_done <= g->n_tasks);
	if (busy) {
		char want[128];
		snprintf(want, sizeof want, "was lost when node %s failed at", p->nodes[1].name);
		if (!r->failed || !strstr(r->failure, want))
			fprintf(stderr, "%s: %s\n", pol, r->failed ? r->failure : "finished");
		CHECK(r->failed);
		CHECK(strstr(r->failure, want) != NULL);
		CHECK(strstr(r->failure, "does not place failed tasks again") != NULL);
		CHECK(r->tasks_done < g->n_tasks);
	}
	if (r->failed) {
		n_failed_runs++;
		CHECK(named_task(g, r->failure)[0] != 0);
		CHECK(strstr(r->failure, p->nodes[1].name) != NULL);
	} else {
		n_finished_after_failure++;
		check_complete(wl, r);
	}
	locus_result_destroy(r);
}

/* A node fails once every task it ran is done and every task reading
 * their outputs has started (so holds them): nothing is lost, the run
 * ends as without the failure. */
static void check_quiet_failure(const struct locus_workload *wl, const char *pol,
				const struct locus_result *r0)
{
	const struct locus_graph *g = wl->graph;
	for (uint32_t n = 1; n < wl->platform->n_nodes; n++) {
		double quiet = -1;
		for (size_t t = 0; t < g->n_tasks; t++) {
			if (r0->tasks[t].node != n)
				continue;
			if (r0->tasks[t].end > quiet)
				quiet = r0->tasks[t].end;
			for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++)
				if (r0->tasks[g->succs[e].task].start > quiet)
					quiet = r0->tasks[g->succs[e].task].start;
		}
		if (quiet < 0 || quiet >= 0.9 * r0->makespan)
			continue;
		struct locus_change ch = {(quiet + r0->makespan) / 2, LOCUS_CHANGE_FAIL, n,
					  LOCUS_NONE, 0};
		struct locus_result *r = simulate(wl, pol, &ch, 1);
		CHECK(r != NULL);
		if (r->failed)
			fprintf(stderr, "%s, node %u down at %g: %s\n", pol, n, ch.time,
				r->failure);
		check_complete(wl, r);
		CHECK(r->makespan == r0->makespan);
		n_quiet_failures++;
		locus_result_destroy(r);
		return;
	}
}

TEST(shipped_instances_simulate)
{
	struct locus_error err;
	n_finished_after_failure = n_failed_runs = n_quiet_failures = 0;
	for (size_t k = 0; k < N_INSTANCES; k++) {
		struct locus_graph *g = read_instance(k);
		CHECK(g != NULL);
		for (int pk = 0; pk < 2; pk++) {
			struct locus_platform *p = platform(pk);
			struct locus_workload *wl = NULL;
			CHECK(p != NULL);
			CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
			CHECK_EQ_INT(wl->n_workers, pk ? 16 : 4);
			for (size_t a = 0; a < 4; a++) {
				struct locus_result *r = simulate(wl, policies[a], NULL, 0);
				CHECK(r != NULL);
				check_complete(wl, r);
				/* The same run again: the same result. */
				struct locus_result *r2 = simulate(wl, policies[a], NULL, 0);
				CHECK(r2 && r2->makespan == r->makespan && r2->events == r->events);
				locus_result_destroy(r2);
				check_failure(wl, policies[a], r);
				check_quiet_failure(wl, policies[a], r);
				locus_result_destroy(r);
			}
			locus_workload_destroy(wl);
			locus_platform_destroy(p);
		}
		locus_graph_destroy(g);
	}
	fprintf(stderr,
		"node 1 down at 30 %%: %zu runs ended failed, %zu finished; %zu runs with a "
		"quiet node down finished as planned\n",
		n_failed_runs, n_finished_after_failure, n_quiet_failures);
	CHECK(n_failed_runs > 0);
	CHECK(n_quiet_failures > 0);
}

/* ---- the shapes of WfFormat -------------------------------------------------- */

/* ID1 (2 s) reads in0 and writes f1; ID2 (3 s) reads f1, writes f2; ID3
 * (1.5 s) reads in0, a child of ID1 without a file; ID4 (4 s) reads f2,
 * writes out, a child of ID2 and ID3 (no file from ID3). */
static const char wf15[] =
    "{\"name\": \"small\", \"schemaVersion\": \"1.5\",\n"
    " \"workflow\": {\n"
    "  \"specification\": {\n"
    "   \"tasks\": [\n"
    "    {\"name\": \"a\", \"id\": \"ID1\", \"parents\": [], \"children\": [\"ID2\", "
    "\"ID3\"],\n"
    "     \"inputFiles\": [\"in0\"], \"outputFiles\": [\"f1\"]},\n"
    "    {\"name\": \"b\", \"id\": \"ID2\", \"parents\": [\"ID1\"], \"children\": "
    "[\"ID4\"],\n"
    "     \"inputFiles\": [\"f1\"], \"outputFiles\": [\"f2\"]},\n"
    "    {\"name\": \"c\", \"id\": \"ID3\", \"parents\": [\"ID1\"], \"children\": "
    "[\"ID4\"],\n"
    "     \"inputFiles\": [\"in0\"], \"outputFiles\": []},\n"
    "    {\"name\": \"d\", \"id\": \"ID4\", \"parents\": [\"ID2\", \"ID3\"], \"children\": "
    "[],\n"
    "     \"inputFiles\": [\"f2\"], \"outputFiles\": [\"out\"]}],\n"
    "   \"files\": [{\"id\": \"in0\", \"sizeInBytes\": 100}, {\"id\": \"f1\", "
    "\"sizeInBytes\": 50},\n"
    "             {\"id\": \"f2\", \"sizeInBytes\": 25}, {\"id\": \"out\", \"sizeInBytes\": "
    "7},\n"
    "             {\"id\": \"unused\", \"sizeInBytes\": 99}]},\n"
    "  \"execution\": {\"makespanInSeconds\": 10, \"executedAt\": \"2024-01-01T00:00:00Z\",\n"
    "   \"tasks\": [{\"id\": \"ID4\", \"runtimeInSeconds\": 4, \"coreCount\": 2},\n"
    "             {\"id\": \"ID1\", \"runtimeInSeconds\": 2, \"machines\": [\"m1\"]},\n"
    "             {\"id\": \"ID2\", \"runtimeInSeconds\": 3},\n"
    "             {\"id\": \"ID3\", \"runtimeInSeconds\": 1.5}],\n"
    "   \"machines\": [{\"nodeName\": \"m1\", \"cpu\": {\"coreCount\": 8}}]}}}\n";

/* 1.6: metrics in both sections, no machines. */
static const char wf16[] =
    "{\"name\": \"small\", \"schemaVersion\": \"1.6\", \"workflow\": {\"specification\": {\n"
    " \"tasks\": [\n"
    "  {\"name\": \"a\", \"id\": \"ID1\", \"parents\": [], \"children\": [\"ID2\", \"ID3\"], "
    "\"inputFiles\": [\"in0\"], \"outputFiles\": [\"f1\"]},\n"
    "  {\"name\": \"b\", \"id\": \"ID2\", \"parents\": [\"ID1\"], \"children\": [\"ID4\"], "
    "\"inputFiles\": [\"f1\"], \"outputFiles\": [\"f2\"]},\n"
    "  {\"name\": \"c\", \"id\": \"ID3\", \"parents\": [\"ID1\"], \"children\": [\"ID4\"], "
    "\"inputFiles\": [\"in0\"]},\n"
    "  {\"name\": \"d\", \"id\": \"ID4\", \"parents\": [\"ID2\", \"ID3\"], \"children\": [], "
    "\"inputFiles\": [\"f2\"], \"outputFiles\": [\"out\"]}],\n"
    " \"files\": [{\"id\": \"in0\", \"sizeInBytes\": 100}, {\"id\": \"f1\", \"sizeInBytes\": "
    "50}, {\"id\": \"f2\", \"sizeInBytes\": 25}, {\"id\": \"out\", \"sizeInBytes\": 7}],\n"
    " \"metrics\": {\"numberOfTasks\": 4, \"numberOfFiles\": 4, \"sumOfFileSizesInBytes\": "
    "182, \"numberOfLevels\": 3, \"minimumWidth\": 1, \"maximumWidth\": 2}},\n"
    " \"execution\": {\"makespanInSeconds\": 10, \"executedAt\": \"2024-01-01T00:00:00Z\", "
    "\"tasks\": [\n"
    "  {\"id\": \"ID1\", \"runtimeInSeconds\": 2}, {\"id\": \"ID2\", \"runtimeInSeconds\": 3},\n"
    "  {\"id\": \"ID3\", \"runtimeInSeconds\": 1.5}, {\"id\": \"ID4\", \"runtimeInSeconds\": "
    "4}],\n"
    " \"metrics\": {\"sumTaskRuntimesInSeconds\": 10.5}}}}\n";

/* 1.4: files inside tasks, parents and children by name, 1.3's runtime
 * and size keys on some. */
static const char wf14[] =
    "{\"name\": \"small\", \"schemaVersion\": \"1.4\", \"wms\": {\"name\": \"x\"},\n"
    " \"workflow\": {\"makespanInSeconds\": 10, \"executedAt\": \"2024\", \"machines\": [],\n"
    "  \"tasks\": [\n"
    "   {\"name\": \"a\", \"id\": \"ID1\", \"type\": \"compute\", \"runtimeInSeconds\": 2,\n"
    "    \"parents\": [], \"children\": [\"b\", \"c\"],\n"
    "    \"files\": [{\"name\": \"in0\", \"sizeInBytes\": 100, \"link\": \"input\"},\n"
    "              {\"name\": \"f1\", \"sizeInBytes\": 50, \"link\": \"output\"}]},\n"
    "   {\"name\": \"b\", \"id\": \"ID2\", \"type\": \"compute\", \"runtime\": 3,\n"
    "    \"parents\": [\"a\"], \"children\": [\"d\"],\n"
    "    \"files\": [{\"name\": \"f1\", \"size\": 50, \"link\": \"input\"},\n"
    "              {\"name\": \"f2\", \"size\": 25, \"link\": \"output\"}]},\n"
    "   {\"name\": \"c\", \"id\": \"ID3\", \"type\": \"compute\", \"runtimeInSeconds\": 1.5,\n"
    "    \"parents\": [\"a\"], \"children\": [\"d\"],\n"
    "    \"files\": [{\"name\": \"in0\", \"sizeInBytes\": 100, \"link\": \"input\"}]},\n"
    "   {\"name\": \"d\", \"id\": \"ID4\", \"type\": \"compute\", \"runtimeInSeconds\": 4,\n"
    "    \"parents\": [\"b\", \"c\"], \"children\": [],\n"
    "    \"files\": [{\"name\": \"out\", \"sizeInBytes\": 7, \"link\": \"OUTPUT\"},\n"
    "              {\"name\": \"f2\", \"sizeInBytes\": 25, \"link\": \"input\"}]}]}}\n";

static struct locus_graph *read_text(const char *text, struct locus_error *err)
{
	struct locus_graph *g = NULL;
	if (locus_dag_read_wfcommons(&g, text, strlen(text), "small.json", err))
		return NULL;
	return g;
}

static void check_same_graph(const struct locus_graph *a, const struct locus_graph *b)
{
	CHECK_EQ_INT(a->n_tasks, b->n_tasks);
	CHECK_EQ_INT(a->n_objects, b->n_objects);
	CHECK_EQ_INT(a->n_edges, b->n_edges);
	for (size_t t = 0; t < a->n_tasks; t++) {
		const struct locus_task *x = &a->tasks[t], *y = &b->tasks[t];
		CHECK_EQ_STR(x->name, y->name);
		CHECK(x->work == y->work);
		CHECK_EQ_INT(x->bytes, y->bytes);
		CHECK_EQ_INT(x->n_in, y->n_in);
		CHECK_EQ_INT(x->n_out, y->n_out);
		for (uint32_t k = 0; k < x->n_in; k++)
			CHECK_EQ_INT(a->inputs[x->in_at + k], b->inputs[y->in_at + k]);
		CHECK_EQ_INT(a->pred_at[t + 1], b->pred_at[t + 1]);
	}
	for (size_t o = 0; o < a->n_objects; o++) {
		const struct locus_object *x = &a->objects[o], *y = &b->objects[o];
		CHECK((x->name == NULL) == (y->name == NULL));
		if (x->name)
			CHECK_EQ_STR(x->name, y->name);
		CHECK_EQ_INT(x->bytes, y->bytes);
		CHECK_EQ_INT(x->producer, y->producer);
		CHECK_EQ_INT(x->n_cons, y->n_cons);
	}
	for (size_t e = 0; e < a->n_edges; e++) {
		CHECK_EQ_INT(a->preds[e].task, b->preds[e].task);
		CHECK_EQ_INT(a->preds[e].bytes, b->preds[e].bytes);
	}
}

TEST(versions_give_the_same_graph)
{
	struct locus_error err = {0};
	struct locus_graph *g15 = read_text(wf15, &err);
	if (!g15)
		fprintf(stderr, "1.5: %s\n", err.message);
	CHECK(g15 != NULL);
	/* Four tasks named by id, work from the execution section. */
	CHECK_EQ_INT(g15->n_tasks, 4);
	const char *ids[] = {"ID1", "ID2", "ID3", "ID4"};
	const double work[] = {2, 3, 1.5, 4};
	for (uint32_t t = 0; t < 4; t++) {
		CHECK_EQ_STR(g15->tasks[t].name, ids[t]);
		CHECK(g15->tasks[t].work == work[t]);
		CHECK_EQ_INT(locus_graph_find_task(g15, ids[t]), t);
	}
	/* Files in0, f1, f2, out (not "unused": no task refers to it), and
	 * two edges of 0 bytes: ID1 -> ID3, ID3 -> ID4. */
	CHECK_EQ_INT(g15->n_objects, 6);
	CHECK_EQ_INT(locus_graph_find_object(g15, "unused"), -1);
	long in0 = locus_graph_find_object(g15, "in0"), f1 = locus_graph_find_object(g15, "f1");
	CHECK(in0 >= 0 && f1 >= 0);
	CHECK(g15->objects[in0].producer == LOCUS_NONE && g15->objects[in0].bytes == 100);
	CHECK_EQ_INT(g15->objects[in0].n_cons, 2);
	CHECK_EQ_INT(g15->objects[f1].producer, 0);
	CHECK_EQ_INT(g15->n_edges, 4);
	CHECK(has_edge(g15, 0, 1) && has_edge(g15, 0, 2) && has_edge(g15, 1, 3) &&
	      has_edge(g15, 2, 3));
	CHECK_EQ_INT(g15->preds[g15->pred_at[1]].bytes, 50);
	CHECK_EQ_INT(g15->preds[g15->pred_at[2]].bytes, 0);
	CHECK_EQ_INT(g15->n_levels, 3);
	CHECK_EQ_INT(g15->tasks[0].bytes, 100);

	struct locus_graph *g16 = read_text(wf16, &err);
	if (!g16)
		fprintf(stderr, "1.6: %s\n", err.message);
	CHECK(g16 != NULL);
	check_same_graph(g15, g16);
	struct locus_graph *g14 = read_text(wf14, &err);
	if (!g14)
		fprintf(stderr, "1.4: %s\n", err.message);
	CHECK(g14 != NULL);
	check_same_graph(g15, g14);
	locus_graph_destroy(g14);
	locus_graph_destroy(g16);
	locus_graph_destroy(g15);
}

/* What is accepted beyond the letter of the schema. */
TEST(lenient_forms)
{
	struct locus_error err = {0};
	struct locus_graph *g;
	/* No schemaVersion, or one unknown; no execution (work 0); only one
	 * end of each relation stated (the union is taken); a parent named
	 * by its name when no task has it as an id. */
	const char *doc =
	    "{\"schemaVersion\": \"9.9\", \"workflow\": {\"specification\": {\"tasks\": ["
	    "{\"id\": \"A\", \"name\": \"first\", \"children\": [\"B\"]},"
	    "{\"id\": \"B\", \"name\": \"second\"},"
	    "{\"id\": \"C\", \"parents\": [\"second\"]}]}}}";
	g = read_text(doc, &err);
	CHECK(g != NULL);
	CHECK_EQ_INT(g->n_tasks, 3);
	CHECK_EQ_INT(g->n_edges, 2);
	CHECK(has_edge(g, 0, 1) && has_edge(g, 1, 2));
	CHECK(g->tasks[0].work == 0);
	locus_graph_destroy(g);
	/* A file a task reads and writes is its output only; a file written
	 * by one task and read by another that is not listed as its child is
	 * still an edge; a task with only a name is named by it. */
	doc = "{\"workflow\": {\"specification\": {\"tasks\": ["
	      "{\"name\": \"A\", \"inputFiles\": [\"log\", \"x\"], \"outputFiles\": [\"log\"]},"
	      "{\"name\": \"B\", \"inputFiles\": [\"log\"]}],"
	      "\"files\": [{\"id\": \"log\", \"sizeInBytes\": 3}, {\"id\": \"x\", \"sizeInBytes\": "
	      "4.0}]},"
	      "\"execution\": {\"tasks\": [{\"id\": \"B\", \"runtimeInSeconds\": 0.25}]}}}";
	g = read_text(doc, &err);
	if (!g)
		fprintf(stderr, "%s\n", err.message);
	CHECK(g != NULL);
	CHECK_EQ_INT(g->tasks[0].n_in, 1);
	CHECK_EQ_INT(g->tasks[0].bytes, 4);
	CHECK_EQ_INT(g->tasks[0].n_out, 1);
	CHECK(has_edge(g, 0, 1));
	CHECK(g->tasks[1].work == 0.25);
	locus_graph_destroy(g);
	/* The oldest shape: "jobs". */
	doc = "{\"workflow\": {\"jobs\": [{\"name\": \"j1\", \"runtime\": 1}, "
	      "{\"name\": \"j2\", \"runtime\": 2, \"parents\": [\"j1\"]}]}}";
	g = read_text(doc, &err);
	CHECK(g != NULL);
	CHECK_EQ_INT(g->n_edges, 1);
	CHECK(g->tasks[1].work == 2);
	locus_graph_destroy(g);
	/* A 1.4 file's path is part of its id (as WfCommons migrates it). */
	doc = "{\"workflow\": {\"tasks\": ["
	      "{\"name\": \"A\", \"files\": [{\"name\": \"f\", \"path\": \"d1/\", \"size\": 1, "
	      "\"link\": \"output\"}]},"
	      "{\"name\": \"B\", \"files\": [{\"name\": \"f\", \"path\": \"d2/\", \"size\": 2, "
	      "\"link\": \"output\"}]}]}}";
	g = read_text(doc, &err);
	CHECK(g != NULL);
	CHECK(locus_graph_find_object(g, "d1/f") >= 0 && locus_graph_find_object(g, "d2/f") >= 0);
	locus_graph_destroy(g);
}

/* Reads `doc` expecting an error whose message contains `needle`. */
static void expect_error(const char *doc, int code, const char *needle, long line)
{
	struct locus_error err = {0};
	struct locus_graph *g = (struct locus_graph *)&err;
	int rc = locus_dag_read_wfcommons(&g, doc, strlen(doc), "bad.json", &err);
	if (!strstr(err.message, needle))
		fprintf(stderr, "expected \"%s\", got \"%s\"\n", needle, err.message);
	CHECK_EQ_INT(rc, code);
	CHECK_EQ_INT(err.code, code);
	CHECK(g == NULL);
	CHECK_EQ_STR(err.file, "bad.json");
	CHECK(strstr(err.message, needle) != NULL);
	CHECK_EQ_INT(err.line, line);
}

#define SPEC(tasks)  "{\"workflow\": {\"specification\": {\"tasks\": [" tasks "]"
#define FILES(files) ", \"files\": [" files "]"

TEST(errors)
{
	/* Not JSON: line and column. */
	struct locus_error err = {0};
	struct locus_graph *g = NULL;
	const char *doc = "{\"workflow\": {\n  \"tasks\": [,]}}";
	CHECK_EQ_INT(locus_dag_read_wfcommons(&g, doc, strlen(doc), "bad.json", &err),
		     LOCUS_EPARSE);
	CHECK_EQ_INT(err.line, 2);
	CHECK(err.column > 0);
	CHECK(strstr(err.message, "invalid JSON") != NULL);
	expect_error("", LOCUS_EPARSE, "invalid JSON", 1);
	expect_error("{\"a\": 1, \"a\": 2}", LOCUS_EPARSE, "duplicate object key", 1);
	expect_error("[1]", LOCUS_EPARSE, "expected a WfFormat JSON object with a \"workflow\"", 0);
	expect_error("{\"name\": \"x\"}", LOCUS_EPARSE,
		     "missing key \"workflow\": expected a WfCommons instance", 0);
	/* No tasks. */
	expect_error("{\"workflow\": {}}", LOCUS_EPARSE,
		     "workflow: expected \"specification\": {\"tasks\": [...]} (WfFormat 1.5, "
		     "1.6) or \"tasks\": [...] (WfFormat 1.4)",
		     0);
	expect_error(SPEC("") "}}}", LOCUS_EPARSE,
		     "workflow.specification.tasks: expected at least one task, got none", 0);
	expect_error("{\"workflow\": {\"tasks\": {}}}", LOCUS_EPARSE,
		     "workflow.tasks: expected an array of tasks, got an object", 0);
	/* Unknown task in parents or children. */
	expect_error(SPEC("{\"id\": \"a\"}, {\"id\": \"b\", \"parents\": [\"nope\"]}") "}}}",
		     LOCUS_EPARSE,
		     "workflow.specification.tasks[1].parents[0]: no task has id \"nope\"", 0);
	expect_error(SPEC("{\"id\": \"a\", \"children\": [\"a\", 3]}") "}}}", LOCUS_EPARSE,
		     "workflow.specification.tasks[0].children[0]: task \"a\" lists itself as "
		     "its child",
		     0);
	expect_error(SPEC("{\"id\": \"a\", \"children\": [3]}") "}}}", LOCUS_EPARSE,
		     "workflow.specification.tasks[0].children[0]: expected a non-empty "
		     "string, got 3",
		     0);
	expect_error("{\"workflow\": {\"tasks\": [{\"name\": \"x\", \"id\": \"1\"}, {\"name\": "
		     "\"x\", \"id\": \"2\"}, {\"name\": \"y\", \"parents\": [\"x\"]}]}}",
		     LOCUS_EPARSE,
		     "workflow.tasks[2].parents[0]: \"x\" is the name of several tasks and the "
		     "id of none",
		     0);
	/* Duplicate ids. */
	expect_error(SPEC("{\"id\": \"a\"}, {\"id\": \"a\"}") "}}}", LOCUS_EPARSE,
		     "workflow.specification.tasks[1].id: task id \"a\" is also "
		     "workflow.specification.tasks[0]'s: expected unique task ids",
		     0);
	expect_error(SPEC("{\"name\": \"\"}") "}}}", LOCUS_EPARSE,
		     "workflow.specification.tasks[0].name: expected a non-empty string, got "
		     "\"\"",
		     0);
	expect_error(SPEC("{\"type\": \"x\"}") "}}}", LOCUS_EPARSE,
		     "workflow.specification.tasks[0]: expected an \"id\" or a \"name\"", 0);
	/* Runtimes. */
	expect_error(SPEC("{\"id\": \"a\"}") "}, \"execution\": {\"tasks\": [{\"id\": \"a\", "
					     "\"runtimeInSeconds\": -1}]}}}",
		     LOCUS_EPARSE,
		     "workflow.execution.tasks[0].runtimeInSeconds: expected a runtime from 0 "
		     "to 1e+09 seconds, got -1",
		     0);
	/* The one range of task work (issue 28: 1e300 gave a 300-digit
	 * makespan). */
	expect_error(SPEC("{\"id\": \"a\"}") "}, \"execution\": {\"tasks\": [{\"id\": \"a\", "
					     "\"runtimeInSeconds\": 1e300}]}}}",
		     LOCUS_EPARSE,
		     "workflow.execution.tasks[0].runtimeInSeconds: expected a runtime from 0 "
		     "to 1e+09 seconds, got 1e+300",
		     0);
	expect_error("{\"workflow\": {\"tasks\": [{\"name\": \"a\", \"runtime\": \"5\"}]}}",
		     LOCUS_EPARSE,
		     "workflow.tasks[0].runtime: expected a number of seconds, got \"5\"", 0);
	expect_error(SPEC("{\"id\": \"a\"}") "}, \"execution\": {\"tasks\": [{\"id\": \"b\", "
					     "\"runtimeInSeconds\": 1}]}}}",
		     LOCUS_EPARSE, "workflow.execution.tasks[0].id: no task has id \"b\"", 0);
	expect_error(SPEC("{\"id\": \"a\"}") "}, \"execution\": {\"tasks\": [{\"id\": \"a\"}, "
					     "{\"id\": \"a\"}]}}}",
		     LOCUS_EPARSE,
		     "workflow.execution.tasks[1].id: task \"a\" has two execution entries", 0);
	/* Files. */
	expect_error(SPEC("{\"id\": \"a\", \"outputFiles\": [\"f\"]}, {\"id\": \"b\", "
			  "\"outputFiles\": [\"f\"]}") FILES("{\"id\": \"f\", \"sizeInBytes\": "
							     "1}") "}}}",
		     LOCUS_EPARSE,
		     "workflow.specification.tasks[1].outputFiles[0]: file \"f\" is written by "
		     "task \"a\" and by task \"b\": expected one task writing each file",
		     0);
	expect_error("{\"workflow\": {\"tasks\": [{\"name\": \"a\", \"files\": [{\"name\": \"f\", "
		     "\"size\": 1, \"link\": \"output\"}]}, {\"name\": \"b\", \"files\": "
		     "[{\"name\": \"f\", \"size\": 1, \"link\": \"output\"}]}]}}",
		     LOCUS_EPARSE,
		     "workflow.tasks[1].files[0]: file \"f\" is written by task \"a\" and by "
		     "task \"b\"",
		     0);
	expect_error(SPEC("{\"id\": \"a\", \"inputFiles\": [\"zz\"]}") FILES("") "}}}",
		     LOCUS_EPARSE,
		     "workflow.specification.tasks[0].inputFiles[0]: file \"zz\" is not in "
		     "workflow.specification.files",
		     0);
	expect_error(SPEC("{\"id\": \"a\", \"inputFiles\": [\"zz\"]}") "}}}", LOCUS_EPARSE,
		     "workflow.specification.tasks[0].inputFiles[0]: file \"zz\" is not listed "
		     "(no workflow.specification.files)",
		     0);
	expect_error(SPEC("{\"id\": \"a\"}") FILES("{\"id\": \"f\", \"sizeInBytes\": 1}, {\"id\": "
						   "\"f\", \"sizeInBytes\": 1}") "}}}",
		     LOCUS_EPARSE, "workflow.specification.files[1].id: file \"f\" is listed twice",
		     0);
	expect_error(SPEC("{\"id\": \"a\"}") FILES("{\"id\": \"f\", \"sizeInBytes\": -5}") "}}}",
		     LOCUS_EPARSE,
		     "workflow.specification.files[0].sizeInBytes: expected a size of 0 bytes "
		     "or more, got -5",
		     0);
	expect_error(SPEC("{\"id\": \"a\"}") FILES("{\"id\": \"f\"}") "}}}", LOCUS_EPARSE,
		     "workflow.specification.files[0]: missing key \"sizeInBytes\"", 0);
	expect_error(SPEC("{\"id\": \"a\", \"inputFiles\": \"f\"}") "}}}", LOCUS_EPARSE,
		     "workflow.specification.tasks[0].inputFiles: expected an array, got \"f\"", 0);
	expect_error("{\"workflow\": {\"tasks\": [{\"name\": \"a\", \"files\": [{\"name\": \"f\", "
		     "\"size\": 1, \"link\": \"both\"}]}]}}",
		     LOCUS_EPARSE,
		     "workflow.tasks[0].files[0].link: expected \"input\" or \"output\", got "
		     "\"both\"",
		     0);
	expect_error("{\"workflow\": {\"tasks\": [{\"name\": \"a\", \"files\": [{\"name\": \"f\", "
		     "\"link\": \"input\"}]}]}}",
		     LOCUS_EPARSE, "workflow.tasks[0].files[0]: missing key \"sizeInBytes\"", 0);
	/* A cycle, through parents or through files. */
	expect_error(SPEC("{\"id\": \"a\", \"parents\": [\"b\"]}, {\"id\": \"b\", \"parents\": "
			  "[\"a\"]}") "}}}",
		     LOCUS_EPARSE, "the graph has a cycle through task", 0);
	expect_error(SPEC("{\"id\": \"a\", \"inputFiles\": [\"y\"], \"outputFiles\": [\"x\"]}, "
			  "{\"id\": \"b\", \"inputFiles\": [\"x\"], \"outputFiles\": [\"y\"]}")
			 FILES("{\"id\": \"x\", \"sizeInBytes\": 1}, {\"id\": \"y\", "
			       "\"sizeInBytes\": 1}") "}}}",
		     LOCUS_EPARSE, "expected a DAG", 0);
	/* Arguments. */
	g = (struct locus_graph *)&err;
	CHECK_EQ_INT(locus_dag_read_wfcommons(&g, NULL, 3, "x", &err), LOCUS_EINVAL);
	CHECK(g == NULL);
	CHECK_EQ_INT(locus_dag_read_wfcommons(NULL, "{}", 2, "x", &err), LOCUS_EINVAL);
	/* A NULL error pointer is fine. */
	CHECK_EQ_INT(locus_dag_read_wfcommons(&g, "{}", 2, NULL, NULL), LOCUS_EPARSE);
	doc = SPEC(
	    "{\"id\": \"a\", \"parents\": [\"b\"]}, {\"id\": \"b\", \"parents\": [\"a\"]}") "}}}";
	CHECK_EQ_INT(locus_dag_read_wfcommons(&g, doc, strlen(doc), NULL, NULL), LOCUS_EPARSE);
}

/* A task's stage: its command's program (no directory; the execution's
 * command over the specification's), else its category (1.4), else its
 * name without WfCommons' "_ID0000001"; what it runs: the program and its
 * arguments. Commands of the wrong shape are refused with their path. */
TEST(stages_and_commands)
{
	static const char doc14[] =
	    "{\"workflow\": {\"tasks\": [\n"
	    " {\"name\": \"mProject_ID0000001\", \"runtime\": 1},\n"
	    " {\"name\": \"x_0002\", \"category\": \"split\"},\n"
	    " {\"name\": \"y_0003\", \"category\": \"split\",\n"
	    "  \"command\": {\"program\": \"/opt/bin/mAdd\", \"arguments\": [\"-p\", \"dir\"]}},\n"
	    " {\"name\": \"plain\"}, {\"name\": \"_12\"}, {\"name\": \"z_ID\"}]}}";
	struct locus_error err = {0};
	struct locus_graph *g = read_text(doc14, &err);
	CHECK(g != NULL);
	if (g) {
		const char *want[] = {"mProject", "split", "mAdd", "plain", "_12", "z_ID"};
		CHECK(g->task_stage != NULL);
		for (uint32_t t = 0; t < 6 && g->task_stage; t++)
			CHECK_EQ_STR(g->stage_names[g->task_stage[t]], want[t]);
		CHECK_EQ_INT(g->n_stages, 6);
		CHECK(g->commands && g->commands[2].argc == 3);
		CHECK(g->commands && !g->commands[0].argc && !g->commands[0].line);
		if (g->commands) {
			CHECK_EQ_STR(g->commands[2].argv[0], "/opt/bin/mAdd");
			CHECK_EQ_STR(g->commands[2].argv[2], "dir");
		}
		locus_graph_destroy(g);
	}
	static const char doc15[] = SPEC("{\"id\": \"a\", \"command\": {\"program\": \"old\"}}, "
					 "{\"id\": \"b\"}") "},"
							    "\"execution\": {\"tasks\": [{\"id\": "
							    "\"a\", \"command\": {\"program\": "
							    "\"new\", "
							    "\"arguments\": []}}, {\"id\": \"b\", "
							    "\"command\": {\"program\": "
							    "\"tool\"}}]}}}";
	g = read_text(doc15, &err);
	CHECK(g != NULL);
	if (g) {
		CHECK_EQ_STR(g->stage_names[g->task_stage[0]], "new");
		CHECK_EQ_INT(g->commands[0].argc, 1);
		CHECK_EQ_STR(g->stage_names[g->task_stage[1]], "tool");
		locus_graph_destroy(g);
	}
	expect_error(SPEC("{\"id\": \"a\", \"command\": \"ls -l\"}") "}}}", LOCUS_EPARSE,
		     "workflow.specification.tasks[0].command: expected an object with "
		     "\"program\" and \"arguments\", got \"ls -l\"",
		     0);
	expect_error(
	    SPEC("{\"id\": \"a\"}") "}, \"execution\": {\"tasks\": [{\"id\": \"a\", "
				    "\"command\": {\"program\": \"p\", \"arguments\": [1]}}]}}}",
	    LOCUS_EPARSE, "workflow.execution.tasks[0].command.arguments[0]: expected a string", 0);
	expect_error(SPEC("{\"id\": \"a\", \"command\": {\"program\": \"\"}}") "}}}", LOCUS_EPARSE,
		     "workflow.specification.tasks[0].command.program: expected a non-empty string",
		     0);
	expect_error(SPEC("{\"id\": \"a\", \"category\": 3}") "}}}", LOCUS_EPARSE,
		     "workflow.specification.tasks[0].category: expected a non-empty string", 0);
}

TEST_MAIN(TEST_ENTRY(shipped_instances_read), TEST_ENTRY(shipped_instances_simulate),
	  TEST_ENTRY(versions_give_the_same_graph), TEST_ENTRY(lenient_forms), TEST_ENTRY(errors),
	  TEST_ENTRY(stages_and_commands))
