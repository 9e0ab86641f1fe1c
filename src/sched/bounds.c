/*
 * Bounds: the makespan no schedule beats, the balanced share of tasks per
 * node, the most tasks that can read locally under those shares, and
 * DL-MPI's integer program (Eq. 1-2) solved exactly on small instances.
 *
 * The locality bound is a maximum b-matching of tasks to the nodes holding
 * their chunk (task side capacity 1, node n capacity cap[n]). It is solved
 * here by Hopcroft-Karp phases (Dinic on the unit network) started from a
 * greedy matching, because it must run at the scale of the simulator
 * (hundreds of thousands of tasks) in a fraction of a second; GLPK's
 * min-cost flow solves the same problem independently, to cross-check.
 */
#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/bounds.h"
#include "locus/heap.h"

/* No node, no level: the value of an unset entry of the arrays below. */
#define NONE UINT32_MAX

/* A node's capacity to run tasks, in speed-1 cores. */
static double node_power(const struct locus_node *n)
{
	return (double)n->cores * n->speed;
}

/* The first time T at which the workers, whose total speed starts at
 * `base` and changes as `env` says, have done `work` (INFINITY: never). */
static double work_time(const struct locus_workload *wl, const struct locus_bound_env *env,
			double work)
{
	const struct locus_platform *p = wl->platform;
	double speed = 0, t = 0, done = 0;
	size_t n_speed = env ? env->n_speed : 0;

	if (!(work > 0))
		return 0;
	for (size_t w = 0; w < wl->n_workers; w++)
		speed += p->nodes[wl->worker_node[w]].speed;
	/* A node's current speed is its last change's; per worker, so the
	 * total moves by cores x (new - old). */
	double *now = locus__calloc(p->n_nodes ? p->n_nodes : 1, sizeof *now);
	if (!now)
		return speed > 0 ? work / speed : INFINITY; /* the bound at base speeds */
	for (size_t n = 0; n < p->n_nodes; n++)
		now[n] = p->nodes[n].speed;
	for (size_t k = 0; k < n_speed; k++) {
		const struct locus_speed_change *c = &env->speed[k];
		if (c->node >= p->n_nodes)
			continue;
		if (c->time > t) {
			if (speed > 0 && done + speed * (c->time - t) >= work)
				break;
			done += speed * (c->time - t);
			t = c->time;
		}
		speed += (double)p->nodes[c->node].cores * (c->speed - now[c->node]);
		now[c->node] = c->speed;
		if (speed < 0)
			speed = 0; /* rounding of a sum that is 0 */
	}
	free(now);
	return speed > 0 ? t + (work - done) / speed : INFINITY;
}

/* The bytes task t reads from storage (its inputs no task writes: a
 * chunk task's chunk), and how many of them no node holds (*away: read
 * over the reader's link from a shared store). */
static uint64_t stored_bytes(const struct locus_workload *wl, uint32_t t, uint64_t *away)
{
	const struct locus_graph *g = wl->graph;
	const struct locus_task *tk = &wl->tasks[t];
	if (!g || (!g->n_edges && tk->n_in <= 1)) {
		*away = tk->n_holders ? 0 : tk->bytes;
		return tk->bytes;
	}
	uint64_t b = 0;
	*away = 0;
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = g->inputs[tk->in_at + k];
		if (g->objects[o].producer != LOCUS_NONE)
			continue;
		b += g->objects[o].bytes;
		if (wl->obj_at[o + 1] == wl->obj_at[o])
			*away += g->objects[o].bytes;
	}
	return b;
}

double locus_bound_makespan(const struct locus_workload *wl, const struct locus_bound_env *env,
			    struct locus_makespan_bound *out)
{
	const struct locus_platform *p = wl->platform;
	double fs = env && env->shared_fs_bw > 0 ? env->shared_fs_bw : 0;
	double peak_sum = 0, peak_max = 0, bw_max = 0, rho = INFINITY;
	double disk_sum = 0, net_sum = 0, placed = 0, unplaced = 0, biggest = 0;
	struct locus_makespan_bound b = {0};

