/*
 * Splitting files into chunks: exact lengths in each mode on small files,
 * the edge cases (empty file, no final newline, records longer than the
 * chunk size, chunk size 1), errors, and a large file that crosses the
 * reader's buffer checked against a byte-at-a-time reference.
 */
#include <errno.h>
#include <stdint.h>

#include "locus/place.h"
#include "test.h"
#include "test_util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Writes `text` to a fresh file and returns its path (static buffer). */
static const char *file_with(const char *text)
{
	static char path[600];

	snprintf(path, sizeof path, "%s/input", test_tmpdir());
	if (test_write(path, text) != 0)
		return NULL;
	return path;
}

/* Splits `path` and compares with want[0 .. n_want); returns 1 if equal. */
static int split_is(const char *path, uint64_t size, enum locus_split_mode mode,
		    const uint64_t *want, size_t n_want)
{
	struct locus_error err;
	uint64_t *len = NULL;
	size_t n = 99;
	int rc, ok;

	rc = locus_split_file(&len, &n, path, size, mode, &err);
	if (rc != 0) {
		fprintf(stderr, "split %s: %s\n", path, err.message);
		return 0;
	}
	ok = n == n_want;
	for (size_t i = 0; ok && i < n; i++)
		ok = len[i] == want[i];
	if (!ok) {
		fprintf(stderr, "size %llu mode %d: got", (unsigned long long)size, (int)mode);
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, " %llu", (unsigned long long)len[i]);
		fprintf(stderr, "\n");
	}
	free(len);
	return ok;
}

#define SPLIT_IS(path, size, mode, ...)                                                            \
	do {                                                                                       \
		static const uint64_t want_[] = {__VA_ARGS__};                                     \
		CHECK(split_is(path, size, mode, want_, ARRAY_LEN(want_)));                        \
	} while (0)

TEST(mode_names)
{
	enum locus_split_mode m;

	CHECK_EQ_INT(locus_split_mode_parse("bytes", &m), 0);
	CHECK_EQ_INT(m, LOCUS_SPLIT_BYTES);
	CHECK_EQ_INT(locus_split_mode_parse("lines", &m), 0);
	CHECK_EQ_INT(m, LOCUS_SPLIT_LINES);
	CHECK_EQ_INT(locus_split_mode_parse("fasta", &m), 0);
	CHECK_EQ_INT(m, LOCUS_SPLIT_FASTA);
	CHECK_EQ_INT(locus_split_mode_parse("Bytes", &m), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_split_mode_parse("", &m), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_split_mode_parse(NULL, &m), LOCUS_EINVAL);
}

TEST(empty_file)
{
	const char *path = file_with("");
	enum locus_split_mode modes[] = {LOCUS_SPLIT_BYTES, LOCUS_SPLIT_LINES, LOCUS_SPLIT_FASTA};

	CHECK(path);
	for (size_t i = 0; i < ARRAY_LEN(modes); i++) {
		uint64_t *len = NULL;
		size_t n = 99;

		CHECK_EQ_INT(locus_split_file(&len, &n, path, 10, modes[i], NULL), 0);
		CHECK_EQ_INT(n, 0);
		free(len);
	}
}

