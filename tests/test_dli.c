/*
 * The six calls of DL-MPI's Table I over every source: a catalog, hdfs
 * fsck output (with a hosts file), a WebHDFS document and a node-local
 * store, all describing the same layout (tests/fixtures/dli/):
 *
 *   dataset a (450 bytes)          dataset sub/b (30 bytes)
 *   chunk 0  [0,100)   dn1 dn2 dn3   chunk 0 [0,20)  dn2
 *   chunk 1  [100,200) dn2 dn3 dn4   chunk 1 [20,30) dn3 dn1
 *   chunk 2  [200,300) dn3 dn4 dn1
 *   chunk 3  [300,400) dn4
 *   chunk 4  [400,450) dn1 dn2
 */
#include <string.h>

#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

struct source {
	const char *label;
	char spec[1024];
	const char *a, *b, *dir, *subdir; /* names in this source */
	struct locus_catalog *cat;
};

static int bytes_of_layout(void *user, uint64_t offset, void *buf, size_t len)
{
	(void)user;
	for (size_t i = 0; i < len; i++)
		((unsigned char *)buf)[i] = (unsigned char)((offset + i) * 7);
	return 0;
}

/* Opens the four sources; returns the number opened (4 on success). */
static int open_sources(struct source *s)
{
	struct locus_error err = {0};
	char buf[512];
	s[0] = (struct source){"catalog", "", "dir/a", "dir/sub/b", "dir", "dir/sub", NULL};
	snprintf(s[0].spec, sizeof s[0].spec, "catalog:%s", test_fixture("dli/layout.cat"));
	s[1] = (struct source){"fsck", "", "/dir/a", "/dir/sub/b", "/dir", "/dir/sub", NULL};
	snprintf(s[1].spec, sizeof s[1].spec, "fsck:%s?hosts=%s", test_fixture("dli/layout.fsck"),
		 LOCUS_TEST_DIR "/fixtures/dli/hosts");
	s[2] = (struct source){"webhdfs", "", "dir/a", NULL, "dir", NULL, NULL};
	snprintf(s[2].spec, sizeof s[2].spec, "webhdfs:%s?dataset=dir/a",
		 test_fixture("dli/layout-a.json"));
	/* The store is written from the catalog, then scanned back. */
	s[3] = (struct source){"store", "", "dir/a", "dir/sub/b", "dir", "dir/sub", NULL};
	const char *root = test_tmpdir();
	snprintf(s[3].spec, sizeof s[3].spec, "store:%s", root);
	struct locus_catalog *cat;
	if (locus_source_open(&cat, s[0].spec, &err))
		return 0;
	for (size_t d = 0; d < cat->n_datasets; d++)
		if (locus_store_write(cat, d, root, bytes_of_layout, NULL, false, &err)) {
			fprintf(stderr, "store write: %s\n",
				locus_error_format(&err, buf, sizeof buf));
			locus_catalog_destroy(cat);
			return 0;
		}
	locus_catalog_destroy(cat);
	for (int i = 0; i < 4; i++) {
		if (locus_source_open(&s[i].cat, s[i].spec, &err)) {
			fprintf(stderr, "%s: %s\n", s[i].label,
				locus_error_format(&err, buf, sizeof buf));
			return i;
		}
	}
	return 4;
}

static void close_sources(struct source *s)
{
	for (int i = 0; i < 4; i++)
		locus_catalog_destroy(s[i].cat);
}