	/* Each node's peak speed over the run. */
	double *peak = locus__calloc(p->n_nodes ? p->n_nodes : 1, sizeof *peak);
	for (size_t n = 0; peak && n < p->n_nodes; n++)
		peak[n] = p->nodes[n].speed;
	for (size_t k = 0; peak && env && k < env->n_speed; k++)
		if (env->speed[k].node < p->n_nodes &&
		    env->speed[k].speed > peak[env->speed[k].node])
			peak[env->speed[k].node] = env->speed[k].speed;
	for (size_t n = 0; n < p->n_nodes; n++) {
		const struct locus_node *nd = &p->nodes[n];
		double s = peak ? peak[n] : INFINITY;
		/* The fastest a worker of n reads: its disk or its link, or
		 * through its link from the shared file system. */
		double bw = env && env->free_io ? INFINITY
			    : fs > 0		? (fs < nd->net_bw ? fs : nd->net_bw)
				     : (nd->disk_bw > nd->net_bw ? nd->disk_bw : nd->net_bw);
		disk_sum += nd->disk_bw;
		if (nd->cores <= 0)
			continue; /* stores, never reads or computes */
		net_sum += nd->net_bw;
		if (bw > bw_max)
			bw_max = bw;
		if (s > peak_max)
			peak_max = s;
		if (s / bw < rho)
			rho = s / bw;
		peak_sum += (double)nd->cores * s;
	}
	double total_work = 0;
	/* What each task must do at least: read its stored inputs (a
	 * produced input may already be on its node) and compute, the least
	 * over the workers with a cost per processor (at their peak speeds). */
	double least_sum = 0;
	for (size_t t = 0; t < wl->n_tasks; t++) {
		const struct locus_task *tk = &wl->tasks[t];
		double work = env && env->work ? env->work[t] : tk->work;
		uint64_t away, stored = stored_bytes(wl, (uint32_t)t, &away);
		double compute = work > 0 ? work / peak_max : 0;
		if (wl->cost && !(env && env->work)) {
			compute = INFINITY;
			for (size_t w = 0; w < wl->n_workers; w++) {
				uint32_t nd = wl->worker_node[w];
				double c = wl->cost[t * wl->n_workers + w] * p->nodes[nd].speed /
					   (peak ? peak[nd] : p->nodes[nd].speed);
				if (c < compute)
					compute = c;
			}
			least_sum += compute;
		}
		double one = (stored > 0 ? (double)stored / bw_max : 0) + compute;
		placed += (double)(stored - away);
		unplaced += (double)away;
		if (one > biggest)
			biggest = one;
		total_work += work;
	}
	free(peak);
	if (!(env && env->work))
		total_work = wl->total_work; /* the same sum, kept to the last bit */
	b.work = work_time(wl, env, total_work);
	if (wl->cost && !(env && env->work))
		/* Costs per processor: the least costs over the workers. */
		b.work = wl->n_workers ? least_sum / (double)wl->n_workers : INFINITY;
	if (env && env->free_io) {
		b.io = 0;
	} else if (fs > 0) {
		b.io = (placed + unplaced) / fs;
	} else {
		double a = placed > 0 ? placed / disk_sum : 0,
		       c = unplaced > 0 ? unplaced / net_sum : 0;
		b.io = a > c ? a : c;
	}
	if (wl->cost && !(env && env->work))
		b.serial = b.work;
	else if (wl->n_tasks && peak_sum > 0)
		b.serial =
		    (total_work + (placed + unplaced) * (isfinite(rho) ? rho : 0)) / peak_sum;
	else if (wl->n_tasks)
		b.serial = INFINITY;
	b.longest = wl->n_tasks ? biggest : 0;
	b.lower = b.work;
	if (b.io > b.lower)
		b.lower = b.io;
	if (b.serial > b.lower)
		b.lower = b.serial;
	if (b.longest > b.lower)
		b.lower = b.longest;
	if (out)
		*out = b;
	return b.lower;
}

void locus_bound_balanced_caps(const struct locus_workload *wl, uint32_t *cap)
{
	const struct locus_platform *p = wl->platform;
	double total = 0;
	uint64_t sum = 0;

	if (!p->n_nodes)
		return;
	for (size_t n = 0; n < p->n_nodes; n++)
		total += node_power(&p->nodes[n]);
	for (size_t n = 0; n < p->n_nodes; n++) {
		double x = (double)wl->n_tasks * node_power(&p->nodes[n]) / total;
		double r = floor(x + 0.5), c;

		/* A share that is an integer up to rounding (30 tasks over speeds
		 * 0.3, 0.6, 0.9 give 5.000000000000001) is that integer, not
		 * one more. */
		c = fabs(x - r) <= 1e-9 * (x > 1 ? x : 1) ? r : ceil(x);
		cap[n] = c >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)c;
		sum += cap[n];
	}
	/* Exact shares sum to n_tasks, and ceilings to at least that; snapping
	 * could only fall short by rounding: give the missing tasks to the
	 * nodes whose exact share exceeds their cap the most. */
	while (sum < wl->n_tasks) {
		size_t pick = 0;
		double most = -INFINITY;

		for (size_t n = 0; n < p->n_nodes; n++) {
			double over =
			    (double)wl->n_tasks * node_power(&p->nodes[n]) / total - cap[n];

			if (cap[n] < UINT32_MAX && over > most) {
				most = over;
				pick = n;
			}
		}
		cap[pick]++;
		sum++;
	}
}

