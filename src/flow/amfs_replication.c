/*
 * AME/AMFS (amfs.c): a dispatcher's replicas of a multicast group's
 * writer (-o replicate=task; V-F5: "replicate the tasks in order to
 * produce multiple copies of the intermediate files"). Instead of
 * copying a group many of its tasks read, the dispatcher runs its writer
 * again on the servers a multicast would copy it to: the writer's inputs
 * come to each (their bytes), the run is a timer of the dispatcher, and
 * the group's readers then spread over the holders.
 */
#include "flow/amfs_dispatcher.h"

#include <stdlib.h>
#include <string.h>

/* Whether ds runs replicas of producer p (it reads p's group as a
 * multicast: ds->repl). */
static int replicates(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t p)
{
	return s->opt.replicate_task &&
	       bsearch(&p, ds->repl, ds->n_repl, sizeof p, locus__amfs_cmp_u32);
}

/* ds's entry of the first file of p's group that ds's tasks read, or NONE. */
static uint32_t group_entry(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t p)
{
	const struct locus_task *pk = &s->g->tasks[p];
	for (uint32_t k = 0; k < pk->n_out; k++) {
		uint32_t o = s->g->outputs[pk->out_at + k];
		if (s->an->object_patterns[o] & LOCUS_PATTERN_MULTICAST) {
			uint32_t i = locus__amfs_dindex(ds, o);
			if (i != NONE)
				return i;
		}
	}
	return NONE;
}

/* Replica `e` of collective `id` computes: the writer's runtime on the
 * replica's node, as a timer of the dispatcher (the run holds no core of
 * the node: as an archive's making, a delay). */
static void replica_compute(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			    uint32_t id, uint32_t e)
{
	const struct amfs_coll *c = &ds->colls[id];
	uint32_t n = c->node[e];
	double cost = s->g->tasks[c->task].work;
	if (s->nworkers_at[n + 1] > s->nworkers_at[n])
		cost = locus_workload_cost(s->wl, c->task, s->nworkers[s->nworkers_at[n]]);
	locus_act_timer(act, p_disp(s, ds->d), cost, TAG(K_REPL, id, e));
}

/* Replica `e` of collective `id` starts: the writer's inputs come to its
 * node (their bytes: the run reads them; no file stays), from where
 * their dispatcher knows them, the workflow's from the file system;
 * then it computes. */
static void replica_start(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			  uint32_t id, uint32_t e)
{
	struct amfs_coll *c = &ds->colls[id];
	const struct locus_task *pk = &s->g->tasks[c->task];
	uint32_t to = c->node[e];
	c->wait[e] = 0;
	for (uint32_t k = 0; k < pk->n_in; k++) {
		uint32_t o = s->g->inputs[pk->in_at + k];
		uint32_t from =
		    s->g->objects[o].producer == LOCUS_NONE ? LOCUS_FS : locus__amfs_dwhere(ds, o);
		if (from == to || from == NONE)
			continue;
		uint64_t bytes = s->g->objects[o].bytes;
		struct locus_copy cp = {.objects = NULL,
					.n = 0,
					.bytes = bytes ? bytes : 1,
					.from = from,
					.to = to,
					.tag = TAG(K_REPL, id, e),
					.task = LOCUS_NONE};
		locus_act_copy(act, &cp);
		c->wait[e]++;
	}
	if (!c->wait[e])
		replica_compute(s, ds, act, id, e);
}

/* ds runs producer p again on its servers, instead of copying p's group
 * there: as many as a multicast would copy the group to (N - 1 when p
 * runs on `from`, one of ds's nodes; N when p runs outside ds's scope,
 * `from` NONE), placed as those copies would be. The group's readers
 * wait for the replicas (and for the group, to be sure it exists) and
 * then spread over the holders (locus__amfs_replica_reader). */
