/*
 * Scheduling policies: decisions, never time.
 *
 * A policy is pure logic. An engine (the simulator, the MPI runtime)
 * delivers events to it - a process starts, a message arrives, a task
 * finished or failed, a timer fired, a transfer it asked for ended, a
 * node's speed or bandwidth changed, a node went down or came back - and
 * the policy answers with actions: send a message, assign a task to a
 * worker, cancel a task, copy an object between nodes, set a timer, stop a
 * worker, and say how much metadata it examined (the engine charges that
 * time to the deciding process). A policy never sleeps, never calls MPI and
 * never reads a clock; the time it may use is the one in the event, and
 * what it may know of the run is what its events told it and what the
 * engine's monitor reports (struct locus_monitor).
 *
 * Processes: workers are 0 .. n_workers-1 (worker w runs on node
 * wl->worker_node[w]); schedulers are n_workers .. n_workers+n_schedulers-1.
 * How many schedulers a policy has is its own choice (ops->schedulers).
 * Schedulers do not fail; workers fail with their node.
 *
 * A policy is a `const struct locus_policy` registered in one table
 * (locus_policy_find); its state lives in an instance, never in globals.
 * Its `version` says which members it has (as SQLite's sqlite3_vfs):
 * engines read a member only when the version has it.
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
	/* From a scheduler to a worker: run task arg[0], reading its stored
	 * input from node arg[1] when it is not local (-1: the engine asks
	 * locus_source_pick). The worker places the task on arrival: it
	 * starts gathering the task's produced inputs at once, and runs the
	 * task when it is free and they are all there, its assignments in
	 * the order they arrived. The other args are the policy's. */
	LOCUS_MSG_ASSIGN = 1,
	/* Version 3: an assignment as LOCUS_MSG_ASSIGN, with arg[2] how the
	 * task gets its produced inputs (enum locus_gather) and arg[3] where
	 * its outputs go (enum locus_output); locus_act_assign_flow. */
	LOCUS_MSG_ASSIGN_FLOW = 2,
	LOCUS_MSG_USER = 16
};

/* The shared file system, where a node is named (copies, and
 * LOCUS_EV_TRANSFER): the place a workflow's inputs are at the start and
 * its outputs at the end, with the aggregate bandwidth and metadata rate
 * the engine gives it. Version 3. */
#define LOCUS_FS (UINT32_MAX - 1)

/* How an assigned task gets its produced inputs (version 3). A task may
 * be assigned before they exist: it waits in its worker's queue, and
 * under LOCUS_GATHER_AUTO starts the moment the last is on its node, as
 * when its producer ran ahead of it on the same worker (a pipeline,
 * without a round trip through the policy: amfs's pipeline=1). */
enum locus_gather {
	/* Each is sent to its node as soon as it exists (on a node or the
	 * file system), from a holder locus_source_pick names: the task
	 * runs when all are there (version 1's behaviour). */
	LOCUS_GATHER_AUTO,
	/* The task waits until each exists somewhere, then, when it runs,
	 * reads those its node lacks (from a node holding one, else the file
	 * system), before it computes: the reads are part of the task. */
	LOCUS_GATHER_READ,
	/* The task runs when each is on its node, where the policy's copies
	 * (locus_act_copy) put them; nothing is sent for it otherwise. */
	LOCUS_GATHER_POLICY,
	/* The task needs none of them (the policy made what it needs, a
	 * reduction, in their place); it reads its stored inputs only. */
	LOCUS_GATHER_NONE,
	/* As LOCUS_GATHER_POLICY, for its stored inputs too: the task runs
	 * when every input it reads is on its node (a policy that caches the
	 * workflow's inputs on the nodes, copying them itself). */
	LOCUS_GATHER_ALL
};

/* Where an assigned task's outputs go (version 3). Writes to the file
 * system are part of the task: it ends when they have. */
enum locus_output {
	LOCUS_OUTPUT_LOCAL, /* on its node (version 1's behaviour) */
	LOCUS_OUTPUT_FINAL, /* on its node; those no task reads also on the file system */
	LOCUS_OUTPUT_BOTH,  /* on its node and on the file system (staging) */
	LOCUS_OUTPUT_FS	    /* on the file system only */
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
	/* Version 1. */
	LOCUS_EV_START,	  /* the process starts (time 0; a worker again when its node is back) */
	LOCUS_EV_MESSAGE, /* msg arrived at proc */
	LOCUS_EV_DONE,	  /* worker proc finished task done.task */
	LOCUS_EV_TIMER,	  /* a timer proc set fired */
	LOCUS_EV_SPEED,	  /* a node's speed changed (to every scheduler) */
	/* Version 2. */
	/* An attempt of failed.task failed: to the worker that ran it when
	 * the task itself failed, to the process that assigned it when the
	 * worker's node went down. A policy with LOCUS_POLICY_RETRIES must
	 * place the task again unless failed.final; for the others the engine
	 * runs it again where locus_retry_worker says (and tells the policy
	 * nothing of those attempts). */
	LOCUS_EV_FAILED,
	/* A transfer this process asked for (locus_act_transfer) ended. */
	LOCUS_EV_TRANSFER,
	/* node.node went down (its workers and what only it held are lost)
	 * or came back (its workers start again, empty); to every scheduler. */
	LOCUS_EV_NODE_DOWN,
	LOCUS_EV_NODE_UP,
	/* A node's network interfaces now carry bandwidth.factor of their
	 * nominal bandwidth (to every scheduler). */
	LOCUS_EV_BANDWIDTH
};

