/*
 * scal: ScalScheduling (papers/scalscheduling.txt, with papers/NOTES.md),
 * the distributed scheduler: no master holds the locality metadata; each
 * worker orders its own local tasks and asks the scheduler that owns a task
 * for permission to run it, and several schedulers share the tasks.
 *
 * Processes: workers 0 .. n-1 (the paper's i = w + 1), schedulers n ..
 * n+m-1 (scheduler k is process n + k); one scheduler per 512 workers by
 * default, as the paper found best (--schedulers sets m).
 *
 * Ownership: scheduler k owns a contiguous block of task ids, the tasks t
 * with floor(t m / f) = k (option own=block, the default), or the tasks
 * with t mod m = k (own=cyclic); the paper only says "subsets based on the
 * task IDs" (NOTES.md). docs/results/scalscheduling.md measures both.
 *
 * Worker i (Algorithm 1). At start it takes its local tasks T_i (chunks on
 * its node) and orders them by the modulo-based priority of Eq. 1, with
 * z = t + 1 and b = ceil(f / n) (NOTES.md: Algorithm 1 line 7's ceil(z/n)
 * is a typo), highest first:
 *
 *   x = ceil(z / n), y = (z - 1) % n + 1,
 *   prio(z) = b ((y + n - i) % n) + (x + b - i % m) mod b
 *
 * where the last "mod" is taken non-negative (x + b - i % m goes below 0
 * only when m > b + 1; C's % would then give a negative remainder). Then:
 *  - local mode, while it has unsent local tasks: z is its unsent task of
 *    highest priority and k the scheduler owning it; it sends k up to tau
 *    candidates (option tau, default 2): z and its next unsent tasks owned
 *    by k, by priority (Table I: ID ID, or ID NULL when k owns one). Each
 *    task is sent at most once by a worker. When every local task has been
 *    sent but a scheduler may still keep some of them for it, it sends that
 *    scheduler a request of NULLs (Table I: NULL NULL);
 *  - remote mode, when it has neither: it sends a remote request (Table
 *    II: nu) to scheduler k drawn with probability n_k / sum n_q, n_q being
 *    what scheduler q last reported as its count of unassigned tasks (the
 *    initial counts until then); it stops once every n_q it knows is 0.
 *
 * Scheduler k (Algorithm 2) keeps U_k, its unassigned tasks, and a
 * kept-list K_ki per worker: the candidates worker i sent that were not
 * approved and are still unassigned. A task leaves every kept-list when it
 * is assigned to anyone. To a local request from i:
 *  - if K_ki is not empty, it assigns the oldest task of K_ki (tag ID);
 *  - else it approves the first candidate still unassigned: tag alpha (the
 *    first approved, another kept), beta (the first approved, the others
 *    done), gamma (a later one approved, those before it done), or chi
 *    (none approved: all done, or the request was NULLs);
 *  - unassigned candidates it did not approve go into K_ki;
 *  - a reply to a request of NULLs that finds K_ki empty carries n_k
 *    (Algorithm 2 lines 9-10).
 * To a remote request it assigns a random task of its longest kept-list;
 * when every kept-list is empty but it still owns unassigned tasks, the one
 * whose holders have the most of its unassigned tasks each (per worker of
 * the holder; the holder that would get to it soonest counts; NOTES.md asks
 * to choose and document); and it answers NULL with n_k = 0 when it owns
 * nothing unassigned. Every remote reply carries n_k.
 *
 * For tau = 2 the tags are exactly Table I's; for more candidates gamma
 * stands for "a later one approved". Replies say which candidate was
 * approved and which were kept, so a worker knows how many of its tasks a
 * scheduler may keep for it (an upper bound: a kept task may go to someone
 * else, and the NULL request that finds K_ki empty says so).
 *
 * Every random choice comes from a generator of the process that makes it,
 * seeded from the run's seed and the process id, so a process's decisions
 * depend only on what it saw: the simulator and the MPI engine draw alike.
 *
 * Cost (entries examined, charged by the engine): a worker's start reads
 * its local tasks; a worker's request reads the head of each scheduler's
 * group of its tasks; a scheduler's local answer reads the candidates and
 * the kept-list's head; a remote answer walks to the task drawn from the
 * kept-list, or reads every unassigned task it owns when it falls back.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/rng.h"
#include "sched/actions.h"
#include "sched/policies.h"
#include "sched/scal.h"

#define NIL	    UINT32_MAX
#define TAU_MAX	    6
#define PER_SCHED   512
#define SEED_WORKER 0x77a1f00dull
#define SEED_SCHED  0x5c4ed0e5ull

/* Messages (Tables I and II), beside LOCUS_MSG_ASSIGN. */
enum {
	SCAL_LOCAL = LOCUS_MSG_USER + 8, /* worker -> k: arg[0..tau) candidates, -1 NULL */
	SCAL_REMOTE,			 /* worker -> k: nu */
	SCAL_NOTASK			 /* k -> worker: no task; arg[0] tag, arg[1] n_k or -1 */
};

/* Reply tags. An assignment is LOCUS_MSG_ASSIGN with arg[0] the task,
 * arg[1] -1 (any holder), arg[2] the tag, arg[3] the approved candidate's
 * index (-1: none), arg[4] a bit per candidate kept, arg[5] n_k or -1. */
enum scal_tag {
	TAG_ID = 1, /* a task from the worker's kept-list */
	TAG_ALPHA,  /* candidate 0 approved, another kept */
	TAG_BETA,   /* candidate 0 approved, the others done */
	TAG_GAMMA,  /* a later candidate approved, those before it done */
	TAG_CHI,    /* nothing approved; nothing kept */
	TAG_REMOTE, /* a remote task */
	TAG_NULL    /* remote: nothing left here */
};

enum { OWN_BLOCK, OWN_CYCLIC };
static const char *const own_names[] = {"block", "cyclic", NULL};

/* A kept-list entry: task t kept by scheduler k for worker w. */
struct kent {
	uint32_t task, worker;
	uint32_t prev, next; /* in the (k, w) list */
	uint32_t tnext;	     /* next entry of the same task */
};

enum worker_state { W_LOCAL, W_REMOTE, W_WAITING, W_STOPPED };

/* A worker's place in one group of its node's list: the entry of its next
 * task in nd_task, the tasks of this block it has still to send (that one
 * included), the block it is in and the blocks it has left behind (NIL:
 * the group is spent). A request reads its next task straight from `at`
 * (one read after the cursor's, where the block's start and the task were
 * two more, one after the other); 16 bytes, four to a cache line. */
struct gcur {
	uint32_t at, left, blk, done;
};

