/*
 * monolithic: ScalScheduling's MonolithicScheduling baseline (section IV,
 * Fig. 1). One master holds the locality metadata of every task; for each
 * request it scans the unassigned tasks in id order for one whose chunk is
 * on the requester's node and takes the first it finds; when there is
 * none it takes the first unassigned task, read remotely.
 *
 * Cost: one entry per unassigned task the scan looks at, so a decision
 * costs up to the metadata size: the arithmetic overhead that makes a
 * single master's latency grow with the metadata (Fig. 5). The master
 * modelled is the paper's, which has no index by node; assigned tasks are
 * dropped from its list, so it never looks at one again.
 *
 * The simulator charges that scan but need not run it: the first local
 * task in id order is the head of the node's list (kept in id order), and
 * the entries a scan reads to reach it are its rank among the unassigned
 * tasks (a Fenwick tree, mw.h). The decision and its cost are the scan's;
 * tests check the two against each other.
 */
#include "sched/mw.h"
#include "sched/policies.h"

struct mono {
	struct locus__mw mw; /* first: the driver's block */
	uint64_t max_scan;   /* the longest scan, in entries */
};

static void mono_choose(struct locus__mw *mw, uint32_t worker, const struct locus__mw_req *req,
			double now, struct locus__mw_choice *out)
{
	struct mono *mo = (struct mono *)mw;
	const struct locus__taskset *ts = &mw->ts;
	uint32_t node = mw->wl->worker_node[worker];
	uint64_t seen;

	out->verdict = LOCUS__MW_ASSIGN;
	if (ts->node_head[node] != LOCUS__NIL) {
		out->task = mw->wl->node_tasks[ts->node_head[node]];
		seen = locus__taskset_rank(ts, out->task);
	} else {
		/* The scan reads every unassigned task and takes the first. */
		out->task = ts->head;
		seen = ts->n_left;
	}
	out->entries = seen;
	if (seen > mo->max_scan)
		mo->max_scan = seen;
}

static void mono_stats(struct locus__mw *mw, struct locus_policy_stats *out)
{
	locus__mw_counter(out, "max_scan", ((struct mono *)mw)->max_scan);
}

static const struct locus__mw_ops mono_ops = {.choose = mono_choose, .stats = mono_stats};

static int mono_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	return locus__mw_create(state, sizeof(struct mono), ctx, &mono_ops, "monolithic", NULL,
				err);
}

const struct locus_policy locus__policy_monolithic = {
    .version = LOCUS_POLICY_VERSION,
    .name = "monolithic",
    .summary = "one master scans the locality metadata for a local task, else any "
	       "(ScalScheduling's baseline)",
    .schedulers = locus__mw_schedulers,
    .create = mono_create,
    .destroy = locus__mw_destroy,
    .on_event = locus__mw_on_event,
    .stats = locus__mw_stats,
};
