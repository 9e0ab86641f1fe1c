/* Workloads: one task per chunk, with its work and the nodes holding it. */
#include <errno.h>
#include <inttypes.h>
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
		if (k > 1 || locus__field_number(&f, &v) || v < 0 || v > LOCUS_WORK_MAX) {
			free(*vals);
			*vals = NULL;
			*n = 0;
			return locus__err(err, LOCUS_EPARSE, name, lineno, f.col,
					  "expected one number of seconds from 0 to %g per line",
					  LOCUS_WORK_MAX);
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
	int ok =
	    *args && !*end && a >= 0 && a <= LOCUS_WORK_MAX && b <= LOCUS_WORK_MAX && isfinite(b);
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
		    "per-mib:SECONDS or trace:FILE, with seconds from 0 to %g",
		    text, LOCUS_WORK_MAX);
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

int locus_graph_draw_work(struct locus_graph *g, const struct locus_work_spec *w, uint64_t seed)
{
	if (g->n_procs)
		return LOCUS_EINVAL;
	struct locus_rng rng;
	locus_rng_init(&rng, seed);
	for (size_t t = 0; t < g->n_tasks; t++)
		g->tasks[t].work = draw_work(w, &rng, t, g->tasks[t].bytes);
	return 0;
}

/* What a workload owns beside its arrays. */
struct wl_priv {
	struct locus_graph *graph; /* built for it (chunk workloads), or NULL */
	int shares_tasks;	   /* wl->tasks is graph->tasks (its own graph) */
	uint32_t *coreless;	   /* the platform's nodes without cores, in order */
	size_t n_coreless;
};

void locus_workload_destroy(struct locus_workload *wl)
{
	if (!wl)
		return;
	struct wl_priv *pv = wl->priv;
	if (!pv || !pv->shares_tasks)
		free(wl->tasks);
	if (pv) {
		locus_graph_destroy(pv->graph);
		free(pv->coreless);
		free(pv);
	}
	free(wl->holders);
	free(wl->obj_at);
	free(wl->worker_node);
	free(wl->node_at);
	free(wl->node_tasks);
	free(wl);
}

/* The stored object of task t whose place says where t reads: its
 * largest stored input (the first of equals), or LOCUS_NONE. */
static uint32_t main_input(const struct locus_graph *g, uint32_t t)
{
	const struct locus_task *tk = &g->tasks[t];
	uint32_t best = LOCUS_NONE;
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = g->inputs[tk->in_at + k];
		if (g->objects[o].producer != LOCUS_NONE)
			continue;
		if (best == LOCUS_NONE || g->objects[o].bytes > g->objects[best].bytes)
			best = o;
	}
	return best;
}

/* Where every stored chunk object is, from the catalog: wl->obj_at and
 * wl->holders. */
static int place_objects(struct locus_workload *wl, const struct locus_graph *g,
			 const struct locus_catalog *cat)
{
	const struct locus_platform *p = wl->platform;
	size_t n_obj = g->n_objects, n_h = 0;
	long *node_of_host = NULL;
	wl->obj_at = locus__calloc(n_obj + 1, sizeof *wl->obj_at);
	if (!wl->obj_at)
		return LOCUS_ENOMEM;
	if (cat) {
		node_of_host = locus__calloc(cat->n_hosts, sizeof *node_of_host);
		if (!node_of_host)
			return LOCUS_ENOMEM;
		for (size_t h = 0; h < cat->n_hosts; h++)
			node_of_host[h] = locus_platform_find(p, cat->hosts[h].name);
		for (size_t o = 0; o < n_obj; o++) {
			const struct locus_object *ob = &g->objects[o];
			if (ob->producer == LOCUS_NONE && ob->dataset < cat->n_datasets &&
			    ob->chunk < cat->datasets[ob->dataset].n_chunks)
				n_h += cat->datasets[ob->dataset].chunks[ob->chunk].n_replicas;
		}
	}
	if (n_h > UINT32_MAX) {
		free(node_of_host);
		return LOCUS_ERANGE;
	}
	wl->holders = locus__calloc(n_h ? n_h : 1, sizeof *wl->holders);
	if (!wl->holders) {
		free(node_of_host);
		return LOCUS_ENOMEM;
	}
	uint32_t at = 0;
	for (size_t o = 0; o < n_obj; o++) {
		const struct locus_object *ob = &g->objects[o];
		wl->obj_at[o] = at;
		if (!cat || ob->producer != LOCUS_NONE || ob->dataset >= cat->n_datasets ||
		    ob->chunk >= cat->datasets[ob->dataset].n_chunks)
			continue;
		const struct locus_chunk *ch = &cat->datasets[ob->dataset].chunks[ob->chunk];
		uint32_t first = at;
		for (uint32_t r = 0; r < ch->n_replicas; r++) {
			long node = node_of_host[ch->replicas[r]];
			int dup = node < 0;
			for (uint32_t k = first; !dup && k < at; k++)
				dup = wl->holders[k] == (uint32_t)node;
			if (!dup)
				wl->holders[at++] = (uint32_t)node;
		}
	}
	wl->obj_at[n_obj] = at;
	free(node_of_host);
	return 0;
}

