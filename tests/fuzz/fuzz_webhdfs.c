/*
 * libFuzzer target for the WebHDFS block-location reader: any input either
 * fails cleanly (no catalog, an error code and a message) or gives a
 * catalog that keeps the reader's promises. Inputs of odd length go
 * through a host map, so that both ways of naming a host are exercised.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Names the rule ties together (dn1 and DN1.cluster) and names it cannot
 * place (dn5.a, dn5.b, then DN5). */
static const char hosts_text[] =
    "10.1.0.11 dn1.cluster dn1\n10.1.0.13 dn3.cluster\n::1 localhost\n"
    "10.1.0.14 DN1.cluster\n10.1.0.21 dn5.a\n10.1.0.22 dn5.b\n10.1.0.23 DN5\n";

static void check(int ok)
{
	if (!ok)
		abort();
}

/* A name the catalog may hold: non-empty, no spaces or control bytes. */
static int clean(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* Host names obey the host-name rule, as fuzz_fsck and fuzz_catalog
 * check it: valid (no control character, no ',', not starting with '.'),
 * and no two of them name one host (checked on the first 256, to keep
 * each input fast). */
static void check_host_names(const struct locus_catalog *cat)
{
	size_t n = cat->n_hosts < 256 ? cat->n_hosts : 256;
	for (size_t h = 0; h < cat->n_hosts; h++) {
		const char *s = cat->hosts[h].name;
		check(s && s[0] && s[0] != '.');
		for (const unsigned char *p = (const unsigned char *)s; *p; p++)
			check(*p >= 0x20 && *p != 0x7f && *p != ',');
	}
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b < a; b++)
			check(!locus_host_match(cat->hosts[a].name, cat->hosts[b].name));
}

static void check_catalog(const struct locus_catalog *cat)
{
	const struct locus_dataset *ds;
	uint64_t end = 0;

	check_host_names(cat);

	check(cat->n_datasets == 1);
	ds = &cat->datasets[0];
	check(strcmp(ds->name, "/fuzz/file") == 0);
	for (size_t h = 0; h < cat->n_hosts; h++) {
		check(clean(cat->hosts[h].name));
		check(!cat->hosts[h].rack || clean(cat->hosts[h].rack));
	}
	for (size_t c = 0; c < ds->n_chunks; c++) {
		const struct locus_chunk *ch = &ds->chunks[c];
		check(ch->offset == end);
		end += ch->length;
		check(!!(ch->flags & LOCUS_CHUNK_MISSING) == (ch->n_replicas == 0));
		for (uint32_t r = 0; r < ch->n_replicas; r++) {
			check(ch->replicas[r] < cat->n_hosts);
			for (uint32_t q = 0; q < r; q++)
				check(ch->replicas[q] != ch->replicas[r]);
		}
		if (ch->length)
			check(locus_dataset_find_offset(ds, ch->offset) == (long)c);
	}
	check(end == ds->size);
	for (size_t i = 0; i < cat->n_problems; i++) {
		const struct locus_problem *p = &cat->problems[i];
		check(p->dataset == 0 && p->chunk < ds->n_chunks);
		check(ds->chunks[p->chunk].flags & p->flags);
		check(p->detail && *p->detail);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct locus_hostmap *map;
	struct locus_catalog *cat = (struct locus_catalog *)&map;
	struct locus_error err;
	int rc;

	if (!map && locus_hostmap_parse(&map, hosts_text, sizeof hosts_text - 1, "hosts", NULL))
		abort();
	locus_error_clear(&err);
	rc = locus_webhdfs_parse(&cat, (const char *)data, size, "fuzz.json", "/fuzz/file",
				 size % 2 ? map : NULL, &err);
	if (rc) {
		check(rc < 0 && cat == NULL && err.code == rc && err.message[0]);
		return 0;
	}
	check(cat != NULL);
	check_catalog(cat);
	locus_catalog_destroy(cat);
	return 0;
}
