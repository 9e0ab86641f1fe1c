/*
 * GTP and GTP/c (src/dag/gtp.c): the first schedule is HEFT's without
 * insertion, so with no rescheduling point before the end the run is the
 * heft policy's with -o insertion=0, task by task; on a platform whose
 * estimates hold (no variability) rescheduling changes nothing; under
 * GTP's variable scenarios every task runs exactly once, after its
 * predecessors, never faster than the bounds allow, and the same seed
 * gives the same run; a migration restarts a task where it moved.
 */
#include <math.h>
#include <string.h>

#include "locus/locus.h"
#include "sched/actions.h"
#include "test.h"
#include "test_util.h"

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

/* A generated graph of n tasks, CCR 0.5 and beta 0.5 on `procs`
 * processors linked pairwise at 1e8 bytes/s. */
static int fixture(struct fixture *f, enum locus_dag_gen_method m, size_t n, size_t procs,
		   uint64_t seed)
{
	struct locus_error err = {0};
	struct locus_dag_gen spec = {.method = m, .n_tasks = n, .seed = seed};
	memset(f, 0, sizeof *f);
	if (locus_dag_generate(&f->g, &spec, &err) ||
	    locus_dag_set_heterogeneity(f->g, procs, 0.5, seed, &err) ||
	    locus_dag_set_ccr(f->g, 0.5, 1e8, seed, &err) ||
	    locus_platform_generate(&f->p, procs, 1, 1, "p"))
		return -1;
	locus_platform_set_pairs(f->p, 1e8, 0);
	return locus_workload_from_graph(&f->wl, f->p, f->g, NULL, &err);
}

static struct locus_result *run(const struct locus_workload *wl, const char *policy,
				const char *opts, const struct locus_change *ch, size_t n_ch)
{
	struct locus_error err = {0};
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = locus_policy_find(policy),
				       .policy_opts = opts,
				       .seed = 1,
				       .latency = -1,
				       .changes = ch,
				       .n_changes = n_ch};
	struct locus_result *r = NULL;
	if (!cfg.policy || locus_sim_run(&r, &cfg, &err)) {
		fprintf(stderr, "  %s: %s\n", policy, err.message);
		return NULL;
	}
	return r;
}

static uint64_t counter(const struct locus_result *r, const char *name)
{
	for (size_t k = 0; k < 8 && r->pstats.counter_names[k]; k++)
		if (strcmp(r->pstats.counter_names[k], name) == 0)
			return r->pstats.counters[k];
	return UINT64_MAX;
}

/* Every task done, its last attempt after its predecessors' (one attempt
 * each when `once`); each task counted once over the workers. */
static int valid_run_n(const struct locus_result *r, const struct locus_graph *g, int once)
{
	if (r->failed || r->tasks_done != g->n_tasks)
		return 0;
	size_t counted = 0;
	for (size_t w = 0; w < r->n_workers; w++)
		counted += r->workers[w].tasks;
	if (counted != g->n_tasks) {
		fprintf(stderr, "  counted %zu of %zu\n", counted, g->n_tasks);
		return 0;
	}
	for (size_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task_result *tr = &r->tasks[t];
		if (!(tr->end >= tr->start) || (once && tr->attempts != 1) || tr->attempts < 1) {
			fprintf(stderr, "  task %zu: start %g end %g attempts %u\n", t, tr->start,
				tr->end, tr->attempts);
			return 0;
		}
		/* (A predecessor that ran again - rewound after t had its
		 * output - ends later; its first run is not recorded.) */
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
			if (r->tasks[g->preds[e].task].attempts == 1 &&
			    r->tasks[g->preds[e].task].end > tr->start + 1e-9) {
				fprintf(
				    stderr, "  task %zu starts at %g before pred %u ends at %g\n",
				    t, tr->start, g->preds[e].task, r->tasks[g->preds[e].task].end);
				return 0;
			}
	}
	return 1;
}

static int valid_run(const struct locus_result *r, const struct locus_graph *g)
{
	return valid_run_n(r, g, 1);
}

