/*
 * Platforms: the node list read from (and written to) a versioned JSON
 * file, generated platforms, and the host-name matching rule that every
 * part of Locus uses to tie a process or node name to a host.
 *
 * The file format (docs/formats.md):
 *
 *   {"format": "locus-platform", "version": 1,
 *    "network":  {"latency": SECONDS, "backbone_bw": BYTES_PER_S,
 *                 "rack_bw": BYTES_PER_S,
 *                 "model": "shared" | "contention-free",
 *                 "link_bw": BYTES_PER_S,
 *                 "links": [{"nodes": [NAME, NAME], "bw": BYTES_PER_S}]},
 *    "defaults": {"rack": PATH, "cores": N, "speed": X,
 *                 "disk_bw": BYTES_PER_S, "net_bw": BYTES_PER_S,
 *                 "max_transfers": N, "storage": BYTES, "memory": BYTES},
 *    "nodes": [ {"name": NAME, ...node fields...},
 *               {"range": {"prefix": P, "from": A, "to": B,
 *                          "width": W, "suffix": S}, ...node fields...} ]}
 *
 * A node field that is omitted takes its value from "defaults", else from
 * the built-in defaults. The reader is strict: unknown keys, wrong types
 * and out-of-range values are errors that name the JSON path, because a
 * typo that silently falls back to a default gives a wrong simulation.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/internal.h"
#include "core/json.h"
#include "locus/platform.h"
#include "locus/rng.h"

/* Most nodes a platform holds: bounds what a "range" may expand to, so a
 * small file cannot ask for gigabytes. */
#define PLATFORM_MAX_NODES ((size_t)1 << 20)

/* Bounds of "range" numbers and widths: 15 digits stay exact in a double
 * and keep names short. */
#define RANGE_MAX	999999999999999LL
#define RANGE_MAX_WIDTH 20

#define DEFAULT_RACK "/default-rack"

/* ---- host names ---------------------------------------------------------- */

static char ascii_lower(char ch)
{
	return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
}

/* Whether a[0..n) and b[0..n) are equal ignoring ASCII case. Host names are
 * ASCII, so the C locale's idea of case is not wanted here. */
static int same_ci(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ascii_lower(a[i]) != ascii_lower(b[i]))
			return 0;
	return 1;
}

int locus_host_match(const char *a, const char *b)
{
	if (!a || !b || !*a || !*b)
		return 0;
	size_t la = strlen(a), lb = strlen(b);
	const char *da = memchr(a, '.', la), *db = memchr(b, '.', lb);
	if (la == lb && same_ci(a, b, la))
		return 1;
	/* "dn1" against "dn1.example.org": compare the host parts. Two
	 * qualified names must agree in full, or "dn1.a" would match "dn1.b". */
	if (da && !db)
		return (size_t)(da - a) == lb && same_ci(a, b, lb);
	if (db && !da)
		return (size_t)(db - b) == la && same_ci(a, b, la);
	return 0;
}

/* Lower-cased copy of s[0..n): in `buf` when it fits, else allocated.
 * Returns NULL when out of memory; release with lower_free(). */
static char *lower_dup(const char *s, size_t n, char *buf, size_t size)
{
	char *d = n < size ? buf : malloc(n + 1);
	if (!d)
		return NULL;
	for (size_t i = 0; i < n; i++)
		d[i] = ascii_lower(s[i]);
	d[n] = 0;
	return d;
}

static void lower_free(char *d, const char *buf)
{
	if (d != buf)
		free(d);
}

/* Characters allowed in names and racks: no spaces or control characters,
 * since names appear in whitespace-separated text formats. */
