/*
 * The simulator engine, checked against schedules computed by hand with a
 * test policy whose decisions are fixed in advance, and the conformance of
 * every registered policy: each task executed exactly once, locality never
 * above the optimum, makespan never below the bound, same seed same result.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

/* ---- a scripted policy: worker w runs script[w][0], script[w][1], ... --- */

#define MAXW 8
#define MAXT 16
#define REQ  (LOCUS_MSG_USER + 1)

struct scripted {
	size_t n_workers;
	int script[MAXW][MAXT]; /* task ids, -1 ends */
	int next[MAXW];
	double request_time[MAXW][MAXT];
	int requests;
	double cost_entries;
};

static struct scripted script_state;

static size_t scripted_schedulers(size_t n, size_t req)
{
	(void)n;
	(void)req;
	return 1;
}

static int scripted_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *e)
{
	(void)e;
	script_state.n_workers = ctx->n_workers;
	*state = &script_state;
	return 0;
}

static void scripted_destroy(void *state)
{
	(void)state;
}

static void scripted_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct scripted *s = state;
	uint32_t master = (uint32_t)s->n_workers;
	if (ev->proc < master) {
		if (ev->kind == LOCUS_EV_START || ev->kind == LOCUS_EV_DONE) {
			struct locus_msg m = {
			    .type = REQ, .from = ev->proc, .to = master, .n_args = 1};
			m.arg[0] = ev->proc;
			locus_act_send(act, &m);
		}
		return;
	}
	if (ev->kind != LOCUS_EV_MESSAGE || ev->msg->type != REQ)
		return;
	uint32_t w = (uint32_t)ev->msg->arg[0];
	int k = s->next[w];
	s->request_time[w][k] = ev->now;
	s->requests++;
	locus_act_cost(act, (uint64_t)s->cost_entries);
	int t = s->script[w][k];
	if (t < 0) {
		locus_act_stop(act, w);
		return;
	}
	s->next[w]++;
	locus_act_assign(act, master, w, (uint32_t)t, -1);
}

/* A version 1 policy: the members before version 2's flags. */
static const struct locus_policy scripted_policy = {
    .version = 1,
    .name = "scripted",
    .summary = "test",
    .schedulers = scripted_schedulers,
    .create = scripted_create,
    .destroy = scripted_destroy,
    .on_event = scripted_event,
};

static void script(int w, const int *tasks, int n)
{
	for (int i = 0; i < n; i++)
		script_state.script[w][i] = tasks[i];
	script_state.script[w][n] = -1;
}

/* A platform of `n` nodes with `cores` each: disks 100 MB/s, links
 * 125 MB/s, speed 1, latency `lat`. */
static struct locus_platform *platform(int n, int cores, double lat, const char *racks)
{
	char json[4096];
	int k = snprintf(
	    json, sizeof json,
	    "{\"format\": \"locus-platform\", \"version\": 1, \"network\": {\"latency\": %g},"
	    " \"defaults\": {\"cores\": %d, \"disk_bw\": 1e8, \"net_bw\": 1.25e8}, \"nodes\": [",
	    lat, cores);
	for (int i = 0; i < n; i++)
		k += snprintf(json + k, sizeof json - (size_t)k,
			      "%s{\"name\": \"n%d\", \"rack\": \"/r%c\"}", i ? ", " : "", i,
			      racks ? racks[i] : 'a');
	snprintf(json + k, sizeof json - (size_t)k, "]}");
	struct locus_platform *p = NULL;
	struct locus_error err;
	locus_platform_parse(&p, json, strlen(json), "test", &err);
	return p;
}

/* A catalog of one dataset whose chunk t is `bytes[t]` bytes on the nodes
 * listed in holders[t] (a string of node digits, "" for none). */
static struct locus_catalog *catalog(int n_nodes, int n, const uint64_t *bytes,
				     const char **holders)
{
	struct locus_catalog *cat;
	locus_catalog_create(&cat);
	for (int i = 0; i < n_nodes; i++) {
		char name[16];
		snprintf(name, sizeof name, "n%d", i);
		locus_catalog_add_host(cat, name, NULL);
	}
	long d = locus_catalog_add_dataset(cat, "d");
	for (int t = 0; t < n; t++) {
		uint32_t reps[8];
		uint32_t k = 0;
		for (const char *h = holders[t]; *h; h++)
			reps[k++] = (uint32_t)(*h - '0');
		locus_catalog_add_chunk(cat, (size_t)d, bytes[t], reps, k, 0);
	}
	return cat;
}

