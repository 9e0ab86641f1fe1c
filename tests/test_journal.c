/* The journal of a real run: format, torn lines, matching against a store. */
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/journal.h"
#include "locus/locus.h"
#include "mpi/journal.h"
#include "test.h"
#include "test_util.h"

static struct locus_catalog *two_datasets(void)
{
	static const char text[] = "locus-catalog\t1\nhost\tn1\t-\n"
				   "dataset\tdb one\t30\t3\t-\n"
				   "chunk\t0\t0\t10\tn1\t-\nchunk\t1\t10\t10\tn1\t-\n"
				   "chunk\t2\t20\t10\tn1\t-\n"
				   "dataset\tq\t5\t1\t-\nchunk\t0\t0\t5\tn1\t-\nend\t2\t4\n";
	struct locus_catalog *cat = NULL;
	struct locus_error err;
	locus_catalog_parse(&cat, text, strlen(text), "t", &err);
	return cat;
}

TEST(parse_records_and_torn_line)
{
	static const char text[] = "locus-journal 1\n# a comment\n\ndone 2 20 10 db one\n"
				   "done 0 0 5 q\ndone 1 10 1";
	struct locus__journal_rec *r;
	size_t n, complete;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus__journal_parse(text, strlen(text), "j", &r, &n, &complete, &err), 0);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_STR(r[0].dataset, "db one");
	CHECK_EQ_INT(r[0].index, 2);
	CHECK_EQ_INT(r[0].offset, 20);
	CHECK_EQ_INT(r[0].length, 10);
	CHECK_EQ_INT(r[0].line, 4);
	CHECK_EQ_STR(r[1].dataset, "q");
	/* The torn last line is left out of the complete length. */
	CHECK_EQ_INT(complete, strlen(text) - strlen("done 1 10 1"));
	locus__journal_recs_free(r, n);
}

/* Version 2's lines (tabs, escapes), after a version 1 head too: a
 * journal of version 1 is continued in version 2's lines. */
TEST(version_2_and_a_continued_version_1)
{
	static const char v2[] = "locus-journal 2\tchunks\r\nchunk\t2\t20\t10\tdb one\n"
				 "chunk\t0\t0\t5\tq\\x\n";
	static const char mixed[] = "locus-journal 1\ndone 2 20 10 db one\nchunk\t0\t0\t5\tq\n";
	struct locus__journal_rec *r;
	size_t n, complete;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus__journal_parse(v2, strlen(v2), "j", &r, &n, &complete, &err), 0);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_STR(r[0].dataset, "db one");
	CHECK_EQ_INT(r[0].offset, 20);
	CHECK_EQ_STR(r[1].dataset, "qx"); /* an unknown escape is its character */
	CHECK_EQ_INT(r[1].line, 3);
	locus__journal_recs_free(r, n);
	CHECK_EQ_INT(locus__journal_parse(mixed, strlen(mixed), "j", &r, &n, &complete, &err), 0);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_INT(r[0].index, 2);
	CHECK_EQ_STR(r[1].dataset, "q");
	locus__journal_recs_free(r, n);
	/* What a record is written as, and read back as. */
	struct locus__buf b = {0};
	CHECK_EQ_INT(locus__buf_append(&b, "locus-journal 2\tchunks\n", 23), 0);
	CHECK_EQ_INT(locus__journal_format(&b, "a\\b", 7, 70, 10), 0);
	static const char line[] = "chunk\t7\t70\t10\ta\\\\b\n";
	CHECK(b.len == 23 + sizeof line - 1 && !memcmp(b.data + 23, line, sizeof line - 1));
	CHECK_EQ_INT(locus__journal_parse(b.data, b.len, "j", &r, &n, &complete, &err), 0);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_STR(r[0].dataset, "a\\b");
	locus__journal_recs_free(r, n);
	locus__buf_fini(&b);
}

