/*
 * The state of max-min sharing (share.c): its bounds, the flows, classes,
 * resources and filling scratch, the class table keyed by (shared
 * resources, cap), and the heaps (a class's flows, the classes by next
 * completion, the resources' saturation levels). Only share.c includes
 * it; it is apart so that share.c holds the algorithm: the events, the
 * regions and the progressive filling.
 */
#ifndef LOCUS_SIM_SHARE_STATE_H
#define LOCUS_SIM_SHARE_STATE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/share.h"

#define MAXR LOCUS__SHARE_MAX_RES
#define NONE UINT32_MAX
/* Flows one event moves between classes: the flow itself and one flow per
 * resource of it (left alone there, or no longer alone). */
#define PLAN (1 + MAXR)
/* Seeds of the component search in one event: each class change names at
 * most MAXR resources and an event removes and adds PLAN flows. */
#define MAX_SEEDS (2 * PLAN * MAXR)
/* Remaining bytes below REL_EPS of a flow's size, or lost in the rounding
 * of its class's vtime, count as none: no flow keeps a vanishing tail. */
#define REL_EPS 1e-12
/* A class rebases its vtime to 0 once it exceeds REBASE times the largest
 * remaining size in it, so that targets keep their precision. */
#define REBASE 4.0
/* A resource is full when its load is within SAT_EPS of its capacity, and
 * rates that close are equal, when the region of an event is checked. */
#define SAT_EPS 1e-9
/* Rounds that grow the region by the resources found wrong only; later
 * rounds take in every border resource. */
#define GROW_ROUNDS 8
/* Updates of a border total between exact sums. */
#define RESUM 1024

struct key {
	uint32_t res[MAXR]; /* shared resources, ascending; NONE past n */
	uint32_t n;
	double cap; /* effective per-flow cap; INFINITY: none */
};

struct flow {
	uint64_t user;
	uint64_t seq; /* start order: breaks ties */
	double bytes;
	double cap;	    /* its own cap; INFINITY: none */
	double target;	    /* vtime of its class when it is done (instant class: time) */
	uint32_t res[MAXR]; /* resources of finite capacity, ascending */
	uint32_t n_res;	    /* 0 for a flow of 0 bytes: it holds no resource */
	uint32_t cls;	    /* its class; NONE when the slot is free */
	uint32_t pos;	    /* index in its class's heap; when free, the next free slot */
};

/* The fields a filling round reads come first, in the class's first 64
 * bytes: with every read remote a round touches each class of its region
 * once, at a random place in an array of megabytes. */
struct cls {
	struct key key;
	uint32_t n;	    /* flows in it; 0 when the slot is free */
	uint32_t held_by;   /* its bottleneck under the current rates; NONE: its cap */
	uint32_t frozen_by; /* the resource that froze it; NONE: its cap */
	uint32_t qmark;	    /* event that queued it for refresh */
	double rate;	    /* per flow; INFINITY for the instant class */
	double fill_rate;
	uint32_t res_pos[MAXR]; /* index in each shared resource's class list */
	uint32_t gpos;		/* index in the global heap; NONE: not there */
	uint32_t next_free;
	uint64_t hash;
	uint32_t *heap; /* flow ids by (target, seq); kept when the slot is free */
	size_t heap_cap;
	double vtime; /* service per flow at time t */
	double t;
	double scale;	/* no flow in it has more than this left */
	double done_at; /* completion time of the head */
	/* The head flow's target, size and start order, kept here so that a
	 * new rate's completion time reads no flow. */
	double head_target, head_bytes;
	uint64_t head_seq;
};

struct res {
	double capacity;
	uint32_t n_flows;
	uint32_t xor_flows; /* xor of its flows' ids: the flow itself when alone */
	uint32_t *cls;	    /* classes whose key holds it */
	size_t n_cls, cls_cap;
	/* Under the current rates. */
	double tot;	 /* load: bytes/s of its classes */
	uint32_t n_held; /* classes it holds (their held_by) */
	double lam;	 /* their rate, when n_held > 0: the top rate on it */
	uint32_t drift;	 /* updates of tot since it was summed exactly */
};

/* A resource's part in the filling, apart from struct res: only the
 * resources an event's region reaches touch theirs, so a platform of
 * millions of resources keeps the rest of the array unwritten. */
struct rfill {
	/* The region of an event (refill). */
	uint32_t smark; /* event that put it in the region S */
	uint32_t omark; /* round that found it on the border O */
	uint32_t mmark; /* round that computed out_max */
	int fmark;	/* check_round takes it into S */
	/* On the border O: the region classes on it, their old load and how
	 * many it held, their top new rate; the load and top rate of the
	 * classes outside, and how many those are. */
	uint32_t n_reg, n_held_reg;
	double reg_old, reg_max;
	double out_load, out_max;
	uint32_t n_out;
	/* progressive filling */
	int saturated;
	double eff;  /* bytes/s the region may use: capacity, or what O leaves */
	double load; /* bytes/s taken by frozen flows */
	double open; /* flows not yet frozen */
	/* On O with n_reg > 1: its region classes, at border[first ..];
	 * NONE on a lone one, whose region class is `only`. */
	uint32_t first, only;
};

