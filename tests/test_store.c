/* The node-local store: writing all or nothing, scanning, round trips. */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "locality/store.h"
#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

static char *print_to_string(const struct locus_catalog *cat)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	locus_catalog_print(cat, fp);
	fclose(fp);
	return buf;
}

static int pattern(void *user, uint64_t offset, void *buf, size_t len)
{
	(void)user;
	for (size_t i = 0; i < len; i++)
		((unsigned char *)buf)[i] = (unsigned char)((offset + i) % 251);
	return 0;
}

/* Fails once `offset` reaches *(uint64_t *)user. */
static int failing(void *user, uint64_t offset, void *buf, size_t len)
{
	if (offset >= *(uint64_t *)user)
		return LOCUS_EIO;
	return pattern(NULL, offset, buf, len);
}

static const char canonical[] = "locus-catalog\t1\n"
				"host\tn1\t-\nhost\tn2\t-\nhost\tn3\t-\nhost\tn4\t-\n"
				"dataset\tdb/frag\t2500000\t3\t-\n"
				"chunk\t0\t0\t1048576\tn1,n3\t-\n"
				"chunk\t1\t1048576\t1048576\tn2,n3,n4\t-\n"
				"chunk\t2\t2097152\t402848\tn4\t-\n"
				"dataset\tq\t7\t1\t-\n"
				"chunk\t0\t0\t7\tn2\t-\n"
				"end\t2\t4\n";

static struct locus_catalog *parse(const char *text)
{
	struct locus_catalog *cat = NULL;
	struct locus_error err;
	locus_catalog_parse(&cat, text, strlen(text), "t", &err);
	return cat;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static int write_all(const struct locus_catalog *cat, const char *root, bool force)
{
	struct locus_error err = {0};
	for (size_t d = 0; d < cat->n_datasets; d++) {
		int rc = locus_store_write(cat, d, root, pattern, NULL, force, &err);
		if (rc)
			return rc;
	}
	return 0;
}

TEST(catalog_store_catalog_round_trip)
{
	const char *root = test_tmpdir();
	struct locus_catalog *cat = parse(canonical), *back;
	struct locus_error err = {0};
	CHECK(cat != NULL);
	CHECK_EQ_INT(write_all(cat, root, false), 0);
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), 0);
	char *text = print_to_string(back);
	CHECK_EQ_STR(text, canonical);
	free(text);
	CHECK_EQ_INT(back->n_problems, 0);
	locus_catalog_destroy(back);

	/* Every replica holds exactly its bytes. */
	char path[1024], name[64];
	locus_store_chunk_name(name, sizeof name, 1, 1048576);
	CHECK_EQ_STR(name, "chunk-000001-1048576");
	snprintf(path, sizeof path, "%s/n4/db/frag/%s", root, name);
	size_t len;
	unsigned char *bytes = (unsigned char *)test_slurp(path, &len);
	CHECK(bytes != NULL);
	CHECK_EQ_INT(len, 1048576);
	int same = 1;
	for (size_t i = 0; i < len; i++)
		same &= bytes[i] == (unsigned char)((1048576 + i) % 251);
	free(bytes);
	CHECK(same);
	/* No temporaries are left, and n1 holds only db. */
	snprintf(path, sizeof path, "%s/n1", root);
	CHECK_EQ_INT(count_entries(path), 1);
	locus_catalog_destroy(cat);
}

TEST(existing_dataset_needs_force)
{
	const char *root = test_tmpdir();
	struct locus_catalog *cat = parse(canonical), *back;
	struct locus_error err = {0};
	CHECK_EQ_INT(write_all(cat, root, false), 0);
	CHECK_EQ_INT(locus_store_write(cat, 1, root, pattern, NULL, false, &err), LOCUS_EEXIST);
	CHECK(strstr(err.message, "--force") != NULL);
	/* Replace q with a different placement: only the new one remains. */
	struct locus_catalog *moved =
	    parse("locus-catalog\t1\nhost\tn3\t-\n"
		  "dataset\tq\t7\t1\t-\nchunk\t0\t0\t7\tn3\t-\nend\t1\t1\n");
	CHECK(moved != NULL);
	CHECK_EQ_INT(locus_store_write(moved, 0, root, pattern, NULL, true, &err), 0);
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), 0);
	long q = locus_catalog_find_dataset(back, "q");
	CHECK(q >= 0);
	CHECK_EQ_INT(back->datasets[q].chunks[0].n_replicas, 1); /* the n2 copy went too */
	CHECK_EQ_STR(back->hosts[back->datasets[q].chunks[0].replicas[0]].name, "n3");
	locus_catalog_destroy(back);
	locus_catalog_destroy(moved);
	locus_catalog_destroy(cat);
}

