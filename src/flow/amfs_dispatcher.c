/*
 * AME/AMFS (amfs.c): the dispatcher.
 */
#include "flow/amfs.h"

/* Index of object o in dispatcher d's inputs, or NONE. */
uint32_t locus__amfs_dindex(const struct amfs *s, uint32_t d, uint32_t o)
{
	uint32_t lo = s->dobj_at[d], hi = s->dobj_at[d + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->dobj[mid] < o)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->dobj_at[d + 1] && s->dobj[lo] == o ? lo : NONE;
}

/* Where dispatcher d knows o is (NONE: not yet). */
uint32_t locus__amfs_dwhere(const struct amfs *s, uint32_t d, uint32_t o)
{
	uint32_t k = locus__amfs_dindex(s, d, o);
	return k == NONE ? NONE : s->dloc[k];
}

/* The worker of node n dispatcher d sends a task to: of d's nodes, the
 * one with the fewest tasks d sent it; of another dispatcher's (a
 * gather's root), whose loads d does not know, the node's first. NONE
 * when the node has none. */
uint32_t locus__amfs_worker_on(const struct amfs *s, uint32_t d, uint32_t n)
{
	uint32_t best = NONE;
	if (n >= s->nn)
		return NONE;
	for (uint32_t k = s->nworkers_at[n]; k < s->nworkers_at[n + 1]; k++) {
		uint32_t w = s->nworkers[k];
		if (best == NONE || (s->node_group[n] == d && s->wload[w] < s->wload[best]))
			best = w;
	}
	return best;
}

/* Dispatcher d counts delta tasks on worker w, when w is one of its own
 * (the load it keeps is of its own workers only). */
static void load_add(struct amfs *s, uint32_t d, uint32_t w, int delta)
{
	if (w == NONE || s->node_group[node_of(s, w)] != d)
		return;
	if (delta > 0)
		s->wload[w]++;
	else if (s->wload[w])
		s->wload[w]--;
}

/* Dispatcher d's table of each stage's input files on its servers
 * (V-F3): file o is (delta 1) or is no longer (-1) to be on node n, for
 * each stage whose tasks of d read it. Nodes of other dispatchers are
 * theirs to count. */
static void count_file(struct amfs *s, uint32_t d, uint32_t o, uint32_t n, int delta)
{
	if (n >= s->nn || s->node_group[n] != d)
		return;
	const struct locus_object *ob = &s->g->objects[o];
	uint32_t ns = (uint32_t)s->an->n_stages, gen = ++s->sgen;
	for (uint32_t j = 0; j < ob->n_cons; j++) {
		uint32_t t = s->g->consumers[ob->cons_at + j], st;
		if (s->tdisp[t] != d || s->smark[st = locus_flow_stage_of(s->g, t)] == gen)
			continue;
		s->smark[st] = gen;
		uint32_t *at = &s->sload[(size_t)n * ns + st];
		if (delta > 0)
			(*at)++;
		else if (*at)
			(*at)--;
	}
}

/* The files task t writes are (delta 1) or no longer are (-1) to be on
 * node n: dispatcher d counts them when it sends t there (V-F3: "the
 * table can be initialized when stage a tasks are dispatched"). */
static void count_made(struct amfs *s, uint32_t d, uint32_t t, uint32_t n, int delta)
{
	const struct locus_task *tk = &s->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_out; k++)
		count_file(s, d, s->g->outputs[tk->out_at + k], n, delta);
}

/* The next of dispatcher d's workers round-robin. */
uint32_t locus__amfs_round_robin(struct amfs *s, uint32_t d)
{
	uint32_t n = s->gworkers_at[d + 1] - s->gworkers_at[d];
	return s->gworkers[s->gworkers_at[d] + s->rr[d]++ % n];
}

/* The worker dispatcher d sends task t to: a worker of `hint` (a node)
 * when it is d's, else data-aware or round-robin. */
