/*
 * ScalScheduling's experiments, reproduced in the simulator
 * (docs/results/scalscheduling.md explains the platform and the cost model
 * and reads the results):
 *
 *  fig4    processing time against 256..2,048 workers on 128 nodes, ten
 *          tasks per worker of 1..3 s; monolithic against scal, 3 seeds;
 *          also with the default cost per metadata entry
 *  fig5    mean wait for an assignment against the metadata size (the
 *          runs of fig4: ten chunks, ten metadata entries, per worker)
 *  fig7    locality on 1,024 workers, 30,720 chunks, three replicas, the
 *          three skewed placements: monolithic, scal, the optimum; 5 seeds
 *  fig8    the longest wait for an assignment against workers (the runs
 *          of fig4)
 *  approval  local requests approved, with 1, 2 and 3 replicas (the
 *          paper's "more than 95 %" with tau = 2 and kept-lists)
 *  own     block against cyclic ownership: how evenly concurrent requests
 *          spread over the schedulers (their inbox lengths)
 *  options adaptive tau and n_k in every reply (beyond the paper)
 *  schedulers  workers per scheduler from 2,048 to 128 (beyond the paper)
 *  scale   request waits against 1,024..32,768 workers, monolithic and scal
 *
 *   repro_scal [--out DIR] [EXPERIMENT...]     (default: all, into docs/results)
 *
 * Prints a Markdown table per experiment and writes its charts (scal-*.svg)
 * into DIR.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repro.h"

#define MAX_SEEDS 5

/* The cost model of these experiments (docs/results/scalscheduling.md). */
#define COST_MSG   5e-6
#define COST_ENTRY 1e-5

static const char *out_dir = "docs/results";

struct spec {
	size_t nodes;
	int ppn;
	size_t tasks;
	unsigned replicas;
	enum locus_place_policy placement;
	double skew_std;
	uint64_t chunk;
	double cost_entry;
	const char *opts;
};

/* Runs `policy` on the workload of `sp` under `seed` (nodes in 32 racks,
 * work uniform in 1..3 s); *opt gets the locality optimum when not NULL. */
static struct locus_result *run(const struct spec *sp, const char *policy, uint64_t seed, long *opt)
{
	struct locus_scenario_spec sc = {.nodes = sp->nodes,
					 .racks = 32,
					 .cores = sp->ppn,
					 .chunks = sp->tasks,
					 .chunk_size = sp->chunk,
					 .placement = sp->placement,
					 .replicas = sp->replicas,
					 .skew_std = sp->skew_std,
					 .work = "uniform:1:3"};
	struct repro_run r = {.policy = policy,
			      .opts = sp->opts,
			      .cost_msg = COST_MSG,
			      .cost_entry = sp->cost_entry,
			      .opt_local = opt};
	return repro_go(&sc, seed, &r);
}

/* ---- Fig. 4 and Fig. 8: against the number of workers -------------------- */

