/*
 * AME/AMFS (amfs.c): what its files share. Internal to the amfs files.
 */
#ifndef LOCUS_FLOW_AMFS_H
#define LOCUS_FLOW_AMFS_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/flow.h"
#include "sched/policies.h"

#define NONE UINT32_MAX

enum config { C_STAGING, C_CACHE, C_AWARE, C_COGATHER, C_ASGATHER, C_SHARED, C_AUTO };

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
	M_STOP,	    /* submitter -> worker: the workflow is done */
	M_DELLOC,   /* -> server: arg0 file, arg1 a node that lacked it */
	M_HOLD,	    /* dispatcher -> server: a gather brings arg0 to node arg1 */
	M_UNHOLD    /* dispatcher -> server: arg0 at arg1 no longer held (arg2:
		       a task sent to arg1 still reads it) */
};

/* An idle worker looks for work to steal after STEAL_WAIT seconds, then
 * waits twice as long after each round that found none, up to
 * STEAL_WAIT_MAX. */
#define STEAL_WAIT     0.05
#define STEAL_WAIT_MAX 12.8
#define STEAL_TIMER    1

/* Copy (and dispatcher timer) tags: what a LOCUS_EV_TRANSFER is about. */
enum { K_FETCH = 1, K_COLL = 2, K_ASYNC = 3, K_REPL = 4, K_RFETCH = 5 };
#define TAG(k, a, b) ((uint64_t)(k) << 56 | (uint64_t)(a) << 24 | (uint64_t)(b))
/* A = a task or a collective (32 bits), B = an entry of a collective. */
#define TAG_KIND(t) ((int)((t) >> 56))
#define TAG_A(t)    ((uint32_t)(((t) >> 24) & 0xffffffffu))
#define TAG_B(t)    ((uint32_t)((t)&0xffffffu))

/* A task at its dispatcher. */
enum { T_WAIT, T_HELD, T_SENT, T_DONE };

/* A collective run by a dispatcher; CO_REPLICA: a multicast group's
 * writer run again on other nodes (V-F5). */
enum { CO_GATHER, CO_REDUCE, CO_MULTICAST, CO_SCATTER, CO_REPLICA };

/* dcoll of a group a dispatcher decided not to multicast (none of its
 * tasks reads it as a multicast). */
#define NO_COLL (UINT32_MAX - 1)

struct coll {
	int kind;
	uint32_t disp; /* the dispatcher running it */
	uint32_t task; /* gather, reduce: the task; multicast, scatter, replica: the producer */
	uint32_t n;    /* entries (nodes), root first; a replica's: the replicas' */
	uint32_t *node, *parent, *end, *wait, *hi;
	/* Files: entry i's are files[fat[i] .. fat[i + 1]); a subtree
	 * [i, end[i]) has files[fat[i] .. fat[end[i]]). Multicast: the group,
	 * files[0 .. fat[1]). */
	uint32_t *fat, *files;
	double *partial; /* reduce: bytes each entry has reduced */
	double *ready;	 /* reduce: when each entry has reduced its own files */
	/* Copies still to end; a replica's: runs still to end, and wait[i]
	 * entry i's copies of the writer's inputs still to come. */
	uint32_t left;
	/* Multicast from outside its scope or from above its copies, scatter
	 * from above its pieces: the source sends to entry 1 alone (coll_tree). */
	int relay;
	int done;
};

