/*
 * AME/AMFS (amfs.c): a dispatcher (V-A, V-B1, V-C, V-I). It asks the
 * metadata servers where its tasks' produced inputs are, learns where
 * each is made, and sends each task whose inputs are all produced to a
 * worker: data-aware, or round-robin over its workers; a gather through
 * a tree (amfs_collectives.c), an asynchronous gather by copying each
 * input to the task's node as it appears. It keeps the load it sent each
 * of its workers and the table of each stage's files on its nodes
 * (V-F3), which multicasts and replicas place their copies by.
 */
#include "flow/amfs_dispatcher.h"

#include <stdlib.h>

#include "flow/assign.h"

/* ---- its state ------------------------------------------------------------------------------- */

void locus__amfs_dispatcher_destroy(struct amfs_dispatcher *ds)
{
	if (!ds)
		return;
	for (size_t i = 0; i < ds->n_colls; i++)
		locus__amfs_coll_free(&ds->colls[i]);
	free(ds->colls);
	free(ds->chains);
	free(ds->task);
	free(ds->obj);
	free(ds->loc);
	free(ds->coll);
	free(ds->repl);
	free(ds->rsent);
	free(ds->sload);
	free(ds->smark);
	free(ds->scount);
	free(ds->stouch);
	free(ds->wload);
	free(ds->held);
	locus__links_fini(&ds->hl);
	free(ds->nbytes);
	free(ds->nload);
	free(ds->nfiles);
	free(ds->ntouch);
	free(ds);
}

/* With replicate=task: the writers of the groups d's tasks read as
 * multicasts (not scatters: their pieces are no group to replicate),
 * sorted, into ds->repl (room for `room`); *extra gets the inputs of
 * those another dispatcher runs (they are among d's queries, so that d
 * can run their replicas). */
static void find_writers(const struct amfs *s, struct amfs_dispatcher *ds, size_t room,
			 size_t *extra)
{
	const struct locus_graph *g = s->g;
	uint32_t d = ds->d, nr = 0;
	for (uint32_t i = s->dtasks_at[d]; i < s->dtasks_at[d + 1]; i++) {
		const struct locus_task *tk = &g->tasks[s->dtasks[i]];
		for (uint32_t j = 0; j < tk->n_in; j++) {
			uint32_t p = g->objects[g->inputs[tk->in_at + j]].producer;
			if (p != LOCUS_NONE && s->an->input_multicast[tk->in_at + j] &&
			    !(s->an->task_patterns[p] & LOCUS_PATTERN_SCATTER) && nr < room)
				ds->repl[nr++] = p;
		}
	}
	qsort(ds->repl, nr, sizeof *ds->repl, locus__amfs_cmp_u32);
	uint32_t u = 0;
	*extra = 0;
	for (uint32_t i = 0; i < nr; i++)
		if (!u || ds->repl[u - 1] != ds->repl[i]) {
			ds->repl[u++] = ds->repl[i];
			if (s->tdisp[ds->repl[i]] != d)
				*extra += g->tasks[ds->repl[i]].n_in;
		}
	ds->n_repl = u;
}

/* d's produced inputs (its tasks', and those of the other dispatchers'
 * writers it replicates), sorted and each once, into ds->obj. */
static void find_inputs(const struct amfs *s, struct amfs_dispatcher *ds)
{
	const struct locus_graph *g = s->g;
	uint32_t d = ds->d, at = 0;
	for (uint32_t i = s->dtasks_at[d]; i < s->dtasks_at[d + 1]; i++) {
		const struct locus_task *tk = &g->tasks[s->dtasks[i]];
		for (uint32_t j = 0; j < tk->n_in; j++) {
			uint32_t o = g->inputs[tk->in_at + j];
			if (g->objects[o].producer != LOCUS_NONE)
				ds->obj[at++] = o;
		}
	}
	for (uint32_t i = 0; i < ds->n_repl; i++) {
		const struct locus_task *pk = &g->tasks[ds->repl[i]];
		for (uint32_t j = 0; j < pk->n_in && s->tdisp[ds->repl[i]] != d; j++) {
			uint32_t o = g->inputs[pk->in_at + j];
			if (g->objects[o].producer != LOCUS_NONE)
				ds->obj[at++] = o;
		}
	}
	qsort(ds->obj, at, sizeof *ds->obj, locus__amfs_cmp_u32);
	uint32_t u = 0;
	for (uint32_t i = 0; i < at; i++)
		if (!u || ds->obj[u - 1] != ds->obj[i])
			ds->obj[u++] = ds->obj[i];
	ds->n_obj = u;
	for (uint32_t i = 0; i < u; i++)
		ds->loc[i] = ds->coll[i] = ds->held[i] = NONE;
}

/* Dispatcher d's state, as it starts: its tasks waiting, none of their
 * inputs located. NULL when memory ran out. */