TEST(first_schedule_is_heft_without_insertion)
{
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct fixture f;
		CHECK_EQ_INT(fixture(&f, (enum locus_dag_gen_method)(seed % 4), 120, 6, seed), 0);
		struct locus_result *h = run(f.wl, "heft", "insertion=0", NULL, 0);
		struct locus_result *g = run(f.wl, "gtp", "period=1e12", NULL, 0);
		struct locus_result *c = run(f.wl, "gtp-c", "period=1e12", NULL, 0);
		CHECK(h && g && c);
		CHECK(h->makespan == g->makespan && h->makespan == c->makespan);
		CHECK(g->pstats.planned_makespan == h->pstats.planned_makespan);
		for (size_t t = 0; t < f.g->n_tasks; t++) {
			CHECK_EQ_INT(g->tasks[t].worker, h->tasks[t].worker);
			CHECK(g->tasks[t].start == h->tasks[t].start);
			CHECK(g->tasks[t].end == h->tasks[t].end);
			CHECK_EQ_INT(c->tasks[t].worker, h->tasks[t].worker);
		}
		/* Where the estimates hold, rescheduling changes nothing. */
		struct locus_result *often = run(f.wl, "gtp", "period=0.5", NULL, 0);
		CHECK(often && often->makespan == h->makespan);
		CHECK(counter(often, "resched_points") > 10);
		CHECK_EQ_INT(counter(often, "remappings"), 0);
		locus_result_destroy(h);
		locus_result_destroy(g);
		locus_result_destroy(c);
		locus_result_destroy(often);
		fixture_fini(&f);
	}
}

/* DLS/sr: DLS's plan; a rescheduling point only when a task ends later
 * than its spare time, so none where the estimates hold. */
TEST(dls_sr_reschedules_on_slack)
{
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct fixture f;
		CHECK_EQ_INT(fixture(&f, (enum locus_dag_gen_method)(seed % 4), 150, 6, seed), 0);
		struct locus_result *d = run(f.wl, "dls", NULL, NULL, 0);
		struct locus_result *sr = run(f.wl, "dls-sr", NULL, NULL, 0);
		CHECK(d && sr);
		CHECK(sr->makespan == d->makespan);
		CHECK_EQ_INT(counter(sr, "slack_exceeded"), 0);
		for (size_t t = 0; t < f.g->n_tasks; t++)
			CHECK(sr->tasks[t].worker == d->tasks[t].worker &&
			      sr->tasks[t].end == d->tasks[t].end);
		struct locus_dag_bounds b;
		CHECK_EQ_INT(locus_dag_bounds(f.wl, NULL, &b), 0);
		struct locus_variability v = {.bound = 0.5,
					      .period = b.lower / 10,
					      .horizon = 10 * b.lower,
					      .links = 1,
					      .seed = seed};
		struct locus_change *ch = NULL;
		size_t n_ch = 0;
		struct locus_error err = {0};
		CHECK_EQ_INT(locus_changes_generate(&ch, &n_ch, f.p, &v, &err), 0);
		struct locus_result *a = run(f.wl, "dls-sr", NULL, ch, n_ch);
		struct locus_result *a2 = run(f.wl, "dls-sr", NULL, ch, n_ch);
		CHECK(a && a2 && valid_run(a, f.g));
		CHECK(counter(a, "slack_exceeded") > 0);
		CHECK(counter(a, "slack_exceeded") == counter(a, "resched_points"));
		CHECK(a->makespan >= b.lower * (1 - 1e-9) && a2->makespan == a->makespan);
		locus_result_destroy(d);
		locus_result_destroy(sr);
		locus_result_destroy(a);
		locus_result_destroy(a2);
		free(ch);
		fixture_fini(&f);
	}
}

