/*
 * The AME/AMFS policy (src/flow/amfs.c) in the simulator, one instance a
 * process: each process reads only its own part of the policy's state,
 * so one instance a process, as on MPI ranks, runs the same as one
 * shared instance (out of test_flow_amfs.c, which grew past 1,500
 * lines).
 */
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

/* ---- one instance a process --------------------------------------------------------------- */

/* The amfs policy with one instance for each process, as on MPI ranks
 * (src/mpi/flow.c): each worker its own, the submitter, dispatchers and
 * metadata servers one a node (scheduler_node), so that a process sees
 * only what it was told. Counters are summed over the instances, as the
 * MPI engine sums them over the ranks. */
struct split {
	const struct locus_policy *inner;
	size_t n_inst;
	void **inst;
	uint32_t *host; /* process -> its instance */
};

static size_t split_schedulers(size_t n_workers, size_t requested)
{
	return locus_policy_find("amfs")->schedulers(n_workers, requested);
}

static uint32_t split_node(const struct locus_workload *wl, size_t n, size_t s)
{
	return locus_policy_find("amfs")->scheduler_node(wl, n, s);
}

static void split_destroy(void *state)
{
	struct split *sp = state;
	if (!sp)
		return;
	for (size_t i = 0; i < sp->n_inst; i++)
		if (sp->inst[i])
			sp->inner->destroy(sp->inst[i]);
	free(sp->inst);
	free(sp->host);
	free(sp);
}

static int split_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	struct split *sp = calloc(1, sizeof *sp);
	size_t nw = ctx->n_workers, np = nw + ctx->n_schedulers, nn = ctx->wl->platform->n_nodes;
	uint32_t *node_inst = malloc(nn * sizeof *node_inst);
	*state = NULL;
	if (!sp || !node_inst || !(sp->host = calloc(np, sizeof *sp->host)) ||
	    !(sp->inst = calloc(np, sizeof *sp->inst))) {
		free(node_inst);
		split_destroy(sp);
		return LOCUS_ENOMEM;
	}
	sp->inner = locus_policy_find("amfs");
	for (size_t n = 0; n < nn; n++)
		node_inst[n] = UINT32_MAX;
	for (size_t w = 0; w < nw; w++)
		sp->host[w] = (uint32_t)sp->n_inst++;
	for (size_t s = 0; s < ctx->n_schedulers; s++) {
		uint32_t n = split_node(ctx->wl, ctx->n_schedulers, s);
		if (node_inst[n] == UINT32_MAX)
			node_inst[n] = (uint32_t)sp->n_inst++;
		sp->host[nw + s] = node_inst[n];
	}
	free(node_inst);
	for (size_t i = 0; i < sp->n_inst; i++) {
		int rc = sp->inner->create(&sp->inst[i], ctx, err);
		if (rc) {
			split_destroy(sp);
			return rc;
		}
	}
	*state = sp;
	return 0;
}

static void split_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct split *sp = state;
	sp->inner->on_event(sp->inst[sp->host[ev->proc]], ev, act);
}

static void split_stats(void *state, struct locus_policy_stats *out)
{
	struct split *sp = state;
	struct locus_stage_result *st = calloc(out->n_stages ? out->n_stages : 1, sizeof *st);
	if (!st)
		return;
	for (size_t i = 0; i < sp->n_inst; i++) {
		struct locus_policy_stats part = {.stages = st, .n_stages = out->n_stages};
		memset(st, 0, (out->n_stages ? out->n_stages : 1) * sizeof *st);
		sp->inner->stats(sp->inst[i], &part);
		for (size_t k = 0; k < 8; k++) {
			out->counter_names[k] = part.counter_names[k];
			out->counters[k] += part.counters[k];
		}
		for (size_t k = 0; k < out->n_stages; k++) {
			out->stages[k].patterns = st[k].patterns;
			out->stages[k].collectives += st[k].collectives;
		}
	}
	free(st);
}

static const struct locus_policy split_policy = {.version = 3,
						 .name = "amfs",
						 .summary = "amfs, one instance a process",
						 .schedulers = split_schedulers,
						 .create = split_create,
						 .destroy = split_destroy,
						 .on_event = split_event,
						 .stats = split_stats,
						 .flags = LOCUS_POLICY_GRAPHS,
						 .scheduler_node = split_node};

/* Whether workflow g runs the same under amfs with `opts` and D
 * dispatchers with one shared instance (the simulator's) and with one
 * instance a process (MPI's): what a process does depends only on what
 * it was told, never on another process's part of the state. */
