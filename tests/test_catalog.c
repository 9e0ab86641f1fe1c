/* The catalog text format: exact reading, exact round trips, bad input. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

static char *print_to_string(const struct locus_catalog *cat)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	if (!fp)
		return NULL;
	int rc = locus_catalog_print(cat, fp);
	fclose(fp);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

static struct locus_catalog *parse(const char *text, struct locus_error *err)
{
	struct locus_catalog *cat = NULL;
	locus_catalog_parse(&cat, text, strlen(text), "t.cat", err);
	return cat;
}

TEST(reads_fixture_exactly)
{
	size_t len;
	char *text = test_slurp(test_fixture("dli/layout.cat"), &len);
	struct locus_error err = {0};
	struct locus_catalog *cat;
	CHECK(text != NULL);
	CHECK_EQ_INT(locus_catalog_parse(&cat, text, len, "layout.cat", &err), 0);
	free(text);
	CHECK_EQ_INT(cat->n_hosts, 4);
	CHECK_EQ_STR(cat->hosts[2].name, "dn3");
	CHECK_EQ_STR(cat->hosts[2].rack, "/rack-b");
	CHECK_EQ_INT(cat->n_datasets, 2);
	const struct locus_dataset *a = &cat->datasets[0];
	CHECK_EQ_STR(a->name, "dir/a");
	CHECK_EQ_INT(a->size, 450);
	CHECK_EQ_INT(a->n_chunks, 5);
	CHECK_EQ_INT(a->chunks[4].offset, 400);
	CHECK_EQ_INT(a->chunks[4].length, 50);
	CHECK_EQ_INT(a->chunks[2].n_replicas, 3);
	CHECK_EQ_STR(cat->hosts[a->chunks[2].replicas[0]].name, "dn3");
	CHECK_EQ_STR(cat->hosts[a->chunks[2].replicas[2]].name, "dn1");
	CHECK_EQ_INT(a->chunks[3].n_replicas, 1);
	CHECK_EQ_INT(cat->datasets[1].size, 30);
	locus_catalog_destroy(cat);
}

/* A catalog with every feature: racks and none, flags, missing chunks,
 * problems, an empty dataset, names with spaces and unicode. */
static const char full[] =
    "locus-catalog\t1\n"
    "host\tn1\t/r1\n"
    "host\tn2\t-\n"
    "host\tn 3\t/r é\n"
    "dataset\t/user/x/data set.txt\t300\t3\terasure-coded\n"
    "chunk\t0\t0\t100\tn1,n2\t-\n"
    "chunk\t1\t100\t100\t-\tmissing\n"
    "chunk\t2\t200\t100\tn 3\tunder-construction,corrupt\n"
    "dataset\tempty\t0\t0\t-\n"
    "problem\t/user/x/data set.txt\t1\tmissing\tblock blk_1 has no live replica\n"
    "problem\tempty\t-\tcorrupt\twhole file\n"
    "end\t2\t3\n";

TEST(round_trip_is_exact)
{
	struct locus_error err = {0};
	struct locus_catalog *cat = parse(full, &err);
	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->datasets[0].flags, LOCUS_DATASET_ERASURE_CODED);
	CHECK_EQ_INT(cat->datasets[0].chunks[1].flags, LOCUS_CHUNK_MISSING);
	CHECK_EQ_INT(cat->datasets[0].chunks[2].flags,
		     LOCUS_CHUNK_UNDER_CONSTRUCTION | LOCUS_CHUNK_CORRUPT);
	CHECK_EQ_INT(cat->n_problems, 2);
	CHECK_EQ_INT(cat->problems[1].chunk, SIZE_MAX);
	CHECK(cat->hosts[1].rack == NULL);
	char *once = print_to_string(cat);
	CHECK(once != NULL);
	/* The fixture is already canonical: printing gives the same bytes. */
	CHECK_EQ_STR(once, full);
	struct locus_catalog *again = parse(once, &err);
	CHECK(again != NULL);
	char *twice = print_to_string(again);
	CHECK_EQ_STR(twice, once);
	free(once);
	free(twice);
	locus_catalog_destroy(cat);
	locus_catalog_destroy(again);
}

