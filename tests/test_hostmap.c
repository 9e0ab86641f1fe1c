/* Tests for the /etc/hosts-style host map (src/locality/hostmap.c). */
#include <stdlib.h>
#include <string.h>

#include "locus/locality.h"
#include "test.h"
#include "test_util.h"

static struct locus_hostmap *parse(const char *text)
{
	struct locus_hostmap *m = NULL;
	struct locus_error err;
	if (locus_hostmap_parse(&m, text, strlen(text), "hosts.txt", &err)) {
		char buf[800];
		fprintf(stderr, "%s\n", locus_error_format(&err, buf, sizeof buf));
		return NULL;
	}
	return m;
}

/* The fixture: first name of a line wins, aliases are not keys, ports and
 * brackets are stripped, IPv6 is matched in any spelling. */
TEST(load_fixture)
{
	struct locus_hostmap *m = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_hostmap_load(&m, test_fixture("fsck/hosts"), &err), 0);
	CHECK(m != NULL);
	CHECK_EQ_STR(locus_hostmap_lookup(m, "10.1.0.11"), "dn1.cluster.example");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "10.1.0.11:9866"), "dn1.cluster.example");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "10.1.0.12:50010"), "dn2.cluster.example");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "10.1.0.13"), "dn3.cluster.example");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "10.1.0.14:9866"), "dn4.cluster.example");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "10.2.0.21:9866"), "dn5.cluster.example");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "10.1.0.2"), "nn1.cluster.example");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "127.0.0.1"), "localhost");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "::1"), "localhost");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "[::1]:9866"), "localhost");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "[::1]"), "localhost");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "0:0:0:0:0:0:0:1"), "localhost");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "[0000:0::0:1]:1"), "localhost");
	/* Not in the map, or not an address with a well-formed port. */
	CHECK(locus_hostmap_lookup(m, "10.1.0.99") == NULL);
	CHECK(locus_hostmap_lookup(m, "dn1") == NULL);
	CHECK(locus_hostmap_lookup(m, "dn1.cluster.example") == NULL);
	CHECK(locus_hostmap_lookup(m, "") == NULL);
	CHECK(locus_hostmap_lookup(m, "10.1.0.11:") == NULL);
	CHECK(locus_hostmap_lookup(m, "10.1.0.11:port") == NULL);
	CHECK(locus_hostmap_lookup(m, "[::1") == NULL);
	CHECK(locus_hostmap_lookup(m, "[::1]x") == NULL);
	CHECK(locus_hostmap_lookup(m, " 10.1.0.11") == NULL);
	CHECK(locus_hostmap_lookup(m, NULL) == NULL);
	CHECK(locus_hostmap_lookup(NULL, "10.1.0.11") == NULL);
	locus_hostmap_destroy(m);
	locus_hostmap_destroy(NULL);
}

TEST(load_missing_file)
{
	struct locus_hostmap *m = (struct locus_hostmap *)&m;
	struct locus_error err;
	locus_error_clear(&err);
	int rc = locus_hostmap_load(&m, test_fixture("fsck/no-such-hosts"), &err);
	CHECK(rc < 0);
	CHECK_EQ_INT(err.code, rc);
	CHECK(m == NULL);
}

/* Comments anywhere, blank lines, tabs, CRLF, no final newline, and the
 * first of two lines for one address wins. */
TEST(layout)
{
	struct locus_hostmap *m = parse("# header comment\r\n"
					"\r\n"
					"   \t  \r\n"
					"10.0.0.1\tdn1   dn1-alias\t# trailing comment\r\n"
					"  10.0.0.2 dn2#comment right after the name\n"
					"10.0.0.1 other\n"
					"fd00::3 dn3\n"
					"10.0.0.4 dn4");
	CHECK(m != NULL);
	CHECK_EQ_STR(locus_hostmap_lookup(m, "10.0.0.1:1"), "dn1");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "10.0.0.2"), "dn2");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "[fd00:0::3]:9866"), "dn3");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "FD00::3"), "dn3");
	CHECK_EQ_STR(locus_hostmap_lookup(m, "10.0.0.4"), "dn4");
	CHECK(locus_hostmap_lookup(m, "dn1-alias") == NULL);
	locus_hostmap_destroy(m);

	m = parse("");
	CHECK(m != NULL);
	CHECK(locus_hostmap_lookup(m, "10.0.0.1") == NULL);
	locus_hostmap_destroy(m);

	m = parse("# only comments\n\n#\n");
	CHECK(m != NULL);
	locus_hostmap_destroy(m);
}

