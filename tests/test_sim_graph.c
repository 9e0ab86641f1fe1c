/*
 * The simulator on task graphs: static plans executed exactly on the
 * papers' model (the HEFT example's schedule to the bit), produced inputs
 * sent when they appear and from where, cancellation and moves by a
 * scripted policy, policy-asked copies, the monitor, bandwidth and link
 * changes against hand-computed times, failures (a static plan's run ends
 * with a result naming the lost task; a bag of tasks is retried; a policy
 * that retries is told), and determinism.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

/* ---- the HEFT paper's example ------------------------------------------------ */

static const double topcuoglu_cost[10][3] = {
    {14, 16, 9}, {13, 19, 18}, {11, 13, 19}, {13, 8, 17},  {12, 13, 10},
    {13, 16, 9}, {7, 15, 11},  {5, 11, 14},  {18, 12, 20}, {21, 7, 16},
};
static const unsigned topcuoglu_edges[15][3] = {
    {1, 2, 18}, {1, 3, 12}, {1, 4, 9},	 {1, 5, 11},  {1, 6, 14},
    {2, 8, 19}, {2, 9, 16}, {3, 7, 23},	 {4, 8, 27},  {4, 9, 23},
    {5, 9, 13}, {6, 8, 15}, {7, 10, 17}, {8, 10, 11}, {9, 10, 13},
};

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

/* The example on 3 nodes linked pairwise at 1 byte/s, no start-up. */
static int topcuoglu(struct fixture *f)
{
	struct locus_error err;
	memset(f, 0, sizeof *f);
	if (locus_graph_create(&f->g, "topcuoglu", &err))
		return -1;
	for (int t = 0; t < 10; t++) {
		char name[16];
		snprintf(name, sizeof name, "n%d", t + 1);
		locus_graph_add_task(f->g, name, 0);
	}
	for (int e = 0; e < 15; e++)
		locus_graph_add_edge(f->g, topcuoglu_edges[e][0] - 1, topcuoglu_edges[e][1] - 1,
				     topcuoglu_edges[e][2]);
	if (locus_graph_set_costs(f->g, 3, &topcuoglu_cost[0][0], &err) ||
	    locus_graph_finish(f->g, &err) || locus_platform_generate(&f->p, 3, 1, 1, "P"))
		return -1;
	locus_platform_set_pairs(f->p, 1.0, 0);
	return locus_workload_from_graph(&f->wl, f->p, f->g, NULL, &err);
}

static struct locus_result *run(const struct locus_workload *wl, const char *policy,
				const char *opts, const struct locus_change *ch, size_t n_ch,
				struct locus_error *err)
{
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = locus_policy_find(policy),
				       .policy_opts = opts,
				       .seed = 1,
				       .latency = -1,
				       .changes = ch,
				       .n_changes = n_ch};
	struct locus_result *r = NULL;
	if (!cfg.policy || locus_sim_run(&r, &cfg, err))
		return NULL;
	return r;
}

/* The file's HEFT schedule: task, processor (1-based), start, finish. */
static const double heft_schedule[10][4] = {
    {1, 3, 0, 9},   {3, 3, 9, 28},  {4, 2, 18, 26}, {2, 1, 27, 40}, {5, 3, 28, 38},
    {6, 2, 26, 42}, {7, 3, 38, 49}, {9, 2, 56, 68}, {8, 1, 57, 62}, {10, 2, 73, 80},
};

