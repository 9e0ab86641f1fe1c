/*
 * The executor: the engine side of the policy protocol, written once for
 * every engine (docs/architecture.md).
 *
 * A policy decides; an engine keeps time and moves bytes. Between them
 * lies what both engines must do alike for a simulated run to speak for a
 * real one, and that is this module:
 *
 *  - the actions a policy answers with, checked and handed to the engine
 *    (locus__exec_apply): one set of checks, one set of messages;
 *  - each worker's tasks: an assignment places its task at the tail of
 *    the worker's queue when it arrives, and the task starts gathering
 *    its produced inputs at once (policy.h's LOCUS_GATHER_* say how); the
 *    head of the queue starts when the worker is free and what it waits
 *    for is there;
 *  - where each input is read from (locus__exec_source: the node itself,
 *    the policy's hint, else locus_source_pick salted by task and
 *    attempt; a policy's copy without a task by its object);
 *  - where outputs go when a task has computed (LOCUS_OUTPUT_*), and the
 *    replica table's updates that follow;
 *  - outcomes: a task done is told to the worker that was given it
 *    (LOCUS_EV_DONE); an attempt that failed goes to the policy
 *    (LOCUS_EV_FAILED) when it places failed tasks itself
 *    (LOCUS_POLICY_RETRIES), else runs again at the head of the queue of
 *    the worker locus_retry_worker names. An attempt that ran elsewhere
 *    for a worker that is still up brings its outputs home, and the task
 *    is done there, as if it had run there: the policy never hears of
 *    the attempts it did not ask for;
 *  - cancelling, rewinding, and assignments made void on their way.
 *
 * An engine supplies time, transport and I/O through struct
 * locus__exec_ops, and hosts some of the workers (the simulator every
 * one; an MPI rank its own): the executor follows the tasks placed on the
 * workers it hosts and never reads a clock. The engine's `now` is passed
 * through to its operations untouched.
 *
 * Internal: shared by src/sim and src/mpi.
 */
#ifndef LOCUS_EXEC_EXEC_H
#define LOCUS_EXEC_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "locus/dag.h"
#include "locus/policy.h"
#include "locus/task.h"
#include "locus/workload.h"
#include "sched/actions.h"

/* A task's state on the executor that hosts its worker. */
enum locus__task_state {
	LOCUS__T_NEW,	    /* not placed (never, or no longer) */
	LOCUS__T_QUEUED,    /* in its worker's queue, gathering or waiting */
	LOCUS__T_READING,   /* started: reading its inputs */
	LOCUS__T_COMPUTING, /* computing */
	LOCUS__T_WRITING,   /* computed: writing its outputs to the file system */
	LOCUS__T_DONE,	    /* finished */
	/* Placed on a worker of this executor, its attempt runs on another
	 * executor's worker: it comes home when that has ended. */
	LOCUS__T_AWAY
};

/* One input a starting task reads: from node `source` (the task's own
 * node when local), or LOCUS_FS. */
struct locus__read {
	uint32_t object, source;
};

struct locus__exec;

/* A task's state as a monitor sees it (struct locus_monitor's `placed`:
 * placed once it has begun to gather its inputs), which an engine whose
 * schedulers are elsewhere sends them (locus__exec_ops.state). */
enum locus__mon_state {
	LOCUS__M_NONE,	    /* not placed, or queued without any input coming */
	LOCUS__M_GATHERING, /* queued, an input of it on its node or coming */
	LOCUS__M_RUNNING,   /* started */
	LOCUS__M_DONE	    /* finished */
};

/* What a starting task reads (locus__exec_reads). */
struct locus__read_plan {
	uint32_t main;	 /* its main (largest) stored input, or LOCUS_NONE */
	uint32_t source; /* where main is read from (a node, or LOCUS_FS) */
	int local;	 /* main is on the task's node */
	uint32_t upto;	 /* inputs looked at (all, or up to the one held nowhere) */
};