/* Caps as given, or the balanced caps in `own` (allocated, caller frees). */
static const uint32_t *caps_or_balanced(const struct locus_workload *wl, const uint32_t *cap,
					uint32_t **own)
{
	*own = NULL;
	if (cap)
		return cap;
	*own = locus__calloc(wl->platform->n_nodes, sizeof **own);
	if (*own)
		locus_bound_balanced_caps(wl, *own);
	return *own;
}

/*
 * The b-matching. Task t is matched to node match[t] (or NONE); node n has
 * load[n] <= cap[n] tasks matched to it, listed in
 * slot[node_at[n] .. node_at[n] + load[n]) (they are all local to n, so
 * its share of node_tasks' length has room). An augmenting path runs from a
 * free task to a node with spare capacity, alternating an unmatched edge
 * task -> holder and a matched edge node -> one of its tasks.
 *
 * Each phase labels tasks and nodes with their distance from the free
 * tasks (BFS, stopped at the first level holding a node with spare
 * capacity), then augments along vertex-disjoint shortest paths found by a
 * depth-first search that only steps one level down and keeps a current
 * arc per vertex (Dinic's blocking flow). With unit task capacities this
 * needs O(sqrt(V)) phases of O(E) each (Hopcroft-Karp).
 */
struct bmatch {
	const struct locus_workload *wl;
	const uint32_t *cap;
	uint32_t *match; /* per task */
	uint32_t *load;	 /* per node */
	uint32_t *slot;	 /* the tasks matched to each node, see above */
	uint32_t *pos;	 /* per matched task: its index in slot */
	uint32_t *tdist; /* per task: BFS level, NONE when unreached or dead */
	uint32_t *ndist; /* per node: same */
	uint32_t *tarc;	 /* per task: current holder index */
	uint32_t *narc;	 /* per node: current index into its matched tasks */
	uint32_t *queue; /* BFS queue of tasks; the free tasks first */
	uint32_t *stack; /* the path being grown: tasks at even depths */
	size_t n_free;
	uint32_t limit; /* the level of the nodes ending shortest paths */
	size_t matched;
};

/* Matches task t to node `to`, unmatching it from its node if any. The
 * task that took t's place in that node's list is the next one a search
 * standing at t's index looks at, so no current arc skips it. */
static void bm_move(struct bmatch *g, uint32_t t, uint32_t to)
{
	const uint32_t *at = g->wl->node_at;
	uint32_t from = g->match[t];

	if (from != NONE) {
		uint32_t moved = g->slot[at[from] + --g->load[from]];

		g->slot[g->pos[t]] = moved;
		g->pos[moved] = g->pos[t];
	}
	g->pos[t] = at[to] + g->load[to]++;
	g->slot[g->pos[t]] = t;
	g->match[t] = to;
}

/* Greedy start: each task in turn to the holder with the most room left. */
static void bm_greedy(struct bmatch *g)
{
	const struct locus_workload *wl = g->wl;

	for (size_t t = 0; t < wl->n_tasks; t++) {
		const struct locus_task *tk = &wl->tasks[t];
		uint32_t pick = NONE, room = 0;

		for (uint32_t k = 0; k < tk->n_holders; k++) {
			uint32_t n = wl->holders[tk->holders_at + k];

			if (g->cap[n] - g->load[n] > room) {
				room = g->cap[n] - g->load[n];
				pick = n;
			}
		}
		if (pick != NONE) {
			bm_move(g, (uint32_t)t, pick);
			g->matched++;
		}
	}
}

/* Labels the levels of a phase. Returns whether any augmenting path is
 * left. The free tasks are queue[0 .. n_free). */
static int bm_levels(struct bmatch *g)
{
	const struct locus_workload *wl = g->wl;
	size_t head = 0, tail = g->n_free;

	memset(g->tdist, 0xff, wl->n_tasks * sizeof *g->tdist);
	memset(g->ndist, 0xff, wl->platform->n_nodes * sizeof *g->ndist);
	for (size_t i = 0; i < g->n_free; i++)
		g->tdist[g->queue[i]] = 0;
	g->limit = NONE;
	while (head < tail) {
		uint32_t t = g->queue[head++];
		const struct locus_task *tk = &wl->tasks[t];

		/* Tasks past the first level with room are on no shortest path. */
		if (g->limit != NONE && g->tdist[t] > g->limit)
			break;
		for (uint32_t k = 0; k < tk->n_holders; k++) {
			uint32_t n = wl->holders[tk->holders_at + k];

			if (n == g->match[t] || g->ndist[n] != NONE)
				continue;
			g->ndist[n] = g->tdist[t] + 1;
			if (g->load[n] < g->cap[n]) {
				g->limit = g->ndist[n];
				continue;
			}
			if (g->limit != NONE)
				continue;
			for (uint32_t i = wl->node_at[n]; i < wl->node_at[n] + g->load[n]; i++) {
				uint32_t u = g->slot[i];

				if (g->tdist[u] == NONE) {
					g->tdist[u] = g->ndist[n] + 1;
					g->queue[tail++] = u;
				}
			}
		}
	}
	return g->limit != NONE;
}

