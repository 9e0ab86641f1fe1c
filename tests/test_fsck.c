/* Tests for the `hdfs fsck` reader (src/locality/fsck.c) on the fixtures
 * under tests/fixtures/fsck and on bad inputs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locality.h"
#include "test.h"
#include "test_util.h"

#define LOCUS__TEST_LEN(a) (sizeof(a) / sizeof((a)[0]))

static struct locus_catalog *parse_text(const char *text, size_t len, const char *name,
					const struct locus_hostmap *hosts)
{
	struct locus_catalog *cat = NULL;
	struct locus_error err;
	locus_error_clear(&err);
	if (locus_fsck_parse(&cat, text, len, name, hosts, &err)) {
		char buf[800];
		fprintf(stderr, "%s\n", locus_error_format(&err, buf, sizeof buf));
		return NULL;
	}
	return cat;
}

static struct locus_catalog *parse_fixture(const char *name, const struct locus_hostmap *hosts)
{
	size_t len;
	char *text = test_slurp(test_fixture(name), &len);
	if (!text) {
		fprintf(stderr, "cannot read fixture %s\n", name);
		return NULL;
	}
	struct locus_catalog *cat = parse_text(text, len, name, hosts);
	free(text);
	return cat;
}

static struct locus_hostmap *fixture_hosts(void)
{
	struct locus_hostmap *m = NULL;
	struct locus_error err;
	if (locus_hostmap_load(&m, test_fixture("fsck/hosts"), &err))
		return NULL;
	return m;
}

/* Host names of a chunk's replicas, in order, comma-separated. */
static const char *replica_names(const struct locus_catalog *cat, const struct locus_chunk *c)
{
	static char buf[1024];
	size_t n = 0;
	buf[0] = 0;
	for (uint32_t r = 0; r < c->n_replicas && n < sizeof buf; r++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", r ? "," : "",
				      cat->hosts[c->replicas[r]].name);
	return buf;
}

/* Every host as "name=rack" (or "name" without a rack), in id order. */
static const char *host_list(const struct locus_catalog *cat)
{
	static char buf[1024];
	size_t n = 0;
	buf[0] = 0;
	for (size_t h = 0; h < cat->n_hosts && n < sizeof buf; h++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s%s%s", h ? "," : "",
				      cat->hosts[h].name, cat->hosts[h].rack ? "=" : "",
				      cat->hosts[h].rack ? cat->hosts[h].rack : "");
	return buf;
}

static int dataset_is(const struct locus_catalog *cat, size_t d, const char *name, uint64_t size,
		      size_t n_chunks, uint32_t flags)
{
	if (d >= cat->n_datasets) {
		fprintf(stderr, "no dataset %zu (have %zu)\n", d, cat->n_datasets);
		return 0;
	}
	const struct locus_dataset *ds = &cat->datasets[d];
	if (strcmp(ds->name, name) != 0 || ds->size != size || ds->n_chunks != n_chunks ||
	    ds->flags != flags) {
		fprintf(stderr,
			"dataset %zu: \"%s\" size %llu, %zu chunks, flags %#x; want \"%s\" "
			"%llu, %zu, %#x\n",
			d, ds->name, (unsigned long long)ds->size, ds->n_chunks, ds->flags, name,
			(unsigned long long)size, n_chunks, flags);
		return 0;
	}
	return 1;
}

static int chunk_is(const struct locus_catalog *cat, size_t d, size_t c, uint64_t offset,
		    uint64_t length, uint32_t flags, const char *hosts)
{
	if (d >= cat->n_datasets || c >= cat->datasets[d].n_chunks) {
		fprintf(stderr, "no chunk %zu of dataset %zu\n", c, d);
		return 0;
	}
	const struct locus_chunk *ch = &cat->datasets[d].chunks[c];
	const char *got = replica_names(cat, ch);
	if (ch->offset != offset || ch->length != length || ch->flags != flags ||
	    strcmp(got, hosts) != 0) {
		fprintf(stderr,
			"chunk %zu.%zu: offset %llu length %llu flags %#x [%s]; want %llu "
			"%llu %#x [%s]\n",
			d, c, (unsigned long long)ch->offset, (unsigned long long)ch->length,
			ch->flags, got, (unsigned long long)offset, (unsigned long long)length,
			flags, hosts);
		return 0;
	}
	return 1;
}

static int problem_is(const struct locus_catalog *cat, size_t i, size_t d, size_t c, uint32_t flags,
		      const char *detail_part)
{
	if (i >= cat->n_problems) {
		fprintf(stderr, "no problem %zu (have %zu)\n", i, cat->n_problems);
		return 0;
	}
	const struct locus_problem *p = &cat->problems[i];
	if (p->dataset != d || p->chunk != c || p->flags != flags ||
	    !strstr(p->detail, detail_part)) {
		fprintf(stderr, "problem %zu: %zu/%zu %#x \"%s\"; want %zu/%zu %#x \"%s\"\n", i,
			p->dataset, p->chunk, p->flags, p->detail, d, c, flags, detail_part);
		return 0;
	}
	return 1;
}

enum {
	MISSING = LOCUS_CHUNK_MISSING,
	UC = LOCUS_CHUNK_UNDER_CONSTRUCTION,
	CORRUPT = LOCUS_CHUNK_CORRUPT,
	EC = LOCUS_DATASET_ERASURE_CODED,
};

#define MiB128 134217728ull

/* ---- fixtures ------------------------------------------------------------ */

/* Hadoop 1.x: no pool id, "repl=", rack-qualified replicas, negative id. */
TEST(hadoop1)
{
	struct locus_catalog *cat = parse_fixture("fsck/hadoop1.txt", NULL);
	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->n_datasets, 2);
	CHECK(dataset_is(cat, 0, "/user/bob/genome.fa", 100000000, 2, 0));
	CHECK(chunk_is(cat, 0, 0, 0, 67108864, 0, "10.1.0.11,10.1.0.13,10.1.0.14"));
	CHECK(chunk_is(cat, 0, 1, 67108864, 32891136, 0, "10.1.0.13,10.1.0.12"));
	CHECK(dataset_is(cat, 1, "/user/bob/notes.txt", 0, 0, 0));
	CHECK_EQ_STR(host_list(cat),
		     "10.1.0.11=/rack1,10.1.0.13=/rack2,10.1.0.14=/rack2,10.1.0.12=/rack1");
	CHECK_EQ_INT(cat->n_problems, 0);
	locus_catalog_destroy(cat);
}

