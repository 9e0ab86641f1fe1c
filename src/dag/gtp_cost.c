/*
 * The costs of a GTP rescheduling point (gtp.c describes the policy):
 * Eqs. 3 to 11 of ../shared/papers/gtp.txt, with copies Eqs. 12 and 13,
 * for every unfinished task on every processor from what the monitor
 * reports, and on a shared network the booking of each transfer on the
 * resources it crosses (arrival), so that transfers that share an
 * interface queue in the estimate as they do in the run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dag/gtp_impl.h"
#include "locus/heap.h"

struct rack_key {
	const char *name;
	uint32_t node;
};

static int cmp_rack(const void *a, const void *b)
{
	const struct rack_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* On a shared network: each node's rack index and the booking arrays.
 * Returns 0 or LOCUS_ENOMEM. */
int locus__gtp_shared_init(struct gtp *s)
{
	const struct locus_platform *p = s->wl->platform;
	s->nn = (uint32_t)p->n_nodes;
	struct rack_key *k = malloc((s->nn ? s->nn : 1) * sizeof *k);
	s->rack = malloc((s->nn ? s->nn : 1) * sizeof *s->rack);
	if (!k || !s->rack) {
		free(k);
		return LOCUS_ENOMEM;
	}
	for (uint32_t n = 0; n < s->nn; n++)
		k[n] = (struct rack_key){p->nodes[n].rack, n};
	qsort(k, s->nn, sizeof *k, cmp_rack);
	s->n_racks = 0;
	for (uint32_t i = 0; i < s->nn; i++) {
		if (i && strcmp(k[i].name, k[i - 1].name))
			s->n_racks++;
		s->rack[k[i].node] = s->n_racks;
	}
	s->n_racks += s->nn > 0;
	free(k);
	s->n_lanes = 3 * s->nn + 2 * s->n_racks + 1;
	s->lanes = calloc(s->n_lanes, sizeof *s->lanes);
	/* A candidate books at most 6 resources an input. */
	uint32_t most = 0;
	for (uint32_t t = 0; t < s->n; t++)
		if (s->g->tasks[t].n_in > most)
			most = s->g->tasks[t].n_in;
	s->undo_cap = (size_t)6 * most + 6;
	s->undo = malloc(s->undo_cap * sizeof *s->undo);
	s->src = malloc((s->g->n_objects ? s->g->n_objects : 1) * sizeof *s->src);
	for (size_t o = 0; s->src && o < s->g->n_objects; o++)
		s->src[o] = LOCUS_NONE;
	size_t objects = s->g->n_objects ? s->g->n_objects : 1;
	s->fly_head = malloc(objects * sizeof *s->fly_head);
	s->fly_gen = calloc(objects, sizeof *s->fly_gen);
	s->fly_mark = 1; /* generation 0 is no one's */
	return s->lanes && s->undo && s->src && s->fly_head && s->fly_gen ? 0 : LOCUS_ENOMEM;
}

/* What an event computes once (struct gtp's bw_at, cm_at), where it fits:
 * the pairs' bandwidth up to 1 Mi pairs, GTP/c's arrivals of done inputs
 * on contention-free links up to 16 Mi entries (else each is computed
 * where it is needed). Returns 0 or LOCUS_ENOMEM. */
int locus__gtp_caches_init(struct gtp *s)
{
	/* Generation 0 is no one's: the caches start empty. */
	s->event = 1;
	size_t nodes = s->wl->platform->n_nodes, pairs = nodes * nodes;
	if (pairs && pairs <= ((size_t)1 << 20)) {
		s->bw_at = malloc(pairs * sizeof *s->bw_at);
		s->bw_gen = calloc(pairs, sizeof *s->bw_gen);
		if (!s->bw_at || !s->bw_gen)
			return LOCUS_ENOMEM;
	}
	size_t cm = (size_t)s->g->n_objects * nodes * 2;
	if (s->copies && !s->shared && cm && cm <= ((size_t)1 << 24)) {
		s->cm_at = malloc(cm * sizeof *s->cm_at);
		s->cm_gen = calloc(cm, sizeof *s->cm_gen);
		if (!s->cm_at || !s->cm_gen)
			return LOCUS_ENOMEM;
	}
	return 0;
}

/* The bandwidth from node a to node b now: the monitor's, asked once an
 * event for each pair (a point asks it for every input of every task on
 * every processor). */
static double pair_bw_now(struct gtp *s, uint32_t a, uint32_t b)
{
	if (!s->bw_at)
		return s->mon->pair_bw(s->mon, a, b);
	size_t at = (size_t)a * s->wl->platform->n_nodes + b;
	if (s->bw_gen[at] != s->event) {
		s->bw_gen[at] = s->event;
		s->bw_at[at] = s->mon->pair_bw(s->mon, a, b);
	}
	return s->bw_at[at];
}

/* Eq. 3: moving `left` bytes from node a to node b, a transfer begun
 * (no start-up) or not. */
