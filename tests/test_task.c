/* The task model: graphs of tasks and objects, and the replica table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

/* a -> b and a -> c through files, b -> d and c -> d through edges, and a
 * second file a -> b merged into the same edge. */
static struct locus_graph *diamond(void)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	if (locus_graph_create(&g, "diamond", &err))
		return NULL;
	long a = locus_graph_add_task(g, "a", 1), b = locus_graph_add_task(g, "b", 2);
	long c = locus_graph_add_task(g, "c", 3), d = locus_graph_add_task(g, "d", 4);
	long in = locus_graph_add_object(g, "in.dat", 100);
	long f1 = locus_graph_add_object(g, "f1", 10), f2 = locus_graph_add_object(g, "f2", 5);
	if (a < 0 || b < 0 || c < 0 || d < 0 || in < 0 || f1 < 0 || f2 < 0)
		return NULL;
	locus_graph_add_input(g, (uint32_t)a, (uint32_t)in);
	locus_graph_add_output(g, (uint32_t)a, (uint32_t)f1, &err);
	locus_graph_add_output(g, (uint32_t)a, (uint32_t)f2, &err);
	locus_graph_add_input(g, (uint32_t)b, (uint32_t)f1);
	locus_graph_add_input(g, (uint32_t)b, (uint32_t)f2);
	locus_graph_add_input(g, (uint32_t)b, (uint32_t)f2); /* repeated: counts once */
	locus_graph_add_input(g, (uint32_t)c, (uint32_t)f1);
	locus_graph_add_edge(g, (uint32_t)b, (uint32_t)d, 7);
	locus_graph_add_edge(g, (uint32_t)c, (uint32_t)d, 9);
	if (locus_graph_finish(g, &err)) {
		locus_graph_destroy(g);
		return NULL;
	}
	return g;
}

TEST(edges_follow_objects)
{
	struct locus_graph *g = diamond();
	CHECK(g != NULL);
	CHECK_EQ_INT(g->n_tasks, 4);
	CHECK_EQ_INT(g->n_edges, 4);
	/* a -> b carries both files, merged. */
	CHECK_EQ_INT(g->succ_at[1] - g->succ_at[0], 2);
	CHECK_EQ_INT(g->succs[g->succ_at[0]].task, 1);
	CHECK_EQ_INT(g->succs[g->succ_at[0]].bytes, 15);
	CHECK_EQ_INT(g->succs[g->succ_at[0]].n_objects, 2);
	CHECK_EQ_INT(g->succs[g->succ_at[0] + 1].task, 2);
	CHECK_EQ_INT(g->succs[g->succ_at[0] + 1].bytes, 10);
	/* d's predecessors, in id order. */
	CHECK_EQ_INT(g->pred_at[4] - g->pred_at[3], 2);
	CHECK_EQ_INT(g->preds[g->pred_at[3]].task, 1);
	CHECK_EQ_INT(g->preds[g->pred_at[3]].bytes, 7);
	CHECK_EQ_INT(g->preds[g->pred_at[3] + 1].bytes, 9);
	/* Input bytes and repeated inputs. */
	CHECK_EQ_INT(g->tasks[0].bytes, 100);
	CHECK_EQ_INT(g->tasks[1].n_in, 2);
	CHECK_EQ_INT(g->tasks[1].bytes, 15);
	CHECK_EQ_INT(g->tasks[3].bytes, 16);
	/* f1 has two consumers. */
	long f1 = locus_graph_find_object(g, "f1");
	CHECK(f1 >= 0);
	CHECK_EQ_INT(g->objects[f1].n_cons, 2);
	CHECK_EQ_INT(g->objects[f1].producer, 0);
	CHECK_EQ_INT(g->objects[locus_graph_find_object(g, "in.dat")].producer, LOCUS_NONE);
	/* Order and levels. */
	CHECK_EQ_INT(g->topo[0], 0);
	CHECK_EQ_INT(g->topo[3], 3);
	CHECK_EQ_INT(g->level[3], 2);
	CHECK_EQ_INT(g->n_levels, 3);
	CHECK_EQ_INT(locus_graph_find_task(g, "c"), 2);
	CHECK_EQ_INT(locus_graph_find_task(g, "zz"), -1);
	/* Sizes set later reach edges and tasks. */
	CHECK_EQ_INT(locus_graph_set_object_bytes(g, (uint32_t)f1, 20), 0);
	CHECK_EQ_INT(g->succs[g->succ_at[0]].bytes, 25);
	CHECK_EQ_INT(g->preds[g->pred_at[1]].bytes, 25);
	CHECK_EQ_INT(g->tasks[1].bytes, 25);
	CHECK_EQ_INT(g->tasks[2].bytes, 20);
	locus_graph_destroy(g);
}

