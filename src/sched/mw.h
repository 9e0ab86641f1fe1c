/*
 * One master, many workers: the driver shared by the master/worker task
 * policies (fifo, monolithic, dlmpi, delay), so that each of them writes
 * only its decision.
 *
 * Processes: workers 0 .. n-1 and one master, process n.
 *
 * The protocol (both directions are plain messages, so the MPI engine
 * carries them as they are):
 *  - a worker sends LOCUS__MW_REQUEST to the master when it starts
 *    (arg[0] = -1) and each time a task ends (arg[0] = the task,
 *    arg[1] = 1 if its chunk was read remotely, arg[2] = its compute time
 *    in nanoseconds, value = its duration, read + compute, in seconds);
 *  - the master answers with LOCUS_MSG_ASSIGN (the engine starts the task
 *    on arrival) or LOCUS__MW_NO_MORE (the worker stops: locus_act_stop);
 *  - the master may instead defer a request (delay scheduling): it keeps
 *    the request pending, sets a timer and decides again when it fires;
 *  - with the option prefetch=K a worker keeps K requests outstanding (K at
 *    its start, one more per task done), so up to K assignments wait in
 *    its queue and the master answers while the worker computes; the
 *    engines run a worker's assignments in arrival order. Deferring
 *    policies (delay) keep one request per worker: prefetch=1 only.
 *
 * What the driver guarantees, whatever the policy decides: a deferred
 * request always has a timer, and when the last task is assigned every
 * pending request is answered LOCUS__MW_NO_MORE at once, so no worker waits
 * forever; a request that arrives when nothing is left is answered
 * LOCUS__MW_NO_MORE without asking the policy.
 *
 * What the driver keeps for every policy: the unassigned tasks
 * (struct locus__taskset), what each node finished and how fast
 * (locus__mw_speed), the instance's generator seeded from ctx->seed, and
 * the counters of locus_policy_stats (entries examined, local and remote
 * assignments).
 *
 * Ownership: a policy's instance is one block that starts with a
 * struct locus__mw (locus__mw_create allocates it, locus__mw_destroy frees
 * it, calling ops->fini first for the policy's own allocations).
 */
#ifndef LOCUS_SCHED_MW_H
#define LOCUS_SCHED_MW_H

#include <stddef.h>
#include <stdint.h>

#include "locus/policy.h"
#include "locus/rng.h"
#include "locus/workload.h"

/* The most requests a worker may keep outstanding (prefetch=K). */
#define LOCUS__MW_MAX_PREFETCH 64

/* The end of a list (no task, no position). */
#define LOCUS__NIL UINT32_MAX

/* Message types of the protocol. */
enum {
	LOCUS__MW_REQUEST = LOCUS_MSG_USER, /* worker -> master: give me work */
	LOCUS__MW_NO_MORE		    /* master -> worker: there is none */
};

/*
 * The unassigned tasks, kept compact so that a scan never looks at an
 * assigned one: one list over all of them in id order, and one per node
 * over the node's local ones (its D_k), in id order too, with their counts.
 * Every removal is O(replicas + log n), the log for a Fenwick tree that
 * says how far down the id-ordered list a task is (locus__taskset_rank).
 *
 * Walking them:
 *   for (uint32_t t = ts->head; t != LOCUS__NIL; t = ts->next[t]) ...
 *   for (uint32_t p = ts->node_head[n]; p != LOCUS__NIL; p = ts->pnext[p])
 *           task wl->node_tasks[p] ...
 */
struct locus__taskset {
	size_t n_left;		 /* unassigned tasks */
	uint32_t head;		 /* first unassigned task in id order */
	uint32_t *next, *prev;	 /* by task */
	uint32_t *node_head;	 /* by node: first position in wl->node_tasks */
	uint32_t *node_left;	 /* by node: its unassigned local tasks, |D_k| */
	uint32_t *pnext, *pprev; /* by position in wl->node_tasks */
	uint32_t *pos;		 /* by wl->holders entry: its position in node_tasks */
	unsigned char *taken;	 /* by task */
	uint32_t *fen;		 /* Fenwick tree of unassigned tasks by id (1-based) */
};

/* The number of unassigned tasks with an id up to and including t: the
 * entries a scan of the unassigned list in id order reads to reach t. */
uint32_t locus__taskset_rank(const struct locus__taskset *ts, uint32_t t);

/* A worker's request as the master keeps it while deciding. */
struct locus__mw_req {
	int pending;	  /* deferred, waiting for its timer */
	uint32_t gen;	  /* timer generation: older timers are stale */
	uint32_t retries; /* decisions already deferred for this request */
	double since;	  /* when the request reached the master */
};