struct scal {
	const struct locus_workload *wl;
	uint32_t n, m, f; /* workers, schedulers, tasks */
	uint32_t b;	  /* Eq. 1's b: ceil(f / n) */
	int own;
	unsigned tau;  /* candidates per local request (the first, when adaptive) */
	int adaptive;  /* tau_adapt=1: each worker adapts its tau */
	int tell_nk;   /* nk=all: every reply carries n_k */
	uint8_t *wtau; /* n: a worker's tau now */
	uint64_t seed;
	/* Workers. */
	/*
	 * A worker's local tasks by owner, then by priority, highest first.
	 * Eq. 1 is P = b A + R, A = (y - i) mod n and R = (x - (i mod m)) mod
	 * b (locus__scal_priority; R < b), so every worker of a node orders the
	 * node's tasks alike up to where it starts: the node keeps them once,
	 * by owner, then y mod n and then x mod b descending, in blocks of one
	 * owner and one y; worker i takes a group's blocks from the first
	 * whose y mod n is at most i - 1, round to the one before it, and
	 * each block likewise from its first x mod b at most (i mod m) - 1
	 * (grp_first, grp_enter). 16 workers a node kept 16 copies (126 MB at
	 * 2,048 x 16).
	 */
	uint32_t *nd_at;   /* nn + 1: each node's tasks in nd_task */
	uint32_t *nd_task; /* the nodes' tasks, in that order */
	uint32_t *nd_grp;  /* nn (m + 1): group k of node v, in blocks */
	uint32_t *blk_at;  /* blocks + 1: each block's tasks in nd_task */
	/* n m: the worker's cursor in each group (struct gcur: a request
	 * reads it, then its next task). */
	struct gcur *gc;
	uint32_t *ghead; /* n m: priority + 1 of the next; 0: the group is spent */
	/* n: the worker's best group as its last request left its heads
	 * (NIL: to be found), its cursor asked for then, so that the next
	 * request finds it in the cache (most replies come within a few
	 * dozen events: 96 % are refusals). */
	uint32_t *nbk;
	uint32_t *kept;	     /* n m: tasks k may keep for w (upper bound) */
	uint32_t *kept_sum;  /* n */
	uint32_t *nk;	     /* n m: n_k as w last heard it */
	uint64_t *nk_sum;    /* n */
	uint8_t *wstate;     /* n */
	uint8_t *ncand;	     /* n: candidates of the outstanding request */
	uint32_t *asked;     /* n: scheduler of the outstanding request */
	uint8_t *asked_null; /* n: the outstanding request was NULLs */
	struct locus_rng *wrng;
	/* Schedulers. */
	uint64_t *assigned;  /* f bits (40 KB at 327,680 tasks: a request reads one) */
	uint32_t *own_pos;   /* f: position in its scheduler's own list */
	uint32_t *own_at;    /* m + 1 */
	uint32_t *own_list;  /* f: each scheduler's unassigned tasks, compact */
	uint32_t *own_left;  /* m: n_k */
	uint32_t *node_left; /* m x nodes: unassigned tasks of k local to a node */
	uint32_t *node_wk;   /* nodes: workers on each node */
	uint32_t *thead;     /* f: first kept entry of a task */
	/* The fallback's classes: each scheduler's tasks grouped by the set of
	 * participating nodes holding them (all of a class score alike), each
	 * class's tasks in id order, its head the first not yet assigned. */
	uint32_t *cls_at;      /* m + 1: each scheduler's classes */
	uint32_t *cls_tasks;   /* f: the classes' tasks, class after class */
	uint32_t *cls_start;   /* classes + 1: a class's tasks in cls_tasks */
	uint32_t *cls_head;    /* classes: its first task maybe unassigned */
	uint32_t *cls_live;    /* classes: its unassigned tasks */
	uint32_t *cls_of;      /* f: a task's class */
	uint64_t *own_entries; /* m: sum over k's unassigned tasks of max(1, holders) */
	struct kent *kpool;
	size_t kcap, kused;
	uint32_t kfree;
	uint32_t *khead; /* m n: oldest entry of K_kw */
	/* m rows of n bits: bit w of row k is set while K_kw holds something
	 * (a request's look, 256 KB at 64 x 32,768 where khead is 8 MB). */
	uint64_t *kbits;
	size_t kwords;	   /* words a row */
	uint32_t *ktail;   /* m n */
	uint32_t *ksize;   /* m n */
	uint32_t **bucket; /* m: bucket[k][s] = first worker whose K_kw has s entries */
	uint32_t *bcap;	   /* m: sizes the buckets have room for */
	uint32_t *bprev;   /* m n: in the bucket of its size */
	uint32_t *bnext;   /* m n */
	uint32_t *bmax;	   /* m: largest size with a worker */
	struct locus_rng *srng;
	/* Counters. */
	uint64_t local_requests, local_approved, kept_answers, null_requests;
	uint64_t remote_requests, remote_kept, remote_owned, entries, local, remote;
};

/* Charges `n` metadata entries to the process handling the event. */
static void cost(struct scal *s, struct locus_actions *act, uint64_t n)
{
	s->entries += n;
	locus_act_cost(act, n);
}

/* Whether worker w's node can hold task t (locus_workload_fits; always,
 * when the workflow declares no demands). */
static int fits_node(const struct scal *s, uint32_t t, uint32_t node)
{
	return !s->wl->graph->demand || locus_workload_fits(s->wl, t, node);
}

static int fits(const struct scal *s, uint32_t t, uint32_t w)
{
	return fits_node(s, t, s->wl->worker_node[w]);
}

static int is_assigned(const struct scal *s, uint32_t t)
{
	return s->assigned[t / 64] >> t % 64 & 1;
}

static uint32_t owner(const struct scal *s, uint32_t t)
{
	return s->own == OWN_CYCLIC ? t % s->m : (uint32_t)((uint64_t)t * s->m / s->f);
}

uint64_t locus__scal_priority(uint64_t n, uint64_t f, uint64_t m, uint64_t z, uint64_t i)
{
	/* z in 1 .. f and i in 1 .. n: x = ceil(z / n) and y = (z - 1) mod n
	 * + 1 come of one division, (y - i) mod n of none (a worker's next
	 * task costs this once a request). */
	uint64_t q = (z - 1) / n, y = z - q * n, x = q + 1, b = (f + n - 1) / n;
	uint64_t a = y >= i ? y - i : y + n - i, r = x + b - i % m % b;
	while (r >= b) /* x + b - (i mod m mod b) is in 2 .. 2 b */
		r -= b;
	return b * a + r;
}

/* ---- kept-lists and their size buckets ---------------------------------- */

static size_t kw(const struct scal *s, uint32_t k, uint32_t w)
{
	return (size_t)k * s->n + w;
}

