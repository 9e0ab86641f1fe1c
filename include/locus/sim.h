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
 *    node's speed changes over time;
 *  - task graphs (docs/sim.md): a worker places a task when its
 *    assignment arrives; each produced input is sent to the worker's node
 *    as soon as it exists somewhere (from a holder locus_source_pick
 *    names), over the same resources as a remote read, or over the pair's
 *    own link on a contention-free platform; the worker runs its tasks in
 *    the order they came, each when the one before has ended and its
 *    produced inputs are all on the node, then reads its stored inputs,
 *    computes, and writes its outputs on its node;
 *  - platform changes: availability (speed), bandwidth and link changes
 *    apply from their time on; a node that fails loses its running and
 *    queued tasks and every object only it held (LOCUS_EV_FAILED,
 *    LOCUS_EV_NODE_DOWN), and comes back empty.
 */
#ifndef LOCUS_SIM_H
#define LOCUS_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "locus/error.h"
#include "locus/policy.h"
#include "locus/result.h"
#include "locus/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the simulator offers policies (policy.h): everything. */
#define LOCUS_SIM_OFFERS                                                                           \
	(LOCUS_NEEDS_FAILED | LOCUS_NEEDS_CANCEL | LOCUS_NEEDS_REWIND | LOCUS_NEEDS_COPIES |       \
	 LOCUS_NEEDS_FLOW | LOCUS_NEEDS_MONITOR)

#define LOCUS_SIM_CONFIG_VERSION 1

struct locus_sim_config {
	/* LOCUS_SIM_CONFIG_VERSION, set by locus_sim_config_init with the other defaults;
	 * 0 (a struct zeroed by hand) reads as version 1 (docs/formats.md). */
	int version;
	const struct locus_workload *wl;
	const struct locus_policy *policy;
	const char *policy_opts; /* "key=value,..." or NULL */
	size_t schedulers;	 /* 0: the policy's default */
	uint64_t seed;
	double latency;	       /* message latency, s; < 0: the platform's */
	double cost_per_msg;   /* s per message a process handles */
	double cost_per_entry; /* s per metadata entry examined */
	/* The shared file system (LOCUS_FS): where stored objects no node
	 * holds are (a workflow's inputs), which tasks read and write and
	 * policies copy from and to. shared_fs_bw > 0 gives it that
	 * aggregate bandwidth, and puts every stored object on it alone (the
	 * catalog's nodes do not hold them: DL-MPI's PVFS); 0: only the
	 * nodes' links limit it. fs_ops > 0: it serves that many metadata
	 * operations a second, one per file read or written (a FIFO server);
	 * 0: no limit. fs_latency: what opening one file on it costs a client
	 * (seconds, however idle the server): a node opens its files there
	 * one after another (their bytes flow meanwhile), a copy of several
	 * opens each; 0: nothing. */
	double shared_fs_bw;
	double fs_ops;
	double fs_latency;
	const struct locus_speed_change *speed; /* sorted by time */
	size_t n_speed;
	int no_task_results; /* 1: do not keep per-task results */
	/* What else changes during the run, sorted by time: failures,
	 * recoveries, bandwidths and links (speed and availability changes
	 * here join `speed`). */
	const struct locus_change *changes;
	size_t n_changes;
	int no_transfer_results; /* 1: do not keep the list of transfers */
	/* Called now and then (about every 1 % of tasks); may be NULL. */
	void (*progress)(void *user, size_t done, size_t total, double now);
	void *progress_user;
	/* Time the policy's calls on this machine (its creation, which
	 * plans, and every event it handles) into the result's
	 * policy_create_seconds, policy_seconds and policy_event_max: 1 on
	 * the monotonic clock, 2 in this thread's CPU time (what the
	 * machine's load inflates less; a system call each read on some
	 * kernels), with each event's time in policy_event_times. Off (0) by default: two clock
	 * reads an event, and the times are not part of the result file. */
	int time_policy;
	/* Attempts that fail of themselves, as a command can (NULL: none):
	 * attempt `attempt` of task `task` computes, then fails when this
	 * says so (the executor's retry, or LOCUS_EV_FAILED for a policy
	 * that places failed tasks itself, as under the MPI runtime). */
	int (*fails)(void *user, uint32_t task, uint32_t attempt);
	void *fails_user;
	/* More attempts such a task gets before the run fails (the MPI
	 * runtime's retries). */
	uint32_t retries;
	/* By task, NULL for none: seconds an attempt may compute (a
	 * Makeflow's WALL_TIME, locus flow run --timeout). An attempt whose
	 * compute would take longer stops there and fails ("timed out after
	 * N s"), retried as the attempts above; 0: no limit. */
	const double *time_limit;
};

/* The current version and the defaults: every member 0 or NULL but
 * latency, -1 (the platform's). */
void locus_sim_config_init(struct locus_sim_config *c);

/* Runs the simulation. Errors: LOCUS_EINVAL for a bad config or policy
 * option (message says which), LOCUS_EINCOMPLETE when the policy left tasks
 * unexecuted or assigned one twice (message says which). */
int locus_sim_run(struct locus_result **out, const struct locus_sim_config *cfg,
		  struct locus_error *err);

#ifdef __cplusplus
}
#endif
#endif
