/*
 * The simulator's moves and network (engine.h): a move's way through the
 * disks and links (or its pair's own link), its source's transfer slots,
 * its latency, metadata operations and flow; objects reaching nodes; a
 * policy's transfers, copies and drops.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"

/* ---- moves -------------------------------------------------------------------- */

uint32_t locus__sim_new_move(struct engine *e)
{
	uint32_t m = e->free_moves;
	if (m != NONE) {
		e->free_moves = e->moves[m].onext;
	} else {
		if (locus__grow(&e->moves, &e->moves_cap, e->n_moves + 1, sizeof *e->moves)) {
			locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
			return NONE;
		}
		m = (uint32_t)e->n_moves++;
	}
	uint32_t gen = e->moves[m].gen + 1;
	memset(&e->moves[m], 0, sizeof e->moves[m]);
	e->moves[m].flow = e->moves[m].qnext = e->moves[m].onext = NONE;
	e->moves[m].requester = NONE;
	e->moves[m].gen = gen;
	return m;
}

void locus__sim_free_move(struct engine *e, uint32_t m)
{
	free(e->moves[m].objs);
	e->moves[m].objs = NULL;
	e->moves[m].state = MV_FREE;
	e->moves[m].onext = e->free_moves;
	e->free_moves = m;
}

/* Takes transfer m out of its object's list. */
void locus__sim_unlink_xfer(struct engine *e, uint32_t m)
{
	uint32_t *at = &e->xhead[e->moves[m].obj];
	while (*at != NONE && *at != m)
		at = &e->moves[*at].onext;
	if (*at == m)
		*at = e->moves[m].onext;
}

/* The pair's bandwidth now on a contention-free platform. */
double locus__sim_pair_cap(const struct engine *e, uint32_t a, uint32_t b)
{
	double f = e->bw_factor[a] < e->bw_factor[b] ? e->bw_factor[a] : e->bw_factor[b];
	if (e->link_factor)
		f *= e->link_factor[(size_t)a * e->p->n_nodes + b];
	return locus_platform_pair_bw(e->p, a, b) * f;
}

/* Sets move m's way: a local read is its node's disk; from the file
 * system (src NONE), its bandwidth when it has one and the reader's link;
 * to it (dst NONE), the writer's disk and link and its bandwidth; else
 * the source's disk and link, the reader's link, the backbone and the
 * racks' uplinks between racks (or, contention-free, the pair's own
 * link). The source's link is left out where it never binds (out_binds). */
void locus__sim_route(struct engine *e, struct move *mv)
{
	uint32_t n_nodes = (uint32_t)e->p->n_nodes, node = mv->dst, src = mv->src;
	mv->n_res = 0;
	mv->cap = 0;
	if (node == NONE) {
		/* To the file system: the source's disk and link, and the
		 * file system's bandwidth. */
		mv->res[mv->n_res++] = src;
		if (e->out_binds[src])
			mv->res[mv->n_res++] = n_nodes + src;
		if (e->res_fs != NONE)
			mv->res[mv->n_res++] = e->res_fs;
	} else if (src == node) {
		mv->res[mv->n_res++] = node;
	} else if (src == NONE) {
		if (e->res_fs != NONE)
			mv->res[mv->n_res++] = e->res_fs;
		mv->res[mv->n_res++] = 2 * n_nodes + node;
	} else if (e->p->network == LOCUS_NET_PAIRS) {
		mv->cap = locus__sim_pair_cap(e, src, node);
	} else {
		mv->res[mv->n_res++] = src;
		if (e->out_binds[src])
			mv->res[mv->n_res++] = n_nodes + src;
		mv->res[mv->n_res++] = 2 * n_nodes + node;
		if (e->res_backbone != NONE)
			mv->res[mv->n_res++] = e->res_backbone;
		if (e->res_racks != NONE && e->node_rack[src] != e->node_rack[node]) {
			mv->res[mv->n_res++] = e->res_racks + 2 * e->node_rack[src];
			mv->res[mv->n_res++] = e->res_racks + 2 * e->node_rack[node] + 1;
		}
	}
}

void locus__sim_start_flow(struct engine *e, uint32_t m, double now)
{
	struct move *mv = &e->moves[m];
	if (!mv->n_res && mv->cap > 0) {
		/* Contention-free: (start + latency) + bytes / bandwidth, the
		 * arithmetic of locus_workload_arrival. */
		mv->state = MV_DIRECT;
		mv->t_flow = now;
		mv->gen++;
		locus__sim_push_ev(e, now + mv->bytes / mv->cap, EV_MOVED, mv->gen, m);
		return;
	}
	mv->state = MV_FLOW;
	if (locus__share_start_id(e->share, now, mv->res, mv->n_res, mv->cap, mv->bytes, m,
				  &mv->flow))
		locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
}