TEST(normalises_hand_written_catalogs)
{
	/* No host records, CRLF line ends, comments, blank lines, and a chunk
	 * without replicas that does not say "missing". */
	const char *hand = "locus-catalog\t1\r\n# hand made\r\n\r\n"
			   "dataset\td\t15\t2\t-\r\n"
			   "chunk\t0\t0\t10\tb,a\t-\r\n"
			   "chunk\t1\t10\t5\t-\t-\r\n"
			   "end\t1\t2\r\n";
	struct locus_error err = {0};
	struct locus_catalog *cat = parse(hand, &err);
	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->n_hosts, 2);
	CHECK_EQ_STR(cat->hosts[0].name, "b");
	char *out = print_to_string(cat);
	CHECK_EQ_STR(out, "locus-catalog\t1\nhost\tb\t-\nhost\ta\t-\n"
			  "dataset\td\t15\t2\t-\nchunk\t0\t0\t10\tb,a\t-\n"
			  "chunk\t1\t10\t5\t-\tmissing\nend\t1\t2\n");
	free(out);
	locus_catalog_destroy(cat);
}

static void expect_error(const char *text, long line, long col, const char *needle)
{
	struct locus_error err = {0};
	struct locus_catalog *cat = (struct locus_catalog *)1;
	int rc = locus_catalog_parse(&cat, text, strlen(text), "bad.cat", &err);
	if (rc != LOCUS_EPARSE || cat != NULL || err.line != line || (col && err.column != col) ||
	    !strstr(err.message, needle) || strcmp(err.file, "bad.cat") != 0) {
		fprintf(stderr, "for input:\n%s\ngot rc %d line %ld col %ld: %s\n", text, rc,
			err.line, err.column, err.message);
		test__failures++;
	}
}

