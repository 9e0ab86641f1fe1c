/*
 * monolithic: ScalScheduling's MonolithicScheduling baseline (section IV,
 * Fig. 1). One master holds the locality metadata of every task; for each
 * request it scans the unassigned tasks in id order for one whose chunk is
 * on the requester's node and takes the first it finds; when there is
 * none it takes the first unassigned task, read remotely.
 *
 * Cost: one entry per unassigned task the scan looks at, so a decision
 * costs up to the metadata size: the arithmetic overhead that makes a
 * single master's latency grow with the metadata (Fig. 5). The node index
 * (wl->node_tasks) would make this O(1) and is deliberately not used. The
 * unassigned list is kept compact (mw.h), so assigned tasks are never
 * looked at again.
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
	uint32_t node = mw->wl->worker_node[worker];
	uint64_t seen = 0;

	out->verdict = LOCUS__MW_ASSIGN;
	out->task = mw->ts.head; /* remote, unless the scan finds a local one */
	for (uint32_t t = mw->ts.head; t != LOCUS__NIL; t = mw->ts.next[t]) {
		seen++;
		if (locus_workload_is_local(mw->wl, t, node)) {
			out->task = t;
			break;
		}
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
    .name = "monolithic",
    .summary = "one master scans the locality metadata for a local task, else any "
	       "(ScalScheduling's baseline)",
    .schedulers = locus__mw_schedulers,
    .create = mono_create,
    .destroy = locus__mw_destroy,
    .on_event = locus__mw_on_event,
    .stats = locus__mw_stats,
};