static int valid_chars(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

/* A node name: non-empty, valid characters, and not starting with '.' (it
 * would have an empty host part). */
static int valid_name(const char *s)
{
	return s && *s && *s != '.' && valid_chars(s);
}

/* A rack path like HDFS topology paths: "/" then valid characters. */
static int valid_rack(const char *s)
{
	return s && s[0] == '/' && valid_chars(s);
}

/* ---- name index ---------------------------------------------------------- */

/*
 * Keys are lower-cased names. `full` maps every name to its node; `shortq`
 * maps the host part (before the first '.') of each qualified name to the
 * first node that has it. Together they answer every locus_host_match
 * query with two look-ups at most.
 */
struct platform_index {
	struct locus__strmap full;
	struct locus__strmap shortq;
};

static struct platform_index *index_create(void)
{
	struct platform_index *ix = calloc(1, sizeof *ix);
	if (!ix)
		return NULL;
	locus__strmap_init(&ix->full);
	locus__strmap_init(&ix->shortq);
	return ix;
}

static void index_destroy(struct platform_index *ix)
{
	if (!ix)
		return;
	locus__strmap_fini(&ix->full);
	locus__strmap_fini(&ix->shortq);
	free(ix);
}

/* Adds node `id` named `name`. Returns 0; 1 with *clash set when an indexed
 * node already has a name that locus_host_match()es this one (the two would
 * name one host); or LOCUS_ENOMEM. */
static int index_add(struct platform_index *ix, const char *name, size_t id, size_t *clash)
{
	char buf[256];
	char *key = lower_dup(name, strlen(name), buf, sizeof buf);
	char *dot;
	int rc = 0;

	if (!key)
		return LOCUS_ENOMEM;
	dot = strchr(key, '.');
	if (locus__strmap_get(&ix->full, key, clash)) {
		rc = 1;
	} else if (dot) {
		/* Clashes with an unqualified node named like our host part. */
		*dot = 0;
		if (locus__strmap_get(&ix->full, key, clash))
			rc = 1;
		else if (!locus__strmap_get(&ix->shortq, key, NULL) &&
			 locus__strmap_put(&ix->shortq, key, id))
			rc = LOCUS_ENOMEM;
		*dot = '.';
	} else if (locus__strmap_get(&ix->shortq, key, clash)) {
		/* Clashes with a qualified node whose host part we are. */
		rc = 1;
	}
	if (!rc && locus__strmap_put(&ix->full, key, id))
		rc = LOCUS_ENOMEM;
	lower_free(key, buf);
	return rc;
}

long locus_platform_find(const struct locus_platform *p, const char *name)
{
	const struct platform_index *ix;

	if (!p || !name || !*name)
		return -1;
	ix = p->index;
	if (ix) {
		char buf[256];
		char *key = lower_dup(name, strlen(name), buf, sizeof buf);
		size_t id = 0;
		int found;

		if (key) {
			found = locus__strmap_get(&ix->full, key, &id);
			if (!found) {
				char *dot = strchr(key, '.');
				if (dot) {
					*dot = 0;
					found = locus__strmap_get(&ix->full, key, &id);
				} else {
					found = locus__strmap_get(&ix->shortq, key, &id);
				}
			}
			lower_free(key, buf);
			return found && id < p->n_nodes ? (long)id : -1;
		}
	}
	/* No index (a platform the caller built) or no memory for the key:
	 * scan, preferring a node whose whole name matches. */
	size_t n = strlen(name);
	for (size_t i = 0; i < p->n_nodes; i++) {
		const char *s = p->nodes[i].name;
		if (s && strlen(s) == n && same_ci(s, name, n))
			return (long)i;
	}
	for (size_t i = 0; i < p->n_nodes; i++)
		if (locus_host_match(p->nodes[i].name, name))
			return (long)i;
	return -1;
}

/* ---- small formatting helpers -------------------------------------------- */

/* Edit distance of two short strings, capped: used to suggest the key a
 * typo meant. Returns a large value for long strings. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[33], prev[33];

	if (la > 32 || lb > 32)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = row[j - 1] + 1;
			row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, row, (lb + 1) * sizeof *row);
	}
	return prev[lb];
}

/* ---- reading ------------------------------------------------------------- */

/* Node fields, after defaults. `rack` is borrowed from the JSON tree or a
 * literal. */
struct node_attrs {
	const char *rack;
	int cores;
	double speed;
	double disk_bw;
	double net_bw;
	int max_transfers;
	double storage;
	double memory;
};

static const struct node_attrs builtin_attrs = {DEFAULT_RACK,	      1, 1.0, LOCUS_DEFAULT_DISK_BW,
						LOCUS_DEFAULT_NET_BW, 0, 0,   0};

struct pctx {
	const char *file; /* labels messages */
	struct locus_error *err;
	struct locus_platform *p;  /* being built */
	struct platform_index *ix; /* == p->index */
	size_t nodes_cap;
	size_t *origin; /* the nodes[] entry each node came from */
	size_t origin_cap;
	struct node_attrs def; /* from "defaults" */
};

/* Reports a semantic error at JSON path `path` (may be "") extended by
 * `key` (may be NULL): "nodes[3].speed: expected ...". */
static int perr(struct pctx *c, const char *path, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int perr(struct pctx *c, const char *path, const char *key, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	const char *sep = path[0] && key ? "." : "";

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!path[0] && !key)
		return locus__err(c->err, LOCUS_EPARSE, c->file, 0, 0, "%s", msg);
	return locus__err(c->err, LOCUS_EPARSE, c->file, 0, 0, "%s%s%s: %s", path, sep,
			  key ? key : "", msg);
}

static int nomem(struct pctx *c)
{
	return locus__err(c->err, LOCUS_ENOMEM, c->file, 0, 0, "out of memory");
}

/* Fails on the first key of object `obj` that is not in `allowed`, naming
 * it, the allowed key it most likely meant, and every allowed key. */
static int check_keys(struct pctx *c, json_t *obj, const char *path, const char *const *allowed)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v)
	{
		char list[200] = "", q[64];
		const char *near = NULL;
		size_t best = 3, i;

		for (i = 0; allowed[i]; i++)
			if (strcmp(key, allowed[i]) == 0)
				break;
		if (allowed[i])
			continue;
		for (i = 0; allowed[i]; i++) {
			size_t d = edit_distance(key, allowed[i]);
			if (d < best && d < strlen(key)) {
				best = d;
				near = allowed[i];
			}
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
				 i ? ", " : "", allowed[i]);
		}
		locus__json_quote(q, sizeof q, key, 40);
		if (near)
			return perr(c, path, NULL,
				    "unknown key %s (did you mean \"%s\"?); allowed keys: %s", q,
				    near, list);
		return perr(c, path, NULL, "unknown key %s; allowed keys: %s", q, list);
	}
	return 0;
}

/* Reads integer member `key` of `obj`, if present, into *out; it must lie
 * in [min, max], which `expect` says in words. */
static int get_int(struct pctx *c, json_t *obj, const char *path, const char *key, long long min,
		   long long max, const char *expect, long long *out)
{
	json_t *v = json_object_get(obj, key);
	char got[64];

	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
		return perr(c, path, key, "expected %s, got %s", expect,
			    locus__json_describe(v, got, sizeof got));
	*out = json_integer_value(v);
	return 0;
}

/* Reads number member `key` of `obj`, if present, into *out: it must lie
 * in [lo, hi] (hi may be INFINITY), or be 0 when `zero_ok`; `what` names
 * the quantity in the message ("bytes/s"). JSON has no infinities, so
 * every value read is finite. */
static int get_num(struct pctx *c, json_t *obj, const char *path, const char *key, double lo,
		   double hi, int zero_ok, const char *what, double *out)
{
	json_t *v = json_object_get(obj, key);
	char got[64], range[96];

	if (!v)
		return 0;
	double x = json_is_number(v) ? json_number_value(v) : NAN;
	if ((zero_ok && x == 0) || (x >= lo && x <= hi)) {
		*out = x;
		return 0;
	}
	if (isinf(hi))
		snprintf(range, sizeof range, "%s >= %g", what, lo);
	else
		snprintf(range, sizeof range, "%s in [%g, %g]", what, lo, hi);
	return perr(c, path, key, "expected %s%s, got %s", zero_ok ? "0 (no cap) or " : "", range,
		    locus__json_describe(v, got, sizeof got));
}

