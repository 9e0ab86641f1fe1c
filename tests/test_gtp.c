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

#include "dag/gtp.h"
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

/* An STG graph of tests/fixtures/stg, its costs whole seconds as the file
 * gives them, on `procs` processors linked pairwise at 125 MB/s, its
 * edges given data for CCR `ccr` (0: none): locus sim --graph FILE
 * --procs P --ccr X. */
static int stg_fixture(struct fixture *f, const char *file, size_t procs, double ccr)
{
	struct locus_error err = {0};
	char spec[512];
	memset(f, 0, sizeof *f);
	snprintf(spec, sizeof spec, "stg:%s", test_fixture(file));
	if (locus_dag_load(&f->g, spec, &err) || locus_dag_set_ccr(f->g, ccr, 125e6, 1, &err) ||
	    locus_platform_generate(&f->p, procs, 1, 1, "p")) {
		fprintf(stderr, "  %s: %s\n", file, err.message);
		return -1;
	}
	locus_platform_set_pairs(f->p, 125e6, 0);
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

/* Transfers of an object to a node an earlier transfer of it had reached
 * before this one was asked for. */
static size_t sent_again(const struct locus_result *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_xfers; i++)
		for (size_t j = 0; j < r->n_xfers; j++)
			if (r->xfers[j].object == r->xfers[i].object &&
			    r->xfers[j].to == r->xfers[i].to &&
			    r->xfers[j].end <= r->xfers[i].start) {
				n++;
				break;
			}
	return n;
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
/* Whole costs and no data: tasks end exactly at rescheduling points
 * (a tenth of the makespan). The engine registers a task's output
 * before the point looks (completion before observation at an
 * instant), so no input seems held nowhere: before, GTP/r and GTP/c/r
 * rewound or lost the task (rand0002 on 2 processors stopped at 12 of 50
 * tasks; rand0005 ended at 384.2 s against HEFT's 324) and GTP and GTP/c
 * stopped rescheduling after their first point. With every estimate
 * holding, every point keeps HEFT's schedule. */
TEST(task_ending_at_a_point)
{
	static const struct {
		const char *file;
		size_t procs;
		double heft;
	} cases[] = {{"stg/50/rand0002.stg", 2, 125},
		     {"stg/50/rand0005.stg", 2, 324},
		     {"stg/50/rand0001.stg", 3, 110}};
	static const char *const names[] = {"gtp", "gtp-c", "gtp-r", "gtp-c-r"};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		struct fixture f;
		CHECK_EQ_INT(stg_fixture(&f, cases[c].file, cases[c].procs, 0), 0);
		struct locus_result *h = run(f.wl, "heft", "insertion=0", NULL, 0);
		CHECK(h && !h->failed);
		CHECK_EQ_INT(h->makespan, cases[c].heft);
		for (size_t k = 0; k < 4; k++) {
			struct locus_result *r = run(f.wl, names[k], "on=none", NULL, 0);
			if (!r)
				fprintf(stderr, "  %s on %s\n", names[k], cases[c].file);
			CHECK(r);
			CHECK(valid_run(r, f.g));
			CHECK_EQ_INT(r->makespan, h->makespan);
			/* A point every tenth of the makespan until its end:
			 * 9, or 10 when the tenth sum of periods rounds
			 * below it. */
			CHECK(counter(r, "resched_points") >= 9 &&
			      counter(r, "resched_points") <= 10);
			CHECK_EQ_INT(counter(r, "remappings"), 0);
			CHECK_EQ_INT(counter(r, "migrations"), 0);
			if (k >= 2)
				CHECK_EQ_INT(counter(r, "rewound_tasks"), 0);
			for (size_t t = 0; t < f.g->n_tasks; t++)
				CHECK_EQ_INT(r->tasks[t].worker, h->tasks[t].worker);
			locus_result_destroy(r);
		}
		locus_result_destroy(h);
		fixture_fini(&f);
	}
}

/* Published STG graphs, whole costs, CCR 0 and 1, on 2 to 16 processors,
 * nothing varying: every reactive policy completes, every task once after
 * its predecessors, never under the makespan's lower bound; GTP's four
 * variants keep HEFT's schedule and DLS/sr DLS's (no estimate fails, no
 * slack is exceeded). bench/gtp_sweep.sh runs every graph of
 * ../shared/data/stg and generated ones, with variability too. */
TEST(stg_sweep_nothing_varying)
{
	static const char *const files[] = {"stg/50/rand0000.stg", "stg/50/rand0002.stg",
					    "stg/50/rand0005.stg"};
	static const size_t procs[] = {2, 3, 4, 8, 16};
	static const char *const names[] = {"gtp", "gtp-c", "gtp-r", "gtp-c-r", "dls-sr"};
	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 5; j++)
			for (int ccr = 0; ccr <= 1; ccr++) {
				struct fixture f;
				CHECK_EQ_INT(stg_fixture(&f, files[i], procs[j], ccr), 0);
				struct locus_result *h = run(f.wl, "heft", "insertion=0", NULL, 0);
				struct locus_result *d = run(f.wl, "dls", NULL, NULL, 0);
				CHECK(h && d && !h->failed && !d->failed);
				for (size_t k = 0; k < 5; k++) {
					struct locus_result *r =
					    run(f.wl, names[k], k < 4 ? "on=none" : NULL, NULL, 0);
					int ok = r && valid_run(r, f.g) &&
						 r->makespan >= r->lb_makespan * (1 - 1e-12) &&
						 r->makespan == (k < 4 ? h : d)->makespan;
					if (!ok)
						fprintf(stderr,
							"  %s on %s, %zu procs, CCR %d: %g\n",
							names[k], files[i], procs[j], ccr,
							r ? r->makespan : -1.0);
					locus_result_destroy(r);
					CHECK(ok);
				}
				locus_result_destroy(h);
				locus_result_destroy(d);
				fixture_fini(&f);
			}
}

