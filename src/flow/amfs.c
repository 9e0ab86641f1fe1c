/*
 * AME and AMFS (Zhang, Katz, Wozniak, Espinosa and Foster, "Design and
 * Analysis of Data Management in Scalable Parallel Scripting", SC 2012;
 * ../shared/papers/ame-amfs.txt): a many-task workflow engine whose
 * intermediate files stay on the compute nodes, and the decisions it
 * makes about them, as one policy ("amfs") for every engine.
 *
 * Processes (the policy's schedulers, section V-A, V-B): a submitter, D
 * dispatchers and D metadata servers, one dispatcher and one server on
 * each dispatcher node (one per `ratio` worker nodes, the paper's 1:63);
 * every worker is also its node's storage server. The submitter gives
 * each dispatcher its part of the task list (round-robin within each
 * stage) and each server its part of the file list (a hash of the file:
 * the DHT). Everything a process knows it learns from messages:
 *
 *  - a dispatcher queries the server of each file its tasks read; the
 *    server answers the file's locations, or "N/A" and subscribes the
 *    dispatcher, which it notifies when the file is produced (V-B1, V-C);
 *  - a task whose inputs are all produced is sent to a worker: data-aware
 *    (`aware`), to a worker of the node holding its first input (or, with
 *    -o aware=bytes, most of its input bytes) when that node is the
 *    dispatcher's, else round-robin over the dispatcher's workers;
 *  - a worker runs its tasks in the order they came; for the task at the
 *    head of its queue it brings the inputs its node lacks: from the
 *    shared file system (staging), or by asking each file's server where
 *    it is and copying it from a peer, one file after another (the
 *    "sequential file location lookup and transfer" of VI-B1a); when the
 *    task ends it tells its dispatcher, which tells the servers of the
 *    files it wrote (V-C);
 *  - an idle worker steals the last task queued at a neighbour (V-I).
 *
 * Patterns (src/flow/patterns.c) drive the collectives (V-B3, IV-C, V-F).
 * Every tree follows one global order, the nodes' (V-D: files flow only
 * from lower to higher, so overlapping collectives cannot wait on each
 * other in a cycle):
 *  - gather: when a gather task's inputs are all produced, its dispatcher
 *    runs a binomial tree (locus_flow_binomial) over the nodes holding
 *    them, rooted at the highest of them (whichever dispatcher's), the
 *    rest in decreasing order; each node makes an archive of what it
 *    holds (file_cost a file) once its children's archives have come,
 *    and sends it up; the task then runs at the root. With asynchronous
 *    gather the task goes to a worker at once, which copies each input
 *    as it is produced;
 *  - reduce: a gather whose stage has a reduce function (-o reduce=STAGE):
 *    the same tree, each node reducing what it holds (reduce_cost a
 *    byte) and sending a partial result the size of the task's output;
 *  - multicast: when a dispatcher learns of a file group (the inputs of
 *    its stage that one task wrote) that many of its tasks read, it wants
 *    ceil(q x its servers) holders, at most one a reader (q: the group's
 *    share of the groups its tasks of that stage read), so it makes N - 1
 *    copies (N when the group was made outside its scope; none when none
 *    of its tasks reads it as a multicast), on its servers holding the
 *    fewest of the stage's input files (counted as it sends their
 *    writers), by a binomial multicast over the copies' nodes in
 *    increasing order, then spreads those tasks over the holders; the
 *    source roots the tree when it is below every copy, else it sends one
 *    copy to the lowest, which roots it (a peer copy: the source waits
 *    for no child); with -o replicate=task it runs the writer again on
 *    those servers instead (V-F5, task_replicas);
 *  - scatter: the pieces a scattering task wrote go down a binomial tree
 *    in archives to the nodes their readers are sent to, round-robin, in
 *    increasing order from the source (or, when it is above one of them,
 *    from the lowest, which it sends them all to).
 *
 * Configurations (-o config=, Fig. 10): staging (inputs copied from the
 * file system, outputs written back to it), cache (intermediate files
 * stay where they are made, peers copy them), aware (+ data-aware
 * dispatch), cogather (+ collective gather), asgather (+ asynchronous
 * gather), shared (every read and write on the file system: MPI
 * Montage), auto (aware, choosing collective or asynchronous gather for
 * each gather task: asynchronous when its inputs are written over a
 * spread of time long enough to hide moving them, gathers_async).
 *
 * Intermediate files are deleted from the nodes when their last reader
 * has ended (the server of the file drops every copy it knows of;
 * -o keep=1 keeps them); files nobody reads are written to the file
 * system by the task that makes them. The copies gathers bring on their
 * way are held at the file's server (M_HOLD, M_UNHOLD), which drops one
 * when no gather holds it and it is not a registered location.
 *
 * On MPI ranks each process has an instance of its own: a process only
 * reads what it was told or decided (a dispatcher its tasks, its nodes'
 * loads, its collectives; a server its files' records; a worker its
 * queue), never another process's part of the instance.
 */
