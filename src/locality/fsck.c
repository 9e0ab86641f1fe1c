/*
 * Reader for the output of `hdfs fsck PATH -files -blocks -locations`, as
 * printed by Hadoop 1.x, 2.x and 3.x, with or without -racks,
 * -replicaDetails, -upgradedomains and -openforwrite.
 *
 * Two kinds of lines carry data:
 *
 *   <path> <length> bytes, [<policy>, ]<n> block(s)[, OPENFORWRITE]:  <status>
 *   <i>. [<pool>:]blk_<id>_<gs> len=<bytes> [MISSING!] [<x>repl=<r>] [<replica>, ...]
 *
 * and everything else (preamble, summary, directory lines, the messages
 * fsck prints about under-replicated or corrupt blocks) is skipped. The
 * reader is tolerant about layout and strict about content: a line that
 * starts like a block line must parse, and a file line's block count and
 * length must match the blocks that follow it, so that truncated output is
 * an error and never a smaller dataset.
 *
 * Problems are recorded in the catalog, one per chunk and kind (missing,
 * under construction, corrupt replicas dropped), plus one per file whose
 * status reports MISSING or CORRUPT blocks that no block line shows.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/locality.h"

/* A position in one line: bytes s[0..n), cursor i. */
struct cur {
	const char *s;
	size_t n;
	size_t i;
};

struct fsck {
	const char *name; /* labels errors */
	const struct locus_hostmap *hosts;
	struct locus_error *err;
	struct locus_catalog *cat;
	long line;     /* current line number, from 1 */
	const char *s; /* current line, without its leading blanks */
	size_t n;
	size_t lead; /* how many blanks were cut: columns count from the raw line */

	/* The file whose blocks are being read. */
	int in_file;
	size_t ds;
	long file_line;
	size_t file_lead;
	uint64_t want_len, want_blocks;
	int has_uc;	 /* its last block is under construction */
	uint64_t uc_len; /* that block's length */
	uint32_t status; /* LOCUS_CHUNK_MISSING / _CORRUPT from its status */
	char status_text[160];

	long uc_marker; /* line of a pending "Under Construction Block:", or 0 */
	size_t uc_lead;
	int saw_fsck; /* a preamble, summary or directory line was seen */
	int saw_file;

	long *file_lines; /* per dataset: its file line, for duplicate errors */
	size_t file_lines_cap;

	uint32_t *reps; /* replicas of the block being read */
	size_t reps_cap;
	uint32_t n_reps;
	uint32_t n_corrupt;	   /* replicas dropped as corrupt */
	uint32_t n_listed;	   /* replicas the list shows, before merging hosts */
	uint32_t n_not_live;	   /* of those, with a state fsck does not count live */
	uint32_t n_unknown;	   /* of those, with a state this reader does not know */
	uint32_t n_stated;	   /* of those, with any state */
	struct locus__buf corrupt; /* their host names, ", "-separated */
	size_t serial;		   /* number of the block being read, from 1 */
	size_t *seen;		   /* per host id: last block it was listed in */
	size_t seen_len, seen_cap;
};

/* HDFS keeps a file's replication in a 16-bit short: a longer replica list
 * is not fsck output, and refusing it keeps the work per line linear. */
#define MAX_LISTED 32767

static int perr_at(struct fsck *p, long line, size_t i, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Reports a parse error at line `line`, 0-based byte `i` of that line as
 * read (leading blanks included). */
static int perr_at(struct fsck *p, long line, size_t i, const char *fmt, ...)
{
	char msg[480];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return locus__err(p->err, LOCUS_EPARSE, p->name, line, (long)i + 1, "%s", msg);
}

/* At byte `i` of the current line after its leading blanks. */
#define perr(p, i, ...) perr_at((p), (p)->line, (p)->lead + (i), __VA_ARGS__)

static int nomem(struct fsck *p)
{
	return locus__err(p->err, LOCUS_ENOMEM, p->name, p->line, 0, "out of memory");
}

/* ---- cursor helpers ------------------------------------------------------ */

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_ctrl(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

static int peek(const struct cur *c, const char *lit)
{
	size_t k = strlen(lit);
	return c->n - c->i >= k && memcmp(c->s + c->i, lit, k) == 0;
}

static int eat(struct cur *c, const char *lit)
{
	if (!peek(c, lit))
		return 0;
	c->i += strlen(lit);
	return 1;
}

static size_t eat_blanks(struct cur *c)
{
	size_t i0 = c->i;
	while (c->i < c->n && is_blank(c->s[c->i]))
		c->i++;
	return c->i - i0;
}

/* Reads a decimal number: 0, or -1 when there is no digit, or -2 when it
 * does not fit in 64 bits (the cursor stays put on error). */
static int eat_u64(struct cur *c, uint64_t *v)
{
	size_t j = c->i;
	while (j < c->n && is_digit(c->s[j]))
		j++;
	if (j == c->i)
		return -1;
	if (locus__parse_u64(c->s + c->i, j - c->i, v))
		return -2;
	c->i = j;
	return 0;
}

static int at_end(const struct cur *c)
{
	for (size_t j = c->i; j < c->n; j++)
		if (!is_blank(c->s[j]))
			return 0;
	return 1;
}

/* Where `lit` first occurs in s[0..n), or NULL. */
static const char *find(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);
	for (size_t i = 0; k <= n && i <= n - k; i++)
		if (s[i] == lit[0] && memcmp(s + i, lit, k) == 0)
			return s + i;
	return NULL;
}

static int starts_with(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);
	return n >= k && memcmp(s, lit, k) == 0;
}