TEST(failure_leaves_store_untouched)
{
	const char *root = test_tmpdir();
	struct locus_catalog *cat = parse(canonical), *back;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_store_write(cat, 1, root, pattern, NULL, false, &err), 0);
	char *before;
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), 0);
	before = print_to_string(back);
	locus_catalog_destroy(back);
	/* Reading the data fails in the middle of chunk 1. */
	uint64_t fail_at = 1048576 + 4096;
	int rc = locus_store_write(cat, 0, root, failing, &fail_at, false, &err);
	CHECK_EQ_INT(rc, LOCUS_EIO);
	CHECK(strstr(err.message, "db/frag") != NULL);
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), 0);
	char *after = print_to_string(back);
	CHECK_EQ_STR(after, before);
	locus_catalog_destroy(back);
	/* Node directories the failed write created are gone again, and the
	 * others hold no temporaries. */
	char path[1024];
	snprintf(path, sizeof path, "%s/n1", root);
	CHECK_EQ_INT(count_entries(path), -1);
	snprintf(path, sizeof path, "%s/n2", root);
	CHECK_EQ_INT(count_entries(path), 1); /* q */
	/* And a forced replacement that fails keeps the old copy. */
	fail_at = 0;
	CHECK_EQ_INT(locus_store_write(cat, 1, root, failing, &fail_at, true, &err), LOCUS_EIO);
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), 0);
	char *again = print_to_string(back);
	CHECK_EQ_STR(again, before);
	locus_catalog_destroy(back);
	free(before);
	free(after);
	free(again);
	locus_catalog_destroy(cat);
}

TEST(lost_and_corrupt_replicas_are_reported)
{
	const char *root = test_tmpdir();
	struct locus_catalog *cat = parse(canonical), *back;
	struct locus_error err = {0};
	char path[1024];
	CHECK_EQ_INT(write_all(cat, root, false), 0);
	/* Chunk 0 of db/frag is lost (both replicas), the last chunk too
	 * (only the manifest knows it existed), and n4's copy of chunk 1 is
	 * truncated. */
	snprintf(path, sizeof path, "%s/n1/db/frag/chunk-000000-0", root);
	CHECK_EQ_INT(unlink(path), 0);
	snprintf(path, sizeof path, "%s/n3/db/frag/chunk-000000-0", root);
	CHECK_EQ_INT(unlink(path), 0);
	snprintf(path, sizeof path, "%s/n4/db/frag/chunk-000002-2097152", root);
	CHECK_EQ_INT(unlink(path), 0);
	snprintf(path, sizeof path, "%s/n4/db/frag/chunk-000001-1048576", root);
	CHECK_EQ_INT(truncate(path, 1000), 0);
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), 0);
	long d = locus_catalog_find_dataset(back, "db/frag");
	CHECK(d >= 0);
	const struct locus_dataset *ds = &back->datasets[d];
	CHECK_EQ_INT(ds->n_chunks, 3);
	CHECK_EQ_INT(ds->size, 2500000);
	CHECK_EQ_INT(ds->chunks[0].n_replicas, 0);
	CHECK_EQ_INT(ds->chunks[0].flags, LOCUS_CHUNK_MISSING);
	CHECK_EQ_INT(ds->chunks[0].length, 1048576);
	CHECK_EQ_INT(ds->chunks[1].n_replicas, 2);
	CHECK_EQ_INT(ds->chunks[1].flags, LOCUS_CHUNK_CORRUPT);
	CHECK_EQ_INT(ds->chunks[2].flags, LOCUS_CHUNK_MISSING);
	CHECK_EQ_INT(ds->chunks[2].length, 402848);
	CHECK_EQ_INT(back->n_problems, 3);
	locus_catalog_destroy(back);
	locus_catalog_destroy(cat);
}