static struct locus_workload *workload(struct locus_platform *p, struct locus_catalog *cat,
				       const char *work)
{
	struct locus_work_spec spec;
	struct locus_error err;
	struct locus_workload *wl = NULL;
	if (locus_work_spec_parse(&spec, work, &err))
		return NULL;
	locus_workload_build(&wl, p, cat, NULL, &spec, 1, &err);
	locus_work_spec_fini(&spec);
	return wl;
}

/* Message delay on these platforms: latency + bytes / 125 MB/s; a request
 * carries one argument (24 bytes), an assignment two (32 bytes). */
#define REQ_D(lat) ((lat) + 24 / 1.25e8)
#define ASG_D(lat) ((lat) + 32 / 1.25e8)

TEST(local_reads_and_compute_exactly)
{
	double lat = 1e-3;
	struct locus_platform *p = platform(2, 1, lat, NULL);
	uint64_t bytes[] = {100000000, 50000000, 100000000};
	const char *holders[] = {"0", "0", "1"};
	struct locus_catalog *cat = catalog(2, 3, bytes, holders);
	struct locus_workload *wl = workload(p, cat, "fixed:2");
	CHECK(wl != NULL);
	memset(&script_state, 0, sizeof script_state);
	script(0, (int[]){0, 1}, 2);
	script(1, (int[]){2}, 1);
	struct locus_sim_config cfg = {.wl = wl, .policy = &scripted_policy, .latency = -1};
	struct locus_result *r;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), 0);
	/* Worker 0: request reaches the master, the assignment comes back,
	 * 1 s to read 100 MB at 100 MB/s, 2 s to compute. */
	double a0 = REQ_D(lat) + ASG_D(lat);
	CHECK_NEAR(r->tasks[0].assigned, a0, 1e-12);
	CHECK_NEAR(r->tasks[0].read_end, a0 + 1.0, 1e-9);
	CHECK_NEAR(r->tasks[0].end, a0 + 3.0, 1e-9);
	double a1 = a0 + 3.0 + REQ_D(lat) + ASG_D(lat);
	CHECK_NEAR(r->tasks[1].assigned, a1, 1e-9);
	CHECK_NEAR(r->tasks[1].end, a1 + 0.5 + 2.0, 1e-9);
	CHECK_NEAR(r->tasks[2].end, a0 + 3.0, 1e-9);
	CHECK_NEAR(r->makespan, a1 + 2.5, 1e-9);
	CHECK_EQ_INT(r->local_tasks, 3);
	CHECK_EQ_INT(r->bytes_remote, 0);
	CHECK_EQ_INT(r->tasks[1].worker, 0);
	CHECK_EQ_INT(r->tasks[2].node, 1);
	/* Waits: each assignment comes a round trip after the worker is free. */
	CHECK_NEAR(r->wait_max, a0, 1e-9);
	CHECK_NEAR(r->workers[0].busy, 5.5, 1e-9);
	/* Every request got an answer, including the two final ones. */
	CHECK_EQ_INT(script_state.requests, 5);
	CHECK_EQ_INT(r->messages, 5 + 3);
	/* Lower bounds: 6 s of work over 2 workers; 250 MB from two 100 MB/s
	 * disks; one 100 MB task read at 125 MB/s at best, then computed;
	 * each worker reading (at 125 MB/s at best) then computing its share,
	 * (6 + 250 / 125) / 2, the largest. */
	CHECK_NEAR(r->lb_work, 3.0, 1e-12);
	CHECK_NEAR(r->lb_io, 1.25, 1e-12);
	CHECK_NEAR(r->lb_longest, 2.8, 1e-12);
	CHECK_NEAR(r->lb_serial, 4.0, 1e-12);
	CHECK_NEAR(r->lb_makespan, 4.0, 1e-12);
	CHECK(r->makespan >= r->lb_makespan);
	locus_result_destroy(r);
	locus_workload_destroy(wl);
	locus_catalog_destroy(cat);
	locus_platform_destroy(p);
}

