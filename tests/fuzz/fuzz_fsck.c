/*
 * libFuzzer target for the `hdfs fsck` reader: parses the input with and
 * without a host map and, when it is accepted, checks the catalog's
 * invariants; when it is rejected, checks that nothing is returned and the
 * error is filled in.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locality.h"
#include "locus/platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Two addresses of dn1 spelled alike, one spelled another way (one host
 * under the name rule), and names the rule cannot place together. */
static const char map_text[] = "10.1.0.11 dn1\n10.1.0.12 dn2 dn2-alias\n"
			       "10.1.0.13 dn1\n::1 localhost\n"
			       "10.1.0.14 DN1.cluster.example\n10.1.0.21 dn5.a\n"
			       "10.1.0.22 dn5.b\n10.1.0.23 DN5\n";

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

static void check_catalog(const struct locus_catalog *cat)
{
	check_host_names(cat);
	for (size_t h = 0; h < cat->n_hosts; h++)
		if (!cat->hosts[h].name || !cat->hosts[h].name[0])
			abort();
	for (size_t d = 0; d < cat->n_datasets; d++) {
		const struct locus_dataset *ds = &cat->datasets[d];
		uint64_t sum = 0;
		if (!ds->name || ds->name[0] != '/')
			abort();
		if (ds->flags & ~(uint32_t)LOCUS_DATASET_ERASURE_CODED)
			abort();
		for (size_t c = 0; c < ds->n_chunks; c++) {
			const struct locus_chunk *ch = &ds->chunks[c];
			if (ch->offset != sum)
				abort();
			sum += ch->length;
			if (ch->n_replicas == 0 && !(ch->flags & LOCUS_CHUNK_MISSING))
				abort();
			for (uint32_t r = 0; r < ch->n_replicas; r++) {
				if (ch->replicas[r] >= cat->n_hosts)
					abort();
				for (uint32_t q = 0; q < r; q++)
					if (ch->replicas[q] == ch->replicas[r])
						abort();
			}
			/* Each flag of a chunk comes with a problem saying so. */
			static const uint32_t kinds[] = {LOCUS_CHUNK_MISSING,
							 LOCUS_CHUNK_UNDER_CONSTRUCTION,
							 LOCUS_CHUNK_CORRUPT};
			for (size_t k = 0; k < 3; k++) {
				if (!(ch->flags & kinds[k]))
					continue;
				size_t i;
				for (i = 0; i < cat->n_problems; i++)
					if (cat->problems[i].dataset == d &&
					    cat->problems[i].chunk == c &&
					    cat->problems[i].flags == kinds[k])
						break;
				if (i == cat->n_problems)
					abort();
			}
		}
		if (sum != ds->size)
			abort();
		if (locus_catalog_find_dataset(cat, ds->name) != (long)d)
			abort();
	}
	for (size_t i = 0; i < cat->n_problems; i++) {
		const struct locus_problem *p = &cat->problems[i];
		if (p->dataset >= cat->n_datasets || !p->detail)
			abort();
		if (p->chunk != SIZE_MAX && p->chunk >= cat->datasets[p->dataset].n_chunks)
			abort();
	}
}

static void run(const char *text, size_t size, const struct locus_hostmap *hosts)
{
	struct locus_catalog *cat = (struct locus_catalog *)&cat;
	struct locus_error err;
	int rc = locus_fsck_parse(&cat, text, size, "fuzz", hosts, &err);
	if (rc == 0) {
		if (!cat)
			abort();
		check_catalog(cat);
		locus_catalog_destroy(cat);
	} else {
		if (cat || rc > 0 || err.code != rc)
			abort();
		if (rc == LOCUS_EPARSE && (err.line < 0 || strlen(err.message) == 0))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct locus_hostmap *hosts;
	if (!hosts && locus_hostmap_parse(&hosts, map_text, sizeof map_text - 1, "map", NULL))
		abort();

	/* An exact-size heap copy, so that ASan sees any read past `size`. */
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);
	run(text, size, NULL);
	run(text, size, hosts);
	free(text);
	return 0;
}