/* Looks for a shortest augmenting path from free task `root` in the level
 * graph and applies it. Iterative, since paths can be long. Vertices found
 * to lead nowhere lose their level for the rest of the phase. */
static int bm_augment(struct bmatch *g, uint32_t root)
{
	const struct locus_workload *wl = g->wl;
	uint32_t *st = g->stack;
	size_t d = 0;

	st[0] = root;
	for (;;) {
		uint32_t v = st[d], next = NONE;

		if (!(d & 1)) {
			/* A task: step to a holder one level down. */
			const struct locus_task *tk = &wl->tasks[v];

			for (; g->tarc[v] < tk->n_holders; g->tarc[v]++) {
				uint32_t n = wl->holders[tk->holders_at + g->tarc[v]];

				if (n != g->match[v] && g->ndist[n] == g->tdist[v] + 1) {
					next = n;
					break;
				}
			}
			if (next == NONE) {
				g->tdist[v] = NONE;
				if (d == 0)
					return 0;
				g->narc[st[--d]]++;
				continue;
			}
		} else {
			/* A node: done if it has room, else on to one of its tasks. */
			const uint32_t *mine = g->slot + wl->node_at[v];

			if (g->load[v] < g->cap[v])
				break;
			for (; g->ndist[v] < g->limit && g->narc[v] < g->load[v]; g->narc[v]++) {
				uint32_t u = mine[g->narc[v]];

				if (g->tdist[u] == g->ndist[v] + 1) {
					next = u;
					break;
				}
			}
			if (next == NONE) {
				g->ndist[v] = NONE;
				g->tarc[st[--d]]++;
				continue;
			}
		}
		st[++d] = next;
	}
	/* Each task on the path moves to the node after it; only the last
	 * node gains a task. */
	for (size_t k = 0; k < d; k += 2)
		bm_move(g, st[k], st[k + 1]);
	g->matched++;
	return 1;
}

static void bm_solve(struct bmatch *g)
{
	const struct locus_workload *wl = g->wl;

	bm_greedy(g);
	for (;;) {
		g->n_free = 0;
		for (size_t t = 0; t < wl->n_tasks; t++)
			if (g->match[t] == NONE && wl->tasks[t].n_holders)
				g->queue[g->n_free++] = (uint32_t)t;
		if (!g->n_free || !bm_levels(g))
			break;
		memset(g->tarc, 0, wl->n_tasks * sizeof *g->tarc);
		memset(g->narc, 0, wl->platform->n_nodes * sizeof *g->narc);
		/* bm_levels left the free tasks at the head of the queue. */
		for (size_t i = 0; i < g->n_free; i++)
			bm_augment(g, g->queue[i]);
	}
}

/* Overflow order when the caps leave no room: fewest tasks per unit of
 * power after taking one more, ties to the lower node id. */
struct overflow {
	double after;
	uint32_t node;
};