TEST(shared_disk_and_remote_reads)
{
	/* Two workers on node 0 read at once from its disk: 50 MB/s each.
	 * A worker on node 1 reads a chunk held only by node 0: its disk,
	 * node 0's outgoing link and node 1's incoming link, so max-min gives
	 * all three readers 100/3 MB/s while the disk is the bottleneck. */
	struct locus_platform *p = platform(2, 2, 0, NULL);
	uint64_t bytes[] = {100000000, 100000000, 100000000};
	const char *holders[] = {"0", "0", "0"};
	struct locus_catalog *cat = catalog(2, 3, bytes, holders);
	struct locus_workload *wl = workload(p, cat, "fixed:0");
	memset(&script_state, 0, sizeof script_state);
	script(0, (int[]){0}, 1);
	script(1, (int[]){1}, 1);
	script(2, (int[]){2}, 1);
	script(3, NULL, 0);
	struct locus_sim_config cfg = {.wl = wl, .policy = &scripted_policy, .latency = 0};
	struct locus_result *r;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), 0);
	double d = REQ_D(0) + ASG_D(0);
	/* All three finish together: 300 MB through a 100 MB/s disk. */
	CHECK_NEAR(r->tasks[0].end, d + 3.0, 1e-9);
	CHECK_NEAR(r->tasks[2].end, d + 3.0, 1e-9);
	CHECK_EQ_INT(r->tasks[2].local, 0);
	CHECK_EQ_INT(r->tasks[2].source, 0);
	CHECK_EQ_INT(r->local_tasks, 2);
	CHECK_EQ_INT(r->bytes_remote, 100000000);
	locus_result_destroy(r);
	locus_workload_destroy(wl);
	locus_catalog_destroy(cat);
	locus_platform_destroy(p);
}

/* A platform JSON text of a store (node 0: no cores, a fast disk, at most
 * `slots` remote reads at once) and two one-core nodes, links 125 MB/s. */
static struct locus_platform *store_platform(double lat, int slots)
{
	char json[1024];
	snprintf(json, sizeof json,
		 "{\"format\": \"locus-platform\", \"version\": 1, \"network\": {\"latency\": "
		 "%g}, \"defaults\": {\"cores\": 1, \"disk_bw\": 1e8, \"net_bw\": 1.25e8}, "
		 "\"nodes\": [{\"name\": \"n0\", \"cores\": 0, \"disk_bw\": 1e12, "
		 "\"max_transfers\": %d}, {\"name\": \"n1\"}, {\"name\": \"n2\"}]}",
		 lat, slots);
	struct locus_platform *p = NULL;
	struct locus_error err;
	locus_platform_parse(&p, json, strlen(json), "test", &err);
	return p;
}

TEST(remote_reads_pay_latency_and_wait_for_a_slot)
{
	/* Both workers (nodes 1 and 2) read 125 MB held only by the store. A
	 * remote read starts one latency after it gets a transfer slot; with
	 * one slot they go in turn at 125 MB/s, with any number they share
	 * the store's link. */
	double lat = 0.01;
	uint64_t bytes[] = {125000000, 125000000};
	const char *holders[] = {"0", "0"};
	for (int slots = 0; slots <= 1; slots++) {
		struct locus_platform *p = store_platform(lat, slots);
		CHECK(p != NULL);
		struct locus_catalog *cat = catalog(3, 2, bytes, holders);
		struct locus_workload *wl = workload(p, cat, "fixed:0");
		CHECK(wl != NULL);
		CHECK_EQ_INT(wl->n_workers, 2);
		memset(&script_state, 0, sizeof script_state);
		script(0, (int[]){0}, 1);
		script(1, (int[]){1}, 1);
		struct locus_sim_config cfg = {.wl = wl, .policy = &scripted_policy, .latency = -1};
		struct locus_result *r;
		struct locus_error err = {0};
		CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), 0);
		double a = REQ_D(lat) + ASG_D(lat);
		CHECK_NEAR(r->tasks[0].assigned, a, 1e-12);
		CHECK_NEAR(r->tasks[1].assigned, a, 1e-12);
		if (slots == 1) {
			CHECK_NEAR(r->tasks[0].read_end, a + lat + 1.0, 1e-9);
			CHECK_NEAR(r->tasks[1].read_end, a + 2 * (lat + 1.0), 1e-9);
		} else {
			CHECK_NEAR(r->tasks[0].read_end, a + lat + 2.0, 1e-9);
			CHECK_NEAR(r->tasks[1].read_end, a + lat + 2.0, 1e-9);
		}
		CHECK_EQ_INT(r->tasks[1].source, 0);
		CHECK_EQ_INT(r->local_tasks, 0);
		CHECK(r->makespan >= r->lb_makespan);
		locus_result_destroy(r);
		locus_workload_destroy(wl);
		locus_catalog_destroy(cat);
		locus_platform_destroy(p);
	}
}

