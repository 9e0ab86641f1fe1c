/*
 * The discrete-event engine: time for the policy protocol in simulation
 * (see include/locus/sim.h for the model).
 *
 * Every process is a serial server with an inbox: an event that reaches a
 * busy process waits; handling one costs cost_per_msg plus cost_per_entry
 * per metadata entry the policy examined, and the actions take effect when
 * the handling ends. Events are ordered by time, then by a sequence number,
 * and completions (flows of the max-min sharing model, contention-free
 * moves, computations) come before other events at the same instant, so a
 * policy woken then sees what ended then, and a run is a pure function of
 * its inputs.
 *
 * Data move in "moves": a worker's read of a task's stored input when the
 * task starts (MV_READ), and an object sent to a node (MV_XFER) because a
 * task placed there needs it or a policy asked for a copy. A move waits
 * for a transfer slot of its source (max_transfers), then one latency,
 * then flows: through the disks and links of the sharing model, or, on a
 * contention-free platform, alone at its pair's bandwidth (a flow capped
 * at it, restarted with what it has left when the bandwidth changes).
 *
 * The engine only keeps time and moves bytes. The executor (src/exec)
 * carries out the policy's decisions, as it does for the MPI runtime:
 * which worker runs a task and in what order, which holder a move reads
 * from, where outputs go and where a failed task runs again. The engine's
 * files supply its operations (struct locus__exec_ops) with simulated time:
 *   engine.c  - the event loop, inboxes and the policy's handling of
 *               events, set-up, and the result's summary
 *   moves.c   - moves and the network: routes, transfer slots, flows,
 *               objects reaching nodes, a policy's transfers, copies and
 *               drops
 *   tasks.c   - running tasks: reads, computing, writes, ends (and the
 *               table of the executor's operations)
 *   changes.c - the platform changing: speeds over time, nodes failing
 *               and coming back, bandwidths and links, the changes set
 *               up; the monitor
 * This header is what they share, internal to the simulator.
 */
#ifndef LOCUS_SIM_ENGINE_H
#define LOCUS_SIM_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "exec/exec.h"
#include "locus/heap.h"
#include "locus/sim.h"
#include "sched/actions.h"
#include "sim/share.h"

#define NONE UINT32_MAX
#define MAXR LOCUS__SHARE_MAX_RES

enum ev_kind {
	EV_ARRIVE,   /* an item reaches proc's inbox */
	EV_FREE,     /* proc finished handling an event */
	EV_COMPUTED, /* worker proc finished computing its task (item: its generation) */
	EV_MOVE,     /* move `item` (of generation proc) has waited its latency: it flows */
	EV_CHANGE,   /* platform change `item` (not a speed change) */
	EV_MOVED,    /* contention-free move `item` (of generation proc) has arrived */
	EV_READY,    /* move `item` (of generation proc) has had its delay and its
			file system operations: it asks for a slot */
	EV_START,    /* worker proc has handled an assignment: its head may start */
	EV_BEGIN     /* process proc starts (time 0), and the next after it */
};

struct ev {
	double t;
	uint64_t seq; /* the order at one time: bit 63 the kind's class (ev_class), then the order
			 pushed */
	uint32_t kind;
	uint32_t proc;
	uint32_t item;
};

/* Events pushed at one delay d after the time they were made (a message
 * of one size between links of one speed, a timer of one period) come in
 * the order of their keys, as long as the times they were made in do not
 * go back: a lane keeps such a run in a ring, first to last, and the next
 * event is the least of the heap's top and the lanes' heads. A message's
 * key is near the least of all (its latency is short beside a task), so
 * in the heap it rose to the top and was taken off it again through every
 * level; in a lane it is one store and one load. An event whose key is
 * not past its lane's last goes into the heap: the order of the events
 * (t, seq) is the same whichever holds them. */
#define LANES 8
struct lane {
	double d;	 /* the delay of its events (while it holds any) */
	struct ev *ring; /* cap entries, a power of two */
	size_t cap, head, n;
};

/* What waits in an inbox: everything a policy can be told. */
struct item {
	struct locus_event ev; /* ev.msg points at msg below when a message */
	struct locus_msg msg;
	uint32_t aseq; /* an assignment: its number among its task's */
	uint32_t next; /* inbox chain or free list */
};

/* MV_READ: a task's read of an input when it starts; MV_XFER: an object
 * sent to a node for a task placed there, or a policy's transfer;
 * MV_WRITE: a task's output written to the file system; MV_COPY: a
 * policy's copy (locus_act_copy) of objects (objs) or bytes. */
