/*
 * dlmpi: DL-MPI's probability based data scheduler (Algorithm 1, Eq. 3
 * and 4), run by one master as in the paper's benchmark and DL-mpiBLAST.
 *
 * For a request from a worker on node i:
 *  - the candidates are D_i, the unassigned chunks local to node i, when
 *    it is not empty (lines 8-15), else D, every unassigned chunk (lines
 *    16-23, where the sum of Eq. 4 runs over D: NOTES.md);
 *  - T_dx = min over the other nodes k holding d_x of |D_k| / s_k (Eq. 3):
 *    how soon the holder that would run d_x locally gets to it. Only
 *    participating nodes count (C, line 1: nodes running a worker);
 *  - a candidate no other participating node holds has T = infinity: it is
 *    taken first, uniformly among such candidates (NOTES.md); a chunk no
 *    node holds at all is one of those in the remote branch;
 *  - otherwise d_x is drawn with P(d_x) = T_dx / sum of T over the
 *    candidates (Eq. 4) from the instance's generator.
 *
 * s_k (line 7, NOTES.md: starts at 1, updated from the tasks node k
 * finished per unit time) is locus__mw_speed: node k's rate, its workers
 * times its finished tasks over their summed durations (read + compute),
 * relative to the mean rate of the nodes measured so far; 1 until node k
 * reports a task. The ratio keeps an unmeasured node's 1 on the same scale
 * as the measured ones; Eq. 4 does not change when every s_k is scaled by
 * one factor, so this is the paper's rule with its unit settled.
 *
 * |D_k| is kept by the driver as tasks are assigned (locus__taskset).
 * Cost: for each candidate its holder list is read: the sum over the
 * candidates of their holders (at least 1 each). That is what the paper's
 * master does and what is charged to the cost model.
 *
 * The draw itself does not read every candidate: candidates held by the
 * same other participating nodes have the same T, so each node's D_i (and
 * D) is kept in classes of such tasks, and a decision draws a class with
 * weight (its tasks) x T, then a task of it uniformly: P(d_x) = T_dx / sum
 * of T, Eq. 4, in time linear in the classes, not the candidates. (The
 * order of the draws is not the scan's, so a seed gives other choices than
 * a scan would, with the same distribution.)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "sched/mw.h"
#include "sched/policies.h"

/* A class: unassigned tasks of one scope (a node's D_i, or D) held by the
 * same set of other participating nodes (at most CLASS_HOLDERS of them; a
 * task with more is a class of its own), so they share T. */
#define CLASS_HOLDERS 4
struct dl_class {
	uint32_t nh, h[CLASS_HOLDERS]; /* the holders (nh = UINT32_MAX: see task) */
	uint32_t at, live;	       /* its slots in dl->slot_of, the first `live` live */
	uint32_t scope, apos;	       /* its scope, its place in the scope's act[] */
};

struct dlmpi {
	struct locus__mw mw; /* first: the driver's block */
	/* Classes by scope: node i's D_i at scope_at[i], D at scope_at[n_nodes];
	 * act[scope_at[s] .. scope_at[s] + n_act[s]) are those with tasks left,
	 * so a decision reads only them. */
	uint32_t *scope_at; /* n_nodes + 2 */
	uint32_t *act;	    /* classes, by scope */
	uint32_t *n_act;    /* n_nodes + 1 */
	struct dl_class *cls;
	uint32_t *slot_of; /* by class position: the membership slot there */
	/* Memberships: task t is in the classes of slots mem_at[t] .. mem_at[t+1]. */
	uint32_t *mem_at;	 /* n_tasks + 1 */
	uint32_t *mem_cls;	 /* by slot: its class */
	uint32_t *mem_pos;	 /* by slot: its position in slot_of */
	uint32_t *mem_task;	 /* by slot: its task */
	uint64_t *scope_entries; /* n_nodes + 1: the scan's cost of each scope now */
	double *T;		 /* scratch: each class's T, by class */
	/* Counters. */
	uint64_t local_branch, remote_branch, infinite_picks;
};

/* Eq. 3 for class c: min over its holders k of |D_k| / s_k. */
static double class_T(const struct dlmpi *dl, const struct dl_class *c)
{
	const struct locus__mw *mw = &dl->mw;
	double best = INFINITY;
	if (c->nh == UINT32_MAX) {
		/* A task of many holders, a class of its own: read them from
		 * the workload; h[0] is the node its scope excludes. */
		uint32_t t = dl->mem_task[dl->slot_of[c->at]];
		const struct locus_task *tk = &mw->wl->tasks[t];
		for (uint32_t j = 0; j < tk->n_holders; j++) {
			uint32_t k = mw->wl->holders[tk->holders_at + j];
			if (mw->node_workers[k] == 0 || k == c->h[0])
				continue;
			double v = mw->ts.node_left[k] / locus__mw_speed(mw, k);
			if (v < best)
				best = v;
		}
		return best;
	}
	for (uint32_t j = 0; j < c->nh; j++) {
		double v = mw->ts.node_left[c->h[j]] / locus__mw_speed(mw, c->h[j]);
		if (v < best)
			best = v;
	}
	return best;
}