static int same_split(const struct locus_graph *g, int nodes, int cores, int D, const char *opts,
		      uint64_t seed)
{
	struct locus_platform *p = test_flow_cluster(nodes, cores, D);
	struct locus_workload *wl = NULL;
	struct locus_error err = {0}, e2 = {0};
	int same = 0;
	if (!p || locus_workload_from_graph(&wl, p, g, NULL, &err)) {
		locus_platform_destroy(p);
		return 0;
	}
	struct locus_sim_config cfg = test_flow_config(wl, "amfs", opts, D, seed, 0);
	struct locus_result *a = NULL, *b = NULL;
	int ra = locus_sim_run(&a, &cfg, &err);
	cfg.policy = &split_policy;
	int rb = locus_sim_run(&b, &cfg, &e2);
	if (!ra && !rb) {
		same = !a->failed && !b->failed && a->tasks_done == g->n_tasks &&
		       b->tasks_done == g->n_tasks && a->makespan == b->makespan &&
		       a->messages == b->messages && a->bytes_moved == b->bytes_moved &&
		       a->transfers == b->transfers && a->fs_ops == b->fs_ops &&
		       a->intermediate_end == 0 && b->intermediate_end == 0;
		for (size_t k = 0; k < 8 && same; k++)
			same = a->pstats.counters[k] == b->pstats.counters[k];
		if (!same)
			fprintf(
			    stderr,
			    "  %s, %d dispatchers, seed %llu: shared %s %.6f s, %llu messages, "
			    "%llu bytes, %.0f left; one a process %s %.6f s, %llu messages, %llu "
			    "bytes, %.0f left\n",
			    opts, D, (unsigned long long)seed, a->failed ? "failed" : "ran",
			    a->makespan, (unsigned long long)a->messages,
			    (unsigned long long)a->bytes_moved, a->intermediate_end,
			    b->failed ? "failed" : "ran", b->makespan,
			    (unsigned long long)b->messages, (unsigned long long)b->bytes_moved,
			    b->intermediate_end);
	} else {
		fprintf(stderr, "  %s: %s\n", opts, ra ? err.message : e2.message);
	}
	locus_result_destroy(a);
	locus_result_destroy(b);
	locus_workload_destroy(wl);
	locus_platform_destroy(p);
	return same;
}

/* A dispatcher learns where files are, which copies gathers hold and
 * what its workers run only from messages (and its own decisions); a
 * server only from messages: the run is the same with one instance a
 * process. Before, a dispatcher read the metadata servers' location
 * lists (whether a gather's copy was a registered location), shared one
 * table of gathers' copies with the other dispatchers, counted files
 * and tasks on their nodes, and so ran differently (and left files) with
 * an instance of its own. (Global stealing, steal=1e9, reads every
 * worker's queue, as a global work queue would know it: not here.) */
TEST(every_process_knows_only_its_own_part)
{
	static const char *const opts[] = {"config=cogather",
					   "config=auto,aware=bytes",
					   "config=asgather,steal=4",
					   "config=cogather,replicate=task",
					   "config=cache",
					   "config=cogather,reduce=stage2+stage3"};
	int runs = 0, same = 0;
	for (uint64_t seed = 1; seed <= 30; seed++) {
		struct locus_graph *g = test_workflow_random(seed);
		CHECK(g != NULL);
		for (size_t k = 0; g && k < sizeof opts / sizeof opts[0]; k++) {
			runs++;
			same += same_split(g, 6 + (int)(seed % 7), 1 + (int)(seed % 3),
					   2 + (int)(seed % 2), opts[k], seed);
		}
		locus_graph_destroy(g);
	}
	struct locus_montage_spec ms = {.images = 30, .seed = 3};
	struct locus_graph *gs[2] = {test_workflow_blast(20, 10), NULL};
	struct locus_error err;
	CHECK_EQ_INT(locus_flow_montage(&gs[1], &ms, &err), 0);
	for (int k = 0; k < 2; k++) {
		for (size_t j = 0; gs[k] && j < sizeof opts / sizeof opts[0]; j++) {
			runs++;
			same += same_split(gs[k], 12, 2, 3, opts[j], 1);
		}
		locus_graph_destroy(gs[k]);
	}
	CHECK_EQ_INT(same, runs);
}

TEST_MAIN(TEST_ENTRY(every_process_knows_only_its_own_part))
