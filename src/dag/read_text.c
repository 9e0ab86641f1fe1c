/*
 * The plain text form of a graph with a cost per processor, as the HEFT
 * paper's example is given (docs/formats.md):
 *
 *   tasks N procs P
 *   ID C1 .. CP          N lines
 *   edges E
 *   SRC DST DATA         E lines
 *
 * '#' starts a comment anywhere. Tasks get dense ids in file order and
 * their ID as name (in decimal without leading zeros). DATA is a transfer
 * time on unit links: whole numbers are bytes at graph->data_bw = 1; when
 * some DATA has a fraction, sizes are micro-units at data_bw = 1e6, so
 * that bytes / data_bw is DATA either way. An edge listed twice, an edge
 * from a task to itself and a cycle are errors.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag/readutil.h"
#include "locus/dag.h"

/* The most tasks (the graph's ids are uint32_t) and edges. */
#define TEXT_MAX_TASKS ((uint64_t)UINT32_MAX - 2)
#define TEXT_MAX_EDGES ((uint64_t)UINT32_MAX - 2)
/* The largest DATA, so that micro-units fit 64 bits. */
#define TEXT_MAX_DATA 1e12
/* The size unit when some DATA has a fraction. */
#define TEXT_FINE_BW 1e6

enum text_state { TEXT_HEADER, TEXT_TASKS, TEXT_EDGES_HEADER, TEXT_EDGES };

struct text_edge {
	uint32_t from, to;
	double data;
};

struct text_reader {
	const char *name;
	struct locus_error *err;
	long line;
	enum text_state state;
	uint64_t n_tasks, n_procs, n_edges;
	long edges_line; /* where "edges E" is */
	size_t tasks;	 /* task lines read */
	uint64_t *ids;	 /* by dense id: the file's id */
	long *task_line; /* by dense id */
	size_t ids_cap, lines_cap;
	double *cost; /* tasks x procs */
	size_t cost_cap;
	struct text_edge *edges;
	size_t edges_read, edges_cap;
	int fraction;		      /* some DATA is not whole */
	struct locus__strmap by_id;   /* file id -> dense id */
	struct locus__strmap by_pair; /* "from to" -> line */
	struct locus__dag_fields fs;
};

static int oom(struct text_reader *r)
{
	return locus__err(r->err, LOCUS_ENOMEM, r->name, 0, 0, "out of memory");
}

static int keyword(const struct locus__field *f, const char *word)
{
	size_t i;
	for (i = 0; i < f->n && word[i]; i++) {
		int ch = (unsigned char)f->s[i];
		if ((ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch) != word[i])
			return 0;
	}
	return i == f->n && !word[i];
}

static int header_line(struct text_reader *r)
{
	const struct locus__field *f = r->fs.f;
	size_t k = r->fs.n;
	char q[LOCUS__DAG_QUOTE_SIZE];
	static const char usage[] = "expected \"tasks N procs P\"";

	if (!keyword(&f[0], "tasks"))
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[0].col, "%s, got %s",
				  usage, locus__dag_quote(&f[0], q, 0));
	if (k < 2)
		goto short_line;
	if (locus__dag_u64(&f[1], &r->n_tasks) || r->n_tasks < 1 || r->n_tasks > TEXT_MAX_TASKS)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[1].col,
				  "expected the number of tasks (a whole number from 1 to %" PRIu64
				  "), got %s",
				  TEXT_MAX_TASKS, locus__dag_quote(&f[1], q, 0));
	if (k < 3)
		goto short_line;
	if (!keyword(&f[2], "procs"))
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[2].col, "%s, got %s",
				  usage, locus__dag_quote(&f[2], q, 0));
	if (k < 4)
		goto short_line;
	if (locus__dag_u64(&f[3], &r->n_procs) || r->n_procs < 1 || r->n_procs > UINT32_MAX)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[3].col,
				  "expected the number of processors (a whole number from 1 to "
				  "%" PRIu32 "), got %s",
				  UINT32_MAX, locus__dag_quote(&f[3], q, 0));
	if (k > 4)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[4].col,
				  "%s, got an extra field %s", usage,
				  locus__dag_quote(&f[4], q, 0));
	r->state = TEXT_TASKS;
	return 0;
short_line:
	return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, locus__dag_after(&f[k - 1]),
			  "%s, the line ends after %zu field%s", usage, k, k == 1 ? "" : "s");
}