TEST(bad_names_and_bad_stores)
{
	const char *root = test_tmpdir();
	struct locus_error err = {0};
	static const char *bad[] = {"/abs", "../up", "a/../b", "a//b", "a/", ".hidden", "a/.x"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct locus_catalog *cat;
		CHECK_EQ_INT(locus_catalog_create(&cat), 0);
		long h = locus_catalog_add_host(cat, "n1", NULL);
		long d = locus_catalog_add_dataset(cat, bad[i]);
		uint32_t r = (uint32_t)h;
		CHECK(d >= 0 && locus_catalog_add_chunk(cat, (size_t)d, 1, &r, 1, 0) == 0);
		CHECK_EQ_INT(locus_store_write(cat, (size_t)d, root, pattern, NULL, false, &err),
			     LOCUS_EINVAL);
		locus_catalog_destroy(cat);
	}
	CHECK_EQ_INT(count_entries(root), 0);
	/* A scan of a missing root fails with the path. */
	struct locus_catalog *cat;
	char path[600];
	snprintf(path, sizeof path, "%s/nothing-here", root);
	CHECK_EQ_INT(locus_store_scan(&cat, path, &err), LOCUS_EIO);
	CHECK(strstr(err.file, "nothing-here") != NULL);
	CHECK(cat == NULL);
	/* Nodes disagreeing on a dataset's manifest is an error. */
	struct locus_catalog *two = parse("locus-catalog\t1\ndataset\tx\t4\t1\t-\n"
					  "chunk\t0\t0\t4\ta,b\t-\nend\t1\t1\n");
	CHECK_EQ_INT(write_all(two, root, false), 0);
	snprintf(path, sizeof path, "%s/b/x/.locus-dataset", root);
	CHECK_EQ_INT(test_write(path, "locus-store-dataset 1\nsize 9\nchunks 1\n"), 0);
	CHECK_EQ_INT(locus_store_scan(&cat, root, &err), LOCUS_EPARSE);
	CHECK(strstr(err.message, "says") != NULL);
	CHECK_EQ_INT(test_write(path, "garbage\n"), 0);
	CHECK_EQ_INT(locus_store_scan(&cat, root, &err), LOCUS_EPARSE);
	CHECK(strstr(err.file, ".locus-dataset") != NULL);
	locus_catalog_destroy(two);
}

TEST(stray_files_are_ignored)
{
	const char *root = test_tmpdir();
	struct locus_catalog *cat = parse(canonical), *back;
	struct locus_error err = {0};
	char path[1024];
	CHECK_EQ_INT(write_all(cat, root, false), 0);
	snprintf(path, sizeof path, "%s/README", root);
	CHECK_EQ_INT(test_write(path, "not a node\n"), 0);
	snprintf(path, sizeof path, "%s/n1/db/frag/notes.txt", root);
	CHECK_EQ_INT(test_write(path, "mine\n"), 0);
	snprintf(path, sizeof path, "%s/n1/.locus-tmp.1.1", root);
	CHECK_EQ_INT(mkdir(path, 0755), 0);
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), 0);
	char *text = print_to_string(back);
	CHECK_EQ_STR(text, canonical);
	free(text);
	locus_catalog_destroy(back);
	locus_catalog_destroy(cat);
}

/* The scan split over nodes (each lists its own directory, one assembles)
 * gives exactly the catalog of the whole scan, problems included. */
static char *split_scan(const char *root, int *rc)
{
	struct locus_error err = {0};
	char **nodes = NULL;
	size_t n = 0;
	*rc = locus__store_nodes(root, &nodes, &n, &err);
	if (*rc)
		return NULL;
	struct locus__buf *bufs = calloc(n ? n : 1, sizeof *bufs);
	const char **lists = calloc(n ? n : 1, sizeof *lists);
	size_t *lens = calloc(n ? n : 1, sizeof *lens);
	for (size_t i = 0; i < n && !*rc; i++) {
		*rc = locus__store_list_node(root, nodes[i], &bufs[i], &err);
		lists[i] = bufs[i].data ? bufs[i].data : "";
		lens[i] = bufs[i].len;
	}
	struct locus_catalog *cat = NULL;
	if (!*rc)
		*rc = locus__store_assemble(&cat, root, (const char *const *)nodes, lists, lens, n,
					    &err);
	char *text = cat ? print_to_string(cat) : NULL;
	locus_catalog_destroy(cat);
	for (size_t i = 0; i < n; i++)
		locus__buf_fini(&bufs[i]);
	free(bufs);
	free(lists);
	free(lens);
	locus__store_nodes_free(nodes, n);
	return text;
}