struct amfs_dispatcher *locus__amfs_dispatcher_create(const struct amfs *s, uint32_t d)
{
	const struct locus_graph *g = s->g;
	struct amfs_dispatcher *ds = locus__calloc(1, sizeof *ds);
	if (!ds)
		return NULL;
	ds->d = d;
	locus__links_init(&ds->hl);
	uint32_t n = s->dtasks_at[d + 1] - s->dtasks_at[d];
	uint32_t nodes = s->gnodes_at[d + 1] - s->gnodes_at[d];
	uint32_t workers = s->gworkers_at[d + 1] - s->gworkers_at[d];
	ALLOC(ds->task, n);
	size_t loads = (size_t)nodes * s->ns;
	ALLOC(ds->sload, loads);
	ALLOC(ds->smark, s->ns);
	ALLOC(ds->scount, s->ns);
	ALLOC(ds->stouch, s->ns);
	ALLOC(ds->wload, workers);
	ALLOC(ds->nbytes, nodes);
	ALLOC(ds->nload, nodes);
	ALLOC(ds->nfiles, nodes);
	ALLOC(ds->ntouch, nodes);
	if (!ds->task || !ds->sload || !ds->smark || !ds->scount || !ds->stouch || !ds->wload ||
	    !ds->nbytes || !ds->nload || !ds->nfiles || !ds->ntouch) {
		locus__amfs_dispatcher_destroy(ds);
		return NULL;
	}
	/* Its tasks, each waiting for its produced inputs to be located. */
	size_t total = 0, extra = 0;
	for (uint32_t k = 0; k < n; k++) {
		const struct locus_task *tk = &g->tasks[s->dtasks[s->dtasks_at[d] + k]];
		struct amfs_dtask *dt = &ds->task[k];
		dt->target = dt->worker = dt->coll = NONE;
		for (uint32_t j = 0; j < tk->n_in; j++)
			dt->missing += g->objects[g->inputs[tk->in_at + j]].producer != LOCUS_NONE;
		dt->left = dt->missing;
		total += dt->missing;
	}
	ds->left = n;
	ALLOC(ds->repl, s->opt.replicate_task ? total : 0);
	if (!ds->repl) {
		locus__amfs_dispatcher_destroy(ds);
		return NULL;
	}
	if (s->opt.replicate_task)
		find_writers(s, ds, total, &extra);
	ALLOC(ds->obj, total + extra);
	ALLOC(ds->loc, total + extra);
	ALLOC(ds->coll, total + extra);
	ALLOC(ds->held, total + extra);
	if (!ds->obj || !ds->loc || !ds->coll || !ds->held) {
		locus__amfs_dispatcher_destroy(ds);
		return NULL;
	}
	find_inputs(s, ds);
	return ds;
}

/* ---- what it knows --------------------------------------------------------------------------- */

/* Index of object o in ds's inputs, or NONE. */
uint32_t locus__amfs_dindex(const struct amfs_dispatcher *ds, uint32_t o)
{
	const uint32_t *at = bsearch(&o, ds->obj, ds->n_obj, sizeof o, locus__amfs_cmp_u32);
	return at ? (uint32_t)(at - ds->obj) : NONE;
}

/* Where ds knows o is (NONE: not yet). */
uint32_t locus__amfs_dwhere(const struct amfs_dispatcher *ds, uint32_t o)
{
	uint32_t k = locus__amfs_dindex(ds, o);
	return k == NONE ? NONE : ds->loc[k];
}

/* The tasks ds sent worker w, not done (0 for another's worker: ds keeps
 * the load of its own workers only). */
uint32_t locus__amfs_wload(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t w)
{
	return my_node(s, ds, node_of(s, w)) ? ds->wload[s->worker_place[w]] : 0;
}

/* The worker of node n ds sends a task to: of ds's nodes, the one with
 * the fewest tasks ds sent it; of another dispatcher's (a gather's root),
 * whose loads ds does not know, the node's first. NONE when the node has
 * none. */
uint32_t locus__amfs_worker_on(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t n)
{
	uint32_t best = NONE;
	if (n >= s->nn)
		return NONE;
	for (uint32_t k = s->nworkers_at[n]; k < s->nworkers_at[n + 1]; k++) {
		uint32_t w = s->nworkers[k];
		if (best == NONE || (my_node(s, ds, n) &&
				     locus__amfs_wload(s, ds, w) < locus__amfs_wload(s, ds, best)))
			best = w;
	}
	return best;
}

/* One more (delta > 0) or one fewer, never below 0. */
static void bump(uint32_t *at, int delta)
{
	if (delta > 0)
		(*at)++;
	else if (*at)
		(*at)--;
}

/* ds counts delta tasks on worker w, when w is one of its own. */
static void load_add(const struct amfs *s, struct amfs_dispatcher *ds, uint32_t w, int delta)
{
	if (w == NONE || !my_node(s, ds, node_of(s, w)))
		return;
	uint32_t *at = &ds->wload[s->worker_place[w]];
	if (delta > 0 || *at) {
		bump(&ds->nload[s->node_place[node_of(s, w)]], delta);
		bump(&ds->load, delta);
	}
	bump(at, delta);
}

/* ds's table of each stage's input files on its servers (V-F3): file o
 * is (delta 1) or is no longer (-1) to be on node n, for each stage
 * whose tasks of ds read it. Nodes of other dispatchers are theirs to
 * count. */
static void count_file(const struct amfs *s, struct amfs_dispatcher *ds, uint32_t o, uint32_t n,
		       int delta)
{
	if (!my_node(s, ds, n))
		return;
	const struct locus_object *ob = &s->g->objects[o];
	uint32_t gen = ++ds->sgen;
	for (uint32_t j = 0; j < ob->n_cons; j++) {
		uint32_t t = s->g->consumers[ob->cons_at + j], st;
		if (!mine(s, ds, t) || ds->smark[st = locus_flow_stage_of(s->g, t)] == gen)
			continue;
		ds->smark[st] = gen;
		bump(&ds->sload[(size_t)s->node_place[n] * s->ns + st], delta);
	}
}

/* The files task t writes are (delta 1) or no longer are (-1) to be on
 * node n: ds counts them when it sends t there (V-F3: "the table can be
 * initialized when stage a tasks are dispatched"). */
static void count_made(const struct amfs *s, struct amfs_dispatcher *ds, uint32_t t, uint32_t n,
		       int delta)
{
	const struct locus_task *tk = &s->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_out; k++)
		count_file(s, ds, s->g->outputs[tk->out_at + k], n, delta);
}

