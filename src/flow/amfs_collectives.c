/*
 * AME/AMFS (amfs.c, whose comment describes each tree): a dispatcher's
 * collectives (V-B3, IV-C, V-D, V-F): gather and reduce trees toward a
 * gather task's root, multicast and scatter trees from a writer's node,
 * all binomial (locus_flow_binomial) over nodes in one global order, so
 * that overlapping collectives never wait on each other in a cycle.
 * A collective is its dispatcher's: its id is its place in the
 * dispatcher's table (the tags of its copies carry it).
 */
#include "flow/amfs_dispatcher.h"

#include <stdlib.h>
#include <string.h>

void locus__amfs_coll_free(struct amfs_coll *c)
{
	free(c->node);
	free(c->parent);
	free(c->end);
	free(c->wait);
	free(c->hi);
	free(c->fat);
	free(c->files);
	free(c->partial);
	free(c->ready);
}

/* A new collective of ds's, of `kind`, for `task` (see struct
 * amfs_coll), with room for n entries and n_files files; *id gets its
 * id. NULL when memory ran out. */
struct amfs_coll *locus__amfs_coll_new(struct amfs *s, struct amfs_dispatcher *ds, int kind,
				       uint32_t task, uint32_t n, uint32_t n_files, uint32_t *id)
{
	if (locus__grow(&ds->colls, &ds->colls_cap, ds->n_colls + 1, sizeof *ds->colls))
		return NULL;
	struct amfs_coll *c = &ds->colls[ds->n_colls];
	memset(c, 0, sizeof *c);
	c->kind = kind;
	c->task = task;
	c->n = n;
	c->node = malloc(n * sizeof *c->node);
	c->parent = malloc(n * sizeof *c->parent);
	c->end = malloc(n * sizeof *c->end);
	c->wait = calloc(n, sizeof *c->wait);
	c->hi = malloc(n * sizeof *c->hi);
	c->fat = calloc(n + 1, sizeof *c->fat);
	c->files = malloc((n_files ? n_files : 1) * sizeof *c->files);
	c->partial = kind == CO_REDUCE ? calloc(n, sizeof *c->partial) : NULL;
	c->ready = kind == CO_REDUCE ? calloc(n, sizeof *c->ready) : NULL;
	if (!c->node || !c->parent || !c->end || !c->wait || !c->hi || !c->fat || !c->files ||
	    (kind == CO_REDUCE && (!c->partial || !c->ready))) {
		locus__amfs_coll_free(c);
		return NULL;
	}
	*id = (uint32_t)ds->n_colls++;
	s->count.collectives[kind]++;
	/* A gather's or reduction's stage is its task's (a multicast's and a
	 * scatter's, their readers', are counted where they are found). */
	if (kind == CO_GATHER || kind == CO_REDUCE)
		s->count.stage_colls[locus_flow_stage_of(s->g, task)]++;
	return c;
}

/* The tree of c's entries: parents, subtree ends, children to hear from. */
static void coll_tree(struct amfs_coll *c)
{
	/* A relay: entry 0 sends to entry 1 alone, which roots the tree of
	 * the rest (entries 1 .. n). */
	uint32_t b = c->relay && c->n > 2 ? 1 : 0, m = c->n - b;
	uint32_t *round = malloc((m ? m : 1) * sizeof *round);
	if (!round) {
		for (uint32_t i = 0; i < c->n; i++) {
			c->parent[i] = i ? i - 1 : NONE;
			c->end[i] = c->n;
		}
	} else {
		locus_flow_binomial(m, c->parent + b, round);
		free(round);
		for (uint32_t i = b; i < c->n; i++)
			c->parent[i] = c->parent[i] == NONE ? (b ? 0 : NONE) : c->parent[i] + b;
		if (b)
			c->parent[0] = NONE;
		/* Each entry's subtree [i, end[i]), as the halving made it. */
		c->end[0] = c->end[b] = c->n;
		for (uint32_t i = b; i < c->n; i++) {
			uint32_t hi = c->end[i];
			while (hi > i + 1) {
				uint32_t left = hi - (i + 1), first = hi - (left + 1) / 2;
				c->end[first] = hi;
				hi = first;
			}
		}
	}
	for (uint32_t i = 0; i < c->n; i++) {
		c->hi[i] = c->end[i];
		c->wait[i] = 0;
	}
	if (b)
		c->hi[0] = 2; /* its one child: entry 1 */
	for (uint32_t i = 1; i < c->n; i++)
		c->wait[c->parent[i]]++;
}

