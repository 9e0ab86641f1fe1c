#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *test_tmpdir(void)
{
	static char bufs[8][512];
	static int next;
	char *b = bufs[next++ % 8];
	const char *base = getenv("TMPDIR");
	snprintf(b, 512, "%s/locus-test-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(b)) {
		perror("mkdtemp");
		abort();
	}
	return b;
}

const char *test_fixture(const char *name)
{
	static char buf[1024];
	snprintf(buf, sizeof buf, "%s/fixtures/%s", LOCUS_TEST_DIR, name);
	return buf;
}

char *test_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + n, 1, cap - n - 1, fp)) > 0) {
		n += r;
		if (cap - n - 1 == 0) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
		}
	}
	fclose(fp);
	if (buf)
		buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

int test_write(const char *path, const char *text)
{
	FILE *fp = fopen(path, "wb");
	if (!fp)
		return -1;
	size_t n = strlen(text);
	int ok = fwrite(text, 1, n, fp) == n;
	return (fclose(fp) == 0 && ok) ? 0 : -1;
}
