/*
 * The baseline workflow policies in the simulator: taskvine (a
 * TaskVine-like manager, src/flow/taskvine.c) and dask (a
 * Dask.distributed-like scheduler, src/flow/dask.c). Both run every task
 * of Montage-, BLAST-shaped and random layered workflows exactly once,
 * never before its inputs exist, the same way twice, above the lower
 * bound, deleting the intermediate files (keeping them with keep=1).
 * TaskVine never serves more than max_transfers copies out of one node
 * at once and never queues a task at a worker; Dask keeps a chain on one
 * node without a transfer and its work stealing shortens an unbalanced
 * run. Bad options are refused with messages that name them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

static const char *const policies[] = {"taskvine", "dask"};
#define N_POLICIES (sizeof policies / sizeof policies[0])

static struct locus_platform *cluster(int n, int cores)
{
	return test_flow_cluster(n, cores, 1);
}

struct run {
	struct locus_result *r;
	int rc;
	char msg[512];
};

static struct run simulate(const struct locus_workload *wl, const char *policy, const char *opts,
			   int keep_xfers, uint64_t seed)
{
	struct run x = {0};
	struct locus_error err = {0};
	struct locus_sim_config cfg = test_flow_config(wl, policy, opts, 0, seed, keep_xfers);
	x.rc = locus_sim_run(&x.r, &cfg, &err);
	snprintf(x.msg, sizeof x.msg, "%s", err.message);
	if (x.rc)
		fprintf(stderr, "  %s %s: %s\n", policy, opts ? opts : "", err.message);
	return x;
}

static uint64_t counter(const struct locus_result *r, const char *name)
{
	for (size_t k = 0; k < 8 && r->pstats.counter_names[k]; k++)
		if (!strcmp(r->pstats.counter_names[k], name))
			return r->pstats.counters[k];
	return UINT64_MAX;
}

/* A random layered workflow: 3 to 7 stages of 1 to 40 tasks; a task of
 * the first stage reads a workflow input (some shared by several), a
 * later one 1 to 4 files of the stage before and now and then one of the
 * stage before that; each writes 1 or 2 files of 1 kB to 20 MB; the last
 * stage's files are the final outputs, and so is any file nobody picked.
 * Works 0.5 to 20 s. */
static struct locus_graph *random_layered(uint64_t seed)
{
	struct locus_rng rng;
	struct locus_graph *g = NULL;
	struct locus_error err;
	locus_rng_init(&rng, seed);
	if (locus_graph_create(&g, "layered", &err))
		return NULL;
	uint32_t n_stages = 3 + (uint32_t)locus_rng_below(&rng, 5);
	uint32_t files[7][80], n_files[7] = {0}, inputs[4];
	for (int i = 0; i < 4; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "in_%d", i);
		inputs[i] =
		    (uint32_t)locus_graph_add_object(g, nm, 1000 + locus_rng_below(&rng, 5000000));
	}
	for (uint32_t st = 0; st < n_stages; st++) {
		char sn[16];
		snprintf(sn, sizeof sn, "stage%u", st);
		long stage = locus_graph_stage(g, sn);
		uint32_t width = 1 + (uint32_t)locus_rng_below(&rng, 40);
		for (uint32_t i = 0; i < width; i++) {
			char nm[32];
			snprintf(nm, sizeof nm, "s%u_t%u", st, i);
			uint32_t t = (uint32_t)locus_graph_add_task(
			    g, nm, 0.5 + 19.5 * locus_rng_uniform(&rng));
			locus_graph_set_stage(g, t, (uint32_t)stage);
			if (st == 0) {
				locus_graph_add_input(g, t, inputs[locus_rng_below(&rng, 4)]);
			} else {
				uint32_t n_in = 1 + (uint32_t)locus_rng_below(&rng, 4);
				for (uint32_t k = 0; k < n_in; k++)
					locus_graph_add_input(
					    g, t,
					    files[st - 1][locus_rng_below(&rng, n_files[st - 1])]);
				if (st >= 2 && locus_rng_below(&rng, 3) == 0)
					locus_graph_add_input(
					    g, t,
					    files[st - 2][locus_rng_below(&rng, n_files[st - 2])]);
			}
			uint32_t n_out = 1 + (uint32_t)locus_rng_below(&rng, 2);
			for (uint32_t k = 0; k < n_out; k++) {
				char fn[48];
				snprintf(fn, sizeof fn, "f%u_%u_%u", st, i, k);
				uint32_t o = (uint32_t)locus_graph_add_object(
				    g, fn, 1000 + locus_rng_below(&rng, 20000000));
				locus_graph_add_output(g, t, o, &err);
				files[st][n_files[st]++] = o;
			}
		}
	}
	if (locus_graph_finish(g, &err)) {
		locus_graph_destroy(g);
		return NULL;
	}
	return g;
}