TEST(variable_platforms)
{
	double sum_heft = 0, sum_gtp = 0, sum_gtpc = 0;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct fixture f;
		CHECK_EQ_INT(fixture(&f, (enum locus_dag_gen_method)(seed % 4), 150, 8, seed), 0);
		struct locus_dag_bounds b;
		CHECK_EQ_INT(locus_dag_bounds(f.wl, NULL, &b), 0);
		struct locus_variability v = {.bound = 0.6,
					      .period = b.lower / 10,
					      .horizon = 10 * b.lower,
					      .links = 1,
					      .seed = seed};
		struct locus_change *ch = NULL;
		size_t n_ch = 0;
		struct locus_error err = {0};
		CHECK_EQ_INT(locus_changes_generate(&ch, &n_ch, f.p, &v, &err), 0);
		CHECK(n_ch > 0);
		struct locus_result *h = run(f.wl, "heft", "insertion=0", ch, n_ch);
		struct locus_result *g = run(f.wl, "gtp", NULL, ch, n_ch);
		struct locus_result *c = run(f.wl, "gtp-c", "on=speed", ch, n_ch);
		struct locus_result *again = run(f.wl, "gtp-c", "on=speed", ch, n_ch);
		CHECK(h && g && c && again);
		CHECK(valid_run(h, f.g) && valid_run(g, f.g) && valid_run(c, f.g));
		/* No run beats the bounds at the processors' peak. */
		CHECK(g->makespan >= b.lower * (1 - 1e-9));
		CHECK(c->makespan >= b.lower * (1 - 1e-9));
		/* The same seed, the same run. */
		CHECK(again->makespan == c->makespan);
		for (size_t t = 0; t < f.g->n_tasks; t++)
			CHECK(again->tasks[t].end == c->tasks[t].end &&
			      again->tasks[t].worker == c->tasks[t].worker);
		CHECK(counter(c, "remappings") > 0);
		/* A migration is a remapping. */
		CHECK(counter(g, "migrations") == 0 || counter(g, "remappings") > 0);
		sum_heft += h->nsl;
		sum_gtp += g->nsl;
		sum_gtpc += c->nsl;
		locus_result_destroy(h);
		locus_result_destroy(g);
		locus_result_destroy(c);
		locus_result_destroy(again);
		free(ch);
		fixture_fini(&f);
	}
	fprintf(stderr, "  mean NSL at 60 %% variability: heft %.4f, gtp %.4f, gtp-c %.4f\n",
		sum_heft / 12, sum_gtp / 12, sum_gtpc / 12);
}

/* Without rewinding, a failure that loses a task or data still needed
 * ends the run saying so: never a hang, never a wrong "complete". */
TEST(failures_end_the_run_clearly)
{
	int failed = 0, complete = 0;
	for (uint64_t seed = 1; seed <= 16; seed++) {
		struct fixture f;
		CHECK_EQ_INT(fixture(&f, (enum locus_dag_gen_method)(seed % 4), 100, 5, seed), 0);
		struct locus_result *h = run(f.wl, "heft", "insertion=0", NULL, 0);
		CHECK(h != NULL);
		/* Node (seed mod 5) fails at a point between 10 and 90 % of the
		 * fault-free run, for good or for a while. */
		struct locus_change ch[2] = {
		    {h->makespan * (0.1 + 0.05 * (double)(seed % 17)), LOCUS_CHANGE_FAIL,
		     (uint32_t)(seed % 5), LOCUS_NONE, 0},
		    {h->makespan * 2, LOCUS_CHANGE_RECOVER, (uint32_t)(seed % 5), LOCUS_NONE, 0}};
		for (int variant = 0; variant < 2; variant++) {
			struct locus_result *r =
			    run(f.wl, variant ? "gtp-c" : "gtp", "period=1", ch, 1 + (seed & 1));
			CHECK(r != NULL);
			if (r->failed) {
				failed++;
				CHECK(strstr(r->failure, "lost") != NULL);
				CHECK(r->tasks_done < f.g->n_tasks);
			} else {
				complete++;
				CHECK(valid_run(r, f.g));
			}
			locus_result_destroy(r);
		}
		locus_result_destroy(h);
		fixture_fini(&f);
	}
	fprintf(stderr, "  %d runs failed clearly, %d completed\n", failed, complete);
	CHECK(failed > 0);
}

/* The output a waiting task needs is lost with the only node that held
 * it, and no task was lost with it: the run ends at once, naming both,
 * though the timers of plain gtp would go on forever. */
