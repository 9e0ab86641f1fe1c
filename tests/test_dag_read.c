/*
 * Task graphs read and made (docs/formats.md, "Task graphs"): every file
 * of the Standard Task Graph set against what its own information block
 * states, the text form of the HEFT paper's example, errors with line and
 * column, lenient spellings (CRLF, indentation, a byte-order mark), STG
 * written and read back, the four generation methods, heterogeneity and
 * CCR, and locus_dag_load's formats.
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

static int read_stg(struct locus_graph **g, const char *text, struct locus_error *err)
{
	return locus_dag_read_stg(g, text, strlen(text), "g.stg", err);
}

static int read_text(struct locus_graph **g, const char *text, struct locus_error *err)
{
	return locus_dag_read_text(g, text, strlen(text), "g.txt", err);
}

/* The longest path of work, no communication, computed here from the
 * edge lists in a topological order of our own (Kahn's). */
static double longest_path(const struct locus_graph *g)
{
	size_t n = g->n_tasks;
	double *fin = calloc(n ? n : 1, sizeof *fin), best = 0;
	uint32_t *left = calloc(n ? n : 1, sizeof *left), *queue = calloc(n ? n : 1, sizeof *queue);
	size_t head = 0, tail = 0;
	for (size_t t = 0; t < n; t++) {
		left[t] = g->pred_at[t + 1] - g->pred_at[t];
		if (!left[t])
			queue[tail++] = (uint32_t)t;
	}
	while (head < tail) {
		uint32_t t = queue[head++];
		double start = 0;
		for (uint32_t k = g->pred_at[t]; k < g->pred_at[t + 1]; k++)
			if (fin[g->preds[k].task] > start)
				start = fin[g->preds[k].task];
		fin[t] = start + g->tasks[t].work;
		if (fin[t] > best)
			best = fin[t];
		for (uint32_t k = g->succ_at[t]; k < g->succ_at[t + 1]; k++)
			if (!--left[g->succs[k].task])
				queue[tail++] = g->succs[k].task;
	}
	if (tail != n) /* a cycle */
		best = -1;
	free(fin);
	free(left);
	free(queue);
	return best;
}

/* A number after `key` in the text's '#' block ("# CP Length : 55"). */
static double info(const char *text, const char *key)
{
	const char *at = strstr(text, key);
	if (!at)
		return -1;
	at = strchr(at, ':');
	return at ? strtod(at + 1, NULL) : -1;
}

TEST(every_stg_graph_as_its_file_says)
{
	static const char *const dirs[] = {"50", "100"};
	size_t files = 0;
	for (size_t d = 0; d < 2; d++) {
		char dir[512];
		snprintf(dir, sizeof dir, "%s/data/stg/%s", LOCUS_SHARED_DIR, dirs[d]);
		DIR *dp = opendir(dir);
		if (!dp) {
			fprintf(stderr, "  skipped: no %s\n", dir);
			continue;
		}
		struct dirent *de;
		while ((de = readdir(dp))) {
			if (!strstr(de->d_name, ".stg"))
				continue;
			char path[1024];
			snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
			char *text = NULL;
			size_t len = 0;
			struct locus_error err = {0};
			CHECK_EQ_INT(locus_read_file(&text, &len, path, &err), 0);
			struct locus_graph *g = NULL;
			CHECK_EQ_INT(locus_dag_read_stg(&g, text, len, path, &err), 0);
			if (!g) {
				fprintf(stderr, "  %s: %s\n", path, err.message);
				free(text);
				continue;
			}
			/* "Tasks : 50 (+dummy tasks : 2)", "Edges : 96 / 1225
			 * (+dummy edges : 23)", "CP Length : 55". */
			CHECK_EQ_INT(g->n_tasks, (long)info(text, "Tasks"));
			CHECK_EQ_INT(g->n_edges, (long)info(text, "Edges"));
			CHECK(longest_path(g) == info(text, "CP Length"));
			CHECK(g->cost == NULL && g->data_bw == 0);
			/* Every edge is an object of 0 bytes; names are the ids. */
			for (size_t o = 0; o < g->n_objects; o++)
				CHECK(g->objects[o].bytes == 0);
			CHECK_EQ_STR(g->tasks[0].name, "1");
			free(text);
			locus_graph_destroy(g);
			files++;
		}
		closedir(dp);
	}
	CHECK(files >= 20);
}