TEST(heft_example_runs_as_planned)
{
	struct fixture f;
	struct locus_error err;
	CHECK_EQ_INT(topcuoglu(&f), 0);
	struct locus_result *r = run(f.wl, "heft", NULL, NULL, 0, &err);
	CHECK(r != NULL);
	CHECK(r->makespan == 80);
	CHECK(r->pstats.planned_makespan == 80);
	CHECK(r->dag && !r->failed);
	CHECK_EQ_INT(r->tasks_done, 10);
	for (int k = 0; k < 10; k++) {
		uint32_t t = (uint32_t)heft_schedule[k][0] - 1;
		CHECK_EQ_INT(r->tasks[t].worker, (int)heft_schedule[k][1] - 1);
		CHECK(r->tasks[t].start == heft_schedule[k][2]);
		CHECK(r->tasks[t].end == heft_schedule[k][3]);
	}
	/* Eq. 14 and Topcuoglu's SLR: the path of largest mean costs and
	 * the path of least costs (41: n1 n2 n9 n10 at 9, 13, 12, 7). */
	CHECK_NEAR(r->cp_min, 41, 1e-12);
	CHECK_NEAR(r->slr, 80.0 / 41, 1e-12);
	CHECK(r->lb_makespan <= r->makespan);
	/* Every edge between two processors moved once, the others not. */
	uint64_t moved = 0;
	size_t n_moved = 0;
	for (int e = 0; e < 15; e++) {
		uint32_t a = topcuoglu_edges[e][0] - 1, b = topcuoglu_edges[e][1] - 1;
		if (r->tasks[a].worker != r->tasks[b].worker) {
			moved += topcuoglu_edges[e][2];
			n_moved++;
		}
	}
	CHECK_EQ_INT(r->transfers, n_moved);
	CHECK_EQ_INT(r->bytes_moved, moved);
	CHECK_EQ_INT(r->n_xfers, n_moved);
	/* Each transfer starts when its producer ends and takes its bytes. */
	for (size_t i = 0; i < r->n_xfers; i++) {
		const struct locus_transfer_result *x = &r->xfers[i];
		uint32_t producer = f.g->objects[x->object].producer;
		CHECK(x->start == r->tasks[producer].end);
		CHECK(x->end == x->start + (double)x->bytes);
	}
	locus_result_destroy(r);
	/* CPOP: 86. */
	r = run(f.wl, "cpop", NULL, NULL, 0, &err);
	CHECK(r != NULL);
	CHECK(r->makespan == 86);
	CHECK(r->makespan == r->pstats.planned_makespan);
	locus_result_destroy(r);
	fixture_fini(&f);
}

/* Every static policy's run is its plan, on random graphs of the
 * contention-free model, with and without insertion. */
TEST(plans_run_as_planned)
{
	struct locus_error err;
	struct locus_rng rng;
	const char *pols[] = {"heft", "cpop", "dls", "peft"};
	for (uint64_t seed = 1; seed <= 60; seed++) {
		locus_rng_init(&rng, seed);
		struct fixture f = {0};
		size_t n = 1 + locus_rng_below(&rng, 40), procs = 1 + locus_rng_below(&rng, 5);
		CHECK_EQ_INT(locus_graph_create(&f.g, NULL, &err), 0);
		for (size_t t = 0; t < n; t++)
			locus_graph_add_task(f.g, NULL, 0);
		for (size_t t = 1; t < n; t++) {
			size_t k = locus_rng_below(&rng, 3);
			for (size_t j = 0; j < k; j++)
				locus_graph_add_edge(f.g, (uint32_t)locus_rng_below(&rng, t),
						     (uint32_t)t, locus_rng_below(&rng, 20));
		}
		double *cost = calloc(n * procs, sizeof *cost);
		for (size_t i = 0; i < n * procs; i++)
			cost[i] = (double)(1 + locus_rng_below(&rng, 15));
		CHECK_EQ_INT(locus_graph_set_costs(f.g, procs, cost, &err), 0);
		free(cost);
		CHECK_EQ_INT(locus_graph_finish(f.g, &err), 0);
		CHECK_EQ_INT(locus_platform_generate(&f.p, procs, 1, 1, "p"), 0);
		locus_platform_set_pairs(f.p, 1.0 + (double)locus_rng_below(&rng, 3),
					 (double)locus_rng_below(&rng, 2));
		CHECK_EQ_INT(locus_workload_from_graph(&f.wl, f.p, f.g, NULL, &err), 0);
		for (int k = 0; k < 4; k++)
			for (int ins = 0; ins < 2; ins++) {
				struct locus_result *r =
				    run(f.wl, pols[k], ins ? "insertion=1" : "insertion=0", NULL, 0,
					&err);
				if (k == 2) /* dls takes no option */
					r = run(f.wl, pols[k], NULL, NULL, 0, &err);
				CHECK(r != NULL);
				struct locus_dag_plan *plan = NULL;
				struct locus_dag_options o = {.insertion = k == 2 ? 0 : ins};
				enum locus_dag_algorithm alg;
				CHECK_EQ_INT(locus_dag_algorithm_parse(pols[k], &alg), 0);
				CHECK_EQ_INT(locus_dag_plan(&plan, f.wl, alg, &o, &err), 0);
				CHECK(r->makespan == plan->makespan);
				for (size_t t = 0; t < n; t++) {
					CHECK_EQ_INT(r->tasks[t].worker, plan->slot[t].proc);
					if (r->tasks[t].start != plan->slot[t].start)
						fprintf(stderr,
							"seed %llu %s ins %d task %zu: %.17g vs "
							"%.17g (end %.17g vs %.17g)\n",
							(unsigned long long)seed, pols[k], ins, t,
							r->tasks[t].start, plan->slot[t].start,
							r->tasks[t].end, plan->slot[t].finish);
					CHECK(r->tasks[t].start == plan->slot[t].start);
					CHECK(r->tasks[t].end == plan->slot[t].finish);
				}
				CHECK(r->makespan >= r->lb_makespan);
				locus_dag_plan_destroy(plan);
				locus_result_destroy(r);
			}
		fixture_fini(&f);
	}
}

