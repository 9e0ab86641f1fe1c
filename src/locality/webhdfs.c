/*
 * WebHDFS block locations: the JSON answer to
 * GET /webhdfs/v1/PATH?op=GETFILEBLOCKLOCATIONS (also what HttpFS sends).
 *
 * Accepted documents:
 *   {"BlockLocations": {"BlockLocation": [ENTRY, ...]}}   (what the server sends)
 *   {"BlockLocation": [ENTRY, ...]}                       (the inner object)
 *   [ENTRY, ...]                                          (the bare array)
 *   {"RemoteException": {...}}                            (an error: reported)
 * where ENTRY is Hadoop's BlockLocation as JsonUtil writes it:
 *   {"offset": N, "length": N, "corrupt": BOOL,
 *    "hosts": [...], "names": ["ADDR:PORT", ...], "topologyPaths": [...],
 *    "storageTypes": [...], "storageIds": [...], "cachedHosts": [...]}
 * with one element per replica in hosts, names, topologyPaths, storageTypes
 * and storageIds. Keys the reader does not use are ignored, as newer
 * servers add some; the ones it knows must have the right types.
 *
 * A replica's host is hosts[i]; when that is empty, names[i] through the
 * host map, else the address of names[i] without its port. Its rack is
 * topologyPaths[i] without the last component. Two datanodes on one host
 * are one replica; one host in two racks is an error.
 *
 * The document describes one file, so the catalog gets one dataset. Its
 * blocks, sorted by offset, must cover the file from 0 without gaps or
 * overlaps (a document for part of a file, from ?offset=&length=, is
 * refused rather than taken for the whole file).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/internal.h"
#include "core/json.h"
#include "locus/locality.h"

struct wctx {
	const char *file; /* labels messages */
	struct locus_error *err;
	const char *base; /* JSON path of the block array */
	const struct locus_hostmap *hosts;
};

/* One block entry, checked; the arrays are borrowed from the tree. */
struct wblock {
	size_t index; /* position in the document */
	uint64_t offset;
	uint64_t length;
	int corrupt;
	size_t n; /* replicas */
	json_t *hosts;
	json_t *names; /* or NULL */
	json_t *paths; /* topologyPaths, or NULL */
};

/* Reports a semantic error at the path of block `index` (SIZE_MAX: at
 * `key` alone) extended by `key` (may be NULL), e.g.
 * "BlockLocations.BlockLocation[2].length: expected ...". */