/* ---- where a task goes ----------------------------------------------------------------------- */

/* The next of ds's workers round-robin. */
uint32_t locus__amfs_round_robin(struct amfs *s, struct amfs_dispatcher *ds)
{
	uint32_t d = ds->d, n = s->gworkers_at[d + 1] - s->gworkers_at[d];
	return s->gworkers[s->gworkers_at[d] + ds->rr++ % n];
}

/* ds's view: o is on node n now, or will be (n one of ds's nodes: the
 * others are not ds's to send to). */
void locus__amfs_learn(const struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
		       uint32_t o, uint32_t n)
{
	uint32_t k = locus__amfs_dindex(ds, o);
	if (k != NONE && my_node(s, ds, n) && locus__links_add(&ds->hl, &ds->held[k], n))
		locus_act_oom(act);
}

/* The waves of tasks ds sent node place i (of its nodes) and that are
 * not done, before one more there: its load over its cores. */
static uint32_t waves(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t i)
{
	uint32_t n = s->gnodes[s->gnodes_at[ds->d] + i];
	uint32_t cores = s->nworkers_at[n + 1] - s->nworkers_at[n];
	return cores ? ds->nload[i] / cores : ds->nload[i];
}

/* aware=now: the node of ds's where task t would start soonest as far as
 * ds knows: for each node holding some of t's produced inputs (ds's
 * view: held), and ds's least loaded node holding none (the first from
 * a round-robin position among equals), the time to bring what it lacks
 * (its bytes over the mean interface, fetch_cost a file) plus the waves
 * of tasks queued there beyond the mean of ds's nodes (the tasks ds sent
 * there, not done, over its cores, each as long as t there: a wave every
 * node has to run costs nothing, the others being as busy). The least
 * wins; among equals the less loaded, then the one holding more bytes,
 * then the first found (inputs in order, each file's holders most recent
 * first). So readers of a file held on many nodes (scattered, multicast,
 * copied by earlier readers) spread over them, and a pile-up on one
 * holder overflows to another node as soon as waiting there costs more
 * than the copy. */
static uint32_t now_node(struct amfs *s, struct amfs_dispatcher *ds, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t base = s->gnodes_at[ds->d], n_touch = 0, n_files = 0;
	uint64_t total = 0;
	for (uint32_t j = 0; j < tk->n_in; j++) {
		uint32_t o = s->g->inputs[tk->in_at + j];
		if (s->g->objects[o].producer == LOCUS_NONE)
			continue;
		n_files++;
		total += s->g->objects[o].bytes;
		uint32_t k = locus__amfs_dindex(ds, o);
		for (uint32_t l = k == NONE ? NONE : ds->held[k]; l != NONE;
		     l = ds->hl.cell[l].next) {
			uint32_t i = s->node_place[ds->hl.cell[l].val];
			if (!ds->nfiles[i]++)
				ds->ntouch[n_touch++] = i;
			ds->nbytes[i] += s->g->objects[o].bytes;
		}
	}
	/* Of ds's nodes that hold none of them, the one with the fewest
	 * waves queued (the first from the round-robin position among
	 * equals): a candidate too. */
	uint32_t d = ds->d, nn = s->gnodes_at[d + 1] - s->gnodes_at[d], rr = NONE, rr_waves = 0;
	for (uint32_t k = 0; k < nn; k++) {
		uint32_t i = (ds->nrr + k) % nn;
		if (!ds->nfiles[i] && (rr == NONE || waves(s, ds, i) < rr_waves)) {
			rr = i;
			rr_waves = waves(s, ds, i);
			if (!rr_waves)
				break;
		}
	}
	if (rr != NONE)
		ds->ntouch[n_touch++] = rr;
	/* The waves every node of ds's has queued, as ds spreads its load
	 * evenly: waiting that long anywhere costs nothing (the other nodes
	 * are as busy). */
	uint32_t nw = s->gworkers_at[d + 1] - s->gworkers_at[d];
	uint32_t best = NONE, best_load = 0, mean = nw ? ds->load / nw : 0;
	double best_cost = 0;
	for (uint32_t c = 0; c < n_touch; c++) {
		uint32_t i = ds->ntouch[c], n = s->gnodes[base + i], load = ds->nload[i];
		double speed = s->wl->platform->nodes[n].speed;
		double bring = (n_files - ds->nfiles[i]) * s->opt.fetch_cost +
			       (s->net_bw > 0 ? (double)(total - ds->nbytes[i]) / s->net_bw : 0);
		uint32_t wv = waves(s, ds, i);
		double cost = bring + (double)(wv > mean ? wv - mean : 0) * tk->work / speed;
		if (best == NONE || cost < best_cost ||
		    (cost == best_cost &&
		     (load < best_load ||
		      (load == best_load && ds->nbytes[i] > ds->nbytes[best])))) {
			best = i;
			best_cost = cost;
			best_load = load;
		}
	}
	uint32_t node = best == NONE ? NONE : s->gnodes[base + best];
	if (best == rr && rr != NONE)
		ds->nrr = rr + 1;
	for (uint32_t c = 0; c < n_touch; c++) {
		ds->nbytes[ds->ntouch[c]] = 0;
		ds->nfiles[ds->ntouch[c]] = 0;
	}
	return node;
}

/* A multicast file's least loaded holder of ds's (V-F: the replicas share
 * its readers), or NONE: o's index i is a multicast's group. */