/* The graphs every policy runs: Montage, BLAST and six random ones. */
#define N_GRAPHS 8
static struct locus_graph *graph(int k)
{
	if (k == 0)
		return test_workflow_montage(24);
	if (k == 1)
		return test_workflow_blast(20, 10);
	return random_layered((uint64_t)k * 7919);
}

/* Bytes of the intermediate files (written by a task, read by others). */
static uint64_t intermediate_bytes(const struct locus_graph *g)
{
	uint64_t b = 0;
	for (size_t o = 0; o < g->n_objects; o++)
		if (g->objects[o].producer != LOCUS_NONE && g->objects[o].n_cons)
			b += g->objects[o].bytes;
	return b;
}

/* Every task of r ran once, after the tasks whose files it reads. */
static int ran_once(const struct locus_result *r, const struct locus_graph *g)
{
	size_t total = 0;
	if (r->failed || r->tasks_done != g->n_tasks)
		return 0;
	for (size_t w = 0; w < r->n_workers; w++)
		total += r->workers[w].tasks;
	if (total != g->n_tasks)
		return 0;
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task *tk = &g->tasks[t];
		if (r->tasks[t].attempts != 1 || r->tasks[t].end < r->tasks[t].start)
			return 0;
		for (uint32_t k = 0; k < tk->n_in; k++) {
			uint32_t p = g->objects[g->inputs[tk->in_at + k]].producer;
			if (p != LOCUS_NONE && r->tasks[t].start < r->tasks[p].end)
				return 0;
		}
	}
	return 1;
}

/* Every task once, the same run twice, above the bound, nothing
 * intermediate left behind; keep=1 keeps it. */
TEST(every_task_once_and_nothing_left)
{
	struct locus_platform *p = cluster(6, 2);
	for (int k = 0; k < N_GRAPHS; k++) {
		struct locus_graph *g = graph(k);
		struct locus_workload *wl = NULL;
		struct locus_error err;
		CHECK(g != NULL);
		CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
		CHECK(intermediate_bytes(g) > 0);
		for (size_t i = 0; i < N_POLICIES; i++) {
			struct run a = simulate(wl, policies[i], NULL, 0, 3),
				   b = simulate(wl, policies[i], NULL, 0, 3),
				   kept = simulate(wl, policies[i], "keep=1", 0, 3);
			CHECK(!a.rc && !b.rc && !kept.rc);
			if (!ran_once(a.r, g) || !ran_once(kept.r, g))
				fprintf(stderr, "  %s on graph %d: not every task once\n",
					policies[i], k);
			CHECK(ran_once(a.r, g));
			CHECK(ran_once(kept.r, g));
			/* The same seed, the same run. */
			CHECK(a.r->makespan == b.r->makespan && a.r->messages == b.r->messages &&
			      a.r->bytes_moved == b.r->bytes_moved && a.r->events == b.r->events);
			CHECK(a.r->makespan >= a.r->lb_makespan * (1 - 1e-9));
			CHECK(a.r->flow);
			/* Every intermediate file deleted; kept with keep=1. */
			if (a.r->intermediate_end != 0)
				fprintf(stderr, "  %s on graph %d left %.0f bytes\n", policies[i],
					k, a.r->intermediate_end);
			CHECK_NEAR(a.r->intermediate_end, 0, 0);
			CHECK(kept.r->intermediate_end > 0);
			CHECK(counter(a.r, "drops") > 0);
			CHECK_EQ_INT(counter(kept.r, "drops"), 0);
			/* The final outputs are on the file system. */
			CHECK(a.r->fs_bytes_written > 0);
			locus_result_destroy(a.r);
			locus_result_destroy(b.r);
			locus_result_destroy(kept.r);
		}
		locus_workload_destroy(wl);
		locus_graph_destroy(g);
	}
	locus_platform_destroy(p);
}

