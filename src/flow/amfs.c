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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/flow.h"
#include "sched/policies.h"

#define NONE UINT32_MAX

enum config { C_STAGING, C_CACHE, C_AWARE, C_COGATHER, C_ASGATHER, C_SHARED, C_AUTO };
static const char *const configs[] = {"staging",  "cache",  "aware", "cogather",
				      "asgather", "shared", "auto",  NULL};

/* How a worker brings the inputs of the task at the head of its queue. */
enum fetch { F_NONE, F_SEQ, F_FS };

/* Messages (beside the engine's assignments). */
enum {
	M_TASKS = LOCUS_MSG_USER + 1, /* submitter -> dispatcher: your task list */
	M_FILES,		      /* submitter -> server: your file list */
	M_QUERY,		      /* -> server: arg0 file, arg1 the asker */
	M_LOCATED,		      /* server -> asker: arg0 file, arg1 n, arg2.. nodes (0: N/A) */
	M_NOTIFY,		      /* server -> subscriber: arg0 file, arg1 node */
	M_PRODUCED,		      /* dispatcher -> server: arg0 file, arg1 node */
	M_ADDLOC,		      /* -> server: arg0 file, arg1 node */
	M_CONSUMED,		      /* dispatcher -> server: arg0 file a task has read */
	M_DONE,			      /* worker -> dispatcher: arg0 task, arg1 node */
	M_FINISHED,		      /* dispatcher -> submitter */
	M_STEAL,		      /* thief -> victim: arg0 the thief */
	M_NOTHING,		      /* victim -> thief */
	M_MOVED,		      /* victim -> dispatcher: arg0 task, arg1 its new worker */
	M_STOP,			      /* submitter -> worker: the workflow is done */
	M_DELLOC,		      /* -> server: arg0 file, arg1 a node that lacked it */
	M_HOLD,			      /* dispatcher -> server: a gather brings arg0 to node arg1 */
	M_UNHOLD		      /* dispatcher -> server: arg0 at arg1 no longer held (arg2:
					 a task sent to arg1 still reads it) */
};

/* An idle worker looks for work to steal after STEAL_WAIT seconds, then
 * waits twice as long after each round that found none, up to
 * STEAL_WAIT_MAX. */
#define STEAL_WAIT     0.05
#define STEAL_WAIT_MAX 12.8
#define STEAL_TIMER    1

/* Copy (and dispatcher timer) tags: what a LOCUS_EV_TRANSFER is about. */
enum { K_FETCH = 1, K_COLL = 2, K_ASYNC = 3, K_REPL = 4, K_RFETCH = 5 };
#define TAG(k, a, b) ((uint64_t)(k) << 56 | (uint64_t)(a) << 24 | (uint64_t)(b))
/* A = a task or a collective (32 bits), B = an entry of a collective. */
#define TAG_KIND(t)  ((int)((t) >> 56))
#define TAG_A(t)     ((uint32_t)(((t) >> 24) & 0xffffffffu))
#define TAG_B(t)     ((uint32_t)((t)&0xffffffu))

/* A task at its dispatcher. */
enum { T_WAIT, T_HELD, T_SENT, T_DONE };

/* A collective run by a dispatcher; CO_REPLICA: a multicast group's
 * writer run again on other nodes (V-F5). */
enum { CO_GATHER, CO_REDUCE, CO_MULTICAST, CO_SCATTER, CO_REPLICA };

/* dcoll of a group a dispatcher decided not to multicast (none of its
 * tasks reads it as a multicast). */
#define NO_COLL (UINT32_MAX - 1)

struct coll {
	int kind;
	uint32_t disp;	/* the dispatcher running it */
	uint32_t task;	/* gather, reduce: the task; multicast, scatter, replica: the producer */
	uint32_t n;	/* entries (nodes), root first; a replica's: the replicas' */
	uint32_t *node, *parent, *end, *wait, *hi;
	/* Files: entry i's are files[fat[i] .. fat[i + 1]); a subtree
	 * [i, end[i]) has files[fat[i] .. fat[end[i]]). Multicast: the group,
	 * files[0 .. fat[1]). */
	uint32_t *fat, *files;
	double *partial; /* reduce: bytes each entry has reduced */
	double *ready;	 /* reduce: when each entry has reduced its own files */
	/* Copies still to end; a replica's: runs still to end, and wait[i]
	 * entry i's copies of the writer's inputs still to come. */
	uint32_t left;
	/* Multicast from outside its scope or from above its copies, scatter
	 * from above its pieces: the source sends to entry 1 alone (coll_tree). */
	int relay;
	int done;
};

struct amfs {
	const struct locus_workload *wl;
	const struct locus_graph *g;
	const struct locus_monitor *mon;
	struct locus_flow_analysis *an;
	int config, aware_bytes, keep;
	int replicate_task; /* -o replicate=task (V-F5) */
	uint32_t steal; /* neighbours to try (0: none, UINT32_MAX: all) */
	double file_cost, reduce_cost;
	double net_bw; /* the worker nodes' mean interface (auto's rule) */
	double fetch_cost; /* a worker's peer copy of one file: its set-up, seconds */
	double now;	   /* the time of the event being handled */
	uint32_t nw, nn, D;
	/* Groups: dispatcher d's worker nodes and workers; each node's
	 * workers. */
	uint32_t *node_group;
	uint32_t *gnodes, *gnodes_at, *gworkers, *gworkers_at;
	uint32_t *nworkers, *nworkers_at;
	uint32_t *rr; /* by dispatcher: round-robin position in its workers */
	/* Tasks. */
	uint32_t *tdisp;
	uint32_t *dtasks, *dtasks_at;
	uint32_t *missing; /* produced inputs its dispatcher has not located */
	uint32_t *mc_wait; /* multicasts it waits for */
	uint8_t *tst;
	uint8_t *async;	   /* gathers asynchronously (decided once) */
	/* Asynchronous gathers: the node the task's inputs are copied to as
	 * each is produced, and how many are not there yet. */
	uint32_t *atarget, *aleft;
	uint8_t *tfetch;   /* how its worker brings its inputs */
	uint8_t *tgm, *tom; /* the gathering and outputs it was assigned with */
	/* Dispatcher: the task runs where a gather brought its inputs (its
	 * assignment says so); worker: it was assigned so (never stolen). */
	uint8_t *tbound, *tstay;
	uint8_t *mc_out; /* the task writes a multicast file */
	/* The task reads a stored input nodes hold from the start (a
	 * catalog's chunk, not on the file system): it reads it where it is
	 * when it starts, not from a cache (its locality is the workload's). */
	uint8_t *tcat;
	/* Servers: copies gathers brought to nodes that are not the file's
	 * registered locations: (file << 32 | node) -> how many gathers still
	 * hold it there (open addressing; key 0 free, so keys are stored + 1);
	 * a file's entries are its server's. */
	uint64_t *tkeys;
	uint32_t *tcount;
	size_t tcap, tused;
	uint32_t *tworker; /* where its dispatcher sent it */
	uint32_t *tcoll;   /* the collective that brought its inputs there */
	uint32_t *cursor;  /* worker: next input to bring (F_SEQ) */
	/* Dispatcher d's produced inputs (sorted), their known location and
	 * the collective (multicast or scatter) d ran for them, or NONE. */
	uint32_t *dobj, *dobj_at, *dloc, *dcoll;
	/* By dispatcher and stage: the file groups its tasks read, counted
	 * per task (V-F's consumption: a group is the files one task wrote
	 * that a task reads; workflow inputs are none). */
	uint64_t *dgroups;
	/* By node and stage: the stage's input files the node's dispatcher
	 * knows the node holds or will (counted when it sends their writer,
	 * or copies them there: V-F3's table); smark, sgen: scratch. */
	uint32_t *sload, *smark, sgen;
	uint32_t *scount, *stouch; /* scratch by stage (group_share) */
	/* By worker: tasks its node's dispatcher sent to it, not done. */
	uint32_t *wload;
	/* With replicate=task: by dispatcher, the writers of multicast groups
	 * its tasks read (sorted), whose replicas it runs; the writers (and
	 * their nodes) the event being handled sent, whose replicas start at
	 * its end, once the table counts all it sent. */
	uint32_t *drepl, *drepl_at;
	uint32_t *rsent;
	size_t n_rsent, rsent_cap;
	uint32_t *dleft;	/* by dispatcher: tasks not done */
	/* Servers: by file (each file's record at its server). */
	uint8_t *produced;
	uint32_t *consumed;
	struct link {
		uint32_t val, next;
	} *links;
	size_t n_links, links_cap;
	uint32_t free_links;
	uint32_t *loc_head, *sub_head;
	/* Workers' queues (task lists, in the order the tasks came). */
	uint32_t *qhead, *qtail, *qnext, *qlen;
	uint32_t *stole; /* by worker: steal tries in this round */
	double *steal_wait; /* by worker: the wait before its next round */
	uint8_t *timer_set; /* by worker: a steal timer is pending */
	uint8_t *wstopped;  /* by worker: told the workflow is done */
	uint32_t finished;  /* submitter: dispatchers done */
	/* Collectives. */
	struct coll *colls;
	size_t n_colls, colls_cap;
	/* What it did. */
	uint64_t queries, collectives[5], replicas, steals, steal_tries, fetches, drops;
	uint64_t *stage_colls; /* per stage: collectives bringing its tasks inputs */
	char *reduce_copy;     /* the reduce option's stages, split in place */
	const char **reduce_names;
	uint64_t sent;
};