enum { MV_READ, MV_XFER, MV_WRITE, MV_COPY };
/* MV_DIRECT: a contention-free move, alone at its pair's bandwidth: its
 * end is computed, not shared (an EV_MOVED). MV_PREP: waiting for its
 * delay and the file system's metadata operations (an EV_READY). */
enum { MV_FREE, MV_SLOT, MV_LATENCY, MV_FLOW, MV_DIRECT, MV_PREP };

struct move {
	uint8_t kind, state;
	uint8_t holds_slot; /* it took a transfer slot of src */
	uint8_t pad;
	uint32_t w;	   /* READ, WRITE: the worker */
	uint32_t task;	   /* READ, WRITE: its task; XFER: the consumer it is for, or NONE */
	uint32_t obj;	   /* COPY: its first object, or NONE */
	uint32_t src, dst; /* nodes; NONE: the shared file system */
	uint32_t *objs;	   /* COPY: its objects (n_objs), owned */
	uint32_t n_objs;
	uint64_t tag;	    /* COPY: the policy's tag */
	uint32_t res[MAXR]; /* resources of the sharing model */
	uint32_t n_res;
	uint32_t flow;	    /* MV_FLOW: its flow */
	uint32_t qnext;	    /* MV_SLOT: next move waiting for src's slot */
	uint32_t onext;	    /* XFER: next transfer of the same object; free list */
	uint32_t requester; /* the process that asked for it, or NONE */
	uint32_t gen;	    /* its EV_MOVE carries it: an older one is stale */
	double cap;	    /* contention-free: the pair's bandwidth; 0: shared */
	double bytes;	    /* what it has to move (MV_DIRECT: left at t_flow) */
	double t_flow;	    /* MV_DIRECT: when it (last) went on at `cap` */
	double size;	    /* the object's bytes */
	double asked;	    /* when it was asked for */
};

struct proc {
	uint32_t node;
	uint32_t head, tail; /* inbox */
	int busy;	     /* handling an event until an EV_FREE */
	/* busy, and its EV_FREE (free_at, free_seq) not in the queue: it
	 * goes there only if something arrives before it (engine.c, arrive). */
	int lazy;
	double free_at;
	uint64_t free_seq;
	uint32_t qlen;	    /* events in its inbox */
	uint32_t qmax;	    /* most of them waiting at once */
	double qint, qlast; /* integral of qlen over time, and when it last changed */
	/* workers (what runs, and what is placed on them: the executor's) */
	uint32_t gen;	     /* compute generation: an older EV_COMPUTED is stale */
	uint32_t reads_left; /* moves of the current task's read still going */
	double idle_since;   /* free for work since */
	double read_start;
	double read_end;
	double compute_end;
	int timed_out; /* its compute stops at its time limit (cfg->time_limit) */
};