/* An entry of the global heap of classes: its key is kept in the entry,
 * so that sifting reads the heap's array, not the classes. */
struct gent {
	double at;    /* the class's done_at */
	uint64_t seq; /* its head's start order */
	uint32_t cls;
};

struct level {
	double level;
	uint32_t res;
};

/* A level known before the filling starts: a class's cap (`id` the
 * class), or the level of a lone border resource, one that a single
 * region class crosses (`id` the resource): nothing changes it until that
 * class freezes. Sorted as integers, (level, id): `level` holds the bits
 * of a level >= 0, which order as the doubles do. */
struct stop {
	uint64_t level;
	uint64_t id;
};

struct locus__share {
	struct res *res;
	struct rfill *fill; /* by resource, zeroed: its pages written when used */
	size_t n_res;

	struct flow *flows;
	size_t flows_cap, flows_used; /* slots allocated, slots ever used */
	uint32_t free_flow;
	size_t count;
	uint64_t seq;

	struct cls *cls;
	size_t cls_cap, cls_used; /* slots allocated, slots set up */
	uint32_t free_cls;
	size_t n_free_cls;
	uint32_t *table;    /* open addressing: class ids, NONE empty */
	size_t table_size;  /* power of two, >= 2 cls_used */
	struct gent *gheap; /* classes by (done_at, head's seq) */
	size_t gn;

	double now;	/* time of the last change */
	uint32_t epoch; /* events so far */

	/* Scratch of one event, sized for cls_used classes. */
	uint32_t seeds[MAX_SEEDS];
	size_t n_seeds;
	uint32_t *queue; /* classes to refresh */
	size_t n_queue;
	uint32_t *comp_res; /* n_res: the region S, then its border O */
	size_t n_comp_res, n_sres;
	uint32_t *fails;	       /* n_res: border resources a round takes into S */
	uint32_t stamp;		       /* filling rounds so far */
	uint64_t rounds, rounds_grown; /* filling rounds, and those that grew the region */
	uint64_t filled;	       /* classes filled, over all rounds */
	uint32_t *comp_cls;
	size_t n_comp_cls;
	/* Per class slot, apart from the classes so that the filling's scans
	 * of a resource's classes stay in few cache lines: 2 x the round that
	 * took it into the region, plus 1 once it is frozen. */
	uint64_t *mark;
	/* The region classes of each border resource, in the order of its
	 * class list: (index there << 32) | class. */
	uint64_t *border;
	struct stop *caps;    /* cls_used */
	struct stop *lones;   /* n_res */
	struct level *levels; /* n_res + MAXR cls_used */
	size_t n_levels;
	size_t scratch_for; /* cls_used the scratch is sized for */
};

/* ---- keys and the class table ------------------------------------- */

static inline uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static inline uint64_t key_hash(const struct key *k)
{
	uint64_t h = mix(k->n + 0x9e3779b97f4a7c15ull);
	for (uint32_t i = 0; i < k->n; i++)
		h = mix(h ^ k->res[i]);
	uint64_t bits;
	memcpy(&bits, &k->cap, sizeof bits);
	return mix(h ^ bits);
}

static inline int key_eq(const struct key *a, const struct key *b)
{
	if (a->n != b->n || a->cap != b->cap)
		return 0;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->res[i] != b->res[i])
			return 0;
	return 1;
}

static inline uint32_t table_find(const struct locus__share *s, const struct key *k, uint64_t h)
{
	size_t mask = s->table_size - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		uint32_t c = s->table[i];
		if (c == NONE || (s->cls[c].hash == h && key_eq(&s->cls[c].key, k)))
			return c;
	}
}

static inline void table_put(uint32_t *table, size_t size, uint32_t c, uint64_t h)
{
	size_t mask = size - 1, i = h & mask;
	while (table[i] != NONE)
		i = (i + 1) & mask;
	table[i] = c;
}

/* Removes class c, shifting back the entries after it so that no probe
 * sequence has a hole (no tombstones). */
static inline void table_del(struct locus__share *s, uint32_t c)
{
	size_t mask = s->table_size - 1, i = s->cls[c].hash & mask;
	while (s->table[i] != c)
		i = (i + 1) & mask;
	for (size_t j = i;;) {
		j = (j + 1) & mask;
		uint32_t d = s->table[j];
		if (d == NONE)
			break;
		size_t home = s->cls[d].hash & mask;
		/* d may move to the hole at i unless its home lies in (i, j]. */
		int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
		if (!stays) {
			s->table[i] = d;
			i = j;
		}
	}
	s->table[i] = NONE;
}

