/*
 * The plain text form of a graph with a cost per processor (docs/formats.md,
 * "Task graphs"), as the HEFT paper's example is written:
 *   tasks N procs P
 *   ID C1 .. CP          N lines
 *   edges E
 *   SRC DST DATA         E lines
 * '#' starts a comment anywhere. DATA is the transfer time on the paper's
 * unit links: whole numbers are bytes at 1 byte/s (graph->data_bw = 1);
 * when some are fractions, sizes are in millionths (data_bw = 1e6).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dag/scan.h"
#include "locus/dag.h"

#define ULL(x)	      ((unsigned long long)(x))
#define TEXT_MAX      100000000ull /* tasks, edges */
#define TEXT_MAX_COST 100000000ull /* tasks x processors */

struct tid {
	uint64_t id;
	uint32_t task;
	long line, col;
};

struct tedge {
	uint32_t src, dst;
	double data;
	long line, col;
};

static int cmp_tid(const void *a, const void *b)
{
	const struct tid *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct tedge *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Reads "WORD COUNT" pairs of a header line: `words` of them. */
static int header(struct dag_scan *sc, const char *const *words, size_t n_words, uint64_t *vals,
		  const char *usage)
{
	struct locus__field f;
	char q[64];
	for (size_t k = 0; k < n_words; k++) {
		if (!locus__dag_scan_tok(sc, &f))
			return locus__err(sc->err, LOCUS_EPARSE, sc->name, sc->line,
					  locus__dag_scan_eol(sc), "expected \"%s\"", usage);
		if (f.n != strlen(words[k]) || strncmp(f.s, words[k], f.n) != 0)
			return locus__err(sc->err, LOCUS_EPARSE, sc->name, sc->line, f.col,
					  "expected \"%s\", got %s", usage,
					  locus__dag_quote(&f, q, sizeof q));
		if (!locus__dag_scan_tok(sc, &f))
			return locus__err(sc->err, LOCUS_EPARSE, sc->name, sc->line,
					  locus__dag_scan_eol(sc), "expected \"%s\"", usage);
		int rc = locus__dag_scan_uint(sc, &f, TEXT_MAX + 1, "a count", &vals[k]);
		if (rc)
			return rc;
	}
	if (locus__dag_scan_tok(sc, &f))
		return locus__err(sc->err, LOCUS_EPARSE, sc->name, sc->line, f.col,
				  "expected \"%s\", got an extra field %s", usage,
				  locus__dag_quote(&f, q, sizeof q));
	return 0;
}

/* The dense task of STG-style id field f, or an error. */
static int find_id(struct dag_scan *sc, const struct tid *ids, size_t n,
		   const struct locus__field *f, uint32_t *task)
{
	uint64_t id;
	char q[64];
	int rc = locus__dag_scan_uint(sc, f, UINT64_MAX, "a task id", &id);
	if (rc)
		return rc;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || ids[lo].id != id)
		return locus__err(sc->err, LOCUS_EPARSE, sc->name, sc->line, f->col,
				  "no task %s in the task list", locus__dag_quote(f, q, sizeof q));
	*task = ids[lo].task;
	return 0;
}

int locus_dag_read_text(struct locus_graph **out, const char *text, size_t len, const char *name,
			struct locus_error *err)
{
	static const char *const tw[] = {"tasks", "procs"}, *const ew[] = {"edges"};
	struct dag_scan sc;
	struct locus__field f;
	struct locus_graph *g = NULL;
	struct tid *ids = NULL;
	struct tedge *edges = NULL;
	double *cost = NULL;
	uint64_t hv[2], ev;
	int rc, fractions = 0;
	char q[64];

