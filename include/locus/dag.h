/*
 * DAG scheduling: task graphs read from the formats people have, random
 * graphs in the Standard Task Graph families, the heterogeneity and
 * communication a graph lacks, static list schedulers (HEFT, CPOP, DLS,
 * PEFT) and the bounds no schedule beats.
 *
 * Graphs are task.h's model: a reader returns a finished graph the caller
 * frees with locus_graph_destroy. A plan is computed for a workload (a
 * graph on a platform: its worker processes are the processors), and
 * freed with locus_dag_plan_destroy. Every reader reports errors with the
 * file, line and column and what was expected.
 *
 * Units: task costs are seconds; object sizes are bytes; the time to move
 * an object between two nodes is locus_workload_comm (latency + bytes over
 * the pair's bandwidth). A graph whose data are transfer times rather than
 * bytes (the text form of the HEFT paper's example) says so with
 * graph->data_bw: the bandwidth, in bytes/s, at which those sizes take the
 * stated times (1 for that form).
 */
#ifndef LOCUS_DAG_H
#define LOCUS_DAG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "locus/error.h"
#include "locus/task.h"
#include "locus/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- readers ---------------------------------------------------------------- */

/* The Standard Task Graph format (Kasahara's STG set): the number of
 * tasks N, then N + 2 lines "id cost npred pred...", the first and last
 * being the dummy entry and exit tasks, then an optional '#' information
 * block. The dummy tasks are kept when they have a cost, else left out.
 * STG gives one cost per task (the graph's work) and no communication:
 * every edge is an object of 0 bytes until locus_dag_set_ccr. `name`
 * labels errors. */
int locus_dag_read_stg(struct locus_graph **out, const char *text, size_t len, const char *name,
		       struct locus_error *err);

/* The plain text form of a graph with a cost per processor (docs/formats.md):
 *   tasks N procs P
 *   ID C1 .. CP          (N lines: the task's seconds on each processor)
 *   edges E
 *   SRC DST DATA         (E lines: DATA is the transfer time on the
 *                         paper's unit links; graph->data_bw = 1)
 * '#' starts a comment. Task ids are any distinct non-negative integers. */
int locus_dag_read_text(struct locus_graph **out, const char *text, size_t len, const char *name,
			struct locus_error *err);

/* WfCommons' WfFormat JSON, schema 1.4 to 1.6: tasks with parents and
 * children, input and output files with sizes in bytes, each task's
 * runtime in seconds (its work). A parent without a file in common with
 * its child gives an edge of 0 bytes. Files no task writes are stored
 * (the workflow's inputs). */
int locus_dag_read_wfcommons(struct locus_graph **out, const char *text, size_t len,
			     const char *name, struct locus_error *err);

/* Reads the graph named by `spec`: "stg:FILE", "text:FILE",
 * "wfcommons:FILE", or a FILE whose format is told from its content. */
int locus_dag_load(struct locus_graph **out, const char *spec, struct locus_error *err);

/* Writes `g` in the STG format (costs rounded to whole units when
 * `round_costs`, as the format's readers expect; the data sizes are not
 * part of the format). */
int locus_dag_write_stg(const struct locus_graph *g, int round_costs, FILE *fp);

/* ---- generated graphs ----------------------------------------------------- */

/* The STG set's generators of precedence constraints. */
enum locus_dag_gen_method {
	LOCUS_DAG_SAMEPROB, /* each pair i < j an edge with one probability */
	LOCUS_DAG_SAMEPRED, /* each task a number of predecessors around a mean */
	LOCUS_DAG_LAYRPROB, /* tasks in layers, edges between layers by probability */
	LOCUS_DAG_LAYRPRED  /* tasks in layers, predecessors from earlier layers */
};

struct locus_dag_gen {
	enum locus_dag_gen_method method;
	size_t n_tasks;	   /* > 0 */
	double mean_preds; /* mean predecessors per task (0: 2, as the STG set's ~1.9) */
	size_t layers;	   /* layered methods (0: about sqrt(n_tasks)) */
	double cost_lo;	   /* costs uniform integers in [cost_lo, cost_hi] (0, 0: 1..10) */
	double cost_hi;
	uint64_t seed;
};

/* Parses "sameprob", "samepred", "layrprob" or "layrpred". */
int locus_dag_gen_method_parse(const char *name, enum locus_dag_gen_method *out);

/* A random graph of spec->n_tasks tasks (no dummy tasks), deterministic
 * for a seed. */
int locus_dag_generate(struct locus_graph **out, const struct locus_dag_gen *spec,
		       struct locus_error *err);

/* ---- what a graph lacks ----------------------------------------------------- */

/* Gives each task a cost on each of n_procs processors with Topcuoglu's
 * heterogeneity factor beta in [0, 2): W(t, m) uniform in
 * [w (1 - beta/2), w (1 + beta/2)] around the task's work w (beta 0:
 * every processor alike). Deterministic for a seed. */
int locus_dag_set_heterogeneity(struct locus_graph *g, size_t n_procs, double beta, uint64_t seed,
				struct locus_error *err);

/* Gives every edge a data size so that the graph's communication to
 * computation ratio (GTP section 6.1: the mean communication cost over
 * the mean computation cost) is `ccr` on links of `bw` bytes/s: each
 * edge's transfer time is drawn uniformly in [0, 2 x mean] and the sizes
 * are scaled so the mean is exact (ccr 0: no data). Edges are the graph's
 * objects between tasks; stored inputs keep their sizes. */