/* The next child entry i sends to (top-down), or NONE. */
static uint32_t next_child(struct amfs_coll *c, uint32_t i)
{
	uint32_t hi = c->hi[i];
	if (hi <= i + 1)
		return NONE;
	uint32_t left = hi - (i + 1), first = hi - (left + 1) / 2;
	c->hi[i] = first;
	return first;
}

/* Copies files[f0 .. f1) of collective `id` (or, a reduction's step,
 * `bytes` of partial result: entry from_entry reduces its own files, the
 * engine told which) from one entry's node to another's. */
static void coll_copy(struct amfs_dispatcher *ds, struct locus_actions *act, uint32_t id,
		      uint32_t child, uint32_t from_entry, uint32_t to_entry, uint32_t f0,
		      uint32_t f1, double delay, uint64_t bytes)
{
	struct amfs_coll *c = &ds->colls[id];
	int reduce = c->kind == CO_REDUCE;
	struct locus_copy cp = {.objects = f1 > f0 && !reduce ? c->files + f0 : NULL,
				.n = reduce ? 0 : f1 - f0,
				.bytes = bytes,
				.from = c->node[from_entry],
				.to = c->node[to_entry],
				.delay = delay,
				.tag = TAG(K_COLL, id, child),
				/* A gather's or reduction's files are its
				 * task's inputs; a multicast or scatter
				 * serves several. */
				.task = c->kind == CO_GATHER || c->kind == CO_REDUCE ? c->task
										     : LOCUS_NONE};
	if (reduce)
		locus_act_reduce(act, &cp, c->files + c->fat[from_entry],
				 c->fat[from_entry + 1] - c->fat[from_entry]);
	else
		locus_act_copy(act, &cp);
	c->left++;
}

/* Bytes of files[f0 .. f1) of collective c. */
static double files_bytes(const struct amfs *s, const struct amfs_coll *c, uint32_t f0, uint32_t f1)
{
	double b = 0;
	for (uint32_t k = f0; k < f1; k++)
		b += (double)s->g->objects[c->files[k]].bytes;
	return b;
}

/* Gather or reduce: entry i sends its subtree's files (or partial) up. */
static void coll_up(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
		    uint32_t id, uint32_t i)
{
	struct amfs_coll *c = &ds->colls[id];
	uint32_t f0 = c->fat[i], f1 = c->fat[c->end[i]];
	if (c->kind == CO_REDUCE) {
		/* Every node reduced its own files from the start (ready);
		 * what its children sent it, now. */
		uint64_t out = 0;
		const struct locus_task *tk = &s->g->tasks[c->task];
		for (uint32_t k = 0; k < tk->n_out; k++)
			out += s->g->objects[s->g->outputs[tk->out_at + k]].bytes;
		double wait = c->ready[i] > ds->now ? c->ready[i] - ds->now : 0;
		coll_copy(ds, act, id, i, i, c->parent[i], 0, 0,
			  wait + s->opt.reduce_cost * c->partial[i], out ? out : 1);
		return;
	}
	for (uint32_t k = f0; k < f1; k++)
		locus__amfs_transit_to(s, ds, act, c->files[k], c->node[c->parent[i]]);
	coll_copy(ds, act, id, i, i, c->parent[i], f0, f1, s->opt.file_cost * (double)(f1 - f0), 0);
}

/* Top-down (multicast, scatter): entry i, holding what it should, sends
 * to its next child, if any. */
static void coll_down(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
		      uint32_t id, uint32_t i)
{
	struct amfs_coll *c = &ds->colls[id];
	uint32_t ch = next_child(c, i);
	if (ch == NONE)
		return;
	if (c->kind == CO_MULTICAST)
		coll_copy(ds, act, id, ch, i, ch, 0, c->fat[1], 0, 0);
	else
		coll_copy(ds, act, id, ch, i, ch, c->fat[ch], c->fat[c->end[ch]],
			  s->opt.file_cost * (double)(c->fat[c->end[ch]] - c->fat[ch]), 0);
}

/* The first file of producer p's that task t reads as a multicast (its
 * stage reads it often), or NONE. */
uint32_t locus__amfs_group_read(const struct amfs *s, uint32_t t, uint32_t p)
{
	const struct locus_task *tk = &s->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (s->g->objects[o].producer == p && s->an->input_multicast[tk->in_at + k])
			return o;
	}
	return NONE;
}

/* A multicast's (or replica's) end: ds's tasks waiting for it (each
 * counted once per group, at the first file of the group it reads) wait
 * for one multicast fewer; those waiting for none are dispatched (a task
 * whose first input is in the group to the least loaded holder:
 * locus__amfs_choose_worker). */