static uint32_t multicast_holder(struct amfs *s, struct amfs_dispatcher *ds, uint32_t i)
{
	if (i == NONE || ds->coll[i] >= ds->n_colls || ds->colls[ds->coll[i]].kind != CO_MULTICAST)
		return NONE;
	const struct amfs_coll *c = &ds->colls[ds->coll[i]];
	uint32_t bw = NONE;
	for (uint32_t e = 0; e < c->n; e++) {
		/* (A source outside ds's scope is not ds's to send to.) */
		if (!my_node(s, ds, c->node[e]))
			continue;
		uint32_t w = locus__amfs_worker_on(s, ds, c->node[e]);
		if (w != NONE &&
		    (bw == NONE || locus__amfs_wload(s, ds, w) < locus__amfs_wload(s, ds, bw)))
			bw = w;
	}
	return bw;
}

/* aware=now keeps the paper's choice while its node has no more waves
 * queued than the dispatcher's nodes have on the mean (readers of the
 * same files stay grouped there as the paper's rule groups them). */

/* The paper's choice for task t (V-I): a worker of the node holding its
 * first produced input (a multicast group's least loaded holder), when
 * that node is ds's; else NONE. */
static uint32_t first_input_worker(struct amfs *s, struct amfs_dispatcher *ds, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (s->g->objects[o].producer == LOCUS_NONE)
			continue;
		uint32_t n = locus__amfs_dwhere(ds, o);
		if (n == NONE)
			continue;
		uint32_t w = multicast_holder(s, ds, locus__amfs_dindex(ds, o));
		if (w != NONE)
			return w;
		return my_node(s, ds, n) ? locus__amfs_worker_on(s, ds, n) : NONE;
	}
	return NONE;
}

/* The worker ds sends task t to: a worker of `hint` (a node) when it is
 * ds's, else data-aware or round-robin. Data-aware: aware=first, the
 * paper's choice (first_input_worker); aware=now, the same while its
 * node has no more waves queued than ds's nodes on the mean, else
 * now_node's (a pile-up overflows where the inputs are now,
 * or to the least loaded node); aware=bytes, the node holding most of its input bytes. */
uint32_t locus__amfs_choose_worker(struct amfs *s, struct amfs_dispatcher *ds, uint32_t t,
				   uint32_t hint)
{
	if (hint == NONE && data_aware(&s->opt) && s->opt.aware != A_BYTES) {
		uint32_t w = first_input_worker(s, ds, t);
		if (w != NONE && s->opt.aware == A_FIRST)
			return w;
		if (s->opt.aware == A_NOW) {
			uint32_t nw = s->gworkers_at[ds->d + 1] - s->gworkers_at[ds->d];
			if (w != NONE &&
			    waves(s, ds, s->node_place[node_of(s, w)]) <= (nw ? ds->load / nw : 0))
				return w;
			hint = now_node(s, ds, t);
		}
	} else if (hint == NONE && data_aware(&s->opt)) {
		const struct locus_task *tk = &s->g->tasks[t];
		uint64_t best = 0;
		for (uint32_t k = 0; k < tk->n_in; k++) {
			uint32_t o = s->g->inputs[tk->in_at + k];
			if (s->g->objects[o].producer == LOCUS_NONE)
				continue;
			uint32_t n = locus__amfs_dwhere(ds, o);
			if (n == NONE)
				continue;
			/* Most input bytes: this file's node, with every other
			 * input there. */
			uint64_t b = 0;
			for (uint32_t j = 0; j < tk->n_in; j++) {
				uint32_t oj = s->g->inputs[tk->in_at + j];
				if (s->g->objects[oj].producer != LOCUS_NONE &&
				    locus__amfs_dwhere(ds, oj) == n)
					b += s->g->objects[oj].bytes;
			}
			if (hint == NONE || b > best) {
				best = b;
				hint = n;
			}
		}
	}
	if (hint != NONE && my_node(s, ds, hint)) {
		uint32_t w = locus__amfs_worker_on(s, ds, hint);
		if (w != NONE)
			return w;
	}
	return locus__amfs_round_robin(s, ds);
}

/* Task t, sent (or stolen) to worker w, brings its produced inputs to
 * w's node, which keeps them until their last reader has read them: ds's
 * view counts them there. */
static void learn_inputs(const struct amfs *s, struct amfs_dispatcher *ds,
			 struct locus_actions *act, uint32_t t, uint32_t w,
			 enum locus_gather gather)
{
	const struct locus_task *tk = &s->g->tasks[t];
	if (!data_aware(&s->opt) || gather == LOCUS_GATHER_NONE || w == NONE)
		return;
	for (uint32_t j = 0; j < tk->n_in; j++) {
		uint32_t o = s->g->inputs[tk->in_at + j];
		if (s->g->objects[o].producer != LOCUS_NONE)
			locus__amfs_learn(s, ds, act, o, node_of(s, w));
	}
}

/* Worker w when its node can hold task t (fits); else the least loaded
 * of ds's workers whose node can, from the round-robin position (the
 * inputs a choice by locality counted on go there by the task's gather),
 * or w when none of ds's can (the executor then refuses it, saying
 * why). */
uint32_t locus__amfs_fitting_worker(struct amfs *s, struct amfs_dispatcher *ds, uint32_t t,
				    uint32_t w)
{
	if (w == NONE || fits(s, t, w))
		return w;
	uint32_t d = ds->d, n = s->gworkers_at[d + 1] - s->gworkers_at[d], best = NONE;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t v = s->gworkers[s->gworkers_at[d] + (ds->rr + k) % n];
		if (fits(s, t, v) &&
		    (best == NONE || locus__amfs_wload(s, ds, v) < locus__amfs_wload(s, ds, best)))
			best = v;
	}
	return best != NONE ? best : w;
}