static int overflow_cmp(const void *a, const void *b)
{
	const struct overflow *x = a, *y = b;

	if (x->after != y->after)
		return x->after < y->after ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* Gives every unmatched task a node: one with room left (the lowest id
 * first), then, when the caps sum to fewer than n_tasks, the node that
 * stays least loaded for its power. `load` is updated. */
static int place_rest(const struct locus_workload *wl, const uint32_t *cap, uint32_t *load,
		      const uint32_t *match, uint32_t *task_node)
{
	const struct locus_platform *p = wl->platform;
	struct locus_heap heap;
	int heap_ready = 0;
	size_t cursor = 0;

	for (size_t t = 0; t < wl->n_tasks; t++) {
		struct overflow o;

		if (match[t] != NONE) {
			task_node[t] = match[t];
			continue;
		}
		while (cursor < p->n_nodes && load[cursor] >= cap[cursor])
			cursor++;
		if (cursor < p->n_nodes) {
			task_node[t] = (uint32_t)cursor;
			load[cursor]++;
			continue;
		}
		if (!heap_ready) {
			if (locus_heap_init(&heap, sizeof o, overflow_cmp))
				return LOCUS_ENOMEM;
			heap_ready = 1;
			for (size_t n = 0; n < p->n_nodes; n++) {
				o.node = (uint32_t)n;
				o.after = (load[n] + 1.0) / node_power(&p->nodes[n]);
				if (locus_heap_push(&heap, &o)) {
					locus_heap_fini(&heap);
					return LOCUS_ENOMEM;
				}
			}
		}
		locus_heap_pop(&heap, &o);
		task_node[t] = o.node;
		load[o.node]++;
		o.after = (load[o.node] + 1.0) / node_power(&p->nodes[o.node]);
		if (locus_heap_push(&heap, &o)) {
			locus_heap_fini(&heap);
			return LOCUS_ENOMEM;
		}
	}
	if (heap_ready)
		locus_heap_fini(&heap);
	return 0;
}

int locus_bound_locality(const struct locus_workload *wl, const uint32_t *cap, long *best,
			 uint32_t *task_node, struct locus_error *err)
{
	size_t n_tasks = wl->n_tasks, n_nodes = wl->platform->n_nodes;
	struct bmatch g = {.wl = wl};
	uint32_t *own;
	int rc = 0;

	if (task_node && n_tasks && !n_nodes)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no node to assign %zu tasks to",
				  n_tasks);
	g.cap = caps_or_balanced(wl, cap, &own);
	g.match = locus__calloc(n_tasks, sizeof *g.match);
	g.tdist = locus__calloc(n_tasks, sizeof *g.tdist);
	g.tarc = locus__calloc(n_tasks, sizeof *g.tarc);
	g.queue = locus__calloc(n_tasks, sizeof *g.queue);
	g.stack = locus__calloc(n_tasks + n_nodes + 1, sizeof *g.stack);
	g.load = locus__calloc(n_nodes, sizeof *g.load);
	g.slot = locus__calloc(wl->node_at[n_nodes], sizeof *g.slot);
	g.pos = locus__calloc(n_tasks, sizeof *g.pos);
	g.ndist = locus__calloc(n_nodes, sizeof *g.ndist);
	g.narc = locus__calloc(n_nodes, sizeof *g.narc);
	if (!g.cap || !g.match || !g.tdist || !g.tarc || !g.queue || !g.stack || !g.load ||
	    !g.slot || !g.pos || !g.ndist || !g.narc) {
		rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		goto out;
	}
	memset(g.match, 0xff, n_tasks * sizeof *g.match);
	bm_solve(&g);
	if (best)
		*best = (long)g.matched;
	if (task_node && place_rest(wl, g.cap, g.load, g.match, task_node))
		rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
out:
	free(own);
	free(g.match);
	free(g.tdist);
	free(g.tarc);
	free(g.queue);
	free(g.stack);
	free(g.load);
	free(g.slot);
	free(g.pos);
	free(g.ndist);
	free(g.narc);
	return rc;
}

/*
 * The same optimum as a min-cost flow for GLPK's out-of-kilter solver:
 * every task supplies one unit that reaches the sink either through a
 * holder (cost -1, capacity 1, then the holder's arc to the sink with
 * capacity cap[n]) or directly (cost 0: read remotely or not at all). The
 * least cost is minus the most local tasks.
 */
struct flow_vertex {
	double rhs;
};

struct flow_arc {
	double low, cap, cost;
};

static void flow_arc(glp_graph *G, int from, int to, double cap, double cost)
{
	glp_arc *a = glp_add_arc(G, from, to);
	struct flow_arc *d = a->data;

	d->low = 0;
	d->cap = cap;
	d->cost = cost;
}

int locus_bound_locality_glpk(const struct locus_workload *wl, const uint32_t *cap, long *best,
			      struct locus_error *err)
{
	size_t n_tasks = wl->n_tasks, n_nodes = wl->platform->n_nodes;
	uint32_t *own;
	const uint32_t *caps;
	glp_graph *G;
	double sol = 0;
	int rc, term, sink;