/* What a contention-free move has left at `now`. */
double locus__sim_direct_left(const struct move *mv, double now)
{
	double left = mv->bytes - (now - mv->t_flow) * mv->cap;
	return left > 0 ? left : 0;
}

/* A move from another node gets a transfer slot of its source (a node
 * serves at most max_transfers at once; the others wait in the order
 * they came) and flows one latency later. */
void locus__sim_request_move(struct engine *e, uint32_t m, double now)
{
	struct move *mv = &e->moves[m];
	uint32_t src = mv->src;
	if (src != NONE) {
		int limit = e->p->nodes[src].max_transfers;
		if (limit > 0 && e->serving[src] >= (uint32_t)limit) {
			mv->state = MV_SLOT;
			mv->qnext = NONE;
			if (e->qhead[src] == NONE)
				e->qhead[src] = m;
			else
				e->moves[e->qtail[src]].qnext = m;
			e->qtail[src] = m;
			return;
		}
		e->serving[src]++;
		mv->holds_slot = 1;
	}
	if (e->latency > 0) {
		mv->state = MV_LATENCY;
		locus__sim_push_after(e, now, e->latency, EV_MOVE, mv->gen, m);
	} else {
		locus__sim_start_flow(e, m, now);
	}
}

/* Move m no longer holds its source's slot: the first waiting move gets it. */
void locus__sim_release_slot(struct engine *e, uint32_t m, double now)
{
	struct move *mv = &e->moves[m];
	if (!mv->holds_slot)
		return;
	mv->holds_slot = 0;
	uint32_t src = mv->src;
	e->serving[src]--;
	uint32_t next = e->qhead[src];
	if (next != NONE) {
		e->qhead[src] = e->moves[next].qnext;
		locus__sim_request_move(e, next, now);
	}
}

/* Move m goes once `delay` has passed and, when it reads from or writes to
 * the file system, that has served `files` metadata operations for it
 * (one server, first come first served, fs_ops a second); then it asks
 * for its source's slot. */
void locus__sim_launch(struct engine *e, uint32_t m, double now, double delay, uint32_t files)
{
	struct move *mv = &e->moves[m];
	double t = now + delay;
	if (files && (mv->src == NONE || mv->dst == NONE)) {
		/* The server's queue, and the client node's opens one after
		 * another (their bytes overlap): whichever ends later. */
		uint32_t client = mv->dst == NONE ? mv->src : mv->dst;
		double opened = t;
		if (e->cfg->fs_latency > 0 && client != NONE) {
			opened = (t > e->fs_opened[client] ? t : e->fs_opened[client]) +
				 files * e->cfg->fs_latency;
			e->fs_opened[client] = opened;
		}
		e->r->fs_ops += files;
		if (e->cfg->fs_ops > 0) {
			double start = t > e->fs_free ? t : e->fs_free;
			e->fs_free = start + files / e->cfg->fs_ops;
			t = e->fs_free;
		}
		t = opened > t ? opened : t;
	}
	if (t > now) {
		mv->state = MV_PREP;
		locus__sim_push_ev(e, t, EV_READY, mv->gen, m);
		return;
	}
	locus__sim_request_move(e, m, now);
}

/* Stops move m wherever it is (waiting for a slot or its latency, or
 * flowing); returns the bytes it had left. */
double locus__sim_stop_move(struct engine *e, uint32_t m, double now)
{
	struct move *mv = &e->moves[m];
	double left = mv->bytes;
	if (mv->state == MV_SLOT) {
		uint32_t *at = &e->qhead[mv->src], prev = NONE;
		while (*at != NONE && *at != m) {
			prev = *at;
			at = &e->moves[*at].qnext;
		}
		if (*at == m) {
			*at = mv->qnext;
			if (e->qtail[mv->src] == m)
				e->qtail[mv->src] = prev;
		}
	} else if (mv->state == MV_FLOW) {
		if (locus__share_cancel(e->share, now, mv->flow, &left))
			locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
	} else if (mv->state == MV_DIRECT) {
		left = locus__sim_direct_left(mv, now);
	}
	/* MV_LATENCY, MV_DIRECT: their event finds them in another state,
	 * or of another generation. */
	mv->gen++;
	locus__sim_release_slot(e, m, now);
	mv->state = MV_FREE;
	return left;
}

