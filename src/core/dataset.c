/* Catalogs: hosts, datasets, chunks and the problems a source reported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/dataset.h"
#include "locus/platform.h"

struct catalog_priv {
	size_t hosts_cap, datasets_cap, problems_cap;
	size_t *chunks_cap; /* per dataset */
	struct locus__strmap host_index;
	struct locus__strmap dataset_index;
	/* The host-name rule (locus_host_match): every spelling seen,
	 * lower-cased, -> host id; and the host part of each qualified
	 * spelling -> host id, or SEVERAL when two hosts share it. */
	struct locus__strmap host_lower;
	struct locus__strmap host_short;
};

#define SEVERAL SIZE_MAX

int locus_catalog_create(struct locus_catalog **out)
{
	struct locus_catalog *cat = calloc(1, sizeof *cat);
	struct catalog_priv *pv = calloc(1, sizeof *pv);
	if (!cat || !pv) {
		free(cat);
		free(pv);
		*out = NULL;
		return LOCUS_ENOMEM;
	}
	locus__strmap_init(&pv->host_index);
	locus__strmap_init(&pv->dataset_index);
	locus__strmap_init(&pv->host_lower);
	locus__strmap_init(&pv->host_short);
	cat->priv = pv;
	*out = cat;
	return 0;
}

void locus_catalog_destroy(struct locus_catalog *cat)
{
	if (!cat)
		return;
	struct catalog_priv *pv = cat->priv;
	for (size_t i = 0; i < cat->n_hosts; i++) {
		free(cat->hosts[i].name);
		free(cat->hosts[i].rack);
	}
	free(cat->hosts);
	for (size_t d = 0; d < cat->n_datasets; d++) {
		struct locus_dataset *ds = &cat->datasets[d];
		for (size_t c = 0; c < ds->n_chunks; c++)
			free(ds->chunks[c].replicas);
		free(ds->chunks);
		free(ds->name);
	}
	free(cat->datasets);
	for (size_t i = 0; i < cat->n_problems; i++)
		free(cat->problems[i].detail);
	free(cat->problems);
	free(pv->chunks_cap);
	locus__strmap_fini(&pv->host_index);
	locus__strmap_fini(&pv->dataset_index);
	locus__strmap_fini(&pv->host_lower);
	locus__strmap_fini(&pv->host_short);
	free(pv);
	free(cat);
}

int locus__valid_host_name(const char *name)
{
	if (!name || !*name || *name == '.')
		return 0;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == ',')
			return 0;
	return 1;
}

