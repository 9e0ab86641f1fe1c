/*
 * A TaskVine-like manager as a baseline workflow policy ("taskvine"), to
 * compare AME/AMFS's decisions (amfs.c) with what users run today.
 *
 * The system modelled: TaskVine of the Cooperative Computing Lab's
 * cctools (Sly-Scott, Thain et al., "TaskVine: Managing In-Cluster
 * Storage for High-Throughput Data Intensive Workflows", WORKS 2023), as
 * its manager decides in taskvine/src/manager (read for the ideas, not
 * copied): vine_schedule.c (vine_schedule_task_to_worker,
 * check_worker_against_task), vine_manager.c (send_one_task,
 * vine_manager_transfer_capacity_available), vine_file_replica_table.c
 * (vine_file_replica_table_find_worker) and vine_current_transfers.h.
 *
 * One scheduler process, the manager (on a node without cores when the
 * platform has one); a TaskVine worker is a node, its cores the Locus
 * worker processes there, its cache the node's local storage. The
 * manager learns everything from events: a worker tells it when a task
 * ended (a message), the engine when a copy it asked for arrived. It
 * keeps its own table of which node caches which file, starting from
 * where the workflow's inputs are when the run starts (the file system,
 * or the nodes a catalog names: what the user declares to TaskVine),
 * which it reads once from the engine's monitor.
 *
 *  - A task is ready when every file it reads exists (its producers have
 *    ended); ready tasks wait at the manager in the order they became
 *    ready (TaskVine's ready list, every priority equal).
 *  - A ready task goes to a worker only when a core of it is free:
 *    TaskVine commits a task's resources at dispatch and does not queue
 *    tasks at workers. Among the nodes with a free core it takes the one
 *    caching the most bytes of the task's inputs (VINE_SCHEDULE_FILES,
 *    the default; a file on its way there counts, as a replica being
 *    created does in TaskVine), ties to the fewest running tasks, then
 *    the lowest node id.
 *  - The inputs the node lacks are copied into its cache: a produced
 *    file from a node caching it (a peer transfer), a workflow input
 *    from a node caching it when one can serve, else from the shared
 *    file system (LOCUS_FS). No node serves more than max_transfers
 *    copies at once (TaskVine's worker-source-max-transfers, default
 *    VINE_WORKER_SOURCE_MAX_TRANSFERS = 10); the source is drawn at
 *    random among the nodes under the limit (the seeded generator; as
 *    find_worker does). A produced file whose every holder is busy waits
 *    in a queue at the manager: at the holder with the shortest queue,
 *    which serves it when a copy of its own ends, or at a new replica of
 *    the file as soon as that arrives. (TaskVine instead leaves the task
 *    in the ready list until a source has room; here the task holds its
 *    core while its copy waits.) Copies to one node of one file are made
 *    once, every task there waiting for the same one.
 *  - When every input is there the manager sends the task; the core runs
 *    it at once, reading its inputs from the cache (a workflow input held
 *    by nodes and by no file system - a catalog's chunk - is not copied:
 *    the task reads it from a holder as it starts). Outputs stay in the
 *    node's cache; those no task reads also go to the file system
 *    (LOCUS_OUTPUT_FINAL: TaskVine brings final outputs back).
 *  - A produced file is deleted from every cache once its last reader has
 *    ended (TaskVine's temporary files pruned when no task needs them);
 *    -o keep=1 keeps them. Workflow inputs stay cached (their cache level
 *    is the workflow's).
 *
 * No collectives, no pattern identification, no work stealing, no
 * recovery of lost files: the baseline is the data-aware dispatch and the
 * peer transfers alone.
 *
 * Options: max_transfers=K (1 .. 1e6, default 10), keep=0|1.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "flow/assign.h"
#include "flow/links.h"
#include "flow/setup.h"
#include "locus/heap.h"
#include "locus/rng.h"
#include "sched/policies.h"

#define NONE UINT32_MAX

/* TaskVine's VINE_WORKER_SOURCE_MAX_TRANSFERS (vine_current_transfers.h). */
#define DEFAULT_MAX_TRANSFERS 10

/* Worker -> manager: task arg0 ended. */
enum { M_DONE = LOCUS_MSG_USER + 1 };

/* A task at the manager. */
enum { T_WAIT, T_READY, T_STAGING, T_SENT, T_DONE };