TEST(refuses_cycles_and_two_writers)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_graph_create(&g, "loop.txt", &err), 0);
	for (int i = 0; i < 4; i++)
		locus_graph_add_task(g, NULL, 1);
	locus_graph_add_edge(g, 0, 1, 1);
	locus_graph_add_edge(g, 1, 2, 1);
	locus_graph_add_edge(g, 2, 3, 1);
	locus_graph_add_edge(g, 3, 1, 1);
	CHECK_EQ_INT(locus_graph_finish(g, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "cycle through task") != NULL);
	CHECK_EQ_STR(err.file, "loop.txt");
	locus_graph_destroy(g);

	CHECK_EQ_INT(locus_graph_create(&g, NULL, &err), 0);
	long a = locus_graph_add_task(g, "a", 1), b = locus_graph_add_task(g, "b", 1);
	long o = locus_graph_add_object(g, "out", 1);
	CHECK_EQ_INT(locus_graph_add_output(g, (uint32_t)a, (uint32_t)o, &err), 0);
	CHECK_EQ_INT(locus_graph_add_output(g, (uint32_t)b, (uint32_t)o, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "\"out\" is written by task \"a\" and by task \"b\"") != NULL);
	CHECK_EQ_INT(locus_graph_add_task(g, NULL, -1), LOCUS_EINVAL);
	/* A task that reads what it writes. */
	CHECK_EQ_INT(locus_graph_add_input(g, (uint32_t)a, (uint32_t)o), 0);
	CHECK_EQ_INT(locus_graph_finish(g, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "reads an object it writes") != NULL);
	locus_graph_destroy(g);
}

TEST(costs_per_processor)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_graph_create(&g, NULL, &err), 0);
	locus_graph_add_task(g, "x", 0);
	locus_graph_add_task(g, "y", 0);
	const double cost[] = {14, 16, 9, 13, 19, 18};
	CHECK_EQ_INT(locus_graph_set_costs(g, 3, cost, &err), 0);
	CHECK_NEAR(g->tasks[0].work, 13, 1e-12);
	CHECK_NEAR(g->tasks[1].work, 50.0 / 3, 1e-12);
	const double bad[] = {1, -1};
	CHECK_EQ_INT(locus_graph_set_costs(g, 1, bad, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "task \"y\" on processor 1") != NULL);
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	CHECK_EQ_INT(g->n_edges, 0);
	CHECK_EQ_INT(locus_graph_has_edges(g), 0);
	locus_graph_destroy(g);
}

static size_t n_lost;
static uint32_t last_lost;
static void on_lost(void *user, uint32_t object)
{
	(void)user;
	n_lost++;
	last_lost = object;
}

/* Stages, commands and names where a task runs (the workflow readers'):
 * a stage named twice is one stage, tasks without one say so, commands
 * keep their words, and a renamed input or output carries its name. */