/* A shared network, nothing varying: transfers contend for the nodes'
 * interfaces (and disks, racks' uplinks, a backbone), which HEFT's and
 * the paper's estimates leave out. GTP's costing books each transfer on
 * what it crosses, and a point replaces the schedule only when the new one
 * ends sooner played out as the engine runs it: so GTP and GTP/c end
 * within 10 % of non-insertion HEFT on every platform model. Before, they remapped at
 * every point on estimates that assumed contention-free links and ended
 * 4.5 to 12.7 times later (200 tasks, 8 nodes; 19,224 migrations on the
 * issue's 300 tasks, 10 nodes). */
TEST(shared_network_nothing_varying)
{
	struct {
		double disk, rack, backbone;
		size_t racks;
	} models[] = {{1e11, 0, 0, 1}, {0, 0, 0, 1}, {0, 50e6, 0, 2}, {0, 0, 300e6, 1}};
	for (size_t m = 0; m < 4; m++) {
		struct locus_error err = {0};
		struct locus_dag_gen spec = {
		    .method = LOCUS_DAG_SAMEPROB, .n_tasks = 200, .seed = 1};
		struct fixture f = {0};
		CHECK(locus_dag_generate(&f.g, &spec, &err) == 0 &&
		      locus_dag_set_heterogeneity(f.g, 8, 0.5, 1, &err) == 0 &&
		      locus_dag_set_ccr(f.g, 0.5, LOCUS_DEFAULT_NET_BW, 1, &err) == 0 &&
		      locus_platform_generate(&f.p, 8, models[m].racks, 1, "node") == 0);
		CHECK(f.p->network != LOCUS_NET_PAIRS);
		for (size_t n = 0; n < f.p->n_nodes && models[m].disk > 0; n++)
			f.p->nodes[n].disk_bw = models[m].disk;
		f.p->rack_bw = models[m].rack;
		f.p->backbone_bw = models[m].backbone;
		CHECK_EQ_INT(locus_workload_from_graph(&f.wl, f.p, f.g, NULL, &err), 0);
		struct locus_result *h = run(f.wl, "heft", "insertion=0", NULL, 0);
		CHECK(h && !h->failed);
		static const char *const names[] = {"gtp", "gtp-c"};
		for (size_t k = 0; k < 2; k++) {
			struct locus_result *r = run(f.wl, names[k], "on=none", NULL, 0);
			int ok = r && valid_run(r, f.g) && r->makespan <= 1.1 * h->makespan &&
				 counter(r, "points_kept") > 0 &&
				 counter(r, "points_kept") <= counter(r, "resched_points");
			if (!ok)
				fprintf(stderr, "  %s on model %zu: %g against HEFT's %g\n",
					names[k], m, r ? r->makespan : -1.0, h->makespan);
			locus_result_destroy(r);
			CHECK(ok);
		}
		locus_result_destroy(h);
		fixture_fini(&f);
	}
}

/* Issue 27: transfers under way at a point flow on, also to a node whose
 * task the point moves away (the engine does not stop them), so the
 * costing books them first. On ../shared/data/stg/100/rand0007.stg, 10
 * nodes in 2 racks with 50 MB/s uplinks, CCR 0.5, nothing varying (locus
 * sim --graph ... --nodes 10 --racks 2 --rack-bw 50MB --ccr 0.5 --beta
 * 0.5), a point that left them out estimated a gain of more than 30 %
 * and GTP ended 16 % behind non-insertion HEFT. */
/* ../shared/data/`file` on 10 nodes of the generated platform in
 * `racks` racks with uplinks of rack_bw (0: none), beta 0.5, CCR ccr,
 * seed 1: as locus sim --graph ... --nodes 10 [--racks R --rack-bw B]
 * --ccr C --beta 0.5 --seed 1 makes it. */
static void stg_on_10(struct fixture *f, const char *file, size_t racks, double rack_bw, double ccr)
{
	struct locus_error err = {0};
	char spec[512];
	*f = (struct fixture){0};
	snprintf(spec, sizeof spec, "stg:%s", test_fixture(file));
	CHECK(locus_dag_load(&f->g, spec, &err) == 0 &&
	      locus_dag_set_heterogeneity(f->g, 10, 0.5, 1, &err) == 0 &&
	      locus_dag_set_ccr(f->g, ccr, LOCUS_DEFAULT_NET_BW, 1, &err) == 0 &&
	      locus_platform_generate(&f->p, 10, racks, 1, "node") == 0);
	CHECK(f->p && f->p->network != LOCUS_NET_PAIRS);
	if (f->p)
		f->p->rack_bw = rack_bw;
	CHECK_EQ_INT(locus_workload_from_graph(&f->wl, f->p, f->g, NULL, &err), 0);
}

TEST(shared_network_transfers_under_way)
{
	struct fixture f;
	stg_on_10(&f, "stg/100/rand0007.stg", 2, 50e6, 0.5);
	struct locus_result *h = run(f.wl, "heft", "insertion=0", NULL, 0);
	CHECK(h && !h->failed);
	static const char *const names[] = {"gtp", "gtp-c"};
	for (size_t k = 0; k < 2; k++) {
		struct locus_result *r = run(f.wl, names[k], NULL, NULL, 0);
		int ok = r && valid_run(r, f.g) && r->makespan <= 1.1 * h->makespan;
		if (!ok)
			fprintf(stderr, "  %s: %g against HEFT's %g\n", names[k],
				r ? r->makespan : -1.0, h->makespan);
		locus_result_destroy(r);
		CHECK(ok);
	}
	locus_result_destroy(h);
	fixture_fini(&f);
}

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
		/* What is sent again because of migrations was sent: part of
		 * the bytes moved. GTP's migrated tasks regather even the
		 * inputs their new node holds, so an object reaches a node it
		 * had reached before; GTP/c takes the copy there. */
		CHECK(counter(g, "migrations") > 0 && counter(c, "migrations") > 0);
		CHECK(counter(g, "bytes_resent") <= g->bytes_moved);
		CHECK(counter(c, "bytes_resent") <= c->bytes_moved);
		CHECK(sent_again(g) > 0 && sent_again(c) == 0);
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

