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
 *    (`aware`), by where its inputs are now (-o aware=now, the default):
 *    to the node holding its first input (the paper's rule) unless that
 *    node is queued beyond the mean, then where its inputs are now (the
 *    dispatcher's view: the servers' answers, its collectives' copies,
 *    the nodes it sent readers to) weighed against each node's queue;
 *    -o aware=first, the paper's rule alone, aware=bytes, most of its
 *    input bytes (both when that node is the dispatcher's, else
 *    round-robin over the dispatcher's workers);
 *  - a worker runs its tasks in the order they came; for the task at the
 *    head of its queue it brings the inputs its node lacks: from the
 *    shared file system (staging), or by asking each file's server where
 *    it is and copying it from a peer, one file after another (the
 *    "sequential file location lookup and transfer" of VI-B1a); when the
 *    task ends it tells its dispatcher, which tells the servers of the
 *    files it wrote (V-C);
 *  - an idle worker steals the last task queued at a neighbour (V-I): a
 *    worker of a node next to its own on the 3-D torus (VI-B2a).
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
 *    for no child); across dispatchers, the scopes reading the group form
 *    a binomial chain (struct amfs: chain), each getting it from its
 *    parent scope's first holder rather than all from the source; with -o replicate=task it runs
 * the writer again on those servers instead (V-F5, amfs_replication.c);
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
 * spread of time long enough to hide moving them: amfs_options.c).
 *
 * Intermediate files are deleted from the nodes when their last reader
 * has ended (the server of the file drops every copy it knows of;
 * -o keep=1 keeps them); files nobody reads are written to the file
 * system by the task that makes them. The copies gathers bring on their
 * way are held at the file's server (M_HOLD, M_UNHOLD), which drops one
 * when no gather holds it and it is not a registered location.
 *
 * On MPI ranks each process has an instance of its own. Each process
 * role has a file and a state of its own (src/flow/amfs.h): a submitter
 * (amfs_submitter.c), a dispatcher (amfs_dispatcher.c, with its
 * collectives, amfs_collectives.c, and replicas, amfs_replication.c), a
 * metadata server (amfs_server.c), a worker (amfs_worker.c); options
 * and configurations are amfs_options.c's, and this file keeps the
 * instance: what every process knows from the start, each process's
 * state, made when it first runs here, and each event sent to its
 * process. A process only reads what it was told or decided (a
 * dispatcher its tasks, its nodes' loads, its collectives; a server its
 * files' records; a worker its queue), never another process's state.
 */
#include "flow/amfs.h"

#include <stdlib.h>
#include <string.h>

#include "flow/setup.h"
#include "sched/policies.h"

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
	size_t D = n >= 3 ? (n - 1) / 2 : 1, k = s == 0 ? 0 : (s - 1) % D;
	uint32_t node = locus__node_without_cores(wl, k);
	return node != UINT32_MAX ? node : (uint32_t)(k * wl->platform->n_nodes / D);
}

int locus__amfs_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* ---- who is who ------------------------------------------------------------------------------ */

/* The groups: the worker nodes split into D runs, one a dispatcher;
 * each node's workers and each group's, with their places. 0, or
 * LOCUS_ENOMEM. */