/* Length of the span s[i..] up to a blank, ',', '(' or an unbracketed ']'
 * (a bracketed IPv6 address "[::1]:9866" stays in one span). */
static size_t token_len(const struct cur *c)
{
	size_t j = c->i;
	int depth = 0;
	while (j < c->n) {
		char ch = c->s[j];
		if (is_blank(ch) || ch == ',' || ch == '(')
			break;
		if (ch == '[')
			depth++;
		else if (ch == ']' && depth-- == 0)
			break;
		j++;
	}
	return j - c->i;
}

/* ---- replicas ------------------------------------------------------------ */

static int is_addr_char(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
	       c == '-' || c == '_' || c == ':' || c == '[' || c == ']' || c == '%';
}

/* Whether a[0..n) is an IPv4 address (v6 0) or an IPv6 one (v6 1, which
 * may carry a "%<zone>"), as inet_pton reads them. */
static int is_ip(const char *a, size_t n, int v6)
{
	char tmp[64];
	unsigned char bin[sizeof(struct in6_addr)];

	if (n == 0 || n >= sizeof tmp)
		return 0;
	memcpy(tmp, a, n);
	tmp[n] = 0;
	if (!v6)
		return inet_pton(AF_INET, tmp, bin) == 1;
	char *zone = strchr(tmp, '%');
	if (zone) {
		if (!zone[1])
			return 0;
		*zone = 0;
	}
	return inet_pton(AF_INET6, tmp, bin) == 1;
}

static int all_digits(const char *a, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (!is_digit(a[k]))
			return 0;
	return n > 0;
}

/* Whether the digits a[0..n) are a port number, 1 to 65535. */
static int is_port(const char *a, size_t n)
{
	uint64_t v;
	return locus__parse_u64(a, n, &v) == 0 && v >= 1 && v <= 65535;
}

/*
 * Finds the host part of a datanode address a[0..n): "<ipv4>:<port>" ->
 * the IPv4 address, "[<ipv6>]:<port>" -> the IPv6 address, a bare IPv4 or
 * IPv6 address (no port) -> all of it. fsck prints addresses, never names,
 * so anything else is refused. Returns NULL, or what was expected.
 */
static const char *host_part(const char *a, size_t n, size_t *h0, size_t *hn)
{
	static const char form[] = "a datanode address \"<IPv4>:<port>\" or \"[<IPv6>]:<port>\"";
	size_t colons = 0, last = 0;

	if (n == 0)
		return form;
	for (size_t k = 0; k < n; k++)
		if (!is_addr_char(a[k]))
			return form;
	if (a[0] == '[') {
		const char *close = memchr(a, ']', n);
		if (!close || close == a + 1)
			return form;
		size_t after = (size_t)(close - a) + 1;
		*h0 = 1;
		*hn = (size_t)(close - a) - 1;
		if (after < n && (a[after] != ':' || !all_digits(a + after + 1, n - after - 1)))
			return form;
		if (!is_ip(a + 1, *hn, 1))
			return "a valid IPv6 address between '[' and ']'";
		if (after < n && !is_port(a + after + 1, n - after - 1))
			return "a port from 1 to 65535 after the address";
		return NULL;
	}
	if (memchr(a, '[', n) || memchr(a, ']', n))
		return form;
	for (size_t k = 0; k < n; k++)
		if (a[k] == ':') {
			colons++;
			last = k;
		}
	*h0 = 0;
	*hn = n;
	if (colons > 1) /* a bare IPv6 address */
		return is_ip(a, n, 1) ? NULL : "a valid IPv6 address";
	if (colons == 1) {
		if (last == 0 || !all_digits(a + last + 1, n - last - 1))
			return form;
		*hn = last;
	}
	if (!is_ip(a, *hn, 0))
		return "a valid IPv4 address (fsck prints addresses, not host names)";
	if (colons == 1 && !is_port(a + last + 1, n - last - 1))
		return "a port from 1 to 65535 after the address";
	return NULL;
}

/* Adds a replica on address a[0..an) in rack r[0..rn) (rn 0: none) to the
 * block being read, or to the dropped ones when it is corrupt. */