TEST(stg_dummies_and_spellings)
{
	struct locus_error err = {0};
	struct locus_graph *a = NULL, *b = NULL, *c = NULL;
	const char *plain = "3\n0 0 0\n1 4 1 0\n2 2 1 0\n3 7 2 1 2\n4 0 1 3\n# CP Length : 11\n";
	/* The same graph with CRLF, indentation, tabs, comments, a
	 * byte-order mark and no last newline. */
	const char *odd = "\xEF\xBB\xBF# a comment\r\n   3\r\n\t0  0 0\r\n\n 1 4 1 0 # one\r\n"
			  "2 2.0 1 0\r\n3 7 2   1\t2\r\n4 0 1 3";
	CHECK_EQ_INT(read_stg(&a, plain, &err), 0);
	CHECK_EQ_INT(read_stg(&b, odd, &err), 0);
	CHECK(a && b);
	if (!a || !b)
		return;
	CHECK_EQ_INT(a->n_tasks, 3);
	CHECK_EQ_INT(b->n_tasks, 3);
	CHECK_EQ_INT(a->n_edges, 2);
	CHECK_EQ_INT(b->n_edges, 2);
	for (size_t t = 0; t < 3; t++) {
		CHECK(a->tasks[t].work == b->tasks[t].work);
		CHECK_EQ_STR(a->tasks[t].name, b->tasks[t].name);
	}
	CHECK(longest_path(a) == 11);
	/* Dummy tasks with a cost are kept, with their edges. */
	CHECK_EQ_INT(read_stg(&c, "2\n0 3 0\n1 1 1 0\n2 1 1 0\n3 5 2 1 2\n", &err), 0);
	CHECK(c && c->n_tasks == 4 && c->n_edges == 4);
	if (c) {
		CHECK_EQ_STR(c->tasks[0].name, "0");
		CHECK_EQ_STR(c->tasks[3].name, "3");
		CHECK(longest_path(c) == 9);
	}
	locus_graph_destroy(a);
	locus_graph_destroy(b);
	locus_graph_destroy(c);
}

/* Reading `text` fails at line:col with `part` in the message. */
static void refused(int stg, const char *text, long line, long col, const char *part)
{
	struct locus_graph *g = (struct locus_graph *)1;
	struct locus_error err = {0};
	int rc = stg ? read_stg(&g, text, &err) : read_text(&g, text, &err);
	CHECK(rc != 0);
	CHECK(g == NULL);
	CHECK_EQ_INT(err.line, line);
	CHECK_EQ_INT(err.column, col);
	CHECK(strstr(err.message, part) != NULL);
	if (err.line != line || err.column != col || !strstr(err.message, part))
		fprintf(stderr, "  %s:%ld:%ld: %s\n", err.file, err.line, err.column, err.message);
	if (rc == 0)
		locus_graph_destroy(g);
}

TEST(stg_errors)
{
	refused(1, "", 0, 0, "empty");
	refused(1, "x\n", 1, 1, "expected the number of tasks");
	refused(1, "2 3\n", 1, 3, "alone on its line");
	refused(1, "2\n0 0 0\n2 1 1 0\n", 3, 1, "expected task 1");
	refused(1, "2\n0 0 0\n1 -1 1 0\n", 3, 3, "a cost (a number >= 0)");
	refused(1, "2\n0 0 0\n1 1\n", 3, 4, "no predecessor count");
	refused(1, "2\n0 0 0\n1 1 1 1\n", 3, 7, "must have a smaller id");
	refused(1, "2\n0 0 0\n1 1 1 0\n2 1 2 1 1\n", 4, 9, "lists predecessor 1 twice");
	refused(1, "2\n0 0 0\n1 1 1 0\n2 1 2 1\n", 4, 8, "lists 1 predecessors, its count says 2");
	refused(1, "2\n0 0 0\n1 1 1 0 0\n", 3, 9, "more predecessors than its count");
	refused(1, "2\n0 0 0\n1 1 1 0\n", 3, 0, "ends after 2 of the 4 task lines");
	refused(1, "1\n0 0 0\n1 1 1 0\n2 0 1 1\n5 1 0\n", 5, 1, "expected the end of the graph");
	refused(1, "1\n0 0 0\n1 nan 1 0\n2 0 1 1\n", 3, 3, "a cost");
}

static const char *const heft_text =
    "# Topcuoglu 2002, Fig. 2\n"
    "tasks 10 procs 3\n"
    "1 14 16 9\n2 13 19 18\n3 11 13 19\n4 13 8 17\n5 12 13 10\n"
    "6 13 16 9\n7 7 15 11\n8 5 11 14\n9 18 12 20\n10 21 7 16\n"
    "edges 15\n"
    "1 2 18\n1 3 12\n1 4 9\n1 5 11\n1 6 14\n2 8 19\n2 9 16\n3 7 23\n"
    "4 8 27\n4 9 23\n5 9 13\n6 8 15\n7 10 17\n8 10 11\n9 10 13 # last\n";

