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

/* Every task once, after its predecessors, on a live worker. */
static int valid_run(const struct locus_result *r, const struct locus_graph *g)
{
	if (r->failed || r->tasks_done != g->n_tasks)
		return 0;
	for (size_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task_result *tr = &r->tasks[t];
		if (!(tr->end >= tr->start) || tr->attempts != 1)
			return 0;
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
			if (r->tasks[g->preds[e].task].end > tr->start + 1e-9)
				return 0;
	}
	return 1;
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

TEST_MAIN(TEST_ENTRY(first_schedule_is_heft_without_insertion), TEST_ENTRY(variable_platforms),
	  TEST_ENTRY(failures_end_the_run_clearly), TEST_ENTRY(lost_data_with_no_task_lost),
	  TEST_ENTRY(options_and_refusals))