uint32_t locus__amfs_choose_worker(struct amfs *s, uint32_t d, uint32_t t, uint32_t hint)
{
	if (hint == NONE && data_aware(s)) {
		const struct locus_task *tk = &s->g->tasks[t];
		uint64_t best = 0;
		for (uint32_t k = 0; k < tk->n_in; k++) {
			uint32_t o = s->g->inputs[tk->in_at + k];
			if (s->g->objects[o].producer == LOCUS_NONE)
				continue;
			uint32_t n = locus__amfs_dwhere(s, d, o), i = locus__amfs_dindex(s, d, o);
			if (n == NONE)
				continue;
			if (!s->aware_bytes) {
				/* A replicated file: the least loaded of its
				 * holders (V-F: the replicas share its readers). */
				if (i != NONE && s->dcoll[i] < s->n_colls &&
				    s->colls[s->dcoll[i]].kind == CO_MULTICAST) {
					const struct coll *c = &s->colls[s->dcoll[i]];
					uint32_t bw = NONE;
					for (uint32_t e = 0; e < c->n; e++) {
						/* (A source outside d's scope is not
						 * d's to send to.) */
						if (c->node[e] >= s->nn ||
						    s->node_group[c->node[e]] != d)
							continue;
						uint32_t w =
						    locus__amfs_worker_on(s, d, c->node[e]);
						if (w != NONE &&
						    (bw == NONE || s->wload[w] < s->wload[bw]))
							bw = w;
					}
					if (bw != NONE)
						return bw;
				}
				hint = n;
				break;
			}
			/* Most input bytes: this file's node, with every other
			 * input there. */
			uint64_t b = 0;
			for (uint32_t j = 0; j < tk->n_in; j++) {
				uint32_t oj = s->g->inputs[tk->in_at + j];
				if (s->g->objects[oj].producer != LOCUS_NONE &&
				    locus__amfs_dwhere(s, d, oj) == n)
					b += s->g->objects[oj].bytes;
			}
			if (hint == NONE || b > best) {
				best = b;
				hint = n;
			}
		}
	}
	if (hint != NONE && hint < s->nn && s->node_group[hint] == d) {
		uint32_t w = locus__amfs_worker_on(s, d, hint);
		if (w != NONE)
			return w;
	}
	return locus__amfs_round_robin(s, d);
}

/* Sends task t to worker w with the ways of the configuration. */
void locus__amfs_send_task(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t,
			   uint32_t w, enum locus_gather gather)
{
	/* Staging writes its outputs back to the file system (its local
	 * copy is scratch); shared writes them there; the others keep them
	 * and write only the final ones. */
	enum locus_output out =
	    s->config == C_SHARED || s->config == C_STAGING ? LOCUS_OUTPUT_FS : LOCUS_OUTPUT_FINAL;
	if (s->config == C_SHARED)
		gather = LOCUS_GATHER_READ;
	enum fetch f = s->config == C_SHARED	     ? F_NONE
		       : s->config == C_STAGING	     ? F_FS
		       : gather == LOCUS_GATHER_NONE ? F_NONE
		       : s->async[t]		     ? F_NONE
						     : F_SEQ;
	/* A worker that brings its task's inputs brings the workflow's too
	 * (a cache): the task waits for them all. */
	if (gather == LOCUS_GATHER_POLICY && (f == F_SEQ || f == F_FS) && !s->tcat[t])
		gather = LOCUS_GATHER_ALL;
	struct locus_msg m = {.type = LOCUS_MSG_ASSIGN_FLOW,
			      .from = p_disp(s, d),
			      .to = w,
			      .bytes = description(s, t),
			      .n_args = 6};
	m.arg[0] = t;
	m.arg[1] = -1;
	m.arg[2] = gather;
	m.arg[3] = out;
	m.arg[4] = f;
	m.arg[5] = s->tbound[t];
	locus_act_send(act, &m);
	s->tst[t] = T_SENT;
	s->tworker[t] = w;
	s->tgm[t] = (uint8_t)gather;
	s->tom[t] = (uint8_t)out;
	load_add(s, d, w, 1);
	count_made(s, d, t, node_of(s, w), 1);
	s->sent++;
	if (s->replicate_task && s->mc_out[t])
		locus__amfs_replicate_sent(s, act, d, t, node_of(s, w));
}

/* Dispatcher d: a gather of its brings o to node n. Told before the copy
 * starts, so that o's server never drops a copy there that another
 * gather is about to use. */
void locus__amfs_transit_to(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t o,
			    uint32_t n)
{
	if (!s->keep)
		amfs_send(act, p_disp(s, d), p_server(s, server_of(s, o)), M_HOLD, 0, 2, o, n);
}

/* Dispatcher d's gather is done with its copy of o at node n: o's server
 * drops it unless another gather holds it there, n is a registered
 * location, or a task d sent to n still reads it (then it registers it,
 * and it goes with the file's other copies after its last reader). */
