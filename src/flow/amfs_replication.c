/*
 * AME/AMFS (amfs.c): replicating a multicast group's writer (V-F5).
 */
#include "flow/amfs.h"

/* Whether dispatcher d runs replicas of producer p (it reads p's group as
 * a multicast: drepl). */
static int replicates(const struct amfs *s, uint32_t d, uint32_t p)
{
	if (!s->replicate_task)
		return 0;
	uint32_t lo = s->drepl_at[d], hi = s->drepl_at[d + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->drepl[mid] < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->drepl_at[d + 1] && s->drepl[lo] == p;
}

/* d's entry of the first file of p's group that d's tasks read, or NONE. */
static uint32_t group_entry(const struct amfs *s, uint32_t d, uint32_t p)
{
	const struct locus_task *pk = &s->g->tasks[p];
	for (uint32_t k = 0; k < pk->n_out; k++) {
		uint32_t o = s->g->outputs[pk->out_at + k];
		if (s->an->object_patterns[o] & LOCUS_PATTERN_MULTICAST) {
			uint32_t i = locus__amfs_dindex(s, d, o);
			if (i != NONE)
				return i;
		}
	}
	return NONE;
}

/* Replica `e` of collective `id` computes: the writer's runtime on the
 * replica's node, as a timer of the dispatcher (the run holds no core of
 * the node: as an archive's making, a delay). */
static void replica_compute(struct amfs *s, struct locus_actions *act, uint32_t id, uint32_t e)
{
	const struct coll *c = &s->colls[id];
	uint32_t n = c->node[e];
	double cost = s->g->tasks[c->task].work;
	if (s->nworkers_at[n + 1] > s->nworkers_at[n])
		cost = locus_workload_cost(s->wl, c->task, s->nworkers[s->nworkers_at[n]]);
	locus_act_timer(act, p_disp(s, c->disp), cost, TAG(K_REPL, id, e));
}

/* Replica `e` of collective `id` starts: the writer's inputs come to its
 * node (their bytes: the run reads them; no file stays), from where
 * their dispatcher knows them, the workflow's from the file system;
 * then it computes. */
static void replica_start(struct amfs *s, struct locus_actions *act, uint32_t id, uint32_t e)
{
	struct coll *c = &s->colls[id];
	const struct locus_task *pk = &s->g->tasks[c->task];
	uint32_t d = c->disp, to = c->node[e];
	c->wait[e] = 0;
	for (uint32_t k = 0; k < pk->n_in; k++) {
		uint32_t o = s->g->inputs[pk->in_at + k];
		uint32_t from = s->g->objects[o].producer == LOCUS_NONE
				    ? LOCUS_FS
				    : locus__amfs_dwhere(s, d, o);
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
		replica_compute(s, act, id, e);
}

/* Dispatcher d runs producer p again on its servers, instead of copying
 * p's group there (V-F5: "replicate the tasks in order to produce
 * multiple copies of the intermediate files"): as many as a multicast
 * would copy the group to (N - 1 when p runs on `from`, one of d's
 * nodes; N when p runs outside d's scope, `from` NONE), placed as those
 * copies would be. The group's readers wait for the replicas (and for
 * the group, to be sure it exists) and then spread over the holders
 * (locus__amfs_replica_reader). */
static int task_replicas(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t p,
			 uint32_t from)
{
	const struct locus_task *pk = &s->g->tasks[p];
	uint32_t group = 0, stage;
	for (uint32_t k = 0; k < pk->n_out; k++) {
		uint32_t o = s->g->outputs[pk->out_at + k];
		group += (s->an->object_patterns[o] & LOCUS_PATTERN_MULTICAST) &&
			 locus__amfs_dindex(s, d, o) != NONE;
	}
	uint64_t readers;
	uint32_t n = locus__amfs_group_share(s, d, p, &readers, &stage);
	uint32_t copies = locus_flow_copies(n, from < s->nn && s->node_group[from] == d);
	uint32_t *targets = malloc((copies + 1) * sizeof *targets);
	if (!targets)
		return LOCUS_ENOMEM;
	uint32_t got = locus__amfs_place_group(s, d, stage, group, copies, from, targets);
	if (got == NONE) {
		free(targets);
		return LOCUS_ENOMEM;
	}
	uint32_t id;
	struct coll *c = locus__amfs_coll_new(s, CO_REPLICA, d, p, got ? got : 1, group, &id);
	if (!c) {
		free(targets);
		return LOCUS_ENOMEM;
	}
	s->stage_colls[stage]++;
	memcpy(c->node, targets, got * sizeof *targets);
	free(targets);
	c->n = got;
	uint32_t f = 0;
	for (uint32_t k = 0; k < pk->n_out; k++) {
		uint32_t o = s->g->outputs[pk->out_at + k], i = locus__amfs_dindex(s, d, o);
		if (!(s->an->object_patterns[o] & LOCUS_PATTERN_MULTICAST) || i == NONE)
			continue;
		c->files[f++] = o;
		s->dcoll[i] = id;
	}
	c->fat[0] = 0;
	for (uint32_t e = 1; e <= c->n; e++)
		c->fat[e] = f;
	c->fat[1] = f;
	s->replicas += got;
	for (uint32_t i = s->dtasks_at[d]; i < s->dtasks_at[d + 1]; i++) {
		uint32_t t = s->dtasks[i];
		if (!s->async[t] && locus__amfs_group_read(s, t, p) != NONE)
			s->mc_wait[t]++;
	}
	c->left = got;
	if (!got) {
		c->done = 1;
		locus__amfs_coll_release(s, act, id);
		return 0;
	}
	for (uint32_t e = 0; e < got; e++)
		replica_start(s, act, id, e);
	return 0;
}

/* A replica's input came (timer 0) or its run ended (timer 1). */
void locus__amfs_replica_step(struct amfs *s, struct locus_actions *act, uint32_t id, uint32_t e,
			      int timer)
{
	struct coll *c = &s->colls[id];
	if (!timer) {
		if (c->wait[e] && !--c->wait[e])
			replica_compute(s, act, id, e);
		return;
	}
	if (--c->left)
		return;
	c->done = 1;
	locus__amfs_coll_release(s, act, id);
}

/* Dispatcher d sent producer t to `node`: with replicate=task, the
 * replicas of its group that d's tasks read start once d has handled
 * this event (its inputs are there; the writers it sends with it are
 * counted on their nodes by then). */
void locus__amfs_replicate_sent(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t,
				uint32_t node)
{
	if (!data_aware(s) || (s->an->task_patterns[t] & LOCUS_PATTERN_SCATTER) ||
	    !replicates(s, d, t))
		return;
	if (locus__grow(&s->rsent, &s->rsent_cap, s->n_rsent + 2, sizeof *s->rsent)) {
		locus_act_oom(act);
		return;
	}
	s->rsent[s->n_rsent++] = t;
	s->rsent[s->n_rsent++] = node;
}

/* The replicas of the writers dispatcher d sent while handling an event. */
void locus__amfs_replicate_sent_end(struct amfs *s, struct locus_actions *act, uint32_t d)
{
	for (size_t i = 0; i < s->n_rsent; i += 2) {
		uint32_t t = s->rsent[i], gk = group_entry(s, d, t);
		if (gk != NONE && s->dcoll[gk] == NONE &&
		    task_replicas(s, act, d, t, s->rsent[i + 1]))
			locus_act_oom(act);
	}
	s->n_rsent = 0;
}

/* Producer p of another dispatcher's: d runs its replicas once it knows
 * where p's produced inputs are (they are among d's queries). */
void locus__amfs_replicate_ready(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t p)
{
	if (s->tdisp[p] == d || !data_aware(s) || !s->mc_out[p] ||
	    (s->an->task_patterns[p] & LOCUS_PATTERN_SCATTER) || !replicates(s, d, p))
		return;
	uint32_t gk = group_entry(s, d, p);
	if (gk == NONE || s->dcoll[gk] != NONE)
		return;
	const struct locus_task *pk = &s->g->tasks[p];
	for (uint32_t k = 0; k < pk->n_in; k++) {
		uint32_t o = s->g->inputs[pk->in_at + k];
		if (s->g->objects[o].producer != LOCUS_NONE && locus__amfs_dwhere(s, d, o) == NONE)
			return;
	}
	if (task_replicas(s, act, d, p, NONE))
		locus_act_oom(act);
}

/* Whether dispatcher d knows file o is on node n: made or located there,
 * or a multicast's copy. */
static int known_at(const struct amfs *s, uint32_t d, uint32_t o, uint32_t n)
{
	uint32_t i = locus__amfs_dindex(s, d, o);
	if (i == NONE)
		return 0;
	if (s->dloc[i] == n)
		return 1;
	if (s->dcoll[i] >= s->n_colls || s->colls[s->dcoll[i]].kind != CO_MULTICAST)
		return 0;
	const struct coll *c = &s->colls[s->dcoll[i]];
	for (uint32_t e = 0; e < c->n; e++)
		if (c->node[e] == n)
			return 1;
	return 0;
}

/* The replica collective of the group of task t's first produced input,
 * when t reads it as a multicast, or NONE: dispatch places t by its
 * first input (V-I), so a replica serves t only then (with aware=bytes,
 * never: t goes where most of its bytes are, and brings the group there
 * as any other file). */
uint32_t locus__amfs_replica_of(const struct amfs *s, uint32_t d, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_in && !s->aware_bytes; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (s->g->objects[o].producer == LOCUS_NONE)
			continue;
		uint32_t i = locus__amfs_dindex(s, d, o);
		if (s->an->input_multicast[tk->in_at + k] && i != NONE &&
		    s->dcoll[i] < s->n_colls && s->colls[s->dcoll[i]].kind == CO_REPLICA)
			return s->dcoll[i];
		break;
	}
	return NONE;
}

/* A reader of a replicated group, all its inputs made: to the least
 * loaded of the group's holders (V-F5: "each replica gets an even number
 * of tasks"). At a replica, the group was made in place: the task needs
 * none of its produced inputs brought (LOCUS_GATHER_NONE) but those d
 * copies there for it, and stays there. */
void locus__amfs_replica_reader(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t,
				uint32_t id)
{
	const struct coll *c = &s->colls[id];
	uint32_t orig = locus__amfs_dwhere(s, d, c->files[0]), best = NONE, at = NONE;
	if (orig < s->nn && s->node_group[orig] == d) {
		best = locus__amfs_worker_on(s, d, orig);
		at = orig;
	}
	for (uint32_t e = 0; e < c->n; e++) {
		uint32_t w = locus__amfs_worker_on(s, d, c->node[e]);
		if (w != NONE && (best == NONE || s->wload[w] < s->wload[best])) {
			best = w;
			at = c->node[e];
		}
	}
	if (best == NONE || at == orig) {
		locus__amfs_send_task(
		    s, act, d, t, best != NONE ? best : locus__amfs_choose_worker(s, d, t, NONE),
		    LOCUS_GATHER_POLICY);
		return;
	}
	const struct locus_task *tk = &s->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k], i = locus__amfs_dindex(s, d, o);
		if (s->g->objects[o].producer == LOCUS_NONE || i == NONE || known_at(s, d, o, at))
			continue;
		if (s->dcoll[i] < s->n_colls && s->colls[s->dcoll[i]].kind == CO_REPLICA) {
			const struct coll *r = &s->colls[s->dcoll[i]];
			int made = 0;
			for (uint32_t e = 0; e < r->n && !made; e++)
				made = r->node[e] == at;
			if (made)
				continue;
		}
		struct locus_copy cp = {.objects = &o,
					.n = 1,
					.from = s->dloc[i],
					.to = at,
					.delay = s->fetch_cost,
					.tag = TAG(K_RFETCH, t, 0),
					.task = t};
		locus_act_copy(act, &cp);
		s->fetches++;
	}
	s->tbound[t] = 1;
	locus__amfs_send_task(s, act, d, t, best, LOCUS_GATHER_NONE);
}