static int add_replica(struct fsck *p, size_t col, const char *a, size_t an, const char *r,
		       size_t rn, int corrupt)
{
	size_t h0 = 0, hn = 0;
	const char *want;
	if (p->n_reps + p->n_corrupt >= MAX_LISTED)
		return perr(p, col, "expected at most %d replicas in a list", MAX_LISTED);
	if ((want = host_part(a, an, &h0, &hn)))
		return perr(p, col, "expected %s, got \"%.*s\"", want, (int)(an > 60 ? 60 : an), a);

	char *addr = locus__strndup(a, an);
	char *rack = rn ? locus__strndup(r, rn) : NULL;
	char *own = NULL;
	const char *host = NULL;
	long id = LOCUS_ENOMEM;
	if (!addr || (rn && !rack))
		goto out;
	if (p->hosts)
		host = locus_hostmap_lookup(p->hosts, addr);
	if (!host) {
		own = locus__strndup(a + h0, hn);
		if (!own)
			goto out;
		host = own;
	}
	id = locus_catalog_add_host(p->cat, host, rack);
	if (id == LOCUS_EEXIST) {
		char known[320];
		locus__catalog_host_clash(p->cat, host, known, sizeof known);
		id = perr(p, col,
			  "datanode %.*s is host \"%s\", which cannot be told apart from %s "
			  "(" LOCUS__HOST_RULE ")",
			  (int)(an > 60 ? 60 : an), a, host, known);
		goto out;
	}
	if (id == LOCUS_EINVAL) {
		id = perr(p, col,
			  "expected a host name without control characters or ',' for "
			  "datanode %.*s, got \"%s\"",
			  (int)(an > 60 ? 60 : an), a, host);
		goto out;
	}
	if (id < 0)
		goto out;
	if (corrupt) {
		if ((p->n_corrupt && locus__buf_append(&p->corrupt, ", ", 2)) ||
		    locus__buf_append(&p->corrupt, host, strlen(host))) {
			id = LOCUS_ENOMEM;
			goto out;
		}
		p->n_corrupt++;
		goto out;
	}
	/* Two datanodes on one host hold one replica as far as locality goes. */
	if ((size_t)id >= p->seen_len) {
		if (locus__grow(&p->seen, &p->seen_cap, (size_t)id + 1, sizeof *p->seen)) {
			id = LOCUS_ENOMEM;
			goto out;
		}
		memset(p->seen + p->seen_len, 0, ((size_t)id + 1 - p->seen_len) * sizeof *p->seen);
		p->seen_len = (size_t)id + 1;
	}
	if (p->seen[id] == p->serial)
		goto out;
	if (locus__grow(&p->reps, &p->reps_cap, (size_t)p->n_reps + 1, sizeof *p->reps)) {
		id = LOCUS_ENOMEM;
		goto out;
	}
	p->seen[id] = p->serial;
	p->reps[p->n_reps++] = (uint32_t)id;
out:
	free(addr);
	free(rack);
	free(own);
	if (id == LOCUS_ENOMEM)
		return nomem(p);
	return id < 0 ? (int)id : 0;
}

enum { STATE_LIVE, STATE_NOT_LIVE, STATE_CORRUPT, STATE_UNKNOWN };

/* What a -replicaDetails state s[0..n) says. fsck's Live_repl counts the
 * replicas it shows as LIVE, STALE_NODE or STALE_BLOCK_CONTENT; the other
 * states it prints are replicas that it lists but does not count. */
static int replica_state(const char *s, size_t n)
{
	static const char *const live[] = {"LIVE", "STALE_NODE", "STALE_BLOCK_CONTENT"};
	static const char *const not_live[] = {"DECOMMISSIONED", "DECOMMISSIONING",
					       "ENTERING MAINTENANCE", "IN MAINTENANCE", "EXCESS"};
	if (n == 7 && memcmp(s, "CORRUPT", 7) == 0)
		return STATE_CORRUPT;
	for (size_t k = 0; k < LOCUS__ARRAY_LEN(live); k++)
		if (strlen(live[k]) == n && memcmp(s, live[k], n) == 0)
			return STATE_LIVE;
	for (size_t k = 0; k < LOCUS__ARRAY_LEN(not_live); k++)
		if (strlen(not_live[k]) == n && memcmp(s, not_live[k], n) == 0)
			return STATE_NOT_LIVE;
	return STATE_UNKNOWN;
}

/*
 * One replica of a list, in any of its forms, optionally preceded by the
 * internal block of an erasure-coded group ("blk_<id>:") and followed by
 * "(ud=<domain>)" and "(<STATE>)":
 *   DatanodeInfoWithStorage[<ip>:<port>,<storage id>,<TYPE>]
 *   /<rack path>/<ip>:<port>
 *   <ip>:<port>
 */
