/*
 * The six calls of DL-MPI's data locality interface (Table I) over a
 * catalog. A process is named by its host; a process whose host holds no
 * replica (or is not in the catalog) simply has no local chunk.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/locality.h"

void locus_idlist_fini(struct locus_idlist *l)
{
	if (!l)
		return;
	free(l->ids);
	l->ids = NULL;
	l->n = 0;
}

void locus_chunk_map_fini(struct locus_chunk_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; m->local && i < m->n_procs; i++)
		locus_idlist_fini(&m->local[i]);
	free(m->local);
	memset(m, 0, sizeof *m);
}

void locus_dir_map_fini(struct locus_dir_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; m->maps && i < m->n_datasets; i++)
		locus_chunk_map_fini(&m->maps[i]);
	free(m->maps);
	memset(m, 0, sizeof *m);
}

static const struct locus_dataset *dataset(const struct locus_catalog *cat, const char *name,
					   size_t *index)
{
	long d = locus_catalog_find_dataset(cat, name);
	if (d < 0)
		return NULL;
	if (index)
		*index = (size_t)d;
	return &cat->datasets[d];
}

/* Chunks of `ds` held by host `h` (-1: none). */
static int local_chunks(const struct locus_dataset *ds, long h, struct locus_idlist *out)
{
	size_t cap = 0;
	out->n = 0;
	out->ids = NULL;
	if (h < 0)
		return 0;
	for (size_t c = 0; c < ds->n_chunks; c++) {
		if (!locus_chunk_on_host(&ds->chunks[c], (uint32_t)h))
			continue;
		if (locus__grow(&out->ids, &cap, out->n + 1, sizeof *out->ids)) {
			locus_idlist_fini(out);
			return LOCUS_ENOMEM;
		}
		out->ids[out->n++] = c;
	}
	return 0;
}

int locus_dli_map_process_chunks(const struct locus_catalog *cat, const char *name,
				 const char *process, struct locus_idlist *out)
{
	const struct locus_dataset *ds = dataset(cat, name, NULL);
	out->n = 0;
	out->ids = NULL;
	if (!ds || !process)
		return ds ? LOCUS_EINVAL : LOCUS_ENOENT;
	return local_chunks(ds, locus_catalog_find_host(cat, process), out);
}

static int map_dataset(const struct locus_catalog *cat, size_t d, const char *const *procs,
		       size_t n_procs, struct locus_chunk_map *out)
{
	const struct locus_dataset *ds = &cat->datasets[d];
	memset(out, 0, sizeof *out);
	out->dataset = d;
	out->procs = procs;
	out->local = locus__calloc(n_procs, sizeof *out->local);
	if (!out->local)
		return LOCUS_ENOMEM;
	out->n_procs = n_procs;
	/* One pass over the chunks for the whole group, not one per process:
	 * first map every host to the processes on it. */
	long *host_of = locus__calloc(n_procs, sizeof *host_of);
	size_t *caps = locus__calloc(n_procs, sizeof *caps);
	size_t *first = locus__calloc(cat->n_hosts + 1, sizeof *first);
	size_t *next = locus__calloc(n_procs, sizeof *next);
	int rc = 0;
	if (!host_of || !caps || !first || !next) {
		rc = LOCUS_ENOMEM;
		goto done;
	}
	for (size_t h = 0; h < cat->n_hosts; h++)
		first[h] = SIZE_MAX;
	for (size_t i = n_procs; i-- > 0;) {
		if (!procs[i]) {
			rc = LOCUS_EINVAL;
			goto done;
		}
		host_of[i] = locus_catalog_find_host(cat, procs[i]);
		next[i] = SIZE_MAX;
		if (host_of[i] >= 0) {
			next[i] = first[host_of[i]];
			first[host_of[i]] = i;
		}
	}
	for (size_t c = 0; c < ds->n_chunks && !rc; c++) {
		const struct locus_chunk *ch = &ds->chunks[c];
		for (uint32_t r = 0; r < ch->n_replicas && !rc; r++)
			for (size_t i = first[ch->replicas[r]]; i != SIZE_MAX; i = next[i]) {
				struct locus_idlist *l = &out->local[i];
				if (locus__grow(&l->ids, &caps[i], l->n + 1, sizeof *l->ids)) {
					rc = LOCUS_ENOMEM;
					break;
				}
				l->ids[l->n++] = c;
			}
	}
done:
	free(host_of);
	free(caps);
	free(first);
	free(next);
	if (rc)
		locus_chunk_map_fini(out);
	return rc;
}

