/*
 * Platform changes over time (docs/formats.md, "Scenario"): scenarios read
 * exactly and refused with line, column and what was expected; --fail
 * specs; merging; and GTP's generated scenarios (Hernandez and Cole,
 * section 6.2): deterministic, in range, Poisson in time, one stream per
 * resource.
 */
#include <string.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

/* n01 .. n04, one core each, on a shared network. */
static struct locus_platform *four_nodes(void)
{
	struct locus_platform *p = NULL;
	locus_platform_generate(&p, 4, 2, 1, "n");
	return p;
}

static int parse(struct locus_change **c, size_t *n, const struct locus_platform *p,
		 const char *text, struct locus_error *err)
{
	return locus_changes_parse(c, n, p, text, strlen(text), "s.txt", err);
}

static int is_change(const struct locus_change *c, double time, enum locus_change_kind kind,
		     uint32_t node, uint32_t node2, double value)
{
	int ok = c->time == time && c->kind == kind && c->node == node && c->node2 == node2 &&
		 c->value == value;
	if (!ok)
		fprintf(stderr, "  got %g kind %d node %u node2 %u value %g\n", c->time,
			(int)c->kind, c->node, c->node2, c->value);
	return ok;
}

TEST(parse_every_kind)
{
	struct locus_platform *p = four_nodes();
	CHECK(p);
	const char *text = "# a scenario: every kind\n"
			   "0 avail n01 0.5\n"
			   "\n"
			   "0\tn02\t2   # a speed trace's line\r\n"
			   "   1.5 SPEED n03 0.25\n"
			   "2 bandwidth N04.example.org 0.1\n"
			   "2 link n03 n02 0.75 # stored with node < node2\n"
			   "3 Fail n02\n"
			   "3 avail n02 1\n"
			   "4e0 recover n02\n"
			   "5 fail n02 #\n";
	struct locus_change *c = NULL;
	size_t n = 0;
	struct locus_error err = {0};
	CHECK_EQ_INT(parse(&c, &n, p, text, &err), 0);
	CHECK_EQ_INT(n, 9);
	CHECK(is_change(&c[0], 0, LOCUS_CHANGE_AVAIL, 0, LOCUS_NONE, 0.5));
	CHECK(is_change(&c[1], 0, LOCUS_CHANGE_SPEED, 1, LOCUS_NONE, 2));
	CHECK(is_change(&c[2], 1.5, LOCUS_CHANGE_SPEED, 2, LOCUS_NONE, 0.25));
	CHECK(is_change(&c[3], 2, LOCUS_CHANGE_BANDWIDTH, 3, LOCUS_NONE, 0.1));
	CHECK(is_change(&c[4], 2, LOCUS_CHANGE_LINK, 1, 2, 0.75));
	CHECK(is_change(&c[5], 3, LOCUS_CHANGE_FAIL, 1, LOCUS_NONE, 0));
	CHECK(is_change(&c[6], 3, LOCUS_CHANGE_AVAIL, 1, LOCUS_NONE, 1));
	CHECK(is_change(&c[7], 4, LOCUS_CHANGE_RECOVER, 1, LOCUS_NONE, 0));
	CHECK(is_change(&c[8], 5, LOCUS_CHANGE_FAIL, 1, LOCUS_NONE, 0));
	free(c);

	/* Nothing but blanks and comments: no changes, no allocation. */
	c = (void *)&c;
	CHECK_EQ_INT(parse(&c, &n, p, "\n# only a comment\n  \t\n", &err), 0);
	CHECK(c == NULL && n == 0);
	CHECK_EQ_INT(locus_changes_parse(&c, &n, p, "", 0, "s.txt", &err), 0);
	CHECK(c == NULL && n == 0);
	/* A "link" line is accepted on a shared network too: the engine
	 * decides what it means there. -0 reads as 0. */
	CHECK_EQ_INT(parse(&c, &n, p, "-0 link n04 n01 3", &err), 0);
	CHECK_EQ_INT(n, 1);
	CHECK(is_change(&c[0], 0, LOCUS_CHANGE_LINK, 0, 3, 3));
	CHECK(!signbit(c[0].time));
	free(c);
	locus_platform_destroy(p);
}

/* Every speed trace is a scenario of the same speed changes. */
TEST(speed_trace_is_a_scenario)
{
	struct locus_platform *p = four_nodes();
	CHECK(p);
	const char *text = "# node speeds\n"
			   "0 n01 0.5\n"
			   "\n"
			   "  2.5\tn03   2\r\n"
			   "2.5 N01.example.org 1e0\n"
			   "7 n04 0x1p-2\n";
	struct locus_speed_change *sc;
	struct locus_change *c;
	size_t ns, n;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_speed_trace_parse(&sc, &ns, p, text, strlen(text), "t", &err), 0);
	CHECK_EQ_INT(parse(&c, &n, p, text, &err), 0);
	CHECK_EQ_INT(n, ns);
	CHECK_EQ_INT(n, 4);
	for (size_t i = 0; i < n; i++)
		CHECK(is_change(&c[i], sc[i].time, LOCUS_CHANGE_SPEED, sc[i].node, LOCUS_NONE,
				sc[i].speed));
	free(sc);
	free(c);
	locus_platform_destroy(p);
}