/* The node fields and network values, held to the model's limits
 * (platform.h). */
static int get_speed(struct pctx *c, json_t *obj, const char *path, double *out)
{
	return get_num(c, obj, path, "speed", LOCUS_SPEED_MIN, LOCUS_SPEED_MAX, 0, "a speed", out);
}

static int get_bw(struct pctx *c, json_t *obj, const char *path, const char *key, int zero_ok,
		  double *out)
{
	return get_num(c, obj, path, key, LOCUS_BW_MIN, LOCUS_BW_MAX, zero_ok, "bytes/s", out);
}

/* Reads string member `key` of `obj`, if present; the string is borrowed
 * from the tree. */
static int get_str(struct pctx *c, json_t *obj, const char *path, const char *key, const char **out)
{
	json_t *v = json_object_get(obj, key);
	char got[64];

	if (!v)
		return 0;
	if (!json_is_string(v))
		return perr(c, path, key, "expected a string, got %s",
			    locus__json_describe(v, got, sizeof got));
	*out = json_string_value(v);
	return 0;
}

static const char *const attr_keys[] = {"rack",		 "cores",   "speed",  "disk_bw", "net_bw",
					"max_transfers", "storage", "memory", NULL};

/* Reads the node fields of `obj` (a node entry or "defaults") over `base`. */
static int read_attrs(struct pctx *c, json_t *obj, const char *path, const struct node_attrs *base,
		      struct node_attrs *a)
{
	long long cores = base->cores, transfers = base->max_transfers;
	char got[64];
	int rc;

	*a = *base;
	if ((rc = get_str(c, obj, path, "rack", &a->rack)))
		return rc;
	if (!valid_rack(a->rack))
		return perr(c, path, "rack",
			    "expected a rack path starting with '/' and without spaces or control "
			    "characters, got %s",
			    locus__json_quote(got, sizeof got, a->rack, 40));
	if ((rc = get_int(c, obj, path, "cores", 0, INT_MAX, "an integer >= 0", &cores)) ||
	    (rc = get_speed(c, obj, path, &a->speed)) ||
	    (rc = get_bw(c, obj, path, "disk_bw", 0, &a->disk_bw)) ||
	    (rc = get_bw(c, obj, path, "net_bw", 0, &a->net_bw)) ||
	    (rc = get_int(c, obj, path, "max_transfers", 0, INT_MAX, "an integer >= 0",
			  &transfers)) ||
	    (rc = get_num(c, obj, path, "storage", 0, INFINITY, 0, "bytes", &a->storage)) ||
	    (rc = get_num(c, obj, path, "memory", 0, INFINITY, 0, "bytes", &a->memory)))
		return rc;
	a->cores = (int)cores;
	a->max_transfers = (int)transfers;
	return 0;
}

/* Appends node `name` with fields `a`, read from nodes[entry] at `path`. */
static int add_node(struct pctx *c, const char *name, const struct node_attrs *a, size_t entry,
		    const char *path)
{
	struct locus_platform *p = c->p;
	struct locus_node *nd;
	size_t clash = 0;
	int rc;

	if (p->n_nodes >= PLATFORM_MAX_NODES)
		return perr(c, path, NULL, "too many nodes: a platform holds at most %zu",
			    PLATFORM_MAX_NODES);
	if (locus__grow(&p->nodes, &c->nodes_cap, p->n_nodes + 1, sizeof *p->nodes) ||
	    locus__grow(&c->origin, &c->origin_cap, p->n_nodes + 1, sizeof *c->origin))
		return nomem(c);
	nd = &p->nodes[p->n_nodes];
	memset(nd, 0, sizeof *nd);
	nd->name = locus__strdup(name);
	nd->rack = locus__strdup(a->rack);
	rc = nd->name && nd->rack ? index_add(c->ix, name, p->n_nodes, &clash) : LOCUS_ENOMEM;
	if (rc) {
		free(nd->name);
		free(nd->rack);
		nd->name = nd->rack = NULL;
	}
	if (rc < 0)
		return nomem(c);
	if (rc > 0) {
		char q1[64], q2[64];
		const char *other = p->nodes[clash].name;
		locus__json_quote(q1, sizeof q1, name, 40);
		locus__json_quote(q2, sizeof q2, other, 40);
		if (strcmp(name, other) == 0)
			return perr(c, path, NULL, "duplicate node name %s (also in nodes[%zu])",
				    q1, c->origin[clash]);
		return perr(c, path, NULL,
			    "node name %s names the same host as %s in nodes[%zu] (names match "
			    "ignoring case and domain)",
			    q1, q2, c->origin[clash]);
	}
	nd->cores = a->cores;
	nd->speed = a->speed;
	nd->disk_bw = a->disk_bw;
	nd->net_bw = a->net_bw;
	nd->max_transfers = a->max_transfers;
	nd->storage = a->storage;
	nd->memory = a->memory;
	c->origin[p->n_nodes] = entry;
	p->n_nodes++;
	return 0;
}

static const char *const range_keys[] = {"prefix", "from", "to", "width", "suffix", NULL};

/* Expands {"prefix": P, "from": A, "to": B, "width": W, "suffix": S} into
 * the nodes P<A>S .. P<B>S, numbers zero-padded to W digits. */