TEST(bytes)
{
	const char *path = file_with("abcdefghij"); /* 10 bytes */

	CHECK(path);
	SPLIT_IS(path, 3, LOCUS_SPLIT_BYTES, 3, 3, 3, 1);
	SPLIT_IS(path, 5, LOCUS_SPLIT_BYTES, 5, 5);
	SPLIT_IS(path, 10, LOCUS_SPLIT_BYTES, 10);
	SPLIT_IS(path, 11, LOCUS_SPLIT_BYTES, 10);
	SPLIT_IS(path, UINT64_MAX, LOCUS_SPLIT_BYTES, 10);
	SPLIT_IS(path, 1, LOCUS_SPLIT_BYTES, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
}

TEST(lines)
{
	/* Lines of 3, 5 and 2 bytes. */
	const char *path = file_with("aa\nbbbb\nc\n");

	CHECK(path);
	SPLIT_IS(path, 1, LOCUS_SPLIT_LINES, 3, 5, 2);
	SPLIT_IS(path, 3, LOCUS_SPLIT_LINES, 3, 5, 2); /* "aa\n" is 3 bytes */
	SPLIT_IS(path, 4, LOCUS_SPLIT_LINES, 8, 2);
	SPLIT_IS(path, 8, LOCUS_SPLIT_LINES, 8, 2);
	SPLIT_IS(path, 9, LOCUS_SPLIT_LINES, 10);
	SPLIT_IS(path, 100, LOCUS_SPLIT_LINES, 10);

	/* No newline at the end: the last chunk ends at the end of file. */
	path = file_with("aa\nbbbb\ncc");
	CHECK(path);
	SPLIT_IS(path, 1, LOCUS_SPLIT_LINES, 3, 5, 2);
	SPLIT_IS(path, 9, LOCUS_SPLIT_LINES, 10);

	/* No newline at all. */
	path = file_with("abcdefg");
	CHECK(path);
	SPLIT_IS(path, 2, LOCUS_SPLIT_LINES, 7);

	/* Empty lines are lines too. */
	path = file_with("\n\n\nx\n");
	CHECK(path);
	SPLIT_IS(path, 1, LOCUS_SPLIT_LINES, 1, 1, 1, 2);
	SPLIT_IS(path, 2, LOCUS_SPLIT_LINES, 2, 3);

	/* CRLF lines end at the '\n'. */
	path = file_with("ab\r\ncd\r\n");
	CHECK(path);
	SPLIT_IS(path, 1, LOCUS_SPLIT_LINES, 4, 4);
	SPLIT_IS(path, 4, LOCUS_SPLIT_LINES, 4, 4);
	SPLIT_IS(path, 5, LOCUS_SPLIT_LINES, 8);
}

TEST(fasta)
{
	/* Records of 9, 7 and 6 bytes. */
	const char *path = file_with(">r1\nACGT\n>r2\nAC\n>r3\nA\n");

	CHECK(path);
	SPLIT_IS(path, 1, LOCUS_SPLIT_FASTA, 9, 7, 6);
	SPLIT_IS(path, 7, LOCUS_SPLIT_FASTA, 9, 7, 6);
	SPLIT_IS(path, 8, LOCUS_SPLIT_FASTA, 9, 13);
	SPLIT_IS(path, 9, LOCUS_SPLIT_FASTA, 9, 13); /* '>' at offset 9 cuts */
	SPLIT_IS(path, 10, LOCUS_SPLIT_FASTA, 16, 6);
	SPLIT_IS(path, 16, LOCUS_SPLIT_FASTA, 16, 6);
	SPLIT_IS(path, 17, LOCUS_SPLIT_FASTA, 22);
	SPLIT_IS(path, 1000, LOCUS_SPLIT_FASTA, 22);

	/* A '>' inside a line is not a record start; text before the first
	 * record stays with it in the first chunk when it is short. */
	path = file_with("x>y\n>r1\nA>C\n>r2\nG");
	CHECK(path);
	SPLIT_IS(path, 1, LOCUS_SPLIT_FASTA, 4, 8, 5);
	SPLIT_IS(path, 5, LOCUS_SPLIT_FASTA, 12, 5);

	/* Records longer than the chunk size: one record per chunk. */
	path = file_with(">a\nAAAAAAAAAAAAAAAAAAAA\nAAAA\n>b\nCCCCCCCCCCCCCCCCCCCCCCCC\n");
	CHECK(path);
	SPLIT_IS(path, 4, LOCUS_SPLIT_FASTA, 29, 28);

	/* No final newline; a lone '>' line at the end. */
	path = file_with(">a\nAC\n>");
	CHECK(path);
	SPLIT_IS(path, 1, LOCUS_SPLIT_FASTA, 6, 1);
	SPLIT_IS(path, 6, LOCUS_SPLIT_FASTA, 6, 1);
	SPLIT_IS(path, 7, LOCUS_SPLIT_FASTA, 7);
}

TEST(errors)
{
	struct locus_error err;
	uint64_t *len = NULL;
	size_t n = 0;
	char missing[600];
	const char *path = file_with("abc\n");

	CHECK(path);
	locus_error_clear(&err);
	CHECK_EQ_INT(locus_split_file(&len, &n, path, 0, LOCUS_SPLIT_BYTES, &err), LOCUS_EINVAL);
	CHECK_EQ_INT(err.code, LOCUS_EINVAL);
	CHECK(len == NULL);
	CHECK_EQ_INT(locus_split_file(&len, &n, path, 4, (enum locus_split_mode)9, &err),
		     LOCUS_EINVAL);

	snprintf(missing, sizeof missing, "%s/no-such-file", test_tmpdir());
	CHECK_EQ_INT(locus_split_file(&len, &n, missing, 4, LOCUS_SPLIT_BYTES, &err), LOCUS_EIO);
	CHECK_EQ_STR(err.file, missing);
	CHECK(strstr(err.message, strerror(ENOENT)) != NULL);
	CHECK(len == NULL);
	CHECK_EQ_INT(n, 0);

	/* A directory opens but does not read. */
	CHECK_EQ_INT(locus_split_file(&len, &n, test_tmpdir(), 4, LOCUS_SPLIT_LINES, &err),
		     LOCUS_EIO);
	CHECK(strstr(err.message, strerror(EISDIR)) != NULL);
}

/* ---- against a reference ------------------------------------------------ */

/* The rules, one byte at a time over the whole text. */
static size_t reference(const unsigned char *t, size_t size, uint64_t s, enum locus_split_mode mode,
			uint64_t *out)
{
	size_t n = 0;
	uint64_t cur = 0;

	for (size_t i = 0; i < size; i++) {
		int line_start = i == 0 || t[i - 1] == '\n';

		if (mode == LOCUS_SPLIT_FASTA && cur >= s && line_start && t[i] == '>') {
			out[n++] = cur;
			cur = 0;
		}
		cur++;
		if ((mode == LOCUS_SPLIT_BYTES && cur == s) ||
		    (mode == LOCUS_SPLIT_LINES && cur >= s && t[i] == '\n')) {
			out[n++] = cur;
			cur = 0;
		}
	}
	if (cur)
		out[n++] = cur;
	return n;
}

TEST(large_file)
{
	/* 300 000 bytes of FASTA-like text: records of random length, lines of
	 * random length, some empty, so that newlines and '>' fall on both
	 * sides of every 64 KiB buffer edge for some chunk size. */
	const size_t size = 300000;
	static const uint64_t sizes[] = {1,	2,     7,      100,    4096,   65535,
					 65536, 65537, 100000, 299999, 300000, 1000000};
	enum locus_split_mode modes[] = {LOCUS_SPLIT_BYTES, LOCUS_SPLIT_LINES, LOCUS_SPLIT_FASTA};
	unsigned char *text = malloc(size + 1);
	uint64_t *want = malloc(size * sizeof *want);
	char path[600];
	uint32_t x = 12345;
	FILE *fp;

	CHECK(text && want);
	for (size_t i = 0; i < size; i++) {
		x = x * 1103515245u + 12345u;
		unsigned v = (x >> 16) % 100;

		if (v < 4)
			text[i] = '\n';
		else if (v < 6 && (i == 0 || text[i - 1] == '\n'))
			text[i] = '>';
		else if (v < 7)
			text[i] = '>'; /* mid-line, not a record start */
		else
			text[i] = "ACGT"[v & 3];
	}
	snprintf(path, sizeof path, "%s/large", test_tmpdir());
	fp = fopen(path, "wb");
	CHECK(fp);
	CHECK(fwrite(text, 1, size, fp) == size);
	CHECK(fclose(fp) == 0);

	for (size_t m = 0; m < ARRAY_LEN(modes); m++) {
		for (size_t k = 0; k < ARRAY_LEN(sizes); k++) {
			size_t n_want = reference(text, size, sizes[k], modes[m], want);
			uint64_t sum = 0;
			int ok;

			ok = split_is(path, sizes[k], modes[m], want, n_want);
			for (size_t i = 0; i < n_want; i++)
				sum += want[i];
			CHECK_EQ_INT(sum, size);
			if (!ok)
				fprintf(stderr, "mode %zu chunk size %llu\n", m,
					(unsigned long long)sizes[k]);
			CHECK(ok);
		}
	}
	free(text);
	free(want);
}

TEST_MAIN(TEST_ENTRY(mode_names), TEST_ENTRY(empty_file), TEST_ENTRY(bytes), TEST_ENTRY(lines),
	  TEST_ENTRY(fasta), TEST_ENTRY(errors), TEST_ENTRY(large_file))