double locus__gtp_comm(struct gtp *s, double left, uint32_t a, uint32_t b, int begun)
{
	if (a == b || !(left > 0))
		return 0;
	double bw = pair_bw_now(s, a, b);
	if (!(bw > 0))
		return INFINITY;
	return (begun ? 0 : s->wl->platform->latency) + left / bw;
}

/* The resources a transfer from node a to node b crosses on a shared
 * network, into r (at most 6): a's disk and interface out, b's interface
 * in, the racks' uplinks between racks, the backbone (as the simulator
 * routes it). Returns how many. */
static uint32_t res_of(const struct gtp *s, uint32_t a, uint32_t b, uint32_t *r)
{
	const struct locus_platform *p = s->wl->platform;
	uint32_t n = 0, nn = s->nn;
	r[n++] = a;
	r[n++] = nn + a;
	r[n++] = 2 * nn + b;
	if (p->rack_bw > 0 && s->rack[a] != s->rack[b]) {
		r[n++] = 3 * nn + 2 * s->rack[a];
		r[n++] = 3 * nn + 2 * s->rack[b] + 1;
	}
	if (p->backbone_bw > 0)
		r[n++] = 3 * nn + 2 * s->n_racks;
	return n;
}

/* The capacity of resource r of res_of, bytes/s, now. */
static double lane_cap(const struct gtp *s, uint32_t r)
{
	const struct locus_platform *p = s->wl->platform;
	uint32_t nn = s->nn;
	if (r < nn)
		return p->nodes[r].disk_bw;
	if (r < 3 * nn) {
		uint32_t node = r < 2 * nn ? r - nn : r - 2 * nn;
		return p->nodes[node].net_bw * s->mon->bandwidth(s->mon, node);
	}
	return r < 3 * nn + 2 * s->n_racks ? p->rack_bw : p->backbone_bw;
}

/* When `left` bytes sent from node a to node b, ready to go at `ready`,
 * would have arrived (a transfer begun: no start-up). Contention-free
 * (Eq. 3): at once, at the pair's bandwidth. On a shared network while
 * the costing books (map_all), in the first gap from `ready` that every
 * resource it crosses has free for its whole time, which it then holds
 * (`commit`; 0: only looks): so inputs sent to one node, or from one
 * node, queue behind each other as they do on the interfaces they share,
 * where the contention-free estimate has them all at once. */
static double arrival(struct gtp *s, double left, uint32_t a, uint32_t b, int begun, double ready,
		      int commit)
{
	double c = locus__gtp_comm(s, left, a, b, begun);
	if (!s->booking || a == b || !(left > 0) || !(c < INFINITY))
		return ready + c;
	uint32_t r[6], n = res_of(s, a, b, r);
	/* It flows at the pair's rate: a resource carries it beside others
	 * as long as their rates fit in its capacity (a disk or backbone
	 * wider than an interface carries several at once). */
	double rate = (left / (c - (begun ? 0 : s->wl->platform->latency)));
	double start = ready;
	for (int moved = 1; moved;) {
		moved = 0;
		for (uint32_t k = 0; k < n; k++) {
			const struct lane *l = &s->lanes[r[k]];
			/* (A rate above the capacity - an engine's pair
			 * bandwidth that is not its interfaces' - takes it all;
			 * alone on a resource a transfer always fits.) */
			double cap = lane_cap(s, r[k]), first = INFINITY;
			double sum = rate < cap ? rate : cap;
			for (uint32_t i = 0; i < l->n; i++)
				if (l->at[3 * i] < start + c && l->at[3 * i + 1] > start) {
					sum += l->at[3 * i + 2];
					if (l->at[3 * i + 1] < first)
						first = l->at[3 * i + 1];
				}
			if (sum > cap * (1 + 1e-9) && first < INFINITY) {
				start = first;
				moved = 1;
			}
		}
	}
	double end = start + c;
	for (uint32_t k = 0; commit && k < n; k++) {
		struct lane *l = &s->lanes[r[k]];
		if (l->n == l->cap) {
			uint32_t cap = l->cap ? 2 * l->cap : 16;
			double *at = realloc(l->at, (size_t)3 * cap * sizeof *at);
			if (!at) {
				s->oom = 1;
				continue;
			}
			l->at = at;
			l->cap = cap;
		}
		if (s->n_undo == s->undo_cap)
			continue;
		l->at[3 * l->n] = start;
		l->at[3 * l->n + 1] = end;
		l->at[3 * l->n + 2] = rate;
		l->n++;
		s->undo[s->n_undo++] = r[k];
	}
	return end;
}

static size_t asked_slot(const struct gtp *s, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15u) >> 17) & (s->sent_src_cap - 1);
	while (s->sent_src[i].key && s->sent_src[i].key != key)
		i = (i + 1) & (s->sent_src_cap - 1);
	return i;
}

