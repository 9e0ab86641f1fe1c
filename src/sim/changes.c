/*
 * The platform changing in the simulator (engine.h): nodes' speeds over
 * time, nodes failing and coming back, bandwidths and links changing, the
 * run's changes checked and put in order at set-up; and the monitor,
 * through which a policy sees the run.
 */
#include <math.h>
#include <stdlib.h>

#include "sim/engine.h"

/* ---- compute over time ------------------------------------------------------ */

/* Node speed at time t. */
static double speed_at(const struct engine *e, uint32_t node, double t)
{
	double s = e->p->nodes[node].speed;
	for (size_t k = e->seg_at[node]; k < e->seg_at[node + 1] && e->segs[k].time <= t; k++)
		s = e->segs[k].speed;
	return s;
}

/* When `work` seconds of speed-1 compute started at t0 on `node` end. */
double locus__sim_compute_end(const struct engine *e, uint32_t node, double t0, double work)
{
	double t = t0, s = speed_at(e, node, t0);
	for (size_t k = e->seg_at[node]; k < e->seg_at[node + 1]; k++) {
		if (e->segs[k].time <= t)
			continue;
		double span = e->segs[k].time - t;
		if (span * s >= work)
			break;
		work -= span * s;
		t = e->segs[k].time;
		s = e->segs[k].speed;
	}
	return t + work / s;
}

/* Speed-1 seconds of work `node` does from t0 to t1. */
static double work_between(const struct engine *e, uint32_t node, double t0, double t1)
{
	double t = t0, s = speed_at(e, node, t0), w = 0;
	for (size_t k = e->seg_at[node]; k < e->seg_at[node + 1]; k++) {
		if (e->segs[k].time <= t)
			continue;
		if (e->segs[k].time >= t1)
			break;
		w += (e->segs[k].time - t) * s;
		t = e->segs[k].time;
		s = e->segs[k].speed;
	}
	return w + (t1 > t ? (t1 - t) * s : 0);
}

/* Task t's computation on worker w, in speed-1 seconds. */
double locus__sim_work_units(const struct engine *e, uint32_t t, uint32_t w)
{
	if (e->wl->cost)
		return e->wl->cost[(size_t)t * e->n_workers + w] *
		       e->p->nodes[e->procs[w].node].speed;
	return e->wl->tasks[t].work;
}

/* ---- nodes failing and coming back ------------------------------------------- */