struct bad_case {
	const char *text;
	long line, col;
	const char *message;
};

#define KIND_LIST "speed, avail, bandwidth, link, fail, recover"

static const struct bad_case bad_cases[] = {
    {"1\n", 1, 2,
     "expected \"TIME KIND NODE ...\" with KIND one of " KIND_LIST ", or \"TIME NODE SPEED\""},
    {"1 n01\n", 1, 6,
     "expected \"TIME KIND NODE ...\" with KIND one of " KIND_LIST ", or \"TIME NODE SPEED\""},
    {"1 slow n01 0.5\n", 1, 3,
     "expected \"TIME KIND NODE ...\" with KIND one of " KIND_LIST ", got \"slow\""},
    {"1 n01 2 3\n", 1, 3,
     "expected \"TIME KIND NODE ...\" with KIND one of " KIND_LIST ", got \"n01\""},
    {"x avail n01 0.5\n", 1, 1, "expected a time in seconds >= 0, got \"x\""},
    {"0 n01 1\n-1 fail n01\n", 2, 1, "expected a time in seconds >= 0, got -1"},
    {"inf n01 1\n", 1, 1, "expected a time in seconds >= 0, got \"inf\""},
    {"1 avail n01 1.5\n", 1, 13, "expected an availability in (0, 1], got 1.5"},
    {"1 avail n01 0\n", 1, 13, "expected an availability in (0, 1], got 0"},
    {"1\tAVAIL\tn01\t2\r\n", 1, 13, "expected an availability in (0, 1], got 2"},
    {"1 avail n01 nan\n", 1, 13, "expected an availability in (0, 1], got \"nan\""},
    {"1 avail n01\n", 1, 12, "expected \"TIME avail NODE A\", the line ends after 3 fields"},
    {"1 avail n01 0.5 7\n", 1, 17, "expected \"TIME avail NODE A\", got an extra field 7"},
    {"1 bandwidth n01 -2\n", 1, 17, "expected a bandwidth factor > 0, got -2"},
    {"1 bandwidth n01 1e999\n", 1, 17, "expected a bandwidth factor > 0, got \"1e999\""},
    {"1 link n01 n01 0.5\n", 1, 12, "a link joins two distinct nodes, got node \"n01\" twice"},
    {"1 link n02 N02.example.org 2\n", 1, 12,
     "a link joins two distinct nodes, got node \"n02\" twice"},
    {"1 link n01 n02 0\n", 1, 16, "expected a link bandwidth factor > 0, got 0"},
    {"1 link n01 n02\n", 1, 15, "expected \"TIME link NODE NODE F\", the line ends after 4 fields"},
    {"1 link n01 n09 1\n", 1, 12, "no node \"n09\" in the platform"},
    {"1 speed n09 2\n", 1, 9, "no node \"n09\" in the platform"},
    {"1 speed n01 abc\n", 1, 13, "expected a speed in [1e-06, 1e+06], got \"abc\""},
    {"1 n01 0\n", 1, 7, "expected a speed in [1e-06, 1e+06], got 0"},
    {"1 speed n01 1e-300\n", 1, 13, "expected a speed in [1e-06, 1e+06], got 1e-300"},
    {"1 n01 2e6\n", 1, 7, "expected a speed in [1e-06, 1e+06], got 2e6"},
    {"1 7 2\n", 1, 3, "no node \"7\" in the platform"},
    {"2 fail n01\n\n1 recover n01\n", 3, 1, "times must not decrease (1 after 2)"},
    {"1 n01 0.5 # comment\n0.5 n01 1\n", 2, 1, "times must not decrease (0.5 after 1)"},
    {"1.0000001 n01 1\n1.00000001 n02 1\n", 2, 1, "times must not decrease (1 after 1.0000001)"},
    {"1 fail n01 0.5\n", 1, 12, "expected \"TIME fail NODE\", got an extra field 0.5"},
    {"1 fail n01 n02 # two nodes\n", 1, 12,
     "expected \"TIME fail NODE\", got an extra field \"n02\""},
    {"1 recover\n", 1, 10, "expected \"TIME recover NODE\", the line ends after 2 fields"},
    {"1 fail n05\n", 1, 8, "no node \"n05\" in the platform"},
    {"1 sp\001ed n01 2\n", 1, 3,
     "expected \"TIME KIND NODE ...\" with KIND one of " KIND_LIST ", got \"sp?ed\""},
    {"1 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx n01 2\n", 1, 3,
     "expected \"TIME KIND NODE ...\" with KIND one of " KIND_LIST
     ", got \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\""},
    {"1 a b c d e f g\n", 1, 3,
     "expected \"TIME KIND NODE ...\" with KIND one of " KIND_LIST ", got \"a\""},
    {"1 link a b c d e f g\n", 1, 14,
     "expected \"TIME link NODE NODE F\", got an extra field \"d\""},
    /* Fail and recover must alternate, from "up" at time 0. */
    {"1 fail n01\n2 fail N01\n", 2, 8, "node \"n01\" is already down (it failed on line 1)"},
    {"1 recover n02\n", 1, 11, "node \"n02\" is not down (no fail before this recover)"},
    {"0 fail n01\n1 recover n01\n2 recover n01\n", 3, 11,
     "node \"n01\" is not down (it recovered on line 2)"},
};

