/*
 * AME/AMFS: what the policy's files share (amfs.c tells its design and
 * maps it to the paper). One file and one state per process role:
 *
 *   amfs.c             the instance: who is who, creation, each event to
 *                      its process, statistics, the policy
 *   amfs_options.c     the -o options and the configurations
 *   amfs_submitter.c   the submitter
 *   amfs_dispatcher.c  a dispatcher: locations, dispatch, asynchronous gather
 *   amfs_collectives.c a dispatcher's trees: gather, reduce, multicast, scatter
 *   amfs_replication.c a dispatcher's replicas of a multicast group's writer
 *                      (the three share amfs_dispatcher.h: the dispatcher's state)
 *   amfs_server.c      a metadata server: its files' records, gathers' copies
 *   amfs_worker.c      a worker: its queue, bringing inputs, stealing
 *
 * The instance holds what every process knows from the start (the
 * workflow, the options, who is who: struct amfs) and a state for each
 * process it hosts, made when that process first runs here (its
 * LOCUS_EV_START, in every engine): on MPI ranks an instance hosts only
 * its rank's processes and makes only their states. A process reads its
 * own state and the instance's read-only part and writes its own state
 * and the instance's counters, never another process's state (the one
 * exception, global stealing's look at every queue, is said where it
 * is).
 *
 * Internal to the amfs files (included nowhere else): their shared
 * functions are locus__amfs_*; its types and constants are theirs alone.
 */
#ifndef LOCUS_FLOW_AMFS_H
#define LOCUS_FLOW_AMFS_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "flow/links.h"
#include "locus/flow.h"
#include "locus/policy.h"

#define NONE UINT32_MAX

/* n zeroed elements of *p's type (one at least), or NULL. */
#define ALLOC(p, n) ((p) = locus__calloc((n) ? (n) : 1, sizeof *(p)))

/* ---- options --------------------------------------------------------------------------------- */

/* The configurations (-o config=, Fig. 10). */
enum config { C_STAGING, C_CACHE, C_AWARE, C_COGATHER, C_ASGATHER, C_SHARED, C_AUTO };

/* Data-aware dispatch (-o aware=): where a task's inputs are now, weighed
 * against the nodes' loads (now); the paper's node of its first input
 * (first); the node holding most of its input bytes (bytes). */
enum aware { A_NOW, A_FIRST, A_BYTES };

struct amfs_options {
	int config;	    /* enum config */
	int aware;	    /* enum aware: how data-aware dispatch picks a node */
	int keep;	    /* keep=1: no intermediate file is deleted */
	int replicate_task; /* replicate=task (V-F5) */
	/* pipeline=1: a task whose every produced input another task writes
	 * goes with that task to its worker, which starts it when the input
	 * is made there, without a round trip through its dispatcher. */
	int pipeline;
	/* Stealing: from the workers of the nodes within `steal` hops on the
	 * 3-D torus (0: none, UINT32_MAX: the longest queue anywhere); its
	 * shape, X x Y x Z nodes (0 0 0: the most cubic of the node count). */
	uint32_t steal;
	uint32_t torus[3];
	double file_cost, reduce_cost;
	double fetch_cost; /* a worker's peer copy of one file: its set-up, seconds */
	/* The pattern thresholds and reduce stages (the analysis's); the
	 * stages' names point into reduce_copy. */
	struct locus_pattern_options patterns;
	char *reduce_copy;
	const char **reduce_names;
};

/* Reads the options from kv into *o (which it owns until
 * locus__amfs_options_fini): LOCUS_EINVAL on a bad value, LOCUS_ENOMEM. */
int locus__amfs_options_read(struct amfs_options *o, struct locus_kv *kv, struct locus_error *err);
void locus__amfs_options_fini(struct amfs_options *o);

/* Dispatch by where inputs are (aware and the gathers' configurations). */
static inline int data_aware(const struct amfs_options *o)
{
	return o->config != C_STAGING && o->config != C_CACHE && o->config != C_SHARED;
}

