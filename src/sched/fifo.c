/*
 * fifo: the next unassigned task in id order to whoever asks, without
 * looking at where its chunk lives. DL-MPI's "Without DL-MPI" baseline
 * (Fig. 2) and mpiBLAST's default dynamic scheduler.
 *
 * Cost: one entry per assignment (the head of the unassigned list).
 */
#include "sched/mw.h"
#include "sched/policies.h"

static void fifo_choose(struct locus__mw *mw, uint32_t worker, const struct locus__mw_req *req,
			double now, struct locus__mw_choice *out)
{
	out->verdict = LOCUS__MW_ASSIGN;
	out->task = mw->ts.head;
	out->entries = 1;
}

static const struct locus__mw_ops fifo_ops = {.choose = fifo_choose};

static int fifo_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	return locus__mw_create(state, sizeof(struct locus__mw), ctx, &fifo_ops, "fifo", NULL, err);
}

const struct locus_policy locus__policy_fifo = {
    .version = LOCUS_POLICY_VERSION,
    .name = "fifo",
    .summary = "one master hands out tasks in id order, ignoring locality",
    .schedulers = locus__mw_schedulers,
    .create = fifo_create,
    .destroy = locus__mw_destroy,
    .on_event = locus__mw_on_event,
    .stats = locus__mw_stats,
};