/* ---- processes ------------------------------------------------------------------- */

static uint32_t p_submitter(const struct amfs *s)
{
	return s->nw;
}

static uint32_t p_disp(const struct amfs *s, uint32_t d)
{
	return s->nw + 1 + d;
}

static uint32_t p_server(const struct amfs *s, uint32_t m)
{
	return s->nw + 1 + s->D + m;
}

static uint32_t server_of(const struct amfs *s, uint32_t o)
{
	return (uint32_t)(((uint64_t)o * 2654435761u >> 7) % s->D);
}

static uint32_t node_of(const struct amfs *s, uint32_t w)
{
	return s->wl->worker_node[w];
}

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

/* ---- links (locations and subscribers) ---------------------------------------------- */

static int link_push(struct amfs *s, uint32_t *head, uint32_t val)
{
	for (uint32_t l = *head; l != NONE; l = s->links[l].next)
		if (s->links[l].val == val)
			return 0;
	uint32_t l = s->free_links;
	if (l != NONE) {
		s->free_links = s->links[l].next;
	} else {
		if (locus__grow(&s->links, &s->links_cap, s->n_links + 1, sizeof *s->links))
			return LOCUS_ENOMEM;
		l = (uint32_t)s->n_links++;
	}
	s->links[l] = (struct link){val, *head};
	*head = l;
	return 0;
}

/* Removes val from the list at *head, if it is there. */
static void link_remove(struct amfs *s, uint32_t *head, uint32_t val)
{
	for (uint32_t *at = head; *at != NONE; at = &s->links[*at].next)
		if (s->links[*at].val == val) {
			uint32_t l = *at;
			*at = s->links[l].next;
			s->links[l].next = s->free_links;
			s->free_links = l;
			return;
		}
}

static void link_clear(struct amfs *s, uint32_t *head)
{
	while (*head != NONE) {
		uint32_t l = *head;
		*head = s->links[l].next;
		s->links[l].next = s->free_links;
		s->free_links = l;
	}
}

/* ---- messages ------------------------------------------------------------------------ */

static void send(struct locus_actions *act, uint32_t from, uint32_t to, uint32_t type,
		 uint32_t bytes, int n, int64_t a0, int64_t a1)
{
	struct locus_msg m = {
	    .type = type, .from = from, .to = to, .bytes = bytes, .n_args = (uint32_t)n};
	m.arg[0] = a0;
	m.arg[1] = a1;
	locus_act_send(act, &m);
}

/* A task's description: what its worker is sent (the paper's task
 * descriptions enumerate every file: 21.3 KB for mImgtbl's 1,319). */
static uint32_t description(const struct amfs *s, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	return 64 + 32 * (tk->n_in + tk->n_out);
}

/* ---- the dispatcher's view ----------------------------------------------------------- */

/* Index of object o in dispatcher d's inputs, or NONE. */
static uint32_t dindex(const struct amfs *s, uint32_t d, uint32_t o)
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
static uint32_t dwhere(const struct amfs *s, uint32_t d, uint32_t o)
{
	uint32_t k = dindex(s, d, o);
	return k == NONE ? NONE : s->dloc[k];
}

static int is_gather(const struct amfs *s, uint32_t t)
{
	return (s->an->task_patterns[t] & (LOCUS_PATTERN_GATHER | LOCUS_PATTERN_REDUCE)) != 0;
}

static int data_aware(const struct amfs *s)
{
	return s->config != C_STAGING && s->config != C_CACHE && s->config != C_SHARED;
}

/* The worker of node n dispatcher d sends a task to: of d's nodes, the
 * one with the fewest tasks d sent it; of another dispatcher's (a
 * gather's root), whose loads d does not know, the node's first. NONE
 * when the node has none. */
static uint32_t worker_on(const struct amfs *s, uint32_t d, uint32_t n)
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
static uint32_t round_robin(struct amfs *s, uint32_t d)
{
	uint32_t n = s->gworkers_at[d + 1] - s->gworkers_at[d];
	return s->gworkers[s->gworkers_at[d] + s->rr[d]++ % n];
}

/* The worker dispatcher d sends task t to: a worker of `hint` (a node)
 * when it is d's, else data-aware or round-robin. */
static uint32_t choose_worker(struct amfs *s, uint32_t d, uint32_t t, uint32_t hint)
{
	if (hint == NONE && data_aware(s)) {
		const struct locus_task *tk = &s->g->tasks[t];
		uint64_t best = 0;
		for (uint32_t k = 0; k < tk->n_in; k++) {
			uint32_t o = s->g->inputs[tk->in_at + k];
			if (s->g->objects[o].producer == LOCUS_NONE)
				continue;
			uint32_t n = dwhere(s, d, o), i = dindex(s, d, o);
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
						uint32_t w = worker_on(s, d, c->node[e]);
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
				if (s->g->objects[oj].producer != LOCUS_NONE && dwhere(s, d, oj) == n)
					b += s->g->objects[oj].bytes;
			}
			if (hint == NONE || b > best) {
				best = b;
				hint = n;
			}
		}
	}
	if (hint != NONE && hint < s->nn && s->node_group[hint] == d) {
		uint32_t w = worker_on(s, d, hint);
		if (w != NONE)
			return w;
	}
	return round_robin(s, d);
}

static void replicate_sent(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t,
			   uint32_t node);

/* Sends task t to worker w with the ways of the configuration. */
static void send_task(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t,
		      uint32_t w, enum locus_gather gather)
{
	/* Staging writes its outputs back to the file system (its local
	 * copy is scratch); shared writes them there; the others keep them
	 * and write only the final ones. */
	enum locus_output out = s->config == C_SHARED || s->config == C_STAGING
				    ? LOCUS_OUTPUT_FS
				    : LOCUS_OUTPUT_FINAL;
	if (s->config == C_SHARED)
		gather = LOCUS_GATHER_READ;
	enum fetch f = s->config == C_SHARED	      ? F_NONE
		       : s->config == C_STAGING	      ? F_FS
		       : gather == LOCUS_GATHER_NONE ? F_NONE
		       : s->async[t]		      ? F_NONE
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
		replicate_sent(s, act, d, t, node_of(s, w));
}

/* ---- collectives ------------------------------------------------------------------------ */

static struct coll *coll_new(struct amfs *s, int kind, uint32_t d, uint32_t task, uint32_t n,
			     uint32_t n_files, uint32_t *id)
{
	if (locus__grow(&s->colls, &s->colls_cap, s->n_colls + 1, sizeof *s->colls))
		return NULL;
	struct coll *c = &s->colls[s->n_colls];
	memset(c, 0, sizeof *c);
	c->kind = kind;
	c->disp = d;
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
		free(c->node);
		free(c->parent);
		free(c->end);
		free(c->wait);
		free(c->hi);
		free(c->fat);
		free(c->files);
		free(c->partial);
		free(c->ready);
		return NULL;
	}
	*id = (uint32_t)s->n_colls++;
	s->collectives[kind]++;
	/* A gather's or reduction's stage is its task's (a multicast's and a
	 * scatter's, their readers', are counted where they are found). */
	if (kind == CO_GATHER || kind == CO_REDUCE)
		s->stage_colls[locus_flow_stage_of(s->g, task)]++;
	return c;
}

/* The tree of c's entries: parents, subtree ends, children to hear from. */
static void coll_tree(struct coll *c)
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
static uint32_t next_child(struct coll *c, uint32_t i)
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
static void coll_copy(struct amfs *s, struct locus_actions *act, uint32_t id, uint32_t child,
		      uint32_t from_entry, uint32_t to_entry, uint32_t f0, uint32_t f1, double delay,
		      uint64_t bytes)
{
	struct coll *c = &s->colls[id];
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
static double files_bytes(const struct amfs *s, const struct coll *c, uint32_t f0, uint32_t f1)
{
	double b = 0;
	for (uint32_t k = f0; k < f1; k++)
		b += (double)s->g->objects[c->files[k]].bytes;
	return b;
}

static int here(const struct amfs *s, uint32_t o, uint32_t node);
static void send(struct locus_actions *act, uint32_t from, uint32_t to, uint32_t type,
		 uint32_t bytes, int n, int64_t a0, int64_t a1);

/* ---- copies gathers bring ------------------------------------------------------------------ */

/* The slot of key (file o, node n) in the transit table: its own, or the
 * free one where it would go. */
static size_t transit_slot(const struct amfs *s, uint32_t o, uint32_t n)
{
	uint64_t key = ((uint64_t)o << 32 | n) + 1, h = key * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 20) & (s->tcap - 1);
	while (s->tkeys[i] && s->tkeys[i] != key)
		i = (i + 1) & (s->tcap - 1);
	return i;
}