static int read_range(struct pctx *c, json_t *r, const char *path, const struct node_attrs *a,
		      size_t entry)
{
	const char *prefix = NULL, *suffix = "";
	long long from = -1, to = -1, width = 0;
	char got[64];
	int rc;

	if (!json_is_object(r))
		return perr(c, path, NULL,
			    "expected an object {\"prefix\", \"from\", \"to\"[, \"width\", "
			    "\"suffix\"]}, got %s",
			    locus__json_describe(r, got, sizeof got));
	if ((rc = check_keys(c, r, path, range_keys)) ||
	    (rc = get_str(c, r, path, "prefix", &prefix)) ||
	    (rc = get_str(c, r, path, "suffix", &suffix)) ||
	    (rc = get_int(c, r, path, "from", 0, RANGE_MAX,
			  "an integer between 0 and 999999999999999", &from)) ||
	    (rc = get_int(c, r, path, "to", 0, RANGE_MAX,
			  "an integer between 0 and 999999999999999", &to)) ||
	    (rc = get_int(c, r, path, "width", 0, RANGE_MAX_WIDTH, "an integer between 0 and 20",
			  &width)))
		return rc;
	if (!prefix)
		return perr(c, path, NULL, "missing key \"prefix\"");
	if (from < 0)
		return perr(c, path, NULL, "missing key \"from\"");
	if (to < 0)
		return perr(c, path, NULL, "missing key \"to\"");
	if (to < from)
		return perr(c, path, "to", "expected an integer >= from (%lld), got %lld", from,
			    to);
	/* Every name is prefix + digits + suffix: checking the parts once
	 * checks them all. */
	if (*prefix == '.' || !valid_chars(prefix))
		return perr(c, path, "prefix",
			    "expected the start of a host name (no spaces or control characters, "
			    "no leading '.'), got %s",
			    locus__json_quote(got, sizeof got, prefix, 40));
	if (!valid_chars(suffix))
		return perr(
		    c, path, "suffix",
		    "expected the end of a host name (no spaces or control characters), got %s",
		    locus__json_quote(got, sizeof got, suffix, 40));
	if ((unsigned long long)(to - from) >= PLATFORM_MAX_NODES - c->p->n_nodes)
		return perr(c, path, NULL,
			    "expands to %lld nodes, too many: a platform holds at most %zu",
			    to - from + 1, PLATFORM_MAX_NODES);

	size_t cap = strlen(prefix) + strlen(suffix) + RANGE_MAX_WIDTH + 2;
	char *name = malloc(cap);
	if (!name)
		return nomem(c);
	for (long long i = from; i <= to && !rc; i++) {
		snprintf(name, cap, "%s%0*lld%s", prefix, (int)width, i, suffix);
		rc = add_node(c, name, a, entry, path);
	}
	free(name);
	return rc;
}

static const char *const node_keys[] = {"name",	   "range",   "rack",	"cores",
					"speed",   "disk_bw", "net_bw", "max_transfers",
					"storage", "memory",  NULL};

static int read_node(struct pctx *c, json_t *e, size_t i)
{
	char path[48], sub[64], got[64];
	json_t *name, *range;
	struct node_attrs a;
	int rc;

	snprintf(path, sizeof path, "nodes[%zu]", i);
	if (!json_is_object(e))
		return perr(c, path, NULL, "expected a node object, got %s",
			    locus__json_describe(e, got, sizeof got));
	if ((rc = check_keys(c, e, path, node_keys)))
		return rc;
	name = json_object_get(e, "name");
	range = json_object_get(e, "range");
	if (name && range)
		return perr(c, path, NULL,
			    "has both \"name\" and \"range\"; a node entry takes one");
	if (!name && !range)
		return perr(c, path, NULL, "missing key \"name\" (or \"range\")");
	if ((rc = read_attrs(c, e, path, &c->def, &a)))
		return rc;
	if (range) {
		snprintf(sub, sizeof sub, "%s.range", path);
		return read_range(c, range, sub, &a, i);
	}
	snprintf(sub, sizeof sub, "%s.name", path);
	if (!json_is_string(name) || !valid_name(json_string_value(name)))
		return perr(c, sub, NULL,
			    "expected a host name (no spaces or control characters, no leading "
			    "'.'), got %s",
			    locus__json_describe(name, got, sizeof got));
	return add_node(c, json_string_value(name), &a, i, sub);
}

static const char *const top_keys[] = {"format", "version", "network", "defaults", "nodes", NULL};
static const char *const network_keys[] = {"latency", "backbone_bw", "rack_bw", "model",
					   "link_bw", "links",	     NULL};
static const char *const link_keys[] = {"nodes", "bw", NULL};

/* Reads "links": pairs of named nodes with their own bandwidth. */
static int read_links(struct pctx *c, json_t *links)
{
	char got[64], path[64];
	if (!json_is_array(links))
		return perr(c, "network", "links", "expected an array of links, got %s",
			    locus__json_describe(links, got, sizeof got));
	for (size_t i = 0; i < json_array_size(links); i++) {
		json_t *l = json_array_get(links, i), *nodes;
		double bw = 0;
		long ends[2];
		int rc;
		snprintf(path, sizeof path, "network.links[%zu]", i);
		if (!json_is_object(l))
			return perr(c, path, NULL,
				    "expected {\"nodes\": [A, B], \"bw\": BW}, got %s",
				    locus__json_describe(l, got, sizeof got));
		if ((rc = check_keys(c, l, path, link_keys)) ||
		    (rc = get_bw(c, l, path, "bw", 0, &bw)))
			return rc;
		if (!json_object_get(l, "bw"))
			return perr(c, path, NULL, "missing key \"bw\"");
		nodes = json_object_get(l, "nodes");
		if (!json_is_array(nodes) || json_array_size(nodes) != 2)
			return perr(c, path, "nodes", "expected two node names, got %s",
				    locus__json_describe(nodes, got, sizeof got));
		for (size_t k = 0; k < 2; k++) {
			json_t *nm = json_array_get(nodes, k);
			ends[k] = json_is_string(nm)
				      ? locus_platform_find(c->p, json_string_value(nm))
				      : -1;
			if (ends[k] < 0)
				return perr(c, path, "nodes",
					    "expected a node of the platform, got %s",
					    locus__json_describe(nm, got, sizeof got));
		}
		if (ends[0] == ends[1])
			return perr(c, path, "nodes", "expected two different nodes");
		if ((rc = locus_platform_set_link(c->p, (uint32_t)ends[0], (uint32_t)ends[1], bw)))
			return rc == LOCUS_ENOMEM ? nomem(c)
						  : perr(c, path, NULL, "the pair is listed twice");
	}
	return 0;
}

