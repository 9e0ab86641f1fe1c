/* WebHDFS GETFILEBLOCKLOCATIONS: exact catalogs from the fixtures, the
 * three accepted shapes, host names from names[] and a host map, and bad
 * documents with the code and message each must give. */
#include <stdint.h>
#include <string.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

/* Parses `text` from a buffer of exactly its length (no NUL after it). */
static int parse(const char *text, const char *dataset, const struct locus_hostmap *hm,
		 struct locus_catalog **out, struct locus_error *err)
{
	size_t len = strlen(text);
	char *copy = malloc(len ? len : 1);
	int rc;

	if (!copy)
		abort();
	memcpy(copy, text, len);
	locus_error_clear(err);
	rc = locus_webhdfs_parse(out, copy, len, "blocks.json", dataset, hm, err);
	free(copy);
	return rc;
}

static struct locus_catalog *load(const char *fixture, const char *dataset,
				  const struct locus_hostmap *hm)
{
	struct locus_catalog *cat = NULL;
	struct locus_error err;
	size_t len;
	char *text = test_slurp(test_fixture(fixture), &len);

	if (!text)
		return NULL;
	if (locus_webhdfs_parse(&cat, text, len, fixture, dataset, hm, &err))
		fprintf(stderr, "  %s: %s\n", fixture, err.message);
	free(text);
	return cat;
}

/* Whether chunk `c` is at `offset`, `length` bytes, with `flags`, and its
 * replicas are the hosts named in `hosts` (a space-separated list, in
 * order). */
static int chunk_is(const struct locus_catalog *cat, size_t c, uint64_t offset, uint64_t length,
		    uint32_t flags, const char *hosts)
{
	const struct locus_chunk *ch = &cat->datasets[0].chunks[c];
	char list[256] = "";

	for (uint32_t r = 0; r < ch->n_replicas; r++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", r ? " " : "",
			 cat->hosts[ch->replicas[r]].name);
	if (ch->offset != offset || ch->length != length || ch->flags != flags ||
	    strcmp(list, hosts) != 0) {
		fprintf(
		    stderr,
		    "  chunk %zu: %llu +%llu flags %u [%s], expected %llu +%llu flags %u [%s]\n", c,
		    (unsigned long long)ch->offset, (unsigned long long)ch->length, ch->flags, list,
		    (unsigned long long)offset, (unsigned long long)length, flags, hosts);
		return 0;
	}
	return 1;
}

/* Whether host `name` exists with rack `rack` (NULL: no rack). */
static int host_is(const struct locus_catalog *cat, const char *name, const char *rack)
{
	long id = locus_catalog_find_host(cat, name);
	if (id < 0 || strcmp(cat->hosts[id].name, name) != 0)
		return 0;
	if (!rack)
		return cat->hosts[id].rack == NULL;
	return cat->hosts[id].rack && strcmp(cat->hosts[id].rack, rack) == 0;
}

/* Parses a document that must fail with `code` and the exact message. */
static int fails_with(const char *text, int code, const char *message)
{
	struct locus_catalog *cat = (struct locus_catalog *)&cat; /* not NULL */
	struct locus_error err;
	int rc = parse(text, "/data/f", NULL, &cat, &err);

	if (rc != code || cat != NULL || err.code != code || strcmp(err.file, "blocks.json") != 0 ||
	    strcmp(err.message, message) != 0) {
		fprintf(stderr, "  rc %d, file \"%s\", message:\n    %s\n  expected %d:\n    %s\n",
			rc, err.file, err.message, code, message);
		if (cat != (struct locus_catalog *)&cat)
			locus_catalog_destroy(cat);
		return 0;
	}
	return 1;
}

/* One block entry of a test document. */
static const char *entry(char *buf, size_t size, long long offset, long long length,
			 const char *hosts)
{
	snprintf(buf, size, "{\"offset\": %lld, \"length\": %lld, \"hosts\": %s}", offset, length,
		 hosts);
	return buf;
}