void locus__amfs_coll_release(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			      uint32_t id)
{
	const struct amfs_coll *c = &ds->colls[id];
	if (c->kind != CO_MULTICAST && c->kind != CO_REPLICA)
		return;
	/* Read before the loop: a task dispatched there may start a
	 * collective, which moves ds->colls (the files stay). */
	uint32_t p = c->task, f1 = c->fat[1];
	const uint32_t *files = c->files;
	for (uint32_t k = c->fat[0]; k < f1; k++) {
		uint32_t o = files[k];
		const struct locus_object *ob = &s->g->objects[o];
		for (uint32_t j = 0; j < ob->n_cons; j++) {
			uint32_t t = s->g->consumers[ob->cons_at + j];
			/* Waiting, or held by a scatter too (which sends it
			 * on once neither keeps it). */
			if (!mine(s, ds, t))
				continue;
			struct amfs_dtask *dt = dtask(s, ds, t);
			if ((dt->st != T_WAIT && dt->st != T_HELD) || !dt->mc_wait ||
			    locus__amfs_group_read(s, t, p) != o)
				continue;
			if (!--dt->mc_wait)
				locus__amfs_dispatch_ready(s, ds, act, t);
		}
	}
}

/* A reader of a scattered piece, the piece now on `node`: it runs there
 * unless something else keeps it waiting (its other inputs, a multicast:
 * locus__amfs_dispatch_ready sends it when the last is told); a gathering one
 * gathers first. */
static void scatter_reached(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			    uint32_t t, uint32_t node)
{
	struct amfs_dtask *dt = dtask(s, ds, t);
	dt->st = T_WAIT;
	if (dt->missing || dt->mc_wait)
		return;
	if (is_gather(s, t)) {
		locus__amfs_dispatch_ready(s, ds, act, t);
		return;
	}
	uint32_t w = locus__amfs_worker_on(s, ds, node);
	locus__amfs_send_task(s, ds, act, t, w != NONE ? w : locus__amfs_round_robin(s, ds),
			      LOCUS_GATHER_POLICY);
}

/* A gather's or reduction's copy from entry `child` ended: what passed
 * through it is let go there; when its parent has heard from every
 * child it sends up, and at the root the task runs. */
static void gather_step(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			uint32_t id, uint32_t child)
{
	struct amfs_coll *c = &ds->colls[id];
	uint32_t p = c->parent[child];
	if (c->kind == CO_REDUCE) {
		const struct locus_task *tk = &s->g->tasks[c->task];
		uint64_t out = 0;
		for (uint32_t k = 0; k < tk->n_out; k++)
			out += s->g->objects[s->g->outputs[tk->out_at + k]].bytes;
		c->partial[p] += (double)(out ? out : 1);
	} else {
		/* The files are where the copy brought them (held there for
		 * this gather since it started); what only passed through the
		 * child is let go there. */
		for (uint32_t k = c->fat[child + 1]; k < c->fat[c->end[child]]; k++)
			locus__amfs_transit_done(s, ds, act, c->files[k], c->node[child]);
	}
	if (--c->wait[p])
		return;
	if (p) {
		coll_up(s, ds, act, id, p);
		return;
	}
	/* Everything is at the root: the task runs there. */
	c->done = 1;
	uint32_t t = c->task, w = locus__amfs_worker_on(s, ds, c->node[0]);
	if (w == NONE)
		w = locus__amfs_choose_worker(s, ds, t, c->node[0]);
	dtask(s, ds, t)->coll = id;
	dtask(s, ds, t)->bound = 1;
	locus__amfs_send_task(s, ds, act, t, w,
			      c->kind == CO_REDUCE ? LOCUS_GATHER_NONE : LOCUS_GATHER_POLICY);
}

static void chain_entry(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			uint32_t p, uint32_t node);