/* The most copies out of one node at once in r's transfers (those from
 * the file system aside): a sweep of their [start, end) intervals. */
struct edge {
	double t;
	int d;
};

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->d - y->d; /* an end before a start at the same time */
}

static int most_out_of_one_node(const struct locus_result *r, size_t n_nodes)
{
	int most = 0;
	struct edge *e = malloc((2 * r->n_xfers + 1) * sizeof *e);
	for (uint32_t src = 0; e && src < n_nodes; src++) {
		size_t n = 0;
		for (size_t i = 0; i < r->n_xfers; i++)
			if (r->xfers[i].from == src) {
				e[n++] = (struct edge){r->xfers[i].start, 1};
				e[n++] = (struct edge){r->xfers[i].end, -1};
			}
		qsort(e, n, sizeof *e, cmp_edge);
		int now = 0;
		for (size_t i = 0; i < n; i++) {
			now += e[i].d;
			if (now > most)
				most = now;
		}
	}
	free(e);
	return most;
}

/* Two 50 MB files, each written by one task and read by 40 tasks of 1 s
 * (the file system's workflow input too): many nodes want them at once. */
static struct locus_graph *broadcast(void)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	locus_graph_create(&g, "broadcast", &err);
	long stage = locus_graph_stage(g, "read");
	uint32_t in = (uint32_t)locus_graph_add_object(g, "input", 1000000);
	for (int f = 0; f < 2; f++) {
		char nm[32];
		snprintf(nm, sizeof nm, "make_%d", f);
		uint32_t src = (uint32_t)locus_graph_add_task(g, nm, 1);
		snprintf(nm, sizeof nm, "big_%d", f);
		uint32_t o = (uint32_t)locus_graph_add_object(g, nm, 50000000);
		locus_graph_add_input(g, src, in);
		locus_graph_add_output(g, src, o, &err);
		for (int i = 0; i < 40; i++) {
			snprintf(nm, sizeof nm, "read_%d_%d", f, i);
			uint32_t t = (uint32_t)locus_graph_add_task(g, nm, 1);
			locus_graph_set_stage(g, t, (uint32_t)stage);
			locus_graph_add_input(g, t, o);
			locus_graph_add_input(g, t, in);
			snprintf(nm, sizeof nm, "out_%d_%d", f, i);
			locus_graph_add_output(g, t, (uint32_t)locus_graph_add_object(g, nm, 100),
					       &err);
		}
	}
	if (locus_graph_finish(g, &err)) {
		locus_graph_destroy(g);
		return NULL;
	}
	return g;
}

/* TaskVine's worker-source-max-transfers: never more than K copies out of
 * one node at once, and the queue at the manager fills when K is small;
 * without the limit a node serves more. Every task still runs once. */