TEST(parse_refuses_bad_lines)
{
	struct locus_platform *p = four_nodes();
	CHECK(p);
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		const struct bad_case *b = &bad_cases[i];
		struct locus_change *c = (void *)&c;
		size_t n = 7;
		struct locus_error err = {0};
		int rc = parse(&c, &n, p, b->text, &err);
		if (rc != LOCUS_EPARSE || err.line != b->line || err.column != b->col ||
		    strcmp(err.message, b->message) != 0)
			fprintf(stderr, "  case %zu: rc %d %ld:%ld: %s\n", i, rc, err.line,
				err.column, err.message);
		CHECK_EQ_INT(rc, LOCUS_EPARSE);
		CHECK(c == NULL && n == 0);
		CHECK_EQ_INT(err.code, LOCUS_EPARSE);
		CHECK_EQ_STR(err.file, "s.txt");
		CHECK_EQ_INT(err.line, b->line);
		CHECK_EQ_INT(err.column, b->col);
		CHECK_EQ_STR(err.message, b->message);
	}
	/* A NUL inside a line is no node and no number. */
	struct locus_change *c;
	size_t n;
	struct locus_error err = {0};
	static const char nul[] = "1 n0\0"
				  "01 2";
	CHECK_EQ_INT(locus_changes_parse(&c, &n, p, nul, sizeof nul - 1, "s.txt", &err),
		     LOCUS_EPARSE);
	CHECK_EQ_INT(err.column, 3);
	CHECK_EQ_STR(err.message, "no node \"n0?01\" in the platform");
	locus_platform_destroy(p);
}

TEST(fail_and_recover_alternate)
{
	struct locus_platform *p = four_nodes();
	CHECK(p);
	const char *text = "1 fail n01\n"
			   "1 fail n02\n"
			   "2 avail n01 0.5\n" /* a down node's changes are kept */
			   "3 recover n01\n"
			   "4 fail n01\n"
			   "5 recover n02\n"
			   "5 recover n01\n";
	struct locus_change *c;
	size_t n;
	struct locus_error err = {0};
	CHECK_EQ_INT(parse(&c, &n, p, text, &err), 0);
	CHECK_EQ_INT(n, 7);
	CHECK(is_change(&c[6], 5, LOCUS_CHANGE_RECOVER, 0, LOCUS_NONE, 0));
	free(c);
	/* A storage-only node fails too: it loses what it holds. */
	p->nodes[3].cores = 0;
	CHECK_EQ_INT(parse(&c, &n, p, "0 fail n04\n", &err), 0);
	CHECK(n == 1 && c[0].node == 3);
	free(c);
	locus_platform_destroy(p);
}

/* Nodes named like keywords: a three-field line is "fail" or "recover"
 * when its second field says so, else a speed trace's line. */
TEST(keyword_node_names)
{
	static const char *const names[] = {"fail", "avail", "n1"};
	static const int cores[] = {1, 1, 1};
	struct locus_platform *p = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_platform_create(&p, names, cores, 3, &err), 0);
	struct locus_change *c;
	size_t n;
	const char *text = "1 avail 0.5\n"
			   "2 avail avail 0.5\n"
			   "3 speed fail 2\n"
			   "4 fail fail\n";
	CHECK_EQ_INT(parse(&c, &n, p, text, &err), 0);
	CHECK_EQ_INT(n, 4);
	CHECK(is_change(&c[0], 1, LOCUS_CHANGE_SPEED, 1, LOCUS_NONE, 0.5));
	CHECK(is_change(&c[1], 2, LOCUS_CHANGE_AVAIL, 1, LOCUS_NONE, 0.5));
	CHECK(is_change(&c[2], 3, LOCUS_CHANGE_SPEED, 0, LOCUS_NONE, 2));
	CHECK(is_change(&c[3], 4, LOCUS_CHANGE_FAIL, 0, LOCUS_NONE, 0));
	free(c);
	CHECK_EQ_INT(parse(&c, &n, p, "1 fail 2\n", &err), LOCUS_EPARSE);
	CHECK_EQ_INT(err.column, 8);
	CHECK_EQ_STR(err.message, "no node \"2\" in the platform (a speed change of node "
				  "\"fail\" is written \"TIME speed fail SPEED\")");
	locus_platform_destroy(p);
}