void locus__amfs_transit_done(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t o,
			      uint32_t n)
{
	if (s->keep)
		return;
	const struct locus_object *ob = &s->g->objects[o];
	int needed = 0;
	for (uint32_t j = 0; j < ob->n_cons && !needed; j++) {
		uint32_t t = s->g->consumers[ob->cons_at + j];
		needed = s->tdisp[t] == d && s->tst[t] == T_SENT && s->tworker[t] != NONE &&
			 node_of(s, s->tworker[t]) == n;
	}
	struct locus_msg m = {.type = M_UNHOLD,
			      .from = p_disp(s, d),
			      .to = p_server(s, server_of(s, o)),
			      .n_args = 3};
	m.arg[0] = o;
	m.arg[1] = n;
	m.arg[2] = needed;
	locus_act_send(act, &m);
}

/* Task t of dispatcher d has all its inputs located. */
void locus__amfs_dispatch_ready(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t)
{
	if (s->tst[t] != T_WAIT || s->missing[t] || s->mc_wait[t] || s->async[t])
		return;
	if (is_gather(s, t) &&
	    (s->config == C_COGATHER || s->config == C_AUTO || s->config == C_ASGATHER)) {
		if (locus__amfs_start_gather(s, act, d, t))
			locus_act_oom(act);
		return;
	}
	uint32_t r = s->replicate_task ? locus__amfs_replica_of(s, d, t) : NONE;
	if (r != NONE) {
		locus__amfs_replica_reader(s, act, d, t, r);
		return;
	}
	locus__amfs_send_task(s, act, d, t, locus__amfs_choose_worker(s, d, t, NONE),
			      LOCUS_GATHER_POLICY);
}

/* Asynchronous gather (IV-C): t's inputs are all at its node; it is sent
 * to the least loaded worker there. */
static void async_ready(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t)
{
	uint32_t w = locus__amfs_worker_on(s, d, s->atarget[t]);
	s->tbound[t] = 1;
	locus__amfs_send_task(s, act, d, t, w != NONE ? w : locus__amfs_round_robin(s, d),
			      LOCUS_GATHER_POLICY);
}

/* Asynchronous gather: dispatcher d learned that o, an input of t, is on
 * node n. The first one fixes t's node (n when it is d's, else one of
 * d's round-robin); each is copied there as it is produced, and held
 * there (its server told before the copy starts) until t has run. */
static void async_input(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t,
			uint32_t o, uint32_t n)
{
	if (s->atarget[t] == NONE)
		s->atarget[t] =
		    n < s->nn && s->node_group[n] == d && s->nworkers_at[n + 1] > s->nworkers_at[n]
			? n
			: node_of(s, locus__amfs_round_robin(s, d));
	locus__amfs_transit_to(s, act, d, o, s->atarget[t]);
	if (n == s->atarget[t]) {
		if (!--s->aleft[t])
			async_ready(s, act, d, t);
		return;
	}
	struct locus_copy c = {.objects = &o,
			       .n = 1,
			       .from = n < s->nn ? n : LOCUS_NONE,
			       .to = s->atarget[t],
			       .tag = TAG(K_ASYNC, t, 0),
			       .task = t};
	locus_act_copy(act, &c);
	s->fetches++;
}

/* An asynchronous gather's copy ended: held there, or tried again from
 * wherever the engine finds the file. */
static void async_copied(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t,
			 const struct locus_event *ev)
{
	uint32_t o = ev->transfer.object;
	if (!ev->transfer.ok) {
		struct locus_copy c = {.objects = &o,
				       .n = 1,
				       .from = LOCUS_NONE,
				       .to = s->atarget[t],
				       .tag = TAG(K_ASYNC, t, 1),
				       .task = t};
		/* Once from any holder; a second failure leaves t waiting (the
		 * engine then says the run stalled). */
		if (TAG_B(ev->transfer.tag) == 0)
			locus_act_copy(act, &c);
		return;
	}
	if (!--s->aleft[t])
		async_ready(s, act, d, t);
}