TEST(bad_input_names_line_column_and_expectation)
{
	expect_error("", 1, 1, "empty file");
	expect_error("hello\n", 1, 1, "locus-catalog");
	expect_error("locus-catalog\t2\n", 1, 15, "version 2 is not supported");
	expect_error("locus-catalog\tx\n", 1, 15, "expected a version number");
	expect_error("locus-catalog\t1\ndataset\td\t10\t1\t-\nchunk\t0\t0\t10\tn1\t-\n", 4, 1,
		     "truncated");
	expect_error("locus-catalog\t1\nchunk\t0\t0\t10\tn1\t-\nend\t0\t0\n", 2, 1,
		     "must follow a dataset");
	expect_error("locus-catalog\t1\ndataset\td\t10\t1\t-\nchunk\t0\t0\tten\tn1\t-\nend\t1\t1\n",
		     3, 11, "chunk length");
	expect_error("locus-catalog\t1\ndataset\td\t20\t2\t-\nchunk\t0\t0\t10\tn1\t-\n"
		     "chunk\t2\t10\t10\tn1\t-\nend\t1\t2\n",
		     4, 7, "expected chunk index 1");
	expect_error("locus-catalog\t1\ndataset\td\t20\t2\t-\nchunk\t0\t0\t10\tn1\t-\n"
		     "chunk\t1\t11\t10\tn1\t-\nend\t1\t2\n",
		     4, 9, "expected offset 10");
	expect_error(
	    "locus-catalog\t1\ndataset\td\t10\t1\t-\nchunk\t0\t0\t10\tn1,n1\t-\nend\t1\t1\n", 3, 17,
	    "listed twice");
	expect_error("locus-catalog\t1\ndataset\td\t10\t1\t-\nchunk\t0\t0\t10\tn1,\t-\nend\t1\t1\n",
		     3, 17, "expected a host name");
	expect_error(
	    "locus-catalog\t1\ndataset\td\t10\t1\t-\nchunk\t0\t0\t10\tn1\tbroken\nend\t1\t1\n", 3,
	    17, "unknown flag \"broken\"");
	expect_error("locus-catalog\t1\ndataset\td\t10\t2\t-\nchunk\t0\t0\t10\tn1\t-\nend\t1\t1\n",
		     4, 1, "declares 2 chunks but 1 follow");
	expect_error("locus-catalog\t1\ndataset\td\t11\t1\t-\nchunk\t0\t0\t10\tn1\t-\nend\t1\t1\n",
		     4, 1, "declares 11 bytes");
	expect_error("locus-catalog\t1\ndataset\td\t0\t0\t-\ndataset\td\t0\t0\t-\nend\t2\t0\n", 3,
		     9, "listed twice");
	expect_error("locus-catalog\t1\ndataset\td\t0\t0\t-\nend\t1\t5\n", 3, 1, "end record says");
	expect_error("locus-catalog\t1\nend\t0\t0\nhost\tx\t-\n", 3, 1, "nothing may follow");
	expect_error("locus-catalog\t1\nfrobnicate\n", 2, 1, "expected a record type");
	expect_error("locus-catalog\t1\nhost\tn1\n", 2, 1, "expected \"host");
	expect_error("locus-catalog\t1\nhost\tn1\t-\nhost\tn1\t-\n", 3, 6, "listed twice");
	/* A rack with a control character did not print back as read
	 * (fuzz_catalog: "-\r\r" lost a '\r' each round trip). */
	expect_error("locus-catalog\t1\nhost\tn1\t-\r\r\n", 2, 10, "rack without control");
	expect_error("locus-catalog\t1\nhost\tn1\t/r\x1b[1\n", 2, 11, "rack without control");
	expect_error("locus-catalog\t1\nproblem\tnope\t-\tmissing\tx\n", 2, 9, "unknown dataset");
	expect_error(
	    "locus-catalog\t1\ndataset\td\t0\t0\t-\nproblem\td\t3\tmissing\tx\nend\t1\t0\n", 3, 11,
	    "no such chunk");
	expect_error(
	    "locus-catalog\t1\ndataset\td\t18446744073709551615\t2\t-\n"
	    "chunk\t0\t0\t18446744073709551615\ta\t-\nchunk\t1\t18446744073709551615\t1\ta\t-\n",
	    4, 0, "overflow");
	const char nul[] = "locus-catalog\t1\nho\0st\n";
	struct locus_error err = {0};
	struct locus_catalog *cat;
	CHECK_EQ_INT(locus_catalog_parse(&cat, nul, sizeof nul - 1, "nul.cat", &err), LOCUS_EPARSE);
	CHECK_EQ_INT(err.line, 2);
	CHECK_EQ_INT(err.column, 3);
}

TEST(save_is_atomic_and_round_trips)
{
	const char *dir = test_tmpdir();
	char path[600];
	struct locus_error err = {0};
	snprintf(path, sizeof path, "%s/out.cat", dir);
	struct locus_catalog *cat = parse(full, &err), *back;
	CHECK(cat != NULL);
	CHECK_EQ_INT(locus_catalog_save(cat, path, &err), 0);
	char *text = test_slurp(path, NULL);
	CHECK_EQ_STR(text, full);
	free(text);
	CHECK_EQ_INT(locus_source_open(&back, path, &err), 0); /* sniffed */
	CHECK_EQ_INT(back->n_datasets, 2);
	locus_catalog_destroy(back);
	/* Saving into a directory that does not exist fails and leaves no
	 * temporary behind. */
	snprintf(path, sizeof path, "%s/no/such/dir/out.cat", dir);
	CHECK_EQ_INT(locus_catalog_save(cat, path, &err), LOCUS_EIO);
	CHECK(strstr(err.message, "temporary") != NULL);
	locus_catalog_destroy(cat);
}