static int bucket_room(struct scal *s, uint32_t k, uint32_t size)
{
	if (size < s->bcap[k])
		return 0;
	uint32_t cap = s->bcap[k] ? s->bcap[k] : 8;
	while (cap <= size)
		cap *= 2;
	uint32_t *b = locus__reallocarray(s->bucket[k], cap, sizeof *b);
	if (!b)
		return LOCUS_ENOMEM;
	for (uint32_t j = s->bcap[k]; j < cap; j++)
		b[j] = NIL;
	s->bucket[k] = b;
	s->bcap[k] = cap;
	return 0;
}

static void bucket_out(struct scal *s, uint32_t k, uint32_t w)
{
	size_t x = kw(s, k, w);
	uint32_t size = s->ksize[x];
	if (!size)
		return;
	if (s->bprev[x] != NIL)
		s->bnext[kw(s, k, s->bprev[x])] = s->bnext[x];
	else
		s->bucket[k][size] = s->bnext[x];
	if (s->bnext[x] != NIL)
		s->bprev[kw(s, k, s->bnext[x])] = s->bprev[x];
	while (s->bmax[k] && s->bucket[k][s->bmax[k]] == NIL)
		s->bmax[k]--;
}

static void bucket_in(struct scal *s, uint32_t k, uint32_t w)
{
	size_t x = kw(s, k, w);
	uint32_t size = s->ksize[x];
	if (!size)
		return;
	s->bprev[x] = NIL;
	s->bnext[x] = s->bucket[k][size];
	if (s->bnext[x] != NIL)
		s->bprev[kw(s, k, s->bnext[x])] = w;
	s->bucket[k][size] = w;
	if (size > s->bmax[k])
		s->bmax[k] = size;
}

/* Appends task t to K_kw. */
static int kept_add(struct scal *s, uint32_t k, uint32_t w, uint32_t t)
{
	size_t x = kw(s, k, w);
	if (bucket_room(s, k, s->ksize[x] + 1))
		return LOCUS_ENOMEM;
	uint32_t e = s->kfree;
	if (e != NIL) {
		s->kfree = s->kpool[e].next;
	} else {
		if (locus__grow(&s->kpool, &s->kcap, s->kused + 1, sizeof *s->kpool))
			return LOCUS_ENOMEM;
		e = (uint32_t)s->kused++;
	}
	struct kent *en = &s->kpool[e];
	en->task = t;
	en->worker = w;
	en->next = NIL;
	en->prev = s->ktail[x];
	if (s->ktail[x] != NIL)
		s->kpool[s->ktail[x]].next = e;
	else
		s->khead[x] = e;
	if (en->prev == NIL)
		s->kbits[k * s->kwords + w / 64] |= (uint64_t)1 << (w % 64);
	s->ktail[x] = e;
	en->tnext = s->thead[t];
	s->thead[t] = e;
	bucket_out(s, k, w);
	s->ksize[x]++;
	bucket_in(s, k, w);
	return 0;
}

/* Unlinks entry e from its list (not from its task's chain). */
static void kept_unlink(struct scal *s, uint32_t k, uint32_t e)
{
	struct kent *en = &s->kpool[e];
	size_t x = kw(s, k, en->worker);
	if (en->prev != NIL)
		s->kpool[en->prev].next = en->next;
	else
		s->khead[x] = en->next;
	if (en->next != NIL)
		s->kpool[en->next].prev = en->prev;
	else
		s->ktail[x] = en->prev;
	if (s->khead[x] == NIL)
		s->kbits[k * s->kwords + en->worker / 64] &= ~((uint64_t)1 << (en->worker % 64));
	bucket_out(s, k, en->worker);
	s->ksize[x]--;
	bucket_in(s, k, en->worker);
	en->next = s->kfree;
	s->kfree = e;
}

/* ---- assignment -------------------------------------------------------- */

/* Takes task t (owned by k) out of U_k and out of every kept-list. */
static void take(struct scal *s, uint32_t k, uint32_t t)
{
	const struct locus_workload *wl = s->wl;
	size_t nn = wl->platform->n_nodes;
	s->assigned[t / 64] |= 1ull << t % 64;
	uint32_t p = s->own_pos[t], last = s->own_list[s->own_at[k] + s->own_left[k] - 1];
	s->own_list[p] = last;
	s->own_pos[last] = p;
	s->own_left[k]--;
	const struct locus_task *tk = &wl->tasks[t];
	for (uint32_t h = 0; h < tk->n_holders; h++)
		s->node_left[(size_t)k * nn + wl->holders[tk->holders_at + h]]--;
	s->cls_live[s->cls_of[t]]--;
	s->own_entries[k] -= tk->n_holders ? tk->n_holders : 1;
	for (uint32_t e = s->thead[t]; e != NIL;) {
		uint32_t next = s->kpool[e].tnext;
		kept_unlink(s, k, e);
		e = next;
	}
	s->thead[t] = NIL;
}

/* The reply to worker w: an assignment of `task` (NIL: none). */
static void reply(struct scal *s, struct locus_actions *act, uint32_t k, uint32_t w, uint32_t task,
		  enum scal_tag tag, int approved, uint32_t kept_bits, int64_t nk)
{
	struct locus_msg m = {.from = s->n + k, .to = w};
	if (task != NIL) {
		if (locus_workload_is_local(s->wl, task, s->wl->worker_node[w]))
			s->local++;
		else
			s->remote++;
		m.type = LOCUS_MSG_ASSIGN;
		m.n_args = 6;
		m.arg[0] = task;
		m.arg[1] = -1;
		m.arg[2] = tag;
		m.arg[3] = approved;
		m.arg[4] = kept_bits;
		m.arg[5] = nk;
	} else {
		m.type = SCAL_NOTASK;
		m.n_args = 2;
		m.arg[0] = tag;
		m.arg[1] = nk;
	}
	locus_act_send(act, &m);
}

/* ---- the scheduler (Algorithm 2) ------------------------------------------ */