/* The same with the hosts file: names replace addresses, racks stay. */
TEST(hadoop1_hostmap)
{
	struct locus_hostmap *hosts = fixture_hosts();
	CHECK(hosts != NULL);
	struct locus_catalog *cat = parse_fixture("fsck/hadoop1.txt", hosts);
	locus_hostmap_destroy(hosts);
	CHECK(cat != NULL);
	CHECK(chunk_is(cat, 0, 0, 0, 67108864, 0,
		       "dn1.cluster.example,dn3.cluster.example,dn4.cluster.example"));
	CHECK(
	    chunk_is(cat, 0, 1, 67108864, 32891136, 0, "dn3.cluster.example,dn2.cluster.example"));
	CHECK_EQ_STR(host_list(cat), "dn1.cluster.example=/rack1,dn3.cluster.example=/rack2,"
				     "dn4.cluster.example=/rack2,dn2.cluster.example=/rack1");
	locus_catalog_destroy(cat);
}

/* Hadoop 2.7: no replication clause, one space before '[', storage
 * replicas, directory lines. */
TEST(hadoop2)
{
	struct locus_catalog *cat = parse_fixture("fsck/hadoop2.txt", NULL);
	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->n_datasets, 3);
	CHECK(dataset_is(cat, 0, "/user/alice/input/part-00000", 200000000, 2, 0));
	CHECK(chunk_is(cat, 0, 0, 0, MiB128, 0, "10.1.0.11,10.1.0.12,10.1.0.13"));
	CHECK(chunk_is(cat, 0, 1, MiB128, 65782272, 0, "10.1.0.13,10.1.0.14"));
	CHECK(dataset_is(cat, 1, "/user/alice/input/part-00001", 1000, 1, 0));
	CHECK(chunk_is(cat, 1, 0, 0, 1000, 0, "10.1.0.14"));
	CHECK(dataset_is(cat, 2, "/user/alice/output/_SUCCESS", 0, 0, 0));
	CHECK_EQ_STR(host_list(cat), "10.1.0.11,10.1.0.12,10.1.0.13,10.1.0.14");
	CHECK_EQ_INT(cat->n_problems, 0);
	locus_catalog_destroy(cat);
}

/* Hadoop 3: replication clause, two spaces before '[', storage types,
 * a path with spaces, an empty file. */
TEST(hadoop3)
{
	struct locus_catalog *cat = parse_fixture("fsck/hadoop3.txt", NULL);
	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->n_datasets, 3);
	CHECK(dataset_is(cat, 0, "/data/logs/2024-03-01.log", 300000000, 3, 0));
	CHECK(chunk_is(cat, 0, 0, 0, MiB128, 0, "10.1.0.11,10.1.0.12,10.1.0.13"));
	CHECK(chunk_is(cat, 0, 1, MiB128, MiB128, 0, "10.1.0.12,10.1.0.14,10.1.0.11"));
	CHECK(chunk_is(cat, 0, 2, 2 * MiB128, 31564544, 0, "10.1.0.13,10.1.0.11,10.1.0.14"));
	CHECK(dataset_is(cat, 1, "/data/logs/empty.log", 0, 0, 0));
	CHECK(dataset_is(cat, 2, "/data/my file with spaces.csv", 1048576, 1, 0));
	CHECK(chunk_is(cat, 2, 0, 0, 1048576, 0, "10.1.0.14,10.1.0.11"));
	CHECK_EQ_STR(host_list(cat), "10.1.0.11,10.1.0.12,10.1.0.13,10.1.0.14");
	CHECK_EQ_INT(cat->n_problems, 0);
	CHECK_EQ_INT(locus_catalog_find_dataset(cat, "/data/my file with spaces.csv"), 2);
	locus_catalog_destroy(cat);
}

TEST(hadoop3_hostmap)
{
	struct locus_hostmap *hosts = fixture_hosts();
	CHECK(hosts != NULL);
	struct locus_catalog *cat = parse_fixture("fsck/hadoop3.txt", hosts);
	locus_hostmap_destroy(hosts);
	CHECK(cat != NULL);
	CHECK(chunk_is(cat, 0, 0, 0, MiB128, 0,
		       "dn1.cluster.example,dn2.cluster.example,dn3.cluster.example"));
	CHECK(chunk_is(cat, 2, 0, 0, 1048576, 0, "dn4.cluster.example,dn1.cluster.example"));
	CHECK_EQ_INT(cat->n_hosts, 4);
	locus_catalog_destroy(cat);
}

/* A hosts file that names only some datanodes: the others keep their
 * address. */
TEST(hadoop3_partial_hostmap)
{
	static const char map_text[] = "10.1.0.12 two\n10.1.0.14 four four-alias\n";
	struct locus_hostmap *hosts = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_hostmap_parse(&hosts, map_text, strlen(map_text), "m", &err), 0);
	struct locus_catalog *cat = parse_fixture("fsck/hadoop3.txt", hosts);
	locus_hostmap_destroy(hosts);
	CHECK(cat != NULL);
	CHECK(chunk_is(cat, 0, 1, MiB128, MiB128, 0, "two,four,10.1.0.11"));
	CHECK_EQ_STR(host_list(cat), "10.1.0.11,two,10.1.0.13,four");
	locus_catalog_destroy(cat);
}

/* Two addresses the hosts file gives one name (two interfaces of one
 * machine) make one host and one replica. */
TEST(hostmap_merges_hosts)
{
	static const char map_text[] = "10.0.0.1 a\n10.0.0.2 a\n";
	struct locus_hostmap *hosts = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_hostmap_parse(&hosts, map_text, strlen(map_text), "m", &err), 0);
	static const char text[] =
	    "/f 10 bytes, 1 block(s):  OK\n"
	    "0. blk_1_1 len=10 repl=3 [10.0.0.1:1, 10.0.0.3:1, 10.0.0.2:1]\n";
	struct locus_catalog *cat = parse_text(text, strlen(text), "t", hosts);
	locus_hostmap_destroy(hosts);
	CHECK(cat != NULL);
	CHECK(chunk_is(cat, 0, 0, 0, 10, 0, "a,10.0.0.3"));
	CHECK_EQ_INT(cat->n_hosts, 2);
	locus_catalog_destroy(cat);
}