TEST(merge_combines_and_refuses_duplicates)
{
	struct locus_error err = {0};
	struct locus_catalog *a = parse(full, &err);
	struct locus_catalog *b = parse("locus-catalog\t1\nhost\tn2\t/late\nhost\tz\t-\n"
					"dataset\tother\t5\t1\t-\nchunk\t0\t0\t5\tz,n2\t-\n"
					"problem\tother\t0\tcorrupt\tp\nend\t1\t1\n",
					&err);
	CHECK(a && b);
	CHECK_EQ_INT(locus_catalog_merge(a, b, &err), 0);
	CHECK_EQ_INT(a->n_datasets, 3);
	CHECK_EQ_INT(a->n_hosts, 4);
	CHECK_EQ_STR(a->hosts[1].rack, "/late"); /* a rack fills a gap */
	const struct locus_chunk *c = &a->datasets[2].chunks[0];
	CHECK_EQ_STR(a->hosts[c->replicas[0]].name, "z");
	CHECK_EQ_STR(a->hosts[c->replicas[1]].name, "n2");
	CHECK_EQ_INT(a->n_problems, 3);
	CHECK_EQ_INT(a->problems[2].dataset, 2);
	CHECK_EQ_INT(locus_catalog_merge(a, b, &err), LOCUS_EEXIST);
	CHECK_EQ_INT(a->n_datasets, 3);
	locus_catalog_destroy(a);
	locus_catalog_destroy(b);
}

TEST(model_rules)
{
	struct locus_catalog *cat;
	CHECK_EQ_INT(locus_catalog_create(&cat), 0);
	long h = locus_catalog_add_host(cat, "node1.cluster", NULL);
	CHECK_EQ_INT(h, 0);
	CHECK_EQ_INT(locus_catalog_add_host(cat, "node1.cluster", "/r"), 0);
	CHECK_EQ_STR(cat->hosts[0].rack, "/r");
	CHECK_EQ_INT(locus_catalog_find_host(cat, "node1"), 0);
	CHECK_EQ_INT(locus_catalog_find_host(cat, "NODE1.cluster"), 0);
	CHECK_EQ_INT(locus_catalog_find_host(cat, "node2"), -1);
	CHECK_EQ_INT(locus_catalog_add_dataset(cat, ""), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_catalog_add_dataset(cat, "a\tb"), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_catalog_add_dataset(cat, "d"), 0);
	CHECK_EQ_INT(locus_catalog_add_dataset(cat, "d"), LOCUS_EEXIST);
	uint32_t dup[2] = {0, 0}, bad[1] = {7};
	CHECK_EQ_INT(locus_catalog_add_chunk(cat, 0, 10, dup, 2, 0), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_catalog_add_chunk(cat, 0, 10, bad, 1, 0), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_catalog_add_chunk(cat, 0, 10, dup, 1, 0), 0);
	CHECK_EQ_INT(locus_catalog_add_chunk(cat, 0, 0, NULL, 0, 0), 1);
	CHECK_EQ_INT(locus_catalog_add_chunk(cat, 0, 5, NULL, 0, 0), 2);
	const struct locus_dataset *d = &cat->datasets[0];
	CHECK_EQ_INT(d->chunks[2].flags, LOCUS_CHUNK_MISSING);
	CHECK_EQ_INT(locus_dataset_find_offset(d, 0), 0);
	CHECK_EQ_INT(locus_dataset_find_offset(d, 9), 0);
	CHECK_EQ_INT(locus_dataset_find_offset(d, 10), 2); /* the empty chunk 1 holds no byte */
	CHECK_EQ_INT(locus_dataset_find_offset(d, 14), 2);
	CHECK_EQ_INT(locus_dataset_find_offset(d, 15), -1);
	size_t counts[1];
	locus_catalog_replica_counts(cat, counts);
	CHECK_EQ_INT(counts[0], 1);
	locus_catalog_destroy(cat);
}