static int task_line(struct text_reader *r)
{
	const struct locus__field *f = r->fs.f;
	size_t k = r->fs.n, P = (size_t)r->n_procs;
	char q[LOCUS__DAG_QUOTE_SIZE], key[24];
	uint64_t id;
	size_t was;

	if (keyword(&f[0], "edges"))
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[0].col,
				  "expected %" PRIu64 " task lines before \"edges\", got %zu",
				  r->n_tasks, r->tasks);
	if (locus__dag_u64(&f[0], &id))
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[0].col,
				  "expected a task id (a whole number >= 0), got %s",
				  locus__dag_quote(&f[0], q, 0));
	snprintf(key, sizeof key, "%" PRIu64, id);
	if (locus__strmap_get(&r->by_id, key, &was))
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[0].col,
				  "task %s is listed twice (first on line %ld)", key,
				  r->task_line[was]);
	if (k - 1 < P)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line,
				  locus__dag_after(&f[k - 1]),
				  "expected %zu cost%s of task %s (procs %zu), the line lists %zu",
				  P, P == 1 ? "" : "s", key, P, k - 1);
	if (k - 1 > P)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[1 + P].col,
				  "expected %zu cost%s of task %s (procs %zu), got an extra field "
				  "%s",
				  P, P == 1 ? "" : "s", key, P, locus__dag_quote(&f[1 + P], q, 0));
	size_t t = r->tasks;
	if (locus__grow(&r->ids, &r->ids_cap, t + 1, sizeof *r->ids) ||
	    locus__grow(&r->task_line, &r->lines_cap, t + 1, sizeof *r->task_line) ||
	    locus__grow(&r->cost, &r->cost_cap, (t + 1) * P, sizeof *r->cost) ||
	    locus__strmap_put(&r->by_id, key, t))
		return oom(r);
	for (size_t m = 0; m < P; m++) {
		double c;
		if (locus__field_decimal(&f[1 + m], &c) || !(c >= 0 && c <= LOCUS_WORK_MAX))
			return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[1 + m].col,
					  "expected the cost of task %s on processor %zu (a "
					  "decimal number from 0 to %g), got %s",
					  key, m + 1, LOCUS_WORK_MAX,
					  locus__dag_quote(&f[1 + m], q, 0));
		r->cost[t * P + m] = c + 0.0;
	}
	r->ids[t] = id;
	r->task_line[t] = r->line;
	if (++r->tasks == r->n_tasks)
		r->state = TEXT_EDGES_HEADER;
	return 0;
}

static int edges_header(struct text_reader *r)
{
	const struct locus__field *f = r->fs.f;
	size_t k = r->fs.n;
	char q[LOCUS__DAG_QUOTE_SIZE];

	if (!keyword(&f[0], "edges"))
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[0].col,
				  "expected \"edges E\" after the %" PRIu64 " tasks, got %s",
				  r->n_tasks, locus__dag_quote(&f[0], q, 0));
	if (k < 2)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, locus__dag_after(&f[0]),
				  "expected \"edges E\", the line ends after \"edges\"");
	if (locus__dag_u64(&f[1], &r->n_edges) || r->n_edges > TEXT_MAX_EDGES)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[1].col,
				  "expected the number of edges (a whole number below %" PRIu64
				  "), got %s",
				  TEXT_MAX_EDGES + 1, locus__dag_quote(&f[1], q, 0));
	if (k > 2)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[2].col,
				  "expected \"edges E\", got an extra field %s",
				  locus__dag_quote(&f[2], q, 0));
	r->edges_line = r->line;
	r->state = TEXT_EDGES;
	return 0;
}

/* The dense id of the task field f names, or -1 after filling the error. */
static long edge_end(struct text_reader *r, const struct locus__field *f)
{
	char q[LOCUS__DAG_QUOTE_SIZE], key[24];
	uint64_t id;
	size_t t;
	if (locus__dag_u64(f, &id)) {
		locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f->col,
			   "expected a task id (a whole number >= 0), got %s",
			   locus__dag_quote(f, q, 0));
		return -1;
	}
	snprintf(key, sizeof key, "%" PRIu64, id);
	if (!locus__strmap_get(&r->by_id, key, &t)) {
		locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f->col,
			   "no task %s: expected the id of a task listed above", key);
		return -1;
	}
	return (long)t;
}

static int edge_line(struct text_reader *r)
{
	const struct locus__field *f = r->fs.f;
	size_t k = r->fs.n, was;
	char q[LOCUS__DAG_QUOTE_SIZE], key[48];
	double data;

	if (r->edges_read >= r->n_edges)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[0].col,
				  "expected no more edge lines (\"edges %" PRIu64
				  "\" on line %ld), got %s",
				  r->n_edges, r->edges_line, locus__dag_quote(&f[0], q, 0));
	long from = edge_end(r, &f[0]);
	if (from < 0)
		return LOCUS_EPARSE;
	if (k < 2)
		goto short_line;
	long to = edge_end(r, &f[1]);
	if (to < 0)
		return LOCUS_EPARSE;
	if (to == from)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[1].col,
				  "an edge from task %" PRIu64 " to itself: expected another task",
				  r->ids[from]);
	if (k < 3)
		goto short_line;
	if (locus__field_decimal(&f[2], &data) || !(data >= 0 && data <= TEXT_MAX_DATA))
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[2].col,
				  "expected the data of edge %" PRIu64 " -> %" PRIu64
				  " (a number from 0 to 1e12), got %s",
				  r->ids[from], r->ids[to], locus__dag_quote(&f[2], q, 0));
	if (k > 3)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[3].col,
				  "expected \"SRC DST DATA\", got an extra field %s",
				  locus__dag_quote(&f[3], q, 0));
	snprintf(key, sizeof key, "%ld %ld", from, to);
	if (locus__strmap_get(&r->by_pair, key, &was))
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[0].col,
				  "edge %" PRIu64 " -> %" PRIu64 " is listed twice (first on line "
				  "%zu)",
				  r->ids[from], r->ids[to], was);
	if (locus__strmap_put(&r->by_pair, key, (size_t)r->line) ||
	    locus__grow(&r->edges, &r->edges_cap, r->edges_read + 1, sizeof *r->edges))
		return oom(r);
	data += 0.0;
	if (data != floor(data))
		r->fraction = 1;
	r->edges[r->edges_read++] = (struct text_edge){(uint32_t)from, (uint32_t)to, data};
	return 0;