/* A copy `child` of collective `id` (of ds's) ended. */
void locus__amfs_coll_step(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			   uint32_t id, uint32_t child)
{
	struct amfs_coll *c = &ds->colls[id];
	uint32_t me = p_disp(s, ds->d);
	c->left--;
	if (c->kind == CO_GATHER || c->kind == CO_REDUCE) {
		gather_step(s, ds, act, id, child);
		return;
	}
	if (c->kind == CO_MULTICAST) {
		if (c->chained && c->relay && child == 1)
			chain_entry(s, ds, act, c->task, c->node[1]);
		c = &ds->colls[id];
		coll_down(s, ds, act, id, child);
		coll_down(s, ds, act, id, c->parent[child]);
		if (!c->left && !c->done) {
			c->done = 1;
			/* The servers learn of the copies, and ds's view. */
			for (uint32_t e = 1; e < c->n; e++)
				for (uint32_t k = c->fat[0]; k < c->fat[1]; k++) {
					amfs_send(act, me, p_server(s, server_of(s, c->files[k])),
						  M_ADDLOC, 0, 2, c->files[k], c->node[e]);
					locus__amfs_learn(s, ds, act, c->files[k], c->node[e]);
				}
			locus__amfs_coll_release(s, ds, act, id);
		}
		return;
	}
	/* Scatter: the child has its subtree's pieces (their servers learn
	 * of the copies, to delete them with the rest); its own tasks run
	 * there, the rest go on down. */
	for (uint32_t k = c->fat[child]; k < c->fat[c->end[child]]; k++) {
		amfs_send(act, me, p_server(s, server_of(s, c->files[k])), M_ADDLOC, 0, 2,
			  c->files[k], c->node[child]);
		locus__amfs_learn(s, ds, act, c->files[k], c->node[child]);
	}
	coll_down(s, ds, act, id, child);
	coll_down(s, ds, act, id, c->parent[child]);
	/* Its readers there may start collectives, which move ds->colls. */
	uint32_t f1 = c->fat[child + 1], at = c->node[child];
	const uint32_t *files = c->files;
	for (uint32_t k = c->fat[child]; k < f1; k++) {
		uint32_t o = files[k];
		const struct locus_object *ob = &s->g->objects[o];
		for (uint32_t j = 0; j < ob->n_cons; j++) {
			uint32_t t = s->g->consumers[ob->cons_at + j];
			if (mine(s, ds, t) && dtask(s, ds, t)->st == T_HELD &&
			    dtask(s, ds, t)->coll == id)
				scatter_reached(s, ds, act, t, at);
		}
	}
}

/* The entry of a gather whose node is n: the root, or one of the rest,
 * whose nodes decrease. */
static uint32_t gather_entry(const struct amfs_coll *c, uint32_t n)
{
	if (c->node[0] == n)
		return 0;
	uint32_t lo = 1, hi = c->n;
	while (lo + 1 < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (c->node[mid] >= n)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x < y) - (x > y);
}

/* A gather (or reduction) of task t's inputs, all located: a tree over
 * the nodes holding them, rooted at the highest of them. */
int locus__amfs_start_gather(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			     uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t *nodes = malloc((tk->n_in + 1) * sizeof *nodes), n = 0;
	if (!nodes)
		return LOCUS_ENOMEM;
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (s->g->objects[o].producer != LOCUS_NONE)
			nodes[n++] = locus__amfs_dwhere(ds, o);
	}
	qsort(nodes, n, sizeof *nodes, cmp_desc);
	uint32_t u = 0;
	for (uint32_t k = 0; k < n; k++)
		if (!u || nodes[u - 1] != nodes[k])
			nodes[u++] = nodes[k];
	/* The root, where the task runs: the highest of them whose node can
	 * hold the task (all of them, when the workflow declares no
	 * demands), so that every file flows from a lower node to a higher
	 * one (V-D), whichever dispatcher's it is; with none (never for a
	 * gather without demands), the node of the next of d's workers
	 * round-robin, or of the least loaded of them whose node can hold it
	 * (every input then comes to it). */
	uint32_t root = NONE;
	for (uint32_t k = 0; k < u && root == NONE; k++)
		if (nodes[k] < s->nn && node_fits(s, t, nodes[k]))
			root = nodes[k];
	if (root == NONE)
		root = node_of(
		    s, locus__amfs_fitting_worker(s, ds, t, locus__amfs_round_robin(s, ds)));
	uint32_t produced = n, id;
	struct amfs_coll *c = locus__amfs_coll_new(
	    s, ds, s->an->task_patterns[t] & LOCUS_PATTERN_REDUCE ? CO_REDUCE : CO_GATHER, t, u + 1,
	    produced, &id);
	if (!c) {
		free(nodes);
		return LOCUS_ENOMEM;
	}
	c->node[0] = root;
	c->n = 1;
	for (uint32_t k = 0; k < u; k++)
		if (nodes[k] != root)
			c->node[c->n++] = nodes[k];
	free(nodes);
	/* Each entry's files, in entry order: counted by entry, then placed
	 * (the entries' nodes are distinct and decreasing after the root). */
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (s->g->objects[o].producer != LOCUS_NONE)
			c->fat[gather_entry(c, locus__amfs_dwhere(ds, o)) + 1]++;
	}
	for (uint32_t e = 0; e < c->n; e++) {
		c->fat[e + 1] += c->fat[e];
		c->hi[e] = c->fat[e]; /* a cursor until coll_tree */
	}
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (s->g->objects[o].producer != LOCUS_NONE)
			c->files[c->hi[gather_entry(c, locus__amfs_dwhere(ds, o))]++] = o;
	}
	/* A reduction: every node reduces its own files from now on. */
	for (uint32_t e = 0; e < c->n && c->kind == CO_REDUCE; e++)
		c->ready[e] =
		    ds->now + s->opt.reduce_cost * files_bytes(s, c, c->fat[e], c->fat[e + 1]);
	coll_tree(c);
	struct amfs_dtask *dt = dtask(s, ds, t);
	dt->st = T_HELD;
	dt->coll = id; /* (no longer a scatter's: its pieces only count) */
	if (c->n == 1) {
		/* Everything is on one node already: the task runs there. */
		uint32_t w = locus__amfs_worker_on(s, ds, root);
		dt->bound = 1;
		locus__amfs_send_task(
		    s, ds, act, t, w != NONE ? w : locus__amfs_choose_worker(s, ds, t, root),
		    c->kind == CO_REDUCE ? LOCUS_GATHER_NONE : LOCUS_GATHER_POLICY);
		return 0;
	}
	for (uint32_t e = 1; e < c->n; e++)
		if (!c->wait[e])
			coll_up(s, ds, act, id, e);
	return 0;
}