TEST(two_blocks)
{
	struct locus_catalog *cat = load("webhdfs/two-blocks.json", "/user/alice/big.fa", NULL);

	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->n_datasets, 1);
	CHECK_EQ_STR(cat->datasets[0].name, "/user/alice/big.fa");
	CHECK_EQ_INT(cat->datasets[0].size, 134217728ull + 62599364ull);
	CHECK_EQ_INT(cat->datasets[0].flags, 0);
	CHECK_EQ_INT(cat->datasets[0].n_chunks, 2);
	CHECK(chunk_is(cat, 0, 0, 134217728, 0, "dn1"));
	CHECK(chunk_is(cat, 1, 134217728, 62599364, 0, "dn2"));
	CHECK_EQ_INT(cat->n_hosts, 2);
	CHECK(host_is(cat, "dn1", "/rack-a"));
	CHECK(host_is(cat, "dn2", "/rack-b"));
	CHECK_EQ_INT(cat->n_problems, 0);
	locus_catalog_destroy(cat);
}

TEST(dataset_defaults_to_name)
{
	struct locus_catalog *cat = NULL;
	struct locus_error err;

	CHECK_EQ_INT(parse("{\"BlockLocations\": {\"BlockLocation\": []}}", NULL, NULL, &cat, &err),
		     0);
	CHECK_EQ_STR(cat->datasets[0].name, "blocks.json");
	/* An empty file: a dataset without chunks. */
	CHECK_EQ_INT(cat->datasets[0].n_chunks, 0);
	CHECK_EQ_INT(cat->datasets[0].size, 0);
	CHECK_EQ_INT(cat->n_hosts, 0);
	locus_catalog_destroy(cat);
	CHECK_EQ_INT(locus_webhdfs_parse(&cat, "[]", 2, NULL, NULL, NULL, &err), LOCUS_EINVAL);
	CHECK(cat == NULL);
	CHECK_EQ_INT(parse("[]", "bad\nname", NULL, &cat, &err), LOCUS_EINVAL);
	CHECK_EQ_STR(err.message,
		     "invalid dataset name \"bad?name\" (empty or with control characters)");
	CHECK(cat == NULL);
}

TEST(three_replicas_racks)
{
	struct locus_catalog *cat = load("webhdfs/three-replicas-racks.json", "/d/r3", NULL);

	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->datasets[0].n_chunks, 3);
	CHECK_EQ_INT(cat->datasets[0].size, 2 * 134217728ull + 10485760ull);
	/* The document lists the blocks out of order; the catalog sorts them
	 * and keeps each block's replica order. */
	CHECK(chunk_is(cat, 0, 0, 134217728, 0, "dn1 dn4 dn5"));
	CHECK(chunk_is(cat, 1, 134217728, 134217728, 0, "dn5 dn2 dn3"));
	CHECK(chunk_is(cat, 2, 268435456, 10485760, 0, "dn3 dn6 dn7"));
	/* Hosts get ids in order of first appearance in the sorted blocks. */
	CHECK_EQ_INT(cat->n_hosts, 7);
	CHECK_EQ_STR(cat->hosts[0].name, "dn1");
	CHECK_EQ_STR(cat->hosts[3].name, "dn2");
	CHECK_EQ_STR(cat->hosts[6].name, "dn7");
	CHECK(host_is(cat, "dn1", "/rack-a"));
	CHECK(host_is(cat, "dn2", "/rack-a"));
	CHECK(host_is(cat, "dn3", "/rack-a"));
	CHECK(host_is(cat, "dn4", "/rack-b"));
	CHECK(host_is(cat, "dn5", "/rack-b"));
	/* A rack path of several levels keeps all but the node. */
	CHECK(host_is(cat, "dn6", "/dc1/rack-c"));
	CHECK(host_is(cat, "dn7", "/dc1/rack-c"));
	CHECK_EQ_INT(cat->n_problems, 0);
	locus_catalog_destroy(cat);
}