/* A copy the manager wants: a file to a node. */
enum { X_FREE, X_QUEUED, X_ACTIVE };

struct xfer {
	uint32_t obj, dst;
	uint32_t src;	       /* a node or LOCUS_FS while active */
	uint32_t waiters;      /* tasks waiting for it (a list of links) */
	uint32_t block;	       /* queued: the node it waits at */
	uint32_t oprev, onext; /* queued: in its file's waiting copies */
	uint32_t nprev, nnext; /* queued: in its node's queue */
	uint8_t state;
};

/* A node with a free core, by running tasks then id (lazily kept: an
 * entry is stale when its node's count moved on). */
struct free_node {
	uint32_t running, node;
};

struct vine {
	const struct locus_workload *wl;
	const struct locus_graph *g;
	const struct locus_monitor *mon;
	uint32_t nw, nn, nt, no;
	uint32_t K; /* max_transfers */
	int keep;
	struct locus_rng rng;
	/* Nodes: their cores (workers wfirst[n] ..), free ones as a stack
	 * (fstack[wfirst[n] .. wfirst[n] + nfree[n])), running tasks,
	 * copies they serve, copies queued at them. */
	uint32_t *wfirst, *ncores, *nfree, *fstack, *running, *out;
	uint32_t *nq_head, *nq_tail, *nq_len;
	uint32_t worker_nodes, total_free;
	struct locus_heap free_nodes;
	/* Tasks. */
	uint32_t *unready; /* produced inputs not yet produced */
	uint8_t *tst;
	uint32_t *tnode, *tcore, *tpending;
	uint32_t *ready; /* FIFO of ready tasks: ready[rhead .. rtail) */
	uint32_t rhead, rtail;
	uint32_t done;
	/* Files: replicas the manager knows of, readers still to end, copies
	 * waiting for a source, whether the file system has it. The lists'
	 * cells: a replica (val the node, aux its copy on the way or NONE
	 * when there) or a task waiting for a copy (val). */
	uint32_t *rep_head, *cons_left, *ow_head, *ow_tail;
	uint8_t *on_fs;
	struct locus__links links;
	struct xfer *xfers;
	size_t n_xfers, xfers_cap;
	uint32_t free_xfers;
	/* Scratch: bytes cached per node for one decision. */
	uint64_t *acc;
	uint32_t *touched;
	/* What it did. */
	uint64_t dispatched, peer_copies, fs_copies, cached, queued, max_waiting, waiting, drops;
	uint64_t lost; /* copies no source could serve */
};

/* ---- small helpers --------------------------------------------------------------------- */

static uint32_t p_manager(const struct vine *s)
{
	return s->nw;
}

static int is_produced(const struct vine *s, uint32_t o)
{
	return s->g->objects[o].producer != LOCUS_NONE;
}

/* The replica of o on node n (a link), or NONE. */
static uint32_t rep_find(const struct vine *s, uint32_t o, uint32_t n)
{
	return locus__links_find(&s->links, s->rep_head[o], n);
}