TEST(stages_commands_and_names)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_graph_create(&g, "wf", &err), 0);
	long a = locus_graph_add_task(g, "a", 1), b = locus_graph_add_task(g, "b", 1);
	long f = locus_graph_add_object(g, "f.dat", 10), in = locus_graph_add_object(g, "in", 1);
	long s1 = locus_graph_stage(g, "mProject"), s2 = locus_graph_stage(g, "mAdd");
	CHECK(s1 == 0 && s2 == 1 && locus_graph_stage(g, "mProject") == 0);
	CHECK_EQ_INT(locus_graph_stage(g, ""), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_graph_set_stage(g, (uint32_t)a, (uint32_t)s1), 0);
	CHECK_EQ_INT(locus_graph_set_stage(g, (uint32_t)a, 7), LOCUS_EINVAL);
	const char *words[] = {"mProject", "-X", "in", "f.dat"};
	struct locus_command argv = {.argv = words, .argc = 4};
	const char *vars[] = {"LC_ALL=C", "OPTS=-n -r"};
	struct locus_command line = {
	    .line = "sort in > f.dat", .flags = LOCUS_COMMAND_LOCAL, .env = vars, .n_env = 2};
	struct locus_command both = {.line = "x", .argv = words, .argc = 1}, none = {0};
	CHECK_EQ_INT(locus_graph_set_command(g, (uint32_t)a, &argv), 0);
	CHECK_EQ_INT(locus_graph_set_command(g, (uint32_t)a, &both), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_graph_set_command(g, (uint32_t)a, &none), LOCUS_EINVAL);
	/* A task added after the arrays exist is covered too. */
	long c = locus_graph_add_task(g, "c", 1);
	CHECK_EQ_INT(locus_graph_set_command(g, (uint32_t)c, &line), 0);
	CHECK_EQ_INT(locus_graph_add_input_as(g, (uint32_t)a, (uint32_t)in, "raw.fits"), 0);
	CHECK_EQ_INT(locus_graph_add_output_as(g, (uint32_t)a, (uint32_t)f, NULL, &err), 0);
	CHECK_EQ_INT(locus_graph_add_input(g, (uint32_t)b, (uint32_t)f), 0);
	CHECK_EQ_INT(locus_graph_add_input_as(g, (uint32_t)b, (uint32_t)f, "z"), 0);
	CHECK_EQ_INT(locus_graph_add_input_as(g, (uint32_t)b, (uint32_t)f, "y"), 0);
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	CHECK_EQ_INT(locus_graph_stage(g, "late"), LOCUS_EINVAL);
	CHECK_EQ_INT(g->n_stages, 2);
	CHECK(!strcmp(g->stage_names[1], "mAdd"));
	CHECK(g->task_stage && g->task_stage[a] == 0 && g->task_stage[b] == LOCUS_NONE &&
	      g->task_stage[c] == LOCUS_NONE);
	CHECK(g->commands && g->commands[a].argc == 4 && !g->commands[a].line);
	CHECK(!strcmp(g->commands[a].argv[3], "f.dat") && g->commands[a].argv[3] != words[3]);
	CHECK(!g->commands[b].line && !g->commands[b].argc);
	CHECK(!strcmp(g->commands[c].line, "sort in > f.dat") &&
	      g->commands[c].flags == LOCUS_COMMAND_LOCAL);
	CHECK(g->commands[c].n_env == 2 && !strcmp(g->commands[c].env[1], "OPTS=-n -r") &&
	      g->commands[c].env[1] != vars[1] && !g->commands[a].env);
	/* Names: a's input is "raw.fits", b's one input (repeated) keeps
	 * the first of its names in byte order; no output is renamed. */
	CHECK(g->input_as && !g->output_as);
	CHECK_EQ_INT(g->tasks[b].n_in, 1);
	CHECK(!strcmp(g->input_as[g->tasks[a].in_at], "raw.fits"));
	CHECK(!strcmp(g->input_as[g->tasks[b].in_at], "y"));
	locus_graph_destroy(g);
	/* A graph without any of it has none of the arrays. */
	struct locus_graph *plain = diamond();
	CHECK(plain && !plain->task_stage && !plain->commands && !plain->input_as &&
	      !plain->output_as && plain->n_stages == 0);
	locus_graph_destroy(plain);
}