struct engine {
	const struct locus_sim_config *cfg;
	const struct locus_workload *wl;
	const struct locus_graph *g;
	const struct locus_platform *p;
	struct locus_error *err;
	void *pol;
	/* The policy's side of the protocol, carried out (and the run's
	 * end: x.failed, x.halted). */
	struct locus__exec x;
	size_t n_workers, n_scheds, n_procs;
	struct proc *procs;
	/* n_procs: the bandwidth of each process's node's link, which a
	 * message's delay reads (a sender and a receiver a send, where the
	 * processes' and nodes' records were two misses each). */
	double *msg_bw;
	/* Every node's link of one bandwidth (the common case): msg_bw[0]
	 * is every message's, and the array is not read. */
	int msg_bw_one;
	/* Pending events, a binary heap by (t, seq), and beside it lanes
	 * (struct lane) of events pushed at a fixed delay. */
	struct ev *evq;
	size_t n_ev, ev_cap;
	struct lane lanes[LANES];
	uint64_t seq;
	uint64_t begin_seq; /* the processes' starts: begin_seq + process */
	/* The key of the event being handled: (now, its seq); a flow's end
	 * comes before every event of its time (cur_seq 0). */
	uint64_t cur_seq;
	struct item *items;
	size_t n_items, items_cap;
	size_t event_times_cap; /* of r->policy_event_times (time_policy) */
	uint32_t free_items;
	struct locus__share *share;
	uint32_t res_backbone, res_fs; /* NONE when absent */
	double fs_free;		       /* when the file system's metadata server is free */
	double *fs_opened;	       /* by node: when its last open on the file system ends */
	uint8_t *on_fs;		       /* by object: the file system has it */
	double *held;		       /* by node: bytes of the objects it holds */
	uint32_t res_racks;	       /* rack k's uplink: out res_racks + 2k, in + 1; NONE: none */
	uint32_t *node_rack;	       /* by node: its rack's index */
	uint32_t *serving;	       /* by node: remote moves it is serving */
	uint32_t *qhead, *qtail;       /* by node: moves waiting for a transfer slot */
	/* The actions of the event being handled, one buffer per nesting
	 * level: applying them may tell an idle process something, which it
	 * handles at once, with a buffer of its own (acts[depth]). */
	struct locus__action_stack acts;
	size_t depth;
	/* speed changes per node: seg_at[n] .. seg_at[n+1] in segs */
	size_t *seg_at;
	struct locus_speed_change *segs;
	struct locus_speed_change *speeds; /* cfg->speed with the scenario's */
	size_t n_speeds;
	const struct locus_change **others; /* the other changes, in time order */
	size_t n_others;
	double latency;
	/* Data. */
	struct locus_replicas *rep;
	struct move *moves;
	size_t n_moves, moves_cap;
	uint32_t free_moves;
	uint32_t *xhead; /* by object: its transfers going on */
	uint8_t *node_down;
	double *bw_factor; /* by node */
	/* By node: its outgoing link can be slower than its disk at some time
	 * of the run. Every flow out of a node crosses its disk too, so a link
	 * never slower than the disk never binds: routes leave it out. */
	uint8_t *out_binds;
	double *link_factor; /* contention-free pairs that changed: n_nodes^2 when small */
	uint32_t *lost_node; /* by object: the node it was lost with, or NONE */
	double *lost_at;
	/* Tasks, as the engine measures them. */
	uint8_t *tlocal; /* its attempt running now read its main input locally */
	double *tcstart; /* when its computation began */
	/* By task, an attempt that ran on a worker other than the one it
	 * ends on (a retry come home): when it started, read, computed. */
	double *tran_start, *tran_read, *tran_computed;
	double *tassigned; /* by task: when its assignment reached its worker */
	size_t next_progress;
	double *waits;
	size_t n_waits, waits_cap;
	struct locus__read *reads; /* a starting task's (locus__exec_reads) */
	size_t reads_cap;
	struct locus_monitor mon;
	double now; /* the time of the event being handled (the monitor's) */
	/* When something last ran, moved or changed, and the platform
	 * changes still to come: a run where for long only messages and
	 * timers happen has stalled (stalled()). */
	double progress_at, stalled_since; /* stalled_since: NAN unless it stalled */
	size_t changes_left;
	struct locus_result *r;
	size_t xfers_cap;
};

/* Whether the run has ended (a failure, or a halt). */
static inline int locus__sim_over(const struct engine *e)
{
	return e->x.failed || e->x.halted;
}

/* ---- engine.c: errors, events, inboxes ---------------------------------------- */

/* Records the first failure of a run (later ones are consequences);
 * returns `code`. */