enum locus__mw_verdict {
	LOCUS__MW_ASSIGN, /* run `task` */
	LOCUS__MW_NONE,	  /* nothing for this worker, ever: it stops */
	LOCUS__MW_WAIT	  /* decide again in `wait` seconds */
};

struct locus__mw_choice {
	enum locus__mw_verdict verdict;
	uint32_t task;	  /* ASSIGN: an unassigned task */
	double wait;	  /* WAIT: seconds, finite and > 0 */
	uint64_t entries; /* metadata entries examined to decide (cost model) */
};

struct locus__mw;

struct locus__mw_ops {
	/* Decides for `worker` (called only while tasks are left). `req` says
	 * since when it has been waiting and how often it was deferred. */
	void (*choose)(struct locus__mw *mw, uint32_t worker, const struct locus__mw_req *req,
		       double now, struct locus__mw_choice *out);
	/* Appends the policy's named counters (may be NULL). */
	void (*stats)(struct locus__mw *mw, struct locus_policy_stats *out);
	/* Frees what the policy allocated beside the block (may be NULL). */
	void (*fini)(struct locus__mw *mw);
	/* The policy may answer WAIT: it keeps one request per worker, so
	 * the driver refuses prefetch > 1. */
	int defers;
	/* The policy keeps its own view of the unassigned tasks (dlmpi's
	 * classes): the driver tells it the task it gives a worker, the
	 * choice or one taken in its place where the choice does not fit
	 * (see decide; may be NULL). */
	void (*take)(struct locus__mw *mw, uint32_t task);
};

struct locus__mw {
	const struct locus__mw_ops *ops;
	const struct locus_workload *wl;
	uint32_t n_workers;
	uint32_t master;   /* process id of the master: n_workers */
	uint32_t prefetch; /* requests each worker keeps outstanding (option) */
	/* Worker side, by worker: requests not answered yet, and whether the
	 * master said there is no more work. */
	uint32_t *w_out;
	unsigned char *w_no_more;
	size_t n_nodes;
	uint32_t *node_workers; /* by node: workers it runs (participating: > 0) */
	struct locus_rng rng;	/* the instance's generator, seeded from ctx->seed */
	struct locus__taskset ts;
	struct locus__mw_req *req; /* by worker */
	/* What each node finished, for its speed. */
	uint64_t *node_done;  /* tasks */
	double *node_busy;    /* sum of their durations (read + compute) */
	double *node_compute; /* sum of their compute parts */
	double *node_rate;    /* tasks per second, 0 until measured */
	double rate_sum;      /* over measured nodes */
	size_t n_rated;
	/* Counters. */
	uint64_t entries, local, remote;
	uint64_t requests;  /* requests received */
	uint64_t deferrals; /* WAIT verdicts */
	uint64_t released;  /* pending requests answered when work ran out */
};

/* Allocates an instance block of `size` bytes (>= sizeof(struct locus__mw),
 * the policy's struct starting with a struct locus__mw) and sets up the
 * driver for ctx, reading the driver's option prefetch=K (1 to 64, default
 * 1). `name` is the policy's name and `takes` what options it takes
 * ("delay=SECONDS, prefetch=1", "prefetch=K"), for the message on an
 * unknown option: call it after reading the policy's own options. Errors: LOCUS_EINVAL (unknown
 * option, no worker, more workers than the workload has, other than one
 * scheduler), LOCUS_ENOMEM. */
int locus__mw_create(void **state, size_t size, const struct locus_policy_ctx *ctx,
		     const struct locus__mw_ops *ops, const char *name, const char *takes,
		     struct locus_error *err);

/* Frees an instance made by locus__mw_create (NULL is fine). */
void locus__mw_destroy(void *state);

/* The policy entry points every master/worker policy uses as they are. */
size_t locus__mw_schedulers(size_t n_workers, size_t requested);
void locus__mw_on_event(void *state, const struct locus_event *ev, struct locus_actions *act);
void locus__mw_stats(void *state, struct locus_policy_stats *out);

/* Node `node`'s speed relative to the measured nodes: its rate (its
 * workers times its tasks finished over their summed durations) over the
 * mean rate of the nodes measured so far; 1 until it is measured. */
double locus__mw_speed(const struct locus__mw *mw, uint32_t node);

/* Appends a named counter to `out` (ignored past the eighth). */
void locus__mw_counter(struct locus_policy_stats *out, const char *name, uint64_t value);

#endif
