/*
 * The Standard Task Graph format (Kasahara's STG set; docs/formats.md):
 *
 *   N
 *   0    0    0                 the dummy entry task
 *   id   cost npred pred ...    N + 1 lines, ids in order
 *   N+1  0    k     pred ...    the dummy exit task
 *   # information
 *
 * Predecessors have smaller ids, so the file is a topological order and
 * no cycle can be written. A dummy task of cost 0 is left out with its
 * edges; one with a cost is kept. A predecessor listed twice on a line is
 * an error (the set never writes one; it would be an edge of its own).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag/readutil.h"
#include "locus/dag.h"

/* The most task lines a file may have: the graph's ids are uint32_t. */
#define STG_MAX_LINES ((uint64_t)UINT32_MAX - 2)

struct stg_edge {
	uint32_t from, to;
};

struct stg_reader {
	const char *name;
	struct locus_error *err;
	long line;
	int have_count;
	uint64_t n;	/* real tasks */
	uint64_t lines; /* task lines expected: n + 2 */
	size_t done;	/* task lines read */
	double *cost;	/* by STG id */
	size_t cost_cap;
	uint32_t *seen; /* by STG id: 1 + the id whose line listed it last */
	size_t seen_cap;
	struct stg_edge *edges;
	size_t n_edges, edges_cap;
	struct locus__dag_fields fs;
};

static int oom(struct stg_reader *r)
{
	return locus__err(r->err, LOCUS_ENOMEM, r->name, 0, 0, "out of memory");
}

static int count_line(struct stg_reader *r)
{
	const struct locus__field *f = r->fs.f;
	char q[LOCUS__DAG_QUOTE_SIZE];
	uint64_t n;
	int rc = locus__dag_u64(&f[0], &n);
	if (rc || n > STG_MAX_LINES - 2)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[0].col,
				  "expected the number of tasks (a whole number below %" PRIu64
				  "), got %s",
				  STG_MAX_LINES - 1, locus__dag_quote(&f[0], q, 0));
	if (r->fs.n > 1)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[1].col,
				  "expected the number of tasks alone on its line, got an extra "
				  "field %s",
				  locus__dag_quote(&f[1], q, 0));
	r->n = n;
	r->lines = n + 2;
	r->have_count = 1;
	return 0;
}

static int task_line(struct stg_reader *r)
{
	const struct locus__field *f = r->fs.f;
	size_t k = r->fs.n;
	char q[LOCUS__DAG_QUOTE_SIZE];
	uint64_t id, npred, p;
	double cost;
	size_t me = r->done;

	if (me >= r->lines)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[0].col,
				  "expected no more task lines (%" PRIu64 " tasks and the dummy "
				  "entry and exit: ids 0 to %" PRIu64 "), got %s",
				  r->n, r->n + 1, locus__dag_quote(&f[0], q, 0));
	int rc = locus__dag_u64(&f[0], &id);
	if (rc)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[0].col,
				  "expected task id %zu, got %s", me,
				  locus__dag_quote(&f[0], q, 0));
	if (id < me)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[0].col,
				  "task %" PRIu64 " is listed twice: expected task id %zu", id, me);
	if (id > me)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[0].col,
				  "expected task id %zu (ids in order from 0), got %" PRIu64, me,
				  id);
	if (k < 2)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, locus__dag_after(&f[0]),
				  "expected \"id cost npred pred...\", the line ends after the id");
	if (locus__field_decimal(&f[1], &cost) || !(cost >= 0 && cost <= LOCUS_WORK_MAX))
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[1].col,
				  "expected the cost of task %zu (a decimal number from 0 to %g), "
				  "got %s",
				  me, LOCUS_WORK_MAX, locus__dag_quote(&f[1], q, 0));
	if (k < 3)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, locus__dag_after(&f[1]),
				  "expected \"id cost npred pred...\", the line ends after the "
				  "cost");
	if (locus__dag_u64(&f[2], &npred))
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[2].col,
				  "expected the number of predecessors of task %zu, got %s", me,
				  locus__dag_quote(&f[2], q, 0));
	size_t listed = k - 3;
	if (npred > listed)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line,
				  locus__dag_after(&f[k - 1]),
				  "expected %" PRIu64 " predecessors of task %zu, the line lists "
				  "%zu",
				  npred, me, listed);
	if (npred < listed)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[3 + npred].col,
				  "expected %" PRIu64 " predecessors of task %zu, got an extra "
				  "field %s",
				  npred, me, locus__dag_quote(&f[3 + npred], q, 0));

	if (locus__grow(&r->cost, &r->cost_cap, me + 1, sizeof *r->cost) ||
	    locus__grow(&r->seen, &r->seen_cap, me + 1, sizeof *r->seen))
		return oom(r);
	r->cost[me] = cost + 0.0; /* -0 is 0 */
	r->seen[me] = 0;
	for (size_t i = 0; i < listed; i++) {
		const struct locus__field *pf = &f[3 + i];
		rc = locus__dag_u64(pf, &p);
		if (rc)
			return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, pf->col,
					  "expected a predecessor id of task %zu, got %s", me,
					  locus__dag_quote(pf, q, 0));
		if (p >= me)
			return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, pf->col,
					  "predecessor %" PRIu64 " of task %zu is not an earlier "
					  "task: expected an id below %zu",
					  p, me, me);
		if (r->seen[p] == me + 1)
			return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, pf->col,
					  "predecessor %" PRIu64 " of task %zu is listed twice", p,
					  me);
		r->seen[p] = (uint32_t)(me + 1);
		if (locus__grow(&r->edges, &r->edges_cap, r->n_edges + 1, sizeof *r->edges))
			return oom(r);
		r->edges[r->n_edges++] = (struct stg_edge){(uint32_t)p, (uint32_t)me};
	}
	r->done++;
	return 0;
}

