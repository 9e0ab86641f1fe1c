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
#include "locus/task.h"

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
	double storage;	   /* local storage objects may fill, bytes; 0: no limit */
	/* Memory its tasks may take at once, bytes; 0: no limit (tasks'
	 * demands, struct locus_demand; a task's disk counts against
	 * storage). */
	double memory;
};

/* How transfers between nodes share the network. */
enum locus_network_model {
	/* Flows share every resource on their way max-min fairly: the
	 * source's disk and interface, the reader's interface, the racks'
	 * uplinks and the backbone when capped. */
	LOCUS_NET_SHARED,
	/* The model of the HEFT and GTP papers: each pair of nodes has a link
	 * of its own (link_bw, or the pair's entry in links), transfers never
	 * contend, and each starts after `latency` (the start-up time). */
	LOCUS_NET_PAIRS
};

/* A pair of nodes whose link differs from link_bw (LOCUS_NET_PAIRS). */
struct locus_link {
	uint32_t a, b; /* node indices, a < b */
	double bw;     /* bytes/s, > 0 */
};

struct locus_platform {
	struct locus_node *nodes;
	size_t n_nodes;
	double latency;	    /* one-way network latency, seconds, >= 0 */
	double backbone_bw; /* aggregate network cap, bytes/s; 0 = none */
	double rack_bw;	    /* each rack's uplink, each way, bytes/s; 0 = none */
	enum locus_network_model network;
	double link_bw;		  /* LOCUS_NET_PAIRS: a pair's bandwidth, bytes/s */
	struct locus_link *links; /* LOCUS_NET_PAIRS: pairs with their own, sorted */
	size_t n_links;
	void *index; /* name lookup, private */
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

/*
 * Platform changes over time: what a node or link can do from a moment on
 * (GTP's avail^t and bandwidth^t, and failures). A scenario is a list of
 * changes sorted by time, read from a file (docs/formats.md) or generated
 * with GTP's variability bound (section 6.2).
 */
enum locus_change_kind {
	/* node's relative speed becomes `value` (> 0), as a speed trace says */
	LOCUS_CHANGE_SPEED,
	/* node's availability becomes `value` in (0, 1]: its speed is its
	 * nominal speed times value */
	LOCUS_CHANGE_AVAIL,
	/* node's network interfaces carry `value` (> 0) times their nominal
	 * bandwidth */
	LOCUS_CHANGE_BANDWIDTH,
	/* the pair (node, node2) carries `value` (> 0) times its nominal
	 * bandwidth (a contention-free platform's link) */
	LOCUS_CHANGE_LINK,
	/* node goes down: what runs there and what only it holds are lost */
	LOCUS_CHANGE_FAIL,
	/* node comes back, empty, at its nominal speed and bandwidth */
	LOCUS_CHANGE_RECOVER
};

struct locus_change {
	double time; /* seconds from the start, >= 0 */
	enum locus_change_kind kind;
	uint32_t node;
	uint32_t node2; /* LINK: the other end, node < node2; else LOCUS_NONE */
	double value;	/* SPEED, AVAIL, BANDWIDTH, LINK; 0 for FAIL and RECOVER */
};

/* The most changes a scenario generator returns (LOCUS_ERANGE beyond). */
#define LOCUS_CHANGES_MAX 50000000

/* Reads a scenario (docs/formats.md): lines "TIME KIND NODE [NODE] [VALUE]"
 * with KIND one of speed, avail, bandwidth, link, fail, recover; a line
 * "TIME NODE SPEED" is a speed change (a speed trace is a scenario).
 * Blank lines and '#' comments (a whole line, or from a field that starts
 * with '#' to the end of the line) are skipped; times must not decrease;
 * a node fails only while up and recovers only while down (all are up at
 * time 0). *out is allocated (the caller frees it; NULL when empty), *n
 * its length, in the file's order; `name` labels errors. Returns 0,
 * LOCUS_EPARSE with line, column and what was expected, or LOCUS_ENOMEM
 * (*out NULL, *n 0); _load also LOCUS_ENOENT or LOCUS_EIO for the file. */
int locus_changes_parse(struct locus_change **out, size_t *n, const struct locus_platform *p,
			const char *text, size_t len, const char *name, struct locus_error *err);
int locus_changes_load(struct locus_change **out, size_t *n, const struct locus_platform *p,
		       const char *path, struct locus_error *err);

/* GTP's scenarios (section 6.2): each resource - every processor's (node
 * with cores > 0) availability, and with `links` every link
 * (contention-free platforms: every pair of processors) or every node's
 * bandwidth (shared networks) - changes at the times of a Poisson process
 * of mean interval `period` over [0, horizon); each change sets the
 * resource to a value uniform in [1 - bound, 1] of its peak. Bound 0
 * gives no changes. Each resource draws from a generator of its own,
 * seeded from (seed, kind, node, node2), so its changes do not depend on
 * which other resources change. Sorted by time, then kind, node, node2.
 * *out is allocated (the caller frees it; NULL when empty). Returns 0,
 * LOCUS_EINVAL for a bad `v`, LOCUS_ERANGE beyond LOCUS_CHANGES_MAX
 * changes, or LOCUS_ENOMEM (*out NULL, *n 0). */
struct locus_variability {
	double bound;	/* [0, 1) (GTP: 0 to 0.9) */
	double period;	/* mean seconds between a resource's changes, > 0, finite */
	double horizon; /* no change at or after this time; >= 0, finite */
	int links;	/* 1: links (or bandwidths) change too, 0: processors only */
	uint64_t seed;
};
int locus_changes_generate(struct locus_change **out, size_t *n, const struct locus_platform *p,
			   const struct locus_variability *v, struct locus_error *err);

/* Parses "NODE@TIME" (a failure: --fail) or "NODE@TIME+DOWN" (down for
 * DOWN seconds, then back) into one or two changes; returns how many, or
 * LOCUS_EPARSE (out untouched) with a message naming what is wrong. The
 * node's name runs to the last '@'; TIME >= 0 and DOWN > 0 start with a
 * digit or '.'. */
int locus_change_parse_fail(struct locus_change out[2], const struct locus_platform *p,
			    const char *spec, struct locus_error *err);

/* Merges the lists a and b, each sorted by time, into a new list sorted
 * by time (stable: a's changes first at equal times). *out is allocated
 * (the caller frees it; NULL when both are empty). Returns 0,
 * LOCUS_EINVAL or LOCUS_ENOMEM (*out NULL, *n 0). */
int locus_changes_merge(struct locus_change **out, size_t *n, const struct locus_change *a,
			size_t na, const struct locus_change *b, size_t nb);

/* Defaults for generated nodes and omitted JSON fields. */
#define LOCUS_DEFAULT_DISK_BW (100e6)
#define LOCUS_DEFAULT_NET_BW  (125e6)
#define LOCUS_DEFAULT_LATENCY (50e-6)

/* The values the simulator's model runs, one set for platform files (the
 * reader names the JSON path of a value outside them), for what
 * locus_platform_save writes, for speed traces and scenarios, and for the
 * command line's --speeds, --latency, --startup and bandwidth options.
 * Past them a run's times leave what a double resolves: a speed of 1e-300
 * printed a 300-digit makespan, a latency of 1e300 ended the run as
 * "stalled". Speeds are relative, bandwidths in bytes/s (a bandwidth that
 * may be 0 means no cap), latencies in seconds. */
#define LOCUS_SPEED_MIN	  1e-6
#define LOCUS_SPEED_MAX	  1e6
#define LOCUS_BW_MIN	  1.0
#define LOCUS_BW_MAX	  1e18
#define LOCUS_LATENCY_MAX 1e3

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

/* The bandwidth a transfer from node a to node b gets when it is alone on
 * the network (a != b): its link (LOCUS_NET_PAIRS), or the narrowest of
 * the source's disk and interface, the reader's interface, the racks'
 * uplinks between racks and the backbone (LOCUS_NET_SHARED). */
double locus_platform_pair_bw(const struct locus_platform *p, uint32_t a, uint32_t b);

/* Makes `p` a contention-free platform: every pair of nodes linked at
 * `bw` bytes/s, transfers starting `startup` seconds after they are asked
 * for (LOCUS_NET_PAIRS, no pair of its own). */
void locus_platform_set_pairs(struct locus_platform *p, double bw, double startup);

/* Gives the pair (a, b) a link of its own (LOCUS_NET_PAIRS). */
int locus_platform_set_link(struct locus_platform *p, uint32_t a, uint32_t b, double bw);

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