static int read_platform(struct pctx *c, json_t *root)
{
	json_t *v, *nodes;
	char got[64];
	int rc;

	if (!json_is_object(root))
		return perr(c, "", NULL, "expected a JSON object with \"format\": \"%s\", got %s",
			    LOCUS_PLATFORM_FORMAT, locus__json_describe(root, got, sizeof got));
	/* Format and version first: a newer file's keys are not typos. */
	v = json_object_get(root, "format");
	if (!v)
		return perr(
		    c, "", NULL,
		    "missing key \"format\" (a platform file starts with \"format\": \"%s\")",
		    LOCUS_PLATFORM_FORMAT);
	if (!json_is_string(v) || strcmp(json_string_value(v), LOCUS_PLATFORM_FORMAT))
		return perr(c, "format", NULL, "expected \"%s\", got %s", LOCUS_PLATFORM_FORMAT,
			    locus__json_describe(v, got, sizeof got));
	v = json_object_get(root, "version");
	if (!v)
		return perr(c, "", NULL, "missing key \"version\" (this Locus reads version %d)",
			    LOCUS_PLATFORM_VERSION);
	if (!json_is_integer(v))
		return perr(c, "version", NULL, "expected an integer, got %s",
			    locus__json_describe(v, got, sizeof got));
	if (json_integer_value(v) > LOCUS_PLATFORM_VERSION)
		return perr(c, "version", NULL,
			    "version %" JSON_INTEGER_FORMAT
			    " is newer than this Locus supports (version %d); upgrade Locus",
			    json_integer_value(v), LOCUS_PLATFORM_VERSION);
	if (json_integer_value(v) < 1)
		return perr(c, "version", NULL, "expected %d, got %" JSON_INTEGER_FORMAT,
			    LOCUS_PLATFORM_VERSION, json_integer_value(v));
	if ((rc = check_keys(c, root, "", top_keys)))
		return rc;

	c->p->latency = LOCUS_DEFAULT_LATENCY;
	c->p->backbone_bw = 0;
	c->p->rack_bw = 0;
	c->p->network = LOCUS_NET_SHARED;
	c->p->link_bw = LOCUS_DEFAULT_NET_BW;
	json_t *links = NULL, *network = json_object_get(root, "network");
	v = network;
	if (v) {
		if (!json_is_object(v))
			return perr(c, "network", NULL, "expected an object, got %s",
				    locus__json_describe(v, got, sizeof got));
		if ((rc = check_keys(c, v, "network", network_keys)) ||
		    (rc = get_num(c, v, "network", "latency", 0, LOCUS_LATENCY_MAX, 0, "seconds",
				  &c->p->latency)) ||
		    (rc = get_bw(c, v, "network", "backbone_bw", 1, &c->p->backbone_bw)) ||
		    (rc = get_bw(c, v, "network", "rack_bw", 1, &c->p->rack_bw)) ||
		    (rc = get_bw(c, v, "network", "link_bw", 0, &c->p->link_bw)))
			return rc;
		json_t *model = json_object_get(v, "model");
		if (model) {
			const char *m = json_is_string(model) ? json_string_value(model) : "";
			if (!strcmp(m, "shared"))
				c->p->network = LOCUS_NET_SHARED;
			else if (!strcmp(m, "contention-free"))
				c->p->network = LOCUS_NET_PAIRS;
			else
				return perr(c, "network", "model",
					    "expected \"shared\" or \"contention-free\", got %s",
					    locus__json_describe(model, got, sizeof got));
		}
		links = json_object_get(v, "links");
		if (links && c->p->network != LOCUS_NET_PAIRS)
			return perr(c, "network", "links",
				    "links of their own need \"model\": \"contention-free\"");
	}
	c->def = builtin_attrs;
	v = json_object_get(root, "defaults");
	if (v) {
		if (!json_is_object(v))
			return perr(c, "defaults", NULL, "expected an object, got %s",
				    locus__json_describe(v, got, sizeof got));
		if ((rc = check_keys(c, v, "defaults", attr_keys)) ||
		    (rc = read_attrs(c, v, "defaults", &builtin_attrs, &c->def)))
			return rc;
	}
	nodes = json_object_get(root, "nodes");
	if (!nodes)
		return perr(c, "", NULL, "missing key \"nodes\"");
	if (!json_is_array(nodes))
		return perr(c, "nodes", NULL, "expected an array of nodes, got %s",
			    locus__json_describe(nodes, got, sizeof got));
	if (json_array_size(nodes) == 0)
		return perr(c, "nodes", NULL, "expected at least one node, got none");
	for (size_t i = 0; i < json_array_size(nodes); i++)
		if ((rc = read_node(c, json_array_get(nodes, i), i)))
			return rc;
	return links ? read_links(c, links) : 0;
}

/* An empty platform with its (empty) index. */
static struct locus_platform *platform_new(void)
{
	struct locus_platform *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->index = index_create();
	if (!p->index) {
		free(p);
		return NULL;
	}
	return p;
}

int locus_platform_parse(struct locus_platform **out, const char *text, size_t len,
			 const char *name, struct locus_error *err)
{
	struct pctx c = {0};
	json_error_t je;
	json_t *root;
	int rc;

	if (!out || (!text && len))
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no output or no text");
	*out = NULL;
	/* json_loadb reads exactly `len` bytes: the text need not end in NUL. */
	root = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return locus__err(err, LOCUS_EPARSE, name, je.line, je.column, "invalid JSON: %s",
				  je.text);
	c.file = name;
	c.err = err;
	c.p = platform_new();
	if (!c.p) {
		json_decref(root);
		return nomem(&c);
	}
	c.ix = c.p->index;
	rc = read_platform(&c, root);
	json_decref(root);
	free(c.origin);
	if (rc) {
		locus_platform_destroy(c.p);
		return rc;
	}
	/* Give back the slack of the doubling growth. */
	struct locus_node *shrunk =
	    locus__reallocarray(c.p->nodes, c.p->n_nodes, sizeof *c.p->nodes);
	if (shrunk)
		c.p->nodes = shrunk;
	*out = c.p;
	return 0;
}

