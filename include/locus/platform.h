/*
 * Platform: the nodes a run uses, with rack, cores, relative speed and
 * bandwidths. Read from a versioned JSON file (docs/formats.md) or
 * generated. The library allocates (locus_platform_create / _load /
 * _generate) and the caller frees with locus_platform_destroy.
 */
#ifndef LOCUS_PLATFORM_H
#define LOCUS_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "locus/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LOCUS_PLATFORM_FORMAT  "locus-platform"
#define LOCUS_PLATFORM_VERSION 1

struct locus_node {
	char *name;	   /* host name, unique in the platform */
	char *rack;	   /* rack path, e.g. "/rack-a"; never NULL */
	int cores;	   /* worker processes the node runs, >= 0 (0: it only stores) */
	double speed;	   /* relative compute speed, > 0 (1 = reference) */
	double disk_bw;	   /* local disk read bandwidth, bytes/s, > 0 */
	double net_bw;	   /* network interface bandwidth, bytes/s, > 0 */
	int max_transfers; /* remote reads it serves at once, >= 0; 0: no limit */
};

struct locus_platform {
	struct locus_node *nodes;
	size_t n_nodes;
	double latency;	    /* one-way network latency, seconds, >= 0 */
	double backbone_bw; /* aggregate network cap, bytes/s; 0 = none */
	double rack_bw;	    /* each rack's uplink, each way, bytes/s; 0 = none */
	void *index;	    /* name lookup, private */
};

/* A node's speed from `time` on (seconds from the start of a run): the
 * platform's availability over time, as a list sorted by time. */
struct locus_speed_change {
	double time;   /* seconds, >= 0 */
	uint32_t node; /* platform node index */
	double speed;  /* new relative speed, > 0 */
};

/* Reads a speed trace, lines "TIME NODE SPEED" (docs/formats.md), against
 * platform `p` (NODE is a node name): *out is allocated (the caller frees
 * it) and sorted by time, *n its length. `name` labels errors, which carry
 * line and column. */
int locus_speed_trace_parse(struct locus_speed_change **out, size_t *n,
			    const struct locus_platform *p, const char *text, size_t len,
			    const char *name, struct locus_error *err);
int locus_speed_trace_load(struct locus_speed_change **out, size_t *n,
			   const struct locus_platform *p, const char *path,
			   struct locus_error *err);

/* Defaults for generated nodes and omitted JSON fields. */
#define LOCUS_DEFAULT_DISK_BW (100e6)
#define LOCUS_DEFAULT_NET_BW  (125e6)
#define LOCUS_DEFAULT_LATENCY (50e-6)

/* Loads a platform JSON file. Errors carry file, line and column. */
int locus_platform_load(struct locus_platform **out, const char *path, struct locus_error *err);

/* Parses a platform from a JSON text; `name` labels error messages. */
int locus_platform_parse(struct locus_platform **out, const char *text, size_t len,
			 const char *name, struct locus_error *err);

/* Generates `n_nodes` nodes named "<prefix>NNN" spread round-robin over
 * `n_racks` racks ("/rack-N"), each with `cores` cores, speed 1 and the
 * default bandwidths. */
int locus_platform_generate(struct locus_platform **out, size_t n_nodes, size_t n_racks, int cores,
			    const char *prefix);

/* Makes a platform of n nodes named names[i] with cores[i] workers each,
 * the default rack, speed and bandwidths (a run's nodes, say). Names must
 * be valid node names and name distinct hosts (LOCUS_EINVAL says which). */
int locus_platform_create(struct locus_platform **out, const char *const *names, const int *cores,
			  size_t n, struct locus_error *err);
/* Gives every node a speed drawn uniformly from [lo, hi] by a generator
 * seeded with `seed` (node order): a heterogeneous platform. */
void locus_platform_random_speeds(struct locus_platform *p, double lo, double hi, uint64_t seed);

/* Writes the platform as JSON to `path` atomically (temporary + rename). */
int locus_platform_save(const struct locus_platform *p, const char *path, struct locus_error *err);

/* Index of the node named `name` (host-name matching as in
 * locus_host_match), or -1. */
long locus_platform_find(const struct locus_platform *p, const char *name);

/* Total cores over all nodes. */
size_t locus_platform_cores(const struct locus_platform *p);

void locus_platform_destroy(struct locus_platform *p);

/* Host-name matching used everywhere a process or node is named: equal
 * ignoring case, or equal up to the first '.' when exactly one of the two
 * names is qualified with a domain ("dn1" matches "dn1.example.org"). */
int locus_host_match(const char *a, const char *b);

#ifdef __cplusplus
}
#endif
#endif