/* Dispatcher d learned that o is on node n. */
static void located(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t o, uint32_t n)
{
	uint32_t k = locus__amfs_dindex(s, d, o);
	if (k == NONE || s->dloc[k] != NONE)
		return;
	s->dloc[k] = n;
	const struct locus_object *ob = &s->g->objects[o];
	uint32_t p = ob->producer;
	/* d counted it on its node when it sent its writer; another
	 * dispatcher's writer's (stolen onto d's node) counts now. */
	if (p != LOCUS_NONE && s->tdisp[p] != d)
		count_file(s, d, o, n, 1);
	for (uint32_t j = 0; j < ob->n_cons; j++) {
		uint32_t t = s->g->consumers[ob->cons_at + j];
		/* Another dispatcher's writer whose replicas d runs. */
		if (s->replicate_task && s->tdisp[t] != d)
			locus__amfs_replicate_ready(s, act, d, t);
		/* Waiting, or held by a scatter (which sends it on). */
		if (s->tdisp[t] != d || (s->tst[t] != T_WAIT && s->tst[t] != T_HELD))
			continue;
		if (s->missing[t])
			s->missing[t]--;
		if (s->async[t])
			async_input(s, act, d, t, o, n);
	}
	/* A producer's multicast group or scatter waits for its every file
	 * d knows of, whichever is located last (a file of it outside the
	 * group too); gk: d's entry of the group's first file. */
	int scatter = p != LOCUS_NONE && (s->an->task_patterns[p] & LOCUS_PATTERN_SCATTER);
	uint32_t gk = NONE;
	if (data_aware(s) && p != LOCUS_NONE && (scatter || s->mc_out[p])) {
		const struct locus_task *pk = &s->g->tasks[p];
		for (uint32_t j = 0; j < pk->n_out && gk == NONE; j++) {
			uint32_t oj = s->g->outputs[pk->out_at + j];
			if (scatter || (s->an->object_patterns[oj] & LOCUS_PATTERN_MULTICAST))
				gk = locus__amfs_dindex(s, d, oj);
		}
	}
	if (gk != NONE && s->dcoll[gk] == NONE) {
		/* Every file of the producer located: the collective starts
		 * (and marks the group's files, dcoll). */
		const struct locus_task *pk = &s->g->tasks[p];
		int all = 1;
		for (uint32_t j = 0; j < pk->n_out && all; j++) {
			uint32_t i = locus__amfs_dindex(s, d, s->g->outputs[pk->out_at + j]);
			all = i == NONE || s->dloc[i] != NONE;
		}
		int rc = !all	   ? 0
			 : scatter ? locus__amfs_start_scatter(s, act, d, p, s->dloc[gk])
				   : locus__amfs_start_multicast(s, act, d, p, s->dloc[gk]);
		if (rc) {
			locus_act_oom(act);
			return;
		}
	}
	/* The readers ready now: those the group's collective will serve
	 * wait for it while it has not started (once it has, they wait for
	 * it or are held by it); a reader of another stage does not. */
	int pending = gk != NONE && s->dcoll[gk] == NONE;
	for (uint32_t j = 0; j < ob->n_cons; j++) {
		uint32_t t = s->g->consumers[ob->cons_at + j];
		if (s->tdisp[t] != d || s->tst[t] != T_WAIT || s->missing[t])
			continue;
		if (pending && (scatter || locus__amfs_group_read(s, t, p) != NONE))
			continue;
		locus__amfs_dispatch_ready(s, act, d, t);
	}
}