/* pipeline=1 acts: a task the dispatcher sends takes its pipeline's next
 * tasks with it (amfs_dispatcher.c), and the submitter deals each such
 * task to its predecessor's dispatcher (amfs.c). Not where every task
 * reads from and writes to the file system, nor with replicate=task. */
static inline int chains_on(const struct amfs_options *o)
{
	return o->pipeline && o->config != C_SHARED && o->config != C_STAGING && !o->replicate_task;
}

/* ---- messages and tags ----------------------------------------------------------------------- */

/* How a worker brings the inputs of the task at the head of its queue. */
enum fetch { F_NONE, F_SEQ, F_FS };

/* Messages (beside the engine's assignments). */
enum {
	M_TASKS = LOCUS_MSG_USER + 1, /* submitter -> dispatcher: your task list */
	M_FILES,		      /* submitter -> server: your file list */
	M_QUERY,		      /* -> server: arg0 file, arg1 the asker */
	M_LOCATED,  /* server -> asker: arg0 file, arg1 n, arg2.. nodes (0: N/A) */
	M_NOTIFY,   /* server -> subscriber: arg0 file, arg1 node */
	M_PRODUCED, /* dispatcher -> server: arg0 file, arg1 node */
	M_ADDLOC,   /* -> server: arg0 file, arg1 node */
	M_CONSUMED, /* dispatcher -> server: arg0 file a task has read */
	M_DONE,	    /* worker -> dispatcher: arg0 task, arg1 node */
	M_FINISHED, /* dispatcher -> submitter */
	M_STEAL,    /* thief -> victim: arg0 the thief */
	M_NOTHING,  /* victim -> thief */
	M_MOVED,    /* victim -> dispatcher: arg0 task, arg1 its new worker */
	M_DELLOC,   /* -> server: arg0 file, arg1 a node that lacked it */
	M_HOLD,	    /* dispatcher -> server: a gather brings arg0 to node arg1 */
	M_UNHOLD,   /* dispatcher -> server: arg0 at arg1 no longer held (arg2:
		       a task sent to arg1 still reads it) */
	M_WAKE,	    /* victim -> a thief it had nothing for: a task to spare now */
	M_GROUP_AT, /* dispatcher -> its child in a group's chain: arg0 the
		       writer, arg1 a node of the sender's holding the group */
	M_GROUP_GOT /* dispatcher -> its parent in the chain: arg0 the writer,
		       its copy from the parent's node has come */
};

/* Copy (and dispatcher timer) tags: what a LOCUS_EV_TRANSFER is about. */
enum { K_FETCH = 1, K_COLL = 2, K_ASYNC = 3, K_REPL = 4, K_RFETCH = 5 };
#define TAG(k, a, b) ((uint64_t)(k) << 56 | (uint64_t)(a) << 24 | (uint64_t)(b))
/* A = a task or one of the dispatcher's collectives (32 bits), B = an
 * entry of a collective. */
#define TAG_KIND(t) ((int)((t) >> 56))
#define TAG_A(t)    ((uint32_t)(((t) >> 24) & 0xffffffffu))
#define TAG_B(t)    ((uint32_t)((t)&0xffffffu))

/* ---- the instance: what every process knows from the start ----------------------------------- */

struct amfs_submitter;
struct amfs_dispatcher;
struct amfs_server;
struct amfs_worker;

/* A collective run by a dispatcher; CO_REPLICA: a multicast group's
 * writer run again on other nodes (V-F5). */
enum { CO_GATHER, CO_REDUCE, CO_MULTICAST, CO_SCATTER, CO_REPLICA };

/* What the processes an instance hosts did (its statistics; on MPI ranks
 * the engine sums the instances'). */
struct amfs_counts {
	uint64_t sent, queries, fetches, replicas, steals, steal_tries, drops;
	uint64_t collectives[5]; /* by kind (CO_*) */
	uint64_t *stage_colls;	 /* per stage: collectives bringing its tasks inputs */
};