TEST(reads_across_racks_share_the_uplinks)
{
	/* Racks a = {n0} and b = {n1, n2} with 50 MB/s uplinks each way. The
	 * worker of n1 reads 100 MB from n0 across racks: 50 MB/s, 2 s. The
	 * worker of n2 reads 100 MB from n1 within rack b: n1's disk, 1 s. */
	const char *json =
	    "{\"format\": \"locus-platform\", \"version\": 1, \"network\": "
	    "{\"latency\": 0, \"rack_bw\": 5e7}, \"defaults\": {\"disk_bw\": 1e8, "
	    "\"net_bw\": 1.25e8}, \"nodes\": [{\"name\": \"n0\", \"rack\": \"/a\", "
	    "\"cores\": 0}, {\"name\": \"n1\", \"rack\": \"/b\"}, {\"name\": \"n2\", "
	    "\"rack\": \"/b\"}]}";
	struct locus_platform *p = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_platform_parse(&p, json, strlen(json), "test", &err), 0);
	uint64_t bytes[] = {100000000, 100000000};
	const char *holders[] = {"0", "1"};
	struct locus_catalog *cat = catalog(3, 2, bytes, holders);
	struct locus_workload *wl = workload(p, cat, "fixed:0");
	CHECK(wl != NULL);
	memset(&script_state, 0, sizeof script_state);
	script(0, (int[]){0}, 1); /* worker 0 runs on n1 */
	script(1, (int[]){1}, 1); /* worker 1 on n2 */
	struct locus_sim_config cfg = {.wl = wl, .policy = &scripted_policy, .latency = -1};
	struct locus_result *r;
	CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), 0);
	double a = REQ_D(0) + ASG_D(0);
	CHECK_NEAR(r->tasks[0].read_end, a + 2.0, 1e-9);
	CHECK_NEAR(r->tasks[1].read_end, a + 1.0, 1e-9);
	CHECK_EQ_INT(r->tasks[0].source, 0);
	CHECK_EQ_INT(r->tasks[1].source, 1);
	locus_result_destroy(r);
	locus_workload_destroy(wl);
	locus_catalog_destroy(cat);
	locus_platform_destroy(p);
}

TEST(busy_master_queues_requests)
{
	/* Each decision costs the master 0.5 s: four workers asking at once
	 * are answered at 0.5, 1.0, 1.5 and 2.0 s. */
	struct locus_platform *p = platform(4, 1, 0, NULL);
	uint64_t bytes[] = {0, 0, 0, 0};
	const char *holders[] = {"0", "1", "2", "3"};
	struct locus_catalog *cat = catalog(4, 4, bytes, holders);
	struct locus_workload *wl = workload(p, cat, "fixed:10");
	memset(&script_state, 0, sizeof script_state);
	for (int w = 0; w < 4; w++)
		script(w, (int[]){w}, 1);
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = &scripted_policy,
				       .latency = 0,
				       .cost_per_msg = 0.25,
				       .cost_per_entry = 0.125};
	script_state.cost_entries = 2;
	struct locus_result *r;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), 0);
	double q = REQ_D(0), a = ASG_D(0);
	for (int w = 0; w < 4; w++)
		CHECK_NEAR(r->tasks[w].assigned, q + 0.5 * (w + 1) + a, 1e-9);
	CHECK_NEAR(r->wait_max, q + 2.0 + a, 1e-9);
	CHECK_NEAR(r->scheds[0].busy, 8 * 0.5, 1e-9); /* 4 requests + 4 final ones */
	/* The four first requests arrive together: three wait behind the one
	 * being handled. */
	CHECK_EQ_INT(r->scheds[0].queue_max, 3);
	CHECK(r->scheds[0].queue_mean > 0);
	CHECK_EQ_INT(r->scheds[0].events, 1 + 8); /* its start + 8 requests */
	locus_result_destroy(r);
	locus_workload_destroy(wl);
	locus_catalog_destroy(cat);
	locus_platform_destroy(p);
}