static void fig4_and_8(void)
{
	static const int workers[] = {256, 512, 768, 1024, 1280, 1536, 1792, 2048};
	enum { NW = sizeof workers / sizeof workers[0], SEEDS = 3 };
	struct repro_line t_mono = {0}, t_scal = {0}, t_lb = {0}, t_mono0 = {0}, t_scal0 = {0};
	struct repro_line w_mono = {0}, w_scal = {0}, m_mono = {0}, m_scal = {0};
	printf("### Fig. 4, Fig. 5 and Fig. 8: processing time, mean and longest wait against "
	       "workers (10 chunks each)\n\n"
	       "| workers | schedulers | monolithic (s) | scal (s) | monolithic, 0.1 us/entry | "
	       "scal, 0.1 us/entry | mean wait, monolithic (ms) | mean wait, scal (ms) | longest "
	       "wait, monolithic (s) | longest wait, scal (s) |\n"
	       "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < NW; i++) {
		double tm[SEEDS], ts[SEEDS], tb[SEEDS], tm0[SEEDS], ts0[SEEDS], wm[SEEDS],
		    ws[SEEDS];
		double am[SEEDS], as[SEEDS];
		size_t sched = 0;
		for (int s = 0; s < SEEDS; s++) {
			struct spec sp = {128,	      workers[i] / 128, (size_t)workers[i] * 10,
					  3,	      LOCUS_PLACE_HDFS, 0,
					  1ull << 20, COST_ENTRY,	NULL};
			struct locus_result *m = run(&sp, "monolithic", (uint64_t)s + 1, NULL);
			struct locus_result *c = run(&sp, "scal", (uint64_t)s + 1, NULL);
			sp.cost_entry = 1e-7;
			struct locus_result *m0 = run(&sp, "monolithic", (uint64_t)s + 1, NULL);
			struct locus_result *c0 = run(&sp, "scal", (uint64_t)s + 1, NULL);
			tm[s] = m->makespan;
			ts[s] = c->makespan;
			tb[s] = c->lb_makespan;
			tm0[s] = m0->makespan;
			ts0[s] = c0->makespan;
			wm[s] = m->wait_max;
			ws[s] = c->wait_max;
			am[s] = 1e3 * m->wait_mean;
			as[s] = 1e3 * c->wait_mean;
			sched = c->n_schedulers;
			locus_result_destroy(m);
			locus_result_destroy(c);
			locus_result_destroy(m0);
			locus_result_destroy(c0);
		}
		struct repro_stat a = repro_stat(tm, SEEDS), b = repro_stat(ts, SEEDS),
				  lb = repro_stat(tb, SEEDS);
		struct repro_stat a0 = repro_stat(tm0, SEEDS), b0 = repro_stat(ts0, SEEDS);
		struct repro_stat c = repro_stat(wm, SEEDS), d = repro_stat(ws, SEEDS);
		struct repro_stat e = repro_stat(am, SEEDS), f = repro_stat(as, SEEDS);
		repro_line_add(&t_mono, workers[i], a);
		repro_line_add(&t_scal, workers[i], b);
		repro_line_add(&t_lb, workers[i], lb);
		repro_line_add(&t_mono0, workers[i], a0);
		repro_line_add(&t_scal0, workers[i], b0);
		repro_line_add(&w_mono, workers[i], c);
		repro_line_add(&w_scal, workers[i], d);
		repro_line_add(&m_mono, 10.0 * workers[i], e);
		repro_line_add(&m_scal, 10.0 * workers[i], f);
		printf("| %d | %zu | %.2f | %.2f | %.2f | %.2f | %.1f | %.2f | %.3f | %.4f |\n",
		       workers[i], sched, a.mean, b.mean, a0.mean, b0.mean, e.mean, f.mean, c.mean,
		       d.mean);
	}
	struct locus_series s4[] = {repro_series(&t_mono, "monolithic", 1, 0),
				    repro_series(&t_scal, "scal", 1, 0),
				    repro_series(&t_mono0, "monolithic, 0.1 us per entry", 0, 0),
				    repro_series(&t_scal0, "scal, 0.1 us per entry", 0, 0),
				    repro_series(&t_lb, "lower bound", 0, 1)};
	struct locus_chart c4 = {.title = "ScalScheduling Fig. 4: processing time against workers",
				 .subtitle = "128 nodes, 10 tasks of 1..3 s per worker, 10 us per "
					     "metadata entry; mean and range of 3 seeds",
				 .x_label = "worker processes",
				 .y_label = "processing time (s)",
				 .series = s4,
				 .n_series = 5};
	repro_save(&c4, out_dir, "scal-fig4.svg");
	struct locus_series s8[] = {repro_series(&w_mono, "monolithic", 1, 0),
				    repro_series(&w_scal, "scal", 1, 0)};
	struct locus_chart c8 = {.title = "ScalScheduling Fig. 8: longest wait for an assignment",
				 .subtitle = "the runs of Fig. 4",
				 .x_label = "worker processes",
				 .y_label = "longest wait (s)",
				 .series = s8,
				 .n_series = 2};
	repro_save(&c8, out_dir, "scal-fig8.svg");
	struct locus_series s5[] = {repro_series(&m_mono, "monolithic", 1, 0),
				    repro_series(&m_scal, "scal", 1, 0)};
	struct locus_chart c5 = {.title = "ScalScheduling Fig. 5: mean wait against metadata size",
				 .subtitle = "the runs of Fig. 4: 10 chunks (metadata entries) per "
					     "worker",
				 .x_label = "chunks (metadata entries)",
				 .y_label = "mean wait for an assignment (ms)",
				 .series = s5,
				 .n_series = 2};
	repro_save(&c5, out_dir, "scal-fig5.svg");
}

