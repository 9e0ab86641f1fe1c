/* Reports: exact JSON and CSV, a trace that parses, well-formed SVG charts,
 * comparison tables, atomic saving, exact numbers, and the speed of large
 * results. Results are built by hand, as the engine would fill them. */
#include <dirent.h>
#include <jansson.h>
#include <locale.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/json.h"
#include "locus/locus.h"
#include "locus/report.h"
#include "report/out.h"
#include "test.h"
#include "test_util.h"

typedef int (*writer_fn)(const struct locus_result *, FILE *);

/* ---- a small run: 2 nodes, 3 workers, 5 tasks -------------------------- */

static struct locus_task_result small_tasks[5] = {
    {0, 0, 0, 1, 0, 0.001, 0.5, 1.5, 0.001, 1, 0},
    {1, 0, 1, 0, 0, 0.002, 1.25, 2.25, 0.002, 1, 0},
    {2, 1, 1, 1, 0, 0.003, 0.25, 1.75, 0.003, 1, 0},
    {0, 0, UINT32_MAX, 0, 1.5, 1.5078125, 2, 3, 1.5078125, 1, 0},
    {2, 1, 0, 0, 1.75, 1.75, 2.5, 3.5, 1.75, 1, 0},
};

static struct locus_worker_result small_workers[3] = {
    {0, 2, 1, 100, 100, 2.9921875, 0.0088125, 0.0078125},
    {0, 1, 0, 0, 100, 2.248, 0.002, 0.002},
    {1, 2, 1, 100, 100, 3.497, 0.003, 0.003},
};

static struct locus_sched_result small_scheds[1] = {{20, 0.01, 3, 0.25}};

static void small_result(struct locus_result *r)
{
	memset(r, 0, sizeof *r);
	strcpy(r->policy, "dlmpi");
	r->seed = 42;
	r->n_tasks = 5;
	r->n_workers = 3;
	r->n_schedulers = 1;
	r->n_nodes = 2;
	r->makespan = 3.5;
	r->local_tasks = 2;
	r->bytes_local = 200;
	r->bytes_remote = 300;
	r->wait_mean = 0.1 + 0.2;
	r->wait_p50 = 0.002;
	r->wait_p99 = 0.0078125;
	r->wait_max = 0.0078125;
	r->messages = 10;
	r->message_bytes = 400;
	r->sched_busy_total = 0.01;
	r->sched_busy_max = 0.01;
	r->worker_idle_total = 0.0138125;
	r->lb_makespan = 2.75;
	r->lb_work = 2.75;
	r->lb_io = 0.5;
	r->lb_serial = 2.5;
	r->lb_longest = 1;
	r->opt_local = 4;
	r->pstats.entries_examined = 12;
	r->pstats.local_assignments = 2;
	r->pstats.remote_assignments = 3;
	r->pstats.counters[0] = 7;
	r->pstats.counters[1] = 1;
	r->pstats.counter_names[0] = "probes";
	r->pstats.counter_names[1] = "fall\"backs";
	r->events = 20;
	r->wall_seconds = 0.25;
	r->tasks = small_tasks;
	r->workers = small_workers;
	r->scheds = small_scheds;
}

/* A larger run built from a simple deterministic schedule: tasks go round
 * robin to workers, each reads (locally one time in three) then computes. */
static struct locus_result *big_result(size_t n_tasks, size_t n_workers, size_t per_node)
{
	struct locus_result *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	strcpy(r->policy, "fifo");
	r->seed = 7;
	r->n_tasks = n_tasks;
	r->n_workers = n_workers;
	r->n_schedulers = 1;
	r->n_nodes = (n_workers + per_node - 1) / per_node;
	r->tasks = calloc(n_tasks, sizeof *r->tasks);
	r->workers = calloc(n_workers, sizeof *r->workers);
	r->scheds = calloc(1, sizeof *r->scheds);
	double *clock = calloc(n_workers, sizeof *clock);
	if (!r->tasks || !r->workers || !r->scheds || !clock)
		abort();
	uint64_t s = 12345;
	for (size_t w = 0; w < n_workers; w++)
		r->workers[w].node = (uint32_t)(w / per_node);
	for (size_t t = 0; t < n_tasks; t++) {
		size_t w = t % n_workers;
		struct locus_task_result *tr = &r->tasks[t];
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		double read = 0.05 + (double)(s >> 40) / (double)(1ull << 24) * 0.2;
		double work = 0.5 + (double)((s >> 20) & 0xfffff) / (double)(1 << 20);
		tr->worker = (uint32_t)w;
		tr->node = r->workers[w].node;
		tr->local = t % 3 == 0;
		tr->source =
		    tr->local ? tr->node
			      : (t % 7 == 0 ? UINT32_MAX : (uint32_t)((tr->node + 1) % r->n_nodes));
		tr->idle_since = clock[w];
		tr->assigned = clock[w] + 1e-4 / 3;
		tr->read_end = tr->assigned + read;
		tr->end = tr->read_end + work;
		clock[w] = tr->end;
		r->workers[w].tasks++;
		r->workers[w].local_tasks += tr->local;
		r->workers[w].busy += tr->end - tr->assigned;
		r->workers[w].idle += 1e-4 / 3;
		r->local_tasks += tr->local;
		if (tr->end > r->makespan)
			r->makespan = tr->end;
	}
	r->lb_makespan = r->makespan * 0.9;
	r->lb_work = r->lb_makespan;
	r->lb_longest = 1.5;
	r->opt_local = (long)n_tasks;
	free(clock);
	return r;
}

static void big_free(struct locus_result *r)
{
	free(r->tasks);
	free(r->workers);
	free(r->scheds);
	free(r);
}

/* ---- helpers -------------------------------------------------------------- */

static char *render(writer_fn fn, const struct locus_result *r, size_t *len, int *rc)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	*rc = LOCUS_ENOMEM;
	if (!fp)
		return NULL;
	*rc = fn(r, fp);
	fclose(fp);
	if (len)
		*len = n;
	return buf;
}

static json_t *render_json(writer_fn fn, const struct locus_result *r)
{
	int rc;
	char *text = render(fn, r, NULL, &rc);
	json_error_t jerr;
	json_t *doc = text && rc == 0 ? json_loads(text, 0, &jerr) : NULL;
	if (text && rc == 0 && !doc)
		fprintf(stderr, "invalid JSON: %d:%d: %s\n", jerr.line, jerr.column, jerr.text);
	free(text);
	return doc;
}

