/*
 * DAG readers, writer, generators and derivations (include/locus/dag.h):
 * the STG set's files read with their stated critical path and edge
 * count, the HEFT paper's example in the text form, errors with line,
 * column and what was expected, STG written and read back, the four STG
 * generators, Topcuoglu's heterogeneity and GTP's CCR.
 */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

/* ---- helpers ---------------------------------------------------------------- */

static int read_stg(struct locus_graph **g, const char *text, struct locus_error *err)
{
	return locus_dag_read_stg(g, text, strlen(text), "t.stg", err);
}

static int read_text(struct locus_graph **g, const char *text, struct locus_error *err)
{
	return locus_dag_read_text(g, text, strlen(text), "t.txt", err);
}

/* The bytes of the edge from -> to, or -1 when there is none. */
static long long edge_bytes(const struct locus_graph *g, uint32_t from, uint32_t to)
{
	for (uint32_t e = g->pred_at[to]; e < g->pred_at[to + 1]; e++)
		if (g->preds[e].task == from)
			return (long long)g->preds[e].bytes;
	return -1;
}

/* Every edge goes forward in g->topo; returns 1 when it does. */
static int topo_ok(const struct locus_graph *g)
{
	uint32_t *pos = calloc(g->n_tasks + 1, sizeof *pos);
	int ok = pos != NULL;
	for (size_t i = 0; ok && i < g->n_tasks; i++)
		pos[g->topo[i]] = (uint32_t)i;
	for (size_t t = 0; ok && t < g->n_tasks; t++)
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
			if (pos[g->preds[e].task] >= pos[t])
				ok = 0;
	free(pos);
	return ok;
}

/* The longest path of the tasks' work, no communication, over g->topo. */
static double critical_path(const struct locus_graph *g)
{
	double *f = calloc(g->n_tasks + 1, sizeof *f), best = 0;
	if (!f)
		return -1;
	for (size_t i = 0; i < g->n_tasks; i++) {
		uint32_t t = g->topo[i];
		double start = 0;
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
			if (f[g->preds[e].task] > start)
				start = f[g->preds[e].task];
		f[t] = start + g->tasks[t].work;
		if (f[t] > best)
			best = f[t];
	}
	free(f);
	return best;
}

/* Same tasks (names, work, costs), same edges and bytes. */
static int same_graph(const struct locus_graph *a, const struct locus_graph *b)
{
	if (a->n_tasks != b->n_tasks || a->n_edges != b->n_edges || a->n_procs != b->n_procs)
		return 0;
	for (size_t t = 0; t < a->n_tasks; t++) {
		const char *x = a->tasks[t].name, *y = b->tasks[t].name;
		if ((x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0))
			return 0;
		if (a->tasks[t].work != b->tasks[t].work)
			return 0;
		if (a->pred_at[t + 1] != b->pred_at[t + 1])
			return 0;
	}
	for (size_t e = 0; e < a->n_edges; e++)
		if (a->preds[e].task != b->preds[e].task || a->preds[e].bytes != b->preds[e].bytes)
			return 0;
	for (size_t i = 0; i < a->n_tasks * a->n_procs; i++)
		if (a->cost[i] != b->cost[i])
			return 0;
	return 1;
}

/* Writes g in STG into a string the caller frees. */
static char *write_stg(const struct locus_graph *g, int round_costs, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	if (!fp)
		return NULL;
	int rc = locus_dag_write_stg(g, round_costs, fp);
	fclose(fp);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* A number from a line "KEY ... : NUMBER" of an STG information block. */
static int info_number(const char *text, const char *key, double *v)
{
	const char *at = strstr(text, key);
	if (!at)
		return -1;
	at = strchr(at, ':');
	return at && sscanf(at + 1, "%lf", v) == 1 ? 0 : -1;
}

/* ---- STG ------------------------------------------------------------------------ */

TEST(stg_small)
{
	/* Indented, tabs, CRLF, comments between lines and at line ends, no
	 * final newline; task 4 is an exit task of its own. */
	const char *text = "# a graph\r\n"
			   "\r\n"
			   "   4\r\n"
			   "0 0 0\r\n"
			   "\t1\t3\t1\t0\r\n"
			   "# between tasks\n"
			   "  2   2.5  1  1   # a comment after the preds\r\n"
			   "3 4 2 1 2#glued\n"
			   "4 1 1 0\n"
			   "5 0 2 3 4";
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	int rc = read_stg(&g, text, &err);
	if (rc)
		fprintf(stderr, "  %ld:%ld: %s\n", err.line, err.column, err.message);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(g->n_tasks, 4);
	CHECK_EQ_INT(g->n_edges, 3);
	CHECK_EQ_STR(g->name, "t.stg");
	CHECK_EQ_STR(g->tasks[0].name, "1");
	CHECK_EQ_STR(g->tasks[3].name, "4");
	CHECK(g->tasks[0].work == 3 && g->tasks[1].work == 2.5 && g->tasks[2].work == 4 &&
	      g->tasks[3].work == 1);
	CHECK_EQ_INT(edge_bytes(g, 0, 1), 0);
	CHECK_EQ_INT(edge_bytes(g, 0, 2), 0);
	CHECK_EQ_INT(edge_bytes(g, 1, 2), 0);
	CHECK_EQ_INT(edge_bytes(g, 0, 3), -1);
	CHECK_EQ_INT(g->n_procs, 0);
	CHECK(g->data_bw == 0);
	CHECK(critical_path(g) == 9.5);
	locus_graph_destroy(g);

	/* N = 0: two dummy tasks, no graph task. */
	CHECK_EQ_INT(read_stg(&g, "0\n0 0 0\n1 0 1 0\n", &err), 0);
	CHECK_EQ_INT(g->n_tasks, 0);
	locus_graph_destroy(g);
}

TEST(stg_dummies_with_cost_are_kept)
{
	const char *text = "2\n"
			   "0 5 0\n"
			   "1 1 1 0\n"
			   "2 1 1 0\n"
			   "3 0 2 1 2\n";
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_stg(&g, text, &err), 0);
	CHECK_EQ_INT(g->n_tasks, 3);
	CHECK_EQ_STR(g->tasks[0].name, "0");
	CHECK(g->tasks[0].work == 5);
	CHECK_EQ_INT(g->n_edges, 2);
	CHECK_EQ_INT(edge_bytes(g, 0, 1), 0);
	CHECK_EQ_INT(edge_bytes(g, 0, 2), 0);
	locus_graph_destroy(g);

	text = "2\n"
	       "0 0 0\n"
	       "1 1 1 0\n"
	       "2 1 1 0\n"
	       "3 7 2 1 2\n";
	CHECK_EQ_INT(read_stg(&g, text, &err), 0);
	CHECK_EQ_INT(g->n_tasks, 3);
	CHECK_EQ_STR(g->tasks[2].name, "3");
	CHECK(g->tasks[2].work == 7);
	CHECK_EQ_INT(edge_bytes(g, 0, 2), 0);
	CHECK_EQ_INT(edge_bytes(g, 1, 2), 0);
	CHECK(critical_path(g) == 8);
	locus_graph_destroy(g);
}

