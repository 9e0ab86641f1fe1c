/*
 * The execution of divisible-load plans in simulated time (internal to the
 * library; locus_divisible_simulate is the public entry).
 */
#ifndef LOCUS_SIM_DL_EXEC_H
#define LOCUS_SIM_DL_EXEC_H

#include "locus/divisible.h"

/* locus_divisible_simulate; with `always_share` every transfer goes through the
 * max-min sharing model, even where the caps fit the links (for tests that
 * compare the two ways). */
int locus__divisible_simulate(const struct locus_divisible_plan *p, int always_share,
			      struct locus_divisible_run **out, struct locus_error *err);

#endif
