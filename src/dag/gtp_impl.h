/*
 * GTP's instance, shared by the files of the policy (internal): gtp.c
 * (the policy: creating it, carrying a schedule out, rewinding, events),
 * gtp_cost.c (the costs of a rescheduling point: Eqs. 3 to 13, the
 * booking of transfers on a shared network) and gtp_dls.c (DLS/sr's
 * mapping and spare times). docs/sim.md describes the policies.
 */
#ifndef LOCUS_DAG_GTP_IMPL_H
#define LOCUS_DAG_GTP_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "dag/gtp.h"
#include "locus/dag.h"
#include "sched/policies.h"

struct gtp {
	const struct locus_workload *wl;
	const struct locus_graph *g;
	const struct locus_monitor *mon;
	uint32_t nw, n;
	int copies;	       /* GTP/c */
	int rewind;	       /* GTP/r, GTP/c/r */
	int dls;	       /* DLS/sr: DLS mappings, rescheduling on slack */
	int on_speed, on_fail; /* reschedule on events too */
	double period;
	int finished; /* every task done: no more timers */
	/* The tasks by decreasing upward rank (ties: topological order). */
	uint32_t *order;
	/* The schedule in force: each task's worker and, per worker, its
	 * tasks in the order they were sent (a list through next). */
	uint32_t *mu, *next, *head, *tail;
	/* Scratch of a rescheduling point. */
	uint32_t *pi, *newmu, *seq, *seq_at, *fill;
	double *kc, *eft, *pa, *avail;
	uint8_t *done;
	uint8_t *handled;   /* per worker: its failure was rewound */
	uint8_t *rewound;   /* per task, at a point */
	uint8_t *level_hit; /* per DAG level: some task there was rewound */
	double planned;
	/* What it did (docs/sim.md): rescheduling points, those that changed
	 * the schedule, migrations, bytes sent again because of them. */
	uint64_t points, remaps, migrations, resent, sent;
	/* GTP/r: tasks rewound (RT) and the DAG levels they were on (RL). */
	uint64_t rt, rl;
	/* The order the last mapping took the tasks in (a topological one). */
	uint32_t *morder;
	/* DLS/sr: static levels, the planned start and finish of each task,
	 * its spare time, whether a point is asked for, and scratch. */
	double *sl, *est, *spare;
	uint8_t *mapped;
	uint32_t *ready;
	/* Per ready slot of map_dls: the task's mean cost, its data's arrival
	 * and cost on each worker (rows of nw), its best worker and level
	 * there. */
	double *rmean, *rdl, *rda, *rcost;
	uint32_t *rw, rows_cap;
	int asked;
	uint64_t triggers;
	/* A shared network (not contention-free links): transfers queue on
	 * what they cross - the source's disk and interface, the reader's
	 * interface, the racks' uplinks, the backbone - and the costing
	 * books them: each resource (numbered as in res_of) a lane of the
	 * spans it is taken, a transfer in the first gap of all its
	 * resources from when it is ready (insertion, so one booked late
	 * does not hold back one ready sooner). undo: the lanes a candidate
	 * booked, to take back. A point keeps the schedule in force unless
	 * the new one is estimated to end sooner (guard). */
	int shared, guard;
	double gain; /* the least relative gain in estimated makespan taken */
	uint32_t nn, n_racks, *rack, n_lanes;
	struct lane {
		double *at; /* start, end, rate triples */
		uint32_t n, cap;
	} * lanes;
	uint32_t *src; /* GTP/c: by object, the copy the mapping read it from */
	/* What one event computes once (what the engine reports does not
	 * change during it), each valid where its gen array holds `event`:
	 * the pairs' bandwidth (pair_bw_now: bw_at[a * nodes + b]), and under
	 * GTP/c on contention-free links when a done input o reaches node n,
	 * t staying or migrating (cm_at[(o * nodes + n) * 2 + migrates]),
	 * rather than for every task and processor. NULL: too many to keep. */
	double *bw_at, *cm_at;
	uint32_t *bw_gen, *cm_gen, event;
	uint32_t *undo;
	size_t n_undo, undo_cap;
	/* The transfers under way when a mapping starts (begun, not
	 * arrived: 0 < kappa^d < 1), booked before anything else: they flow
	 * on whatever the mapping decides, also to a node whose task it moves
	 * away (the engine does not stop them). By object, a list through
	 * fly[].next from fly_head[o] (valid where fly_gen[o] holds
	 * fly_mark) of the nodes it is reaching and when it will be there. */
	struct fly {
		double end;
		uint32_t node, next;
	} * fly;
	uint32_t *fly_head, *fly_gen, fly_mark, n_fly, fly_cap;
	int oom;
	int booking; /* map_all books transfers */
	/* The node each transfer the policy asked for comes from, by
	 * (object, node it goes to): an open-addressing table of n_sent_src
	 * entries in sent_src_cap slots (key object * nn + node + 1; 0: free).
	 * The monitor says how much of a transfer has arrived, not from
	 * where; GTP/c sends from copies, and a transfer under way from
	 * another rack than the producer's crosses other uplinks. */
	struct asked {
		uint64_t key;
		uint32_t from;
	} * sent_src;
	size_t n_sent_src, sent_src_cap;
	double est_new, est_cur; /* the estimated makespans of the last point */
	uint64_t kept;		 /* points that kept the schedule (guard) */
	/* The tests' view of the costing (gtp.h), or NULL; the length of
	 * the graph's inputs (rows of watch->input). */
	struct locus__gtp_watch *watch;
	size_t n_inputs;
};