static void node_down(struct engine *e, uint32_t n, double now)
{
	if (e->node_down[n])
		return;
	e->node_down[n] = 1;
	for (uint32_t w = 0; w < e->n_workers; w++)
		if (e->procs[w].node == n)
			locus__exec_worker_down(&e->x, w);
	/* Its workers lose what they run and what waits for them. */
	for (uint32_t w = 0; w < e->n_workers && !locus__sim_over(e); w++)
		if (e->procs[w].node == n)
			locus__exec_worker_lose(&e->x, w, now);
	if (locus__sim_over(e))
		return;
	/* Moves from and to it stop: reads by other nodes from it start
	 * again from another holder, transfers to others are asked again. */
	uint32_t *again = NULL, *reread = NULL;
	size_t n_again = 0, cap_again = 0, n_reread = 0, cap_reread = 0;
	for (uint32_t m = 0; m < e->n_moves && !e->x.failed; m++) {
		struct move *mv = &e->moves[m];
		if (mv->state == MV_FREE || (mv->src != n && mv->dst != n))
			continue;
		locus__sim_stop_move(e, m, now);
		if (mv->kind == MV_COPY) {
			uint32_t task = mv->task;
			locus__sim_copy_told(e, mv->requester, mv->obj, mv->n_objs, mv->src,
					     mv->dst, mv->tag, 0, now);
			locus__sim_free_move(e, m);
			locus__exec_copy_over(&e->x, task, now);
		} else if (mv->kind == MV_WRITE) {
			locus__sim_free_move(e, m); /* its task was lost with the node */
		} else if (mv->kind == MV_XFER) {
			locus__sim_unlink_xfer(e, m);
			if (mv->requester != NONE) {
				struct locus_event ev = {.kind = LOCUS_EV_TRANSFER,
							 .transfer = {.object = mv->obj,
								      .from = mv->src,
								      .to = mv->dst}};
				locus__sim_tell(e, mv->requester, &ev, now);
			}
			if (mv->dst != n) {
				if (locus__grow(&again, &cap_again, n_again + 2, sizeof *again)) {
					locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
					break;
				}
				again[n_again++] = mv->obj;
				again[n_again++] = mv->dst;
			}
			locus__sim_free_move(e, m);
		} else if (locus__grow(&reread, &cap_reread, n_reread + 1, sizeof *reread)) {
			locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
			break;
		} else {
			reread[n_reread++] = m; /* a read by a worker elsewhere */
		}
	}
	e->serving[n] = 0;
	e->qhead[n] = e->qtail[n] = NONE;
	/* What only it held is lost. */
	for (uint32_t o = 0; o < e->g->n_objects; o++)
		if (locus_replicas_has(e->rep, o, n) && locus_replicas_count(e->rep, o) == 1 &&
		    !e->on_fs[o]) {
			e->lost_node[o] = n;
			e->lost_at[o] = now;
		}
	locus_replicas_drop_node(e->rep, n, NULL, NULL);
	e->held[n] = 0;
	for (size_t i = 0; i < n_reread && !locus__sim_over(e); i++) {
		struct move *mv = &e->moves[reread[i]];
		uint32_t cnt = locus_replicas_count(e->rep, mv->obj);
		if (!cnt && !e->on_fs[mv->obj]) {
			char nb[64], ob[256];
			locus__sim_halt(e, "task %s cannot read %s: every node holding it failed",
					locus__sim_task_name(e, mv->task, nb, sizeof nb),
					locus__sim_object_name(e, mv->obj, ob, sizeof ob));
			break;
		}
		mv->src = cnt ? locus_source_pick(e->p, locus_replicas_nodes(e->rep, mv->obj), cnt,
						  mv->dst, mv->task)
			      : NONE;
		locus__sim_route(e, mv);
		locus__sim_launch(e, reread[i], now, 0, 1);
	}
	for (size_t i = 0; i + 1 < n_again && !e->x.failed; i += 2)
		locus__exec_want(&e->x, again[i], again[i + 1], now);
	free(again);
	free(reread);
	struct locus_event ev = {.kind = LOCUS_EV_NODE_DOWN, .node = {.node = n}};
	locus__sim_tell_schedulers(e, &ev, now);
}

static void node_up(struct engine *e, uint32_t n, double now)
{
	if (!e->node_down[n])
		return;
	e->node_down[n] = 0;
	struct locus_event up = {.kind = LOCUS_EV_NODE_UP, .node = {.node = n}};
	locus__sim_tell_schedulers(e, &up, now);
	for (uint32_t w = 0; w < e->n_workers; w++) {
		struct proc *pr = &e->procs[w];
		if (pr->node != n)
			continue;
		locus__exec_worker_up(&e->x, w);
		pr->idle_since = now;
		struct locus_event start = {.kind = LOCUS_EV_START};
		locus__sim_tell(e, w, &start, now);
	}
}

/* A bandwidth changed: the shared links get their new capacity, and the
 * contention-free transfers of the pairs concerned go on at theirs. */