static int groups(struct amfs *s)
{
	const struct locus_platform *p = s->wl->platform;
	uint32_t nw = s->nw, nn = s->nn, D = s->D, worker_nodes = 0;
	for (uint32_t n = 0; n < nn; n++)
		worker_nodes += p->nodes[n].cores > 0;
	ALLOC(s->node_group, nn);
	ALLOC(s->node_place, nn);
	ALLOC(s->gnodes, worker_nodes);
	ALLOC(s->gnodes_at, D + 1);
	ALLOC(s->gworkers, nw);
	ALLOC(s->gworkers_at, D + 1);
	ALLOC(s->worker_place, nw);
	ALLOC(s->nworkers, nw);
	ALLOC(s->nworkers_at, nn + 1);
	uint32_t *fill = locus__calloc(nn + D + 1, sizeof *fill);
	if (!s->node_group || !s->node_place || !s->gnodes || !s->gnodes_at || !s->gworkers ||
	    !s->gworkers_at || !s->worker_place || !s->nworkers || !s->nworkers_at || !fill) {
		free(fill);
		return LOCUS_ENOMEM;
	}
	uint32_t k = 0, gi = 0;
	for (uint32_t n = 0; n < nn; n++) {
		s->node_group[n] = NONE;
		if (p->nodes[n].cores <= 0)
			continue;
		uint32_t d = (uint32_t)((uint64_t)gi++ * D / worker_nodes);
		s->node_group[n] = d;
		s->gnodes_at[d + 1]++;
	}
	for (uint32_t d = 0; d < D; d++)
		s->gnodes_at[d + 1] += s->gnodes_at[d];
	for (uint32_t n = 0; n < nn; n++)
		if (s->node_group[n] != NONE) {
			s->node_place[n] = k - s->gnodes_at[s->node_group[n]];
			s->gnodes[k++] = n;
		}
	for (uint32_t w = 0; w < nw; w++) {
		s->nworkers_at[node_of(s, w) + 1]++;
		s->gworkers_at[s->node_group[node_of(s, w)] + 1]++;
	}
	for (uint32_t n = 0; n < nn; n++)
		s->nworkers_at[n + 1] += s->nworkers_at[n];
	for (uint32_t d = 0; d < D; d++)
		s->gworkers_at[d + 1] += s->gworkers_at[d];
	for (uint32_t w = 0; w < nw; w++) {
		uint32_t n = node_of(s, w), d = s->node_group[n];
		s->nworkers[s->nworkers_at[n] + fill[n]++] = w;
		s->worker_place[w] = fill[nn + d]++;
		s->gworkers[s->gworkers_at[d] + s->worker_place[w]] = w;
	}
	free(fill);
	return 0;
}

/* With pipeline=1, the task whose produced inputs task t is the one
 * writer of, of a pipeline's pattern: it goes with t's worker when t is
 * sent (amfs_dispatcher.c, `successor`), so it is dealt to t's
 * dispatcher; else LOCUS_NONE. */
static uint32_t pipe_pred(const struct amfs *s, uint32_t c)
{
	if (!chains_on(&s->opt) || s->an->task_patterns[c] != LOCUS_PATTERN_PIPELINE)
		return LOCUS_NONE;
	const struct locus_task *ck = &s->g->tasks[c];
	uint32_t t = LOCUS_NONE;
	for (uint32_t i = 0; i < ck->n_in; i++) {
		uint32_t p = s->g->objects[s->g->inputs[ck->in_at + i]].producer;
		if (p == LOCUS_NONE)
			continue;
		if (t != LOCUS_NONE && p != t)
			return LOCUS_NONE;
		t = p;
	}
	return t;
}

/* The task lists: round-robin within each stage, in topological order (a
 * pipeline's next task, with pipeline=1, to its predecessor's
 * dispatcher); the groups each dispatcher's tasks read by stage (the
 * writers of a task's produced inputs, each once: seen[p] is the last
 * task counted + 1). 0, or LOCUS_ENOMEM. */