struct bad_case {
	const char *text;
	long line, col;
	const char *message; /* a part of it */
};

static const struct bad_case stg_bad[] = {
    {"", 1, 1, "expected the number of tasks, the file ends before it"},
    {"# only a comment\n\n", 3, 1, "expected the number of tasks, the file ends before it"},
    {"x\n", 1, 1, "expected the number of tasks (a whole number below 4294967292), got \"x\""},
    {"-2\n", 1, 1, "expected the number of tasks (a whole number below 4294967292), got -2"},
    {"  2 3\n", 1, 5, "expected the number of tasks alone on its line, got an extra field 3"},
    {"2\n0 0 0\n1 1 1 0\n", 4, 1,
     "expected task id 2, the file ends after 2 of 4 task lines (2 tasks and the dummy"},
    {"2\n0 0 0\n1 1 1 0", 3, 8, "expected task id 2, the file ends after 2 of 4 task lines"},
    {"2\n0 0 0\n1 1 1 0\n1 1 1 0\n", 4, 1, "task 1 is listed twice: expected task id 2"},
    {"2\n0 0 0\n  2 1 1 0\n", 3, 3, "expected task id 1 (ids in order from 0), got 2"},
    {"2\n0 0 0\nfoo 1 1 0\n", 3, 1, "expected task id 1, got \"foo\""},
    {"2\n0 0 0\n1\n", 3, 2, "expected \"id cost npred pred...\", the line ends after the id"},
    {"2\n0 0 0\n1 -3 1 0\n", 3, 3,
     "expected the cost of task 1 (a decimal number from 0 to 1e+09), got -3"},
    {"2\n0 0 0\n1 nan 1 0\n", 3, 3,
     "expected the cost of task 1 (a decimal number from 0 to 1e+09), got \"nan\""},
    {"2\n0 0 0\n1 1e999 1 0\n", 3, 3,
     "expected the cost of task 1 (a decimal number from 0 to 1e+09), got \"1e999\""},
    {"2\n0 0 0\n1 4\n", 3, 4, "expected \"id cost npred pred...\", the line ends after the cost"},
    {"2\n0 0 0\n1 4 x 0\n", 3, 5, "expected the number of predecessors of task 1, got \"x\""},
    {"2\n0 0 0\n1 4 2 0\n", 3, 8, "expected 2 predecessors of task 1, the line lists 1"},
    {"2\n0 0 0\n1 4 1 0 0\n", 3, 9, "expected 1 predecessors of task 1, got an extra field 0"},
    {"2\n0 0 0\n1 4 1 0\n2 4 1 2\n", 4, 7,
     "predecessor 2 of task 2 is not an earlier task: expected an id below 2"},
    {"2\n0 0 0\n1 4 1 0\n2 4 1 7\n", 4, 7,
     "predecessor 7 of task 2 is not an earlier task: expected an id below 2"},
    {"2\n0 0 0\n1 4 1 0\n2 4 2 1 1\n", 4, 9, "predecessor 1 of task 2 is listed twice"},
    {"2\n0 0 0\n1 4 1 0\n2 4 1 1.5\n", 4, 7, "expected a predecessor id of task 2, got 1.5"},
    {"1\n0 0 0\n1 4 1 0\n2 0 1 1\n3 0 1 2\n", 5, 1,
     "expected no more task lines (1 tasks and the dummy entry and exit: ids 0 to 2), got 3"},
    {"1\n0 0 0\n1 4 1 0\n2 0 1 1\n# info\njunk\n", 6, 1,
     "expected no more task lines (1 tasks and the dummy entry and exit: ids 0 to 2), got "
     "\"junk\""},
    {"1\n0 0 0\n1 4\x01 1 0\n", 3, 3,
     "expected the cost of task 1 (a decimal number from 0 to 1e+09), got \"4?\""},
    /* Decimal and within the one range of task work (issue 28). */
    {"1\n0 0 0\n1 0x10 1 0\n", 3, 3,
     "expected the cost of task 1 (a decimal number from 0 to 1e+09), got \"0x10\""},
    {"1\n0 0 0\n1 1e308 1 0\n", 3, 3,
     "expected the cost of task 1 (a decimal number from 0 to 1e+09), got 1e308"},
    {"1\n0 0 0\n1 1000000001 1 0\n", 3, 3, "from 0 to 1e+09), got 1000000001"},
};