/* Removes task t from every class it is in (it was assigned). */
static void remove_task(struct dlmpi *dl, uint32_t t)
{
	const struct locus_task *tk = &dl->mw.wl->tasks[t];
	uint64_t cost = tk->n_holders ? tk->n_holders : 1;
	for (uint32_t m = dl->mem_at[t]; m < dl->mem_at[t + 1]; m++) {
		struct dl_class *c = &dl->cls[dl->mem_cls[m]];
		uint32_t p = dl->mem_pos[m], last = c->at + c->live - 1;
		uint32_t moved = dl->slot_of[last];
		dl->slot_of[p] = moved;
		dl->mem_pos[moved] = p;
		dl->slot_of[last] = m;
		dl->mem_pos[m] = last;
		if (--c->live == 0) {
			uint32_t base = dl->scope_at[c->scope];
			uint32_t end = base + --dl->n_act[c->scope];
			uint32_t other = dl->act[end];
			dl->act[c->apos] = other;
			dl->cls[other].apos = c->apos;
			dl->act[end] = (uint32_t)(c - dl->cls);
			c->apos = end;
		}
	}
	/* The scopes t was a candidate of: each participating holder's D_i,
	 * and D. */
	const struct locus__mw *mw = &dl->mw;
	for (uint32_t j = 0; j < tk->n_holders; j++) {
		uint32_t k = mw->wl->holders[tk->holders_at + j];
		if (mw->node_workers[k])
			dl->scope_entries[k] -= cost;
	}
	dl->scope_entries[mw->n_nodes] -= cost;
}

static void dlmpi_choose(struct locus__mw *mw, uint32_t worker, const struct locus__mw_req *req,
			 double now, struct locus__mw_choice *out)
{
	struct dlmpi *dl = (struct dlmpi *)mw;
	const struct locus__taskset *ts = &mw->ts;
	uint32_t i = mw->wl->worker_node[worker];
	uint32_t scope = i;

	if (ts->node_left[i] > 0) {
		dl->local_branch++;
	} else {
		dl->remote_branch++;
		scope = (uint32_t)mw->n_nodes;
	}
	out->verdict = LOCUS__MW_ASSIGN;
	out->entries = dl->scope_entries[scope];
	/* T of every class with tasks left; the infinite ones first. */
	uint64_t n_inf = 0;
	double sum = 0;
	uint32_t a0 = dl->scope_at[scope], a1 = a0 + dl->n_act[scope];
	for (uint32_t a = a0; a < a1; a++) {
		uint32_t c = dl->act[a];
		double T = class_T(dl, &dl->cls[c]);
		dl->T[c] = T;
		if (isinf(T))
			n_inf += dl->cls[c].live;
		else
			sum += T * dl->cls[c].live;
	}
	uint32_t pick = LOCUS__NIL;
	if (!n_inf && !(sum > 0)) {
		/* Every other holder has nothing left (T = 0 for all): Eq. 4
		 * is 0 / 0; every candidate alike. */
		uint64_t total = 0;
		for (uint32_t a = a0; a < a1; a++)
			total += dl->cls[dl->act[a]].live;
		uint64_t x = locus_rng_below(&mw->rng, total);
		for (uint32_t a = a0; a < a1 && pick == LOCUS__NIL; a++) {
			uint32_t c = dl->act[a];
			const struct dl_class *k = &dl->cls[c];
			if (x < k->live)
				pick = dl->mem_task[dl->slot_of[k->at + (uint32_t)x]];
			else
				x -= k->live;
		}
	} else if (n_inf) {
		dl->infinite_picks++;
		uint64_t x = locus_rng_below(&mw->rng, n_inf);
		for (uint32_t a = a0; a < a1 && pick == LOCUS__NIL; a++) {
			uint32_t c = dl->act[a];
			const struct dl_class *k = &dl->cls[c];
			if (!isinf(dl->T[c]))
				continue;
			if (x < k->live)
				pick = dl->mem_task[dl->slot_of[k->at + (uint32_t)x]];
			else
				x -= k->live;
		}
	} else {
		/* Inverse transform over the classes' (tasks x T), then the
		 * position inside the class; the last class takes what rounding
		 * leaves at the top. */
		double u = locus_rng_uniform(&mw->rng) * sum, acc = 0;
		uint32_t last = LOCUS__NIL;
		for (uint32_t a = a0; a < a1 && pick == LOCUS__NIL; a++) {
			uint32_t c = dl->act[a];
			const struct dl_class *k = &dl->cls[c];
			last = c;
			double w = dl->T[c] * k->live;
			if (u < acc + w) {
				double j = dl->T[c] > 0 ? floor((u - acc) / dl->T[c]) : 0;
				uint32_t pos = j >= k->live ? k->live - 1 : (uint32_t)j;
				pick = dl->mem_task[dl->slot_of[k->at + pos]];
			}
			acc += w;
		}
		if (pick == LOCUS__NIL) {
			const struct dl_class *k = &dl->cls[last];
			pick = dl->mem_task[dl->slot_of[k->at + k->live - 1]];
		}
	}
	/* The driver gives it, or another in its place where it does not
	 * fit (dlmpi_take). */
	out->task = pick;
}