	if (!out)
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no output");
	*out = NULL;
	locus__dag_scan_init(&sc, text, len, name, err);
	if (!locus__dag_scan_line(&sc))
		return locus__err(err, LOCUS_EPARSE, name, 0, 0,
				  "empty: expected \"tasks N procs P\"");
	if ((rc = header(&sc, tw, 2, hv, "tasks N procs P")))
		return rc;
	size_t n = (size_t)hv[0], procs = (size_t)hv[1];
	if (!procs)
		return locus__err(err, LOCUS_EPARSE, name, sc.line, 0,
				  "expected at least one processor");
	if (n && procs > TEXT_MAX_COST / n)
		return locus__err(err, LOCUS_ERANGE, name, sc.line, 0,
				  "%zu tasks on %zu processors: too many costs", n, procs);
	/* A cost takes 2 bytes at least: counts the text cannot hold are
	 * refused before anything is allocated for them. */
	if ((uint64_t)n * (procs + 1) > len)
		return locus__err(err, LOCUS_EPARSE, name, sc.line, 0,
				  "%zu tasks of %zu costs each: more than the file holds", n,
				  procs);
	ids = calloc(n ? n : 1, sizeof *ids);
	cost = calloc(n ? n * procs : 1, sizeof *cost);
	if (!ids || !cost || (rc = locus_graph_create(&g, name, err))) {
		rc = locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
		goto done;
	}
	for (size_t t = 0; t < n; t++) {
		if (!locus__dag_scan_line(&sc)) {
			rc = locus__err(err, LOCUS_EPARSE, name, sc.line, 0,
					"the file ends after %zu of the %zu task lines", t, n);
			goto done;
		}
		locus__dag_scan_tok(&sc, &f);
		if (f.n == 5 && strncmp(f.s, "edges", 5) == 0) {
			rc = locus__err(err, LOCUS_EPARSE, name, sc.line, f.col,
					"expected %zu task lines before \"edges\", got %zu", n, t);
			goto done;
		}
		if ((rc = locus__dag_scan_uint(&sc, &f, UINT64_MAX, "a task id", &ids[t].id)))
			goto done;
		ids[t].task = (uint32_t)t;
		ids[t].line = sc.line;
		ids[t].col = f.col;
		for (size_t m = 0; m < procs; m++) {
			if (!locus__dag_scan_tok(&sc, &f)) {
				rc = locus__err(err, LOCUS_EPARSE, name, sc.line,
						locus__dag_scan_eol(&sc),
						"expected \"ID C1 .. C%zu\": %zu costs, got %zu",
						procs, procs, m);
				goto done;
			}
			if ((rc = locus__dag_scan_cost(&sc, &f, "a cost", &cost[t * procs + m])))
				goto done;
		}
		if (locus__dag_scan_tok(&sc, &f)) {
			rc = locus__err(err, LOCUS_EPARSE, name, sc.line, f.col,
					"expected \"ID C1 .. C%zu\", got an extra field %s", procs,
					locus__dag_quote(&f, q, sizeof q));
			goto done;
		}
		char nm[24];
		snprintf(nm, sizeof nm, "%llu", ULL(ids[t].id));
		if (locus_graph_add_task(g, nm, 0) < 0) {
			rc = locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
			goto done;
		}
	}
	qsort(ids, n, sizeof *ids, cmp_tid);
	for (size_t k = 1; k < n; k++)
		if (ids[k].id == ids[k - 1].id) {
			rc = locus__err(err, LOCUS_EPARSE, name, ids[k].line, ids[k].col,
					"task %llu is listed twice (first on line %ld)",
					ULL(ids[k].id), ids[k - 1].line);
			goto done;
		}
	if (!locus__dag_scan_line(&sc)) {
		rc = locus__err(err, LOCUS_EPARSE, name, sc.line, 0,
				"the file ends after the tasks: expected \"edges E\"");
		goto done;
	}
	if ((rc = header(&sc, ew, 1, &ev, "edges E")))
		goto done;
	if (ev > len) {
		rc = locus__err(err, LOCUS_EPARSE, name, sc.line, 0,
				"%llu edge lines: more than the file holds", ULL(ev));
		goto done;
	}
	edges = calloc(ev ? (size_t)ev : 1, sizeof *edges);
	if (!edges) {
		rc = locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
		goto done;
	}
	for (size_t e = 0; e < ev; e++) {
		struct tedge *ed = &edges[e];
		if (!locus__dag_scan_line(&sc)) {
			rc = locus__err(err, LOCUS_EPARSE, name, sc.line, 0,
					"the file ends after %zu of the %llu edge lines", e,
					ULL(ev));
			goto done;
		}
		ed->line = sc.line;
		locus__dag_scan_tok(&sc, &f);
		ed->col = f.col;
		if ((rc = find_id(&sc, ids, n, &f, &ed->src)))
			goto done;
		if (!locus__dag_scan_tok(&sc, &f)) {
			rc = locus__err(err, LOCUS_EPARSE, name, sc.line, locus__dag_scan_eol(&sc),
					"expected \"SRC DST DATA\"");
			goto done;
		}
		if ((rc = find_id(&sc, ids, n, &f, &ed->dst)))
			goto done;
		if (ed->dst == ed->src) {
			rc = locus__err(err, LOCUS_EPARSE, name, sc.line, f.col,
					"an edge joins two different tasks, got task %s twice",
					locus__dag_quote(&f, q, sizeof q));
			goto done;
		}
		if (!locus__dag_scan_tok(&sc, &f)) {
			rc = locus__err(err, LOCUS_EPARSE, name, sc.line, locus__dag_scan_eol(&sc),
					"expected \"SRC DST DATA\": the edge has no data");
			goto done;
		}
		if ((rc = locus__dag_scan_cost(&sc, &f, "the edge's data", &ed->data)))
			goto done;
		if (ed->data > 9e15 / 1e6) {
			rc = locus__err(err, LOCUS_ERANGE, name, sc.line, f.col,
					"the edge's data is too large");
			goto done;
		}
		fractions |= ed->data != floor(ed->data);
		if (locus__dag_scan_tok(&sc, &f)) {
			rc = locus__err(err, LOCUS_EPARSE, name, sc.line, f.col,
					"expected \"SRC DST DATA\", got an extra field %s",
					locus__dag_quote(&f, q, sizeof q));
			goto done;
		}
	}
	if (locus__dag_scan_line(&sc)) {
		locus__dag_scan_tok(&sc, &f);
		rc = locus__err(err, LOCUS_EPARSE, name, sc.line, f.col,
				"expected the end of the graph after %llu edge lines, got %s",
				ULL(ev), locus__dag_quote(&f, q, sizeof q));
		goto done;
	}
	/* Each pair once; the edges go in by file order. */
	struct tedge *sorted = malloc((ev ? (size_t)ev : 1) * sizeof *sorted);
	if (!sorted) {
		rc = locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
		goto done;
	}
	memcpy(sorted, edges, (size_t)ev * sizeof *sorted);
	qsort(sorted, (size_t)ev, sizeof *sorted, cmp_edge);
	for (size_t e = 1; e < ev; e++)
		if (sorted[e].src == sorted[e - 1].src && sorted[e].dst == sorted[e - 1].dst) {
			rc = locus__err(err, LOCUS_EPARSE, name, sorted[e].line, sorted[e].col,
					"the edge %s -> %s is listed twice (first on line %ld)",
					g->tasks[sorted[e].src].name, g->tasks[sorted[e].dst].name,
					sorted[e - 1].line);
			free(sorted);
			goto done;
		}
	free(sorted);
	double scale = fractions ? 1e6 : 1;
	for (size_t e = 0; e < ev; e++)
		if (locus_graph_add_edge(g, edges[e].src, edges[e].dst,
					 (uint64_t)llround(edges[e].data * scale)) < 0) {
			rc = locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
			goto done;
		}
	if ((rc = locus_graph_set_costs(g, procs, cost, err)) || (rc = locus_graph_finish(g, err)))
		goto done;
	g->data_bw = scale;
	*out = g;
	g = NULL;
done:
	free(ids);
	free(edges);
	free(cost);
	locus_graph_destroy(g);
	return rc;
}