TEST(stg_errors)
{
	for (size_t i = 0; i < sizeof stg_bad / sizeof stg_bad[0]; i++) {
		const struct bad_case *b = &stg_bad[i];
		struct locus_graph *g = (void *)&g;
		struct locus_error err = {0};
		int rc = read_stg(&g, b->text, &err);
		if (rc != LOCUS_EPARSE || err.line != b->line || err.column != b->col ||
		    !strstr(err.message, b->message))
			fprintf(stderr, "  case %zu: rc %d %ld:%ld: %s\n", i, rc, err.line,
				err.column, err.message);
		CHECK_EQ_INT(rc, LOCUS_EPARSE);
		CHECK(g == NULL);
		CHECK_EQ_INT(err.code, LOCUS_EPARSE);
		CHECK_EQ_STR(err.file, "t.stg");
		CHECK_EQ_INT(err.line, b->line);
		CHECK_EQ_INT(err.column, b->col);
		CHECK(strstr(err.message, b->message) != NULL);
	}
	struct locus_graph *g;
	CHECK_EQ_INT(locus_dag_read_stg(NULL, "1", 1, "t", NULL), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_dag_read_stg(&g, NULL, 3, "t", NULL), LOCUS_EINVAL);
	/* No error struct: same result. */
	CHECK_EQ_INT(locus_dag_read_stg(&g, "x", 1, NULL, NULL), LOCUS_EPARSE);
	/* A NUL in a field is no number. */
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_dag_read_stg(&g, "1\0", 2, "t", &err), LOCUS_EPARSE);
	CHECK_EQ_INT(err.column, 1);
}

/* Checks one file of the STG set against its information block. */
static int check_stg_file(const char *path)
{
	size_t len;
	char *text = test_slurp(path, &len);
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	double n, edges, cp;
	int ok = 0;
	if (!text) {
		fprintf(stderr, "  cannot read %s\n", path);
		return 0;
	}
	if (locus_dag_read_stg(&g, text, len, path, &err)) {
		fprintf(stderr, "  %s:%ld:%ld: %s\n", path, err.line, err.column, err.message);
		goto out;
	}
	if (info_number(text, "Tasks ", &n) || info_number(text, "Edges ", &edges) ||
	    info_number(text, "CP Length", &cp) || sscanf(text, "%lf", &n) != 1) {
		fprintf(stderr, "  %s: no information block\n", path);
		goto out;
	}
	/* "Edges : 96 / 1225 (+dummy edges : 23)": the real edges, then
	 * the entry's and the exit's. */
	const char *dummy = strstr(text, "dummy edges");
	double dummies = -1;
	if (dummy)
		sscanf(strchr(dummy, ':') + 1, "%lf", &dummies);
	size_t sources = 0, sinks = 0;
	for (size_t t = 0; t < g->n_tasks; t++) {
		sources += g->pred_at[t] == g->pred_at[t + 1];
		sinks += g->succ_at[t] == g->succ_at[t + 1];
	}
	double got = critical_path(g);
	ok = g->n_tasks == (size_t)n && g->n_edges == (size_t)edges && got == cp &&
	     (double)(sources + sinks) == dummies && topo_ok(g);
	if (!ok)
		fprintf(stderr,
			"  %s: %zu tasks (%g), %zu edges (%g), dummy %zu (%g), cp %g (%g)\n", path,
			g->n_tasks, n, g->n_edges, edges, sources + sinks, dummies, got, cp);
	/* Written and read back, it is the same graph. */
	size_t wlen;
	char *w = write_stg(g, 1, &wlen);
	struct locus_graph *back = NULL;
	if (!w || locus_dag_read_stg(&back, w, wlen, path, &err) || !same_graph(g, back)) {
		fprintf(stderr, "  %s: not the same after writing and reading\n", path);
		ok = 0;
	}
	locus_graph_destroy(back);
	free(w);
out:
	locus_graph_destroy(g);
	free(text);
	return ok;
}

/* The STG set's 50- and 100-task graphs (tests/fixtures/stg, a copy of
 * ../shared/data/stg): all twenty read, each as its information block
 * says. */
TEST(stg_set)
{
	static const char *const dirs[] = {"stg/50", "stg/100"};
	size_t files = 0;
	for (size_t d = 0; d < 2; d++) {
		char dirpath[1024];
		snprintf(dirpath, sizeof dirpath, "%s", test_fixture(dirs[d]));
		DIR *dir = opendir(dirpath);
		CHECK(dir);
		struct dirent *de;
		while ((de = readdir(dir))) {
			size_t nl = strlen(de->d_name);
			if (nl < 4 || strcmp(de->d_name + nl - 4, ".stg") != 0)
				continue;
			char path[1024 + 288];
			snprintf(path, sizeof path, "%s/%s", dirpath, de->d_name);
			if (!check_stg_file(path)) {
				closedir(dir);
				CHECK(0);
			}
			files++;
		}
		closedir(dir);
	}
	CHECK_EQ_INT(files, 20);
}

/* ---- the text form ------------------------------------------------------------- */