/* -racks: "/dc/rack/ip:port" replicas; the rack path goes on the host. */
TEST(hadoop3_racks)
{
	struct locus_catalog *cat = parse_fixture("fsck/hadoop3-racks.txt", NULL);
	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->n_datasets, 2);
	CHECK(dataset_is(cat, 0, "/warehouse/sales/part-0000.orc", 200000000, 2, 0));
	CHECK(chunk_is(cat, 0, 0, 0, MiB128, 0, "10.1.0.11,10.1.0.13,10.1.0.14"));
	CHECK(chunk_is(cat, 0, 1, MiB128, 65782272, 0, "10.1.0.14,10.1.0.12,10.1.0.11"));
	CHECK(dataset_is(cat, 1, "/warehouse/sales/_SUCCESS", 0, 0, 0));
	CHECK_EQ_STR(host_list(cat), "10.1.0.11=/dc1/rack-a,10.1.0.13=/dc1/rack-b,"
				     "10.1.0.14=/dc1/rack-b,10.1.0.12=/dc1/rack-a");
	CHECK_EQ_INT(cat->n_problems, 0);
	locus_catalog_destroy(cat);

	struct locus_hostmap *hosts = fixture_hosts();
	CHECK(hosts != NULL);
	cat = parse_fixture("fsck/hadoop3-racks.txt", hosts);
	locus_hostmap_destroy(hosts);
	CHECK(cat != NULL);
	CHECK_EQ_STR(host_list(cat), "dn1.cluster.example=/dc1/rack-a,"
				     "dn3.cluster.example=/dc1/rack-b,"
				     "dn4.cluster.example=/dc1/rack-b,"
				     "dn2.cluster.example=/dc1/rack-a");
	locus_catalog_destroy(cat);
}

/* -replicaDetails: every state is kept except CORRUPT, whose replicas are
 * dropped with a problem; a block left with no replica is also missing. */
TEST(hadoop3_replica_details)
{
	struct locus_catalog *cat = parse_fixture("fsck/hadoop3-replica-details.txt", NULL);
	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->n_datasets, 2);
	CHECK(dataset_is(cat, 0, "/data/events.parquet", 2 * MiB128, 2, 0));
	CHECK(chunk_is(cat, 0, 0, 0, MiB128, 0, "10.1.0.11,10.1.0.12,10.1.0.13,10.1.0.14"));
	CHECK(chunk_is(cat, 0, 1, MiB128, MiB128, 0, "10.1.0.12,10.1.0.14,10.1.0.13,10.1.0.11"));
	CHECK(dataset_is(cat, 1, "/data/bad.bin", 2097152, 2, 0));
	CHECK(chunk_is(cat, 1, 0, 0, 1048576, CORRUPT, "10.1.0.11,10.1.0.14"));
	CHECK(chunk_is(cat, 1, 1, 1048576, 1048576, CORRUPT | MISSING, ""));
	CHECK_EQ_INT(cat->n_problems, 3);
	CHECK(problem_is(cat, 0, 1, 0, CORRUPT,
			 "block blk_1073741903_1079: corrupt replica on 10.1.0.13 dropped"));
	CHECK(problem_is(cat, 1, 1, 1, MISSING, "block blk_1073741904_1080 missing"));
	CHECK(problem_is(cat, 2, 1, 1, CORRUPT,
			 "block blk_1073741904_1080: corrupt replicas on 10.1.0.12, "
			 "10.1.0.13 dropped"));
	locus_catalog_destroy(cat);
}

/* MISSING! blocks, a MISSING file status on the file line and on a line
 * of its own after fsck's messages. */
TEST(hadoop3_missing)
{
	struct locus_catalog *cat = parse_fixture("fsck/hadoop3-missing.txt", NULL);
	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->n_datasets, 3);
	CHECK(dataset_is(cat, 0, "/data/lost.dat", 3 * MiB128, 3, 0));
	CHECK(chunk_is(cat, 0, 0, 0, MiB128, MISSING, ""));
	CHECK(chunk_is(cat, 0, 1, MiB128, MiB128, 0, "10.1.0.11,10.1.0.12,10.1.0.13"));
	CHECK(chunk_is(cat, 0, 2, 2 * MiB128, MiB128, MISSING, ""));
	CHECK(dataset_is(cat, 1, "/data/partial.dat", 1000, 1, 0));
	CHECK(chunk_is(cat, 1, 0, 0, 1000, MISSING, ""));
	CHECK(dataset_is(cat, 2, "/data/ok.dat", 4096, 1, 0));
	CHECK(chunk_is(cat, 2, 0, 0, 4096, 0, "10.1.0.14,10.1.0.12,10.1.0.11"));
	CHECK_EQ_INT(cat->n_problems, 3);
	CHECK(problem_is(cat, 0, 0, 0, MISSING, "block blk_1073741850_1026 missing"));
	CHECK(problem_is(cat, 1, 0, 2, MISSING, "block blk_1073741852_1028 missing"));
	CHECK(problem_is(cat, 2, 1, 0, MISSING, "block blk_1073741853_1029 missing"));
	locus_catalog_destroy(cat);
}

/* Open files: the last block follows "Under Construction Block:" with
 * Expected_repl, counted in the file line or not. */
TEST(hadoop3_under_construction)
{
	struct locus_catalog *cat = parse_fixture("fsck/hadoop3-under-construction.txt", NULL);
	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->n_datasets, 3);
	CHECK(dataset_is(cat, 0, "/data/stream/current.log", 139460608, 2, 0));
	CHECK(chunk_is(cat, 0, 0, 0, MiB128, 0, "10.1.0.13,10.1.0.14,10.1.0.11"));
	CHECK(chunk_is(cat, 0, 1, MiB128, 5242880, UC, "10.1.0.14,10.1.0.11,10.1.0.12"));
	CHECK(dataset_is(cat, 1, "/data/stream/fresh.log", 0, 1, 0));
	CHECK(chunk_is(cat, 1, 0, 0, 0, UC, "10.1.0.12,10.1.0.13,10.1.0.14"));
	CHECK(dataset_is(cat, 2, "/data/stream/closed.log", 512, 1, 0));
	CHECK(chunk_is(cat, 2, 0, 0, 512, 0, "10.1.0.11,10.1.0.12,10.1.0.13"));
	CHECK_EQ_INT(cat->n_problems, 2);
	CHECK(problem_is(cat, 0, 0, 1, UC, "block blk_1073741861_1037 under construction"));
	CHECK(problem_is(cat, 1, 1, 0, UC, "block blk_1073741862_1038 under construction"));
	locus_catalog_destroy(cat);
}

