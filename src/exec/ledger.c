/*
 * A node's resources, as the executors count them (exec.h, struct
 * locus__ledger; docs/flow.md, "Resources"): cores, memory and disk free
 * now, and the workers whose ready task waits for room, first come first.
 *
 * A worker may start its task when the task's demand fits what is free
 * less what the workers ahead of it in the wait list wait for: a large
 * task is never passed over for ever by small ones, and a small one
 * still starts beside it when room is left over. The ledger is plain
 * memory: the simulator keeps one a node, the MPI runtime one a node in
 * memory that node's ranks share, guarded by the spin lock in it (held
 * for a few instructions, never across a system call).
 */
#include <string.h>

#include "exec/exec.h"

size_t locus__ledger_size(size_t workers)
{
	return sizeof(struct locus__ledger) + workers * sizeof(struct locus__lwait);
}

void locus__ledger_init(struct locus__ledger *l, const struct locus_node *nd)
{
	l->lock = 0;
	l->n_wait = 0;
	l->cores = nd->cores > 0 ? (uint64_t)nd->cores : 0;
	l->memory = nd->memory > 0 ? (uint64_t)nd->memory : LOCUS__LEDGER_ANY;
	l->disk = nd->storage > 0 ? (uint64_t)nd->storage : LOCUS__LEDGER_ANY;
}

int locus__demands(const struct locus_graph *g)
{
	for (size_t t = 0; g->demand && t < g->n_tasks; t++) {
		const struct locus_demand *d = &g->demand[t];
		if (d->cores != 1 || d->memory || d->disk)
			return 1;
	}
	return 0;
}

static void lock(struct locus__ledger *l)
{
	while (__atomic_exchange_n(&l->lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->lock, __ATOMIC_RELAXED))
			;
}

static void unlock(struct locus__ledger *l)
{
	__atomic_store_n(&l->lock, 0, __ATOMIC_RELEASE);
}

/* Where worker w is in the wait list, or n_wait. */
static uint32_t position(const struct locus__ledger *l, uint32_t w)
{
	uint32_t i = 0;
	while (i < l->n_wait && l->wait[i].worker != w)
		i++;
	return i;
}

static void drop(struct locus__ledger *l, uint32_t i)
{
	if (i < l->n_wait) {
		memmove(&l->wait[i], &l->wait[i + 1], (l->n_wait - i - 1) * sizeof *l->wait);
		l->n_wait--;
	}
}

/* Whether `want` more fits in `free` after `ahead` (no limit: always). */
static int room(uint64_t free, double ahead, uint64_t want)
{
	return free >= LOCUS__LEDGER_ANY / 2 || (double)want + ahead <= (double)free;
}

int locus__ledger_take(struct locus__ledger *l, uint32_t w, const struct locus_demand *d)
{
	lock(l);
	uint32_t at = position(l, w);
	double c = 0, m = 0, k = 0;
	for (uint32_t i = 0; i < at; i++) {
		c += l->wait[i].cores;
		m += (double)l->wait[i].memory;
		k += (double)l->wait[i].disk;
	}
	int ok = room(l->cores, c, d->cores) && room(l->memory, m, d->memory) &&
		 room(l->disk, k, d->disk);
	if (ok) {
		l->cores -= d->cores;
		l->memory -= l->memory < LOCUS__LEDGER_ANY / 2 ? d->memory : 0;
		l->disk -= l->disk < LOCUS__LEDGER_ANY / 2 ? d->disk : 0;
		drop(l, at);
	} else {
		/* Its place, kept; its demand, as its head's now. */
		l->wait[at] = (struct locus__lwait){w, d->cores, d->memory, d->disk};
		l->n_wait += at == l->n_wait;
	}
	unlock(l);
	return ok;
}

void locus__ledger_give(struct locus__ledger *l, const struct locus_demand *d)
{
	lock(l);
	l->cores += d->cores;
	l->memory += l->memory < LOCUS__LEDGER_ANY / 2 ? d->memory : 0;
	l->disk += l->disk < LOCUS__LEDGER_ANY / 2 ? d->disk : 0;
	unlock(l);
}

void locus__ledger_withdraw(struct locus__ledger *l, uint32_t w)
{
	lock(l);
	drop(l, position(l, w));
	unlock(l);
}

void locus__ledger_room(struct locus__ledger *l, struct locus_demand *free)
{
	lock(l);
	free->cores = (uint32_t)l->cores;
	free->memory = l->memory >= LOCUS__LEDGER_ANY / 2 ? UINT64_MAX : l->memory;
	free->disk = l->disk >= LOCUS__LEDGER_ANY / 2 ? UINT64_MAX : l->disk;
	unlock(l);
}

size_t locus__ledger_waiting(struct locus__ledger *l, uint32_t *out)
{
	lock(l);
	size_t n = l->n_wait;
	for (size_t i = 0; i < n; i++)
		out[i] = l->wait[i].worker;
	unlock(l);
	return n;
}