TEST(text_topcuoglu)
{
	size_t len;
	char *text = test_slurp(test_fixture("dag/topcuoglu2002.txt"), &len);
	CHECK(text);
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	int rc = locus_dag_read_text(&g, text, len, "topcuoglu2002.txt", &err);
	free(text);
	if (rc)
		fprintf(stderr, "  %ld:%ld: %s\n", err.line, err.column, err.message);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(g->n_tasks, 10);
	CHECK_EQ_INT(g->n_procs, 3);
	CHECK(g->data_bw == 1);
	static const double w[10][3] = {{14, 16, 9},  {13, 19, 18}, {11, 13, 19}, {13, 8, 17},
					{12, 13, 10}, {13, 16, 9},  {7, 15, 11},  {5, 11, 14},
					{18, 12, 20}, {21, 7, 16}};
	for (int t = 0; t < 10; t++) {
		char name[16];
		snprintf(name, sizeof name, "%d", t + 1);
		CHECK_EQ_STR(g->tasks[t].name, name);
		for (int m = 0; m < 3; m++)
			CHECK(g->cost[t * 3 + m] == w[t][m]);
		CHECK_NEAR(g->tasks[t].work, (w[t][0] + w[t][1] + w[t][2]) / 3, 1e-12);
	}
	static const int e[15][3] = {{1, 2, 18}, {1, 3, 12}, {1, 4, 9},	  {1, 5, 11},  {1, 6, 14},
				     {2, 8, 19}, {2, 9, 16}, {3, 7, 23},  {4, 8, 27},  {4, 9, 23},
				     {5, 9, 13}, {6, 8, 15}, {7, 10, 17}, {8, 10, 11}, {9, 10, 13}};
	CHECK_EQ_INT(g->n_edges, 15);
	for (int i = 0; i < 15; i++)
		CHECK_EQ_INT(edge_bytes(g, (uint32_t)e[i][0] - 1, (uint32_t)e[i][1] - 1), e[i][2]);
	CHECK(topo_ok(g));
	locus_graph_destroy(g);
}

TEST(text_variants)
{
	/* Ids in any order, not dense; comments at line ends; CRLF,
	 * indentation and capitals; a fraction in the data. */
	const char *text = "  Tasks 3 PROCS 2   # header\r\n"
			   "\r\n"
			   "10\t1 2\r\n"
			   "# a comment line\n"
			   "   3 4.5 0 # free on processor 2\n"
			   "007 1 1\n"
			   "edges 2\n"
			   "3 10 2.5#glued to the data\n"
			   "10 7 4";
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	int rc = read_text(&g, text, &err);
	if (rc)
		fprintf(stderr, "  %ld:%ld: %s\n", err.line, err.column, err.message);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(g->n_tasks, 3);
	CHECK_EQ_STR(g->tasks[0].name, "10");
	CHECK_EQ_STR(g->tasks[1].name, "3");
	CHECK_EQ_STR(g->tasks[2].name, "7");
	CHECK(g->cost[2] == 4.5 && g->cost[3] == 0);
	CHECK(g->data_bw == 1e6);
	CHECK_EQ_INT(edge_bytes(g, 1, 0), 2500000);
	CHECK_EQ_INT(edge_bytes(g, 0, 2), 4000000);
	/* The first task in topological order is the second in the file. */
	CHECK_EQ_INT(g->topo[0], 1);
	locus_graph_destroy(g);

	/* No edges. */
	CHECK_EQ_INT(read_text(&g, "tasks 1 procs 1\n0 5\nedges 0\n", &err), 0);
	CHECK_EQ_INT(g->n_tasks, 1);
	CHECK_EQ_INT(g->n_edges, 0);
	CHECK(g->data_bw == 1);
	locus_graph_destroy(g);
}

#define T2 "tasks 2 procs 2\n1 1 2\n2 3 4\n"

static const struct bad_case text_bad[] = {
    {"", 1, 1, "expected \"tasks N procs P\", the file ends before it"},
    {"task 2 procs 2\n", 1, 1, "expected \"tasks N procs P\", got \"task\""},
    {"tasks 0 procs 2\n", 1, 7, "expected the number of tasks (a whole number from 1 to"},
    {"tasks 2 proc 2\n", 1, 9, "expected \"tasks N procs P\", got \"proc\""},
    {"tasks 2 procs 0\n", 1, 15, "expected the number of processors (a whole number from 1"},
    {"tasks 2 procs\n", 1, 14, "expected \"tasks N procs P\", the line ends after 3 fields"},
    {"tasks 2 procs 2 3\n", 1, 17, "expected \"tasks N procs P\", got an extra field 3"},
    {"tasks 2 procs 2\n1 1 2\n", 3, 1, "expected 2 task lines, the file ends after 1"},
    {"tasks 2 procs 2\n1 1 2\nedges 0\n", 3, 1, "expected 2 task lines before \"edges\", got 1"},
    {"tasks 2 procs 2\n-1 1 2\n", 2, 1, "expected a task id (a whole number >= 0), got -1"},
    {"tasks 2 procs 2\n1 1 2\n01 3 4\n", 3, 1, "task 1 is listed twice (first on line 2)"},
    {"tasks 2 procs 2\n1 1\n", 2, 4, "expected 2 costs of task 1 (procs 2), the line lists 1"},
    {"tasks 2 procs 2\n1 1 2 3\n", 2, 7,
     "expected 2 costs of task 1 (procs 2), got an extra field 3"},
    {"tasks 2 procs 2\n1 1 -2\n", 2, 5,
     "expected the cost of task 1 on processor 2 (a decimal number from 0 to 1e+09), got -2"},
    {"tasks 2 procs 2\n1 1 inf\n", 2, 5,
     "expected the cost of task 1 on processor 2 (a decimal number from 0 to 1e+09), got \"inf\""},
    {"tasks 2 procs 2\n1 0X1p3 2\n", 2, 3,
     "expected the cost of task 1 on processor 1 (a decimal number from 0 to 1e+09), got "
     "\"0X1p3\""},
    {"tasks 2 procs 2\n1 1 2e9\n", 2, 5, "from 0 to 1e+09), got 2e9"},
    {T2, 4, 1, "expected \"edges E\" after the 2 tasks, the file ends before it"},
    {T2 "3 5 6\n", 4, 1, "expected \"edges E\" after the 2 tasks, got 3"},
    {T2 "edges\n", 4, 6, "expected \"edges E\", the line ends after \"edges\""},
    {T2 "edges -1\n", 4, 7, "expected the number of edges (a whole number below"},
    {T2 "edges 1 2\n", 4, 9, "expected \"edges E\", got an extra field 2"},
    {T2 "edges 2\n1 2 3\n", 6, 1,
     "expected 2 edge lines (\"edges 2\" on line 4), the file ends after 1"},
    {T2 "edges 1\n1 2 3\n2 1 3\n", 6, 1,
     "expected no more edge lines (\"edges 1\" on line 4), got 2"},
    {T2 "edges 1\n1 5 3\n", 5, 3, "no task 5: expected the id of a task listed above"},
    {T2 "edges 1\nx 2 3\n", 5, 1, "expected a task id (a whole number >= 0), got \"x\""},
    {T2 "edges 1\n2 2 3\n", 5, 3, "an edge from task 2 to itself: expected another task"},
    {T2 "edges 1\n1 2\n", 5, 4, "expected \"SRC DST DATA\", the line ends after 2 fields"},
    {T2 "edges 1\n1\n", 5, 2, "expected \"SRC DST DATA\", the line ends after 1 field"},
    {T2 "edges 1\n1 2 -3\n", 5, 5,
     "expected the data of edge 1 -> 2 (a number from 0 to 1e12), got -3"},
    {T2 "edges 1\n1 2 1e13\n", 5, 5,
     "expected the data of edge 1 -> 2 (a number from 0 to 1e12), got 1e13"},
    {T2 "edges 1\n1 2 3 4\n", 5, 7, "expected \"SRC DST DATA\", got an extra field 4"},
    {T2 "edges 2\n1 2 3\n# again\n  1 2 4\n", 7, 3,
     "edge 1 -> 2 is listed twice (first on line 5)"},
};

