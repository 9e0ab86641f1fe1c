/*
 * Datasets and catalogs: where every chunk and replica lives.
 *
 * A dataset is one named input (an HDFS file, a dataset directory in a
 * node-local store) split into chunks; each chunk has an offset, a length
 * and the hosts holding a replica. A catalog holds a table of hosts and a
 * set of datasets, plus the problems its source reported (missing blocks,
 * blocks under construction, corrupt replicas), so that nothing is dropped
 * silently.
 *
 * Ownership: a catalog owns every string and array reachable from it. It is
 * created with locus_catalog_create() or by a reader (locality.h) and freed
 * with locus_catalog_destroy(). Pointers into it stay valid until the next
 * call that adds to it.
 */
#ifndef LOCUS_DATASET_H
#define LOCUS_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "locus/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Chunk and dataset flags. */
enum {
	LOCUS_CHUNK_MISSING = 1u << 0,		  /* no live replica */
	LOCUS_CHUNK_UNDER_CONSTRUCTION = 1u << 1, /* still being written */
	LOCUS_CHUNK_CORRUPT = 1u << 2,		  /* a replica was dropped as corrupt */
	LOCUS_DATASET_ERASURE_CODED = 1u << 8	  /* replicas hold stripes */
};

struct locus_host {
	char *name; /* host name (or address when no hosts file maps it) */
	char *rack; /* rack path, or NULL when the source does not say */
};

struct locus_chunk {
	uint64_t offset;
	uint64_t length;
	uint32_t flags;
	uint32_t n_replicas;
	uint32_t *replicas; /* host ids, distinct, in the source's order */
};

struct locus_dataset {
	char *name;
	uint64_t size; /* sum of chunk lengths */
	uint32_t flags;
	size_t n_chunks;
	struct locus_chunk *chunks; /* ordered by offset, contiguous */
};

/* One problem a source reported about its data. */
struct locus_problem {
	size_t dataset; /* dataset index */
	size_t chunk;	/* chunk index, or SIZE_MAX for the whole dataset */
	uint32_t flags; /* LOCUS_CHUNK_* that describes it */
	char *detail;	/* human-readable, e.g. "block blk_1073_1001 missing" */
};

struct locus_catalog {
	struct locus_host *hosts;
	size_t n_hosts;
	struct locus_dataset *datasets;
	size_t n_datasets;
	struct locus_problem *problems;
	size_t n_problems;
	void *priv; /* indexes and capacities, private */
};

/* Creates an empty catalog. */
int locus_catalog_create(struct locus_catalog **out);
void locus_catalog_destroy(struct locus_catalog *cat);

/* Returns the id of host `name`, adding it (with `rack`, may be NULL) when
 * absent. Names follow the host-name rule (locus_host_match): a name that
 * differs from a known one only in case, or only by a domain one of them
 * lacks, is that host ("NODE01.example.org" is "node01"), and the host
 * keeps its first spelling. If the host exists without a rack and `rack`
 * is given, the rack is recorded. Returns the id (>= 0), LOCUS_EINVAL for
 * an empty name, one starting with '.' or holding a control character or
 * ',', LOCUS_EEXIST for a name the rule cannot place ("dn1" when "dn1.a"
 * and "dn1.b" are both hosts), or LOCUS_ENOMEM. */
long locus_catalog_add_host(struct locus_catalog *cat, const char *name, const char *rack);

/* Host id for a process or node name (locus_host_match rules), or -1. */
long locus_catalog_find_host(const struct locus_catalog *cat, const char *name);

/* Adds an empty dataset; returns its index (>= 0), LOCUS_EEXIST when the
 * name is taken, LOCUS_EINVAL for an empty name or one with a control
 * character, or LOCUS_ENOMEM. */
long locus_catalog_add_dataset(struct locus_catalog *cat, const char *name);

/* Index of dataset `name`, or -1. */
long locus_catalog_find_dataset(const struct locus_catalog *cat, const char *name);

/* Appends a chunk to dataset `ds` at offset = the dataset's current size.
 * `replicas` are host ids (duplicates are an error: LOCUS_EINVAL). A chunk
 * with no replica gets LOCUS_CHUNK_MISSING. Returns the chunk index. */
long locus_catalog_add_chunk(struct locus_catalog *cat, size_t ds, uint64_t length,
			     const uint32_t *replicas, uint32_t n_replicas, uint32_t flags);

/* Records a problem (the detail string is copied). */
int locus_catalog_add_problem(struct locus_catalog *cat, size_t ds, size_t chunk, uint32_t flags,
			      const char *detail);

/* Merges every dataset and host of `src` into `dst`. A dataset name present
 * in both is LOCUS_EEXIST (and `dst` is left unchanged). */
int locus_catalog_merge(struct locus_catalog *dst, const struct locus_catalog *src,
			struct locus_error *err);

/* Whether host `host` holds a replica of chunk `c`. */
int locus_chunk_on_host(const struct locus_chunk *c, uint32_t host);

/* Index of the chunk that contains byte `offset` of dataset `ds`, or -1
 * when the offset is past the end. */
long locus_dataset_find_offset(const struct locus_dataset *ds, uint64_t offset);

/* Total replicas stored on each host: `counts` has n_hosts entries. */
void locus_catalog_replica_counts(const struct locus_catalog *cat, size_t *counts);

#ifdef __cplusplus
}
#endif
#endif