/* Every completion of every task in a run: a policy that is another one
 * (witness_of) and writes down each LOCUS_EV_DONE a worker hands it. */
static const struct locus_policy *witness_of;
static double *witness_at;     /* completion times ... */
static uint32_t *witness_task; /* ... of these tasks */
static size_t witness_n, witness_cap;

/* What a GTP policy's costing computes, when not NULL. */
static struct locus__gtp_watch *witness_watch;

static int witness_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	witness_n = 0;
	int rc = witness_of->create(state, ctx, err);
	if (!rc && witness_watch)
		locus__gtp_watch(*state, witness_watch);
	return rc;
}

static void witness_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	if (ev->kind == LOCUS_EV_DONE && witness_n < SIZE_MAX / 2) {
		if (witness_n == witness_cap) {
			size_t cap = witness_cap ? 2 * witness_cap : 256;
			double *at = realloc(witness_at, cap * sizeof *at);
			uint32_t *task = at ? realloc(witness_task, cap * sizeof *task) : NULL;
			if (at)
				witness_at = at;
			if (task)
				witness_task = task;
			if (at && task)
				witness_cap = cap;
		}
		if (witness_n < witness_cap) {
			witness_at[witness_n] = ev->now;
			witness_task[witness_n++] = ev->done.task;
		}
	}
	witness_of->on_event(state, ev, act);
}

static void witness_destroy(void *state)
{
	witness_of->destroy(state);
}

static void witness_stats(void *state, struct locus_policy_stats *out)
{
	witness_of->stats(state, out);
}

static size_t witness_schedulers(size_t n_workers, size_t requested)
{
	return witness_of->schedulers(n_workers, requested);
}

static const struct locus_policy witness = {.version = LOCUS_POLICY_VERSION,
					    .name = "witness",
					    .summary = "a policy that notes every completion",
					    .schedulers = witness_schedulers,
					    .create = witness_create,
					    .destroy = witness_destroy,
					    .on_event = witness_event,
					    .stats = witness_stats,
					    .flags = LOCUS_POLICY_GRAPHS | LOCUS_POLICY_RETRIES};

/* Policy `name` (one with LOCUS_POLICY_RETRIES) on wl, its completions
 * noted; the result as the engine wrote it into *json (the caller frees
 * it). */
static struct locus_result *run_witnessed(const struct locus_workload *wl, const char *name,
					  const char *opts, const struct locus_change *ch,
					  size_t n_ch, char **json)
{
	struct locus_error err = {0};
	witness_of = locus_policy_find(name);
	struct locus_sim_config cfg = {.wl = wl,
				       .policy = &witness,
				       .policy_opts = opts,
				       .seed = 1,
				       .latency = -1,
				       .changes = ch,
				       .n_changes = n_ch};
	struct locus_result *r = NULL;
	*json = NULL;
	if (!witness_of || locus_sim_run(&r, &cfg, &err)) {
		fprintf(stderr, "  %s: %s\n", name, err.message);
		return NULL;
	}
	size_t len = 0;
	FILE *fp = open_memstream(json, &len);
	if (!fp || locus_report_json(r, fp)) {
		if (fp)
			fclose(fp);
		free(*json);
		*json = NULL;
		locus_result_destroy(r);
		return NULL;
	}
	fclose(fp);
	return r;
}

/* Every task's last attempt started after a completion of each of its
 * predecessors, among all their completions (the witness's): a
 * predecessor rewound and run again after the task had its output ends
 * later, its earlier completion is the one the task read. */
static int after_every_predecessor(const struct locus_result *r, const struct locus_graph *g)
{
	for (size_t t = 0; t < g->n_tasks; t++)
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++) {
			uint32_t u = g->preds[e].task;
			int before = 0;
			for (size_t k = 0; k < witness_n && !before; k++)
				before = witness_task[k] == u &&
					 witness_at[k] <= r->tasks[t].start + 1e-9;
			if (!before) {
				fprintf(stderr,
					"  task %zu starts at %g before any end of pred %u\n", t,
					r->tasks[t].start, u);
				return 0;
			}
		}
	return 1;
}

/* With rewinding, runs survive failures: over random graphs, processors
 * failing for good or for a while (one or two), 1,000 runs, every task
 * completes and counts once, after a completion of each predecessor (one
 * rewound included), and the same run again gives the same result, byte
 * for byte. */