static void sched_local(struct scal *s, uint32_t k, const struct locus_msg *msg,
			struct locus_actions *act)
{
	uint32_t w = msg->from, c[TAU_MAX], nc = 0, kept_bits = 0;
	uint64_t entries = 1;
	for (unsigned j = 0; j < TAU_MAX && j < msg->n_args; j++) {
		int64_t t = msg->arg[j];
		/* A candidate that is not k's is as good as done. */
		c[nc++] = t >= 0 && t < s->f && owner(s, (uint32_t)t) == k ? (uint32_t)t : NIL;
	}
	entries += nc;
	s->local_requests++;
	int nulls = 1;
	for (uint32_t j = 0; j < nc; j++)
		nulls &= c[j] == NIL;
	s->null_requests += nulls;
	size_t x = kw(s, k, w);
	uint32_t task = NIL;
	int approved = -1;
	enum scal_tag tag;
	/* bmax[k] = 0: k keeps nothing for anyone (the common case), and its
	 * (k, w) list, a cache miss in an m x n table, is not read; nor
	 * unless k's row of bits says the list holds something. */
	if (s->bmax[k] && (s->kbits[k * s->kwords + w / 64] >> (w % 64) & 1)) {
		/* The oldest task kept for this worker. */
		task = s->kpool[s->khead[x]].task;
		tag = TAG_ID;
		s->kept_answers++;
	} else {
		for (uint32_t j = 0; j < nc && task == NIL; j++)
			if (c[j] != NIL && !is_assigned(s, c[j])) {
				task = c[j];
				approved = (int)j;
			}
		tag = TAG_CHI;
	}
	if (task != NIL)
		take(s, k, task);
	for (uint32_t j = 0; j < nc; j++)
		if (c[j] != NIL && !is_assigned(s, c[j]) && (int)j != approved) {
			if (kept_add(s, k, w, c[j]))
				act->oom = 1;
			kept_bits |= 1u << j;
		}
	if (tag == TAG_CHI && approved == 0)
		tag = kept_bits ? TAG_ALPHA : TAG_BETA;
	else if (tag == TAG_CHI && approved > 0)
		tag = TAG_GAMMA;
	if (task != NIL)
		s->local_approved++;
	cost(s, act, entries);
	/* Algorithm 2 lines 9-10: NULLs and nothing kept: say n_k (always,
	 * with nk=all). */
	int64_t nk = (nulls && task == NIL) || s->tell_nk ? (int64_t)s->own_left[k] : -1;
	reply(s, act, k, w, task, tag, approved, kept_bits, nk);
}

/* The fallback of a remote request: the unassigned task of k whose holder
 * that would get to it soonest has the most of k's unassigned tasks per
 * worker (a chunk no participating node holds first), ties to the lowest
 * id. The paper's scheduler reads every unassigned task k owns, and that
 * is what is charged; the decision is found over k's classes (tasks held
 * by the same participating nodes score alike), which gives the same task
 * in time linear in the classes, not the tasks. */
static uint32_t sched_fallback(struct scal *s, uint32_t k, uint64_t *entries)
{
	const struct locus_workload *wl = s->wl;
	size_t nn = wl->platform->n_nodes;
	uint32_t best = NIL;
	double best_score = -1;
	for (uint32_t c = s->cls_at[k]; c < s->cls_at[k + 1]; c++) {
		if (!s->cls_live[c])
			continue;
		while (is_assigned(s, s->cls_tasks[s->cls_head[c]]))
			s->cls_head[c]++;
		uint32_t t = s->cls_tasks[s->cls_head[c]];
		const struct locus_task *tk = &wl->tasks[t];
		double score = INFINITY;
		for (uint32_t h = 0; h < tk->n_holders; h++) {
			uint32_t node = wl->holders[tk->holders_at + h];
			if (!s->node_wk[node])
				continue;
			double v = (double)s->node_left[(size_t)k * nn + node] / s->node_wk[node];
			if (v < score)
				score = v;
		}
		if (score > best_score || (score == best_score && t < best)) {
			best_score = score;
			best = t;
		}
	}
	*entries += s->own_entries[k];
	return best;
}

/* Task t (of scheduler k's, unassigned) when worker w's node can hold
 * it; else the first of k's unassigned tasks that it can hold (each one
 * read is charged), or NIL. */
static uint32_t sched_fit(struct scal *s, uint32_t k, uint32_t w, uint32_t t, uint64_t *entries)
{
	if (t == NIL || fits(s, t, w))
		return t;
	const uint32_t *own = s->own_list + s->own_at[k];
	for (uint32_t j = 0; j < s->own_left[k]; j++) {
		++*entries;
		if (fits(s, own[j], w))
			return own[j];
	}
	return NIL;
}

static void sched_remote(struct scal *s, uint32_t k, uint32_t w, struct locus_actions *act)
{
	uint32_t task = NIL;
	uint64_t entries = 1;
	s->remote_requests++;
	if (s->bmax[k]) {
		/* A random task of the longest kept-list. */
		uint32_t x = s->bucket[k][s->bmax[k]];
		uint32_t e = s->khead[kw(s, k, x)];
		uint64_t steps = locus_rng_below(&s->srng[k], s->bmax[k]);
		for (uint64_t j = 0; j < steps; j++)
			e = s->kpool[e].next;
		entries += steps + 1;
		task = s->kpool[e].task;
		s->remote_kept++;
	} else if (s->own_left[k]) {
		task = sched_fallback(s, k, &entries);
		s->remote_owned++;
	}
	/* Only a task w's node can hold; with none, k has nothing left for
	 * w (n_k = 0 to it: what w can hold only grows fewer). */
	int none = 0;
	if (s->wl->graph->demand) {
		task = sched_fit(s, k, w, task, &entries);
		none = task == NIL;
	}
	if (task != NIL)
		take(s, k, task);
	cost(s, act, entries);
	reply(s, act, k, w, task, task != NIL ? TAG_REMOTE : TAG_NULL, -1, 0,
	      none ? 0 : s->own_left[k]);
}

/* ---- the worker (Algorithm 1) --------------------------------------------- */

static size_t wk(const struct scal *s, uint32_t w, uint32_t k)
{
	return (size_t)w * s->m + k;
}

static void stop(struct scal *s, uint32_t w, struct locus_actions *act)
{
	s->wstate[w] = W_STOPPED;
	locus_act_stop(act, w);
}

/* Eq. 1's parts of task t: y mod n and x mod b. */
static uint32_t y_part(const struct scal *s, uint32_t t)
{
	uint32_t y = t % s->n + 1;
	return y == s->n ? 0 : y;
}

/* (x = t / n + 1 is at most b.) */
static uint32_t x_part(const struct scal *s, uint32_t t)
{
	uint32_t x = t / s->n + 1;
	return x == s->b ? 0 : x;
}

/* The first block of node v's group k that worker w takes: the first
 * whose y part is at most i - 1 = w (else the group's first). */
static uint32_t grp_first(const struct scal *s, uint32_t v, uint32_t k, uint32_t w)
{
	const uint32_t *gb = s->nd_grp + (size_t)v * (s->m + 1);
	uint32_t b0 = gb[k], lo = 0, hi = gb[k + 1] - b0;
	if (!hi)
		return b0;
	uint32_t nb = hi;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (y_part(s, s->nd_task[s->blk_at[b0 + mid]]) <= w)
			hi = mid;
		else
			lo = mid + 1;
	}
	return b0 + lo % nb;
}

/* Worker w's cursor x (in group k) enters block blk: at its first task
 * whose x part is at most (i mod m) - 1 mod b, the rest of the block
 * after it, round to the block's first. */