/* ---- a scripted graph policy --------------------------------------------------- */

/* A policy for the tests: its scheduler assigns what script[] says at its
 * start (worker, task), and on a timer at time T cancels or moves tasks,
 * asks for copies, and records what the monitor and its events said. */
struct step {
	double at; /* 0: at the start */
	int what;  /* 'a' assign, 'c' cancel, 'x' transfer, 'm' read the monitor */
	uint32_t a, b, c;
};

static struct step script[16];
static size_t n_script;
static struct {
	uint32_t placed[16];
	double computed[16], moved, avail, bw;
	size_t n_transfers, n_failed, n_down, n_up, n_bw;
	uint32_t failed_task;
	int transfer_ok;
} seen;

struct scripted {
	uint32_t n;
	const struct locus_monitor *mon;
	int retry; /* place a failed task again on worker `retry_to` */
	uint32_t retry_to;
};

static int scripted_create(void **state, const struct locus_policy_ctx *ctx,
			   struct locus_error *err)
{
	struct scripted *s = calloc(1, sizeof *s);
	if (!s)
		return LOCUS_ENOMEM;
	s->n = (uint32_t)ctx->n_workers;
	s->mon = ctx->monitor;
	double r = -1;
	locus_kv_double(ctx->opts, "retry_to", -1, -1, 1e9, &r, err);
	s->retry = r >= 0;
	s->retry_to = (uint32_t)r;
	*state = s;
	return 0;
}

static void scripted_destroy(void *state)
{
	free(state);
}

static size_t scripted_schedulers(size_t n_workers, size_t requested)
{
	return 1;
}

static void do_step(struct scripted *s, const struct step *st, struct locus_actions *act)
{
	if (st->what == 'a')
		locus_act_assign(act, s->n, st->a, st->b, -1);
	else if (st->what == 'c')
		locus_act_cancel(act, st->a);
	else if (st->what == 'x')
		locus_act_transfer(act, st->a, st->b, st->c);
	else if (st->what == 'm') {
		for (uint32_t t = 0; t < st->a && t < 16; t++)
			seen.placed[t] = s->mon->placed(s->mon, t, &seen.computed[t]);
		seen.moved = s->mon->moved(s->mon, st->b, st->c);
		seen.avail = s->mon->avail(s->mon, st->c);
		seen.bw = s->mon->bandwidth(s->mon, st->c);
	}
}