static double num_at(json_t *obj, const char *path)
{
	char key[64];
	json_t *v = obj;
	const char *p = path;
	while (v && *p) {
		size_t n = strcspn(p, ".");
		snprintf(key, sizeof key, "%.*s", (int)n, p);
		v = json_object_get(v, key);
		p += n + (p[n] == '.');
	}
	return v && json_is_number(v) ? json_number_value(v) : NAN;
}

static int is_integer_at(json_t *obj, const char *k)
{
	return json_is_integer(json_object_get(obj, k));
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0, len = strlen(needle);
	for (const char *p = strstr(hay, needle); p; p = strstr(p + len, needle))
		n++;
	return n;
}

static int xml_entity(const char **p)
{
	static const char *const names[] = {"lt;", "gt;", "amp;", "quot;", "apos;"};
	const char *s = *p + 1;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strncmp(s, names[i], strlen(names[i])) == 0) {
			*p = s + strlen(names[i]);
			return 1;
		}
	if (*s == '#') {
		s++;
		size_t n = *s == 'x' ? 1 + strspn(s + 1, "0123456789abcdefABCDEF")
				     : strspn(s, "0123456789");
		if (n && s[n] == ';') {
			*p = s + n + 1;
			return 1;
		}
	}
	return 0;
}

/*
 * A small well-formedness check of an XML document: one root, tags nest
 * and match, attribute values are quoted, and neither text nor values hold
 * a '<' or an '&' that does not start an entity. Returns the number of
 * elements, or -1.
 */