/* The driver gave task t to a worker. */
static void dlmpi_take(struct locus__mw *mw, uint32_t t)
{
	remove_task((struct dlmpi *)mw, t);
}

static void dlmpi_stats(struct locus__mw *mw, struct locus_policy_stats *out)
{
	struct dlmpi *dl = (struct dlmpi *)mw;

	locus__mw_counter(out, "local_branch", dl->local_branch);
	locus__mw_counter(out, "remote_branch", dl->remote_branch);
	locus__mw_counter(out, "infinite_picks", dl->infinite_picks);
}

static void dlmpi_fini(struct locus__mw *mw)
{
	struct dlmpi *dl = (struct dlmpi *)mw;

	free(dl->scope_at);
	free(dl->act);
	free(dl->n_act);
	free(dl->cls);
	free(dl->slot_of);
	free(dl->mem_at);
	free(dl->mem_cls);
	free(dl->mem_pos);
	free(dl->mem_task);
	free(dl->scope_entries);
	free(dl->T);
}

/* A membership's sort key: scope, the other participating holders
 * (sorted), then the task. */
struct mkey {
	uint32_t scope, nh, h[CLASS_HOLDERS], task;
};

static int mkey_set_cmp(const struct mkey *x, const struct mkey *y)
{
	if (x->scope != y->scope)
		return x->scope < y->scope ? -1 : 1;
	if (x->nh != y->nh)
		return x->nh < y->nh ? -1 : 1;
	if (x->nh == UINT32_MAX)
		return x->task < y->task ? -1 : x->task > y->task;
	for (uint32_t j = 0; j < x->nh; j++)
		if (x->h[j] != y->h[j])
			return x->h[j] < y->h[j] ? -1 : 1;
	return 0;
}

static int mkey_cmp(const void *a, const void *b)
{
	const struct mkey *x = a, *y = b;
	int c = mkey_set_cmp(x, y);
	return c ? c : (x->task < y->task ? -1 : x->task > y->task);
}

/* The key of task t in `scope` (a node, or n_nodes for D). */
static void make_key(const struct locus__mw *mw, uint32_t t, uint32_t scope, struct mkey *k)
{
	const struct locus_task *tk = &mw->wl->tasks[t];
	k->scope = scope;
	k->task = t;
	k->nh = 0;
	for (uint32_t j = 0; j < tk->n_holders; j++) {
		uint32_t node = mw->wl->holders[tk->holders_at + j];
		if (node == scope || mw->node_workers[node] == 0)
			continue;
		if (k->nh == CLASS_HOLDERS) {
			k->nh = UINT32_MAX;
			/* The excluded node, for class_T. */
			k->h[0] = scope;
			return;
		}
		uint32_t p = k->nh++;
		while (p > 0 && k->h[p - 1] > node) {
			k->h[p] = k->h[p - 1];
			p--;
		}
		k->h[p] = node;
	}
}

