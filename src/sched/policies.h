/*
 * The task policies the registry (registry.c) lists, one per file.
 * Internal: users find them by name with locus_policy_find.
 */
#ifndef LOCUS_SCHED_POLICIES_H
#define LOCUS_SCHED_POLICIES_H

#include "locus/policy.h"

extern const struct locus_policy locus__policy_fifo;	   /* fifo.c */
extern const struct locus_policy locus__policy_monolithic; /* monolithic.c */
extern const struct locus_policy locus__policy_dlmpi;	   /* dlmpi.c */
extern const struct locus_policy locus__policy_delay;	   /* delay.c */
extern const struct locus_policy locus__policy_scal;	   /* scal.c */
/* Static DAG schedules (src/dag/static.c). */
extern const struct locus_policy locus__policy_heft;
extern const struct locus_policy locus__policy_cpop;
extern const struct locus_policy locus__policy_dls;
extern const struct locus_policy locus__policy_peft;
extern const struct locus_policy locus__policy_gtp;	/* dag/gtp.c */
extern const struct locus_policy locus__policy_gtp_c;	/* dag/gtp.c */
extern const struct locus_policy locus__policy_gtp_r;	/* dag/gtp.c */
extern const struct locus_policy locus__policy_gtp_c_r; /* dag/gtp.c */
extern const struct locus_policy locus__policy_dls_sr;	/* dag/gtp.c */
/* Workflows (src/flow). */
extern const struct locus_policy locus__policy_amfs; /* flow/amfs.c */
/* Baselines users run today: TaskVine and Dask.distributed. */
extern const struct locus_policy locus__policy_taskvine; /* flow/taskvine.c */
extern const struct locus_policy locus__policy_dask;	 /* flow/dask.c */

/* The k-th node without cores (where a workflow policy's schedulers
 * run): locus__node_without_cores, src/core/internal.h. */

#endif
