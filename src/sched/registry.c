/*
 * The table of task policies, found by name (StarPU's list of
 * struct starpu_sched_policy). A new policy is one file defining its
 * const struct locus_policy, declared in policies.h and listed below.
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "sched/policies.h"

/* NULL-terminated, in the order the CLI lists them. */
static const struct locus_policy *const policies[] = {
    &locus__policy_fifo,     &locus__policy_monolithic, &locus__policy_dlmpi,
    &locus__policy_delay,    &locus__policy_scal,	&locus__policy_heft,
    &locus__policy_cpop,     &locus__policy_dls,	&locus__policy_peft,
    &locus__policy_gtp,	     &locus__policy_gtp_c,	&locus__policy_gtp_r,
    &locus__policy_gtp_c_r,  &locus__policy_dls_sr,	&locus__policy_amfs,
    &locus__policy_taskvine, &locus__policy_dask,	NULL,
};

const struct locus_policy *const *locus_policies(void)
{
	return policies;
}

const struct locus_policy *locus_policy_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; policies[i]; i++)
		if (strcmp(policies[i]->name, name) == 0)
			return policies[i];
	return NULL;
}

unsigned locus_policy_flags(const struct locus_policy *p)
{
	return p && p->version >= 2 ? p->flags : 0;
}

unsigned locus_policy_needs(const struct locus_policy *p)
{
	if (!p)
		return 0;
	if (p->version >= 5)
		return p->needs;
	return locus_policy_flags(p) & LOCUS_POLICY_RETRIES ? LOCUS_NEEDS_FAILED : 0;
}

/* What each LOCUS_NEEDS_* bit asks for, in messages. */
static const char *const need_names[] = {"being told of failed attempts",
					 "withdrawing assignments",
					 "running finished tasks again",
					 "moving and deleting objects",
					 "saying how inputs come and where outputs go",
					 "a monitor of every task's progress"};

int locus_policy_check(const struct locus_policy *p, int version, unsigned offers,
		       const char *engine, struct locus_error *err)
{
	if (!p)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no policy");
	if (p->version > version)
		return locus__err(err, LOCUS_ENOTSUP, NULL, 0, 0,
				  "policy %s speaks version %d of the policy protocol, and %s "
				  "version %d at most",
				  p->name, p->version, engine, version);
	unsigned lack = locus_policy_needs(p) & ~offers;
	if (!lack)
		return 0;
	char what[512] = "";
	size_t n = sizeof need_names / sizeof *need_names;
	for (size_t i = 0, first = 1; i < n; i++)
		if (lack & (1u << i)) {
			size_t len = strlen(what);
			snprintf(what + len, sizeof what - len, "%s%s", first ? "" : " and ",
				 need_names[i]);
			first = 0;
		}
	return locus__err(err, LOCUS_ENOTSUP, NULL, 0, 0,
			  "policy %s needs %s, which %s does not offer", p->name, what, engine);
}

uint32_t locus_source_pick(const struct locus_platform *p, const uint32_t *holders, uint32_t n,
			   uint32_t to, uint64_t salt)
{
	if (!n)
		return LOCUS_NONE;
	/* One holder is the pick whatever the racks (a read of a file one
	 * node holds: the comparisons of rack names were 5 % of a star's
	 * simulation). */
	if (n == 1)
		return holders[0];
	/* Count the holders in the reader's rack; pick among them if any. */
	const char *rack = to < p->n_nodes ? p->nodes[to].rack : NULL;
	uint32_t near = 0;
	for (uint32_t k = 0; rack && k < n; k++)
		near += strcmp(p->nodes[holders[k]].rack, rack) == 0;
	uint32_t pick = (uint32_t)(salt % (near ? near : n));
	for (uint32_t k = 0; k < n; k++) {
		int in = !near || strcmp(p->nodes[holders[k]].rack, rack) == 0;
		if (in && pick-- == 0)
			return holders[k];
	}
	return holders[0];
}

uint32_t locus_retry_worker(const struct locus_workload *wl, uint32_t task, uint32_t attempt,
			    uint32_t failed, int (*usable)(void *user, uint32_t w), void *user)
{
	uint32_t here = failed < wl->n_workers ? wl->worker_node[failed] : LOCUS_NONE;
	int best = -1;
	uint32_t count = 0;
	/* Classes: 2 another node holding the input, 1 another node, 0 this
	 * node; the failed worker itself only when nothing else can run. */
	for (uint32_t w = 0; w < wl->n_workers; w++) {
		if (w == failed || (usable && !usable(user, w)))
			continue;
		uint32_t node = wl->worker_node[w];
		int cls = node == here ? 0 : locus_workload_is_local(wl, task, node) ? 2 : 1;
		if (cls > best) {
			best = cls;
			count = 0;
		}
		count += cls == best;
	}
	if (!count)
		return failed < wl->n_workers && (!usable || usable(user, failed)) ? failed
										   : LOCUS_NONE;
	uint32_t pick = (uint32_t)(((uint64_t)task + attempt) % count);
	for (uint32_t w = 0; w < wl->n_workers; w++) {
		if (w == failed || (usable && !usable(user, w)))
			continue;
		uint32_t node = wl->worker_node[w];
		int cls = node == here ? 0 : locus_workload_is_local(wl, task, node) ? 2 : 1;
		if (cls == best && pick-- == 0)
			return w;
	}
	return LOCUS_NONE;
}