static void scripted_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct scripted *s = state;
	if (ev->proc != s->n)
		return;
	switch (ev->kind) {
	case LOCUS_EV_START:
		for (size_t i = 0; i < n_script; i++) {
			if (script[i].at == 0)
				do_step(s, &script[i], act);
			else
				locus_act_timer(act, s->n, script[i].at, i);
		}
		break;
	case LOCUS_EV_TIMER:
		do_step(s, &script[ev->tag], act);
		break;
	case LOCUS_EV_TRANSFER:
		seen.n_transfers++;
		seen.transfer_ok = ev->transfer.ok;
		break;
	case LOCUS_EV_FAILED:
		seen.n_failed++;
		seen.failed_task = ev->failed.task;
		if (s->retry)
			locus_act_assign(act, s->n, s->retry_to, ev->failed.task, -1);
		break;
	case LOCUS_EV_NODE_DOWN:
		seen.n_down++;
		break;
	case LOCUS_EV_NODE_UP:
		seen.n_up++;
		break;
	case LOCUS_EV_BANDWIDTH:
		seen.n_bw++;
		break;
	default:
		break;
	}
}

static const struct locus_policy scripted_policy = {
    .version = LOCUS_POLICY_VERSION,
    .name = "scripted",
    .summary = "test",
    .schedulers = scripted_schedulers,
    .create = scripted_create,
    .destroy = scripted_destroy,
    .on_event = scripted_event,
    .flags = LOCUS_POLICY_GRAPHS | LOCUS_POLICY_RETRIES,
};

static struct locus_result *run_scripted(const struct locus_workload *wl, const char *opts,
					 const struct locus_change *ch, size_t n_ch,
					 struct locus_error *err)
{
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = &scripted_policy,
				       .policy_opts = opts,
				       .seed = 1,
				       .latency = -1,
				       .changes = ch,
				       .n_changes = n_ch};
	struct locus_result *r = NULL;
	memset(&seen, 0, sizeof seen);
	if (locus_sim_run(&r, &cfg, err))
		return NULL;
	return r;
}

/* A chain a -> b -> c of given works and edge bytes on n nodes (one
 * worker each) linked pairwise at bw with start-up `startup`. */
static int chain(struct fixture *f, size_t nodes, double bw, double startup, double wa, double wb,
		 double wc, uint64_t ab, uint64_t bc)
{
	struct locus_error err;
	memset(f, 0, sizeof *f);
	if (locus_graph_create(&f->g, "chain", &err))
		return -1;
	locus_graph_add_task(f->g, "a", wa);
	locus_graph_add_task(f->g, "b", wb);
	locus_graph_add_task(f->g, "c", wc);
	locus_graph_add_edge(f->g, 0, 1, ab);
	locus_graph_add_edge(f->g, 1, 2, bc);
	if (locus_graph_finish(f->g, &err) || locus_platform_generate(&f->p, nodes, 1, 1, "n"))
		return -1;
	if (bw > 0)
		locus_platform_set_pairs(f->p, bw, startup);
	return locus_workload_from_graph(&f->wl, f->p, f->g, NULL, &err);
}