TEST(speed_changes_stretch_compute)
{
	/* 4 s of work on node 0, whose speed halves at t = 1: 1 s done, the
	 * other 3 take 6 s: the task ends at 7. */
	struct locus_platform *p = platform(1, 1, 0, NULL);
	uint64_t bytes[] = {0};
	const char *holders[] = {"0"};
	struct locus_catalog *cat = catalog(1, 1, bytes, holders);
	struct locus_workload *wl = workload(p, cat, "fixed:4");
	memset(&script_state, 0, sizeof script_state);
	script(0, (int[]){0}, 1);
	struct locus_speed_change sc[] = {{1.0, 0, 0.5}, {100.0, 0, 2.0}};
	struct locus_sim_config cfg = {
	    .wl = wl, .policy = &scripted_policy, .latency = 0, .speed = sc, .n_speed = 2};
	struct locus_result *r;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), 0);
	double s = REQ_D(0) + ASG_D(0);
	CHECK_NEAR(r->tasks[0].end, 1.0 + (4.0 - (1.0 - s)) / 0.5, 1e-9);
	locus_result_destroy(r);
	locus_workload_destroy(wl);
	locus_catalog_destroy(cat);
	locus_platform_destroy(p);
}

TEST(policy_mistakes_are_caught)
{
	struct locus_platform *p = platform(2, 1, 0, NULL);
	uint64_t bytes[] = {10, 10};
	const char *holders[] = {"0", "1"};
	struct locus_catalog *cat = catalog(2, 2, bytes, holders);
	struct locus_workload *wl = workload(p, cat, "fixed:1");
	struct locus_result *r;
	struct locus_error err = {0};
	struct locus_sim_config cfg = {.wl = wl, .policy = &scripted_policy, .latency = 0};
	/* The same task to both workers. */
	memset(&script_state, 0, sizeof script_state);
	script(0, (int[]){0}, 1);
	script(1, (int[]){0}, 1);
	CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), LOCUS_EINCOMPLETE);
	CHECK(strstr(err.message, "task 0 twice") != NULL);
	/* A task nobody runs. */
	memset(&script_state, 0, sizeof script_state);
	script(0, (int[]){0}, 1);
	script(1, NULL, 0);
	CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), LOCUS_EINCOMPLETE);
	CHECK(strstr(err.message, "task 1 was never assigned") != NULL);
	locus_workload_destroy(wl);
	locus_catalog_destroy(cat);
	locus_platform_destroy(p);
}

/* A policy that never assigns and polls every second: the run stalls. */
static int polls;

static void poll_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	const struct scripted *s = state;
	if (ev->proc < s->n_workers)
		return;
	if (ev->kind == LOCUS_EV_TIMER)
		polls++;
	if (ev->kind == LOCUS_EV_START || ev->kind == LOCUS_EV_TIMER)
		locus_act_timer(act, ev->proc, 1.0, 0);
}

static const struct locus_policy poll_policy = {
    .version = 1,
    .name = "poller",
    .summary = "test",
    .schedulers = scripted_schedulers,
    .create = scripted_create,
    .destroy = scripted_destroy,
    .on_event = poll_event,
};

/* A run in which only timers fire ends after an hour of simulated time
 * saying it stalled, instead of polling forever. */
TEST(a_stalled_run_ends)
{
	struct locus_platform *p = platform(2, 1, 0, NULL);
	uint64_t bytes[] = {10, 10};
	const char *holders[] = {"0", "1"};
	struct locus_catalog *cat = catalog(2, 2, bytes, holders);
	struct locus_workload *wl = workload(p, cat, "fixed:1");
	struct locus_result *r = NULL;
	struct locus_error err = {0};
	struct locus_sim_config cfg = {.wl = wl, .policy = &poll_policy, .latency = 0};
	memset(&script_state, 0, sizeof script_state);
	polls = 0;
	CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), LOCUS_EINCOMPLETE);
	CHECK(strstr(err.message, "task 0 was never assigned") != NULL);
	CHECK(strstr(err.message, "stalled") != NULL);
	CHECK(polls >= 3599 && polls <= 3601);
	locus_workload_destroy(wl);
	locus_catalog_destroy(cat);
	locus_platform_destroy(p);
}

