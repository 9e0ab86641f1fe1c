/*
 * The table of task policies, found by name (StarPU's list of
 * struct starpu_sched_policy). A new policy is one file defining its
 * const struct locus_policy, declared in policies.h and listed below.
 */
#include <string.h>

#include "sched/policies.h"

/* NULL-terminated, in the order the CLI lists them. */
static const struct locus_policy *const policies[] = {
    &locus__policy_fifo,  &locus__policy_monolithic, &locus__policy_dlmpi,
    &locus__policy_delay, &locus__policy_scal,	     NULL,
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