TEST(lost_data_with_no_task_lost)
{
	struct locus_graph *g = NULL;
	struct locus_platform *p = NULL;
	struct locus_workload *wl = NULL;
	struct locus_error err = {0};
	static const double cost[2][2] = {{1, 100}, {100, 1}};
	CHECK_EQ_INT(locus_graph_create(&g, "pair", &err), 0);
	locus_graph_add_task(g, "a", 0);
	locus_graph_add_task(g, "b", 0);
	CHECK(locus_graph_add_edge(g, 0, 1, 5) >= 0);
	CHECK_EQ_INT(locus_graph_set_costs(g, 2, &cost[0][0], &err), 0);
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	CHECK_EQ_INT(locus_platform_generate(&p, 2, 1, 1, "p"), 0);
	locus_platform_set_pairs(p, 1, 0);
	CHECK_EQ_INT(locus_workload_from_graph(&wl, p, g, NULL, &err), 0);
	/* a runs on p01 over [0, 1], its 5 bytes leave for p02 at 1 s/byte;
	 * p01 fails at 3. */
	struct locus_change ch = {3, LOCUS_CHANGE_FAIL, 0, LOCUS_NONE, 0};
	for (int variant = 0; variant < 2; variant++) {
		struct locus_result *r = run(wl, variant ? "gtp-c" : "gtp", "period=0.5", &ch, 1);
		CHECK(r && r->failed);
		CHECK(strstr(r->failure, "task b lost the output of task a from node p01") != NULL);
		CHECK_EQ_INT(r->tasks_done, 1);
		locus_result_destroy(r);
	}
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
}

/* With rewinding, runs survive failures: over random graphs, processors
 * failing for good or for a while (one or two), 1,000 runs, every task
 * completes and counts once. */
TEST(rewinding_survives_failures)
{
	int runs = 0;
	uint64_t rewound = 0, lost = 0;
	for (uint64_t seed = 1; seed <= 500; seed++) {
		struct fixture f;
		size_t procs = 3 + seed % 6;
		CHECK_EQ_INT(
		    fixture(&f, (enum locus_dag_gen_method)(seed % 4), 40 + seed % 60, procs, seed),
		    0);
		struct locus_result *h = run(f.wl, "heft", "insertion=0", NULL, 0);
		CHECK(h != NULL);
		double m = h->makespan;
		uint32_t a = (uint32_t)(seed % procs), b = (uint32_t)((seed / 3 + 1) % procs);
		struct locus_change ch[4] = {
		    {m * (0.1 + 0.02 * (double)(seed % 40)), LOCUS_CHANGE_FAIL, a, LOCUS_NONE, 0},
		    {m * (0.2 + 0.02 * (double)(seed % 30)), LOCUS_CHANGE_FAIL, b, LOCUS_NONE, 0},
		    {m * 1.5, LOCUS_CHANGE_RECOVER, a, LOCUS_NONE, 0},
		    {m * 1.6, LOCUS_CHANGE_RECOVER, b, LOCUS_NONE, 0}};
		size_t n_ch = a == b ? 1 : (seed % 3 == 0 ? 2 : 4);
		if (a == b && seed % 2)
			ch[1] = ch[2], n_ch = 2; /* a fails and comes back */
		/* Sorted by time. */
		for (size_t i = 1; i < n_ch; i++)
			for (size_t j = i; j > 0 && ch[j].time < ch[j - 1].time; j--) {
				struct locus_change x = ch[j];
				ch[j] = ch[j - 1];
				ch[j - 1] = x;
			}
		for (int variant = 0; variant < 2; variant++) {
			const char *opts = seed % 4 == 0 ? "period=3,on=fail" : "period=3";
			struct locus_result *r =
			    run(f.wl, variant ? "gtp-c-r" : "gtp-r", opts, ch, n_ch);
			CHECK(r != NULL);
			if (!valid_run_n(r, f.g, 0))
				fprintf(stderr, "  seed %llu %s: %s (%zu of %zu)\n",
					(unsigned long long)seed, variant ? "gtp-c-r" : "gtp-r",
					r->failed ? r->failure : "invalid", r->tasks_done,
					f.g->n_tasks);
			CHECK(valid_run_n(r, f.g, 0));
			rewound += counter(r, "rewound_tasks");
			lost += r->attempts_lost;
			runs++;
			locus_result_destroy(r);
		}
		locus_result_destroy(h);
		fixture_fini(&f);
	}
	fprintf(stderr, "  %d runs complete; %llu attempts lost, %llu tasks rewound\n", runs,
		(unsigned long long)lost, (unsigned long long)rewound);
	CHECK(rewound > 0 && lost > 0);
}

/* ---- one rescheduling point, by a monitor of the test's own ------------------------ */

