/*
 * libFuzzer target for the store scan's assembly (locus__store_assemble,
 * src/locality/store.c): the catalog that one process builds from the
 * listings every node made of its own directory, with exactly the checks
 * of locus_store_scan. The input is node listings, each after a line
 * "@NAME" that names its node directory:
 *
 *   @node01
 *   C 0 0 8192 reads.fa
 *   M 16384 2 reads.fa
 *   @node02
 *   C 1 8192 8192 reads.fa
 *
 * (bytes before the first "@" are node "node00"'s listing). An accepted
 * input gives a catalog that keeps the scan's promises (contiguous
 * chunks, distinct valid replicas, every flag with its problem, host
 * names under the host-name rule); a rejected one no catalog and an
 * error with a message. The same listings in the reverse node order are
 * accepted or refused alike, into the same datasets, chunks and problem
 * count: the scan depends on no node's name or order (issue 16, item 4).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locality/store.h"
#include "locus/locality.h"
#include "locus/platform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_NODES 64

static void check(int ok)
{
	if (!ok)
		abort();
}

/* Host names obey the host-name rule: valid, and no two of them name one
 * host. */
static void check_host_names(const struct locus_catalog *cat)
{
	for (size_t h = 0; h < cat->n_hosts; h++) {
		const char *s = cat->hosts[h].name;
		check(s && s[0] && s[0] != '.');
		for (const unsigned char *p = (const unsigned char *)s; *p; p++)
			check(*p >= 0x20 && *p != 0x7f && *p != ',');
	}
	for (size_t a = 0; a < cat->n_hosts; a++)
		for (size_t b = 0; b < a; b++)
			check(!locus_host_match(cat->hosts[a].name, cat->hosts[b].name));
}

static void check_catalog(const struct locus_catalog *cat, size_t n_nodes)
{
	check(cat->n_datasets > 0);
	check(cat->n_hosts <= n_nodes); /* a name listed twice is one host */
	check_host_names(cat);
	/* Which flags the problems give each chunk (by dataset, then chunk). */
	size_t *base = calloc(cat->n_datasets + 1, sizeof *base);
	check(base != NULL);
	for (size_t d = 0; d < cat->n_datasets; d++)
		base[d + 1] = base[d] + cat->datasets[d].n_chunks;
	uint32_t *said = calloc(base[cat->n_datasets] + 1, sizeof *said);
	check(said != NULL);
	for (size_t i = 0; i < cat->n_problems; i++) {
		const struct locus_problem *p = &cat->problems[i];
		check(p->dataset < cat->n_datasets && p->detail && p->detail[0]);
		check(p->chunk == SIZE_MAX || p->chunk < cat->datasets[p->dataset].n_chunks);
		if (p->chunk != SIZE_MAX)
			said[base[p->dataset] + p->chunk] |= p->flags;
	}
	for (size_t d = 0; d < cat->n_datasets; d++) {
		const struct locus_dataset *ds = &cat->datasets[d];
		uint64_t sum = 0;
		check(ds->name && ds->name[0]);
		for (const unsigned char *p = (const unsigned char *)ds->name; *p; p++)
			check(*p >= 0x20 && *p != 0x7f);
		check(locus_catalog_find_dataset(cat, ds->name) == (long)d);
		for (size_t c = 0; c < ds->n_chunks; c++) {
			const struct locus_chunk *ch = &ds->chunks[c];
			check(ch->offset == sum);
			sum += ch->length;
			check(ch->n_replicas > 0 || (ch->flags & LOCUS_CHUNK_MISSING));
			for (uint32_t r = 0; r < ch->n_replicas; r++) {
				check(ch->replicas[r] < cat->n_hosts);
				for (uint32_t q = 0; q < r; q++)
					check(ch->replicas[q] != ch->replicas[r]);
			}
			/* Each flag of a chunk comes with a problem saying so. */
			check(!(ch->flags & ~said[base[d] + c]));
		}
		check(sum == ds->size);
	}
	free(said);
	free(base);
}

/* Whether the listings ask for more chunks than a quick input should
 * make: a chunk index or a manifest's count above 4096 (the scan makes
 * an entry for every chunk below them; its own bound, 2^24, is tested in
 * test_store). */