/* Server: a gather holds o at node n (one more). */
static int transit_hold(struct amfs *s, uint32_t o, uint32_t n)
{
	if (2 * (s->tused + 1) > s->tcap) {
		size_t old = s->tcap, cap = old ? 2 * old : 64;
		uint64_t *keys = s->tkeys;
		uint32_t *count = s->tcount;
		s->tkeys = calloc(cap, sizeof *s->tkeys);
		s->tcount = calloc(cap, sizeof *s->tcount);
		if (!s->tkeys || !s->tcount) {
			free(s->tkeys);
			free(s->tcount);
			s->tkeys = keys;
			s->tcount = count;
			return LOCUS_ENOMEM;
		}
		s->tcap = cap;
		for (size_t i = 0; i < old; i++)
			if (keys[i]) {
				uint64_t k = keys[i] - 1;
				size_t j = transit_slot(s, (uint32_t)(k >> 32), (uint32_t)k);
				s->tkeys[j] = keys[i];
				s->tcount[j] = count[i];
			}
		free(keys);
		free(count);
	}
	size_t i = transit_slot(s, o, n);
	if (!s->tkeys[i]) {
		s->tkeys[i] = ((uint64_t)o << 32 | n) + 1;
		s->tused++;
	}
	s->tcount[i]++;
	return 0;
}

/* Server: a gather no longer holds o at node n; whether none does now. */
static int transit_unhold(struct amfs *s, uint32_t o, uint32_t n)
{
	if (!s->tcap)
		return 1;
	size_t i = transit_slot(s, o, n);
	if (!s->tkeys[i])
		return 1;
	if (--s->tcount[i])
		return 0;
	/* Removed by shifting the run that follows back (linear probing). */
	size_t j = i;
	for (;;) {
		j = (j + 1) & (s->tcap - 1);
		if (!s->tkeys[j])
			break;
		uint64_t k = s->tkeys[j] - 1;
		size_t home = (size_t)(((k + 1) * 0x9E3779B97F4A7C15ull) >> 20) & (s->tcap - 1);
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			s->tkeys[i] = s->tkeys[j];
			s->tcount[i] = s->tcount[j];
			i = j;
		}
	}
	s->tkeys[i] = 0;
	s->tcount[i] = 0;
	s->tused--;
	return 1;
}

/* Server: whether node n is a location of o it knows (o was made there,
 * or a copy there was registered): those stay until o's last reader. */
static int registered(const struct amfs *s, uint32_t o, uint32_t n)
{
	for (uint32_t l = s->loc_head[o]; l != NONE; l = s->links[l].next)
		if (s->links[l].val == n)
			return 1;
	return 0;
}

/* Dispatcher d: a gather of its brings o to node n. Told before the copy
 * starts, so that o's server never drops a copy there that another
 * gather is about to use. */
static void transit_to(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t o,
		       uint32_t n)
{
	if (!s->keep)
		send(act, p_disp(s, d), p_server(s, server_of(s, o)), M_HOLD, 0, 2, o, n);
}

/* Dispatcher d's gather is done with its copy of o at node n: o's server
 * drops it unless another gather holds it there, n is a registered
 * location, or a task d sent to n still reads it (then it registers it,
 * and it goes with the file's other copies after its last reader). */
static void transit_done(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t o,
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

/* Gather or reduce: entry i sends its subtree's files (or partial) up. */
static void coll_up(struct amfs *s, struct locus_actions *act, uint32_t id, uint32_t i)
{
	struct coll *c = &s->colls[id];
	uint32_t f0 = c->fat[i], f1 = c->fat[c->end[i]];
	if (c->kind == CO_REDUCE) {
		/* Every node reduced its own files from the start (ready);
		 * what its children sent it, now. */
		uint64_t out = 0;
		const struct locus_task *tk = &s->g->tasks[c->task];
		for (uint32_t k = 0; k < tk->n_out; k++)
			out += s->g->objects[s->g->outputs[tk->out_at + k]].bytes;
		double wait = c->ready[i] > s->now ? c->ready[i] - s->now : 0;
		coll_copy(s, act, id, i, i, c->parent[i], 0, 0,
			  wait + s->reduce_cost * c->partial[i], out ? out : 1);
		return;
	}
	for (uint32_t k = f0; k < f1; k++)
		transit_to(s, act, c->disp, c->files[k], c->node[c->parent[i]]);
	coll_copy(s, act, id, i, i, c->parent[i], f0, f1, s->file_cost * (double)(f1 - f0), 0);
}

/* Top-down (multicast, scatter): entry i, holding what it should, sends
 * to its next child, if any. */
static void coll_down(struct amfs *s, struct locus_actions *act, uint32_t id, uint32_t i)
{
	struct coll *c = &s->colls[id];
	uint32_t ch = next_child(c, i);
	if (ch == NONE)
		return;
	if (c->kind == CO_MULTICAST)
		coll_copy(s, act, id, ch, i, ch, 0, c->fat[1], 0, 0);
	else
		coll_copy(s, act, id, ch, i, ch, c->fat[ch], c->fat[c->end[ch]],
			  s->file_cost * (double)(c->fat[c->end[ch]] - c->fat[ch]), 0);
}

static void dispatch_ready(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t);

/* The first file of producer p's that task t reads as a multicast (its
 * stage reads it often), or NONE. */
static uint32_t group_read(const struct amfs *s, uint32_t t, uint32_t p)
{
	const struct locus_task *tk = &s->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (s->g->objects[o].producer == p && s->an->input_multicast[tk->in_at + k])
			return o;
	}
	return NONE;
}

/* A multicast's end: dispatcher d's tasks waiting for it (each counted
 * once per group, at the first file of the group it reads) wait for one
 * multicast fewer; those waiting for none are dispatched (a task whose
 * first input is in the group to the least loaded holder: choose_worker). */
static void coll_release(struct amfs *s, struct locus_actions *act, uint32_t id)
{
	const struct coll *c = &s->colls[id];
	if (c->kind != CO_MULTICAST && c->kind != CO_REPLICA)
		return;
	/* Read before the loop: a task dispatched there may start a
	 * collective, which moves s->colls (the files stay). */
	uint32_t d = c->disp, p = c->task, f1 = c->fat[1];
	const uint32_t *files = c->files;
	for (uint32_t k = c->fat[0]; k < f1; k++) {
		uint32_t o = files[k];
		const struct locus_object *ob = &s->g->objects[o];
		for (uint32_t j = 0; j < ob->n_cons; j++) {
			uint32_t t = s->g->consumers[ob->cons_at + j];
			/* Waiting, or held by a scatter too (which sends it
			 * on once neither keeps it). */
			if (s->tdisp[t] != d || (s->tst[t] != T_WAIT && s->tst[t] != T_HELD) ||
			    !s->mc_wait[t] || group_read(s, t, p) != o)
				continue;
			if (!--s->mc_wait[t])
				dispatch_ready(s, act, d, t);
		}
	}
}

/* A reader of a scattered piece, the piece now on `node`: it runs there
 * unless something else keeps it waiting (its other inputs, a multicast:
 * dispatch_ready sends it when the last is told); a gathering one
 * gathers first. */
static void scatter_reached(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t,
			    uint32_t node)
{
	s->tst[t] = T_WAIT;
	if (s->missing[t] || s->mc_wait[t])
		return;
	if (is_gather(s, t)) {
		dispatch_ready(s, act, d, t);
		return;
	}
	uint32_t w = worker_on(s, d, node);
	send_task(s, act, d, t, w != NONE ? w : round_robin(s, d), LOCUS_GATHER_POLICY);
}