static int free_node_cmp(const void *a, const void *b)
{
	const struct free_node *x = a, *y = b;
	if (x->running != y->running)
		return x->running < y->running ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

/* Node n's count changed: it is a candidate again if a core is free. */
static int free_node_push(struct vine *s, uint32_t n)
{
	if (!s->nfree[n])
		return 0;
	struct free_node f = {s->running[n], n};
	return locus_heap_push(&s->free_nodes, &f);
}

/* The node with a free core running the fewest tasks (lowest id among
 * them), or NONE. */
static uint32_t free_node_top(struct vine *s)
{
	struct free_node f;
	while (locus_heap_peek(&s->free_nodes)) {
		f = *(const struct free_node *)locus_heap_peek(&s->free_nodes);
		if (s->nfree[f.node] && s->running[f.node] == f.running)
			return f.node;
		locus_heap_pop(&s->free_nodes, &f);
	}
	return NONE;
}

static void send(struct locus_actions *act, uint32_t from, uint32_t to, uint32_t type, int64_t a0)
{
	struct locus_msg m = {.type = type, .from = from, .to = to, .n_args = 1};
	m.arg[0] = a0;
	locus_act_send(act, &m);
}

/* ---- copies ------------------------------------------------------------------------------ */

static uint32_t xfer_new(struct vine *s, uint32_t o, uint32_t dst)
{
	uint32_t x = s->free_xfers;
	if (x != NONE) {
		s->free_xfers = s->xfers[x].onext;
	} else {
		if (locus__grow(&s->xfers, &s->xfers_cap, s->n_xfers + 1, sizeof *s->xfers))
			return NONE;
		x = (uint32_t)s->n_xfers++;
	}
	s->xfers[x] = (struct xfer){.obj = o,
				    .dst = dst,
				    .src = NONE,
				    .waiters = NONE,
				    .block = NONE,
				    .oprev = NONE,
				    .onext = NONE,
				    .nprev = NONE,
				    .nnext = NONE,
				    .state = X_QUEUED};
	return x;
}

static void xfer_free(struct vine *s, uint32_t x)
{
	s->xfers[x].state = X_FREE;
	s->xfers[x].onext = s->free_xfers;
	s->free_xfers = x;
}

/* Copy x leaves the queues it waits in. */
static void unqueue(struct vine *s, uint32_t x)
{
	struct xfer *c = &s->xfers[x];
	uint32_t o = c->obj, b = c->block;
	if (c->oprev != NONE)
		s->xfers[c->oprev].onext = c->onext;
	else
		s->ow_head[o] = c->onext;
	if (c->onext != NONE)
		s->xfers[c->onext].oprev = c->oprev;
	else
		s->ow_tail[o] = c->oprev;
	if (c->nprev != NONE)
		s->xfers[c->nprev].nnext = c->nnext;
	else
		s->nq_head[b] = c->nnext;
	if (c->nnext != NONE)
		s->xfers[c->nnext].nprev = c->nprev;
	else
		s->nq_tail[b] = c->nprev;
	s->nq_len[b]--;
	s->waiting--;
	c->oprev = c->onext = c->nprev = c->nnext = c->block = NONE;
}

/* Copy x waits for a source: queued at node b (which holds its file). */
static void enqueue(struct vine *s, uint32_t x, uint32_t b)
{
	struct xfer *c = &s->xfers[x];
	uint32_t o = c->obj;
	c->state = X_QUEUED;
	c->block = b;
	c->onext = c->nnext = NONE;
	c->oprev = s->ow_tail[o];
	if (c->oprev != NONE)
		s->xfers[c->oprev].onext = x;
	else
		s->ow_head[o] = x;
	s->ow_tail[o] = x;
	c->nprev = s->nq_tail[b];
	if (c->nprev != NONE)
		s->xfers[c->nprev].nnext = x;
	else
		s->nq_head[b] = x;
	s->nq_tail[b] = x;
	s->nq_len[b]++;
	s->queued++;
	if (++s->waiting > s->max_waiting)
		s->max_waiting = s->waiting;
}

/* Copy x goes from `src` (a node, or LOCUS_FS) now. */
static void issue(struct vine *s, struct locus_actions *act, uint32_t x, uint32_t src)
{
	struct xfer *c = &s->xfers[x];
	uint32_t o = c->obj;
	c->state = X_ACTIVE;
	c->src = src;
	if (src == LOCUS_FS) {
		s->fs_copies++;
	} else {
		s->out[src]++;
		s->peer_copies++;
	}
	struct locus_copy cp = {.objects = &o,
				.n = 1,
				.from = src,
				.to = c->dst,
				.tag = x,
				.task = c->waiters != NONE ? s->links.cell[c->waiters].val
							   : LOCUS_NONE};
	locus_act_copy(act, &cp);
}

/* Copy x finds a source: a node caching its file with room to serve
 * (drawn at random among them), else the file system for a workflow
 * input it has, else a queue at the holder with the shortest one. */
static void start_xfer(struct vine *s, struct locus_actions *act, uint32_t x)
{
	uint32_t o = s->xfers[x].obj, dst = s->xfers[x].dst, open = 0, block = NONE;
	for (uint32_t l = s->rep_head[o]; l != NONE; l = s->links.cell[l].next) {
		uint32_t n = s->links.cell[l].val;
		if (s->links.cell[l].aux != NONE || n == dst)
			continue;
		if (s->out[n] < s->K)
			open++;
		else if (block == NONE || s->nq_len[n] < s->nq_len[block] ||
			 (s->nq_len[n] == s->nq_len[block] && n < block))
			block = n;
	}
	if (open) {
		uint32_t pick = (uint32_t)locus_rng_below(&s->rng, open);
		for (uint32_t l = s->rep_head[o]; l != NONE; l = s->links.cell[l].next) {
			uint32_t n = s->links.cell[l].val;
			if (s->links.cell[l].aux != NONE || n == dst || s->out[n] >= s->K)
				continue;
			if (pick-- == 0) {
				issue(s, act, x, n);
				return;
			}
		}
	}
	if (s->on_fs[o]) {
		issue(s, act, x, LOCUS_FS);
		return;
	}
	if (block == NONE) {
		/* Nobody holds it any more (this baseline recovers no lost
		 * file): its tasks never run, and the engine says so. */
		s->xfers[x].state = X_QUEUED;
		s->lost++;
		return;
	}
	enqueue(s, x, block);
}

/* Node n can serve more copies: those queued at it first. */
static void serve_node(struct vine *s, struct locus_actions *act, uint32_t n)
{
	while (s->out[n] < s->K && s->nq_head[n] != NONE) {
		uint32_t x = s->nq_head[n];
		unqueue(s, x);
		issue(s, act, x, n);
	}
}

/* Node n has just got a replica of o: it serves o's waiting copies. */
static void serve_file(struct vine *s, struct locus_actions *act, uint32_t o, uint32_t n)
{
	while (s->out[n] < s->K && s->ow_head[o] != NONE) {
		uint32_t x = s->ow_head[o];
		unqueue(s, x);
		issue(s, act, x, n);
	}
}

/* ---- dispatch ----------------------------------------------------------------------------- */

static void send_task(struct vine *s, struct locus_actions *act, uint32_t t)
{
	struct locus_msg m = locus__flow_assign_msg(s->g, p_manager(s), s->tcore[t], t,
						    LOCUS_GATHER_POLICY, LOCUS_OUTPUT_FINAL);
	locus_act_send(act, &m);
	s->tst[t] = T_SENT;
}

/* Whether node n can hold task t (its demand; version 6 of the policy
 * protocol): every node when the tasks declare nothing. */
static int holds(const struct vine *s, uint32_t t, uint32_t n)
{
	return !s->g->demand || locus_workload_fits(s->wl, t, n);
}

/* A node with a free core that can hold t: the free nodes' top when it
 * can, else the lowest such node; NONE when none has a free core now. */
static uint32_t free_node_for(struct vine *s, uint32_t t)
{
	uint32_t top = free_node_top(s);
	if (top == NONE || holds(s, t, top))
		return top;
	for (uint32_t n = 0; n < s->nn; n++)
		if (s->nfree[n] && holds(s, t, n))
			return n;
	return NONE;
}

/* The node task t goes to: the most bytes of its inputs cached among the
 * nodes with a free core that can hold it, then the fewest running, then
 * the lowest id. */
static uint32_t choose_node(struct vine *s, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t n_touched = 0, best = NONE;
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		for (uint32_t l = s->rep_head[o]; l != NONE; l = s->links.cell[l].next) {
			uint32_t n = s->links.cell[l].val;
			if (!s->nfree[n] || !s->g->objects[o].bytes || !holds(s, t, n))
				continue;
			if (!s->acc[n])
				s->touched[n_touched++] = n;
			s->acc[n] += s->g->objects[o].bytes;
		}
	}
	for (uint32_t i = 0; i < n_touched; i++) {
		uint32_t n = s->touched[i];
		if (best == NONE || s->acc[n] > s->acc[best] ||
		    (s->acc[n] == s->acc[best] &&
		     (s->running[n] < s->running[best] ||
		      (s->running[n] == s->running[best] && n < best))))
			best = n;
	}
	for (uint32_t i = 0; i < n_touched; i++)
		s->acc[s->touched[i]] = 0;
	return best != NONE ? best : free_node_for(s, t);
}

