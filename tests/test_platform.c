/* Platforms: exact reading of the fixtures, save/load round trips, the
 * host-name matching rule, generated names, and every kind of bad input
 * with the code and the message it must give. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

/* Parses `text` from a buffer of exactly its length, with no NUL after it,
 * so that a reader relying on a terminator reads out of bounds (which the
 * sanitizer build reports). */
static int parse(const char *text, struct locus_platform **out, struct locus_error *err)
{
	size_t len = strlen(text);
	char *copy = malloc(len ? len : 1);
	int rc;

	if (!copy)
		abort();
	memcpy(copy, text, len);
	locus_error_clear(err);
	rc = locus_platform_parse(out, copy, len, "test.json", err);
	free(copy);
	return rc;
}

/* Parses text that must fail with LOCUS_EPARSE and the exact message. */
static int fails_with(const char *text, const char *message)
{
	struct locus_platform *p = (struct locus_platform *)&p; /* not NULL */
	struct locus_error err;
	int rc = parse(text, &p, &err);

	if (rc != LOCUS_EPARSE || p != NULL || err.code != LOCUS_EPARSE ||
	    strcmp(err.file, "test.json") != 0 || strcmp(err.message, message) != 0) {
		fprintf(stderr, "  rc %d, file \"%s\", message:\n    %s\n  expected:\n    %s\n", rc,
			err.file, err.message, message);
		locus_platform_destroy(p == (struct locus_platform *)&p ? NULL : p);
		return 0;
	}
	return 1;
}

/* A version-1 document around `nodes`, the JSON text of the nodes array. */
static const char *doc(const char *nodes)
{
	static char buf[4096];
	snprintf(buf, sizeof buf, "{\"format\": \"locus-platform\", \"version\": 1, \"nodes\": %s}",
		 nodes);
	return buf;
}

static int node_is(const struct locus_node *n, const char *name, const char *rack, int cores,
		   double speed, double disk_bw, double net_bw)
{
	int ok = strcmp(n->name, name) == 0 && strcmp(n->rack, rack) == 0 && n->cores == cores &&
		 n->speed == speed && n->disk_bw == disk_bw && n->net_bw == net_bw;
	if (!ok)
		fprintf(stderr,
			"  node %s %s %d %.17g %.17g %.17g, expected %s %s %d %.17g %.17g %.17g\n",
			n->name, n->rack, n->cores, n->speed, n->disk_bw, n->net_bw, name, rack,
			cores, speed, disk_bw, net_bw);
	return ok;
}

static int platforms_equal(const struct locus_platform *a, const struct locus_platform *b)
{
	if (a->n_nodes != b->n_nodes || a->latency != b->latency ||
	    a->backbone_bw != b->backbone_bw || a->rack_bw != b->rack_bw)
		return 0;
	for (size_t i = 0; i < a->n_nodes; i++) {
		const struct locus_node *x = &a->nodes[i];
		if (!node_is(&b->nodes[i], x->name, x->rack, x->cores, x->speed, x->disk_bw,
			     x->net_bw) ||
		    b->nodes[i].max_transfers != x->max_transfers ||
		    b->nodes[i].storage != x->storage)
			return 0;
	}
	return 1;
}

/* A node that only stores data (no cores), and one that serves at most
 * two remote reads at once; both survive a save and a load. */
TEST(storage_node_and_transfer_limit)
{
	struct locus_platform *p = NULL, *q = NULL;
	struct locus_error err;
	char path[600];

	CHECK_EQ_INT(parse(doc("[{\"name\": \"store\", \"cores\": 0, \"max_transfers\": 2}, "
			       "{\"name\": \"w\", \"storage\": 16e9}]"),
			   &p, &err),
		     0);
	CHECK_EQ_INT(p->nodes[0].cores, 0);
	CHECK_EQ_INT(p->nodes[0].max_transfers, 2);
	CHECK_EQ_INT(p->nodes[1].max_transfers, 0);
	/* Local storage: a capacity in bytes, none when not given. */
	CHECK(p->nodes[0].storage == 0 && p->nodes[1].storage == 16e9);
	struct locus_platform *bad = NULL;
	CHECK(parse(doc("[{\"name\": \"w\", \"storage\": -1}]"), &bad, &err) != 0);
	CHECK(strstr(err.message, "storage") != NULL);
	CHECK_EQ_INT(locus_platform_cores(p), 1);
	snprintf(path, sizeof path, "%s/store.json", test_tmpdir());
	CHECK_EQ_INT(locus_platform_save(p, path, &err), 0);
	CHECK_EQ_INT(locus_platform_load(&q, path, &err), 0);
	CHECK(platforms_equal(p, q));
	locus_platform_destroy(p);
	locus_platform_destroy(q);
}