TEST(text_form_of_the_heft_example)
{
	struct locus_error err = {0};
	struct locus_graph *g = NULL;
	CHECK_EQ_INT(read_text(&g, heft_text, &err), 0);
	CHECK(g);
	if (!g)
		return;
	CHECK_EQ_INT(g->n_tasks, 10);
	CHECK_EQ_INT(g->n_procs, 3);
	CHECK_EQ_INT(g->n_edges, 15);
	CHECK(g->data_bw == 1);
	CHECK(g->cost[0] == 14 && g->cost[1] == 16 && g->cost[2] == 9);
	CHECK(g->cost[9 * 3 + 1] == 7);
	CHECK_NEAR(g->tasks[0].work, 13, 1e-12); /* the mean of its row */
	long t1 = locus_graph_find_task(g, "1"), t2 = locus_graph_find_task(g, "2");
	CHECK(t1 == 0 && t2 == 1);
	CHECK_EQ_INT(g->succs[g->succ_at[0]].task, 1);
	CHECK(g->succs[g->succ_at[0]].bytes == 18);
	/* The file itself reads the same. */
	char path[512], *text = NULL;
	size_t len = 0;
	snprintf(path, sizeof path, "%s/data/dag-examples/topcuoglu2002.txt", LOCUS_SHARED_DIR);
	if (locus_read_file(&text, &len, path, &err) == 0) {
		struct locus_graph *h = NULL;
		CHECK_EQ_INT(locus_dag_read_text(&h, text, len, path, &err), 0);
		CHECK(h && h->n_tasks == 10 && h->n_edges == 15);
		for (size_t k = 0; h && k < 30; k++)
			CHECK(h->cost[k] == g->cost[k]);
		locus_graph_destroy(h);
		free(text);
	}
	locus_graph_destroy(g);
	/* Fractions of a time unit: sizes in millionths. */
	CHECK_EQ_INT(read_text(&g, "tasks 2 procs 1\n7 1\n3 2\nedges 1\n7 3 2.5\n", &err), 0);
	CHECK(g && g->data_bw == 1e6 && g->n_edges == 1 && g->succs[0].bytes == 2500000);
	if (g)
		CHECK_EQ_STR(g->tasks[1].name, "3");
	locus_graph_destroy(g);
}

TEST(text_form_errors)
{
	refused(0, "tasks 2\n", 1, 8, "expected \"tasks N procs P\"");
	refused(0, "task 2 procs 1\n", 1, 1, "expected \"tasks N procs P\", got \"task\"");
	refused(0, "tasks 2 procs 0\n", 1, 0, "at least one processor");
	refused(0, "tasks 2 procs 2\n1 1\n", 2, 4, "2 costs, got 1");
	refused(0, "tasks 2 procs 1\n1 1 1\n", 2, 5, "extra field");
	refused(0, "tasks 2 procs 1\n1 1\nedges 0\n", 3, 1, "expected 2 task lines before");
	refused(0, "tasks 2 procs 1\n1 1\n1 2\nedges 0\n", 3, 1, "task 1 is listed twice");
	refused(0, "tasks 2 procs 1\n1 1\n2 1\nedges 1\n1 3 4\n", 5, 3, "no task \"3\"");
	refused(0, "tasks 2 procs 1\n1 1\n2 1\nedges 1\n2 2 4\n", 5, 3, "two different tasks");
	refused(0, "tasks 2 procs 1\n1 1\n2 1\nedges 2\n1 2 4\n1 2 5\n", 6, 1, "listed twice");
	refused(0, "tasks 2 procs 1\n1 1\n2 1\nedges 1\n1 2 -4\n", 5, 5, "data");
	refused(0, "tasks 2 procs 1\n1 1\n2 1\nedges 1\n", 4, 0, "ends after 0 of the 1 edge");
	refused(0, "tasks 2 procs 1\n1 1\n2 1\nedges 0\n3 4\n", 5, 1, "expected the end");
	/* A cycle: the builder names a task on it. */
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK(read_text(&g, "tasks 2 procs 1\n1 1\n2 1\nedges 2\n1 2 0\n2 1 0\n", &err) != 0);
	CHECK(g == NULL && strstr(err.message, "cycle") != NULL);
}