/* What an engine does for the executor. `now` is the engine's time of the
 * decision, passed through. Members marked "may be NULL" are things an
 * engine does not do: a policy asking for one ends the run with an error
 * naming both. */
struct locus__exec_ops {
	/* Process `proc` learns of `ev` (DONE, FAILED). */
	void (*tell)(void *eng, uint32_t proc, const struct locus_event *ev, double now);
	/* Process m->from sends m to m->to; `aseq` numbers an assignment
	 * among its task's (0: not an assignment), for locus__exec_void when
	 * it arrives. */
	void (*send)(void *eng, const struct locus_msg *m, uint32_t aseq, double now);
	void (*timer)(void *eng, uint32_t proc, double delay, uint64_t tag, double now);
	/* A policy's locus_act_transfer (from may be LOCUS_NONE); may be NULL. */
	void (*transfer)(void *eng, uint32_t proc, uint32_t object, uint32_t from, uint32_t to,
			 double now);
	/* A policy's locus_act_copy (a->reduce: locus_act_reduce), checked;
	 * objs (a->n) and reduced (a->r_n) point into the action's pool;
	 * may be NULL. */
	void (*copy)(void *eng, uint32_t proc, const struct locus__action *a, const uint32_t *objs,
		     const uint32_t *reduced, double now);
	/* A policy's locus_act_drop (place: a node or LOCUS_FS); may be NULL. */
	void (*drop)(void *eng, uint32_t object, uint32_t place, double now);

	/* Whether object o is on its way to `node` already. */
	int (*underway)(void *eng, uint32_t o, uint32_t node);
	/* Bring object o to `node` from `source` (a node, or LOCUS_FS) for
	 * task `task` (LOCUS_NONE: for no task); the engine calls
	 * locus__exec_appeared when it is there. */
	void (*fetch)(void *eng, uint32_t o, uint32_t source, uint32_t node, uint32_t task,
		      double now);
	/* Task t is placed on worker w (from_policy: by an assignment, else
	 * by a retry); may be NULL. */
	void (*placed)(void *eng, uint32_t w, uint32_t t, int from_policy, double now);
	/* Task t starts on worker w: the engine reads what it needs
	 * (locus__exec_reads says what, and from where), computes, and calls
	 * locus__exec_computed. */
	void (*start)(void *eng, uint32_t w, uint32_t t, double now);
	/* Task t on worker w stops where it is (state: LOCUS__T_READING,
	 * _COMPUTING or _WRITING): its reads and writes end, its computation
	 * is forgotten. */
	void (*abort)(void *eng, uint32_t w, uint32_t t, int state, double now);
	/* Node `node` keeps object o (a task's output): 1 when new there, 0
	 * when it had it, -1 when it cannot (the engine has said why). */
	int (*keep)(void *eng, uint32_t o, uint32_t node, double now);
	/* Worker w writes output o of its task to the file system; the
	 * engine calls locus__exec_written when it has. */
	void (*write)(void *eng, uint32_t w, uint32_t o, double now);
	/* Task t ended on worker w: the engine records it and fills in
	 * done->done's duration, compute and remote. */
	void (*ended)(void *eng, uint32_t w, uint32_t t, struct locus_event *done, double now);
	/* Finished task t on worker w no longer counts (it was rewound);
	 * may be NULL. */
	void (*unended)(void *eng, uint32_t w, uint32_t t);
	/* Worker `by` has run attempt `attempt` of worker `home`'s task t (a
	 * retry): ok, or it failed (why); with ok its outputs are on by's
	 * node, to be brought home. The engine records the attempt and, when
	 * `home` is another executor's, tells it (which calls
	 * locus__exec_came_back); may be NULL when every worker is this
	 * executor's. */
	void (*ran)(void *eng, uint32_t by, uint32_t home, uint32_t t, uint32_t attempt, int ok,
		    const char *why, double now);
	/* Task t's state as a monitor sees it changed (placed on worker w, or
	 * not: LOCUS_NONE); may be NULL. */
	void (*state)(void *eng, uint32_t t, uint32_t w, enum locus__mon_state state, double now);
	/* Task t is rewound: it may be another executor's, finished there
	 * (which calls locus__exec_rewind); NULL when every worker is this
	 * executor's. */
	void (*rewind)(void *eng, uint32_t t, double now);
	/* Task t, which this executor has not placed, is cancelled: it may be
	 * another executor's (which calls locus__exec_cancel); NULL when
	 * every worker is this executor's. */
	void (*cancel)(void *eng, uint32_t t, double now);
	/* Attempt `attempt` of worker `home`'s task t is to run on worker w,
	 * another executor's (which calls locus__exec_retry_here); NULL when
	 * this executor hosts every worker. */
	void (*retry_away)(void *eng, uint32_t home, uint32_t w, uint32_t t, uint32_t attempt,
			   double now);
	/* With config.keep_going: worker home's task t failed its last
	 * attempt (`attempts` in all, the last on worker `by`, why) and is
	 * given up; the run goes on. */
	void (*gave_up)(void *eng, uint32_t home, uint32_t by, uint32_t t, uint32_t attempts,
			const char *why, double now);
	/* The run cannot finish (a failure the policy does not get past):
	 * the result says why. */
	void (*halt)(void *eng, const char *why);
	/* The policy made a mistake or memory ran out: the run ends with
	 * `code` and `why`. */
	void (*fail)(void *eng, int code, const char *why);
};