TEST(split_scan_equals_whole_scan)
{
	const char *root = test_tmpdir();
	struct locus_catalog *cat = parse(canonical), *back;
	struct locus_error err = {0};
	char path[1024];
	int rc;
	CHECK_EQ_INT(write_all(cat, root, false), 0);
	char *text = split_scan(root, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_STR(text, canonical);
	free(text);
	/* Damage as above: lost, missing-last and corrupt chunks. */
	snprintf(path, sizeof path, "%s/n1/db/frag/chunk-000000-0", root);
	CHECK_EQ_INT(unlink(path), 0);
	snprintf(path, sizeof path, "%s/n3/db/frag/chunk-000000-0", root);
	CHECK_EQ_INT(unlink(path), 0);
	snprintf(path, sizeof path, "%s/n4/db/frag/chunk-000001-1048576", root);
	CHECK_EQ_INT(truncate(path, 1000), 0);
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), 0);
	char *whole = print_to_string(back);
	text = split_scan(root, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK(strstr(whole, "missing") != NULL || strstr(whole, "corrupt") != NULL);
	CHECK_EQ_STR(text, whole);
	free(text);
	free(whole);
	locus_catalog_destroy(back);
	/* Nodes disagreeing on a manifest fail the assembly as the scan. */
	snprintf(path, sizeof path, "%s/n2/db/frag/.locus-dataset", root);
	CHECK_EQ_INT(test_write(path, "locus-store-dataset 1\nsize 9\nchunks 3\n"), 0);
	text = split_scan(root, &rc);
	CHECK_EQ_INT(rc, LOCUS_EPARSE);
	CHECK(text == NULL);
	locus_catalog_destroy(cat);
}

/* A truncated replica is dropped with a problem on whichever node it is:
 * the scan used to take the lowest-named node's copy as the reference, so
 * damage there made the whole store unreadable ("chunk 2 ... does not
 * follow") while the same damage elsewhere was a warning. */
TEST(truncated_replica_on_any_node)
{
	const char *root = test_tmpdir();
	struct locus_catalog *cat = parse(canonical), *back;
	struct locus_error err = {0};
	char path[1024];
	CHECK_EQ_INT(write_all(cat, root, false), 0);
	/* n2 is the lowest-named node of chunk 1 (n2, n3, n4); n1 of chunk 0
	 * (n1, n3), where one good copy stands against one bad. */
	snprintf(path, sizeof path, "%s/n2/db/frag/chunk-000001-1048576", root);
	CHECK_EQ_INT(truncate(path, 1000), 0);
	snprintf(path, sizeof path, "%s/n1/db/frag/chunk-000000-0", root);
	CHECK_EQ_INT(truncate(path, 4096), 0);
	locus_error_clear(&err);
	int rc = locus_store_scan(&back, root, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.message);
	CHECK_EQ_INT(rc, 0);
	long d = locus_catalog_find_dataset(back, "db/frag");
	CHECK(d >= 0);
	const struct locus_dataset *ds = &back->datasets[d];
	CHECK_EQ_INT(ds->n_chunks, 3);
	CHECK_EQ_INT(ds->size, 2500000);
	CHECK_EQ_INT(ds->chunks[0].n_replicas, 1);
	CHECK_EQ_STR(back->hosts[ds->chunks[0].replicas[0]].name, "n3");
	CHECK_EQ_INT(ds->chunks[0].flags, LOCUS_CHUNK_CORRUPT);
	CHECK_EQ_INT(ds->chunks[1].n_replicas, 2);
	CHECK_EQ_INT(ds->chunks[1].flags, LOCUS_CHUNK_CORRUPT);
	CHECK_EQ_INT(back->n_problems, 2);
	CHECK(strstr(back->problems[0].detail, "chunk 0 on node n1 is 4096 bytes") != NULL);
	CHECK(strstr(back->problems[1].detail, "chunk 1 on node n2 is 1000 bytes") != NULL);
	char *whole = print_to_string(back);
	locus_catalog_destroy(back);
	/* The split scan agrees. */
	char *text = split_scan(root, &rc);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_STR(text, whole);
	free(text);
	free(whole);
	locus_catalog_destroy(cat);
}

/* Assembles two listings in one order and the other: the catalogs'
 * datasets agree chunk for chunk (the hosts' ids aside). */