static int same_ids(const struct locus_idlist *l, const size_t *want, size_t n)
{
	if (l->n != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (l->ids[i] != want[i])
			return 0;
	return 1;
}

TEST(map_process_chunks)
{
	struct source s[4];
	int opened = open_sources(s);
	CHECK_EQ_INT(opened, 4);
	static const size_t dn1[] = {0, 2, 4}, dn2[] = {0, 1, 4}, dn3[] = {0, 1, 2},
			    dn4[] = {1, 2, 3};
	for (int i = 0; i < 4; i++) {
		struct locus_idlist l;
		CHECK_EQ_INT(locus_dli_map_process_chunks(s[i].cat, s[i].a, "dn1", &l), 0);
		CHECK(same_ids(&l, dn1, 3));
		locus_idlist_fini(&l);
		CHECK_EQ_INT(locus_dli_map_process_chunks(s[i].cat, s[i].a, "dn2", &l), 0);
		CHECK(same_ids(&l, dn2, 3));
		locus_idlist_fini(&l);
		CHECK_EQ_INT(locus_dli_map_process_chunks(s[i].cat, s[i].a, "dn3", &l), 0);
		CHECK(same_ids(&l, dn3, 3));
		locus_idlist_fini(&l);
		CHECK_EQ_INT(locus_dli_map_process_chunks(s[i].cat, s[i].a, "dn4", &l), 0);
		CHECK(same_ids(&l, dn4, 3));
		locus_idlist_fini(&l);
		/* A process on a host without data has nothing local. */
		CHECK_EQ_INT(locus_dli_map_process_chunks(s[i].cat, s[i].a, "dn9", &l), 0);
		CHECK_EQ_INT(l.n, 0);
		locus_idlist_fini(&l);
		CHECK_EQ_INT(locus_dli_map_process_chunks(s[i].cat, "nope", "dn1", &l),
			     LOCUS_ENOENT);
		if (s[i].b) {
			static const size_t b1[] = {1}, b2[] = {0};
			CHECK_EQ_INT(locus_dli_map_process_chunks(s[i].cat, s[i].b, "dn1", &l), 0);
			CHECK(same_ids(&l, b1, 1));
			locus_idlist_fini(&l);
			CHECK_EQ_INT(locus_dli_map_process_chunks(s[i].cat, s[i].b, "dn2", &l), 0);
			CHECK(same_ids(&l, b2, 1));
			locus_idlist_fini(&l);
		}
	}
	close_sources(s);
}

TEST(map_chunks_process)
{
	struct source s[4];
	CHECK_EQ_INT(open_sources(s), 4);
	/* Two processes on dn4 share its chunks; "dn1.example.org" and "DN1"
	 * name dn1. */
	const char *procs[] = {"dn4", "dn1.example.org", "dn4", "nowhere", "DN1"};
	static const size_t dn1[] = {0, 2, 4}, dn4[] = {1, 2, 3};
	for (int i = 0; i < 4; i++) {
		struct locus_chunk_map m;
		CHECK_EQ_INT(locus_dli_map_chunks_process(s[i].cat, s[i].a, procs, 5, &m), 0);
		CHECK_EQ_INT(m.n_procs, 5);
		CHECK_EQ_STR(s[i].cat->datasets[m.dataset].name, s[i].a);
		CHECK(same_ids(&m.local[0], dn4, 3));
		CHECK(same_ids(&m.local[1], dn1, 3));
		CHECK(same_ids(&m.local[2], dn4, 3));
		CHECK_EQ_INT(m.local[3].n, 0);
		CHECK(same_ids(&m.local[4], dn1, 3));
		locus_chunk_map_fini(&m);
		CHECK_EQ_INT(locus_dli_map_chunks_process(s[i].cat, "nope", procs, 5, &m),
			     LOCUS_ENOENT);
	}
	close_sources(s);
}

TEST(map_dprocess_dchunks)
{
	struct source s[4];
	CHECK_EQ_INT(open_sources(s), 4);
	const char *procs[] = {"dn1", "dn2", "dn3", "dn4"};
	for (int i = 0; i < 4; i++) {
		struct locus_dir_map m;
		CHECK_EQ_INT(locus_dli_map_dprocess_dchunks(s[i].cat, s[i].dir, procs, 4, &m), 0);
		CHECK_EQ_INT(m.n_datasets, s[i].b ? 2 : 1);
		CHECK_EQ_STR(s[i].cat->datasets[m.maps[0].dataset].name, s[i].a);
		CHECK_EQ_INT(m.maps[0].local[3].n, 3);
		if (s[i].b) {
			static const size_t b1[] = {1}, b3[] = {1};
			CHECK_EQ_STR(s[i].cat->datasets[m.maps[1].dataset].name, s[i].b);
			CHECK(same_ids(&m.maps[1].local[0], b1, 1));
			CHECK_EQ_INT(m.maps[1].local[1].n, 1);
			CHECK(same_ids(&m.maps[1].local[2], b3, 1));
			CHECK_EQ_INT(m.maps[1].local[3].n, 0);
		}
		locus_dir_map_fini(&m);
		/* A trailing slash means the same directory. */
		char withslash[64];
		snprintf(withslash, sizeof withslash, "%s/", s[i].dir);
		CHECK_EQ_INT(locus_dli_map_dprocess_dchunks(s[i].cat, withslash, procs, 4, &m), 0);
		CHECK_EQ_INT(m.n_datasets, s[i].b ? 2 : 1);
		locus_dir_map_fini(&m);
		if (s[i].subdir) {
			CHECK_EQ_INT(
			    locus_dli_map_dprocess_dchunks(s[i].cat, s[i].subdir, procs, 4, &m), 0);
			CHECK_EQ_INT(m.n_datasets, 1);
			CHECK_EQ_STR(s[i].cat->datasets[m.maps[0].dataset].name, s[i].b);
			locus_dir_map_fini(&m);
		}
		/* "di" is a prefix of "dir" but not a directory above it. */
		CHECK_EQ_INT(
		    locus_dli_map_dprocess_dchunks(s[i].cat, i == 1 ? "/di" : "di", procs, 4, &m),
		    LOCUS_ENOENT);
		/* The whole catalog. */
		CHECK_EQ_INT(locus_dli_map_dprocess_dchunks(s[i].cat, "", procs, 4, &m), 0);
		CHECK_EQ_INT(m.n_datasets, s[i].cat->n_datasets);
		locus_dir_map_fini(&m);
	}
	close_sources(s);
}

TEST(get_total_chunks)
{
	struct source s[4];
	CHECK_EQ_INT(open_sources(s), 4);
	for (int i = 0; i < 4; i++) {
		size_t n;
		CHECK(locus_dli_get_total_chunks(s[i].cat, s[i].a, "dn1", &n) == 0 && n == 3);
		CHECK(locus_dli_get_total_chunks(s[i].cat, s[i].a, "dn4", &n) == 0 && n == 3);
		CHECK(locus_dli_get_total_chunks(s[i].cat, s[i].a, "dn7", &n) == 0 && n == 0);
		CHECK_EQ_INT(locus_dli_get_total_chunks(s[i].cat, "nope", "dn1", &n), LOCUS_ENOENT);
		if (s[i].b)
			CHECK(locus_dli_get_total_chunks(s[i].cat, s[i].b, "dn3", &n) == 0 &&
			      n == 1);
	}
	close_sources(s);
}

TEST(get_data_percentage)
{
	struct source s[4];
	CHECK_EQ_INT(open_sources(s), 4);
	for (int i = 0; i < 4; i++) {
		double p;
		/* dn1 holds chunks 0, 2, 4: 250 of 450 bytes. */
		CHECK_EQ_INT(locus_dli_get_data_percentage(s[i].cat, s[i].a, "dn1", &p), 0);
		CHECK_NEAR(p, 100.0 * 250 / 450, 1e-12);
		CHECK_EQ_INT(locus_dli_get_data_percentage(s[i].cat, s[i].a, "dn4", &p), 0);
		CHECK_NEAR(p, 100.0 * 300 / 450, 1e-12);
		CHECK_EQ_INT(locus_dli_get_data_percentage(s[i].cat, s[i].a, "dn2", &p), 0);
		CHECK_NEAR(p, 100.0 * 250 / 450, 1e-12);
		CHECK_EQ_INT(locus_dli_get_data_percentage(s[i].cat, s[i].a, "dn9", &p), 0);
		CHECK_NEAR(p, 0.0, 0);
		if (s[i].b) {
			CHECK_EQ_INT(locus_dli_get_data_percentage(s[i].cat, s[i].b, "dn2", &p), 0);
			CHECK_NEAR(p, 100.0 * 20 / 30, 1e-12);
		}
		CHECK_EQ_INT(locus_dli_get_data_percentage(s[i].cat, "nope", "dn1", &p),
			     LOCUS_ENOENT);
	}
	close_sources(s);
}

TEST(check_data)
{
	struct source s[4];
	CHECK_EQ_INT(open_sources(s), 4);
	static const struct {
		const char *proc;
		uint64_t off;
		bool local;
	} cases[] = {
	    {"dn1", 0, true},	 {"dn1", 99, true},  {"dn1", 100, false}, {"dn1", 199, false},
	    {"dn1", 200, true},	 {"dn1", 449, true}, {"dn4", 0, false},	  {"dn4", 350, true},
	    {"dn4", 400, false}, {"dn3", 250, true}, {"dn9", 0, false},
	};
	for (int i = 0; i < 4; i++) {
		for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
			bool local = !cases[k].local;
			CHECK_EQ_INT(locus_dli_check_data(s[i].cat, s[i].a, cases[k].proc,
							  cases[k].off, &local),
				     0);
			if (local != cases[k].local)
				fprintf(stderr, "%s: %s offset %llu\n", s[i].label, cases[k].proc,
					(unsigned long long)cases[k].off);
			CHECK(local == cases[k].local);
		}
		bool local;
		CHECK_EQ_INT(locus_dli_check_data(s[i].cat, s[i].a, "dn1", 450, &local),
			     LOCUS_ERANGE);
		CHECK_EQ_INT(locus_dli_check_data(s[i].cat, "nope", "dn1", 0, &local),
			     LOCUS_ENOENT);
	}
	close_sources(s);
}

TEST(sources_agree_on_racks)
{
	struct source s[4];
	CHECK_EQ_INT(open_sources(s), 4);
	/* The catalog and WebHDFS carry racks; fsck without -racks and the
	 * store do not. */
	for (int i = 0; i < 4; i++) {
		long h = locus_catalog_find_host(s[i].cat, "dn3");
		CHECK(h >= 0);
		if (i == 0 || i == 2)
			CHECK_EQ_STR(s[i].cat->hosts[h].rack, "/rack-b");
		CHECK_EQ_INT(s[i].cat->n_problems, 0);
	}
	close_sources(s);
}

TEST_MAIN(TEST_ENTRY(map_process_chunks), TEST_ENTRY(map_chunks_process),
	  TEST_ENTRY(map_dprocess_dchunks), TEST_ENTRY(get_total_chunks),
	  TEST_ENTRY(get_data_percentage), TEST_ENTRY(check_data),
	  TEST_ENTRY(sources_agree_on_racks))