TEST(stg_written_reads_back)
{
	char path[512], *text = NULL;
	size_t len = 0;
	struct locus_error err = {0};
	snprintf(path, sizeof path, "%s/data/stg/100/rand0003.stg", LOCUS_SHARED_DIR);
	if (locus_read_file(&text, &len, path, &err)) {
		fprintf(stderr, "  skipped: %s\n", err.message);
		return;
	}
	struct locus_graph *g = NULL, *h = NULL;
	CHECK_EQ_INT(locus_dag_read_stg(&g, text, len, path, &err), 0);
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	CHECK_EQ_INT(locus_dag_write_stg(g, 1, fp), 0);
	fclose(fp);
	CHECK_EQ_INT(locus_dag_read_stg(&h, buf, n, "written", &err), 0);
	CHECK(g && h);
	if (g && h) {
		CHECK_EQ_INT(h->n_tasks, g->n_tasks);
		CHECK_EQ_INT(h->n_edges, g->n_edges);
		CHECK(longest_path(h) == longest_path(g));
		double wg = 0, wh = 0;
		for (size_t t = 0; t < g->n_tasks; t++) {
			wg += g->tasks[t].work;
			wh += h->tasks[t].work;
		}
		CHECK(wg == wh);
		/* Written again, the same bytes. */
		char *buf2 = NULL;
		size_t n2 = 0;
		fp = open_memstream(&buf2, &n2);
		CHECK_EQ_INT(locus_dag_write_stg(h, 1, fp), 0);
		fclose(fp);
		CHECK(n2 == n && memcmp(buf, buf2, n) == 0);
		free(buf2);
	}
	free(buf);
	free(text);
	locus_graph_destroy(g);
	locus_graph_destroy(h);
}

static int same_graph(const struct locus_graph *a, const struct locus_graph *b)
{
	if (a->n_tasks != b->n_tasks || a->n_edges != b->n_edges)
		return 0;
	for (size_t t = 0; t < a->n_tasks; t++)
		if (a->tasks[t].work != b->tasks[t].work || a->pred_at[t + 1] != b->pred_at[t + 1])
			return 0;
	for (size_t e = 0; e < a->n_edges; e++)
		if (a->preds[e].task != b->preds[e].task)
			return 0;
	return 1;
}

TEST(generated_graphs)
{
	static const char *const methods[] = {"sameprob", "samepred", "layrprob", "layrpred"};
	enum locus_dag_gen_method m;
	CHECK(locus_dag_gen_method_parse("nosuch", &m) != 0);
	for (size_t k = 0; k < 4; k++) {
		struct locus_dag_gen spec = {.n_tasks = 1000, .seed = 7};
		struct locus_error err = {0};
		struct locus_graph *a = NULL, *b = NULL, *c = NULL;
		CHECK_EQ_INT(locus_dag_gen_method_parse(methods[k], &spec.method), 0);
		CHECK_EQ_INT(locus_dag_generate(&a, &spec, &err), 0);
		CHECK_EQ_INT(locus_dag_generate(&b, &spec, &err), 0);
		spec.seed = 8;
		CHECK_EQ_INT(locus_dag_generate(&c, &spec, &err), 0);
		CHECK(a && b && c);
		if (!a || !b || !c)
			continue;
		CHECK(same_graph(a, b));
		CHECK(!same_graph(a, c));
		CHECK_EQ_INT(a->n_tasks, 1000);
		double mean = (double)a->n_edges / 1000;
		if (!(mean > 1.7 && mean < 2.3))
			fprintf(stderr, "  %s: %.3f predecessors a task\n", methods[k], mean);
		CHECK(mean > 1.7 && mean < 2.3);
		for (size_t t = 0; t < a->n_tasks; t++) {
			double w = a->tasks[t].work;
			CHECK(w >= 1 && w <= 10 && w == floor(w));
			/* Edges from lower ids to higher ones. */
			for (uint32_t e = a->pred_at[t]; e < a->pred_at[t + 1]; e++)
				CHECK(a->preds[e].task < t);
		}
		CHECK(longest_path(a) > 0);
		/* layrpred's layers are its levels: about sqrt(n). */
		if (k == 3)
			CHECK_EQ_INT(a->n_levels, 32);
		locus_graph_destroy(a);
		locus_graph_destroy(b);
		locus_graph_destroy(c);
	}
	struct locus_dag_gen bad = {.method = LOCUS_DAG_SAMEPROB, .n_tasks = 0};
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK(locus_dag_generate(&g, &bad, &err) == LOCUS_EINVAL && g == NULL);
	bad = (struct locus_dag_gen){
	    .method = LOCUS_DAG_SAMEPRED, .n_tasks = 5, .cost_lo = 3, .cost_hi = 2};
	CHECK(locus_dag_generate(&g, &bad, &err) == LOCUS_EINVAL);
	/* One task, and a large graph made quickly. */
	struct locus_dag_gen one = {.method = LOCUS_DAG_LAYRPRED, .n_tasks = 1, .seed = 1};
	CHECK_EQ_INT(locus_dag_generate(&g, &one, &err), 0);
	CHECK(g && g->n_tasks == 1 && g->n_edges == 0);
	locus_graph_destroy(g);
	struct locus_dag_gen big = {.method = LOCUS_DAG_SAMEPROB, .n_tasks = 100000, .seed = 1};
	CHECK_EQ_INT(locus_dag_generate(&g, &big, &err), 0);
	CHECK(g && g->n_edges > 180000 && g->n_edges < 220000);
	locus_graph_destroy(g);
}