/* The task that may go with t to its worker (pipeline=1): one of ds's,
 * waiting, of no pattern but a pipeline's, reading produced files that t
 * alone writes (each at least one of t's), whose node can hold it; else
 * NONE. */
static uint32_t successor(const struct amfs *s, struct amfs_dispatcher *ds, uint32_t t, uint32_t w)
{
	const struct locus_task *tk = &s->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_out; k++) {
		const struct locus_object *ob = &s->g->objects[s->g->outputs[tk->out_at + k]];
		for (uint32_t j = 0; j < ob->n_cons; j++) {
			uint32_t c = s->g->consumers[ob->cons_at + j];
			const struct locus_task *ck = &s->g->tasks[c];
			int alone = 1;
			for (uint32_t i = 0; i < ck->n_in && alone; i++) {
				uint32_t p = s->g->objects[s->g->inputs[ck->in_at + i]].producer;
				alone = p == LOCUS_NONE || p == t;
			}
			if (alone && mine(s, ds, c) && dtask(s, ds, c)->st == T_WAIT &&
			    s->an->task_patterns[c] == LOCUS_PATTERN_PIPELINE && !s->async[c] &&
			    fits(s, c, w))
				return c;
		}
	}
	return NONE;
}

/* Task t goes to worker w as the message says (gather, out, fetch f,
 * whether it stays there), and ds counts it there. */
static void assign(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
		   uint32_t t, uint32_t w, enum locus_gather gather, enum locus_output out,
		   enum fetch f)
{
	struct amfs_dtask *dt = dtask(s, ds, t);
	struct locus_msg m = locus__flow_assign_msg(s->g, p_disp(s, ds->d), w, t, gather, out);
	m.arg[4] = f;
	m.arg[5] = dt->bound;
	m.n_args = 6;
	locus_act_send(act, &m);
	dt->st = T_SENT;
	dt->worker = w;
	load_add(s, ds, w, 1);
	count_made(s, ds, t, node_of(s, w), 1);
	learn_inputs(s, ds, act, t, w, gather);
	s->count.sent++;
}

/* Sends task t to worker w with the ways of the configuration; to a
 * worker whose node can hold it (locus__amfs_fitting_worker) when w's cannot and the
 * task brings its inputs wherever it runs (it reads them, or its worker
 * fetches them), not where a gather or a reduction put them. */
void locus__amfs_send_task(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			   uint32_t t, uint32_t w, enum locus_gather gather)
{
	int config = s->opt.config;
	struct amfs_dtask *dt = dtask(s, ds, t);
	/* Staging writes its outputs back to the file system (its local
	 * copy is scratch); shared writes them there; the others keep them
	 * and write only the final ones. */
	enum locus_output out =
	    config == C_SHARED || config == C_STAGING ? LOCUS_OUTPUT_FS : LOCUS_OUTPUT_FINAL;
	if (config == C_SHARED)
		gather = LOCUS_GATHER_READ;
	enum fetch f = config == C_SHARED	     ? F_NONE
		       : config == C_STAGING	     ? F_FS
		       : gather == LOCUS_GATHER_NONE ? F_NONE
		       : s->async[t]		     ? F_NONE
						     : F_SEQ;
	/* A worker that brings its task's inputs brings the workflow's too
	 * (a cache): the task waits for them all. */
	if (gather == LOCUS_GATHER_POLICY && (f == F_SEQ || f == F_FS) && !s->tcat[t])
		gather = LOCUS_GATHER_ALL;
	if (!dt->bound &&
	    (gather == LOCUS_GATHER_READ || gather == LOCUS_GATHER_AUTO || f == F_SEQ || f == F_FS))
		w = locus__amfs_fitting_worker(s, ds, t, w);
	assign(s, ds, act, t, w, gather, out, f);
	if (s->opt.replicate_task && s->mc_out[t])
		locus__amfs_replicate_sent(s, ds, act, t, node_of(s, w));
	/* pipeline=1: its successor goes too, to wait there for its inputs
	 * (the executor copies them if t ends elsewhere: a thief's, a
	 * retry's), and stays with w (no thief takes it); then that one's,
	 * and so on down the pipeline. */
	uint32_t prev = t;
	for (uint32_t c; chains_on(&s->opt) && (c = successor(s, ds, prev, w)) != NONE; prev = c) {
		dtask(s, ds, c)->bound = 1;
		assign(s, ds, act, c, w, LOCUS_GATHER_AUTO, out, F_NONE);
	}
}

/* ---- copies its gathers bring ---------------------------------------------------------------- */

/* A gather of ds's brings o to node n. Told before the copy starts, so
 * that o's server never drops a copy there that another gather is about
 * to use. */
void locus__amfs_transit_to(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			    uint32_t o, uint32_t n)
{
	if (!s->opt.keep)
		amfs_send(act, p_disp(s, ds->d), p_server(s, server_of(s, o)), M_HOLD, 0, 2, o, n);
}

/* ds's gather is done with its copy of o at node n: o's server drops it
 * unless another gather holds it there, n is a registered location, or a
 * task ds sent to n still reads it (then it registers it, and it goes
 * with the file's other copies after its last reader). */