int locus_dag_set_ccr(struct locus_graph *g, double ccr, double bw, uint64_t seed,
		      struct locus_error *err);

/* The graph's CCR on links of `bw` bytes/s (computation: the tasks'
 * work). */
double locus_dag_ccr(const struct locus_graph *g, double bw);

/* ---- static list schedulers ------------------------------------------------- */

enum locus_dag_algorithm {
	LOCUS_DAG_HEFT, /* Topcuoglu et al. 2002: upward rank, earliest finish time */
	LOCUS_DAG_CPOP, /* the same paper: critical path on one processor */
	LOCUS_DAG_DLS,	/* Sih and Lee 1993: dynamic level scheduling */
	LOCUS_DAG_PEFT	/* Arabnejad and Barbosa 2014: optimistic cost table */
};

/* The members struct locus_dag_options has: a program reads them only
 * up to the version it was built with. */
#define LOCUS_DAG_OPTIONS_VERSION 1

struct locus_dag_options {
	/* LOCUS_DAG_OPTIONS_VERSION, set by locus_dag_options_init with the other defaults;
	 * 0 (a struct zeroed by hand) reads as version 1 (docs/formats.md). */
	int version;
	/* Place a task in the earliest idle gap of a processor that fits it
	 * (1, the papers' HEFT, CPOP, PEFT) or only after its last task (0:
	 * the non-insertion HEFT that GTP uses; DLS is always 0). */
	int insertion;
};

/* The current version and the defaults: insertion on. */
void locus_dag_options_init(struct locus_dag_options *o);

/* Parses "heft", "cpop", "dls" or "peft". */
int locus_dag_algorithm_parse(const char *name, enum locus_dag_algorithm *out);
const char *locus_dag_algorithm_name(enum locus_dag_algorithm a);

/* Where and when the plan runs a task. */
struct locus_dag_slot {
	uint32_t proc; /* worker process */
	uint32_t pad;
	double start, finish;
};

struct locus_dag_plan {
	enum locus_dag_algorithm algorithm;
	size_t n_tasks, n_procs;
	struct locus_dag_slot *slot; /* by task */
	/* Each processor's tasks in start order: order[order_at[p] ..
	 * order_at[p+1]). */
	uint32_t *order, *order_at;
	/* The tasks in the order the algorithm placed them. */
	uint32_t *placed;
	/* The priority each task had (HEFT: upward rank; CPOP: upward +
	 * downward rank; DLS: static level; PEFT: rank_oct). */
	double *priority;
	double makespan;
	double seconds; /* time the planning took (wall clock) */
};

/* Plans every task of `wl` on its workers with `alg`, estimating with
 * locus_workload_cost and locus_workload_comm (the platform's nominal
 * speeds and bandwidths). Ties go to the lower task id, then the lower
 * worker. opt may be NULL (defaults). A task starts at the latest of its
 * worker's previous task's finish and its data's arrival, so running each
 * worker's order as early as the model allows gives the plan's times. An
 * empty graph gives an empty plan (makespan 0). Errors: LOCUS_EINVAL (an
 * unknown algorithm, insertion not 0 or 1, tasks but no worker),
 * LOCUS_ERANGE (2^32 tasks or workers or more), LOCUS_ENOMEM. The caller
 * frees *out with locus_dag_plan_destroy. */
int locus_dag_plan(struct locus_dag_plan **out, const struct locus_workload *wl,
		   enum locus_dag_algorithm alg, const struct locus_dag_options *opt,
		   struct locus_error *err);
void locus_dag_plan_destroy(struct locus_dag_plan *p);

/* HEFT's upward rank (mean costs: locus_workload_mean_cost and
 * locus_workload_mean_comm) and CPOP's downward rank, by task, into
 * rank[wl->n_tasks]. 0, LOCUS_EINVAL or LOCUS_ENOMEM. */
int locus_dag_upward_rank(const struct locus_workload *wl, double *rank);
int locus_dag_downward_rank(const struct locus_workload *wl, double *rank);

/* ---- bounds and metrics --------------------------------------------------- */

struct locus_dag_bounds {
	/* No schedule finishes before the longest path with each task at its
	 * least cost on any worker and no communication ... */
	double critical_path;
	/* ... nor before every task's least cost is done by all the workers
	 * together (work over the summed speeds; the sum of least costs over
	 * the workers with a cost per processor). */
	double work;
	double lower; /* the larger of the two */
	/* Eq. 14 of GTP: the sum of the mean costs along the path with the
	 * largest sum of mean costs (NSL = makespan / cp_mean). */
	double cp_mean;
	/* Topcuoglu's SLR denominator: the sum of least costs along the path
	 * with the largest sum of least costs (SLR = makespan / cp_min). */
	double cp_min;
};

/* The bounds of `wl` when node speeds never exceed peak[node] (NULL: the
 * platform's speeds); every figure is 0 without tasks or workers. 0, or
 * LOCUS_EINVAL (no workload or out) or LOCUS_ENOMEM (*out zeroed). */
int locus_dag_bounds(const struct locus_workload *wl, const double *peak,
		     struct locus_dag_bounds *out);

#ifdef __cplusplus
}
#endif
#endif