struct amfs {
	const struct locus_workload *wl;
	const struct locus_graph *g;
	const struct locus_monitor *mon;
	struct locus_flow_analysis *an;
	int config, aware_bytes, keep;
	int replicate_task; /* -o replicate=task (V-F5) */
	uint32_t steal;	    /* neighbours to try (0: none, UINT32_MAX: all) */
	double file_cost, reduce_cost;
	double net_bw;	   /* the worker nodes' mean interface (auto's rule) */
	double fetch_cost; /* a worker's peer copy of one file: its set-up, seconds */
	double now;	   /* the time of the event being handled */
	uint32_t nw, nn, D;
	/* Groups: dispatcher d's worker nodes and workers; each node's
	 * workers. */
	uint32_t *node_group;
	uint32_t *gnodes, *gnodes_at, *gworkers, *gworkers_at;
	uint32_t *nworkers, *nworkers_at;
	uint32_t *rr; /* by dispatcher: round-robin position in its workers */
	/* Tasks. */
	uint32_t *tdisp;
	uint32_t *dtasks, *dtasks_at;
	uint32_t *missing; /* produced inputs its dispatcher has not located */
	uint32_t *mc_wait; /* multicasts it waits for */
	uint8_t *tst;
	uint8_t *async; /* gathers asynchronously (decided once) */
	/* Asynchronous gathers: the node the task's inputs are copied to as
	 * each is produced, and how many are not there yet. */
	uint32_t *atarget, *aleft;
	uint8_t *tfetch;    /* how its worker brings its inputs */
	uint8_t *tgm, *tom; /* the gathering and outputs it was assigned with */
	/* Dispatcher: the task runs where a gather brought its inputs (its
	 * assignment says so); worker: it was assigned so (never stolen). */
	uint8_t *tbound, *tstay;
	uint8_t *mc_out; /* the task writes a multicast file */
	/* The task reads a stored input nodes hold from the start (a
	 * catalog's chunk, not on the file system): it reads it where it is
	 * when it starts, not from a cache (its locality is the workload's). */
	uint8_t *tcat;
	/* Servers: copies gathers brought to nodes that are not the file's
	 * registered locations: (file << 32 | node) -> how many gathers still
	 * hold it there (open addressing; key 0 free, so keys are stored + 1);
	 * a file's entries are its server's. */
	uint64_t *tkeys;
	uint32_t *tcount;
	size_t tcap, tused;
	uint32_t *tworker; /* where its dispatcher sent it */
	uint32_t *tcoll;   /* the collective that brought its inputs there */
	uint32_t *cursor;  /* worker: next input to bring (F_SEQ) */
	/* Dispatcher d's produced inputs (sorted), their known location and
	 * the collective (multicast or scatter) d ran for them, or NONE. */
	uint32_t *dobj, *dobj_at, *dloc, *dcoll;
	/* By dispatcher and stage: the file groups its tasks read, counted
	 * per task (V-F's consumption: a group is the files one task wrote
	 * that a task reads; workflow inputs are none). */
	uint64_t *dgroups;
	/* By node and stage: the stage's input files the node's dispatcher
	 * knows the node holds or will (counted when it sends their writer,
	 * or copies them there: V-F3's table); smark, sgen: scratch. */
	uint32_t *sload, *smark, sgen;
	uint32_t *scount, *stouch; /* scratch by stage (group_share) */
	/* By worker: tasks its node's dispatcher sent to it, not done. */
	uint32_t *wload;
	/* With replicate=task: by dispatcher, the writers of multicast groups
	 * its tasks read (sorted), whose replicas it runs; the writers (and
	 * their nodes) the event being handled sent, whose replicas start at
	 * its end, once the table counts all it sent. */
	uint32_t *drepl, *drepl_at;
	uint32_t *rsent;
	size_t n_rsent, rsent_cap;
	uint32_t *dleft; /* by dispatcher: tasks not done */
	/* Servers: by file (each file's record at its server). */
	uint8_t *produced;
	uint32_t *consumed;
	struct link {
		uint32_t val, next;
	} * links;
	size_t n_links, links_cap;
	uint32_t free_links;
	uint32_t *loc_head, *sub_head;
	/* Workers' queues (task lists, in the order the tasks came). */
	uint32_t *qhead, *qtail, *qnext, *qlen;
	uint32_t *stole;    /* by worker: steal tries in this round */
	double *steal_wait; /* by worker: the wait before its next round */
	uint8_t *timer_set; /* by worker: a steal timer is pending */
	uint8_t *wstopped;  /* by worker: told the workflow is done */
	uint32_t finished;  /* submitter: dispatchers done */
	/* Collectives. */
	struct coll *colls;
	size_t n_colls, colls_cap;
	/* What it did. */
	uint64_t queries, collectives[5], replicas, steals, steal_tries, fetches, drops;
	uint64_t *stage_colls; /* per stage: collectives bringing its tasks inputs */
	char *reduce_copy;     /* the reduce option's stages, split in place */
	const char **reduce_names;
	uint64_t sent;
};

/* ---- processes ------------------------------------------------------------------- */

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

static inline uint32_t server_of(const struct amfs *s, uint32_t o)
{
	return (uint32_t)(((uint64_t)o * 2654435761u >> 7) % s->D);
}

static inline uint32_t node_of(const struct amfs *s, uint32_t w)
{
	return s->wl->worker_node[w];
}

/* ---- messages ------------------------------------------------------------------------ */

