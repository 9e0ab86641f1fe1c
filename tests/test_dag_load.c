/*
 * locus_dag_load (src/dag/load.c): the format of a graph told by its
 * content (WfCommons JSON, the text form, STG; blank lines, comments and
 * a byte-order mark before it skipped) or named by a prefix, and content
 * that is none of them refused with its line and column.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

TEST(load_tells_the_format)
{
	char dir[] = "/tmp/locus-dagload.XXXXXX", path[256];
	CHECK(mkdtemp(dir) != NULL);
	struct {
		const char *name, *text;
		size_t tasks;
	} files[] = {
	    {"a.stg", "# made by hand\n2\n0 0 0\n1 1 1 0\n2 1 1 1\n3 0 1 2\n", 2},
	    {"b.txt", "\n# the text form\ntasks 2 procs 1\n1 1\n2 1\nedges 1\n1 2 3\n", 2},
	    {"c.json",
	     "{\"workflow\": {\"specification\": {\"tasks\": [{\"id\": \"a\", \"parents\": [], "
	     "\"children\": []}], \"files\": []}, \"execution\": {\"tasks\": []}}}",
	     1},
	};
	struct locus_error err = {0};
	for (size_t k = 0; k < 3; k++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[k].name);
		CHECK_EQ_INT(locus_write_atomic(path, files[k].text, strlen(files[k].text), &err),
			     0);
		struct locus_graph *g = NULL;
		CHECK_EQ_INT(locus_dag_load(&g, path, &err), 0);
		CHECK(g && g->n_tasks == files[k].tasks);
		locus_graph_destroy(g);
	}
	/* A prefix names the format; the wrong one is refused by it. */
	struct locus_graph *g = NULL;
	snprintf(path, sizeof path, "stg:%s/b.txt", dir);
	CHECK(locus_dag_load(&g, path, &err) == LOCUS_EPARSE && g == NULL);
	snprintf(path, sizeof path, "text:%s/b.txt", dir);
	CHECK_EQ_INT(locus_dag_load(&g, path, &err), 0);
	locus_graph_destroy(g);
	g = NULL;
	/* Content that is none of them. */
	snprintf(path, sizeof path, "%s/d.txt", dir);
	CHECK_EQ_INT(locus_write_atomic(path, "# x\n  hello\n", 12, &err), 0);
	CHECK(locus_dag_load(&g, path, &err) == LOCUS_EPARSE);
	CHECK_EQ_INT(err.line, 2);
	CHECK_EQ_INT(err.column, 3);
	CHECK(strstr(err.message, "expected a task graph") != NULL);
	snprintf(path, sizeof path, "%s/none", dir);
	CHECK(locus_dag_load(&g, path, &err) == LOCUS_ENOENT);
	for (size_t k = 0; k < 3; k++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[k].name);
		remove(path);
	}
	snprintf(path, sizeof path, "%s/d.txt", dir);
	remove(path);
	rmdir(dir);
}

/* Every reader skips a UTF-8 byte-order mark, as docs/formats.md says
 * (issue 28: each refused one, the Makeflow reader took it into the
 * first name); columns count from after it. */
TEST(byte_order_mark)
{
	static const char *const stg = "\xEF\xBB\xBF"
				       "2\n0 0 0\n1 3 1 0\n2 4 1 1\n3 0 1 2\n";
	static const char *const text = "\xEF\xBB\xBF"
					"tasks 2 procs 1\n1 3\n2 4\nedges 1\n1 2 0\n";
	static const char *const wf =
	    "\xEF\xBB\xBF"
	    "{\"workflow\": {\"tasks\": [{\"name\": \"1\", \"runtime\": 3}, "
	    "{\"name\": \"2\", \"runtime\": 4, \"parents\": [\"1\"]}]}}";
	static const char *const mf = "\xEF\xBB\xBF"
				      "LOCUS_RUNTIME=3\n1: \n\techo > 1\n2: 1\n"
				      "LOCUS_RUNTIME=4\n\tcat 1 > 2\n";
	struct locus_error err = {0};
	for (int k = 0; k < 4; k++) {
		struct locus_graph *g = NULL;
		const char *s = k == 0 ? stg : k == 1 ? text : k == 2 ? wf : mf;
		int rc = k == 0	  ? locus_dag_read_stg(&g, s, strlen(s), "g", &err)
			 : k == 1 ? locus_dag_read_text(&g, s, strlen(s), "g", &err)
			 : k == 2 ? locus_dag_read_wfcommons(&g, s, strlen(s), "g", &err)
				  : locus_flow_read_makeflow(&g, s, strlen(s), "g", NULL, &err);
		if (rc)
			fprintf(stderr, "reader %d: %s\n", k, err.message);
		CHECK_EQ_INT(rc, 0);
		CHECK_EQ_INT(g->n_tasks, 2);
		CHECK_EQ_STR(g->tasks[0].name, "1");
		CHECK(g->tasks[0].work == 3 && g->tasks[1].work == 4);
		CHECK_EQ_INT(g->n_edges, 1);
		locus_graph_destroy(g);
	}
	/* An error on the first line: its column after the mark. */
	struct locus_graph *g = NULL;
	CHECK_EQ_INT(locus_dag_read_stg(&g,
					"\xEF\xBB\xBF"
					"x\n",
					5, "g", &err),
		     LOCUS_EPARSE);
	CHECK(err.line == 1 && err.column == 1);
	CHECK_EQ_INT(locus_flow_read_makeflow(&g,
					      "\xEF\xBB\xBF"
					      "a b\n",
					      7, "g", NULL, &err),
		     LOCUS_EPARSE);
	CHECK(err.line == 1 && err.column == 1);
}

TEST_MAIN(TEST_ENTRY(load_tells_the_format), TEST_ENTRY(byte_order_mark))