/* ---- Fig. 7: locality on skewed placements -------------------------------- */

static void fig7(void)
{
	static const double stds[] = {6.05, 7.42, 8.82};
	enum { SEEDS = 5 };
	struct repro_line mono = {0}, scal = {0}, best = {0};
	printf("### Fig. 7: chunks read locally, 1,024 workers, 30,720 chunks, 3 replicas\n\n"
	       "| placement std | monolithic | scal | optimum | scal, seeds | messages per "
	       "task (scal) |\n|---:|---:|---:|---:|---|---:|\n");
	for (size_t i = 0; i < 3; i++) {
		double lm[SEEDS], ls[SEEDS], lo[SEEDS], msgs[SEEDS];
		for (int s = 0; s < SEEDS; s++) {
			struct spec sp = {1024,	   1,	       30720,	   3,	LOCUS_PLACE_SKEWED,
					  stds[i], 1ull << 20, COST_ENTRY, NULL};
			long opt = 0;
			struct locus_result *m = run(&sp, "monolithic", (uint64_t)s + 1, &opt);
			struct locus_result *c = run(&sp, "scal", (uint64_t)s + 1, NULL);
			lm[s] = 100.0 * (double)m->local_tasks / (double)m->n_tasks;
			ls[s] = 100.0 * (double)c->local_tasks / (double)c->n_tasks;
			lo[s] = 100.0 * (double)opt / (double)c->n_tasks;
			msgs[s] = (double)c->messages / (double)c->n_tasks;
			locus_result_destroy(m);
			locus_result_destroy(c);
		}
		struct repro_stat a = repro_stat(lm, SEEDS), b = repro_stat(ls, SEEDS),
				  o = repro_stat(lo, SEEDS);
		repro_line_add(&mono, stds[i], a);
		repro_line_add(&scal, stds[i], b);
		repro_line_add(&best, stds[i], o);
		printf("| %.2f | %.2f %% | %.2f %% | %.2f %% | %.2f-%.2f %% | %.2f |\n", stds[i],
		       a.mean, b.mean, o.mean, b.lo, b.hi, repro_stat(msgs, SEEDS).mean);
	}
	struct locus_series s[] = {repro_series(&mono, "monolithic", 1, 0),
				   repro_series(&scal, "scal", 1, 0),
				   repro_series(&best, "optimum (balanced loads)", 0, 1)};
	struct locus_chart c = {.title = "ScalScheduling Fig. 7: chunks read locally",
				.subtitle = "1,024 workers, 30,720 chunks, 3 replicas, skewed "
					    "placements; mean and range of 5 seeds",
				.x_label = "standard deviation of replicas per node",
				.y_label = "chunks read locally (%)",
				.y_zoom = 1,
				.series = s,
				.n_series = 3};
	repro_save(&c, out_dir, "scal-fig7.svg");
}

/* ---- the approval claim ------------------------------------------------------- */

static void approval(void)
{
	printf("### Local requests approved (tau = 2, kept-lists), 1,024 workers, 30,720 "
	       "chunks, skewed std 7.42\n\n"
	       "| replicas | approved | from a kept-list | messages per task | read locally |\n"
	       "|---:|---:|---:|---:|---:|\n");
	for (unsigned r = 1; r <= 3; r++) {
		struct spec sp = {1024, 1,	    30720,	r,   LOCUS_PLACE_SKEWED,
				  7.42, 1ull << 20, COST_ENTRY, NULL};
		struct locus_result *c = run(&sp, "scal", 1, NULL);
		uint64_t req = repro_counter(c, "local_requests"),
			 ok = repro_counter(c, "local_approved"),
			 kept = repro_counter(c, "kept_answers");
		printf("| %u | %.1f %% | %.1f %% | %.2f | %.1f %% |\n", r,
		       req ? 100.0 * (double)ok / (double)req : 0,
		       ok ? 100.0 * (double)kept / (double)ok : 0,
		       (double)c->messages / (double)c->n_tasks,
		       100.0 * (double)c->local_tasks / (double)c->n_tasks);
		locus_result_destroy(c);
	}
	printf("\n");
}

/* ---- ownership ------------------------------------------------------------- */