static void grp_enter(struct scal *s, size_t x, uint32_t w, uint32_t blk)
{
	uint32_t e0 = s->blk_at[blk], l = s->blk_at[blk + 1] - e0, lo = 0;
	if (l > 1) {
		uint32_t b = s->b, c = (uint32_t)(((uint64_t)(w + 1) % s->m % b + b - 1) % b),
			 hi = l;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (x_part(s, s->nd_task[e0 + mid]) <= c)
				hi = mid;
			else
				lo = mid + 1;
		}
		lo %= l;
	}
	s->gc[x] = (struct gcur){.at = e0 + lo, .left = l, .blk = blk, .done = s->gc[x].done};
}

/* The task at worker w's cursor in group k, or NIL when none is left. */
static uint32_t grp_task(const struct scal *s, uint32_t w, uint32_t k)
{
	const struct gcur *c = &s->gc[(size_t)w * s->m + k];
	return c->done == NIL ? NIL : s->nd_task[c->at];
}

/* Worker w's cursor in group k past one task (there is one). */
static void grp_step(struct scal *s, uint32_t w, uint32_t k)
{
	size_t x = (size_t)w * s->m + k;
	struct gcur *c = &s->gc[x];
	if (--c->left) {
		if (++c->at == s->blk_at[c->blk + 1])
			c->at = s->blk_at[c->blk];
		return;
	}
	const uint32_t *gb = s->nd_grp + (size_t)s->wl->worker_node[w] * (s->m + 1);
	if (++c->done == gb[k + 1] - gb[k]) {
		c->done = NIL;
		return;
	}
	grp_enter(s, x, w, c->blk + 1 == gb[k + 1] ? gb[k] : c->blk + 1);
}

/* ghead's value for task t of worker w: its priority + 1, capped. */
static uint32_t head_of(const struct scal *s, uint32_t t, uint32_t w)
{
	if (t == NIL)
		return 0;
	uint64_t p = locus__scal_priority(s->n, s->f, s->m, (uint64_t)t + 1, (uint64_t)w + 1);
	return (uint32_t)(p > UINT32_MAX - 1 ? UINT32_MAX - 1 : p) + 1;
}

/* The best group head of a worker's row (the first of the best), 0 when
 * every group is spent. */
static uint32_t best_group(const uint32_t *head, uint32_t m, uint32_t *bk)
{
	uint32_t top = 0;
	*bk = 0;
	for (uint32_t k = 0; k < m; k++)
		if (head[k] > top) {
			top = head[k];
			*bk = k;
		}
	return top;
}

/* Worker w asks for its next task. */
static void worker_next(struct scal *s, uint32_t w, struct locus_actions *act)
{
	uint32_t *head = s->ghead + (size_t)w * s->m;
	/* The unsent local task of highest priority: the best group head
	 * (the first of the best, as the heads' priorities sit side by
	 * side), found after the last request unless a reply spent it. */
	uint32_t bk = s->nbk[w], top = bk == NIL ? best_group(head, s->m, &bk) : head[bk];
	cost(s, act, s->m);
	struct locus_msg m = {.from = w};
	if (top) {
		/* Up to tau of k's unsent tasks, by priority. */
		unsigned tau = s->wtau[w];
		m.type = SCAL_LOCAL;
		m.to = s->n + bk;
		m.n_args = tau;
		for (unsigned j = 0; j < tau; j++) {
			uint32_t t = grp_task(s, w, bk);
			m.arg[j] = t == NIL ? -1 : (int64_t)t;
			if (t != NIL)
				grp_step(s, w, bk);
		}
		head[bk] = head_of(s, grp_task(s, w, bk), w);
		uint32_t nb;
		best_group(head, s->m, &nb);
		s->nbk[w] = nb;
		__builtin_prefetch(&s->gc[(size_t)w * s->m + nb]);
		s->wstate[w] = W_WAITING;
		s->asked[w] = bk;
		s->asked_null[w] = 0;
		s->ncand[w] = (uint8_t)tau;
		locus_act_send(act, &m);
		return;
	}
	if (s->kept_sum[w]) {
		/* Every task sent; ask the scheduler keeping the most for it. */
		uint32_t k = 0;
		for (uint32_t q = 1; q < s->m; q++)
			if (s->kept[wk(s, w, q)] > s->kept[wk(s, w, k)])
				k = q;
		m.type = SCAL_LOCAL;
		m.to = s->n + k;
		m.n_args = s->tau;
		for (unsigned j = 0; j < s->tau; j++)
			m.arg[j] = -1;
		s->wstate[w] = W_WAITING;
		s->asked[w] = k;
		s->asked_null[w] = 1;
		s->ncand[w] = (uint8_t)s->tau;
		locus_act_send(act, &m);
		return;
	}
	if (!s->nk_sum[w]) {
		stop(s, w, act);
		return;
	}
	/* Remote: scheduler k with probability n_k / sum n_q. */
	uint64_t u = locus_rng_below(&s->wrng[w], s->nk_sum[w]);
	uint32_t k = 0;
	while (u >= s->nk[wk(s, w, k)]) {
		u -= s->nk[wk(s, w, k)];
		k++;
	}
	m.type = SCAL_REMOTE;
	m.to = s->n + k;
	m.n_args = 0;
	s->wstate[w] = W_WAITING;
	s->asked[w] = k;
	s->asked_null[w] = 0;
	s->ncand[w] = 0;
	locus_act_send(act, &m);
}

static void set_nk(struct scal *s, uint32_t w, uint32_t k, int64_t nk)
{
	if (nk < 0)
		return;
	size_t x = wk(s, w, k);
	s->nk_sum[w] -= s->nk[x];
	s->nk[x] = (uint32_t)nk;
	s->nk_sum[w] += s->nk[x];
}