TEST(corrupt_and_missing)
{
	struct locus_catalog *cat = load("webhdfs/corrupt-and-missing.json", "/d/cm", NULL);

	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->datasets[0].n_chunks, 4);
	CHECK_EQ_INT(cat->datasets[0].size, 3 * 67108864ull + 1000);
	CHECK(chunk_is(cat, 0, 0, 67108864, 0, "dn1 dn2"));
	CHECK(chunk_is(cat, 1, 67108864, 67108864, LOCUS_CHUNK_CORRUPT, "dn2"));
	CHECK(chunk_is(cat, 2, 134217728, 67108864, LOCUS_CHUNK_MISSING, ""));
	/* An empty hosts[0]: the address of names[0] without its port. */
	CHECK(chunk_is(cat, 3, 201326592, 1000, 0, "10.1.0.13 dn1"));
	CHECK(host_is(cat, "10.1.0.13", "/rack-a"));
	CHECK_EQ_INT(cat->n_problems, 2);
	CHECK_EQ_INT(cat->problems[0].dataset, 0);
	CHECK_EQ_INT(cat->problems[0].chunk, 1);
	CHECK_EQ_INT(cat->problems[0].flags, LOCUS_CHUNK_CORRUPT);
	CHECK_EQ_STR(cat->problems[0].detail,
		     "block at offset 67108864 (67108864 bytes) is marked corrupt");
	CHECK_EQ_INT(cat->problems[1].dataset, 0);
	CHECK_EQ_INT(cat->problems[1].chunk, 2);
	CHECK_EQ_INT(cat->problems[1].flags, LOCUS_CHUNK_MISSING);
	CHECK_EQ_STR(cat->problems[1].detail,
		     "block at offset 134217728 (67108864 bytes) has no replica");
	locus_catalog_destroy(cat);
}

TEST(host_map_names_addresses)
{
	struct locus_hostmap *hm = NULL;
	struct locus_error err;
	const char *hosts = "# test cluster\n10.1.0.13 dn3.cluster dn3\n10.1.0.11 dn1.cluster\n";

	CHECK_EQ_INT(locus_hostmap_parse(&hm, hosts, strlen(hosts), "hosts", &err), 0);
	struct locus_catalog *cat = load("webhdfs/corrupt-and-missing.json", "/d/cm", hm);
	CHECK(cat != NULL);
	/* Only the empty hosts[] entry goes through the map. */
	CHECK(chunk_is(cat, 3, 201326592, 1000, 0, "dn3.cluster dn1"));
	CHECK(host_is(cat, "dn3.cluster", "/rack-a"));
	locus_catalog_destroy(cat);
	locus_hostmap_destroy(hm);
}

TEST(storage_ids_bare_object)
{
	struct locus_catalog *cat = load("webhdfs/storage-ids.json", "/d/s", NULL);

	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->datasets[0].n_chunks, 2);
	CHECK(chunk_is(cat, 0, 0, 268435456, 0, "dn1 dn2 dn3"));
	CHECK(chunk_is(cat, 1, 268435456, 4096, 0, "dn2 dn3 dn4"));
	CHECK_EQ_INT(cat->n_hosts, 4);
	CHECK(host_is(cat, "dn1", "/rack-a"));
	CHECK(host_is(cat, "dn2", "/rack-a"));
	CHECK(host_is(cat, "dn3", "/rack-b"));
	CHECK(host_is(cat, "dn4", "/rack-b"));
	CHECK_EQ_INT(cat->n_problems, 0);
	locus_catalog_destroy(cat);
}

TEST(bare_array_and_minimal_entries)
{
	struct locus_catalog *cat = NULL;
	struct locus_error err;
	char doc[512], e1[128], e2[128];

	/* Only offset, length and hosts: no racks. */
	snprintf(doc, sizeof doc, "[%s, %s]", entry(e1, sizeof e1, 0, 10, "[\"a\", \"b\"]"),
		 entry(e2, sizeof e2, 10, 5, "[\"b\"]"));
	CHECK_EQ_INT(parse(doc, "/x", NULL, &cat, &err), 0);
	CHECK(chunk_is(cat, 0, 0, 10, 0, "a b"));
	CHECK(chunk_is(cat, 1, 10, 5, 0, "b"));
	CHECK(host_is(cat, "a", NULL));
	CHECK(host_is(cat, "b", NULL));
	locus_catalog_destroy(cat);
}