TEST(text_errors)
{
	for (size_t i = 0; i < sizeof text_bad / sizeof text_bad[0]; i++) {
		const struct bad_case *b = &text_bad[i];
		struct locus_graph *g = (void *)&g;
		struct locus_error err = {0};
		int rc = read_text(&g, b->text, &err);
		if (rc != LOCUS_EPARSE || err.line != b->line || err.column != b->col ||
		    !strstr(err.message, b->message))
			fprintf(stderr, "  case %zu: rc %d %ld:%ld: %s\n", i, rc, err.line,
				err.column, err.message);
		CHECK_EQ_INT(rc, LOCUS_EPARSE);
		CHECK(g == NULL);
		CHECK_EQ_INT(err.code, LOCUS_EPARSE);
		CHECK_EQ_STR(err.file, "t.txt");
		CHECK_EQ_INT(err.line, b->line);
		CHECK_EQ_INT(err.column, b->col);
		CHECK(strstr(err.message, b->message) != NULL);
	}
	/* A cycle: the graph's check names a task on it. */
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_text(&g, T2 "edges 2\n1 2 0\n2 1 0\n", &err), LOCUS_EPARSE);
	CHECK(g == NULL);
	CHECK_EQ_INT(err.code, LOCUS_EPARSE);
	CHECK_EQ_STR(err.file, "t.txt");
	CHECK(strstr(err.message, "the graph has a cycle through task") != NULL);
}

/* ---- writing ------------------------------------------------------------------- */

TEST(write_round_trip)
{
	/* Ids out of topological order, decimal costs, several processors:
	 * STG keeps the structure and the work. */
	const char *text = "tasks 4 procs 2\n"
			   "1 1 2\n"
			   "2 0.25 0.25\n"
			   "3 4 4\n"
			   "4 0 0\n"
			   "edges 3\n"
			   "3 1 5\n"
			   "1 2 6\n"
			   "3 4 7\n";
	struct locus_graph *g = NULL, *back = NULL, *exact = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_text(&g, text, &err), 0);
	size_t len;
	char *w = write_stg(g, 1, &len);
	CHECK(w);
	/* Task "3" comes first; "4" is an exit task and "2" another. */
	CHECK(strstr(w, "          4\n") == w);
	CHECK(strstr(w, "          0          0          0\n"));
	CHECK(strstr(w, "          1          4          1          0\n"));
	CHECK(strstr(w, "          2          2          1          1\n"));
	CHECK(strstr(w, "          3          1          1          2\n")); /* 0.25 -> 1 */
	CHECK(strstr(w, "          4          0          1          1\n"));
	CHECK(strstr(w, "          5          0          2          3          4\n"));
	CHECK_EQ_INT(read_stg(&back, w, &err), 0);
	CHECK_EQ_INT(back->n_tasks, 4);
	CHECK_EQ_INT(back->n_edges, 3);
	CHECK(critical_path(back) == 7);
	free(w);

	/* Unrounded, the work comes back exactly. */
	w = write_stg(g, 0, &len);
	CHECK(w);
	CHECK(strstr(w, "          3       0.25          1          2\n"));
	CHECK_EQ_INT(read_stg(&exact, w, &err), 0);
	CHECK(critical_path(exact) == critical_path(g));
	for (size_t i = 0; i < 4; i++)
		CHECK(exact->tasks[i].work == g->tasks[g->topo[i]].work);
	free(w);
	locus_graph_destroy(exact);
	locus_graph_destroy(back);
	locus_graph_destroy(g);

	/* An STG graph comes back the same, costs and all. */
	const char *stg = "3\n0 0 0\n1 2 1 0\n2 3.75 1 1\n3 1e-3 1 0\n4 0 2 2 3\n";
	CHECK_EQ_INT(read_stg(&g, stg, &err), 0);
	w = write_stg(g, 0, &len);
	CHECK(w);
	CHECK_EQ_INT(read_stg(&back, w, &err), 0);
	CHECK(same_graph(g, back));
	free(w);
	locus_graph_destroy(back);
	locus_graph_destroy(g);

	/* The empty graph. */
	CHECK_EQ_INT(read_stg(&g, "0\n0 0 0\n1 0 1 0\n", &err), 0);
	w = write_stg(g, 1, &len);
	CHECK(w);
	CHECK_EQ_INT(read_stg(&back, w, &err), 0);
	CHECK_EQ_INT(back->n_tasks, 0);
	free(w);
	locus_graph_destroy(back);
	locus_graph_destroy(g);
	CHECK_EQ_INT(locus_dag_write_stg(NULL, 1, stdout), LOCUS_EINVAL);
}