/* Erasure coding: the dataset is flagged, each block group is a chunk on
 * every node holding one of its internal blocks. */
TEST(hadoop3_ec)
{
	struct locus_hostmap *hosts = fixture_hosts();
	CHECK(hosts != NULL);
	struct locus_catalog *cat = parse_fixture("fsck/hadoop3-ec.txt", NULL);
	struct locus_catalog *named = parse_fixture("fsck/hadoop3-ec.txt", hosts);
	locus_hostmap_destroy(hosts);
	CHECK(cat != NULL && named != NULL);
	CHECK_EQ_INT(cat->n_datasets, 2);
	CHECK(dataset_is(cat, 0, "/data/ec/archive.tar", 7340032, 2, EC));
	CHECK(chunk_is(cat, 0, 0, 0, 6291456, 0,
		       "10.1.0.11,10.1.0.12,10.1.0.13,10.1.0.14,10.2.0.21"));
	CHECK(chunk_is(cat, 0, 1, 6291456, 1048576, 0, "10.2.0.21,10.1.0.11,10.1.0.12"));
	CHECK(dataset_is(cat, 1, "/data/plain/README.md", 2048, 1, 0));
	CHECK(chunk_is(cat, 1, 0, 0, 2048, 0, "10.1.0.13,10.2.0.21,10.1.0.11"));
	CHECK_EQ_INT(cat->n_problems, 0);
	CHECK(chunk_is(named, 0, 1, 6291456, 1048576, 0,
		       "dn5.cluster.example,dn1.cluster.example,dn2.cluster.example"));
	CHECK_EQ_INT(named->n_hosts, 5);
	locus_catalog_destroy(cat);
	locus_catalog_destroy(named);
}

/* ---- layout and tolerance ------------------------------------------------ */

/* The reader stops at `len`: the text need not end with a NUL, and what
 * lies past `len` is never read (ASan would catch it on the heap copy). */
TEST(length_bounded)
{
	size_t len;
	char *text = test_slurp(test_fixture("fsck/hadoop3.txt"), &len);
	CHECK(text != NULL);
	char *copy = malloc(len);
	CHECK(copy != NULL);
	memcpy(copy, text, len);
	free(text);
	struct locus_catalog *cat = parse_text(copy, len, "copy", NULL);
	CHECK(cat != NULL);
	CHECK(dataset_is(cat, 2, "/data/my file with spaces.csv", 1048576, 1, 0));
	locus_catalog_destroy(cat);

	/* Cut after the first block line of the first file: a truncated
	 * file, reported at its file line (line 6). */
	const char *cut = strstr(copy, "1. BP-");
	CHECK(cut != NULL);
	struct locus_error err;
	cat = (struct locus_catalog *)&cat;
	CHECK_EQ_INT(locus_fsck_parse(&cat, copy, (size_t)(cut - copy), "copy", NULL, &err),
		     LOCUS_EPARSE);
	CHECK(cat == NULL);
	CHECK_EQ_INT(err.line, 6);
	CHECK(strstr(err.message, "expected 3 block(s) of 300000000 bytes") != NULL);
	CHECK(strstr(err.message, "found 1 block(s) of 134217728 bytes") != NULL);
	free(copy);
}

/* Windows line ends give the same catalog. */
TEST(crlf)
{
	size_t len;
	char *text = test_slurp(test_fixture("fsck/hadoop2.txt"), &len);
	CHECK(text != NULL);
	char *crlf = malloc(2 * len + 1);
	CHECK(crlf != NULL);
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n')
			crlf[n++] = '\r';
		crlf[n++] = text[i];
	}
	free(text);
	struct locus_catalog *cat = parse_text(crlf, n, "crlf", NULL);
	free(crlf);
	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->n_datasets, 3);
	CHECK(chunk_is(cat, 0, 1, MiB128, 65782272, 0, "10.1.0.13,10.1.0.14"));
	CHECK(dataset_is(cat, 2, "/user/alice/output/_SUCCESS", 0, 0, 0));
	locus_catalog_destroy(cat);
}

static struct locus_catalog *parse_str(const char *text)
{
	return parse_text(text, strlen(text), "t", NULL);
}

/* Output of fsck on an empty directory, or without -files: fsck output,
 * but no dataset to schedule. It used to read as an empty catalog (and a
 * run of 0 tasks "succeeded"); it is an error that says what was
 * expected. */
TEST(no_files)
{
	static const char *const texts[] = {
	    "Connecting to namenode via "
	    "http://nn1.cluster.example:9870/fsck?ugi=hdfs&path=%2Fempty\n"
	    "FSCK started by hdfs (auth:SIMPLE) from /10.1.0.2 for path /empty at Tue "
	    "Mar 05 10:15:42 UTC 2024\n"
	    "/empty <dir>\n"
	    "Status: HEALTHY\n",
	    "Status: HEALTHY\n Total size:\t0 B\n",
	};
	for (size_t i = 0; i < 2; i++) {
		struct locus_catalog *cat = (struct locus_catalog *)&cat;
		struct locus_error err;
		CHECK_EQ_INT(locus_fsck_parse(&cat, texts[i], strlen(texts[i]), "t", NULL, &err),
			     LOCUS_EPARSE);
		CHECK(cat == NULL);
		CHECK_EQ_INT(err.line, 1);
		CHECK(strstr(err.message, "fsck output without a file: expected file lines") !=
		      NULL);
	}
}

/* Every line indented (spaces, tabs, or both, as pasted from a mail or a
 * notebook) reads exactly as the output without indentation. */
static char *indent(const char *text, size_t len, const char *prefix, size_t *out_len)
{
	size_t k = strlen(prefix), n = 0;
	char *out = malloc(2 * len * (k + 1) + k + 1);
	if (!out)
		return NULL;
	memcpy(out + n, prefix, k);
	n += k;
	for (size_t i = 0; i < len; i++) {
		out[n++] = text[i];
		if (text[i] == '\n' && i + 1 < len) {
			memcpy(out + n, prefix, k);
			n += k;
		}
	}
	*out_len = n;
	return out;
}

static char *print_catalog(const struct locus_catalog *cat)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	if (!fp)
		return NULL;
	locus_catalog_print(cat, fp);
	fclose(fp);
	return buf;
}