int locus__gtp_asked(struct gtp *s, uint32_t o, uint32_t from, uint32_t to)
{
	if (2 * (s->n_sent_src + 1) > s->sent_src_cap) {
		size_t cap = s->sent_src_cap ? 2 * s->sent_src_cap : 256;
		struct asked *old = s->sent_src, *a = calloc(cap, sizeof *a);
		if (!a)
			return LOCUS_ENOMEM;
		size_t old_cap = s->sent_src_cap;
		s->sent_src = a;
		s->sent_src_cap = cap;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i].key)
				s->sent_src[asked_slot(s, old[i].key)] = old[i];
		free(old);
	}
	uint64_t key = (uint64_t)o * s->nn + to + 1;
	size_t i = asked_slot(s, key);
	s->n_sent_src += !s->sent_src[i].key;
	s->sent_src[i] = (struct asked){key, from};
	return 0;
}

/* Where the transfer of object o under way to node `to` comes from: the
 * node the policy asked for when it still holds a copy, else the node of
 * the producer's processor (the engine sent it from there when it
 * appeared), else its first copy; LOCUS_NONE when no task made it, or its
 * producer is not done, or no copy is left. */
static uint32_t sent_from(const struct gtp *s, uint32_t o, uint32_t to)
{
	const struct locus_replicas *rep = s->mon->replicas;
	uint32_t u = s->g->objects[o].producer;
	if (u == LOCUS_NONE || !s->done[u] || !locus_replicas_count(rep, o))
		return LOCUS_NONE;
	if (s->sent_src_cap) {
		const struct asked *a = &s->sent_src[asked_slot(s, (uint64_t)o * s->nn + to + 1)];
		if (a->key && locus_replicas_has(rep, o, a->from))
			return a->from;
	}
	if (s->pi[u] != LOCUS_NONE && locus_replicas_has(rep, o, locus__gtp_node(s, s->pi[u])))
		return locus__gtp_node(s, s->pi[u]);
	return locus_replicas_nodes(rep, o)[0];
}

/* Books every transfer under way now (a done output that has begun to
 * reach a node, not all there) for what it has left, from the node that
 * holds the producer's output (where the engine sent it from when it
 * appeared), else its first copy, and notes when each ends (struct gtp's
 * fly). A point that left them out costed its mapping on a network
 * freer than the run's: on ../shared/data/stg/100/rand0007.stg (10 nodes,
 * CCR 1.5, nothing varying) 83 transfers begun before GTP's first point
 * to nodes whose tasks it then moved, 193 GB or 19 % of the run's bytes,
 * flowed until 1,081 s beside the ones the mapping booked, and a point
 * estimated at 1,344 s ended at 2,162 (HEFT's 1,906). */
static void book_flying(struct gtp *s, double now)
{
	s->fly_mark++;
	s->n_fly = 0;
	for (uint32_t o = 0; o < s->g->n_objects; o++) {
		for (uint32_t to = 0; to < s->nn; to++) {
			double got = s->mon->moved(s->mon, o, to);
			uint32_t from = got > 0 && got < 1 ? sent_from(s, o, to) : LOCUS_NONE;
			if (from == LOCUS_NONE)
				continue;
			if (s->n_fly == s->fly_cap) {
				uint32_t cap = s->fly_cap ? 2 * s->fly_cap : 64;
				struct fly *f = realloc(s->fly, cap * sizeof *f);
				if (!f) {
					s->oom = 1;
					return;
				}
				s->fly = f;
				s->fly_cap = cap;
			}
			double bytes = (double)s->g->objects[o].bytes * (1 - got);
			struct fly *f = &s->fly[s->n_fly];
			f->end = arrival(s, bytes, from, to, 1, now, 1);
			f->node = to;
			f->next = s->fly_gen[o] == s->fly_mark ? s->fly_head[o] : LOCUS_NONE;
			s->fly_gen[o] = s->fly_mark;
			s->fly_head[o] = s->n_fly++;
			s->n_undo = 0; /* booked for the whole mapping */
		}
	}
}

/* When object o, under way to node `to` as book_flying found it, ends
 * there; a negative value when it is not. */
static double flying(const struct gtp *s, uint32_t o, uint32_t to)
{
	if (!s->fly_gen || s->fly_gen[o] != s->fly_mark)
		return -1;
	for (uint32_t f = s->fly_head[o]; f != LOCUS_NONE; f = s->fly[f].next)
		if (s->fly[f].node == to)
			return s->fly[f].end;
	return -1;
}

/* Takes back what was booked since the undo log held `mark` entries. */
static void unbook(struct gtp *s, size_t mark)
{
	while (s->n_undo > mark)
		s->lanes[s->undo[--s->n_undo]].n--;
}

/* When input object o of task t would be on worker w's node, mapped
 * there now (Eq. 8, or 13 with copies): its producer's EFT and the
 * transfer from the producer's processor (GTP) or the cheapest copy
 * (GTP/c), less what has reached the node (kappa^d) when t stays where it
 * is placed or is not placed yet (its node gathers it then, and what is
 * there or on its way there serves it). A migration counts nothing
 * there: it restarts from scratch (kappa^d = 0, section 3.3), so GTP
 * regathers the whole input from its producer's processor, even onto a
 * node that holds a copy (only the producer's own node has it for
 * nothing), while GTP/c takes a copy on the node for nothing (CM). */