static void dispatcher_handle(struct amfs *s, uint32_t d, const struct locus_event *ev,
			      struct locus_actions *act)
{
	uint32_t me = p_disp(s, d);
	if (ev->kind == LOCUS_EV_TRANSFER) {
		uint64_t tag = ev->transfer.tag;
		if (TAG_KIND(tag) == K_ASYNC)
			async_copied(s, act, d, TAG_A(tag), ev);
		if (TAG_KIND(tag) == K_COLL)
			locus__amfs_coll_step(s, act, TAG_A(tag), TAG_B(tag), ev->transfer.ok);
		if (TAG_KIND(tag) == K_REPL)
			locus__amfs_replica_step(s, act, TAG_A(tag), TAG_B(tag), 0);
		/* A replica's reader's input: its server learns of the copy
		 * (it goes with the others after the last reader). */
		if (TAG_KIND(tag) == K_RFETCH && ev->transfer.ok)
			amfs_send(act, me, p_server(s, server_of(s, ev->transfer.object)), M_ADDLOC,
				  0, 2, ev->transfer.object, ev->transfer.to);
		return;
	}
	if (ev->kind == LOCUS_EV_TIMER) {
		if (TAG_KIND(ev->tag) == K_REPL)
			locus__amfs_replica_step(s, act, TAG_A(ev->tag), TAG_B(ev->tag), 1);
		return;
	}
	if (ev->kind != LOCUS_EV_MESSAGE)
		return;
	const struct locus_msg *m = ev->msg;
	switch (m->type) {
	case M_TASKS:
		/* Ask where each produced input is; start what needs none. */
		for (uint32_t k = s->dobj_at[d]; k < s->dobj_at[d + 1]; k++) {
			uint32_t o = s->dobj[k];
			amfs_send(act, me, p_server(s, server_of(s, o)), M_QUERY, 0, 2, o, me);
			s->queries++;
		}
		for (uint32_t i = s->dtasks_at[d]; i < s->dtasks_at[d + 1]; i++) {
			uint32_t t = s->dtasks[i];
			locus__amfs_dispatch_ready(s, act, d, t);
		}
		/* Other dispatchers' writers whose replicas d runs, those
		 * reading no produced file: now. */
		for (uint32_t i = s->drepl_at[d]; s->replicate_task && i < s->drepl_at[d + 1]; i++)
			locus__amfs_replicate_ready(s, act, d, s->drepl[i]);
		locus_act_cost(act, s->dtasks_at[d + 1] - s->dtasks_at[d]);
		break;
	case M_LOCATED:
		if (m->arg[1] > 0)
			located(s, act, d, (uint32_t)m->arg[0], (uint32_t)m->arg[2]);
		break;
	case M_NOTIFY:
		located(s, act, d, (uint32_t)m->arg[0], (uint32_t)m->arg[1]);
		break;
	case M_MOVED: {
		/* A thief took t: its load and the files it will write move. */
		uint32_t t = (uint32_t)m->arg[0], w = (uint32_t)m->arg[1], old = s->tworker[t];
		if (old != NONE) {
			load_add(s, d, old, -1);
			count_made(s, d, t, node_of(s, old), -1);
		}
		s->tworker[t] = w;
		load_add(s, d, w, 1);
		count_made(s, d, t, node_of(s, w), 1);
		break;
	}
	case M_DONE: {
		uint32_t t = (uint32_t)m->arg[0], node = (uint32_t)m->arg[1];
		const struct locus_task *tk = &s->g->tasks[t];
		s->tst[t] = T_DONE;
		load_add(s, d, s->tworker[t], -1);
		for (uint32_t k = 0; k < tk->n_out; k++) {
			uint32_t o = s->g->outputs[tk->out_at + k];
			amfs_send(act, me, p_server(s, server_of(s, o)), M_PRODUCED, 0, 2, o, node);
		}
		/* Its inputs are read: their servers count (staging copied
		 * the workflow's inputs to nodes too). */
		for (uint32_t k = 0; k < tk->n_in && !s->keep; k++) {
			uint32_t o = s->g->inputs[tk->in_at + k];
			if (s->g->objects[o].producer != LOCUS_NONE || s->config != C_SHARED)
				amfs_send(act, me, p_server(s, server_of(s, o)), M_CONSUMED, 0, 1,
					  o, 0);
		}
		/* An asynchronous gather lets go its inputs at its node. */
		for (uint32_t k = 0; k < tk->n_in && s->async[t]; k++) {
			uint32_t o = s->g->inputs[tk->in_at + k];
			if (s->g->objects[o].producer != LOCUS_NONE)
				locus__amfs_transit_done(s, act, d, o, s->atarget[t]);
		}
		/* A gather's root lets go what the tree brought it. */
		if (s->tcoll[t] != NONE) {
			struct coll *c = &s->colls[s->tcoll[t]];
			if ((c->kind == CO_GATHER) && c->task == t)
				for (uint32_t k = c->fat[1]; k < c->fat[c->n]; k++)
					locus__amfs_transit_done(s, act, d, c->files[k],
								 c->node[0]);
		}
		if (!--s->dleft[d])
			amfs_send(act, me, p_submitter(s), M_FINISHED, 0, 0, 0, 0);
		break;
	}
	default:
		break;
	}
}

void locus__amfs_dispatcher_event(struct amfs *s, uint32_t d, const struct locus_event *ev,
				  struct locus_actions *act)
{
	dispatcher_handle(s, d, ev, act);
	if (s->n_rsent)
		locus__amfs_replicate_sent_end(s, act, d);
}