static inline void amfs_send(struct locus_actions *act, uint32_t from, uint32_t to, uint32_t type,
			     uint32_t bytes, int n, int64_t a0, int64_t a1)
{
	struct locus_msg m = {
	    .type = type, .from = from, .to = to, .bytes = bytes, .n_args = (uint32_t)n};
	m.arg[0] = a0;
	m.arg[1] = a1;
	locus_act_send(act, &m);
}

/* A task's description: what its worker is sent (the paper's task
 * descriptions enumerate every file: 21.3 KB for mImgtbl's 1,319). */
static inline uint32_t description(const struct amfs *s, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	return 64 + 32 * (tk->n_in + tk->n_out);
}

static inline int is_gather(const struct amfs *s, uint32_t t)
{
	return (s->an->task_patterns[t] & (LOCUS_PATTERN_GATHER | LOCUS_PATTERN_REDUCE)) != 0;
}

static inline int data_aware(const struct amfs *s)
{
	return s->config != C_STAGING && s->config != C_CACHE && s->config != C_SHARED;
}

static inline int here(const struct amfs *s, uint32_t o, uint32_t node)
{
	return locus_replicas_has(s->mon->replicas, o, node);
}

/* amfs_dispatcher.c */
uint32_t locus__amfs_dindex(const struct amfs *s, uint32_t d, uint32_t o);
uint32_t locus__amfs_dwhere(const struct amfs *s, uint32_t d, uint32_t o);
uint32_t locus__amfs_worker_on(const struct amfs *s, uint32_t d, uint32_t n);
uint32_t locus__amfs_round_robin(struct amfs *s, uint32_t d);
uint32_t locus__amfs_choose_worker(struct amfs *s, uint32_t d, uint32_t t, uint32_t hint);
void locus__amfs_send_task(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t,
			   uint32_t w, enum locus_gather gather);
void locus__amfs_transit_to(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t o,
			    uint32_t n);
void locus__amfs_transit_done(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t o,
			      uint32_t n);
void locus__amfs_dispatch_ready(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t);
void locus__amfs_dispatcher_event(struct amfs *s, uint32_t d, const struct locus_event *ev,
				  struct locus_actions *act);

/* amfs_collectives.c */
struct coll *locus__amfs_coll_new(struct amfs *s, int kind, uint32_t d, uint32_t task, uint32_t n,
				  uint32_t n_files, uint32_t *id);
uint32_t locus__amfs_group_read(const struct amfs *s, uint32_t t, uint32_t p);
void locus__amfs_coll_release(struct amfs *s, struct locus_actions *act, uint32_t id);
void locus__amfs_coll_step(struct amfs *s, struct locus_actions *act, uint32_t id, uint32_t child,
			   int ok);
int locus__amfs_start_gather(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t);
uint32_t locus__amfs_group_share(struct amfs *s, uint32_t d, uint32_t p, uint64_t *readers,
				 uint32_t *stage);
uint32_t locus__amfs_place_group(struct amfs *s, uint32_t d, uint32_t stage, uint32_t files,
				 uint32_t copies, uint32_t skip, uint32_t *out);
int locus__amfs_start_multicast(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t p,
				uint32_t from);
int locus__amfs_start_scatter(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t p,
			      uint32_t from);

/* amfs_replication.c */
void locus__amfs_replica_step(struct amfs *s, struct locus_actions *act, uint32_t id, uint32_t e,
			      int timer);
void locus__amfs_replicate_sent(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t,
				uint32_t node);
void locus__amfs_replicate_sent_end(struct amfs *s, struct locus_actions *act, uint32_t d);
void locus__amfs_replicate_ready(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t p);
uint32_t locus__amfs_replica_of(const struct amfs *s, uint32_t d, uint32_t t);
void locus__amfs_replica_reader(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t,
				uint32_t id);

/* amfs_server.c */
void locus__amfs_server_event(struct amfs *s, uint32_t m, const struct locus_event *ev,
			      struct locus_actions *act);

/* amfs_worker.c */
void locus__amfs_worker_event(struct amfs *s, uint32_t w, const struct locus_event *ev,
			      struct locus_actions *act);

/* amfs_submitter.c */
void locus__amfs_submitter_event(struct amfs *s, const struct locus_event *ev,
				 struct locus_actions *act);

/* amfs_options.c */
int locus__amfs_gathers_async(const struct amfs *s, uint32_t t);

/* amfs.c */
int locus__amfs_cmp_u32(const void *a, const void *b);

#endif