TEST(heterogeneity_and_ccr)
{
	struct locus_dag_gen spec = {.method = LOCUS_DAG_LAYRPROB, .n_tasks = 300, .seed = 3};
	struct locus_error err = {0};
	struct locus_graph *g = NULL;
	CHECK_EQ_INT(locus_dag_generate(&g, &spec, &err), 0);
	if (!g)
		return;
	/* beta 0: every processor alike, the task's work. */
	CHECK_EQ_INT(locus_dag_set_heterogeneity(g, 4, 0, 1, &err), 0);
	for (size_t t = 0; t < g->n_tasks; t++)
		for (size_t m = 0; m < 4; m++)
			CHECK(g->cost[t * 4 + m] == g->tasks[t].work);
	/* beta 1: within w (1 +- 1/2) of the work, the mean near it. */
	struct locus_graph *h = NULL;
	CHECK_EQ_INT(locus_dag_generate(&h, &spec, &err), 0);
	double *w = malloc(h->n_tasks * sizeof *w), ratio = 0;
	for (size_t t = 0; t < h->n_tasks; t++)
		w[t] = h->tasks[t].work;
	CHECK_EQ_INT(locus_dag_set_heterogeneity(h, 10, 1, 5, &err), 0);
	for (size_t t = 0; t < h->n_tasks; t++)
		for (size_t m = 0; m < 10; m++) {
			double c = h->cost[t * 10 + m];
			CHECK(c >= w[t] * 0.5 && c <= w[t] * 1.5);
			ratio += c / w[t];
		}
	ratio /= (double)(h->n_tasks * 10);
	CHECK_NEAR(ratio, 1, 0.02);
	CHECK(locus_dag_set_heterogeneity(h, 10, 2, 5, &err) == LOCUS_EINVAL);
	free(w);
	locus_graph_destroy(h);
	/* CCR: exact after scaling, 0 without data, deterministic. */
	static const double ccrs[] = {0.1, 0.5, 1.5};
	for (size_t k = 0; k < 3; k++) {
		CHECK_EQ_INT(locus_dag_set_ccr(g, ccrs[k], 1.25e8, 9, &err), 0);
		CHECK_NEAR(locus_dag_ccr(g, 1.25e8) / ccrs[k], 1, 1e-6);
	}
	uint64_t first = g->objects[0].bytes;
	CHECK_EQ_INT(locus_dag_set_ccr(g, 1.5, 1.25e8, 9, &err), 0);
	CHECK(g->objects[0].bytes == first);
	/* The edges' sizes follow. */
	uint64_t sum = 0, esum = 0;
	for (size_t o = 0; o < g->n_objects; o++)
		sum += g->objects[o].bytes;
	for (size_t e = 0; e < g->n_edges; e++)
		esum += g->preds[e].bytes;
	CHECK(sum == esum);
	CHECK_EQ_INT(locus_dag_set_ccr(g, 0, 1.25e8, 9, &err), 0);
	CHECK(locus_dag_ccr(g, 1.25e8) == 0);
	CHECK(locus_dag_set_ccr(g, -1, 1e8, 9, &err) == LOCUS_EINVAL);
	CHECK(locus_dag_set_ccr(g, 1, 0, 9, &err) == LOCUS_EINVAL);
	locus_graph_destroy(g);
}

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

TEST_MAIN(TEST_ENTRY(every_stg_graph_as_its_file_says), TEST_ENTRY(stg_dummies_and_spellings),
	  TEST_ENTRY(stg_errors), TEST_ENTRY(text_form_of_the_heft_example),
	  TEST_ENTRY(text_form_errors), TEST_ENTRY(stg_written_reads_back),
	  TEST_ENTRY(generated_graphs), TEST_ENTRY(heterogeneity_and_ccr),
	  TEST_ENTRY(load_tells_the_format))