TEST(taskvine_serves_at_most_k_copies_a_node)
{
	struct locus_platform *p = cluster(16, 2);
	struct locus_graph *g = broadcast();
	struct locus_workload *wl = NULL;
	struct locus_error err;
	CHECK(g != NULL);
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	static const struct {
		const char *opts;
		int k;
	} cases[] = {{"max_transfers=1", 1}, {"max_transfers=3", 3}, {NULL, 10}};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct run x = simulate(wl, "taskvine", cases[c].opts, 1, 1);
		CHECK_EQ_INT(x.rc, 0);
		CHECK(ran_once(x.r, g));
		int most = most_out_of_one_node(x.r, p->n_nodes);
		fprintf(stderr,
			"  %s: at most %d copies out of a node, %llu waited, makespan %.2f s\n",
			cases[c].opts ? cases[c].opts : "default", most,
			(unsigned long long)counter(x.r, "queued_copies"), x.r->makespan);
		/* The limit holds, and is reached. */
		CHECK(most <= cases[c].k);
		CHECK(most == cases[c].k || cases[c].k == 10);
		if (cases[c].k < 10)
			CHECK(counter(x.r, "queued_copies") > 0);
		CHECK(counter(x.r, "peer_copies") > 0);
		locus_result_destroy(x.r);
	}
	/* The check can fail: without a limit a node serves more than 3. */
	struct run free_run = simulate(wl, "taskvine", "max_transfers=1000", 1, 1);
	CHECK_EQ_INT(free_run.rc, 0);
	CHECK(most_out_of_one_node(free_run.r, p->n_nodes) > 3);
	CHECK_EQ_INT(counter(free_run.r, "queued_copies"), 0);
	locus_result_destroy(free_run.r);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

/* Whether some task reached a worker before the worker's previous task
 * ended (it was queued there). */
static int queued_at_a_worker(const struct locus_result *r, size_t n_tasks)
{
	uint32_t *order = malloc(n_tasks * sizeof *order);
	int queued = 0;
	for (size_t w = 0; order && w < r->n_workers && !queued; w++) {
		size_t n = 0;
		for (uint32_t t = 0; t < n_tasks; t++)
			if (r->tasks[t].worker == w)
				order[n++] = t;
		/* In the order they started (one core runs one at a time). */
		for (size_t i = 1; i < n; i++)
			for (size_t j = i;
			     j > 0 && r->tasks[order[j]].start < r->tasks[order[j - 1]].start;
			     j--) {
				uint32_t x = order[j];
				order[j] = order[j - 1];
				order[j - 1] = x;
			}
		for (size_t i = 1; i < n && !queued; i++)
			queued = r->tasks[order[i]].assigned < r->tasks[order[i - 1]].end;
	}
	free(order);
	return queued;
}

/* One file on one node that 64 tasks of 10 s read: data-aware placement
 * piles them up where the file is. */
static struct locus_graph *pile(void)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	locus_graph_create(&g, "pile", &err);
	long s0 = locus_graph_stage(g, "src"), s1 = locus_graph_stage(g, "work");
	uint32_t src = (uint32_t)locus_graph_add_task(g, "src", 1);
	uint32_t f = (uint32_t)locus_graph_add_object(g, "f", 1000);
	locus_graph_set_stage(g, src, (uint32_t)s0);
	locus_graph_add_output(g, src, f, &err);
	for (int i = 0; i < 64; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "t%d", i);
		uint32_t t = (uint32_t)locus_graph_add_task(g, nm, 10);
		locus_graph_set_stage(g, t, (uint32_t)s1);
		locus_graph_add_input(g, t, f);
	}
	if (locus_graph_finish(g, &err)) {
		locus_graph_destroy(g);
		return NULL;
	}
	return g;
}

/* TaskVine sends a task only to a free core: no task reaches a worker
 * before the one it ran before ended, in any workflow. Dask queues tasks
 * at workers, which the same check sees. */
