/*
 * The node-local store: ROOT/<node>/<dataset>/<chunk files>, one directory
 * per node (on a real cluster, each on that node's own disk).
 *
 * A chunk file is named "chunk-<index>-<offset>" and holds exactly the
 * chunk's bytes. Each node's copy of a dataset also holds a manifest,
 * ".locus-dataset", with the dataset's size and chunk count, so a scan
 * tells a chunk that no node holds (a lost chunk) from one that never
 * existed. Names starting with '.' are otherwise ignored by the scan: that
 * is where writers keep their temporaries.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "locality/store.h"
#include "locus/locality.h"
#include "locus/place.h"

#define MANIFEST	 ".locus-dataset"
#define MANIFEST_MAGIC	 "locus-store-dataset"
#define MANIFEST_VERSION 1

/* The most chunks a dataset of a store may have. A scan makes an entry
 * (and a problem) for every chunk no node holds, from the indices of the
 * files and the manifest's count, not from what it read: without a bound
 * one stray file "chunk-4000000000-0" had it fill memory. */
#define STORE_MAX_CHUNKS ((uint64_t)1 << 24)

void locus_store_chunk_name(char *buf, size_t size, size_t index, uint64_t offset)
{
	/* "chunk-%06zu-%" PRIu64, without printf: a run names a chunk per
	 * task. */
	char name[6 + 20 + 1 + 20 + 1] = "chunk-";
	size_t n = 6 + locus__put_u64(name + 6, index, 6);
	name[n++] = '-';
	n += locus__put_u64(name + n, offset, 1);
	name[n] = 0;
	const char *parts[] = {name};
	locus__join(buf, size, parts, 1);
}

/* Parses a chunk file name; returns 1 on success. */
static int parse_chunk_name(const char *name, uint64_t *index, uint64_t *offset)
{
	if (strncmp(name, "chunk-", 6) != 0)
		return 0;
	const char *a = name + 6;
	const char *dash = strchr(a, '-');
	if (!dash)
		return 0;
	return locus__parse_u64(a, (size_t)(dash - a), index) == 0 &&
	       locus__parse_u64(dash + 1, strlen(dash + 1), offset) == 0;
}

/* ---- scan ------------------------------------------------------------ */

struct piece {
	char *dataset;
	uint64_t index, offset, length;
	uint32_t host;
};

struct manifest {
	char *dataset;
	uint64_t size, chunks;
	uint32_t host;
};

struct scan {
	const char *root;
	struct locus_error *err;
	struct locus_catalog *cat;
	struct piece *pieces;
	size_t n_pieces, pieces_cap;
	struct manifest *mans;
	size_t n_mans, mans_cap;
	struct locus__buf path;
	char *real_root; /* the root with every link resolved, once needed */
};

/*
 * Refuses a symbolic link at s->path whose target lies outside the store
 * root: a scan would take the target for a replica, and `locus run` would
 * hand it to the command. Links that stay inside the root are followed.
 * Returns 0, or LOCUS_EINVAL / LOCUS_EIO with the error set.
 */
static int check_link(struct scan *s)
{
	struct stat st;
	char target[PATH_MAX];

	if (lstat(s->path.data, &st) != 0)
		return locus__err(s->err, LOCUS_EIO, s->path.data, 0, 0, "cannot stat: %s",
				  strerror(errno));
	if (!S_ISLNK(st.st_mode))
		return 0;
	if (!s->real_root) {
		if (!realpath(s->root, target))
			return locus__err(s->err, LOCUS_EIO, s->root, 0, 0,
					  "cannot resolve the store root: %s", strerror(errno));
		if (!(s->real_root = locus__strdup(target)))
			return LOCUS_ENOMEM;
	}
	if (!realpath(s->path.data, target))
		return locus__err(s->err, LOCUS_EIO, s->path.data, 0, 0,
				  "symbolic link that cannot be followed: %s", strerror(errno));
	size_t k = strlen(s->real_root);
	int inside = strcmp(s->real_root, "/") == 0 ||
		     (strncmp(target, s->real_root, k) == 0 && target[k] == '/');
	if (!inside)
		return locus__err(s->err, LOCUS_EINVAL, s->path.data, 0, 0,
				  "symbolic link to %s, outside the store root %s: refused (a "
				  "store holds its own files; copy the data in, or link within "
				  "the root)",
				  target, s->real_root);
	return 0;
}