static double cheapest_copy(struct gtp *s, uint32_t o, uint32_t to, double bytes, double got,
			    double now);

static double input_ready(struct gtp *s, uint32_t t, uint32_t o, uint32_t w, double now)
{
	const struct locus_object *ob = &s->g->objects[o];
	uint32_t u = ob->producer, to = locus__gtp_node(s, w);
	if (u == LOCUS_NONE)
		return now; /* a stored input: read when the task starts */
	double bytes = (double)ob->bytes;
	int migrates = s->pi[t] != LOCUS_NONE && s->pi[t] != w;
	/* A done input's arrival on contention-free links depends on the
	 * input, the node and whether t migrates, not on t: once a point. */
	size_t at = ((size_t)o * s->wl->platform->n_nodes + to) * 2 + (size_t)migrates;
	int cache = s->cm_at && s->done[u] && !s->booking;
	if (cache && s->cm_gen[at] == s->event)
		return s->cm_at[at];
	double got = migrates ? 0 : s->mon->moved(s->mon, o, to);
	if (!s->done[u]) {
		/* Sent from the processor u is mapped on, after it ends. */
		return arrival(s, bytes * (1 - got), locus__gtp_node(s, s->newmu[u]), to, got > 0,
			       s->eft[u], 1);
	}
	/* u is done: EFT(u) = t (Eq. 9). */
	if (got >= 1)
		return now;
	if (got > 0 && s->booking) {
		/* Under way there: booked with the others (book_flying). */
		double end = flying(s, o, to);
		if (end >= 0)
			return end;
	}
	if (!s->copies) {
		uint32_t from = s->pi[u] != LOCUS_NONE ? locus__gtp_node(s, s->pi[u]) : LOCUS_NONE;
		if (from == LOCUS_NONE)
			return now;
		return arrival(s, bytes * (1 - got), from, to, got > 0, now, 1);
	}
	/* CM (Eq. 12): the cheapest of the copies; one on the node itself
	 * costs nothing. */
	double r = cheapest_copy(s, o, to, bytes, got, now);
	if (cache) {
		s->cm_gen[at] = s->event;
		s->cm_at[at] = r;
	}
	return r;
}

/* CM (Eq. 12) for input o, done, to node `to`, `got` of it there: when the
 * cheapest of its copies would be there (one on the node itself costs
 * nothing), booked on a shared network. */
static double cheapest_copy(struct gtp *s, uint32_t o, uint32_t to, double bytes, double got,
			    double now)
{
	uint32_t n = locus_replicas_count(s->mon->replicas, o);
	const uint32_t *h = locus_replicas_nodes(s->mon->replicas, o);
	if (!s->shared) {
		/* Contention-free: the copy with the widest pair to the node is
		 * the cheapest (Eq. 3 falls as the bandwidth grows, rounded
		 * as it is), so one Eq. 3 instead of one a copy: the same
		 * value. */
		double left = bytes * (1 - got), widest = 0;
		for (uint32_t k = 0; k < n; k++) {
			if (h[k] == to)
				return now;
			double bw = pair_bw_now(s, h[k], to);
			if (bw > widest)
				widest = bw;
		}
		if (!n || !(left > 0))
			return now;
		if (!(widest > 0))
			return INFINITY;
		return now + ((got > 0 ? 0 : s->wl->platform->latency) + left / widest);
	}
	double best = INFINITY;
	uint32_t from = LOCUS_NONE;
	for (uint32_t k = 0; k < n; k++) {
		double c =
		    h[k] == to ? now : arrival(s, bytes * (1 - got), h[k], to, got > 0, now, 0);
		if (c < best) {
			best = c;
			from = h[k];
		}
	}
	if (from != LOCUS_NONE && from != to && best < INFINITY)
		arrival(s, bytes * (1 - got), from, to, got > 0, now, 1);
	if (s->shared) /* the last costing of t is its mapping's: send uses it */
		s->src[o] = from;
	return n ? best : now;
}

/* When the inputs of unfinished task t would be on worker w's node, mapped
 * there now (Eqs. 6 to 8 without the processor's availability). */
double locus__gtp_data_ready(struct gtp *s, uint32_t t, uint32_t w, double now)
{
	const struct locus_task *tk = &s->g->tasks[t];
	double da = now;
	for (uint32_t i = 0; i < tk->n_in; i++) {
		double r = input_ready(s, t, s->g->inputs[tk->in_at + i], w, now);
		if (s->watch)
			s->watch->input[((size_t)tk->in_at + i) * s->nw + w] = r;
		if (r > da)
			da = r;
	}
	return da;
}

/* EST and EFT of unfinished task t on worker w now (Eqs. 5 to 11), its
 * data ready at da (data_ready; not read when t has started there: EST is
 * now, Eq. 5). */
static double cost_on(const struct gtp *s, uint32_t t, uint32_t w, double now, double da,
		      double *est_out)
{
	int started = s->pi[t] == w && s->kc[t] > 0;
	double est = started ? now : s->pa[w] > da ? s->pa[w] : da;
	*est_out = est;
	return est + locus_workload_cost(s->wl, t, w) * (started ? 1 - s->kc[t] : 1) / s->avail[w];
}