/* The node worker w runs on. */
static inline uint32_t locus__gtp_node(const struct gtp *s, uint32_t w)
{
	return s->wl->worker_node[w];
}

/* gtp_cost.c */

/* Notes that the policy asked for object o to be sent from node `from` to
 * node `to`. 0, or LOCUS_ENOMEM. */
int locus__gtp_asked(struct gtp *s, uint32_t o, uint32_t from, uint32_t to);

/* The makespan of mapping `map` (a worker per unfinished task) played out
 * from `now` on the shared network as the engine runs it (gtp_cost.c);
 * INFINITY when a task cannot run, NAN when out of memory. */
double locus__gtp_play(struct gtp *s, double now, const uint32_t *map);

/* On a shared network: each node's rack index and the booking arrays.
 * Returns 0 or LOCUS_ENOMEM (the caller destroys s). */
int locus__gtp_shared_init(struct gtp *s);
/* What an event computes once (struct gtp's bw_at, cm_at), where it fits.
 * Returns 0 or LOCUS_ENOMEM (the caller destroys s). */
int locus__gtp_caches_init(struct gtp *s);
/* Eq. 3: the time to move `left` bytes from node a to node b at the
 * pair's bandwidth now, a transfer begun (no start-up) or not. */
double locus__gtp_comm(struct gtp *s, double left, uint32_t a, uint32_t b, int begun);
/* When the inputs of unfinished task t would be on worker w's node,
 * mapped there now (Eqs. 6 to 8 without the processor's availability). */
double locus__gtp_data_ready(struct gtp *s, uint32_t t, uint32_t w, double now);
/* Maps every unfinished task (Eqs. 5 to 11) into s->newmu and s->eft;
 * with `fixed`, only costs the schedule in force the same way. Returns
 * the estimated makespan (INFINITY when a task has no processor). */
double locus__gtp_map_all(struct gtp *s, double now, int fixed);

/* gtp_dls.c */

/* The spare time of every task in the schedule (newmu, est, eft). */
void locus__gtp_plan_spare(struct gtp *s);
/* DLS over what is left, from the state now, into newmu, est, eft and
 * morder. Returns 0 or LOCUS_ENOMEM. */
int locus__gtp_map_dls(struct gtp *s, double now);

/* Whether worker w's node can hold task t (its cores, memory and disk:
 * locus_workload_fits; always, when the graph declares none): a
 * rescheduling point maps a task only there. */
static inline int locus__gtp_holds(const struct gtp *s, uint32_t t, uint32_t w)
{
	return !s->g->demand || locus_workload_fits(s->wl, t, locus__gtp_node(s, w));
}

#endif