TEST(small_fixture)
{
	struct locus_platform *p = NULL;
	struct locus_error err;

	CHECK_EQ_INT(locus_platform_load(&p, test_fixture("platform/small.json"), &err), 0);
	CHECK_EQ_INT(p->n_nodes, 7);
	CHECK(p->latency == 5e-05);
	CHECK(p->backbone_bw == 1.25e10);
	CHECK(p->rack_bw == 1.25e9);
	CHECK(node_is(&p->nodes[0], "n01", "/rack-a", 4, 2.0, 2e8, 1.25e9));
	/* Everything from "defaults". */
	CHECK(node_is(&p->nodes[1], "n02", "/rack-a", 2, 1.0, 1e8, 1.25e8));
	CHECK(node_is(&p->nodes[2], "n03.example.org", "/rack-b", 2, 0.5, 1e8, 1.25e8));
	CHECK(node_is(&p->nodes[3], "c001", "/rack-c", 8, 1.0, 1e8, 1.25e8));
	CHECK(node_is(&p->nodes[4], "c002", "/rack-c", 8, 1.0, 1e8, 1.25e8));
	CHECK(node_is(&p->nodes[5], "c003", "/rack-c", 8, 1.0, 1e8, 1.25e8));
	CHECK(node_is(&p->nodes[6], "c004", "/rack-c", 8, 1.0, 1e8, 1.25e8));
	CHECK_EQ_INT(locus_platform_cores(p), 4 + 2 + 2 + 4 * 8);
	locus_platform_destroy(p);
}

TEST(ranges_fixture)
{
	struct locus_platform *p = NULL;
	struct locus_error err;
	char name[16];

	CHECK_EQ_INT(locus_platform_load(&p, test_fixture("platform/ranges.json"), &err), 0);
	CHECK_EQ_INT(p->n_nodes, 64 + 3 + 3);
	/* No "network": the built-in latency and no backbone cap. */
	CHECK(p->latency == LOCUS_DEFAULT_LATENCY);
	CHECK(p->backbone_bw == 0);
	for (int i = 0; i < 64; i++) {
		snprintf(name, sizeof name, "c%03d", i + 1);
		CHECK(node_is(&p->nodes[i], name, "/rack-b", 1, 0.5, LOCUS_DEFAULT_DISK_BW,
			      LOCUS_DEFAULT_NET_BW));
	}
	/* No "width": no padding; no "defaults": the built-in ones. */
	CHECK(node_is(&p->nodes[64], "gpu-9", "/default-rack", 16, 1.0, 2e9, LOCUS_DEFAULT_NET_BW));
	CHECK(
	    node_is(&p->nodes[65], "gpu-10", "/default-rack", 16, 1.0, 2e9, LOCUS_DEFAULT_NET_BW));
	CHECK(
	    node_is(&p->nodes[66], "gpu-11", "/default-rack", 16, 1.0, 2e9, LOCUS_DEFAULT_NET_BW));
	CHECK(node_is(&p->nodes[67], "dn01.example.org", "/dc1/rack-z", 1, 1.0,
		      LOCUS_DEFAULT_DISK_BW, 1.25e9));
	CHECK(node_is(&p->nodes[69], "dn03.example.org", "/dc1/rack-z", 1, 1.0,
		      LOCUS_DEFAULT_DISK_BW, 1.25e9));
	CHECK_EQ_INT(locus_platform_find(p, "c064"), 63);
	CHECK_EQ_INT(locus_platform_find(p, "dn02"), 68);
	CHECK_EQ_INT(locus_platform_cores(p), 64 + 3 * 16 + 3);
	locus_platform_destroy(p);
}

TEST(save_load_round_trip)
{
	struct locus_platform *p = NULL, *q = NULL;
	struct locus_error err;
	char path[600];
	size_t n1, n2;

	snprintf(path, sizeof path, "%s/p.json", test_tmpdir());
	CHECK_EQ_INT(locus_platform_load(&p, test_fixture("platform/small.json"), &err), 0);
	/* Values whose shortest decimal form needs 16 or 17 digits. */
	p->nodes[1].speed = 0.1;
	p->nodes[2].speed = 1.0 / 3.0;
	p->nodes[3].disk_bw = 123456789.123;
	p->nodes[4].net_bw = 9.876543210987654e17;
	p->latency = 1e-7;
	CHECK_EQ_INT(locus_platform_save(p, path, &err), 0);
	CHECK_EQ_INT(locus_platform_load(&q, path, &err), 0);
	CHECK(platforms_equal(p, q));

	/* Canonical: saving what was loaded gives the same bytes. */
	char *t1 = test_slurp(path, &n1);
	CHECK_EQ_INT(locus_platform_save(q, path, &err), 0);
	char *t2 = test_slurp(path, &n2);
	CHECK(t1 && t2 && n1 == n2 && memcmp(t1, t2, n1) == 0);
	free(t1);
	free(t2);
	locus_platform_destroy(p);
	locus_platform_destroy(q);
}

TEST(save_text_is_canonical)
{
	struct locus_platform *p = NULL;
	struct locus_error err;
	char path[600];

	snprintf(path, sizeof path, "%s/one.json", test_tmpdir());
	CHECK_EQ_INT(
	    parse(doc("[{\"name\": \"n\\\"1\", \"speed\": 0.5, \"disk_bw\": 2.5e8}]"), &p, &err),
	    0);
	CHECK_EQ_STR(p->nodes[0].name, "n\"1");
	CHECK_EQ_INT(locus_platform_save(p, path, &err), 0);
	char *text = test_slurp(path, NULL);
	CHECK_EQ_STR(text, "{\n"
			   "  \"format\": \"locus-platform\",\n"
			   "  \"network\": {\n"
			   "    \"backbone_bw\": 0,\n"
			   "    \"latency\": 5e-05,\n"
			   "    \"rack_bw\": 0\n"
			   "  },\n"
			   "  \"nodes\": [\n"
			   "    {\n"
			   "      \"cores\": 1,\n"
			   "      \"disk_bw\": 250000000,\n"
			   "      \"max_transfers\": 0,\n"
			   "      \"name\": \"n\\\"1\",\n"
			   "      \"net_bw\": 125000000,\n"
			   "      \"rack\": \"/default-rack\",\n"
			   "      \"speed\": 0.5\n"
			   "    }\n"
			   "  ],\n"
			   "  \"version\": 1\n"
			   "}\n");
	free(text);
	locus_platform_destroy(p);
}