static int task_lists(struct amfs *s)
{
	const struct locus_graph *g = s->g;
	uint32_t D = s->D, nt = (uint32_t)g->n_tasks, ns = s->ns;
	ALLOC(s->tdisp, nt);
	ALLOC(s->tplace, nt);
	ALLOC(s->dtasks, nt);
	ALLOC(s->dtasks_at, D + 1);
	size_t dns = (size_t)D * ns;
	ALLOC(s->dgroups, dns);
	uint32_t *per_stage = locus__calloc(ns ? ns : 1, sizeof *per_stage);
	uint32_t *seen = locus__calloc(nt ? nt : 1, sizeof *seen);
	uint32_t *fill = locus__calloc(D, sizeof *fill);
	if (!s->tdisp || !s->tplace || !s->dtasks || !s->dtasks_at || !s->dgroups || !per_stage ||
	    !seen || !fill) {
		free(per_stage);
		free(seen);
		free(fill);
		return LOCUS_ENOMEM;
	}
	for (uint32_t i = 0; i < nt; i++) {
		uint32_t t = g->topo[i], st = locus_flow_stage_of(g, t), pred = pipe_pred(s, t);
		s->tdisp[t] = pred != LOCUS_NONE ? s->tdisp[pred] : per_stage[st]++ % D;
		s->dtasks_at[s->tdisp[t] + 1]++;
		const struct locus_task *tk = &g->tasks[t];
		for (uint32_t j = 0; j < tk->n_in; j++) {
			uint32_t p = g->objects[g->inputs[tk->in_at + j]].producer;
			if (p != LOCUS_NONE && seen[p] != t + 1) {
				seen[p] = t + 1;
				s->dgroups[(size_t)s->tdisp[t] * ns + st]++;
			}
		}
	}
	for (uint32_t d = 0; d < D; d++)
		s->dtasks_at[d + 1] += s->dtasks_at[d];
	for (uint32_t i = 0; i < nt; i++) {
		uint32_t t = g->topo[i], d = s->tdisp[t];
		s->tplace[t] = fill[d]++;
		s->dtasks[s->dtasks_at[d] + s->tplace[t]] = t;
	}
	free(per_stage);
	free(seen);
	free(fill);
	return 0;
}

/* What each task is (decided once): whether it writes a multicast file,
 * gathers asynchronously, reads a catalog's chunk; and each file's place
 * at its server. 0, or LOCUS_ENOMEM. */
static int tasks_and_files(struct amfs *s)
{
	const struct locus_graph *g = s->g;
	uint32_t nt = (uint32_t)g->n_tasks, no = (uint32_t)g->n_objects;
	ALLOC(s->async, nt);
	ALLOC(s->mc_out, nt);
	ALLOC(s->tcat, nt);
	ALLOC(s->file_place, no);
	ALLOC(s->server_files, s->D);
	if (!s->async || !s->mc_out || !s->tcat || !s->file_place || !s->server_files)
		return LOCUS_ENOMEM;
	for (uint32_t o = 0; o < no; o++)
		if ((s->an->object_patterns[o] & LOCUS_PATTERN_MULTICAST) &&
		    g->objects[o].producer != LOCUS_NONE)
			s->mc_out[g->objects[o].producer] = 1;
	for (uint32_t t = 0; t < nt; t++) {
		s->async[t] = (uint8_t)locus__amfs_gathers_async(s, t);
		const struct locus_task *tk = &g->tasks[t];
		for (uint32_t j = 0; j < tk->n_in && !s->tcat[t]; j++) {
			uint32_t o = g->inputs[tk->in_at + j];
			s->tcat[t] = g->objects[o].producer == LOCUS_NONE &&
				     locus_replicas_count(s->mon->replicas, o) > 0;
		}
	}
	for (uint32_t o = 0; o < no; o++)
		s->file_place[o] = s->server_files[server_of(s, o)]++;
	return 0;
}

/* ---- multicasts across dispatchers --------------------------------------------------------- */

/* (writer, dispatcher, file) of a multicast file read by a dispatcher's
 * task; file NONE: a task of it reads the group as a multicast. */
struct mc_use {
	uint32_t p, d, o;
};

static int cmp_use(const void *a, const void *b)
{
	const struct mc_use *x = a, *y = b;
	if (x->p != y->p)
		return (x->p > y->p) - (x->p < y->p);
	if (x->d != y->d)
		return (x->d > y->d) - (x->d < y->d);
	return (x->o > y->o) - (x->o < y->o);
}