TEST(addresses_and_duplicates)
{
	struct locus_catalog *cat = NULL;
	struct locus_error err;

	/* IPv6 in brackets, IPv6 without a port; a path with no rack level. */
	CHECK_EQ_INT(parse("[{\"offset\": 0, \"length\": 1, \"hosts\": [\"\", \"\"],"
			   " \"names\": [\"[::1]:9866\", \"fe80::1\"],"
			   " \"topologyPaths\": [\"/[::1]:9866\", \"/r/fe80::1\"]}]",
			   "/x", NULL, &cat, &err),
		     0);
	CHECK(chunk_is(cat, 0, 0, 1, 0, "::1 fe80::1"));
	CHECK(host_is(cat, "::1", NULL));
	CHECK(host_is(cat, "fe80::1", "/r"));
	locus_catalog_destroy(cat);

	/* Two datanodes on one host (a test cluster): one replica. */
	CHECK_EQ_INT(
	    parse("[{\"offset\": 0, \"length\": 1, \"hosts\": [\"127.0.0.1\", \"127.0.0.1\"],"
		  " \"names\": [\"127.0.0.1:9866\", \"127.0.0.1:9867\"]}]",
		  "/x", NULL, &cat, &err),
	    0);
	CHECK(chunk_is(cat, 0, 0, 1, 0, "127.0.0.1"));
	locus_catalog_destroy(cat);
}

TEST(syntax_error_has_line_and_column)
{
	struct locus_catalog *cat = NULL;
	struct locus_error err;

	CHECK_EQ_INT(parse("{\"BlockLocations\": {\"BlockLocation\": [\n"
			   "  {\"offset\": 0, \"length\": 1,\n"
			   "   \"hosts\": [\"dn1\",]}\n"
			   "]}}",
			   "/x", NULL, &cat, &err),
		     LOCUS_EPARSE);
	CHECK(cat == NULL);
	CHECK_EQ_STR(err.file, "blocks.json");
	CHECK_EQ_INT(err.line, 3);
	CHECK_EQ_INT(err.column, 20);
	CHECK_EQ_STR(err.message, "invalid JSON: unexpected token near ']'");
}

TEST(remote_exception)
{
	CHECK(fails_with("{\"RemoteException\": {\"exception\": \"FileNotFoundException\","
			 " \"javaClassName\": \"java.io.FileNotFoundException\","
			 " \"message\": \"File does not exist: /data/f\"}}",
			 LOCUS_ENOENT,
			 "the WebHDFS server answered with an error, not block locations: "
			 "FileNotFoundException: \"File does not exist: /data/f\""));
	CHECK(fails_with("{\"RemoteException\": {\"exception\": \"AccessControlException\","
			 " \"message\": \"Permission denied: user=bob\"}}",
			 LOCUS_EIO,
			 "the WebHDFS server answered with an error, not block locations: "
			 "AccessControlException: \"Permission denied: user=bob\""));
	CHECK(fails_with("{\"RemoteException\": 5}", LOCUS_EIO,
			 "the WebHDFS server answered with an error, not block locations: "
			 "RemoteException: (no message)"));
}