int locus_platform_load(struct locus_platform **out, const char *path, struct locus_error *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (!out || !path)
		return locus__err(err, LOCUS_EINVAL, path, 0, 0, "no output or no path");
	*out = NULL;
	if ((rc = locus__read_file(&text, &len, path, err)))
		return rc;
	rc = locus_platform_parse(out, text, len, path, err);
	free(text);
	return rc;
}

/* ---- generating ---------------------------------------------------------- */

int locus_platform_generate(struct locus_platform **out, size_t n_nodes, size_t n_racks, int cores,
			    const char *prefix)
{
	struct locus_platform *p;
	int digits = 1;
	size_t clash;

	if (!out)
		return LOCUS_EINVAL;
	*out = NULL;
	if (!prefix)
		prefix = "node";
	if (n_nodes == 0 || n_nodes > PLATFORM_MAX_NODES || n_racks == 0 || cores < 1 ||
	    *prefix == '.' || !valid_chars(prefix))
		return LOCUS_EINVAL;
	for (size_t v = n_nodes; v >= 10; v /= 10)
		digits++;
	if (digits < 2)
		digits = 2;
	p = platform_new();
	if (!p)
		return LOCUS_ENOMEM;
	p->latency = LOCUS_DEFAULT_LATENCY;
	p->link_bw = LOCUS_DEFAULT_NET_BW;
	p->backbone_bw = 0;
	p->rack_bw = 0;
	p->nodes = locus__calloc(n_nodes, sizeof *p->nodes);
	if (!p->nodes) {
		locus_platform_destroy(p);
		return LOCUS_ENOMEM;
	}
	/* All nodes zeroed: destroy copes with any that stay unfilled. */
	p->n_nodes = n_nodes;
	for (size_t i = 0; i < n_nodes; i++) {
		struct locus_node *nd = &p->nodes[i];
		struct locus__buf name = {0}, rack = {0};
		int rc;

		/* Names and racks count from 1, like the hosts of a cluster. */
		rc = locus__buf_printf(&name, "%s%0*zu", prefix, digits, i + 1);
		nd->name = name.data;
		rc = rc ? rc : locus__buf_printf(&rack, "/rack-%zu", i % n_racks + 1);
		nd->rack = rack.data;
		nd->cores = cores;
		nd->speed = 1.0;
		nd->disk_bw = LOCUS_DEFAULT_DISK_BW;
		nd->net_bw = LOCUS_DEFAULT_NET_BW;
		/* Fixed-width numbers make the names distinct; the index check
		 * cannot fail but keeps the invariant in one place. */
		rc = rc ? rc : index_add(p->index, nd->name, i, &clash);
		if (rc) {
			locus_platform_destroy(p);
			return rc < 0 ? LOCUS_ENOMEM : LOCUS_EINVAL;
		}
	}
	*out = p;
	return 0;
}

int locus_platform_create(struct locus_platform **out, const char *const *names, const int *cores,
			  size_t n, struct locus_error *err)
{
	struct locus_platform *p;
	size_t clash;

	*out = NULL;
	if (n == 0 || n > PLATFORM_MAX_NODES)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "a platform has 1 to %zu nodes, not %zu", PLATFORM_MAX_NODES, n);
	p = platform_new();
	if (!p || !(p->nodes = locus__calloc(n, sizeof *p->nodes))) {
		locus_platform_destroy(p);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	p->latency = LOCUS_DEFAULT_LATENCY;
	p->link_bw = LOCUS_DEFAULT_NET_BW;
	p->n_nodes = n;
	for (size_t i = 0; i < n; i++) {
		struct locus_node *nd = &p->nodes[i];
		int rc = 0;
		if (!valid_name(names[i]) || cores[i] < 0)
			rc = locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
					"node \"%s\": a name is non-empty, does not start with "
					"'.' and has no spaces or control characters",
					names[i]);
		else if (!(nd->name = locus__strdup(names[i])) ||
			 !(nd->rack = locus__strdup(DEFAULT_RACK)))
			rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		else if ((rc = index_add(p->index, nd->name, i, &clash)))
			rc = rc < 0 ? locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory")
				    : locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
						 "nodes \"%s\" and \"%s\" name the same host",
						 p->nodes[clash].name, nd->name);
		if (rc) {
			locus_platform_destroy(p);
			return rc;
		}
		nd->cores = cores[i];
		nd->speed = 1.0;
		nd->disk_bw = LOCUS_DEFAULT_DISK_BW;
		nd->net_bw = LOCUS_DEFAULT_NET_BW;
	}
	*out = p;
	return 0;
}

/* ---- writing ------------------------------------------------------------- */

/* Whether bw is a bandwidth the reader takes (or 0, when `zero_ok`). */
static int bw_ok(double bw, int zero_ok)
{
	return (zero_ok && bw == 0) || (bw >= LOCUS_BW_MIN && bw <= LOCUS_BW_MAX);
}

