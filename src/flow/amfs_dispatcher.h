/*
 * AME/AMFS: a dispatcher's state (struct amfs_dispatcher) and what its
 * three files share: amfs_dispatcher.c (locations, dispatch, asynchronous
 * gather), amfs_collectives.c (its trees) and amfs_replication.c (its
 * replicas of multicast groups' writers). Internal to those three; amfs.c
 * makes a dispatcher and hands it its events through amfs.h.
 */
#ifndef LOCUS_FLOW_AMFS_DISPATCHER_H
#define LOCUS_FLOW_AMFS_DISPATCHER_H

#include "flow/amfs.h"

/* A task at its dispatcher. */
enum { T_WAIT, T_HELD, T_SENT, T_DONE };

struct amfs_dtask {
	uint8_t st;	  /* T_* */
	uint8_t bound;	  /* it runs where a gather brought its inputs (its assignment says so) */
	uint32_t missing; /* produced inputs the dispatcher has not located */
	uint32_t mc_wait; /* multicasts it waits for */
	/* Asynchronous gathers: the node its inputs are copied to as each is
	 * produced, and how many are not there yet. */
	uint32_t target, left;
	uint32_t worker; /* where the dispatcher sent it */
	uint32_t coll;	 /* the collective that brought its inputs there */
	/* Asynchronous gathers: when the set-up of the last copy its worker
	 * started ends (IV-C: it copies its inputs one after another). */
	double setup_end;
};

/* The collective of a group a dispatcher decided not to multicast (none
 * of its tasks reads it as a multicast). */
#define NO_COLL (UINT32_MAX - 1)

struct amfs_coll {
	int kind;
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
	int chained; /* a multicast in its group's chain (struct amfs: chain) */
};

/* A dispatcher's part in writer p's chain: where it heard its parent
 * holds the group (NONE: not yet), its own node holding it (NONE: not
 * yet), the next child bit to tell. */
struct amfs_chain {
	uint32_t p, heard, entry;
	int bit;
};

struct amfs_dispatcher {
	uint32_t d;
	double now;		 /* the time of the event it handles */
	uint32_t rr;		 /* round-robin position in its workers */
	uint32_t nrr;		 /* aware=now's among its nodes */
	uint32_t left;		 /* its tasks not done */
	struct amfs_dtask *task; /* its tasks, by place (s->tplace) */
	/* Its tasks' produced inputs, sorted (and, with replicate=task, those
	 * of the other dispatchers' writers it runs replicas of), their
	 * known location and the collective (multicast, scatter or replica)
	 * it ran for them, or NONE. */
	uint32_t *obj, *loc, *coll;
	uint32_t n_obj;
	/* With replicate=task: the writers of multicast groups its tasks
	 * read (sorted), whose replicas it runs; the writers (and their
	 * nodes) the event being handled sent, whose replicas start at its
	 * end, once the table counts all it sent. */
	uint32_t *repl, n_repl;
	uint32_t *rsent;
	size_t n_rsent, rsent_cap;
	/* By its node (place) and stage: the stage's input files it knows
	 * the node holds or will (counted when it sends their writer, or
	 * copies them there: V-F3's table); smark, sgen, scount, stouch:
	 * scratch by stage. */
	uint32_t *sload, *smark, sgen, *scount, *stouch;
	uint32_t *wload; /* by its worker (place): tasks it sent there, not done */
	uint32_t *nload; /* by its node (place): the same, its workers' sum */
	uint32_t load;	 /* the same, all its workers' */
	/* Its view of where its tasks' produced inputs are now (aware=now):
	 * by input (as obj), a list of the nodes it knows hold the file or
	 * will (where it was made, the copies its collectives made, the
	 * nodes it sent a reader to, which bring it there and keep it until
	 * its last reader has read it); nbytes, nfiles, ntouch: scratch by
	 * its node (place). */
	uint32_t *held;
	struct locus__links hl;
	uint64_t *nbytes;
	uint32_t *nfiles, *ntouch;
	struct amfs_coll *colls;
	size_t n_colls, colls_cap;
	struct amfs_chain *chains; /* its parts in chains, as they come */
	size_t n_chains, chains_cap;
};

/* Task t of ds's (the caller knows it is). */
static inline struct amfs_dtask *dtask(const struct amfs *s, struct amfs_dispatcher *ds, uint32_t t)
{
	return &ds->task[s->tplace[t]];
}