TEST(gaps_and_overlaps)
{
	char doc[512], e1[128], e2[128], e3[128];

	snprintf(doc, sizeof doc, "{\"BlockLocations\": {\"BlockLocation\": [%s, %s, %s]}}",
		 entry(e1, sizeof e1, 0, 100, "[\"a\"]"), entry(e2, sizeof e2, 100, 100, "[\"a\"]"),
		 entry(e3, sizeof e3, 300, 10, "[\"a\"]"));
	CHECK(fails_with(
	    doc, LOCUS_EPARSE,
	    "BlockLocations.BlockLocation[2].offset: gap: this block starts at 300 but "
	    "BlockLocations.BlockLocation[1] ends at 200, so bytes 200..299 are not described"));
	snprintf(doc, sizeof doc, "{\"BlockLocation\": [%s, %s]}",
		 entry(e1, sizeof e1, 0, 100, "[\"a\"]"), entry(e2, sizeof e2, 50, 100, "[\"a\"]"));
	CHECK(fails_with(doc, LOCUS_EPARSE,
			 "BlockLocation[1].offset: overlap: this block starts at 50, inside "
			 "BlockLocation[0] which ends at 100"));
	snprintf(doc, sizeof doc, "[%s]", entry(e1, sizeof e1, 1024, 100, "[\"a\"]"));
	CHECK(fails_with(doc, LOCUS_EPARSE,
			 "[0].offset: the first block starts at 1024, expected 0 (a document for "
			 "part of a file is not supported)"));
	/* Two blocks at one offset. */
	snprintf(doc, sizeof doc, "[%s, %s]", entry(e1, sizeof e1, 0, 100, "[\"a\"]"),
		 entry(e2, sizeof e2, 0, 100, "[\"b\"]"));
	CHECK(fails_with(
	    doc, LOCUS_EPARSE,
	    "[1].offset: overlap: this block starts at 0, inside [0] which ends at 100"));
}

TEST(replica_arrays_must_agree)
{
	CHECK(fails_with("{\"BlockLocations\": {\"BlockLocation\": ["
			 "{\"offset\": 0, \"length\": 1, \"hosts\": [\"a\"]},"
			 "{\"offset\": 1, \"length\": 1, \"hosts\": [\"a\"]},"
			 "{\"offset\": 2, \"length\": 1, \"hosts\": [\"a\", \"b\"], \"names\": "
			 "[\"1.2.3.4:1\"]}]}}",
			 LOCUS_EPARSE,
			 "BlockLocations.BlockLocation[2].names: has 1 element but \"hosts\" has 2 "
			 "(one per replica expected)"));
	CHECK(fails_with(
	    "[{\"offset\": 0, \"length\": 1, \"hosts\": [\"a\"],"
	    " \"topologyPaths\": [\"/r/a\", \"/r/b\"]}]",
	    LOCUS_EPARSE,
	    "[0].topologyPaths: has 2 elements but \"hosts\" has 1 (one per replica expected)"));
	CHECK(fails_with(
	    "[{\"offset\": 0, \"length\": 1, \"hosts\": [\"a\"], \"storageTypes\": []}]",
	    LOCUS_EPARSE,
	    "[0].storageTypes: has 0 elements but \"hosts\" has 1 (one per replica expected)"));
	CHECK(fails_with(
	    "[{\"offset\": 0, \"length\": 1, \"hosts\": [\"a\"],"
	    " \"storageIds\": [\"DS-1\", \"DS-2\"]}]",
	    LOCUS_EPARSE,
	    "[0].storageIds: has 2 elements but \"hosts\" has 1 (one per replica expected)"));
}