int locus_dli_map_chunks_process(const struct locus_catalog *cat, const char *name,
				 const char *const *procs, size_t n_procs,
				 struct locus_chunk_map *out)
{
	size_t d;
	memset(out, 0, sizeof *out);
	if (!dataset(cat, name, &d))
		return LOCUS_ENOENT;
	return map_dataset(cat, d, procs, n_procs, out);
}

/* Whether dataset `name` is under directory `dir` (at any depth). */
static int under(const char *name, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 0 && dir[n - 1] == '/')
		n--;
	if (n == 0)
		return 1;
	return strncmp(name, dir, n) == 0 && name[n] == '/';
}

int locus_dli_map_dprocess_dchunks(const struct locus_catalog *cat, const char *dir,
				   const char *const *procs, size_t n_procs,
				   struct locus_dir_map *out)
{
	memset(out, 0, sizeof *out);
	if (!dir)
		return LOCUS_EINVAL;
	size_t n = 0;
	for (size_t d = 0; d < cat->n_datasets; d++)
		n += under(cat->datasets[d].name, dir);
	if (!n)
		return LOCUS_ENOENT;
	out->maps = locus__calloc(n, sizeof *out->maps);
	if (!out->maps)
		return LOCUS_ENOMEM;
	for (size_t d = 0; d < cat->n_datasets; d++) {
		if (!under(cat->datasets[d].name, dir))
			continue;
		int rc = map_dataset(cat, d, procs, n_procs, &out->maps[out->n_datasets]);
		if (rc) {
			locus_dir_map_fini(out);
			return rc;
		}
		out->n_datasets++;
	}
	return 0;
}

int locus_dli_get_total_chunks(const struct locus_catalog *cat, const char *name,
			       const char *process, size_t *out)
{
	const struct locus_dataset *ds = dataset(cat, name, NULL);
	*out = 0;
	if (!ds)
		return LOCUS_ENOENT;
	if (!process)
		return LOCUS_EINVAL;
	long h = locus_catalog_find_host(cat, process);
	for (size_t c = 0; h >= 0 && c < ds->n_chunks; c++)
		*out += (size_t)locus_chunk_on_host(&ds->chunks[c], (uint32_t)h);
	return 0;
}

int locus_dli_get_data_percentage(const struct locus_catalog *cat, const char *name,
				  const char *process, double *out)
{
	const struct locus_dataset *ds = dataset(cat, name, NULL);
	*out = 0;
	if (!ds)
		return LOCUS_ENOENT;
	if (!process)
		return LOCUS_EINVAL;
	long h = locus_catalog_find_host(cat, process);
	uint64_t local = 0;
	for (size_t c = 0; h >= 0 && c < ds->n_chunks; c++)
		if (locus_chunk_on_host(&ds->chunks[c], (uint32_t)h))
			local += ds->chunks[c].length;
	if (ds->size)
		*out = 100.0 * (double)local / (double)ds->size;
	return 0;
}

int locus_dli_check_data(const struct locus_catalog *cat, const char *name, const char *process,
			 uint64_t offset, bool *out)
{
	const struct locus_dataset *ds = dataset(cat, name, NULL);
	*out = false;
	if (!ds)
		return LOCUS_ENOENT;
	if (!process)
		return LOCUS_EINVAL;
	long c = locus_dataset_find_offset(ds, offset);
	if (c < 0)
		return LOCUS_ERANGE;
	long h = locus_catalog_find_host(cat, process);
	*out = h >= 0 && locus_chunk_on_host(&ds->chunks[c], (uint32_t)h);
	return 0;
}