/* Dispatcher d heard that copy `child` of collective `id` ended. */
static void coll_step(struct amfs *s, struct locus_actions *act, uint32_t id, uint32_t child,
		      int ok)
{
	struct coll *c = &s->colls[id];
	uint32_t d = c->disp;
	c->left--;
	(void)ok;
	if (c->kind == CO_GATHER || c->kind == CO_REDUCE) {
		uint32_t p = c->parent[child];
		if (c->kind == CO_REDUCE) {
			const struct locus_task *tk = &s->g->tasks[c->task];
			uint64_t out = 0;
			for (uint32_t k = 0; k < tk->n_out; k++)
				out += s->g->objects[s->g->outputs[tk->out_at + k]].bytes;
			c->partial[p] += (double)(out ? out : 1);
		} else {
			/* The files are where the copy brought them (held
			 * there for this gather since it started); what only
			 * passed through the child is let go there. */
			for (uint32_t k = c->fat[child + 1]; k < c->fat[c->end[child]]; k++)
				transit_done(s, act, d, c->files[k], c->node[child]);
		}
		if (--c->wait[p])
			return;
		if (p) {
			coll_up(s, act, id, p);
			return;
		}
		/* Everything is at the root: the task runs there. */
		c->done = 1;
		uint32_t t = c->task, w = worker_on(s, d, c->node[0]);
		if (w == NONE)
			w = choose_worker(s, d, t, c->node[0]);
		s->tcoll[t] = id;
		s->tbound[t] = 1;
		send_task(s, act, d, t, w,
			  c->kind == CO_REDUCE ? LOCUS_GATHER_NONE : LOCUS_GATHER_POLICY);
		return;
	}
	if (c->kind == CO_MULTICAST) {
		coll_down(s, act, id, child);
		coll_down(s, act, id, c->parent[child]);
		if (!c->left && !c->done) {
			c->done = 1;
			/* The servers learn of the copies. */
			for (uint32_t e = 1; e < c->n; e++)
				for (uint32_t k = c->fat[0]; k < c->fat[1]; k++)
					send(act, p_disp(s, d), p_server(s, server_of(s, c->files[k])),
					     M_ADDLOC, 0, 2, c->files[k], c->node[e]);
			coll_release(s, act, id);
		}
		return;
	}
	/* Scatter: the child has its subtree's pieces (their servers learn
	 * of the copies, to delete them with the rest); its own tasks run
	 * there, the rest go on down. */
	for (uint32_t k = c->fat[child]; k < c->fat[c->end[child]]; k++)
		send(act, p_disp(s, d), p_server(s, server_of(s, c->files[k])), M_ADDLOC, 0, 2,
		     c->files[k], c->node[child]);
	coll_down(s, act, id, child);
	coll_down(s, act, id, c->parent[child]);
	/* Its readers there may start collectives, which move s->colls. */
	uint32_t f1 = c->fat[child + 1], at = c->node[child];
	const uint32_t *files = c->files;
	for (uint32_t k = c->fat[child]; k < f1; k++) {
		uint32_t o = files[k];
		const struct locus_object *ob = &s->g->objects[o];
		for (uint32_t j = 0; j < ob->n_cons; j++) {
			uint32_t t = s->g->consumers[ob->cons_at + j];
			if (s->tdisp[t] == d && s->tst[t] == T_HELD && s->tcoll[t] == id)
				scatter_reached(s, act, d, t, at);
		}
	}
}

/* The entry of a gather whose node is n: the root, or one of the rest,
 * whose nodes decrease. */
static uint32_t gather_entry(const struct coll *c, uint32_t n)
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

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x < y) - (x > y);
}

/* A gather (or reduction) of task t's inputs, all located: a tree over
 * the nodes holding them, rooted at the highest of d's among them. */
static int start_gather(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t *nodes = malloc((tk->n_in + 1) * sizeof *nodes), n = 0;
	if (!nodes)
		return LOCUS_ENOMEM;
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (s->g->objects[o].producer != LOCUS_NONE)
			nodes[n++] = dwhere(s, d, o);
	}
	qsort(nodes, n, sizeof *nodes, cmp_desc);
	uint32_t u = 0;
	for (uint32_t k = 0; k < n; k++)
		if (!u || nodes[u - 1] != nodes[k])
			nodes[u++] = nodes[k];
	/* The root: the highest of them, so that every file flows from a
	 * lower node to a higher one (V-D), whichever dispatcher's it is (the
	 * task runs there); with none (never, for a gather), the next of d's
	 * workers' nodes round-robin. */
	uint32_t root = u && nodes[0] < s->nn ? nodes[0] : node_of(s, round_robin(s, d));
	uint32_t produced = n, id;
	struct coll *c = coll_new(s, s->an->task_patterns[t] & LOCUS_PATTERN_REDUCE ? CO_REDUCE
										    : CO_GATHER,
				  d, t, u + 1, produced, &id);
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
			c->fat[gather_entry(c, dwhere(s, d, o)) + 1]++;
	}
	for (uint32_t e = 0; e < c->n; e++) {
		c->fat[e + 1] += c->fat[e];
		c->hi[e] = c->fat[e]; /* a cursor until coll_tree */
	}
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (s->g->objects[o].producer != LOCUS_NONE)
			c->files[c->hi[gather_entry(c, dwhere(s, d, o))]++] = o;
	}
	/* A reduction: every node reduces its own files from now on. */
	for (uint32_t e = 0; e < c->n && c->kind == CO_REDUCE; e++)
		c->ready[e] = s->now + s->reduce_cost * files_bytes(s, c, c->fat[e], c->fat[e + 1]);
	coll_tree(c);
	s->tst[t] = T_HELD;
	s->tcoll[t] = id; /* (no longer a scatter's: its pieces only count) */
	if (c->n == 1) {
		/* Everything is on one node already. */
		uint32_t w = worker_on(s, d, root);
		s->tbound[t] = 1;
		send_task(s, act, d, t, w != NONE ? w : choose_worker(s, d, t, root),
			  c->kind == CO_REDUCE ? LOCUS_GATHER_NONE : LOCUS_GATHER_POLICY);
		return 0;
	}
	for (uint32_t e = 1; e < c->n; e++)
		if (!c->wait[e])
			coll_up(s, act, id, e);
	return 0;
}

/* The group of files producer p wrote that dispatcher d's tasks read as
 * multicasts: how many of d's tasks read it so, and how many holders d
 * wants it on (V-F2): for each stage reading it, ceil(q x d's servers),
 * q the group's share of the groups d's tasks of that stage read, at
 * most one a reader; the most of those, and its stage (0 when none
 * reads it). */
static uint32_t group_share(struct amfs *s, uint32_t d, uint32_t p, uint64_t *readers,
			    uint32_t *stage)
{
	uint32_t ns = (uint32_t)s->an->n_stages, touched = 0, n = 0;
	uint32_t servers = s->gnodes_at[d + 1] - s->gnodes_at[d];
	*readers = 0;
	*stage = 0;
	for (uint32_t i = s->dtasks_at[d]; i < s->dtasks_at[d + 1]; i++) {
		uint32_t t = s->dtasks[i], st = locus_flow_stage_of(s->g, t);
		if (group_read(s, t, p) == NONE)
			continue;
		(*readers)++;
		if (!s->scount[st]++)
			s->stouch[touched++] = st;
	}
	for (uint32_t k = 0; k < touched; k++) {
		uint32_t st = s->stouch[k];
		uint32_t m = locus_flow_replicas(s->scount[st], s->dgroups[(size_t)d * ns + st], servers);
		if (!k || m > n || (m == n && st < *stage)) {
			n = m;
			*stage = st;
		}
		s->scount[st] = 0;
	}
	return n;
}

/* Picks `copies` of d's servers for a group of `files` files of a stage:
 * those holding the fewest of the stage's input files (V-F3), never
 * `skip`; counts the group on each; writes them to out in increasing
 * node order (the global order the trees follow). Returns how many. */
static uint32_t place_group(struct amfs *s, uint32_t d, uint32_t stage, uint32_t files,
			    uint32_t copies, uint32_t skip, uint32_t *out)
{
	uint32_t servers = s->gnodes_at[d + 1] - s->gnodes_at[d], ns = (uint32_t)s->an->n_stages;
	uint32_t *load = malloc((servers ? servers : 1) * sizeof *load);
	if (!load)
		return NONE;
	uint32_t skipped = NONE;
	for (uint32_t i = 0; i < servers; i++) {
		uint32_t n = s->gnodes[s->gnodes_at[d] + i];
		load[i] = s->sload[(size_t)n * ns + stage];
		if (n == skip)
			skipped = i;
	}
	uint32_t got = locus_flow_place_replicas(load, servers, copies, &skipped,
						 skipped == NONE ? 0 : 1, out);
	free(load);
	for (uint32_t i = 0; i < got; i++) {
		out[i] = s->gnodes[s->gnodes_at[d] + out[i]];
		s->sload[(size_t)out[i] * ns + stage] += files;
	}
	qsort(out, got, sizeof *out, cmp_u32);
	return got;
}

/* A multicast of the group of files producer p wrote that dispatcher d's
 * tasks of multicast stages read, from node `from`. */