TEST(save_refuses_invalid)
{
	struct locus_platform *p = NULL;
	struct locus_error err;
	char path[600];
	struct stat st;

	snprintf(path, sizeof path, "%s/bad.json", test_tmpdir());
	CHECK_EQ_INT(locus_platform_generate(&p, 3, 1, 1, "n"), 0);
	p->nodes[1].speed = 0;
	CHECK_EQ_INT(locus_platform_save(p, path, &err), LOCUS_EINVAL);
	CHECK_EQ_STR(err.message, "node 1: speed is not in [1e-06, 1e+06]");
	CHECK(stat(path, &st) != 0);
	/* What the reader would refuse is not written (issue 16, item 17). */
	p->nodes[1].speed = 1e-300;
	CHECK_EQ_INT(locus_platform_save(p, path, &err), LOCUS_EINVAL);
	CHECK_EQ_STR(err.message, "node 1: speed is not in [1e-06, 1e+06]");
	p->nodes[1].speed = 1;
	p->latency = 1e300;
	CHECK_EQ_INT(locus_platform_save(p, path, &err), LOCUS_EINVAL);
	CHECK_EQ_STR(err.message, "the latency must lie in [0, 1000] seconds, got 1e+300");
	p->latency = 0;
	CHECK(stat(path, &st) != 0);
	p->nodes[1].speed = 1;
	free(p->nodes[2].name);
	p->nodes[2].name = strdup("N01.example.org");
	CHECK_EQ_INT(locus_platform_save(p, path, &err), LOCUS_EINVAL);
	CHECK_EQ_STR(err.message, "nodes 0 and 2 name the same host");
	CHECK(stat(path, &st) != 0);
	locus_platform_destroy(p);
}

TEST(host_match_rules)
{
	CHECK(locus_host_match("dn1", "dn1"));
	CHECK(locus_host_match("DN1", "dn1"));
	CHECK(locus_host_match("dn1", "dn1.example.org"));
	CHECK(locus_host_match("dn1.example.org", "dn1"));
	CHECK(locus_host_match("Dn1.Example.ORG", "dn1.example.org"));
	CHECK(locus_host_match("dn1", "DN1.example.org"));
	/* Both qualified: the whole names must agree. */
	CHECK(!locus_host_match("dn1.a.org", "dn1.b.org"));
	/* The host part must be all of the other name, not a prefix. */
	CHECK(!locus_host_match("dn1", "dn10.example.org"));
	CHECK(!locus_host_match("dn10", "dn1.example.org"));
	CHECK(!locus_host_match("dn1", "dn2"));
	CHECK(!locus_host_match("dn1", "dn"));
	CHECK(!locus_host_match("", ""));
	CHECK(!locus_host_match(NULL, "dn1"));
	CHECK(!locus_host_match("dn1", NULL));
}

TEST(find_uses_the_matching_rule)
{
	static const char *queries[] = {"n01",
					"N01",
					"n01.example.org",
					"n02",
					"n02.other.net",
					"n03",
					"n03.example.org",
					"N03.EXAMPLE.ORG",
					"n03.other.net",
					"c004",
					"c005",
					"c00",
					"",
					"n01.",
					"compute-7",
					"compute-7.b.org",
					"compute-7.c.org"};
	static const long expect[] = {0, 0, 0, 1, 1, 2, 2, 2, -1, 6, -1, -1, -1, 0, 7, 8, -1};
	struct locus_platform *p = NULL, noindex;
	struct locus_error err;

	CHECK_EQ_INT(
	    parse(doc("[{\"name\": \"n01\"}, {\"name\": \"N02\"},"
		      " {\"name\": \"n03.example.org\"},"
		      " {\"range\": {\"prefix\": \"c\", \"from\": 1, \"to\": 4, \"width\": 3}},"
		      " {\"name\": \"compute-7.a.org\"}, {\"name\": \"compute-7.b.org\"}]"),
		  &p, &err),
	    0);
	CHECK_EQ_INT(p->n_nodes, 9);
	/* With the index, and by the scan a hand-built platform gets. */
	noindex = *p;
	noindex.index = NULL;
	for (size_t i = 0; i < sizeof queries / sizeof *queries; i++) {
		if (locus_platform_find(p, queries[i]) != expect[i] ||
		    locus_platform_find(&noindex, queries[i]) != expect[i]) {
			fprintf(stderr, "  find(\"%s\"): %ld / %ld, expected %ld\n", queries[i],
				locus_platform_find(p, queries[i]),
				locus_platform_find(&noindex, queries[i]), expect[i]);
			CHECK(0);
		}
	}
	CHECK_EQ_INT(locus_platform_find(p, NULL), -1);
	CHECK_EQ_INT(locus_platform_find(NULL, "n01"), -1);
	locus_platform_destroy(p);
}