static void ownership(void)
{
	static const char *const own[] = {"own=block", "own=cyclic"};
	printf("### Ownership: how concurrent requests spread over the schedulers\n\n"
	       "| workers | ownership | schedulers | mean inbox, least to most loaded | "
	       "longest inbox | requests, least to most | mean wait (ms) |\n"
	       "|---:|---|---:|---|---:|---|---:|\n");
	static const int workers[] = {2048, 8192};
	for (size_t i = 0; i < 2; i++)
		for (int o = 0; o < 2; o++) {
			struct spec sp = {(size_t)workers[i] / 16,
					  16,
					  (size_t)workers[i] * 10,
					  3,
					  LOCUS_PLACE_HDFS,
					  0,
					  1ull << 20,
					  COST_ENTRY,
					  own[o]};
			struct locus_result *c = run(&sp, "scal", 1, NULL);
			double qlo = INFINITY, qhi = 0;
			uint64_t elo = UINT64_MAX, ehi = 0, qmax = 0;
			for (size_t k = 0; k < c->n_schedulers; k++) {
				const struct locus_sched_result *s = &c->scheds[k];
				qlo = fmin(qlo, s->queue_mean);
				qhi = fmax(qhi, s->queue_mean);
				elo = s->events < elo ? s->events : elo;
				ehi = s->events > ehi ? s->events : ehi;
				qmax = s->queue_max > qmax ? s->queue_max : qmax;
			}
			printf("| %d | %s | %zu | %.2f to %.2f | %llu | %llu to %llu | %.3f |\n",
			       workers[i], own[o] + 4, c->n_schedulers, qlo, qhi,
			       (unsigned long long)qmax, (unsigned long long)elo,
			       (unsigned long long)ehi, 1e3 * c->wait_mean);
			locus_result_destroy(c);
		}
	printf("\n");
}

/* ---- beyond the paper ---------------------------------------------------------- */

