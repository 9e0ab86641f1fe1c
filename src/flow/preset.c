/*
 * Named platforms for workflows (include/locus/flow.h): the machines the
 * papers measured on, each constant once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/flow.h"

static const struct locus_flow_preset presets[] = {
    {.name = "bgp",
     .summary = "the AME/AMFS paper's Blue Gene/P: 4 cores a node, 425 MB/s torus links, "
		"1 GB/s RAM disks, GPFS 1.25 GB/s per 64 nodes",
     .cores = 4,
     .net_bw = 425e6,
     .disk_bw = 1e9,
     .nodes_per_dispatcher = 64,
     .fs_bw_per64 = 1.25e9,
     .fs_bw_max = 60e9,
     .fs_latency = 0.0113,
     .fs_ops = 2000,
     .latency = 50e-6,
     .cost_msg = 5e-6,
     .cost_entry = 1e-7,
     .fetch_cost = 0.0677},
};

const struct locus_flow_preset *locus_flow_preset_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof presets / sizeof presets[0]; i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

int locus_flow_preset_platform(const struct locus_flow_preset *pr, size_t nodes,
			       struct locus_platform **out, size_t *dispatchers, double *fs_bw,
			       struct locus_error *err)
{
	*out = NULL;
	if (nodes < 2 || nodes > 10000000)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "preset %s: a partition of %zu nodes: expected 2 to 10000000 (a "
				  "dispatcher node and a worker node at least)",
				  pr->name, nodes);
	size_t per = pr->nodes_per_dispatcher ? pr->nodes_per_dispatcher : nodes;
	size_t D = (nodes + per - 1) / per, workers = nodes - D;
	char **names = calloc(nodes, sizeof *names);
	int *cores = calloc(nodes, sizeof *cores);
	int rc = names && cores ? 0 : LOCUS_ENOMEM;
	for (size_t i = 0; i < nodes && !rc; i++) {
		names[i] = malloc(24);
		if (!names[i]) {
			rc = LOCUS_ENOMEM;
			break;
		}
		if (i < workers)
			snprintf(names[i], 24, "node%05zu", i);
		else
			snprintf(names[i], 24, "disp%04zu", i - workers);
		cores[i] = i < workers ? pr->cores : 0;
	}
	if (!rc)
		rc = locus_platform_create(out, (const char *const *)names, cores, nodes, err);
	else
		locus__err(err, rc, NULL, 0, 0, "out of memory");
	for (size_t i = 0; names && i < nodes; i++)
		free(names[i]);
	free(names);
	free(cores);
	if (rc)
		return rc;
	for (size_t i = 0; i < nodes; i++) {
		(*out)->nodes[i].net_bw = pr->net_bw;
		(*out)->nodes[i].disk_bw = pr->disk_bw;
	}
	double bw = pr->fs_bw_per64 * (double)((nodes + 63) / 64);
	*fs_bw = pr->fs_bw_max > 0 && bw > pr->fs_bw_max ? pr->fs_bw_max : bw;
	*dispatchers = D;
	return 0;
}