/* ---- every registered policy ------------------------------------------ */

static struct locus_workload *random_workload(uint64_t seed, struct locus_platform **pp,
					      struct locus_catalog **cp)
{
	struct locus_rng rng;
	locus_rng_init(&rng, seed);
	size_t nodes = 2 + locus_rng_below(&rng, 14);
	int cores = 1 + (int)locus_rng_below(&rng, 3);
	struct locus_platform *p;
	locus_platform_generate(&p, nodes, 1 + locus_rng_below(&rng, 3), cores, "n");
	for (size_t i = 0; i < nodes; i++)
		p->nodes[i].speed = 1.0 + 9.0 * locus_rng_uniform(&rng); /* spread 1:10 */
	size_t n = 1 + locus_rng_below(&rng, 120);
	unsigned r = 1 + (unsigned)locus_rng_below(&rng, nodes < 3 ? nodes : 3);
	struct locus_place_options po = {.policy =
					     (enum locus_place_policy)locus_rng_below(&rng, 2),
					 .replicas = r,
					 .seed = seed};
	uint32_t *where = calloc(n * r, sizeof *where);
	struct locus_error err;
	locus_place(p, n, &po, where, &err);
	struct locus_catalog *cat;
	locus_catalog_create(&cat);
	for (size_t i = 0; i < nodes; i++)
		locus_catalog_add_host(cat, p->nodes[i].name, NULL);
	long d = locus_catalog_add_dataset(cat, "d");
	for (size_t t = 0; t < n; t++)
		locus_catalog_add_chunk(cat, (size_t)d, 1000000 * (1 + locus_rng_below(&rng, 8)),
					where + t * r, r, 0);
	free(where);
	struct locus_work_spec spec = {.dist = LOCUS_WORK_UNIFORM, .lo = 0.5, .hi = 2};
	struct locus_workload *wl;
	locus_workload_build(&wl, p, cat, NULL, &spec, seed, &err);
	*pp = p;
	*cp = cat;
	return wl;
}

TEST(scenarios)
{
	/* Defaults: one rack, one core, 64 MiB chunks, three replicas (or a
	 * copy on every node of a smaller platform), fixed:1. */
	struct locus_scenario_spec spec = {.nodes = 5, .chunks = 20, .seed = 3};
	struct locus_scenario *sc = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_scenario_build(&sc, &spec, &err), 0);
	CHECK_EQ_INT(sc->platform->n_nodes, 5);
	CHECK_EQ_INT(sc->workload->n_workers, 5);
	CHECK_EQ_INT(sc->workload->n_tasks, 20);
	for (size_t t = 0; t < 20; t++) {
		CHECK_EQ_INT(sc->workload->tasks[t].n_holders, 3);
		CHECK_EQ_INT(sc->workload->tasks[t].bytes, 64 << 20);
		CHECK(sc->workload->tasks[t].work == 1);
	}
	locus_scenario_destroy(sc);
	spec = (struct locus_scenario_spec){.nodes = 2,
					    .racks = 4,
					    .cores = 3,
					    .speed_hi = 4,
					    .disk_bw = 5e7,
					    .backbone_bw = 1e9,
					    .chunks = 7,
					    .chunk_size = 1000,
					    .work = "uniform:1:2",
					    .seed = 9};
	CHECK_EQ_INT(locus_scenario_build(&sc, &spec, &err), 0);
	CHECK_EQ_INT(sc->workload->n_workers, 6);
	CHECK(sc->platform->backbone_bw == 1e9 && sc->platform->nodes[1].disk_bw == 5e7);
	CHECK(sc->platform->nodes[0].speed >= 1 && sc->platform->nodes[0].speed <= 4);
	CHECK(sc->platform->nodes[0].speed != sc->platform->nodes[1].speed);
	CHECK_EQ_INT(sc->workload->tasks[6].n_holders, 2);
	CHECK(sc->workload->tasks[0].work >= 1 && sc->workload->tasks[0].work <= 2);
	/* The same spec and seed, the same scenario. */
	struct locus_scenario *again = NULL;
	CHECK_EQ_INT(locus_scenario_build(&again, &spec, &err), 0);
	CHECK(again->platform->nodes[1].speed == sc->platform->nodes[1].speed);
	CHECK(again->workload->tasks[3].work == sc->workload->tasks[3].work);
	locus_scenario_destroy(again);
	locus_scenario_destroy(sc);
	/* What no platform, placement or work spec takes. */
	spec = (struct locus_scenario_spec){.nodes = 0, .chunks = 1};
	CHECK(locus_scenario_build(&sc, &spec, &err) != 0 && sc == NULL);
	spec = (struct locus_scenario_spec){.nodes = 3, .chunks = 1, .replicas = 4};
	CHECK_EQ_INT(locus_scenario_build(&sc, &spec, &err), LOCUS_EINVAL);
	spec = (struct locus_scenario_spec){.nodes = 3, .chunks = 1, .work = "gauss:1"};
	CHECK_EQ_INT(locus_scenario_build(&sc, &spec, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "gauss:1") != NULL);
}

