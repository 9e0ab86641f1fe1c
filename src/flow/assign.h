/*
 * The assignment a workflow policy sends a worker (amfs's dispatchers and
 * thieves, dask's scheduler and cores, TaskVine's manager): a
 * LOCUS_MSG_ASSIGN_FLOW message whose size on the wire is the task's
 * description, which names every file the task reads and writes (the
 * AME/AMFS paper's task descriptions: 21.3 KB for mImgtbl's 1,319 files).
 */
#ifndef LOCUS_FLOW_ASSIGN_H
#define LOCUS_FLOW_ASSIGN_H

#include <stdint.h>

#include "locus/policy.h"

/* Bytes of task t's description: 64, and 32 for each of its files. */
uint32_t locus__flow_description(const struct locus_graph *g, uint32_t t);

/* The message by which `from` assigns task t of g to worker `to`, to get
 * its produced inputs by `gather` and put its outputs by `output`: args
 * 0 to 3 (the stored input's source left to the engine), n_args 4. A
 * policy may add args of its own after them. */
struct locus_msg locus__flow_assign_msg(const struct locus_graph *g, uint32_t from, uint32_t to,
					uint32_t t, enum locus_gather gather,
					enum locus_output output);

#endif