struct amfs {
	const struct locus_workload *wl;
	const struct locus_graph *g;
	const struct locus_monitor *mon;
	struct locus_flow_analysis *an;
	struct amfs_options opt;
	double net_bw; /* the worker nodes' mean interface (auto's rule) */
	/* The 3-D torus the nodes are on (V-I, VI-B2a), node i at x = i mod
	 * X, y = (i / X) mod Y, z = i / (X Y). */
	uint32_t torus[3];
	uint32_t nw, nn, D, ns; /* workers, nodes, dispatchers, stages */
	/* Groups: dispatcher d's worker nodes gnodes[gnodes_at[d] ..
	 * gnodes_at[d + 1]) and workers (gworkers, likewise); each node's
	 * group (NONE: no workers) and workers; the place of each worker
	 * node and worker in its group's run. */
	uint32_t *node_group;
	uint32_t *gnodes, *gnodes_at, *gworkers, *gworkers_at;
	uint32_t *nworkers, *nworkers_at;
	uint32_t *node_place, *worker_place;
	/* Tasks: each one's dispatcher, dispatcher d's tasks in topological
	 * order (dtasks[dtasks_at[d] ..]) and each task's place there. */
	uint32_t *tdisp, *tplace;
	uint32_t *dtasks, *dtasks_at;
	uint8_t *async;	 /* gathers asynchronously (decided once: gathers_async) */
	uint8_t *mc_out; /* writes a multicast file */
	/* Multicasts across dispatchers (V-F4 at scale): the dispatchers
	 * whose tasks read writer p's group as a multicast,
	 * chain[chain_at[p] .. chain_at[p + 1]), in the order of the
	 * binomial tree over them (from p's dispatcher on, modulo D) when
	 * they are two or more and see the same files of the group; else
	 * none. The first copies the group from where it was made; each
	 * other one from its parent's node holding it (the tree's position
	 * i's parent is i with its lowest set bit cleared), so the group
	 * leaves each holder once a round, not once a dispatcher. */
	uint32_t *chain, *chain_at;
	/* Reads a stored input nodes hold from the start (a catalog's chunk,
	 * not on the file system): it reads it where it is when it starts,
	 * not from a cache (its locality is the workload's). */
	uint8_t *tcat;
	/* By dispatcher and stage: the file groups its tasks read, counted
	 * per task (V-F's consumption: a group is the files one task wrote
	 * that a task reads; workflow inputs are none). */
	uint64_t *dgroups;
	/* Files: each one's place among its server's (in file order), and
	 * how many each server has. */
	uint32_t *file_place, *server_files;
	/* The processes' states, each made when it first runs here (NULL:
	 * hosted elsewhere, or not started yet); a submitter's, a server's
	 * and a worker's are their files' alone. */
	struct amfs_submitter *submitter;
	struct amfs_dispatcher **dispatcher; /* by dispatcher */
	struct amfs_server **server;	     /* by server */
	struct amfs_worker **worker;	     /* by worker */
	/* A worker whose only event so far is its start has no state yet:
	 * it is what its start made at start_at (the first start's time;
	 * a worker starting at another time gets its state then). A bit a
	 * worker: started that way. Most workers of a large platform never
	 * see another event. */
	uint64_t *lazy;
	double start_at;
	int start_known;
	/* Global stealing: this instance's idle workers asleep after a look
	 * in vain, one woken by each task to spare. */
	uint32_t *hungry;
	uint32_t n_hungry, hungry_cap;
	struct amfs_counts count;
};

/* Process ids: workers, then the submitter, the dispatchers, the servers. */
static inline uint32_t p_submitter(const struct amfs *s)
{
	return s->nw;
}

static inline uint32_t p_disp(const struct amfs *s, uint32_t d)
{
	return s->nw + 1 + d;
}

static inline uint32_t p_server(const struct amfs *s, uint32_t m)
{
	return s->nw + 1 + s->D + m;
}

/* The metadata server of file o (the DHT). */
static inline uint32_t server_of(const struct amfs *s, uint32_t o)
{
	return (uint32_t)(((uint64_t)o * 2654435761u >> 7) % s->D);
}