TEST(replica_table)
{
	struct locus_replicas *r = NULL;
	CHECK_EQ_INT(locus_replicas_create(&r, 3, 6), 0);
	CHECK_EQ_INT(locus_replicas_add(r, 0, 2), 1);
	CHECK_EQ_INT(locus_replicas_add(r, 0, 2), 0);
	for (uint32_t n = 0; n < 6; n++)
		locus_replicas_add(r, 1, 5 - n); /* spills out of the inline slots */
	CHECK_EQ_INT(locus_replicas_count(r, 1), 6);
	CHECK_EQ_INT(locus_replicas_nodes(r, 1)[0], 5);
	CHECK_EQ_INT(locus_replicas_nodes(r, 1)[5], 0);
	CHECK_EQ_INT(locus_replicas_add(r, 2, 2), 1);
	CHECK_EQ_INT(locus_replicas_remove(r, 1, 3), 1);
	CHECK_EQ_INT(locus_replicas_remove(r, 1, 3), 0);
	CHECK_EQ_INT(locus_replicas_has(r, 1, 3), 0);
	CHECK_EQ_INT(locus_replicas_count(r, 1), 5);
	CHECK_EQ_INT(locus_replicas_add(r, 1, 3), 1); /* back again */
	CHECK_EQ_INT(locus_replicas_add(r, 9, 0), LOCUS_EINVAL);
	/* Node 2 fails: object 0 and 2 lose their only copy, 1 keeps five. */
	n_lost = 0;
	CHECK_EQ_INT(locus_replicas_drop_node(r, 2, on_lost, NULL), 3);
	CHECK_EQ_INT(n_lost, 2);
	CHECK_EQ_INT(last_lost, 2);
	CHECK_EQ_INT(locus_replicas_count(r, 0), 0);
	CHECK_EQ_INT(locus_replicas_count(r, 1), 5);
	CHECK_EQ_INT(locus_replicas_has(r, 1, 2), 0);
	/* Node 3 was listed twice (added, removed, added): one drop. */
	CHECK_EQ_INT(locus_replicas_drop_node(r, 3, on_lost, NULL), 1);
	CHECK_EQ_INT(locus_replicas_count(r, 1), 4);
	locus_replicas_destroy(r);
}

/* A chunk workload is the graph of one task per chunk, nothing else. */
TEST(chunk_workload_is_a_bag_of_tasks)
{
	struct locus_scenario_spec spec = {.nodes = 6, .chunks = 40, .seed = 3};
	struct locus_scenario *s = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_scenario_build(&s, &spec, &err), 0);
	const struct locus_workload *wl = s->workload;
	const struct locus_graph *g = wl->graph;
	CHECK(g != NULL);
	CHECK_EQ_INT(g->n_tasks, 40);
	CHECK_EQ_INT(g->n_objects, 40);
	CHECK_EQ_INT(g->n_edges, 0);
	for (uint32_t t = 0; t < wl->n_tasks; t++) {
		const struct locus_task *tk = &wl->tasks[t];
		CHECK_EQ_INT(tk->n_in, 1);
		uint32_t o = g->inputs[tk->in_at];
		CHECK_EQ_INT(g->objects[o].chunk, tk->chunk);
		CHECK_EQ_INT(g->objects[o].bytes, tk->bytes);
		CHECK_EQ_INT(tk->n_holders, wl->obj_at[o + 1] - wl->obj_at[o]);
		CHECK_EQ_INT(tk->n_holders, 3);
	}
	locus_scenario_destroy(s);
}