static int start_multicast(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t p,
			   uint32_t from)
{
	const struct locus_task *pk = &s->g->tasks[p];
	uint32_t group = 0, stage;
	for (uint32_t k = 0; k < pk->n_out; k++) {
		uint32_t o = s->g->outputs[pk->out_at + k];
		group += (s->an->object_patterns[o] & LOCUS_PATTERN_MULTICAST) && dindex(s, d, o) != NONE;
	}
	uint64_t readers;
	uint32_t n = group_share(s, d, p, &readers, &stage);
	int inside = from < s->nn && s->node_group[from] == d;
	if (!readers) {
		/* None of d's tasks reads it as a multicast (a reader of
		 * another stage takes it as any other file): no copy. */
		for (uint32_t k = 0; k < pk->n_out; k++) {
			uint32_t i = dindex(s, d, s->g->outputs[pk->out_at + k]);
			if (i != NONE && (s->an->object_patterns[s->dobj[i]] & LOCUS_PATTERN_MULTICAST))
				s->dcoll[i] = NO_COLL;
		}
		return 0;
	}
	uint32_t copies = locus_flow_copies(n, inside);
	uint32_t *targets = malloc((copies + 1) * sizeof *targets);
	if (!targets)
		return LOCUS_ENOMEM;
	uint32_t got = place_group(s, d, stage, group, copies, from, targets);
	if (got == NONE) {
		free(targets);
		return LOCUS_ENOMEM;
	}
	uint32_t id;
	struct coll *c = coll_new(s, CO_MULTICAST, d, p, got + 1, group, &id);
	if (!c) {
		free(targets);
		return LOCUS_ENOMEM;
	}
	s->stage_colls[stage]++;
	c->node[0] = from;
	memcpy(c->node + 1, targets, got * sizeof *targets);
	free(targets);
	c->n = got + 1;
	/* The copies' nodes increase (V-D). The source roots their tree when
	 * it is in d's scope and below them all; else it sends one copy to
	 * the lowest, which roots the tree of the rest: from outside the
	 * scope, so that each scope loads the source's link once, not once a
	 * round; from above, so that no file of the tree flows down (the
	 * source takes no part in the tree: it waits for no child). */
	c->relay = !inside || (got && from > c->node[1]);
	uint32_t f = 0;
	for (uint32_t k = 0; k < pk->n_out; k++) {
		uint32_t o = s->g->outputs[pk->out_at + k], i = dindex(s, d, o);
		if (!(s->an->object_patterns[o] & LOCUS_PATTERN_MULTICAST) || i == NONE)
			continue;
		c->files[f++] = o;
		s->dcoll[i] = id;
	}
	c->fat[0] = 0;
	for (uint32_t e = 1; e <= c->n; e++)
		c->fat[e] = f;
	coll_tree(c);
	s->replicas += got;
	/* The tasks reading the group as a multicast wait for it (once,
	 * however many of its files they read). */
	for (uint32_t i = s->dtasks_at[d]; i < s->dtasks_at[d + 1]; i++) {
		uint32_t t = s->dtasks[i];
		if (!s->async[t] && group_read(s, t, p) != NONE)
			s->mc_wait[t]++;
	}
	if (c->n == 1) {
		c->done = 1;
		coll_release(s, act, id);
		return 0;
	}
	coll_down(s, act, id, 0);
	return 0;
}

/* A scatter of producer p's pieces that dispatcher d's tasks read, from
 * node `from`, to nodes chosen round-robin over d's nodes. */
static int start_scatter(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t p,
			 uint32_t from)
{
	const struct locus_task *pk = &s->g->tasks[p];
	uint32_t servers = s->gnodes_at[d + 1] - s->gnodes_at[d];
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
		if (dindex(s, d, o) == NONE)
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
	struct coll *c = coll_new(s, CO_SCATTER, d, p, used + 1, pieces, &id);
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
			if (stage == NONE && s->tdisp[t] == d)
				stage = locus_flow_stage_of(s->g, t);
			/* (An asynchronous gather collects its pieces itself.) */
			if (s->tdisp[t] == d && s->tst[t] == T_WAIT && !s->async[t]) {
				s->tst[t] = T_HELD;
				s->tcoll[t] = id;
			}
		}
	}
	if (stage != NONE)
		s->stage_colls[stage]++;
	for (uint32_t i = s->dobj_at[d]; i < s->dobj_at[d + 1]; i++)
		if (s->g->objects[s->dobj[i]].producer == p)
			s->dcoll[i] = id;
	/* The source's own readers run where it is. */
	for (uint32_t k = c->fat[0]; k < c->fat[1]; k++) {
		const struct locus_object *ob = &s->g->objects[c->files[k]];
		for (uint32_t j = 0; j < ob->n_cons; j++) {
			uint32_t t = s->g->consumers[ob->cons_at + j];
			if (s->tdisp[t] == d && s->tst[t] == T_HELD && s->tcoll[t] == id)
				scatter_reached(s, act, d, t, from);
		}
	}
	coll_down(s, act, id, 0);
	return 0;
}

/* ---- replicating a multicast group's writer (V-F5) ------------------------------------------ */

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
			uint32_t i = dindex(s, d, o);
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
		uint32_t from = s->g->objects[o].producer == LOCUS_NONE ? LOCUS_FS : dwhere(s, d, o);
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
 * (replica_reader). */
static int task_replicas(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t p,
			 uint32_t from)
{
	const struct locus_task *pk = &s->g->tasks[p];
	uint32_t group = 0, stage;
	for (uint32_t k = 0; k < pk->n_out; k++) {
		uint32_t o = s->g->outputs[pk->out_at + k];
		group += (s->an->object_patterns[o] & LOCUS_PATTERN_MULTICAST) && dindex(s, d, o) != NONE;
	}
	uint64_t readers;
	uint32_t n = group_share(s, d, p, &readers, &stage);
	uint32_t copies = locus_flow_copies(n, from < s->nn && s->node_group[from] == d);
	uint32_t *targets = malloc((copies + 1) * sizeof *targets);
	if (!targets)
		return LOCUS_ENOMEM;
	uint32_t got = place_group(s, d, stage, group, copies, from, targets);
	if (got == NONE) {
		free(targets);
		return LOCUS_ENOMEM;
	}
	uint32_t id;
	struct coll *c = coll_new(s, CO_REPLICA, d, p, got ? got : 1, group, &id);
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
		uint32_t o = s->g->outputs[pk->out_at + k], i = dindex(s, d, o);
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
		if (!s->async[t] && group_read(s, t, p) != NONE)
			s->mc_wait[t]++;
	}
	c->left = got;
	if (!got) {
		c->done = 1;
		coll_release(s, act, id);
		return 0;
	}
	for (uint32_t e = 0; e < got; e++)
		replica_start(s, act, id, e);
	return 0;
}

/* A replica's input came (timer 0) or its run ended (timer 1). */
static void replica_step(struct amfs *s, struct locus_actions *act, uint32_t id, uint32_t e,
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
	coll_release(s, act, id);
}

/* Dispatcher d sent producer t to `node`: with replicate=task, the
 * replicas of its group that d's tasks read start once d has handled
 * this event (its inputs are there; the writers it sends with it are
 * counted on their nodes by then). */
static void replicate_sent(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t,
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
static void replicate_sent_end(struct amfs *s, struct locus_actions *act, uint32_t d)
{
	for (size_t i = 0; i < s->n_rsent; i += 2) {
		uint32_t t = s->rsent[i], gk = group_entry(s, d, t);
		if (gk != NONE && s->dcoll[gk] == NONE && task_replicas(s, act, d, t, s->rsent[i + 1]))
			locus_act_oom(act);
	}
	s->n_rsent = 0;
}

/* Producer p of another dispatcher's: d runs its replicas once it knows
 * where p's produced inputs are (they are among d's queries). */
static void replicate_ready(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t p)
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
		if (s->g->objects[o].producer != LOCUS_NONE && dwhere(s, d, o) == NONE)
			return;
	}
	if (task_replicas(s, act, d, p, NONE))
		locus_act_oom(act);
}

/* Whether dispatcher d knows file o is on node n: made or located there,
 * or a multicast's copy. */