/* Why an attempt failed. */
enum locus_fail_reason {
	LOCUS_FAIL_ERROR = 1, /* the task's own failure (its command failed) */
	LOCUS_FAIL_NODE,      /* its worker's node went down */
	LOCUS_FAIL_INPUT      /* an input could not be had from any node */
};

struct locus_event {
	enum locus_event_kind kind;
	uint32_t proc;
	double now; /* engine time, seconds */
	union {
		const struct locus_msg *msg; /* MESSAGE */
		uint64_t tag;		     /* TIMER */
		struct {
			uint32_t task;
			int remote;	 /* 1 if its stored input came over the network */
			double duration; /* read + compute, seconds */
			double compute;	 /* the compute part */
		} done;
		struct {
			uint32_t task;
			uint32_t worker;  /* where the attempt ran */
			uint32_t attempt; /* 0 for the first */
			int final;	  /* 1: no attempt follows (the run's retry limit) */
			enum locus_fail_reason reason;
		} failed;
		struct {
			uint32_t node;
			double speed; /* the node's new relative speed */
		} speed;
		struct {
			uint32_t object, from, to; /* nodes, or LOCUS_FS */
			int ok;			   /* 0: no source was left, or an end failed */
			/* Version 3: the copy's tag, and how many objects it
			 * moved (object: the first of them, or LOCUS_NONE). */
			uint64_t tag;
			uint32_t n;
		} transfer;
		struct {
			uint32_t node;
		} node; /* NODE_DOWN, NODE_UP */
		struct {
			uint32_t node;
			double factor;
		} bandwidth;
	};
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
/* The policy could not decide for want of memory: the engine ends the
 * run with LOCUS_ENOMEM, as when one of these calls cannot append. */
void locus_act_oom(struct locus_actions *a);
/* Version 2: withdraws `task` from wherever it is assigned (queued,
 * gathering or running: its computation is lost; the inputs already on
 * its node stay there). It is unassigned again, no event follows; a task
 * that has already finished is not touched, and neither is a later
 * assignment of it in the same answer. */
void locus_act_cancel(struct locus_actions *a, uint32_t task);
/* Version 2: `task`, finished, runs again (GTP/r's rewinding): it is
 * unassigned and counts as not done until an assignment runs it again,
 * which writes its outputs again; what it wrote stays where copies of it
 * still are. A task not finished is cancelled, as by locus_act_cancel. */
void locus_act_rewind(struct locus_actions *a, uint32_t task);
/* Version 2: copies `object` from node `from` to node `to` (from
 * LOCUS_NONE: from a holder locus_source_pick chooses); a
 * LOCUS_EV_TRANSFER reaches the acting process when it ends. */
void locus_act_transfer(struct locus_actions *a, uint32_t object, uint32_t from, uint32_t to);

/* Version 3: assigns as locus_act_assign, saying how the task gets its
 * produced inputs and where its outputs go. */
void locus_act_assign_flow(struct locus_actions *a, uint32_t from, uint32_t worker, uint32_t task,
			   int32_t source, enum locus_gather gather, enum locus_output output);

/* Version 3: a copy of several objects in one transfer (an archive of the
 * AME/AMFS collectives), or of bytes that are no object (a partial
 * reduction). */
struct locus_copy {
	const uint32_t *objects; /* n objects (copied), or NULL with n 0 */
	uint32_t n;
	uint64_t bytes;	   /* n 0: the bytes that move; else their sum */
	uint32_t from, to; /* nodes, or LOCUS_FS; from holds every object */
	double delay;	   /* seconds before it starts (making the archive) */
	uint64_t tag;	   /* given back in its LOCUS_EV_TRANSFER */
	/* The task it brings inputs to (its stage counts the bytes, the
	 * transfer names it; the task does not start while a copy naming it
	 * is under way, so it never reads from elsewhere what is coming to
	 * its node), or LOCUS_NONE. Set it: 0 is task 0. */
	uint32_t task;
};
/* Moves c's objects (or bytes) from c->from to c->to as one flow, after
 * c->delay, a metadata operation of the file system for each file read
 * from or written to it, and the latency; then `to` holds each object and
 * a LOCUS_EV_TRANSFER (ok 0 when `from` lacked one or an end failed)
 * reaches the acting process. */
void locus_act_copy(struct locus_actions *a, const struct locus_copy *c);

/* Version 4: one step of a reduction tree (the AME paper's reduce: a
 * user function applied to any subset of a task's inputs, its output of
 * their type). Node c->from applies the reducing task's own command to
 * `objects` (n_objects of c->task's inputs, which it holds; an engine
 * looks them up nowhere else) and to the partial results of c->task that
 * reached it from earlier steps, and sends its result to c->to; there the
 * next step, or c->task itself, uses it instead of the inputs it covers.
 * c->objects and c->n must be NULL and 0, c->task a task with one output;
 * c->bytes is the partial result's size as the policy models it,
 * c->delay the reducing time. An engine that runs no commands (the
 * simulator; the MPI engine's task functions) carries it out as
 * locus_act_copy does, and the task then reads all its inputs. */
void locus_act_reduce(struct locus_actions *a, const struct locus_copy *c, const uint32_t *objects,
		      uint32_t n_objects);

/* Version 3: node `node` (or LOCUS_FS) no longer keeps `object`: its
 * storage is freed (a workflow's intermediate file its last reader has
 * read). A node that does not hold it is not changed. */
void locus_act_drop(struct locus_actions *a, uint32_t object, uint32_t node);

/*
 * What a monitor reports of the run now (GTP's situated task graph): the
 * engine fills it in and a policy reads it while it handles an event,
 * through ctx->monitor (NULL when the engine has none). Nothing here is a
 * decision: it is the state the engine is in.
 */
struct locus_monitor {
	void *engine;
	/* Where each object is now. */
	const struct locus_replicas *replicas;
	/* The worker task t is placed on (it has begun to gather its inputs
	 * there, or to run), or LOCUS_NONE; *computed gets the fraction of
	 * its computation done (1 once it finished). */
	uint32_t (*placed)(const struct locus_monitor *m, uint32_t task, double *computed);
	/* The fraction of object o that has reached node n (1: n holds it). */
	double (*moved)(const struct locus_monitor *m, uint32_t object, uint32_t node);
	/* Node n's availability (its speed over its nominal speed; 0 when
	 * it is down) and its bandwidth factor. */
	double (*avail)(const struct locus_monitor *m, uint32_t node);
	double (*bandwidth)(const struct locus_monitor *m, uint32_t node);
	/* The bandwidth, bytes/s, a transfer from node a to node b would have
	 * now with nothing else moving (GTP's bandwidth^t of a link): the
	 * pair's link on a contention-free platform, else the narrowest of
	 * the two interfaces and the shared caps; 0 when either is down. */
	double (*pair_bw)(const struct locus_monitor *m, uint32_t a, uint32_t b);
	/* Version 7: what node n has free now for tasks' demands (struct
	 * locus_demand: cores, memory and disk; UINT64_MAX where the node
	 * states no limit), into *free: 0, or LOCUS_ENOTSUP where the engine
	 * keeps no count (a workflow that declares nothing: every task
	 * takes one core, and a free worker is a free core) or cannot see
	 * the node's (a real run over several machines). A task's demand is
	 * locus_graph_demand(wl->graph, t). */
	int (*room)(const struct locus_monitor *m, uint32_t node, struct locus_demand *free);
};

struct locus_policy_ctx {
	const struct locus_workload *wl;
	size_t n_workers;
	size_t n_schedulers;
	uint64_t seed; /* for the instance's own generator */
	struct locus_kv *opts;
	/* Version 2: the engine's monitor (may be NULL), valid while the
	 * instance lives. */
	const struct locus_monitor *monitor;
};

/* The version this header describes. Version 6 adds no member: tasks
 * have demands (locus_graph_demand: cores, memory, disk) and nodes room
 * for them, and every engine starts a task only when its node has room
 * (docs/flow.md, "Resources"); such a policy may read them and place a
 * task only where locus_workload_fits. A policy of any version runs: a
 * task that waits for room waits in its worker's queue, and one placed
 * on a node that can never hold it fails the run, saying so. Version 7
 * adds the monitor's room (what a node has free now); a policy of an
 * earlier version never reads it. */
#define LOCUS_POLICY_VERSION 7

/* What a policy needs of an engine beyond version 1's events and actions
 * (version 5: struct locus_policy.needs), and what an engine offers
 * (locus_policy_check). Each engine's header says what it offers
 * (LOCUS_SIM_OFFERS, LOCUS_MPI_FLOW_OFFERS, LOCUS_MPI_OFFERS). */
enum {
	/* Told of an attempt that failed (LOCUS_EV_FAILED). */
	LOCUS_NEEDS_FAILED = 1u << 0,
	/* Withdrawing an assignment (locus_act_cancel). */
	LOCUS_NEEDS_CANCEL = 1u << 1,
	/* Running a finished task again (locus_act_rewind). */
	LOCUS_NEEDS_REWIND = 1u << 2,
	/* Moving and deleting objects (locus_act_transfer, _copy, _drop;
	 * _reduce, which an engine that runs no commands does as a copy). */
	LOCUS_NEEDS_COPIES = 1u << 3,
	/* Assignments that say how inputs come and where outputs go
	 * (locus_act_assign_flow). */
	LOCUS_NEEDS_FLOW = 1u << 4,
	/* A monitor that reports every task's placement and progress, each
	 * node's availability and the bandwidth between nodes
	 * (struct locus_monitor); a policy without it may still read the
	 * replicas it reports. */
	LOCUS_NEEDS_MONITOR = 1u << 5
};

/* What a policy can handle (version 2). */
enum {
	/* It schedules tasks that depend on others (it assigns a task only
	 * once its inputs will be produced, or keeps to a plan that does). */
	LOCUS_POLICY_GRAPHS = 1u << 0,
	/* It places again a task whose attempt failed (LOCUS_EV_FAILED);
	 * without it the engine does, on locus_retry_worker's choice. */
	LOCUS_POLICY_RETRIES = 1u << 1
};

struct locus_policy {
	/* Version 1: every member up to stats. Version 2: flags, options.
	 * Version 4 adds no member: such a policy may call locus_act_reduce.
	 * Version 6 adds none either: it may read tasks' demands. */
	int version;
	const char *name;
	const char *summary;
	/* Scheduler processes for n_workers workers; `requested` is the
	 * user's --schedulers (0: the policy's default). */
	size_t (*schedulers)(size_t n_workers, size_t requested);
	int (*create)(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err);
	void (*destroy)(void *state);
	void (*on_event)(void *state, const struct locus_event *ev, struct locus_actions *act);
	void (*stats)(void *state, struct locus_policy_stats *out); /* may be NULL */
	/* Version 2. */
	unsigned flags;	     /* LOCUS_POLICY_* */
	const char *options; /* the options it takes, for help ("delay=SECONDS"), or NULL */
	/* Version 3: the node scheduler s of n runs on (NULL: spread evenly
	 * over the nodes). */
	uint32_t (*scheduler_node)(const struct locus_workload *wl, size_t n, size_t s);
	/* Version 5: what it needs of an engine (LOCUS_NEEDS_*). */
	unsigned needs;
};

/* The policy's capabilities: its flags from version 2 on, none before. */
unsigned locus_policy_flags(const struct locus_policy *p);

/* What the policy needs of an engine: its needs from version 5 on; before,
 * LOCUS_NEEDS_FAILED when it places failed tasks itself (and it is
 * refused at run time if it asks for an action the engine does not do). */
unsigned locus_policy_needs(const struct locus_policy *p);

/* Whether an engine (named `engine` in the message, "the MPI runtime"),
 * which speaks the protocol up to version `version` and offers `offers`
 * (LOCUS_NEEDS_*), can run policy p: 0, or LOCUS_ENOTSUP with a message
 * naming the policy, what it needs and the engine. Engines call it
 * before they create the policy. */
int locus_policy_check(const struct locus_policy *p, int version, unsigned offers,
		       const char *engine, struct locus_error *err);

/* Which node a transfer of `object` to node `to` reads from, among
 * `holders` (n of them; the replica table's list): one in `to`'s rack
 * when there is, and among those the (salt mod count)-th in holder
 * order, so that transfers of different tasks spread over the replicas.
 * Both engines call it, so a simulated run reads where a real one does.
 * LOCUS_NONE when n is 0. */
uint32_t locus_source_pick(const struct locus_platform *p, const uint32_t *holders, uint32_t n,
			   uint32_t to, uint64_t salt);

/* The worker to run task `task` again after its attempt `attempt` failed
 * on worker `failed`, for a policy without LOCUS_POLICY_RETRIES: a worker
 * on another node that holds the task's stored input, else one on another
 * node, else another worker, else `failed` itself; among equals the
 * ((task + attempt) mod count)-th in worker order. `usable(user, w)` says
 * whether worker w can run anything (NULL: all can). Both engines call it.
 * LOCUS_NONE when no worker is usable. */
uint32_t locus_retry_worker(const struct locus_workload *wl, uint32_t task, uint32_t attempt,
			    uint32_t failed, int (*usable)(void *user, uint32_t w), void *user);

/* The registered policies, NULL-terminated. */
const struct locus_policy *const *locus_policies(void);
/* The policy named `name`, or NULL. */
const struct locus_policy *locus_policy_find(const char *name);

#ifdef __cplusplus
}
#endif
#endif
