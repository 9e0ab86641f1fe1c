/*
 * Workload: the tasks of a run (a task graph, task.h) on a platform's
 * worker processes, with where each stored input is at the start. A chunk
 * workload is the graph of one task per chunk, each reading its chunk and
 * computing on it, no task depending on another.
 *
 * A workload is built once from a platform and a catalog and then shared,
 * read-only, by every policy and engine of a run (and by every policy of a
 * --compare), so all see the same tasks, the same work and the same
 * locality. The library allocates it (locus_workload_build) and the caller
 * frees it with locus_workload_destroy; it points into the platform, which
 * must outlive it.
 */
#ifndef LOCUS_WORKLOAD_H
#define LOCUS_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "locus/dataset.h"
#include "locus/error.h"
#include "locus/platform.h"
#include "locus/task.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a task's compute work is drawn (seconds on a speed-1 node). */
enum locus_work_dist {
	LOCUS_WORK_FIXED,	/* every task `mean` */
	LOCUS_WORK_UNIFORM,	/* uniform in [lo, hi] */
	LOCUS_WORK_EXPONENTIAL, /* exponential with mean `mean` */
	LOCUS_WORK_PER_BYTE,	/* `mean` seconds per MiB of the task's chunk */
	LOCUS_WORK_TRACE	/* one value per task from `trace` (cycled) */
};

/* The most work a task may have, seconds: past it the simulator's times
 * (doubles) could no longer tell a message's latency apart (about 1e-7 s
 * of resolution at 1e9 s), and sums of them overflow. */
#define LOCUS_WORK_MAX 1e9

struct locus_work_spec {
	enum locus_work_dist dist;
	double mean;	     /* FIXED, EXPONENTIAL, PER_BYTE */
	double lo, hi;	     /* UNIFORM */
	const double *trace; /* TRACE values, `n_trace` of them */
	size_t n_trace;
};

/* Parses "fixed:2", "uniform:1:3", "exp:2", "per-mib:0.05" or
 * "trace:FILE" (one number per line). Errors name what was expected. */
int locus_work_spec_parse(struct locus_work_spec *out, const char *text, struct locus_error *err);
/* Reads a work trace: one number of seconds >= 0 per line, blank lines
 * and '#' comments skipped, at least one number. *vals is allocated (the
 * caller frees it). `name` labels errors (line and column). */
int locus_work_trace_parse(double **vals, size_t *n, const char *text, size_t len, const char *name,
			   struct locus_error *err);

/* Frees a trace loaded by locus_work_spec_parse. */
void locus_work_spec_fini(struct locus_work_spec *spec);

struct locus_workload {
	const struct locus_platform *platform;
	/* Its tasks and objects: a graph built for it (chunk workloads) or
	 * the caller's (locus_workload_from_graph), which must outlive it. */
	const struct locus_graph *graph;
	size_t n_tasks;
	struct locus_task *tasks; /* the graph's, with where each input is */
	uint32_t *holders;	  /* platform node ids: tasks' holders_at, objects' */
	/* Where each stored object is at the start: the platform nodes
	 * holders[obj_at[o] .. obj_at[o+1]) (none: a shared store). */
	uint32_t *obj_at;
	/* Worker processes: one per core of each node, in node order. */
	size_t n_workers;
	uint32_t *worker_node; /* node of each worker */
	/* The tasks local to each node: node_tasks[node_at[n] .. node_at[n+1]). */
	uint32_t *node_at; /* n_nodes + 1 offsets */
	uint32_t *node_tasks;
	double total_work;    /* sum of work */
	uint64_t total_bytes; /* sum of bytes */
	size_t n_unplaced;    /* tasks whose stored input no platform node holds */
	/* W(t, w) = cost[t * n_workers + w] seconds when the graph gives a
	 * cost per processor (processor m is worker m), else NULL: work over
	 * the speed of the worker's node. */
	const double *cost;
	/* What list schedulers average over (HEFT's mean costs): the mean
	 * bandwidth between the nodes of two workers on different nodes
	 * (0: every worker on one node). */
	double mean_bw;
	void *priv; /* what the workload owns; private */
};