TEST(load)
{
	struct locus_platform *p = four_nodes();
	CHECK(p);
	const char *dir = test_tmpdir();
	char path[512];
	snprintf(path, sizeof path, "%s/scenario.txt", dir);
	CHECK_EQ_INT(test_write(path, "0 fail n03\n10 recover n03\n10 bandwidth n01 2\n"), 0);
	struct locus_change *c;
	size_t n;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_changes_load(&c, &n, p, path, &err), 0);
	CHECK_EQ_INT(n, 3);
	CHECK(is_change(&c[2], 10, LOCUS_CHANGE_BANDWIDTH, 0, LOCUS_NONE, 2));
	free(c);
	CHECK_EQ_INT(test_write(path, "0 fail n03\n10 avail n03 2\n"), 0);
	CHECK_EQ_INT(locus_changes_load(&c, &n, p, path, &err), LOCUS_EPARSE);
	CHECK(c == NULL && n == 0);
	CHECK_EQ_STR(err.file, path);
	CHECK(err.line == 2 && err.column == 14);
	snprintf(path, sizeof path, "%s/missing.txt", dir);
	c = (void *)&c;
	CHECK_EQ_INT(locus_changes_load(&c, &n, p, path, &err), LOCUS_ENOENT);
	CHECK(c == NULL && n == 0);
	locus_platform_destroy(p);
}

TEST(parse_fail_specs)
{
	struct locus_platform *p = four_nodes();
	CHECK(p);
	struct locus_change c[2];
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_change_parse_fail(c, p, "n02@30", &err), 1);
	CHECK(is_change(&c[0], 30, LOCUS_CHANGE_FAIL, 1, LOCUS_NONE, 0));
	CHECK_EQ_INT(locus_change_parse_fail(c, p, "N03.example.org@1.5+60", &err), 2);
	CHECK(is_change(&c[0], 1.5, LOCUS_CHANGE_FAIL, 2, LOCUS_NONE, 0));
	CHECK(is_change(&c[1], 61.5, LOCUS_CHANGE_RECOVER, 2, LOCUS_NONE, 0));
	/* An exponent's '+' belongs to the number. */
	CHECK_EQ_INT(locus_change_parse_fail(c, p, "n01@1e+2+1e+1", &err), 2);
	CHECK(c[0].time == 100 && c[1].time == 110);
	CHECK_EQ_INT(locus_change_parse_fail(c, p, "n04@0", &err), 1);
	CHECK(c[0].time == 0 && c[0].node == 3);

	static const struct {
		const char *spec, *message;
	} bad[] = {
	    {"n01", "expected NODE@TIME or NODE@TIME+DOWN, got \"n01\""},
	    {"@5", "expected a node name before '@' in \"@5\""},
	    {"n09@5", "no node \"n09\" in the platform (in \"n09@5\")"},
	    {"n01@", "expected a time in seconds >= 0 after '@' in \"n01@\""},
	    {"n01@-1", "expected a time in seconds >= 0 after '@' in \"n01@-1\""},
	    {"n01@ 5", "expected a time in seconds >= 0 after '@' in \"n01@ 5\""},
	    {"n01@inf", "expected a time in seconds >= 0 after '@' in \"n01@inf\""},
	    {"n01@5s", "expected a time in seconds >= 0 after '@' in \"n01@5s\""},
	    {"n01@1e999", "expected a time in seconds >= 0 after '@' in \"n01@1e999\""},
	    {"n01@5+", "expected a down time in seconds > 0 after '+' in \"n01@5+\""},
	    {"n01@5+0", "expected a down time in seconds > 0 after '+' in \"n01@5+0\""},
	    {"n01@5+-3", "expected a down time in seconds > 0 after '+' in \"n01@5+-3\""},
	    {"n01@5+3+4", "expected a down time in seconds > 0 after '+' in \"n01@5+3+4\""},
	    {"n01@1e300+1e-300",
	     "the node must come back after it fails: 1e+300 + 1e-300 is not a later time (in "
	     "\"n01@1e300+1e-300\")"},
	    {"n01@1.7e308+1.7e308", "the node must come back after it fails: 1.7e+308 + "
				    "1.7e+308 is not a later time (in \"n01@1.7e308+1.7e308\")"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(c, 0x5a, sizeof c);
		int rc = locus_change_parse_fail(c, p, bad[i].spec, &err);
		CHECK_EQ_INT(rc, LOCUS_EPARSE);
		CHECK_EQ_INT(err.code, LOCUS_EPARSE);
		CHECK_EQ_STR(err.message, bad[i].message);
		CHECK(c[0].node == 0x5a5a5a5a && c[1].node == 0x5a5a5a5a); /* untouched */
	}
	CHECK_EQ_INT(locus_change_parse_fail(c, p, NULL, &err), LOCUS_EINVAL);
	locus_platform_destroy(p);
}