TEST(find_long_names)
{
	struct locus_platform *p = NULL;
	struct locus_error err;
	char name[400], json[600];

	/* Longer than the index's stack buffer. */
	memset(name, 'a', 300);
	strcpy(name + 300, ".example.org");
	snprintf(json, sizeof json, "[{\"name\": \"%s\"}]", name);
	CHECK_EQ_INT(parse(doc(json), &p, &err), 0);
	CHECK_EQ_INT(locus_platform_find(p, name), 0);
	name[0] = 'A';
	CHECK_EQ_INT(locus_platform_find(p, name), 0);
	name[300] = 0;
	CHECK_EQ_INT(locus_platform_find(p, name), 0);
	locus_platform_destroy(p);
}

TEST(generate_names_and_racks)
{
	struct locus_platform *p = NULL;

	CHECK_EQ_INT(locus_platform_generate(&p, 10, 3, 4, "n"), 0);
	CHECK_EQ_INT(p->n_nodes, 10);
	CHECK(node_is(&p->nodes[0], "n01", "/rack-1", 4, 1.0, LOCUS_DEFAULT_DISK_BW,
		      LOCUS_DEFAULT_NET_BW));
	CHECK(node_is(&p->nodes[1], "n02", "/rack-2", 4, 1.0, LOCUS_DEFAULT_DISK_BW,
		      LOCUS_DEFAULT_NET_BW));
	CHECK_EQ_STR(p->nodes[2].rack, "/rack-3");
	CHECK_EQ_STR(p->nodes[3].rack, "/rack-1");
	CHECK_EQ_STR(p->nodes[9].name, "n10");
	CHECK_EQ_STR(p->nodes[9].rack, "/rack-1");
	CHECK(p->latency == LOCUS_DEFAULT_LATENCY);
	CHECK(p->backbone_bw == 0);
	CHECK_EQ_INT(locus_platform_cores(p), 40);
	CHECK_EQ_INT(locus_platform_find(p, "n07"), 6);
	CHECK_EQ_INT(locus_platform_find(p, "N07.cluster"), 6);
	locus_platform_destroy(p);

	/* At least two digits; as many as n_nodes has. */
	CHECK_EQ_INT(locus_platform_generate(&p, 5, 1, 1, "dn"), 0);
	CHECK_EQ_STR(p->nodes[0].name, "dn01");
	CHECK_EQ_STR(p->nodes[4].name, "dn05");
	CHECK_EQ_STR(p->nodes[4].rack, "/rack-1");
	locus_platform_destroy(p);
	CHECK_EQ_INT(locus_platform_generate(&p, 100, 2, 1, "c"), 0);
	CHECK_EQ_STR(p->nodes[0].name, "c001");
	CHECK_EQ_STR(p->nodes[99].name, "c100");
	CHECK_EQ_STR(p->nodes[99].rack, "/rack-2");
	locus_platform_destroy(p);
	CHECK_EQ_INT(locus_platform_generate(&p, 1000, 7, 1, "x"), 0);
	CHECK_EQ_STR(p->nodes[0].name, "x0001");
	CHECK_EQ_STR(p->nodes[999].name, "x1000");
	CHECK_EQ_STR(p->nodes[999].rack, "/rack-6");
	locus_platform_destroy(p);

	p = (struct locus_platform *)&p;
	CHECK_EQ_INT(locus_platform_generate(&p, 0, 1, 1, "n"), LOCUS_EINVAL);
	CHECK(p == NULL);
	CHECK_EQ_INT(locus_platform_generate(&p, 4, 0, 1, "n"), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_platform_generate(&p, 4, 1, 0, "n"), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_platform_generate(&p, 4, 1, 1, "a b"), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_platform_generate(&p, 4, 1, 1, ".n"), LOCUS_EINVAL);
	CHECK(p == NULL);
}

TEST(generated_round_trip)
{
	struct locus_platform *p = NULL, *q = NULL;
	struct locus_error err;
	char path[600];

	snprintf(path, sizeof path, "%s/gen.json", test_tmpdir());
	CHECK_EQ_INT(locus_platform_generate(&p, 250, 8, 2, "node"), 0);
	CHECK_EQ_INT(locus_platform_save(p, path, &err), 0);
	CHECK_EQ_INT(locus_platform_load(&q, path, &err), 0);
	CHECK(platforms_equal(p, q));
	locus_platform_destroy(p);
	locus_platform_destroy(q);
}

TEST(syntax_error_has_line_and_column)
{
	struct locus_platform *p = NULL;
	struct locus_error err;
	char buf[600];

	/* A trailing comma: jansson stops at the '}' of line 4, column 1. */
	CHECK_EQ_INT(parse("{\n  \"format\": \"locus-platform\",\n  \"version\": 1,\n}", &p, &err),
		     LOCUS_EPARSE);
	CHECK(p == NULL);
	CHECK_EQ_STR(err.file, "test.json");
	CHECK_EQ_INT(err.line, 4);
	CHECK_EQ_INT(err.column, 1);
	CHECK(strstr(err.message, "invalid JSON: ") == err.message);
	CHECK_EQ_STR(locus_error_format(&err, buf, sizeof buf),
		     "test.json:4:1: invalid JSON: string or '}' expected near '}'");

	/* A missing value: the '}' at line 3, column 38 (jansson gives the
	 * column of the last character of the token it stopped at). */
	CHECK_EQ_INT(parse("{\"format\": \"locus-platform\",\n \"version\": 1,\n"
			   "  \"nodes\": [{\"name\": \"n01\", \"speed\": }]}",
			   &p, &err),
		     LOCUS_EPARSE);
	CHECK_EQ_INT(err.line, 3);
	CHECK_EQ_INT(err.column, 38);

	/* Duplicate keys are refused, not silently merged. */
	CHECK_EQ_INT(parse("{\"format\": \"locus-platform\", \"format\": \"x\"}", &p, &err),
		     LOCUS_EPARSE);
	CHECK(strstr(err.message, "duplicate object key") != NULL);
	CHECK_EQ_INT(err.line, 1);

	CHECK_EQ_INT(parse("", &p, &err), LOCUS_EPARSE);
	CHECK_EQ_INT(err.line, 1);
}

