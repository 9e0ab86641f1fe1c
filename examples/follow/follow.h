/*
 * "follow": an example policy, the one docs/architecture.md builds step by
 * step. Each task of a workflow goes, once its inputs are made, to the
 * worker on the node that holds most of its inputs' bytes (round-robin
 * when none does); a task that fails goes to the next worker. It runs as
 * it is in the simulator (locus_sim_config.policy) and on MPI ranks
 * (locus_mpi_flow_options.policy_def).
 */
#ifndef FOLLOW_H
#define FOLLOW_H

#include <locus/locus.h>

extern const struct locus_policy follow_policy;

#endif