TEST(merge_is_stable)
{
	const struct locus_change a[] = {
	    {0, LOCUS_CHANGE_AVAIL, 0, LOCUS_NONE, 0.5},
	    {2, LOCUS_CHANGE_AVAIL, 1, LOCUS_NONE, 0.5},
	    {2, LOCUS_CHANGE_AVAIL, 2, LOCUS_NONE, 0.5},
	    {5, LOCUS_CHANGE_AVAIL, 3, LOCUS_NONE, 0.5},
	};
	const struct locus_change b[] = {
	    {0, LOCUS_CHANGE_FAIL, 0, LOCUS_NONE, 0},
	    {1, LOCUS_CHANGE_FAIL, 1, LOCUS_NONE, 0},
	    {2, LOCUS_CHANGE_RECOVER, 1, LOCUS_NONE, 0},
	    {6, LOCUS_CHANGE_FAIL, 3, LOCUS_NONE, 0},
	};
	struct locus_change *m;
	size_t n;
	CHECK_EQ_INT(locus_changes_merge(&m, &n, a, 4, b, 4), 0);
	CHECK_EQ_INT(n, 8);
	/* a's first at equal times, each list's order kept. */
	static const struct {
		double time;
		enum locus_change_kind kind;
		uint32_t node;
	} want[] = {{0, LOCUS_CHANGE_AVAIL, 0}, {0, LOCUS_CHANGE_FAIL, 0},
		    {1, LOCUS_CHANGE_FAIL, 1},	{2, LOCUS_CHANGE_AVAIL, 1},
		    {2, LOCUS_CHANGE_AVAIL, 2}, {2, LOCUS_CHANGE_RECOVER, 1},
		    {5, LOCUS_CHANGE_AVAIL, 3}, {6, LOCUS_CHANGE_FAIL, 3}};
	for (size_t i = 0; i < n; i++)
		CHECK(m[i].time == want[i].time && m[i].kind == want[i].kind &&
		      m[i].node == want[i].node);
	free(m);
	/* Swapped, b's first at equal times. */
	CHECK_EQ_INT(locus_changes_merge(&m, &n, b, 4, a, 4), 0);
	CHECK(m[0].kind == LOCUS_CHANGE_FAIL && m[1].kind == LOCUS_CHANGE_AVAIL);
	CHECK(m[3].kind == LOCUS_CHANGE_RECOVER && m[4].node == 1 && m[5].node == 2);
	free(m);
	/* One side empty: a copy; both empty: nothing. */
	CHECK_EQ_INT(locus_changes_merge(&m, &n, NULL, 0, b, 4), 0);
	CHECK_EQ_INT(n, 4);
	for (size_t i = 0; i < n; i++)
		CHECK(is_change(&m[i], b[i].time, b[i].kind, b[i].node, b[i].node2, b[i].value));
	free(m);
	m = (void *)&m;
	CHECK_EQ_INT(locus_changes_merge(&m, &n, NULL, 0, NULL, 0), 0);
	CHECK(m == NULL && n == 0);
	CHECK_EQ_INT(locus_changes_merge(&m, &n, NULL, 2, b, 4), LOCUS_EINVAL);
	CHECK(m == NULL && n == 0);
}

/* ---- the generator ------------------------------------------------------- */

static int key_before(const struct locus_change *a, const struct locus_change *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	if (a->node != b->node)
		return a->node < b->node;
	return a->node2 < b->node2;
}

/* Sorted with unique keys, times in [0, horizon), values in [1 - bound,
 * 1], the right node2 for each kind. */
static int well_formed(const struct locus_change *c, size_t n, const struct locus_platform *p,
		       const struct locus_variability *v)
{
	for (size_t i = 0; i < n; i++) {
		int ok = c[i].time >= 0 && c[i].time < v->horizon && c[i].value >= 1 - v->bound &&
			 c[i].value <= 1 && c[i].node < p->n_nodes &&
			 (i == 0 || key_before(&c[i - 1], &c[i]));
		if (c[i].kind == LOCUS_CHANGE_LINK)
			ok = ok && c[i].node < c[i].node2 && c[i].node2 < p->n_nodes;
		else
			ok = ok && c[i].node2 == LOCUS_NONE &&
			     (c[i].kind == LOCUS_CHANGE_AVAIL ||
			      c[i].kind == LOCUS_CHANGE_BANDWIDTH);
		if (c[i].kind == LOCUS_CHANGE_AVAIL)
			ok = ok && p->nodes[c[i].node].cores > 0;
		if (!ok) {
			fprintf(stderr, "  change %zu is not well formed\n", i);
			return 0;
		}
	}
	return 1;
}