/* What is wrong with node `nd` for the reader, or NULL. */
static const char *node_problem(const struct locus_node *nd)
{
	json_t *name, *rack;
	int utf8;

	if (!valid_name(nd->name))
		return "the name is empty, starts with '.' or has spaces or control characters";
	if (!valid_rack(nd->rack))
		return "the rack does not start with '/' or has spaces or control characters";
	name = json_string(nd->name);
	rack = json_string(nd->rack);
	utf8 = name && rack;
	json_decref(name);
	json_decref(rack);
	if (!utf8)
		return "the name or the rack is not valid UTF-8";
	if (nd->cores < 0)
		return "cores is < 0";
	if (nd->max_transfers < 0)
		return "max_transfers is < 0";
	if (!(nd->storage >= 0 && isfinite(nd->storage)))
		return "storage is not a finite number >= 0";
	if (!(nd->memory >= 0 && isfinite(nd->memory)))
		return "memory is not a finite number >= 0";
	if (!(nd->speed >= LOCUS_SPEED_MIN && nd->speed <= LOCUS_SPEED_MAX))
		return "speed is not in [1e-06, 1e+06]";
	if (!bw_ok(nd->disk_bw, 0))
		return "disk_bw is not in [1, 1e+18] bytes/s";
	if (!bw_ok(nd->net_bw, 0))
		return "net_bw is not in [1, 1e+18] bytes/s";
	return NULL;
}

void locus_platform_random_speeds(struct locus_platform *p, double lo, double hi, uint64_t seed)
{
	struct locus_rng rng;
	/* Its own stream: the same seed also drives placement and work. */
	locus_rng_init(&rng, seed ^ 0x5eed5eed5eedull);
	for (size_t i = 0; i < p->n_nodes; i++)
		p->nodes[i].speed = lo + (hi - lo) * locus_rng_uniform(&rng);
}

/* Checks that `p` obeys everything the reader enforces, so that what save
 * writes always loads back. */
static int check_platform(const struct locus_platform *p, const char *path, struct locus_error *err)
{
	struct platform_index *ix;
	size_t clash;
	int rc = 0;

	if (p->n_nodes == 0 || p->n_nodes > PLATFORM_MAX_NODES || !p->nodes)
		return locus__err(err, LOCUS_EINVAL, path, 0, 0,
				  "a platform has 1 to %zu nodes, this one %zu", PLATFORM_MAX_NODES,
				  p->n_nodes);
	if (!(p->latency >= 0 && p->latency <= LOCUS_LATENCY_MAX))
		return locus__err(err, LOCUS_EINVAL, path, 0, 0,
				  "the latency must lie in [0, %g] seconds, got %g",
				  LOCUS_LATENCY_MAX, p->latency);
	if (!bw_ok(p->backbone_bw, 1) || !bw_ok(p->rack_bw, 1))
		return locus__err(err, LOCUS_EINVAL, path, 0, 0,
				  "backbone_bw and rack_bw must be 0 (no cap) or lie in [%g, %g] "
				  "bytes/s",
				  LOCUS_BW_MIN, LOCUS_BW_MAX);
	if (p->network == LOCUS_NET_PAIRS && !bw_ok(p->link_bw, 0))
		return locus__err(err, LOCUS_EINVAL, path, 0, 0,
				  "a contention-free network needs a link bandwidth in [%g, %g] "
				  "bytes/s",
				  LOCUS_BW_MIN, LOCUS_BW_MAX);
	for (size_t i = 0; i < p->n_links; i++)
		if (!bw_ok(p->links[i].bw, 0))
			return locus__err(err, LOCUS_EINVAL, path, 0, 0,
					  "link %zu: the bandwidth must lie in [%g, %g] bytes/s", i,
					  LOCUS_BW_MIN, LOCUS_BW_MAX);
	ix = index_create();
	if (!ix)
		return locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
	for (size_t i = 0; i < p->n_nodes && !rc; i++) {
		const char *why = node_problem(&p->nodes[i]);
		int r;

		if (why) {
			rc = locus__err(err, LOCUS_EINVAL, path, 0, 0, "node %zu: %s", i, why);
			break;
		}
		r = index_add(ix, p->nodes[i].name, i, &clash);
		if (r < 0)
			rc = locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
		else if (r > 0)
			rc = locus__err(err, LOCUS_EINVAL, path, 0, 0,
					"nodes %zu and %zu name the same host", clash, i);
	}
	index_destroy(ix);
	return rc;
}

/* Appends `s` as a JSON string (escaped by jansson). */
static int put_string(struct locus__buf *b, const char *s)
{
	json_t *j = json_string(s);
	char *text = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	int rc = text ? locus__buf_append(b, text, strlen(text)) : LOCUS_ENOMEM;

	free(text);
	json_decref(j);
	return rc;
}

static int put_number(struct locus__buf *b, double v)
{
	char num[64];
	locus__json_number(num, sizeof num, v);
	return locus__buf_append(b, num, strlen(num));
}

/* The canonical text: keys sorted, two-space indent, every node with every
 * field, numbers in their shortest exact form. */
