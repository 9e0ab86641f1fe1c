/* Helpers shared by the tests. */
#ifndef LOCUS_TEST_UTIL_H
#define LOCUS_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "locus/sim.h"

/* Creates a fresh empty directory under $TMPDIR (or /tmp) and returns its
 * path in a static buffer per call slot (up to 8 live at once). */
const char *test_tmpdir(void);

/* Path of a file under tests/fixtures in a static buffer. */
const char *test_fixture(const char *name);

/* Reads a whole file (NUL-terminated, caller frees), or NULL. */
char *test_slurp(const char *path, size_t *len);

/* Writes a string to a file; returns 0 on success. */
int test_write(const char *path, const char *text);

struct locus_scenario_spec;
struct locus_result;

/* Builds the scenario of `spec` and runs `policy` on it (message and
 * entry costs as given, a shared file system of `shared_fs` bytes/s when
 * > 0); *opt_local gets the locality optimum when not NULL. NULL (with a
 * message on stderr) on any error. */
struct locus_result *test_simulate(const struct locus_scenario_spec *spec, const char *policy,
				   double cost_msg, double cost_entry, double shared_fs,
				   long *opt_local);

struct locus_graph;

/* A Montage-shaped workflow on n images in a row (stages mProject,
 * mImgtbl, mDiffFit on neighbours, mConcatFit, mBgModel, mBackground,
 * mAdd; runtimes 10, 1, 1, 20, 5, 7, 30 s; every file 1,000 bytes), and
 * a Parallel BLAST one (fastasplitn, n formatdb, n x m blastp, m merge;
 * 60, 56, 30, 2 s). Finished graphs the caller destroys; NULL on error. */
struct locus_graph *test_workflow_montage(int n);
struct locus_graph *test_workflow_blast(int n, int m);
/* A random workflow drawn by `seed`: 3 to 6 stages after a first one
 * that reads the workflow's inputs, each a map (tasks reading one to
 * three earlier files), a gather (a few tasks reading 16 to 60), a
 * multicast (every task reading one common file) or a scatter (a task
 * writing a piece for each task of the stage); files of 1 KB to 8 MB,
 * runtimes of 0.1 to 20 s. Finished; NULL on failure. */
struct locus_graph *test_workflow_random(uint64_t seed);

/* A cluster for workflows: n worker nodes of `cores` cores ("n00"...),
 * then D nodes without cores ("d0"..., where a policy's schedulers run);
 * links 425 MB/s, disks 1 GB/s, latency 50 us. */
struct locus_platform *test_flow_cluster(int n, int cores, int D);

/* A simulation of workflow workload wl under `policy` with `opts`, with
 * the costs locus flow sim gives (a message 5 us, a metadata entry 0.1
 * us, the shared file system 1.25 GB/s and 2,000 operations a second),
 * the platform's latency, 1 + 2D schedulers when D > 0 (amfs: a
 * submitter, D dispatchers and D metadata servers; else the policy's),
 * and per-transfer results only when keep_xfers. */
struct locus_sim_config test_flow_config(const struct locus_workload *wl, const char *policy,
					 const char *opts, int D, uint64_t seed, int keep_xfers);

#endif