/* The files of producer p's multicast group that ds knows of (its tasks
 * read them, or it replicates p). */
uint32_t locus__amfs_group_size(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t p)
{
	const struct locus_task *pk = &s->g->tasks[p];
	uint32_t group = 0;
	for (uint32_t k = 0; k < pk->n_out; k++) {
		uint32_t o = s->g->outputs[pk->out_at + k];
		group += (s->an->object_patterns[o] & LOCUS_PATTERN_MULTICAST) &&
			 locus__amfs_dindex(ds, o) != NONE;
	}
	return group;
}

/* Collective `id` (a multicast or a replica of producer c->task) serves
 * the group: its files, every entry's, are the group's files ds knows of,
 * each marked as served by it. */
void locus__amfs_group_files(const struct amfs *s, struct amfs_dispatcher *ds, uint32_t id)
{
	struct amfs_coll *c = &ds->colls[id];
	const struct locus_task *pk = &s->g->tasks[c->task];
	uint32_t f = 0;
	for (uint32_t k = 0; k < pk->n_out; k++) {
		uint32_t o = s->g->outputs[pk->out_at + k], i = locus__amfs_dindex(ds, o);
		if (!(s->an->object_patterns[o] & LOCUS_PATTERN_MULTICAST) || i == NONE)
			continue;
		c->files[f++] = o;
		ds->coll[i] = id;
	}
	c->fat[0] = 0;
	for (uint32_t e = 1; e <= c->n; e++)
		c->fat[e] = f;
	c->fat[1] = f; /* (a replica of none has no entry) */
}

/* The tasks of ds's reading producer p's group as a multicast wait for
 * one more collective (once, however many of its files they read; an
 * asynchronous gather brings them itself). */
void locus__amfs_group_wait(const struct amfs *s, struct amfs_dispatcher *ds, uint32_t p)
{
	for (uint32_t i = s->dtasks_at[ds->d]; i < s->dtasks_at[ds->d + 1]; i++) {
		uint32_t t = s->dtasks[i];
		if (!s->async[t] && locus__amfs_group_read(s, t, p) != NONE)
			dtask(s, ds, t)->mc_wait++;
	}
}

/* The group of files producer p wrote that ds's tasks read as
 * multicasts: how many of ds's tasks read it so, and how many holders ds
 * wants it on (V-F2): for each stage reading it, ceil(q x ds's servers),
 * q the group's share of the groups ds's tasks of that stage read, at
 * most one a reader; the most of those, and its stage (0 when none
 * reads it). */