static void bandwidth(struct engine *e, uint32_t a, uint32_t b, double now)
{
	uint32_t nn = (uint32_t)e->p->n_nodes;
	if (e->p->network != LOCUS_NET_PAIRS) {
		double bw = e->p->nodes[a].net_bw * e->bw_factor[a];
		if (locus__share_set_capacity(e->share, now, nn + a, bw) ||
		    locus__share_set_capacity(e->share, now, 2 * nn + a, bw))
			locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
		return;
	}
	for (uint32_t m = 0; m < e->n_moves && !e->x.failed; m++) {
		struct move *mv = &e->moves[m];
		if (mv->state == MV_FREE || mv->cap == 0)
			continue;
		if (b == NONE ? mv->src != a && mv->dst != a
			      : !((mv->src == a && mv->dst == b) || (mv->src == b && mv->dst == a)))
			continue;
		if (mv->state == MV_DIRECT)
			mv->bytes = locus__sim_direct_left(mv, now);
		mv->cap = locus__sim_pair_cap(e, mv->src, mv->dst);
		if (mv->state == MV_DIRECT)
			locus__sim_start_flow(e, m, now);
	}
}

void locus__sim_change(struct engine *e, const struct locus_change *c, double now)
{
	uint32_t nn = (uint32_t)e->p->n_nodes;
	switch (c->kind) {
	case LOCUS_CHANGE_FAIL:
		node_down(e, c->node, now);
		break;
	case LOCUS_CHANGE_RECOVER:
		node_up(e, c->node, now);
		break;
	case LOCUS_CHANGE_BANDWIDTH: {
		e->bw_factor[c->node] = c->value;
		bandwidth(e, c->node, NONE, now);
		struct locus_event ev = {.kind = LOCUS_EV_BANDWIDTH,
					 .bandwidth = {.node = c->node, .factor = c->value}};
		locus__sim_tell_schedulers(e, &ev, now);
		break;
	}
	case LOCUS_CHANGE_LINK:
		if (e->link_factor) {
			e->link_factor[(size_t)c->node * nn + c->node2] = c->value;
			e->link_factor[(size_t)c->node2 * nn + c->node] = c->value;
			bandwidth(e, c->node, c->node2, now);
		}
		break;
	default:
		break;
	}
}

/* ---- set-up ------------------------------------------------------------------------ */

/* The speed changes of the run: cfg->speed with the scenario's speed and
 * availability changes, in time order (cfg->speed's first at a tie). */
static int merge_speeds(struct engine *e)
{
	const struct locus_sim_config *cfg = e->cfg;
	size_t n = cfg->n_speed;
	for (size_t k = 0; k < cfg->n_changes; k++)
		n += cfg->changes[k].kind == LOCUS_CHANGE_SPEED ||
		     cfg->changes[k].kind == LOCUS_CHANGE_AVAIL;
	e->speeds = locus__calloc(n ? n : 1, sizeof *e->speeds);
	e->others = locus__calloc(cfg->n_changes ? cfg->n_changes : 1, sizeof *e->others);
	if (!e->speeds || !e->others)
		return LOCUS_ENOMEM;
	size_t i = 0, j = 0;
	while (i < cfg->n_speed || j < cfg->n_changes) {
		const struct locus_change *c = j < cfg->n_changes ? &cfg->changes[j] : NULL;
		if (c && c->kind != LOCUS_CHANGE_SPEED && c->kind != LOCUS_CHANGE_AVAIL) {
			e->others[e->n_others++] = c;
			j++;
			continue;
		}
		if (i < cfg->n_speed && (!c || cfg->speed[i].time <= c->time)) {
			e->speeds[e->n_speeds++] = cfg->speed[i++];
			continue;
		}
		if (c->node >= e->p->n_nodes)
			return LOCUS_EINVAL;
		double s = c->kind == LOCUS_CHANGE_AVAIL ? c->value * e->p->nodes[c->node].speed
							 : c->value;
		e->speeds[e->n_speeds++] = (struct locus_speed_change){c->time, c->node, s};
		j++;
	}
	return 0;
}

/* Which nodes' outgoing links can bind (out_binds): those that are, or
 * become by a bandwidth change, slower than their disk. The sharing is
 * the same without the others, in exact arithmetic; it is cheaper (a
 * remote read crosses two resources, not three). */