short_line:
	return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, locus__dag_after(&f[k - 1]),
			  "expected \"SRC DST DATA\", the line ends after %zu field%s", k,
			  k == 1 ? "" : "s");
}

static int at_end(struct text_reader *r, const char *text, size_t len)
{
	long line, col;
	locus__dag_eof(text, len, &line, &col);
	switch (r->state) {
	case TEXT_HEADER:
		return locus__err(r->err, LOCUS_EPARSE, r->name, line, col,
				  "expected \"tasks N procs P\", the file ends before it");
	case TEXT_TASKS:
		return locus__err(r->err, LOCUS_EPARSE, r->name, line, col,
				  "expected %" PRIu64 " task lines, the file ends after %zu",
				  r->n_tasks, r->tasks);
	case TEXT_EDGES_HEADER:
		return locus__err(r->err, LOCUS_EPARSE, r->name, line, col,
				  "expected \"edges E\" after the %" PRIu64
				  " tasks, the file ends before it",
				  r->n_tasks);
	case TEXT_EDGES:
		if (r->edges_read < r->n_edges)
			return locus__err(r->err, LOCUS_EPARSE, r->name, line, col,
					  "expected %" PRIu64 " edge lines (\"edges %" PRIu64
					  "\" on line %ld), the file ends after %zu",
					  r->n_edges, r->n_edges, r->edges_line, r->edges_read);
		return 0;
	}
	return 0;
}

static int build(struct text_reader *r, struct locus_graph **out)
{
	struct locus_graph *g;
	char name[24];
	double bw = r->fraction ? TEXT_FINE_BW : 1;
	int rc = locus_graph_create(&g, r->name, r->err);
	if (rc)
		return rc;
	for (size_t t = 0; t < r->tasks; t++) {
		snprintf(name, sizeof name, "%" PRIu64, r->ids[t]);
		if (locus_graph_add_task(g, name, 0) < 0)
			goto fail;
	}
	for (size_t e = 0; e < r->edges_read; e++) {
		const struct text_edge *d = &r->edges[e];
		uint64_t bytes = (uint64_t)llround(d->data * bw);
		if (locus_graph_add_edge(g, d->from, d->to, bytes) < 0)
			goto fail;
	}
	g->data_bw = bw;
	rc = locus_graph_set_costs(g, (size_t)r->n_procs, r->cost, r->err);
	if (!rc)
		rc = locus_graph_finish(g, r->err);
	if (rc == LOCUS_EINVAL) {
		/* A cycle: the input is at fault. */
		r->err->code = rc = LOCUS_EPARSE;
	}
	if (rc) {
		locus_graph_destroy(g);
		return rc;
	}
	*out = g;
	return 0;
fail:
	locus_graph_destroy(g);
	return oom(r);
}

int locus_dag_read_text(struct locus_graph **out, const char *text, size_t len, const char *name,
			struct locus_error *err)
{
	struct locus_error local;
	struct text_reader r = {0};
	size_t pos = 0, ln;
	const char *line;
	int rc = 0;

	if (!out)
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no place for the graph");
	*out = NULL;
	if (!text && len)
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no text");
	/* A byte-order mark is skipped; columns count from after it. */
	size_t bom = locus__bom_len(text, len);
	if (bom) {
		text += bom;
		len -= bom;
	}
	r.name = name;
	r.err = err ? err : &local;
	locus__strmap_init(&r.by_id);
	locus__strmap_init(&r.by_pair);
	while (!rc && locus__next_line(text, len, &pos, &line, &ln)) {
		r.line++;
		if (locus__dag_split(&r.fs, line, ln)) {
			rc = oom(&r);
			break;
		}
		if (r.fs.n == 0)
			continue;
		switch (r.state) {
		case TEXT_HEADER:
			rc = header_line(&r);
			break;
		case TEXT_TASKS:
			rc = task_line(&r);
			break;
		case TEXT_EDGES_HEADER:
			rc = edges_header(&r);
			break;
		case TEXT_EDGES:
			rc = edge_line(&r);
			break;
		}
	}
	if (!rc)
		rc = at_end(&r, text, len);
	if (!rc)
		rc = build(&r, out);
	free(r.ids);
	free(r.task_line);
	free(r.cost);
	free(r.edges);
	locus__strmap_fini(&r.by_id);
	locus__strmap_fini(&r.by_pair);
	locus__dag_fields_fini(&r.fs);
	return rc;
}