uint32_t locus__amfs_group_share(struct amfs *s, struct amfs_dispatcher *ds, uint32_t p,
				 uint64_t *readers, uint32_t *stage)
{
	uint32_t d = ds->d, ns = s->ns, touched = 0, n = 0;
	uint32_t servers = s->gnodes_at[d + 1] - s->gnodes_at[d];
	*readers = 0;
	*stage = 0;
	for (uint32_t i = s->dtasks_at[d]; i < s->dtasks_at[d + 1]; i++) {
		uint32_t t = s->dtasks[i], st = locus_flow_stage_of(s->g, t);
		if (locus__amfs_group_read(s, t, p) == NONE)
			continue;
		(*readers)++;
		if (!ds->scount[st]++)
			ds->stouch[touched++] = st;
	}
	for (uint32_t k = 0; k < touched; k++) {
		uint32_t st = ds->stouch[k];
		uint32_t m =
		    locus_flow_replicas(ds->scount[st], s->dgroups[(size_t)d * ns + st], servers);
		if (!k || m > n || (m == n && st < *stage)) {
			n = m;
			*stage = st;
		}
		ds->scount[st] = 0;
	}
	return n;
}

/* Picks `copies` of ds's servers for a group of `files` files of a
 * stage: those holding the fewest of the stage's input files (V-F3),
 * never `skip`; counts the group on each; writes them to out in
 * increasing node order (the global order the trees follow). Returns how
 * many, NONE when memory ran out. */
uint32_t locus__amfs_place_group(struct amfs *s, struct amfs_dispatcher *ds, uint32_t stage,
				 uint32_t files, uint32_t copies, uint32_t skip, uint32_t *out)
{
	uint32_t d = ds->d, servers = s->gnodes_at[d + 1] - s->gnodes_at[d], ns = s->ns;
	uint32_t *load = malloc((servers ? servers : 1) * sizeof *load);
	if (!load)
		return NONE;
	uint32_t skipped = NONE;
	for (uint32_t i = 0; i < servers; i++) {
		uint32_t n = s->gnodes[s->gnodes_at[d] + i];
		load[i] = ds->sload[(size_t)i * ns + stage];
		if (n == skip)
			skipped = i;
	}
	uint32_t got = locus_flow_place_replicas(load, servers, copies, &skipped,
						 skipped == NONE ? 0 : 1, out);
	free(load);
	for (uint32_t i = 0; i < got; i++) {
		ds->sload[(size_t)out[i] * ns + stage] += files;
		out[i] = s->gnodes[s->gnodes_at[d] + out[i]];
	}
	qsort(out, got, sizeof *out, locus__amfs_cmp_u32);
	return got;
}

/* A collective of `kind` for producer p's group (`group` files read in
 * `stage`) whose entries are `lead` ones the caller sets, then `copies`
 * of ds's servers place_group picks (never `from`); *id gets its id, and
 * the stage counts it. NULL when memory ran out. */
struct amfs_coll *locus__amfs_group_coll(struct amfs *s, struct amfs_dispatcher *ds, int kind,
					 uint32_t p, uint32_t stage, uint32_t group,
					 uint32_t copies, uint32_t from, uint32_t lead,
					 uint32_t *id)
{
	uint32_t *targets = malloc((copies + 1) * sizeof *targets);
	if (!targets)
		return NULL;
	uint32_t got = locus__amfs_place_group(s, ds, stage, group, copies, from, targets);
	struct amfs_coll *c = NULL;
	if (got != NONE)
		c = locus__amfs_coll_new(s, ds, kind, p, lead + got ? lead + got : 1, group, id);
	if (c) {
		s->count.stage_colls[stage]++;
		memcpy(c->node + lead, targets, got * sizeof *targets);
		c->n = lead + got;
	}
	free(targets);
	return c;
}

/* ---- a group's chain across dispatchers ------------------------------------------------------ */

/* ds's position in writer p's chain, or NONE (none, or ds not in it). */
uint32_t locus__amfs_chain_pos(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t p)
{
	for (uint32_t i = s->chain_at[p]; i < s->chain_at[p + 1]; i++)
		if (s->chain[i] == ds->d)
			return i - s->chain_at[p];
	return NONE;
}

/* ds's part in p's chain (made as it first comes), or NULL when memory
 * ran out. */
struct amfs_chain *locus__amfs_chain_of(struct amfs_dispatcher *ds, uint32_t p)
{
	for (size_t i = 0; i < ds->n_chains; i++)
		if (ds->chains[i].p == p)
			return &ds->chains[i];
	if (locus__grow(&ds->chains, &ds->chains_cap, ds->n_chains + 1, sizeof *ds->chains))
		return NULL;
	struct amfs_chain *ch = &ds->chains[ds->n_chains++];
	*ch = (struct amfs_chain){.p = p, .heard = NONE, .entry = NONE, .bit = 31};
	return ch;
}