TEST(format_and_version)
{
	CHECK(fails_with(
	    "{\"format\": \"locus-platform\", \"version\": 2, \"nodes\": []}",
	    "version: version 2 is newer than this Locus supports (version 1); upgrade Locus"));
	/* A newer file is refused for its version, not for keys it adds. */
	CHECK(fails_with(
	    "{\"format\": \"locus-platform\", \"version\": 3, \"links\": []}",
	    "version: version 3 is newer than this Locus supports (version 1); upgrade Locus"));
	CHECK(fails_with("{\"format\": \"locus-platform\", \"version\": 0, \"nodes\": []}",
			 "version: expected 1, got 0"));
	CHECK(fails_with("{\"format\": \"locus-platform\", \"version\": \"1\", \"nodes\": []}",
			 "version: expected an integer, got \"1\""));
	CHECK(fails_with("{\"format\": \"locus-platform\", \"version\": 1.0, \"nodes\": []}",
			 "version: expected an integer, got 1.0"));
	CHECK(fails_with("{\"format\": \"locus-catalog\", \"version\": 1}",
			 "format: expected \"locus-platform\", got \"locus-catalog\""));
	CHECK(fails_with(
	    "{\"version\": 1}",
	    "missing key \"format\" (a platform file starts with \"format\": \"locus-platform\")"));
	CHECK(fails_with("{\"format\": \"locus-platform\"}",
			 "missing key \"version\" (this Locus reads version 1)"));
	CHECK(fails_with(
	    "[1, 2]", "expected a JSON object with \"format\": \"locus-platform\", got an array"));
}

TEST(unknown_keys)
{
	CHECK(
	    fails_with(doc("[{\"name\": \"n01\"}, {\"name\": \"n02\", \"sped\": 2}]"),
		       "nodes[1]: unknown key \"sped\" (did you mean \"speed\"?); allowed keys: "
		       "name, range, rack, cores, speed, disk_bw, net_bw, max_transfers, storage, "
		       "memory"));
	CHECK(fails_with("{\"format\": \"locus-platform\", \"version\": 1, \"node\": []}",
			 "unknown key \"node\" (did you mean \"nodes\"?); allowed keys: "
			 "format, version, network, defaults, nodes"));
	CHECK(fails_with("{\"format\": \"locus-platform\", \"version\": 1, "
			 "\"network\": {\"bandwidth\": 1}, \"nodes\": [{\"name\": \"a\"}]}",
			 "network: unknown key \"bandwidth\"; allowed keys: latency, backbone_bw, "
			 "rack_bw, model, link_bw, links"));
	CHECK(fails_with("{\"format\": \"locus-platform\", \"version\": 1, "
			 "\"defaults\": {\"name\": \"a\"}, \"nodes\": [{\"name\": \"a\"}]}",
			 "defaults: unknown key \"name\"; allowed keys: rack, cores, speed, "
			 "disk_bw, net_bw, max_transfers, storage, memory"));
	CHECK(fails_with(
	    doc("[{\"range\": {\"prefix\": \"c\", \"form\": 1, \"to\": 3}}]"),
	    "nodes[0].range: unknown key \"form\" (did you mean \"from\"?); allowed keys: "
	    "prefix, from, to, width, suffix"));
}

