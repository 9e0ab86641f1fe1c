/*
 * What the workflow policies do alike when they are created and when
 * they report (setup.h).
 */
#include "flow/setup.h"

#include "core/internal.h"
#include "sched/policies.h"

int locus__flow_check_workers(const struct locus_policy_ctx *ctx, const char *policy,
			      struct locus_error *err)
{
	if (!ctx->n_workers || ctx->n_workers != ctx->wl->n_workers)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s runs on the workload's %zu workers, not %zu", policy,
				  ctx->wl->n_workers, ctx->n_workers);
	return 0;
}

int locus__flow_check_monitor(const struct locus_policy_ctx *ctx, const char *policy,
			      const char *needs, struct locus_error *err)
{
	if (!ctx->monitor)
		return locus__err(err, LOCUS_ENOTSUP, NULL, 0, 0,
				  "policy %s needs an engine %s (the simulator)", policy, needs);
	return 0;
}

int locus__flow_check_central(const struct locus_policy_ctx *ctx, const char *policy,
			      const char *one, const char *needs, struct locus_error *err)
{
	const struct locus_graph *g = ctx->wl->graph;
	int rc;
	if (ctx->n_schedulers != 1)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "policy %s %s, got %zu", policy,
				  one, ctx->n_schedulers);
	if ((rc = locus__flow_check_workers(ctx, policy, err)) ||
	    (rc = locus__flow_check_monitor(ctx, policy, needs, err)))
		return rc;
	if (g->n_tasks >= UINT32_MAX || g->n_objects >= UINT32_MAX)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s: too many tasks or files", policy);
	return 0;
}

int locus__flow_check_keep(double keep, const char *policy, struct locus_error *err)
{
	if (keep != 0 && keep != 1)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s: keep is 0 (delete a produced file after its last "
				  "reader) or 1 (keep it), got %g",
				  policy, keep);
	return 0;
}

size_t locus__flow_one_scheduler(size_t n_workers, size_t requested)
{
	(void)n_workers;
	(void)requested;
	return 1;
}

uint32_t locus__flow_one_scheduler_node(const struct locus_workload *wl, size_t n, size_t sched)
{
	uint32_t node = locus__node_without_cores(wl, 0);
	(void)n;
	(void)sched;
	return node != UINT32_MAX ? node : 0;
}

void locus__flow_node_cores(const struct locus_workload *wl, uint32_t n_workers, uint32_t *first,
			    uint32_t *cores)
{
	for (size_t n = 0; n < wl->platform->n_nodes; n++) {
		first[n] = UINT32_MAX;
		cores[n] = 0;
	}
	for (uint32_t w = 0; w < n_workers; w++) {
		uint32_t n = wl->worker_node[w];
		if (first[n] == UINT32_MAX)
			first[n] = w;
		cores[n]++;
	}
}

void locus__flow_counters(struct locus_policy_stats *out, const char *const *names,
			  const uint64_t *vals, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out->counter_names[i] = names[i];
		out->counters[i] = vals[i];
	}
}
