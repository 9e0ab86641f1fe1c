/*
 * Max-min fair sharing of resources by flows, in simulated time (share.h).
 *
 * The allocation is exact; what makes it cheap is that it is computed per
 * class of flows, not per flow, and only where something changed.
 *
 * Classes. Flows that cross the same shared resources with the same
 * effective cap get the same rate (the max-min fair allocation is unique,
 * so symmetric flows get equal rates). A resource that carries one flow
 * only constrains that flow: it is a cap on it. So a flow's class key is
 * the set of its resources that carry two flows or more, plus its
 * effective cap, the least of its own cap and the capacities of the
 * resources it has to itself. Resources of infinite capacity constrain
 * nothing and are left out. In the star case (thousands of flows share a
 * master link, each also crosses its own receiver link) every flow is in
 * one class; reads alone on their disk are in one class per capacity.
 *
 * Virtual time. All flows of a class advance at the class's rate, so a
 * class keeps the service each of its flows has received since the class
 * began (vtime, at time t); a flow keeps the vtime at which it will be done
 * (target), and the class keeps its flows in a heap by (target, start
 * order). A rate change touches the class, never its flows. The class's
 * next completion is t + (head's target - vtime) / rate, and a global heap
 * orders the classes by (that time, head's start order).
 *
 * Regions. A start or an end changes the class of the flow itself and of
 * at most one other flow per resource (the one left alone on it, or no
 * longer alone). The fair allocation may then change anywhere in the
 * connected component of those classes (shared resources linked by
 * classes), but in practice it changes near them: a read that starts on a
 * disk slows the reads of that disk, and the links they cross are seldom
 * full. So an event recomputes a region S of resources, at first the
 * resources of the changed classes: the classes on S are refilled, over S
 * and the border O of other resources they cross, where they get what the
 * classes outside leave. Every class remembers its bottleneck; a round is
 * right when every outside class keeps its bottleneck and every region
 * class held by the border is as fast as the outside classes there
 * (check_round); else S takes in the border resources found wrong, and
 * after GROW_ROUNDS rounds the whole border, and the region is filled
 * again. Progressive filling runs over classes: the common level rises to
 * the next event, either the least cap of an unfrozen class (the capped
 * classes sorted) or the least saturation level (room left) / unfrozen
 * flows of a resource (a heap of lower bounds, re-keyed when popped: a
 * level only rises as flows freeze). Most border resources are crossed by
 * one region class only (with every read remote, 82 % of them): such a
 * lone resource's level cannot move before that class freezes, so the
 * lone ones are sorted once beside the caps instead of passing through
 * the heap. A round costs O((K + R) log(K + R))
 * for K classes and R resources in the region and its border; a disk read
 * alone on its disk or a star costs O(log F). With every read remote
 * (fifo on 8,192 workers, 32 per node) an event changes about 60 classes
 * and grows its region in one round of four.
 *
 * Failure. Everything an event may need is allocated before it changes
 * anything, so after LOCUS_ENOMEM the state is as it was.
 *
 * The state's structures, the class table and the heaps are in
 * share_state.h.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "sim/share.h"
#include "sim/share_state.h"

/* ---- reservations: every allocation an event needs, made first ------ */

static int grow_scratch(struct locus__share *s)
{
	size_t n = s->cls_used;
	if (n <= s->scratch_for)
		return 0;
	uint32_t *q = locus__reallocarray(s->queue, n, sizeof *q);
	if (!q)
		return LOCUS_ENOMEM;
	s->queue = q;
	uint32_t *cc = locus__reallocarray(s->comp_cls, n, sizeof *cc);
	if (!cc)
		return LOCUS_ENOMEM;
	s->comp_cls = cc;
	uint64_t *mk = locus__reallocarray(s->mark, n, sizeof *mk);
	if (!mk)
		return LOCUS_ENOMEM;
	memset(mk + s->scratch_for, 0, (n - s->scratch_for) * sizeof *mk);
	s->mark = mk;
	if (n > SIZE_MAX / MAXR)
		return LOCUS_ENOMEM;
	uint64_t *bl = locus__reallocarray(s->border, MAXR * n, sizeof *bl);
	if (!bl)
		return LOCUS_ENOMEM;
	s->border = bl;
	struct stop *cp = locus__reallocarray(s->caps, n, sizeof *cp);
	if (!cp)
		return LOCUS_ENOMEM;
	s->caps = cp;
	struct gent *g = locus__reallocarray(s->gheap, n, sizeof *g);
	if (!g)
		return LOCUS_ENOMEM;
	s->gheap = g;
	if (n > (SIZE_MAX / sizeof(struct level) - s->n_res) / MAXR)
		return LOCUS_ENOMEM;
	struct level *lv = locus__reallocarray(s->levels, s->n_res + MAXR * n, sizeof *lv);
	if (!lv)
		return LOCUS_ENOMEM;
	s->levels = lv;
	if (2 * n > s->table_size) {
		size_t size = s->table_size;
		while (size < 2 * n)
			size *= 2;
		uint32_t *t = locus__reallocarray(NULL, size, sizeof *t);
		if (!t)
			return LOCUS_ENOMEM;
		for (size_t i = 0; i < size; i++)
			t[i] = NONE;
		for (size_t i = 0; i < s->table_size; i++)
			if (s->table[i] != NONE)
				table_put(t, size, s->table[i], s->cls[s->table[i]].hash);
		free(s->table);
		s->table = t;
		s->table_size = size;
	}
	s->scratch_for = n;
	return 0;
}

/* Makes sure at least m class slots are free, each with room for PLAN
 * flows, and the scratch is sized for all slots. */