/* ---- objects reaching nodes ------------------------------------------------------ */

/* Node `node` now holds object o: 1 if new, 0 if it held it, -1 when out
 * of memory or when o does not fit in the node's local storage (the run
 * ends saying so). */
int locus__sim_hold(struct engine *e, uint32_t o, uint32_t node)
{
	int added = locus_replicas_add(e->rep, o, node);
	if (added < 0) {
		locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
		return -1;
	}
	if (!added)
		return 0;
	double bytes = (double)e->g->objects[o].bytes, cap = e->p->nodes[node].storage;
	e->held[node] += bytes;
	if (e->held[node] > e->r->storage_peak)
		e->r->storage_peak = e->held[node];
	if (cap > 0 && e->held[node] > cap) {
		char ob[256];
		locus__sim_halt(
		    e,
		    "node %s's local storage (%.0f bytes) cannot hold %s (%.0f bytes) beside the "
		    "%.0f bytes it holds",
		    e->p->nodes[node].name, cap, locus__sim_object_name(e, o, ob, sizeof ob), bytes,
		    e->held[node] - bytes);
		return -1;
	}
	return 1;
}

/* Node `node` no longer holds object o. */
static void unhold(struct engine *e, uint32_t o, uint32_t node)
{
	if (locus_replicas_remove(e->rep, o, node) > 0)
		e->held[node] -= (double)e->g->objects[o].bytes;
}

