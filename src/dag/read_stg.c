/*
 * The Standard Task Graph format (Kasahara's STG set; docs/formats.md,
 * "Task graphs"): the number of tasks N, then N + 2 lines "id cost npred
 * pred ...", ids 0 to N + 1 in order (0 the dummy entry task, N + 1 the
 * dummy exit), each predecessor an earlier id; then '#' lines of
 * information. The dummy tasks are left out when their cost is 0.
 */
#include <stdlib.h>
#include <string.h>

#include "dag/scan.h"
#include "locus/dag.h"

/* More tasks than this is not a task graph anyone wrote. */
#define STG_MAX_TASKS 100000000ull

#define ULL(x) ((unsigned long long)(x))

int locus_dag_read_stg(struct locus_graph **out, const char *text, size_t len, const char *name,
		       struct locus_error *err)
{
	struct dag_scan sc;
	struct locus__field f;
	struct locus_graph *g = NULL;
	uint32_t *map = NULL;	/* STG id -> graph task, LOCUS_NONE: left out */
	uint64_t *stamp = NULL; /* per id: the last task that listed it as a predecessor */
	uint32_t *preds = NULL;
	size_t preds_cap = 0;
	uint64_t n = 0;
	int rc;
	char q[64];

	if (!out)
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no output");
	*out = NULL;
	locus__dag_scan_init(&sc, text, len, name, err);
	if (!locus__dag_scan_line(&sc))
		return locus__err(err, LOCUS_EPARSE, name, 0, 0,
				  "empty: expected the number of tasks of an STG graph");
	locus__dag_scan_tok(&sc, &f);
	if ((rc = locus__dag_scan_uint(&sc, &f, STG_MAX_TASKS, "the number of tasks", &n)))
		return rc;
	if (locus__dag_scan_tok(&sc, &f))
		return locus__err(err, LOCUS_EPARSE, name, sc.line, f.col,
				  "expected the number of tasks alone on its line, got %s",
				  locus__dag_quote(&f, q, sizeof q));
	uint64_t total = n + 2;
	/* Every task line takes a byte at least: a count the text cannot
	 * hold is refused before anything is allocated for it. */
	if (total > len + 1)
		return locus__err(err, LOCUS_EPARSE, name, sc.line, f.col,
				  "%llu tasks need %llu task lines, more than the file holds",
				  ULL(n), ULL(total));
	map = malloc(total * sizeof *map);
	stamp = calloc(total, sizeof *stamp);
	if (!map || !stamp || (rc = locus_graph_create(&g, name, err))) {
		rc = locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
		goto fail;
	}
	for (uint64_t id = 0; id < total; id++) {
		uint64_t got, npred;
		double cost;
		if (!locus__dag_scan_line(&sc)) {
			rc = locus__err(err, LOCUS_EPARSE, name, sc.line, 0,
					"the file ends after %llu of the %llu task lines (N + 2 "
					"with the dummy entry and exit tasks)",
					(unsigned long long)id, (unsigned long long)total);
			goto fail;
		}
		locus__dag_scan_tok(&sc, &f);
		if ((rc = locus__dag_scan_uint(&sc, &f, UINT64_MAX, "a task id", &got)))
			goto fail;
		if (got != id) {
			rc = locus__err(
			    err, LOCUS_EPARSE, name, sc.line, f.col,
			    "expected task %llu (ids run from 0 to N + 1 in order), got %llu",
			    ULL(id), ULL(got));
			goto fail;
		}
		if (!locus__dag_scan_tok(&sc, &f)) {
			rc = locus__err(err, LOCUS_EPARSE, name, sc.line, locus__dag_scan_eol(&sc),
					"expected \"id cost npred pred...\": task %llu has no cost",
					ULL(id));
			goto fail;
		}
		if ((rc = locus__dag_scan_cost(&sc, &f, "a cost", &cost)))
			goto fail;
		if (!locus__dag_scan_tok(&sc, &f)) {
			rc = locus__err(err, LOCUS_EPARSE, name, sc.line, locus__dag_scan_eol(&sc),
					"expected \"id cost npred pred...\": task %llu has no "
					"predecessor count",
					ULL(id));
			goto fail;
		}
		if ((rc = locus__dag_scan_uint(&sc, &f, id + 1, "a predecessor count up to the id",
					       &npred)))
			goto fail;
		long count_col = f.col;
		if (npred > preds_cap) {
			uint32_t *np = realloc(preds, npred * sizeof *np);
			if (!np) {
				rc = locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
				goto fail;
			}
			preds = np;
			preds_cap = npred;
		}
		uint64_t k = 0;
		while (locus__dag_scan_tok(&sc, &f)) {
			uint64_t p;
			if (k == npred) {
				rc = locus__err(
				    err, LOCUS_EPARSE, name, sc.line, f.col,
				    "task %llu lists more predecessors than its count %llu",
				    ULL(id), ULL(npred));
				goto fail;
			}
			if ((rc =
				 locus__dag_scan_uint(&sc, &f, UINT64_MAX, "a predecessor id", &p)))
				goto fail;
			if (p >= id) {
				rc = locus__err(
				    err, LOCUS_EPARSE, name, sc.line, f.col,
				    "a predecessor of task %llu must have a smaller id, got %llu",
				    ULL(id), ULL(p));
				goto fail;
			}
			if (stamp[p] == id + 1) {
				rc = locus__err(err, LOCUS_EPARSE, name, sc.line, f.col,
						"task %llu lists predecessor %llu twice", ULL(id),
						ULL(p));
				goto fail;
			}
			stamp[p] = id + 1;
			preds[k++] = (uint32_t)p;
		}
		if (k < npred) {
			rc = locus__err(err, LOCUS_EPARSE, name, sc.line,
					k ? locus__dag_scan_eol(&sc) : count_col,
					"task %llu lists %llu predecessors, its count says %llu",
					ULL(id), ULL(k), ULL(npred));
			goto fail;
		}
		/* The dummy entry and exit tasks are kept only with a cost. */
		int dummy = id == 0 || id == total - 1;
		if (dummy && cost == 0) {
			map[id] = LOCUS_NONE;
			continue;
		}
		char nm[24];
		snprintf(nm, sizeof nm, "%llu", (unsigned long long)id);
		long t = locus_graph_add_task(g, nm, cost);
		if (t < 0) {
			rc = locus__err(err, (int)t, name, 0, 0, "out of memory");
			goto fail;
		}
		map[id] = (uint32_t)t;
		for (uint64_t j = 0; j < k; j++)
			if (map[preds[j]] != LOCUS_NONE &&
			    locus_graph_add_edge(g, map[preds[j]], (uint32_t)t, 0) < 0) {
				rc = locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
				goto fail;
			}
	}
	/* Only the information block may follow. */
	if (locus__dag_scan_line(&sc)) {
		locus__dag_scan_tok(&sc, &f);
		rc = locus__err(err, LOCUS_EPARSE, name, sc.line, f.col,
				"expected the end of the graph after its %llu task lines (or '#' "
				"information lines), got %s",
				(unsigned long long)total, locus__dag_quote(&f, q, sizeof q));
		goto fail;
	}
	if ((rc = locus_graph_finish(g, err)))
		goto fail;
	free(map);
	free(stamp);
	free(preds);
	*out = g;
	return 0;
fail:
	free(map);
	free(stamp);
	free(preds);
	locus_graph_destroy(g);
	return rc;
}