/* Maps every unfinished task (Eqs. 5 to 11) into s->newmu and s->eft;
 * with `fixed`, only costs the schedule in force (each task on the worker
 * it was last sent to) the same way. Returns the estimated makespan: the
 * latest EFT of an unfinished task (INFINITY when one has no processor). */
double locus__gtp_map_all(struct gtp *s, double now, int fixed)
{
	double makespan = now;
	for (uint32_t w = 0; w < s->nw; w++) {
		s->avail[w] = s->mon->avail(s->mon, locus__gtp_node(s, w));
		s->pa[w] = now;
	}
	s->booking = s->shared;
	s->n_undo = 0;
	for (uint32_t r = 0; s->shared && r < s->n_lanes; r++)
		s->lanes[r].n = 0;
	if (s->booking)
		book_flying(s, now);
	/* A task running stays on its processor until it ends or moves:
	 * its processor is not free before that. */
	for (uint32_t t = 0; t < s->n; t++) {
		s->newmu[t] = s->mu[t];
		if (s->done[t] || s->pi[t] == LOCUS_NONE || !(s->kc[t] > 0))
			continue;
		uint32_t w = s->pi[t];
		if (s->avail[w] > 0) {
			double left =
			    now + locus_workload_cost(s->wl, t, w) * (1 - s->kc[t]) / s->avail[w];
			if (left > s->pa[w])
				s->pa[w] = left;
		}
	}
	memcpy(s->morder, s->order, s->n * sizeof *s->morder);
	if (s->watch) {
		size_t cells = (size_t)s->n * s->nw;
		for (size_t i = 0; i < cells; i++)
			s->watch->est[i] = s->watch->eft[i] = s->watch->da[i] = NAN;
		cells = (size_t)s->n_inputs * s->nw;
		for (size_t i = 0; i < cells; i++)
			s->watch->input[i] = NAN;
	}
	for (uint32_t k = 0; k < s->n; k++) {
		uint32_t t = s->order[k];
		if (s->done[t]) {
			s->eft[t] = now; /* Eq. 9 */
			s->newmu[t] = s->pi[t];
			continue;
		}
		double best = INFINITY;
		uint32_t best_w = LOCUS_NONE;
		for (uint32_t w = 0; w < s->nw; w++) {
			if (!(s->avail[w] > 0) || (fixed && w != s->mu[t]) ||
			    !locus__gtp_holds(s, t, w))
				continue;
			size_t mark = s->n_undo;
			int started = s->pi[t] == w && s->kc[t] > 0;
			double da = started ? NAN : locus__gtp_data_ready(s, t, w, now);
			double est, eft = cost_on(s, t, w, now, started ? now : da, &est);
			unbook(s, mark);
			if (s->watch && !fixed) {
				size_t at = (size_t)t * s->nw + w;
				s->watch->est[at] = est;
				s->watch->eft[at] = eft;
				s->watch->da[at] = da;
			}
			/* A placed task stays where it is on a tie: a migration
			 * must gain. */
			if (eft < best || (eft == best && w == s->pi[t])) {
				best = eft;
				best_w = w;
			}
		}
		if (best_w == LOCUS_NONE) { /* no processor left: keep it */
			s->eft[t] = INFINITY;
			makespan = INFINITY;
			continue;
		}
		if (s->booking && !(s->pi[t] == best_w && s->kc[t] > 0))
			locus__gtp_data_ready(s, t, best_w, now); /* its transfers, booked */
		s->n_undo = 0;
		s->newmu[t] = best_w;
		s->eft[t] = best;
		if (best > s->pa[best_w])
			s->pa[best_w] = best; /* Eq. 7 */
		if (best > makespan)
			makespan = best;
	}
	s->booking = 0;
	return makespan;
}

/* ---- a mapping played out on the shared network (the guard's second look) ---- */

/* A transfer of the play-out: object obj to node `to`, `left` bytes, from
 * `start` on at its max-min fair rate (at most its pair's); the input
 * slots waiting for it through slot_next. */
struct pf {
	double left, rate, cap, start;
	double rcap[6]; /* the capacities of res, when it was made */
	uint32_t res[6], n_res, obj, to, waiters, next_obj;
	uint8_t frozen, done;
};

struct pend {
	double at;
	uint32_t t;
};

static int pend_cmp(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return (x->t > y->t) - (x->t < y->t);
}

struct play {
	struct gtp *s;
	const uint32_t *map;
	struct pf *f;
	/* The transfers not done (indices into f), nact of them. */
	uint32_t *act, nact;
	uint32_t nf, fcap, *obj_head, *slot_next, *slot_task, *need, *seq, *seq_at, *cur;
	double *busy, *rem;
	uint32_t *cnt;
	uint8_t *fin;
	int oom;
};

