/*
 * Generated scenarios: a platform of generated nodes, chunks placed on it
 * and the workload of those chunks, built from one description and one
 * seed. What `locus sim` builds when it is given no files, and what the
 * benchmarks and reproductions build for every point.
 *
 * The library allocates the scenario (locus_scenario_build) and the
 * caller frees it with locus_scenario_destroy.
 */
#ifndef LOCUS_SCENARIO_H
#define LOCUS_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "locus/dataset.h"
#include "locus/error.h"
#include "locus/place.h"
#include "locus/platform.h"
#include "locus/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

struct locus_scenario_spec {
	/* Nodes "node01".. (locus_platform_generate) over `racks` racks
	 * (0: 1), `cores` workers each (0: 1). */
	size_t nodes, racks;
	int cores;
	double speed_hi;	     /* > 1: speeds uniform in [1, speed_hi] */
	double disk_bw, net_bw;	     /* bytes/s; 0: the defaults */
	double rack_bw, backbone_bw; /* bytes/s; 0: no cap */
	/* Chunks of one dataset "generated", one task each. */
	size_t chunks;
	uint64_t chunk_size; /* 0: 64 MiB */
	enum locus_place_policy placement;
	unsigned replicas; /* 0: 3, or every node when fewer */
	double skew_std;   /* skewed placement */
	const char *work;  /* a work spec; NULL: "fixed:1" */
	/* Drives the speeds, the placement and the work. */
	uint64_t seed;
};

struct locus_scenario {
	struct locus_platform *platform;
	struct locus_catalog *catalog;
	struct locus_workload *workload;
	struct locus_work_spec work;
};

/* Builds the scenario of `spec`. Errors: LOCUS_EINVAL (a spec no platform,
 * placement or work spec accepts; the message says which), LOCUS_ENOMEM. */
int locus_scenario_build(struct locus_scenario **out, const struct locus_scenario_spec *spec,
			 struct locus_error *err);

void locus_scenario_destroy(struct locus_scenario *s);

#ifdef __cplusplus
}
#endif
#endif