/* Builds the graph from the lines read: dummy tasks of cost 0 and their
 * edges left out. */
static int build(struct stg_reader *r, struct locus_graph **out)
{
	struct locus_graph *g;
	size_t last = r->done - 1;
	int keep_entry = r->cost[0] > 0, keep_exit = r->cost[last] > 0;
	uint32_t shift = keep_entry ? 0 : 1;
	char name[24];
	int rc = locus_graph_create(&g, r->name, r->err);
	if (rc)
		return rc;
	for (size_t id = 0; id <= last; id++) {
		if ((id == 0 && !keep_entry) || (id == last && !keep_exit))
			continue;
		snprintf(name, sizeof name, "%zu", id);
		long t = locus_graph_add_task(g, name, r->cost[id]);
		if (t < 0)
			goto fail;
	}
	for (size_t e = 0; e < r->n_edges; e++) {
		const struct stg_edge *d = &r->edges[e];
		if ((d->from == 0 && !keep_entry) || (d->to == last && !keep_exit))
			continue;
		if (locus_graph_add_edge(g, d->from - shift, d->to - shift, 0) < 0)
			goto fail;
	}
	rc = locus_graph_finish(g, r->err);
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

int locus_dag_read_stg(struct locus_graph **out, const char *text, size_t len, const char *name,
		       struct locus_error *err)
{
	struct locus_error local;
	struct stg_reader r = {0};
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
	while (!rc && locus__next_line(text, len, &pos, &line, &ln)) {
		r.line++;
		if (locus__dag_split(&r.fs, line, ln)) {
			rc = oom(&r);
			break;
		}
		if (r.fs.n == 0)
			continue;
		rc = r.have_count ? task_line(&r) : count_line(&r);
	}
	if (!rc && (!r.have_count || r.done < r.lines)) {
		long el, ec;
		locus__dag_eof(text, len, &el, &ec);
		if (!r.have_count)
			rc = locus__err(r.err, LOCUS_EPARSE, name, el, ec,
					"expected the number of tasks, the file ends before it");
		else
			rc = locus__err(r.err, LOCUS_EPARSE, name, el, ec,
					"expected task id %zu, the file ends after %zu of %" PRIu64
					" task lines (%" PRIu64
					" tasks and the dummy entry and exit)",
					r.done, r.done, r.lines, r.n);
	}
	if (!rc)
		rc = build(&r, out);
	free(r.cost);
	free(r.seen);
	free(r.edges);
	locus__dag_fields_fini(&r.fs);
	return rc;
}
