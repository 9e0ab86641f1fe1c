/*
 * Workflows: many-task workflows of ordinary programs coupled by files
 * (Zhang et al., the AME/AMFS paper, ../shared/papers/ame-amfs.txt).
 *
 * A workflow is a task graph (task.h) whose tasks have stages (the program
 * each runs) and commands, and whose objects are files with names and
 * sizes: a file nobody writes is an input of the workflow, on the shared
 * file system at the start; a file nobody reads is an output, which ends
 * on the shared file system. Readers return a finished graph the caller
 * frees with locus_graph_destroy; errors carry the file, line and column
 * and say what was expected.
 */
#ifndef LOCUS_FLOW_H
#define LOCUS_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "locus/error.h"
#include "locus/task.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- readers ---------------------------------------------------------------- */

/* What a Makeflow does not say. */
struct locus_makeflow_options {
	/* The directory the workflow's relative file names are in (where it
	 * would run): the size of an input no `.SIZE` gives is read there.
	 * NULL: sizes come from `.SIZE` only (0 otherwise). */
	const char *dir;
	/* A rule's runtime in seconds when no LOCUS_RUNTIME variable in its
	 * scope gives one (>= 0). */
	double runtime;
};

/* Reads a Makeflow in the classic Make-like language of cctools
 * (docs/formats.md says which part): one task per rule, its targets its
 * outputs and its sources its inputs, its command a shell line. `name`
 * labels errors; `opt` may be NULL (no directory, runtime 0). Returns 0,
 * LOCUS_EPARSE (line, column, what was expected), LOCUS_EIO (a file under
 * opt->dir that cannot be read), LOCUS_ENOMEM. */
int locus_flow_read_makeflow(struct locus_graph **out, const char *text, size_t len,
			     const char *name, const struct locus_makeflow_options *opt,
			     struct locus_error *err);

#ifdef __cplusplus
}
#endif
#endif