TEST(bad_entries)
{
	CHECK(fails_with(
	    "{\"BlockLocations\": {\"BlockLocation\": ["
	    "{\"offset\": 0, \"length\": 1, \"hosts\": [\"a\"]},"
	    "{\"offset\": 1, \"length\": 1, \"hosts\": [\"a\"]},"
	    "{\"offset\": 2, \"length\": \"10\", \"hosts\": [\"a\"]}]}}",
	    LOCUS_EPARSE,
	    "BlockLocations.BlockLocation[2].length: expected an integer >= 0, got \"10\""));
	CHECK(fails_with("[{\"offset\": -1, \"length\": 1, \"hosts\": []}]", LOCUS_EPARSE,
			 "[0].offset: expected an integer >= 0, got -1"));
	CHECK(fails_with("[{\"offset\": 0, \"hosts\": []}]", LOCUS_EPARSE,
			 "[0]: missing key \"length\""));
	CHECK(fails_with("[{\"offset\": 0, \"length\": 1}]", LOCUS_EPARSE,
			 "[0]: missing key \"hosts\""));
	CHECK(fails_with("[{\"offset\": 0, \"length\": 1, \"hosts\": \"a\"}]", LOCUS_EPARSE,
			 "[0].hosts: expected an array of strings, got \"a\""));
	CHECK(fails_with("[{\"offset\": 0, \"length\": 1, \"hosts\": [\"a\", 5]}]", LOCUS_EPARSE,
			 "[0].hosts[1]: expected a string, got 5"));
	CHECK(fails_with("[{\"offset\": 0, \"length\": 1, \"hosts\": [\"a b\"]}]", LOCUS_EPARSE,
			 "[0].hosts[0]: expected a host name without spaces or control characters, "
			 "got \"a b\""));
	CHECK(fails_with(
	    "[{\"offset\": 0, \"length\": 1, \"hosts\": [\"\"]}]", LOCUS_EPARSE,
	    "[0].hosts[0]: empty host name, and names[0] (\"\") gives no usable host name either"));
	CHECK(fails_with("[{\"offset\": 0, \"length\": 1, \"hosts\": [\"a\"], \"corrupt\": 1}]",
			 LOCUS_EPARSE, "[0].corrupt: expected true or false, got 1"));
	CHECK(fails_with(
	    "[{\"offset\": 0, \"length\": 1, \"hosts\": [\"a\"], \"cachedHosts\": {}}]",
	    LOCUS_EPARSE, "[0].cachedHosts: expected an array of strings, got an object"));
	CHECK(fails_with("[7]", LOCUS_EPARSE, "[0]: expected a block location object, got 7"));
	/* Entries are checked in document order, before they are sorted. */
	CHECK(fails_with("[{\"offset\": 100, \"length\": 1, \"hosts\": [\"x y\"]},"
			 " {\"offset\": 0, \"length\": 100, \"hosts\": [\"a b\"]}]",
			 LOCUS_EPARSE,
			 "[0].hosts[0]: expected a host name without spaces or control characters, "
			 "got \"x y\""));
	/* One host in two racks. */
	CHECK(fails_with(
	    "[{\"offset\": 0, \"length\": 1, \"hosts\": [\"a\"], \"topologyPaths\": [\"/r1/a:1\"]},"
	    " {\"offset\": 1, \"length\": 1, \"hosts\": [\"a\"], \"topologyPaths\": "
	    "[\"/r2/a:1\"]}]",
	    LOCUS_EPARSE,
	    "[1].topologyPaths[0]: host \"a\" is in rack \"/r2\" here but in rack \"/r1\" in an "
	    "earlier block"));
}

TEST(bad_documents)
{
	CHECK(fails_with(
	    "{\"FileStatus\": {}}", LOCUS_EPARSE,
	    "expected a GETFILEBLOCKLOCATIONS document: an object with \"BlockLocations\", "
	    "\"BlockLocation\" or \"RemoteException\", or an array of block locations"));
	/* jansson refuses a bare scalar as the document. */
	CHECK(fails_with("\"x\"", LOCUS_EPARSE, "invalid JSON: '[' or '{' expected near '\"x\"'"));
	CHECK(fails_with(
	    "{\"BlockLocations\": []}", LOCUS_EPARSE,
	    "BlockLocations: expected an object with a \"BlockLocation\" array, got an array"));
	CHECK(fails_with("{\"BlockLocations\": {}}", LOCUS_EPARSE,
			 "BlockLocations: missing key \"BlockLocation\""));
	CHECK(fails_with(
	    "{\"BlockLocations\": {\"BlockLocation\": null}}", LOCUS_EPARSE,
	    "BlockLocations.BlockLocation: expected an array of block locations, got null"));
	CHECK(fails_with("{\"LocatedBlocks\": {}}", LOCUS_ENOTSUP,
			 "this is a GET_BLOCK_LOCATIONS (LocatedBlocks) document; ask the server "
			 "for op=GETFILEBLOCKLOCATIONS"));
}