static size_t count_kind(const struct locus_change *c, size_t n, enum locus_change_kind kind)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += c[i].kind == kind;
	return k;
}

TEST(generate_is_deterministic_and_in_range)
{
	struct locus_platform *p = four_nodes();
	CHECK(p);
	p->nodes[2].cores = 0; /* stores only: no availability of its own */
	struct locus_variability v = {0.6, 10, 1000, 1, 42};
	struct locus_change *c1, *c2, *c3;
	size_t n1, n2, n3;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_changes_generate(&c1, &n1, p, &v, &err), 0);
	CHECK_EQ_INT(locus_changes_generate(&c2, &n2, p, &v, &err), 0);
	CHECK(n1 > 100);
	CHECK_EQ_INT(n1, n2);
	CHECK(memcmp(c1, c2, n1 * sizeof *c1) == 0);
	CHECK(well_formed(c1, n1, p, &v));
	/* Three processors and four bandwidths: about 100 changes each. */
	size_t na = count_kind(c1, n1, LOCUS_CHANGE_AVAIL);
	size_t nb = count_kind(c1, n1, LOCUS_CHANGE_BANDWIDTH);
	CHECK_EQ_INT(na + nb, n1);
	CHECK(na > 300 - 90 && na < 300 + 90);
	CHECK(nb > 400 - 100 && nb < 400 + 100);
	for (size_t i = 0; i < n1; i++)
		CHECK(c1[i].kind != LOCUS_CHANGE_AVAIL || c1[i].node != 2);
	v.seed = 43;
	CHECK_EQ_INT(locus_changes_generate(&c3, &n3, p, &v, &err), 0);
	CHECK(n3 != n1 || memcmp(c1, c3, n1 * sizeof *c1) != 0);
	free(c1);
	free(c2);
	free(c3);
	locus_platform_destroy(p);
}

/* A long horizon: the number of changes is Poisson of mean horizon /
 * period, the values uniform on [1 - bound, 1]. The bounds are 5
 * standard deviations wide. */
TEST(generate_follows_gtp)
{
	struct locus_platform *p = NULL;
	CHECK_EQ_INT(locus_platform_generate(&p, 1, 1, 1, "n"), 0);
	const double period = 2.5, horizon = 250000, bound = 0.3;
	struct locus_variability v = {bound, period, horizon, 0, 7};
	struct locus_change *c;
	size_t n;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_changes_generate(&c, &n, p, &v, &err), 0);
	double mean_n = horizon / period;
	CHECK(fabs((double)n - mean_n) < 5 * sqrt(mean_n));
	/* The mean gap, first change's included, is close to the period. */
	double gap = c[n - 1].time / (double)n;
	CHECK_NEAR(gap, period, 5 * period / sqrt((double)n));
	double sum = 0, lo = 1, hi = 0;
	for (size_t i = 0; i < n; i++) {
		sum += c[i].value;
		lo = c[i].value < lo ? c[i].value : lo;
		hi = c[i].value > hi ? c[i].value : hi;
	}
	CHECK_NEAR(sum / (double)n, 1 - bound / 2, 5 * bound / sqrt(12.0 * (double)n));
	CHECK(lo >= 1 - bound && lo < 1 - bound + 0.001);
	CHECK(hi <= 1 && hi > 1 - 0.001);
	CHECK(well_formed(c, n, p, &v));
	free(c);
	locus_platform_destroy(p);
}