#include "flow/amfs.h"

static const char *const configs[] = {"staging",  "cache",  "aware", "cogather",
				      "asgather", "shared", "auto",  NULL};

/* A submitter and D dispatchers with D servers: 1 + 2D schedulers, D as
 * the caller asks (`locus flow sim` gives one per 63 worker nodes, the
 * paper's ratio), else 1. */
static size_t amfs_schedulers(size_t n_workers, size_t requested)
{
	(void)n_workers;
	return requested ? requested : 3;
}

/* The nodes without workers carry the submitter and the dispatchers and
 * servers (one node each, the submitter with the first); without enough
 * of them they spread over the nodes. */
static uint32_t amfs_scheduler_node(const struct locus_workload *wl, size_t n, size_t s)
{
	const struct locus_platform *p = wl->platform;
	size_t D = n >= 3 ? (n - 1) / 2 : 1, k = s == 0 ? 0 : (s - 1) % D;
	uint32_t node = locus__node_without_cores(p, k);
	return node != UINT32_MAX ? node : (uint32_t)(k * p->n_nodes / D);
}

int locus__amfs_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static void on_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct amfs *s = state;
	uint32_t p = ev->proc;
	s->now = ev->now;
	if (p < s->nw)
		locus__amfs_worker_event(s, p, ev, act);
	else if (p == p_submitter(s))
		locus__amfs_submitter_event(s, ev, act);
	else if (p <= s->nw + s->D)
		locus__amfs_dispatcher_event(s, p - s->nw - 1, ev, act);
	else
		locus__amfs_server_event(s, p - s->nw - 1 - s->D, ev, act);
}