TEST(indented)
{
	static const char *const fixtures[] = {"fsck/hadoop1.txt", "fsck/hadoop3.txt",
					       "fsck/hadoop3-missing.txt",
					       "fsck/hadoop3-under-construction.txt"};
	static const char *const prefixes[] = {"    ", "\t", " \t  "};
	for (size_t f = 0; f < LOCUS__TEST_LEN(fixtures); f++) {
		size_t len;
		char *text = test_slurp(test_fixture(fixtures[f]), &len);
		CHECK(text != NULL);
		struct locus_catalog *plain = parse_text(text, len, "plain", NULL);
		CHECK(plain != NULL);
		char *want = print_catalog(plain);
		for (size_t k = 0; k < LOCUS__TEST_LEN(prefixes); k++) {
			size_t n = 0;
			char *in = indent(text, len, prefixes[k], &n);
			struct locus_catalog *cat = parse_text(in, n, "indented", NULL);
			free(in);
			CHECK(cat != NULL);
			char *got = print_catalog(cat);
			CHECK_EQ_STR(got, want);
			CHECK(cat->n_datasets > 0);
			free(got);
			locus_catalog_destroy(cat);
		}
		free(want);
		locus_catalog_destroy(plain);
		free(text);
	}
	/* Columns of errors still count from the start of the raw line. */
	struct locus_error err;
	struct locus_catalog *cat;
	static const char bad_len[] = "  /a 10 bytes, 1 block(s):  OK\n"
				      "\t0. blk_1_1 len=abc Live_repl=1  [10.0.0.1:1]\n";
	CHECK_EQ_INT(locus_fsck_parse(&cat, bad_len, strlen(bad_len), "t", NULL, &err),
		     LOCUS_EPARSE);
	CHECK_EQ_INT(err.line, 2);
	CHECK_EQ_INT(err.column, 17);
	static const char short_file[] = "   /a 20 bytes, 2 block(s):  OK\n"
					 "   0. blk_1_1 len=10 repl=1 [10.0.0.1:1]\n";
	CHECK_EQ_INT(locus_fsck_parse(&cat, short_file, strlen(short_file), "t", NULL, &err),
		     LOCUS_EPARSE);
	CHECK_EQ_INT(err.line, 1);
	CHECK_EQ_INT(err.column, 4);
}

/* A stray character before a file line or a block line (a terminal
 * capture) is an error at that line, naming what was found; it used to be
 * skipped, and the error named the line after it. */
TEST(junk_before_lines)
{
	struct locus_error err;
	struct locus_catalog *cat = NULL;
	static const char file_junk[] = "FSCK started by hdfs for path / at now\n"
					"x/data/f 10 bytes, 1 block(s):  OK\n"
					"0. blk_1_1 len=10 repl=1 [10.0.0.1:1]\n";
	CHECK_EQ_INT(locus_fsck_parse(&cat, file_junk, strlen(file_junk), "t", NULL, &err),
		     LOCUS_EPARSE);
	CHECK_EQ_INT(err.line, 2);
	CHECK_EQ_INT(err.column, 1);
	CHECK(strstr(err.message, "expected a file line to start with its path (a '/'), found "
				  "\"x\" before it") != NULL);
	/* An escape sequence is shown escaped, never raw. */
	static const char esc_junk[] = "\x1b[0m/data/f 10 bytes, 1 block(s):  OK\n"
				       "0. blk_1_1 len=10 repl=1 [10.0.0.1:1]\n";
	CHECK_EQ_INT(locus_fsck_parse(&cat, esc_junk, strlen(esc_junk), "t", NULL, &err),
		     LOCUS_EPARSE);
	CHECK_EQ_INT(err.line, 1);
	CHECK(strstr(err.message, "found \"\\x1b[0m\" before it") != NULL);
	CHECK(strchr(err.message, 0x1b) == NULL);
	static const char block_junk[] = "/data/f 20 bytes, 2 block(s):  OK\n"
					 "0. blk_1_1 len=10 repl=1 [10.0.0.1:1]\n"
					 "}1. blk_2_1 len=10 repl=1 [10.0.0.1:1]\n";
	CHECK_EQ_INT(locus_fsck_parse(&cat, block_junk, strlen(block_junk), "t", NULL, &err),
		     LOCUS_EPARSE);
	CHECK_EQ_INT(err.line, 3);
	CHECK(strstr(err.message, "expected a block line to start with its number \"<i>. \", "
				  "found \"}\" before it") != NULL);
	static const char no_slash[] = "data/f 10 bytes, 1 block(s):  OK\n";
	CHECK_EQ_INT(locus_fsck_parse(&cat, no_slash, strlen(no_slash), "t", NULL, &err),
		     LOCUS_EPARSE);
	CHECK(strstr(err.message, "start with its path") != NULL);
	CHECK(cat == NULL);
}

/* Live_repl / repl against the replicas listed: a problem (flags 0) when
 * the count is above the list, or, with -replicaDetails states, differs
 * from the replicas shown live. A list longer than the count without
 * states is what fsck prints beside decommissioned replicas: no problem. */
TEST(replica_count_mismatch)
{
	struct locus_catalog *cat =
	    parse_str("/f 40 bytes, 4 block(s):  OK\n"
		      "0. blk_1_1 len=10 Live_repl=3  [10.0.0.1:1]\n"
		      "1. blk_2_1 len=10 repl=1 [10.0.0.1:1, 10.0.0.2:1]\n"
		      "2. blk_3_1 len=10 Live_repl=2  [10.0.0.1:1(LIVE), 10.0.0.2:1(EXCESS), "
		      "10.0.0.3:1(DECOMMISSIONING)]\n"
		      "3. blk_4_1 len=10 Live_repl=2  [10.0.0.1:1(LIVE), 10.0.0.2:1(STALE_NODE), "
		      "10.0.0.3:1(EXCESS)]\n"
		      "/g 10 bytes, 1 block(s), OPENFORWRITE:  OK\n"
		      "Under Construction Block:\n"
		      "0. blk_5_1 len=10 Expected_repl=3  [10.0.0.1:1]\n");
	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->n_problems, 3);
	CHECK(problem_is(cat, 0, 0, 0, 0,
			 "block blk_1_1: Live_repl=3 but 1 replica is listed (line 2)"));
	CHECK(problem_is(cat, 1, 0, 2, 0,
			 "block blk_3_1: Live_repl=2 but 1 replica is listed as live (line 4)"));
	CHECK(problem_is(cat, 2, 1, 0, UC, "under construction"));
	CHECK(chunk_is(cat, 0, 0, 0, 10, 0, "10.0.0.1"));
	locus_catalog_destroy(cat);
}