/* Builds the workload of every chunk of every dataset of `cat` (or only
 * dataset `only`, if not NULL). Catalog hosts map to platform nodes by name
 * (locus_host_match); a replica on a host the platform lacks is ignored
 * and counted in n_unplaced when no replica is left (such a task is read
 * from a shared store). Work is drawn with a generator seeded by `seed`. */
int locus_workload_build(struct locus_workload **out, const struct locus_platform *p,
			 const struct locus_catalog *cat, const char *only,
			 const struct locus_work_spec *work, uint64_t seed,
			 struct locus_error *err);

/* The same, leaving out every chunk for which skip(skip_user, dataset,
 * chunk) is non-zero (the chunks a journal says are done, say); tasks keep
 * their catalog dataset and chunk indices. */
int locus_workload_build_skip(struct locus_workload **out, const struct locus_platform *p,
			      const struct locus_catalog *cat, const char *only,
			      const struct locus_work_spec *work, uint64_t seed,
			      int (*skip)(void *user, size_t dataset, size_t chunk),
			      void *skip_user, struct locus_error *err);

/* Gives every task of finished graph g the work `w` draws for it (in task
 * order, with a generator seeded by `seed`; per-mib by the bytes the task
 * reads; a trace's values in task order, cycled): measured or modelled
 * runtimes in place of the graph's. LOCUS_EINVAL for a graph with a cost
 * per processor (its work is their mean). */
int locus_graph_draw_work(struct locus_graph *g, const struct locus_work_spec *w, uint64_t seed);

/* Builds the workload of graph `g` on platform `p`: every task of the
 * graph, the platform's worker processes as its processors. A stored
 * object that is a catalog chunk (locus_graph_set_chunk) starts on the
 * nodes `cat` names for it (cat may be NULL: every stored object is on a
 * shared store). A graph with a cost per processor needs exactly that
 * many workers (LOCUS_EINVAL says how many). The graph must be finished
 * and outlive the workload. */
int locus_workload_from_graph(struct locus_workload **out, const struct locus_platform *p,
			      const struct locus_graph *g, const struct locus_catalog *cat,
			      struct locus_error *err);

void locus_workload_destroy(struct locus_workload *wl);

/* Whether node `node` can hold task t's demand (struct locus_demand) at
 * all: at least its cores (the node's workers), its memory (when the
 * node states one) and its disk (against its storage, when stated).
 * Version 6 of the policy protocol: a policy that places tasks keeps to
 * such nodes (docs/flow.md, "Resources"). */
int locus_workload_fits(const struct locus_workload *wl, uint32_t t, uint32_t node);

/* Whether node `node` holds the stored input of task `t` at the start. */
int locus_workload_is_local(const struct locus_workload *wl, uint32_t t, uint32_t node);

/* Seconds task t computes on worker w at its node's nominal speed: W(t, w)
 * when the graph gives costs per processor, else work / speed. */
double locus_workload_cost(const struct locus_workload *wl, uint32_t t, uint32_t w);

/* Seconds to move `bytes` from node a to node b when nothing else moves:
 * 0 on one node, else the latency (start-up) plus bytes over
 * locus_platform_pair_bw. */
double locus_workload_comm(const struct locus_workload *wl, uint64_t bytes, uint32_t a, uint32_t b);

/* When `bytes` sent from node a at time t0 are on node b, nothing else
 * moving: t0 on one node, else (t0 + latency) + bytes over
 * locus_platform_pair_bw - the very operations the simulator does, so a
 * plan made with it is the simulated run to the bit. */
double locus_workload_arrival(const struct locus_workload *wl, double t0, uint64_t bytes,
			      uint32_t a, uint32_t b);

/* HEFT's mean cost of a task over the workers, and of moving `bytes`
 * between two of them (the latency plus bytes over mean_bw; 0 when every
 * worker is on one node). */
double locus_workload_mean_cost(const struct locus_workload *wl, uint32_t t);
double locus_workload_mean_comm(const struct locus_workload *wl, uint64_t bytes);

#ifdef __cplusplus
}
#endif
#endif