TEST(inputs_follow_their_tasks)
{
	struct fixture f;
	struct locus_error err;
	/* a (2 s) on w0, b (3 s) on w1, c (1 s) on w2; 10 bytes at 5 B/s
	 * with a start-up of 0.5: a ends 2, its output reaches w1 at 4.5,
	 * b runs 4.5-7.5, c gets 20 bytes at 7.5 + 0.5 + 4 = 12, ends 13. */
	CHECK_EQ_INT(chain(&f, 3, 5, 0.5, 2, 3, 1, 10, 20), 0);
	n_script = 3;
	script[0] = (struct step){0, 'a', 0, 0, 0};
	script[1] = (struct step){0, 'a', 1, 1, 0};
	script[2] = (struct step){0, 'a', 2, 2, 0};
	struct locus_result *r = run_scripted(f.wl, NULL, NULL, 0, &err);
	CHECK(r != NULL);
	CHECK_NEAR(r->tasks[1].start, 4.5, 1e-12);
	CHECK_NEAR(r->tasks[2].start, 12, 1e-12);
	CHECK_NEAR(r->makespan, 13, 1e-12);
	CHECK_EQ_INT(r->transfers, 2);
	CHECK_EQ_INT(r->bytes_moved, 30);
	locus_result_destroy(r);
	/* All on one worker: nothing moves, 6 s. */
	script[1].a = script[2].a = 0;
	r = run_scripted(f.wl, NULL, NULL, 0, &err);
	CHECK(r != NULL);
	CHECK_NEAR(r->makespan, 6, 1e-12);
	CHECK_EQ_INT(r->transfers, 0);
	locus_result_destroy(r);
	/* A task assigned before its predecessor waits, the worker blocked
	 * behind it in order: c first on w0, then a on w0: c waits for b
	 * forever (b is never assigned) - the run ends naming it. */
	n_script = 2;
	script[0] = (struct step){0, 'a', 0, 2, 0};
	script[1] = (struct step){0, 'a', 0, 0, 0};
	r = run_scripted(f.wl, NULL, NULL, 0, &err);
	CHECK(r == NULL);
	CHECK(strstr(err.message, "task c waits for") != NULL);
	CHECK(strstr(err.message, "which task b writes, and that was never assigned") != NULL);
	fixture_fini(&f);
}

TEST(cancel_moves_a_task_and_keeps_its_copies)
{
	struct fixture f;
	struct locus_error err;
	/* a on w0 (2 s), b (10 s) on w1; at 6 b is moved to w2: its input
	 * (10 bytes at 5 B/s, arrived at 4) is on n1 and on n0, so w2 gets it
	 * from n0 (the rule picks the first holder in its rack... both in one
	 * rack: salt = object 0 -> the first holder, n0) at 6 + 2 = 8, b runs
	 * 8-18; c (1 s) after b on w2: 18-19. */
	CHECK_EQ_INT(chain(&f, 3, 5, 0, 2, 10, 1, 10, 20), 0);
	n_script = 6;
	script[0] = (struct step){0, 'a', 0, 0, 0};
	script[1] = (struct step){0, 'a', 1, 1, 0};
	script[2] = (struct step){6, 'c', 1, 0, 0};
	script[3] = (struct step){6, 'a', 2, 1, 0};
	script[4] = (struct step){6, 'a', 2, 2, 0};
	script[5] = (struct step){5, 'm', 3, 0, 1};
	struct locus_result *r = run_scripted(f.wl, NULL, NULL, 0, &err);
	CHECK(r != NULL);
	CHECK_EQ_INT(r->tasks[1].worker, 2);
	CHECK_NEAR(r->tasks[1].start, 8, 1e-12);
	CHECK_NEAR(r->tasks[2].start, 18, 1e-12);
	CHECK_NEAR(r->makespan, 19, 1e-12);
	CHECK_EQ_INT(r->transfers, 2);
	/* At 5 the monitor saw a done on w0, b computing on w1 (1 s of 10),
	 * c not placed, a's output on n1. */
	CHECK_EQ_INT(seen.placed[0], 0);
	CHECK_NEAR(seen.computed[0], 1, 0);
	CHECK_EQ_INT(seen.placed[1], 1);
	CHECK_NEAR(seen.computed[1], 0.1, 1e-12);
	CHECK_EQ_INT(seen.placed[2], LOCUS_NONE);
	CHECK_NEAR(seen.moved, 1, 0);
	CHECK_NEAR(seen.avail, 1, 0);
	locus_result_destroy(r);
	/* A cancel of a finished task leaves it, and voids the assignment
	 * that follows it in the same answer. */
	n_script = 5;
	script[0] = (struct step){0, 'a', 0, 0, 0};
	script[1] = (struct step){0, 'a', 0, 1, 0};
	script[2] = (struct step){0, 'a', 0, 2, 0};
	script[3] = (struct step){20, 'c', 0, 0, 0};
	script[4] = (struct step){20, 'a', 1, 0, 0};
	r = run_scripted(f.wl, NULL, NULL, 0, &err);
	CHECK(r != NULL);
	CHECK_EQ_INT(r->tasks[0].worker, 0);
	CHECK_NEAR(r->makespan, 13, 1e-12);
	locus_result_destroy(r);
	fixture_fini(&f);
}