/* Decodes a scheduler's reply; returns whether it assigned a task. */
static int worker_reply(struct scal *s, uint32_t w, const struct locus_msg *msg)
{
	uint32_t k = s->asked[w];
	size_t x = wk(s, w, k);
	int assigned = msg->type == LOCUS_MSG_ASSIGN;
	int64_t tag = assigned ? msg->arg[2] : msg->arg[0];
	int64_t nk = assigned ? msg->arg[5] : msg->arg[1];
	uint32_t kept_bits = assigned ? (uint32_t)msg->arg[4] : 0;
	/* kept_sum[w] = 0: every kept[w, .] is 0, and the m x n table is not
	 * read (a cache miss a reply). */
	if (s->kept_sum[w] && tag == TAG_ID && s->kept[x]) {
		s->kept[x]--;
		s->kept_sum[w]--;
	}
	if (s->kept_sum[w] && tag == TAG_CHI) {
		/* Nothing was kept for it here any more. */
		s->kept_sum[w] -= s->kept[x];
		s->kept[x] = 0;
	}
	for (unsigned j = 0; j < s->ncand[w]; j++)
		if (kept_bits >> j & 1) {
			s->kept[x]++;
			s->kept_sum[w]++;
		}
	set_nk(s, w, k, nk);
	if (nk == 0) {
		/* k has nothing left: none of the worker's tasks it owns is
		 * worth sending, and it keeps nothing for it. */
		s->gc[x].done = NIL;
		s->ghead[x] = 0;
		if (s->nbk[w] == k)
			s->nbk[w] = NIL;
		if (s->kept_sum[w]) {
			s->kept_sum[w] -= s->kept[x];
			s->kept[x] = 0;
		}
	}
	if (s->adaptive && !s->asked_null[w] && s->ncand[w]) {
		/* More candidates after a request whose every candidate was
		 * done, fewer after one that found them all free. */
		if (tag == TAG_CHI && s->wtau[w] < TAU_MAX)
			s->wtau[w] = (uint8_t)(s->wtau[w] * 2 < TAU_MAX ? s->wtau[w] * 2 : TAU_MAX);
		else if ((tag == TAG_ALPHA || tag == TAG_ID) && s->wtau[w] > s->tau &&
			 __builtin_popcount(kept_bits) + (tag == TAG_ALPHA) >= (int)s->ncand[w])
			s->wtau[w]--;
	}
	return assigned;
}

static void worker_event(struct scal *s, const struct locus_event *ev, struct locus_actions *act)
{
	uint32_t w = ev->proc;
	if (s->wstate[w] == W_STOPPED)
		return;
	switch (ev->kind) {
	case LOCUS_EV_START:
		/* Reading its local tasks and their priorities. */
		cost(s, act, s->nd_at[s->wl->worker_node[w] + 1] - s->nd_at[s->wl->worker_node[w]]);
		worker_next(s, w, act);
		break;
	case LOCUS_EV_DONE:
	case LOCUS_EV_FAILED: /* the engine runs it again elsewhere */
		worker_next(s, w, act);
		break;
	case LOCUS_EV_MESSAGE:
		if (s->wstate[w] != W_WAITING || !ev->msg || ev->msg->from != s->n + s->asked[w])
			break;
		if (ev->msg->type == LOCUS_MSG_ASSIGN || ev->msg->type == SCAL_NOTASK) {
			s->wstate[w] = W_LOCAL;
			if (!worker_reply(s, w, ev->msg))
				worker_next(s, w, act); /* no task: ask again at once */
		}
		break;
	default:
		break;
	}
}

static void scal_on_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct scal *s = state;
	if (ev->proc < s->n) {
		worker_event(s, ev, act);
		return;
	}
	uint32_t k = ev->proc - s->n;
	if (k >= s->m || ev->kind != LOCUS_EV_MESSAGE || !ev->msg || ev->msg->from >= s->n)
		return;
	if (ev->msg->type == SCAL_LOCAL)
		sched_local(s, k, ev->msg, act);
	else if (ev->msg->type == SCAL_REMOTE)
		sched_remote(s, k, ev->msg->from, act);
}

/* ---- set-up -------------------------------------------------------------- */

static size_t scal_schedulers(size_t n_workers, size_t requested)
{
	if (requested)
		return requested;
	return n_workers > PER_SCHED ? (n_workers + PER_SCHED - 1) / PER_SCHED : 1;
}

static void scal_destroy(void *state)
{
	struct scal *s = state;
	if (!s)
		return;
	free(s->nd_at);
	free(s->nd_task);
	free(s->nd_grp);
	free(s->blk_at);
	free(s->gc);
	free(s->ghead);
	free(s->nbk);
	free(s->kept);
	free(s->kept_sum);
	free(s->nk);
	free(s->nk_sum);
	free(s->wstate);
	free(s->ncand);
	free(s->asked);
	free(s->asked_null);
	free(s->wrng);
	free(s->wtau);
	free(s->assigned);
	free(s->own_pos);
	free(s->own_at);
	free(s->own_list);
	free(s->own_left);
	free(s->node_left);
	free(s->node_wk);
	free(s->thead);
	free(s->cls_at);
	free(s->cls_tasks);
	free(s->cls_start);
	free(s->cls_head);
	free(s->cls_live);
	free(s->cls_of);
	free(s->own_entries);
	free(s->kpool);
	free(s->khead);
	free(s->kbits);
	free(s->ktail);
	free(s->ksize);
	for (uint32_t k = 0; s->bucket && k < s->m; k++)
		free(s->bucket[k]);
	free(s->bucket);
	free(s->bcap);
	free(s->bprev);
	free(s->bnext);
	free(s->bmax);
	free(s->srng);
	free(s);
}

/* Sort key of a node's local task: owner first, then Eq. 1's y part and
 * x part (yx), highest first. */
struct ltkey {
	uint32_t owner;
	uint64_t yx;
	uint32_t task;
};

static int ltkey_cmp(const void *a, const void *b)
{
	const struct ltkey *x = a, *y = b;
	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	if (x->yx != y->yx)
		return x->yx > y->yx ? -1 : 1;
	return (x->task > y->task) - (x->task < y->task);
}