/* Lower-cased copy (ASCII only: host names compare like DNS names). */
static char *lower_dup(const char *s)
{
	char *d = locus__strdup(s);
	for (char *p = d; p && *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return d;
}

/*
 * Which host a new spelling `key` (lower-cased) names under the host-name
 * rule: sets *id and returns 1 (an existing host), 0 (a new host) or
 * LOCUS_EEXIST (it would tie together hosts, or spellings, that the rule
 * keeps apart: "dn1" when "dn1.a" and "dn1.b" are both known, or "dn1.b"
 * when "dn1" is already "dn1.a").
 */
static int host_by_rule(const struct catalog_priv *pv, char *key, size_t *id)
{
	char *dot = strchr(key, '.');
	size_t v;
	int rc = 0;

	if (locus__strmap_get(&pv->host_lower, key, id))
		return 1;
	if (dot) {
		*dot = 0;
		if (locus__strmap_get(&pv->host_lower, key, id))
			rc = locus__strmap_get(&pv->host_short, key, NULL) ? LOCUS_EEXIST : 1;
		*dot = '.';
		return rc;
	}
	if (locus__strmap_get(&pv->host_short, key, &v)) {
		if (v == SEVERAL)
			return LOCUS_EEXIST;
		*id = v;
		return 1;
	}
	return 0;
}

/* Records spelling `key` (lower-cased) of host `id`. */
static int host_index_add(struct catalog_priv *pv, char *key, size_t id)
{
	char *dot = strchr(key, '.');
	size_t v;
	int rc = locus__strmap_put(&pv->host_lower, key, id);

	if (!rc && dot) {
		*dot = 0;
		if (!locus__strmap_get(&pv->host_short, key, &v))
			rc = locus__strmap_put(&pv->host_short, key, id);
		else if (v != id)
			rc = locus__strmap_put(&pv->host_short, key, SEVERAL);
		*dot = '.';
	}
	return rc ? LOCUS_ENOMEM : 0;
}

long locus_catalog_add_host(struct locus_catalog *cat, const char *name, const char *rack)
{
	struct catalog_priv *pv = cat->priv;
	size_t id;
	char *key;
	int rc;

	if (!locus__valid_host_name(name))
		return LOCUS_EINVAL;
	if (!locus__strmap_get(&pv->host_index, name, &id)) {
		if (!(key = lower_dup(name)))
			return LOCUS_ENOMEM;
		rc = host_by_rule(pv, key, &id);
		if (rc == 1) {
			/* Another spelling of a known host: remember it, so
			 * that it is found at once next time. */
			rc = host_index_add(pv, key, id);
			if (!rc && locus__strmap_put(&pv->host_index, name, id))
				rc = LOCUS_ENOMEM;
			free(key);
			if (rc)
				return rc;
		} else if (rc < 0) {
			free(key);
			return rc;
		} else {
			id = cat->n_hosts;
			rc = locus__grow(&cat->hosts, &pv->hosts_cap, cat->n_hosts + 1,
					 sizeof *cat->hosts);
			struct locus_host *h = rc ? NULL : &cat->hosts[id];
			if (h) {
				h->name = locus__strdup(name);
				h->rack = rack && *rack ? locus__strdup(rack) : NULL;
				if (!h->name || (rack && *rack && !h->rack) ||
				    locus__strmap_put(&pv->host_index, name, id) ||
				    host_index_add(pv, key, id)) {
					free(h->name);
					free(h->rack);
					rc = LOCUS_ENOMEM;
				}
			}
			free(key);
			if (rc)
				return LOCUS_ENOMEM;
			return (long)cat->n_hosts++;
		}
	}
	struct locus_host *h = &cat->hosts[id];
	if (!h->rack && rack && *rack) {
		h->rack = locus__strdup(rack);
		if (!h->rack)
			return LOCUS_ENOMEM;
	}
	return (long)id;
}

void locus__catalog_host_clash(const struct locus_catalog *cat, const char *name, char *buf,
			       size_t size)
{
	const struct catalog_priv *pv = cat->priv;
	size_t n = 0;

	if (!size)
		return;
	buf[0] = 0;
	/* Every known host with a spelling the new name matches, and its
	 * spellings: the set the name would tie together. */
	for (size_t h = 0; h < cat->n_hosts && n + 1 < size; h++) {
		int hit = 0;
		for (size_t k = 0; k < pv->host_index.cap && !hit; k++)
			hit = pv->host_index.keys[k] && pv->host_index.vals[k] == h &&
			      locus_host_match(pv->host_index.keys[k], name);
		if (!hit)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%shost \"%s\"", n ? "; " : "",
				      cat->hosts[h].name);
		int first = 1;
		for (size_t k = 0; k < pv->host_index.cap && n + 1 < size; k++)
			if (pv->host_index.keys[k] && pv->host_index.vals[k] == h &&
			    strcmp(pv->host_index.keys[k], cat->hosts[h].name) != 0) {
				n += (size_t)snprintf(buf + n, size - n, "%s\"%s\"",
						      first ? " (also written " : ", ",
						      pv->host_index.keys[k]);
				first = 0;
			}
		if (!first && n + 1 < size)
			n += (size_t)snprintf(buf + n, size - n, ")");
	}
	if (n >= size)
		buf[size - 1] = 0;
}

long locus_catalog_find_host(const struct locus_catalog *cat, const char *name)
{
	const struct catalog_priv *pv = cat->priv;
	size_t id;
	if (!name)
		return -1;
	if (locus__strmap_get(&pv->host_index, name, &id))
		return (long)id;
	for (size_t i = 0; i < cat->n_hosts; i++)
		if (locus_host_match(cat->hosts[i].name, name))
			return (long)i;
	return -1;
}

