/*
 * The actions a policy answers with, as the engines read them. Shared by
 * the simulator, the MPI engine and the policy tests.
 */
#ifndef LOCUS_SCHED_ACTIONS_H
#define LOCUS_SCHED_ACTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "locus/policy.h"

enum locus__action_kind {
	LOCUS__ACT_SEND,     /* msg */
	LOCUS__ACT_TIMER,    /* proc, delay, tag */
	LOCUS__ACT_STOP,     /* proc (a worker) */
	LOCUS__ACT_CANCEL,   /* tag: the task */
	LOCUS__ACT_TRANSFER, /* tag: the object; from, to: nodes */
	LOCUS__ACT_REWIND,   /* tag: the task */
	LOCUS__ACT_COPY,     /* copy: pool[at .. at + n), bytes, from, to, delay, tag;
			      * a reduction step: pool[r_at .. r_at + r_n) too */
	LOCUS__ACT_DROP	     /* tag: the object; to: the node (or LOCUS_FS) */
};

struct locus__action {
	enum locus__action_kind kind;
	uint32_t proc;
	double delay;
	uint64_t tag;
	uint32_t from, to;
	struct locus_msg msg;
	/* COPY: its objects are pool[at .. at + n); bytes moved */
	size_t at;
	uint32_t n;
	uint64_t bytes;
	uint32_t task; /* COPY: the task it is for, or LOCUS_NONE */
	/* COPY made by locus_act_reduce: the objects `from` reduces are
	 * pool[r_at .. r_at + r_n); r_n 0 for a plain copy. */
	size_t r_at;
	uint32_t r_n;
	int reduce;
};

struct locus_actions {
	struct locus__action *list;
	size_t n, cap;
	uint32_t *pool; /* the objects of this event's copies */
	size_t n_pool, pool_cap;
	uint64_t entries; /* locus_act_cost total for this event */
	int oom;	  /* an append failed: the engine reports it */
};

/* Empties the list for the next event (keeps the storage). */
void locus__actions_reset(struct locus_actions *a);
void locus__actions_fini(struct locus_actions *a);

/* Action lists by nesting level: carrying out one event's actions may
 * tell a process something at once, which it handles with a list of its
 * own (the engine's depth). */
struct locus__action_stack {
	struct locus_actions **level;
	size_t n;
};
/* The list of nesting level `depth`, made when first needed; NULL when
 * out of memory. */
struct locus_actions *locus__actions_at(struct locus__action_stack *s, size_t depth);
void locus__action_stack_fini(struct locus__action_stack *s);

#endif