/* Host names follow the platform's rule: a hosts file that names two
 * addresses "node01" and "NODE01.example.org" names one host; names the
 * rule cannot place are an error naming them. */
TEST(host_name_rule)
{
	static const char same[] = "10.0.0.1 node01\n10.0.0.2 NODE01.example.org\n"
				   "10.0.0.3 node02\n";
	struct locus_hostmap *hosts = NULL;
	struct locus_error err;
	CHECK_EQ_INT(locus_hostmap_parse(&hosts, same, strlen(same), "m", &err), 0);
	static const char text[] =
	    "/f 20 bytes, 2 block(s):  OK\n"
	    "0. blk_1_1 len=10 repl=2 [10.0.0.2:1, 10.0.0.3:1]\n"
	    "1. blk_2_1 len=10 repl=3 [10.0.0.1:1, 10.0.0.3:1, 10.0.0.2:1]\n";
	struct locus_catalog *cat = parse_text(text, strlen(text), "t", hosts);
	locus_hostmap_destroy(hosts);
	CHECK(cat != NULL);
	CHECK_EQ_STR(host_list(cat), "NODE01.example.org,node02");
	CHECK(chunk_is(cat, 0, 1, 10, 10, 0, "NODE01.example.org,node02"));
	locus_catalog_destroy(cat);

	static const char ambiguous[] = "10.0.0.1 dn1.a.example\n10.0.0.2 dn1.b.example\n"
					"10.0.0.3 DN1\n";
	CHECK_EQ_INT(locus_hostmap_parse(&hosts, ambiguous, strlen(ambiguous), "m", &err), 0);
	static const char text2[] =
	    "/f 10 bytes, 1 block(s):  OK\n"
	    "0. blk_1_1 len=10 repl=3 [10.0.0.1:1, 10.0.0.2:1, 10.0.0.3:1]\n";
	cat = (struct locus_catalog *)&cat;
	CHECK_EQ_INT(locus_fsck_parse(&cat, text2, strlen(text2), "t", hosts, &err), LOCUS_EPARSE);
	locus_hostmap_destroy(hosts);
	CHECK(cat == NULL);
	CHECK_EQ_INT(err.line, 2);
	CHECK_EQ_INT(err.column, 51);
	CHECK(strstr(err.message,
		     "datanode 10.0.0.3:1 is host \"DN1\", which cannot be told "
		     "apart from host \"dn1.a.example\"; host \"dn1.b.example\"") != NULL);
	CHECK(strstr(err.message, "ignoring case") != NULL);
}

/* Replica forms not in the fixtures: plain "ip:port", bracketed IPv6,
 * upgrade domains, spaces around separators, a host listed twice (two
 * datanodes on one machine) kept once. */
TEST(replica_forms)
{
	struct locus_catalog *cat =
	    parse_str("/f 30 bytes, replicated: replication=3, 3 block(s):  OK\n"
		      "0. blk_1_1 len=10 repl=3 [10.0.0.1:50010, 10.0.0.2:50010,10.0.0.1:50011]\n"
		      "1. BP-1-10.0.0.9-1:blk_2_2 len=10 Live_repl=2  [ [fd00::1]:9866 , "
		      "/r1/[fd00::2]:9866 ]\n"
		      "2. blk_3_3 len=10 Live_repl=2  "
		      "[DatanodeInfoWithStorage[10.0.0.3:9866,DS-3,SSD](ud=ud-1)(LIVE), "
		      "/r2/10.0.0.4:9866 (ud=ud-2) (DECOMMISSIONING)]\n");
	CHECK(cat != NULL);
	CHECK(dataset_is(cat, 0, "/f", 30, 3, 0));
	CHECK(chunk_is(cat, 0, 0, 0, 10, 0, "10.0.0.1,10.0.0.2"));
	CHECK(chunk_is(cat, 0, 1, 10, 10, 0, "fd00::1,fd00::2"));
	CHECK(chunk_is(cat, 0, 2, 20, 10, 0, "10.0.0.3,10.0.0.4"));
	CHECK_EQ_STR(host_list(cat), "10.0.0.1,10.0.0.2,fd00::1,fd00::2=/r1,10.0.0.3,10.0.0.4=/r2");
	locus_catalog_destroy(cat);
}

/* A path may contain " bytes, " itself; fsck's messages about a file are
 * skipped. */
TEST(odd_paths)
{
	struct locus_catalog *cat = parse_str("/odd 5 bytes, name 10 bytes, 1 block(s):  OK\n"
					      "/odd 5 bytes, name: Under replicated blk_1_1. "
					      "Target Replicas is 3 but found 1 live replica(s).\n"
					      "0. blk_1_1 len=10 repl=1 [10.0.0.1:1]\n"
					      "/a/b c/d <dir>\n"
					      "/a/b c/d/e\xc3\xa9 1 bytes, 1 block(s):  OK\n"
					      "0. blk_2_1 len=1 repl=1 [10.0.0.1:1]\n");
	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->n_datasets, 2);
	CHECK(dataset_is(cat, 0, "/odd 5 bytes, name", 10, 1, 0));
	CHECK(dataset_is(cat, 1, "/a/b c/d/e\xc3\xa9", 1, 1, 0));
	locus_catalog_destroy(cat);
}

/* A status that reports what no block line shows is recorded for the
 * whole file, so that it is not lost. */
TEST(status_without_blocks)
{
	struct locus_catalog *cat = parse_str("/f 10 bytes, replicated: replication=3, 1 block(s): "
					      " MISSING 1 blocks of total size 10 B\n"
					      "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:9866]\n"
					      "/g 10 bytes, replicated: replication=3, 1 block(s): "
					      " CORRUPT 1 blocks of total size 10 B\n"
					      "0. blk_2_1 len=10 Live_repl=0  [10.0.0.1:9866]\n");
	CHECK(cat != NULL);
	CHECK_EQ_INT(cat->n_problems, 2);
	CHECK(chunk_is(cat, 0, 0, 0, 10, 0, "10.0.0.1"));
	CHECK(problem_is(cat, 0, 0, SIZE_MAX, MISSING,
			 "file status: MISSING 1 blocks of total size 10 B"));
	CHECK(problem_is(cat, 1, 1, SIZE_MAX, CORRUPT,
			 "file status: CORRUPT 1 blocks of total size 10 B"));
	locus_catalog_destroy(cat);
}

