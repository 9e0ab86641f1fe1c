/*
 * The two trace formats of a simulation (docs/formats.md): speed traces
 * ("TIME NODE SPEED" lines against a platform) and work traces (one task
 * time per line), read exactly, and refused with line and column.
 */
#include <string.h>

#include "locus/locus.h"
#include "test.h"

static struct locus_platform *four_nodes(void)
{
	struct locus_platform *p = NULL;
	locus_platform_generate(&p, 4, 1, 1, "n");
	return p;
}

static int speed_fails(const struct locus_platform *p, const char *text, long line, long col,
		       const char *msg)
{
	struct locus_speed_change *sc = (void *)&sc;
	size_t n = 7;
	struct locus_error err = {0};
	int rc = locus_speed_trace_parse(&sc, &n, p, text, strlen(text), "t.txt", &err);
	int ok = rc == LOCUS_EPARSE && sc == NULL && n == 0 && err.line == line &&
		 err.column == col && strstr(err.message, msg) != NULL;
	if (!ok)
		fprintf(stderr, "  rc %d line %ld col %ld: %s\n", rc, err.line, err.column,
			err.message);
	return ok;
}

TEST(speed_trace_reads_exactly)
{
	struct locus_platform *p = four_nodes();
	CHECK(p);
	const char *text = "# node speeds\n"
			   "0 n01 0.5\n"
			   "\n"
			   "  2.5\tn03   2\r\n"
			   "2.5 N01.example.org 1e0\n";
	struct locus_speed_change *sc;
	size_t n;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_speed_trace_parse(&sc, &n, p, text, strlen(text), "t", &err), 0);
	CHECK_EQ_INT(n, 3);
	CHECK(sc[0].time == 0 && sc[0].node == 0 && sc[0].speed == 0.5);
	CHECK(sc[1].time == 2.5 && sc[1].node == 2 && sc[1].speed == 2);
	/* Host names match as everywhere: case and domain. */
	CHECK(sc[2].time == 2.5 && sc[2].node == 0 && sc[2].speed == 1);
	free(sc);
	CHECK_EQ_INT(locus_speed_trace_parse(&sc, &n, p, "", 0, "t", &err), 0);
	CHECK_EQ_INT(n, 0);
	free(sc);
	locus_platform_destroy(p);
}

TEST(speed_trace_refuses_bad_lines)
{
	struct locus_platform *p = four_nodes();
	CHECK(p);
	CHECK(speed_fails(p, "1 n01\n", 1, 1, "expected \"TIME NODE SPEED\""));
	CHECK(speed_fails(p, "0 n01 1\n1 n02 1 extra\n", 2, 0, "(4 fields)"));
	CHECK(speed_fails(p, "x n01 1\n", 1, 1, "a time in seconds >= 0"));
	CHECK(speed_fails(p, "-1 n01 1\n", 1, 1, "a time in seconds >= 0"));
	CHECK(speed_fails(p, "inf n01 1\n", 1, 1, "a time in seconds >= 0"));
	CHECK(speed_fails(p, "1 n01 0\n", 1, 7, "a speed in [1e-06, 1e+06]"));
	CHECK(speed_fails(p, "1 n01 nan\n", 1, 7, "a speed in [1e-06, 1e+06]"));
	/* The platform's limits (issue 16, item 17). */
	CHECK(speed_fails(p, "1 n01 1e-300\n", 1, 7, "a speed in [1e-06, 1e+06]"));
	CHECK(speed_fails(p, "1 n01 2e6\n", 1, 7, "a speed in [1e-06, 1e+06]"));
	CHECK(speed_fails(p, "# c\n1 n9 1\n", 2, 3, "no node \"n9\""));
	CHECK(speed_fails(p, "2 n01 1\n 1 n02 1\n", 2, 2, "times must not decrease (1 after 2)"));
	locus_platform_destroy(p);
}

TEST(work_trace)
{
	const char *text = "# seconds per task\n1.5\n\n  0\t\n2e-3\n";
	double *v;
	size_t n;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_work_trace_parse(&v, &n, text, strlen(text), "w", &err), 0);
	CHECK_EQ_INT(n, 3);
	CHECK(v[0] == 1.5 && v[1] == 0 && v[2] == 2e-3);
	free(v);
	static const struct {
		const char *text;
		long line, col;
	} bad[] = {{"1\n-2\n", 2, 1},
		   {"1\n 2 3\n", 2, 2},
		   {"abc\n", 1, 1},
		   {"1\n\n  1e999\n", 3, 3},
		   {"# nothing\n", 1, 0}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		v = (double *)&v;
		CHECK_EQ_INT(
		    locus_work_trace_parse(&v, &n, bad[i].text, strlen(bad[i].text), "w", &err),
		    LOCUS_EPARSE);
		CHECK(v == NULL && n == 0);
		CHECK_EQ_INT(err.line, bad[i].line);
		CHECK_EQ_INT(err.column, bad[i].col);
	}
}

TEST(work_specs)
{
	struct locus_work_spec w;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_work_spec_parse(&w, "uniform:1:3", &err), 0);
	CHECK(w.dist == LOCUS_WORK_UNIFORM && w.lo == 1 && w.hi == 3);
	CHECK_EQ_INT(locus_work_spec_parse(&w, "per-mib:0.002", &err), 0);
	CHECK(w.dist == LOCUS_WORK_PER_BYTE && w.mean == 0.002);
	static const char *const bad[] = {"fixed",   "fixed:",	    "fixed:-1",
					  "exp:0",   "uniform:3:1", "uniform:1",
					  "gauss:1", "fixed:1:2",   "trace:/nonexistent/trace"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK(locus_work_spec_parse(&w, bad[i], &err) != 0);
}

TEST_MAIN(TEST_ENTRY(speed_trace_reads_exactly), TEST_ENTRY(speed_trace_refuses_bad_lines),
	  TEST_ENTRY(work_trace), TEST_ENTRY(work_specs))