static int known_at(const struct amfs *s, uint32_t d, uint32_t o, uint32_t n)
{
	uint32_t i = dindex(s, d, o);
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
static uint32_t replica_of(const struct amfs *s, uint32_t d, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_in && !s->aware_bytes; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (s->g->objects[o].producer == LOCUS_NONE)
			continue;
		uint32_t i = dindex(s, d, o);
		if (s->an->input_multicast[tk->in_at + k] && i != NONE && s->dcoll[i] < s->n_colls &&
		    s->colls[s->dcoll[i]].kind == CO_REPLICA)
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
static void replica_reader(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t,
			   uint32_t id)
{
	const struct coll *c = &s->colls[id];
	uint32_t orig = dwhere(s, d, c->files[0]), best = NONE, at = NONE;
	if (orig < s->nn && s->node_group[orig] == d) {
		best = worker_on(s, d, orig);
		at = orig;
	}
	for (uint32_t e = 0; e < c->n; e++) {
		uint32_t w = worker_on(s, d, c->node[e]);
		if (w != NONE && (best == NONE || s->wload[w] < s->wload[best])) {
			best = w;
			at = c->node[e];
		}
	}
	if (best == NONE || at == orig) {
		send_task(s, act, d, t, best != NONE ? best : choose_worker(s, d, t, NONE),
			  LOCUS_GATHER_POLICY);
		return;
	}
	const struct locus_task *tk = &s->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k], i = dindex(s, d, o);
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
	send_task(s, act, d, t, best, LOCUS_GATHER_NONE);
}

/* ---- the dispatcher ---------------------------------------------------------------------- */

/* Task t of dispatcher d has all its inputs located. */
static void dispatch_ready(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t)
{
	if (s->tst[t] != T_WAIT || s->missing[t] || s->mc_wait[t] || s->async[t])
		return;
	if (is_gather(s, t) &&
	    (s->config == C_COGATHER || s->config == C_AUTO || s->config == C_ASGATHER)) {
		if (start_gather(s, act, d, t))
			locus_act_oom(act);
		return;
	}
	uint32_t r = s->replicate_task ? replica_of(s, d, t) : NONE;
	if (r != NONE) {
		replica_reader(s, act, d, t, r);
		return;
	}
	send_task(s, act, d, t, choose_worker(s, d, t, NONE), LOCUS_GATHER_POLICY);
}

/* Asynchronous gather (IV-C): t's inputs are all at its node; it is sent
 * to the least loaded worker there. */
static void async_ready(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t)
{
	uint32_t w = worker_on(s, d, s->atarget[t]);
	s->tbound[t] = 1;
	send_task(s, act, d, t, w != NONE ? w : round_robin(s, d), LOCUS_GATHER_POLICY);
}

/* Asynchronous gather: dispatcher d learned that o, an input of t, is on
 * node n. The first one fixes t's node (n when it is d's, else one of
 * d's round-robin); each is copied there as it is produced, and held
 * there (its server told before the copy starts) until t has run. */
static void async_input(struct amfs *s, struct locus_actions *act, uint32_t d, uint32_t t,
			uint32_t o, uint32_t n)
{
	if (s->atarget[t] == NONE)
		s->atarget[t] = n < s->nn && s->node_group[n] == d && s->nworkers_at[n + 1] > s->nworkers_at[n]
				    ? n
				    : node_of(s, round_robin(s, d));
	transit_to(s, act, d, o, s->atarget[t]);
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
	uint32_t k = dindex(s, d, o);
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
			replicate_ready(s, act, d, t);
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
				gk = dindex(s, d, oj);
		}
	}
	if (gk != NONE && s->dcoll[gk] == NONE) {
		/* Every file of the producer located: the collective starts
		 * (and marks the group's files, dcoll). */
		const struct locus_task *pk = &s->g->tasks[p];
		int all = 1;
		for (uint32_t j = 0; j < pk->n_out && all; j++) {
			uint32_t i = dindex(s, d, s->g->outputs[pk->out_at + j]);
			all = i == NONE || s->dloc[i] != NONE;
		}
		int rc = !all ? 0 : scatter ? start_scatter(s, act, d, p, s->dloc[gk])
					    : start_multicast(s, act, d, p, s->dloc[gk]);
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
		if (pending && (scatter || group_read(s, t, p) != NONE))
			continue;
		dispatch_ready(s, act, d, t);
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
			coll_step(s, act, TAG_A(tag), TAG_B(tag), ev->transfer.ok);
		if (TAG_KIND(tag) == K_REPL)
			replica_step(s, act, TAG_A(tag), TAG_B(tag), 0);
		/* A replica's reader's input: its server learns of the copy
		 * (it goes with the others after the last reader). */
		if (TAG_KIND(tag) == K_RFETCH && ev->transfer.ok)
			send(act, me, p_server(s, server_of(s, ev->transfer.object)), M_ADDLOC, 0, 2,
			     ev->transfer.object, ev->transfer.to);
		return;
	}
	if (ev->kind == LOCUS_EV_TIMER) {
		if (TAG_KIND(ev->tag) == K_REPL)
			replica_step(s, act, TAG_A(ev->tag), TAG_B(ev->tag), 1);
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
			send(act, me, p_server(s, server_of(s, o)), M_QUERY, 0, 2, o, me);
			s->queries++;
		}
		for (uint32_t i = s->dtasks_at[d]; i < s->dtasks_at[d + 1]; i++) {
			uint32_t t = s->dtasks[i];
			dispatch_ready(s, act, d, t);
		}
		/* Other dispatchers' writers whose replicas d runs, those
		 * reading no produced file: now. */
		for (uint32_t i = s->drepl_at[d]; s->replicate_task && i < s->drepl_at[d + 1]; i++)
			replicate_ready(s, act, d, s->drepl[i]);
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
			send(act, me, p_server(s, server_of(s, o)), M_PRODUCED, 0, 2, o, node);
		}
		/* Its inputs are read: their servers count (staging copied
		 * the workflow's inputs to nodes too). */
		for (uint32_t k = 0; k < tk->n_in && !s->keep; k++) {
			uint32_t o = s->g->inputs[tk->in_at + k];
			if (s->g->objects[o].producer != LOCUS_NONE || s->config != C_SHARED)
				send(act, me, p_server(s, server_of(s, o)), M_CONSUMED, 0, 1, o, 0);
		}
		/* An asynchronous gather lets go its inputs at its node. */
		for (uint32_t k = 0; k < tk->n_in && s->async[t]; k++) {
			uint32_t o = s->g->inputs[tk->in_at + k];
			if (s->g->objects[o].producer != LOCUS_NONE)
				transit_done(s, act, d, o, s->atarget[t]);
		}
		/* A gather's root lets go what the tree brought it. */
		if (s->tcoll[t] != NONE) {
			struct coll *c = &s->colls[s->tcoll[t]];
			if ((c->kind == CO_GATHER) && c->task == t)
				for (uint32_t k = c->fat[1]; k < c->fat[c->n]; k++)
					transit_done(s, act, d, c->files[k], c->node[0]);
		}
		if (!--s->dleft[d])
			send(act, me, p_submitter(s), M_FINISHED, 0, 0, 0, 0);
		break;
	}
	default:
		break;
	}
}

static void dispatcher_event(struct amfs *s, uint32_t d, const struct locus_event *ev,
			     struct locus_actions *act)
{
	dispatcher_handle(s, d, ev, act);
	if (s->n_rsent)
		replicate_sent_end(s, act, d);
}

/* ---- metadata servers -------------------------------------------------------------------- */

static void server_event(struct amfs *s, uint32_t m, const struct locus_event *ev,
			 struct locus_actions *act)
{
	uint32_t me = p_server(s, m);
	if (ev->kind != LOCUS_EV_MESSAGE)
		return;
	const struct locus_msg *msg = ev->msg;
	uint32_t o = (uint32_t)msg->arg[0];
	if (msg->type != M_FILES && o >= s->g->n_objects)
		return;
	switch (msg->type) {
	case M_QUERY: {
		uint32_t asker = (uint32_t)msg->arg[1];
		struct locus_msg r = {.type = M_LOCATED, .from = me, .to = asker};
		r.arg[0] = o;
		/* A produced file's locations, or a workflow input's copies
		 * on nodes (none: the asker reads the file system). */
		if (s->produced[o] || s->g->objects[o].producer == LOCUS_NONE) {
			uint32_t n = 0;
			for (uint32_t l = s->loc_head[o]; l != NONE && n < LOCUS_MSG_ARGS - 2;
			     l = s->links[l].next)
				r.arg[2 + n++] = s->links[l].val;
			r.arg[1] = n;
			r.n_args = 2 + n;
		} else {
			r.arg[1] = 0;
			r.n_args = 2;
			if (link_push(s, &s->sub_head[o], asker))
				locus_act_oom(act);
		}
		locus_act_send(act, &r);
		locus_act_cost(act, 1);
		break;
	}
	case M_PRODUCED: {
		uint32_t node = (uint32_t)msg->arg[1];
		s->produced[o] = 1;
		if (link_push(s, &s->loc_head[o], node))
			locus_act_oom(act);
		for (uint32_t l = s->sub_head[o]; l != NONE; l = s->links[l].next)
			send(act, me, s->links[l].val, M_NOTIFY, 0, 2, o, node);
		link_clear(s, &s->sub_head[o]);
		break;
	}
	case M_ADDLOC:
		if (link_push(s, &s->loc_head[o], (uint32_t)msg->arg[1]))
			locus_act_oom(act);
		break;
	case M_DELLOC:
		link_remove(s, &s->loc_head[o], (uint32_t)msg->arg[1]);
		break;
	case M_HOLD:
		if (transit_hold(s, o, (uint32_t)msg->arg[1]))
			locus_act_oom(act);
		break;
	case M_UNHOLD: {
		/* No gather holds it there now: a registered location stays;
		 * a copy a task sent there still reads becomes one; the rest
		 * goes. */
		uint32_t node = (uint32_t)msg->arg[1];
		if (!transit_unhold(s, o, node) || registered(s, o, node))
			break;
		if (msg->arg[2] && s->consumed[o] < s->g->objects[o].n_cons) {
			if (link_push(s, &s->loc_head[o], node))
				locus_act_oom(act);
			break;
		}
		locus_act_drop(act, o, node);
		s->drops++;
		break;
	}
	case M_CONSUMED:
		/* Its last reader has read it: every copy goes. */
		if (++s->consumed[o] == s->g->objects[o].n_cons) {
			for (uint32_t l = s->loc_head[o]; l != NONE; l = s->links[l].next) {
				locus_act_drop(act, o, s->links[l].val);
				s->drops++;
			}
			link_clear(s, &s->loc_head[o]);
		}
		break;
	default:
		break;
	}
}