/* Task t goes to a free core of node n: its missing inputs start to come. */
static void dispatch(struct vine *s, struct locus_actions *act, uint32_t t, uint32_t n)
{
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t w = s->fstack[s->wfirst[n] + --s->nfree[n]];
	s->running[n]++;
	s->total_free--;
	if (free_node_push(s, n)) {
		locus_act_oom(act);
		return;
	}
	s->tnode[t] = n;
	s->tcore[t] = w;
	s->tst[t] = T_STAGING;
	s->tpending[t] = 0;
	s->dispatched++;
	/* TaskVine looks at every worker's cache for each input. */
	locus_act_cost(act, (uint64_t)s->worker_nodes * (tk->n_in ? tk->n_in : 1));
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		/* A chunk held by nodes and no file system: read as it starts. */
		if (!is_produced(s, o) && !s->on_fs[o])
			continue;
		uint32_t r = rep_find(s, o, n);
		if (r != NONE && s->links.cell[r].aux == NONE) {
			s->cached++;
			continue;
		}
		uint32_t x;
		if (r != NONE) {
			x = s->links.cell[r].aux; /* on its way for another task */
		} else {
			x = xfer_new(s, o, n);
			uint32_t l =
			    x == NONE ? NONE : locus__links_new(&s->links, n, x, s->rep_head[o]);
			if (l == NONE) {
				locus_act_oom(act);
				return;
			}
			s->rep_head[o] = l;
		}
		uint32_t wl = locus__links_new(&s->links, t, 0, s->xfers[x].waiters);
		if (wl == NONE) {
			locus_act_oom(act);
			return;
		}
		s->xfers[x].waiters = wl;
		s->tpending[t]++;
		if (r == NONE)
			start_xfer(s, act, x);
	}
	if (!s->tpending[t])
		send_task(s, act, t);
}