static void destroy(void *state)
{
	struct amfs *s = state;
	if (!s)
		return;
	locus_flow_analysis_destroy(s->an);
	free(s->stage_colls);
	free(s->reduce_copy);
	free(s->reduce_names);
	for (size_t i = 0; i < s->n_colls; i++) {
		struct coll *c = &s->colls[i];
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
	free(s->colls);
	free(s->node_group);
	free(s->gnodes);
	free(s->gnodes_at);
	free(s->gworkers);
	free(s->gworkers_at);
	free(s->nworkers);
	free(s->nworkers_at);
	free(s->rr);
	free(s->tdisp);
	free(s->dtasks);
	free(s->dtasks_at);
	free(s->missing);
	free(s->mc_wait);
	free(s->tst);
	free(s->async);
	free(s->tfetch);
	free(s->tgm);
	free(s->tbound);
	free(s->atarget);
	free(s->aleft);
	free(s->mc_out);
	free(s->tcat);
	free(s->tkeys);
	free(s->tcount);
	free(s->tstay);
	free(s->tom);
	free(s->tworker);
	free(s->tcoll);
	free(s->cursor);
	free(s->dobj);
	free(s->dobj_at);
	free(s->dloc);
	free(s->dcoll);
	free(s->dgroups);
	free(s->sload);
	free(s->smark);
	free(s->scount);
	free(s->stouch);
	free(s->drepl);
	free(s->drepl_at);
	free(s->rsent);
	free(s->wload);
	free(s->dleft);
	free(s->produced);
	free(s->consumed);
	free(s->links);
	free(s->loc_head);
	free(s->sub_head);
	free(s->qhead);
	free(s->qtail);
	free(s->qnext);
	free(s->qlen);
	free(s->stole);
	free(s->steal_wait);
	free(s->timer_set);
	free(s->wstopped);
	free(s);
}

#define ALLOC(p, n) ((p) = locus__calloc((n) ? (n) : 1, sizeof *(p)))

static int create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	const struct locus_workload *wl = ctx->wl;
	const struct locus_graph *g = wl->graph;
	double steal, keep;
	int config, rc;
	*state = NULL;
	static const char *const awares[] = {"first", "bytes", NULL};
	static const char *const replicate_ways[] = {"file", "task", NULL};
	struct locus_pattern_options po;
	locus_pattern_options_default(&po);
	double gth, mth, sth;
	const char *reduce = locus_kv_string(ctx->opts, "reduce", NULL);
	struct amfs *s = calloc(1, sizeof *s);
	if (!s)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if ((rc = locus_kv_choice(ctx->opts, "config", configs, C_AUTO, &config, err)) ||
	    (rc = locus_kv_choice(ctx->opts, "aware", awares, 0, &s->aware_bytes, err)) ||
	    (rc = locus_kv_choice(ctx->opts, "replicate", replicate_ways, 0, &s->replicate_task,
				  err)) ||
	    (rc = locus_kv_double(ctx->opts, "steal", 2, 0, 1e9, &steal, err)) ||
	    (rc = locus_kv_double(ctx->opts, "keep", 0, 0, 1, &keep, err)) ||
	    (rc = locus_kv_double(ctx->opts, "file_cost", 1e-3, 0, 1e3, &s->file_cost, err)) ||
	    (rc = locus_kv_double(ctx->opts, "fetch_cost", 0, 0, 1e3, &s->fetch_cost, err)) ||
	    (rc = locus_kv_double(ctx->opts, "reduce_cost", 1e-8, 0, 1, &s->reduce_cost, err)) ||
	    (rc = locus_kv_double(ctx->opts, "gather", po.gather, 1, 1e9, &gth, err)) ||
	    (rc = locus_kv_double(ctx->opts, "multicast", po.multicast, 1, 1e9, &mth, err)) ||
	    (rc = locus_kv_double(ctx->opts, "scatter", po.scatter, 1, 1e9, &sth, err))) {
		free(s);
		return rc;
	}
	s->config = config;
	s->keep = keep > 0;
	s->steal = steal >= 1e9 ? UINT32_MAX : (uint32_t)steal;
	po.gather = (uint32_t)gth;
	po.multicast = (uint32_t)mth;
	po.scatter = (uint32_t)sth;
	if (reduce) {
		/* Stages joined by '+' (a comma ends the option). */
		size_t k = 1;
		for (const char *c = reduce; *c; c++)
			k += *c == '+';
		s->reduce_copy = locus__strdup(reduce);
		s->reduce_names = locus__calloc(k, sizeof *s->reduce_names);
		if (!s->reduce_copy || !s->reduce_names) {
			free(s->reduce_copy);
			free(s->reduce_names);
			free(s);
			return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		}
		char *save = NULL;
		for (char *tok = strtok_r(s->reduce_copy, "+", &save); tok;
		     tok = strtok_r(NULL, "+", &save))
			s->reduce_names[po.n_reduce++] = tok;
		po.reduce = s->reduce_names;
	}
	s->wl = wl;
	s->g = g;
	s->mon = ctx->monitor;
	s->nw = (uint32_t)ctx->n_workers;
	s->nn = (uint32_t)wl->platform->n_nodes;
	double bw = 0, bw_nodes = 0;
	for (uint32_t n = 0; n < s->nn; n++)
		if (wl->platform->nodes[n].cores > 0) {
			bw += wl->platform->nodes[n].net_bw;
			bw_nodes++;
		}
	s->net_bw = bw_nodes ? bw / bw_nodes : 0;
	if (ctx->n_workers != wl->n_workers || !ctx->n_workers) {
		destroy(s);
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy amfs runs on the workload's %zu workers, not %zu",
				  wl->n_workers, ctx->n_workers);
	}
	if (ctx->n_schedulers < 3 || ctx->n_schedulers % 2 == 0) {
		destroy(s);
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy amfs runs a submitter and D dispatchers with D metadata "
				  "servers: expected 3, 5, 7, ... schedulers, got %zu",
				  ctx->n_schedulers);
	}
	if (!s->mon) {
		destroy(s);
		return locus__err(err, LOCUS_ENOTSUP, NULL, 0, 0,
				  "policy amfs needs an engine with a monitor (the simulator)");
	}
	s->D = (uint32_t)((ctx->n_schedulers - 1) / 2);
	if ((rc = locus_flow_analyse(&s->an, g, &po, err))) {
		destroy(s);
		return rc;
	}
	uint32_t nw = s->nw, nn = s->nn, D = s->D, nt = (uint32_t)g->n_tasks;
	uint32_t no = (uint32_t)g->n_objects, ns = (uint32_t)s->an->n_stages;
	/* Groups: the worker nodes split into D runs. */
	uint32_t worker_nodes = 0;
	for (uint32_t n = 0; n < nn; n++)
		worker_nodes += wl->platform->nodes[n].cores > 0;
	ALLOC(s->node_group, nn);
	ALLOC(s->gnodes, worker_nodes);
	ALLOC(s->gnodes_at, D + 1);
	ALLOC(s->gworkers, nw);
	ALLOC(s->gworkers_at, D + 1);
	ALLOC(s->nworkers, nw);
	ALLOC(s->nworkers_at, nn + 1);
	ALLOC(s->rr, D);
	ALLOC(s->tdisp, nt);
	ALLOC(s->dtasks, nt);
	ALLOC(s->dtasks_at, D + 1);
	ALLOC(s->missing, nt);
	ALLOC(s->mc_wait, nt);
	ALLOC(s->tst, nt);
	ALLOC(s->async, nt);
	ALLOC(s->tfetch, nt);
	ALLOC(s->tgm, nt);
	ALLOC(s->tbound, nt);
	ALLOC(s->atarget, nt);
	ALLOC(s->aleft, nt);
	ALLOC(s->mc_out, nt);
	ALLOC(s->tcat, nt);
	ALLOC(s->tstay, nt);
	ALLOC(s->tom, nt);
	ALLOC(s->tworker, nt);
	ALLOC(s->tcoll, nt);
	ALLOC(s->cursor, nt);
	ALLOC(s->dobj_at, D + 1);
	size_t dns = (size_t)D * ns, nns = (size_t)nn * ns;
	ALLOC(s->dgroups, dns);
	ALLOC(s->sload, nns);
	ALLOC(s->smark, ns);
	ALLOC(s->scount, ns);
	ALLOC(s->stouch, ns);
	ALLOC(s->wload, nw);
	ALLOC(s->dleft, D);
	ALLOC(s->produced, no);
	ALLOC(s->consumed, no);
	ALLOC(s->loc_head, no);
	ALLOC(s->sub_head, no);
	ALLOC(s->qhead, nw);
	ALLOC(s->qtail, nw);
	ALLOC(s->qnext, nt);
	ALLOC(s->qlen, nw);
	ALLOC(s->stole, nw);
	ALLOC(s->steal_wait, nw);
	ALLOC(s->timer_set, nw);
	ALLOC(s->wstopped, nw);
	ALLOC(s->stage_colls, ns);
	if (!s->stage_colls || !s->node_group || !s->gnodes || !s->gnodes_at || !s->gworkers ||
	    !s->gworkers_at || !s->nworkers || !s->nworkers_at || !s->rr || !s->tdisp ||
	    !s->dtasks || !s->dtasks_at || !s->missing || !s->mc_wait || !s->tst || !s->async ||
	    !s->tfetch || !s->tgm || !s->tom || !s->tworker || !s->tbound || !s->tstay ||
	    !s->mc_out || !s->tcat || !s->atarget || !s->aleft || !s->tcoll || !s->cursor ||
	    !s->dobj_at || !s->dgroups || !s->sload || !s->smark || !s->scount || !s->stouch ||
	    !s->wload || !s->dleft || !s->produced || !s->consumed || !s->loc_head ||
	    !s->sub_head || !s->qhead || !s->qtail || !s->qnext || !s->qlen || !s->stole ||
	    !s->steal_wait || !s->timer_set || !s->wstopped) {
		destroy(s);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	s->free_links = NONE;
	for (uint32_t o = 0; o < no; o++)
		s->loc_head[o] = s->sub_head[o] = NONE;
	for (uint32_t w = 0; w < nw; w++)
		s->qhead[w] = s->qtail[w] = NONE;
	for (uint32_t t = 0; t < nt; t++)
		s->tworker[t] = s->tcoll[t] = s->qnext[t] = NONE;
	uint32_t k = 0, gi = 0;
	for (uint32_t n = 0; n < nn; n++) {
		s->node_group[n] = NONE;
		if (wl->platform->nodes[n].cores <= 0)
			continue;
		uint32_t d = (uint32_t)((uint64_t)gi++ * D / worker_nodes);
		s->node_group[n] = d;
		s->gnodes_at[d + 1]++;
	}
	for (uint32_t d = 0; d < D; d++)
		s->gnodes_at[d + 1] += s->gnodes_at[d];
	for (uint32_t n = 0; n < nn; n++)
		if (s->node_group[n] != NONE)
			s->gnodes[k++] = n;
	for (uint32_t w = 0; w < nw; w++) {
		s->nworkers_at[node_of(s, w) + 1]++;
		s->gworkers_at[s->node_group[node_of(s, w)] + 1]++;
	}
	for (uint32_t n = 0; n < nn; n++)
		s->nworkers_at[n + 1] += s->nworkers_at[n];
	for (uint32_t d = 0; d < D; d++)
		s->gworkers_at[d + 1] += s->gworkers_at[d];
	uint32_t *fill = locus__calloc(nn + D + 1, sizeof *fill);
	if (!fill) {
		destroy(s);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	for (uint32_t w = 0; w < nw; w++) {
		uint32_t n = node_of(s, w), d = s->node_group[n];
		s->nworkers[s->nworkers_at[n] + fill[n]++] = w;
		s->gworkers[s->gworkers_at[d] + fill[nn + d]++] = w;
	}
	free(fill);
	/* Tasks: round-robin within each stage, in topological order; the
	 * groups each reads (the writers of its produced inputs, each once:
	 * seen[p] is the last task counted + 1). */
	uint32_t *per_stage = locus__calloc(ns, sizeof *per_stage);
	uint32_t *seen = locus__calloc(nt ? nt : 1, sizeof *seen);
	if (!per_stage || !seen) {
		free(per_stage);
		free(seen);
		destroy(s);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	for (uint32_t i = 0; i < nt; i++) {
		uint32_t t = g->topo[i], st = locus_flow_stage_of(g, t);
		s->tdisp[t] = per_stage[st]++ % D;
		s->dtasks_at[s->tdisp[t] + 1]++;
		s->dleft[s->tdisp[t]]++;
		const struct locus_task *tk = &g->tasks[t];
		for (uint32_t j = 0; j < tk->n_in; j++) {
			uint32_t p = g->objects[g->inputs[tk->in_at + j]].producer;
			if (p != LOCUS_NONE && seen[p] != t + 1) {
				seen[p] = t + 1;
				s->dgroups[(size_t)s->tdisp[t] * ns + st]++;
			}
		}
	}
	free(per_stage);
	free(seen);
	for (uint32_t d = 0; d < D; d++)
		s->dtasks_at[d + 1] += s->dtasks_at[d];
	uint32_t *dfill = locus__calloc(D, sizeof *dfill);
	if (!dfill) {
		destroy(s);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	for (uint32_t i = 0; i < nt; i++) {
		uint32_t t = g->topo[i];
		s->dtasks[s->dtasks_at[s->tdisp[t]] + dfill[s->tdisp[t]]++] = t;
	}
	free(dfill);
	/* Each task's produced inputs, and each dispatcher's (sorted). */
	size_t total = 0;
	for (uint32_t o = 0; o < no; o++)
		if ((s->an->object_patterns[o] & LOCUS_PATTERN_MULTICAST) &&
		    g->objects[o].producer != LOCUS_NONE)
			s->mc_out[g->objects[o].producer] = 1;
	for (uint32_t t = 0; t < nt; t++) {
		s->async[t] = (uint8_t)locus__amfs_gathers_async(s, t);
		s->atarget[t] = NONE;
		const struct locus_task *tk = &g->tasks[t];
		for (uint32_t j = 0; j < tk->n_in && !s->tcat[t]; j++) {
			uint32_t o = g->inputs[tk->in_at + j];
			s->tcat[t] = g->objects[o].producer == LOCUS_NONE &&
				     locus_replicas_count(s->mon->replicas, o) > 0;
		}
		for (uint32_t j = 0; j < tk->n_in; j++)
			if (g->objects[g->inputs[tk->in_at + j]].producer != LOCUS_NONE) {
				s->missing[t]++;
				total++;
			}
		s->aleft[t] = s->missing[t];
	}
	/* With replicate=task: the writers of the groups each dispatcher's
	 * tasks read as multicasts (not scatters: their pieces are no group
	 * to replicate); the produced inputs of those another dispatcher runs
	 * are among its queries, so that it can run their replicas. */
	ALLOC(s->drepl_at, D + 1);
	ALLOC(s->drepl, s->replicate_task ? total : 0);
	if (!s->drepl_at || !s->drepl) {
		destroy(s);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	size_t extra = 0, nr = 0;
	for (uint32_t d = 0; d < D && s->replicate_task; d++) {
		size_t from = nr;
		s->drepl_at[d] = (uint32_t)nr;
		for (uint32_t i = s->dtasks_at[d]; i < s->dtasks_at[d + 1]; i++) {
			const struct locus_task *tk = &g->tasks[s->dtasks[i]];
			for (uint32_t j = 0; j < tk->n_in; j++) {
				uint32_t p = g->objects[g->inputs[tk->in_at + j]].producer;
				if (p != LOCUS_NONE && s->an->input_multicast[tk->in_at + j] &&
				    !(s->an->task_patterns[p] & LOCUS_PATTERN_SCATTER))
					s->drepl[nr++] = p;
			}
		}
		qsort(s->drepl + from, nr - from, sizeof *s->drepl, locus__amfs_cmp_u32);
		size_t u = from;
		for (size_t i = from; i < nr; i++)
			if (u == from || s->drepl[u - 1] != s->drepl[i]) {
				s->drepl[u++] = s->drepl[i];
				if (s->tdisp[s->drepl[i]] != d)
					extra += g->tasks[s->drepl[i]].n_in;
			}
		nr = u;
	}
	s->drepl_at[D] = (uint32_t)nr;
	ALLOC(s->dobj, total + extra);
	ALLOC(s->dloc, total + extra);
	ALLOC(s->dcoll, total + extra);
	if (!s->dobj || !s->dloc || !s->dcoll) {
		destroy(s);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	size_t at = 0;
	for (uint32_t d = 0; d < D; d++) {
		size_t from = at;
		s->dobj_at[d] = (uint32_t)at;
		for (uint32_t i = s->dtasks_at[d]; i < s->dtasks_at[d + 1]; i++) {
			uint32_t t = s->dtasks[i];
			const struct locus_task *tk = &g->tasks[t];
			for (uint32_t j = 0; j < tk->n_in; j++) {
				uint32_t o = g->inputs[tk->in_at + j];
				if (g->objects[o].producer != LOCUS_NONE)
					s->dobj[at++] = o;
			}
		}
		for (uint32_t i = s->drepl_at[d]; s->replicate_task && i < s->drepl_at[d + 1];
		     i++) {
			const struct locus_task *pk = &g->tasks[s->drepl[i]];
			for (uint32_t j = 0; j < pk->n_in && s->tdisp[s->drepl[i]] != d; j++) {
				uint32_t o = g->inputs[pk->in_at + j];
				if (g->objects[o].producer != LOCUS_NONE)
					s->dobj[at++] = o;
			}
		}
		qsort(s->dobj + from, at - from, sizeof *s->dobj, locus__amfs_cmp_u32);
		size_t u = from;
		for (size_t i = from; i < at; i++)
			if (u == from || s->dobj[u - 1] != s->dobj[i])
				s->dobj[u++] = s->dobj[i];
		at = u;
	}
	s->dobj_at[D] = (uint32_t)at;
	for (size_t i = 0; i < at; i++)
		s->dloc[i] = s->dcoll[i] = NONE;
	*state = s;
	return 0;
}

static void stats(void *state, struct locus_policy_stats *out)
{
	struct amfs *s = state;
	out->counter_names[0] = "assignments";
	out->counters[0] = s->sent;
	out->counter_names[1] = "lookups";
	out->counters[1] = s->queries;
	out->counter_names[2] = "fetches";
	out->counters[2] = s->fetches;
	out->counter_names[3] = "gathers";
	out->counters[3] = s->collectives[CO_GATHER] + s->collectives[CO_REDUCE];
	out->counter_names[4] = "multicasts";
	out->counters[4] = s->collectives[CO_MULTICAST];
	out->counter_names[5] = "replicas";
	out->counters[5] = s->replicas;
	out->counter_names[6] = "steals";
	out->counters[6] = s->steals;
	out->counter_names[7] = "scatters";
	out->counters[7] = s->collectives[CO_SCATTER];
	/* Each stage: the patterns identification found, the collectives
	 * run for it. */
	for (size_t k = 0; k < out->n_stages && k < s->an->n_stages; k++) {
		out->stages[k].patterns = (int)s->an->stages[k].patterns;
		out->stages[k].collectives = s->stage_colls[k];
	}
}

const struct locus_policy locus__policy_amfs = {
    .version = 4,
    .name = "amfs",
    .summary = "AME/AMFS: data-aware dispatch, metadata DHT, collectives, stealing (workflows)",
    .schedulers = amfs_schedulers,
    .create = create,
    .destroy = destroy,
    .on_event = on_event,
    .stats = stats,
    .flags = LOCUS_POLICY_GRAPHS,
    .options = "config=staging|cache|aware|cogather|asgather|shared|auto, "
	       "aware=first|bytes, replicate=file|task, steal=N, keep=0|1, file_cost=S, "
	       "fetch_cost=S, "
	       "reduce=STAGE[+STAGE...], "
	       "reduce_cost=S, gather=N, multicast=N, scatter=N",
    .scheduler_node = amfs_scheduler_node,
};