static int replica(struct fsck *p, struct cur *c)
{
	size_t r0 = c->i;
	const char *a, *r = NULL;
	size_t an, rn = 0;

	if (peek(c, "blk_")) {
		size_t j = c->i + 4, d0;
		if (j < c->n && c->s[j] == '-')
			j++;
		d0 = j;
		while (j < c->n && is_digit(c->s[j]))
			j++;
		if (j == d0 || j >= c->n || c->s[j] != ':')
			return perr(p, c->i,
				    "expected \"blk_<id>:\" before the replica of an "
				    "internal block");
		c->i = j + 1;
	}

	size_t a_col = c->i;
	if (eat(c, "DatanodeInfoWithStorage[")) {
		size_t open = c->i - 1;
		a_col = c->i;
		an = token_len(c);
		a = c->s + c->i;
		c->i += an;
		/* Storage id and type: skipped, up to the closing bracket. */
		while (c->i < c->n && c->s[c->i] != ']' && c->s[c->i] != '[')
			c->i++;
		if (c->i >= c->n || c->s[c->i] != ']')
			return perr(p, c->i,
				    "expected ']' to close \"DatanodeInfoWithStorage[\" "
				    "opened at column %zu",
				    open + 1);
		c->i++;
	} else {
		size_t t = token_len(c);
		const char *tok = c->s + c->i;
		a = tok;
		an = t;
		if (t && tok[0] == '/') {
			/* "/rack/path/ip:port": the rack is all before the last '/'. */
			size_t slash = t;
			while (slash > 0 && tok[slash - 1] != '/')
				slash--;
			slash--;
			for (size_t k = 0; k < slash; k++)
				if (is_ctrl(tok[k]))
					return perr(p, c->i + k,
						    "expected a rack path without control "
						    "characters");
			if (slash > 0) {
				r = tok;
				rn = slash;
			}
			a = tok + slash + 1;
			an = t - slash - 1;
			a_col = c->i + slash + 1;
		}
		c->i += t;
	}
	if (an == 0)
		return perr(p, r0,
			    "expected a replica (\"DatanodeInfoWithStorage[...]\", "
			    "\"/<rack>/<ip>:<port>\" or \"<ip>:<port>\")");

	int corrupt = 0, stated = 0, not_live = 0, unknown = 0;
	for (;;) {
		size_t save = c->i;
		eat_blanks(c);
		if (c->i >= c->n || c->s[c->i] != '(') {
			c->i = save;
			break;
		}
		const char *close = memchr(c->s + c->i, ')', c->n - c->i);
		if (!close)
			return perr(p, c->i,
				    "expected ')' to close the replica state "
				    "opened at column %zu",
				    c->i + 1);
		const char *st = c->s + c->i + 1;
		size_t sn = (size_t)(close - st);
		c->i = (size_t)(close - c->s) + 1;
		if (starts_with(st, sn, "ud="))
			continue;
		stated = 1;
		switch (replica_state(st, sn)) {
		case STATE_CORRUPT:
			corrupt = 1;
			not_live = 1;
			break;
		case STATE_NOT_LIVE:
			not_live = 1;
			break;
		case STATE_UNKNOWN:
			unknown = 1;
			break;
		default:
			break;
		}
	}
	p->n_listed++;
	p->n_stated += (uint32_t)stated;
	p->n_not_live += (uint32_t)not_live;
	p->n_unknown += (uint32_t)unknown;
	return add_replica(p, a_col, a, an, r, rn, corrupt);
}

/* "[" replica, replica, ... "]"; the cursor is on the '['. */
static int replica_list(struct fsck *p, struct cur *c)
{
	size_t open = c->i++;
	int rc;

	eat_blanks(c);
	if (c->i < c->n && c->s[c->i] == ']') {
		c->i++;
		return 0;
	}
	for (;;) {
		if ((rc = replica(p, c)))
			return rc;
		eat_blanks(c);
		if (c->i >= c->n)
			return perr(p, c->i,
				    "expected ']' to close the replica list opened at "
				    "column %zu",
				    open + 1);
		if (c->s[c->i] == ']') {
			c->i++;
			return 0;
		}
		if (c->s[c->i] != ',')
			return perr(p, c->i,
				    "expected ', ' or ']' after a replica in the list "
				    "opened at column %zu",
				    open + 1);
		c->i++;
		eat_blanks(c);
	}
}

/* ---- block lines --------------------------------------------------------- */

static int starts_like_block(const char *s, size_t n)
{
	size_t j = 0;
	while (j < n && is_digit(s[j]))
		j++;
	return j > 0 && j + 1 < n && s[j] == '.' && s[j + 1] == ' ';
}

/* Whether s[0..n) is "blk_" ['-'] digits '_' digits. */
static int is_block_name(const char *s, size_t n)
{
	size_t j = 4, d;
	if (!starts_with(s, n, "blk_"))
		return 0;
	if (j < n && s[j] == '-')
		j++;
	for (d = j; j < n && is_digit(s[j]); j++)
		;
	if (j == d || j >= n || s[j] != '_')
		return 0;
	for (d = ++j; j < n && is_digit(s[j]); j++)
		;
	return j > d && j == n;
}