/* The mean bandwidth between workers on different nodes, pair by pair. */
static double pairwise_mean_bw(const struct locus_platform *p)
{
	double sum = 0, pairs = 0;
	for (uint32_t a = 0; a < p->n_nodes; a++)
		for (uint32_t b = 0; b < p->n_nodes; b++)
			if (a != b && p->nodes[a].cores > 0 && p->nodes[b].cores > 0) {
				double k = (double)p->nodes[a].cores * p->nodes[b].cores;
				sum += k * locus_platform_pair_bw(p, a, b);
				pairs += k;
			}
	return pairs > 0 ? sum / pairs : 0;
}

/* The workload's mean bandwidth (mean communication costs: HEFT's ranks)
 * is the pairwise mean on shared networks with racks, backbones and
 * nodes of every kind, and on pair links; and it takes time in
 * proportion to the nodes (it visited every pair: 100,000 processors
 * took a minute). */
TEST(mean_bandwidth)
{
	struct locus_error err;
	struct locus_graph *g = diamond();
	CHECK(g != NULL);
	struct locus_rng rng;
	locus_rng_init(&rng, 28);
	for (int round = 0; round < 200; round++) {
		struct locus_platform *p = NULL;
		size_t n = 1 + locus_rng_below(&rng, 30);
		CHECK_EQ_INT(locus_platform_generate(&p, n, 1 + locus_rng_below(&rng, 4), 1, "n"),
			     0);
		static const double bws[] = {1e8, 1.25e8, 3e7, 1e9, 7.5e7};
		for (size_t i = 0; i < n; i++) {
			struct locus_node *x = &p->nodes[i];
			x->cores = (int)locus_rng_below(&rng, 4);
			x->net_bw = locus_rng_below(&rng, 2) ? bws[locus_rng_below(&rng, 5)]
							     : 1e7 + 1e9 * locus_rng_uniform(&rng);
			x->disk_bw = bws[locus_rng_below(&rng, 5)];
		}
		p->nodes[0].cores = 1 + (int)locus_rng_below(&rng, 3);
		int kind = (int)locus_rng_below(&rng, 4);
		if (kind == 1)
			p->rack_bw = bws[locus_rng_below(&rng, 5)];
		if (kind == 2)
			p->backbone_bw = bws[locus_rng_below(&rng, 5)];
		if (kind == 3) {
			locus_platform_set_pairs(p, bws[locus_rng_below(&rng, 5)], 0);
			for (size_t k = 0; n > 1 && k < 5; k++) {
				uint32_t a = (uint32_t)locus_rng_below(&rng, n);
				uint32_t b = (uint32_t)locus_rng_below(&rng, n);
				if (a != b)
					locus_platform_set_link(
					    p, a, b, 1e6 + 1e8 * locus_rng_uniform(&rng));
			}
		}
		struct locus_workload *wl = NULL;
		CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
		double want = pairwise_mean_bw(p);
		if (!(fabs(wl->mean_bw - want) <= 1e-12 * want)) {
			fprintf(stderr, "round %d (kind %d, %zu nodes): %.17g, pairwise %.17g\n",
				round, kind, n, wl->mean_bw, want);
			CHECK(0);
		}
		locus_workload_destroy(wl);
		locus_platform_destroy(p);
	}
	/* 200,000 nodes in 20 racks. */
	struct locus_platform *p = NULL;
	struct locus_workload *wl = NULL;
	CHECK_EQ_INT(locus_platform_generate(&p, 200000, 20, 1, "n"), 0);
	p->rack_bw = 5e7;
	clock_t t0 = clock();
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 5);
	CHECK(wl->mean_bw > 5e7 && wl->mean_bw < locus_platform_pair_bw(p, 0, 20));
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
}

TEST_MAIN(TEST_ENTRY(edges_follow_objects), TEST_ENTRY(refuses_cycles_and_two_writers),
	  TEST_ENTRY(stages_commands_and_names), TEST_ENTRY(costs_per_processor),
	  TEST_ENTRY(replica_table), TEST_ENTRY(chunk_workload_is_a_bag_of_tasks),
	  TEST_ENTRY(mean_bandwidth))