static int assembled_alike(const char *la, const char *lb)
{
	const char *names[2][2] = {{"na", "nb"}, {"nb", "na"}};
	const char *lists[2][2] = {{la, lb}, {lb, la}};
	struct locus_catalog *cat[2] = {NULL, NULL};
	struct locus_error err = {0};
	int same = 1;
	for (int k = 0; k < 2; k++) {
		size_t lens[2] = {strlen(lists[k][0]), strlen(lists[k][1])};
		if (locus__store_assemble(&cat[k], "r", names[k], lists[k], lens, 2, &err))
			same = 0;
	}
	for (size_t d = 0; same && d < cat[0]->n_datasets; d++) {
		const struct locus_dataset *x = &cat[0]->datasets[d], *y = &cat[1]->datasets[d];
		same = x->size == y->size && x->n_chunks == y->n_chunks;
		for (size_t c = 0; same && c < x->n_chunks; c++)
			same = x->chunks[c].length == y->chunks[c].length &&
			       x->chunks[c].flags == y->chunks[c].flags &&
			       x->chunks[c].n_replicas == y->chunks[c].n_replicas;
	}
	locus_catalog_destroy(cat[0]);
	locus_catalog_destroy(cat[1]);
	return same;
}

/* The nodes' order does not choose the reference replica (issue 16, item
 * 4; found by fuzz_store): after a gap, two replicas of chunk 2 of one
 * length at different offsets tied, and the first node's won, so the
 * missing chunk 1 was 100 or 200 bytes as the listings came. The lower
 * offset wins now, in any order. */
TEST(assembly_ignores_node_order)
{
	const char *la = "C 0 0 100 d\nC 2 300 50 d\n", *lb = "C 0 0 100 d\nC 2 200 50 d\n";
	CHECK(assembled_alike(la, lb));
	struct locus_catalog *cat = NULL;
	struct locus_error err = {0};
	const char *names[2] = {"na", "nb"}, *lists[2] = {la, lb};
	size_t lens[2] = {strlen(la), strlen(lb)};
	CHECK_EQ_INT(locus__store_assemble(&cat, "r", names, lists, lens, 2, &err), 0);
	CHECK_EQ_INT(cat->datasets[0].n_chunks, 3);
	CHECK_EQ_INT(cat->datasets[0].chunks[1].length, 100);
	CHECK_EQ_INT(cat->datasets[0].chunks[1].flags, LOCUS_CHUNK_MISSING);
	CHECK_EQ_INT(cat->datasets[0].chunks[2].offset, 200);
	CHECK_EQ_INT(cat->datasets[0].chunks[2].flags, LOCUS_CHUNK_CORRUPT);
	locus_catalog_destroy(cat);
	/* A truncated copy on either node, as in a store. */
	CHECK(assembled_alike("C 0 0 100 d\nC 1 100 100 d\nM 200 2 d\n",
			      "C 0 0 100 d\nC 1 100 7 d\nM 200 2 d\n"));
}

/* A chunk index or a manifest's count past what a store holds is an
 * error: the scan makes an entry and a problem for every chunk no node
 * holds, so one stray "chunk-4000000000-0" had it fill memory. */
TEST(absurd_chunk_indices)
{
	const char *root = test_tmpdir();
	struct locus_catalog *cat = NULL;
	struct locus_error err = {0};
	char path[1024];
	snprintf(path, sizeof path, "%s/n1/big", root);
	CHECK_EQ_INT(locus__mkdirs(path, &err), 0);
	snprintf(path, sizeof path, "%s/n1/big/chunk-4000000000-0", root);
	CHECK_EQ_INT(test_write(path, "x"), 0);
	CHECK_EQ_INT(locus_store_scan(&cat, root, &err), LOCUS_EPARSE);
	CHECK(cat == NULL);
	CHECK(strstr(err.message, "dataset \"big\": node n1 holds chunk 4000000000; a store "
				  "holds at most 16777216 chunks per dataset") != NULL);
	CHECK_EQ_INT(unlink(path), 0);
	snprintf(path, sizeof path, "%s/n1/big/.locus-dataset", root);
	CHECK_EQ_INT(test_write(path, "locus-store-dataset 1\nsize 9\nchunks 99999999999\n"), 0);
	CHECK_EQ_INT(locus_store_scan(&cat, root, &err), LOCUS_EPARSE);
	CHECK(strstr(err.message, "manifest says 99999999999 chunks") != NULL);
	/* Just past the bound. */
	CHECK_EQ_INT(test_write(path, "locus-store-dataset 1\nsize 1\nchunks 16777217\n"), 0);
	CHECK_EQ_INT(locus_store_scan(&cat, root, &err), LOCUS_EPARSE);
	CHECK(strstr(err.message, "manifest says 16777217 chunks") != NULL);
	CHECK_EQ_INT(unlink(path), 0);
	snprintf(path, sizeof path, "%s/n1/big/chunk-16777216-0", root);
	CHECK_EQ_INT(test_write(path, "x"), 0);
	CHECK_EQ_INT(locus_store_scan(&cat, root, &err), LOCUS_EPARSE);
	CHECK(strstr(err.message, "holds chunk 16777216;") != NULL);
}