static int out_links(struct engine *e)
{
	size_t nn = e->p->n_nodes;
	e->out_binds = locus__calloc(nn ? nn : 1, 1);
	if (!e->out_binds)
		return locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
	for (size_t n = 0; n < nn; n++)
		e->out_binds[n] = !(e->p->nodes[n].net_bw >= e->p->nodes[n].disk_bw);
	for (size_t k = 0; k < e->n_others; k++) {
		const struct locus_change *c = e->others[k];
		if (c->kind == LOCUS_CHANGE_BANDWIDTH &&
		    !(e->p->nodes[c->node].net_bw * c->value >= e->p->nodes[c->node].disk_bw))
			e->out_binds[c->node] = 1;
	}
	return 0;
}

/* The run's platform changes, checked: the speed changes by node in time
 * order (segs, seg_at), the others as events (others); then out_binds.
 * 0 or the failure's code. */
int locus__sim_setup_changes(struct engine *e)
{
	size_t nn = e->p->n_nodes;
	int rc;
	if ((rc = merge_speeds(e)))
		return rc == LOCUS_ENOMEM
			   ? locus__sim_fail(e, rc, "out of memory")
			   : locus__sim_fail(e, rc,
					     "a platform change names no node of the platform");
	e->segs = locus__calloc(e->n_speeds ? e->n_speeds : 1, sizeof *e->segs);
	if (!e->segs)
		return locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
	for (size_t k = 0; k < e->n_speeds; k++) {
		const struct locus_speed_change *c = &e->speeds[k];
		if (c->node >= nn || !(c->speed > 0) || !(c->time >= 0) ||
		    (k && c->time < e->speeds[k - 1].time))
			return locus__sim_fail(
			    e, LOCUS_EINVAL,
			    "speed change %zu: expected a node below %zu, a speed > 0 and "
			    "times in order",
			    k, nn);
		e->seg_at[c->node + 1]++;
	}
	for (size_t k = 0; k < e->n_others; k++) {
		const struct locus_change *c = e->others[k];
		int two = c->kind == LOCUS_CHANGE_LINK;
		if (c->node >= nn || (two && (c->node2 >= nn || c->node2 == c->node)) ||
		    !(c->time >= 0) || (k && c->time < e->others[k - 1]->time) ||
		    ((c->kind == LOCUS_CHANGE_BANDWIDTH || two) &&
		     !(c->value > 0 && isfinite(c->value))))
			return locus__sim_fail(
			    e, LOCUS_EINVAL,
			    "platform change %zu: expected nodes below %zu, a value > 0 and "
			    "times in order",
			    k, nn);
		if (two && e->p->network != LOCUS_NET_PAIRS)
			return locus__sim_fail(
			    e, LOCUS_EINVAL,
			    "a link changes, but the platform's network is shared: links "
			    "of their own need a contention-free platform");
	}
	for (size_t n = 0; n < nn; n++)
		e->seg_at[n + 1] += e->seg_at[n];
	size_t *fill = locus__calloc(nn, sizeof *fill);
	if (!fill)
		return locus__sim_fail(e, LOCUS_ENOMEM, "out of memory");
	for (size_t k = 0; k < e->n_speeds; k++) {
		uint32_t n = e->speeds[k].node;
		e->segs[e->seg_at[n] + fill[n]++] = e->speeds[k];
	}
	free(fill);
	return out_links(e);
}

/* ---- the monitor ---------------------------------------------------------------- */