/* The transfer of object o to node `to` (one per pair: tasks of a node
 * that read one object wait for one copy), made from node `from` if
 * there is none; slot k (an input of a task there) waits for it, unless
 * k is NONE. 1 when k waits, 0 when the object is there (or no memory). */
static int play_flow(struct play *p, uint32_t o, uint32_t from, uint32_t to, double bytes,
		     double start, uint32_t k)
{
	struct gtp *s = p->s;
	uint32_t i = p->obj_head[o];
	while (i != LOCUS_NONE && p->f[i].to != to)
		i = p->f[i].next_obj;
	if (i == LOCUS_NONE) {
		if (p->nf == p->fcap) {
			uint32_t cap = p->fcap ? 2 * p->fcap : 64;
			struct pf *f = realloc(p->f, cap * sizeof *f);
			if (f)
				p->f = f;
			uint32_t *a = f ? realloc(p->act, cap * sizeof *a) : NULL;
			if (!a) {
				p->oom = 1;
				return 0;
			}
			p->act = a;
			p->fcap = cap;
		}
		i = p->nf++;
		struct pf *f = &p->f[i];
		double bw = pair_bw_now(s, from, to);
		*f = (struct pf){.left = bytes,
				 .cap = bw > 0 ? bw : 0,
				 .start = start,
				 .obj = o,
				 .to = to,
				 .waiters = LOCUS_NONE,
				 .next_obj = p->obj_head[o]};
		f->n_res = res_of(s, from, to, f->res);
		for (uint32_t r = 0; r < f->n_res; r++)
			f->rcap[r] = lane_cap(s, f->res[r]);
		p->obj_head[o] = i;
		p->act[p->nact++] = i;
		if (!(bytes > 0))
			f->left = 0;
	}
	if (k == LOCUS_NONE || p->f[i].done)
		return 0;
	p->slot_next[k] = p->f[i].waiters;
	p->f[i].waiters = k;
	return 1;
}

/* Input slot k (object o) of task t mapped on node `to`, its producer
 * done: there, under way, or sent now (from where send() would send it). */
static void play_done_input(struct play *p, uint32_t t, uint32_t k, uint32_t o, uint32_t to,
			    double now)
{
	struct gtp *s = p->s;
	const struct locus_replicas *rep = s->mon->replicas;
	uint32_t u = s->g->objects[o].producer;
	double bytes = (double)s->g->objects[o].bytes;
	int migrates = s->pi[t] != LOCUS_NONE && s->pi[t] != p->map[t];
	uint32_t from = s->pi[u] != LOCUS_NONE ? locus__gtp_node(s, s->pi[u]) : LOCUS_NONE;
	if (from != LOCUS_NONE && !locus_replicas_has(rep, o, from))
		from = LOCUS_NONE;
	double there = s->mon->moved(s->mon, o, to);
	int again = !s->copies && migrates && from != LOCUS_NONE && from != to && there >= 1;
	if ((there >= 1 && !again) || (s->copies && locus_replicas_has(rep, o, to)))
		return;
	if (there > 0 && !again) {
		/* Under way: locus__gtp_play made its transfer first. */
		p->need[t] += play_flow(p, o, to, to, 0, now, k);
		return;
	}
	if (s->copies || from == LOCUS_NONE) {
		uint32_t n = locus_replicas_count(rep, o);
		const uint32_t *h = locus_replicas_nodes(rep, o);
		double best = -1;
		for (uint32_t j = 0; j < n; j++) {
			double bw = pair_bw_now(s, h[j], to);
			if (bw > best) {
				best = bw;
				from = h[j];
			}
		}
		if (s->copies && s->src[o] != LOCUS_NONE && locus_replicas_has(rep, o, s->src[o]))
			from = s->src[o];
	}
	if (from == LOCUS_NONE || from == to)
		return;
	p->need[t] += play_flow(p, o, from, to, bytes, now + s->wl->platform->latency, k);
}

/* The max-min fair rates of the transfers going at time `at`, each at
 * most its pair's bandwidth, by progressive filling. */
static void play_rates(struct play *p, double at)
{
	uint32_t left = 0;
	for (uint32_t j = 0; j < p->nact; j++) {
		struct pf *f = &p->f[p->act[j]];
		f->rate = 0;
		f->frozen = !(f->left > 0) || f->start > at || !(f->cap > 0);
		for (uint32_t r = 0; r < f->n_res; r++) {
			p->rem[f->res[r]] = f->rcap[r];
			p->cnt[f->res[r]] = 0;
		}
	}
	for (uint32_t j = 0; j < p->nact; j++) {
		const struct pf *f = &p->f[p->act[j]];
		if (f->frozen)
			continue;
		left++;
		for (uint32_t r = 0; r < f->n_res; r++)
			p->cnt[f->res[r]]++;
	}
	while (left) {
		double d = INFINITY;
		for (uint32_t j = 0; j < p->nact; j++) {
			const struct pf *f = &p->f[p->act[j]];
			if (f->frozen)
				continue;
			if (f->cap - f->rate < d)
				d = f->cap - f->rate;
			for (uint32_t r = 0; r < f->n_res; r++) {
				double sh = p->rem[f->res[r]] / p->cnt[f->res[r]];
				if (sh < d)
					d = sh;
			}
		}
		if (!(d > 0))
			d = 0;
		for (uint32_t j = 0; j < p->nact; j++) {
			struct pf *f = &p->f[p->act[j]];
			if (f->frozen)
				continue;
			f->rate += d;
			for (uint32_t r = 0; r < f->n_res; r++)
				p->rem[f->res[r]] -= d;
		}
		for (uint32_t j = 0; j < p->nact; j++) {
			struct pf *f = &p->f[p->act[j]];
			if (f->frozen)
				continue;
			int full = f->rate >= f->cap * (1 - 1e-12);
			for (uint32_t r = 0; r < f->n_res && !full; r++)
				full = p->rem[f->res[r]] <= f->rcap[r] * 1e-12;
			if (full) {
				f->frozen = 1;
				left--;
				for (uint32_t r = 0; r < f->n_res; r++)
					p->cnt[f->res[r]]--;
			}
		}
	}
}

