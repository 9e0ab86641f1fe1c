/* Tests for Slurm's compressed host lists (src/locality/hostlist.c), on
 * the forms Slurm's documentation gives (scontrol show hostnames,
 * SLURM_JOB_NODELIST). */
#include <stdlib.h>
#include <string.h>

#include "locus/locality.h"
#include "test.h"
#include "test_util.h"

/* Expands `text` and joins the names with spaces into buf; "" with the
 * error message after "ERR " when it is refused. */
static const char *expand(const char *text, char *buf, size_t size)
{
	char **names = NULL;
	size_t n = 0;
	struct locus_error err;
	buf[0] = 0;
	if (locus_hostlist_expand(text, strlen(text), "SLURM_JOB_NODELIST", &names, &n, &err)) {
		if (names || n)
			return "ERR left names behind";
		snprintf(buf, size, "ERR %ld:%ld %s", err.line, err.column, err.message);
		return buf;
	}
	size_t at = 0;
	for (size_t i = 0; i < n; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? " " : "", names[i]);
	locus_hostlist_free(names, n);
	return buf;
}

#define EXPANDS(text, want) CHECK_EQ_STR(expand(text, buf, sizeof buf), want)

TEST(forms)
{
	char buf[4096];
	EXPANDS("vm", "vm");
	EXPANDS("n1,n2,login.example.org", "n1 n2 login.example.org");
	/* Ranges and single numbers in one bracket, widths kept. */
	EXPANDS("n[01-04,07]", "n01 n02 n03 n04 n07");
	EXPANDS("tux[1-3]", "tux1 tux2 tux3");
	EXPANDS("tux[8-11]", "tux8 tux9 tux10 tux11");
	EXPANDS("tux[008-011]", "tux008 tux009 tux010 tux011");
	EXPANDS("n[0]", "n0");
	EXPANDS("n[00]", "n00");
	/* Several expressions, and text after a bracket. */
	EXPANDS("a[1-2],b[3,5]x,c", "a1 a2 b3x b5x c");
	/* Several brackets: every combination, the last fastest. */
	EXPANDS("rack[1-2]-n[1-3]", "rack1-n1 rack1-n2 rack1-n3 rack2-n1 rack2-n2 rack2-n3");
	/* A name that is only a bracket (Slurm allows a numeric node name). */
	EXPANDS("[1-2]", "1 2");
	/* Duplicates stay: the list's own order. */
	EXPANDS("n1,n[1-2]", "n1 n1 n2");
}

TEST(length_bounded)
{
	/* Reads len bytes and no further. */
	char **names = NULL;
	size_t n = 0;
	struct locus_error err;
	CHECK_EQ_INT(locus_hostlist_expand("n[1-2],garbage[", 6, NULL, &names, &n, &err), 0);
	CHECK_EQ_INT((int)n, 2);
	CHECK_EQ_STR(names[1], "n2");
	locus_hostlist_free(names, n);
}

TEST(big)
{
	char **names = NULL;
	size_t n = 0;
	struct locus_error err;
	const char *t = "c[0001-4096]";
	CHECK_EQ_INT(locus_hostlist_expand(t, strlen(t), NULL, &names, &n, &err), 0);
	CHECK_EQ_INT((int)n, 4096);
	CHECK_EQ_STR(names[0], "c0001");
	CHECK_EQ_STR(names[4095], "c4096");
	locus_hostlist_free(names, n);
}

TEST(errors)
{
	char buf[4096];
	EXPANDS("", "ERR 1:1 expected a host name");
	EXPANDS("n[1-3", "ERR 1:6 expected ']' before the end");
	EXPANDS("n[]", "ERR 1:3 expected a number of at most 9 digits in the brackets");
	EXPANDS("n[3-1]", "ERR 1:3 the range 3-1 runs backwards");
	EXPANDS("n[1-]", "ERR 1:5 expected the number that ends the range");
	EXPANDS("n[1;2]", "ERR 1:4 expected ',', '-' or ']' in the brackets");
	EXPANDS("n1,,n2", "ERR 1:4 expected a host name");
	EXPANDS("n1,", "ERR 1:4 expected a host name after ','");
	EXPANDS("n 1", "ERR 1:2 expected a host name character, '[' or ','");
	EXPANDS("n[1234567890]", "ERR 1:3 expected a number of at most 9 digits in the brackets");
	EXPANDS("n[0-999999999]", "ERR 1:3 more than 1000000 names");
	EXPANDS("a[0-999]b[0-9999]", "ERR 0:0 more than 1000000 names");
	EXPANDS("a[1][1][1][1][1][1][1][1][1]", "ERR 1:26 at most 8 brackets in a name");
}

TEST_MAIN(TEST_ENTRY(forms), TEST_ENTRY(length_bounded), TEST_ENTRY(big), TEST_ENTRY(errors))