/* The chains (struct amfs: chain, chain_at). 0, or LOCUS_ENOMEM. */
static int chains(struct amfs *s)
{
	const struct locus_graph *g = s->g;
	uint32_t nt = (uint32_t)g->n_tasks, D = s->D;
	ALLOC(s->chain_at, (size_t)nt + 1);
	if (!s->chain_at)
		return LOCUS_ENOMEM;
	if (D < 2 || s->opt.replicate_task || !data_aware(&s->opt))
		return 0;
	size_t n = 0;
	for (uint32_t t = 0; t < nt; t++)
		for (uint32_t j = 0; j < g->tasks[t].n_in; j++) {
			uint32_t o = g->inputs[g->tasks[t].in_at + j], p = g->objects[o].producer;
			n += p != LOCUS_NONE && s->mc_out[p] ? 2 : 0;
		}
	struct mc_use *u = locus__calloc(n ? n : 1, sizeof *u);
	ALLOC(s->chain, n);
	if (!u || !s->chain) {
		free(u);
		return LOCUS_ENOMEM;
	}
	size_t m = 0;
	for (uint32_t t = 0; t < nt; t++)
		for (uint32_t j = 0; j < g->tasks[t].n_in; j++) {
			uint32_t o = g->inputs[g->tasks[t].in_at + j], p = g->objects[o].producer;
			if (p == LOCUS_NONE || !s->mc_out[p])
				continue;
			/* The group as the dispatcher sees it: its multicast
			 * files its tasks read, whoever reads them so. */
			if (s->an->object_patterns[o] & LOCUS_PATTERN_MULTICAST)
				u[m++] = (struct mc_use){p, s->tdisp[t], o};
			if (s->an->input_multicast[g->tasks[t].in_at + j])
				u[m++] = (struct mc_use){p, s->tdisp[t], NONE};
		}
	qsort(u, m, sizeof *u, cmp_use);
	/* Each writer's run of uses: its readers' dispatchers (in the run's
	 * order: by dispatcher), each with its files' count and sum. */
	size_t at = 0, fill = 0;
	for (uint32_t p = 0; p < nt; p++) {
		s->chain_at[p] = (uint32_t)fill;
		size_t end = at;
		while (end < m && u[end].p == p)
			end++;
		size_t first = fill;
		uint64_t cnt0 = 0, sum0 = 0;
		int same = 1, any = 0;
		for (size_t i = at; i < end;) {
			uint32_t d = u[i].d;
			uint64_t cnt = 0, sum = 0;
			int reads = 0;
			for (; i < end && u[i].d == d; i++) {
				if (u[i].o == NONE) {
					reads = 1;
				} else if (i == at || u[i - 1].d != d || u[i - 1].o != u[i].o) {
					cnt++;
					sum += (uint64_t)u[i].o * 2654435761u + 1;
				}
			}
			if (!reads)
				continue;
			if (!any) {
				cnt0 = cnt;
				sum0 = sum;
				any = 1;
			}
			same = same && cnt == cnt0 && sum == sum0;
			s->chain[fill++] = d;
		}
		at = end;
		if (!same || fill - first < 2) {
			fill = first;
			continue;
		}
		/* From p's dispatcher on (modulo D): the first runs the root. */
		uint32_t k = (uint32_t)(fill - first), rot = 0;
		while (rot < k && s->chain[first + rot] < s->tdisp[p])
			rot++;
		uint32_t *c = s->chain + first, tmp;
		for (uint32_t r = 0; r < rot; r++) {
			tmp = c[0];
			memmove(c, c + 1, (k - 1) * sizeof *c);
			c[k - 1] = tmp;
		}
	}
	s->chain_at[nt] = (uint32_t)fill;
	free(u);
	return 0;
}

/* ---- the torus ------------------------------------------------------------------------------ */