TEST(every_policy_conforms)
{
	int runs = 0;
	for (uint64_t seed = 1; seed <= 60; seed++) {
		struct locus_platform *p;
		struct locus_catalog *cat;
		struct locus_workload *wl = random_workload(seed, &p, &cat);
		CHECK(wl != NULL);
		long opt;
		struct locus_error err = {0};
		CHECK_EQ_INT(locus_bound_locality(wl, NULL, &opt, NULL, &err), 0);
		for (const struct locus_policy *const *pol = locus_policies(); *pol; pol++) {
			struct locus_sim_config cfg = {.wl = wl,
						       .policy = *pol,
						       .seed = seed,
						       .latency = -1,
						       .cost_per_msg = 1e-5,
						       .cost_per_entry = 1e-7};
			struct locus_result *r;
			int rc = locus_sim_run(&r, &cfg, &err);
			if (rc)
				fprintf(stderr, "%s seed %llu: %s\n", (*pol)->name,
					(unsigned long long)seed, err.message);
			CHECK_EQ_INT(rc, 0);
			/* Every task exactly once (the engine refuses a second
			 * assignment), each by one worker, none lost. */
			size_t total = 0;
			for (size_t w = 0; w < r->n_workers; w++)
				total += r->workers[w].tasks;
			CHECK_EQ_INT(total, wl->n_tasks);
			for (size_t t = 0; t < wl->n_tasks; t++) {
				CHECK(r->tasks[t].end > 0 || wl->tasks[t].work == 0);
				CHECK(r->tasks[t].end >= r->tasks[t].read_end);
				CHECK(r->tasks[t].read_end >= r->tasks[t].assigned);
			}
			/* Bounds hold. */
			CHECK(r->makespan >= r->lb_makespan * (1 - 1e-12));
			CHECK((long)r->local_tasks <= (long)wl->n_tasks);
			/* The reported optimum is for balanced loads, which a
			 * policy need not keep; but with the very loads it ran
			 * (tasks per node) no assignment reads more locally than
			 * the b-matching says. */
			uint32_t caps[16] = {0};
			long best = -1;
			CHECK(p->n_nodes <= 16);
			for (size_t w = 0; w < r->n_workers; w++)
				caps[r->workers[w].node] += r->workers[w].tasks;
			CHECK_EQ_INT(locus_bound_locality(wl, caps, &best, NULL, &err), 0);
			CHECK(r->local_tasks <= (size_t)best);
			/* Same seed, same result. */
			struct locus_result *r2;
			CHECK_EQ_INT(locus_sim_run(&r2, &cfg, &err), 0);
			CHECK(r2->makespan == r->makespan);
			CHECK_EQ_INT(r2->local_tasks, r->local_tasks);
			CHECK_EQ_INT(r2->events, r->events);
			CHECK(memcmp(r2->tasks, r->tasks, wl->n_tasks * sizeof *r->tasks) == 0);
			locus_result_destroy(r2);
			locus_result_destroy(r);
			runs++;
		}
		locus_workload_destroy(wl);
		locus_catalog_destroy(cat);
		locus_platform_destroy(p);
	}
	CHECK(runs >= 60 * 4);
}

static int skip_odd(void *user, size_t dataset, size_t chunk)
{
	(void)dataset;
	++*(int *)user;
	return chunk % 2 == 1;
}