/* Creates policy `name` with `opts` on `wl` (one scheduler, process
 * n_workers) watching `mon`, hands it a timer at `now` and returns what it
 * did: its actions into *act (the caller frees them with
 * locus__actions_fini) and its counters into *st. 0, or -1. */
static int one_point(const char *name, const char *opts, const struct locus_workload *wl,
		     const struct locus_monitor *mon, double now, struct locus_actions *act,
		     struct locus_policy_stats *st)
{
	const struct locus_policy *pol = locus_policy_find(name);
	struct locus_error err = {0};
	struct locus_kv kv = {0};
	void *state = NULL;
	int rc = -1;
	if (pol && locus_kv_parse(&kv, opts, &err) == 0) {
		struct locus_policy_ctx ctx = {.wl = wl,
					       .n_workers = wl->n_workers,
					       .n_schedulers = 1,
					       .seed = 1,
					       .opts = &kv,
					       .monitor = mon};
		if (pol->create(&state, &ctx, &err) == 0) {
			struct locus_event ev = {.kind = LOCUS_EV_TIMER,
						 .proc = (uint32_t)wl->n_workers,
						 .now = now,
						 .tag = 1};
			pol->on_event(state, &ev, act);
			memset(st, 0, sizeof *st);
			pol->stats(state, st);
			pol->destroy(state);
			rc = 0;
		}
	}
	locus_kv_fini(&kv);
	return rc;
}

static uint64_t stat_of(const struct locus_policy_stats *st, const char *name)
{
	for (size_t k = 0; k < 8 && st->counter_names[k]; k++)
		if (!strcmp(st->counter_names[k], name))
			return st->counters[k];
	return 0;
}

/* ---- the paper's Fig. 3, by a monitor of our own --------------------------------- */

/* The state at RP_{i+2} of Fig. 3: v0 -> v1, v0 -> v2, v1 -> v3, v2 -> v3;
 * v0 and v2 ran on p3, v1 on p1; v3 is placed on p4, has all of v1's
 * output and half of v2's when p3 fails. For /c/r, v2's output has a copy
 * on p2 (v3 received it there before it migrated to p4). */
struct fig3 {
	struct locus_monitor mon;
	struct locus_replicas *rep;
	uint32_t o01, o02, o13, o23;
};

static uint32_t fig3_placed(const struct locus_monitor *m, uint32_t t, double *computed)
{
	static const uint32_t where[4] = {2, 0, 2, 3};
	*computed = t == 3 ? 0 : 1;
	return where[t];
}

static double fig3_moved(const struct locus_monitor *m, uint32_t o, uint32_t node)
{
	const struct fig3 *f = m->engine;
	if (locus_replicas_has(f->rep, o, node))
		return 1;
	return o == f->o23 && node == 3 ? 0.5 : 0;
}

static double fig3_avail(const struct locus_monitor *m, uint32_t node)
{
	return node == 2 ? 0 : 1;
}

static double fig3_bw(const struct locus_monitor *m, uint32_t node)
{
	return node == 2 ? 0 : 1;
}

static double fig3_pair_bw(const struct locus_monitor *m, uint32_t a, uint32_t b)
{
	return a == 2 || b == 2 ? 0 : 1;
}