/* The most cubic X <= Y <= Z of n nodes (BG/P's partitions: 512 nodes
 * 8x8x8, 1,024 8x8x16, 2,048 8x16x16, 4,096 16x16x16, 8,192 16x16x32):
 * the largest X, then the largest Y. */
static void cubic(uint32_t n, uint32_t *d)
{
	d[0] = d[1] = 1;
	d[2] = n ? n : 1;
	for (uint32_t x = 1; (uint64_t)x * x * x <= n; x++) {
		if (n % x)
			continue;
		for (uint32_t y = x; (uint64_t)y * y <= n / x; y++)
			if ((n / x) % y == 0) {
				d[0] = x;
				d[1] = y;
				d[2] = n / x / y;
			}
	}
}

/* The coordinate d + delta on a ring of `size` (delta within it). */
static uint32_t wrap(uint32_t c, int64_t delta, uint32_t size)
{
	int64_t v = ((int64_t)c + delta) % (int64_t)size;
	return (uint32_t)(v < 0 ? v + size : v);
}

uint32_t locus__amfs_torus_near(const struct amfs *s, uint32_t n, uint32_t hops, uint32_t *out,
				uint32_t room)
{
	const uint32_t *T = s->torus;
	uint32_t c[3] = {n % T[0], n / T[0] % T[1], n / T[0] / T[1]}, got = 0;
	/* Each ring's reach: half its size (a wider offset comes round). */
	int64_t reach[3];
	for (int i = 0; i < 3; i++)
		reach[i] =
		    (int64_t)(T[i] / 2) < (int64_t)hops ? (int64_t)(T[i] / 2) : (int64_t)hops;
	for (int64_t dist = 1; dist <= (int64_t)hops && got < room; dist++) {
		int64_t seen_any = 0;
		/* Offsets of |dx| + |dy| + |dz| = dist, x first, + before -. */
		for (int64_t ax = 0; ax <= reach[0] && ax <= dist; ax++)
			for (int64_t ay = 0; ay <= reach[1] && ax + ay <= dist; ay++) {
				int64_t az = dist - ax - ay;
				if (az > reach[2])
					continue;
				for (int sx = 1; sx >= -1; sx -= 2)
					for (int sy = 1; sy >= -1; sy -= 2)
						for (int sz = 1; sz >= -1; sz -= 2) {
							if ((!ax && sx < 0) || (!ay && sy < 0) ||
							    (!az && sz < 0))
								continue;
							uint32_t m =
							    wrap(c[0], sx * ax, T[0]) +
							    T[0] *
								(wrap(c[1], sy * ay, T[1]) +
								 T[1] * wrap(c[2], sz * az, T[2]));
							int dup = m == n || m >= s->nn;
							for (uint32_t i = 0; i < got && !dup; i++)
								dup = out[i] == m;
							if (!dup && got < room)
								out[got++] = m;
							seen_any++;
						}
			}
		if (!seen_any)
			break;
	}
	return got;
}

/* ---- creation -------------------------------------------------------------------------------- */

static void destroy(void *state)
{
	struct amfs *s = state;
	if (!s)
		return;
	locus__amfs_submitter_destroy(s->submitter);
	for (uint32_t d = 0; s->dispatcher && d < s->D; d++)
		locus__amfs_dispatcher_destroy(s->dispatcher[d]);
	for (uint32_t m = 0; s->server && m < s->D; m++)
		locus__amfs_server_destroy(s->server[m]);
	for (uint32_t w = 0; s->worker && w < s->nw; w++)
		locus__amfs_worker_destroy(s->worker[w]);
	free(s->dispatcher);
	free(s->server);
	free(s->worker);
	free(s->lazy);
	free(s->hungry);
	free(s->count.stage_colls);
	locus_flow_analysis_destroy(s->an);
	locus__amfs_options_fini(&s->opt);
	free(s->node_group);
	free(s->node_place);
	free(s->gnodes);
	free(s->gnodes_at);
	free(s->gworkers);
	free(s->gworkers_at);
	free(s->worker_place);
	free(s->nworkers);
	free(s->nworkers_at);
	free(s->tdisp);
	free(s->tplace);
	free(s->dtasks);
	free(s->dtasks_at);
	free(s->dgroups);
	free(s->async);
	free(s->mc_out);
	free(s->chain);
	free(s->chain_at);
	free(s->tcat);
	free(s->file_place);
	free(s->server_files);
	free(s);
}