TEST(copies_asked_by_a_policy)
{
	struct fixture f;
	struct locus_error err;
	/* a on w0; at 3 the policy copies its output (object 0, 10 bytes)
	 * to n2 (at 5 B/s: arrives 5), then b on w2 needs nothing moved. */
	CHECK_EQ_INT(chain(&f, 3, 5, 0, 2, 3, 1, 10, 20), 0);
	n_script = 4;
	script[0] = (struct step){0, 'a', 0, 0, 0};
	script[1] = (struct step){3, 'x', 0, 0, 2};
	script[2] = (struct step){6, 'a', 2, 1, 0};
	script[3] = (struct step){6, 'a', 2, 2, 0};
	struct locus_result *r = run_scripted(f.wl, NULL, NULL, 0, &err);
	CHECK(r != NULL);
	CHECK_EQ_INT(seen.n_transfers, 1);
	CHECK_EQ_INT(seen.transfer_ok, 1);
	CHECK_NEAR(r->tasks[1].start, 6, 1e-12);
	CHECK_NEAR(r->makespan, 10, 1e-12);
	CHECK_EQ_INT(r->transfers, 1);
	CHECK(r->xfers[0].task == LOCUS_NONE);
	locus_result_destroy(r);
	fixture_fini(&f);
}

TEST(bandwidth_and_link_changes)
{
	struct fixture f;
	struct locus_error err;
	/* a (2 s) on w0, b on w1: 10 bytes at 5 B/s from 2. At 3 (5 bytes
	 * left) the link n0-n1 drops to 0.5 (2.5 B/s): 2 more seconds, b
	 * starts at 5; with the whole interface of n1 at 0.25 instead
	 * (1.25 B/s), at 7. */
	CHECK_EQ_INT(chain(&f, 2, 5, 0, 2, 3, 1, 10, 0), 0);
	n_script = 3;
	script[0] = (struct step){0, 'a', 0, 0, 0};
	script[1] = (struct step){0, 'a', 1, 1, 0};
	script[2] = (struct step){0, 'a', 1, 2, 0};
	struct locus_change link = {3, LOCUS_CHANGE_LINK, 0, 1, 0.5};
	struct locus_result *r = run_scripted(f.wl, NULL, &link, 1, &err);
	CHECK(r != NULL);
	CHECK_NEAR(r->tasks[1].start, 5, 1e-12);
	locus_result_destroy(r);
	struct locus_change nic = {3, LOCUS_CHANGE_BANDWIDTH, 1, LOCUS_NONE, 0.25};
	r = run_scripted(f.wl, NULL, &nic, 1, &err);
	CHECK(r != NULL);
	CHECK_NEAR(r->tasks[1].start, 7, 1e-12);
	CHECK_EQ_INT(seen.n_bw, 1);
	locus_result_destroy(r);
	fixture_fini(&f);
	/* A shared network: the interfaces are resources of the sharing
	 * model (125 MB/s); the 250 MB sent from n0 from 2 s go at its
	 * disk's 100 MB/s; at 4 s node n1's interface drops to 0.1: the 50
	 * MB left go at 12.5 MB/s, b starts at 4 + 4 = 8 (and a few
	 * microseconds: the assignments take 32 bytes over 125 MB/s). */
	CHECK_EQ_INT(chain(&f, 2, 0, 0, 2, 3, 1, 250000000, 0), 0);
	f.p->latency = 0;
	nic = (struct locus_change){4, LOCUS_CHANGE_BANDWIDTH, 1, LOCUS_NONE, 0.1};
	r = run_scripted(f.wl, NULL, &nic, 1, &err);
	CHECK(r != NULL);
	CHECK_NEAR(r->tasks[1].start, 8, 1e-5);
	locus_result_destroy(r);
	/* The sender's interface dropping instead: its outgoing link, left
	 * out of routes where it is never slower than its disk, is in this
	 * run's (it becomes slower at 4 s): b starts at 8 again. */
	nic.node = 0;
	r = run_scripted(f.wl, NULL, &nic, 1, &err);
	CHECK(r != NULL);
	CHECK_NEAR(r->tasks[1].start, 8, 1e-5);
	locus_result_destroy(r);
	/* A link change on a shared network is refused. */
	r = run_scripted(f.wl, NULL, &link, 1, &err);
	CHECK(r == NULL);
	CHECK(strstr(err.message, "contention-free") != NULL);
	fixture_fini(&f);
}