	if (!n_tasks) {
		if (best)
			*best = 0;
		return 0;
	}
	/* GLPK numbers vertices and arcs with int. */
	if (n_tasks + n_nodes + 1 > INT_MAX / 4)
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
				  "too large for GLPK's min-cost flow (%zu tasks)", n_tasks);
	caps = caps_or_balanced(wl, cap, &own);
	if (!caps)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	G = glp_create_graph(sizeof(struct flow_vertex), sizeof(struct flow_arc));
	/* Vertices: tasks 1..T, nodes T+1..T+N, the sink T+N+1. */
	sink = (int)(n_tasks + n_nodes + 1);
	glp_add_vertices(G, sink);
	for (size_t t = 0; t < n_tasks; t++) {
		const struct locus_task *tk = &wl->tasks[t];
		int v = (int)t + 1;

		((struct flow_vertex *)G->v[v]->data)->rhs = 1;
		for (uint32_t k = 0; k < tk->n_holders; k++)
			flow_arc(G, v, (int)(n_tasks + wl->holders[tk->holders_at + k]) + 1, 1, -1);
		flow_arc(G, v, sink, 1, 0);
	}
	for (size_t n = 0; n < n_nodes; n++) {
		int v = (int)(n_tasks + n) + 1;

		((struct flow_vertex *)G->v[v]->data)->rhs = 0;
		/* More than n_tasks is as good as unbounded, and fits an int. */
		flow_arc(G, v, sink, caps[n] < n_tasks ? caps[n] : (double)n_tasks, 0);
	}
	((struct flow_vertex *)G->v[sink]->data)->rhs = -(double)n_tasks;
	term = glp_term_out(GLP_OFF);
	rc = glp_mincost_okalg(G, offsetof(struct flow_vertex, rhs), offsetof(struct flow_arc, low),
			       offsetof(struct flow_arc, cap), offsetof(struct flow_arc, cost),
			       &sol, -1, -1);
	glp_term_out(term);
	glp_delete_graph(G);
	free(own);
	if (rc)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "GLPK's min-cost flow failed (glp_mincost_okalg code %d)", rc);
	if (best)
		*best = -lround(sol);
	return 0;
}

/*
 * DL-MPI Eq. 1-2, exactly.
 *
 * With L(x) the local tasks of assignment x and M(x) = max_i T(F_i), the
 * objective f(x) = alpha L(x) / n + beta OPT / M(x) grows with L and falls
 * with M (alpha, beta >= 0), so an optimum lies on the Pareto front of
 * (L, M); since L is an integer in [0, n] that front has at most n + 1
 * points. For a level l let M*(l) be the least makespan over assignments
 * with L >= l (a MIP). Then
 *
 *   max_x f(x) = max_l  alpha l / n + beta OPT / M*(l):
 *
 * every x with L(x) = l has M(x) >= M*(l), so f(x) is at most the right
 * side at l; and the MIP's optimum x_l at level l has L(x_l) >= l and
 * M(x_l) = M*(l), so f(x_l) is at least it. We walk the levels upwards:
 * since M* never decreases, the optimum x_l also settles every level up to
 * L(x_l) (there M* = M(x_l)), so the next level is L(x_l) + 1; and once
 * alpha Lmax / n + beta OPT / M*(l) cannot beat the best found, no higher
 * level can either, and we stop. At most Lmax + 1 MIPs, usually a few.
 *
 * Eq. 2 is written as a cover (sum_i F_i >= 1); we require every task on
 * exactly one node. With ">=" a second, local copy of a chunk would add to
 * P(D) at no cost to a node that is not the slowest, so the optimum would
 * process chunks twice, which neither the paper's "assign chunks" nor
 * Locus's model (each task runs once) means; "= 1" also keeps P(D) <= 1.
 *
 * The objective is evaluated from the integer assignment GLPK returns, not
 * from its floating-point objective, so the value reported is the value of
 * the assignment reported.
 */

/* f(x) of an assignment; `power` per node, `opt` the work bound. */
static double dlmpi_value(const struct locus_workload *wl, const uint32_t *task_node,
			  const double *power, double *time, double opt, double alpha, double beta,
			  size_t *local, double *makespan)
{
	size_t n_nodes = wl->platform->n_nodes, l = 0;
	double m = 0, pd, pt;

	memset(time, 0, n_nodes * sizeof *time);
	for (size_t t = 0; t < wl->n_tasks; t++) {
		time[task_node[t]] += wl->tasks[t].work;
		l += (size_t)locus_workload_is_local(wl, (uint32_t)t, task_node[t]);
	}
	for (size_t n = 0; n < n_nodes; n++) {
		/* Work on a node that runs no worker is never done. */
		double tn = time[n] > 0 ? (power[n] > 0 ? time[n] / power[n] : INFINITY) : 0;
		if (tn > m)
			m = tn;
	}
	/* No tasks: nothing is read remotely; no work: nothing is late. */
	pd = wl->n_tasks ? (double)l / (double)wl->n_tasks : 1;
	pt = m > 0 ? opt / m : 1;
	*local = l;
	*makespan = m;
	return alpha * pd + beta * pt;
}

double locus_dlmpi_objective(const struct locus_workload *wl, double alpha, double beta,
			     const uint32_t *task_node)
{
	size_t m = wl->platform->n_nodes, local;
	double *power = locus__calloc(m, sizeof *power), *time = locus__calloc(m, sizeof *time);
	double makespan, value = NAN;
	struct locus_makespan_bound mb;

	if (power && time) {
		for (size_t i = 0; i < m; i++)
			power[i] = node_power(&wl->platform->nodes[i]);
		locus_bound_makespan(wl, NULL, &mb);
		value = dlmpi_value(wl, task_node, power, time, mb.work, alpha, beta, &local,
				    &makespan);
	}
	free(power);
	free(time);
	return value;
}