static inline uint32_t node_of(const struct amfs *s, uint32_t w)
{
	return s->wl->worker_node[w];
}

/* Whether node n can hold task t (its cores, memory and disk:
 * locus_workload_fits; always, when the workflow declares none). */
static inline int node_fits(const struct amfs *s, uint32_t t, uint32_t n)
{
	return !s->g->demand || locus_workload_fits(s->wl, t, n);
}

/* Whether worker w's node can hold task t. */
static inline int fits(const struct amfs *s, uint32_t t, uint32_t w)
{
	return node_fits(s, t, node_of(s, w));
}

/* Whether task t gathers (or reduces) its inputs. */
static inline int is_gather(const struct amfs *s, uint32_t t)
{
	return (s->an->task_patterns[t] & (LOCUS_PATTERN_GATHER | LOCUS_PATTERN_REDUCE)) != 0;
}

/* A message of one or two args. */
static inline void amfs_send(struct locus_actions *act, uint32_t from, uint32_t to, uint32_t type,
			     uint32_t bytes, int n, int64_t a0, int64_t a1)
{
	struct locus_msg m = {
	    .type = type, .from = from, .to = to, .bytes = bytes, .n_args = (uint32_t)n};
	m.arg[0] = a0;
	m.arg[1] = a1;
	locus_act_send(act, &m);
}

/* The nodes within `hops` hops of node n on the torus (n left out),
 * nearest first, each once, into out (room for `room`): how many (at most
 * room). */
uint32_t locus__amfs_torus_near(const struct amfs *s, uint32_t n, uint32_t hops, uint32_t *out,
				uint32_t room);

/* Whether gather task t gathers asynchronously (amfs_options.c). */
int locus__amfs_gathers_async(const struct amfs *s, uint32_t t);

int locus__amfs_cmp_u32(const void *a, const void *b);

/* Each role's state: *_create makes process k's as it starts (NULL: out
 * of memory; the instance then ends the run, locus_act_oom), *_destroy
 * frees it (NULL is fine), *_event handles one event of the process. */

/* ---- the submitter --------------------------------------------------------------------------- */

struct amfs_submitter *locus__amfs_submitter_create(const struct amfs *s);
void locus__amfs_submitter_destroy(struct amfs_submitter *sub);
void locus__amfs_submitter_event(struct amfs *s, struct amfs_submitter *sub,
				 const struct locus_event *ev, struct locus_actions *act);

/* ---- a dispatcher ---------------------------------------------------------------------------- */

/* (Its state, and what its three files share: amfs_dispatcher.h.) */
struct amfs_dispatcher *locus__amfs_dispatcher_create(const struct amfs *s, uint32_t d);
void locus__amfs_dispatcher_destroy(struct amfs_dispatcher *ds);
void locus__amfs_dispatcher_event(struct amfs *s, struct amfs_dispatcher *ds,
				  const struct locus_event *ev, struct locus_actions *act);

/* ---- a metadata server ----------------------------------------------------------------------- */

struct amfs_server *locus__amfs_server_create(const struct amfs *s, uint32_t m);
void locus__amfs_server_destroy(struct amfs_server *sv);
void locus__amfs_server_event(struct amfs *s, struct amfs_server *sv, const struct locus_event *ev,
			      struct locus_actions *act);

/* ---- a worker -------------------------------------------------------------------------------- */

struct amfs_worker *locus__amfs_worker_create(const struct amfs *s, uint32_t w);
void locus__amfs_worker_destroy(struct amfs_worker *wk);
void locus__amfs_worker_event(struct amfs *s, struct amfs_worker *wk, uint32_t w,
			      const struct locus_event *ev, struct locus_actions *act);
/* Whether worker w's start at `now` needs a state: one that only sets
 * the state locus__amfs_worker_started gives it does not. */
int locus__amfs_worker_start_acts(const struct amfs *s);
/* What worker w's start at `now` makes of its state, without actions. */
void locus__amfs_worker_started(const struct amfs *s, struct amfs_worker *wk, double now);

#endif