static int perr(struct wctx *c, size_t index, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int perr(struct wctx *c, size_t index, const char *key, const char *fmt, ...)
{
	char msg[400], path[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (index == SIZE_MAX)
		snprintf(path, sizeof path, "%s", key ? key : "");
	else
		snprintf(path, sizeof path, "%s[%zu]%s%s", c->base, index,
			 key && key[0] != '[' ? "." : "", key ? key : "");
	if (!path[0])
		return locus__err(c->err, LOCUS_EPARSE, c->file, 0, 0, "%s", msg);
	return locus__err(c->err, LOCUS_EPARSE, c->file, 0, 0, "%s: %s", path, msg);
}

static int nomem(struct wctx *c)
{
	return locus__err(c->err, LOCUS_ENOMEM, c->file, 0, 0, "out of memory");
}

/* A host name or rack as the catalog stores it: no spaces or control
 * characters, which would break its text format. */
static int valid_chars(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

/* Reads the required non-negative integer member `key` of entry `e`. */
static int get_u64(struct wctx *c, json_t *e, size_t index, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(e, key);
	char got[64];

	if (!v)
		return perr(c, index, NULL, "missing key \"%s\"", key);
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return perr(c, index, key, "expected an integer >= 0, got %s",
			    locus__json_describe(v, got, sizeof got));
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* Checks that member `key` of entry `e`, if present (or always when
 * `required`), is an array of strings; *out receives it or NULL. */
static int get_strings(struct wctx *c, json_t *e, size_t index, const char *key, int required,
		       json_t **out)
{
	json_t *v = json_object_get(e, key);
	char got[64], sub[48];

	*out = NULL;
	if (!v) {
		if (required)
			return perr(c, index, NULL, "missing key \"%s\"", key);
		return 0;
	}
	if (!json_is_array(v))
		return perr(c, index, key, "expected an array of strings, got %s",
			    locus__json_describe(v, got, sizeof got));
	for (size_t i = 0; i < json_array_size(v); i++) {
		json_t *s = json_array_get(v, i);
		if (!json_is_string(s)) {
			snprintf(sub, sizeof sub, "%s[%zu]", key, i);
			return perr(c, index, sub, "expected a string, got %s",
				    locus__json_describe(s, got, sizeof got));
		}
	}
	*out = v;
	return 0;
}

/* "10.1.0.11:9866" -> "10.1.0.11", "[::1]:9866" -> "::1"; an address
 * with several colons and no brackets is IPv6 without a port. Returns an
 * allocated string or NULL when out of memory. */
static char *strip_port(const char *addr)
{
	const char *colon;

	if (addr[0] == '[') {
		const char *end = strchr(addr, ']');
		if (end)
			return locus__strndup(addr + 1, (size_t)(end - addr - 1));
	}
	colon = strchr(addr, ':');
	if (colon && !strchr(colon + 1, ':'))
		return locus__strndup(addr, (size_t)(colon - addr));
	return locus__strdup(addr);
}

/* The host name of replica `j` of `b`: hosts[j]; when that is empty,
 * names[j] through the host map, else names[j] without its port.
 * *out is allocated. */
static int replica_host(struct wctx *c, const struct wblock *b, size_t j, char **out)
{
	const char *h = json_string_value(json_array_get(b->hosts, j));
	char sub[48], got[64];

	*out = NULL;
	if (*h) {
		snprintf(sub, sizeof sub, "hosts[%zu]", j);
		if (!valid_chars(h))
			return perr(
			    c, b->index, sub,
			    "expected a host name without spaces or control characters, got %s",
			    locus__json_quote(got, sizeof got, h, 40));
		*out = locus__strdup(h);
		return *out ? 0 : nomem(c);
	}
	const char *addr = b->names ? json_string_value(json_array_get(b->names, j)) : "";
	const char *mapped = c->hosts && *addr ? locus_hostmap_lookup(c->hosts, addr) : NULL;
	*out = mapped ? locus__strdup(mapped) : strip_port(addr);
	if (!*out)
		return nomem(c);
	if (!**out || !valid_chars(*out)) {
		free(*out);
		*out = NULL;
		snprintf(sub, sizeof sub, "hosts[%zu]", j);
		return perr(c, b->index, sub,
			    "empty host name, and names[%zu] (%s) gives no usable host name either",
			    j, locus__json_quote(got, sizeof got, addr, 40));
	}
	return 0;
}

/* The rack of replica `j`: its topology path without the last component
 * ("/rack-a/10.1.0.11:9866" -> "/rack-a"); NULL in *out when the source
 * does not say. *out is allocated. */
static int replica_rack(struct wctx *c, const struct wblock *b, size_t j, char **out)
{
	const char *path, *slash;
	char sub[48], got[64];

	*out = NULL;
	if (!b->paths)
		return 0;
	path = json_string_value(json_array_get(b->paths, j));
	slash = strrchr(path, '/');
	if (!slash || slash == path)
		return 0;
	*out = locus__strndup(path, (size_t)(slash - path));
	if (!*out)
		return nomem(c);
	if (!valid_chars(*out)) {
		free(*out);
		*out = NULL;
		snprintf(sub, sizeof sub, "topologyPaths[%zu]", j);
		return perr(c, b->index, sub,
			    "expected a topology path without spaces or control characters, got %s",
			    locus__json_quote(got, sizeof got, path, 40));
	}
	return 0;
}

/* Checks entry `e` (document position `index`) and fills `b`. */
static int read_block(struct wctx *c, json_t *e, size_t index, struct wblock *b)
{
	static const char *const per_replica[] = {"names", "topologyPaths", "storageTypes",
						  "storageIds"};
	json_t *v, *arr;
	char got[64];
	int rc;

	memset(b, 0, sizeof *b);
	b->index = index;
	if (!json_is_object(e))
		return perr(c, index, NULL, "expected a block location object, got %s",
			    locus__json_describe(e, got, sizeof got));
	if ((rc = get_u64(c, e, index, "offset", &b->offset)) ||
	    (rc = get_u64(c, e, index, "length", &b->length)))
		return rc;
	v = json_object_get(e, "corrupt");
	if (v && !json_is_boolean(v))
		return perr(c, index, "corrupt", "expected true or false, got %s",
			    locus__json_describe(v, got, sizeof got));
	b->corrupt = json_is_true(v);
	if ((rc = get_strings(c, e, index, "hosts", 1, &b->hosts)))
		return rc;
	b->n = json_array_size(b->hosts);
	if (b->n > UINT32_MAX)
		return perr(c, index, "hosts", "too many replicas");
	/* Every per-replica array has one element per host. */
	for (size_t k = 0; k < LOCUS__ARRAY_LEN(per_replica); k++) {
		if ((rc = get_strings(c, e, index, per_replica[k], 0, &arr)))
			return rc;
		if (arr && json_array_size(arr) != b->n)
			return perr(
			    c, index, per_replica[k],
			    "has %zu element%s but \"hosts\" has %zu (one per replica expected)",
			    json_array_size(arr), json_array_size(arr) == 1 ? "" : "s", b->n);
		if (k == 0)
			b->names = arr;
		else if (k == 1)
			b->paths = arr;
	}
	if ((rc = get_strings(c, e, index, "cachedHosts", 0, &arr)))
		return rc;
	/* Resolve the host names and racks once here only to check them in
	 * document order; add_block resolves them again to store them. */
	for (size_t j = 0; j < b->n; j++) {
		char *host = NULL, *rack = NULL;
		rc = replica_host(c, b, j, &host);
		if (!rc)
			rc = replica_rack(c, b, j, &rack);
		free(host);
		free(rack);
		if (rc)
			return rc;
	}
	return 0;
}

/* Sorts blocks by offset; equal offsets (empty blocks) keep document
 * order, so the result does not depend on qsort. */
static int cmp_block(const void *pa, const void *pb)
{
	const struct wblock *a = pa, *b = pb;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Checks that the sorted blocks cover [0, end) exactly once. */
static int check_contiguous(struct wctx *c, const struct wblock *b, size_t n)
{
	uint64_t end = 0;

	for (size_t i = 0; i < n; i++) {
		if (b[i].offset > end) {
			if (i == 0)
				return perr(c, b[i].index, "offset",
					    "the first block starts at %llu, expected 0 (a "
					    "document for part of a file is not supported)",
					    (unsigned long long)b[i].offset);
			return perr(c, b[i].index, "offset",
				    "gap: this block starts at %llu but %s[%zu] ends at %llu, so "
				    "bytes %llu..%llu are not described",
				    (unsigned long long)b[i].offset, c->base, b[i - 1].index,
				    (unsigned long long)end, (unsigned long long)end,
				    (unsigned long long)b[i].offset - 1);
		}
		if (b[i].offset < end)
			return perr(
			    c, b[i].index, "offset",
			    "overlap: this block starts at %llu, inside %s[%zu] which ends at %llu",
			    (unsigned long long)b[i].offset, c->base, b[i - 1].index,
			    (unsigned long long)end);
		if (b[i].length > UINT64_MAX - end)
			return perr(c, b[i].index, "length", "the file would be over 2^64 bytes");
		end += b[i].length;
	}
	return 0;
}

/* Adds the replicas of block `b` to the catalog as chunk `chunk` of
 * dataset 0, with the problems it has. `ids` holds b->n entries. */
static int add_block(struct wctx *c, struct locus_catalog *cat, const struct wblock *b,
		     size_t chunk, uint32_t *ids)
{
	uint32_t n = 0, flags = 0;
	char detail[160], sub[48], q1[64], q2[64], q3[64];
	int rc = 0;

	for (size_t j = 0; j < b->n && !rc; j++) {
		char *host = NULL, *rack = NULL;
		long id;
		uint32_t k;

		if ((rc = replica_host(c, b, j, &host)) || (rc = replica_rack(c, b, j, &rack))) {
			free(host);
			break;
		}
		id = locus_catalog_add_host(cat, host, rack);
		if (id == LOCUS_EEXIST || id == LOCUS_EINVAL) {
			char known[320];
			snprintf(sub, sizeof sub, "hosts[%zu]", j);
			if (id == LOCUS_EEXIST)
				locus__catalog_host_clash(cat, host, known, sizeof known);
			rc = id == LOCUS_EEXIST
				 ? perr(c, b->index, sub,
					"host %s cannot be told apart from %s (" LOCUS__HOST_RULE
					")",
					locus__json_quote(q1, sizeof q1, host, 40), known)
				 : perr(c, b->index, sub,
					"expected a host name without ',' and not starting with "
					"'.', got %s",
					locus__json_quote(q1, sizeof q1, host, 40));
		} else if (id < 0) {
			rc = nomem(c);
		} else if (rack && cat->hosts[id].rack && strcmp(cat->hosts[id].rack, rack)) {
			/* One host in two racks: the topology is inconsistent,
			 * and rack-aware policies would be misled. */
			snprintf(sub, sizeof sub, "topologyPaths[%zu]", j);
			rc = perr(c, b->index, sub,
				  "host %s is in rack %s here but in rack %s in an earlier block",
				  locus__json_quote(q1, sizeof q1, host, 40),
				  locus__json_quote(q2, sizeof q2, rack, 40),
				  locus__json_quote(q3, sizeof q3, cat->hosts[id].rack, 40));
		} else {
			/* Several datanodes on one host (a test cluster) are one
			 * host to the catalog. */
			for (k = 0; k < n && ids[k] != (uint32_t)id; k++)
				;
			if (k == n)
				ids[n++] = (uint32_t)id;
			else
				locus_log(LOCUS_LOG_LOCALITY,
					  "%s: block at offset %llu lists host %s twice",
					  c->file ? c->file : "webhdfs",
					  (unsigned long long)b->offset, host);
		}
		free(host);
		free(rack);
	}
	if (rc)
		return rc;
	if (b->corrupt)
		flags |= LOCUS_CHUNK_CORRUPT;
	if (n == 0)
		flags |= LOCUS_CHUNK_MISSING;
	long ci = locus_catalog_add_chunk(cat, 0, b->length, ids, n, flags);
	if (ci < 0)
		return ci == LOCUS_ENOMEM ? nomem(c)
					  : perr(c, b->index, NULL, "cannot add this block: %s",
						 locus_strerror((int)ci));
	if (b->corrupt) {
		snprintf(detail, sizeof detail,
			 "block at offset %llu (%llu bytes) is marked corrupt",
			 (unsigned long long)b->offset, (unsigned long long)b->length);
		if (locus_catalog_add_problem(cat, 0, chunk, LOCUS_CHUNK_CORRUPT, detail))
			return nomem(c);
	}
	if (n == 0) {
		snprintf(detail, sizeof detail, "block at offset %llu (%llu bytes) has no replica",
			 (unsigned long long)b->offset, (unsigned long long)b->length);
		if (locus_catalog_add_problem(cat, 0, chunk, LOCUS_CHUNK_MISSING, detail))
			return nomem(c);
	}
	return 0;
}

/* Reports a RemoteException document: the server's answer was an error. */
static int remote_error(struct wctx *c, json_t *re)
{
	const char *ex = NULL, *msg = NULL;
	char q[320];

	if (json_is_object(re)) {
		ex = json_string_value(json_object_get(re, "exception"));
		msg = json_string_value(json_object_get(re, "message"));
	}
	return locus__err(
	    c->err, ex && strcmp(ex, "FileNotFoundException") == 0 ? LOCUS_ENOENT : LOCUS_EIO,
	    c->file, 0, 0, "the WebHDFS server answered with an error, not block locations: %s: %s",
	    ex ? ex : "RemoteException",
	    msg ? locus__json_quote(q, sizeof q, msg, 300) : "(no message)");
}

/* Finds the array of block locations in `root`; sets c->base. */
static int find_blocks(struct wctx *c, json_t *root, json_t **out)
{
	json_t *v, *arr;
	char got[64];

	*out = NULL;
	if (json_is_array(root)) {
		c->base = "";
		*out = root;
		return 0;
	}
	if (!json_is_object(root))
		return perr(
		    c, SIZE_MAX, NULL,
		    "expected a GETFILEBLOCKLOCATIONS document (an object or an array), got %s",
		    locus__json_describe(root, got, sizeof got));
	if ((v = json_object_get(root, "RemoteException")))
		return remote_error(c, v);
	if ((v = json_object_get(root, "BlockLocations"))) {
		if (!json_is_object(v))
			return perr(c, SIZE_MAX, "BlockLocations",
				    "expected an object with a \"BlockLocation\" array, got %s",
				    locus__json_describe(v, got, sizeof got));
		arr = json_object_get(v, "BlockLocation");
		if (!arr)
			return perr(c, SIZE_MAX, "BlockLocations", "missing key \"BlockLocation\"");
		c->base = "BlockLocations.BlockLocation";
	} else if ((arr = json_object_get(root, "BlockLocation"))) {
		c->base = "BlockLocation";
	} else if (json_object_get(root, "LocatedBlocks")) {
		return locus__err(c->err, LOCUS_ENOTSUP, c->file, 0, 0,
				  "this is a GET_BLOCK_LOCATIONS (LocatedBlocks) document; ask the "
				  "server for op=GETFILEBLOCKLOCATIONS");
	} else {
		return perr(
		    c, SIZE_MAX, NULL,
		    "expected a GETFILEBLOCKLOCATIONS document: an object with \"BlockLocations\", "
		    "\"BlockLocation\" or \"RemoteException\", or an array of block locations");
	}
	if (!json_is_array(arr))
		return perr(c, SIZE_MAX, c->base, "expected an array of block locations, got %s",
			    locus__json_describe(arr, got, sizeof got));
	*out = arr;
	return 0;
}

int locus_webhdfs_parse(struct locus_catalog **out, const char *text, size_t len, const char *name,
			const char *dataset, const struct locus_hostmap *hosts,
			struct locus_error *err)
{
	struct wctx c = {name, err, "", hosts};
	struct locus_catalog *cat = NULL;
	struct wblock *blocks = NULL;
	uint32_t *ids = NULL;
	size_t n = 0, max_replicas = 0;
	json_error_t je;
	json_t *root, *arr;
	int rc;

	if (!out || (!text && len))
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no output or no text");
	*out = NULL;
	if (!dataset)
		dataset = name;
	if (!dataset)
		return locus__err(
		    err, LOCUS_EINVAL, NULL, 0, 0,
		    "no dataset name: the document does not say which file it describes");
	/* json_loadb reads exactly `len` bytes: the text need not end in NUL. */
	root = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return locus__err(err, LOCUS_EPARSE, name, je.line, je.column, "invalid JSON: %s",
				  je.text);
	if ((rc = find_blocks(&c, root, &arr)))
		goto out;

	/* Check every entry in document order, so the first bad one is the
	 * one reported; then order them and check they tile the file. */
	n = json_array_size(arr);
	blocks = locus__calloc(n, sizeof *blocks);
	if (!blocks) {
		rc = nomem(&c);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if ((rc = read_block(&c, json_array_get(arr, i), i, &blocks[i])))
			goto out;
		if (blocks[i].n > max_replicas)
			max_replicas = blocks[i].n;
	}
	qsort(blocks, n, sizeof *blocks, cmp_block);
	if ((rc = check_contiguous(&c, blocks, n)))
		goto out;

	ids = locus__calloc(max_replicas, sizeof *ids);
	if (!ids || locus_catalog_create(&cat)) {
		rc = nomem(&c);
		goto out;
	}
	long ds = locus_catalog_add_dataset(cat, dataset);
	if (ds < 0) {
		char q[64];
		rc = ds == LOCUS_ENOMEM
			 ? nomem(&c)
			 : locus__err(err, LOCUS_EINVAL, name, 0, 0,
				      "invalid dataset name %s (empty or with control characters)",
				      locus__json_quote(q, sizeof q, dataset, 40));
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if ((rc = add_block(&c, cat, &blocks[i], i, ids)))
			goto out;
	*out = cat;
	cat = NULL;
out:
	locus_catalog_destroy(cat);
	free(ids);
	free(blocks);
	json_decref(root);
	return rc;
}
