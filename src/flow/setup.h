/*
 * What the workflow policies (amfs, dask, taskvine) do alike when they
 * are created and when they report: the checks of the run they are
 * created for, the keep option's values, and, for a policy with one
 * central scheduler (dask's scheduler, TaskVine's manager), that
 * scheduler's count and node and the cores of each node; their counters.
 * The errors name the policy; the checks are separate so that each policy
 * makes them in its own order.
 */
#ifndef LOCUS_FLOW_SETUP_H
#define LOCUS_FLOW_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "locus/policy.h"

/* LOCUS_EINVAL unless ctx has workers and they are the workload's. */
int locus__flow_check_workers(const struct locus_policy_ctx *ctx, const char *policy,
			      struct locus_error *err);

/* LOCUS_ENOTSUP when the engine has no monitor: "policy P needs an
 * engine `needs` (the simulator)". */
int locus__flow_check_monitor(const struct locus_policy_ctx *ctx, const char *policy,
			      const char *needs, struct locus_error *err);

/* The checks of a policy with one central scheduler, in this order: one
 * scheduler (else "policy P `one`, got N", LOCUS_EINVAL), the workers,
 * the monitor (`needs`, as locus__flow_check_monitor), and tasks and
 * files that fit 32 bits less one (the policy's "none"; LOCUS_EINVAL). */
int locus__flow_check_central(const struct locus_policy_ctx *ctx, const char *policy,
			      const char *one, const char *needs, struct locus_error *err);

/* LOCUS_EINVAL unless the keep option is 0 or 1. */
int locus__flow_check_keep(double keep, const char *policy, struct locus_error *err);

/* One scheduler, whatever the workers and the user ask (ops->schedulers). */
size_t locus__flow_one_scheduler(size_t n_workers, size_t requested);

/* The node of a policy's one scheduler: the first node without cores,
 * else node 0 (ops->scheduler_node). */
uint32_t locus__flow_one_scheduler_node(const struct locus_workload *wl, size_t n, size_t sched);

/* Workers are in node order: each node's are a run of them. Fills, for
 * each node of wl's platform, its first worker (UINT32_MAX: none) and
 * how many it has (its cores), over workers 0 .. n_workers-1. */
void locus__flow_node_cores(const struct locus_workload *wl, uint32_t n_workers, uint32_t *first,
			    uint32_t *cores);

/* Sets out's counters 0 .. n-1 to names[i] = vals[i]. */
void locus__flow_counters(struct locus_policy_stats *out, const char *const *names,
			  const uint64_t *vals, size_t n);

#endif
