/*
 * AME/AMFS (amfs.c): the options (-o) and the configurations (Fig. 10;
 * amfs.c says what each one does), and the rule by which auto chooses
 * collective or asynchronous gather for each gather task.
 */
#include "flow/amfs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int locus__amfs_options_read(struct amfs_options *o, struct locus_kv *kv, struct locus_error *err)
{
	static const char *const configs[] = {"staging",  "cache",  "aware", "cogather",
					      "asgather", "shared", "auto",  NULL};
	static const char *const awares[] = {"now", "first", "bytes", NULL};
	static const char *const replicate_ways[] = {"file", "task", NULL};
	struct locus_pattern_options *po = &o->patterns;
	const char *reduce = locus_kv_string(kv, "reduce", NULL);
	const char *torus = locus_kv_string(kv, "torus", NULL);
	double steal, keep, pipe, gth, mth, sth;
	int rc;
	memset(o, 0, sizeof *o);
	locus_pattern_options_init(po);
	if ((rc = locus_kv_choice(kv, "config", configs, C_AUTO, &o->config, err)) ||
	    (rc = locus_kv_choice(kv, "aware", awares, A_NOW, &o->aware, err)) ||
	    (rc = locus_kv_choice(kv, "replicate", replicate_ways, 0, &o->replicate_task, err)) ||
	    (rc = locus_kv_double(kv, "steal", 1, 0, 1e9, &steal, err)) ||
	    (rc = locus_kv_double(kv, "keep", 0, 0, 1, &keep, err)) ||
	    (rc = locus_kv_double(kv, "pipeline", 0, 0, 1, &pipe, err)) ||
	    (rc = locus_kv_double(kv, "file_cost", 1e-3, 0, 1e3, &o->file_cost, err)) ||
	    (rc = locus_kv_double(kv, "fetch_cost", 0, 0, 1e3, &o->fetch_cost, err)) ||
	    (rc = locus_kv_double(kv, "reduce_cost", 1e-8, 0, 1, &o->reduce_cost, err)) ||
	    (rc = locus_kv_double(kv, "gather", po->gather, 1, 1e9, &gth, err)) ||
	    (rc = locus_kv_double(kv, "multicast", po->multicast, 1, 1e9, &mth, err)) ||
	    (rc = locus_kv_double(kv, "scatter", po->scatter, 1, 1e9, &sth, err)))
		return rc;
	o->keep = keep > 0;
	o->pipeline = pipe > 0;
	o->steal = steal >= 1e9 ? UINT32_MAX : (uint32_t)steal;
	if (torus) {
		/* X x Y x Z, each at least 1 (the platform's count checked at
		 * creation). */
		unsigned long d[3];
		char *end = NULL;
		const char *c = torus;
		int ok = 1;
		for (int i = 0; i < 3 && ok; i++) {
			d[i] = *c >= '0' && *c <= '9' ? strtoul(c, &end, 10) : 0;
			ok = d[i] >= 1 && d[i] <= UINT32_MAX && end && *end == (i < 2 ? 'x' : '\0');
			c = end ? end + 1 : c;
		}
		if (!ok)
			return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
					  "policy option torus=%s: expected XxYxZ, three counts of "
					  "nodes of at least 1 (e.g. 8x8x8)",
					  torus);
		for (int i = 0; i < 3; i++)
			o->torus[i] = (uint32_t)d[i];
	}
	po->gather = (uint32_t)gth;
	po->multicast = (uint32_t)mth;
	po->scatter = (uint32_t)sth;
	if (!reduce)
		return 0;
	/* Stages joined by '+' (a comma ends the option). */
	size_t k = 1;
	for (const char *c = reduce; *c; c++)
		k += *c == '+';
	o->reduce_copy = locus__strdup(reduce);
	o->reduce_names = locus__calloc(k, sizeof *o->reduce_names);
	if (!o->reduce_copy || !o->reduce_names) {
		locus__amfs_options_fini(o);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	char *save = NULL;
	for (char *tok = strtok_r(o->reduce_copy, "+", &save); tok;
	     tok = strtok_r(NULL, "+", &save))
		o->reduce_names[po->n_reduce++] = tok;
	po->reduce = o->reduce_names;
	return 0;
}

void locus__amfs_options_fini(struct amfs_options *o)
{
	free(o->reduce_copy);
	free(o->reduce_names);
	o->reduce_copy = NULL;
	o->reduce_names = NULL;
}

/* Whether gather task t gathers asynchronously (decided once): with
 * config asgather always; with auto (the paper's future work) when its
 * inputs are written over a spread of time at least as long as moving
 * them to one node takes, so that copying each as it appears hides the
 * transfer behind their writers (IV-C: "overlapping the computation ...
 * and the input data transfer"); collectively otherwise, where archives
 * and the tree pay less per file. The spread: the writers' stage runs in
 * ceil(its tasks / the workers) waves of their mean runtime, and their
 * runtimes vary (two standard deviations); the transfer: their bytes
 * over the mean worker node's interface, and a peer copy's set-up
 * (fetch_cost) for each, one after another (async_input). */
int locus__amfs_gathers_async(const struct amfs *s, uint32_t t)
{
	if (!is_gather(s, t) || (s->an->task_patterns[t] & LOCUS_PATTERN_REDUCE))
		return 0;
	if (s->opt.config == C_ASGATHER)
		return 1;
	if (s->opt.config != C_AUTO)
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
	return spread >= bytes / s->net_bw + n * s->opt.fetch_cost;
}
