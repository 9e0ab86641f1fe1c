/* Generated scenarios: platform, placed chunks and workload (scenario.h). */
#include <stdlib.h>

#include "core/internal.h"
#include "locus/scenario.h"

void locus_scenario_destroy(struct locus_scenario *s)
{
	if (!s)
		return;
	locus_workload_destroy(s->workload);
	locus_work_spec_fini(&s->work);
	locus_catalog_destroy(s->catalog);
	locus_platform_destroy(s->platform);
	free(s);
}

int locus_scenario_build(struct locus_scenario **out, const struct locus_scenario_spec *spec,
			 struct locus_error *err)
{
	struct locus_scenario *s = calloc(1, sizeof *s);
	int rc;

	*out = NULL;
	if (!s)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	size_t racks = spec->racks ? spec->racks : 1;
	rc = locus_platform_generate(&s->platform, spec->nodes,
				     racks < spec->nodes ? racks : spec->nodes,
				     spec->cores ? spec->cores : 1, "node");
	if (rc) {
		locus_scenario_destroy(s);
		return locus__err(err, rc, NULL, 0, 0,
				  "cannot generate %zu nodes of %d cores in %zu racks", spec->nodes,
				  spec->cores, racks);
	}
	struct locus_platform *p = s->platform;
	for (size_t i = 0; i < p->n_nodes; i++) {
		if (spec->disk_bw > 0)
			p->nodes[i].disk_bw = spec->disk_bw;
		if (spec->net_bw > 0)
			p->nodes[i].net_bw = spec->net_bw;
	}
	p->rack_bw = spec->rack_bw;
	p->backbone_bw = spec->backbone_bw;
	if (spec->speed_hi > 1)
		locus_platform_random_speeds(p, 1, spec->speed_hi, spec->seed);
	struct locus_place_options po = {
	    .policy = spec->placement,
	    .replicas =
		spec->replicas ? spec->replicas : (p->n_nodes < 3 ? (unsigned)p->n_nodes : 3),
	    .seed = spec->seed,
	    .skew_std = spec->skew_std};
	if ((rc = locus_place_catalog(&s->catalog, p, "generated", spec->chunks,
				      spec->chunk_size ? spec->chunk_size : 64ull << 20, &po,
				      err)) ||
	    (rc = locus_work_spec_parse(&s->work, spec->work ? spec->work : "fixed:1", err)) ||
	    (rc = locus_workload_build(&s->workload, p, s->catalog, NULL, &s->work, spec->seed,
				       err))) {
		locus_scenario_destroy(s);
		return rc;
	}
	*out = s;
	return 0;
}
