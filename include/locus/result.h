/*
 * Results: what a run did, in one model both engines fill (the simulator
 * and the MPI runtime) and every report reads.
 *
 * A result is allocated by the engine that ran (locus_sim_run,
 * locus_mpi_run) and freed by the caller with locus_result_destroy, which
 * frees the per-task, per-worker and per-scheduler arrays with it.
 */
#ifndef LOCUS_RESULT_H
#define LOCUS_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "locus/task.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Counters a policy reports (all optional, 0 when not kept). */
struct locus_policy_stats {
	uint64_t entries_examined;
	uint64_t local_assignments;
	uint64_t remote_assignments;
	uint64_t counters[8];	      /* policy-specific, named below */
	const char *counter_names[8]; /* NULL ends the list */
	double planned_makespan;      /* what the policy's plan expects; 0: no plan */
	/* While its stats callback runs, a workflow's stages (n_stages; NULL
	 * for other workloads): a policy may set each one's patterns and
	 * collectives. */
	struct locus_stage_result *stages;
	size_t n_stages;
};

struct locus_task_result {
	uint32_t worker;
	uint32_t node;	   /* the worker's node */
	uint32_t source;   /* node read from (== node when local); UINT32_MAX: shared FS */
	uint32_t local;	   /* 1 if read from the worker's own node */
	double idle_since; /* when the worker became free for it */
	double assigned;   /* when the assignment reached the worker */
	double read_end;
	double end;
	/* Version 2 (written for task graphs only). */
	double start;	   /* when it began reading its stored inputs (or computing) */
	uint32_t attempts; /* attempts it took: 1 unless some were lost */
	uint32_t pad;
};

/* An object moved to a node: a produced input sent to its consumer's node,
 * or a copy a policy asked for (of several objects: the first, with the
 * bytes of all; LOCUS_NONE when it moved bytes alone). */
struct locus_transfer_result {
	uint32_t object, from, to; /* nodes; UINT32_MAX: the shared file system */
	uint32_t task;		   /* the consumer it went to first, or LOCUS_NONE */
	double start, end;	   /* from asking to arrival */
	uint64_t bytes;
};

struct locus_worker_result {
	uint32_t node;
	uint32_t tasks, local_tasks;
	uint64_t bytes_local, bytes_remote;
	double busy;	 /* reading + computing */
	double idle;	 /* waiting for work until its last task ended */
	double max_wait; /* longest wait for an assignment */
};

/* A workflow's stage in a run: its tasks' times and where they read
 * (version 3). */
struct locus_stage_result {
	size_t tasks;		      /* tasks of it that ran */
	double first_start, last_end; /* of those tasks (0 when none ran) */
	double read, compute, write;  /* seconds its tasks spent, summed */
	double input_wait;	      /* seconds its tasks waited for inputs at their worker */
	uint64_t bytes_local;	      /* inputs on the task's node when it started */
	uint64_t bytes_peer;	      /* inputs from other nodes (read or sent ahead) */
	uint64_t bytes_fs_read;	      /* inputs from the file system */
	uint64_t bytes_fs_written;    /* outputs written to the file system */
	/* What the policy says of it (locus_policy_stats.stages): the
	 * dataflow patterns it found in the stage (LOCUS_PATTERN_* of
	 * flow.h), or -1 when it says nothing; the collectives it ran to
	 * bring the stage's tasks their inputs. */
	int patterns;
	uint64_t collectives;
};

/* A problem the run's locality source reported about its data (a block
 * with fewer replicas than it says, a truncated replica dropped from a
 * store scan, a missing chunk): a copy of the catalog's, by dataset name
 * (locus_result_set_problems). */
struct locus_result_problem {
	char *dataset;	/* owned */
	size_t chunk;	/* SIZE_MAX: the dataset as a whole */
	uint32_t flags; /* LOCUS_CHUNK_* */
	char *detail;	/* owned */
};

struct locus_sched_result {
	uint64_t events;    /* events handled */
	double busy;	    /* time spent deciding */
	uint32_t queue_max; /* most events waiting in its inbox at once */
	double queue_mean;  /* events waiting, averaged over the makespan */
};