/* ---- generated graphs ----------------------------------------------------------- */

static const char *const method_words[] = {"sameprob", "samepred", "layrprob", "layrpred"};

TEST(gen_method_parse)
{
	enum locus_dag_gen_method m;
	for (int i = 0; i < 4; i++) {
		CHECK_EQ_INT(locus_dag_gen_method_parse(method_words[i], &m), 0);
		CHECK_EQ_INT(m, i);
	}
	CHECK_EQ_INT(locus_dag_gen_method_parse("random", &m), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_dag_gen_method_parse(NULL, &m), LOCUS_EINVAL);
}

static struct locus_graph *generate(enum locus_dag_gen_method m, size_t n, uint64_t seed)
{
	struct locus_dag_gen spec = {0};
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	spec.method = m;
	spec.n_tasks = n;
	spec.seed = seed;
	if (locus_dag_generate(&g, &spec, &err)) {
		fprintf(stderr, "  generate: %s\n", err.message);
		return NULL;
	}
	return g;
}

TEST(gen_methods)
{
	for (int i = 0; i < 4; i++) {
		enum locus_dag_gen_method m = (enum locus_dag_gen_method)i;
		struct locus_graph *a = generate(m, 1000, 42), *b = generate(m, 1000, 42),
				   *c = generate(m, 1000, 43);
		CHECK(a && b && c);
		CHECK(same_graph(a, b));
		CHECK(!same_graph(a, c));
		CHECK_EQ_INT(a->n_tasks, 1000);
		CHECK(topo_ok(a));
		double mean = (double)a->n_edges / 1000;
		if (fabs(mean - 2) > 0.2)
			fprintf(stderr, "  %s: mean predecessors %g\n", method_words[i], mean);
		CHECK(fabs(mean - 2) <= 0.2);
		int costs[11] = {0};
		for (size_t t = 0; t < 1000; t++) {
			char name[16];
			snprintf(name, sizeof name, "%zu", t + 1);
			CHECK_EQ_STR(a->tasks[t].name, name);
			double w = a->tasks[t].work;
			CHECK(w >= 1 && w <= 10 && w == floor(w));
			costs[(int)w]++;
			/* Edges go from lower to higher ids. */
			for (uint32_t e = a->pred_at[t]; e < a->pred_at[t + 1]; e++)
				CHECK(a->preds[e].task < t);
		}
		for (int w = 1; w <= 10; w++)
			CHECK(costs[w] > 50); /* about 100 each */
		/* The same costs whatever the method. */
		struct locus_graph *s = generate(LOCUS_DAG_SAMEPROB, 1000, 42);
		CHECK(s);
		for (size_t t = 0; t < 1000; t++)
			CHECK(s->tasks[t].work == a->tasks[t].work);
		locus_graph_destroy(s);
		locus_graph_destroy(a);
		locus_graph_destroy(b);
		locus_graph_destroy(c);
	}
}

