/*
 * The discrete-event simulator: runs a policy over a workload in simulated
 * time, deterministically (events are ordered by time, then by sequence
 * number; every random draw comes from generators seeded by the config).
 *
 * Model (docs/sim.md):
 *  - every process (worker or scheduler) is a serial server: it handles one
 *    event at a time; a message costs cost_per_msg to handle, and any
 *    decision cost_per_entry per metadata entry the policy says it
 *    examined; events that arrive while it is busy wait in its queue, so a
 *    busy single master shows contention;
 *  - a message takes the latency plus its size over the slower of the two
 *    nodes' network bandwidths;
 *  - a task first reads its chunk, then computes: a local read is a flow
 *    on the node's disk; a remote read a flow through the source's disk and
 *    network interface, the reader's interface, the backbone (if capped)
 *    and, between racks, the two racks' uplinks (if capped); with a shared
 *    file system every read is a flow through the file system's aggregate
 *    bandwidth and the reader's interface. A read over the network starts
 *    one latency after it is asked for, once its source has a transfer
 *    slot free (max_transfers). Flows share every resource max-min fairly;
 *  - compute takes work / speed of the worker's node, following the
 *    node's speed changes over time.
 */
#ifndef LOCUS_SIM_H
#define LOCUS_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "locus/error.h"
#include "locus/policy.h"
#include "locus/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

struct locus_sim_config {
	const struct locus_workload *wl;
	const struct locus_policy *policy;
	const char *policy_opts; /* "key=value,..." or NULL */
	size_t schedulers;	 /* 0: the policy's default */
	uint64_t seed;
	double latency;				/* message latency, s; < 0: the platform's */
	double cost_per_msg;			/* s per message a process handles */
	double cost_per_entry;			/* s per metadata entry examined */
	double shared_fs_bw;			/* > 0: reads come from a shared file system */
	const struct locus_speed_change *speed; /* sorted by time */
	size_t n_speed;
	int no_task_results; /* 1: do not keep per-task results */
	/* Called now and then (about every 1 % of tasks); may be NULL. */
	void (*progress)(void *user, size_t done, size_t total, double now);
	void *progress_user;
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
};

struct locus_worker_result {
	uint32_t node;
	uint32_t tasks, local_tasks;
	uint64_t bytes_local, bytes_remote;
	double busy;	 /* reading + computing */
	double idle;	 /* waiting for work until its last task ended */
	double max_wait; /* longest wait for an assignment */
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
	uint64_t seed;
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
	 * reads locally (-1: not computed). */
	double lb_makespan;
	double lb_work, lb_io, lb_serial, lb_longest;
	long opt_local;
	struct locus_policy_stats pstats;
	uint64_t events;
	double wall_seconds;
	struct locus_task_result *tasks;     /* n_tasks, or NULL */
	struct locus_worker_result *workers; /* n_workers */
	struct locus_sched_result *scheds;   /* n_schedulers */
};

/* Runs the simulation. Errors: LOCUS_EINVAL for a bad config or policy
 * option (message says which), LOCUS_EINCOMPLETE when the policy left tasks
 * unexecuted or assigned one twice (message says which). */
int locus_sim_run(const struct locus_sim_config *cfg, struct locus_result **out,
		  struct locus_error *err);

void locus_result_destroy(struct locus_result *r);

#ifdef __cplusplus
}
#endif
#endif