/* ds tells its next child in p's chain (binomial: the largest subtree
 * first, one at a time) where the group is. */
static void chain_next(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
		       uint32_t p, struct amfs_chain *ch)
{
	uint32_t pos = locus__amfs_chain_pos(s, ds, p), k = s->chain_at[p + 1] - s->chain_at[p];
	uint32_t low = pos ? pos & (~pos + 1) : 0;
	for (; ch->bit >= 0; ch->bit--) {
		uint64_t step = (uint64_t)1 << ch->bit, child = pos + step;
		if ((low && step >= low) || child >= k)
			continue;
		ch->bit--;
		amfs_send(act, p_disp(s, ds->d), p_disp(s, s->chain[s->chain_at[p] + child]),
			  M_GROUP_AT, 0, 2, p, ch->entry);
		return;
	}
}

/* A child in p's chain has its copy: the next one hears. */
void locus__amfs_chain_got(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			   uint32_t p)
{
	struct amfs_chain *ch = locus__amfs_chain_of(ds, p);
	if (!ch)
		locus_act_oom(act);
	else if (ch->entry != NONE)
		chain_next(s, ds, act, p, ch);
}

/* ds's node `node` holds p's group (its multicast's first holder in its
 * scope): its parent in the chain hears its copy came, its children
 * where the group is. */
static void chain_entry(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			uint32_t p, uint32_t node)
{
	struct amfs_chain *ch = locus__amfs_chain_of(ds, p);
	uint32_t pos = locus__amfs_chain_pos(s, ds, p);
	if (!ch) {
		locus_act_oom(act);
		return;
	}
	if (ch->entry != NONE)
		return;
	ch->entry = node;
	if (pos && pos != NONE)
		amfs_send(act, p_disp(s, ds->d),
			  p_disp(s, s->chain[s->chain_at[p] + (pos & (pos - 1))]), M_GROUP_GOT, 0,
			  1, p, 0);
	chain_next(s, ds, act, p, ch);
}

/* A multicast of the group of files producer p wrote that ds's tasks of
 * multicast stages read, from node `from`. */
int locus__amfs_start_multicast(struct amfs *s, struct amfs_dispatcher *ds,
				struct locus_actions *act, uint32_t p, uint32_t from)
{
	const struct locus_task *pk = &s->g->tasks[p];
	uint32_t group = locus__amfs_group_size(s, ds, p), stage;
	uint64_t readers;
	uint32_t n = locus__amfs_group_share(s, ds, p, &readers, &stage);
	int inside = my_node(s, ds, from);
	if (!readers) {
		/* None of d's tasks reads it as a multicast (a reader of
		 * another stage takes it as any other file): no copy. */
		for (uint32_t k = 0; k < pk->n_out; k++) {
			uint32_t i = locus__amfs_dindex(ds, s->g->outputs[pk->out_at + k]);
			if (i != NONE &&
			    (s->an->object_patterns[ds->obj[i]] & LOCUS_PATTERN_MULTICAST))
				ds->coll[i] = NO_COLL;
		}
		return 0;
	}
	uint32_t copies = locus_flow_copies(n, inside), id;
	struct amfs_coll *c =
	    locus__amfs_group_coll(s, ds, CO_MULTICAST, p, stage, group, copies, from, 1, &id);
	if (!c)
		return LOCUS_ENOMEM;
	uint32_t got = c->n - 1;
	c->node[0] = from;
	/* The copies' nodes increase (V-D). The source roots their tree when
	 * it is in d's scope and below them all; else it sends one copy to
	 * the lowest, which roots the tree of the rest: from outside the
	 * scope, so that each scope loads the source's link once, not once a
	 * round; from above, so that no file of the tree flows down (the
	 * source takes no part in the tree: it waits for no child). */
	c->relay = !inside || (got && from > c->node[1]);
	c->chained = locus__amfs_chain_pos(s, ds, p) != NONE;
	locus__amfs_group_files(s, ds, id);
	coll_tree(c);
	s->count.replicas += got;
	locus__amfs_group_wait(s, ds, p);
	/* In a chain: `from` is the scope's first holder unless it relays
	 * (then the copy to entry 1 brings it: locus__amfs_coll_step). */
	if (c->chained && (c->n == 1 || !c->relay))
		chain_entry(s, ds, act, p, from);
	if (c->n == 1) {
		c->done = 1;
		locus__amfs_coll_release(s, ds, act, id);
		return 0;
	}
	coll_down(s, ds, act, id, 0);
	return 0;
}

