/* Workloads: one task per chunk, with its work and the nodes holding it. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/rng.h"
#include "locus/workload.h"

int locus_work_trace_parse(double **vals, size_t *n, const char *text, size_t len, const char *name,
			   struct locus_error *err)
{
	size_t pos = 0, ln, cap = 0;
	const char *line;
	long lineno = 0;
	*vals = NULL;
	*n = 0;
	while (locus__next_line(text, len, &pos, &line, &ln)) {
		struct locus__field f;
		double v;
		lineno++;
		size_t k = locus__split_fields(line, ln, &f, 1);
		if (k == 0)
			continue;
		if (k > 1 || locus__field_number(&f, &v) || v < 0) {
			free(*vals);
			*vals = NULL;
			*n = 0;
			return locus__err(err, LOCUS_EPARSE, name, lineno, f.col,
					  "expected one number of seconds >= 0 per line");
		}
		if (locus__grow(vals, &cap, *n + 1, sizeof **vals)) {
			free(*vals);
			*vals = NULL;
			*n = 0;
			return locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
		}
		(*vals)[(*n)++] = v;
	}
	if (!*n)
		return locus__err(err, LOCUS_EPARSE, name, lineno, 0,
				  "the trace holds no task time");
	return 0;
}

int locus_work_spec_parse(struct locus_work_spec *out, const char *text, struct locus_error *err)
{
	memset(out, 0, sizeof *out);
	const char *colon = strchr(text, ':');
	size_t kn = colon ? (size_t)(colon - text) : strlen(text);
	const char *args = colon ? colon + 1 : "";
	double a = 0, b = 0;
	char *end;
#define KIND(s) (kn == strlen(s) && strncmp(text, s, kn) == 0)
	if (KIND("trace")) {
		char *data;
		size_t len;
		double *vals;
		int rc = locus__read_file(&data, &len, args, err);
		if (rc)
			return rc;
		rc = locus_work_trace_parse(&vals, &out->n_trace, data, len, args, err);
		free(data);
		if (rc)
			return rc;
		out->dist = LOCUS_WORK_TRACE;
		out->trace = vals;
		return 0;
	}
	a = strtod(args, &end);
	int two = *end == ':';
	if (two)
		b = strtod(end + 1, &end);
	int ok = *args && !*end && a >= 0 && isfinite(a) && isfinite(b);
	if (KIND("fixed") && ok && !two) {
		out->dist = LOCUS_WORK_FIXED;
		out->mean = a;
	} else if (KIND("exp") && ok && !two && a > 0) {
		out->dist = LOCUS_WORK_EXPONENTIAL;
		out->mean = a;
	} else if (KIND("per-mib") && ok && !two) {
		out->dist = LOCUS_WORK_PER_BYTE;
		out->mean = a;
	} else if (KIND("uniform") && ok && two && b >= a) {
		out->dist = LOCUS_WORK_UNIFORM;
		out->lo = a;
		out->hi = b;
	} else {
		return locus__err(
		    err, LOCUS_EINVAL, NULL, 0, 0,
		    "task work \"%s\": expected fixed:SECONDS, uniform:LO:HI, exp:MEAN, "
		    "per-mib:SECONDS or trace:FILE",
		    text);
	}
#undef KIND
	return 0;
}

void locus_work_spec_fini(struct locus_work_spec *spec)
{
	if (spec->dist == LOCUS_WORK_TRACE)
		free((double *)spec->trace);
	memset(spec, 0, sizeof *spec);
}

static double draw_work(const struct locus_work_spec *w, struct locus_rng *rng, size_t i,
			uint64_t bytes)
{
	switch (w->dist) {
	case LOCUS_WORK_FIXED:
		return w->mean;
	case LOCUS_WORK_UNIFORM:
		return w->lo + (w->hi - w->lo) * locus_rng_uniform(rng);
	case LOCUS_WORK_EXPONENTIAL:
		return locus_rng_exponential(rng, w->mean);
	case LOCUS_WORK_PER_BYTE:
		return w->mean * (double)bytes / (1024.0 * 1024.0);
	case LOCUS_WORK_TRACE:
		return w->trace[i % w->n_trace];
	}
	return 0;
}

void locus_workload_destroy(struct locus_workload *wl)
{
	if (!wl)
		return;
	free(wl->tasks);
	free(wl->holders);
	free(wl->worker_node);
	free(wl->node_at);
	free(wl->node_tasks);
	free(wl);
}

int locus_workload_build(struct locus_workload **out, const struct locus_platform *p,
			 const struct locus_catalog *cat, const char *only,
			 const struct locus_work_spec *work, uint64_t seed, struct locus_error *err)
{
	return locus_workload_build_skip(out, p, cat, only, work, seed, NULL, NULL, err);
}

int locus_workload_build_skip(struct locus_workload **out, const struct locus_platform *p,
			      const struct locus_catalog *cat, const char *only,
			      const struct locus_work_spec *work, uint64_t seed,
			      int (*skip)(void *user, size_t dataset, size_t chunk),
			      void *skip_user, struct locus_error *err)
{
	struct locus_workload *wl = calloc(1, sizeof *wl);
	long *node_of_host = locus__calloc(cat->n_hosts, sizeof *node_of_host);
	struct locus_rng rng;
	int rc = 0;
	*out = NULL;
	if (!wl || !node_of_host) {
		rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		goto fail;
	}
	wl->platform = p;
	long only_ds = -1;
	if (only && (only_ds = locus_catalog_find_dataset(cat, only)) < 0) {
		rc = locus__err(err, LOCUS_ENOENT, NULL, 0, 0, "no dataset \"%s\" in the catalog",
				only);
		goto fail;
	}
	for (size_t h = 0; h < cat->n_hosts; h++)
		node_of_host[h] = locus_platform_find(p, cat->hosts[h].name);
	size_t n_tasks = 0, n_holders = 0;
	for (size_t d = 0; d < cat->n_datasets; d++) {
		if (only_ds >= 0 && (long)d != only_ds)
			continue;
		for (size_t c = 0; c < cat->datasets[d].n_chunks; c++) {
			if (skip && skip(skip_user, d, c))
				continue;
			n_tasks++;
			n_holders += cat->datasets[d].chunks[c].n_replicas;
		}
	}
	if (n_tasks > UINT32_MAX || n_holders > UINT32_MAX) {
		rc = locus__err(err, LOCUS_ERANGE, NULL, 0, 0, "too many tasks (%zu)", n_tasks);
		goto fail;
	}
	wl->tasks = locus__calloc(n_tasks, sizeof *wl->tasks);
	wl->holders = locus__calloc(n_holders, sizeof *wl->holders);
	wl->worker_node = locus__calloc(locus_platform_cores(p), sizeof *wl->worker_node);
	wl->node_at = locus__calloc(p->n_nodes + 1, sizeof *wl->node_at);
	if (!wl->tasks || !wl->holders || !wl->worker_node || !wl->node_at) {
		rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		goto fail;
	}
	locus_rng_init(&rng, seed);
	size_t t = 0, hcount = 0;
	for (size_t d = 0; d < cat->n_datasets; d++) {
		if (only_ds >= 0 && (long)d != only_ds)
			continue;
		const struct locus_dataset *ds = &cat->datasets[d];
		for (size_t c = 0; c < ds->n_chunks; c++) {
			if (skip && skip(skip_user, d, c))
				continue;
			const struct locus_chunk *ch = &ds->chunks[c];
			struct locus_task *tk = &wl->tasks[t];
			tk->dataset = (uint32_t)d;
			tk->chunk = (uint32_t)c;
			tk->bytes = ch->length;
			tk->work = draw_work(work, &rng, t, ch->length);
			tk->holders_at = (uint32_t)hcount;
			for (uint32_t r = 0; r < ch->n_replicas; r++) {
				long node = node_of_host[ch->replicas[r]];
				int dup = node < 0;
				for (uint32_t k = 0; !dup && k < tk->n_holders; k++)
					dup = wl->holders[tk->holders_at + k] == (uint32_t)node;
				if (dup)
					continue;
				wl->holders[hcount++] = (uint32_t)node;
				tk->n_holders++;
				wl->node_at[node + 1]++;
			}
			wl->n_unplaced += tk->n_holders == 0;
			wl->total_work += tk->work;
			wl->total_bytes += tk->bytes;
			t++;
		}
	}
	wl->n_tasks = n_tasks;
	/* Node -> local tasks, by counting sort. */
	for (size_t n = 0; n < p->n_nodes; n++)
		wl->node_at[n + 1] += wl->node_at[n];
	wl->node_tasks = locus__calloc(wl->node_at[p->n_nodes], sizeof *wl->node_tasks);
	uint32_t *fill = locus__calloc(p->n_nodes, sizeof *fill);
	if (!wl->node_tasks || !fill) {
		free(fill);
		rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < n_tasks; i++)
		for (uint32_t k = 0; k < wl->tasks[i].n_holders; k++) {
			uint32_t n = wl->holders[wl->tasks[i].holders_at + k];
			wl->node_tasks[wl->node_at[n] + fill[n]++] = (uint32_t)i;
		}
	free(fill);
	for (size_t n = 0; n < p->n_nodes; n++)
		for (int c = 0; c < p->nodes[n].cores; c++)
			wl->worker_node[wl->n_workers++] = (uint32_t)n;
	free(node_of_host);
	*out = wl;
	return 0;
fail:
	free(node_of_host);
	locus_workload_destroy(wl);
	return rc;
}

int locus_workload_is_local(const struct locus_workload *wl, uint32_t t, uint32_t node)
{
	const struct locus_task *tk = &wl->tasks[t];
	for (uint32_t k = 0; k < tk->n_holders; k++)
		if (wl->holders[tk->holders_at + k] == node)
			return 1;
	return 0;
}