static void options(void)
{
	static const char *const opts[] = {"tau=2", "nk_all=1", "tau_adapt=1",
					   "tau_adapt=1,nk_all=1"};
	static const struct {
		size_t nodes;
		int ppn;
	} shapes[] = {{1024, 1}, {128, 16}};
	printf("### Beyond the paper: adaptive tau and n_k in every reply\n\n"
	       "| workers | options | approved | messages per task | bytes per task | mean wait "
	       "(ms) | makespan (s) | read locally |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < 2; i++)
		for (size_t o = 0; o < 4; o++) {
			size_t n = shapes[i].nodes * (size_t)shapes[i].ppn;
			struct spec sp = {
			    shapes[i].nodes, shapes[i].ppn, n * 10, 3, LOCUS_PLACE_HDFS, 0,
			    1ull << 20,	     COST_ENTRY,    opts[o]};
			struct locus_result *c = run(&sp, "scal", 1, NULL);
			uint64_t req = repro_counter(c, "local_requests"),
				 ok = repro_counter(c, "local_approved");
			printf(
			    "| %zu x %d | %s | %.1f %% | %.2f | %.0f | %.2f | %.2f | %.2f %% |\n",
			    shapes[i].nodes, shapes[i].ppn, opts[o],
			    req ? 100.0 * (double)ok / (double)req : 0,
			    (double)c->messages / (double)c->n_tasks,
			    (double)c->message_bytes / (double)c->n_tasks, 1e3 * c->wait_mean,
			    c->makespan, 100.0 * (double)c->local_tasks / (double)c->n_tasks);
			locus_result_destroy(c);
		}
	printf("\n");
}

static void schedulers(void)
{
	static const size_t per[] = {2048, 1024, 512, 256, 128};
	printf("### Beyond the paper: workers per scheduler\n\n"
	       "| workers | workers per scheduler | schedulers | busiest scheduler busy | longest "
	       "mean inbox | mean wait (ms) | longest wait (s) | makespan (s) |\n"
	       "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	static const int workers[] = {8192, 32768};
	for (size_t i = 0; i < 2; i++)
		for (size_t j = 0; j < sizeof per / sizeof per[0]; j++) {
			size_t n = (size_t)workers[i], m = (n + per[j] - 1) / per[j];
			struct locus_scenario_spec sc = {.nodes = n / 16,
							 .racks = 32,
							 .cores = 16,
							 .chunks = n * 10,
							 .chunk_size = 1ull << 20,
							 .placement = LOCUS_PLACE_HDFS,
							 .replicas = 3,
							 .work = "uniform:1:3"};
			struct repro_run r = {.policy = "scal",
					      .schedulers = m,
					      .cost_msg = COST_MSG,
					      .cost_entry = COST_ENTRY};
			struct locus_result *c = repro_go(&sc, 1, &r);
			double busy = 0, queue = 0;
			for (size_t k = 0; k < c->n_schedulers; k++) {
				busy = fmax(busy, c->scheds[k].busy);
				queue = fmax(queue, c->scheds[k].queue_mean);
			}
			printf("| %zu | %zu | %zu | %.1f %% | %.2f | %.2f | %.3f | %.2f |\n", n,
			       per[j], m, 100 * busy / c->makespan, queue, 1e3 * c->wait_mean,
			       c->wait_max, c->makespan);
			locus_result_destroy(c);
		}
	printf("\n");
}

/* ---- scale ------------------------------------------------------------------ */

static void scale(void)
{
	static const int workers[] = {1024, 2048, 4096, 8192, 16384, 32768};
	enum { NW = sizeof workers / sizeof workers[0] };
	struct repro_line mm = {0}, sm = {0}, mx = {0}, sx = {0};
	printf(
	    "### Request waits against workers (16 a node, 10 tasks each)\n\n"
	    "| workers | schedulers | mean wait, monolithic (s) | mean wait, scal (s) | "
	    "longest, monolithic (s) | longest, scal (s) | makespan, monolithic | makespan, scal "
	    "|\n|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < NW; i++) {
		struct spec sp = {(size_t)workers[i] / 16,
				  16,
				  (size_t)workers[i] * 10,
				  3,
				  LOCUS_PLACE_HDFS,
				  0,
				  1ull << 20,
				  COST_ENTRY,
				  NULL};
		struct locus_result *m = run(&sp, "monolithic", 1, NULL);
		struct locus_result *c = run(&sp, "scal", 1, NULL);
		repro_line_add(&mm, workers[i], (struct repro_stat){m->wait_mean, 0, 0});
		repro_line_add(&sm, workers[i], (struct repro_stat){c->wait_mean, 0, 0});
		repro_line_add(&mx, workers[i], (struct repro_stat){m->wait_max, 0, 0});
		repro_line_add(&sx, workers[i], (struct repro_stat){c->wait_max, 0, 0});
		printf("| %d | %zu | %.4f | %.5f | %.2f | %.4f | %.1f | %.1f |\n", workers[i],
		       c->n_schedulers, m->wait_mean, c->wait_mean, m->wait_max, c->wait_max,
		       m->makespan, c->makespan);
		locus_result_destroy(m);
		locus_result_destroy(c);
	}
	struct locus_series s[] = {repro_series(&mm, "mean, monolithic", 0, 0),
				   repro_series(&sm, "mean, scal", 0, 0),
				   repro_series(&mx, "longest, monolithic", 0, 1),
				   repro_series(&sx, "longest, scal", 0, 1)};
	struct locus_chart c = {.title = "Waits for an assignment against workers",
				.subtitle = "16 workers a node, 10 tasks of 1..3 s each, 10 us per "
					    "metadata entry",
				.x_label = "worker processes",
				.y_label = "wait (s)",
				.x_log2 = 1,
				.y_log10 = 1,
				.series = s,
				.n_series = 4};
	repro_save(&c, out_dir, "scal-scale.svg");
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} exps[] = {{"fig4", fig4_and_8}, {"fig7", fig7},	{"approval", approval},
		    {"own", ownership},	  {"options", options}, {"schedulers", schedulers},
		    {"scale", scale}};
	enum { NE = sizeof exps / sizeof exps[0] };
	int want[NE] = {0}, any = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
			out_dir = argv[++i];
			continue;
		}
		int found = 0;
		for (int e = 0; e < NE; e++)
			if (!strcmp(argv[i], exps[e].name) ||
			    ((!strcmp(argv[i], "fig5") || !strcmp(argv[i], "fig8")) && e == 0)) {
				want[e] = any = found = 1;
			}
		if (!found) {
			fprintf(stderr,
				"usage: repro_scal [--out DIR] [fig4|fig5|fig7|fig8|approval|"
				"own|options|schedulers|scale]...\n");
			return 2;
		}
	}
	for (int e = 0; e < NE; e++)
		if (!any || want[e])
			exps[e].fn();
	return 0;
}