/* ---- bad inputs ---------------------------------------------------------- */

/* Parses `text` expecting LOCUS_EPARSE at `line` (and `col` unless 0) with
 * `needle` in the message, no catalog, and the file name in the error. */
static int bad(const char *text, long line, long col, const char *needle)
{
	struct locus_catalog *cat = (struct locus_catalog *)&cat;
	struct locus_error err;
	locus_error_clear(&err);
	int rc = locus_fsck_parse(&cat, text, strlen(text), "bad.txt", NULL, &err);
	if (rc != LOCUS_EPARSE || cat != NULL || err.code != rc || err.line != line ||
	    (col && err.column != col) || strcmp(err.file, "bad.txt") != 0 ||
	    !strstr(err.message, needle)) {
		fprintf(stderr,
			"unexpected: rc %d, line %ld col %ld, \"%s\" (want line %ld col %ld, "
			"\"%s\")\n",
			rc, err.line, err.column, err.message, line, col, needle);
		return 0;
	}
	return 1;
}

#define FILE1 "/a 10 bytes, replicated: replication=1, 1 block(s):  OK\n"

/* Datanode addresses must be IPv4 or IPv6 addresses with a port in
 * 1..65535 (fsck prints addresses, not names). */
TEST(bad_addresses)
{
	static const struct {
		const char *replica, *needle;
	} bad_addr[] = {
	    {"10.0.0.256:1", "a valid IPv4 address"},
	    {"10.0.0:1", "a valid IPv4 address"},
	    {"dn1:9866", "a valid IPv4 address (fsck prints addresses, not host names)"},
	    {"10.0.0.1:0", "a port from 1 to 65535"},
	    {"10.0.0.1:65536", "a port from 1 to 65535"},
	    {"10.0.0.1:99999999999999999999999", "a port from 1 to 65535"},
	    {"[fd00::g]:1", "a valid IPv6 address between '[' and ']'"},
	    {"[10.0.0.1]:1", "a valid IPv6 address between '[' and ']'"},
	    {"[fd00::1]:70000", "a port from 1 to 65535"},
	    {"fd00:::1", "a valid IPv6 address"},
	};
	char text[256];
	for (size_t i = 0; i < LOCUS__TEST_LEN(bad_addr); i++) {
		snprintf(text, sizeof text, FILE1 "0. blk_1_1 len=10 Live_repl=1  [%s]\n",
			 bad_addr[i].replica);
		CHECK(bad(text, 2, 33, bad_addr[i].needle));
	}
	struct locus_catalog *cat =
	    parse_str("/f 10 bytes, 1 block(s):  OK\n"
		      "0. blk_1_1 len=10 Live_repl=3  [[fe80::1%eth0]:9866, 10.0.0.1:65535, "
		      "10.0.0.2]\n");
	CHECK(cat != NULL);
	CHECK(chunk_is(cat, 0, 0, 0, 10, 0, "fe80::1%eth0,10.0.0.1,10.0.0.2"));
	locus_catalog_destroy(cat);
}

TEST(bad_block_lines)
{
	CHECK(bad(FILE1 "0. blk_1_1 len=abc Live_repl=1  [10.0.0.1:1]\n", 2, 16,
		  "expected \" len=<bytes>\""));
	CHECK(bad(FILE1 "0. blk_1_1\n", 2, 11, "len=<bytes>"));
	CHECK(bad(FILE1 "0. blk_x_1 len=10 Live_repl=1  [10.0.0.1:1]\n", 2, 4,
		  "expected a block name \"[<pool id>:]blk_<id>_<genstamp>\""));
	CHECK(bad(FILE1 "0. BP-1:blk_1 len=10 Live_repl=1  [10.0.0.1:1]\n", 2, 4,
		  "blk_<id>_<genstamp>"));
	CHECK(bad(FILE1 "0.  \n", 2, 5, "block name"));
	CHECK(bad(FILE1 "1. blk_1_1 len=10 Live_repl=1  [10.0.0.1:1]\n", 2, 1,
		  "expected block number 0"));
	CHECK(bad(FILE1 "0. blk_1_1 len=10 foo=1  [10.0.0.1:1]\n", 2, 19,
		  "expected \" MISSING!\", \" repl=<n>\", \" Live_repl=<n>\""));
	CHECK(bad(FILE1 "0. blk_1_1 len=10x Live_repl=1 [10.0.0.1:1]\n", 2, 18, "Live_repl"));
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=  [10.0.0.1:1]\n", 2, 29,
		  "expected a replica count"));
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1\n", 2, 30,
		  "expected the replica list \"[...]\" of block blk_1_1 (was fsck run with "
		  "-locations?)"));
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:1] extra\n", 2, 45,
		  "expected the end of the line"));
	CHECK(bad(FILE1 "0. blk_1_1 len=99999999999999999999 Live_repl=1  [10.0.0.1:1]\n", 2, 0,
		  "len=<bytes>"));
	CHECK(bad("/a 18446744073709551615 bytes, 2 block(s):  OK\n"
		  "0. blk_1_1 len=18446744073709551615 repl=1 [10.0.0.1:1]\n"
		  "1. blk_2_1 len=1 repl=1 [10.0.0.1:1]\n",
		  3, 16, "less than 2^64 bytes"));
}

TEST(bad_block_outside_file)
{
	CHECK(bad("FSCK started by hdfs for path / at now\n"
		  "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:1]\n",
		  2, 1, "expected a file line"));
	/* A directory line ends the file before it. */
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:1]\n"
			"/b <dir>\n"
			"1. blk_2_1 len=10 Live_repl=1  [10.0.0.1:1]\n",
		  4, 1, "expected a file line"));
}