static void record_xfer(struct engine *e, const struct move *mv, double now)
{
	e->r->transfers++;
	e->r->bytes_moved += (uint64_t)mv->size;
	if (e->cfg->no_transfer_results)
		return;
	if (locus__grow(&e->r->xfers, &e->xfers_cap, e->r->n_xfers + 1, sizeof *e->r->xfers)) {
		locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	e->r->xfers[e->r->n_xfers++] = (struct locus_transfer_result){
	    mv->obj, mv->src, mv->dst, mv->task, mv->asked, now, (uint64_t)mv->size};
}

/* Object o is now on `node` (written there, or arrived; NONE: the file
 * system), new there: no longer lost, and the executor hears of it. */
static void appeared(struct engine *e, uint32_t o, uint32_t node, double now)
{
	e->lost_node[o] = NONE;
	locus__exec_appeared(&e->x, o, node == NONE ? LOCUS_FS : node, now);
}

int locus__sim_op_underway(void *eng, uint32_t o, uint32_t node)
{
	const struct engine *e = eng;
	for (uint32_t m = e->xhead[o]; m != NONE; m = e->moves[m].onext)
		if (e->moves[m].dst == node)
			return 1;
	return 0;
}

/* Sends object o to `node` from `src` (LOCUS_FS: the file system) for
 * task `task` (or NONE). */
void locus__sim_op_fetch(void *eng, uint32_t o, uint32_t src, uint32_t node, uint32_t task,
			 double now)
{
	struct engine *e = eng;
	uint32_t m = locus__sim_new_move(e);
	if (m == NONE)
		return;
	struct move *mv = &e->moves[m];
	mv->kind = MV_XFER;
	mv->w = NONE;
	mv->task = task;
	mv->obj = o;
	mv->src = src == LOCUS_FS ? NONE : src;
	mv->dst = node;
	mv->size = mv->bytes = (double)e->g->objects[o].bytes;
	mv->asked = now;
	locus__sim_route(e, mv);
	mv->onext = e->xhead[o];
	e->xhead[o] = m;
	locus__sim_launch(e, m, now, 0, 1);
}

static void policy_transfer(struct engine *e, uint32_t proc, uint32_t o, uint32_t from, uint32_t to,
			    double now)
{
	struct locus_event ev = {
	    .kind = LOCUS_EV_TRANSFER,
	    .transfer = {.object = o, .from = from, .to = to, .ok = 1, .n = 1}};
	if (locus_replicas_has(e->rep, o, to) || e->node_down[to]) {
		ev.transfer.ok = !e->node_down[to];
		locus__sim_tell(e, proc, &ev, now);
		return;
	}
	uint32_t n = locus_replicas_count(e->rep, o);
	const uint32_t *h = locus_replicas_nodes(e->rep, o);
	if (from == LOCUS_NONE || !locus_replicas_has(e->rep, o, from))
		from = locus_source_pick(e->p, h, n, to, o);
	if (from == LOCUS_NONE) {
		ev.transfer.ok = 0;
		locus__sim_tell(e, proc, &ev, now);
		return;
	}
	uint32_t m = locus__sim_new_move(e);
	if (m == NONE)
		return;
	struct move *mv = &e->moves[m];
	mv->kind = MV_XFER;
	mv->w = mv->task = NONE;
	mv->obj = o;
	mv->src = from;
	mv->dst = to;
	mv->requester = proc;
	mv->size = mv->bytes = (double)e->g->objects[o].bytes;
	mv->asked = now;
	locus__sim_route(e, mv);
	mv->onext = e->xhead[o];
	e->xhead[o] = m;
	locus__sim_request_move(e, m, now);
}

static void xfer_done(struct engine *e, uint32_t m, double now)
{
	struct move *mv = &e->moves[m];
	locus__sim_release_slot(e, m, now);
	locus__sim_unlink_xfer(e, m);
	record_xfer(e, mv, now);
	mv = &e->moves[m];
	uint32_t o = mv->obj, dst = mv->dst, src = mv->src, req = mv->requester, task = mv->task;
	locus__sim_free_move(e, m);
	int added = locus__sim_hold(e, o, dst);
	if (added < 0)
		return;
	if (src == NONE)
		e->r->fs_bytes_read += e->g->objects[o].bytes;
	struct locus_stage_result *st = locus__sim_stage_of(e, task);
	if (st)
		*(src == NONE ? &st->bytes_fs_read : &st->bytes_peer) += e->g->objects[o].bytes;
	if (req != NONE) {
		struct locus_event ev = {
		    .kind = LOCUS_EV_TRANSFER,
		    .transfer = {.object = o, .from = src, .to = dst, .ok = 1, .n = 1}};
		locus__sim_tell(e, req, &ev, now);
	}
	if (added)
		appeared(e, o, dst, now);
}

/* Object o is on the file system now. */
void locus__sim_on_fs(struct engine *e, uint32_t o, double now)
{
	if (e->on_fs[o])
		return;
	e->on_fs[o] = 1;
	appeared(e, o, NONE, now);
}

/* ---- a policy's copies and drops ------------------------------------------------------ */

/* Tells `proc` how copy `tag` of n objects (the first `o`) from `from` to
 * `to` (internal names: NONE is the file system) went. */
void locus__sim_copy_told(struct engine *e, uint32_t proc, uint32_t o, uint32_t n, uint32_t from,
			  uint32_t to, uint64_t tag, int ok, double now)
{
	struct locus_event ev = {.kind = LOCUS_EV_TRANSFER,
				 .transfer = {.object = o,
					      .from = from == NONE ? LOCUS_FS : from,
					      .to = to == NONE ? LOCUS_FS : to,
					      .ok = ok,
					      .tag = tag,
					      .n = n}};
	locus__sim_tell(e, proc, &ev, now);
}

/* Whether `place` (a node, or NONE: the file system) has object o. */
static int has_at(const struct engine *e, uint32_t o, uint32_t place)
{
	return place == NONE ? e->on_fs[o] : locus_replicas_has(e->rep, o, place);
}

/* Carries out locus_act_copy for process `proc`: from and to are nodes
 * or LOCUS_FS (here NONE, the engine's name for it), from LOCUS_NONE a
 * holder of the one object (or the file system) locus_source_pick names. */
static void policy_copy(struct engine *e, uint32_t proc, const uint32_t *objs, uint32_t n,
			uint64_t bytes, uint32_t from, uint32_t to, double delay, uint64_t tag,
			uint32_t task, double now)
{
	uint32_t first = n ? objs[0] : LOCUS_NONE;
	if (to == LOCUS_FS)
		to = NONE;
	if (from == LOCUS_FS) {
		from = NONE;
	} else if (from == LOCUS_NONE) {
		uint32_t c = locus_replicas_count(e->rep, first);
		from = c ? locus_source_pick(e->p, locus_replicas_nodes(e->rep, first), c,
					     to == NONE ? 0 : to, first)
			 : NONE;
		if (!c && !e->on_fs[first]) {
			locus__sim_copy_told(e, proc, first, n, from, to, tag, 0, now);
			return;
		}
	}
	int there = n > 0,
	    ok = !(from != NONE && e->node_down[from]) && !(to != NONE && e->node_down[to]);
	double size = 0;
	for (uint32_t k = 0; k < n && ok; k++) {
		ok = has_at(e, objs[k], from);
		there &= has_at(e, objs[k], to);
		size += (double)e->g->objects[objs[k]].bytes;
	}
	if (!ok || there) {
		locus__sim_copy_told(e, proc, first, n, from, to, tag, ok, now);
		return;
	}
	uint32_t m = locus__sim_new_move(e);
	if (m == NONE)
		return;
	struct move *mv = &e->moves[m];
	if (n) {
		mv->objs = malloc(n * sizeof *mv->objs);
		if (!mv->objs) {
			locus__sim_free_move(e, m);
			locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
			return;
		}
		memcpy(mv->objs, objs, n * sizeof *objs);
	}
	mv->kind = MV_COPY;
	mv->n_objs = n;
	mv->w = NONE;
	mv->task = task == LOCUS_NONE ? NONE : task;
	locus__exec_copy_starts(&e->x, mv->task);
	mv->obj = first;
	mv->src = from;
	mv->dst = to;
	mv->requester = proc;
	mv->tag = tag;
	mv->size = mv->bytes = n ? size : (double)bytes;
	mv->asked = now;
	locus__sim_route(e, mv);
	locus__sim_launch(e, m, now, delay, n);
}

/* A copy naming task t (or NONE) has ended, or failed: t may start, when
 * it waits at the head of its worker's tasks. */
static void copy_done(struct engine *e, uint32_t m, double now)
{
	struct move *mv = &e->moves[m];
	locus__sim_release_slot(e, m, now);
	record_xfer(e, mv, now);
	mv = &e->moves[m];
	if (mv->src == NONE)
		e->r->fs_bytes_read += (uint64_t)mv->size;
	if (mv->dst == NONE)
		e->r->fs_bytes_written += (uint64_t)mv->size;
	struct locus_stage_result *st = locus__sim_stage_of(e, mv->task);
	if (st)
		*(mv->src == NONE   ? &st->bytes_fs_read
		  : mv->dst == NONE ? &st->bytes_fs_written
				    : &st->bytes_peer) += (uint64_t)mv->size;
	uint32_t *objs = mv->objs, n = mv->n_objs, src = mv->src, dst = mv->dst,
		 req = mv->requester, first = mv->obj, task = mv->task;
	uint64_t tag = mv->tag;
	mv->objs = NULL;
	locus__sim_free_move(e, m);
	/* The objects are there before the requester hears of it (it may
	 * copy them on at once). */
	for (uint32_t k = 0; k < n && !e->x.failed; k++) {
		if (dst == NONE) {
			locus__sim_on_fs(e, objs[k], now);
			continue;
		}
		if (locus__sim_hold(e, objs[k], dst) > 0)
			appeared(e, objs[k], dst, now);
	}
	free(objs);
	if (!e->x.failed)
		locus__sim_copy_told(e, req, first, n, src, dst, tag, 1, now);
	locus__exec_copy_over(&e->x, task, now);
}

/* Carries out locus_act_drop: `place` (a node, or NONE) drops o. */
static void drop(struct engine *e, uint32_t o, uint32_t place)
{
	if (place == NONE)
		e->on_fs[o] = 0;
	else
		unhold(e, o, place);
}

/* Move m has arrived. */
void locus__sim_move_done(struct engine *e, uint32_t m, double now)
{
	switch (e->moves[m].kind) {
	case MV_READ:
		locus__sim_read_done(e, m, now);
		break;
	case MV_WRITE:
		locus__sim_write_done(e, m, now);
		break;
	case MV_COPY:
		copy_done(e, m, now);
		break;
	default:
		xfer_done(e, m, now);
		break;
	}
}

/* ---- the executor's operations: a policy's transfers, copies and drops ----------- */

void locus__sim_op_transfer(void *eng, uint32_t proc, uint32_t o, uint32_t from, uint32_t to,
			    double now)
{
	policy_transfer(eng, proc, o, from, to, now);
}

void locus__sim_op_copy(void *eng, uint32_t proc, const struct locus__action *a,
			const uint32_t *objs, const uint32_t *reduced, double now)
{
	/* A reduction step moves its result's bytes, as the model says:
	 * what `from` reduces is its own business here. */
	(void)reduced;
	policy_copy(eng, proc, objs, a->n, a->bytes, a->from, a->to, a->delay, a->tag, a->task,
		    now);
}

void locus__sim_op_drop(void *eng, uint32_t o, uint32_t place, double now)
{
	(void)now;
	drop(eng, o, place == LOCUS_FS ? NONE : place);
}