/* A scatter of producer p's pieces that ds's tasks read, from node
 * `from`, to nodes chosen round-robin over ds's nodes. */
int locus__amfs_start_scatter(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			      uint32_t p, uint32_t from)
{
	const struct locus_task *pk = &s->g->tasks[p];
	uint32_t d = ds->d, servers = s->gnodes_at[d + 1] - s->gnodes_at[d];
	/* Each of d's readers a node, round-robin; each piece read by them
	 * goes to its first reader's node. */
	uint32_t *piece_node = malloc((pk->n_out ? pk->n_out : 1) * sizeof *piece_node);
	uint32_t *count = calloc(servers ? servers : 1, sizeof *count);
	if (!piece_node || !count) {
		free(piece_node);
		free(count);
		return LOCUS_ENOMEM;
	}
	uint32_t next = 0, pieces = 0;
	for (uint32_t k = 0; k < pk->n_out; k++) {
		uint32_t o = s->g->outputs[pk->out_at + k];
		piece_node[k] = NONE;
		if (locus__amfs_dindex(ds, o) == NONE)
			continue;
		uint32_t i = next++ % servers;
		piece_node[k] = i;
		count[i]++;
		pieces++;
	}
	/* Entries: the source, then each node that gets pieces. */
	uint32_t used = 0;
	for (uint32_t i = 0; i < servers; i++)
		used += count[i] > 0 && s->gnodes[s->gnodes_at[d] + i] != from;
	uint32_t id;
	struct amfs_coll *c = locus__amfs_coll_new(s, ds, CO_SCATTER, p, used + 1, pieces, &id);
	if (!c) {
		free(piece_node);
		free(count);
		return LOCUS_ENOMEM;
	}
	c->node[0] = from;
	c->n = 1;
	uint32_t *entry_of = malloc((servers ? servers : 1) * sizeof *entry_of);
	if (!entry_of) {
		free(piece_node);
		free(count);
		return LOCUS_ENOMEM;
	}
	for (uint32_t i = 0; i < servers; i++) {
		uint32_t node = s->gnodes[s->gnodes_at[d] + i];
		entry_of[i] = !count[i] ? NONE : node == from ? 0 : c->n++;
		if (entry_of[i] != NONE && entry_of[i])
			c->node[entry_of[i]] = node;
	}
	uint32_t f = 0;
	for (uint32_t e = 0; e < c->n; e++) {
		c->fat[e] = f;
		for (uint32_t k = 0; k < pk->n_out; k++)
			if (piece_node[k] != NONE && entry_of[piece_node[k]] == e)
				c->files[f++] = s->g->outputs[pk->out_at + k];
	}
	c->fat[c->n] = f;
	free(piece_node);
	free(count);
	free(entry_of);
	/* The nodes increase from the source (V-D), which sends them all to
	 * the lowest first when it is above it. */
	c->relay = c->n > 1 && from > c->node[1];
	coll_tree(c);
	/* The readers wait for their pieces (the scatter counts in the first
	 * one's stage). */
	uint32_t stage = NONE;
	for (uint32_t k = 0; k < f; k++) {
		const struct locus_object *ob = &s->g->objects[c->files[k]];
		for (uint32_t j = 0; j < ob->n_cons; j++) {
			uint32_t t = s->g->consumers[ob->cons_at + j];
			if (!mine(s, ds, t))
				continue;
			struct amfs_dtask *dt = dtask(s, ds, t);
			if (stage == NONE)
				stage = locus_flow_stage_of(s->g, t);
			/* (An asynchronous gather collects its pieces itself.) */
			if (dt->st == T_WAIT && !s->async[t]) {
				dt->st = T_HELD;
				dt->coll = id;
			}
		}
	}
	if (stage != NONE)
		s->count.stage_colls[stage]++;
	for (uint32_t i = 0; i < ds->n_obj; i++)
		if (s->g->objects[ds->obj[i]].producer == p)
			ds->coll[i] = id;
	/* The source's own readers run where it is. */
	for (uint32_t k = c->fat[0]; k < c->fat[1]; k++) {
		const struct locus_object *ob = &s->g->objects[c->files[k]];
		for (uint32_t j = 0; j < ob->n_cons; j++) {
			uint32_t t = s->g->consumers[ob->cons_at + j];
			if (mine(s, ds, t) && dtask(s, ds, t)->st == T_HELD &&
			    dtask(s, ds, t)->coll == id)
				scatter_reached(s, ds, act, t, from);
		}
	}
	coll_down(s, ds, act, id, 0);
	return 0;
}