/* Worker w starts its next task at time `at` if it is free and the task's
 * inputs are there. */
static int play_start(struct play *p, struct locus_heap *ends, uint32_t w, double at)
{
	struct gtp *s = p->s;
	if (p->cur[w] == p->seq_at[w + 1] || p->busy[w] > at || !(s->avail[w] > 0))
		return 0;
	uint32_t t = p->seq[p->cur[w]];
	if (p->need[t])
		return 0;
	p->cur[w]++;
	int stays = s->pi[t] == w && s->kc[t] > 0;
	p->busy[w] =
	    at + locus_workload_cost(s->wl, t, w) * (stays ? 1 - s->kc[t] : 1) / s->avail[w];
	struct pend e = {p->busy[w], t};
	if (locus_heap_push(ends, &e))
		p->oom = 1;
	return 1;
}

/* The makespan of mapping `map` (a worker per unfinished task) played out
 * from now on the shared network as the engine would run it: each
 * worker's tasks in mapping order (one that has started and stays
 * first), each when its inputs are on its node; every input not there
 * sent when its producer ends (now, if done: from where send() sends it,
 * a migrating task's again from its producer's node under GTP), the
 * transfers under way going on wherever their reader went; transfers of
 * an instant sharing every resource they cross max-min fairly, each at
 * most its pair's bandwidth, as the simulator shares them. INFINITY when
 * a task cannot run; NAN when out of memory. */