void locus__amfs_transit_done(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			      uint32_t o, uint32_t n)
{
	if (s->opt.keep)
		return;
	const struct locus_object *ob = &s->g->objects[o];
	int needed = 0;
	for (uint32_t j = 0; j < ob->n_cons && !needed; j++) {
		uint32_t t = s->g->consumers[ob->cons_at + j];
		const struct amfs_dtask *dt = mine(s, ds, t) ? dtask(s, ds, t) : NULL;
		needed =
		    dt && dt->st == T_SENT && dt->worker != NONE && node_of(s, dt->worker) == n;
	}
	struct locus_msg m = {.type = M_UNHOLD,
			      .from = p_disp(s, ds->d),
			      .to = p_server(s, server_of(s, o)),
			      .n_args = 3};
	m.arg[0] = o;
	m.arg[1] = n;
	m.arg[2] = needed;
	locus_act_send(act, &m);
}

/* ---- dispatch -------------------------------------------------------------------------------- */

/* Task t of ds's has all its inputs located. */
void locus__amfs_dispatch_ready(struct amfs *s, struct amfs_dispatcher *ds,
				struct locus_actions *act, uint32_t t)
{
	const struct amfs_dtask *dt = dtask(s, ds, t);
	int config = s->opt.config;
	if (dt->st != T_WAIT || dt->missing || dt->mc_wait || s->async[t])
		return;
	if (is_gather(s, t) && (config == C_COGATHER || config == C_AUTO || config == C_ASGATHER)) {
		if (locus__amfs_start_gather(s, ds, act, t))
			locus_act_oom(act);
		return;
	}
	uint32_t r = s->opt.replicate_task ? locus__amfs_replica_of(s, ds, t) : NONE;
	if (r != NONE) {
		locus__amfs_replica_reader(s, ds, act, t, r);
		return;
	}
	locus__amfs_send_task(s, ds, act, t, locus__amfs_choose_worker(s, ds, t, NONE),
			      LOCUS_GATHER_POLICY);
}

/* Asynchronous gather (IV-C): t's inputs are all at its node; it is sent
 * to the least loaded worker there. */
static void async_ready(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			uint32_t t)
{
	struct amfs_dtask *dt = dtask(s, ds, t);
	uint32_t w = locus__amfs_worker_on(s, ds, dt->target);
	dt->bound = 1;
	locus__amfs_send_task(s, ds, act, t, w != NONE ? w : locus__amfs_round_robin(s, ds),
			      LOCUS_GATHER_POLICY);
}

/* Asynchronous gather: ds learned that o, an input of t, is on node n.
 * The first one fixes t's node (n when it is ds's, else one of ds's
 * round-robin); each is copied there as it is produced, and held there
 * (its server told before the copy starts) until t has run. The worker
 * that gathers requests each file and copies it (IV-C), a peer copy
 * from the holder's storage server (V-B2) as Data Cache's: the copies'
 * set-ups (fetch_cost each) go one after another, their bytes flow
 * together. */
static void async_input(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			uint32_t t, uint32_t o, uint32_t n)
{
	struct amfs_dtask *dt = dtask(s, ds, t);
	if (dt->target == NONE)
		dt->target = my_node(s, ds, n) && s->nworkers_at[n + 1] > s->nworkers_at[n]
				 ? n
				 : node_of(s, locus__amfs_round_robin(s, ds));
	locus__amfs_transit_to(s, ds, act, o, dt->target);
	if (n == dt->target) {
		if (!--dt->left)
			async_ready(s, ds, act, t);
		return;
	}
	struct locus_copy c = {.objects = &o,
			       .n = 1,
			       .from = n < s->nn ? n : LOCUS_NONE,
			       .to = dt->target,
			       .tag = TAG(K_ASYNC, t, 0),
			       .task = t};
	if (n < s->nn) {
		double start = dt->setup_end > ds->now ? dt->setup_end : ds->now;
		dt->setup_end = start + s->opt.fetch_cost;
		c.delay = dt->setup_end - ds->now;
	}
	locus_act_copy(act, &c);
	s->count.fetches++;
}

/* An asynchronous gather's copy ended: held there, or tried again from
 * wherever the engine finds the file. */
static void async_copied(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			 uint32_t t, const struct locus_event *ev)
{
	struct amfs_dtask *dt = dtask(s, ds, t);
	uint32_t o = ev->transfer.object;
	if (!ev->transfer.ok) {
		struct locus_copy c = {.objects = &o,
				       .n = 1,
				       .from = LOCUS_NONE,
				       .to = dt->target,
				       .tag = TAG(K_ASYNC, t, 1),
				       .task = t};
		/* Once from any holder; a second failure leaves t waiting (the
		 * engine then says the run stalled). */
		if (TAG_B(ev->transfer.tag) == 0)
			locus_act_copy(act, &c);
		return;
	}
	if (!--dt->left)
		async_ready(s, ds, act, t);
}

/* ---- locations ------------------------------------------------------------------------------- */

/* The collective producer p's files need once ds knows where all are: its
 * multicast group or its scatter; gk gets ds's entry of the group's first
 * file (NONE: none), *scatter whether p scatters. */
static uint32_t group_of(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t p,
			 int *scatter)
{
	*scatter = p != LOCUS_NONE && (s->an->task_patterns[p] & LOCUS_PATTERN_SCATTER);
	uint32_t gk = NONE;
	if (data_aware(&s->opt) && p != LOCUS_NONE && (*scatter || s->mc_out[p])) {
		const struct locus_task *pk = &s->g->tasks[p];
		for (uint32_t j = 0; j < pk->n_out && gk == NONE; j++) {
			uint32_t oj = s->g->outputs[pk->out_at + j];
			if (*scatter || (s->an->object_patterns[oj] & LOCUS_PATTERN_MULTICAST))
				gk = locus__amfs_dindex(ds, oj);
		}
	}
	return gk;
}

/* Producer p's group (or scatter), gk its first file: when every file of
 * p is located, the collective starts (and marks the group's files,
 * ds->coll). 0, or LOCUS_ENOMEM. */