/* A node's resources as the executors count them (docs/flow.md,
 * "Resources"): what is free now, and the workers whose next task is
 * ready but waits for room, in the order they came, each with its task's
 * demand (a worker starts a task only when it fits what is free less what
 * those ahead of it wait for, so a large task is not passed over for
 * ever). The simulator's executor keeps one a node; the MPI runtime puts
 * each node's in memory the node's ranks share. */
struct locus__lwait {
	uint32_t worker, cores;
	uint64_t memory, disk;
};
struct locus__ledger {
	int lock; /* a spin lock, 0 when free: the node's ranks share it */
	uint32_t n_wait;
	uint64_t cores, memory, disk; /* free now (LOCUS__LEDGER_ANY: no limit) */
	struct locus__lwait wait[];   /* room for each worker of the node */
};
#define LOCUS__LEDGER_ANY (UINT64_MAX / 4)

/* The bytes a ledger for a node of `workers` workers takes. */
size_t locus__ledger_size(size_t workers);
/* Sets up a ledger for node nd (its cores, memory and storage free). */
void locus__ledger_init(struct locus__ledger *l, const struct locus_node *nd);
/* Worker w's task of demand d takes its room (1), or w waits in l's list
 * (0: its place kept, or taken last). */
int locus__ledger_take(struct locus__ledger *l, uint32_t w, const struct locus_demand *d);
/* A task of demand d ended: its room is free again. */
void locus__ledger_give(struct locus__ledger *l, const struct locus_demand *d);
/* Worker w no longer waits (its head changed, or it went down). */
void locus__ledger_withdraw(struct locus__ledger *l, uint32_t w);
/* The waiting workers, in order, into out (room for the node's
 * workers); how many. */
size_t locus__ledger_waiting(struct locus__ledger *l, uint32_t *out);
/* What l has free now into *free (UINT64_MAX: no limit). */
void locus__ledger_room(struct locus__ledger *l, struct locus_demand *free);
/* Whether graph g has a task whose demand is not LOCUS_DEMAND_DEFAULT
 * (else engines need no ledger: every task fits a free worker). */
int locus__demands(const struct locus_graph *g);