static int setup_workers(struct scal *s)
{
	const struct locus_workload *wl = s->wl;
	size_t nn = wl->platform->n_nodes, total = 0, most = 0;
	/* The nodes with a worker of this policy's. */
	unsigned char *has = locus__calloc(nn ? nn : 1, 1);
	if (!has)
		return LOCUS_ENOMEM;
	for (uint32_t w = 0; w < s->n; w++)
		has[wl->worker_node[w]] = 1;
	for (size_t v = 0; v < nn; v++) {
		size_t l = has[v] ? wl->node_at[v + 1] - wl->node_at[v] : 0;
		total += l;
		if (l > most)
			most = l;
	}
	if (total >= UINT32_MAX) {
		free(has);
		return LOCUS_ENOMEM;
	}
	s->nd_task = locus__calloc(total ? total : 1, sizeof *s->nd_task);
	s->blk_at = locus__calloc(total + 1, sizeof *s->blk_at);
	struct ltkey *keys = locus__calloc(most ? most : 1, sizeof *keys);
	if (!s->nd_task || !s->blk_at || !keys) {
		free(has);
		free(keys);
		return LOCUS_ENOMEM;
	}
	uint32_t at = 0, nblk = 0;
	for (size_t v = 0; v < nn; v++) {
		s->nd_at[v] = at;
		uint32_t *g = s->nd_grp + v * (s->m + 1), k = 0, l = 0;
		if (has[v]) {
			/* Its local tasks that it can hold (every one, when the
			 * workflow declares no demands): the others are for
			 * workers whose node can, by their remote requests. */
			for (uint32_t p = wl->node_at[v]; p < wl->node_at[v + 1]; p++) {
				uint32_t t = wl->node_tasks[p];
				if (fits_node(s, t, (uint32_t)v))
					keys[l++] = (struct ltkey){
					    owner(s, t),
					    (uint64_t)y_part(s, t) << 32 | x_part(s, t), t};
			}
			/* Once a node (not a worker): 1 million keys at
			 * 2,048 x 16. */
			qsort(keys, l, sizeof *keys, ltkey_cmp);
		}
		for (uint32_t j = 0; j < l; j++) {
			int fresh = !j || keys[j].owner != keys[j - 1].owner ||
				    keys[j].yx >> 32 != keys[j - 1].yx >> 32;
			while (k <= keys[j].owner)
				g[k++] = nblk;
			if (fresh)
				s->blk_at[nblk++] = at + j;
			s->nd_task[at + j] = keys[j].task;
		}
		while (k <= s->m)
			g[k++] = nblk;
		at += l;
		s->blk_at[nblk] = at;
	}
	s->nd_at[nn] = at;
	for (uint32_t w = 0; w < s->n; w++) {
		for (uint32_t q = 0; q < s->m; q++) {
			size_t x = (size_t)w * s->m + q;
			const uint32_t *gb = s->nd_grp + (size_t)wl->worker_node[w] * (s->m + 1);
			if (gb[q] == gb[q + 1])
				s->gc[x].done = NIL;
			else
				grp_enter(s, x, w, grp_first(s, wl->worker_node[w], q, w));
			s->ghead[x] = head_of(s, grp_task(s, w, q), w);
		}
		s->nbk[w] = NIL;
		locus_rng_init(&s->wrng[w],
			       s->seed ^ SEED_WORKER ^ ((uint64_t)w * 0x9e3779b97f4a7c15ull));
	}
	free(has);
	free(keys);
	return 0;
}

/* A task's class key: its owner and the participating nodes holding it,
 * sorted, then its id. A task held by more than CLASS_HOLDERS participating
 * nodes is a class of its own (nh = UINT32_MAX). */
#define CLASS_HOLDERS 4
struct class_key {
	uint32_t owner, nh, h[CLASS_HOLDERS], id;
};

static int key_set_cmp(const struct class_key *x, const struct class_key *y)
{
	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	if (x->nh != y->nh)
		return x->nh < y->nh ? -1 : 1;
	if (x->nh == UINT32_MAX) /* each its own class */
		return x->id < y->id ? -1 : x->id > y->id;
	for (uint32_t i = 0; i < x->nh; i++)
		if (x->h[i] != y->h[i])
			return x->h[i] < y->h[i] ? -1 : 1;
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	const struct class_key *x = a, *y = b;
	int c = key_set_cmp(x, y);
	return c ? c : (x->id < y->id ? -1 : x->id > y->id);
}

/* Groups each scheduler's tasks into the fallback's classes. */
static int build_classes(struct scal *s)
{
	uint32_t f = s->f, m = s->m;
	const struct locus_workload *wl = s->wl;
	s->cls_at = locus__calloc(m + 1, sizeof *s->cls_at);
	s->cls_tasks = locus__calloc(f ? f : 1, sizeof *s->cls_tasks);
	s->cls_start = locus__calloc((size_t)f + 1, sizeof *s->cls_start);
	s->cls_head = locus__calloc(f ? f : 1, sizeof *s->cls_head);
	s->cls_live = locus__calloc(f ? f : 1, sizeof *s->cls_live);
	s->cls_of = locus__calloc(f ? f : 1, sizeof *s->cls_of);
	s->own_entries = locus__calloc(m, sizeof *s->own_entries);
	struct class_key *key = locus__calloc(f ? f : 1, sizeof *key);
	if (!s->cls_at || !s->cls_tasks || !s->cls_start || !s->cls_head || !s->cls_live ||
	    !s->cls_of || !s->own_entries || !key) {
		free(key);
		return LOCUS_ENOMEM;
	}
	for (uint32_t t = 0; t < f; t++) {
		const struct locus_task *tk = &wl->tasks[t];
		struct class_key *k = &key[t];
		k->owner = owner(s, t);
		k->id = t;
		s->own_entries[k->owner] += tk->n_holders ? tk->n_holders : 1;
		for (uint32_t h = 0; h < tk->n_holders; h++) {
			uint32_t node = wl->holders[tk->holders_at + h];
			if (!s->node_wk[node])
				continue;
			if (k->nh == CLASS_HOLDERS) {
				k->nh = UINT32_MAX;
				break;
			}
			/* Insertion into the sorted set (holders are distinct). */
			uint32_t i = k->nh++;
			while (i > 0 && k->h[i - 1] > node) {
				k->h[i] = k->h[i - 1];
				i--;
			}
			k->h[i] = node;
		}
	}
	qsort(key, f, sizeof *key, key_cmp);
	uint32_t nc = 0, next_k = 0;
	for (uint32_t p = 0; p < f; p++) {
		if (p == 0 || key_set_cmp(&key[p - 1], &key[p]) != 0) {
			while (next_k <= key[p].owner)
				s->cls_at[next_k++] = nc;
			s->cls_start[nc] = s->cls_head[nc] = p;
			nc++;
		}
		s->cls_tasks[p] = key[p].id;
		s->cls_of[key[p].id] = nc - 1;
		s->cls_live[nc - 1]++;
	}
	s->cls_start[nc] = f;
	while (next_k <= m)
		s->cls_at[next_k++] = nc;
	free(key);
	return 0;
}