/* The mean interface of the nodes with cores (auto's rule), 0 with none. */
static double worker_net_bw(const struct locus_platform *p)
{
	double bw = 0, bw_nodes = 0;
	for (uint32_t n = 0; n < p->n_nodes; n++)
		if (p->nodes[n].cores > 0) {
			bw += p->nodes[n].net_bw;
			bw_nodes++;
		}
	return bw_nodes ? bw / bw_nodes : 0;
}

static int create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	const struct locus_workload *wl = ctx->wl;
	int rc;
	*state = NULL;
	struct amfs *s = calloc(1, sizeof *s);
	if (!s)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if ((rc = locus__amfs_options_read(&s->opt, ctx->opts, err))) {
		free(s);
		return rc;
	}
	s->wl = wl;
	s->g = wl->graph;
	s->mon = ctx->monitor;
	s->nw = (uint32_t)ctx->n_workers;
	s->nn = (uint32_t)wl->platform->n_nodes;
	s->net_bw = worker_net_bw(wl->platform);
	if ((rc = locus__flow_check_workers(ctx, "amfs", err))) {
		destroy(s);
		return rc;
	}
	if (ctx->n_schedulers < 3 || ctx->n_schedulers % 2 == 0) {
		destroy(s);
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy amfs runs a submitter and D dispatchers with D metadata "
				  "servers: expected 3, 5, 7, ... schedulers, got %zu",
				  ctx->n_schedulers);
	}
	if ((rc = locus__flow_check_monitor(ctx, "amfs", "with a monitor", err))) {
		destroy(s);
		return rc;
	}
	s->D = (uint32_t)((ctx->n_schedulers - 1) / 2);
	if (s->opt.torus[0]) {
		uint64_t cells = (uint64_t)s->opt.torus[0] * s->opt.torus[1] * s->opt.torus[2];
		if (cells != s->nn) {
			rc =
			    locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				       "policy option torus=%ux%ux%u: %llu nodes, but the platform "
				       "has %u",
				       s->opt.torus[0], s->opt.torus[1], s->opt.torus[2],
				       (unsigned long long)cells, s->nn);
			destroy(s);
			return rc;
		}
		for (int i = 0; i < 3; i++)
			s->torus[i] = s->opt.torus[i];
	} else {
		cubic(s->nn, s->torus);
	}
	if ((rc = locus_flow_analyse(&s->an, s->g, &s->opt.patterns, err))) {
		destroy(s);
		return rc;
	}
	s->ns = (uint32_t)s->an->n_stages;
	/* Who is who (every process knows it from the start), and room for
	 * the states of the processes this instance hosts. */
	ALLOC(s->count.stage_colls, s->ns);
	ALLOC(s->dispatcher, s->D);
	ALLOC(s->server, s->D);
	ALLOC(s->worker, s->nw);
	ALLOC(s->lazy, s->nw / 64 + 1);
	if (!s->count.stage_colls || !s->dispatcher || !s->server || !s->worker || !s->lazy ||
	    groups(s) || task_lists(s) || tasks_and_files(s) || chains(s)) {
		destroy(s);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	*state = s;
	return 0;
}

/* ---- events ---------------------------------------------------------------------------------- */

/* Each event goes to its process, whose state is made when it first runs
 * here (its start). */
