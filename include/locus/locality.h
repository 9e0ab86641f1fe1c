/*
 * Locality: the data locality interface of DL-MPI (Table I) over several
 * sources of block locations.
 *
 * Sources (each reader builds a new catalog, dataset.h; on error *out is
 * NULL and nothing partial is returned):
 *   catalog  - Locus's own text format (docs/formats.md)
 *   fsck     - the output of `hdfs fsck PATH -files -blocks -locations`
 *              (Hadoop 1.x, 2.x, 3.x, with or without -racks and
 *              -replicaDetails)
 *   webhdfs  - the JSON document of a GETFILEBLOCKLOCATIONS request
 *   store    - a node-local store, ROOT/<node>/<dataset>/<chunk files>
 * locus_source_open() picks the reader from a URI-like string.
 *
 * The six calls of Table I take a catalog, a dataset name and process
 * names. A process maps to a host by name (locus_host_match); a process on
 * a host that holds nothing has no local chunk, which is not an error.
 */
#ifndef LOCUS_LOCALITY_H
#define LOCUS_LOCALITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "locus/dataset.h"
#include "locus/error.h"
#include "locus/files.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- host map: datanode address -> host name --------------------------- */

/* An /etc/hosts-style file: "ADDRESS NAME [ALIAS...]" per line, '#'
 * comments. The first name of a line is the host name. */
struct locus_hostmap;

int locus_hostmap_load(struct locus_hostmap **out, const char *path, struct locus_error *err);
int locus_hostmap_parse(struct locus_hostmap **out, const char *text, size_t len, const char *name,
			struct locus_error *err);
/* Host name for `addr` (an address with or without ":port"), or NULL. */
const char *locus_hostmap_lookup(const struct locus_hostmap *map, const char *addr);
void locus_hostmap_destroy(struct locus_hostmap *map);

/* A host list in Slurm's compressed form (SLURM_JOB_NODELIST:
 * "n[01-04,07],login1", "rack[1-2]-n[1-3]") expanded into names, in the
 * list's order, a number keeping the width its leading zeros give.
 * text[0..len) need not end in NUL; `name` says where it came from in
 * errors (NULL: "host list"). On success *names (n of them) is the
 * caller's, freed with locus_hostlist_free. Errors: LOCUS_EPARSE with the
 * column and what was expected (an unclosed or empty bracket, a range
 * that runs backwards, more than LOCUS_HOSTLIST_BRACKETS brackets in a
 * name or more than LOCUS_HOSTLIST_MAX names), LOCUS_ENOMEM. */
#define LOCUS_HOSTLIST_MAX	1000000
#define LOCUS_HOSTLIST_BRACKETS 8
int locus_hostlist_expand(const char *text, size_t len, const char *name, char ***names, size_t *n,
			  struct locus_error *err);
void locus_hostlist_free(char **names, size_t n);

/* ---- readers ------------------------------------------------------------ */

#define LOCUS_CATALOG_MAGIC   "locus-catalog"
#define LOCUS_CATALOG_VERSION 1

/* Locus catalog text. `name` labels errors (usually the file name). */
int locus_catalog_parse(struct locus_catalog **out, const char *text, size_t len, const char *name,
			struct locus_error *err);

/* Writes the canonical catalog text of `cat` to `fp`. Returns 0 or
 * LOCUS_EIO. Parsing the output gives back an equal catalog, and writing
 * that again gives the same bytes. */
int locus_catalog_print(const struct locus_catalog *cat, FILE *fp);

/* Writes the catalog to `path` atomically (temporary file + rename): on
 * failure the old file, if any, is untouched and no temporary is left. */
int locus_catalog_save(const struct locus_catalog *cat, const char *path, struct locus_error *err);

/* `hdfs fsck` output; `hosts` (may be NULL) maps datanode addresses to host
 * names, else the address without port is the host name. */
int locus_fsck_parse(struct locus_catalog **out, const char *text, size_t len, const char *name,
		     const struct locus_hostmap *hosts, struct locus_error *err);

/* WebHDFS GETFILEBLOCKLOCATIONS JSON. `dataset` names the file the document
 * describes (the document itself does not say); NULL uses `name`. */
int locus_webhdfs_parse(struct locus_catalog **out, const char *text, size_t len, const char *name,
			const char *dataset, const struct locus_hostmap *hosts,
			struct locus_error *err);

/* Scans a node-local store rooted at `root`. */
int locus_store_scan(struct locus_catalog **out, const char *root, struct locus_error *err);

/* Opens a source named by `spec`:
 *   catalog:PATH   fsck:PATH[?hosts=FILE]
 *   webhdfs:PATH[?dataset=NAME][&hosts=FILE]   store:ROOT
 * or a bare PATH: a directory is a store, a file is sniffed (catalog magic,
 * JSON object, else fsck). */
int locus_source_open(struct locus_catalog **out, const char *spec, struct locus_error *err);

/* ---- Table I ------------------------------------------------------------ */

/* A list of chunk indices; free with locus_idlist_fini. */
struct locus_idlist {
	size_t n;
	size_t *ids;
};
void locus_idlist_fini(struct locus_idlist *l);

/* For each of n_procs processes, the chunks local to it. procs[i] points at
 * the caller's strings (not copied). Free with locus_chunk_map_fini. */
struct locus_chunk_map {
	size_t dataset;
	size_t n_procs;
	const char *const *procs;
	struct locus_idlist *local;
};
void locus_chunk_map_fini(struct locus_chunk_map *m);

/* One chunk map per dataset under a directory. */
struct locus_dir_map {
	size_t n_datasets;
	struct locus_chunk_map *maps;
};
void locus_dir_map_fini(struct locus_dir_map *m);

/* DLI_map_process_chunks: the chunks of `dataset` local to `process`.
 * LOCUS_ENOENT if the dataset is unknown. */
int locus_dli_map_process_chunks(const struct locus_catalog *cat, const char *dataset,
				 const char *process, struct locus_idlist *out);

/* DLI_map_chunks_process: the map of chunks local to each process of a
 * group. */
int locus_dli_map_chunks_process(const struct locus_catalog *cat, const char *dataset,
				 const char *const *procs, size_t n_procs,
				 struct locus_chunk_map *out);

/* DLI_map_Dprocess_Dchunks: the same for every dataset under directory
 * `dir` (datasets named "dir/..." at any depth; "" or "/" is every dataset
 * the catalog holds), in catalog order. LOCUS_ENOENT when none is under it. */
int locus_dli_map_dprocess_dchunks(const struct locus_catalog *cat, const char *dir,
				   const char *const *procs, size_t n_procs,
				   struct locus_dir_map *out);

/* DLI_get_total_chunks: how many chunks of `dataset` are local to `process`. */
int locus_dli_get_total_chunks(const struct locus_catalog *cat, const char *dataset,
			       const char *process, size_t *out);

/* DLI_get_data_percentage: the percentage (0..100) of the dataset's bytes
 * local to `process`. An empty dataset gives 0. */
int locus_dli_get_data_percentage(const struct locus_catalog *cat, const char *dataset,
				  const char *process, double *out);

/* DLI_check_data: whether byte `offset` of `dataset` is local to
 * `process`. LOCUS_ERANGE when the offset is past the end. */
int locus_dli_check_data(const struct locus_catalog *cat, const char *dataset, const char *process,
			 uint64_t offset, bool *out);

#ifdef __cplusplus
}
#endif
#endif