/* One chunk index written two ways in one directory is an error naming
 * both files (it was "invalid argument" with no file named). */
TEST(duplicate_chunk_index)
{
	const char *root = test_tmpdir();
	struct locus_catalog *cat = parse(canonical), *back = NULL;
	struct locus_error err = {0};
	char path[1024];
	CHECK_EQ_INT(write_all(cat, root, false), 0);
	snprintf(path, sizeof path, "%s/n2/db/frag/chunk-1-1048576", root);
	CHECK_EQ_INT(test_write(path, "x"), 0);
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), LOCUS_EPARSE);
	CHECK(back == NULL);
	CHECK(strstr(err.file, "/n2/db/frag") != NULL);
	CHECK(strstr(err.message,
		     "chunk files \"chunk-000001-1048576\" and "
		     "\"chunk-1-1048576\" both hold chunk 1 of dataset \"db/frag\"") != NULL);
	int rc;
	CHECK(split_scan(root, &rc) == NULL);
	CHECK_EQ_INT(rc, LOCUS_EPARSE);
	locus_catalog_destroy(cat);
}

/* Symbolic links that leave the store root are refused (locus run would
 * hand their targets to the command); links within the root are fine. */
TEST(links_out_of_the_root)
{
	const char *tmp = test_tmpdir();
	char root[600], path[1024], outside[1024], spare[1024];
	struct locus_catalog *cat = parse(canonical), *back = NULL;
	struct locus_error err = {0};
	snprintf(root, sizeof root, "%s/store", tmp);
	CHECK_EQ_INT(mkdir(root, 0755), 0);
	CHECK_EQ_INT(write_all(cat, root, false), 0);
	char *want = NULL;
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), 0);
	want = print_to_string(back);
	locus_catalog_destroy(back);

	/* A link to a copy inside the root (a hidden top-level directory). */
	snprintf(path, sizeof path, "%s/n2/q/chunk-000000-0", root);
	snprintf(spare, sizeof spare, "%s/.spare", root);
	CHECK_EQ_INT(mkdir(spare, 0755), 0);
	snprintf(spare, sizeof spare, "%s/.spare/c0", root);
	CHECK_EQ_INT(rename(path, spare), 0);
	CHECK_EQ_INT(symlink("../../.spare/c0", path), 0);
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), 0);
	char *got = print_to_string(back);
	CHECK_EQ_STR(got, want);
	free(got);
	locus_catalog_destroy(back);

	/* The same bytes outside the root: refused, naming link and target. */
	snprintf(outside, sizeof outside, "%s/secret", tmp);
	CHECK_EQ_INT(rename(spare, outside), 0);
	CHECK_EQ_INT(unlink(path), 0);
	CHECK_EQ_INT(symlink(outside, path), 0);
	back = NULL;
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), LOCUS_EINVAL);
	CHECK(back == NULL);
	CHECK(strstr(err.file, "n2/q/chunk-000000-0") != NULL);
	CHECK(strstr(err.message, "secret, outside the store root") != NULL);
	int rc;
	CHECK(split_scan(root, &rc) == NULL);
	CHECK_EQ_INT(rc, LOCUS_EINVAL);
	CHECK_EQ_INT(unlink(path), 0);
	CHECK_EQ_INT(rename(outside, path), 0);

	/* A node directory that is a link out of the root. */
	snprintf(outside, sizeof outside, "%s/elsewhere", tmp);
	snprintf(path, sizeof path, "%s/n4", root);
	CHECK_EQ_INT(rename(path, outside), 0);
	CHECK_EQ_INT(symlink(outside, path), 0);
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "elsewhere, outside the store root") != NULL);
	CHECK(split_scan(root, &rc) == NULL);
	CHECK_EQ_INT(rc, LOCUS_EINVAL);
	free(want);
	locus_catalog_destroy(cat);
}