/* ---- workers ----------------------------------------------------------------------------- */

static int here(const struct amfs *s, uint32_t o, uint32_t node)
{
	return locus_replicas_has(s->mon->replicas, o, node);
}

/* Worker w brings the next input its head task t lacks (F_SEQ): it asks
 * the file's server where it is. */
static void fetch_next(struct amfs *s, struct locus_actions *act, uint32_t w, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t node = node_of(s, w);
	/* Two passes: the workflow's inputs it lacks, copied into the
	 * node's storage (a cache: the node's later tasks read them there)
	 * from a node that has one, else the file system; then the produced
	 * ones, from peers. The file's server says where each is; the task
	 * (LOCUS_GATHER_ALL) runs when all are there. */
	while (s->cursor[t] < 2 * tk->n_in) {
		uint32_t k = s->cursor[t] % tk->n_in, pass = s->cursor[t] / tk->n_in;
		uint32_t o = s->g->inputs[tk->in_at + k];
		int stored = s->g->objects[o].producer == LOCUS_NONE;
		if ((pass == 0 && stored && !s->tcat[t] && !here(s, o, node)) ||
		    (pass == 1 && !stored && !here(s, o, node))) {
			send(act, w, p_server(s, server_of(s, o)), M_QUERY, 0, 2, o, w);
			s->queries++;
			return;
		}
		s->cursor[t]++;
	}
}

/* Staging (F_FS): worker w copies every input its head task t lacks from
 * the file system to its node, as a task's wrapper copies its inputs to
 * the RAM disk (the file system opens a node's files one after another;
 * the task waits for them all, LOCUS_GATHER_ALL). */
static void stage_all(struct amfs *s, struct locus_actions *act, uint32_t w, uint32_t t)
{
	const struct locus_task *tk = &s->g->tasks[t];
	uint32_t node = node_of(s, w);
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k];
		if (here(s, o, node) || (s->tcat[t] && s->g->objects[o].producer == LOCUS_NONE))
			continue;
		struct locus_copy c = {.objects = &o,
				       .n = 1,
				       .from = LOCUS_FS,
				       .to = node,
				       .tag = TAG(K_FETCH, t, 0),
				       .task = t};
		locus_act_copy(act, &c);
		s->fetches++;
	}
}

/* The task now at the head of worker w's queue: bring its inputs. */
static void head_changed(struct amfs *s, struct locus_actions *act, uint32_t w)
{
	uint32_t t = s->qhead[w];
	if (t == NONE)
		return;
	s->cursor[t] = 0;
	if (s->tfetch[t] == F_SEQ)
		fetch_next(s, act, w, t);
	else if (s->tfetch[t] == F_FS)
		stage_all(s, act, w, t);
}

/* Worker w copies o (which its head task t lacks) from `from`. */
static void fetch_from(struct amfs *s, struct locus_actions *act, uint32_t w, uint32_t t,
		       uint32_t o, uint32_t from)
{
	uint32_t node = node_of(s, w);
	struct locus_copy c = {.objects = &o,
			       .n = 1,
			       .from = from == node ? LOCUS_NONE : from,
			       .to = node,
			       .delay = from == LOCUS_NONE ? 0 : s->fetch_cost,
			       .task = t,
			       .tag = TAG(K_FETCH, t, 0)};
	locus_act_copy(act, &c);
	s->fetches++;
}

/* Worker w, idle, asks its next neighbour for a task; when it has asked
 * them all in vain it waits (twice as long each time) and asks again. */
static void try_steal(struct amfs *s, struct locus_actions *act, uint32_t w)
{
	if (!s->steal || s->qhead[w] != NONE || s->wstopped[w])
		return;
	if (s->steal == UINT32_MAX) {
		/* Global stealing (beyond the paper, to measure what the
		 * neighbours' limit costs): the worker with the longest queue,
		 * as a global work queue would know it, once a round. */
		uint32_t v = NONE;
		for (uint32_t x = 0; x < s->nw && !s->stole[w]; x++)
			if (x != w && s->qlen[x] >= 2 && (v == NONE || s->qlen[x] > s->qlen[v]))
				v = x;
		if (v != NONE) {
			s->stole[w] = 1;
			send(act, w, v, M_STEAL, 0, 1, w, 0);
			s->steal_tries++;
			return;
		}
	}
	uint64_t span = s->steal == UINT32_MAX ? 0 : 2 * (uint64_t)s->steal;
	while (s->stole[w] < span) {
		uint32_t k = s->stole[w]++, dist = k / 2 + 1;
		/* Nearest first: w + 1, w - 1, w + 2, w - 2, ... */
		int64_t v = k % 2 ? (int64_t)w - dist : (int64_t)w + dist;
		if (v < 0 || v >= (int64_t)s->nw)
			continue;
		send(act, w, (uint32_t)v, M_STEAL, 0, 1, w, 0);
		s->steal_tries++;
		return;
	}
	s->stole[w] = 0;
	if (!s->timer_set[w]) {
		s->steal_wait[w] = s->steal_wait[w] > 0 ? 2 * s->steal_wait[w] : STEAL_WAIT;
		if (s->steal_wait[w] > STEAL_WAIT_MAX)
			s->steal_wait[w] = STEAL_WAIT_MAX;
		locus_act_timer(act, w, s->steal_wait[w], STEAL_TIMER);
		s->timer_set[w] = 1;
	}
}

