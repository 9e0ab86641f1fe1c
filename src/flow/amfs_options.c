/*
 * AME/AMFS (amfs.c): options.
 */
#include "flow/amfs.h"

/* Whether gather task t gathers asynchronously (decided once): with
 * config asgather always; with auto (the paper's future work) when its
 * inputs are written over a spread of time at least as long as moving
 * them to one node takes, so that copying each as it appears hides the
 * transfer behind their writers (IV-C: "overlapping the computation ...
 * and the input data transfer"); collectively otherwise, where archives
 * and the tree pay less per file. The spread: the writers' stage runs in
 * ceil(its tasks / the workers) waves of their mean runtime, and their
 * runtimes vary (two standard deviations); the transfer: their bytes
 * over the mean worker node's interface. */
int locus__amfs_gathers_async(const struct amfs *s, uint32_t t)
{
	if (!is_gather(s, t) || (s->an->task_patterns[t] & LOCUS_PATTERN_REDUCE))
		return 0;
	if (s->config == C_ASGATHER)
		return 1;
	if (s->config != C_AUTO)
		return 0;
	const struct locus_task *tk = &s->g->tasks[t];
	double n = 0, bytes = 0, sum = 0, sq = 0, waves = 1;
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = s->g->inputs[tk->in_at + k], p = s->g->objects[o].producer;
		if (p == LOCUS_NONE)
			continue;
		n++;
		bytes += (double)s->g->objects[o].bytes;
		sum += s->g->tasks[p].work;
		sq += s->g->tasks[p].work * s->g->tasks[p].work;
		double wv = ceil((double)s->an->stages[locus_flow_stage_of(s->g, p)].tasks /
				 (double)(s->nw ? s->nw : 1));
		waves = wv > waves ? wv : waves;
	}
	if (!n || !(s->net_bw > 0))
		return 0;
	double mean = sum / n, var = sq / n - mean * mean;
	double spread = (waves - 1) * mean + 2 * (var > 0 ? sqrt(var) : 0);
	return spread >= bytes / s->net_bw;
}