/* Which tasks policy `name` rewinds at the rescheduling point. */
static unsigned fig3_rewound(const char *name, uint64_t *rt, uint64_t *rl)
{
	struct locus_graph *g = NULL;
	struct locus_platform *p = NULL;
	struct locus_workload *wl = NULL;
	struct locus_error err = {0};
	struct fig3 f = {0};
	unsigned mask = 0;
	if (locus_graph_create(&g, "fig3", &err))
		return ~0u;
	for (int t = 0; t < 4; t++) {
		char nm[8];
		snprintf(nm, sizeof nm, "v%d", t);
		locus_graph_add_task(g, nm, 1);
	}
	f.o01 = (uint32_t)locus_graph_add_edge(g, 0, 1, 10);
	f.o02 = (uint32_t)locus_graph_add_edge(g, 0, 2, 10);
	f.o13 = (uint32_t)locus_graph_add_edge(g, 1, 3, 10);
	f.o23 = (uint32_t)locus_graph_add_edge(g, 2, 3, 10);
	if (locus_graph_finish(g, &err) || locus_platform_generate(&p, 4, 1, 1, "p"))
		return ~0u;
	locus_platform_set_pairs(p, 1, 0);
	if (locus_workload_from_graph(&wl, p, g, NULL, &err) ||
	    locus_replicas_create(&f.rep, g->n_objects, 4))
		return ~0u;
	/* Where the objects are now, p3's copies dropped with it. */
	locus_replicas_add(f.rep, f.o01, 0); /* v1 received it on p1 */
	locus_replicas_add(f.rep, f.o13, 0); /* v1 wrote it on p1 ... */
	locus_replicas_add(f.rep, f.o13, 3); /* ... and v3 has it on p4 */
	locus_replicas_add(f.rep, f.o23, 1); /* the copy on p2 */
	f.mon = (struct locus_monitor){.engine = &f,
				       .replicas = f.rep,
				       .placed = fig3_placed,
				       .moved = fig3_moved,
				       .avail = fig3_avail,
				       .bandwidth = fig3_bw,
				       .pair_bw = fig3_pair_bw};
	struct locus_actions act = {0};
	struct locus_policy_stats st;
	if (one_point(name, "period=5", wl, &f.mon, 30, &act, &st) == 0) {
		for (size_t k = 0; k < act.n; k++)
			if (act.list[k].kind == LOCUS__ACT_REWIND)
				mask |= 1u << act.list[k].tag;
		*rt = stat_of(&st, "rewound_tasks");
		*rl = stat_of(&st, "rewound_levels");
	} else {
		mask = ~0u;
	}
	locus__actions_fini(&act);
	locus_replicas_destroy(f.rep);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
	return mask;
}

TEST(rewinding_of_fig3)
{
	uint64_t rt = 9, rl = 9;
	/* GTP/r: v2 has not sent all of its output to v3: rewound; then v0,
	 * whose successor v2 was rewound (v1 is done: satisfied). */
	CHECK_EQ_INT(fig3_rewound("gtp-r", &rt, &rl), (1u << 0) | (1u << 2));
	CHECK_EQ_INT(rt, 2);
	CHECK_EQ_INT(rl, 2); /* v2 on level 1, v0 on level 0 */
	/* GTP/c/r: v3 can take v2's output from the copy on p2: v2 keeps its
	 * status, and so does v0. */
	CHECK_EQ_INT(fig3_rewound("gtp-c-r", &rt, &rl), 0);
	CHECK_EQ_INT(rt, 0);
	/* Without rewinding, nothing is rewound. */
	CHECK_EQ_INT(fig3_rewound("gtp", &rt, &rl), 0);
}

/* ---- the cost equations by hand ------------------------------------------------- */

/* v0 -> v2 (2 bytes), v1 -> v2 (4 bytes), v2 -> v3 (6 bytes) on p1, p2
 * linked at 1 byte/s with a start-up of 1 s. At t = 10: v0 done on p1,
 * v1 done on p2; v2 placed on p1 (not started) with half of v1's data
 * there; v3 not placed; p1 half available. v0's output has a copy on p2.
 * W(v2) = 4 on p1, 9 on p2; W(v3) = 2 on p1, 8 on p2. */
struct hand {
	struct locus_monitor mon;
	struct locus_replicas *rep;
	uint32_t o02, o12, o23;
};

static uint32_t hand_placed(const struct locus_monitor *m, uint32_t t, double *computed)
{
	static const uint32_t where[4] = {0, 1, 0, LOCUS_NONE};
	*computed = t < 2 ? 1 : 0;
	return where[t];
}

static double hand_moved(const struct locus_monitor *m, uint32_t o, uint32_t node)
{
	const struct hand *h = m->engine;
	if (locus_replicas_has(h->rep, o, node))
		return 1;
	return o == h->o12 && node == 0 ? 0.5 : 0;
}

static double hand_avail(const struct locus_monitor *m, uint32_t node)
{
	return node == 0 ? 0.5 : 1;
}

static double hand_one(const struct locus_monitor *m, uint32_t node)
{
	return 1;
}

static double hand_pair_bw(const struct locus_monitor *m, uint32_t a, uint32_t b)
{
	return 1;
}

/* The actions policy `name` takes at the point t = 10: *moved2 and
 * *moved3 the workers v2 and v3 are sent to (LOCUS_NONE: not sent),
 * *transfers the transfers asked for; returns the migrations counted. */