/* Ready tasks go out, in the order they became ready, while cores are
 * free. */
static void schedule(struct vine *s, struct locus_actions *act)
{
	while (s->rhead < s->rtail && s->total_free) {
		uint32_t t = s->ready[s->rhead++];
		uint32_t n = choose_node(s, t);
		if (n == NONE) {
			s->rhead--;
			return;
		}
		dispatch(s, act, t, n);
	}
}

static void make_ready(struct vine *s, uint32_t t)
{
	s->tst[t] = T_READY;
	s->ready[s->rtail++] = t;
}

/* ---- events ------------------------------------------------------------------------------- */

/* Copy x ended (ok: its file is in dst's cache). */
static void xfer_ended(struct vine *s, struct locus_actions *act, uint32_t x, int ok)
{
	struct xfer *c = &s->xfers[x];
	uint32_t o = c->obj, dst = c->dst, src = c->src;
	if (c->state != X_ACTIVE)
		return;
	if (src != LOCUS_FS && s->out[src])
		s->out[src]--;
	if (!ok) {
		/* The source could not serve it (a node failed: this baseline
		 * recovers nothing); its tasks never run. */
		c->state = X_QUEUED;
		s->lost++;
		if (src != LOCUS_FS)
			serve_node(s, act, src);
		return;
	}
	uint32_t r = rep_find(s, o, dst);
	if (r != NONE)
		s->links.cell[r].aux = NONE;
	uint32_t t;
	while (locus__links_pop(&s->links, &c->waiters, &t, NULL))
		if (!--s->tpending[t])
			send_task(s, act, t);
	xfer_free(s, x);
	serve_file(s, act, o, dst);
	if (src != LOCUS_FS)
		serve_node(s, act, src);
}

/* Task t ended on its node: its core is free, its outputs are cached
 * there, its readers may be ready, and inputs no one else reads go. */
static void task_ended(struct vine *s, struct locus_actions *act, uint32_t t)
{
	if (t >= s->nt || s->tst[t] != T_SENT)
		return;
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t n = s->tnode[t];
	s->fstack[s->wfirst[n] + s->nfree[n]++] = s->tcore[t];
	s->running[n]--;
	s->total_free++;
	s->tst[t] = T_DONE;
	s->done++;
	if (free_node_push(s, n)) {
		locus_act_oom(act);
		return;
	}
	for (uint32_t k = 0; k < tk->n_out; k++) {
		uint32_t o = s->g->outputs[tk->out_at + k];
		const struct locus_object *ob = &s->g->objects[o];
		if (!ob->n_cons)
			continue; /* a final output, on the file system now */
		if (rep_find(s, o, n) == NONE) {
			uint32_t l = locus__links_new(&s->links, n, NONE, s->rep_head[o]);
			if (l == NONE) {
				locus_act_oom(act);
				return;
			}
			s->rep_head[o] = l;
		}
		for (uint32_t j = 0; j < ob->n_cons; j++) {
			uint32_t c = s->g->consumers[ob->cons_at + j];
			if (s->tst[c] == T_WAIT && !--s->unready[c])
				make_ready(s, c);
		}
	}
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (--s->cons_left[o] || !is_produced(s, o) || s->keep)
			continue;
		/* Its last reader has ended: every cached copy goes. */
		uint32_t holder;
		while (locus__links_pop(&s->links, &s->rep_head[o], &holder, NULL)) {
			locus_act_drop(act, o, holder);
			s->drops++;
		}
	}
	schedule(s, act);
}