static int platform_text(const struct locus_platform *p, struct locus__buf *b)
{
	int rc = locus__buf_printf(b,
				   "{\n  \"format\": \"%s\",\n  \"network\": {\n"
				   "    \"backbone_bw\": ",
				   LOCUS_PLATFORM_FORMAT);
	rc = rc ? rc : put_number(b, p->backbone_bw);
	rc = rc ? rc : locus__buf_printf(b, ",\n    \"latency\": ");
	rc = rc ? rc : put_number(b, p->latency);
	if (p->network == LOCUS_NET_PAIRS) {
		rc = rc ? rc : locus__buf_printf(b, ",\n    \"link_bw\": ");
		rc = rc ? rc : put_number(b, p->link_bw);
		rc = rc ? rc : locus__buf_printf(b, ",\n    \"links\": [");
		for (size_t i = 0; i < p->n_links && !rc; i++) {
			const struct locus_link *l = &p->links[i];
			rc = locus__buf_printf(b, "%s\n      {\"bw\": ", i ? "," : "");
			rc = rc ? rc : put_number(b, l->bw);
			rc = rc ? rc : locus__buf_printf(b, ", \"nodes\": [");
			rc = rc ? rc : put_string(b, p->nodes[l->a].name);
			rc = rc ? rc : locus__buf_printf(b, ", ");
			rc = rc ? rc : put_string(b, p->nodes[l->b].name);
			rc = rc ? rc : locus__buf_printf(b, "]}");
		}
		rc = rc ? rc : locus__buf_printf(b, p->n_links ? "\n    ]" : "]");
		rc = rc ? rc : locus__buf_printf(b, ",\n    \"model\": \"contention-free\"");
	}
	rc = rc ? rc : locus__buf_printf(b, ",\n    \"rack_bw\": ");
	rc = rc ? rc : put_number(b, p->rack_bw);
	rc = rc ? rc : locus__buf_printf(b, "\n  },\n  \"nodes\": [");
	for (size_t i = 0; i < p->n_nodes && !rc; i++) {
		const struct locus_node *nd = &p->nodes[i];
		rc = locus__buf_printf(b,
				       "%s\n    {\n      \"cores\": %d,\n"
				       "      \"disk_bw\": ",
				       i ? "," : "", nd->cores);
		rc = rc ? rc : put_number(b, nd->disk_bw);
		rc = rc ? rc
			: locus__buf_printf(b, ",\n      \"max_transfers\": %d", nd->max_transfers);
		if (nd->memory > 0) {
			rc = rc ? rc : locus__buf_printf(b, ",\n      \"memory\": ");
			rc = rc ? rc : put_number(b, nd->memory);
		}
		rc = rc ? rc : locus__buf_printf(b, ",\n      \"name\": ");
		rc = rc ? rc : put_string(b, nd->name);
		rc = rc ? rc : locus__buf_printf(b, ",\n      \"net_bw\": ");
		rc = rc ? rc : put_number(b, nd->net_bw);
		rc = rc ? rc : locus__buf_printf(b, ",\n      \"rack\": ");
		rc = rc ? rc : put_string(b, nd->rack);
		rc = rc ? rc : locus__buf_printf(b, ",\n      \"speed\": ");
		rc = rc ? rc : put_number(b, nd->speed);
		if (nd->storage > 0) {
			rc = rc ? rc : locus__buf_printf(b, ",\n      \"storage\": ");
			rc = rc ? rc : put_number(b, nd->storage);
		}
		rc = rc ? rc : locus__buf_printf(b, "\n    }");
	}
	rc = rc ? rc
		: locus__buf_printf(b, "\n  ],\n  \"version\": %d\n}\n", LOCUS_PLATFORM_VERSION);
	return rc;
}

int locus_platform_save(const struct locus_platform *p, const char *path, struct locus_error *err)
{
	struct locus__buf b = {0};
	int rc;

	if (!p || !path)
		return locus__err(err, LOCUS_EINVAL, path, 0, 0, "no platform or no path");
	if ((rc = check_platform(p, path, err)))
		return rc;
	if (platform_text(p, &b)) {
		locus__buf_fini(&b);
		return locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
	}
	rc = locus__write_atomic(path, b.data, b.len, err);
	locus__buf_fini(&b);
	return rc;
}

/* ---- the rest ------------------------------------------------------------ */

size_t locus_platform_cores(const struct locus_platform *p)
{
	size_t n = 0;
	if (!p)
		return 0;
	for (size_t i = 0; i < p->n_nodes; i++)
		n += p->nodes[i].cores > 0 ? (size_t)p->nodes[i].cores : 0;
	return n;
}

void locus_platform_destroy(struct locus_platform *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_nodes; i++) {
		free(p->nodes[i].name);
		free(p->nodes[i].rack);
	}
	free(p->nodes);
	free(p->links);
	index_destroy(p->index);
	free(p);
}

/* ---- the network between two nodes ----------------------------------------- */

static int cmp_link(const void *x, const void *y)
{
	const struct locus_link *a = x, *b = y;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return (a->b > b->b) - (a->b < b->b);
}

void locus_platform_set_pairs(struct locus_platform *p, double bw, double startup)
{
	p->network = LOCUS_NET_PAIRS;
	p->link_bw = bw;
	p->latency = startup;
	free(p->links);
	p->links = NULL;
	p->n_links = 0;
}

int locus_platform_set_link(struct locus_platform *p, uint32_t a, uint32_t b, double bw)
{
	if (a == b || a >= p->n_nodes || b >= p->n_nodes || !(bw > 0) || isinf(bw))
		return LOCUS_EINVAL;
	struct locus_link key = {a < b ? a : b, a < b ? b : a, bw};
	if (p->n_links && bsearch(&key, p->links, p->n_links, sizeof *p->links, cmp_link))
		return LOCUS_EEXIST;
	struct locus_link *grown = locus__reallocarray(p->links, p->n_links + 1, sizeof *grown);
	if (!grown)
		return LOCUS_ENOMEM;
	p->links = grown;
	/* Keep them sorted: insert in place. */
	size_t i = p->n_links;
	while (i > 0 && cmp_link(&p->links[i - 1], &key) > 0) {
		p->links[i] = p->links[i - 1];
		i--;
	}
	p->links[i] = key;
	p->n_links++;
	return 0;
}

double locus_platform_pair_bw(const struct locus_platform *p, uint32_t a, uint32_t b)
{
	if (p->network == LOCUS_NET_PAIRS) {
		struct locus_link key = {a < b ? a : b, a < b ? b : a, 0};
		const struct locus_link *l =
		    p->n_links ? bsearch(&key, p->links, p->n_links, sizeof *p->links, cmp_link)
			       : NULL;
		return l ? l->bw : p->link_bw;
	}
	const struct locus_node *x = &p->nodes[a], *y = &p->nodes[b];
	double bw = x->disk_bw;
	if (x->net_bw < bw)
		bw = x->net_bw;
	if (y->net_bw < bw)
		bw = y->net_bw;
	if (p->backbone_bw > 0 && p->backbone_bw < bw)
		bw = p->backbone_bw;
	if (p->rack_bw > 0 && p->rack_bw < bw && strcmp(x->rack, y->rack))
		bw = p->rack_bw;
	return bw;
}