static void worker_event(struct amfs *s, uint32_t w, const struct locus_event *ev,
			 struct locus_actions *act)
{
	uint32_t node = node_of(s, w);
	switch (ev->kind) {
	case LOCUS_EV_MESSAGE: {
		const struct locus_msg *m = ev->msg;
		if (m->type == LOCUS_MSG_ASSIGN_FLOW) {
			uint32_t t = (uint32_t)m->arg[0];
			/* The worker keeps the ways it was told (a thief is
			 * told them again): a process knows what its messages
			 * said, not what another process decided. */
			s->tgm[t] = (uint8_t)m->arg[2];
			s->tom[t] = (uint8_t)m->arg[3];
			s->tfetch[t] = (uint8_t)(m->n_args > 4 ? m->arg[4] : F_NONE);
			s->tstay[t] = (uint8_t)(m->n_args > 5 && m->arg[5]);
			s->qnext[t] = NONE;
			if (s->qtail[w] == NONE)
				s->qhead[w] = t;
			else
				s->qnext[s->qtail[w]] = t;
			s->qtail[w] = t;
			s->qlen[w]++;
			s->stole[w] = 0;
			s->steal_wait[w] = 0;
			locus_act_cost(act, s->g->tasks[t].n_in + s->g->tasks[t].n_out);
			if (s->qhead[w] == t)
				head_changed(s, act, w);
		} else if (m->type == M_LOCATED || m->type == M_NOTIFY) {
			uint32_t t = s->qhead[w], o = (uint32_t)m->arg[0];
			if (t == NONE)
				break;
			int input = s->g->objects[o].producer == LOCUS_NONE;
			if (m->type == M_LOCATED && m->arg[1] == 0 && !input)
				break; /* N/A: the server will notify */
			/* A workflow input: from a node caching it (one of those
			 * named, by this worker's rank), else where it is stored
			 * (the file system, or a catalog's nodes: LOCUS_NONE lets
			 * the engine's locus_source_pick say which). */
			uint32_t from = (uint32_t)(m->type == M_NOTIFY	? m->arg[1]
						   : m->arg[1] == 0	? LOCUS_NONE
						   : input ? m->arg[2 + w % (uint32_t)m->arg[1]]
							   : m->arg[2]);
			if (here(s, o, node)) {
				if (s->tfetch[t] == F_SEQ) {
					s->cursor[t]++;
					fetch_next(s, act, w, t);
				}
				break;
			}
			fetch_from(s, act, w, t, o, from);
		} else if (m->type == M_STEAL) {
			uint32_t thief = (uint32_t)m->arg[0];
			/* The last task queued, never the head nor one that
			 * runs where a gather brought its inputs. */
			uint32_t prev = NONE, t = NONE;
			for (uint32_t q = s->qhead[w]; q != NONE && s->qnext[q] != NONE;
			     q = s->qnext[q])
				if (!s->tstay[s->qnext[q]]) {
					prev = q;
					t = s->qnext[q];
				}
			if (t == NONE) {
				send(act, w, thief, M_NOTHING, 0, 0, 0, 0);
				break;
			}
			s->qnext[prev] = s->qnext[t];
			if (s->qtail[w] == t)
				s->qtail[w] = prev;
			s->qlen[w]--;
			locus_act_cancel(act, t);
			struct locus_msg a = {.type = LOCUS_MSG_ASSIGN_FLOW,
					      .from = w,
					      .to = thief,
					      .bytes = description(s, t),
					      .n_args = 6};
			a.arg[0] = t;
			a.arg[1] = -1;
			a.arg[2] = s->tgm[t];
			a.arg[3] = s->tom[t];
			a.arg[4] = s->tfetch[t];
			a.arg[5] = 0;
			locus_act_send(act, &a);
			send(act, w, p_disp(s, s->tdisp[t]), M_MOVED, 0, 2, t, thief);
			s->steals++;
		} else if (m->type == M_NOTHING) {
			if (s->qhead[w] == NONE)
				try_steal(s, act, w);
		} else if (m->type == M_STOP) {
			s->wstopped[w] = 1;
		}
		break;
	}
	case LOCUS_EV_START:
		/* Idle from the start: it looks for work after a while. */
		if (s->steal && !s->timer_set[w]) {
			s->steal_wait[w] = STEAL_WAIT;
			locus_act_timer(act, w, STEAL_WAIT, STEAL_TIMER);
			s->timer_set[w] = 1;
		}
		break;
	case LOCUS_EV_TIMER:
		if (ev->tag == STEAL_TIMER) {
			s->timer_set[w] = 0;
			try_steal(s, act, w);
		}
		break;
	case LOCUS_EV_TRANSFER:
		if (TAG_KIND(ev->transfer.tag) == K_FETCH) {
			uint32_t t = TAG_A(ev->transfer.tag), o = ev->transfer.object;
			uint32_t from = ev->transfer.from;
			if (ev->transfer.ok) {
				send(act, w, p_server(s, server_of(s, o)), M_ADDLOC, 0, 2, o, node);
			} else if (from < s->nn && !here(s, o, node)) {
				/* The node the server named had it no more: the
				 * server forgets it, and is asked again. */
				send(act, w, p_server(s, server_of(s, o)), M_DELLOC, 0, 2, o, from);
				if (s->qhead[w] == t) {
					send(act, w, p_server(s, server_of(s, o)), M_QUERY, 0, 2, o, w);
					s->queries++;
				}
				break;
			}
			if (s->qhead[w] != t)
				break;
			if (s->tfetch[t] == F_SEQ) {
				s->cursor[t]++;
				fetch_next(s, act, w, t);
			}
		}
		break;
	case LOCUS_EV_DONE: {
		uint32_t t = ev->done.task;
		send(act, w, p_disp(s, s->tdisp[t]), M_DONE, 0, 2, t, node);
		if (s->qhead[w] == t) {
			s->qhead[w] = s->qnext[t];
			if (s->qhead[w] == NONE)
				s->qtail[w] = NONE;
			s->qlen[w]--;
		}
		if (s->qhead[w] != NONE)
			head_changed(s, act, w);
		else if (s->steal)
			try_steal(s, act, w);
		break;
	}
	default:
		break;
	}
}

/* ---- the submitter ----------------------------------------------------------------------- */

static void submitter_event(struct amfs *s, const struct locus_event *ev,
			    struct locus_actions *act)
{
	uint32_t me = p_submitter(s);
	if (ev->kind == LOCUS_EV_MESSAGE && ev->msg->type == M_FINISHED) {
		/* Every dispatcher is done: the workers stop looking for work. */
		if (++s->finished == s->D && s->steal)
			for (uint32_t w = 0; w < s->nw; w++)
				send(act, me, w, M_STOP, 0, 0, 0, 0);
		return;
	}
	if (ev->kind != LOCUS_EV_START)
		return;
	/* The task lists and the file lists (their descriptions' bytes). */
	for (uint32_t d = 0; d < s->D; d++) {
		uint64_t bytes = 0;
		for (uint32_t i = s->dtasks_at[d]; i < s->dtasks_at[d + 1]; i++)
			bytes += description(s, s->dtasks[i]);
		send(act, me, p_disp(s, d), M_TASKS,
		     (uint32_t)(bytes < UINT32_MAX ? bytes : UINT32_MAX), 0, 0, 0);
	}
	uint64_t *files = calloc(s->D, sizeof *files);
	if (!files) {
		locus_act_oom(act);
		return;
	}
	for (uint32_t o = 0; o < s->g->n_objects; o++)
		files[server_of(s, o)] += 64;
	for (uint32_t m = 0; m < s->D; m++)
		send(act, me, p_server(s, m), M_FILES,
		     (uint32_t)(files[m] < UINT32_MAX ? files[m] : UINT32_MAX), 0, 0, 0);
	free(files);
}

static void on_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct amfs *s = state;
	uint32_t p = ev->proc;
	s->now = ev->now;
	if (p < s->nw)
		worker_event(s, p, ev, act);
	else if (p == p_submitter(s))
		submitter_event(s, ev, act);
	else if (p <= s->nw + s->D)
		dispatcher_event(s, p - s->nw - 1, ev, act);
	else
		server_event(s, p - s->nw - 1 - s->D, ev, act);
}

/* ---- creation ----------------------------------------------------------------------------- */

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

/* Whether gather task t gathers asynchronously (decided once): with
 * config asgather always; with auto (the paper's future work) when its
 * inputs are written over a spread of time at least as long as moving
 * them to one node takes, so that copying each as it appears hides the
 * transfer behind their writers (IV-C: "overlapping the computation ...
 * and the input data transfer"); collectively otherwise, where archives
 * and the tree pay less per file. The spread: the writers' stage runs in
 * ceil(its tasks / the workers) waves of their mean runtime, and their
 * runtimes vary (two standard deviations); the transfer: their bytes
 * over the mean worker node's interface. */
static int gathers_async(const struct amfs *s, uint32_t t)
{
	if (!is_gather(s, t) || (s->an->task_patterns[t] & LOCUS_PATTERN_REDUCE))
		return 0;
	if (s->config == C_ASGATHER)
		return 1;
	if (s->config != C_AUTO)
		return 0;
	const struct locus_task *tk = &s->g->tasks[t];
	double n = 0, bytes = 0, sum = 0, sq = 0, waves = 1;
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k], p = s->g->objects[o].producer;
		if (p == LOCUS_NONE)
			continue;
		n++;
		bytes += (double)s->g->objects[o].bytes;
		sum += s->g->tasks[p].work;
		sq += s->g->tasks[p].work * s->g->tasks[p].work;
		double wv = ceil((double)s->an->stages[locus_flow_stage_of(s->g, p)].tasks /
				 (double)(s->nw ? s->nw : 1));
		waves = wv > waves ? wv : waves;
	}
	if (!n || !(s->net_bw > 0))
		return 0;
	double mean = sum / n, var = sq / n - mean * mean;
	double spread = (waves - 1) * mean + 2 * (var > 0 ? sqrt(var) : 0);
	return spread >= bytes / s->net_bw;
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
	if (!s->stage_colls ||!s->node_group || !s->gnodes || !s->gnodes_at || !s->gworkers || !s->gworkers_at ||
	    !s->nworkers || !s->nworkers_at || !s->rr || !s->tdisp || !s->dtasks || !s->dtasks_at ||
	    !s->missing || !s->mc_wait || !s->tst || !s->async || !s->tfetch || !s->tgm ||
	    !s->tom || !s->tworker || !s->tbound || !s->tstay || !s->mc_out || !s->tcat || !s->atarget ||
	    !s->aleft ||
	    !s->tcoll || !s->cursor || !s->dobj_at || !s->dgroups || !s->sload || !s->smark ||
	    !s->scount || !s->stouch ||
	    !s->wload || !s->dleft || !s->produced || !s->consumed ||
	    !s->loc_head || !s->sub_head || !s->qhead || !s->qtail || !s->qnext || !s->qlen ||
	    !s->stole || !s->steal_wait || !s->timer_set || !s->wstopped) {
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
		s->async[t] = (uint8_t)gathers_async(s, t);
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
		qsort(s->drepl + from, nr - from, sizeof *s->drepl, cmp_u32);
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
		for (uint32_t i = s->drepl_at[d]; s->replicate_task && i < s->drepl_at[d + 1]; i++) {
			const struct locus_task *pk = &g->tasks[s->drepl[i]];
			for (uint32_t j = 0; j < pk->n_in && s->tdisp[s->drepl[i]] != d; j++) {
				uint32_t o = g->inputs[pk->in_at + j];
				if (g->objects[o].producer != LOCUS_NONE)
					s->dobj[at++] = o;
			}
		}
		qsort(s->dobj + from, at - from, sizeof *s->dobj, cmp_u32);
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
    .version = LOCUS_POLICY_VERSION,
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
    .needs = LOCUS_NEEDS_FLOW | LOCUS_NEEDS_COPIES,
};