TEST(bad_types_and_ranges)
{
	CHECK(fails_with(doc("[{\"name\": \"n01\", \"cores\": \"4\"}]"),
			 "nodes[0].cores: expected an integer >= 0, got \"4\""));
	CHECK(fails_with(doc("[{\"name\": \"n01\", \"cores\": 2.5}]"),
			 "nodes[0].cores: expected an integer >= 0, got 2.5"));
	CHECK(fails_with(doc("[{\"name\": \"n01\", \"cores\": -1}]"),
			 "nodes[0].cores: expected an integer >= 0, got -1"));
	CHECK(fails_with(doc("[{\"name\": \"n01\", \"cores\": 4294967296}]"),
			 "nodes[0].cores: expected an integer >= 0, got 4294967296"));
	CHECK(fails_with(doc("[{\"name\": \"n01\", \"max_transfers\": -3}]"),
			 "nodes[0].max_transfers: expected an integer >= 0, got -3"));
	CHECK(fails_with(doc("[{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"},"
			     " {\"name\": \"d\", \"speed\": -1}]"),
			 "nodes[3].speed: expected a speed in [1e-06, 1e+06], got -1"));
	CHECK(fails_with(doc("[{\"name\": \"n01\", \"speed\": 0}]"),
			 "nodes[0].speed: expected a speed in [1e-06, 1e+06], got 0"));
	CHECK(fails_with(doc("[{\"name\": \"n01\", \"disk_bw\": null}]"),
			 "nodes[0].disk_bw: expected bytes/s in [1, 1e+18], got null"));
	CHECK(fails_with(doc("[{\"name\": \"n01\", \"net_bw\": -1.5e9}]"),
			 "nodes[0].net_bw: expected bytes/s in [1, 1e+18], got -1500000000.0"));
	CHECK(fails_with(doc("[{\"name\": 5}]"), "nodes[0].name: expected a host name (no spaces "
						 "or control characters, no leading '.'), got 5"));
	CHECK(fails_with(doc("[{\"name\": \"a b\"}]"),
			 "nodes[0].name: expected a host name (no spaces or control characters, no "
			 "leading '.'), got \"a b\""));
	CHECK(fails_with(doc("[{\"name\": \"a\", \"rack\": \"rack-a\"}]"),
			 "nodes[0].rack: expected a rack path starting with '/' and without spaces "
			 "or control characters, got \"rack-a\""));
	CHECK(fails_with(doc("[{\"name\": \"a\", \"rack\": true}]"),
			 "nodes[0].rack: expected a string, got true"));
	CHECK(fails_with(doc("[{\"name\": \"a\", \"range\": {}}]"),
			 "nodes[0]: has both \"name\" and \"range\"; a node entry takes one"));
	CHECK(fails_with(doc("[{\"cores\": 2}]"), "nodes[0]: missing key \"name\" (or \"range\")"));
	CHECK(fails_with(doc("[\"n01\"]"), "nodes[0]: expected a node object, got \"n01\""));
	CHECK(fails_with(doc("[]"), "nodes: expected at least one node, got none"));
	CHECK(fails_with(doc("{}"), "nodes: expected an array of nodes, got an object"));
	CHECK(fails_with("{\"format\": \"locus-platform\", \"version\": 1}",
			 "missing key \"nodes\""));
	CHECK(fails_with("{\"format\": \"locus-platform\", \"version\": 1, "
			 "\"network\": {\"latency\": -1}, \"nodes\": [{\"name\": \"a\"}]}",
			 "network.latency: expected seconds in [0, 1000], got -1"));
	CHECK(fails_with(
	    "{\"format\": \"locus-platform\", \"version\": 1, "
	    "\"network\": {\"backbone_bw\": \"fast\"}, \"nodes\": [{\"name\": \"a\"}]}",
	    "network.backbone_bw: expected 0 (no cap) or bytes/s in [1, 1e+18], got \"fast\""));
	CHECK(fails_with("{\"format\": \"locus-platform\", \"version\": 1, "
			 "\"defaults\": {\"cores\": -2}, \"nodes\": [{\"name\": \"a\"}]}",
			 "defaults.cores: expected an integer >= 0, got -2"));
	CHECK(fails_with(doc("[{\"range\": {\"prefix\": \"c\", \"from\": 5, \"to\": 3}}]"),
			 "nodes[0].range.to: expected an integer >= from (5), got 3"));
	CHECK(fails_with(
	    doc("[{\"range\": {\"prefix\": \"c\", \"from\": -1, \"to\": 3}}]"),
	    "nodes[0].range.from: expected an integer between 0 and 999999999999999, got -1"));
	CHECK(fails_with(doc("[{\"range\": {\"prefix\": \"c\", \"from\": 1}}]"),
			 "nodes[0].range: missing key \"to\""));
	CHECK(fails_with(
	    doc("[{\"range\": {\"prefix\": \"c\", \"from\": 1, \"to\": 2, \"width\": 21}}]"),
	    "nodes[0].range.width: expected an integer between 0 and 20, got 21"));
	CHECK(fails_with(doc("[{\"range\": {\"prefix\": \"c d\", \"from\": 1, \"to\": 2}}]"),
			 "nodes[0].range.prefix: expected the start of a host name (no spaces or "
			 "control characters, no leading '.'), got \"c d\""));
	CHECK(fails_with(doc("[{\"range\": {\"prefix\": \"c\", \"from\": 1, \"to\": 9999999}}]"),
			 "nodes[0].range: expands to 9999999 nodes, too many: a platform holds at "
			 "most 1048576"));
	CHECK(fails_with(doc("[{\"range\": [1, 2]}]"),
			 "nodes[0].range: expected an object {\"prefix\", \"from\", \"to\"[, "
			 "\"width\", \"suffix\"]}, got an array"));
}

/* The limits of the command line's options hold in the file, with the
 * JSON path of the value (issue 16, item 17): a latency of 1e300 ended a
 * run as "stalled", a speed of 1e-300 printed a 300-digit makespan. */