static uint32_t mon_placed(const struct locus_monitor *m, uint32_t t, double *computed)
{
	const struct engine *e = m->engine;
	if (computed)
		*computed = 0;
	if (t >= e->wl->n_tasks)
		return LOCUS_NONE;
	switch (e->x.tstate[t]) {
	case LOCUS__T_DONE:
		if (computed)
			*computed = 1;
		return e->x.tworker[t];
	case LOCUS__T_COMPUTING: {
		uint32_t w = e->x.tworker[t];
		double units = locus__sim_work_units(e, t, w);
		if (computed && units > 0) {
			double f = work_between(e, e->procs[w].node, e->tcstart[t], e->now) / units;
			*computed = f < 1 ? f : 1;
		}
		return w;
	}
	case LOCUS__T_WRITING:
		if (computed)
			*computed = 1;
		return e->x.tworker[t];
	case LOCUS__T_READING:
		return e->x.tworker[t];
	case LOCUS__T_QUEUED: {
		/* Placed once it has begun to gather its inputs. */
		uint32_t w = e->x.tworker[t], node = e->procs[w].node;
		const struct locus_task *tk = &e->wl->tasks[t];
		for (uint32_t k = 0; k < tk->n_in; k++) {
			uint32_t o = e->g->inputs[tk->in_at + k];
			if (e->g->objects[o].producer == LOCUS_NONE)
				continue;
			if (locus_replicas_has(e->rep, o, node))
				return w;
			for (uint32_t x = e->xhead[o]; x != NONE; x = e->moves[x].onext)
				if (e->moves[x].dst == node && (e->moves[x].state == MV_FLOW ||
								e->moves[x].state == MV_DIRECT))
					return w;
		}
		return LOCUS_NONE;
	}
	default:
		return LOCUS_NONE;
	}
}

static double mon_moved(const struct locus_monitor *m, uint32_t o, uint32_t node)
{
	const struct engine *e = m->engine;
	if (o < e->g->n_objects && node == LOCUS_FS)
		return e->on_fs[o];
	if (o >= e->g->n_objects || node >= e->p->n_nodes)
		return 0;
	if (locus_replicas_has(e->rep, o, node))
		return 1;
	for (uint32_t x = e->xhead[o]; x != NONE; x = e->moves[x].onext) {
		const struct move *mv = &e->moves[x];
		if (mv->dst != node || (mv->state != MV_FLOW && mv->state != MV_DIRECT) ||
		    !(mv->size > 0))
			continue;
		double left = mv->state == MV_DIRECT
				  ? locus__sim_direct_left(mv, e->now)
				  : locus__share_left(e->share, mv->flow, e->now);
		return 1 - left / mv->size;
	}
	return 0;
}

static double mon_avail(const struct locus_monitor *m, uint32_t node)
{
	const struct engine *e = m->engine;
	if (node >= e->p->n_nodes || e->node_down[node])
		return 0;
	return speed_at(e, node, e->now) / e->p->nodes[node].speed;
}

static double mon_bandwidth(const struct locus_monitor *m, uint32_t node)
{
	const struct engine *e = m->engine;
	return node < e->p->n_nodes && !e->node_down[node] ? e->bw_factor[node] : 0;
}

static double mon_pair_bw(const struct locus_monitor *m, uint32_t a, uint32_t b)
{
	const struct engine *e = m->engine;
	if (a >= e->p->n_nodes || b >= e->p->n_nodes || e->node_down[a] || e->node_down[b])
		return 0;
	if (e->p->network == LOCUS_NET_PAIRS)
		return locus__sim_pair_cap(e, a, b);
	double fa = e->p->nodes[a].net_bw * e->bw_factor[a];
	double fb = e->p->nodes[b].net_bw * e->bw_factor[b];
	double bw = locus_platform_pair_bw(e->p, a, b);
	return fmin(bw, fmin(fa, fb));
}

static int mon_room(const struct locus_monitor *m, uint32_t node, struct locus_demand *free)
{
	const struct engine *e = m->engine;
	return locus__exec_room(&e->x, node, free);
}

/* Sets e->mon: what the policy sees of the run. */
void locus__sim_monitor(struct engine *e)
{
	e->mon = (struct locus_monitor){.engine = e,
					.replicas = e->rep,
					.placed = mon_placed,
					.moved = mon_moved,
					.avail = mon_avail,
					.bandwidth = mon_bandwidth,
					.pair_bw = mon_pair_bw,
					.room = mon_room};
}