/* The class key of flow f under the current flow counts. */
static inline void flow_key(const struct locus__share *s, const struct flow *f, struct key *k)
{
	k->n = 0;
	k->cap = f->cap;
	for (uint32_t i = 0; i < f->n_res; i++) {
		const struct res *r = &s->res[f->res[i]];
		if (r->n_flows >= 2)
			k->res[k->n++] = f->res[i];
		else if (r->capacity < k->cap)
			k->cap = r->capacity;
	}
	for (uint32_t i = k->n; i < MAXR; i++)
		k->res[i] = NONE;
}

/* The class of flows that nothing limits: they complete when they start. */
static inline int is_instant(const struct cls *c)
{
	return c->key.n == 0 && c->key.cap == INFINITY;
}

/* ---- heaps ---------------------------------------------------------- */

static inline int flow_before(const struct flow *a, const struct flow *b)
{
	return a->target < b->target || (a->target == b->target && a->seq < b->seq);
}

static inline void fheap_up(struct locus__share *s, struct cls *c, uint32_t i)
{
	uint32_t id = c->heap[i];
	struct flow *f = &s->flows[id];
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		struct flow *pf = &s->flows[c->heap[p]];
		if (!flow_before(f, pf))
			break;
		c->heap[i] = c->heap[p];
		pf->pos = i;
		i = p;
	}
	c->heap[i] = id;
	f->pos = i;
}

static inline void fheap_down(struct locus__share *s, struct cls *c, uint32_t i)
{
	uint32_t id = c->heap[i];
	struct flow *f = &s->flows[id];
	for (;;) {
		uint32_t l = 2 * i + 1, m = l;
		if (l >= c->n)
			break;
		if (l + 1 < c->n && flow_before(&s->flows[c->heap[l + 1]], &s->flows[c->heap[l]]))
			m = l + 1;
		struct flow *mf = &s->flows[c->heap[m]];
		if (!flow_before(mf, f))
			break;
		c->heap[i] = c->heap[m];
		mf->pos = i;
		i = m;
	}
	c->heap[i] = id;
	f->pos = i;
}

static inline void fheap_del(struct locus__share *s, struct cls *c, uint32_t i)
{
	uint32_t last = c->heap[--c->n];
	if (i == c->n)
		return;
	c->heap[i] = last;
	fheap_up(s, c, i);
	fheap_down(s, c, s->flows[last].pos);
}

static inline int gent_before(const struct gent *a, const struct gent *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static inline void gheap_up(struct locus__share *s, uint32_t i)
{
	struct gent e = s->gheap[i];
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!gent_before(&e, &s->gheap[p]))
			break;
		s->gheap[i] = s->gheap[p];
		s->cls[s->gheap[i].cls].gpos = i;
		i = p;
	}
	s->gheap[i] = e;
	s->cls[e.cls].gpos = i;
}

static inline void gheap_down(struct locus__share *s, uint32_t i)
{
	struct gent e = s->gheap[i];
	for (;;) {
		size_t l = 2 * (size_t)i + 1, m = l;
		if (l >= s->gn)
			break;
		if (l + 1 < s->gn && gent_before(&s->gheap[l + 1], &s->gheap[l]))
			m = l + 1;
		if (!gent_before(&s->gheap[m], &e))
			break;
		s->gheap[i] = s->gheap[m];
		s->cls[s->gheap[i].cls].gpos = i;
		i = (uint32_t)m;
	}
	s->gheap[i] = e;
	s->cls[e.cls].gpos = i;
}

static inline void gheap_del(struct locus__share *s, uint32_t i)
{
	struct gent last = s->gheap[--s->gn];
	if (i == s->gn)
		return;
	s->gheap[i] = last;
	gheap_up(s, i);
	gheap_down(s, s->cls[last.cls].gpos);
}

/* Places class c in the global heap after its done_at or head changed. */
static inline void gheap_fix(struct locus__share *s, uint32_t c)
{
	struct cls *x = &s->cls[c];
	struct gent e = {x->done_at, x->head_seq, c};
	if (x->gpos == NONE) {
		s->gheap[s->gn] = e;
		x->gpos = (uint32_t)s->gn++;
		gheap_up(s, x->gpos);
	} else {
		s->gheap[x->gpos] = e;
		gheap_up(s, x->gpos);
		gheap_down(s, x->gpos);
	}
}

static inline int level_before(const struct level *a, const struct level *b)
{
	return a->level < b->level || (a->level == b->level && a->res < b->res);
}

/* Puts lv in the hole at i and sifts it down. Keys (level, resource) are
 * unique, so the top is the same whatever the heap's shape. */
static inline void level_sift(struct locus__share *s, size_t i, struct level last)
{
	size_t n = s->n_levels;
	for (;;) {
		size_t l = 2 * i + 1, m = l;
		if (l >= n)
			break;
		if (l + 1 < n && level_before(&s->levels[l + 1], &s->levels[l]))
			m = l + 1;
		if (!level_before(&s->levels[m], &last))
			break;
		s->levels[i] = s->levels[m];
		i = m;
	}
	s->levels[i] = last;
}

static inline void level_pop(struct locus__share *s)
{
	struct level last = s->levels[--s->n_levels];
	if (s->n_levels)
		level_sift(s, 0, last);
}

#endif