static void on_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct amfs *s = state;
	uint32_t p = ev->proc;
	if (p < s->nw) {
		struct amfs_worker **wk = &s->worker[p];
		uint64_t bit = 1ull << (p % 64);
		if (!*wk && ev->kind == LOCUS_EV_START && !locus__amfs_worker_start_acts(s) &&
		    (!s->start_known || ev->now == s->start_at)) {
			/* Its state is what a start makes: made when needed. */
			s->start_known = 1;
			s->start_at = ev->now;
			s->lazy[p / 64] |= bit;
			return;
		}
		if (!*wk && !(*wk = locus__amfs_worker_create(s, p))) {
			locus_act_oom(act);
			return;
		}
		if (s->lazy[p / 64] & bit) {
			s->lazy[p / 64] &= ~bit;
			locus__amfs_worker_started(s, *wk, s->start_at);
		}
		locus__amfs_worker_event(s, *wk, p, ev, act);
	} else if (p == p_submitter(s)) {
		struct amfs_submitter **sub = &s->submitter;
		if (!*sub && !(*sub = locus__amfs_submitter_create(s)))
			locus_act_oom(act);
		else
			locus__amfs_submitter_event(s, *sub, ev, act);
	} else if (p <= s->nw + s->D) {
		uint32_t d = p - s->nw - 1;
		struct amfs_dispatcher **ds = &s->dispatcher[d];
		if (!*ds && !(*ds = locus__amfs_dispatcher_create(s, d)))
			locus_act_oom(act);
		else
			locus__amfs_dispatcher_event(s, *ds, ev, act);
	} else if (p <= s->nw + 2 * s->D) {
		uint32_t m = p - s->nw - 1 - s->D;
		struct amfs_server **sv = &s->server[m];
		if (!*sv && !(*sv = locus__amfs_server_create(s, m)))
			locus_act_oom(act);
		else
			locus__amfs_server_event(s, *sv, ev, act);
	}
}

static void stats(void *state, struct locus_policy_stats *out)
{
	struct amfs *s = state;
	const struct amfs_counts *n = &s->count;
	static const char *const names[] = {"assignments", "lookups",  "fetches", "gathers",
					    "multicasts",  "replicas", "steals",  "scatters"};
	uint64_t vals[] = {n->sent,
			   n->queries,
			   n->fetches,
			   n->collectives[CO_GATHER] + n->collectives[CO_REDUCE],
			   n->collectives[CO_MULTICAST],
			   n->replicas,
			   n->steals,
			   n->collectives[CO_SCATTER]};
	locus__flow_counters(out, names, vals, LOCUS__ARRAY_LEN(vals));
	/* Each stage: the patterns identification found, the collectives
	 * run for it. */
	for (size_t k = 0; k < out->n_stages && k < s->an->n_stages; k++) {
		out->stages[k].patterns = (int)s->an->stages[k].patterns;
		out->stages[k].collectives = n->stage_colls[k];
	}
}

const struct locus_policy locus__policy_amfs = {
    .version = LOCUS_POLICY_VERSION,
    .name = "amfs",
    .summary = "AME/AMFS: data-aware dispatch, metadata DHT, collectives, stealing (workflows)",
    .schedulers = amfs_schedulers,
    .create = create,
    .destroy = destroy,
    .on_event = on_event,
    .stats = stats,
    .flags = LOCUS_POLICY_GRAPHS,
    .options =
	"config=staging|cache|aware|cogather|asgather|shared|auto, "
	"aware=now|first|bytes, replicate=file|task, steal=N, torus=XxYxZ, keep=0|1, pipeline=0|1, "
	"file_cost=S, "
	"fetch_cost=S, "
	"reduce=STAGE[+STAGE...], "
	"reduce_cost=S, gather=N, multicast=N, scatter=N",
    .scheduler_node = amfs_scheduler_node,
    .needs = LOCUS_NEEDS_FLOW | LOCUS_NEEDS_COPIES,
};