static int task_replicas(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			 uint32_t p, uint32_t from)
{
	uint32_t group = locus__amfs_group_size(s, ds, p), stage;
	uint64_t readers;
	uint32_t n = locus__amfs_group_share(s, ds, p, &readers, &stage);
	uint32_t copies = locus_flow_copies(n, my_node(s, ds, from)), id;
	struct amfs_coll *c =
	    locus__amfs_group_coll(s, ds, CO_REPLICA, p, stage, group, copies, from, 0, &id);
	if (!c)
		return LOCUS_ENOMEM;
	uint32_t got = c->n;
	locus__amfs_group_files(s, ds, id);
	s->count.replicas += got;
	locus__amfs_group_wait(s, ds, p);
	c->left = got;
	if (!got) {
		c->done = 1;
		locus__amfs_coll_release(s, ds, act, id);
		return 0;
	}
	for (uint32_t e = 0; e < got; e++)
		replica_start(s, ds, act, id, e);
	return 0;
}

/* A replica's input came (timer 0) or its run ended (timer 1). */
void locus__amfs_replica_step(struct amfs *s, struct amfs_dispatcher *ds, struct locus_actions *act,
			      uint32_t id, uint32_t e, int timer)
{
	struct amfs_coll *c = &ds->colls[id];
	if (!timer) {
		if (c->wait[e] && !--c->wait[e])
			replica_compute(s, ds, act, id, e);
		return;
	}
	if (--c->left)
		return;
	c->done = 1;
	locus__amfs_coll_release(s, ds, act, id);
}

/* ds sent producer t to `node`: with replicate=task, the replicas of its
 * group that ds's tasks read start once ds has handled this event (its
 * inputs are there; the writers it sends with it are counted on their
 * nodes by then). */
void locus__amfs_replicate_sent(struct amfs *s, struct amfs_dispatcher *ds,
				struct locus_actions *act, uint32_t t, uint32_t node)
{
	if (!data_aware(&s->opt) || (s->an->task_patterns[t] & LOCUS_PATTERN_SCATTER) ||
	    !replicates(s, ds, t))
		return;
	if (locus__grow(&ds->rsent, &ds->rsent_cap, ds->n_rsent + 2, sizeof *ds->rsent)) {
		locus_act_oom(act);
		return;
	}
	ds->rsent[ds->n_rsent++] = t;
	ds->rsent[ds->n_rsent++] = node;
}

/* The replicas of the writers ds sent while handling an event. */
void locus__amfs_replicate_sent_end(struct amfs *s, struct amfs_dispatcher *ds,
				    struct locus_actions *act)
{
	for (size_t i = 0; i < ds->n_rsent; i += 2) {
		uint32_t t = ds->rsent[i], gk = group_entry(s, ds, t);
		if (gk != NONE && ds->coll[gk] == NONE &&
		    task_replicas(s, ds, act, t, ds->rsent[i + 1]))
			locus_act_oom(act);
	}
	ds->n_rsent = 0;
}

/* Producer p of another dispatcher's: ds runs its replicas once it knows
 * where p's produced inputs are (they are among ds's queries). */
void locus__amfs_replicate_ready(struct amfs *s, struct amfs_dispatcher *ds,
				 struct locus_actions *act, uint32_t p)
{
	if (mine(s, ds, p) || !data_aware(&s->opt) || !s->mc_out[p] ||
	    (s->an->task_patterns[p] & LOCUS_PATTERN_SCATTER) || !replicates(s, ds, p))
		return;
	uint32_t gk = group_entry(s, ds, p);
	if (gk == NONE || ds->coll[gk] != NONE)
		return;
	const struct locus_task *pk = &s->g->tasks[p];
	for (uint32_t k = 0; k < pk->n_in; k++) {
		uint32_t o = s->g->inputs[pk->in_at + k];
		if (s->g->objects[o].producer != LOCUS_NONE && locus__amfs_dwhere(ds, o) == NONE)
			return;
	}
	if (task_replicas(s, ds, act, p, NONE))
		locus_act_oom(act);
}

/* ds's collective of kind `kind` that file i (ds's index) was served by,
 * or NULL. */
static const struct amfs_coll *served_by(const struct amfs_dispatcher *ds, uint32_t i, int kind)
{
	if (ds->coll[i] >= ds->n_colls || ds->colls[ds->coll[i]].kind != kind)
		return NULL;
	return &ds->colls[ds->coll[i]];
}