TEST(bad_journals_say_where)
{
	static const struct {
		const char *text;
		long line, col;
		const char *what;
	} bad[] = {
	    {"nonsense\n", 1, 1, "locus-journal"},
	    {"locus-journal 7\n", 1, 15, "version 7"},
	    {"locus-journal 1\ndone 1 2\n", 2, 1, "done INDEX"},
	    {"locus-journal 1\ndone 1 2 3\n", 2, 1, "DATASET"},
	    {"locus-journal 1\ndone x 2 3 d\n", 2, 1, "done INDEX"},
	    {"locus-journal 1\nfinished 1 2 3 d\n", 2, 1, "done INDEX"},
	    {"locus-journal 1\ndone 1 2 3 a\tb\n", 2, 13, "control"},
	    {"locus-journal 3\tchunks\n", 1, 15, "version 3"},
	    {"locus-journal 2\n", 1, 1, "chunks"},
	    {"locus-journal 2\tchunks\nchunk\t1\t2\t3\n", 2, 1, "chunk INDEX"},
	    {"locus-journal 2\tchunks\nchunk\t1\t2\t3\ta\x01\n", 2, 14, "control"},
	    {"locus-journal 2\tworkflow\t3\t4\n", 1, 1, "workflow"},
	    {"locus-flow-journal 1\t3\t4\n", 1, 1, "workflow"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct locus__journal_rec *r;
		size_t n, complete;
		struct locus_error err = {0};
		CHECK_EQ_INT(locus__journal_parse(bad[i].text, strlen(bad[i].text), "j", &r, &n,
						  &complete, &err),
			     LOCUS_EPARSE);
		CHECK_EQ_INT(err.line, bad[i].line);
		CHECK_EQ_INT(err.column, bad[i].col);
		CHECK(strstr(err.message, bad[i].what) != NULL);
	}
}

TEST(open_append_reopen)
{
	char path[600];
	snprintf(path, sizeof path, "%s/j", test_tmpdir());
	struct locus__journal_rec *r;
	size_t n;
	int fd;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus__journal_open(path, 0, &fd, &r, &n, &err), 0);
	CHECK_EQ_INT(n, 0);
	struct locus__buf b = {0};
	CHECK_EQ_INT(locus__journal_format(&b, "db one", 1, 10, 10), 0);
	CHECK_EQ_INT(locus__journal_append(fd, path, b.data, b.len, &err), 0);
	/* A record torn by a kill while writing. */
	CHECK_EQ_INT(locus__journal_append(fd, path, "done 0 0", 8, &err), 0);
	close(fd);
	locus__buf_fini(&b);
	CHECK_EQ_INT(locus__journal_open(path, 0, &fd, &r, &n, &err), 0);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_STR(r[0].dataset, "db one");
	CHECK_EQ_INT(locus__journal_append(fd, path, "done 0 0 5 q\n", 13, &err), 0);
	close(fd);
	locus__journal_recs_free(r, n);
	size_t len;
	char *text = test_slurp(path, &len);
	CHECK_EQ_STR(text, "locus-journal 2\tchunks\nchunk\t1\t10\t10\tdb one\ndone 0 0 5 q\n");
	free(text);
	/* Something else than a journal is refused and left as it was. */
	CHECK_EQ_INT(test_write(path, "my thesis\n"), 0);
	CHECK_EQ_INT(locus__journal_open(path, 0, &fd, &r, &n, &err), LOCUS_EPARSE);
	text = test_slurp(path, &len);
	CHECK_EQ_STR(text, "my thesis\n");
	free(text);
}

TEST(journal_is_locked_while_open)
{
	char path[600];
	snprintf(path, sizeof path, "%s/locked", test_tmpdir());
	struct locus__journal_rec *r;
	size_t n;
	int fd;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus__journal_open(path, 0, &fd, &r, &n, &err), 0);
	/* Another descriptor of the file, opened and closed in this process,
	 * leaves the lock held (an fcntl lock would go with that close). */
	int other = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(other >= 0);
	close(other);
	/* Another process is refused, told this one's pid. */
	pid_t child = fork();
	if (child == 0) {
		int fd2, ok;
		struct locus_error e2 = {0};
		char want[64];
		snprintf(want, sizeof want, "pid %ld", (long)getppid());
		ok = locus__journal_open(path, 0, &fd2, &r, &n, &e2) == LOCUS_EEXIST &&
		     strstr(e2.message, want) != NULL;
		_exit(ok ? 0 : 1);
	}
	int status = -1;
	waitpid(child, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fd);
	locus__journal_recs_free(r, n);
}

TEST(match_marks_done_chunks)
{
	struct locus_catalog *cat = two_datasets();
	CHECK(cat != NULL);
	static const char text[] = "locus-journal 1\ndone 2 20 10 db one\ndone 0 0 5 q\n"
				   "done 2 20 10 db one\ndone 0 0 99 elsewhere\n";
	struct locus__journal_rec *r;
	size_t n, complete, n_skip;
	struct locus_error err = {0};
	CHECK_EQ_INT(locus__journal_parse(text, strlen(text), "j", &r, &n, &complete, &err), 0);
	unsigned char skip[4] = {0};
	CHECK_EQ_INT(locus__journal_match(r, n, "j", cat, skip, &n_skip, &err), 0);
	CHECK_EQ_INT(n_skip, 2);
	CHECK(!skip[0] && !skip[1] && skip[2] && skip[3]);
	locus__journal_recs_free(r, n);
	/* A chunk whose extent changed is an error naming the line. */
	static const char moved[] = "locus-journal 1\ndone 0 0 10 db one\ndone 1 12 8 db one\n";
	CHECK_EQ_INT(locus__journal_parse(moved, strlen(moved), "j", &r, &n, &complete, &err), 0);
	memset(skip, 0, sizeof skip);
	CHECK_EQ_INT(locus__journal_match(r, n, "j", cat, skip, &n_skip, &err), LOCUS_EPARSE);
	CHECK_EQ_INT(err.line, 3);
	CHECK(strstr(err.message, "changed") != NULL);
	locus__journal_recs_free(r, n);
	locus_catalog_destroy(cat);
}

TEST_MAIN(TEST_ENTRY(parse_records_and_torn_line), TEST_ENTRY(version_2_and_a_continued_version_1),
	  TEST_ENTRY(bad_journals_say_where), TEST_ENTRY(open_append_reopen),
	  TEST_ENTRY(journal_is_locked_while_open), TEST_ENTRY(match_marks_done_chunks))