TEST(failures)
{
	struct fixture f;
	struct locus_error err;
	/* HEFT on the example, node P2 failing at 30: tasks on it are lost
	 * and heft does not place them again: the run ends, saying so. */
	CHECK_EQ_INT(topcuoglu(&f), 0);
	struct locus_change down = {30, LOCUS_CHANGE_FAIL, 1, LOCUS_NONE, 0};
	struct locus_result *r = run(f.wl, "heft", NULL, &down, 1, &err);
	CHECK(r != NULL);
	CHECK(r->failed);
	CHECK(strstr(r->failure, "when node P02 failed at 30 s") != NULL);
	CHECK(strstr(r->failure, "heft does not place failed tasks again") != NULL);
	CHECK(r->tasks_done < 10);
	locus_result_destroy(r);
	fixture_fini(&f);

	/* A policy that retries: b (on n1) lost at 3 is placed on w2; its
	 * input is still on n0, sent again: 3 + 2 = 5, b 5-8, c after it on
	 * w2 (c was assigned to w1 too: lost, placed on w2): 8-9. */
	CHECK_EQ_INT(chain(&f, 3, 5, 0, 2, 3, 1, 10, 20), 0);
	n_script = 3;
	script[0] = (struct step){0, 'a', 0, 0, 0};
	script[1] = (struct step){0, 'a', 1, 1, 0};
	script[2] = (struct step){0, 'a', 1, 2, 0};
	down = (struct locus_change){4.5, LOCUS_CHANGE_FAIL, 1, LOCUS_NONE, 0};
	r = run_scripted(f.wl, "retry_to=2", &down, 1, &err);
	CHECK(r != NULL);
	CHECK(!r->failed);
	CHECK_EQ_INT(seen.n_failed, 2);
	CHECK_EQ_INT(seen.n_down, 1);
	CHECK_EQ_INT(r->attempts_lost, 2);
	CHECK_EQ_INT(r->tasks[1].worker, 2);
	CHECK_EQ_INT(r->tasks[1].attempts, 2);
	CHECK_NEAR(r->tasks[1].start, 6.5, 1e-12);
	CHECK_NEAR(r->makespan, 10.5, 1e-12);
	locus_result_destroy(r);
	/* The same policy without placing again: the run ends naming b. */
	r = run_scripted(f.wl, NULL, &down, 1, &err);
	CHECK(r != NULL);
	CHECK(r->failed);
	CHECK(strstr(r->failure, "task b was lost when node n02 failed") != NULL);
	locus_result_destroy(r);
	/* Node n01 fails after a ended and before its output arrived (10
	 * bytes at 0.5 B/s): b has lost its input, which only n01 held. */
	fixture_fini(&f);
	script[2] = (struct step){0, 'a', 2, 2, 0};
	CHECK_EQ_INT(chain(&f, 3, 0.5, 0, 2, 3, 1, 10, 20), 0);
	down = (struct locus_change){3, LOCUS_CHANGE_FAIL, 0, LOCUS_NONE, 0};
	r = run_scripted(f.wl, NULL, &down, 1, &err);
	CHECK(r != NULL);
	CHECK(r->failed);
	CHECK(strstr(r->failure, "task b lost the output of task a from node") != NULL);
	CHECK(strstr(r->failure, "from node n01, which failed at 3 s") != NULL);
	locus_result_destroy(r);
	fixture_fini(&f);
}

/* A bag of chunk tasks under fifo with a node failing and coming back:
 * every task is done once, lost attempts are run again elsewhere. */