int locus__sim_fail(struct engine *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The run cannot finish for a reason of the platform's: the result says
 * why. */
void locus__sim_halt(struct engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *locus__sim_task_name(const struct engine *e, uint32_t t, char *buf, size_t size);
const char *locus__sim_object_name(const struct engine *e, uint32_t o, char *buf, size_t size);
/* Queues an event of the engine's (enum ev_kind) at time t; 0 or the
 * failure's code. */
int locus__sim_push_ev(struct engine *e, double t, uint32_t kind, uint32_t proc, uint32_t item);
/* The same for an event made `d` after `now` (a message, a timer, a
 * transfer's latency): it waits in a lane of that delay where its key
 * comes after the lane's last (struct lane), else in the heap. */
int locus__sim_push_after(struct engine *e, double now, double d, uint32_t kind, uint32_t proc,
			  uint32_t item);
/* Task t's stage in the result, or NULL (no stages). */
struct locus_stage_result *locus__sim_stage_of(const struct engine *e, uint32_t t);
/* Tells process `proc` about `ev` at `now` (an event of the engine's
 * own); the same to every scheduler. */
void locus__sim_tell(struct engine *e, uint32_t proc, const struct locus_event *ev, double now);
void locus__sim_tell_schedulers(struct engine *e, const struct locus_event *ev, double now);
/* The executor's operations for messages, timers and the run's end. */
void locus__sim_op_tell(void *eng, uint32_t proc, const struct locus_event *ev, double now);
void locus__sim_op_send(void *eng, const struct locus_msg *m, uint32_t aseq, double now);
void locus__sim_op_timer(void *eng, uint32_t proc, double delay, uint64_t tag, double now);
void locus__sim_op_halt(void *eng, const char *why);
void locus__sim_op_fail(void *eng, int code, const char *why);

/* ---- moves.c: moves, the network, objects reaching nodes ------------------------ */

/* A move, fresh (NONE when out of memory), and back to the free list. */
uint32_t locus__sim_new_move(struct engine *e);
void locus__sim_free_move(struct engine *e, uint32_t m);
/* Takes transfer m out of its object's list. */
void locus__sim_unlink_xfer(struct engine *e, uint32_t m);
/* The pair's bandwidth now on a contention-free platform. */
double locus__sim_pair_cap(const struct engine *e, uint32_t a, uint32_t b);
/* Sets the resources (or the pair's bandwidth) move mv flows through. */
void locus__sim_route(struct engine *e, struct move *mv);
/* Move m flows from `now`: shared, or alone at its pair's bandwidth. */
void locus__sim_start_flow(struct engine *e, uint32_t m, double now);
/* What a contention-free move has left at `now`. */
double locus__sim_direct_left(const struct move *mv, double now);
/* Move m asks for a transfer slot of its source, and flows one latency
 * after it has one. */
void locus__sim_request_move(struct engine *e, uint32_t m, double now);
/* Move m no longer holds its source's slot: the first waiting move gets it. */
void locus__sim_release_slot(struct engine *e, uint32_t m, double now);
/* Move m goes once `delay` has passed and the file system has served its
 * `files` metadata operations. */
void locus__sim_launch(struct engine *e, uint32_t m, double now, double delay, uint32_t files);
/* Stops move m wherever it is; returns the bytes it had left. */
double locus__sim_stop_move(struct engine *e, uint32_t m, double now);
/* Move m has arrived. */
void locus__sim_move_done(struct engine *e, uint32_t m, double now);
/* Node `node` now holds object o: 1 if new, 0 if it held it, -1 when out
 * of memory or when o does not fit (the run ends saying so). */
int locus__sim_hold(struct engine *e, uint32_t o, uint32_t node);
/* Object o is on the file system now. */
void locus__sim_on_fs(struct engine *e, uint32_t o, double now);
/* Tells `proc` how a policy's copy went. */
void locus__sim_copy_told(struct engine *e, uint32_t proc, uint32_t o, uint32_t n, uint32_t from,
			  uint32_t to, uint64_t tag, int ok, double now);
/* The executor's operations for moves: a policy's transfers, copies and
 * drops, and objects fetched for tasks. */
void locus__sim_op_transfer(void *eng, uint32_t proc, uint32_t o, uint32_t from, uint32_t to,
			    double now);
void locus__sim_op_copy(void *eng, uint32_t proc, const struct locus__action *a,
			const uint32_t *objs, const uint32_t *reduced, double now);
void locus__sim_op_drop(void *eng, uint32_t o, uint32_t place, double now);
int locus__sim_op_underway(void *eng, uint32_t o, uint32_t node);
void locus__sim_op_fetch(void *eng, uint32_t o, uint32_t src, uint32_t node, uint32_t task,
			 double now);

/* ---- tasks.c: running tasks ------------------------------------------------------ */

/* A task's read (MV_READ) or write (MV_WRITE), move m, has arrived. */
void locus__sim_read_done(struct engine *e, uint32_t m, double now);
void locus__sim_write_done(struct engine *e, uint32_t m, double now);
/* Worker w's task has computed. */
void locus__sim_computed(struct engine *e, uint32_t w, double now);
/* The simulator's operations, as the executor calls them. */
extern const struct locus__exec_ops locus__sim_ops;

/* ---- changes.c: the platform changing, the monitor ------------------------------ */

/* When `work` seconds of speed-1 compute started at t0 on `node` end. */
double locus__sim_compute_end(const struct engine *e, uint32_t node, double t0, double work);
/* Task t's computation on worker w, in speed-1 seconds. */
double locus__sim_work_units(const struct engine *e, uint32_t t, uint32_t w);
/* The run's platform changes, checked, into segs, seg_at and others, and
 * out_binds from the nodes' bandwidths and their changes; 0 or the
 * failure's code. */
int locus__sim_setup_changes(struct engine *e);
/* A platform change (not a speed change) happens. */
void locus__sim_change(struct engine *e, const struct locus_change *c, double now);
/* Sets e->mon: what the policy sees of the run. */
void locus__sim_monitor(struct engine *e);

#endif
