/*
 * Static schedules as policies: heft, cpop, dls and peft compute a full
 * plan once (locus_dag_plan) and hand each worker its tasks, in the
 * plan's order, when the run starts. The engine runs each worker's tasks
 * in that order as their inputs arrive, so on the model the plan assumed
 * (a contention-free platform, nominal speeds) the run is the plan.
 *
 * Processes: workers 0 .. n-1 and one scheduler, process n, which plans
 * (at create) and dispatches (at its start). Nothing is decided later: a
 * task lost with a failed node is not placed again (no
 * LOCUS_POLICY_RETRIES), which ends a run of a graph with a result that
 * says so.
 *
 * Options: insertion=0|1 (heft, cpop, peft: place a task in the earliest
 * idle gap that fits it, the papers' rule, or only after a worker's last
 * task, the non-insertion HEFT that GTP uses; default 1).
 */
#include <stdlib.h>

#include "core/internal.h"
#include "locus/dag.h"
#include "sched/policies.h"

struct plan_policy {
	enum locus_dag_algorithm alg;
	uint32_t n_workers;
	struct locus_dag_plan *plan;
	uint64_t sent;
};

static size_t static_schedulers(size_t n_workers, size_t requested)
{
	return 1;
}

static int create(void **state, const struct locus_policy_ctx *ctx, enum locus_dag_algorithm alg,
		  struct locus_error *err)
{
	const char *name = locus_dag_algorithm_name(alg);
	struct locus_dag_options opt;
	locus_dag_options_init(&opt);
	*state = NULL;
	if (alg != LOCUS_DAG_DLS) {
		double ins = 1;
		int rc = locus_kv_double(ctx->opts, "insertion", 1, 0, 1, &ins, err);
		if (rc)
			return rc;
		if (ins != 0 && ins != 1)
			return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
					  "policy %s: insertion is 0 or 1, got %g", name, ins);
		opt.insertion = (int)ins;
	} else {
		opt.insertion = 0;
	}
	const char *unknown = locus_kv_unused(ctx->opts);
	if (unknown)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s: unknown option \"%s\" (it takes %s)", name, unknown,
				  alg == LOCUS_DAG_DLS ? "none" : "insertion=0|1");
	if (ctx->n_schedulers != 1)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s runs one scheduler, not %zu", name, ctx->n_schedulers);
	if (ctx->n_workers != ctx->wl->n_workers)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s plans on the workload's %zu workers, not %zu", name,
				  ctx->wl->n_workers, ctx->n_workers);
	struct plan_policy *pp = calloc(1, sizeof *pp);
	if (!pp)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	pp->alg = alg;
	pp->n_workers = (uint32_t)ctx->n_workers;
	int rc = locus_dag_plan(&pp->plan, ctx->wl, alg, &opt, err);
	if (rc) {
		free(pp);
		return rc;
	}
	*state = pp;
	return 0;
}

static void destroy(void *state)
{
	struct plan_policy *pp = state;
	if (!pp)
		return;
	locus_dag_plan_destroy(pp->plan);
	free(pp);
}

/* The scheduler's start: every worker gets its tasks in the plan's order. */
static void on_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct plan_policy *pp = state;
	if (ev->proc != pp->n_workers || ev->kind != LOCUS_EV_START)
		return;
	const struct locus_dag_plan *p = pp->plan;
	for (uint32_t w = 0; w < pp->n_workers; w++)
		for (uint32_t k = p->order_at[w]; k < p->order_at[w + 1]; k++) {
			locus_act_assign(act, pp->n_workers, w, p->order[k], -1);
			pp->sent++;
		}
}

static void stats(void *state, struct locus_policy_stats *out)
{
	struct plan_policy *pp = state;
	out->planned_makespan = pp->plan->makespan;
	out->counter_names[0] = "assignments";
	out->counters[0] = pp->sent;
}

static int heft_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	return create(state, ctx, LOCUS_DAG_HEFT, err);
}

static int cpop_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	return create(state, ctx, LOCUS_DAG_CPOP, err);
}

static int dls_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	return create(state, ctx, LOCUS_DAG_DLS, err);
}

static int peft_create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	return create(state, ctx, LOCUS_DAG_PEFT, err);
}

#define STATIC_POLICY(id, text, opts)                                                              \
	const struct locus_policy locus__policy_##id = {                                           \
	    .version = LOCUS_POLICY_VERSION,                                                       \
	    .name = #id,                                                                           \
	    .summary = text,                                                                       \
	    .schedulers = static_schedulers,                                                       \
	    .create = id##_create,                                                                 \
	    .destroy = destroy,                                                                    \
	    .on_event = on_event,                                                                  \
	    .stats = stats,                                                                        \
	    .flags = LOCUS_POLICY_GRAPHS,                                                          \
	    .options = opts,                                                                       \
	}

STATIC_POLICY(heft, "HEFT (Topcuoglu et al. 2002): upward rank, earliest finish time, planned once",
	      "insertion=0|1");
STATIC_POLICY(cpop,
	      "CPOP (Topcuoglu et al. 2002): the critical path on one processor, planned once",
	      "insertion=0|1");
STATIC_POLICY(dls, "DLS (Sih and Lee 1993): dynamic level scheduling, planned once", NULL);
STATIC_POLICY(peft, "PEFT (Arabnejad and Barbosa 2014): optimistic cost table, planned once",
	      "insertion=0|1");