struct locus_result {
	char engine[8]; /* "sim", or "mpi" for a real run */
	char policy[32];
	char *policy_options; /* the options it ran with (owned), or NULL */
	uint64_t seed;
	/* The variability scenario its platform changes were drawn from
	 * (struct locus_variability: GTP's bound, the mean seconds between a
	 * resource's changes, the horizon, whether links vary), as the caller
	 * that drew it records it; var_bound 0: none. The engine does not
	 * set them: a scenario reaches it as a list of changes. The period is
	 * what decides how much a reactive policy gains (docs/sim.md). */
	double var_bound, var_period, var_horizon;
	int var_links;
	size_t n_tasks, n_workers, n_schedulers, n_nodes;
	double makespan;
	size_t local_tasks;
	uint64_t bytes_local, bytes_remote;
	/* Wait of a free worker for its next assignment. */
	double wait_mean, wait_p50, wait_p99, wait_max;
	uint64_t messages, message_bytes;
	double sched_busy_total, sched_busy_max;
	double worker_idle_total;
	/* Bounds (locus_bound_makespan): no schedule finishes before
	 * lb_makespan, the largest of the compute, read, serial and longest
	 * task bounds; opt_local is the most tasks any balanced assignment
	 * reads locally (-1: not computed), written as balanced_local_tasks:
	 * a run that unbalances the loads may read more locally. */
	double lb_makespan;
	double lb_work, lb_io, lb_serial, lb_longest;
	long opt_local;
	struct locus_policy_stats pstats;
	uint64_t events;
	double wall_seconds;
	/* With locus_sim_config.time_policy: the seconds (wall, or the
	 * simulator thread's CPU) spent in the policy's creation (its first
	 * plan), in its events, and in its longest single event (e.g. a
	 * rescheduling point); 0 otherwise. Measured on this machine, so
	 * never written to the result file. */
	double policy_create_seconds, policy_seconds, policy_event_max;
	/* Task graphs and platform changes (written as version 5). */
	/* A task graph (edges, or costs per processor), platform changes or
	 * a failure: the result is written as version 5. */
	int dag;
	int failed; /* the run could not finish: failure says why */
	char failure[512];
	size_t tasks_done;    /* tasks that finished */
	uint64_t transfers;   /* objects moved between nodes */
	uint64_t bytes_moved; /* their bytes */
	uint64_t attempts_lost;
	/* DAG bounds and metrics (locus_dag_bounds): the critical path at
	 * least costs, NSL (GTP's Eq. 14) and SLR (Topcuoglu's). */
	double lb_cp, cp_mean, cp_min, nsl, slr;
	struct locus_transfer_result *xfers; /* n_xfers, or NULL */
	size_t n_xfers;
	/* Workflows (a graph whose tasks have stages: written as version 3):
	 * the file system's metadata operations and bytes, and each stage
	 * (graph->stage_names[s] is stage s's name). */
	int flow;
	uint64_t fs_ops, fs_bytes_read, fs_bytes_written;
	double storage_peak;		   /* most bytes one node's local storage held */
	double storage_end;		   /* bytes the nodes' local storage held at the end */
	double intermediate_end;	   /* of them, files a task wrote and others read */
	struct locus_stage_result *stages; /* graph->n_stages, or NULL */
	/* The graph of the workload it ran, for names in reports: borrowed,
	 * valid while the workload lives (NULL: none). */
	const struct locus_graph *graph;
	struct locus_task_result *tasks;     /* n_tasks, or NULL */
	struct locus_worker_result *workers; /* n_workers */
	struct locus_sched_result *scheds;   /* n_schedulers */
	/* What the locality source reported about the run's data (owned;
	 * none: NULL and 0), written as the result's "problems". */
	struct locus_result_problem *problems;
	size_t n_problems;
	/* With time_policy 2: each event's CPU seconds in the policy, in the
	 * order handled (NULL otherwise; freed by locus_result_destroy). */
	double *policy_event_times;
	size_t n_policy_events;
};

void locus_result_destroy(struct locus_result *r);

struct locus_catalog;
/* Copies into r the problems `cat` reports about dataset `dataset` (every
 * dataset when NULL), replacing those r had, so that a run says what was
 * wrong with its data: the MPI engine does it with the store's catalog;
 * a caller of locus_sim_run with a catalog calls it on the result.
 * Returns 0 or LOCUS_ENOMEM (r's problems then empty). */
int locus_result_set_problems(struct locus_result *r, const struct locus_catalog *cat,
			      const char *dataset);

/* Sets r's wait statistics (mean, p50, p99, max) from the waits of every
 * assignment, `n` of them; sorts `waits` in place. */
void locus_result_set_waits(struct locus_result *r, double *waits, size_t n);

#ifdef __cplusplus
}
#endif
#endif