TEST(generate_edge_cases)
{
	struct locus_platform *p = four_nodes();
	CHECK(p);
	struct locus_change *c = (void *)&c;
	size_t n = 5;
	struct locus_error err = {0};
	/* Bound 0: the peak is all there is, so nothing changes. */
	struct locus_variability v = {0, 1, 1000, 1, 1};
	CHECK_EQ_INT(locus_changes_generate(&c, &n, p, &v, &err), 0);
	CHECK(c == NULL && n == 0);
	/* Horizon 0: nothing either. */
	v = (struct locus_variability){0.5, 1, 0, 1, 1};
	CHECK_EQ_INT(locus_changes_generate(&c, &n, p, &v, &err), 0);
	CHECK(c == NULL && n == 0);

	static const struct {
		double bound, period, horizon;
		const char *message;
	} bad[] = {
	    {1, 1, 10, "the variability bound must be in [0, 1), got 1"},
	    {-0.1, 1, 10, "the variability bound must be in [0, 1), got -0.1"},
	    {NAN, 1, 10, "the variability bound must be in [0, 1), got nan"},
	    {0.5, 0, 10, "the period must be a finite number of seconds > 0, got 0"},
	    {0.5, INFINITY, 10, "the period must be a finite number of seconds > 0, got inf"},
	    {0.5, 1, -1, "the horizon must be a finite number of seconds >= 0, got -1"},
	    {0.5, 1, INFINITY, "the horizon must be a finite number of seconds >= 0, got inf"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		v = (struct locus_variability){bad[i].bound, bad[i].period, bad[i].horizon, 0, 1};
		c = (void *)&c;
		CHECK_EQ_INT(locus_changes_generate(&c, &n, p, &v, &err), LOCUS_EINVAL);
		CHECK(c == NULL && n == 0);
		CHECK_EQ_STR(err.message, bad[i].message);
	}
	/* Too many changes expected: refused before drawing. */
	v = (struct locus_variability){0.5, 1e-6, 100, 0, 1};
	CHECK_EQ_INT(locus_changes_generate(&c, &n, p, &v, &err), LOCUS_ERANGE);
	CHECK(c == NULL && n == 0);
	CHECK_EQ_STR(err.message, "about 4e+08 changes expected (4 resources, horizon 100, "
				  "period 1e-06), more than 50000000: use a longer period or a "
				  "shorter horizon");
	locus_platform_destroy(p);

	/* Too many resources: 10001 processors have 50005000 pairs. */
	CHECK_EQ_INT(locus_platform_generate(&p, 10001, 1, 1, "n"), 0);
	locus_platform_set_pairs(p, 1e9, 0);
	v = (struct locus_variability){0.5, 1, 1e-3, 1, 1};
	CHECK_EQ_INT(locus_changes_generate(&c, &n, p, &v, &err), LOCUS_ERANGE);
	CHECK_EQ_STR(err.message, "50015001 resources would change, more than 50000000");
	/* Processors only are fine. */
	v.links = 0;
	CHECK_EQ_INT(locus_changes_generate(&c, &n, p, &v, &err), 0);
	CHECK(n < 100);
	free(c);
	locus_platform_destroy(p);
}

/* Each resource draws from its own stream: adding links, or taking
 * other processors away, leaves a processor's changes as they were. */
/* The seeds and draws docs/formats.md gives, computed here on their own:
 * a resource's first change is its generator's first gap and value. */
static uint64_t doc_mix(uint64_t x)
{
	uint64_t z = x + 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static const struct locus_change *first_of(const struct locus_change *c, size_t n,
					   enum locus_change_kind kind, uint32_t node,
					   uint32_t node2)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].kind == kind && c[i].node == node && c[i].node2 == node2)
			return &c[i];
	return NULL;
}

TEST(generate_matches_documented_formula)
{
	struct locus_platform *p = four_nodes();
	CHECK(p);
	locus_platform_set_pairs(p, 1e9, 0);
	struct locus_variability v = {0.7, 4, 400, 1, 0xfeedfacecafebeefull};
	struct locus_change *c;
	size_t n;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_changes_generate(&c, &n, p, &v, &err), 0);
	static const struct {
		enum locus_change_kind kind;
		uint32_t node, node2;
	} res[] = {{LOCUS_CHANGE_AVAIL, 0, LOCUS_NONE},
		   {LOCUS_CHANGE_AVAIL, 3, LOCUS_NONE},
		   {LOCUS_CHANGE_LINK, 1, 3}};
	for (size_t i = 0; i < sizeof res / sizeof res[0]; i++) {
		uint64_t s = doc_mix(
		    doc_mix(doc_mix(doc_mix(v.seed) ^ (uint64_t)res[i].kind) ^ res[i].node) ^
		    res[i].node2);
		struct locus_rng rng;
		locus_rng_init(&rng, s);
		double t = -v.period * log(1 - locus_rng_uniform(&rng));
		double value = 1 - v.bound * locus_rng_uniform(&rng);
		const struct locus_change *f =
		    first_of(c, n, res[i].kind, res[i].node, res[i].node2);
		CHECK(f && t < v.horizon);
		CHECK(f->time == t && f->value == value);
	}
	free(c);
	locus_platform_destroy(p);
}