static int reserve_slots(struct locus__share *s, size_t m)
{
	while (s->n_free_cls < m) {
		if (s->cls_used >= NONE - 1)
			return LOCUS_ENOMEM;
		if (locus__grow(&s->cls, &s->cls_cap, s->cls_used + 1, sizeof *s->cls))
			return LOCUS_ENOMEM;
		struct cls *c = &s->cls[s->cls_used];
		memset(c, 0, sizeof *c);
		c->heap_cap = 8;
		c->heap = malloc(c->heap_cap * sizeof *c->heap);
		if (!c->heap)
			return LOCUS_ENOMEM;
		c->gpos = NONE;
		c->next_free = s->free_cls;
		s->free_cls = (uint32_t)s->cls_used++;
		s->n_free_cls++;
	}
	return grow_scratch(s);
}

/* Room for the n planned moves of flows into classes of keys k[]. */
static int reserve(struct locus__share *s, const struct key *k, unsigned n)
{
	if (reserve_slots(s, 2 * (size_t)n))
		return LOCUS_ENOMEM;
	for (unsigned j = 0; j < n; j++) {
		uint32_t c = table_find(s, &k[j], key_hash(&k[j]));
		if (c != NONE && locus__grow(&s->cls[c].heap, &s->cls[c].heap_cap, s->cls[c].n + n,
					     sizeof *s->cls[c].heap))
			return LOCUS_ENOMEM;
		for (uint32_t i = 0; i < k[j].n; i++) {
			struct res *r = &s->res[k[j].res[i]];
			if (locus__grow(&r->cls, &r->cls_cap, r->n_cls + n, sizeof *r->cls))
				return LOCUS_ENOMEM;
		}
	}
	return 0;
}

/* ---- classes -------------------------------------------------------- */

/* Copies the head flow's fields into class c after its heap changed. */
static void head_sync(struct locus__share *s, struct cls *c)
{
	if (c->n) {
		const struct flow *f = &s->flows[c->heap[0]];
		c->head_target = f->target;
		c->head_bytes = f->bytes;
		c->head_seq = f->seq;
	}
}

/* Brings the class's vtime to the current time. */
static void cls_touch(struct locus__share *s, struct cls *c)
{
	if (c->t < s->now) {
		if (!is_instant(c))
			c->vtime += c->rate * (s->now - c->t);
		c->t = s->now;
	}
}

/* Queues class c for a new completion time and names its resources as
 * seeds of the component search. */
static void cls_changed(struct locus__share *s, uint32_t c)
{
	struct cls *k = &s->cls[c];
	if (k->qmark != s->epoch) {
		k->qmark = s->epoch;
		s->queue[s->n_queue++] = c;
	}
	for (uint32_t i = 0; i < k->key.n; i++)
		s->seeds[s->n_seeds++] = k->key.res[i];
}

static uint32_t cls_make(struct locus__share *s, const struct key *k, uint64_t h)
{
	uint32_t c = s->free_cls;
	struct cls *x = &s->cls[c];
	s->free_cls = x->next_free;
	s->n_free_cls--;
	x->key = *k;
	x->hash = h;
	x->n = 0;
	x->gpos = NONE;
	/* A class on shared resources gets its rate from the filling. */
	x->rate = k->n ? 0 : k->cap;
	x->vtime = 0;
	x->t = s->now;
	x->scale = 0;
	x->done_at = INFINITY;
	x->held_by = NONE;
	table_put(s->table, s->table_size, c, h);
	for (uint32_t i = 0; i < k->n; i++) {
		struct res *r = &s->res[k->res[i]];
		x->res_pos[i] = (uint32_t)r->n_cls;
		r->cls[r->n_cls++] = c;
	}
	return c;
}

static void cls_free(struct locus__share *s, uint32_t c)
{
	struct cls *x = &s->cls[c];
	table_del(s, c);
	for (uint32_t i = 0; i < x->key.n; i++) {
		struct res *r = &s->res[x->key.res[i]];
		uint32_t p = x->res_pos[i], last = r->cls[--r->n_cls];
		if (p != r->n_cls) {
			/* The last class of the list takes p: find which of its
			 * resources this is to update its index. */
			struct cls *y = &s->cls[last];
			r->cls[p] = last;
			for (uint32_t j = 0; j < y->key.n; j++)
				if (y->key.res[j] == x->key.res[i])
					y->res_pos[j] = p;
		}
	}
	if (x->held_by != NONE)
		s->res[x->held_by].n_held--;
	x->held_by = NONE;
	if (x->gpos != NONE)
		gheap_del(s, x->gpos);
	x->gpos = NONE;
	x->next_free = s->free_cls;
	s->free_cls = c;
	s->n_free_cls++;
}

/* Adds flow f with `rem` bytes left to the class of key k. */
static void cls_add(struct locus__share *s, const struct key *k, uint32_t f, double rem)
{
	uint64_t h = key_hash(k);
	uint32_t c = table_find(s, k, h);
	if (c == NONE)
		c = cls_make(s, k, h);
	struct cls *x = &s->cls[c];
	struct flow *fl = &s->flows[f];
	cls_touch(s, x);
	fl->target = is_instant(x) ? s->now : x->vtime + rem;
	if (rem > x->scale)
		x->scale = rem;
	fl->cls = c;
	x->heap[x->n++] = f;
	fheap_up(s, x, x->n - 1);
	head_sync(s, x);
	cls_changed(s, c);
}

/* Takes flow f out of its class; returns the bytes it has left. */
static double cls_remove(struct locus__share *s, uint32_t f)
{
	struct flow *fl = &s->flows[f];
	uint32_t c = fl->cls;
	struct cls *x = &s->cls[c];
	cls_touch(s, x);
	double rem = is_instant(x) ? 0 : fl->target - x->vtime;
	fheap_del(s, x, fl->pos);
	head_sync(s, x);
	fl->cls = NONE;
	cls_changed(s, c);
	if (!x->n)
		cls_free(s, c);
	return rem > 0 ? rem : 0;
}