TEST(taskvine_sends_only_to_free_cores)
{
	struct locus_platform *p = cluster(6, 2);
	for (int k = 0; k < N_GRAPHS; k++) {
		struct locus_graph *g = graph(k);
		struct locus_workload *wl = NULL;
		struct locus_error err;
		CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
		struct run x = simulate(wl, "taskvine", "max_transfers=2", 0, 5);
		CHECK_EQ_INT(x.rc, 0);
		CHECK(ran_once(x.r, g));
		CHECK(!queued_at_a_worker(x.r, g->n_tasks));
		locus_result_destroy(x.r);
		locus_workload_destroy(wl);
		locus_graph_destroy(g);
	}
	struct locus_graph *g = pile();
	struct locus_workload *wl = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run tv = simulate(wl, "taskvine", NULL, 0, 1), dk = simulate(wl, "dask", NULL, 0, 1);
	CHECK(!tv.rc && !dk.rc);
	CHECK(!queued_at_a_worker(tv.r, g->n_tasks));
	CHECK(queued_at_a_worker(dk.r, g->n_tasks));
	/* With free cores elsewhere, TaskVine spreads the pile at once. */
	CHECK(tv.r->makespan < 70);
	locus_result_destroy(tv.r);
	locus_result_destroy(dk.r);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

/* A chain of 12 tasks, each reading the one before's 200 MB output: Dask
 * places each where its dependency is, so the chain stays on one node and
 * nothing moves between nodes (TaskVine too: the node caching the most). */
TEST(dask_keeps_a_chain_on_one_node)
{
	struct locus_platform *p = cluster(4, 2);
	struct locus_graph *g = NULL;
	struct locus_error err;
	locus_graph_create(&g, "chain", &err);
	long stage = locus_graph_stage(g, "step");
	uint32_t prev = (uint32_t)locus_graph_add_object(g, "start", 1000);
	for (int i = 0; i < 12; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "step%d", i);
		uint32_t t = (uint32_t)locus_graph_add_task(g, nm, 2);
		locus_graph_set_stage(g, t, (uint32_t)stage);
		locus_graph_add_input(g, t, prev);
		snprintf(nm, sizeof nm, "data%d", i);
		prev = (uint32_t)locus_graph_add_object(g, nm, 200000000);
		locus_graph_add_output(g, t, prev, &err);
	}
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	struct locus_workload *wl = NULL;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	for (size_t i = 0; i < N_POLICIES; i++) {
		struct run x = simulate(wl, policies[i], NULL, 1, 1);
		CHECK_EQ_INT(x.rc, 0);
		CHECK(ran_once(x.r, g));
		for (uint32_t t = 1; t < g->n_tasks; t++)
			CHECK_EQ_INT(x.r->tasks[t].node, x.r->tasks[0].node);
		/* No copy between nodes (the start file and the last output go
		 * through the file system only). */
		for (size_t k = 0; k < x.r->n_xfers; k++)
			CHECK(x.r->xfers[k].from == UINT32_MAX || x.r->xfers[k].to == UINT32_MAX);
		CHECK_EQ_INT(x.r->stages[stage].bytes_peer, 0);
		CHECK_NEAR(x.r->intermediate_end, 0, 0);
		locus_result_destroy(x.r);
	}
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

/* Dask's work stealing: the pile-up all lands on the file's node
 * (decide_worker's candidates hold a dependency); with stealing the idle
 * nodes take queued tasks and the run is much shorter, every task once,
 * with the durations learned or known. */
TEST(dask_stealing_balances_a_pile_up)
{
	struct locus_platform *p = cluster(8, 2);
	struct locus_graph *g = pile();
	struct locus_workload *wl = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run none = simulate(wl, "dask", "steal=0", 0, 1);
	struct run on = simulate(wl, "dask", NULL, 0, 1);
	struct run known = simulate(wl, "dask", "durations=known", 0, 1);
	CHECK(!none.rc && !on.rc && !known.rc);
	CHECK(ran_once(none.r, g) && ran_once(on.r, g) && ran_once(known.r, g));
	/* Without stealing: 64 tasks of 10 s on one node's 2 cores. */
	CHECK(none.r->makespan > 320);
	CHECK_EQ_INT(counter(none.r, "steals"), 0);
	CHECK_EQ_INT(counter(none.r, "balances"), 0);
	uint32_t n0 = none.r->tasks[1].node;
	for (uint32_t t = 1; t < g->n_tasks; t++)
		CHECK_EQ_INT(none.r->tasks[t].node, n0);
	fprintf(stderr,
		"  makespan: no stealing %.1f s, stealing %.1f s (%llu steals), known "
		"durations %.1f s\n",
		none.r->makespan, on.r->makespan, (unsigned long long)counter(on.r, "steals"),
		known.r->makespan);
	CHECK(counter(on.r, "steals") > 0);
	CHECK(counter(known.r, "steals") > 0);
	CHECK(on.r->makespan < none.r->makespan * 0.5);
	CHECK(known.r->makespan < none.r->makespan * 0.5);
	/* Stolen tasks ran elsewhere; what they fetched there was deleted. */
	size_t away = 0;
	for (uint32_t t = 1; t < g->n_tasks; t++)
		away += on.r->tasks[t].node != on.r->tasks[1].node;
	CHECK(away > 0);
	CHECK_NEAR(on.r->intermediate_end, 0, 0);
	locus_result_destroy(none.r);
	locus_result_destroy(on.r);
	locus_result_destroy(known.r);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

/* Stealing tasks whose dependencies are still on their way: a big file
 * read by many tasks of a stage wide enough to queue; the victims give up
 * queued tasks whose copies have not come, which are deleted when they
 * do. */
TEST(dask_steals_tasks_still_fetching)
{
	struct locus_platform *p = cluster(6, 1);
	struct locus_graph *g = NULL;
	struct locus_error err;
	locus_graph_create(&g, "fetching", &err);
	long s0 = locus_graph_stage(g, "make"), s1 = locus_graph_stage(g, "use");
	uint32_t files[3];
	for (int f = 0; f < 3; f++) {
		char nm[16];
		snprintf(nm, sizeof nm, "make%d", f);
		uint32_t t = (uint32_t)locus_graph_add_task(g, nm, 1 + f);
		locus_graph_set_stage(g, t, (uint32_t)s0);
		snprintf(nm, sizeof nm, "f%d", f);
		files[f] = (uint32_t)locus_graph_add_object(g, nm, 400000000);
		locus_graph_add_output(g, t, files[f], &err);
	}
	for (int i = 0; i < 30; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "use%d", i);
		uint32_t t = (uint32_t)locus_graph_add_task(g, nm, 5 + i % 4);
		locus_graph_set_stage(g, t, (uint32_t)s1);
		locus_graph_add_input(g, t, files[i % 3]);
		locus_graph_add_input(g, t, files[(i + 1) % 3]);
	}
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	struct locus_workload *wl = NULL;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run a = simulate(wl, "dask", "steal_interval=0.25", 0, 2),
		   b = simulate(wl, "dask", "steal_interval=0.25", 0, 2);
	CHECK(!a.rc && !b.rc);
	CHECK(ran_once(a.r, g));
	CHECK(counter(a.r, "steals") > 0);
	fprintf(stderr, "  %llu steals, %llu copies came after their task left\n",
		(unsigned long long)counter(a.r, "steals"),
		(unsigned long long)counter(a.r, "late_copies"));
	CHECK(counter(a.r, "late_copies") > 0);
	CHECK_NEAR(a.r->intermediate_end, 0, 0);
	CHECK(a.r->makespan == b.r->makespan && a.r->events == b.r->events);
	locus_result_destroy(a.r);
	locus_result_destroy(b.r);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

/* A copy that comes after its file was released: T reads f (4 GB, on
 * n00) and h (on n01); n00 is busy for 100 s, so T goes to n01, whose
 * slow link (42.5 MB/s) brings f in 94 s while a 50 s task runs there.
 * The idle n02 steals T, fetches f over its fast link, runs T and ends
 * f's last reader: f is deleted, but the copy to n01 goes on and lands
 * later; n01 says so and the scheduler deletes it there too. */
TEST(dask_deletes_a_copy_that_comes_late)
{
	const char *json = "{\"format\": \"locus-platform\", \"version\": 1, \"network\": "
			   "{\"latency\": 5e-5}, \"defaults\": {\"cores\": 1, \"disk_bw\": 1e9, "
			   "\"net_bw\": 4.25e8}, \"nodes\": [{\"name\": \"n00\"}, {\"name\": "
			   "\"n01\", \"net_bw\": 4.25e7}, {\"name\": \"n02\"}, {\"name\": "
			   "\"sched\", \"cores\": 0}]}";
	struct locus_platform *p = NULL;
	struct locus_graph *g = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_platform_parse(&p, json, strlen(json), "slow", &err), 0);
	locus_graph_create(&g, "late", &err);
	long st = locus_graph_stage(g, "all");
	uint32_t p1 = (uint32_t)locus_graph_add_task(g, "p1", 1);
	uint32_t p2 = (uint32_t)locus_graph_add_task(g, "p2", 1);
	uint32_t l = (uint32_t)locus_graph_add_task(g, "long", 100);
	uint32_t m = (uint32_t)locus_graph_add_task(g, "mid", 50);
	uint32_t t = (uint32_t)locus_graph_add_task(g, "t", 1);
	uint32_t f = (uint32_t)locus_graph_add_object(g, "f", 4000000000u);
	uint32_t a = (uint32_t)locus_graph_add_object(g, "a", 1000);
	uint32_t h = (uint32_t)locus_graph_add_object(g, "h", 1000);
	for (uint32_t k = p1; k <= t; k++)
		locus_graph_set_stage(g, k, (uint32_t)st);
	locus_graph_add_output(g, p1, f, &err);
	locus_graph_add_output(g, p1, a, &err);
	locus_graph_add_output(g, p2, h, &err);
	locus_graph_add_input(g, l, a);
	locus_graph_add_input(g, m, h);
	locus_graph_add_input(g, t, f);
	locus_graph_add_input(g, t, h);
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	struct locus_workload *wl = NULL;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	struct run x = simulate(wl, "dask", "durations=known,bandwidth=4.25e8", 1, 1);
	CHECK_EQ_INT(x.rc, 0);
	CHECK(ran_once(x.r, g));
	CHECK_EQ_INT(x.r->tasks[l].node, 0);
	CHECK_EQ_INT(x.r->tasks[m].node, 1);
	CHECK_EQ_INT(x.r->tasks[t].node, 2);
	CHECK_EQ_INT(counter(x.r, "steals"), 1);
	/* f reached n01 after T, its last reader, had ended. */
	double to_n01 = -1;
	for (size_t k = 0; k < x.r->n_xfers; k++)
		if (x.r->xfers[k].object == f && x.r->xfers[k].to == 1)
			to_n01 = x.r->xfers[k].end;
	CHECK(to_n01 > x.r->tasks[t].end);
	CHECK(counter(x.r, "late_copies") >= 1);
	CHECK_NEAR(x.r->intermediate_end, 0, 0);
	locus_result_destroy(x.r);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

/* The scheduler sits on the node without cores, else on node 0. */
TEST(scheduler_node)
{
	struct locus_platform *p = cluster(3, 2);
	struct locus_graph *g = test_workflow_montage(4);
	struct locus_workload *wl = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	for (size_t i = 0; i < N_POLICIES; i++) {
		const struct locus_policy *pol = locus_policy_find(policies[i]);
		CHECK(pol != NULL && pol->version >= 3 && pol->scheduler_node);
		CHECK(locus_policy_flags(pol) & LOCUS_POLICY_GRAPHS);
		CHECK_EQ_INT(pol->schedulers(1000, 0), 1);
		CHECK_EQ_INT(pol->scheduler_node(wl, 1, 0), 3);
	}
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	p = NULL;
	const char *json = "{\"format\": \"locus-platform\", \"version\": 1, \"defaults\": "
			   "{\"cores\": 2}, \"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}]}";
	CHECK_EQ_INT(locus_platform_parse(&p, json, strlen(json), "two", &err), 0);
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	for (size_t i = 0; i < N_POLICIES; i++) {
		CHECK_EQ_INT(locus_policy_find(policies[i])->scheduler_node(wl, 1, 0), 0);
		struct run x = simulate(wl, policies[i], NULL, 0, 1);
		CHECK_EQ_INT(x.rc, 0);
		CHECK(ran_once(x.r, g));
		locus_result_destroy(x.r);
	}
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

/* Options are checked, and the errors name them. */
TEST(options)
{
	struct locus_platform *p = cluster(2, 1);
	struct locus_graph *g = test_workflow_montage(4);
	struct locus_workload *wl = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	static const struct {
		const char *policy, *opts, *says;
	} bad[] = {
	    {"taskvine", "max_transfers=0", "max_transfers=0"},
	    {"taskvine", "max_transfers=x", "max_transfers=x"},
	    {"taskvine", "max_transfers=2.5", "whole number"},
	    {"taskvine", "keep=2", "keep=2"},
	    {"taskvine", "keep=0.5", "keep is 0"},
	    {"taskvine", "steal=1", "\"steal\""},
	    {"dask", "steal=2", "steal=2"},
	    {"dask", "steal=0.5", "steal is 0"},
	    {"dask", "steal_interval=0", "steal_interval=0"},
	    {"dask", "durations=guess", "learned, known"},
	    {"dask", "unknown=-1", "unknown=-1"},
	    {"dask", "bandwidth=0", "bandwidth=0"},
	    {"dask", "keep=yes", "keep=yes"},
	    {"dask", "max_transfers=3", "\"max_transfers\""},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct run x = simulate(wl, bad[i].policy, bad[i].opts, 0, 1);
		CHECK_EQ_INT(x.rc, LOCUS_EINVAL);
		if (!strstr(x.msg, bad[i].says))
			fprintf(stderr, "  %s %s: \"%s\"\n", bad[i].policy, bad[i].opts, x.msg);
		CHECK(strstr(x.msg, bad[i].says) != NULL);
	}
	/* One scheduler. */
	for (size_t i = 0; i < N_POLICIES; i++) {
		struct locus_sim_config cfg = {.wl = wl,
					       .policy = locus_policy_find(policies[i]),
					       .schedulers = 2,
					       .latency = -1};
		struct locus_result *r = NULL;
		CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), LOCUS_EINVAL);
		CHECK(strstr(err.message, "runs 1 scheduler, not 2"));
		cfg.schedulers = 1;
		CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), 0);
		CHECK(r && r->tasks_done == g->n_tasks);
		locus_result_destroy(r);
	}
	/* Good ones are taken. */
	struct run x = simulate(wl, "taskvine", "max_transfers=1,keep=1", 0, 1);
	CHECK_EQ_INT(x.rc, 0);
	locus_result_destroy(x.r);
	x = simulate(wl, "dask",
		     "steal=0,steal_interval=0.5,durations=known,unknown=2,bandwidth=1e9,keep=0", 0,
		     1);
	CHECK_EQ_INT(x.rc, 0);
	locus_result_destroy(x.r);
	locus_workload_destroy(wl);
	locus_graph_destroy(g);
	locus_platform_destroy(p);
}

TEST_MAIN(TEST_ENTRY(every_task_once_and_nothing_left),
	  TEST_ENTRY(taskvine_serves_at_most_k_copies_a_node),
	  TEST_ENTRY(taskvine_sends_only_to_free_cores), TEST_ENTRY(dask_keeps_a_chain_on_one_node),
	  TEST_ENTRY(dask_stealing_balances_a_pile_up),
	  TEST_ENTRY(dask_steals_tasks_still_fetching),
	  TEST_ENTRY(dask_deletes_a_copy_that_comes_late), TEST_ENTRY(scheduler_node),
	  TEST_ENTRY(options))
