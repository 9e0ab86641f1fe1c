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

TEST_MAIN(TEST_ENTRY(load_tells_the_format))