TEST(values_the_model_cannot_run)
{
	static const char *const net = "{\"format\": \"locus-platform\", \"version\": 1, "
				       "\"network\": {%s}, \"nodes\": [{\"name\": \"a\"}]}";
	char text[300];
	snprintf(text, sizeof text, net, "\"latency\": 1e300");
	CHECK(fails_with(text, "network.latency: expected seconds in [0, 1000], got 1e+300"));
	snprintf(text, sizeof text, net, "\"latency\": 1001");
	CHECK(fails_with(text, "network.latency: expected seconds in [0, 1000], got 1001"));
	snprintf(text, sizeof text, net, "\"rack_bw\": 0.5");
	CHECK(fails_with(text,
			 "network.rack_bw: expected 0 (no cap) or bytes/s in [1, 1e+18], got 0.5"));
	snprintf(text, sizeof text, net, "\"model\": \"contention-free\", \"link_bw\": 2e18");
	CHECK(fails_with(text, "network.link_bw: expected bytes/s in [1, 1e+18], got 2e+18"));
	CHECK(fails_with(doc("[{\"name\": \"a\", \"speed\": 1e-300}]"),
			 "nodes[0].speed: expected a speed in [1e-06, 1e+06], got 1e-300"));
	CHECK(fails_with(doc("[{\"name\": \"a\"}, {\"name\": \"b\", \"speed\": 2e6}]"),
			 "nodes[1].speed: expected a speed in [1e-06, 1e+06], got 2000000.0"));
	CHECK(fails_with(doc("[{\"name\": \"a\", \"disk_bw\": 1e-300}]"),
			 "nodes[0].disk_bw: expected bytes/s in [1, 1e+18], got 1e-300"));
	CHECK(fails_with("{\"format\": \"locus-platform\", \"version\": 1, "
			 "\"defaults\": {\"net_bw\": 0.25}, \"nodes\": [{\"name\": \"a\"}]}",
			 "defaults.net_bw: expected bytes/s in [1, 1e+18], got 0.25"));
	/* The limits themselves are taken. */
	struct locus_platform *p = NULL;
	struct locus_error err;
	CHECK_EQ_INT(parse("{\"format\": \"locus-platform\", \"version\": 1, "
			   "\"network\": {\"latency\": 1000, \"backbone_bw\": 0}, \"nodes\": "
			   "[{\"name\": \"a\", \"speed\": 1e-6, \"disk_bw\": 1, \"net_bw\": 1e18},"
			   " {\"name\": \"b\", \"speed\": 1e6}]}",
			   &p, &err),
		     0);
	locus_platform_destroy(p);
}

TEST(duplicate_names)
{
	CHECK(fails_with(doc("[{\"name\": \"n01\"}, {\"name\": \"n02\"}, {\"name\": \"n01\"}]"),
			 "nodes[2].name: duplicate node name \"n01\" (also in nodes[0])"));
	CHECK(fails_with(
	    doc("[{\"name\": \"c002\"},"
		" {\"range\": {\"prefix\": \"c\", \"from\": 1, \"to\": 3, \"width\": 3}}]"),
	    "nodes[1].range: duplicate node name \"c002\" (also in nodes[0])"));
	CHECK(fails_with(doc("[{\"name\": \"n01\"}, {\"name\": \"N01.example.org\"}]"),
			 "nodes[1].name: node name \"N01.example.org\" names the same host as "
			 "\"n01\" in nodes[0] (names match ignoring case and domain)"));
	CHECK(fails_with(doc("[{\"name\": \"n01.example.org\"}, {\"name\": \"N01\"}]"),
			 "nodes[1].name: node name \"N01\" names the same host as "
			 "\"n01.example.org\" in nodes[0] (names match ignoring case and domain)"));
	/* Two qualified names with one host part are two hosts. */
	struct locus_platform *p = NULL;
	struct locus_error err;
	CHECK_EQ_INT(parse(doc("[{\"name\": \"n01.a.org\"}, {\"name\": \"n01.b.org\"}]"), &p, &err),
		     0);
	CHECK_EQ_INT(p->n_nodes, 2);
	locus_platform_destroy(p);
}

TEST(load_errors)
{
	struct locus_platform *p = (struct locus_platform *)&p;
	struct locus_error err;
	char path[600];

	snprintf(path, sizeof path, "%s/absent.json", test_tmpdir());
	CHECK_EQ_INT(locus_platform_load(&p, path, &err), LOCUS_ENOENT);
	CHECK(p == NULL);
	CHECK_EQ_STR(err.file, path);
	/* Semantic errors of a loaded file name the file. */
	CHECK(test_write(path, doc("[{\"name\": \"n01\", \"speed\": -1}]")) == 0);
	CHECK_EQ_INT(locus_platform_load(&p, path, &err), LOCUS_EPARSE);
	CHECK_EQ_STR(err.file, path);
	CHECK_EQ_STR(err.message, "nodes[0].speed: expected a speed in [1e-06, 1e+06], got -1");
	/* No error struct: just the code. */
	CHECK_EQ_INT(locus_platform_load(&p, path, NULL), LOCUS_EPARSE);
	CHECK_EQ_INT(locus_platform_parse(&p, "{", 1, NULL, NULL), LOCUS_EPARSE);
	CHECK(p == NULL);
}

TEST(text_is_not_nul_terminated)
{
	struct locus_platform *p = NULL;
	struct locus_error err;
	const char *text = doc("[{\"name\": \"n01\"}]");
	size_t len = strlen(text);
	char *buf = malloc(len + 8);

	/* Valid JSON followed by bytes that are not part of it. */
	memcpy(buf, text, len);
	memcpy(buf + len, "garbage", 8);
	CHECK_EQ_INT(locus_platform_parse(&p, buf, len, "t", &err), 0);
	CHECK_EQ_STR(p->nodes[0].name, "n01");
	locus_platform_destroy(p);
	CHECK_EQ_INT(locus_platform_parse(&p, buf, len + 7, "t", &err), LOCUS_EPARSE);
	free(buf);
}