/* Builds the classes of every participating node's D_i and of D. */
static int build_classes(struct dlmpi *dl)
{
	struct locus__mw *mw = &dl->mw;
	const struct locus_workload *wl = mw->wl;
	size_t f = wl->n_tasks, nn = mw->n_nodes;
	dl->mem_at = locus__calloc(f + 1, sizeof *dl->mem_at);
	dl->scope_at = locus__calloc(nn + 2, sizeof *dl->scope_at);
	dl->scope_entries = locus__calloc(nn + 1, sizeof *dl->scope_entries);
	if (!dl->mem_at || !dl->scope_at || !dl->scope_entries)
		return LOCUS_ENOMEM;
	size_t slots = 0;
	for (size_t t = 0; t < f; t++) {
		const struct locus_task *tk = &wl->tasks[t];
		dl->mem_at[t] = (uint32_t)slots;
		slots++; /* D */
		for (uint32_t j = 0; j < tk->n_holders; j++)
			if (mw->node_workers[wl->holders[tk->holders_at + j]])
				slots++;
	}
	dl->mem_at[f] = (uint32_t)slots;
	struct mkey *key = locus__calloc(slots ? slots : 1, sizeof *key);
	dl->mem_cls = locus__calloc(slots ? slots : 1, sizeof *dl->mem_cls);
	dl->mem_pos = locus__calloc(slots ? slots : 1, sizeof *dl->mem_pos);
	dl->mem_task = locus__calloc(slots ? slots : 1, sizeof *dl->mem_task);
	dl->slot_of = locus__calloc(slots ? slots : 1, sizeof *dl->slot_of);
	if (!key || !dl->mem_cls || !dl->mem_pos || !dl->mem_task || !dl->slot_of) {
		free(key);
		return LOCUS_ENOMEM;
	}
	size_t x = 0;
	for (uint32_t t = 0; t < f; t++) {
		const struct locus_task *tk = &wl->tasks[t];
		uint64_t cost = tk->n_holders ? tk->n_holders : 1;
		make_key(mw, t, (uint32_t)nn, &key[x++]);
		dl->scope_entries[nn] += cost;
		for (uint32_t j = 0; j < tk->n_holders; j++) {
			uint32_t node = wl->holders[tk->holders_at + j];
			if (!mw->node_workers[node])
				continue;
			make_key(mw, t, node, &key[x++]);
			dl->scope_entries[node] += cost;
		}
	}
	qsort(key, slots, sizeof *key, mkey_cmp);
	/* The slots of a task, in the order its keys were made: fill them as
	 * the sorted keys come, by task. */
	uint32_t *fill = locus__calloc(f ? f : 1, sizeof *fill);
	if (!fill) {
		free(key);
		return LOCUS_ENOMEM;
	}
	/* The classes are the runs of equal keys: count them first, so that
	 * only as many are allocated. */
	size_t n_cls = 0;
	for (size_t p = 0; p < slots; p++)
		if (p == 0 || mkey_set_cmp(&key[p - 1], &key[p]) != 0)
			n_cls++;
	dl->cls = locus__calloc(n_cls ? n_cls : 1, sizeof *dl->cls);
	dl->T = locus__calloc(n_cls ? n_cls : 1, sizeof *dl->T);
	if (!dl->cls || !dl->T) {
		free(fill);
		free(key);
		return LOCUS_ENOMEM;
	}
	uint32_t nc = 0, next_scope = 0;
	for (size_t p = 0; p < slots; p++) {
		if (p == 0 || mkey_set_cmp(&key[p - 1], &key[p]) != 0) {
			while (next_scope <= key[p].scope)
				dl->scope_at[next_scope++] = nc;
			struct dl_class *c = &dl->cls[nc++];
			c->scope = key[p].scope;
			c->nh = key[p].nh;
			memcpy(c->h, key[p].h, sizeof c->h);
			c->at = (uint32_t)p;
		}
		uint32_t t = key[p].task, m = dl->mem_at[t] + fill[t]++;
		dl->mem_cls[m] = nc - 1;
		dl->mem_pos[m] = (uint32_t)p;
		dl->mem_task[m] = t;
		dl->slot_of[p] = m;
		dl->cls[nc - 1].live++;
	}
	while (next_scope <= nn + 1)
		dl->scope_at[next_scope++] = nc;
	dl->act = locus__calloc(nc ? nc : 1, sizeof *dl->act);
	dl->n_act = locus__calloc(nn + 1, sizeof *dl->n_act);
	if (!dl->act || !dl->n_act) {
		free(fill);
		free(key);
		return LOCUS_ENOMEM;
	}
	for (uint32_t c = 0; c < nc; c++) {
		dl->act[c] = c;
		dl->cls[c].apos = c;
	}
	for (size_t sc = 0; sc <= nn; sc++)
		dl->n_act[sc] = dl->scope_at[sc + 1] - dl->scope_at[sc];
	free(fill);
	free(key);
	return 0;
}

static const struct locus__mw_ops dlmpi_ops = {
    .choose = dlmpi_choose,
    .take = dlmpi_take,
    .stats = dlmpi_stats,
    .fini = dlmpi_fini,
};

static int dlmpi_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	int rc = locus__mw_create(state, sizeof(struct dlmpi), ctx, &dlmpi_ops, "dlmpi", NULL, err);
	if (rc)
		return rc;
	struct dlmpi *dl = *state;
	if (build_classes(dl)) {
		locus__mw_destroy(dl);
		*state = NULL;
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	return 0;
}

const struct locus_policy locus__policy_dlmpi = {
    .version = LOCUS_POLICY_VERSION,
    .name = "dlmpi",
    .summary = "one master draws a local chunk with DL-MPI's probability "
	       "(Algorithm 1), weighing other holders' remaining local work",
    .schedulers = locus__mw_schedulers,
    .create = dlmpi_create,
    .destroy = locus__mw_destroy,
    .on_event = locus__mw_on_event,
    .stats = locus__mw_stats,
};