TEST(bag_of_tasks_survives_a_failure)
{
	struct locus_scenario_spec spec = {.nodes = 6, .chunks = 60, .seed = 5, .work = "fixed:2"};
	struct locus_scenario *s = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_scenario_build(&s, &spec, &err), 0);
	struct locus_change ch[2] = {{5.3, LOCUS_CHANGE_FAIL, 2, LOCUS_NONE, 0},
				     {12, LOCUS_CHANGE_RECOVER, 2, LOCUS_NONE, 0}};
	const char *pols[] = {"fifo", "monolithic", "dlmpi", "delay", "scal"};
	for (int k = 0; k < 5; k++) {
		struct locus_result *r = run(s->workload, pols[k], NULL, ch, 2, &err);
		if (!r)
			fprintf(stderr, "%s: %s\n", pols[k], err.message);
		CHECK(r != NULL);
		CHECK(!r->failed);
		CHECK_EQ_INT(r->tasks_done, 60);
		CHECK(r->attempts_lost >= 1);
		for (size_t t = 0; t < 60; t++)
			CHECK(r->tasks[t].end > 0);
		CHECK(r->makespan >= r->lb_makespan);
		/* Same seed, same result. */
		struct locus_result *r2 = run(s->workload, pols[k], NULL, ch, 2, &err);
		CHECK(r2 != NULL);
		CHECK(r2->makespan == r->makespan && r2->events == r->events);
		locus_result_destroy(r2);
		locus_result_destroy(r);
	}
	locus_scenario_destroy(s);
}

/* A static plan on a bag of chunk tasks (no edges, reads on a shared
 * network): every task once, never below the bound, deterministic. */
TEST(static_plans_on_a_bag_of_tasks)
{
	struct locus_scenario_spec spec = {
	    .nodes = 5, .cores = 2, .chunks = 70, .seed = 9, .work = "uniform:1:3"};
	struct locus_scenario *s = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_scenario_build(&s, &spec, &err), 0);
	const char *pols[] = {"heft", "cpop", "dls", "peft"};
	for (int k = 0; k < 4; k++) {
		struct locus_result *r = run(s->workload, pols[k], NULL, NULL, 0, &err);
		CHECK(r != NULL);
		CHECK_EQ_INT(r->tasks_done, 70);
		unsigned *runs = calloc(70, sizeof *runs);
		for (size_t t = 0; t < 70; t++) {
			CHECK(r->tasks[t].end >= r->tasks[t].start);
			runs[t]++;
		}
		for (size_t t = 0; t < 70; t++)
			CHECK_EQ_INT(runs[t], 1);
		free(runs);
		CHECK(r->makespan >= r->lb_makespan);
		struct locus_result *r2 = run(s->workload, pols[k], NULL, NULL, 0, &err);
		CHECK(r2 && r2->makespan == r->makespan && r2->events == r->events);
		locus_result_destroy(r2);
		locus_result_destroy(r);
	}
	locus_scenario_destroy(s);
}

TEST(chunk_policies_refuse_graphs)
{
	struct fixture f;
	struct locus_error err;
	CHECK_EQ_INT(topcuoglu(&f), 0);
	struct locus_result *r = run(f.wl, "fifo", NULL, NULL, 0, &err);
	CHECK(r == NULL);
	CHECK(strstr(err.message, "policy fifo schedules independent tasks") != NULL);
	fixture_fini(&f);
}

TEST_MAIN(TEST_ENTRY(heft_example_runs_as_planned), TEST_ENTRY(plans_run_as_planned),
	  TEST_ENTRY(inputs_follow_their_tasks),
	  TEST_ENTRY(cancel_moves_a_task_and_keeps_its_copies),
	  TEST_ENTRY(copies_asked_by_a_policy), TEST_ENTRY(bandwidth_and_link_changes),
	  TEST_ENTRY(failures), TEST_ENTRY(bag_of_tasks_survives_a_failure),
	  TEST_ENTRY(static_plans_on_a_bag_of_tasks), TEST_ENTRY(chunk_policies_refuse_graphs))