static long hand_point(const char *name, uint32_t *to2, uint32_t *to3, size_t *transfers)
{
	static const double cost[4][2] = {{1, 1}, {1, 1}, {4, 9}, {2, 8}};
	struct locus_graph *g = NULL;
	struct locus_platform *p = NULL;
	struct locus_workload *wl = NULL;
	struct locus_error err = {0};
	struct hand h = {0};
	long migrations = -1;
	if (locus_graph_create(&g, "hand", &err))
		return -1;
	for (int t = 0; t < 4; t++)
		locus_graph_add_task(g, NULL, 0);
	h.o02 = (uint32_t)locus_graph_add_edge(g, 0, 2, 2);
	h.o12 = (uint32_t)locus_graph_add_edge(g, 1, 2, 4);
	h.o23 = (uint32_t)locus_graph_add_edge(g, 2, 3, 6);
	if (locus_graph_set_costs(g, 2, &cost[0][0], &err) || locus_graph_finish(g, &err) ||
	    locus_platform_generate(&p, 2, 1, 1, "p"))
		return -1;
	locus_platform_set_pairs(p, 1, 1);
	if (locus_workload_from_graph(&wl, p, g, NULL, &err) ||
	    locus_replicas_create(&h.rep, g->n_objects, 2))
		return -1;
	locus_replicas_add(h.rep, h.o02, 0); /* v0 wrote it on p1 */
	locus_replicas_add(h.rep, h.o02, 1); /* a copy on p2 */
	locus_replicas_add(h.rep, h.o12, 1); /* v1 wrote it on p2 */
	h.mon = (struct locus_monitor){.engine = &h,
				       .replicas = h.rep,
				       .placed = hand_placed,
				       .moved = hand_moved,
				       .avail = hand_avail,
				       .bandwidth = hand_one,
				       .pair_bw = hand_pair_bw};
	struct locus_actions act = {0};
	struct locus_policy_stats st;
	*to2 = *to3 = LOCUS_NONE;
	*transfers = 0;
	if (one_point(name, "period=10", wl, &h.mon, 10, &act, &st) == 0) {
		for (size_t k = 0; k < act.n; k++) {
			const struct locus__action *a = &act.list[k];
			if (a->kind == LOCUS__ACT_TRANSFER)
				(*transfers)++;
			if (a->kind == LOCUS__ACT_SEND && a->msg.type == LOCUS_MSG_ASSIGN) {
				if (a->msg.arg[0] == 2)
					*to2 = a->msg.to;
				if (a->msg.arg[0] == 3)
					*to3 = a->msg.to;
			}
		}
		migrations = (long)stat_of(&st, "migrations");
	}
	locus__actions_fini(&act);
	locus_replicas_destroy(h.rep);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
	return migrations;
}

TEST(cost_equations_by_hand)
{
	uint32_t to2, to3;
	size_t transfers;
	/* GTP. v2 on p1, where it is placed: DA = max(10 (v0's output is
	 * there), 10 + 2 bytes left of v1's / 1, no start-up: the transfer
	 * has begun) = 12; EST = 12; W^t = 4 / 0.5 = 8; EFT = 20. On p2 it
	 * would restart and regather from the producers: v0's 2 bytes from
	 * p1, 1 + 2 = 3, DA = 13; EFT = 13 + 9 = 22. v2 stays on p1. v3 on
	 * p1: 20 + 2 / 0.5 = 24; on p2: 20 + 1 + 6 + 8 = 35: p1. */
	CHECK_EQ_INT(hand_point("gtp", &to2, &to3, &transfers), 0);
	CHECK(to2 != 1 && to3 != 1);
	/* GTP/c. CM takes v0's output from its copy on p2 (0): DA = 10, EFT
	 * = 10 + 9 = 19 < 20: v2 migrates to p2. v3 on p1: 19 + 1 + 6 = 26,
	 * EFT 30; on p2: 19 + 8 = 27: p2. Nothing to send: p2 holds both
	 * inputs. */
	CHECK_EQ_INT(hand_point("gtp-c", &to2, &to3, &transfers), 1);
	CHECK_EQ_INT(to2, 1);
	CHECK_EQ_INT(to3, 1);
	CHECK_EQ_INT(transfers, 0);
}

/* A monitor of a run that has not begun: nothing placed, nothing moved,
 * every processor and link at its peak. */
