/*
 * A store scan split over processes: on a cluster each node sees only its
 * own directory, so each lists what it holds and one process assembles the
 * catalog from every listing, with exactly the checks of locus_store_scan.
 * Used by the MPI engine.
 *
 * A listing is text, one line per chunk file or manifest of the node:
 *   C INDEX OFFSET LENGTH DATASET
 *   M SIZE CHUNKS DATASET
 * (the dataset name last, so it may hold spaces; names with control
 * characters are refused).
 */
#ifndef LOCUS_LOCALITY_STORE_H
#define LOCUS_LOCALITY_STORE_H

#include <stddef.h>

#include "core/internal.h"
#include "locus/dataset.h"
#include "locus/error.h"

/* The node directories of the store at `root`, in name order (names not
 * starting with '.'); free with locus__store_nodes_free. */
int locus__store_nodes(const char *root, char ***names, size_t *n, struct locus_error *err);
void locus__store_nodes_free(char **names, size_t n);

/* Appends the listing of node directory `node` to `out`. */
int locus__store_list_node(const char *root, const char *node, struct locus__buf *out,
			   struct locus_error *err);

/* Builds the catalog of n nodes from their listings: host i is nodes[i].
 * `root` labels errors. On failure *out is NULL. */
int locus__store_assemble(struct locus_catalog **out, const char *root, const char *const *nodes,
			  const char *const *lists, const size_t *lens, size_t n,
			  struct locus_error *err);

#endif