/* Subtracts vtime from every target, so targets stay small next to the
 * sizes they measure. Rounding may tie targets: the heap is rebuilt. */
static void cls_rebase(struct locus__share *s, struct cls *c)
{
	double v = c->vtime, top = 0;
	for (uint32_t i = 0; i < c->n; i++) {
		struct flow *f = &s->flows[c->heap[i]];
		f->target -= v;
		if (f->target > top)
			top = f->target;
	}
	c->vtime = 0;
	c->scale = top;
	for (uint32_t i = c->n / 2; i-- > 0;)
		fheap_down(s, c, i);
	head_sync(s, c);
}

/* Recomputes the completion time of class c's head. */
static void cls_refresh(struct locus__share *s, uint32_t c)
{
	struct cls *x = &s->cls[c];
	if (!x->n)
		return;
	cls_touch(s, x);
	if (is_instant(x)) {
		x->done_at = x->head_target;
	} else {
		if (x->vtime > REBASE * x->scale)
			cls_rebase(s, x);
		double rem = x->head_target - x->vtime;
		double tol = REL_EPS * x->head_bytes + 4 * DBL_EPSILON * fabs(x->vtime);
		x->done_at = rem <= tol ? x->t : x->t + rem / x->rate;
	}
	gheap_fix(s, c);
}

/* ---- progressive filling --------------------------------------------- */

/* Puts resource r in the region S of this event (if it is not there). */
static void region_add(struct locus__share *s, uint32_t r)
{
	struct rfill *x = &s->fill[r];
	if (x->smark == s->epoch)
		return;
	x->smark = s->epoch;
	s->comp_res[s->n_sres++] = r;
}

/* Prepares resource r for a filling round, with `eff` bytes/s to give
 * (its open flows are counted apart). */
static void fill_init(struct rfill *x, double eff)
{
	x->eff = eff;
	x->load = 0;
	x->saturated = 0;
}

/* The level at which resource r's open flows would fill it. */
static double level_of(const struct rfill *x)
{
	return (x->eff - x->load) / x->open;
}

/* Heap order over the n_levels entries (built in one pass). */
static void level_heapify(struct locus__share *s)
{
	for (size_t i = s->n_levels / 2; i-- > 0;)
		level_sift(s, i, s->levels[i]);
}

/* Freezes class c at `rate`, held there by resource `by` (NONE: its cap):
 * its flows stop rising and their load on each resource is fixed, which
 * raises those resources' saturation levels. */
static void freeze(struct locus__share *s, uint32_t id, double rate, uint32_t by)
{
	struct cls *c = &s->cls[id];
	s->mark[id] |= 1;
	c->fill_rate = rate;
	c->frozen_by = by;
	for (uint32_t i = 0; i < c->key.n; i++) {
		struct rfill *r = &s->fill[c->key.res[i]];
		r->load += c->n * rate;
		r->open -= c->n;
	}
}

static struct stop stop_of(double level, uint32_t id)
{
	struct stop b = {0, id};
	level += 0.0; /* no -0 */
	memcpy(&b.level, &level, sizeof level);
	return b;
}

static double stop_level(const struct stop *b)
{
	double v;
	memcpy(&v, &b->level, sizeof v);
	return v;
}

/* Whether stop x comes before y: by (level, id), without a branch (the
 * keys come in random order, so a branch on each comparison would be
 * mispredicted half the time). */
static int stop_before(const struct stop *x, const struct stop *y)
{
	return (x->level < y->level) | ((x->level == y->level) & (x->id < y->id));
}

/* Sorts a[0 .. n) by (level, id): quicksort on the median of three with a
 * partition that does not branch on the keys, insertion below 16. The
 * keys are unique, so any sort gives this order, and no run of equal
 * keys can make the partition lopsided. */