struct locus__exec_config {
	const struct locus_workload *wl; /* its graph is the run's */
	const struct locus_policy *policy;
	size_t n_schedulers;
	/* Where objects are (the engine's: the executor reads it, and asks
	 * for changes through ops->keep), and which are on the file system
	 * (by object, may be NULL: none). */
	struct locus_replicas *rep;
	const uint8_t *on_fs;
	const struct locus__exec_ops *ops;
	void *eng;
	/* The engine, in messages ("the simulator"). */
	const char *engine;
	/* By worker: whether this executor hosts it (NULL: every one). */
	const uint8_t *hosted;
	/* More attempts a task that fails itself (LOCUS_FAIL_ERROR, _INPUT)
	 * gets; UINT32_MAX: no limit. */
	uint32_t retries;
	/* Outputs no task reads go to the file system whatever the
	 * assignment says (a real run's results, in its shared directory). */
	int finals_to_fs;
	/* A task that fails its last attempt is given up (ops->gave_up), its
	 * worker's process told LOCUS_EV_FAILED (final), and the run goes on;
	 * else the run ends. Graphs without edges only (no task waits for a
	 * given-up one): locus__exec_init refuses it otherwise. */
	int keep_going;
	/* By node: its ledger (the engine's, which set it up; NULL for a node
	 * of no worker this executor hosts), or NULL: the executor keeps its
	 * own when the graph has demands (locus__demands). */
	struct locus__ledger **ledgers;
};

/* Per worker. */
struct locus__xworker {
	uint32_t head, tail; /* placed tasks, in order, through anext */
	uint32_t task;	     /* started and not finished, or LOCUS_NONE */
	uint32_t writes;     /* its task's writes to the file system under way */
	uint32_t away;	     /* its tasks whose attempts run on other workers */
	uint8_t down;	     /* its node is down */
	uint8_t stopped;     /* the policy stopped it */
	uint8_t waiting;     /* its ready head waits for room on its node */
	uint8_t holds;	     /* its task holds its demand on its node */
};

struct locus__exec {
	struct locus__exec_config cfg;
	const struct locus_graph *g;
	unsigned pflags;
	int has_edges;
	size_t n_workers, n_procs;
	struct locus__xworker *w;
	/* By task. */
	uint8_t *tstate;
	uint8_t *tfrom_policy; /* placed by the policy (else by a retry) */
	uint8_t *tvoid;	       /* cancelled after it finished: its next assignment is void */
	uint8_t *tmon;	       /* its state as last told (enum locus__mon_state) */
	uint8_t *tgather, *toutput;
	uint32_t *tworker;   /* where it is placed, or LOCUS_NONE */
	uint32_t *thome;     /* the worker its attempt here runs for, or LOCUS_NONE */
	uint8_t *thoming;    /* it comes home: its outputs come, then it ends here */
	uint32_t *tran_by;   /* the worker its last attempt ran on */
	uint32_t *tassigner; /* the process whose assignment placed it */
	uint32_t *tmissing;  /* what it waits for before it may start */
	/* By input edge (a task's k-th input, g->inputs[in_at + k]): its
	 * place among the object's consumers (g->consumers[cons_at + j]);
	 * by consumer edge: the consumer counted the object among what it
	 * waits for, and it has not come yet (so that a copy it never
	 * waited for, or one an engine tells of twice, counts for nothing). */
	uint32_t *in_cons;
	uint8_t *cwait;
	uint32_t *tawait; /* policy copies naming it still under way */
	uint32_t *tattempt;
	uint32_t *tlost_node;	/* where its last attempt was lost, or LOCUS_NONE */
	uint32_t *asent, *acut; /* assignments sent; those up to acut are void */
	uint32_t *anext;	/* the next task placed on the same worker */
	int64_t *ahint;		/* the source its assignment names, or -1 */
	/* Resources (cfg.ledgers, or its own): NULL when the graph has no
	 * demands; wake: room for a node's waiting workers. */
	struct locus__ledger **ledger;
	void *own_ledgers;
	uint32_t *wake;
	size_t done;		/* tasks finished */
	uint64_t attempts_lost; /* attempts lost with their nodes or failed */
	/* The run ended: a failure (a LOCUS_E* code), or a halt. */
	int failed, halted;
};

