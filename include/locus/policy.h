/*
 * Scheduling policies: decisions, never time.
 *
 * A policy is pure logic. An engine (the simulator, the MPI runtime)
 * delivers events to it - a process starts, a message arrives, a task
 * finished, a timer fired, a node's speed changed - and the policy answers
 * with actions: send a message, assign a task to a worker, set a timer, stop
 * a worker, and say how much metadata it examined (the engine charges that
 * time to the deciding process). A policy never sleeps, never calls MPI and
 * never reads a clock; the time it may use is the one in the event.
 *
 * Processes: workers are 0 .. n_workers-1 (worker w runs on node
 * wl->worker_node[w]); schedulers are n_workers .. n_workers+n_schedulers-1.
 * How many schedulers a policy has is its own choice (ops->schedulers).
 *
 * A policy is a `const struct locus_policy` registered in one table
 * (locus_policy_find); its state lives in an instance, never in globals.
 */
#ifndef LOCUS_POLICY_H
#define LOCUS_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "locus/error.h"
#include "locus/kv.h"
#include "locus/result.h"
#include "locus/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Message types below LOCUS_MSG_USER have a meaning to the engine. */
enum {
	/* From a scheduler to a worker: run task arg[0], reading its chunk
	 * from node arg[1] when it is not local (-1: the engine picks the
	 * closest holder). The worker starts the task on arrival. */
	LOCUS_MSG_ASSIGN = 1,
	LOCUS_MSG_USER = 16
};

#define LOCUS_MSG_ARGS 8

struct locus_msg {
	uint32_t type;
	uint32_t from, to; /* process ids */
	uint32_t bytes;	   /* size on the wire; 0: 16 + 8 per used arg */
	uint32_t n_args;   /* used entries of arg (for the size) */
	int64_t arg[LOCUS_MSG_ARGS];
	double value;
};

enum locus_event_kind {
	LOCUS_EV_START,	  /* the process starts (time 0) */
	LOCUS_EV_MESSAGE, /* msg arrived at proc */
	LOCUS_EV_DONE,	  /* worker proc finished task */
	LOCUS_EV_TIMER,	  /* a timer proc set fired */
	LOCUS_EV_SPEED	  /* node's speed changed (to every scheduler) */
};

struct locus_event {
	enum locus_event_kind kind;
	uint32_t proc;
	double now;		     /* engine time, seconds */
	const struct locus_msg *msg; /* MESSAGE */
	uint32_t task;		     /* DONE */
	double duration;	     /* DONE: read + compute, seconds */
	double compute;		     /* DONE: compute part */
	int remote;		     /* DONE: 1 if the chunk came over the network */
	uint64_t tag;		     /* TIMER */
	uint32_t node;		     /* SPEED */
	double speed;		     /* SPEED: the node's new relative speed */
};

/* Where a policy writes its actions for one event; owned by the engine. */
struct locus_actions;

/* Sends `m` (from m->from, which must be the process handling the event). */
void locus_act_send(struct locus_actions *a, const struct locus_msg *m);
/* Shorthand: scheduler `from` assigns `task` to `worker` (a message of
 * type LOCUS_MSG_ASSIGN); `source` is the node to read from or -1. */
void locus_act_assign(struct locus_actions *a, uint32_t from, uint32_t worker, uint32_t task,
		      int32_t source);
/* Fires a LOCUS_EV_TIMER at `proc` after `delay` seconds with `tag`. */
void locus_act_timer(struct locus_actions *a, uint32_t proc, double delay, uint64_t tag);
/* Worker `worker` will get no more work: it leaves the run. */
void locus_act_stop(struct locus_actions *a, uint32_t worker);
/* The decision examined `entries` metadata entries (cost model). */
void locus_act_cost(struct locus_actions *a, uint64_t entries);

struct locus_policy_ctx {
	const struct locus_workload *wl;
	size_t n_workers;
	size_t n_schedulers;
	uint64_t seed; /* for the instance's own generator */
	struct locus_kv *opts;
};

struct locus_policy {
	const char *name;
	const char *summary;
	/* Scheduler processes for n_workers workers; `requested` is the
	 * user's --schedulers (0: the policy's default). */
	size_t (*schedulers)(size_t n_workers, size_t requested);
	int (*create)(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err);
	void (*destroy)(void *state);
	void (*on_event)(void *state, const struct locus_event *ev, struct locus_actions *act);
	void (*stats)(void *state, struct locus_policy_stats *out); /* may be NULL */
};

/* The registered policies, NULL-terminated. */
const struct locus_policy *const *locus_policies(void);
/* The policy named `name`, or NULL. */
const struct locus_policy *locus_policy_find(const char *name);

#ifdef __cplusplus
}
#endif
#endif