/* Host names follow the platform's rule: a spelling that differs only in
 * case, or by a domain one of them lacks, is the same host (the first
 * spelling stays); names the rule cannot place, control characters and
 * ',' are errors that show the name escaped. */
TEST(host_name_rule)
{
	struct locus_error err;
	struct locus_catalog *cat =
	    parse("locus-catalog\t1\nhost\tnode01\t/r1\n"
		  "dataset\td\t20\t2\t-\nchunk\t0\t0\t10\tNODE01.example.org\t-\n"
		  "chunk\t1\t10\t10\tNode01,node02\t-\nend\t1\t2\n",
		  &err);
	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->n_hosts, 2);
	char *text = print_to_string(cat);
	CHECK(strstr(text, "chunk\t0\t0\t10\tnode01\t-\nchunk\t1\t10\t10\tnode01,node02\t-\n") !=
	      NULL);
	free(text);
	CHECK_EQ_INT(locus_catalog_find_host(cat, "NODE01"), 0);
	locus_catalog_destroy(cat);

	expect_error("locus-catalog\t1\nhost\tnode01\t-\nhost\tNODE01.example.org\t-\n", 3, 6,
		     "host \"NODE01.example.org\" is host \"node01\" listed again (host names "
		     "match ignoring case");
	expect_error("locus-catalog\t1\ndataset\td\t1\t1\t-\n"
		     "chunk\t0\t0\t1\tn1,N1.example.org\t-\nend\t1\t1\n",
		     3, 16, "host \"N1.example.org\" is listed twice for one chunk (as \"n1\"");
	expect_error("locus-catalog\t1\nhost\tdn1.a\t-\nhost\tdn1.b\t-\nhost\tDN1\t-\n", 4, 6,
		     "host \"DN1\" cannot be told apart from host \"dn1.a\"; host \"dn1.b\"");
	expect_error("locus-catalog\t1\nhost\tdn1\t-\ndataset\td\t1\t1\t-\n"
		     "chunk\t0\t0\t1\tdn1.a,dn1.b\t-\nend\t1\t1\n",
		     4, 19,
		     "host \"dn1.b\" cannot be told apart from host \"dn1\" (also written "
		     "\"dn1.a\")");
	expect_error("locus-catalog\t1\nhost\tn\x1b[2J\t-\n", 2, 6,
		     "expected a host name (no control character, no ',', not starting with "
		     "'.'), got \"n\\x1b[2J\"");
	expect_error("locus-catalog\t1\nhost\ta,b\t-\n", 2, 6, "expected a host name");
	expect_error("locus-catalog\t1\ndataset\td\t1\t1\t-\n"
		     "chunk\t0\t0\t1\tn1,.n2\t-\nend\t1\t1\n",
		     3, 16, "expected a host name");
	/* The escape never reaches the message raw. */
	cat = parse("locus-catalog\t1\nhost\tn\x1b[2J\t-\n", &err);
	CHECK(cat == NULL);
	CHECK(strchr(err.message, 0x1b) == NULL);
}

/* A catalog that holds no dataset is an error, as in every reader. */
TEST(no_dataset)
{
	expect_error("locus-catalog\t1\nend\t0\t0\n", 2, 1,
		     "a catalog without a dataset: expected at least one \"dataset");
	expect_error("locus-catalog\t1\nhost\tn1\t-\n# nothing else\nend\t0\t0\n", 4, 1,
		     "a catalog without a dataset");
}

TEST_MAIN(TEST_ENTRY(reads_fixture_exactly), TEST_ENTRY(round_trip_is_exact),
	  TEST_ENTRY(normalises_hand_written_catalogs),
	  TEST_ENTRY(bad_input_names_line_column_and_expectation),
	  TEST_ENTRY(save_is_atomic_and_round_trips),
	  TEST_ENTRY(merge_combines_and_refuses_duplicates), TEST_ENTRY(model_rules),
	  TEST_ENTRY(host_name_rule), TEST_ENTRY(no_dataset))