static void manager_start(struct vine *s, struct locus_actions *act)
{
	/* Where the workflow's inputs are at the start: on the file system,
	 * or on the nodes the catalog names. */
	for (uint32_t o = 0; o < s->no; o++) {
		if (is_produced(s, o))
			continue;
		uint32_t c = locus_replicas_count(s->mon->replicas, o);
		const uint32_t *h = locus_replicas_nodes(s->mon->replicas, o);
		s->on_fs[o] = c == 0;
		for (uint32_t k = c; k-- > 0;) {
			uint32_t l = locus__links_new(&s->links, h[k], NONE, s->rep_head[o]);
			if (l == NONE) {
				locus_act_oom(act);
				return;
			}
			s->rep_head[o] = l;
		}
	}
	for (uint32_t t = 0; t < s->nt; t++)
		if (!s->unready[t])
			make_ready(s, t);
	schedule(s, act);
}

static void on_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct vine *s = state;
	if (ev->proc < s->nw) {
		/* A worker reports its task's end to the manager. */
		if (ev->kind == LOCUS_EV_DONE)
			send(act, ev->proc, p_manager(s), M_DONE, ev->done.task);
		return;
	}
	switch (ev->kind) {
	case LOCUS_EV_START:
		manager_start(s, act);
		break;
	case LOCUS_EV_MESSAGE:
		if (ev->msg->type == M_DONE && ev->msg->arg[0] >= 0)
			task_ended(s, act, (uint32_t)ev->msg->arg[0]);
		break;
	case LOCUS_EV_TRANSFER:
		if (ev->transfer.tag < s->n_xfers)
			xfer_ended(s, act, (uint32_t)ev->transfer.tag, ev->transfer.ok);
		break;
	default:
		break;
	}
}

/* ---- creation ----------------------------------------------------------------------------- */

static void destroy(void *state)
{
	struct vine *s = state;
	if (!s)
		return;
	locus_heap_fini(&s->free_nodes);
	free(s->wfirst);
	free(s->ncores);
	free(s->nfree);
	free(s->fstack);
	free(s->running);
	free(s->out);
	free(s->nq_head);
	free(s->nq_tail);
	free(s->nq_len);
	free(s->unready);
	free(s->tst);
	free(s->tnode);
	free(s->tcore);
	free(s->tpending);
	free(s->ready);
	free(s->rep_head);
	free(s->cons_left);
	free(s->ow_head);
	free(s->ow_tail);
	free(s->on_fs);
	locus__links_fini(&s->links);
	free(s->xfers);
	free(s->acc);
	free(s->touched);
	free(s);
}

#define ALLOC(p, n) ((p) = locus__calloc((n) ? (n) : 1, sizeof *(p)))

