/*
 * libFuzzer target for the catalog reader. An accepted input must satisfy
 * the model's invariants and round-trip: printing it, parsing the print and
 * printing again gives the same bytes. A rejected input returns no catalog
 * and a filled-in error with a line number.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locality.h"
#include "locus/platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *print(const struct locus_catalog *cat, size_t *n)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, n);
	if (!fp)
		abort();
	if (locus_catalog_print(cat, fp))
		abort();
	fclose(fp);
	return buf;
}

/* Host names obey the host-name rule: valid, and no two of them name one
 * host (checked on the first 256, to keep each input fast). */
static void check_host_names(const struct locus_catalog *cat)
{
	size_t n = cat->n_hosts < 256 ? cat->n_hosts : 256;
	for (size_t h = 0; h < cat->n_hosts; h++) {
		const char *s = cat->hosts[h].name;
		if (!s || !s[0] || s[0] == '.')
			abort();
		for (const unsigned char *p = (const unsigned char *)s; *p; p++)
			if (*p < 0x20 || *p == 0x7f || *p == ',')
				abort();
	}
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b < a; b++)
			if (locus_host_match(cat->hosts[a].name, cat->hosts[b].name))
				abort();
}

static void check(const struct locus_catalog *cat)
{
	check_host_names(cat);
	for (size_t d = 0; d < cat->n_datasets; d++) {
		const struct locus_dataset *ds = &cat->datasets[d];
		uint64_t sum = 0;
		for (size_t c = 0; c < ds->n_chunks; c++) {
			const struct locus_chunk *ch = &ds->chunks[c];
			if (ch->offset != sum)
				abort();
			sum += ch->length;
			if (!ch->n_replicas && !(ch->flags & LOCUS_CHUNK_MISSING))
				abort();
			for (uint32_t r = 0; r < ch->n_replicas; r++)
				if (ch->replicas[r] >= cat->n_hosts)
					abort();
		}
		if (sum != ds->size)
			abort();
	}
	for (size_t i = 0; i < cat->n_problems; i++)
		if (cat->problems[i].dataset >= cat->n_datasets)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct locus_catalog *cat = (struct locus_catalog *)1, *again;
	struct locus_error err = {0};
	/* A copy without a terminating NUL, so reads past the end are caught. */
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	int rc = locus_catalog_parse(&cat, text, size, "fuzz", &err);
	free(text);
	if (rc) {
		if (cat || err.code != rc || err.line < 1 || !err.message[0])
			abort();
		return 0;
	}
	check(cat);
	size_t n1, n2;
	char *once = print(cat, &n1);
	if (locus_catalog_parse(&again, once, n1, "print", &err))
		abort();
	char *twice = print(again, &n2);
	if (n1 != n2 || memcmp(once, twice, n1) != 0)
		abort();
	free(once);
	free(twice);
	locus_catalog_destroy(again);
	locus_catalog_destroy(cat);
	return 0;
}