/* Whether ds knows file o is on node n: made or located there, or a
 * multicast's copy. */
static int known_at(const struct amfs_dispatcher *ds, uint32_t o, uint32_t n)
{
	uint32_t i = locus__amfs_dindex(ds, o);
	if (i == NONE)
		return 0;
	if (ds->loc[i] == n)
		return 1;
	const struct amfs_coll *c = served_by(ds, i, CO_MULTICAST);
	if (!c)
		return 0;
	for (uint32_t e = 0; e < c->n; e++)
		if (c->node[e] == n)
			return 1;
	return 0;
}

/* The replica collective of the group of task t's first produced input,
 * when t reads it as a multicast, or NONE: dispatch places t by its
 * first input (V-I), so a replica serves t only then (with aware=bytes,
 * never: t goes where most of its bytes are, and brings the group there
 * as any other file; with aware=now, as with first: the replicas are
 * where its group is now). */
uint32_t locus__amfs_replica_of(const struct amfs *s, const struct amfs_dispatcher *ds, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_in && s->opt.aware != A_BYTES; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (s->g->objects[o].producer == LOCUS_NONE)
			continue;
		uint32_t i = locus__amfs_dindex(ds, o);
		if (s->an->input_multicast[tk->in_at + k] && i != NONE &&
		    served_by(ds, i, CO_REPLICA))
			return ds->coll[i];
		break;
	}
	return NONE;
}

/* A reader of a replicated group, all its inputs made: to the least
 * loaded of the group's holders (V-F5: "each replica gets an even number
 * of tasks"). At a replica, the group was made in place: the task needs
 * none of its produced inputs brought (LOCUS_GATHER_NONE) but those ds
 * copies there for it, and stays there. */
void locus__amfs_replica_reader(struct amfs *s, struct amfs_dispatcher *ds,
				struct locus_actions *act, uint32_t t, uint32_t id)
{
	const struct amfs_coll *c = &ds->colls[id];
	uint32_t orig = locus__amfs_dwhere(ds, c->files[0]), best = NONE, at = NONE;
	if (my_node(s, ds, orig)) {
		best = locus__amfs_worker_on(s, ds, orig);
		at = orig;
		if (best != NONE && !fits(s, t, best))
			best = at = NONE;
	}
	/* Only holders whose node can hold t (fits): with none, t goes as
	 * any task does, bringing its inputs. */
	for (uint32_t e = 0; e < c->n; e++) {
		uint32_t w = locus__amfs_worker_on(s, ds, c->node[e]);
		if (w != NONE && fits(s, t, w) &&
		    (best == NONE ||
		     locus__amfs_wload(s, ds, w) < locus__amfs_wload(s, ds, best))) {
			best = w;
			at = c->node[e];
		}
	}
	if (best == NONE || at == orig) {
		locus__amfs_send_task(
		    s, ds, act, t, best != NONE ? best : locus__amfs_choose_worker(s, ds, t, NONE),
		    LOCUS_GATHER_POLICY);
		return;
	}
	const struct locus_task *tk = &s->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k], i = locus__amfs_dindex(ds, o);
		if (s->g->objects[o].producer == LOCUS_NONE || i == NONE || known_at(ds, o, at))
			continue;
		const struct amfs_coll *r = served_by(ds, i, CO_REPLICA);
		int made = 0;
		for (uint32_t e = 0; r && e < r->n && !made; e++)
			made = r->node[e] == at;
		if (made)
			continue;
		struct locus_copy cp = {.objects = &o,
					.n = 1,
					.from = ds->loc[i],
					.to = at,
					.delay = s->opt.fetch_cost,
					.tag = TAG(K_RFETCH, t, 0),
					.task = t};
		locus_act_copy(act, &cp);
		s->count.fetches++;
	}
	dtask(s, ds, t)->bound = 1;
	locus__amfs_send_task(s, ds, act, t, best, LOCUS_GATHER_NONE);
}