static int read_manifest(struct scan *s, const char *file, const char *dataset, uint32_t host)
{
	char *text;
	size_t len;
	int rc = locus_read_file(&text, &len, file, s->err);
	if (rc)
		return rc;
	uint64_t v, size, chunks;
	char extra;
	if (sscanf(text, MANIFEST_MAGIC " %" SCNu64 " size %" SCNu64 " chunks %" SCNu64 " %c", &v,
		   &size, &chunks, &extra) != 3 ||
	    v != MANIFEST_VERSION) {
		free(text);
		return locus__err(s->err, LOCUS_EPARSE, file, 1, 1,
				  "expected \"" MANIFEST_MAGIC
				  " %d\" then \"size N\" and \"chunks N\"",
				  MANIFEST_VERSION);
	}
	free(text);
	if (locus__grow(&s->mans, &s->mans_cap, s->n_mans + 1, sizeof *s->mans))
		return LOCUS_ENOMEM;
	struct manifest *m = &s->mans[s->n_mans];
	m->dataset = locus__strdup(dataset);
	if (!m->dataset)
		return LOCUS_ENOMEM;
	m->size = size;
	m->chunks = chunks;
	m->host = host;
	s->n_mans++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists the entries of a directory, sorted, skipping "." and "..". */
static int list_dir(const char *path, char ***names, size_t *n, struct locus_error *err)
{
	DIR *d = opendir(path);
	*names = NULL;
	*n = 0;
	if (!d)
		return locus__err(err, LOCUS_EIO, path, 0, 0, "cannot read directory: %s",
				  strerror(errno));
	size_t cap = 0;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (locus__grow(names, &cap, *n + 1, sizeof **names) ||
		    !((*names)[*n] = locus__strdup(e->d_name))) {
			rc = LOCUS_ENOMEM;
			break;
		}
		(*n)++;
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof **names, cmp_str);
	return rc;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* A chunk file of one directory: its index and its name. */
struct chunk_file {
	uint64_t index;
	const char *name;
};

static int cmp_chunk_file(const void *a, const void *b)
{
	const struct chunk_file *x = a, *y = b;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Two files of one directory for one chunk index ("chunk-1-8192" beside
 * "chunk-000001-8192") are an error naming both: either could be the
 * replica. `dir` is the directory's path. */
static int check_duplicates(struct scan *s, const char *dir, const char *rel,
			    struct chunk_file *files, size_t n)
{
	if (n > 1)
		qsort(files, n, sizeof *files, cmp_chunk_file);
	for (size_t i = 1; i < n; i++)
		if (files[i].index == files[i - 1].index)
			return locus__err(s->err, LOCUS_EPARSE, dir, 0, 0,
					  "chunk files \"%s\" and \"%s\" both hold chunk %" PRIu64
					  " of dataset \"%s\" (expected one file per chunk "
					  "index; remove one)",
					  files[i - 1].name, files[i].name, files[i].index, rel);
	return 0;
}

/* Walks s->path (a directory under a node), whose dataset name relative to
 * the node directory is `rel` ("" at the node's top). */
static int walk(struct scan *s, const char *rel, uint32_t host, int depth)
{
	char **names;
	size_t n;
	struct chunk_file *files = NULL;
	size_t n_files = 0, files_cap = 0;
	if (depth > 64)
		return locus__err(s->err, LOCUS_ERANGE, s->path.data, 0, 0,
				  "directories nested too deeply");
	int rc = list_dir(s->path.data, &names, &n, s->err);
	size_t base = s->path.len;
	for (size_t i = 0; i < n && !rc; i++) {
		const char *nm = names[i];
		s->path.len = base;
		s->path.data[base] = 0;
		if ((rc = locus__buf_printf(&s->path, "/%s", nm)))
			break;
		uint64_t index, offset;
		if (nm[0] == '.' && (strcmp(nm, MANIFEST) != 0 || !*rel))
			continue;
		if ((rc = check_link(s)))
			break;
		if (nm[0] == '.') {
			rc = read_manifest(s, s->path.data, rel, host);
			continue;
		}
		struct stat st;
		if (stat(s->path.data, &st) != 0) {
			rc = locus__err(s->err, LOCUS_EIO, s->path.data, 0, 0, "cannot stat: %s",
					strerror(errno));
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			char *sub = malloc(strlen(rel) + strlen(nm) + 2);
			if (!sub) {
				rc = LOCUS_ENOMEM;
				break;
			}
			sprintf(sub, "%s%s%s", rel, *rel ? "/" : "", nm);
			rc = walk(s, sub, host, depth + 1);
			free(sub);
		} else if (S_ISREG(st.st_mode) && *rel && parse_chunk_name(nm, &index, &offset)) {
			if (locus__grow(&s->pieces, &s->pieces_cap, s->n_pieces + 1,
					sizeof *s->pieces)) {
				rc = LOCUS_ENOMEM;
				break;
			}
			if (locus__grow(&files, &files_cap, n_files + 1, sizeof *files)) {
				rc = LOCUS_ENOMEM;
				break;
			}
			files[n_files++] = (struct chunk_file){index, nm};
			struct piece *p = &s->pieces[s->n_pieces];
			p->dataset = locus__strdup(rel);
			if (!p->dataset) {
				rc = LOCUS_ENOMEM;
				break;
			}
			p->index = index;
			p->offset = offset;
			p->length = (uint64_t)st.st_size;
			p->host = host;
			s->n_pieces++;
		}
		/* Any other file is not Locus's and is left alone. */
	}
	s->path.len = base;
	if (s->path.data)
		s->path.data[base] = 0;
	if (!rc)
		rc = check_duplicates(s, s->path.data, rel, files, n_files);
	free(files);
	free_names(names, n);
	return rc;
}

static int cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;
	int c = strcmp(x->dataset, y->dataset);
	if (c)
		return c;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return x->host < y->host ? -1 : x->host > y->host;
}

static const struct manifest *find_manifest(const struct scan *s, const char *ds)
{
	for (size_t i = 0; i < s->n_mans; i++)
		if (strcmp(s->mans[i].dataset, ds) == 0)
			return &s->mans[i];
	return NULL;
}

/*
 * The replica of a chunk that the others are checked against, among the
 * pieces [j, end) of one chunk index: the same rule whatever the nodes are
 * called. Preferred, in order: a replica that starts where the chunks
 * before it end (`at`); one that ends where the next chunk starts (or at
 * the manifest's size, for the last chunk); the offset and length most
 * replicas agree on; the longest (a damaged copy is usually truncated);
 * the lowest offset. The last makes equal scores independent of the
 * order of the pieces, which is the nodes' (fuzz_store found two
 * replicas after a gap, of one length at different offsets, whose
 * reference was the first node's, so the listings' order set the gap).
 */
static size_t reference(const struct scan *s, size_t j, size_t end, uint64_t at,
			const struct manifest *m)
{
	size_t g = j, best = j;
	uint64_t score[4] = {0}, best_score[4] = {0};
	while (g < end && s->pieces[g].index == s->pieces[j].index)
		g++;
	for (size_t q = j; q < g; q++) {
		const struct piece *p = &s->pieces[q];
		uint64_t stop = p->offset + p->length, fits = 0, agree = 0;
		if (stop < p->offset)
			stop = UINT64_MAX; /* absurd sizes fit nothing */
		for (size_t r = g; r < end && s->pieces[r].index == p->index + 1; r++)
			fits |= s->pieces[r].offset == stop;
		if (m && p->index + 1 == m->chunks)
			fits |= stop == m->size;
		for (size_t r = j; r < g; r++)
			agree +=
			    s->pieces[r].offset == p->offset && s->pieces[r].length == p->length;
		score[0] = p->offset == at;
		score[1] = fits;
		score[2] = agree;
		score[3] = p->length;
		size_t k = 0;
		while (k < 4 && score[k] == best_score[k])
			k++;
		if (q == j || (k < 4 && score[k] > best_score[k]) ||
		    (k == 4 && p->offset < s->pieces[best].offset)) {
			best = q;
			memcpy(best_score, score, sizeof score);
		}
	}
	return best;
}

/* Refuses manifests of one dataset that disagree across nodes, and a
 * manifest counting more chunks than a store may hold. */
static int check_manifests(struct scan *s)
{
	for (size_t i = 0; i < s->n_mans; i++) {
		const struct manifest *m = find_manifest(s, s->mans[i].dataset);
		char shown[200];
		if (s->mans[i].chunks > STORE_MAX_CHUNKS)
			return locus__err(s->err, LOCUS_EPARSE, s->root, 0, 0,
					  "dataset \"%s\": node %s's manifest says %" PRIu64
					  " chunks; a store holds at most %" PRIu64
					  " chunks per dataset",
					  locus__visible(m->dataset, SIZE_MAX, shown, sizeof shown),
					  s->cat->hosts[s->mans[i].host].name, s->mans[i].chunks,
					  STORE_MAX_CHUNKS);
		if (m->size != s->mans[i].size || m->chunks != s->mans[i].chunks)
			return locus__err(s->err, LOCUS_EPARSE, s->root, 0, 0,
					  "dataset \"%s\": node %s says %" PRIu64
					  " bytes in %" PRIu64 " chunks, node %s says %" PRIu64
					  " in %" PRIu64,
					  m->dataset, s->cat->hosts[m->host].name, m->size,
					  m->chunks, s->cat->hosts[s->mans[i].host].name,
					  s->mans[i].size, s->mans[i].chunks);
	}
	return 0;
}

/* Refuses a chunk file whose index is beyond the most chunks a store may
 * hold. */
static int check_indices(struct scan *s)
{
	for (size_t k = 0; k < s->n_pieces; k++) {
		char shown[200];
		if (s->pieces[k].index >= STORE_MAX_CHUNKS)
			return locus__err(
			    s->err, LOCUS_EPARSE, s->root, 0, 0,
			    "dataset \"%s\": node %s holds chunk %" PRIu64
			    "; a store holds at most %" PRIu64
			    " chunks per dataset (expected chunk-<index>-<offset> with an index "
			    "below that)",
			    locus__visible(s->pieces[k].dataset, SIZE_MAX, shown, sizeof shown),
			    s->cat->hosts[s->pieces[k].host].name, s->pieces[k].index,
			    STORE_MAX_CHUNKS);
	}
	return 0;
}

/* Records chunks [from, to) of dataset d, which no node of the store
 * holds, each with a problem saying so. Only the total length of such a
 * run is known: each chunk is empty but the last, which takes `last`
 * bytes. */
static int add_missing(struct scan *s, size_t d, uint64_t from, uint64_t to, uint64_t last)
{
	char detail[512];
	int rc = 0;
	for (uint64_t k = from; k < to && !rc; k++) {
		uint64_t len = k + 1 == to ? last : 0;
		long c = locus_catalog_add_chunk(s->cat, d, len, NULL, 0, LOCUS_CHUNK_MISSING);
		snprintf(detail, sizeof detail, "chunk %" PRIu64 " is on no node of the store", k);
		rc = c < 0 ? (int)c
			   : locus_catalog_add_problem(s->cat, d, (size_t)c, LOCUS_CHUNK_MISSING,
						       detail);
	}
	return rc;
}

/* Adds the chunk whose pieces start at j, with reference piece p, and
 * sets *k past its pieces. All replicas of this chunk: the first length
 * wins, a replica of another length is dropped as corrupt and reported. */
static int add_replicas(struct scan *s, size_t d, const char *name, size_t j, size_t end,
			const struct piece *p, uint32_t **reps, size_t *reps_cap, size_t *k)
{
	char detail[512];
	uint32_t n = 0, flags = 0;
	int rc = 0;
	for (*k = j; *k < end && s->pieces[*k].index == p->index; (*k)++) {
		const struct piece *q = &s->pieces[*k];
		if (*k > j && q->host == s->pieces[*k - 1].host)
			/* Only a listing can say this: a directory with two
			 * files for one index is refused by the walk. */
			return locus__err(s->err, LOCUS_EPARSE, s->root, 0, 0,
					  "dataset \"%s\": node %s holds chunk %" PRIu64 " twice",
					  name, s->cat->hosts[q->host].name, q->index);
		if (q->offset != p->offset || q->length != p->length) {
			flags |= LOCUS_CHUNK_CORRUPT;
			snprintf(detail, sizeof detail,
				 "chunk %" PRIu64 " on node %s is %" PRIu64
				 " bytes at offset %" PRIu64 ", on node %s %" PRIu64
				 " bytes at %" PRIu64 "; the former replica is ignored",
				 q->index, s->cat->hosts[q->host].name, q->length, q->offset,
				 s->cat->hosts[p->host].name, p->length, p->offset);
			rc = locus_catalog_add_problem(s->cat, d, (size_t)p->index,
						       LOCUS_CHUNK_CORRUPT, detail);
		} else {
			if (locus__grow(reps, reps_cap, (size_t)n + 1, sizeof **reps))
				return LOCUS_ENOMEM;
			(*reps)[n++] = q->host;
		}
	}
	if (rc)
		return rc;
	long c = locus_catalog_add_chunk(s->cat, d, p->length, *reps, n, flags);
	if (c < 0)
		return c == LOCUS_ERANGE ? locus__err(s->err, LOCUS_EPARSE, s->root, 0, 0,
						      "dataset \"%s\" is too large", name)
					 : (int)c;
	return 0;
}

/* Checks dataset d's chunks against its manifest, adding the trailing
 * chunks that no node holds. */
static int check_against_manifest(struct scan *s, size_t d, const struct manifest *m,
				  const char *name)
{
	struct locus_dataset *ds = &s->cat->datasets[d];
	if (ds->n_chunks > m->chunks || ds->size > m->size)
		return locus__err(s->err, LOCUS_EPARSE, s->root, 0, 0,
				  "dataset \"%s\": the manifest says %" PRIu64
				  " chunks and %" PRIu64 " bytes, the store holds more",
				  name, m->chunks, m->size);
	if (ds->n_chunks < m->chunks)
		/* Trailing chunks that no node holds. */
		return add_missing(s, d, ds->n_chunks, m->chunks, m->size - ds->size);
	if (ds->size != m->size)
		return locus__err(s->err, LOCUS_EPARSE, s->root, 0, 0,
				  "dataset \"%s\": the manifest says %" PRIu64
				  " bytes, the chunks hold %" PRIu64,
				  name, m->size, ds->size);
	return 0;
}

/* Adds the dataset of the sorted pieces [i, end) to the catalog, chunk by
 * chunk, with the chunks that no node holds. */
static int assemble_dataset(struct scan *s, size_t i, size_t end, uint32_t **reps, size_t *reps_cap)
{
	const char *name = s->pieces[i].dataset;
	long d = locus_catalog_add_dataset(s->cat, name);
	if (d < 0) {
		char shown[200];
		return locus__err(s->err, d == LOCUS_EINVAL ? LOCUS_EPARSE : (int)d, s->root, 0, 0,
				  "dataset \"%s\": %s",
				  locus__visible(name, SIZE_MAX, shown, sizeof shown),
				  d == LOCUS_EINVAL ? "expected a name without control characters"
						    : locus_strerror((int)d));
	}
	const struct manifest *m = find_manifest(s, name);
	uint64_t next = 0; /* next expected chunk index */
	size_t j = i;
	int rc = 0;
	while (j < end && !rc) {
		struct locus_dataset *ds = &s->cat->datasets[d];
		const struct piece *p = &s->pieces[reference(s, j, end, ds->size, m)];
		if (p->index > next || p->offset > ds->size) {
			/* Chunks nobody holds: the gap is known from offsets. */
			if (p->offset <= ds->size || p->index <= next)
				return locus__err(s->err, LOCUS_EPARSE, s->root, 0, 0,
						  "dataset \"%s\": chunk %" PRIu64
						  " at offset %" PRIu64
						  " does not follow the chunks before it",
						  name, p->index, p->offset);
			rc = add_missing(s, (size_t)d, next, p->index, p->offset - ds->size);
			next = p->index;
			continue;
		}
		if (p->index < next || p->offset != ds->size)
			return locus__err(s->err, LOCUS_EPARSE, s->root, 0, 0,
					  "dataset \"%s\": chunk %" PRIu64
					  " on node %s starts at %" PRIu64 ", expected %" PRIu64,
					  name, p->index, s->cat->hosts[p->host].name, p->offset,
					  ds->size);
		size_t k;
		rc = add_replicas(s, (size_t)d, name, j, end, p, reps, reps_cap, &k);
		next = p->index + 1;
		j = k;
	}
	if (!rc && m)
		rc = check_against_manifest(s, (size_t)d, m, name);
	return rc;
}

/* Adds the datasets with a manifest but no chunk file anywhere, every
 * chunk missing. */
static int add_empty_datasets(struct scan *s)
{
	int rc = 0;
	for (size_t k = 0; k < s->n_mans && !rc; k++) {
		const struct manifest *m = &s->mans[k];
		if (locus_catalog_find_dataset(s->cat, m->dataset) >= 0)
			continue;
		long d = locus_catalog_add_dataset(s->cat, m->dataset);
		rc = d < 0 ? (int)d : add_missing(s, (size_t)d, 0, m->chunks, m->size);
	}
	return rc;
}

/* Builds the catalog from the sorted pieces. */
static int assemble(struct scan *s)
{
	uint32_t *reps = NULL;
	size_t reps_cap = 0;
	int rc = check_manifests(s);
	if (!rc)
		rc = check_indices(s);
	if (rc)
		return rc;
	/* One dataset at a time: its pieces are consecutive. */
	size_t i = 0;
	while (i < s->n_pieces && !rc) {
		size_t end = i;
		while (end < s->n_pieces &&
		       strcmp(s->pieces[end].dataset, s->pieces[i].dataset) == 0)
			end++;
		rc = assemble_dataset(s, i, end, &reps, &reps_cap);
		i = end;
	}
	if (!rc)
		rc = add_empty_datasets(s);
	free(reps);
	if (rc && s->err && !s->err->code)
		locus__err(s->err, rc, s->root, 0, 0, "%s", locus_strerror(rc));
	return rc;
}

/* Frees what a scan collected (not the catalog). */
static void scan_fini(struct scan *s)
{
	for (size_t i = 0; i < s->n_pieces; i++)
		free(s->pieces[i].dataset);
	free(s->pieces);
	for (size_t i = 0; i < s->n_mans; i++)
		free(s->mans[i].dataset);
	free(s->mans);
	locus__buf_fini(&s->path);
	free(s->real_root);
}

/* Adds node directory `node` as a host: its name follows the host-name
 * rule, and two directories that name one host ("node01" and
 * "NODE01.example.org") are an error, since a run on that host would find
 * two directories for it. Returns the id or an error code (err set). */
static long add_node(struct scan *s, const char *node)
{
	char shown[200];
	long h = locus_catalog_add_host(s->cat, node, NULL);
	if (h == LOCUS_EINVAL)
		return locus__err(s->err, LOCUS_EPARSE, s->root, 0, 0,
				  "node directory \"%s\": expected a host name (no control "
				  "character, no ',', not starting with '.')",
				  locus__visible(node, SIZE_MAX, shown, sizeof shown));
	if (h == LOCUS_EEXIST || (h >= 0 && strcmp(s->cat->hosts[h].name, node) != 0)) {
		char known[320];
		if (h >= 0)
			snprintf(known, sizeof known, "\"%s\"", s->cat->hosts[h].name);
		else
			locus__catalog_host_clash(s->cat, node, known, sizeof known);
		return locus__err(
		    s->err, LOCUS_EPARSE, s->root, 0, 0,
		    "node directory \"%s\" names the same host as %s (" LOCUS__HOST_RULE
		    "): keep one directory per host",
		    node, known);
	}
	return h;
}

/* Sorts the pieces and builds s->cat from them; on failure frees the
 * catalog. The scan is finished either way. */
static int scan_finish(struct scan *s, struct locus_catalog **out, int rc)
{
	if (!rc) {
		if (s->n_pieces) /* qsort must not be handed NULL, even for none */
			qsort(s->pieces, s->n_pieces, sizeof *s->pieces, cmp_piece);
		rc = assemble(s);
	}
	if (!rc && s->cat->n_datasets == 0)
		rc = locus__err(s->err, LOCUS_EPARSE, s->root, 0, 0,
				"no dataset in the store: expected "
				"<root>/<node>/<dataset>/chunk-<index>-<offset> files (or a "
				"%s manifest) under %zu node director%s",
				MANIFEST, s->cat->n_hosts, s->cat->n_hosts == 1 ? "y" : "ies");
	scan_fini(s);
	if (rc) {
		if (s->err && !s->err->code)
			locus__err(s->err, rc, s->root, 0, 0, "%s", locus_strerror(rc));
		locus_catalog_destroy(s->cat);
		return rc;
	}
	locus_log(LOCUS_LOG_LOCALITY, "store %s: %zu nodes, %zu datasets", s->root, s->cat->n_hosts,
		  s->cat->n_datasets);
	*out = s->cat;
	return 0;
}

int locus_store_scan(struct locus_catalog **out, const char *root, struct locus_error *err)
{
	struct scan s = {.root = root, .err = err};
	char **nodes = NULL;
	size_t n_nodes = 0;
	*out = NULL;
	locus_error_clear(err);
	int rc = locus_catalog_create(&s.cat);
	if (!rc)
		rc = list_dir(root, &nodes, &n_nodes, err);
	for (size_t i = 0; i < n_nodes && !rc; i++) {
		if (nodes[i][0] == '.')
			continue;
		s.path.len = 0;
		if ((rc = locus__buf_printf(&s.path, "%s/%s", root, nodes[i])))
			break;
		struct stat st;
		if (stat(s.path.data, &st) != 0 || !S_ISDIR(st.st_mode))
			continue; /* a stray file at the top is not a node */
		if ((rc = check_link(&s)))
			break;
		long h = add_node(&s, nodes[i]);
		if (h < 0) {
			rc = (int)h;
			break;
		}
		rc = walk(&s, "", (uint32_t)h, 0);
	}
	free_names(nodes, n_nodes);
	return scan_finish(&s, out, rc);
}

/* ---- scans split over processes ---------------------------------------- */

int locus__store_nodes(const char *root, char ***names, size_t *n, struct locus_error *err)
{
	char **all;
	size_t n_all, k = 0;
	struct locus__buf path = {0};
	*names = NULL;
	*n = 0;
	int rc = list_dir(root, &all, &n_all, err);
	/* The node directories move to the front; every other name is freed
	 * (k <= i: nothing kept is overwritten). */
	for (size_t i = 0; i < n_all && !rc; i++) {
		struct stat st;
		char *name = all[i];
		all[i] = NULL;
		path.len = 0;
		if (name[0] != '.' && !(rc = locus__buf_printf(&path, "%s/%s", root, name)) &&
		    stat(path.data, &st) == 0 && S_ISDIR(st.st_mode))
			all[k++] = name;
		else
			free(name);
	}
	locus__buf_fini(&path);
	if (rc) {
		free_names(all, n_all);
		return rc;
	}
	*names = all;
	*n = k;
	return 0;
}

void locus__store_nodes_free(char **names, size_t n)
{
	free_names(names, n);
}

/* A name travels on a line of its own: no control character in it. */
static int listable(const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 0;
	return *name != 0;
}

int locus__store_list_node(const char *root, const char *node, struct locus__buf *out,
			   struct locus_error *err)
{
	struct scan s = {.root = root, .err = err};
	int rc = locus__buf_printf(&s.path, "%s/%s", root, node);
	if (!rc)
		rc = check_link(&s);
	if (!rc)
		rc = walk(&s, "", 0, 0);
	for (size_t i = 0; i < s.n_pieces && !rc; i++) {
		const struct piece *p = &s.pieces[i];
		if (!listable(p->dataset))
			rc = locus__err(err, LOCUS_EPARSE, root, 0, 0,
					"node %s: dataset name with a control character", node);
		else
			rc = locus__buf_printf(out, "C %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n",
					       p->index, p->offset, p->length, p->dataset);
	}
	for (size_t i = 0; i < s.n_mans && !rc; i++) {
		const struct manifest *m = &s.mans[i];
		if (!listable(m->dataset))
			rc = locus__err(err, LOCUS_EPARSE, root, 0, 0,
					"node %s: dataset name with a control character", node);
		else
			rc = locus__buf_printf(out, "M %" PRIu64 " %" PRIu64 " %s\n", m->size,
					       m->chunks, m->dataset);
	}
	scan_fini(&s);
	if (rc && err && !err->code)
		locus__err(err, rc, root, 0, 0, "node %s: %s", node, locus_strerror(rc));
	return rc;
}

/* Reads one listing line "C INDEX OFFSET LENGTH DATASET" or
 * "M SIZE CHUNKS DATASET" into the scan. */
static int list_line(struct scan *s, const char *line, size_t len, uint32_t host)
{
	uint64_t v[3];
	size_t n_num = line[0] == 'C' ? 3 : 2, at = 2;
	if (len < 2 || (line[0] != 'C' && line[0] != 'M') || line[1] != ' ')
		return LOCUS_EPARSE;
	for (size_t k = 0; k < n_num; k++) {
		size_t end = at;
		while (end < len && line[end] != ' ')
			end++;
		if (end >= len || locus__parse_u64(line + at, end - at, &v[k]))
			return LOCUS_EPARSE;
		at = end + 1;
	}
	char *name = malloc(len - at + 1);
	if (!name)
		return LOCUS_ENOMEM;
	memcpy(name, line + at, len - at);
	name[len - at] = 0;
	if (line[0] == 'C') {
		if (locus__grow(&s->pieces, &s->pieces_cap, s->n_pieces + 1, sizeof *s->pieces)) {
			free(name);
			return LOCUS_ENOMEM;
		}
		s->pieces[s->n_pieces++] = (struct piece){name, v[0], v[1], v[2], host};
	} else {
		if (locus__grow(&s->mans, &s->mans_cap, s->n_mans + 1, sizeof *s->mans)) {
			free(name);
			return LOCUS_ENOMEM;
		}
		s->mans[s->n_mans++] = (struct manifest){name, v[0], v[1], host};
	}
	return 0;
}

int locus__store_assemble(struct locus_catalog **out, const char *root, const char *const *nodes,
			  const char *const *lists, const size_t *lens, size_t n,
			  struct locus_error *err)
{
	struct scan s = {.root = root, .err = err};
	*out = NULL;
	int rc = locus_catalog_create(&s.cat);
	for (size_t i = 0; i < n && !rc; i++) {
		long h = add_node(&s, nodes[i]);
		if (h < 0) {
			rc = (int)h;
			break;
		}
		size_t pos = 0, len, line_no = 0;
		const char *line;
		while (!rc && locus__next_line(lists[i], lens[i], &pos, &line, &len)) {
			line_no++;
			rc = list_line(&s, line, len, (uint32_t)h);
			if (rc == LOCUS_EPARSE)
				locus__err(err, rc, nodes[i], (long)line_no, 1,
					   "expected \"C INDEX OFFSET LENGTH DATASET\" or "
					   "\"M SIZE CHUNKS DATASET\"");
		}
	}
	return scan_finish(&s, out, rc);
}