/* Sets up x for cfg; 0 or LOCUS_ENOMEM. Free with locus__exec_fini. */
int locus__exec_init(struct locus__exec *x, const struct locus__exec_config *cfg);
void locus__exec_fini(struct locus__exec *x);

/* Carries out the actions `act` of process `proc`'s event, at `now`
 * (checked: a policy's mistake fails the run through ops->fail). */
void locus__exec_apply(struct locus__exec *x, struct locus_actions *act, uint32_t proc, double now);

/* The monitor's room (policy.h, version 7): what node n has free now,
 * from its ledger; LOCUS_ENOTSUP when the executor keeps none for it
 * (the graph has no demands, or n runs none of its workers). */
int locus__exec_room(const struct locus__exec *x, uint32_t n, struct locus_demand *free);

/* Whether an assignment of task t numbered `aseq` arrives void (it was
 * cancelled on its way, or its task finished and was cancelled). */
int locus__exec_void(const struct locus__exec *x, uint32_t t, uint32_t aseq);
/* Assignment m reached worker w: checked, its task placed; it starts at
 * once when it may, unless locus__exec_assign_waits (then the engine calls
 * locus__exec_try_start once the worker has handled the message). 0, or
 * -1 when the run failed (said). */
int locus__exec_assign(struct locus__exec *x, uint32_t w, const struct locus_msg *m, double now);
/* Whether an assignment's task waits for its worker to have handled it
 * before it may start: the copies the policy then asks for hold it. */
int locus__exec_assign_waits(const struct locus_msg *m);
/* Assignment m (numbered aseq) to worker w was lost: its node is down. */
void locus__exec_assign_lost(struct locus__exec *x, uint32_t w, const struct locus_msg *m,
			     uint32_t aseq, double now);

/* The head of worker w's tasks starts if w is free and it may. */
void locus__exec_try_start(struct locus__exec *x, uint32_t w, double now);

/* Object o should reach `node` for no task in particular (a transfer
 * whose source failed, asked again). */
void locus__exec_want(struct locus__exec *x, uint32_t o, uint32_t node, double now);
/* Object o is now on `node` (LOCUS_FS: the file system), new there. */
void locus__exec_appeared(struct locus__exec *x, uint32_t o, uint32_t node, double now);
/* The same, told whether that copy was o's only one when it was made: an
 * engine that hears of copies after its view has changed again (MPI: a
 * batch of replica updates, applied before the executor hears of each)
 * says so, as the view's count no longer can. */
void locus__exec_appeared_as(struct locus__exec *x, uint32_t o, uint32_t node, int only,
			     double now);
/* A policy copy naming task t (or LOCUS_NONE) has ended, well or not. */
void locus__exec_copy_over(struct locus__exec *x, uint32_t t, double now);
/* A policy copy naming task t (or LOCUS_NONE) is under way: t does not
 * start before it ends. */
static inline void locus__exec_copy_starts(struct locus__exec *x, uint32_t t)
{
	if (t != LOCUS_NONE)
		x->tawait[t]++;
}

/* The node a read of object o by task t at `node` uses: the node itself
 * (*local 1), the hint's when it holds o, else the one locus_source_pick
 * names among o's holders; LOCUS_FS when no node holds it. */
uint32_t locus__exec_source(const struct locus__exec *x, uint32_t t, uint32_t o, uint32_t node,
			    int64_t hint, int *local);
/* What task t reads when it starts on `node`: every stored input (the
 * main one from its assignment's hint when that holds it), and its
 * produced inputs not on the node when it reads them as it starts
 * (LOCUS_GATHER_READ), in its inputs' order, into reads (room for the
 * task's inputs). Returns how many, or -1 when input plan->upto is held
 * nowhere; plan says where the main input comes from either way. */
long locus__exec_reads(struct locus__exec *x, uint32_t t, uint32_t node, struct locus__read *reads,
		       struct locus__read_plan *plan);