TEST(gen_layers_and_ranges)
{
	struct locus_dag_gen spec = {0};
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	/* 5 layers of 20: layer 0 has no predecessors, edges go to later
	 * layers only. */
	spec.method = LOCUS_DAG_LAYRPRED;
	spec.n_tasks = 100;
	spec.layers = 5;
	spec.mean_preds = 3;
	spec.cost_lo = 5;
	spec.cost_hi = 7.5;
	spec.seed = 7;
	CHECK_EQ_INT(locus_dag_generate(&g, &spec, &err), 0);
	for (uint32_t t = 0; t < 100; t++) {
		if (t < 20)
			CHECK(g->pred_at[t] == g->pred_at[t + 1]);
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
			CHECK(g->preds[e].task / 20 < t / 20);
		CHECK(g->tasks[t].work >= 5 && g->tasks[t].work <= 7);
	}
	CHECK(fabs((double)g->n_edges / 100 - 3) < 0.6);
	locus_graph_destroy(g);
	spec.method = LOCUS_DAG_LAYRPROB;
	CHECK_EQ_INT(locus_dag_generate(&g, &spec, &err), 0);
	for (uint32_t t = 0; t < 100; t++)
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
			CHECK(g->preds[e].task / 20 < t / 20);
	CHECK(fabs((double)g->n_edges / 100 - 3) < 0.6);
	locus_graph_destroy(g);

	/* One task; a mean past the complete DAG's. */
	spec.n_tasks = 1;
	spec.layers = 0;
	CHECK_EQ_INT(locus_dag_generate(&g, &spec, &err), 0);
	CHECK_EQ_INT(g->n_tasks, 1);
	CHECK_EQ_INT(g->n_edges, 0);
	locus_graph_destroy(g);
	spec.method = LOCUS_DAG_SAMEPROB;
	spec.n_tasks = 20;
	spec.mean_preds = 50;
	CHECK_EQ_INT(locus_dag_generate(&g, &spec, &err), 0);
	CHECK_EQ_INT(g->n_edges, 190);
	locus_graph_destroy(g);

	/* Refused. */
	spec.mean_preds = -1;
	CHECK_EQ_INT(locus_dag_generate(&g, &spec, &err), LOCUS_EINVAL);
	CHECK(g == NULL && strstr(err.message, "mean number of predecessors"));
	spec.mean_preds = 2;
	spec.n_tasks = 0;
	CHECK_EQ_INT(locus_dag_generate(&g, &spec, &err), LOCUS_EINVAL);
	spec.n_tasks = 10;
	spec.layers = 11;
	CHECK_EQ_INT(locus_dag_generate(&g, &spec, &err), LOCUS_EINVAL);
	spec.layers = 0;
	spec.cost_lo = 3;
	spec.cost_hi = 2;
	CHECK_EQ_INT(locus_dag_generate(&g, &spec, &err), LOCUS_EINVAL);
	spec.cost_lo = 2.2;
	spec.cost_hi = 2.8;
	CHECK_EQ_INT(locus_dag_generate(&g, &spec, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "whole number") != NULL);
	spec.cost_lo = 2;
	spec.method = (enum locus_dag_gen_method)9;
	CHECK_EQ_INT(locus_dag_generate(&g, &spec, &err), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_dag_generate(&g, NULL, &err), LOCUS_EINVAL);
}

TEST(gen_large)
{
	/* 100,000 tasks: linear time in the edges for every method. */
	for (int i = 0; i < 4; i++) {
		struct locus_graph *g = generate((enum locus_dag_gen_method)i, 100000, 1);
		CHECK(g);
		CHECK_EQ_INT(g->n_tasks, 100000);
		CHECK(fabs((double)g->n_edges / 100000 - 2) < 0.05);
		locus_graph_destroy(g);
	}
}

/* ---- heterogeneity and CCR ------------------------------------------------------- */

TEST(heterogeneity)
{
	struct locus_graph *g = generate(LOCUS_DAG_SAMEPRED, 200, 5), *h;
	struct locus_error err = {0};
	CHECK(g);
	double *w = calloc(200, sizeof *w);
	CHECK(w);
	for (size_t t = 0; t < 200; t++)
		w[t] = g->tasks[t].work;
	CHECK_EQ_INT(locus_dag_set_heterogeneity(g, 4, 0, 9, &err), 0);
	CHECK_EQ_INT(g->n_procs, 4);
	for (size_t t = 0; t < 200; t++) {
		for (size_t m = 0; m < 4; m++)
			CHECK(g->cost[t * 4 + m] == w[t]);
		CHECK(g->tasks[t].work == w[t]);
	}
	/* beta 1: within [w/2, 3w/2]; the row means near w, their mean
	 * closer. */
	CHECK_EQ_INT(locus_dag_set_heterogeneity(g, 16, 1, 9, &err), 0);
	double rel = 0;
	for (size_t t = 0; t < 200; t++) {
		for (size_t m = 0; m < 16; m++) {
			double c = g->cost[t * 16 + m];
			CHECK(c >= 0.5 * w[t] && c <= 1.5 * w[t]);
		}
		CHECK(fabs(g->tasks[t].work - w[t]) <= 0.25 * w[t]);
		rel += g->tasks[t].work / w[t];
	}
	CHECK_NEAR(rel / 200, 1, 0.02);
	/* Deterministic for a seed (from the same work), other seeds differ. */
	h = generate(LOCUS_DAG_SAMEPRED, 200, 5);
	CHECK(h);
	CHECK_EQ_INT(locus_dag_set_heterogeneity(h, 16, 1, 9, &err), 0);
	CHECK(memcmp(g->cost, h->cost, 200 * 16 * sizeof *g->cost) == 0);
	locus_graph_destroy(h);
	h = generate(LOCUS_DAG_SAMEPRED, 200, 5);
	CHECK(h);
	CHECK_EQ_INT(locus_dag_set_heterogeneity(h, 16, 1, 10, &err), 0);
	CHECK(memcmp(g->cost, h->cost, 200 * 16 * sizeof *g->cost) != 0);
	locus_graph_destroy(h);
	/* Refused. */
	CHECK_EQ_INT(locus_dag_set_heterogeneity(g, 0, 1, 9, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "processor") != NULL);
	CHECK_EQ_INT(locus_dag_set_heterogeneity(g, 2, 2, 9, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "beta in [0, 2)") != NULL);
	CHECK_EQ_INT(locus_dag_set_heterogeneity(g, 2, -0.1, 9, &err), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_dag_set_heterogeneity(g, 2, NAN, 9, &err), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_dag_set_heterogeneity(NULL, 2, 1, 9, &err), LOCUS_EINVAL);
	free(w);
	locus_graph_destroy(g);
}