static void stop_sort(struct stop *a, size_t n)
{
	while (n > 16) {
		size_t m = n / 2;
		struct stop t;
		if (stop_before(&a[m], &a[0]))
			t = a[m], a[m] = a[0], a[0] = t;
		if (stop_before(&a[n - 1], &a[m])) {
			t = a[m], a[m] = a[n - 1], a[n - 1] = t;
			if (stop_before(&a[m], &a[0]))
				t = a[m], a[m] = a[0], a[0] = t;
		}
		/* The pivot to the end; those before it to the front. */
		t = a[m], a[m] = a[n - 1], a[n - 1] = t;
		const struct stop p = a[n - 1];
		size_t i = 0;
		for (size_t j = 0; j < n - 1; j++) {
			struct stop v = a[j];
			size_t lt = (size_t)stop_before(&v, &p);
			a[j] = a[i];
			a[i] = v;
			i += lt;
		}
		a[n - 1] = a[i];
		a[i] = p;
		/* a[0 .. i) < p = a[i] < a[i + 1 .. n): the smaller part first. */
		if (i < n - i - 1) {
			stop_sort(a, i);
			a += i + 1;
			n -= i + 1;
		} else {
			stop_sort(a + i + 1, n - i - 1);
			n = i;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct stop v = a[i];
		size_t k = i;
		for (; k > 0 && stop_before(&v, &a[k - 1]); k--)
			a[k] = a[k - 1];
		a[k] = v;
	}
}

/* Whether a resource carrying `load` of `capacity` is full, up to rounding. */
static int full(double load, double capacity)
{
	return load >= capacity * (1 - SAT_EPS);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Whether border resource r has one region class: a cap, not a level. */
static int lone(const struct locus__share *s, uint32_t r)
{
	return s->fill[r].smark != s->epoch && s->fill[r].n_reg == 1;
}

/*
 * Orders what stops the region classes before the resources that many of
 * them share fill: their caps (s->caps, sorted, returned in *n_caps), and
 * the lone border resources (s->lones, sorted, in *n_lones), which the
 * level heap then leaves out. Each border resource of several region
 * classes lists them as in its class list, so that its saturation freezes
 * them in the order a scan of the whole list would, without reading the
 * classes outside.
 */
static void order_stops(struct locus__share *s, size_t *n_caps, size_t *n_lones)
{
	size_t at = 0, nc = 0, nl = 0;
	for (size_t i = s->n_sres; i < s->n_comp_res; i++) {
		struct rfill *o = &s->fill[s->comp_res[i]];
		if (o->n_reg > 1) {
			o->first = (uint32_t)at;
			at += o->n_reg;
			o->n_reg = 0; /* counted again as the list fills */
		}
	}
	for (size_t i = 0; i < s->n_comp_cls; i++) {
		uint32_t c = s->comp_cls[i];
		const struct cls *x = &s->cls[c];
		if (x->key.cap != INFINITY)
			s->caps[nc++] = stop_of(x->key.cap, c);
		for (uint32_t k = 0; k < x->key.n; k++) {
			uint32_t r = x->key.res[k];
			struct rfill *o = &s->fill[r];
			if (o->smark == s->epoch)
				continue;
			if (o->first == NONE) {
				o->only = c;
				s->lones[nl++] = stop_of(level_of(o), r);
			} else {
				s->border[o->first + o->n_reg++] =
				    (uint64_t)x->res_pos[k] << 32 | c;
			}
		}
	}
	for (size_t i = s->n_sres; i < s->n_comp_res; i++) {
		const struct rfill *o = &s->fill[s->comp_res[i]];
		if (o->first == NONE)
			continue;
		uint64_t *l = s->border + o->first;
		if (o->n_reg > 16) {
			qsort(l, o->n_reg, sizeof *l, u64_cmp);
			continue;
		}
		for (uint32_t j = 1; j < o->n_reg; j++) {
			uint64_t v = l[j];
			uint32_t m = j;
			for (; m > 0 && l[m - 1] > v; m--)
				l[m] = l[m - 1];
			l[m] = v;
		}
	}
	stop_sort(s->caps, nc);
	stop_sort(s->lones, nl);
	*n_caps = nc;
	*n_lones = nl;
}

/*
 * One round of the region's filling: the classes C on the resources of S,
 * the resources O they also cross outside S with what the classes outside
 * C leave there, and progressive filling of C over S and O. The new rates
 * are in fill_rate; nothing is committed. The border is read from each
 * resource's totals (tot, n_held) less what the region classes put there,
 * so its cost is that of the region, not of every class on the border.
 */
static void fill_round(struct locus__share *s)
{
	s->stamp++;
	s->n_comp_res = s->n_sres;
	s->n_comp_cls = 0;
	for (size_t i = 0; i < s->n_sres; i++) {
		fill_init(&s->fill[s->comp_res[i]], s->res[s->comp_res[i]].capacity);
		s->fill[s->comp_res[i]].open = 0;
	}
	for (size_t i = 0; i < s->n_sres; i++) {
		const struct res *r = &s->res[s->comp_res[i]];
		for (size_t j = 0; j < r->n_cls; j++) {
			uint32_t c = r->cls[j];
			struct cls *x = &s->cls[c];
			if (s->mark[c] >> 1 == s->stamp)
				continue;
			s->mark[c] = 2 * (uint64_t)s->stamp;
			s->comp_cls[s->n_comp_cls++] = c;
			for (uint32_t k = 0; k < x->key.n; k++) {
				uint32_t rid = x->key.res[k];
				struct rfill *o = &s->fill[rid];
				if (o->smark == s->epoch) {
					o->open += x->n;
					continue;
				}
				if (o->omark != s->stamp) {
					o->omark = s->stamp;
					o->n_reg = o->n_held_reg = 0;
					o->reg_old = o->reg_max = 0;
					o->open = 0;
					s->comp_res[s->n_comp_res++] = rid;
				}
				o->open += x->n;
				o->n_reg++;
				o->n_held_reg += x->held_by == rid;
				o->reg_old += x->n * x->rate;
			}
		}
	}
	/* What the classes outside the region take from each resource of O
	 * stays theirs: the region fills what is left. */
	for (size_t i = s->n_sres; i < s->n_comp_res; i++) {
		const struct res *o = &s->res[s->comp_res[i]];
		struct rfill *of = &s->fill[s->comp_res[i]];
		double load = o->tot - of->reg_old;
		if (!(load > 0) || of->n_reg == o->n_cls)
			load = 0;
		fill_init(of, o->capacity - load > 0 ? o->capacity - load : 0);
		of->out_load = load;
		of->n_out = (uint32_t)(o->n_cls - of->n_reg);
		of->first = NONE;
	}
	size_t n_caps, n_lones, next = 0, next_lone = 0, left = s->n_comp_cls;
	order_stops(s, &n_caps, &n_lones);
	s->n_levels = 0;
	for (size_t i = 0; i < s->n_comp_res; i++) {
		uint32_t r = s->comp_res[i];
		if (s->fill[r].open > 0 && !lone(s, r)) {
			s->levels[s->n_levels].level = level_of(&s->fill[r]);
			s->levels[s->n_levels++].res = r;
		}
	}
	level_heapify(s);

	double lam = 0;
	while (left) {
		while (next < n_caps && s->mark[s->caps[next].id] & 1)
			next++;
		while (next_lone < n_lones && s->mark[s->fill[s->lones[next_lone].id].only] & 1)
			next_lone++;
		const struct stop *lone = next_lone < n_lones ? &s->lones[next_lone] : NULL;
		double cap = next < n_caps ? stop_level(&s->caps[next]) : INFINITY;
		double lone_at = lone ? stop_level(lone) : INFINITY;
		/* A resource's level only rises as classes on it freeze, so
		 * the heap keeps lower bounds: the top is re-keyed until its
		 * level is current. The lone resources sit apart, their
		 * levels exact; a top behind the first of them is not looked
		 * at, as it would not be were they in the heap, so that the
		 * re-keying (and the rounding of the levels) is the same. */
		while (s->n_levels) {
			struct level top = s->levels[0];
			if (lone && !(top.level < lone_at ||
				      (top.level == lone_at && top.res < (uint32_t)lone->id)))
				break;
			const struct rfill *r = &s->fill[top.res];
			if (r->saturated || !(r->open > 0)) {
				level_pop(s);
				continue;
			}
			double now = level_of(r);
			if (!(now > top.level))
				break;
			/* Re-keyed in place: one sift instead of a pop and a push. */
			top.level = now;
			level_sift(s, 0, top);
		}
		int heap_first =
		    s->n_levels &&
		    (!lone || s->levels[0].level < lone_at ||
		     (s->levels[0].level == lone_at && s->levels[0].res < (uint32_t)lone->id));
		double sat = heap_first ? s->levels[0].level : lone_at;
		if (cap == INFINITY && sat == INFINITY) {
			/* Cannot happen (a shared resource is finite); stay safe. */
			for (size_t i = 0; i < s->n_comp_cls; i++)
				if (!(s->mark[s->comp_cls[i]] & 1))
					freeze(s, s->comp_cls[i], INFINITY, NONE);
			break;
		}
		if (cap <= sat) {
			/* Exactly its cap, even if rounding put the level past it. */
			lam = cap > lam ? cap : lam;
			freeze(s, (uint32_t)s->caps[next].id, cap, NONE);
			left--;
		} else if (!heap_first) {
			/* A lone resource saturates: it freezes its one class. */
			uint32_t rid = (uint32_t)lone->id;
			lam = sat > lam ? sat : lam;
			s->fill[rid].saturated = 1;
			freeze(s, s->fill[rid].only, lam, rid);
			left--;
		} else {
			uint32_t rid = s->levels[0].res;
			const struct res *r = &s->res[rid];
			level_pop(s);
			lam = sat > lam ? sat : lam;
			struct rfill *rf = &s->fill[rid];
			rf->saturated = 1;
			uint64_t open = 2 * (uint64_t)s->stamp;
			if (rf->smark == s->epoch) {
				/* In S: all its classes are in the region. */
				for (size_t j = 0; j < r->n_cls; j++) {
					if (s->mark[r->cls[j]] == open) {
						freeze(s, r->cls[j], lam, rid);
						left--;
					}
				}
			} else {
				for (uint32_t j = 0; j < rf->n_reg; j++) {
					uint32_t c = (uint32_t)s->border[rf->first + j];
					if (s->mark[c] == open) {
						freeze(s, c, lam, rid);
						left--;
					}
				}
			}
		}
	}
	/* The top new rate the region puts on each border resource. */
	for (size_t i = 0; i < s->n_comp_cls; i++) {
		const struct cls *x = &s->cls[s->comp_cls[i]];
		for (uint32_t k = 0; k < x->key.n; k++) {
			struct rfill *o = &s->fill[x->key.res[k]];
			if (o->smark != s->epoch && x->fill_rate > o->reg_max)
				o->reg_max = x->fill_rate;
		}
	}
}

/* The top rate of the classes outside the region on border resource o
 * (read once a round, from its class list). */
static double border_max(struct locus__share *s, uint32_t rid)
{
	struct rfill *of = &s->fill[rid];
	if (of->mmark != s->stamp) {
		const struct res *o = &s->res[rid];
		double most = 0;
		of->mmark = s->stamp;
		for (size_t j = 0; j < o->n_cls; j++) {
			const struct cls *x = &s->cls[o->cls[j]];
			if (s->mark[o->cls[j]] >> 1 != s->stamp && x->rate > most)
				most = x->rate;
		}
		of->out_max = most;
	}
	return of->out_max;
}

/* Whether region class x, frozen by a border resource where it is not the
 * fastest, has another bottleneck: its cap, or a full resource where no
 * flow is faster (levels can tie, and the filling names one of them). If
 * so, x remembers it. */
static int other_bottleneck(struct locus__share *s, struct cls *x)
{
	double top = x->fill_rate * (1 + SAT_EPS);
	if (x->fill_rate >= x->key.cap * (1 - SAT_EPS)) {
		x->frozen_by = NONE;
		return 1;
	}
	for (uint32_t k = 0; k < x->key.n; k++) {
		uint32_t rid = x->key.res[k];
		const struct res *r = &s->res[rid];
		const struct rfill *rf = &s->fill[rid];
		int inside = rf->smark == s->epoch;
		if (rid == x->frozen_by ||
		    !full((inside ? 0 : rf->out_load) + rf->load, r->capacity))
			continue;
		if (!inside && (rf->reg_max > top || border_max(s, rid) > top))
			continue;
		size_t j = 0;
		for (; inside && j < r->n_cls; j++)
			if (s->cls[r->cls[j]].fill_rate > top)
				break;
		if (!inside || j == r->n_cls) {
			x->frozen_by = rid;
			return 1;
		}
	}
	return 0;
}

/*
 * Whether the round's rates, with the old rates outside the region, are
 * the max-min fair allocation; else the resources of O to take into S.
 *
 * Every class remembers its bottleneck (held_by): a full resource with no
 * faster flow on it, where the classes it holds all have its top rate
 * lam. Outside classes keep their rates, so they keep their bottlenecks
 * unless one is a resource o of O that the region changed: o is no longer
 * full, or now carries a region class faster than lam. A region class
 * frozen by o must be at least as fast as every outside class there (lam,
 * when o holds outside classes). Each class then has a bottleneck, so the
 * allocation is the (unique) max-min fair one. A resource of O that only
 * region classes cross is inside in all but name and needs no check.
 */
static size_t check_round(struct locus__share *s)
{
	size_t n_fail = 0;
	for (size_t i = s->n_sres; i < s->n_comp_res; i++) {
		uint32_t rid = s->comp_res[i];
		const struct res *o = &s->res[rid];
		struct rfill *of = &s->fill[rid];
		of->fmark = 0;
		if (!of->n_out || o->n_held == of->n_held_reg)
			continue;
		if (!full(of->out_load + of->load, o->capacity) ||
		    of->reg_max > o->lam * (1 + SAT_EPS)) {
			of->fmark = 1;
			s->fails[n_fail++] = rid;
		}
	}
	for (size_t i = 0; i < s->n_comp_cls; i++) {
		struct cls *x = &s->cls[s->comp_cls[i]];
		if (x->frozen_by == NONE)
			continue;
		const struct res *o = &s->res[x->frozen_by];
		struct rfill *of = &s->fill[x->frozen_by];
		if (of->smark == s->epoch || !of->n_out || of->fmark)
			continue;
		double floor = x->fill_rate * (1 + SAT_EPS);
		if (o->n_held > of->n_held_reg ? o->lam <= floor
					       : border_max(s, x->frozen_by) <= floor)
			continue;
		if (!other_bottleneck(s, x)) {
			of->fmark = 1;
			s->fails[n_fail++] = x->frozen_by;
		}
	}
	return n_fail;
}

/*
 * Takes into S what the resources put there from comp_res[from] on reach
 * through bottlenecks: an outside class held by one of them changes rate
 * with it, and so then does every full resource that holds classes on its
 * way, and so on. The rounds would find these wrong one hop at a time,
 * each filling the whole region again; taken at once, a change that
 * travels far costs one or two rounds (issue 25: with every read remote,
 * 2.7 times fewer classes filled).
 */
static void take_reached(struct locus__share *s, size_t from)
{
	for (size_t i = from; i < s->n_sres; i++) {
		uint32_t rid = s->comp_res[i];
		const struct res *o = &s->res[rid];
		for (size_t j = 0; j < o->n_cls; j++) {
			uint32_t c = o->cls[j];
			const struct cls *x = &s->cls[c];
			if (x->held_by != rid || s->mark[c] >> 1 == s->stamp)
				continue;
			for (uint32_t k = 0; k < x->key.n; k++) {
				const struct res *r = &s->res[x->key.res[k]];
				if (r->n_held && full(r->tot, r->capacity))
					region_add(s, x->key.res[k]);
			}
		}
	}
}

/*
 * Recomputes the rates the event changed. A start or an end changes the
 * classes on the seed resources; the max-min fair allocation can change
 * anywhere in their components, but usually changes near them: the region
 * S starts at the seeds and grows only where check_round finds the old
 * rates outside it no longer fair, with what those resources reach
 * (take_reached; after GROW_ROUNDS rounds, by its whole border, so that a
 * wide change is reached in a few rounds). The classes
 * whose rate changed get it and are queued for refresh, and every
 * resource of the region and its border gets its new totals.
 */
static void refill(struct locus__share *s)
{
	s->n_sres = 0;
	for (size_t i = 0; i < s->n_seeds; i++)
		region_add(s, s->seeds[i]);
	for (unsigned round = 1;; round++) {
		fill_round(s);
		s->rounds++;
		s->filled += s->n_comp_cls;
		size_t n_fail = check_round(s);
		if (!n_fail)
			break;
		s->rounds_grown++;
		if (round >= GROW_ROUNDS) {
			size_t end = s->n_comp_res;
			for (size_t i = s->n_sres; i < end; i++)
				if (s->fill[s->comp_res[i]].n_out && !s->fill[s->comp_res[i]].fmark)
					s->fails[n_fail++] = s->comp_res[i];
		}
		size_t from = s->n_sres;
		for (size_t i = 0; i < n_fail; i++)
			region_add(s, s->fails[i]);
		take_reached(s, from);
	}

	/* New totals: exact sums for S, what changed for O. */
	for (size_t i = 0; i < s->n_comp_res; i++) {
		struct res *r = &s->res[s->comp_res[i]];
		const struct rfill *rf = &s->fill[s->comp_res[i]];
		if (i < s->n_sres) {
			r->tot = rf->load;
			r->drift = 0;
		} else {
			r->tot = rf->out_load + rf->load;
			r->drift++;
		}
	}
	for (size_t i = 0; i < s->n_comp_cls; i++) {
		uint32_t c = s->comp_cls[i];
		struct cls *x = &s->cls[c];
		if (x->held_by != x->frozen_by) {
			if (x->held_by != NONE)
				s->res[x->held_by].n_held--;
			if (x->frozen_by != NONE)
				s->res[x->frozen_by].n_held++;
			x->held_by = x->frozen_by;
		}
		if (x->held_by != NONE)
			s->res[x->held_by].lam = x->fill_rate;
		if (x->fill_rate != x->rate) {
			cls_touch(s, x);
			x->rate = x->fill_rate;
			if (x->qmark != s->epoch) {
				x->qmark = s->epoch;
				s->queue[s->n_queue++] = c;
			}
		}
	}
	/* A border total kept by differences is summed again now and then,
	 * so rounding never builds up. */
	for (size_t i = s->n_sres; i < s->n_comp_res; i++) {
		struct res *r = &s->res[s->comp_res[i]];
		if (r->drift >= RESUM) {
			double t = 0;
			for (size_t j = 0; j < r->n_cls; j++)
				t += s->cls[r->cls[j]].n * s->cls[r->cls[j]].rate;
			r->tot = t;
			r->drift = 0;
		}
	}
}

/* ---- events --------------------------------------------------------- */

static void event_begin(struct locus__share *s, double t)
{
	s->epoch++;
	s->now = t;
	s->n_seeds = 0;
	s->n_queue = 0;
}

static void event_end(struct locus__share *s)
{
	if (s->n_seeds)
		refill(s);
	for (size_t i = 0; i < s->n_queue; i++)
		cls_refresh(s, s->queue[i]);
}

/* Moves flow f, whose key changed to k, to its new class. */
static void move(struct locus__share *s, uint32_t f, const struct key *k)
{
	double rem = cls_remove(s, f);
	cls_add(s, k, f, rem);
}

static void add_unique(uint32_t *list, unsigned *n, uint32_t x)
{
	for (unsigned i = 0; i < *n; i++)
		if (list[i] == x)
			return;
	list[(*n)++] = x;
}

/* ---- the interface --------------------------------------------------- */

int locus__share_create(struct locus__share **out, size_t n_res, const double *capacity)
{
	if (!out || (n_res && !capacity) || n_res >= NONE)
		return LOCUS_EINVAL;
	*out = NULL;
	for (size_t i = 0; i < n_res; i++)
		if (!(capacity[i] > 0))
			return LOCUS_EINVAL;
	struct locus__share *s = calloc(1, sizeof *s);
	if (!s)
		return LOCUS_ENOMEM;
	s->n_res = n_res;
	s->free_flow = NONE;
	s->free_cls = NONE;
	s->res = locus__calloc(n_res, sizeof *s->res);
	s->fill = locus__calloc(n_res ? n_res : 1, sizeof *s->fill);
	s->comp_res = locus__calloc(n_res, sizeof *s->comp_res);
	s->fails = locus__calloc(n_res, sizeof *s->fails);
	s->lones = locus__calloc(n_res ? n_res : 1, sizeof *s->lones);
	s->table_size = 16;
	s->table = malloc(s->table_size * sizeof *s->table);
	if (!s->res || !s->fill || !s->comp_res || !s->fails || !s->lones || !s->table) {
		locus__share_destroy(s);
		return LOCUS_ENOMEM;
	}
	for (size_t i = 0; i < s->table_size; i++)
		s->table[i] = NONE;
	for (size_t i = 0; i < n_res; i++)
		s->res[i].capacity = capacity[i];
	*out = s;
	return 0;
}

void locus__share_destroy(struct locus__share *s)
{
	if (!s)
		return;
	if (s->res)
		for (size_t i = 0; i < s->n_res; i++)
			free(s->res[i].cls);
	for (size_t i = 0; i < s->cls_used; i++)
		free(s->cls[i].heap);
	free(s->res);
	free(s->fill);
	free(s->flows);
	free(s->cls);
	free(s->table);
	free(s->gheap);
	free(s->queue);
	free(s->comp_res);
	free(s->fails);
	free(s->comp_cls);
	free(s->mark);
	free(s->border);
	free(s->caps);
	free(s->lones);
	free(s->levels);
	free(s);
}

int locus__share_start(struct locus__share *s, double now, const uint32_t *res, unsigned n,
		       double cap, double bytes, uint64_t user)
{
	return locus__share_start_id(s, now, res, n, cap, bytes, user, NULL);
}

int locus__share_start_id(struct locus__share *s, double now, const uint32_t *res, unsigned n,
			  double cap, double bytes, uint64_t user, uint32_t *id)
{
	if (!s || n > MAXR || (n && !res) || isnan(now) || !(cap >= 0) || !(bytes >= 0) ||
	    bytes == INFINITY)
		return LOCUS_EINVAL;
	if (cap == 0)
		cap = INFINITY;
	if (!n && cap == INFINITY)
		return LOCUS_EINVAL;
	struct flow nf = {.user = user, .bytes = bytes, .cap = cap, .cls = NONE};
	for (unsigned i = 0; i < n; i++) {
		if (res[i] >= s->n_res)
			return LOCUS_EINVAL;
		for (unsigned j = 0; j < i; j++)
			if (res[j] == res[i])
				return LOCUS_EINVAL;
		/* An infinite resource constrains nothing; a flow of 0 bytes
		 * is done at once and takes nothing from anyone. */
		if (s->res[res[i]].capacity == INFINITY || bytes == 0)
			continue;
		uint32_t j = nf.n_res++;
		for (; j > 0 && nf.res[j - 1] > res[i]; j--)
			nf.res[j] = nf.res[j - 1];
		nf.res[j] = res[i];
	}

	if (s->free_flow == NONE) {
		if (s->flows_used >= NONE - 1 ||
		    locus__grow(&s->flows, &s->flows_cap, s->flows_used + 1, sizeof *s->flows))
			return LOCUS_ENOMEM;
		s->flows[s->flows_used].cls = NONE;
		s->flows[s->flows_used].pos = NONE;
		s->free_flow = (uint32_t)s->flows_used++;
	}
	uint32_t f = s->free_flow;

	/* Count the flow on its resources; a resource that had one flow is
	 * now shared, which changes that flow's key. */
	uint32_t alone[MAXR];
	unsigned n_alone = 0;
	for (uint32_t i = 0; i < nf.n_res; i++) {
		struct res *r = &s->res[nf.res[i]];
		r->n_flows++;
		r->xor_flows ^= f;
		if (r->n_flows == 2)
			add_unique(alone, &n_alone, r->xor_flows ^ f);
	}
	struct key keys[PLAN];
	for (unsigned j = 0; j < n_alone; j++)
		flow_key(s, &s->flows[alone[j]], &keys[j]);
	flow_key(s, &nf, &keys[n_alone]);
	if (reserve(s, keys, n_alone + 1)) {
		for (uint32_t i = 0; i < nf.n_res; i++) {
			s->res[nf.res[i]].n_flows--;
			s->res[nf.res[i]].xor_flows ^= f;
		}
		return LOCUS_ENOMEM;
	}

	s->free_flow = s->flows[f].pos;
	nf.seq = s->seq++;
	s->flows[f] = nf;
	event_begin(s, now > s->now ? now : s->now);
	for (unsigned j = 0; j < n_alone; j++)
		move(s, alone[j], &keys[j]);
	cls_add(s, &keys[n_alone], f, bytes);
	event_end(s);
	s->count++;
	if (id)
		*id = f;
	return 0;
}

double locus__share_next(const struct locus__share *s)
{
	return s && s->gn ? s->gheap[0].at : INFINITY;
}

/* Takes flow f out at time `at`: uncounts it on its resources (a resource
 * left with one flow makes it that flow's own, changing its key), moves
 * the flows whose keys changed and frees its slot. Returns the bytes it
 * had left, or -1 (LOCUS_ENOMEM: nothing changed). */
static double take_out(struct locus__share *s, uint32_t f, double at)
{
	struct flow *fl = &s->flows[f];
	uint32_t alone[MAXR];
	unsigned n_alone = 0;
	for (uint32_t i = 0; i < fl->n_res; i++) {
		struct res *r = &s->res[fl->res[i]];
		r->n_flows--;
		r->xor_flows ^= f;
		if (r->n_flows == 1)
			add_unique(alone, &n_alone, r->xor_flows);
	}
	struct key keys[MAXR];
	for (unsigned j = 0; j < n_alone; j++)
		flow_key(s, &s->flows[alone[j]], &keys[j]);
	if (reserve(s, keys, n_alone)) {
		for (uint32_t i = 0; i < fl->n_res; i++) {
			s->res[fl->res[i]].n_flows++;
			s->res[fl->res[i]].xor_flows ^= f;
		}
		return -1;
	}
	event_begin(s, at > s->now ? at : s->now);
	double left = cls_remove(s, f);
	for (unsigned j = 0; j < n_alone; j++)
		move(s, alone[j], &keys[j]);
	event_end(s);
	fl = &s->flows[f];
	fl->pos = s->free_flow;
	s->free_flow = f;
	s->count--;
	return left;
}

int locus__share_pop(struct locus__share *s, double now, uint64_t *user)
{
	if (!s || !s->gn)
		return 0;
	uint32_t c = s->gheap[0].cls;
	double at = s->cls[c].done_at;
	if (!(at <= now))
		return 0;
	uint32_t f = s->cls[c].heap[0];
	uint64_t u = s->flows[f].user;
	/* The rates change when the flow completes, not later. */
	if (take_out(s, f, at) < 0)
		return LOCUS_ENOMEM;
	if (user)
		*user = u;
	return 1;
}

int locus__share_cancel(struct locus__share *s, double now, uint32_t id, double *left)
{
	if (!s || id >= s->flows_used || s->flows[id].cls == NONE || isnan(now))
		return LOCUS_EINVAL;
	double l = take_out(s, id, now);
	if (l < 0)
		return LOCUS_ENOMEM;
	if (left)
		*left = l;
	return 0;
}

double locus__share_left(const struct locus__share *s, uint32_t id, double now)
{
	if (!s || id >= s->flows_used || s->flows[id].cls == NONE)
		return 0;
	const struct flow *f = &s->flows[id];
	const struct cls *c = &s->cls[f->cls];
	if (is_instant(c))
		return 0;
	double v = c->vtime + (now > c->t ? c->rate * (now - c->t) : 0);
	double rem = f->target - v;
	return rem > 0 ? rem : 0;
}

int locus__share_set_capacity(struct locus__share *s, double now, uint32_t r, double capacity)
{
	if (!s || r >= s->n_res || !(capacity > 0) || capacity == INFINITY ||
	    s->res[r].capacity == INFINITY || isnan(now))
		return LOCUS_EINVAL;
	struct res *x = &s->res[r];
	struct key k;
	uint32_t f = NONE;
	if (x->n_flows == 1) {
		/* The one flow on it has it to itself: its key's cap changes. */
		double was = x->capacity;
		f = x->xor_flows;
		x->capacity = capacity;
		flow_key(s, &s->flows[f], &k);
		x->capacity = was;
		if (reserve(s, &k, 1))
			return LOCUS_ENOMEM;
	}
	event_begin(s, now > s->now ? now : s->now);
	x->capacity = capacity;
	if (f != NONE)
		move(s, f, &k);
	else if (x->n_flows >= 2)
		s->seeds[s->n_seeds++] = r; /* its classes are filled again */
	event_end(s);
	return 0;
}

double locus__share_rate(const struct locus__share *s, uint64_t user)
{
	if (!s)
		return -1;
	for (size_t i = 0; i < s->flows_used; i++)
		if (s->flows[i].cls != NONE && s->flows[i].user == user)
			return s->cls[s->flows[i].cls].rate;
	return -1;
}

size_t locus__share_count(const struct locus__share *s)
{
	return s ? s->count : 0;
}

void locus__share_stats(const struct locus__share *s, uint64_t *rounds, uint64_t *grown,
			uint64_t *filled)
{
	*rounds = s ? s->rounds : 0;
	*grown = s ? s->rounds_grown : 0;
	*filled = s ? s->filled : 0;
}