TEST(rewinding_survives_failures)
{
	int runs = 0;
	uint64_t rewound = 0, lost = 0, preds_rewound = 0;
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
			const char *name = variant ? "gtp-c-r" : "gtp-r";
			char *json = NULL, *again = NULL;
			struct locus_result *r = run_witnessed(f.wl, name, opts, ch, n_ch, &json);
			CHECK(r != NULL);
			if (!valid_run_n(r, f.g, 0) || !after_every_predecessor(r, f.g))
				fprintf(stderr, "  seed %llu %s: %s (%zu of %zu)\n",
					(unsigned long long)seed, name,
					r->failed ? r->failure : "invalid", r->tasks_done,
					f.g->n_tasks);
			CHECK(valid_run_n(r, f.g, 0));
			CHECK(after_every_predecessor(r, f.g));
			for (size_t t = 0; t < f.g->n_tasks; t++)
				for (uint32_t e = f.g->pred_at[t]; e < f.g->pred_at[t + 1]; e++)
					preds_rewound += r->tasks[f.g->preds[e].task].attempts > 1;
			struct locus_result *r2 = run_witnessed(f.wl, name, opts, ch, n_ch, &again);
			CHECK(r2 != NULL && json && again && strcmp(json, again) == 0);
			rewound += counter(r, "rewound_tasks");
			lost += r->attempts_lost;
			runs++;
			free(json);
			free(again);
			locus_result_destroy(r);
			locus_result_destroy(r2);
		}
		locus_result_destroy(h);
		fixture_fini(&f);
	}
	free(witness_at);
	free(witness_task);
	witness_at = NULL;
	witness_task = NULL;
	witness_n = witness_cap = 0;
	fprintf(stderr,
		"  %d runs complete, each twice the same; %llu attempts lost, %llu tasks "
		"rewound, %llu edges from a predecessor run more than once checked\n",
		runs, (unsigned long long)lost, (unsigned long long)rewound,
		(unsigned long long)preds_rewound);
	CHECK(rewound > 0 && lost > 0 && preds_rewound > 0);
}

/* Issue 27: on a shared network a point plays out the schedule in force
 * and the new mapping as the engine runs them (transfers sharing what
 * they cross max-min fairly) and takes the new one only if it ends
 * sooner. On ../shared/data/stg/100/rand0007.stg, 10 nodes of the
 * default platform (interfaces and disks), CCR 1.5, nothing varying
 * (locus sim --graph ... --nodes 10 --ccr 1.5 --beta 0.5 --seed 1), the
 * costing, which books transfers one after another, estimated the new
 * mapping of the first point 33 % sooner (1,405 s against 2,101), and GTP
 * took it and ended at 2,284 s, 20 % behind non-insertion HEFT's 1,906.
 * The play-out of HEFT's schedule from that point is the run's makespan,
 * and the new mapping's is the 2,284 s that mapping ran to, so the point
 * keeps HEFT's. */
TEST(shared_network_played_out)
{
	struct fixture f;
	stg_on_10(&f, "stg/100/rand0007.stg", 1, 0, 1.5);
	struct locus_result *h = run(f.wl, "heft", "insertion=0", NULL, 0);
	CHECK(h && !h->failed);
	size_t cells = f.g->n_tasks * f.wl->n_workers, inputs = 0;
	for (size_t t = 0; t < f.g->n_tasks; t++)
		if (f.g->tasks[t].in_at + f.g->tasks[t].n_in > inputs)
			inputs = f.g->tasks[t].in_at + f.g->tasks[t].n_in;
	double *cost = malloc((3 * cells + inputs * f.wl->n_workers + 1) * sizeof *cost);
	CHECK(cost != NULL);
	static const char *const names[] = {"gtp", "gtp-c"};
	for (size_t k = 0; k < 2 && h && cost; k++) {
		struct locus__gtp_watch w = {
		    cost, cost + cells, cost + 2 * cells, cost + 3 * cells, 0, 0, 0};
		witness_watch = &w;
		char *json = NULL;
		struct locus_result *r = run_witnessed(f.wl, names[k], "on=none", NULL, 0, &json);
		witness_watch = NULL;
		free(json);
		int ok = r && valid_run(r, f.g) && r->makespan <= 1.1 * h->makespan &&
			 w.played > 0 && fabs(w.first_cur - h->makespan) <= 1e-6 * h->makespan &&
			 fabs(w.first_new - 2284.245) < 0.01;
		if (!ok)
			fprintf(
			    stderr,
			    "  %s: %g against HEFT's %g; %u points played, the first %g and %g\n",
			    names[k], r ? r->makespan : -1.0, h->makespan, w.played, w.first_cur,
			    w.first_new);
		locus_result_destroy(r);
		CHECK(ok);
	}
	free(cost);
	locus_result_destroy(h);
	fixture_fini(&f);
}

/* A transfer under way is costed and played out from where it comes:
 * the monitor says how much of it has arrived, not from where, and
 * GTP/c sends from copies, so GTP keeps the sources it asked for. On
 * ../shared/data/stg/100/rand0001.stg, 10 nodes in 2 racks with 50 MB/s
 * uplinks, CCR 1.5, nothing varying, with gain=0 (every migration that
 * gains when played out is taken: the default 0.3 takes none here), a
 * point that took every transfer under way to come from its producer's
 * node (in the other rack, for some) played its schedule out at 1,670
 * s, 14 s later at 2,041 s, and GTP/c ended 12 % behind non-insertion
 * HEFT (1,882 s against 1,679). */
TEST(shared_network_sources_under_way)
{
	struct fixture f;
	stg_on_10(&f, "stg/100/rand0001.stg", 2, 50e6, 1.5);
	struct locus_result *h = run(f.wl, "heft", "insertion=0", NULL, 0);
	struct locus_result *r = run(f.wl, "gtp-c", "gain=0", NULL, 0);
	int ok = h && r && valid_run(r, f.g) && r->makespan <= 1.1 * h->makespan &&
		 counter(r, "migrations") > 0;
	if (!ok)
		fprintf(stderr, "  gtp-c: %g against HEFT's %g\n", r ? r->makespan : -1.0,
			h ? h->makespan : -1.0);
	CHECK(ok);
	locus_result_destroy(r);
	locus_result_destroy(h);
	fixture_fini(&f);
}

/* ---- one rescheduling point, by a monitor of the test's own ------------------------ */