TEST(ccr)
{
	struct locus_graph *g = generate(LOCUS_DAG_SAMEPROB, 300, 3), *h;
	struct locus_error err = {0};
	CHECK(g);
	CHECK(locus_dag_ccr(g, 1e9) == 0);
	static const double targets[] = {0.1, 0.5, 1.5};
	for (size_t i = 0; i < 3; i++) {
		CHECK_EQ_INT(locus_dag_set_ccr(g, targets[i], 1e9, 11, &err), 0);
		double got = locus_dag_ccr(g, 1e9);
		CHECK_NEAR(got / targets[i], 1, 1e-6);
		/* On unit links, sizes are times: rounding to bytes still
		 * keeps the mean to the byte. */
		CHECK_EQ_INT(locus_dag_set_ccr(g, targets[i], 1, 11, &err), 0);
		CHECK_NEAR(locus_dag_ccr(g, 1) / targets[i], 1, 1e-3);
	}
	/* Times in [0, 2 x mean], about uniform: their spread shows. */
	CHECK_EQ_INT(locus_dag_set_ccr(g, 1, 1e9, 11, &err), 0);
	double mean = 0, lo = INFINITY, hi = 0;
	for (size_t e = 0; e < g->n_edges; e++) {
		double s = (double)g->preds[e].bytes;
		mean += s / (double)g->n_edges;
		lo = fmin(lo, s);
		hi = fmax(hi, s);
	}
	CHECK(lo < 0.1 * mean && hi > 1.8 * mean && hi < 2.2 * mean);
	/* Task input sizes follow the edges. */
	uint64_t in = 0;
	for (size_t t = 0; t < g->n_tasks; t++)
		in += g->tasks[t].bytes;
	uint64_t sum = 0;
	for (size_t e = 0; e < g->n_edges; e++)
		sum += g->preds[e].bytes;
	CHECK_EQ_INT(in, sum);
	/* Deterministic. */
	h = generate(LOCUS_DAG_SAMEPROB, 300, 3);
	CHECK(h);
	CHECK_EQ_INT(locus_dag_set_ccr(h, 1, 1e9, 11, &err), 0);
	CHECK(same_graph(g, h));
	CHECK_EQ_INT(locus_dag_set_ccr(h, 1, 1e9, 12, &err), 0);
	CHECK(!same_graph(g, h));
	locus_graph_destroy(h);
	/* ccr 0: no data. */
	CHECK_EQ_INT(locus_dag_set_ccr(g, 0, 1e9, 11, &err), 0);
	for (size_t e = 0; e < g->n_edges; e++)
		CHECK_EQ_INT(g->preds[e].bytes, 0);
	CHECK(locus_dag_ccr(g, 1e9) == 0);
	/* Refused. */
	CHECK_EQ_INT(locus_dag_set_ccr(g, -1, 1e9, 11, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "CCR") != NULL);
	CHECK_EQ_INT(locus_dag_set_ccr(g, 1, 0, 11, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "bandwidth") != NULL);
	CHECK_EQ_INT(locus_dag_set_ccr(g, INFINITY, 1, 11, &err), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_dag_set_ccr(NULL, 1, 1, 11, &err), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_dag_set_ccr(g, 1e9, 1e18, 11, &err), LOCUS_ERANGE);
	locus_graph_destroy(g);

	/* No edges: nothing to do. Edges but no work: no CCR. */
	CHECK_EQ_INT(read_text(&g, "tasks 1 procs 1\n0 5\nedges 0\n", &err), 0);
	CHECK_EQ_INT(locus_dag_set_ccr(g, 1, 1, 11, &err), 0);
	locus_graph_destroy(g);
	CHECK_EQ_INT(read_stg(&g, "2\n0 0 0\n1 0 1 0\n2 0 1 1\n3 0 1 2\n", &err), 0);
	CHECK_EQ_INT(locus_dag_set_ccr(g, 1, 1, 11, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "no work") != NULL);
	CHECK(locus_dag_ccr(g, 1) == 0);
	locus_graph_destroy(g);
}

/* Stored inputs and outputs nobody reads are not edges: they keep their
 * sizes. */
TEST(ccr_leaves_stored_objects)
{
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_graph_create(&g, "w", &err), 0);
	CHECK(locus_graph_add_task(g, "a", 2) == 0);
	CHECK(locus_graph_add_task(g, "b", 4) == 1);
	long in = locus_graph_add_object(g, "in", 1000);
	long out = locus_graph_add_object(g, "out", 77);
	CHECK(in >= 0 && out >= 0);
	CHECK_EQ_INT(locus_graph_add_input(g, 0, (uint32_t)in), 0);
	CHECK_EQ_INT(locus_graph_add_output(g, 1, (uint32_t)out, &err), 0);
	long e = locus_graph_add_edge(g, 0, 1, 5);
	CHECK(e >= 0);
	CHECK_EQ_INT(locus_graph_finish(g, &err), 0);
	CHECK_EQ_INT(locus_dag_set_ccr(g, 0.5, 10, 1, &err), 0);
	CHECK_EQ_INT(g->objects[in].bytes, 1000);
	CHECK_EQ_INT(g->objects[out].bytes, 77);
	CHECK_EQ_INT(g->objects[e].bytes, 15); /* 0.5 x 3 s x 10 bytes/s */
	CHECK_NEAR(locus_dag_ccr(g, 10), 0.5, 1e-12);
	locus_graph_destroy(g);
}

TEST_MAIN(TEST_ENTRY(stg_small), TEST_ENTRY(stg_dummies_with_cost_are_kept), TEST_ENTRY(stg_errors),
	  TEST_ENTRY(stg_set), TEST_ENTRY(text_topcuoglu), TEST_ENTRY(text_variants),
	  TEST_ENTRY(text_errors), TEST_ENTRY(write_round_trip), TEST_ENTRY(gen_method_parse),
	  TEST_ENTRY(gen_methods), TEST_ENTRY(gen_layers_and_ranges), TEST_ENTRY(gen_large),
	  TEST_ENTRY(heterogeneity), TEST_ENTRY(ccr), TEST_ENTRY(ccr_leaves_stored_objects))