TEST(create_from_names)
{
	struct locus_platform *p;
	struct locus_error err = {0};
	const char *names[] = {"n1", "n2.example.org", "n3"};
	int cores[] = {2, 0, 5};
	CHECK_EQ_INT(locus_platform_create(&p, names, cores, 3, &err), 0);
	CHECK_EQ_INT(p->n_nodes, 3);
	CHECK_EQ_STR(p->nodes[1].name, "n2.example.org");
	CHECK_EQ_INT(p->nodes[2].cores, 5);
	CHECK_EQ_INT(p->nodes[1].cores, 0);
	CHECK(p->nodes[0].speed == 1.0 && p->nodes[0].disk_bw > 0 && p->nodes[0].net_bw > 0);
	CHECK_EQ_INT(locus_platform_find(p, "n2"), 1);
	locus_platform_destroy(p);
	/* Two names of one host, and a bad name, are refused. */
	const char *clash[] = {"n1", "N1.example.org"};
	CHECK_EQ_INT(locus_platform_create(&p, clash, cores, 2, &err), LOCUS_EINVAL);
	CHECK(p == NULL && strstr(err.message, "same host") != NULL);
	const char *bad[] = {"n1", "has space"};
	CHECK_EQ_INT(locus_platform_create(&p, bad, cores, 2, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "has space") != NULL);
	CHECK_EQ_INT(locus_platform_create(&p, names, cores, 0, &err), LOCUS_EINVAL);
}

/* The HEFT papers' network: a link per pair, some with their own
 * bandwidth; it reads, answers per pair, and saves back to the same text. */
TEST(contention_free_network)
{
	struct locus_platform *p = NULL, *q = NULL;
	struct locus_error err;
	char path[600];
	const char *text =
	    "{\"format\": \"locus-platform\", \"version\": 1,"
	    " \"network\": {\"model\": \"contention-free\", \"link_bw\": 2, \"latency\": 0.5,"
	    "  \"links\": [{\"nodes\": [\"c\", \"a\"], \"bw\": 8}]},"
	    " \"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"}]}";
	CHECK_EQ_INT(locus_platform_parse(&p, text, strlen(text), "t.json", &err), 0);
	CHECK_EQ_INT(p->network, LOCUS_NET_PAIRS);
	CHECK_NEAR(locus_platform_pair_bw(p, 0, 1), 2, 0);
	CHECK_NEAR(locus_platform_pair_bw(p, 2, 0), 8, 0);
	CHECK_NEAR(locus_platform_pair_bw(p, 0, 2), 8, 0);
	CHECK_NEAR(p->latency, 0.5, 0);
	snprintf(path, sizeof path, "%s/pairs.json", test_tmpdir());
	CHECK_EQ_INT(locus_platform_save(p, path, &err), 0);
	CHECK_EQ_INT(locus_platform_load(&q, path, &err), 0);
	CHECK_EQ_INT(q->network, LOCUS_NET_PAIRS);
	CHECK_EQ_INT(q->n_links, 1);
	CHECK_NEAR(locus_platform_pair_bw(q, 0, 2), 8, 0);
	CHECK_NEAR(q->link_bw, 2, 0);
	locus_platform_destroy(p);
	locus_platform_destroy(q);
	/* A shared network's pair is its narrowest resource. */
	CHECK_EQ_INT(locus_platform_generate(&p, 4, 2, 1, NULL), 0);
	p->nodes[0].disk_bw = 50;
	p->nodes[1].net_bw = 70;
	CHECK_NEAR(locus_platform_pair_bw(p, 0, 1), 50, 0);
	CHECK_NEAR(locus_platform_pair_bw(p, 1, 0), 70, 0);
	p->rack_bw = 10;
	CHECK_NEAR(locus_platform_pair_bw(p, 2, 3), 10, 0); /* different racks */
	CHECK_NEAR(locus_platform_pair_bw(p, 1, 3), 70, 0); /* one rack */
	locus_platform_destroy(p);
	CHECK(fails_with("{\"format\": \"locus-platform\", \"version\": 1, \"network\": "
			 "{\"links\": []}, \"nodes\": [{\"name\": \"a\"}]}",
			 "network.links: links of their own need \"model\": \"contention-free\""));
	CHECK(fails_with("{\"format\": \"locus-platform\", \"version\": 1, \"network\": "
			 "{\"model\": \"contention-free\", \"links\": [{\"nodes\": [\"a\", \"z\"], "
			 "\"bw\": 1}]}, \"nodes\": [{\"name\": \"a\"}]}",
			 "network.links[0].nodes: expected a node of the platform, got \"z\""));
	CHECK(
	    fails_with("{\"format\": \"locus-platform\", \"version\": 1, \"network\": "
		       "{\"model\": \"mesh\"}, \"nodes\": [{\"name\": \"a\"}]}",
		       "network.model: expected \"shared\" or \"contention-free\", got \"mesh\""));
}

TEST_MAIN(TEST_ENTRY(storage_node_and_transfer_limit), TEST_ENTRY(small_fixture),
	  TEST_ENTRY(ranges_fixture), TEST_ENTRY(save_load_round_trip),
	  TEST_ENTRY(save_text_is_canonical), TEST_ENTRY(save_refuses_invalid),
	  TEST_ENTRY(host_match_rules), TEST_ENTRY(find_uses_the_matching_rule),
	  TEST_ENTRY(find_long_names), TEST_ENTRY(generate_names_and_racks),
	  TEST_ENTRY(generated_round_trip), TEST_ENTRY(syntax_error_has_line_and_column),
	  TEST_ENTRY(format_and_version), TEST_ENTRY(unknown_keys),
	  TEST_ENTRY(bad_types_and_ranges), TEST_ENTRY(values_the_model_cannot_run),
	  TEST_ENTRY(duplicate_names), TEST_ENTRY(load_errors),
	  TEST_ENTRY(text_is_not_nul_terminated), TEST_ENTRY(create_from_names),
	  TEST_ENTRY(contention_free_network))