static int too_many_chunks(const uint8_t *data, size_t size)
{
	for (size_t at = 0; at < size;) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t end = nl ? (size_t)(nl - data) : size, i = at + 2;
		if (end - at > 2 && (data[at] == 'C' || data[at] == 'M') && data[at + 1] == ' ') {
			if (data[at] == 'M') { /* the count follows the size */
				while (i < end && data[i] != ' ')
					i++;
				i++;
			}
			uint64_t v = 0;
			while (i < end && data[i] >= '0' && data[i] <= '9' && v <= 4096)
				v = v * 10 + (uint64_t)(data[i++] - '0');
			if (v > 4096)
				return 1;
		}
		at = end + 1;
	}
	return 0;
}

/* Assembles the n listings in the given order (order[k] is the k-th
 * node handed over); returns the code, *out the catalog or NULL. */
static int assemble(struct locus_catalog **out, char *const *names, char *const *texts,
		    const size_t *lens, const size_t *order, size_t n)
{
	const char *nodes[MAX_NODES], *lists[MAX_NODES];
	size_t sizes[MAX_NODES];
	for (size_t k = 0; k < n; k++) {
		nodes[k] = names[order[k]];
		lists[k] = texts[order[k]];
		sizes[k] = lens[order[k]];
	}
	struct locus_error err;
	locus_error_clear(&err);
	*out = (struct locus_catalog *)out; /* not NULL */
	int rc = locus__store_assemble(out, "fuzz-store", nodes, lists, sizes, n, &err);
	if (rc) {
		check(rc < 0 && *out == NULL && err.code == rc && err.message[0]);
		return rc;
	}
	check(*out != NULL);
	check_catalog(*out, n);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *names[MAX_NODES], *texts[MAX_NODES];
	size_t lens[MAX_NODES], n = 0, at = 0;
	if (too_many_chunks(data, size))
		return 0;

	/* Split into "@NAME" headers and the listings after them; each
	 * listing an exact-size heap copy, so that ASan sees any read past
	 * its end. */
	while (at <= size && n < MAX_NODES) {
		const char *name = "node00";
		size_t name_len = 6;
		if (at < size && data[at] == '@') {
			const uint8_t *nl = memchr(data + at, '\n', size - at);
			size_t end = nl ? (size_t)(nl - data) : size;
			name = (const char *)data + at + 1;
			name_len = end - at - 1;
			at = nl ? end + 1 : size;
		} else if (n > 0) {
			break;
		}
		const uint8_t *next = data + at;
		size_t len = 0;
		while (at + len < size &&
		       !(next[len] == '@' && (len == 0 || next[len - 1] == '\n')))
			len++;
		names[n] = malloc(name_len + 1);
		texts[n] = malloc(len ? len : 1);
		if (!names[n] || !texts[n]) {
			free(names[n]);
			free(texts[n]);
			break;
		}
		memcpy(names[n], name, name_len);
		names[n][name_len] = 0;
		memcpy(texts[n], next, len);
		lens[n++] = len;
		at += len;
		if (at >= size)
			break;
	}
	/* A name with a NUL inside is a shorter name: fine for the reader. */
	size_t order[MAX_NODES], reverse[MAX_NODES];
	for (size_t k = 0; k < n; k++) {
		order[k] = k;
		reverse[k] = n - 1 - k;
	}
	struct locus_catalog *a = NULL, *b = NULL;
	int ra = assemble(&a, names, texts, lens, order, n);
	int rb = assemble(&b, names, texts, lens, reverse, n);
	/* The nodes' order changes nothing but the hosts' ids. */
	check(!ra == !rb);
	if (!ra) {
		check(a->n_datasets == b->n_datasets && a->n_problems == b->n_problems);
		for (size_t d = 0; d < a->n_datasets; d++) {
			/* By name: datasets known only from manifests come in
			 * the listings' order. */
			const struct locus_dataset *x = &a->datasets[d];
			long e = locus_catalog_find_dataset(b, x->name);
			check(e >= 0);
			const struct locus_dataset *y = &b->datasets[e];
			check(x->size == y->size && x->n_chunks == y->n_chunks);
			for (size_t c = 0; c < x->n_chunks; c++)
				check(x->chunks[c].length == y->chunks[c].length &&
				      x->chunks[c].flags == y->chunks[c].flags &&
				      x->chunks[c].n_replicas == y->chunks[c].n_replicas);
		}
	}
	locus_catalog_destroy(a);
	locus_catalog_destroy(b);
	for (size_t k = 0; k < n; k++) {
		free(names[k]);
		free(texts[k]);
	}
	return 0;
}