/* Creates policy `name` with `opts` on `wl` (one scheduler, process
 * n_workers) watching `mon`, hands it a timer at `now` and returns what it
 * did: its actions into *act (the caller frees them with
 * locus__actions_fini) and its counters into *st; what its costing
 * computed into *watch when not NULL (a GTP policy). 0, or -1. */
static int one_point(const char *name, const char *opts, const struct locus_workload *wl,
		     const struct locus_monitor *mon, double now, struct locus_actions *act,
		     struct locus_policy_stats *st, struct locus__gtp_watch *watch)
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
			if (watch)
				locus__gtp_watch(state, watch);
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
		char nm[16];
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
	if (one_point(name, "period=5", wl, &f.mon, 30, &act, &st, NULL) == 0) {
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

/* What a policy did at one rescheduling point of a hand-made state: where
 * each task was sent (LOCUS_NONE: not sent) and in which order, which
 * tasks it withdrew, the transfers and copies it asked for, its counters,
 * and what its costing computed (rows of 3 workers at most). */
struct point {
	uint32_t to[8], cancelled, n_sent, sent[8];
	size_t transfers, copies, drops;
	struct locus__action transfer, drop; /* the last of each */
	uint64_t migrations, resent;
	double est[8 * 3], eft[8 * 3], da[8 * 3], input[8 * 3];
	struct locus__gtp_watch watch;
};

/* Runs policy `name` at time `now` on `wl` watched by `mon` into *pt. */
static int point_of(const char *name, const struct locus_workload *wl,
		    const struct locus_monitor *mon, double now, struct point *pt)
{
	memset(pt, 0, sizeof *pt);
	pt->watch = (struct locus__gtp_watch){pt->est, pt->eft, pt->da, pt->input, 0, 0, 0};
	for (size_t t = 0; t < 8; t++)
		pt->to[t] = LOCUS_NONE;
	struct locus_actions act = {0};
	struct locus_policy_stats st;
	if (wl->n_tasks > 8 || wl->n_workers > 3 ||
	    one_point(name, "period=100", wl, mon, now, &act, &st, &pt->watch))
		return -1;
	for (size_t k = 0; k < act.n; k++) {
		const struct locus__action *a = &act.list[k];
		if (a->kind == LOCUS__ACT_TRANSFER)
			pt->transfers++, pt->transfer = *a;
		if (a->kind == LOCUS__ACT_COPY)
			pt->copies++;
		if (a->kind == LOCUS__ACT_DROP)
			pt->drops++, pt->drop = *a;
		if (a->kind == LOCUS__ACT_CANCEL)
			pt->cancelled |= 1u << a->tag;
		if (a->kind == LOCUS__ACT_SEND && a->msg.type == LOCUS_MSG_ASSIGN) {
			pt->to[a->msg.arg[0]] = a->msg.to;
			pt->sent[pt->n_sent++] = (uint32_t)a->msg.arg[0];
		}
	}
	pt->migrations = stat_of(&st, "migrations");
	pt->resent = stat_of(&st, "bytes_resent");
	locus__actions_fini(&act);
	return 0;
}

/* A hand-made state: where each task is placed (LOCUS_NONE: nowhere),
 * how much of it is computed, each node's availability, what has
 * reached a node that holds no copy (one object, a fraction); the
 * objects' copies are in rep, the links all 1 byte/s. */
struct hand {
	struct locus_monitor mon;
	struct locus_replicas *rep;
	uint32_t where[8];
	double computed[8], avail[3];
	uint32_t partial_obj, partial_node;
	double partial;
};

static uint32_t hand_placed(const struct locus_monitor *m, uint32_t t, double *computed)
{
	const struct hand *h = m->engine;
	*computed = h->computed[t];
	return h->where[t];
}

static double hand_moved(const struct locus_monitor *m, uint32_t o, uint32_t node)
{
	const struct hand *h = m->engine;
	if (locus_replicas_has(h->rep, o, node))
		return 1;
	return o == h->partial_obj && node == h->partial_node ? h->partial : 0;
}

static double hand_avail(const struct locus_monitor *m, uint32_t node)
{
	const struct hand *h = m->engine;
	return h->avail[node];
}

static double hand_one(const struct locus_monitor *m, uint32_t node)
{
	return 1;
}

static double hand_pair_bw(const struct locus_monitor *m, uint32_t a, uint32_t b)
{
	return 1;
}

static void hand_init(struct hand *h, const struct locus_graph *g, size_t procs)
{
	memset(h, 0, sizeof *h);
	h->partial_obj = LOCUS_NONE;
	for (size_t w = 0; w < procs; w++)
		h->avail[w] = 1;
	if (locus_replicas_create(&h->rep, g->n_objects, procs))
		h->rep = NULL;
	h->mon = (struct locus_monitor){.engine = h,
					.replicas = h->rep,
					.placed = hand_placed,
					.moved = hand_moved,
					.avail = hand_avail,
					.bandwidth = hand_one,
					.pair_bw = hand_pair_bw};
}

/* A graph of n tasks with costs (rows of procs), edges (from, to, bytes),
 * on procs processors linked at 1 byte/s with a start-up of 1 s. */
static struct locus_workload *hand_graph(struct locus_graph **g, struct locus_platform **p,
					 size_t n, size_t procs, const double *cost,
					 const uint32_t (*edges)[3], size_t n_edges)
{
	struct locus_error err = {0};
	struct locus_workload *wl = NULL;
	*g = NULL;
	*p = NULL;
	if (locus_graph_create(g, "hand", &err))
		return NULL;
	for (size_t t = 0; t < n; t++)
		locus_graph_add_task(*g, NULL, 0);
	for (size_t e = 0; e < n_edges; e++)
		if (locus_graph_add_edge(*g, edges[e][0], edges[e][1], edges[e][2]) < 0)
			return NULL;
	if (locus_graph_set_costs(*g, procs, cost, &err) || locus_graph_finish(*g, &err) ||
	    locus_platform_generate(p, procs, 1, 1, "p"))
		return NULL;
	locus_platform_set_pairs(*p, 1, 1);
	if (locus_workload_from_graph(&wl, *p, *g, NULL, &err))
		return NULL;
	return wl;
}

/* Row t, column w of a point's costs on two processors. */
#define AT(a, t, w) ((a)[2 * (t) + (w)])

/* v0 -> v2 (2 bytes), v1 -> v2 (4 bytes), v2 -> v3 (6 bytes), and v4
 * alone, on p1 and p2. W(v2) = 4 on p1, 9 on p2; W(v3) = 2, 8; W(v4) = 2,
 * 2 (upward ranks: v2 18.5, v3 5, v4 2). HEFT's plan: v2 and v3 on p1, v4
 * on p2. At t = 10: v0 done on p1, v1 done on p2; v2 placed on p1, not
 * started, half of v1's output there (kappa^d 0.5); v3 not placed; v4
 * running on p2, three quarters computed (kappa^c 0.75); p1 half
 * available (avail^t 0.5). v0's output has a copy on p2. */
TEST(cost_equations_by_hand)
{
	static const double cost[5][2] = {{1, 1}, {1, 1}, {4, 9}, {2, 8}, {2, 2}};
	static const uint32_t edges[3][3] = {{0, 2, 2}, {1, 2, 4}, {2, 3, 6}};
	struct locus_graph *g;
	struct locus_platform *p;
	struct locus_workload *wl = hand_graph(&g, &p, 5, 2, &cost[0][0], edges, 3);
	CHECK(wl != NULL);
	struct hand h;
	hand_init(&h, g, 2);
	CHECK(h.rep != NULL);
	static const uint32_t where[5] = {0, 1, 0, LOCUS_NONE, 1};
	static const double computed[5] = {1, 1, 0, 0, 0.75};
	memcpy(h.where, where, sizeof where);
	memcpy(h.computed, computed, sizeof computed);
	h.avail[0] = 0.5;
	h.partial_obj = 1; /* v1 -> v2 */
	h.partial_node = 0;
	h.partial = 0.5;
	locus_replicas_add(h.rep, 0, 0); /* v0 wrote it on p1 */
	locus_replicas_add(h.rep, 0, 1); /* a copy on p2 */
	locus_replicas_add(h.rep, 1, 1); /* v1 wrote it on p2 */
	/* v2's inputs: 0 (from v0) and 1 (from v1); v3's: 2. */
	uint32_t i02 = g->tasks[2].in_at, i12 = i02 + 1, i23 = g->tasks[3].in_at;
	CHECK(g->inputs[i02] == 0 && g->inputs[i12] == 1 && g->inputs[i23] == 2);
	struct point pt;

	/* GTP. PA(p1) = 10; PA(p2) = 10 + 2 (1 - 0.75) / 1 = 10.5: v4 runs
	 * there till then.
	 * v2 on p1, where it is placed: v0's output is there (10), 2 bytes
	 * of v1's are left, a transfer begun, no start-up: 10 + 2 / 1 = 12
	 * (Eqs. 3, 4); DA = 12 (Eq. 8), EST = max(PA 10, DA 12) = 12 (Eq. 6),
	 * W^t = 4 / 0.5 = 8 (Eq. 11), EFT = 20 (Eq. 10).
	 * v2 on p2 would migrate: it restarts from scratch and regathers from
	 * the producers (section 3.3), the copy of v0's output on p2 unused:
	 * 10 + 1 + 2 = 13; v1's output is on its own processor: 10. DA = 13,
	 * EST = max(10.5, 13) = 13, EFT = 13 + 9 = 22. v2 stays on p1; PA(p1)
	 * = 20.
	 * v3 on p1: DA = EFT(v2) = 20, EST = 20, EFT = 20 + 2 / 0.5 = 24; on
	 * p2: DA = 20 + 1 + 6 = 27, EST = 27, EFT = 35. p1; PA(p1) = 24.
	 * v4, started on p2: EST = t = 10 (Eq. 5), EFT = 10 + 2 (1 - 0.75) =
	 * 10.5; on p1 it would restart: EST = max(24, 10) = 24, EFT = 24 + 2
	 * / 0.5 = 28. It stays. Nothing changes: nothing is sent. */
	CHECK_EQ_INT(point_of("gtp", wl, &h.mon, 10, &pt), 0);
	CHECK_NEAR(AT(pt.input, i02, 0), 10, 1e-12);
	CHECK_NEAR(AT(pt.input, i12, 0), 12, 1e-12);
	CHECK_NEAR(AT(pt.da, 2, 0), 12, 1e-12);
	CHECK_NEAR(AT(pt.est, 2, 0), 12, 1e-12);
	CHECK_NEAR(AT(pt.eft, 2, 0), 20, 1e-12);
	CHECK_NEAR(AT(pt.input, i02, 1), 13, 1e-12);
	CHECK_NEAR(AT(pt.input, i12, 1), 10, 1e-12);
	CHECK_NEAR(AT(pt.da, 2, 1), 13, 1e-12);
	CHECK_NEAR(AT(pt.est, 2, 1), 13, 1e-12);
	CHECK_NEAR(AT(pt.eft, 2, 1), 22, 1e-12);
	CHECK_NEAR(AT(pt.input, i23, 0), 20, 1e-12);
	CHECK_NEAR(AT(pt.est, 3, 0), 20, 1e-12);
	CHECK_NEAR(AT(pt.eft, 3, 0), 24, 1e-12);
	CHECK_NEAR(AT(pt.input, i23, 1), 27, 1e-12);
	CHECK_NEAR(AT(pt.est, 3, 1), 27, 1e-12);
	CHECK_NEAR(AT(pt.eft, 3, 1), 35, 1e-12);
	CHECK(isnan(AT(pt.da, 4, 1))); /* Eq. 5 reads no data */
	CHECK_NEAR(AT(pt.est, 4, 1), 10, 1e-12);
	CHECK_NEAR(AT(pt.eft, 4, 1), 10.5, 1e-12);
	CHECK_NEAR(AT(pt.da, 4, 0), 10, 1e-12);
	CHECK_NEAR(AT(pt.est, 4, 0), 24, 1e-12);
	CHECK_NEAR(AT(pt.eft, 4, 0), 28, 1e-12);
	CHECK(isnan(AT(pt.est, 0, 0)) && isnan(AT(pt.eft, 1, 1))); /* done */
	CHECK_EQ_INT(pt.n_sent + pt.cancelled + pt.transfers + pt.copies + pt.drops, 0);
	CHECK_EQ_INT(pt.migrations, 0);

	/* GTP/c. v2 on p1 as under GTP: 12, 12, 20. On p2, CM (Eq. 12) takes
	 * v0's output from its copy there for nothing: DA = 10 (Eq. 13), EST
	 * = max(PA 10.5, 10) = 10.5, EFT = 10.5 + 9 = 19.5 < 20: v2 migrates
	 * to p2; PA(p2) = 19.5.
	 * v3 on p1: 19.5 + 1 + 6 = 26.5, EFT = 26.5 + 4 = 30.5; on p2: EST =
	 * max(19.5, 19.5), EFT = 27.5: p2; PA(p2) = 27.5.
	 * v4: on p2 10, 10.5 as above; on p1, empty now: EST = 10, EFT = 10 +
	 * 4 = 14. It stays on p2 and, started, keeps running: it comes first
	 * in p2's sequence, before v2 and v3, ranked higher but not started,
	 * so it is not withdrawn (its costing let it carry on). v2 and v3 are
	 * withdrawn from p1 and sent to p2 in rank order. Nothing to send: p2
	 * holds both of v2's inputs, so nothing is sent again. */
	CHECK_EQ_INT(point_of("gtp-c", wl, &h.mon, 10, &pt), 0);
	CHECK_NEAR(AT(pt.est, 2, 0), 12, 1e-12);
	CHECK_NEAR(AT(pt.eft, 2, 0), 20, 1e-12);
	CHECK_NEAR(AT(pt.input, i02, 1), 10, 1e-12);
	CHECK_NEAR(AT(pt.input, i12, 1), 10, 1e-12);
	CHECK_NEAR(AT(pt.da, 2, 1), 10, 1e-12);
	CHECK_NEAR(AT(pt.est, 2, 1), 10.5, 1e-12);
	CHECK_NEAR(AT(pt.eft, 2, 1), 19.5, 1e-12);
	CHECK_NEAR(AT(pt.input, i23, 0), 26.5, 1e-12);
	CHECK_NEAR(AT(pt.eft, 3, 0), 30.5, 1e-12);
	CHECK_NEAR(AT(pt.est, 3, 1), 19.5, 1e-12);
	CHECK_NEAR(AT(pt.eft, 3, 1), 27.5, 1e-12);
	CHECK_NEAR(AT(pt.est, 4, 0), 10, 1e-12);
	CHECK_NEAR(AT(pt.eft, 4, 0), 14, 1e-12);
	CHECK_NEAR(AT(pt.eft, 4, 1), 10.5, 1e-12);
	CHECK_EQ_INT(pt.cancelled, (1u << 2) | (1u << 3));
	CHECK_EQ_INT(pt.n_sent, 2);
	CHECK_EQ_INT(pt.sent[0], 2);
	CHECK_EQ_INT(pt.sent[1], 3);
	CHECK_EQ_INT(pt.to[2], 1);
	CHECK_EQ_INT(pt.to[3], 1);
	CHECK_EQ_INT(pt.migrations, 1);
	CHECK_EQ_INT(pt.transfers + pt.copies + pt.drops, 0);
	CHECK_EQ_INT(pt.resent, 0);

	locus_replicas_destroy(h.rep);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
}

/* A migration's inputs: v0 -> v1 (5 bytes) on p1, p2, p3; W(v1) = 100, 1,
 * 2, so HEFT puts v0 on p1 and v1 on p2. At t = 10 v0 is done, v1 is
 * placed on p2 with all of v0's output there, not started, and p2 has
 * slowed to a tenth. On p2: EFT = 10 + 1 / 0.1 = 20. On p3 it migrates
 * and restarts; GTP regathers from the producer's processor: 10 + 1 + 5
 * = 16, EFT 18; on p1, the producer's own: EFT 10 + 100. So v1 moves to
 * p3 (`copy_on_p3`: where a copy of v0's output already is, from an
 * earlier stay of v1 there; `placed` 0: v1 assigned to p2 but not
 * placed there). */
static int migrate_v1(const char *name, int copy_on_p3, int placed, struct point *pt)
{
	static const double cost[2][3] = {{1, 1, 1}, {100, 1, 2}};
	static const uint32_t edges[1][3] = {{0, 1, 5}};
	struct locus_graph *g;
	struct locus_platform *p;
	struct locus_workload *wl = hand_graph(&g, &p, 2, 3, &cost[0][0], edges, 1);
	struct hand h;
	int rc = -1;
	if (wl) {
		hand_init(&h, g, 3);
		h.where[0] = 0;
		h.where[1] = placed ? 1 : LOCUS_NONE;
		h.computed[0] = 1;
		h.avail[1] = 0.1;
		if (h.rep) {
			locus_replicas_add(h.rep, 0, 0);
			locus_replicas_add(h.rep, 0, 1);
			if (copy_on_p3)
				locus_replicas_add(h.rep, 0, 2);
			rc = point_of(name, wl, &h.mon, 10, pt);
		}
		locus_replicas_destroy(h.rep);
	}
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	locus_graph_destroy(g);
	return rc;
}

TEST(migration_regathers_its_inputs)
{
	struct point pt;
	/* (v1 reads input 0 of the graph.) GTP, p3 without a copy: the 5
	 * bytes come from p1, v0's processor; they had reached v1's old node
	 * from p1: sent again. */
	CHECK_EQ_INT(migrate_v1("gtp", 0, 1, &pt), 0);
	CHECK_NEAR(pt.watch.input[0 * 3 + 2], 16, 1e-12);
	CHECK_NEAR(pt.watch.eft[1 * 3 + 2], 18, 1e-12);
	CHECK_NEAR(pt.watch.eft[1 * 3 + 1], 20, 1e-12);
	CHECK_EQ_INT(pt.to[1], 2);
	CHECK_EQ_INT(pt.migrations, 1);
	CHECK_EQ_INT(pt.transfers, 1);
	CHECK_EQ_INT(pt.transfer.from, 0);
	CHECK_EQ_INT(pt.transfer.to, 2);
	CHECK_EQ_INT(pt.copies + pt.drops, 0);
	CHECK_EQ_INT(pt.resent, 5);
	/* GTP, p3 with a copy: GTP keeps no copies (section 3.3, Fig. 2a):
	 * the costing regathers (16, 18), and so does the run: p3's copy is
	 * dropped and the 5 bytes sent from p1 again. */
	CHECK_EQ_INT(migrate_v1("gtp", 1, 1, &pt), 0);
	CHECK_NEAR(pt.watch.input[0 * 3 + 2], 16, 1e-12);
	CHECK_EQ_INT(pt.to[1], 2);
	CHECK_EQ_INT(pt.drops, 1);
	CHECK_EQ_INT(pt.drop.tag, 0);
	CHECK_EQ_INT(pt.drop.to, 2);
	CHECK_EQ_INT(pt.transfers, 1);
	CHECK_EQ_INT(pt.transfer.tag, 0);
	CHECK_EQ_INT(pt.transfer.from, 0);
	CHECK_EQ_INT(pt.transfer.to, 2);
	CHECK_EQ_INT(pt.copies, 0);
	CHECK_EQ_INT(pt.resent, 5);
	/* GTP/c, p3 without a copy: CM, the cheapest of p1 and p2 (6 each,
	 * the first): the same. */
	CHECK_EQ_INT(migrate_v1("gtp-c", 0, 1, &pt), 0);
	CHECK_NEAR(pt.watch.input[0 * 3 + 2], 16, 1e-12);
	CHECK_EQ_INT(pt.to[1], 2);
	CHECK_EQ_INT(pt.transfers, 1);
	CHECK_EQ_INT(pt.copies + pt.drops, 0);
	CHECK_EQ_INT(pt.resent, 5);
	/* GTP/c, p3 with a copy: v1 takes it (CM 0): DA 10, EFT 12; nothing
	 * is sent, so nothing counts as sent again. */
	CHECK_EQ_INT(migrate_v1("gtp-c", 1, 1, &pt), 0);
	CHECK_NEAR(pt.watch.input[0 * 3 + 2], 10, 1e-12);
	CHECK_NEAR(pt.watch.eft[1 * 3 + 2], 12, 1e-12);
	CHECK_EQ_INT(pt.to[1], 2);
	CHECK_EQ_INT(pt.migrations, 1);
	CHECK_EQ_INT(pt.transfers + pt.copies + pt.drops, 0);
	CHECK_EQ_INT(pt.resent, 0);
	/* GTP, v1 not placed yet (it has gathered nothing: moving it is no
	 * migration), p3 with a copy: its node will gather the input, and
	 * what is there serves (kappa^d 1): 10, EFT 12; nothing is sent. */
	CHECK_EQ_INT(migrate_v1("gtp", 1, 0, &pt), 0);
	CHECK_NEAR(pt.watch.input[0 * 3 + 2], 10, 1e-12);
	CHECK_NEAR(pt.watch.eft[1 * 3 + 2], 12, 1e-12);
	CHECK_EQ_INT(pt.to[1], 2);
	CHECK_EQ_INT(pt.migrations, 0);
	CHECK_EQ_INT(pt.transfers + pt.copies + pt.drops, 0);
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
		CHECK_EQ_INT(one_point("dls-sr", NULL, f.wl, &mon, 0, &act, &st, NULL), 0);
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

TEST_MAIN(TEST_ENTRY(first_schedule_is_heft_without_insertion), TEST_ENTRY(task_ending_at_a_point),
	  TEST_ENTRY(stg_sweep_nothing_varying), TEST_ENTRY(shared_network_nothing_varying),
	  TEST_ENTRY(shared_network_transfers_under_way), TEST_ENTRY(shared_network_played_out),
	  TEST_ENTRY(shared_network_sources_under_way), TEST_ENTRY(dls_sr_reschedules_on_slack),
	  TEST_ENTRY(variable_platforms), TEST_ENTRY(failures_end_the_run_clearly),
	  TEST_ENTRY(lost_data_with_no_task_lost), TEST_ENTRY(rewinding_survives_failures),
	  TEST_ENTRY(rewinding_of_fig3), TEST_ENTRY(cost_equations_by_hand),
	  TEST_ENTRY(migration_regathers_its_inputs), TEST_ENTRY(dls_remap_before_the_start_is_dls),
	  TEST_ENTRY(options_and_refusals))