TEST(text_is_not_nul_terminated)
{
	struct locus_catalog *cat = NULL;
	struct locus_error err;
	const char *text = "[{\"offset\": 0, \"length\": 7, \"hosts\": [\"a\"]}]";
	size_t len = strlen(text);
	char *buf = malloc(len + 4);

	memcpy(buf, text, len);
	memcpy(buf + len, "]]]", 4);
	CHECK_EQ_INT(locus_webhdfs_parse(&cat, buf, len, "t", "/x", NULL, &err), 0);
	CHECK(chunk_is(cat, 0, 0, 7, 0, "a"));
	locus_catalog_destroy(cat);
	CHECK_EQ_INT(locus_webhdfs_parse(&cat, buf, len + 1, "t", "/x", NULL, NULL), LOCUS_EPARSE);
	CHECK(cat == NULL);
	free(buf);
}

/* Host names follow the platform's rule: "dn1" and "DN1.example.org"
 * are one host (one replica); a name the rule cannot place, or one with a
 * ',', is an error at its JSON path. */
TEST(host_name_rule)
{
	struct locus_catalog *cat = NULL;
	struct locus_error err;

	CHECK_EQ_INT(parse("[{\"offset\": 0, \"length\": 1, \"hosts\": [\"dn1\", \"dn2\"]},"
			   " {\"offset\": 1, \"length\": 1,"
			   " \"hosts\": [\"DN2.example.org\", \"dn1.example.org\", \"dn3\"]}]",
			   "/x", NULL, &cat, &err),
		     0);
	CHECK_EQ_INT(cat->n_hosts, 3);
	CHECK(chunk_is(cat, 1, 1, 1, 0, "dn2 dn1 dn3"));
	locus_catalog_destroy(cat);

	CHECK_EQ_INT(parse("[{\"offset\": 0, \"length\": 1,"
			   " \"hosts\": [\"dn1.a\", \"dn1.b\", \"DN1\"]}]",
			   "/x", NULL, &cat, &err),
		     LOCUS_EPARSE);
	CHECK(cat == NULL);
	CHECK(strstr(err.message, "[0].hosts[2]: host \"DN1\" cannot be told apart from host "
				  "\"dn1.a\"; host \"dn1.b\"") != NULL);
	CHECK_EQ_INT(
	    parse("[{\"offset\": 0, \"length\": 1, \"hosts\": [\"a,b\"]}]", "/x", NULL, &cat, &err),
	    LOCUS_EPARSE);
	CHECK(strstr(err.message, "[0].hosts[0]: expected a host name without ','") != NULL);
	CHECK_EQ_INT(parse("[{\"offset\": 0, \"length\": 1, \"hosts\": [\"a\\u001b[2J\"]}]", "/x",
			   NULL, &cat, &err),
		     LOCUS_EPARSE);
	CHECK(strchr(err.message, 0x1b) == NULL);
}

TEST_MAIN(TEST_ENTRY(two_blocks), TEST_ENTRY(dataset_defaults_to_name),
	  TEST_ENTRY(three_replicas_racks), TEST_ENTRY(corrupt_and_missing),
	  TEST_ENTRY(host_map_names_addresses), TEST_ENTRY(storage_ids_bare_object),
	  TEST_ENTRY(bare_array_and_minimal_entries), TEST_ENTRY(addresses_and_duplicates),
	  TEST_ENTRY(syntax_error_has_line_and_column), TEST_ENTRY(remote_exception),
	  TEST_ENTRY(gaps_and_overlaps), TEST_ENTRY(replica_arrays_must_agree),
	  TEST_ENTRY(bad_entries), TEST_ENTRY(bad_documents),
	  TEST_ENTRY(text_is_not_nul_terminated), TEST_ENTRY(host_name_rule))
