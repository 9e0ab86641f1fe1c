/*
 * libFuzzer target for the hosts-file parser: parses the input and, when it
 * is accepted, looks up every whitespace-separated word of it (with and
 * without a port) and checks that what comes back is a well-formed name.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locality.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_name(const char *name)
{
	if (!name)
		return;
	if (!name[0])
		abort();
	for (const char *p = name; *p; p++)
		if (*p == ' ' || *p == '\t' || *p == '#' || (unsigned char)*p < 0x20)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);

	struct locus_hostmap *m = (struct locus_hostmap *)&m;
	struct locus_error err;
	int rc = locus_hostmap_parse(&m, text, size, "fuzz", &err);
	if (rc) {
		if (m || err.code != rc)
			abort();
		free(text);
		return 0;
	}
	if (!m)
		abort();

	/* Every word of the input as a lookup key, bare, with ":9866" and
	 * in brackets. */
	char key[80];
	size_t i = 0;
	while (i < size) {
		while (i < size && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n'))
			i++;
		size_t w = i;
		while (i < size && text[i] != ' ' && text[i] != '\t' && text[i] != '\n')
			i++;
		size_t n = i - w;
		if (n == 0 || n > 60 || memchr(text + w, 0, n))
			continue;
		memcpy(key, text + w, n);
		key[n] = 0;
		check_name(locus_hostmap_lookup(m, key));
		memcpy(key + n, ":9866", 6);
		check_name(locus_hostmap_lookup(m, key));
		key[0] = '[';
		memcpy(key + 1, text + w, n);
		memcpy(key + 1 + n, "]:1", 4);
		check_name(locus_hostmap_lookup(m, key));
	}
	check_name(locus_hostmap_lookup(m, ""));
	locus_hostmap_destroy(m);
	free(text);
	return 0;
}