static int group_located(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			 uint32_t p, uint32_t gk, int scatter)
{
	const struct locus_task *pk = &s->g->tasks[p];
	int all = 1;
	for (uint32_t j = 0; j < pk->n_out && all; j++) {
		uint32_t i = locus__amfs_dindex(ds, s->g->outputs[pk->out_at + j]);
		all = i == NONE || ds->loc[i] != NONE;
	}
	if (!all)
		return 0;
	if (scatter)
		return locus__amfs_start_scatter(s, ds, act, p, ds->loc[gk]);
	/* In a chain (past its root): from its parent's node holding the
	 * group, once told (M_GROUP_AT). */
	uint32_t pos = locus__amfs_chain_pos(s, ds, p), from = ds->loc[gk];
	if (pos != NONE && pos) {
		struct amfs_chain *ch = locus__amfs_chain_of(ds, p);
		if (!ch)
			return LOCUS_ENOMEM;
		if (ch->heard == NONE)
			return 0;
		from = ch->heard;
	}
	return locus__amfs_start_multicast(s, ds, act, p, from);
}

/* ds's parent in writer p's chain holds the group on `node`: ds's
 * multicast of it starts from there (once ds knows where each file is). */
static void group_at(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
		     uint32_t p, uint32_t node)
{
	struct amfs_chain *ch = locus__amfs_chain_of(ds, p);
	if (!ch) {
		locus_act_oom(act);
		return;
	}
	ch->heard = node;
	int scatter;
	uint32_t gk = group_of(s, ds, p, &scatter);
	if (gk != NONE && !scatter && ds->coll[gk] == NONE && group_located(s, ds, act, p, gk, 0))
		locus_act_oom(act);
}

/* ds learned that o is on node n. */
static void located(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
		    uint32_t o, uint32_t n)
{
	uint32_t k = locus__amfs_dindex(ds, o);
	if (k != NONE)
		locus__amfs_learn(s, ds, act, o, n);
	if (k == NONE || ds->loc[k] != NONE)
		return;
	ds->loc[k] = n;
	const struct locus_object *ob = &s->g->objects[o];
	uint32_t p = ob->producer;
	/* ds counted it on its node when it sent its writer; another
	 * dispatcher's writer's (stolen onto ds's node) counts now. */
	if (p != LOCUS_NONE && !mine(s, ds, p))
		count_file(s, ds, o, n, 1);
	for (uint32_t j = 0; j < ob->n_cons; j++) {
		uint32_t t = s->g->consumers[ob->cons_at + j];
		/* Another dispatcher's writer whose replicas ds runs. */
		if (s->opt.replicate_task && !mine(s, ds, t))
			locus__amfs_replicate_ready(s, ds, act, t);
		/* Waiting, or held by a scatter (which sends it on). */
		if (!mine(s, ds, t))
			continue;
		struct amfs_dtask *dt = dtask(s, ds, t);
		if (dt->st != T_WAIT && dt->st != T_HELD)
			continue;
		if (dt->missing)
			dt->missing--;
		if (s->async[t])
			async_input(s, ds, act, t, o, n);
	}
	/* A producer's multicast group or scatter waits for its every file
	 * ds knows of, whichever is located last (a file of it outside the
	 * group too). */
	int scatter;
	uint32_t gk = group_of(s, ds, p, &scatter);
	if (gk != NONE && ds->coll[gk] == NONE && group_located(s, ds, act, p, gk, scatter)) {
		locus_act_oom(act);
		return;
	}
	/* The readers ready now: those the group's collective will serve
	 * wait for it while it has not started (once it has, they wait for
	 * it or are held by it); a reader of another stage does not. */
	int pending = gk != NONE && ds->coll[gk] == NONE;
	for (uint32_t j = 0; j < ob->n_cons; j++) {
		uint32_t t = s->g->consumers[ob->cons_at + j];
		if (!mine(s, ds, t) || dtask(s, ds, t)->st != T_WAIT || dtask(s, ds, t)->missing)
			continue;
		if (pending && (scatter || locus__amfs_group_read(s, t, p) != NONE))
			continue;
		locus__amfs_dispatch_ready(s, ds, act, t);
	}
}

/* ---- its events ------------------------------------------------------------------------------ */

/* Its task list came: it asks where each produced input is, and starts
 * what needs none. */
static void tasks_came(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act)
{
	uint32_t d = ds->d, me = p_disp(s, d);
	for (uint32_t k = 0; k < ds->n_obj; k++) {
		uint32_t o = ds->obj[k];
		amfs_send(act, me, p_server(s, server_of(s, o)), M_QUERY, 0, 2, o, me);
		s->count.queries++;
	}
	for (uint32_t i = s->dtasks_at[d]; i < s->dtasks_at[d + 1]; i++)
		locus__amfs_dispatch_ready(s, ds, act, s->dtasks[i]);
	/* Other dispatchers' writers whose replicas ds runs, those reading
	 * no produced file: now. */
	for (uint32_t i = 0; s->opt.replicate_task && i < ds->n_repl; i++)
		locus__amfs_replicate_ready(s, ds, act, ds->repl[i]);
	locus_act_cost(act, s->dtasks_at[d + 1] - s->dtasks_at[d]);
}

/* A thief took t: its load and the files it will write move. */
static void task_moved(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
		       uint32_t t, uint32_t w)
{
	struct amfs_dtask *dt = dtask(s, ds, t);
	uint32_t old = dt->worker;
	if (old != NONE) {
		load_add(s, ds, old, -1);
		count_made(s, ds, t, node_of(s, old), -1);
	}
	dt->worker = w;
	load_add(s, ds, w, 1);
	count_made(s, ds, t, node_of(s, w), 1);
	learn_inputs(s, ds, act, t, w, LOCUS_GATHER_POLICY);
}