/* A store with no dataset is an error saying what was expected, never an
 * empty catalog that a run would finish "successfully". */
TEST(empty_store)
{
	const char *root = test_tmpdir();
	struct locus_catalog *back = (struct locus_catalog *)&back;
	struct locus_error err = {0};
	char path[1024];
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), LOCUS_EPARSE);
	CHECK(back == NULL);
	CHECK(strstr(err.message, "no dataset in the store: expected "
				  "<root>/<node>/<dataset>/chunk-<index>-<offset> files") != NULL);
	snprintf(path, sizeof path, "%s/n1", root);
	CHECK_EQ_INT(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/n1/notes.txt", root);
	CHECK_EQ_INT(test_write(path, "x"), 0);
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), LOCUS_EPARSE);
	CHECK(strstr(err.message, "under 1 node directory") != NULL);
	int rc;
	CHECK(split_scan(root, &rc) == NULL);
	CHECK_EQ_INT(rc, LOCUS_EPARSE);
}

/* Node directories are host names: two that name one host (case, or a
 * domain only one has) are an error, and so is a control character,
 * which the message shows escaped. */
TEST(node_names)
{
	const char *root = test_tmpdir();
	struct locus_catalog *cat, *back = NULL;
	struct locus_error err = {0};
	char path[1024];
	cat = parse("locus-catalog\t1\ndataset\tx\t4\t1\t-\n"
		    "chunk\t0\t0\t4\tnode01\t-\nend\t1\t1\n");
	CHECK_EQ_INT(write_all(cat, root, false), 0);
	snprintf(path, sizeof path, "%s/node01", root);
	char other[1024];
	snprintf(other, sizeof other, "%s/NODE01.example.org", root);
	CHECK_EQ_INT(mkdir(other, 0755), 0);
	char file[1200];
	snprintf(file, sizeof file, "%s/x", other);
	CHECK_EQ_INT(mkdir(file, 0755), 0);
	snprintf(file, sizeof file, "%s/x/chunk-000000-0", other);
	CHECK_EQ_INT(test_write(file, "abcd"), 0);
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), LOCUS_EPARSE);
	CHECK(strstr(err.message, "node directory \"node01\" names the same host as "
				  "\"NODE01.example.org\"") != NULL);
	int rc;
	CHECK(split_scan(root, &rc) == NULL);
	CHECK_EQ_INT(rc, LOCUS_EPARSE);
	/* Names starting with '.' are not nodes: set the second one aside. */
	snprintf(file, sizeof file, "%s/.gone", root);
	CHECK_EQ_INT(rename(other, file), 0);
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), 0);
	locus_catalog_destroy(back);
	snprintf(other, sizeof other, "%s/n\x1b[31m", root);
	CHECK_EQ_INT(rename(path, other), 0);
	CHECK_EQ_INT(locus_store_scan(&back, root, &err), LOCUS_EPARSE);
	CHECK(strstr(err.message, "node directory \"n\\x1b[31m\": expected a host name") != NULL);
	CHECK(strchr(err.message, 0x1b) == NULL);
	locus_catalog_destroy(cat);
}

TEST_MAIN(TEST_ENTRY(catalog_store_catalog_round_trip), TEST_ENTRY(existing_dataset_needs_force),
	  TEST_ENTRY(failure_leaves_store_untouched),
	  TEST_ENTRY(lost_and_corrupt_replicas_are_reported), TEST_ENTRY(bad_names_and_bad_stores),
	  TEST_ENTRY(stray_files_are_ignored), TEST_ENTRY(split_scan_equals_whole_scan),
	  TEST_ENTRY(truncated_replica_on_any_node), TEST_ENTRY(assembly_ignores_node_order),
	  TEST_ENTRY(absurd_chunk_indices), TEST_ENTRY(duplicate_chunk_index),
	  TEST_ENTRY(links_out_of_the_root), TEST_ENTRY(empty_store), TEST_ENTRY(node_names))