TEST(generate_streams_are_per_resource)
{
	struct locus_platform *p = four_nodes();
	CHECK(p);
	struct locus_variability v = {0.9, 5, 500, 0, 2024};
	struct locus_change *procs, *all, *fewer;
	size_t np, na, nf;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_changes_generate(&procs, &np, p, &v, &err), 0);
	v.links = 1;
	CHECK_EQ_INT(locus_changes_generate(&all, &na, p, &v, &err), 0);
	CHECK(na > np && np > 0);
	size_t k = 0;
	for (size_t i = 0; i < na; i++) {
		if (all[i].kind != LOCUS_CHANGE_AVAIL)
			continue;
		CHECK(k < np);
		CHECK(memcmp(&all[i], &procs[k], sizeof *all) == 0);
		k++;
	}
	CHECK_EQ_INT(k, np);
	/* n01 stores only now: n02..n04 keep their changes. */
	p->nodes[0].cores = 0;
	v.links = 0;
	CHECK_EQ_INT(locus_changes_generate(&fewer, &nf, p, &v, &err), 0);
	k = 0;
	for (size_t i = 0; i < np; i++) {
		if (procs[i].node == 0)
			continue;
		CHECK(k < nf);
		CHECK(memcmp(&procs[i], &fewer[k], sizeof *procs) == 0);
		k++;
	}
	CHECK_EQ_INT(k, nf);
	free(procs);
	free(all);
	free(fewer);
	locus_platform_destroy(p);
}

/* Contention-free platforms change per pair of processors, shared ones
 * per node's interface. */
TEST(generate_links_by_network)
{
	struct locus_platform *p = four_nodes();
	CHECK(p);
	p->nodes[3].cores = 0;
	struct locus_variability v = {0.5, 1, 200, 1, 5};
	struct locus_change *c;
	size_t n;
	struct locus_error err = {0};

	CHECK_EQ_INT(locus_changes_generate(&c, &n, p, &v, &err), 0);
	CHECK(well_formed(c, n, p, &v));
	CHECK_EQ_INT(count_kind(c, n, LOCUS_CHANGE_LINK), 0);
	int seen[4] = {0};
	for (size_t i = 0; i < n; i++)
		if (c[i].kind == LOCUS_CHANGE_BANDWIDTH)
			seen[c[i].node] = 1;
	/* Every node's interface, the storage node's too. */
	CHECK(seen[0] && seen[1] && seen[2] && seen[3]);
	free(c);

	locus_platform_set_pairs(p, 1e9, 1e-4);
	CHECK_EQ_INT(locus_changes_generate(&c, &n, p, &v, &err), 0);
	CHECK(well_formed(c, n, p, &v));
	CHECK_EQ_INT(count_kind(c, n, LOCUS_CHANGE_BANDWIDTH), 0);
	int pair[4][4] = {{0}};
	for (size_t i = 0; i < n; i++)
		if (c[i].kind == LOCUS_CHANGE_LINK)
			pair[c[i].node][c[i].node2] = 1;
	/* The three pairs of processors, none with the storage node. */
	CHECK(pair[0][1] && pair[0][2] && pair[1][2]);
	CHECK(!pair[0][3] && !pair[1][3] && !pair[2][3]);
	CHECK(count_kind(c, n, LOCUS_CHANGE_LINK) > 3 * 200 - 5 * sqrt(600.0));
	free(c);
	locus_platform_destroy(p);
}

/* A generated scenario merged with a --fail spec and a file's changes
 * stays sorted. */
TEST(generate_merge_and_fail)
{
	struct locus_platform *p = four_nodes();
	CHECK(p);
	struct locus_variability v = {0.4, 3, 60, 1, 9};
	struct locus_change *g, *m, f[2];
	size_t ng, nm;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_changes_generate(&g, &ng, p, &v, &err), 0);
	int k = locus_change_parse_fail(f, p, "n02@20+15", &err);
	CHECK_EQ_INT(k, 2);
	CHECK_EQ_INT(locus_changes_merge(&m, &nm, g, ng, f, (size_t)k), 0);
	CHECK_EQ_INT(nm, ng + 2);
	for (size_t i = 1; i < nm; i++)
		CHECK(m[i - 1].time <= m[i].time);
	CHECK_EQ_INT(count_kind(m, nm, LOCUS_CHANGE_FAIL), 1);
	CHECK_EQ_INT(count_kind(m, nm, LOCUS_CHANGE_RECOVER), 1);
	free(g);
	free(m);
	locus_platform_destroy(p);
}

TEST_MAIN(TEST_ENTRY(parse_every_kind), TEST_ENTRY(speed_trace_is_a_scenario),
	  TEST_ENTRY(parse_refuses_bad_lines), TEST_ENTRY(fail_and_recover_alternate),
	  TEST_ENTRY(keyword_node_names), TEST_ENTRY(load), TEST_ENTRY(parse_fail_specs),
	  TEST_ENTRY(merge_is_stable), TEST_ENTRY(generate_is_deterministic_and_in_range),
	  TEST_ENTRY(generate_follows_gtp), TEST_ENTRY(generate_edge_cases),
	  TEST_ENTRY(generate_matches_documented_formula),
	  TEST_ENTRY(generate_streams_are_per_resource), TEST_ENTRY(generate_links_by_network),
	  TEST_ENTRY(generate_merge_and_fail))