TEST(workload_leaves_out_skipped_chunks)
{
	struct locus_platform *p = platform(2, 1, 1e-3, NULL);
	uint64_t bytes[] = {10, 20, 30, 40, 50};
	const char *holders[] = {"0", "1", "01", "1", "0"};
	struct locus_catalog *cat = catalog(2, 5, bytes, holders);
	struct locus_work_spec spec;
	struct locus_error err;
	struct locus_workload *wl = NULL;
	int calls = 0;
	CHECK_EQ_INT(locus_work_spec_parse(&spec, "fixed:1", &err), 0);
	CHECK_EQ_INT(locus_workload_build_skip(&wl, p, cat, NULL, &spec, 1, skip_odd, &calls, &err),
		     0);
	CHECK(calls >= 5);
	CHECK_EQ_INT(wl->n_tasks, 3);
	CHECK_EQ_INT(wl->tasks[0].chunk, 0);
	CHECK_EQ_INT(wl->tasks[1].chunk, 2);
	CHECK_EQ_INT(wl->tasks[2].chunk, 4);
	CHECK_EQ_INT(wl->tasks[1].bytes, 30);
	CHECK_EQ_INT(wl->tasks[1].n_holders, 2);
	CHECK_EQ_INT(wl->total_bytes, 90);
	locus_workload_destroy(wl);
	locus_work_spec_fini(&spec);
	locus_catalog_destroy(cat);
	locus_platform_destroy(p);
}

/* prefetch=K: a worker's assignments queue behind its running task and
 * start the moment it ends, so free workers wait for nothing once the
 * first assignments are in; every task still runs once (the engine
 * checks), and the bound still holds. prefetch=1 is the default, byte for
 * byte. */
TEST(prefetch_queues_assignments)
{
	struct locus_scenario_spec spec = {
	    .nodes = 8, .cores = 2, .chunks = 400, .work = "uniform:0.5:1.5", .seed = 5};
	struct locus_scenario *sc = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_scenario_build(&sc, &spec, &err), 0);
	static const char *const pols[] = {"fifo", "monolithic", "dlmpi"};
	for (size_t i = 0; i < 3; i++) {
		struct locus_result *r[3] = {NULL, NULL, NULL};
		static const char *const opts[] = {NULL, "prefetch=1", "prefetch=4"};
		for (int o = 0; o < 3; o++) {
			struct locus_sim_config cfg = {.wl = sc->workload,
						       .policy = locus_policy_find(pols[i]),
						       .policy_opts = opts[o],
						       .seed = 5,
						       .latency = 1e-3,
						       .cost_per_msg = 5e-6,
						       .cost_per_entry = 1e-7};
			CHECK_EQ_INT(locus_sim_run(&r[o], &cfg, &err), 0);
			CHECK(r[o]->makespan >= r[o]->lb_makespan * (1 - 1e-9));
		}
		/* The default is prefetch=1. */
		CHECK(r[0]->makespan == r[1]->makespan);
		CHECK_EQ_INT(r[0]->local_tasks, r[1]->local_tasks);
		CHECK(r[0]->wait_mean == r[1]->wait_mean);
		/* With 4 in flight, at least half the starts wait for nothing
		 * (a 1 ms latency otherwise), and on average far less. */
		CHECK(r[1]->wait_p50 >= 1e-3);
		CHECK(r[2]->wait_p50 == 0);
		CHECK(r[2]->wait_mean < r[1]->wait_mean / 2);
		for (size_t t = 0; t < r[2]->n_tasks; t++)
			CHECK(r[2]->tasks[t].end > r[2]->tasks[t].assigned);
		for (int o = 0; o < 3; o++)
			locus_result_destroy(r[o]);
	}
	locus_scenario_destroy(sc);
}

TEST_MAIN(TEST_ENTRY(local_reads_and_compute_exactly), TEST_ENTRY(shared_disk_and_remote_reads),
	  TEST_ENTRY(remote_reads_pay_latency_and_wait_for_a_slot),
	  TEST_ENTRY(reads_across_racks_share_the_uplinks), TEST_ENTRY(busy_master_queues_requests),
	  TEST_ENTRY(speed_changes_stretch_compute), TEST_ENTRY(policy_mistakes_are_caught),
	  TEST_ENTRY(a_stalled_run_ends), TEST_ENTRY(scenarios), TEST_ENTRY(every_policy_conforms),
	  TEST_ENTRY(workload_leaves_out_skipped_chunks), TEST_ENTRY(prefetch_queues_assignments))
