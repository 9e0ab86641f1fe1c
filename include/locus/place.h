/*
 * Placement: choosing replica hosts for new chunks, splitting real input
 * into chunks, and writing chunks into a node-local store.
 *
 * Policies:
 *   hdfs    - HDFS default: first replica on the writer's node (or a random
 *             node), second on a node of another rack, third on another
 *             node of the second's rack, further ones random with at most
 *             (r - 1) / racks + 2 per rack;
 *   random  - r distinct nodes uniformly at random;
 *   skewed  - replicas per node drawn with a target standard deviation
 *             around the mean n_chunks * r / n_nodes (ScalScheduling Fig. 6).
 * All draws come from a generator seeded with options.seed.
 */
#ifndef LOCUS_PLACE_H
#define LOCUS_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "locus/dataset.h"
#include "locus/error.h"
#include "locus/platform.h"

#ifdef __cplusplus
extern "C" {
#endif

enum locus_place_policy { LOCUS_PLACE_HDFS, LOCUS_PLACE_RANDOM, LOCUS_PLACE_SKEWED };

#define LOCUS_PLACE_OPTIONS_VERSION 1

struct locus_place_options {
	/* LOCUS_PLACE_OPTIONS_VERSION, set by locus_place_options_init with the other defaults;
	 * 0 (a struct zeroed by hand) reads as version 1 (docs/formats.md). */
	int version;
	enum locus_place_policy policy;
	unsigned replicas; /* r >= 1, at most the number of nodes */
	uint64_t seed;
	const char *writer; /* hdfs: the writer's node name, or NULL */
	double skew_std;    /* skewed: target std of replicas per node */
};

/* The current version and the defaults: HDFS's policy, 3 replicas, seed
 * 0, no writer, skew_std 0. */
void locus_place_options_init(struct locus_place_options *o);

/* Parses "hdfs", "random" or "skewed". Returns 0 or LOCUS_EINVAL. */
int locus_place_policy_parse(const char *name, enum locus_place_policy *out);
const char *locus_place_policy_name(enum locus_place_policy p);

/* Chooses replica nodes for `n_chunks` chunks: out[c * r + j] is the node
 * index (into p->nodes) of replica j of chunk c; the r nodes of a chunk are
 * distinct. `out` has n_chunks * r entries, allocated by the caller. */
int locus_place(const struct locus_platform *p, size_t n_chunks,
		const struct locus_place_options *opt, uint32_t *out, struct locus_error *err);

/* Places `n_chunks` chunks of `chunk_size` bytes of one dataset named
 * `dataset` with `opt` and returns them as a catalog (*out, the caller
 * destroys it) whose hosts are the platform's nodes, in order, with their
 * racks: the generated input of a simulation or a benchmark. */
int locus_place_catalog(struct locus_catalog **out, const struct locus_platform *p,
			const char *dataset, size_t n_chunks, uint64_t chunk_size,
			const struct locus_place_options *opt, struct locus_error *err);

/* How to cut a file into chunks of about `chunk_size` bytes. */
enum locus_split_mode {
	LOCUS_SPLIT_BYTES, /* exactly chunk_size (the last may be shorter) */
	LOCUS_SPLIT_LINES, /* end each chunk after the next newline */
	LOCUS_SPLIT_FASTA  /* end each chunk before the next '>' record */
};

int locus_split_mode_parse(const char *name, enum locus_split_mode *out);

/* Computes the chunk lengths of file `path`; *lengths is allocated (caller
 * frees), *n receives the count. An empty file gives zero chunks. */
int locus_split_file(uint64_t **lengths, size_t *n, const char *path, uint64_t chunk_size,
		     enum locus_split_mode mode, struct locus_error *err);

/* Supplies the bytes of a dataset for locus_store_write: fills `buf` with
 * `len` bytes starting at `offset`. Returns 0 or a LOCUS_E* code. */
typedef int (*locus_bytes_fn)(void *user, uint64_t offset, void *buf, size_t len);

/* Writes dataset `ds` of `cat` into the store at `root`: every replica of
 * every chunk becomes ROOT/<host>/<dataset>/<chunk file> (see
 * docs/formats.md). Each node's dataset directory is written under a
 * temporary name and renamed in place only after every node's copy is
 * complete; on any failure all temporaries are removed and the store is as
 * it was. An existing dataset is LOCUS_EEXIST unless `force`, which
 * replaces it. */
int locus_store_write(const struct locus_catalog *cat, size_t ds, const char *root,
		      locus_bytes_fn bytes, void *user, bool force, struct locus_error *err);

/* The file name of chunk `index` at `offset` in a store. */
void locus_store_chunk_name(char *buf, size_t size, size_t index, uint64_t offset);

/* Kinds of synthetic content for locus_synth_write. */
enum locus_synth_kind {
	LOCUS_SYNTH_FASTA,  /* DNA records: ">seqN" headers, 60-column ACGT lines */
	LOCUS_SYNTH_RANDOM, /* uniformly random bytes */
	LOCUS_SYNTH_ZERO    /* zero bytes */
};

int locus_synth_kind_parse(const char *name, enum locus_synth_kind *out);

/* Writes `size` bytes of synthetic content to `path` atomically, the same
 * bytes for the same seed. */
int locus_synth_write(const char *path, uint64_t size, enum locus_synth_kind kind, uint64_t seed,
		      struct locus_error *err);

#ifdef __cplusplus
}
#endif
#endif