/* One exact solve of DL-MPI's program: its inputs, the problem and the
 * arrays its matrix and assignments live in. */
struct dlmpi_ip {
	const struct locus_workload *wl;
	size_t n, m;		 /* tasks, nodes */
	size_t lmax;		 /* the most tasks that can be local */
	double alpha, beta, opt; /* the weights; opt the work bound */
	double *power, *time;	 /* per node */
	uint32_t *assign, *best; /* per task: the last solution, the best */
	double best_value;
	int *ia, *ja; /* the constraint matrix's non-zeros */
	double *ar;
	glp_prob *P;
};

/* Refuses weights that are negative or not finite, and a workload too
 * large for the exact program or for GLPK's int indices. */
static int dlmpi_check(const struct dlmpi_ip *ip, size_t max_tasks, struct locus_error *err)
{
	if (!(ip->alpha >= 0) || !(ip->beta >= 0) || isinf(ip->alpha) || isinf(ip->beta))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "DL-MPI weights must be finite and >= 0 (alpha %g, beta %g)",
				  ip->alpha, ip->beta);
	if (ip->n > max_tasks)
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
				  "%zu tasks: the exact DL-MPI program is limited to %zu", ip->n,
				  max_tasks);
	if (!ip->m)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "the platform has no node");
	if (ip->n > (size_t)INT_MAX / 4 / ip->m)
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
				  "%zu tasks x %zu nodes: too large for GLPK", ip->n, ip->m);
	return 0;
}

/* Allocates the arrays, reads each node's power (refusing a platform
 * where no node runs a worker) and counts the tasks that can be local. */
static int dlmpi_prepare(struct dlmpi_ip *ip, struct locus_error *err)
{
	const struct locus_workload *wl = ip->wl;
	size_t n = ip->n, m = ip->m;
	ip->power = locus__calloc(m, sizeof *ip->power);
	ip->time = locus__calloc(m, sizeof *ip->time);
	ip->assign = locus__calloc(n, sizeof *ip->assign);
	ip->best = locus__calloc(n, sizeof *ip->best);
	/* Non-zeros: x_ti in its task row, its node row and the locality row,
	 * and M in every node row. */
	ip->ia = locus__calloc(3 * n * m + m + 1, sizeof *ip->ia);
	ip->ja = locus__calloc(3 * n * m + m + 1, sizeof *ip->ja);
	ip->ar = locus__calloc(3 * n * m + m + 1, sizeof *ip->ar);
	if (!ip->power || !ip->time || !ip->assign || !ip->best || !ip->ia || !ip->ja || !ip->ar)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	int any_power = 0;
	for (size_t i = 0; i < m; i++) {
		ip->power[i] = node_power(&wl->platform->nodes[i]);
		any_power |= ip->power[i] > 0;
	}
	if (!any_power)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no node runs a worker");
	/* The most tasks that can be local: those held by a node that runs
	 * workers (a storage node takes no task). */
	for (size_t t = 0; t < n; t++) {
		const struct locus_task *tk = &wl->tasks[t];
		int can = 0;
		for (uint32_t k = 0; k < tk->n_holders; k++)
			can |= ip->power[wl->holders[tk->holders_at + k]] > 0;
		ip->lmax += (size_t)can;
	}
	return 0;
}

/* Builds the program in ip->P, the locality row's bound left to set.
 * Columns: x_ti = column 1 + t m + i (binary), M = column n m + 1.
 * Rows: task t = row t + 1 (sum_i x_ti = 1), node i = row n + i + 1
 * (sum_t w_t / power_i x_ti - M <= 0), locality = row n + m + 1
 * (sum of local x_ti >= l). */