static int add_problem(struct fsck *p, size_t chunk, uint32_t flag, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int add_problem(struct fsck *p, size_t chunk, uint32_t flag, const char *fmt, ...)
{
	char detail[480];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	if (locus_catalog_add_problem(p->cat, p->ds, chunk, flag, detail))
		return nomem(p);
	return 0;
}

static int block_line(struct fsck *p)
{
	struct cur c = {p->s, p->n, 0};
	const struct locus_dataset *ds;
	uint64_t num, len, repl, live = 0;
	int missing = 0, uc = p->uc_marker != 0, listed = 0, rc;
	const char *counted = NULL; /* "repl" or "Live_repl" when given */

	if (!p->in_file)
		return perr(p, 0,
			    "expected a file line (\"<path> <length> bytes, ... <n> "
			    "block(s): ...\") before the first block line");
	ds = &p->cat->datasets[p->ds];
	if (eat_u64(&c, &num) || num != ds->n_chunks)
		return perr(p, 0, "expected block number %zu of \"%s\"", ds->n_chunks, ds->name);
	c.i += 2; /* ". " (starts_like_block saw it) */
	eat_blanks(&c);

	/* [<pool>:]blk_<id>_<genstamp> */
	size_t t0 = c.i;
	while (c.i < c.n && !is_blank(c.s[c.i]))
		c.i++;
	const char *tok = c.s + t0, *bname = tok;
	size_t tn = c.i - t0;
	if (!starts_with(tok, tn, "blk_")) {
		const char *colon = find(tok, tn, ":blk_");
		bname = colon && colon > tok ? colon + 1 : NULL;
	}
	size_t bn = bname ? tn - (size_t)(bname - tok) : 0;
	if (!bname || !is_block_name(bname, bn))
		return perr(p, t0,
			    "expected a block name \"[<pool id>:]blk_<id>_<genstamp>\", "
			    "got \"%.*s\"",
			    (int)(tn > 60 ? 60 : tn), tok);
	if (bn > 60)
		bn = 60;

	size_t len_at = c.i;
	if (!eat_blanks(&c) || !eat(&c, "len="))
		return perr(p, len_at, "expected \" len=<bytes>\" after the block name");
	size_t len_val = c.i;
	if (eat_u64(&c, &len))
		return perr(p, c.i,
			    "expected \" len=<bytes>\" after the block name, "
			    "<bytes> a number below 2^64");

	p->serial++;
	p->n_reps = 0;
	p->n_corrupt = 0;
	p->corrupt.len = 0;
	p->n_listed = p->n_not_live = p->n_unknown = p->n_stated = 0;
	for (;;) {
		size_t sp = eat_blanks(&c);
		if (c.i >= c.n)
			break;
		if (!sp)
			goto unexpected;
		if (eat(&c, "MISSING!")) {
			missing = 1;
		} else if (peek(&c, "repl=") || peek(&c, "Live_repl=")) {
			counted = c.s[c.i] == 'r' ? "repl" : "Live_repl";
			c.i += strlen(counted) + 1;
			if (eat_u64(&c, &live))
				return perr(p, c.i, "expected a replica count");
		} else if (eat(&c, "Expected_repl=")) {
			if (eat_u64(&c, &repl))
				return perr(p, c.i, "expected a replica count");
			uc = 1;
		} else if (c.s[c.i] == '[') {
			if ((rc = replica_list(p, &c)))
				return rc;
			listed = 1;
			if (!at_end(&c)) {
				eat_blanks(&c);
				return perr(p, c.i,
					    "expected the end of the line after the "
					    "replica list");
			}
			break;
		} else {
			goto unexpected;
		}
		continue;
	unexpected:
		return perr(p, c.i,
			    "expected \" MISSING!\", \" repl=<n>\", \" Live_repl=<n>\", "
			    "\" Expected_repl=<n>\" or the replica list \"[...]\"");
	}
	if (!listed && !missing)
		return perr(p, c.n,
			    "expected the replica list \"[...]\" of block %.*s "
			    "(was fsck run with -locations?)",
			    (int)bn, bname);

	uint32_t flags = (missing ? LOCUS_CHUNK_MISSING : 0) |
			 (uc ? LOCUS_CHUNK_UNDER_CONSTRUCTION : 0) |
			 (p->n_corrupt ? LOCUS_CHUNK_CORRUPT : 0);
	long ci = locus_catalog_add_chunk(p->cat, p->ds, len, p->reps, p->n_reps, flags);
	if (ci == LOCUS_ERANGE)
		return perr(p, len_val,
			    "expected the blocks of \"%s\" to add up to "
			    "less than 2^64 bytes",
			    ds->name);
	if (ci < 0)
		return ci == LOCUS_ENOMEM
			   ? nomem(p)
			   : locus__err(p->err, (int)ci, p->name, p->line, 0,
					"cannot add block: %s", locus_strerror((int)ci));
	flags = p->cat->datasets[p->ds].chunks[ci].flags;
	if (uc) {
		p->has_uc = 1;
		p->uc_len = len;
		p->uc_marker = 0;
	}
	if ((flags & LOCUS_CHUNK_MISSING) &&
	    (rc = add_problem(p, (size_t)ci, LOCUS_CHUNK_MISSING,
			      "block %.*s missing (no live replica)", (int)bn, bname)))
		return rc;
	if ((flags & LOCUS_CHUNK_UNDER_CONSTRUCTION) &&
	    (rc = add_problem(p, (size_t)ci, LOCUS_CHUNK_UNDER_CONSTRUCTION,
			      "block %.*s under construction", (int)bn, bname)))
		return rc;
	if ((flags & LOCUS_CHUNK_CORRUPT) &&
	    (rc = add_problem(p, (size_t)ci, LOCUS_CHUNK_CORRUPT,
			      "block %.*s: corrupt replica%s on %s dropped", (int)bn, bname,
			      p->n_corrupt > 1 ? "s" : "", p->corrupt.data)))
		return rc;
	/* The count against the list: a count above what is listed means
	 * replicas (and their locality) are missing from the list; with
	 * -replicaDetails the states tell exactly which listed replicas fsck
	 * counts. A longer list without states is what fsck prints when it
	 * lists decommissioned or corrupt replicas beside the live count. */
	uint32_t live_listed = p->n_listed - p->n_not_live;
	if (counted && !uc &&
	    (live > p->n_listed || (p->n_stated && !p->n_unknown && live != live_listed)) &&
	    (rc = add_problem(
		 p, (size_t)ci, 0,
		 "block %.*s: %s=%" PRIu64 " but %" PRIu32 " replica%s listed%s (line %ld)",
		 (int)bn, bname, counted, live, p->n_stated ? live_listed : p->n_listed,
		 (p->n_stated ? live_listed : p->n_listed) == 1 ? " is" : "s are",
		 p->n_stated ? " as live" : "", p->line)))
		return rc;
	return 0;
}

/* ---- file lines ---------------------------------------------------------- */

/* What a file line says, or where it stops making sense. */
struct file_head {
	size_t path_len;
	uint64_t length, blocks;
	int ec;
	size_t status_at; /* index of the status text */
	size_t err_at;	  /* on failure: where, and what was expected */
	const char *expected;
};

/* Matches the file-line grammar taking s[k..] as " bytes, ". Returns 0 or
 * -1 (with err_at and expected set). */
static int match_file_line(const char *s, size_t n, size_t k, struct file_head *h)
{
	struct cur c = {s, n, k + 8};
	size_t j = k;

	memset(h, 0, sizeof *h);
	while (j > 0 && is_digit(s[j - 1]))
		j--;
	if (j == k || j < 2 || s[j - 1] != ' ') {
		h->err_at = j;
		h->expected = "\"<path> <length> bytes, \"";
		return -1;
	}
	h->path_len = j - 1;
	if (locus__parse_u64(s + j, k - j, &h->length)) {
		h->err_at = j;
		h->expected = "a file length below 2^64";
		return -1;
	}
	if (eat(&c, "replicated: replication=")) {
		uint64_t r;
		if (eat_u64(&c, &r) || !eat(&c, ",") || !eat_blanks(&c)) {
			h->err_at = c.i;
			h->expected = "\"replication=<r>, \"";
			return -1;
		}
	} else if (eat(&c, "erasure-coded: policy=")) {
		size_t p0 = c.i;
		while (c.i < c.n && c.s[c.i] != ',' && !is_blank(c.s[c.i]))
			c.i++;
		if (c.i == p0 || !eat(&c, ",") || !eat_blanks(&c)) {
			h->err_at = c.i;
			h->expected = "\"policy=<name>, \"";
			return -1;
		}
		h->ec = 1;
	}
	if (eat_u64(&c, &h->blocks) || !eat(&c, " block(s)")) {
		h->err_at = c.i;
		h->expected = "\"<n> block(s)\"";
		return -1;
	}
	eat(&c, ", OPENFORWRITE");
	if (!eat(&c, ":")) {
		h->err_at = c.i;
		h->expected = "':' after \"block(s)\"";
		return -1;
	}
	eat_blanks(&c);
	h->status_at = c.i;
	return 0;
}

/* Whether s[0..n) is "MISSING|CORRUPT <k> blocks of total size <b> B[.]";
 * sets *flag. */
static int is_status_count(const char *s, size_t n, uint32_t *flag)
{
	struct cur c = {s, n, 0};
	uint64_t v;

	if (eat(&c, "MISSING "))
		*flag = LOCUS_CHUNK_MISSING;
	else if (eat(&c, "CORRUPT "))
		*flag = LOCUS_CHUNK_CORRUPT;
	else
		return 0;
	if (eat_u64(&c, &v) || !eat(&c, " blocks of total size ") || eat_u64(&c, &v) ||
	    !eat(&c, " B"))
		return 0;
	eat(&c, ".");
	return at_end(&c);
}

static void note_status(struct fsck *p, const char *s, size_t n)
{
	size_t have = strlen(p->status_text);
	if (have + 3 >= sizeof p->status_text)
		return;
	snprintf(p->status_text + have, sizeof p->status_text - have, "%s%.*s", have ? ", " : "",
		 (int)n, s);
}

/* Checks the file being read against its file line and records what its
 * status reports that no block line showed. */
static int finish_file(struct fsck *p)
{
	if (!p->in_file)
		return 0;
	p->in_file = 0;

	const struct locus_dataset *ds = &p->cat->datasets[p->ds];
	uint64_t got_blocks = ds->n_chunks, got_len = ds->size;
	/* An open file's last block may be left out of its file line. */
	int ok =
	    (got_blocks == p->want_blocks && got_len == p->want_len) ||
	    (p->has_uc && got_blocks - 1 == p->want_blocks && got_len - p->uc_len == p->want_len);
	if (!ok)
		return perr_at(p, p->file_line, p->file_lead,
			       "expected %" PRIu64 " block(s) of %" PRIu64
			       " bytes in total after the file line of \"%s\", found %" PRIu64
			       " block(s) of %" PRIu64 " bytes (truncated output?)",
			       p->want_blocks, p->want_len, ds->name, got_blocks, got_len);

	static const uint32_t kinds[] = {LOCUS_CHUNK_MISSING, LOCUS_CHUNK_CORRUPT};
	for (size_t k = 0; k < LOCUS__ARRAY_LEN(kinds); k++) {
		if (!(p->status & kinds[k]))
			continue;
		size_t c;
		for (c = 0; c < ds->n_chunks; c++)
			if (ds->chunks[c].flags & kinds[k])
				break;
		if (c < ds->n_chunks)
			continue;
		int rc = add_problem(p, SIZE_MAX, kinds[k], "file status: %s", p->status_text);
		if (rc)
			return rc;
	}
	return 0;
}

static int file_line(struct fsck *p, size_t end)
{
	const char *s = p->s;
	struct file_head h, tried;
	int rc, matched = 0;

	/* A path may itself contain " bytes, ": take the first reading of the
	 * line that fits the grammar, else report the one that got furthest. */
	memset(&tried, 0, sizeof tried);
	tried.expected = "\"<path> <length> bytes, ... <n> block(s): <status>\"";
	for (size_t k = 0; k + 8 <= end; k++) {
		if (memcmp(s + k, " bytes, ", 8) != 0)
			continue;
		if (match_file_line(s, end, k, &h) == 0) {
			matched = 1;
			break;
		}
		if (h.err_at >= tried.err_at)
			tried = h;
	}
	if (!matched)
		return perr(p, tried.err_at, "expected %s in a file line", tried.expected);

	for (size_t k = 0; k < h.path_len; k++)
		if (is_ctrl(s[k]))
			return perr(p, k, "expected a file path without control characters");

	if ((rc = finish_file(p)))
		return rc;

	char *path = locus__strndup(s, h.path_len);
	if (!path)
		return nomem(p);
	long d = locus_catalog_add_dataset(p->cat, path);
	if (d == LOCUS_EEXIST) {
		long first = p->file_lines[locus_catalog_find_dataset(p->cat, path)];
		rc = perr(p, 0, "expected each file once, but \"%s\" was listed at line %ld", path,
			  first);
		free(path);
		return rc;
	}
	free(path);
	if (d < 0)
		return d == LOCUS_ENOMEM
			   ? nomem(p)
			   : perr(p, 0, "expected a valid file path (%s)", locus_strerror((int)d));
	if (locus__grow(&p->file_lines, &p->file_lines_cap, (size_t)d + 1, sizeof *p->file_lines))
		return nomem(p);
	p->file_lines[d] = p->line;
	if (h.ec)
		p->cat->datasets[d].flags |= LOCUS_DATASET_ERASURE_CODED;

	p->in_file = 1;
	p->saw_file = 1;
	p->ds = (size_t)d;
	p->file_line = p->line;
	p->file_lead = p->lead;
	p->want_len = h.length;
	p->want_blocks = h.blocks;
	p->has_uc = 0;
	p->uc_len = 0;
	p->status = 0;
	p->status_text[0] = 0;

	const char *st = s + h.status_at;
	size_t sn = end - h.status_at;
	if (starts_with(st, sn, "MISSING"))
		p->status |= LOCUS_CHUNK_MISSING;
	else if (starts_with(st, sn, "CORRUPT"))
		p->status |= LOCUS_CHUNK_CORRUPT;
	note_status(p, st, sn);
	return 0;
}

/* ---- lines --------------------------------------------------------------- */

/* Lines that only fsck prints, so that output without a file is still
 * recognised as fsck output. */
static int is_fsck_line(const char *s, size_t n)
{
	static const char *const marks[] = {
	    "Connecting to namenode",
	    "FSCK started by",
	    "FSCK ended at",
	    "Status: ",
	    "The filesystem under path",
	    "Total size:",
	    "Total files:",
	    "Total blocks",
	    "Replicated Blocks:",
	    "Erasure Coded Block Groups:",
	};
	for (size_t k = 0; k < LOCUS__ARRAY_LEN(marks); k++)
		if (starts_with(s, n, marks[k]))
			return 1;
	return 0;
}

/*
 * A line that holds a file line or a block line after something else
 * (a stray character of a terminal capture, a prompt, a log prefix) is an
 * error at that line: skipping it would lose the file, or give an error
 * about the line after it. Returns 0 when the line is not one of those.
 */
static int junk_before(struct fsck *p, size_t end)
{
	const char *s = p->s, *at = NULL, *what;
	char shown[128];

	if (find(s, end, " bytes, ") && find(s, end, " block(s)")) {
		at = memchr(s, '/', end);
		what = "a file line to start with its path (a '/')";
	} else {
		const char *b = find(s, end, "blk_");
		if (!b || !find(b, end - (size_t)(b - s), " len="))
			return 0;
		/* The last "<i>. " before the block name that does not continue
		 * a number. */
		for (size_t j = 1; j < (size_t)(b - s); j++)
			if (!is_digit(s[j - 1]) && starts_like_block(s + j, end - j))
				at = s + j;
		if (!at)
			return 0;
		what = "a block line to start with its number \"<i>. \"";
	}
	size_t junk = at ? (size_t)(at - s) : end;
	return perr(p, 0,
		    "expected %s, found \"%s\"%s before it (a stray character or a prefix: "
		    "remove it)",
		    what, locus__visible(s, junk > 24 ? 24 : junk, shown, sizeof shown),
		    junk > 24 ? "..." : "");
}

static int handle_line(struct fsck *p)
{
	size_t lead = 0, end;
	uint32_t flag;

	/* Indented output (pasted from a mail, a notebook, a log) reads as the
	 * same output without the indentation; columns still count from the
	 * start of the line. */
	while (lead < p->n && is_blank(p->s[lead]))
		lead++;
	p->s += lead;
	p->n -= lead;
	p->lead = lead;

	const char *s = p->s;
	size_t n = p->n;
	end = n;
	while (end > 0 && is_blank(s[end - 1]))
		end--;
	if (end == 0)
		return 0;
	if (starts_like_block(s, n))
		return block_line(p);
	if (p->uc_marker)
		return perr(p, 0,
			    "expected the block line of the under construction block "
			    "announced at line %ld",
			    p->uc_marker);
	if (end == 25 && memcmp(s, "Under Construction Block:", 25) == 0) {
		if (!p->in_file)
			return perr(p, 0,
				    "expected a file line before \"Under "
				    "Construction Block:\"");
		p->uc_marker = p->line;
		p->uc_lead = lead;
		return 0;
	}
	if (s[0] == '/') {
		if (end >= 6 && memcmp(s + end - 6, " <dir>", 6) == 0) {
			p->saw_fsck = 1;
			return finish_file(p);
		}
		if (find(s, end, " bytes, ") && find(s, end, " block(s)"))
			return file_line(p, end);
		return 0; /* "<path>: Under replicated ..." and the like */
	}
	/* Hadoop prints the status on a line of its own when messages about
	 * the file's blocks came first. */
	if (p->in_file && p->cat->datasets[p->ds].n_chunks == 0 && is_status_count(s, end, &flag)) {
		p->status |= flag;
		note_status(p, s, end);
		return 0;
	}
	if (is_fsck_line(s, end)) {
		p->saw_fsck = 1;
		return 0;
	}
	return junk_before(p, end);
}

int locus_fsck_parse(struct locus_catalog **out, const char *text, size_t len, const char *name,
		     const struct locus_hostmap *hosts, struct locus_error *err)
{
	struct fsck p;
	size_t pos = 0;
	int rc;

	if (!out)
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no result pointer");
	*out = NULL;
	if (!text && len)
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no text");

	memset(&p, 0, sizeof p);
	p.name = name;
	p.hosts = hosts;
	p.err = err;
	if (locus_catalog_create(&p.cat))
		return locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");

	rc = 0;
	while (!rc && locus__next_line(text, len, &pos, &p.s, &p.n)) {
		p.line++;
		rc = handle_line(&p);
	}
	if (!rc && p.uc_marker)
		rc = perr_at(&p, p.uc_marker, p.uc_lead,
			     "expected a block line after \"Under Construction Block:\", "
			     "found the end of the input");
	if (!rc)
		rc = finish_file(&p);
	if (!rc && !p.saw_file && !p.saw_fsck)
		rc = locus__err(err, LOCUS_EPARSE, name, len ? 1 : 0, len ? 1 : 0,
				"not hdfs fsck output: expected file lines (\"<path> "
				"<length> bytes, ... <n> block(s): ...\") or the fsck "
				"preamble (\"FSCK started by ...\")");
	/* fsck output without a file (fsck run without -files, or on an
	 * empty directory) is no dataset to schedule: an error, never an
	 * empty catalog that a run would finish "successfully". */
	if (!rc && !p.saw_file)
		rc = locus__err(err, LOCUS_EPARSE, name, 1, 1,
				"fsck output without a file: expected file lines (\"<path> "
				"<length> bytes, ... <n> block(s): ...\"; run hdfs fsck with "
				"-files -blocks -locations, on a path that holds files)");

	free(p.reps);
	free(p.seen);
	free(p.file_lines);
	locus__buf_fini(&p.corrupt);
	if (rc) {
		locus_catalog_destroy(p.cat);
		return rc;
	}
	*out = p.cat;
	return 0;
}