TEST(bad_counts)
{
	/* Too few blocks, noticed at the next file and at the end. */
	CHECK(bad("/a 20 bytes, 2 block(s):  OK\n"
		  "0. blk_1_1 len=10 repl=1 [10.0.0.1:1]\n"
		  "/b 0 bytes, 0 block(s):  OK\n",
		  1, 1, "expected 2 block(s) of 20 bytes in total after the file line of \"/a\""));
	CHECK(bad("Status: HEALTHY\n"
		  "/a 20 bytes, 2 block(s):  OK\n"
		  "0. blk_1_1 len=10 repl=1 [10.0.0.1:1]\n",
		  2, 1, "found 1 block(s) of 10 bytes (truncated output?)"));
	/* Right count, wrong length. */
	CHECK(bad("/a 25 bytes, 1 block(s):  OK\n"
		  "0. blk_1_1 len=10 repl=1 [10.0.0.1:1]\n",
		  1, 1, "expected 1 block(s) of 25 bytes"));
	/* Too many blocks. */
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:1]\n"
			"1. blk_2_1 len=10 Live_repl=1  [10.0.0.1:1]\n",
		  1, 1, "found 2 block(s) of 20 bytes"));
	/* The under-construction allowance is for one block, not more. */
	CHECK(bad("/a 0 bytes, 0 block(s), OPENFORWRITE:  OK\n"
		  "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:1]\n"
		  "Under Construction Block:\n"
		  "1. blk_2_1 len=0 Expected_repl=1  [10.0.0.1:1]\n",
		  1, 1, "expected 0 block(s) of 0 bytes"));
}

TEST(bad_brackets)
{
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:1\n", 2, 43,
		  "expected ']' to close the replica list opened at column 32"));
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:1, \n", 2, 0,
		  "expected a replica"));
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:1 10.0.0.2:1]\n", 2, 44,
		  "expected ', ' or ']' after a replica"));
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:1; 10.0.0.2:1]\n", 2, 33,
		  "expected a datanode address"));
	CHECK(bad(FILE1
		  "0. blk_1_1 len=10 Live_repl=1  [DatanodeInfoWithStorage[10.0.0.1:1,DS-1,DISK]\n",
		  2, 0, "expected ']' to close the replica list"));
	CHECK(bad(FILE1
		  "0. blk_1_1 len=10 Live_repl=1  [DatanodeInfoWithStorage[10.0.0.1:1,DS-1,DISK, "
		  "DatanodeInfoWithStorage[10.0.0.2:1,DS-2,DISK]]\n",
		  2, 0, "expected ']' to close \"DatanodeInfoWithStorage[\""));
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:1(LIVE]\n", 2, 0,
		  "expected ')' to close the replica state"));
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:port]\n", 2, 33,
		  "expected a datanode address \"<IPv4>:<port>\""));
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1  [/rack/]\n", 2, 0, "expected a replica"));
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1  [blk_5 10.0.0.1:1]\n", 2, 0, "blk_<id>:"));
}

TEST(bad_files)
{
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:1]\n"
			"\n" FILE1 "0. blk_2_1 len=10 Live_repl=1  [10.0.0.1:1]\n",
		  4, 1, "expected each file once, but \"/a\" was listed at line 1"));
	CHECK(bad("/a xx bytes, 1 block(s):  OK\n", 1, 0, "<path> <length> bytes"));
	CHECK(bad("/a 10 bytes, x block(s):  OK\n", 1, 0, "<n> block(s)"));
	CHECK(bad("/a 10 bytes, replicated: replication=x, 1 block(s):  OK\n", 1, 0,
		  "replication=<r>"));
	CHECK(bad("/a 10 bytes, erasure-coded: policy=, 1 block(s):  OK\n", 1, 0, "policy=<name>"));
	CHECK(bad("/a 10 bytes, 1 block(s)  OK\n", 1, 0, "':' after \"block(s)\""));
	CHECK(bad("/a\tb 10 bytes, 1 block(s):  OK\n", 1, 3, "without control characters"));
}

TEST(bad_under_construction)
{
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:1]\n"
			"Under Construction Block:\n"
			"/b 0 bytes, 0 block(s):  OK\n",
		  4, 1,
		  "expected the block line of the under construction block announced at line 3"));
	CHECK(bad(FILE1 "0. blk_1_1 len=10 Live_repl=1  [10.0.0.1:1]\n"
			"Under Construction Block:\n\n",
		  3, 1, "expected a block line after \"Under Construction Block:\""));
	CHECK(bad("Status: HEALTHY\nUnder Construction Block:\n", 2, 1,
		  "expected a file line before"));
}

TEST(bad_not_fsck)
{
	CHECK(bad("hello\nworld\n", 1, 1, "not hdfs fsck output"));
	CHECK(bad("{\"BlockLocations\": {}}\n", 1, 1, "not hdfs fsck output"));
	CHECK(bad("", 0, 0, "not hdfs fsck output"));
	CHECK(bad("\n\n   \n", 1, 1, "not hdfs fsck output"));
}

TEST(bad_arguments)
{
	struct locus_catalog *cat = (struct locus_catalog *)&cat;
	CHECK_EQ_INT(locus_fsck_parse(&cat, NULL, 5, "x", NULL, NULL), LOCUS_EINVAL);
	CHECK(cat == NULL);
	CHECK_EQ_INT(locus_fsck_parse(NULL, "x", 1, "x", NULL, NULL), LOCUS_EINVAL);
	/* No error struct: the code alone. */
	CHECK_EQ_INT(locus_fsck_parse(&cat, "junk", 4, "x", NULL, NULL), LOCUS_EPARSE);
	CHECK(cat == NULL);
}

TEST_MAIN(TEST_ENTRY(hadoop1), TEST_ENTRY(hadoop1_hostmap), TEST_ENTRY(hadoop2),
	  TEST_ENTRY(hadoop3), TEST_ENTRY(hadoop3_hostmap), TEST_ENTRY(hadoop3_partial_hostmap),
	  TEST_ENTRY(hostmap_merges_hosts), TEST_ENTRY(hadoop3_racks),
	  TEST_ENTRY(hadoop3_replica_details), TEST_ENTRY(hadoop3_missing),
	  TEST_ENTRY(hadoop3_under_construction), TEST_ENTRY(hadoop3_ec),
	  TEST_ENTRY(length_bounded), TEST_ENTRY(crlf), TEST_ENTRY(no_files), TEST_ENTRY(indented),
	  TEST_ENTRY(junk_before_lines), TEST_ENTRY(replica_count_mismatch),
	  TEST_ENTRY(bad_addresses), TEST_ENTRY(host_name_rule), TEST_ENTRY(replica_forms),
	  TEST_ENTRY(odd_paths), TEST_ENTRY(status_without_blocks), TEST_ENTRY(bad_block_lines),
	  TEST_ENTRY(bad_block_outside_file), TEST_ENTRY(bad_counts), TEST_ENTRY(bad_brackets),
	  TEST_ENTRY(bad_files), TEST_ENTRY(bad_under_construction), TEST_ENTRY(bad_not_fsck),
	  TEST_ENTRY(bad_arguments))