/* The run halts: task t's input k is held nowhere. */
void locus__exec_unreadable(struct locus__exec *x, uint32_t t, uint32_t k);

/* Worker w's task has computed: its outputs go where its assignment
 * says; it ends when its writes have. */
void locus__exec_computed(struct locus__exec *x, uint32_t w, double now);
/* Worker w's write of output o to the file system has ended (the
 * engine has put o there: locus__exec_appeared). */
void locus__exec_written(struct locus__exec *x, uint32_t w, uint32_t o, double now);

/* Task t's attempt on worker w was lost (why: LOCUS_FAIL_*), taken off
 * its worker first (locus__exec_unplace): the policy places it again
 * (LOCUS_POLICY_RETRIES), or the executor runs it again where
 * locus_retry_worker says, or the run halts. */
void locus__exec_lost(struct locus__exec *x, uint32_t t, uint32_t w, enum locus_fail_reason why,
		      double now);
/* Worker w's running task failed itself (why: LOCUS_FAIL_ERROR or
 * _INPUT; text says how): the policy hears of it
 * (LOCUS_POLICY_RETRIES: LOCUS_EV_FAILED to w), or it runs again at the
 * head of the queue of the worker locus_retry_worker names, and comes
 * home when it has run; past cfg.retries attempts the run fails. */
void locus__exec_failed(struct locus__exec *x, uint32_t w, enum locus_fail_reason why,
			const char *text, double now);
/* Another executor asks worker w to run attempt `attempt` of worker
 * `home`'s task t (gathering its inputs as it starts), next. */
void locus__exec_retry_here(struct locus__exec *x, uint32_t w, uint32_t t, uint32_t attempt,
			    uint32_t home, double now);
/* The attempt of worker home's task t that ran on worker `by` (another
 * executor's) has ended: ok, its outputs come home; else it failed (why). */
void locus__exec_came_back(struct locus__exec *x, uint32_t home, uint32_t t, uint32_t attempt,
			   uint32_t by, int ok, const char *why, double now);
/* Worker w's running task goes back to the head of its queue, not as an
 * attempt: it gathers again from where its inputs are now (one went
 * missing). */
void locus__exec_requeue(struct locus__exec *x, uint32_t w, double now);
/* Task t is withdrawn from this executor's worker it is placed on,
 * (queued, gathering or running: locus_act_cancel), if any. */
void locus__exec_cancel(struct locus__exec *x, uint32_t t, double now);
/* Task t runs again when next assigned (locus_act_rewind): finished here,
 * it no longer counts; not finished, it is cancelled. */
void locus__exec_rewind(struct locus__exec *x, uint32_t t, double now);
/* Takes task t off its worker (out of the queue, or stopped where it runs
 * through ops->abort): it is unplaced. */
void locus__exec_unplace(struct locus__exec *x, uint32_t t, double now);

/* Worker w's node went down: it hears and runs nothing more
 * (locus__exec_worker_lose then loses what it had); or it came back. */
void locus__exec_worker_down(struct locus__exec *x, uint32_t w);
void locus__exec_worker_lose(struct locus__exec *x, uint32_t w, double now);
void locus__exec_worker_up(struct locus__exec *x, uint32_t w);

/* Why a run with tasks left ended, into why: a task waiting for a lost
 * object, or lost with its node and never placed again (*halt 1: a
 * failure of the platform's), or a task never assigned (*halt 0: the
 * policy's mistake; `suffix` is appended). lost_node(eng, o, &at) says
 * where and when object o was lost (LOCUS_NONE: it was not). */
void locus__exec_unfinished(const struct locus__exec *x, char *why, size_t size, int *halt,
			    uint32_t (*lost_node)(void *eng, uint32_t o, double *at),
			    const char *suffix);

/* An object's name as messages give it. */
const char *locus__exec_object_name(const struct locus__exec *x, uint32_t o, char *buf,
				    size_t size);

#endif