static int scal_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	const struct locus_workload *wl = ctx->wl;
	double tau;
	int own;
	*state = NULL;
	double adaptive, tell;
	int rc = locus_kv_double(ctx->opts, "tau", 2, 1, TAU_MAX, &tau, err);
	if (!rc)
		rc = locus_kv_choice(ctx->opts, "own", own_names, OWN_BLOCK, &own, err);
	if (!rc)
		rc = locus_kv_double(ctx->opts, "tau_adapt", 0, 0, 1, &adaptive, err);
	if (!rc)
		rc = locus_kv_double(ctx->opts, "nk_all", 0, 0, 1, &tell, err);
	if (rc)
		return rc;
	if (locus_kv_unused(ctx->opts))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy scal: unknown option \"%s\" (it takes tau=1..%d, "
				  "own=block|cyclic, tau_adapt=0|1 and nk_all=0|1)",
				  locus_kv_unused(ctx->opts), TAU_MAX);
	if (tau != floor(tau))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy option tau=%g: expected a whole number of candidates",
				  tau);
	if (!wl || !ctx->n_workers || ctx->n_workers > wl->n_workers || !ctx->n_schedulers ||
	    ctx->n_workers + ctx->n_schedulers >= NIL || wl->n_tasks >= NIL)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy scal: %zu workers and %zu schedulers for a workload of "
				  "%zu workers",
				  ctx->n_workers, ctx->n_schedulers, wl ? wl->n_workers : 0);
	struct scal *s = calloc(1, sizeof *s);
	if (!s)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	size_t n = ctx->n_workers, m = ctx->n_schedulers, f = wl->n_tasks,
	       nn = wl->platform->n_nodes;
	s->wl = wl;
	s->n = (uint32_t)n;
	s->m = (uint32_t)m;
	s->f = (uint32_t)f;
	s->b = (uint32_t)((f + n - 1) / n);
	s->own = own;
	s->tau = (unsigned)tau;
	s->adaptive = adaptive != 0;
	s->tell_nk = tell != 0;
	s->seed = ctx->seed;
	s->nd_at = locus__calloc(nn + 1, sizeof *s->nd_at);
	s->nd_grp = locus__calloc(nn * (m + 1), sizeof *s->nd_grp);
	s->gc = locus__calloc(n * m, sizeof *s->gc);
	s->ghead = locus__calloc(n * m, sizeof *s->ghead);
	s->nbk = locus__calloc(n, sizeof *s->nbk);
	s->kept = locus__calloc(n * m, sizeof *s->kept);
	s->kept_sum = locus__calloc(n, sizeof *s->kept_sum);
	s->nk = locus__calloc(n * m, sizeof *s->nk);
	s->nk_sum = locus__calloc(n, sizeof *s->nk_sum);
	s->wstate = locus__calloc(n, 1);
	s->ncand = locus__calloc(n, 1);
	s->asked = locus__calloc(n, sizeof *s->asked);
	s->asked_null = locus__calloc(n, 1);
	s->wrng = locus__calloc(n, sizeof *s->wrng);
	s->wtau = locus__calloc(n, 1);
	s->assigned = locus__calloc(f / 64 + 1, sizeof *s->assigned);
	s->own_pos = locus__calloc(f, sizeof *s->own_pos);
	s->own_at = locus__calloc(m + 1, sizeof *s->own_at);
	s->own_list = locus__calloc(f, sizeof *s->own_list);
	s->own_left = locus__calloc(m, sizeof *s->own_left);
	s->node_left = locus__calloc(m * nn, sizeof *s->node_left);
	s->node_wk = locus__calloc(nn, sizeof *s->node_wk);
	s->thead = locus__calloc(f, sizeof *s->thead);
	s->khead = locus__calloc(m * n, sizeof *s->khead);
	s->kwords = (n + 63) / 64;
	s->kbits = locus__calloc(m * s->kwords, sizeof *s->kbits);
	s->ktail = locus__calloc(m * n, sizeof *s->ktail);
	s->ksize = locus__calloc(m * n, sizeof *s->ksize);
	s->bucket = locus__calloc(m, sizeof *s->bucket);
	s->bcap = locus__calloc(m, sizeof *s->bcap);
	s->bprev = locus__calloc(m * n, sizeof *s->bprev);
	s->bnext = locus__calloc(m * n, sizeof *s->bnext);
	s->bmax = locus__calloc(m, sizeof *s->bmax);
	s->srng = locus__calloc(m, sizeof *s->srng);
	s->kfree = NIL;
	if (!s->nd_at || !s->nd_grp || !s->gc || !s->ghead || !s->nbk || !s->kept || !s->kept_sum ||
	    !s->nk || !s->nk_sum || !s->wstate || !s->ncand || !s->asked || !s->asked_null ||
	    !s->wrng || !s->wtau || !s->assigned || !s->own_pos || !s->own_at || !s->own_list ||
	    !s->own_left || !s->node_left || !s->node_wk || !s->thead || !s->khead || !s->kbits ||
	    !s->ktail || !s->ksize || !s->bucket || !s->bcap || !s->bprev || !s->bnext ||
	    !s->bmax || !s->srng || setup_workers(s)) {
		scal_destroy(s);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	for (size_t x = 0; x < m * n; x++)
		s->khead[x] = s->ktail[x] = NIL;
	for (size_t t = 0; t < f; t++)
		s->thead[t] = NIL;
	/* Each scheduler's tasks, and how many of them each node holds. */
	for (size_t t = 0; t < f; t++)
		s->own_at[owner(s, (uint32_t)t) + 1]++;
	for (size_t k = 0; k < m; k++) {
		s->own_left[k] = s->own_at[k + 1];
		s->own_at[k + 1] += s->own_at[k];
	}
	uint32_t *fill = locus__calloc(m, sizeof *fill);
	if (!fill) {
		scal_destroy(s);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	for (uint32_t t = 0; t < f; t++) {
		uint32_t k = owner(s, t);
		const struct locus_task *tk = &wl->tasks[t];
		s->own_pos[t] = s->own_at[k] + fill[k]++;
		s->own_list[s->own_pos[t]] = t;
		for (uint32_t h = 0; h < tk->n_holders; h++)
			s->node_left[(size_t)k * nn + wl->holders[tk->holders_at + h]]++;
	}
	free(fill);
	for (uint32_t w = 0; w < n; w++) {
		s->wtau[w] = (uint8_t)s->tau;
		s->node_wk[wl->worker_node[w]]++;
		for (uint32_t k = 0; k < m; k++)
			s->nk[wk(s, w, k)] = s->own_left[k];
		s->nk_sum[w] = f;
	}
	for (uint32_t k = 0; k < m; k++)
		locus_rng_init(&s->srng[k],
			       ctx->seed ^ SEED_SCHED ^ ((uint64_t)k * 0x9e3779b97f4a7c15ull));
	if (build_classes(s)) {
		scal_destroy(s);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	*state = s;
	return 0;
}

static void scal_stats(void *state, struct locus_policy_stats *out)
{
	struct scal *s = state;
	static const char *const names[] = {"local_requests", "local_approved",	 "kept_answers",
					    "null_requests",  "remote_requests", "remote_kept",
					    "remote_owned"};
	uint64_t v[] = {s->local_requests,  s->local_approved, s->kept_answers, s->null_requests,
			s->remote_requests, s->remote_kept,    s->remote_owned};
	memset(out, 0, sizeof *out);
	out->entries_examined = s->entries;
	for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) {
		out->counters[j] = v[j];
		out->counter_names[j] = names[j];
	}
	out->local_assignments = s->local;
	out->remote_assignments = s->remote;
}

const struct locus_policy locus__policy_scal = {
    .version = LOCUS_POLICY_VERSION,
    .name = "scal",
    .summary = "ScalScheduling: workers order their local tasks (modulo priority) and ask "
	       "the owning scheduler; one scheduler per 512 workers; tau=2, own=block",
    .schedulers = scal_schedulers,
    .create = scal_create,
    .destroy = scal_destroy,
    .on_event = scal_on_event,
    .stats = scal_stats,
};