static uint32_t idle_placed(const struct locus_monitor *m, uint32_t t, double *computed)
{
	*computed = 0;
	return LOCUS_NONE;
}

static double idle_moved(const struct locus_monitor *m, uint32_t o, uint32_t node)
{
	return 0;
}

static double idle_avail(const struct locus_monitor *m, uint32_t node)
{
	return 1;
}

static double idle_bw(const struct locus_monitor *m, uint32_t node)
{
	const struct locus_platform *p = m->engine;
	return p->nodes[node].net_bw;
}

static double idle_pair_bw(const struct locus_monitor *m, uint32_t a, uint32_t b)
{
	return locus_platform_pair_bw(m->engine, a, b);
}

/* DLS/sr's remapping is DLS over what is left from the monitor's state:
 * at a point before anything has started, on a platform at its peak, it
 * is DLS's own plan, so nothing is withdrawn, moved or sent again (on
 * wide graphs, whose ready lists outgrow the remapping's first rows). */
TEST(dls_remap_before_the_start_is_dls)
{
	for (uint64_t seed = 1; seed <= 8; seed++) {
		struct fixture f;
		CHECK_EQ_INT(fixture(&f, (enum locus_dag_gen_method)(seed % 4), 400, 6, seed), 0);
		struct locus_replicas *rep = NULL;
		CHECK_EQ_INT(locus_replicas_create(&rep, f.g->n_objects, f.p->n_nodes), 0);
		struct locus_monitor mon = {.engine = f.p,
					    .replicas = rep,
					    .placed = idle_placed,
					    .moved = idle_moved,
					    .avail = idle_avail,
					    .bandwidth = idle_bw,
					    .pair_bw = idle_pair_bw};
		struct locus_actions act = {0};
		struct locus_policy_stats st;
		CHECK_EQ_INT(one_point("dls-sr", NULL, f.wl, &mon, 0, &act, &st), 0);
		CHECK_EQ_INT(stat_of(&st, "resched_points"), 1);
		CHECK_EQ_INT(stat_of(&st, "remappings"), 0);
		size_t moved = 0;
		for (size_t k = 0; k < act.n; k++)
			moved += act.list[k].kind != LOCUS__ACT_TIMER;
		CHECK_EQ_INT(moved, 0);
		locus__actions_fini(&act);
		locus_replicas_destroy(rep);
		fixture_fini(&f);
	}
}

TEST(options_and_refusals)
{
	struct fixture f;
	CHECK_EQ_INT(fixture(&f, LOCUS_DAG_SAMEPRED, 20, 3, 1), 0);
	struct locus_sim_config cfg = {
	    .wl = f.wl, .policy = locus_policy_find("gtp"), .seed = 1, .latency = -1};
	struct locus_result *r = NULL;
	struct locus_error err = {0};
	cfg.policy_opts = "period=-1";
	CHECK(locus_sim_run(&r, &cfg, &err) == LOCUS_EINVAL && r == NULL);
	cfg.policy_opts = "on=never";
	CHECK(locus_sim_run(&r, &cfg, &err) == LOCUS_EINVAL);
	CHECK(strstr(err.message, "on") != NULL);
	cfg.policy_opts = "perio=3";
	CHECK(locus_sim_run(&r, &cfg, &err) == LOCUS_EINVAL);
	CHECK(strstr(err.message, "perio") != NULL);
	cfg.policy_opts = "on=all,period=2";
	CHECK_EQ_INT(locus_sim_run(&r, &cfg, &err), 0);
	CHECK(r && !r->failed);
	locus_result_destroy(r);
	fixture_fini(&f);
}

TEST_MAIN(TEST_ENTRY(first_schedule_is_heft_without_insertion),
	  TEST_ENTRY(dls_sr_reschedules_on_slack), TEST_ENTRY(variable_platforms),
	  TEST_ENTRY(failures_end_the_run_clearly), TEST_ENTRY(lost_data_with_no_task_lost),
	  TEST_ENTRY(rewinding_survives_failures), TEST_ENTRY(rewinding_of_fig3),
	  TEST_ENTRY(cost_equations_by_hand), TEST_ENTRY(dls_remap_before_the_start_is_dls),
	  TEST_ENTRY(options_and_refusals))