static long xml_check(const char *s)
{
	const char *stack[64];
	size_t stack_len[64];
	int depth = 0, roots = 0;
	long elements = 0;
	const char *p = s;

	while (*p) {
		if (*p != '<') {
			if (depth == 0 && *p != ' ' && *p != '\n' && *p != '\t')
				return -1;
			if (*p != '&')
				p++;
			else if (!xml_entity(&p))
				return -1;
			continue;
		}
		if (strncmp(p, "<!--", 4) == 0) {
			const char *e = strstr(p, "-->");
			if (!e)
				return -1;
			p = e + 3;
			continue;
		}
		if (p[1] == '/') {
			size_t n = strcspn(p + 2, "> \n");
			if (depth == 0 || n != stack_len[depth - 1] ||
			    strncmp(p + 2, stack[depth - 1], n) != 0 || p[2 + n] != '>')
				return -1;
			depth--;
			p += 3 + n;
			continue;
		}
		const char *name = p + 1;
		size_t n = strspn(
		    name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_:");
		if (!n)
			return -1;
		if (depth == 0 && roots++)
			return -1;
		p = name + n;
		for (;;) {
			p += strspn(p, " \n\t");
			if (*p == '>' || (p[0] == '/' && p[1] == '>'))
				break;
			size_t an = strspn(
			    p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_:");
			if (!an || p[an] != '=' || (p[an + 1] != '"' && p[an + 1] != '\''))
				return -1;
			char q = p[an + 1];
			p += an + 2;
			while (*p && *p != q) {
				if (*p == '<')
					return -1;
				if (*p == '&') {
					if (!xml_entity(&p))
						return -1;
				} else {
					p++;
				}
			}
			if (*p != q)
				return -1;
			p++;
		}
		elements++;
		if (*p == '/') {
			p += 2;
			continue;
		}
		if (depth == 64)
			return -1;
		stack[depth] = name;
		stack_len[depth++] = n;
		p++;
	}
	return depth == 0 && roots == 1 ? elements : -1;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- JSON --------------------------------------------------------------- */

TEST(json_fields)
{
	struct locus_result r;
	small_result(&r);
	json_t *doc = render_json(locus_report_json, &r);
	CHECK(doc != NULL);
	CHECK_EQ_STR(json_string_value(json_object_get(doc, "format")), "locus-result");
	CHECK(is_integer_at(doc, "version"));
	CHECK_EQ_INT(num_at(doc, "version"), 4);
	CHECK_EQ_STR(json_string_value(json_object_get(doc, "policy")), "dlmpi");
	CHECK_EQ_INT(json_integer_value(json_object_get(doc, "seed")), 42);

	json_t *sum = json_object_get(doc, "summary");
	CHECK(num_at(sum, "makespan") == 3.5);
	CHECK(is_integer_at(sum, "tasks"));
	CHECK_EQ_INT(num_at(sum, "tasks"), 5);
	CHECK_EQ_INT(num_at(sum, "workers"), 3);
	CHECK_EQ_INT(num_at(sum, "schedulers"), 1);
	CHECK_EQ_INT(num_at(sum, "nodes"), 2);
	CHECK_EQ_INT(num_at(sum, "local_tasks"), 2);
	CHECK(num_at(sum, "local_fraction") == 0.4);
	CHECK_EQ_INT(num_at(sum, "bytes_local"), 200);
	CHECK_EQ_INT(num_at(sum, "bytes_remote"), 300);
	CHECK(num_at(sum, "local_bytes_fraction") == 0.4);
	CHECK(num_at(sum, "wait.mean") == 0.1 + 0.2);
	CHECK(num_at(sum, "wait.p50") == 0.002);
	CHECK(num_at(sum, "wait.p99") == 0.0078125);
	CHECK(num_at(sum, "wait.max") == 0.0078125);
	CHECK_EQ_INT(num_at(sum, "messages"), 10);
	CHECK_EQ_INT(num_at(sum, "message_bytes"), 400);
	CHECK(num_at(sum, "scheduler_busy.total") == 0.01);
	CHECK(num_at(sum, "scheduler_busy.max") == 0.01);
	CHECK(num_at(sum, "worker_idle_total") == 0.0138125);
	CHECK_EQ_INT(num_at(sum, "events"), 20);
	/* The real time a run took is not part of its result: the same seed
	 * gives the same bytes. */
	CHECK(json_object_get(sum, "wall_seconds") == NULL);

	json_t *b = json_object_get(doc, "bounds");
	CHECK(num_at(b, "makespan_lower") == 2.75);
	CHECK(num_at(b, "work") == 2.75);
	CHECK(num_at(b, "io") == 0.5);
	CHECK(num_at(b, "serial") == 2.5);
	CHECK(num_at(b, "longest_task") == 1);
	CHECK(num_at(b, "makespan_ratio") == 3.5 / 2.75);
	/* The balanced optimum, called what it is since version 4 (an
	 * unbalanced schedule beats it, so it was never an optimum). */
	CHECK_EQ_INT(num_at(b, "balanced_local_tasks"), 4);
	CHECK(num_at(b, "local_vs_balanced") == 0.5);
	CHECK(json_object_get(b, "optimal_local_tasks") == NULL);
	CHECK(json_object_get(b, "local_vs_optimal") == NULL);

	json_t *ps = json_object_get(doc, "policy_stats");
	CHECK_EQ_INT(num_at(ps, "entries_examined"), 12);
	CHECK_EQ_INT(num_at(ps, "local_assignments"), 2);
	CHECK_EQ_INT(num_at(ps, "remote_assignments"), 3);
	json_t *ctr = json_object_get(ps, "counters");
	CHECK_EQ_INT(json_object_size(ctr), 2);
	CHECK_EQ_INT(json_integer_value(json_object_get(ctr, "probes")), 7);
	CHECK_EQ_INT(json_integer_value(json_object_get(ctr, "fall\"backs")), 1);

	json_t *ws = json_object_get(doc, "workers");
	CHECK_EQ_INT(json_array_size(ws), 3);
	json_t *w2 = json_array_get(ws, 2);
	CHECK_EQ_INT(num_at(w2, "node"), 1);
	CHECK_EQ_INT(num_at(w2, "tasks"), 2);
	CHECK_EQ_INT(num_at(w2, "local_tasks"), 1);
	CHECK_EQ_INT(num_at(w2, "bytes_local"), 100);
	CHECK_EQ_INT(num_at(w2, "bytes_remote"), 100);
	CHECK(num_at(w2, "busy") == 3.497);
	CHECK(num_at(w2, "idle") == 0.003);
	CHECK(num_at(w2, "max_wait") == 0.003);
	json_t *ss = json_object_get(doc, "schedulers");
	CHECK_EQ_INT(json_array_size(ss), 1);
	CHECK_EQ_INT(num_at(json_array_get(ss, 0), "events"), 20);
	CHECK(num_at(json_array_get(ss, 0), "busy") == 0.01);
	CHECK_EQ_INT(num_at(json_array_get(ss, 0), "queue_max"), 3);
	CHECK(num_at(json_array_get(ss, 0), "queue_mean") == 0.25);

	json_t *ts = json_object_get(doc, "tasks");
	CHECK_EQ_INT(json_array_size(ts), 5);
	for (size_t i = 0; i < 5; i++) {
		json_t *t = json_array_get(ts, i);
		const struct locus_task_result *e = &small_tasks[i];
		CHECK_EQ_INT(json_object_size(t), 8);
		CHECK_EQ_INT(num_at(t, "worker"), e->worker);
		CHECK_EQ_INT(num_at(t, "node"), e->node);
		CHECK(json_is_boolean(json_object_get(t, "local")));
		CHECK_EQ_INT(json_is_true(json_object_get(t, "local")), e->local);
		CHECK(num_at(t, "idle_since") == e->idle_since);
		CHECK(num_at(t, "assigned") == e->assigned);
		CHECK(num_at(t, "read_end") == e->read_end);
		CHECK(num_at(t, "end") == e->end);
		if (e->source == UINT32_MAX)
			CHECK(json_is_null(json_object_get(t, "source")));
		else
			CHECK_EQ_INT(num_at(t, "source"), e->source);
	}
	json_decref(doc);
}

TEST(json_text_is_exact_and_stable)
{
	struct locus_result r;
	int rc;
	small_result(&r);
	char *a = render(locus_report_json, &r, NULL, &rc);
	CHECK_EQ_INT(rc, 0);
	/* Shortest exact numbers, integers without a point. */
	CHECK(strstr(a, "\"mean\": 0.30000000000000004") != NULL);
	CHECK(strstr(a, "\"makespan\": 3.5,") != NULL);
	CHECK(strstr(a, "\"longest_task\": 1,") != NULL);
	CHECK(strstr(a, "\"makespan_ratio\": 1.2727272727272727,") != NULL);
	CHECK(strstr(a, "    {\"worker\": 0, \"node\": 0, \"source\": null, \"local\": false, "
			"\"idle_since\": 1.5, \"assigned\": 1.5078125, \"read_end\": 2, "
			"\"end\": 3}") != NULL);
	CHECK(strncmp(a, "{\n  \"format\": \"locus-result\",\n  \"version\": 4,\n", 44) == 0);
	/* The same result gives the same bytes. */
	char *b = render(locus_report_json, &r, NULL, &rc);
	CHECK_EQ_STR(a, b);
	free(a);
	free(b);
}

TEST(json_without_tasks_and_bounds)
{
	struct locus_result r;
	small_result(&r);
	r.tasks = NULL;
	r.opt_local = -1;
	r.lb_makespan = 0;
	r.seed = UINT64_MAX;
	json_t *doc = render_json(locus_report_json, &r);
	CHECK(doc != NULL);
	CHECK(json_object_get(doc, "tasks") == NULL);
	CHECK_EQ_STR(json_string_value(json_object_get(doc, "seed")), "18446744073709551615");
	json_t *b = json_object_get(doc, "bounds");
	CHECK(json_is_null(json_object_get(b, "balanced_local_tasks")));
	CHECK(json_is_null(json_object_get(b, "local_vs_balanced")));
	CHECK(json_is_null(json_object_get(b, "makespan_ratio")));
	json_decref(doc);

	/* An empty run: no division by zero, empty arrays. */
	struct locus_result e;
	memset(&e, 0, sizeof e);
	e.makespan = NAN;
	doc = render_json(locus_report_json, &e);
	CHECK(doc != NULL);
	json_t *sum = json_object_get(doc, "summary");
	CHECK(json_is_null(json_object_get(sum, "local_fraction")));
	CHECK(json_is_null(json_object_get(sum, "local_bytes_fraction")));
	CHECK(json_is_null(json_object_get(sum, "makespan")));
	CHECK_EQ_INT(json_array_size(json_object_get(doc, "workers")), 0);
	CHECK_EQ_INT(json_array_size(json_object_get(doc, "schedulers")), 0);
	CHECK_EQ_STR(json_string_value(json_object_get(doc, "policy")), "");
	json_decref(doc);
}

static json_t *render_json_compare(const struct locus_result *const *runs, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	if (!fp)
		return NULL;
	int rc = locus_report_compare_json(runs, n, fp);
	fclose(fp);
	json_error_t jerr;
	json_t *doc = rc ? NULL : json_loads(buf, 0, &jerr);
	free(buf);
	return doc;
}

/* The versions by kind, and the locality bound's keys of each: chunk
 * runs are version 4 (was 1) and task graphs 5 (was 2) with the balanced
 * optimum named for what it is (issue 16, item 18: "optimal" was beaten
 * by schedules that unbalance the loads, e.g. 1.013 on a skewed 256-node
 * run); workflows stay version 3 with the old names, always null. */
TEST(json_versions_and_balanced_keys)
{
	struct locus_result r;
	small_result(&r);
	r.opt_local = 3;
	json_t *doc = render_json(locus_report_json, &r);
	CHECK(doc != NULL);
	CHECK_EQ_INT(num_at(doc, "version"), 4);
	json_t *b = json_object_get(doc, "bounds");
	CHECK_EQ_INT(num_at(b, "balanced_local_tasks"), 3);
	CHECK(num_at(b, "local_vs_balanced") == 2.0 / 3.0);
	json_decref(doc);
	r.dag = 1;
	doc = render_json(locus_report_json, &r);
	CHECK(doc != NULL);
	CHECK_EQ_INT(num_at(doc, "version"), 5);
	CHECK_EQ_INT(num_at(json_object_get(doc, "bounds"), "balanced_local_tasks"), 3);
	json_decref(doc);
	const struct locus_result *runs[] = {&r};
	doc = render_json_compare(runs, 1);
	CHECK(doc != NULL);
	CHECK_EQ_INT(num_at(doc, "version"), 5);
	CHECK_EQ_INT(
	    num_at(json_array_get(json_object_get(doc, "runs"), 0), "balanced_local_tasks"), 3);
	json_decref(doc);
}

/* The problems a run's source reported are in its JSON (only the run's
 * dataset's), and a result without any keeps its bytes: they reached the
 * user only through locus locate (issue 16, items 3 and 4). */
TEST(json_problems)
{
	struct locus_catalog *cat = NULL;
	CHECK_EQ_INT(locus_catalog_create(&cat), 0);
	long a = locus_catalog_add_dataset(cat, "a.fa"), b = locus_catalog_add_dataset(cat, "b");
	CHECK(a >= 0 && b >= 0);
	CHECK_EQ_INT(locus_catalog_add_problem(cat, (size_t)a, 1, LOCUS_CHUNK_CORRUPT,
					       "chunk 1 on node n02 is 100 \"bytes\""),
		     0);
	CHECK_EQ_INT(locus_catalog_add_problem(cat, (size_t)b, SIZE_MAX, LOCUS_CHUNK_MISSING,
					       "file status: MISSING"),
		     0);
	struct locus_result r;
	small_result(&r);
	int rc;
	char *before = render(locus_report_json, &r, NULL, &rc);
	CHECK_EQ_INT(locus_result_set_problems(&r, cat, NULL), 0);
	CHECK_EQ_INT(r.n_problems, 2);
	json_t *doc = render_json(locus_report_json, &r);
	CHECK(doc != NULL);
	json_t *ps = json_object_get(doc, "problems");
	CHECK_EQ_INT(json_array_size(ps), 2);
	json_t *p0 = json_array_get(ps, 0), *p1 = json_array_get(ps, 1);
	CHECK_EQ_STR(json_string_value(json_object_get(p0, "dataset")), "a.fa");
	CHECK_EQ_INT(json_integer_value(json_object_get(p0, "chunk")), 1);
	CHECK(json_is_true(json_object_get(p0, "corrupt")));
	CHECK(json_is_false(json_object_get(p0, "missing")));
	CHECK_EQ_STR(json_string_value(json_object_get(p0, "detail")),
		     "chunk 1 on node n02 is 100 \"bytes\"");
	CHECK(json_is_null(json_object_get(p1, "chunk")));
	CHECK(json_is_true(json_object_get(p1, "missing")));
	json_decref(doc);
	/* The comparison says them once, at the top. */
	const struct locus_result *runs[] = {&r, &r};
	doc = render_json_compare(runs, 2);
	CHECK(doc != NULL);
	CHECK_EQ_INT(json_array_size(json_object_get(doc, "problems")), 2);
	json_decref(doc);
	/* One dataset's only; then none (and the bytes of before). */
	CHECK_EQ_INT(locus_result_set_problems(&r, cat, "b"), 0);
	CHECK_EQ_INT(r.n_problems, 1);
	CHECK_EQ_STR(r.problems[0].dataset, "b");
	CHECK_EQ_INT(locus_result_set_problems(&r, NULL, NULL), 0);
	CHECK_EQ_INT(r.n_problems, 0);
	char *after = render(locus_report_json, &r, NULL, &rc);
	CHECK(before && after && strcmp(before, after) == 0);
	free(before);
	free(after);
	locus_catalog_destroy(cat);
}

TEST(json_escapes_names)
{
	struct locus_result r;
	small_result(&r);
	/* Quotes, a backslash, a control character, bad UTF-8, and a name
	 * that fills the field with no NUL. */
	strcpy(r.policy, "a\"b\\c\x01\xff\xc3\xa9");
	json_t *doc = render_json(locus_report_json, &r);
	CHECK(doc != NULL);
	CHECK_EQ_STR(json_string_value(json_object_get(doc, "policy")),
		     "a\"b\\c\x01\xef\xbf\xbd\xc3\xa9");
	json_decref(doc);
	memset(r.policy, 'p', sizeof r.policy);
	doc = render_json(locus_report_json, &r);
	CHECK(doc != NULL);
	CHECK_EQ_INT(strlen(json_string_value(json_object_get(doc, "policy"))), 32);
	json_decref(doc);
}

TEST(numbers_match_core_formatter)
{
	char a[64], b[LOCUS__NUM_MAX];
	uint64_t s = 0x9e3779b97f4a7c15ull;
	static const double special[] = {0.1,
					 0.2,
					 0.1 + 0.2,
					 1.0 / 3,
					 2.0 / 3,
					 1e-5,
					 1.5e-5,
					 123456.789,
					 1e14 + 0.5,
					 999999999999999.9,
					 1e15,
					 1e16,
					 -0.0,
					 0.0,
					 5e-324,
					 2.2250738585072014e-308,
					 1.7976931348623157e308,
					 0x1p-72,
					 0x1p-73,
					 4.35,
					 9.999999999999999e-5,
					 -1234.5};
	for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
		locus__json_number(a, sizeof a, special[i]);
		locus__fmt_number(b, special[i]);
		CHECK_EQ_STR(b, a);
	}
	for (long i = 0; i < 2000000; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		double v;
		if (i % 2) {
			memcpy(&v, &s, sizeof v);
			if (!isfinite(v))
				continue;
		} else {
			v = (double)(s >> 11) * 0x1p-53 * pow(10, (double)(s % 40) - 25);
		}
		locus__json_number(a, sizeof a, v);
		locus__fmt_number(b, v);
		CHECK_EQ_STR(b, a);
		CHECK(strtod(b, NULL) == v);
	}
	locus__fmt_fixed(b, -0.04, 1, 1);
	CHECK_EQ_STR(b, "0");
	locus__fmt_fixed(b, 2.5, 3, 0);
	CHECK_EQ_STR(b, "2.500");
	locus__fmt_fixed(b, -12.25, 1, 1);
	CHECK_EQ_STR(b, "-12.3");
	locus__fmt_short(b, 0.0123456);
	CHECK_EQ_STR(b, "0.01235");
}

TEST(output_ignores_locale)
{
	static const char *const locales[] = {"de_DE.UTF-8", "fr_FR.UTF-8", "de_DE", "ru_RU.UTF-8"};
	struct locus_result r;
	int rc;
	small_result(&r);
	char *c = render(locus_report_json, &r, NULL, &rc);
	const char *got = NULL;
	for (size_t i = 0; i < sizeof locales / sizeof locales[0] && !got; i++)
		got = setlocale(LC_ALL, locales[i]);
	if (!got) {
		printf("output_ignores_locale: no comma-decimal locale installed, skipped\n");
		free(c);
		return;
	}
	char *l = render(locus_report_json, &r, NULL, &rc);
	setlocale(LC_ALL, "C");
	CHECK_EQ_STR(l, c);
	free(c);
	free(l);
}

TEST(writer_errors)
{
	struct locus_result r;
	small_result(&r);
	CHECK_EQ_INT(locus_report_json(NULL, stdout), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_report_csv(&r, NULL), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_report_compare(NULL, 1, stdout), LOCUS_EINVAL);
	const struct locus_result *runs[2] = {&r, NULL};
	CHECK_EQ_INT(locus_report_compare_json(runs, 2, stdout), LOCUS_EINVAL);
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		CHECK_EQ_INT(locus_report_json(&r, full), LOCUS_EIO);
		fclose(full);
	}
}

/* ---- CSV ---------------------------------------------------------------- */

TEST(csv_exact)
{
	struct locus_result r;
	int rc;
	small_result(&r);
	char *text = render(locus_report_csv, &r, NULL, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_STR(text, "task,worker,node,source,local,idle_since,assigned,read_end,end,wait\n"
			   "0,0,0,0,1,0,0.001,0.5,1.5,0.001\n"
			   "1,1,0,1,0,0,0.002,1.25,2.25,0.002\n"
			   "2,2,1,1,1,0,0.003,0.25,1.75,0.003\n"
			   "3,0,0,,0,1.5,1.5078125,2,3,0.0078125\n"
			   "4,2,1,0,0,1.75,1.75,2.5,3.5,0\n");
	free(text);
	r.tasks = NULL;
	text = render(locus_report_csv, &r, NULL, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_STR(text, "task,worker,node,source,local,idle_since,assigned,read_end,end,wait\n");
	free(text);
}

/* ---- trace -------------------------------------------------------------- */

static json_t *find_event(json_t *events, const char *ph, const char *name, long task)
{
	size_t i;
	json_t *e;
	json_array_foreach(events, i, e)
	{
		if (strcmp(json_string_value(json_object_get(e, "ph")), ph) != 0 ||
		    strcmp(json_string_value(json_object_get(e, "name")), name) != 0)
			continue;
		json_t *args = json_object_get(e, "args");
		if (task < 0 || json_integer_value(json_object_get(args, "task")) == task)
			return e;
	}
	return NULL;
}

TEST(trace_events)
{
	struct locus_result r;
	small_result(&r);
	json_t *doc = render_json(locus_report_trace, &r);
	CHECK(doc != NULL);
	CHECK_EQ_STR(json_string_value(json_object_get(doc, "displayTimeUnit")), "ms");
	json_t *events = json_object_get(doc, "traceEvents");
	CHECK(json_is_array(events));
	size_t i, n_x = 0, n_read = 0, n_meta = 0, n_inst = 0;
	json_t *e;
	json_array_foreach(events, i, e)
	{
		const char *ph = json_string_value(json_object_get(e, "ph"));
		CHECK(ph != NULL);
		CHECK(json_is_integer(json_object_get(e, "pid")));
		CHECK(json_is_integer(json_object_get(e, "tid")));
		n_x += strcmp(ph, "X") == 0;
		n_meta += strcmp(ph, "M") == 0;
		n_inst += strcmp(ph, "i") == 0;
		if (strcmp(ph, "X") == 0 &&
		    strcmp(json_string_value(json_object_get(e, "cat")), "read") == 0)
			n_read++;
	}
	CHECK_EQ_INT(n_x, 10);
	CHECK_EQ_INT(n_read, 5);
	CHECK_EQ_INT(n_meta, 2 * 2 + 2 * 3);
	CHECK_EQ_INT(n_inst, 2);

	/* Task 1: worker 1 on node 0 reads remotely from node 1. */
	json_t *rd = find_event(events, "X", "read remote", 1);
	CHECK(rd != NULL);
	CHECK_EQ_INT(json_integer_value(json_object_get(rd, "pid")), 1);
	CHECK_EQ_INT(json_integer_value(json_object_get(rd, "tid")), 2);
	CHECK(num_at(rd, "ts") == 0.002 * 1e6);
	CHECK(num_at(rd, "dur") == (1.25 - 0.002) * 1e6);
	CHECK_EQ_INT(num_at(rd, "args.source"), 1);
	json_t *cp = find_event(events, "X", "compute", 1);
	CHECK(cp != NULL);
	CHECK(num_at(cp, "ts") == 1250000);
	CHECK(num_at(cp, "dur") == 1000000);
	/* Task 0 read locally; task 3 from the shared file system. */
	rd = find_event(events, "X", "read local", 0);
	CHECK(rd != NULL);
	CHECK(num_at(rd, "ts") == 1000);
	rd = find_event(events, "X", "read remote", 3);
	CHECK(rd != NULL);
	CHECK_EQ_STR(json_string_value(json_object_get(json_object_get(rd, "args"), "source")),
		     "shared fs");
	CHECK(num_at(rd, "args.wait") == 0.0078125);

	/* Names: node 1 is pid 2, worker 2 is its thread 3. */
	int found_node = 0, found_worker = 0;
	json_array_foreach(events, i, e)
	{
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *label =
		    json_string_value(json_object_get(json_object_get(e, "args"), "name"));
		long pid = (long)json_integer_value(json_object_get(e, "pid"));
		long tid = (long)json_integer_value(json_object_get(e, "tid"));
		if (strcmp(name, "process_name") == 0 && pid == 2)
			found_node = label && strcmp(label, "node 1") == 0;
		if (strcmp(name, "thread_name") == 0 && pid == 2 && tid == 3)
			found_worker = label && strcmp(label, "worker 2") == 0;
	}
	CHECK(found_node);
	CHECK(found_worker);
	json_t *mk = find_event(events, "i", "makespan", -1);
	CHECK(mk != NULL);
	CHECK(num_at(mk, "ts") == 3500000);
	json_t *other = json_object_get(doc, "otherData");
	CHECK_EQ_STR(json_string_value(json_object_get(other, "policy")), "dlmpi");
	json_decref(doc);

	/* Without per-task results: still valid, no slices. */
	r.tasks = NULL;
	doc = render_json(locus_report_trace, &r);
	CHECK(doc != NULL);
	CHECK(find_event(json_object_get(doc, "traceEvents"), "X", "compute", -1) == NULL);
	json_decref(doc);
	struct locus_result e0;
	memset(&e0, 0, sizeof e0);
	doc = render_json(locus_report_trace, &e0);
	CHECK(doc != NULL);
	json_decref(doc);
}

/* ---- SVG ---------------------------------------------------------------- */

static int svg_ok(const char *text, size_t len)
{
	static const char head[] = "<svg xmlns=\"http://www.w3.org/2000/svg\" ";
	return strncmp(text, head, strlen(head)) == 0 && len > 7 &&
	       strcmp(text + len - 7, "</svg>\n") == 0 && xml_check(text) > 0;
}

TEST(svg_gantt_small)
{
	struct locus_result r;
	size_t len;
	int rc;
	small_result(&r);
	strcpy(r.policy, "a<b&\"c");
	char *svg = render(locus_report_svg_gantt, &r, &len, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(svg_ok(svg, len));
	CHECK_EQ_INT(count(svg, "<rect class=\"c\""), 5);
	CHECK_EQ_INT(count(svg, "<rect class=\"rl\""), 2);
	CHECK_EQ_INT(count(svg, "<rect class=\"rr\""), 2);
	CHECK_EQ_INT(count(svg, "<rect class=\"rs\""), 1);
	CHECK(strstr(svg, "a<b") == NULL);
	CHECK(strstr(svg, "a&lt;b&amp;&quot;c") != NULL);
	CHECK_EQ_INT(count(svg, "<line class=\"lb\""), 1);
	CHECK_EQ_INT(count(svg, "<line class=\"ms\""), 1);
	CHECK(strstr(svg, ">node 1</text>") != NULL);
	CHECK(strstr(svg, ">w2</text>") != NULL);
	CHECK(strstr(svg, "makespan 3.5 s") != NULL);
	/* Deterministic. */
	char *again = render(locus_report_svg_gantt, &r, NULL, &rc);
	CHECK_EQ_STR(svg, again);
	free(again);
	free(svg);

	r.tasks = NULL;
	svg = render(locus_report_svg_gantt, &r, &len, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(svg_ok(svg, len));
	CHECK_EQ_INT(count(svg, "<rect class=\"c\""), 0);
	CHECK(strstr(svg, "no per-task results") != NULL);
	free(svg);
	struct locus_result e;
	memset(&e, 0, sizeof e);
	svg = render(locus_report_svg_gantt, &e, &len, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(svg_ok(svg, len));
	free(svg);
}

TEST(svg_gantt_aggregates_large_runs)
{
	size_t len;
	int rc;
	/* 1024 workers on 256 nodes: a row per node, time in bins. */
	struct locus_result *r = big_result(20000, 1024, 4);
	CHECK(r != NULL);
	char *svg = render(locus_report_svg_gantt, r, &len, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(svg_ok(svg, len));
	CHECK_EQ_INT(count(svg, "<rect class=\"c\""), 0);
	CHECK(count(svg, "<path class=\"c\"") > 200);
	CHECK(strstr(svg, "each row is 1 node") != NULL);
	CHECK(len < 4000000);
	free(svg);
	big_free(r);
	/* 600 workers on 600 nodes: rows of 3 nodes. */
	r = big_result(3000, 600, 1);
	svg = render(locus_report_svg_gantt, r, &len, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(svg_ok(svg, len));
	CHECK(strstr(svg, "each row is 3 nodes") != NULL);
	CHECK(strstr(svg, ">nodes 0-2 (3 w)</text>") != NULL);
	free(svg);
	big_free(r);
}

TEST(svg_load)
{
	struct locus_result r;
	size_t len;
	int rc;
	small_result(&r);
	strcpy(r.policy, "x<y");
	char *svg = render(locus_report_svg_load, &r, &len, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(svg_ok(svg, len));
	CHECK_EQ_INT(count(svg, "<rect class=\"bl\""), 3);
	CHECK_EQ_INT(count(svg, "<rect class=\"br\""), 3);
	CHECK_EQ_INT(count(svg, "<rect class=\"bb\""), 3);
	CHECK_EQ_INT(count(svg, "<rect class=\"bi\""), 3);
	CHECK(strstr(svg, "x<y") == NULL);
	CHECK(strstr(svg, "w1: 1 tasks, 0 local, 1 not local") != NULL);
	free(svg);

	struct locus_result *big = big_result(5000, 500, 5);
	svg = render(locus_report_svg_load, big, &len, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(svg_ok(svg, len));
	CHECK_EQ_INT(count(svg, "<rect class=\"bl\""), 100);
	CHECK(strstr(svg, "Load per node") != NULL);
	free(svg);
	big_free(big);
}

/* ---- comparison ----------------------------------------------------------- */

static char *render_chart(const struct locus_chart *c, size_t *len, int *rc)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	*rc = LOCUS_ENOMEM;
	*len = 0;
	if (!fp)
		return NULL;
	*rc = locus_report_chart(c, fp);
	fclose(fp);
	*len = n;
	return buf;
}

TEST(line_chart)
{
	static const double x[] = {256, 512, 1024, 2048}, y1[] = {1, 2, 4, 8},
			    lo[] = {0.5, 1.5, 3, 7}, hi[] = {1.5, 2.5, 5, 9}, y2[] = {1, 1, 1, NAN},
			    y3[] = {0.5, 0.5, 0.5, 0.5};
	struct locus_series s[] = {
	    {.label = "monolithic", .n = 4, .x = x, .y = y1, .y_lo = lo, .y_hi = hi},
	    {.label = "scal <&>", .n = 4, .x = x, .y = y2},
	    {.label = "lower bound", .n = 4, .x = x, .y = y3, .bound = 1},
	};
	struct locus_chart c = {.title = "Fig. 4",
				.subtitle = "request latency",
				.x_label = "workers",
				.y_label = "seconds",
				.x_log2 = 1,
				.series = s,
				.n_series = 3};
	size_t len;
	int rc;
	char *text = render_chart(&c, &len, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(svg_ok(text, len));
	/* A line per series and one per legend entry, a band, markers for
	 * the finite points of the two plain series, escaped labels, log2
	 * ticks at the first series' x. */
	CHECK_EQ_INT(count(text, "<polyline"), 3);
	CHECK_EQ_INT(count(text, "<polygon"), 1);
	CHECK_EQ_INT(count(text, "<circle"), 4 + 3);
	CHECK(strstr(text, "scal &lt;&amp;&gt;") != NULL);
	CHECK(strstr(text, ">2048</text>") != NULL);
	CHECK(strstr(text, "<title>monolithic: 1024, 4</title>") != NULL);
	/* The same chart gives the same bytes. */
	size_t len2 = 0;
	char *again = render_chart(&c, &len2, &rc);
	CHECK(len2 == len && memcmp(text, again, len) == 0);
	free(again);
	free(text);
	/* A log10 y axis: whole decades, values <= 0 left out. */
	static const double yl[] = {0.004, 0.03, 0, 250};
	struct locus_series sl = {.label = "log", .n = 4, .x = x, .y = yl};
	struct locus_chart cl = {.series = &sl, .n_series = 1, .y_log10 = 1, .x_log2 = 1};
	text = render_chart(&cl, &len, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(svg_ok(text, len));
	CHECK(strstr(text, ">0.001</text>") != NULL && strstr(text, ">1000</text>") != NULL);
	CHECK_EQ_INT(count(text, "<circle"), 3);
	free(text);
	/* Categories along x: each name at its x, escaped, no numbers. */
	static const double xc[] = {1, 2, 3}, yc[] = {1, 0.5, 2};
	static const char *const names[] = {"mProject", "a<b", "Sum_All"};
	struct locus_series sc = {.label = "ratio", .n = 3, .x = xc, .y = yc};
	struct locus_chart cc = {.series = &sc, .n_series = 1, .x_names = names, .n_x_names = 3};
	text = render_chart(&cc, &len, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(svg_ok(text, len));
	CHECK(strstr(text, ">mProject</text>") != NULL && strstr(text, ">a&lt;b</text>") != NULL &&
	      strstr(text, ">Sum_All</text>") != NULL);
	CHECK(strstr(text, ">1.5</text>") == NULL);
	free(text);
	/* Nothing to draw; bad arguments. */
	struct locus_chart empty = {.title = "empty"};
	text = render_chart(&empty, &len, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(strstr(text, "no data") != NULL);
	free(text);
	struct locus_series bad = {.label = "x", .n = 2};
	struct locus_chart broken = {.series = &bad, .n_series = 1};
	CHECK_EQ_INT(locus_report_chart(&broken, stdout), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_report_chart(NULL, stdout), LOCUS_EINVAL);
}

TEST(compare_table)
{
	struct locus_result a, b;
	small_result(&a);
	small_result(&b);
	strcpy(b.policy, "fifo");
	b.makespan = 4.125;
	b.local_tasks = 1;
	b.opt_local = -1;
	const struct locus_result *runs[2] = {&a, &b};
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	CHECK_EQ_INT(locus_report_compare(runs, 2, fp), 0);
	fclose(fp);
	CHECK_EQ_STR(buf,
		     "policy  makespan  /bound  local %  /balanced  wait mean  wait p99  wait max  "
		     "messages  sched busy\n"
		     "------  --------  ------  -------  ---------  ---------  --------  --------  "
		     "--------  ----------\n"
		     "dlmpi      3.500   1.273     40.0      0.500     0.3000    0.0078    0.0078  "
		     "      10     0.01000\n"
		     "fifo       4.125   1.500     20.0          -     0.3000    0.0078    0.0078  "
		     "      10     0.01000\n"
		     "times in seconds; /bound: makespan over its lower bound; /balanced: local "
		     "tasks over the most any assignment with balanced loads keeps local (above 1: "
		     "the policy unbalanced the loads)\n");
	free(buf);
	/* The wait columns share their decimals, and none of them prints a
	 * wait that is not 0 as 0 (issue 16, item 19: a max of 5 s beside
	 * a p99 of 0.000233 s printed the other run's max 0.0003 as 0.000). */
	b.wait_mean = 0.0001;
	b.wait_p99 = 0.000233;
	b.wait_max = 0.0003;
	a.wait_max = 5;
	buf = NULL;
	fp = open_memstream(&buf, &n);
	CHECK_EQ_INT(locus_report_compare(runs, 2, fp), 0);
	fclose(fp);
	CHECK(strstr(buf, "    0.00010   0.00023   0.00030  ") != NULL);
	CHECK(strstr(buf, "    0.30000   0.00781   5.00000  ") != NULL);
	free(buf);
	a.wait_max = b.wait_max = 0.007813;
	b.wait_mean = 0.3;
	b.wait_p99 = 0.007813;

	json_t *doc;
	buf = NULL;
	fp = open_memstream(&buf, &n);
	CHECK_EQ_INT(locus_report_compare_json(runs, 2, fp), 0);
	fclose(fp);
	json_error_t jerr;
	doc = json_loads(buf, 0, &jerr);
	free(buf);
	CHECK(doc != NULL);
	CHECK_EQ_STR(json_string_value(json_object_get(doc, "format")), "locus-compare");
	CHECK_EQ_INT(json_integer_value(json_object_get(doc, "version")), 4);
	json_t *rs = json_object_get(doc, "runs");
	CHECK_EQ_INT(json_array_size(rs), 2);
	json_t *r0 = json_array_get(rs, 0), *r1 = json_array_get(rs, 1);
	CHECK_EQ_STR(json_string_value(json_object_get(r0, "policy")), "dlmpi");
	CHECK(num_at(r0, "makespan") == 3.5);
	CHECK(num_at(r0, "makespan_ratio") == 3.5 / 2.75);
	CHECK(num_at(r0, "local_fraction") == 0.4);
	CHECK(num_at(r0, "local_vs_balanced") == 0.5);
	CHECK(json_object_get(r0, "local_vs_optimal") == NULL);
	CHECK(num_at(r0, "wait.p99") == 0.0078125);
	CHECK_EQ_INT(num_at(r0, "messages"), 10);
	CHECK(num_at(r0, "scheduler_busy.total") == 0.01);
	CHECK(json_is_null(json_object_get(r1, "balanced_local_tasks")));
	CHECK(json_is_null(json_object_get(r1, "local_vs_balanced")));
	json_decref(doc);

	/* No runs: the header, and an empty array. */
	buf = NULL;
	fp = open_memstream(&buf, &n);
	CHECK_EQ_INT(locus_report_compare(NULL, 0, fp), 0);
	fclose(fp);
	CHECK(strncmp(buf, "policy  makespan", 16) == 0);
	free(buf);
	buf = NULL;
	fp = open_memstream(&buf, &n);
	CHECK_EQ_INT(locus_report_compare_json(NULL, 0, fp), 0);
	fclose(fp);
	doc = json_loads(buf, 0, &jerr);
	free(buf);
	CHECK(doc != NULL);
	CHECK_EQ_INT(json_array_size(json_object_get(doc, "runs")), 0);
	json_decref(doc);
}

/* ---- saving ------------------------------------------------------------- */

static int failing_writer(const struct locus_result *r, FILE *fp)
{
	fputs("{\"partial\": ", fp);
	(void)r;
	return LOCUS_EIO;
}

static size_t dir_entries(const char *path)
{
	size_t n = 0;
	DIR *d = opendir(path);
	struct dirent *e;
	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

TEST(save_is_atomic)
{
	struct locus_result r;
	struct locus_error err = {0};
	char path[600];
	int rc;
	small_result(&r);
	const char *dir = test_tmpdir();

	snprintf(path, sizeof path, "%s/run.json", dir);
	CHECK_EQ_INT(locus_report_save(&r, locus_report_json, path, &err), 0);
	char *want = render(locus_report_json, &r, NULL, &rc);
	char *got = test_slurp(path, NULL);
	CHECK(got != NULL);
	CHECK_EQ_STR(got, want);
	free(got);
	CHECK_EQ_INT(dir_entries(dir), 1);

	/* A writer that fails leaves the old file and nothing else. */
	CHECK_EQ_INT(locus_report_save(&r, failing_writer, path, &err), LOCUS_EIO);
	CHECK(strstr(err.message, "cannot write the report") != NULL);
	got = test_slurp(path, NULL);
	CHECK_EQ_STR(got, want);
	free(got);
	free(want);
	CHECK_EQ_INT(dir_entries(dir), 1);

	/* A missing directory: an error naming the path, nothing created. */
	snprintf(path, sizeof path, "%s/missing/run.svg", dir);
	locus_error_clear(&err);
	CHECK_EQ_INT(locus_report_save(&r, locus_report_svg_gantt, path, &err), LOCUS_EIO);
	CHECK(strstr(err.file, "missing/run.svg") != NULL);
	CHECK(err.message[0] != 0);
	CHECK_EQ_INT(dir_entries(dir), 1);

	CHECK_EQ_INT(locus_report_save(&r, NULL, path, &err), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_report_save(NULL, locus_report_csv, path, NULL), LOCUS_EINVAL);
	locus__rmtree(dir);
}

/* ---- large results ---------------------------------------------------- */

TEST(large_result_speed)
{
	static const struct {
		const char *name;
		writer_fn fn;
	} writers[] = {
	    {"json", locus_report_json},	 {"csv", locus_report_csv},
	    {"trace", locus_report_trace},	 {"svg gantt", locus_report_svg_gantt},
	    {"svg load", locus_report_svg_load},
	};
	struct locus_result *r = big_result(327680, 4096, 16);
	CHECK(r != NULL);
	for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++) {
		size_t len;
		int rc;
		double t0 = now();
		char *text = render(writers[i].fn, r, &len, &rc);
		double dt = now() - t0;
		CHECK_EQ_INT(rc, 0);
		printf("327680 tasks, 4096 workers: %-9s %8.1f MB in %.3f s\n", writers[i].name,
		       (double)len / 1e6, dt);
		if (writers[i].fn == locus_report_json) {
			json_error_t jerr;
			json_t *doc = json_loads(text, 0, &jerr);
			CHECK(doc != NULL);
			CHECK_EQ_INT(json_array_size(json_object_get(doc, "tasks")), 327680);
			json_t *t = json_array_get(json_object_get(doc, "tasks"), 327679);
			CHECK(num_at(t, "end") == r->tasks[327679].end);
			json_decref(doc);
		}
		if (writers[i].fn == locus_report_svg_gantt ||
		    writers[i].fn == locus_report_svg_load)
			CHECK(svg_ok(text, len));
		free(text);
	}
	big_free(r);
}

/* Writes the charts of a mid-sized run under $LOCUS_REPORT_SAMPLES, to look at. */
TEST(samples)
{
	const char *dir = getenv("LOCUS_REPORT_SAMPLES");
	char path[600];
	struct locus_result small;
	if (!dir)
		return;
	small_result(&small);
	struct locus_result *mid = big_result(400, 24, 4);
	struct locus_result *big = big_result(327680, 4096, 16);
	const struct {
		const char *file;
		const struct locus_result *r;
		writer_fn fn;
	} out[] = {
	    {"small-gantt.svg", &small, locus_report_svg_gantt},
	    {"small-load.svg", &small, locus_report_svg_load},
	    {"small.json", &small, locus_report_json},
	    {"small.csv", &small, locus_report_csv},
	    {"small-trace.json", &small, locus_report_trace},
	    {"mid-gantt.svg", mid, locus_report_svg_gantt},
	    {"mid-load.svg", mid, locus_report_svg_load},
	    {"big-gantt.svg", big, locus_report_svg_gantt},
	    {"big-load.svg", big, locus_report_svg_load},
	};
	for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, out[i].file);
		CHECK_EQ_INT(locus_report_save(out[i].r, out[i].fn, path, NULL), 0);
	}
	const struct locus_result *runs[2] = {&small, mid};
	locus_report_compare(runs, 2, stdout);
	big_free(mid);
	big_free(big);
}

TEST_MAIN(TEST_ENTRY(json_fields), TEST_ENTRY(json_text_is_exact_and_stable),
	  TEST_ENTRY(json_without_tasks_and_bounds), TEST_ENTRY(json_versions_and_balanced_keys),
	  TEST_ENTRY(json_problems), TEST_ENTRY(json_escapes_names),
	  TEST_ENTRY(numbers_match_core_formatter), TEST_ENTRY(output_ignores_locale),
	  TEST_ENTRY(writer_errors), TEST_ENTRY(csv_exact), TEST_ENTRY(trace_events),
	  TEST_ENTRY(svg_gantt_small), TEST_ENTRY(svg_gantt_aggregates_large_runs),
	  TEST_ENTRY(svg_load), TEST_ENTRY(line_chart), TEST_ENTRY(compare_table),
	  TEST_ENTRY(save_is_atomic), TEST_ENTRY(large_result_speed), TEST_ENTRY(samples))