/* The parser reads `len` bytes and no further: the text need not end with
 * a NUL. */
TEST(length_bounded)
{
	static const char text[] = "10.0.0.1 a\n10.0.0.2 b\n";
	char *copy = malloc(11);
	CHECK(copy != NULL);
	memcpy(copy, text, 11); /* "10.0.0.1 a\n", no NUL */
	struct locus_hostmap *m = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_hostmap_parse(&m, copy, 11, "t", &err), 0);
	free(copy);
	CHECK_EQ_STR(locus_hostmap_lookup(m, "10.0.0.1"), "a");
	CHECK(locus_hostmap_lookup(m, "10.0.0.2") == NULL);
	locus_hostmap_destroy(m);

	/* A name cut short by the length is still a name. */
	CHECK_EQ_INT(locus_hostmap_parse(&m, text, 9 + 1, "t", &err), 0);
	CHECK_EQ_STR(locus_hostmap_lookup(m, "10.0.0.1"), "a");
	locus_hostmap_destroy(m);
}

/* Parses `text`, expecting LOCUS_EPARSE at `line`:`col` with `needle` in
 * the message. */
static int bad(const char *text, size_t len, long line, long col, const char *needle)
{
	struct locus_hostmap *m = (struct locus_hostmap *)&m;
	struct locus_error err;
	locus_error_clear(&err);
	int rc = locus_hostmap_parse(&m, text, len, "hosts.txt", &err);
	if (rc != LOCUS_EPARSE || m != NULL || err.code != rc || err.line != line ||
	    err.column != col || strcmp(err.file, "hosts.txt") != 0 ||
	    !strstr(err.message, needle)) {
		fprintf(stderr,
			"unexpected: rc %d, line %ld col %ld, \"%s\" (want %ld:%ld \"%s\")\n", rc,
			err.line, err.column, err.message, line, col, needle);
		return 0;
	}
	return 1;
}

#define BAD(text, line, col, needle) bad(text, strlen(text), line, col, needle)

TEST(errors)
{
	CHECK(BAD("10.0.0.1\n", 1, 9, "expected a host name after the address"));
	CHECK(BAD("10.0.0.1   # no name\n", 1, 12, "expected a host name"));
	CHECK(BAD("# c\n\n10.0.0.x host\n", 3, 8, "expected an IPv4 or IPv6 address"));
	CHECK(BAD("dn1 10.0.0.1\n", 1, 2, "expected an IPv4 or IPv6 address"));
	CHECK(BAD("300.1.1.1 h\n", 1, 1, "expected an IPv4 or IPv6 address, got \"300.1.1.1\""));
	CHECK(BAD("10.0.0.1.5 h\n", 1, 1, "IPv4 or IPv6"));
	CHECK(BAD("10.0.0.1 ok\n1:2:3 x\n", 2, 1, "IPv4 or IPv6"));
	CHECK(BAD("10.0.0.1 h@st\n", 1, 11, "expected a host name (letters"));
	CHECK(BAD("10.0.0.1 ok bad/alias\n", 1, 16, "expected a host name"));
	CHECK(bad("10.0.0.1 a\0b\n", 13, 1, 11, "expected a host name"));
	CHECK(bad("10.0.\0.1 a\n", 11, 1, 6, "expected an IPv4 or IPv6 address"));
}

TEST_MAIN(TEST_ENTRY(load_fixture), TEST_ENTRY(load_missing_file), TEST_ENTRY(layout),
	  TEST_ENTRY(length_bounded), TEST_ENTRY(errors))