/* A node's interface bandwidth and cores, for sums over the others. */
struct bw_node {
	const char *rack;
	double net, cores, disk;
};

static int by_net(const void *x, const void *y)
{
	const struct bw_node *a = x, *b = y;
	return (a->net > b->net) - (a->net < b->net);
}

static int by_rack_net(const void *x, const void *y)
{
	const struct bw_node *a = x, *b = y;
	int c = strcmp(a->rack, b->rack);
	return c ? c : by_net(x, y);
}

/* Sums c_b min(v, net_b) over nodes[0..n), sorted by net, from their
 * prefix sums: below[i] = sum of c net over the first i, cores[i] = sum
 * of c over the rest. */
static double sum_min(const struct bw_node *nodes, const double *below, const double *cores,
		      size_t n, double v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (nodes[mid].net < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return below[lo] + v * cores[lo];
}

/* Prefix sums of nodes[0..n) for sum_min. */
static void prefix(const struct bw_node *nodes, size_t n, double *below, double *cores)
{
	below[0] = 0;
	for (size_t i = 0; i < n; i++)
		below[i + 1] = below[i] + nodes[i].cores * nodes[i].net;
	cores[n] = 0;
	for (size_t i = n; i-- > 0;)
		cores[i] = cores[i + 1] + nodes[i].cores;
}

/* The mean bandwidth between two workers on different nodes: the mean
 * of locus_platform_pair_bw over ordered pairs of nodes with cores,
 * each weighted by the product of their cores. In O(n log n), not by
 * visiting the n^2 pairs (a platform of 100,000 nodes took a minute):
 * on pair links, the default bandwidth but for the listed links; on a
 * shared network, a pair's bandwidth is min(u_a, net_b), u_a the
 * source's disk, interface and backbone, and the rack uplink between
 * racks, summed over b with the nodes sorted by interface bandwidth.
 * 0 when no pair, or on error (out of memory). */
static double mean_bw(const struct locus_workload *wl)
{
	const struct locus_platform *p = wl->platform;
	double all = 0, same = 0, sum = 0;
	for (uint32_t a = 0; a < p->n_nodes; a++)
		if (p->nodes[a].cores > 0) {
			all += p->nodes[a].cores;
			same += (double)p->nodes[a].cores * p->nodes[a].cores;
		}
	double pairs = all * all - same;
	if (!(pairs > 0))
		return 0;
	if (p->network == LOCUS_NET_PAIRS) {
		sum = p->link_bw * pairs;
		for (size_t k = 0; k < p->n_links; k++) {
			const struct locus_link *l = &p->links[k];
			double ca = p->nodes[l->a].cores, cb = p->nodes[l->b].cores;
			if (l->a != l->b && ca > 0 && cb > 0)
				sum += 2 * ca * cb * (l->bw - p->link_bw);
		}
		return sum / pairs;
	}
	size_t n = 0;
	struct bw_node *nodes = locus__calloc(p->n_nodes + 1, sizeof *nodes);
	struct bw_node *racked = locus__calloc(p->n_nodes + 1, sizeof *racked);
	double *buf = locus__calloc(4 * (p->n_nodes + 1), sizeof *buf);
	if (!nodes || !racked || !buf) {
		free(nodes);
		free(racked);
		free(buf);
		return 0;
	}
	for (uint32_t a = 0; a < p->n_nodes; a++)
		if (p->nodes[a].cores > 0)
			nodes[n++] =
			    (struct bw_node){p->nodes[a].rack, p->nodes[a].net_bw,
					     (double)p->nodes[a].cores, p->nodes[a].disk_bw};
	memcpy(racked, nodes, n * sizeof *nodes);
	qsort(nodes, n, sizeof *nodes, by_net);
	qsort(racked, n, sizeof *racked, by_rack_net);
	double *below = buf, *cores = buf + (n + 1);
	double *rbelow = buf + 2 * (n + 1), *rcores = buf + 3 * (n + 1);
	prefix(nodes, n, below, cores);
	int racks = p->rack_bw > 0;
	for (size_t r0 = 0, r1; r0 < n; r0 = r1) {
		/* One rack: racked[r0..r1). */
		for (r1 = r0 + 1; r1 < n && !strcmp(racked[r1].rack, racked[r0].rack); r1++)
			;
		size_t m = r1 - r0;
		prefix(racked + r0, m, rbelow, rcores);
		for (size_t i = r0; i < r1; i++) {
			const struct bw_node *x = &racked[i];
			double u = x->disk < x->net ? x->disk : x->net;
			if (p->backbone_bw > 0 && p->backbone_bw < u)
				u = p->backbone_bw;
			double v = racks && p->rack_bw < u ? p->rack_bw : u;
			double own = u < x->net ? u : x->net;
			double in_rack = sum_min(racked + r0, rbelow, rcores, m, u);
			double other = sum_min(nodes, below, cores, n, v) -
				       sum_min(racked + r0, rbelow, rcores, m, v);
			sum += x->cores * (in_rack - x->cores * own + other);
		}
	}
	free(nodes);
	free(racked);
	free(buf);
	return sum / pairs;
}

/* Lays graph `g` on wl's platform: tasks, holders, workers, the local
 * tasks of each node, totals. */
static int bind(struct locus_workload *wl, const struct locus_graph *g,
		const struct locus_catalog *cat, struct locus_error *err)
{
	const struct locus_platform *p = wl->platform;
	size_t n = g->n_tasks;
	int rc;
	struct wl_priv *pv = wl->priv;
	wl->graph = g;
	wl->n_tasks = n;
	if (pv->graph == g) {
		/* Its own graph: the tasks get their locality in place. */
		wl->tasks = pv->graph->tasks;
		pv->shares_tasks = 1;
	} else {
		wl->tasks = locus__calloc(n ? n : 1, sizeof *wl->tasks);
	}
	wl->worker_node = locus__calloc(locus_platform_cores(p), sizeof *wl->worker_node);
	wl->node_at = locus__calloc(p->n_nodes + 1, sizeof *wl->node_at);
	for (size_t k = 0; k < p->n_nodes; k++)
		pv->n_coreless += p->nodes[k].cores == 0;
	pv->coreless = locus__calloc(pv->n_coreless ? pv->n_coreless : 1, sizeof *pv->coreless);
	if ((!wl->tasks && n) || !wl->worker_node || !wl->node_at || !pv->coreless)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	for (size_t k = 0, i = 0; k < p->n_nodes; k++)
		if (p->nodes[k].cores == 0)
			pv->coreless[i++] = (uint32_t)k;
	if ((rc = place_objects(wl, g, cat)))
		return rc == LOCUS_ERANGE
			   ? locus__err(err, rc, NULL, 0, 0, "too many replicas (%zu objects)",
					g->n_objects)
			   : locus__err(err, rc, NULL, 0, 0, "out of memory");
	for (size_t t = 0; t < n; t++) {
		struct locus_task *tk = &wl->tasks[t];
		if (tk != &g->tasks[t])
			*tk = g->tasks[t];
		uint32_t o = main_input(g, (uint32_t)t);
		if (o != LOCUS_NONE) {
			tk->holders_at = wl->obj_at[o];
			tk->n_holders = wl->obj_at[o + 1] - wl->obj_at[o];
			wl->n_unplaced += tk->n_holders == 0;
			for (uint32_t k = 0; k < tk->n_holders; k++)
				wl->node_at[wl->holders[tk->holders_at + k] + 1]++;
		} else {
			tk->holders_at = tk->n_holders = 0;
		}
		wl->total_work += tk->work;
		wl->total_bytes += tk->bytes;
	}
	/* Node -> local tasks, by counting sort. */
	for (size_t k = 0; k < p->n_nodes; k++)
		wl->node_at[k + 1] += wl->node_at[k];
	wl->node_tasks = locus__calloc(wl->node_at[p->n_nodes] ? wl->node_at[p->n_nodes] : 1,
				       sizeof *wl->node_tasks);
	uint32_t *fill = locus__calloc(p->n_nodes ? p->n_nodes : 1, sizeof *fill);
	if (!wl->node_tasks || !fill) {
		free(fill);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < wl->tasks[i].n_holders; k++) {
			uint32_t nd = wl->holders[wl->tasks[i].holders_at + k];
			wl->node_tasks[wl->node_at[nd] + fill[nd]++] = (uint32_t)i;
		}
	free(fill);
	for (size_t k = 0; k < p->n_nodes; k++)
		for (int c = 0; c < p->nodes[k].cores; c++)
			wl->worker_node[wl->n_workers++] = (uint32_t)k;
	if (g->cost) {
		if (g->n_procs != wl->n_workers)
			return locus__err(err, LOCUS_EINVAL, g->name, 0, 0,
					  "the graph gives costs on %zu processors; the platform "
					  "runs %zu workers",
					  g->n_procs, wl->n_workers);
		wl->cost = g->cost;
	}
	if (locus_graph_has_edges(g))
		wl->mean_bw = mean_bw(wl);
	return 0;
}

int locus_workload_build(struct locus_workload **out, const struct locus_platform *p,
			 const struct locus_catalog *cat, const char *only,
			 const struct locus_work_spec *work, uint64_t seed, struct locus_error *err)
{
	return locus_workload_build_skip(out, p, cat, only, work, seed, NULL, NULL, err);
}

/* The graph of a chunk workload: one object per chunk (chunks the skip
 * callback names left out), one task reading it, none depending on
 * another; finished. */
int locus__chunk_graph(struct locus_graph **out, const struct locus_catalog *cat, const char *only,
		       const struct locus_work_spec *work, uint64_t seed,
		       int (*skip)(void *user, size_t dataset, size_t chunk), void *skip_user,
		       struct locus_error *err)
{
	struct locus_graph *g = NULL;
	struct locus_rng rng;
	int rc = 0;
	*out = NULL;
	long only_ds = -1;
	if (only && (only_ds = locus_catalog_find_dataset(cat, only)) < 0) {
		rc = locus__err(err, LOCUS_ENOENT, NULL, 0, 0, "no dataset \"%s\" in the catalog",
				only);
		goto fail;
	}
	size_t n_tasks = 0;
	for (size_t d = 0; d < cat->n_datasets; d++) {
		if (only_ds >= 0 && (long)d != only_ds)
			continue;
		for (size_t c = 0; c < cat->datasets[d].n_chunks; c++)
			n_tasks += !(skip && skip(skip_user, d, c));
	}
	if (n_tasks >= UINT32_MAX) {
		rc = locus__err(err, LOCUS_ERANGE, NULL, 0, 0, "too many tasks (%zu)", n_tasks);
		goto fail;
	}
	/* The graph: one object per chunk, one task reading it. */
	if ((rc = locus_graph_create(&g, NULL, err)))
		goto fail;
	locus_rng_init(&rng, seed);
	size_t t = 0;
	for (size_t d = 0; d < cat->n_datasets; d++) {
		if (only_ds >= 0 && (long)d != only_ds)
			continue;
		const struct locus_dataset *ds = &cat->datasets[d];
		for (size_t c = 0; c < ds->n_chunks; c++) {
			if (skip && skip(skip_user, d, c))
				continue;
			const struct locus_chunk *ch = &ds->chunks[c];
			long o = locus_graph_add_object(g, NULL, ch->length);
			long k = o < 0 ? o
				       : locus_graph_add_task(g, NULL,
							      draw_work(work, &rng, t, ch->length));
			if (k < 0 ||
			    locus_graph_set_chunk(g, (uint32_t)o, (uint32_t)d, (uint32_t)c) ||
			    locus_graph_add_input(g, (uint32_t)k, (uint32_t)o)) {
				rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
				goto fail;
			}
			g->tasks[k].dataset = (uint32_t)d;
			g->tasks[k].chunk = (uint32_t)c;
			t++;
		}
	}
	if ((rc = locus_graph_finish(g, err)))
		goto fail;
	*out = g;
	return 0;
fail:
	locus_graph_destroy(g);
	return rc;
}

int locus_workload_build_skip(struct locus_workload **out, const struct locus_platform *p,
			      const struct locus_catalog *cat, const char *only,
			      const struct locus_work_spec *work, uint64_t seed,
			      int (*skip)(void *user, size_t dataset, size_t chunk),
			      void *skip_user, struct locus_error *err)
{
	struct locus_workload *wl = calloc(1, sizeof *wl);
	struct wl_priv *pv = calloc(1, sizeof *pv);
	struct locus_graph *g = NULL;
	int rc = 0;
	*out = NULL;
	if (!wl || !pv) {
		free(pv);
		rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		goto fail;
	}
	wl->priv = pv;
	wl->platform = p;
	if ((rc = locus__chunk_graph(&g, cat, only, work, seed, skip, skip_user, err)))
		goto fail;
	pv->graph = g;
	if ((rc = bind(wl, g, cat, err)))
		goto fail;
	*out = wl;
	return 0;
fail:
	locus_workload_destroy(wl);
	return rc;
}

int locus_workload_fits(const struct locus_workload *wl, uint32_t t, uint32_t node)
{
	const struct locus_node *nd = &wl->platform->nodes[node];
	struct locus_demand d = locus_graph_demand(wl->graph, t);
	return nd->cores > 0 && d.cores <= (uint32_t)nd->cores &&
	       (nd->memory <= 0 || (double)d.memory <= nd->memory) &&
	       (nd->storage <= 0 || (double)d.disk <= nd->storage);
}

/* A task that no node can hold is refused: FILE:LINE (its rule's, when
 * the graph knows it), what it needs and the most a node has. */
static int check_demands(const struct locus_workload *wl, struct locus_error *err)
{
	const struct locus_graph *g = wl->graph;
	const struct locus_platform *p = wl->platform;
	uint32_t last = 0; /* the node the last task fitted: tried first */
	for (uint32_t t = 0; g->demand && t < g->n_tasks; t++) {
		int fits = last < p->n_nodes && locus_workload_fits(wl, t, last);
		for (uint32_t i = 0; i < p->n_nodes && !fits; i++)
			if ((fits = locus_workload_fits(wl, t, i)))
				last = i;
		if (fits)
			continue;
		int cores = 0;
		double mem = 0, disk = 0;
		for (uint32_t i = 0; i < p->n_nodes; i++) {
			const struct locus_node *a = &p->nodes[i];
			cores = a->cores > cores ? a->cores : cores;
			mem = a->cores > 0 && a->memory > mem ? a->memory : mem;
			disk = a->cores > 0 && a->storage > disk ? a->storage : disk;
		}
		struct locus_demand d = g->demand[t];
		char nb[128];
		return locus__err(err, LOCUS_EINVAL, g->name, g->task_line ? g->task_line[t] : 0, 0,
				  "task %s needs %" PRIu32 " core%s, %" PRIu64
				  " bytes of memory and %" PRIu64
				  " of disk, which no node holds: expected at most %d cores, %.0f "
				  "bytes of memory and %.0f of disk a task (0: no limit)",
				  locus_graph_task_name(g, t, nb, sizeof nb), d.cores,
				  d.cores == 1 ? "" : "s", d.memory, d.disk, cores, mem, disk);
	}
	return 0;
}

int locus_workload_from_graph(struct locus_workload **out, const struct locus_platform *p,
			      const struct locus_graph *g, const struct locus_catalog *cat,
			      struct locus_error *err)
{
	struct locus_workload *wl = calloc(1, sizeof *wl);
	struct wl_priv *pv = calloc(1, sizeof *pv);
	*out = NULL;
	if (!wl || !pv) {
		free(wl);
		free(pv);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	wl->priv = pv;
	wl->platform = p;
	if (!g->topo) {
		locus_workload_destroy(wl);
		return locus__err(err, LOCUS_EINVAL, g->name, 0, 0, "the graph is not finished");
	}
	int rc = bind(wl, g, cat, err);
	if (!rc)
		rc = check_demands(wl, err);
	if (rc) {
		locus_workload_destroy(wl);
		return rc;
	}
	*out = wl;
	return 0;
}

uint32_t locus__node_without_cores(const struct locus_workload *wl, size_t k)
{
	const struct wl_priv *pv = wl->priv;
	if (pv && pv->coreless)
		return k < pv->n_coreless ? pv->coreless[k] : UINT32_MAX;
	/* A workload made by hand (tests): look. */
	const struct locus_platform *p = wl->platform;
	for (size_t i = 0, seen = 0; i < p->n_nodes; i++)
		if (p->nodes[i].cores == 0 && seen++ == k)
			return (uint32_t)i;
	return UINT32_MAX;
}

int locus_workload_is_local(const struct locus_workload *wl, uint32_t t, uint32_t node)
{
	const struct locus_task *tk = &wl->tasks[t];
	for (uint32_t k = 0; k < tk->n_holders; k++)
		if (wl->holders[tk->holders_at + k] == node)
			return 1;
	return 0;
}

double locus_workload_cost(const struct locus_workload *wl, uint32_t t, uint32_t w)
{
	if (wl->cost)
		return wl->cost[(size_t)t * wl->n_workers + w];
	return wl->tasks[t].work / wl->platform->nodes[wl->worker_node[w]].speed;
}

double locus_workload_comm(const struct locus_workload *wl, uint64_t bytes, uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	return wl->platform->latency + (double)bytes / locus_platform_pair_bw(wl->platform, a, b);
}

double locus_workload_arrival(const struct locus_workload *wl, double t0, uint64_t bytes,
			      uint32_t a, uint32_t b)
{
	if (a == b)
		return t0;
	return (t0 + wl->platform->latency) +
	       (double)bytes / locus_platform_pair_bw(wl->platform, a, b);
}

double locus_workload_mean_cost(const struct locus_workload *wl, uint32_t t)
{
	if (!wl->cost) {
		double inv = 0;
		for (size_t w = 0; w < wl->n_workers; w++)
			inv += 1 / wl->platform->nodes[wl->worker_node[w]].speed;
		return wl->n_workers ? wl->tasks[t].work * inv / (double)wl->n_workers : 0;
	}
	double sum = 0;
	for (size_t w = 0; w < wl->n_workers; w++)
		sum += wl->cost[(size_t)t * wl->n_workers + w];
	return wl->n_workers ? sum / (double)wl->n_workers : 0;
}

double locus_workload_mean_comm(const struct locus_workload *wl, uint64_t bytes)
{
	if (!(wl->mean_bw > 0))
		return 0;
	return wl->platform->latency + (double)bytes / wl->mean_bw;
}