/* Task t ended on `node`: the servers of its outputs learn where they
 * are, those of its inputs that it read them; the copies gathers held
 * for it go. */
static void task_done(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
		      uint32_t t, uint32_t node)
{
	const struct locus_task *tk = &s->g->tasks[t];
	struct amfs_dtask *dt = dtask(s, ds, t);
	uint32_t me = p_disp(s, ds->d);
	dt->st = T_DONE;
	load_add(s, ds, dt->worker, -1);
	for (uint32_t k = 0; k < tk->n_out; k++) {
		uint32_t o = s->g->outputs[tk->out_at + k];
		amfs_send(act, me, p_server(s, server_of(s, o)), M_PRODUCED, 0, 2, o, node);
	}
	/* Its inputs are read: their servers count (staging copied the
	 * workflow's inputs to nodes too). */
	for (uint32_t k = 0; k < tk->n_in && !s->opt.keep; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (s->g->objects[o].producer != LOCUS_NONE || s->opt.config != C_SHARED)
			amfs_send(act, me, p_server(s, server_of(s, o)), M_CONSUMED, 0, 1, o, 0);
	}
	/* An asynchronous gather lets go its inputs at its node. */
	for (uint32_t k = 0; k < tk->n_in && s->async[t]; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (s->g->objects[o].producer != LOCUS_NONE)
			locus__amfs_transit_done(s, ds, act, o, dt->target);
	}
	/* A gather's root lets go what the tree brought it. */
	if (dt->coll != NONE) {
		const struct amfs_coll *c = &ds->colls[dt->coll];
		if ((c->kind == CO_GATHER) && c->task == t)
			for (uint32_t k = c->fat[1]; k < c->fat[c->n]; k++)
				locus__amfs_transit_done(s, ds, act, c->files[k], c->node[0]);
	}
	if (!--ds->left)
		amfs_send(act, me, p_submitter(s), M_FINISHED, 0, 0, 0, 0);
}

static void dispatcher_handle(struct amfs *s, struct amfs_dispatcher *ds,
			      const struct locus_event *ev, struct locus_actions *act)
{
	if (ev->kind == LOCUS_EV_TRANSFER) {
		uint64_t tag = ev->transfer.tag;
		if (TAG_KIND(tag) == K_ASYNC)
			async_copied(s, ds, act, TAG_A(tag), ev);
		if (TAG_KIND(tag) == K_COLL)
			locus__amfs_coll_step(s, ds, act, TAG_A(tag), TAG_B(tag));
		if (TAG_KIND(tag) == K_REPL)
			locus__amfs_replica_step(s, ds, act, TAG_A(tag), TAG_B(tag), 0);
		/* A replica's reader's input: its server learns of the copy
		 * (it goes with the others after the last reader). */
		if (TAG_KIND(tag) == K_RFETCH && ev->transfer.ok)
			amfs_send(act, p_disp(s, ds->d),
				  p_server(s, server_of(s, ev->transfer.object)), M_ADDLOC, 0, 2,
				  ev->transfer.object, ev->transfer.to);
		return;
	}
	if (ev->kind == LOCUS_EV_TIMER) {
		if (TAG_KIND(ev->tag) == K_REPL)
			locus__amfs_replica_step(s, ds, act, TAG_A(ev->tag), TAG_B(ev->tag), 1);
		return;
	}
	if (ev->kind != LOCUS_EV_MESSAGE)
		return;
	const struct locus_msg *m = ev->msg;
	uint32_t a0 = (uint32_t)m->arg[0];
	switch (m->type) {
	case M_TASKS:
		tasks_came(s, ds, act);
		break;
	case M_LOCATED:
		/* Every location named, the first one's news last (it may
		 * dispatch the file's readers). */
		for (int64_t i = m->arg[1] - 1; i > 0 && a0 < s->g->n_objects; i--)
			locus__amfs_learn(s, ds, act, a0, (uint32_t)m->arg[2 + i]);
		if (m->arg[1] > 0)
			located(s, ds, act, a0, (uint32_t)m->arg[2]);
		break;
	case M_NOTIFY:
		located(s, ds, act, a0, (uint32_t)m->arg[1]);
		break;
	case M_MOVED:
		/* (Its workers name only its tasks.) */
		if (a0 < s->g->n_tasks && mine(s, ds, a0))
			task_moved(s, ds, act, a0, (uint32_t)m->arg[1]);
		break;
	case M_GROUP_AT:
		if (a0 < s->g->n_tasks && locus__amfs_chain_pos(s, ds, a0) != NONE &&
		    (uint32_t)m->arg[1] < s->nn)
			group_at(s, ds, act, a0, (uint32_t)m->arg[1]);
		break;
	case M_GROUP_GOT:
		if (a0 < s->g->n_tasks && locus__amfs_chain_pos(s, ds, a0) != NONE)
			locus__amfs_chain_got(s, ds, act, a0);
		break;
	case M_DONE:
		if (a0 < s->g->n_tasks && mine(s, ds, a0))
			task_done(s, ds, act, a0, (uint32_t)m->arg[1]);
		break;
	default:
		break;
	}
}

void locus__amfs_dispatcher_event(struct amfs *s, struct amfs_dispatcher *ds,
				  const struct locus_event *ev, struct locus_actions *act)
{
	ds->now = ev->now;
	dispatcher_handle(s, ds, ev, act);
	if (ds->n_rsent)
		locus__amfs_replicate_sent_end(s, ds, act);
}