static int valid_name(const char *name)
{
	if (!name || !*name)
		return 0;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

long locus_catalog_add_dataset(struct locus_catalog *cat, const char *name)
{
	struct catalog_priv *pv = cat->priv;
	if (!valid_name(name))
		return LOCUS_EINVAL;
	if (locus__strmap_get(&pv->dataset_index, name, NULL))
		return LOCUS_EEXIST;
	size_t cap = pv->datasets_cap;
	if (locus__grow(&cat->datasets, &pv->datasets_cap, cat->n_datasets + 1,
			sizeof *cat->datasets))
		return LOCUS_ENOMEM;
	if (pv->datasets_cap != cap) {
		size_t *cc = locus__reallocarray(pv->chunks_cap, pv->datasets_cap, sizeof *cc);
		if (!cc)
			return LOCUS_ENOMEM;
		pv->chunks_cap = cc;
	}
	struct locus_dataset *ds = &cat->datasets[cat->n_datasets];
	memset(ds, 0, sizeof *ds);
	ds->name = locus__strdup(name);
	if (!ds->name || locus__strmap_put(&pv->dataset_index, name, cat->n_datasets)) {
		free(ds->name);
		return LOCUS_ENOMEM;
	}
	pv->chunks_cap[cat->n_datasets] = 0;
	return (long)cat->n_datasets++;
}

long locus_catalog_find_dataset(const struct locus_catalog *cat, const char *name)
{
	const struct catalog_priv *pv = cat->priv;
	size_t id;
	if (name && locus__strmap_get(&pv->dataset_index, name, &id))
		return (long)id;
	return -1;
}

long locus_catalog_add_chunk(struct locus_catalog *cat, size_t d, uint64_t length,
			     const uint32_t *replicas, uint32_t n_replicas, uint32_t flags)
{
	struct catalog_priv *pv = cat->priv;
	if (d >= cat->n_datasets)
		return LOCUS_EINVAL;
	struct locus_dataset *ds = &cat->datasets[d];
	if (length > UINT64_MAX - ds->size)
		return LOCUS_ERANGE;
	for (uint32_t i = 0; i < n_replicas; i++)
		if (replicas[i] >= cat->n_hosts)
			return LOCUS_EINVAL;
	if (n_replicas <= 16) {
		for (uint32_t i = 0; i < n_replicas; i++)
			for (uint32_t j = 0; j < i; j++)
				if (replicas[i] == replicas[j])
					return LOCUS_EINVAL;
	} else {
		/* Long replica lists (erasure-coded groups, fuzzed input):
		 * a bitmap keeps the check linear. */
		unsigned char *seen = locus__calloc(cat->n_hosts / 8 + 1, 1);
		if (!seen)
			return LOCUS_ENOMEM;
		for (uint32_t i = 0; i < n_replicas; i++) {
			uint32_t h = replicas[i];
			if (seen[h / 8] & (1u << (h % 8))) {
				free(seen);
				return LOCUS_EINVAL;
			}
			seen[h / 8] |= (unsigned char)(1u << (h % 8));
		}
		free(seen);
	}
	if (locus__grow(&ds->chunks, &pv->chunks_cap[d], ds->n_chunks + 1, sizeof *ds->chunks))
		return LOCUS_ENOMEM;
	struct locus_chunk *c = &ds->chunks[ds->n_chunks];
	c->replicas = locus__calloc(n_replicas, sizeof *c->replicas);
	if (!c->replicas)
		return LOCUS_ENOMEM;
	if (n_replicas)
		memcpy(c->replicas, replicas, n_replicas * sizeof *replicas);
	c->n_replicas = n_replicas;
	c->offset = ds->size;
	c->length = length;
	c->flags = flags | (n_replicas ? 0 : LOCUS_CHUNK_MISSING);
	ds->size += length;
	return (long)ds->n_chunks++;
}

int locus_catalog_add_problem(struct locus_catalog *cat, size_t ds, size_t chunk, uint32_t flags,
			      const char *detail)
{
	struct catalog_priv *pv = cat->priv;
	if (locus__grow(&cat->problems, &pv->problems_cap, cat->n_problems + 1,
			sizeof *cat->problems))
		return LOCUS_ENOMEM;
	struct locus_problem *p = &cat->problems[cat->n_problems];
	p->dataset = ds;
	p->chunk = chunk;
	p->flags = flags;
	p->detail = locus__strdup(detail ? detail : "");
	if (!p->detail)
		return LOCUS_ENOMEM;
	cat->n_problems++;
	return 0;
}

int locus_catalog_merge(struct locus_catalog *dst, const struct locus_catalog *src,
			struct locus_error *err)
{
	for (size_t d = 0; d < src->n_datasets; d++)
		if (locus_catalog_find_dataset(dst, src->datasets[d].name) >= 0)
			return locus__err(err, LOCUS_EEXIST, NULL, 0, 0,
					  "dataset \"%s\" is described by two sources",
					  src->datasets[d].name);
	/* Hosts first, so chunk replica ids can be translated. */
	uint32_t *map = locus__calloc(src->n_hosts, sizeof *map);
	uint32_t *reps = NULL;
	size_t reps_cap = 0;
	int rc = 0;
	if (!map)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	for (size_t h = 0; h < src->n_hosts && !rc; h++) {
		long id = locus_catalog_add_host(dst, src->hosts[h].name, src->hosts[h].rack);
		if (id < 0)
			rc = (int)id;
		else
			map[h] = (uint32_t)id;
	}
	size_t base = dst->n_datasets;
	for (size_t d = 0; d < src->n_datasets && !rc; d++) {
		const struct locus_dataset *s = &src->datasets[d];
		long nd = locus_catalog_add_dataset(dst, s->name);
		if (nd < 0) {
			rc = (int)nd;
			break;
		}
		dst->datasets[nd].flags = s->flags;
		for (size_t c = 0; c < s->n_chunks && !rc; c++) {
			const struct locus_chunk *ch = &s->chunks[c];
			if (locus__grow(&reps, &reps_cap, ch->n_replicas + 1, sizeof *reps)) {
				rc = LOCUS_ENOMEM;
				break;
			}
			for (uint32_t r = 0; r < ch->n_replicas; r++)
				reps[r] = map[ch->replicas[r]];
			long ci = locus_catalog_add_chunk(dst, (size_t)nd, ch->length, reps,
							  ch->n_replicas, ch->flags);
			if (ci < 0)
				rc = (int)ci;
		}
	}
	for (size_t i = 0; i < src->n_problems && !rc; i++) {
		const struct locus_problem *p = &src->problems[i];
		rc = locus_catalog_add_problem(dst, base + p->dataset, p->chunk, p->flags,
					       p->detail);
	}
	free(map);
	free(reps);
	if (rc)
		return locus__err(err, rc, NULL, 0, 0, "cannot merge catalogs: %s",
				  locus_strerror(rc));
	return 0;
}

int locus_chunk_on_host(const struct locus_chunk *c, uint32_t host)
{
	for (uint32_t i = 0; i < c->n_replicas; i++)
		if (c->replicas[i] == host)
			return 1;
	return 0;
}

long locus_dataset_find_offset(const struct locus_dataset *ds, uint64_t offset)
{
	size_t lo = 0, hi = ds->n_chunks;
	if (offset >= ds->size)
		return -1;
	/* Chunks are contiguous and sorted: find the last one starting at or
	 * before `offset`, skipping empty chunks. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ds->chunks[mid].offset + ds->chunks[mid].length <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ds->n_chunks ? (long)lo : -1;
}

void locus_catalog_replica_counts(const struct locus_catalog *cat, size_t *counts)
{
	memset(counts, 0, cat->n_hosts * sizeof *counts);
	for (size_t d = 0; d < cat->n_datasets; d++)
		for (size_t c = 0; c < cat->datasets[d].n_chunks; c++) {
			const struct locus_chunk *ch = &cat->datasets[d].chunks[c];
			for (uint32_t r = 0; r < ch->n_replicas; r++)
				counts[ch->replicas[r]]++;
		}
}