static void dlmpi_build(struct dlmpi_ip *ip)
{
	const struct locus_workload *wl = ip->wl;
	size_t n = ip->n, m = ip->m, n_nz = 0;
	int *ia = ip->ia, *ja = ip->ja;
	double *ar = ip->ar;
	glp_prob *P = ip->P = glp_create_prob();
	glp_set_obj_dir(P, GLP_MIN);
	glp_add_cols(P, (int)(n * m + 1));
	glp_add_rows(P, (int)(n + m + 1));
	for (size_t t = 0; t < n; t++) {
		glp_set_row_bnds(P, (int)t + 1, GLP_FX, 1, 1);
		for (size_t i = 0; i < m; i++) {
			int col = (int)(t * m + i) + 1;

			glp_set_col_kind(P, col, GLP_BV);
			if (!(ip->power[i] > 0)) {
				glp_set_col_bnds(P, col, GLP_FX, 0, 0);
				continue;
			}
			n_nz++;
			ia[n_nz] = (int)t + 1;
			ja[n_nz] = col;
			ar[n_nz] = 1;
			n_nz++;
			ia[n_nz] = (int)(n + i) + 1;
			ja[n_nz] = col;
			ar[n_nz] = wl->tasks[t].work / ip->power[i];
			if (locus_workload_is_local(wl, (uint32_t)t, (uint32_t)i)) {
				n_nz++;
				ia[n_nz] = (int)(n + m) + 1;
				ja[n_nz] = col;
				ar[n_nz] = 1;
			}
		}
	}
	glp_set_col_bnds(P, (int)(n * m) + 1, GLP_LO, 0, 0);
	glp_set_obj_coef(P, (int)(n * m) + 1, 1);
	for (size_t i = 0; i < m; i++) {
		glp_set_row_bnds(P, (int)(n + i) + 1, GLP_UP, 0, 0);
		n_nz++;
		ia[n_nz] = (int)(n + i) + 1;
		ja[n_nz] = (int)(n * m) + 1;
		ar[n_nz] = -1;
	}
	glp_load_matrix(P, (int)n_nz, ia, ja, ar);
}

/* Reads the solution into ip->assign: each task to its largest x (1 up
 * to GLPK's tolerance). */
static void dlmpi_read_assignment(struct dlmpi_ip *ip)
{
	for (size_t t = 0; t < ip->n; t++) {
		double most = -1;

		for (size_t i = 0; i < ip->m; i++) {
			double x = glp_mip_col_val(ip->P, (int)(t * ip->m + i) + 1);

			if (x > most) {
				most = x;
				ip->assign[t] = (uint32_t)i;
			}
		}
	}
}

/* Walks the locality levels upwards, solving the MIP at each and keeping
 * the best assignment in ip->best, until no higher level can beat it. */
static int dlmpi_walk_levels(struct dlmpi_ip *ip, struct locus_error *err)
{
	size_t n = ip->n, m = ip->m;
	glp_iocp parm;
	glp_init_iocp(&parm);
	parm.presolve = GLP_ON;
	parm.msg_lev = GLP_MSG_OFF;

	for (size_t level = 0; level <= ip->lmax;) {
		size_t local;
		double makespan, value;
		int status;

		glp_set_row_bnds(ip->P, (int)(n + m) + 1, GLP_LO, (double)level, 0);
		status = glp_intopt(ip->P, &parm);
		if (status || glp_mip_status(ip->P) != GLP_OPT)
			return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
					  "GLPK found no optimal assignment with %zu local tasks "
					  "(glp_intopt code %d, status %d)",
					  level, status, glp_mip_status(ip->P));
		dlmpi_read_assignment(ip);
		value = dlmpi_value(ip->wl, ip->assign, ip->power, ip->time, ip->opt, ip->alpha,
				    ip->beta, &local, &makespan);
		if (value > ip->best_value) {
			ip->best_value = value;
			memcpy(ip->best, ip->assign, n * sizeof *ip->best);
		}
		/* Higher levels have M* >= makespan: stop when even all of Lmax
		 * local at this makespan would not do better. */
		if (ip->alpha * (double)ip->lmax / (double)n +
			(makespan > 0 ? ip->beta * ip->opt / makespan : ip->beta) <=
		    ip->best_value)
			break;
		level = (local > level ? local : level) + 1;
	}
	return 0;
}

int locus_dlmpi_ip(const struct locus_workload *wl, double alpha, double beta, size_t max_tasks,
		   uint32_t *task_node, double *objective, struct locus_error *err)
{
	struct dlmpi_ip ip = {.wl = wl,
			      .n = wl->n_tasks,
			      .m = wl->platform->n_nodes,
			      .alpha = alpha,
			      .beta = beta,
			      .best_value = -INFINITY};
	int rc = dlmpi_check(&ip, max_tasks, err);
	if (rc)
		return rc;
	struct locus_makespan_bound mb;
	locus_bound_makespan(wl, NULL, &mb);
	ip.opt = mb.work;
	if (!ip.n) {
		if (objective)
			*objective = alpha + beta;
		return 0;
	}
	rc = dlmpi_prepare(&ip, err);
	if (!rc) {
		int term = glp_term_out(GLP_OFF);
		dlmpi_build(&ip);
		rc = dlmpi_walk_levels(&ip, err);
		glp_delete_prob(ip.P);
		glp_term_out(term);
	}
	if (!rc) {
		if (task_node)
			memcpy(task_node, ip.best, ip.n * sizeof *ip.best);
		if (objective)
			*objective = ip.best_value;
	}
	free(ip.power);
	free(ip.time);
	free(ip.assign);
	free(ip.best);
	free(ip.ia);
	free(ip.ja);
	free(ip.ar);
	return rc;
}