/* Whether task t is one of ds's. */
static inline int mine(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t t)
{
	return s->tdisp[t] == ds->d;
}

/* Whether node n is one of ds's worker nodes. */
static inline int my_node(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t n)
{
	return n < s->nn && s->node_group[n] == ds->d;
}

uint32_t locus__amfs_dindex(const struct amfs_dispatcher *ds, uint32_t o);
uint32_t locus__amfs_dwhere(const struct amfs_dispatcher *ds, uint32_t o);
uint32_t locus__amfs_worker_on(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t n);
uint32_t locus__amfs_wload(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t w);
uint32_t locus__amfs_round_robin(struct amfs *s, struct amfs_dispatcher *ds);
void locus__amfs_learn(const struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
		       uint32_t o, uint32_t n);
uint32_t locus__amfs_choose_worker(struct amfs *s, struct amfs_dispatcher *ds, uint32_t t,
				   uint32_t hint);
uint32_t locus__amfs_fitting_worker(struct amfs *s, struct amfs_dispatcher *ds, uint32_t t,
				    uint32_t w);
void locus__amfs_send_task(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			   uint32_t t, uint32_t w, enum locus_gather gather);
void locus__amfs_transit_to(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			    uint32_t o, uint32_t n);
void locus__amfs_transit_done(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			      uint32_t o, uint32_t n);
void locus__amfs_dispatch_ready(struct amfs *s, struct amfs_dispatcher *ds,
				struct locus_actions *act, uint32_t t);

/* amfs_collectives.c */
struct amfs_coll *locus__amfs_coll_new(struct amfs *s, struct amfs_dispatcher *ds, int kind,
				       uint32_t task, uint32_t n, uint32_t n_files, uint32_t *id);
void locus__amfs_coll_free(struct amfs_coll *c);
uint32_t locus__amfs_group_read(const struct amfs *s, uint32_t t, uint32_t p);
uint32_t locus__amfs_group_size(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t p);
void locus__amfs_group_files(const struct amfs *s, struct amfs_dispatcher *ds, uint32_t id);
void locus__amfs_group_wait(const struct amfs *s, struct amfs_dispatcher *ds, uint32_t p);
void locus__amfs_coll_release(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			      uint32_t id);
void locus__amfs_coll_step(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			   uint32_t id, uint32_t child);
int locus__amfs_start_gather(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			     uint32_t t);
uint32_t locus__amfs_group_share(struct amfs *s, struct amfs_dispatcher *ds, uint32_t p,
				 uint64_t *readers, uint32_t *stage);
uint32_t locus__amfs_place_group(struct amfs *s, struct amfs_dispatcher *ds, uint32_t stage,
				 uint32_t files, uint32_t copies, uint32_t skip, uint32_t *out);
struct amfs_coll *locus__amfs_group_coll(struct amfs *s, struct amfs_dispatcher *ds, int kind,
					 uint32_t p, uint32_t stage, uint32_t group,
					 uint32_t copies, uint32_t from, uint32_t lead,
					 uint32_t *id);
int locus__amfs_start_multicast(struct amfs *s, struct amfs_dispatcher *ds,
				struct locus_actions *act, uint32_t p, uint32_t from);
uint32_t locus__amfs_chain_pos(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t p);
struct amfs_chain *locus__amfs_chain_of(struct amfs_dispatcher *ds, uint32_t p);
void locus__amfs_chain_got(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			   uint32_t p);
int locus__amfs_start_scatter(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			      uint32_t p, uint32_t from);

/* amfs_replication.c */
void locus__amfs_replica_step(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			      uint32_t id, uint32_t e, int timer);
void locus__amfs_replicate_sent(struct amfs *s, struct amfs_dispatcher *ds,
				struct locus_actions *act, uint32_t t, uint32_t node);
void locus__amfs_replicate_sent_end(struct amfs *s, struct amfs_dispatcher *ds,
				    struct locus_actions *act);
void locus__amfs_replicate_ready(struct amfs *s, struct amfs_dispatcher *ds,
				 struct locus_actions *act, uint32_t p);
uint32_t locus__amfs_replica_of(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t t);
void locus__amfs_replica_reader(struct amfs *s, struct amfs_dispatcher *ds,
				struct locus_actions *act, uint32_t t, uint32_t id);

#endif