double locus__gtp_play(struct gtp *s, double now, const uint32_t *map)
{
	const struct locus_graph *g = s->g;
	struct play p = {.s = s, .map = map};
	size_t n = s->n ? s->n : 1, nw = s->nw + 1, ni = s->n_inputs ? s->n_inputs : 1;
	size_t no = g->n_objects ? g->n_objects : 1;
	p.obj_head = malloc(no * sizeof *p.obj_head);
	p.slot_next = malloc(ni * sizeof *p.slot_next);
	p.slot_task = malloc(ni * sizeof *p.slot_task);
	p.need = calloc(n, sizeof *p.need);
	p.seq = malloc(n * sizeof *p.seq);
	p.seq_at = calloc(nw + 1, sizeof *p.seq_at);
	p.cur = malloc(nw * sizeof *p.cur);
	p.busy = malloc(nw * sizeof *p.busy);
	p.rem = malloc((s->n_lanes ? s->n_lanes : 1) * sizeof *p.rem);
	p.cnt = malloc((s->n_lanes ? s->n_lanes : 1) * sizeof *p.cnt);
	p.fin = calloc(n, 1);
	struct locus_heap ends;
	double makespan = now;
	if (locus_heap_init(&ends, sizeof(struct pend), pend_cmp) || !p.obj_head || !p.slot_next ||
	    !p.slot_task || !p.need || !p.seq || !p.seq_at || !p.cur || !p.busy || !p.rem ||
	    !p.cnt || !p.fin) {
		makespan = NAN;
		goto out;
	}
	for (size_t o = 0; o < g->n_objects; o++)
		p.obj_head[o] = LOCUS_NONE;
	/* The sequences: by worker, in mapping order, a task that has
	 * started and stays first. */
	for (uint32_t t = 0; t < s->n; t++)
		if (!s->done[t]) {
			if (map[t] == LOCUS_NONE) {
				makespan = INFINITY;
				goto out;
			}
			p.seq_at[map[t] + 1]++;
		}
	for (uint32_t w = 0; w < s->nw; w++)
		p.seq_at[w + 1] += p.seq_at[w];
	for (uint32_t w = 0; w < s->nw; w++) {
		p.cur[w] = p.seq_at[w];
		p.busy[w] = now;
	}
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t k = 0; k < s->n; k++) {
			uint32_t t = s->order[k];
			if (s->done[t] || (s->pi[t] == map[t] && s->kc[t] > 0) != !pass)
				continue;
			p.seq[p.cur[map[t]]++] = t;
		}
	for (uint32_t w = 0; w < s->nw; w++)
		p.cur[w] = p.seq_at[w];
	/* The transfers under way go on, from the producer's node. */
	for (uint32_t o = 0; o < g->n_objects && !p.oom; o++) {
		for (uint32_t to = 0; to < s->nn; to++) {
			double got = s->mon->moved(s->mon, o, to);
			uint32_t from = got > 0 && got < 1 ? sent_from(s, o, to) : LOCUS_NONE;
			if (from != LOCUS_NONE)
				play_flow(&p, o, from, to, (double)g->objects[o].bytes * (1 - got),
					  now, LOCUS_NONE);
		}
	}
	/* Each unfinished task's inputs. */
	for (uint32_t t = 0; t < s->n && !p.oom; t++) {
		const struct locus_task *tk = &g->tasks[t];
		for (uint32_t i = 0; i < tk->n_in; i++)
			p.slot_task[tk->in_at + i] = t;
		if (s->done[t] || (s->pi[t] == map[t] && s->kc[t] > 0))
			continue;
		uint32_t to = locus__gtp_node(s, map[t]);
		for (uint32_t i = 0; i < tk->n_in && !p.oom; i++) {
			uint32_t k = tk->in_at + i, o = g->inputs[k], u = g->objects[o].producer;
			if (u == LOCUS_NONE)
				continue;
			if (!s->done[u])
				p.need[t]++; /* sent when u ends */
			else
				play_done_input(&p, t, k, o, to, now);
		}
	}
	uint32_t left = 0;
	for (uint32_t t = 0; t < s->n; t++)
		left += !s->done[t];
	for (uint32_t w = 0; w < s->nw; w++)
		play_start(&p, &ends, w, now);
	double at = now;
	while (left && !p.oom) {
		play_rates(&p, at);
		double next = INFINITY;
		const struct pend *top = locus_heap_peek(&ends);
		if (top)
			next = top->at;
		for (uint32_t j = 0; j < p.nact; j++) {
			const struct pf *f = &p.f[p.act[j]];
			double e = f->start > at    ? f->start
				   : f->rate > 0    ? at + f->left / f->rate
				   : !(f->left > 0) ? at
						    : INFINITY;
			if (e < next)
				next = e;
		}
		if (!(next < INFINITY)) {
			makespan = INFINITY;
			break;
		}
		for (uint32_t j = 0; j < p.nact; j++) {
			struct pf *f = &p.f[p.act[j]];
			if (f->start <= at && f->left > 0)
				f->left -= f->rate * (next - at);
		}
		at = next;
		/* Transfers done: their waiters' inputs are there. */
		for (uint32_t j = 0; j < p.nact;) {
			struct pf *f = &p.f[p.act[j]];
			if (f->start > at || f->left > f->cap * 1e-9) {
				j++;
				continue;
			}
			p.act[j] = p.act[--p.nact];
			f->left = 0;
			f->done = 1;
			for (uint32_t k = f->waiters; k != LOCUS_NONE; k = p.slot_next[k]) {
				uint32_t t = p.slot_task[k];
				p.need[t]--;
				play_start(&p, &ends, map[t], at);
			}
			f->waiters = LOCUS_NONE;
		}
		/* Tasks done: their outputs go to their readers. */
		while ((top = locus_heap_peek(&ends)) && top->at <= at) {
			struct pend e;
			locus_heap_pop(&ends, &e);
			uint32_t u = e.t, nu = locus__gtp_node(s, map[u]);
			left--;
			p.fin[u] = 1;
			if (e.at > makespan)
				makespan = e.at;
			const struct locus_task *tu = &g->tasks[u];
			for (uint32_t j = 0; j < tu->n_out; j++) {
				uint32_t o = g->outputs[tu->out_at + j];
				const struct locus_object *ob = &g->objects[o];
				for (uint32_t c = 0; c < ob->n_cons; c++) {
					uint32_t t = g->consumers[ob->cons_at + c];
					if (s->done[t] || p.fin[t] ||
					    (s->pi[t] == map[t] && s->kc[t] > 0))
						continue;
					const struct locus_task *tk = &g->tasks[t];
					uint32_t to = locus__gtp_node(s, map[t]);
					for (uint32_t i = 0; i < tk->n_in; i++) {
						uint32_t k = tk->in_at + i;
						if (g->inputs[k] != o)
							continue;
						if (to == nu ||
						    !play_flow(&p, o, nu, to, (double)ob->bytes,
							       at + s->wl->platform->latency, k))
							p.need[t]--;
					}
					play_start(&p, &ends, map[t], at);
				}
			}
			play_start(&p, &ends, map[u], at);
		}
	}
	if (p.oom)
		makespan = NAN;
out:
	locus_heap_fini(&ends);
	free(p.f);
	free(p.act);
	free(p.obj_head);
	free(p.slot_next);
	free(p.slot_task);
	free(p.need);
	free(p.seq);
	free(p.seq_at);
	free(p.cur);
	free(p.busy);
	free(p.rem);
	free(p.cnt);
	free(p.fin);
	return makespan;
}