static int create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	const struct locus_workload *wl = ctx->wl;
	double k, keep;
	int rc;
	*state = NULL;
	if ((rc = locus_kv_double(ctx->opts, "max_transfers", DEFAULT_MAX_TRANSFERS, 1, 1e6, &k,
				  err)) ||
	    (rc = locus_kv_double(ctx->opts, "keep", 0, 0, 1, &keep, err)))
		return rc;
	if (k != floor(k))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy taskvine: max_transfers is a whole number of copies a "
				  "node serves at once, got %g",
				  k);
	if ((rc = locus__flow_check_keep(keep, "taskvine", err)))
		return rc;
	if ((rc = locus__flow_check_central(ctx, "taskvine",
					    "runs one manager: expected 1 scheduler",
					    "that copies files", err)))
		return rc;
	struct vine *s = calloc(1, sizeof *s);
	if (!s)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	s->wl = wl;
	s->g = wl->graph;
	s->mon = ctx->monitor;
	s->nw = (uint32_t)ctx->n_workers;
	s->nn = (uint32_t)wl->platform->n_nodes;
	s->nt = (uint32_t)s->g->n_tasks;
	s->no = (uint32_t)s->g->n_objects;
	s->K = (uint32_t)k;
	s->keep = keep > 0;
	locus__links_init(&s->links);
	s->free_xfers = NONE;
	locus_rng_init(&s->rng, ctx->seed ^ 0x7461736b76696e65ull);
	uint32_t nn = s->nn, nt = s->nt, no = s->no;
	ALLOC(s->wfirst, nn);
	ALLOC(s->ncores, nn);
	ALLOC(s->nfree, nn);
	ALLOC(s->fstack, s->nw);
	ALLOC(s->running, nn);
	ALLOC(s->out, nn);
	ALLOC(s->nq_head, nn);
	ALLOC(s->nq_tail, nn);
	ALLOC(s->nq_len, nn);
	ALLOC(s->unready, nt);
	ALLOC(s->tst, nt);
	ALLOC(s->tnode, nt);
	ALLOC(s->tcore, nt);
	ALLOC(s->tpending, nt);
	ALLOC(s->ready, nt);
	ALLOC(s->rep_head, no);
	ALLOC(s->cons_left, no);
	ALLOC(s->ow_head, no);
	ALLOC(s->ow_tail, no);
	ALLOC(s->on_fs, no);
	ALLOC(s->acc, nn);
	ALLOC(s->touched, nn);
	rc = locus_heap_init(&s->free_nodes, sizeof(struct free_node), free_node_cmp);
	if (rc || !s->wfirst || !s->ncores || !s->nfree || !s->fstack || !s->running || !s->out ||
	    !s->nq_head || !s->nq_tail || !s->nq_len || !s->unready || !s->tst || !s->tnode ||
	    !s->tcore || !s->tpending || !s->ready || !s->rep_head || !s->cons_left ||
	    !s->ow_head || !s->ow_tail || !s->on_fs || !s->acc || !s->touched) {
		destroy(s);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	/* Each node's cores, free from the start (the lowest id taken
	 * first). */
	locus__flow_node_cores(wl, s->nw, s->wfirst, s->ncores);
	for (uint32_t n = 0; n < nn; n++)
		s->nq_head[n] = s->nq_tail[n] = NONE;
	for (uint32_t n = 0; n < nn; n++) {
		if (!s->ncores[n])
			continue;
		s->worker_nodes++;
		for (uint32_t i = 0; i < s->ncores[n]; i++)
			s->fstack[s->wfirst[n] + i] = s->wfirst[n] + s->ncores[n] - 1 - i;
		s->nfree[n] = s->ncores[n];
		s->total_free += s->ncores[n];
		if (free_node_push(s, n)) {
			destroy(s);
			return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		}
	}
	for (uint32_t o = 0; o < no; o++) {
		s->rep_head[o] = s->ow_head[o] = s->ow_tail[o] = NONE;
		s->cons_left[o] = s->g->objects[o].n_cons;
	}
	for (uint32_t t = 0; t < nt; t++) {
		const struct locus_task *tk = &s->g->tasks[t];
		s->tnode[t] = s->tcore[t] = NONE;
		for (uint32_t k2 = 0; k2 < tk->n_in; k2++)
			s->unready[t] += is_produced(s, s->g->inputs[tk->in_at + k2]);
	}
	*state = s;
	return 0;
}

static void stats(void *state, struct locus_policy_stats *out)
{
	struct vine *s = state;
	static const char *const names[] = {"dispatched", "peer_copies",   "fs_copies",
					    "cache_hits", "queued_copies", "max_waiting",
					    "drops",	  "lost"};
	uint64_t vals[] = {s->dispatched, s->peer_copies, s->fs_copies, s->cached,
			   s->queued,	  s->max_waiting, s->drops,	s->lost};
	locus__flow_counters(out, names, vals, LOCUS__ARRAY_LEN(vals));
}

const struct locus_policy locus__policy_taskvine = {
    .version = LOCUS_POLICY_VERSION,
    .name = "taskvine",
    .summary = "TaskVine-like manager: data-aware dispatch to free cores, peer transfers "
	       "(workflows)",
    .schedulers = locus__flow_one_scheduler,
    .create = create,
    .destroy = destroy,
    .on_event = on_event,
    .stats = stats,
    .flags = LOCUS_POLICY_GRAPHS,
    .options = "max_transfers=K, keep=0|1",
    .scheduler_node = locus__flow_one_scheduler_node,
    .needs = LOCUS_NEEDS_FLOW | LOCUS_NEEDS_COPIES,
};
