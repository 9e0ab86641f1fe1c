/*
 * Host lists in Slurm's compressed form (SLURM_JOB_NODELIST,
 * `scontrol show hostnames`):
 *
 *   n01,n02           names, separated by commas
 *   n[01-04,07]       a bracket of numbers and ranges; a number's width
 *                     is kept when it has leading zeros (n01..n04)
 *   rack[1-2]-n[1-3]  several brackets: every combination, the last
 *                     bracket varying fastest (rack1-n1, rack1-n2, ...)
 *   n[1-3]x           text after a bracket
 *
 * Names come out in the list's order, duplicates kept (Slurm keeps them
 * in a list it was given; a job's own list has none). A list that would
 * expand past LOCUS_HOSTLIST_MAX names is refused rather than allocated.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/locality.h"

/* One bracket: its ranges, each lo..hi printed at least `width` wide. */
struct range {
	unsigned long lo, hi;
	int width;
};

struct bracket {
	struct range *r;
	size_t n, cap;
	size_t count; /* numbers it stands for */
};

/* The parts of one host expression: text, bracket, text, bracket, ... */
struct expr {
	const char *text[LOCUS_HOSTLIST_BRACKETS + 1];
	size_t text_len[LOCUS_HOSTLIST_BRACKETS + 1];
	struct bracket b[LOCUS_HOSTLIST_BRACKETS];
	size_t n_b;
};

struct out {
	char **names;
	size_t n, cap;
};

static int name_char(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '-' || c == '_' || c == '.';
}

static void expr_fini(struct expr *e)
{
	for (size_t k = 0; k < e->n_b; k++)
		free(e->b[k].r);
}

/* A number at s[*at .. end): its value and digit count. -1 when none or
 * too long. */
static int number(const char *s, size_t end, size_t *at, unsigned long *v, int *digits)
{
	size_t i = *at;
	unsigned long x = 0;
	while (i < end && s[i] >= '0' && s[i] <= '9') {
		if (i - *at >= 9)
			return -1; /* at most 9 digits: no overflow, and names stay short */
		x = x * 10 + (unsigned long)(s[i] - '0');
		i++;
	}
	if (i == *at)
		return -1;
	*digits = (int)(i - *at);
	*v = x;
	*at = i;
	return 0;
}

/* Parses the bracket whose '[' is at s[*at]; *at ends past its ']'. */
static int bracket_parse(struct bracket *b, const char *s, size_t len, size_t *at, const char *name,
			 struct locus_error *err)
{
	size_t i = *at + 1;
	for (;;) {
		struct range r;
		int d1, d2;
		size_t col = i;
		if (number(s, len, &i, &r.lo, &d1))
			return locus__err(err, LOCUS_EPARSE, name, 1, (long)col + 1,
					  "expected a number of at most 9 digits in the brackets");
		r.hi = r.lo;
		r.width = s[col] == '0' && d1 > 1 ? d1 : 0;
		if (i < len && s[i] == '-') {
			size_t col2 = ++i;
			if (number(s, len, &i, &r.hi, &d2))
				return locus__err(err, LOCUS_EPARSE, name, 1, (long)col2 + 1,
						  "expected the number that ends the range");
			if (r.hi < r.lo)
				return locus__err(err, LOCUS_EPARSE, name, 1, (long)col + 1,
						  "the range %lu-%lu runs backwards", r.lo, r.hi);
		}
		size_t n = r.hi - r.lo + 1;
		if (n > LOCUS_HOSTLIST_MAX || b->count + n > LOCUS_HOSTLIST_MAX)
			return locus__err(err, LOCUS_EPARSE, name, 1, (long)col + 1,
					  "more than %d names", LOCUS_HOSTLIST_MAX);
		if (b->n == b->cap) {
			size_t cap = b->cap ? b->cap * 2 : 4;
			struct range *nr = realloc(b->r, cap * sizeof *nr);
			if (!nr)
				return locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
			b->r = nr;
			b->cap = cap;
		}
		b->r[b->n++] = r;
		b->count += n;
		if (i < len && s[i] == ',') {
			i++;
			continue;
		}
		if (i < len && s[i] == ']') {
			*at = i + 1;
			return 0;
		}
		return locus__err(err, LOCUS_EPARSE, name, 1, (long)i + 1,
				  i < len ? "expected ',', '-' or ']' in the brackets"
					  : "expected ']' before the end");
	}
}

/* Parses the expression at s[*at..), up to a ',' outside brackets or the
 * end; *at ends on that ',' (or len). */
static int expr_parse(struct expr *e, const char *s, size_t len, size_t *at, const char *name,
		      struct locus_error *err)
{
	size_t i = *at, start = i;
	memset(e, 0, sizeof *e);
	e->text[0] = s + i;
	for (;;) {
		while (i < len && name_char((unsigned char)s[i]))
			i++;
		e->text_len[e->n_b] = (size_t)(s + i - e->text[e->n_b]);
		if (i < len && s[i] == '[') {
			if (e->n_b == LOCUS_HOSTLIST_BRACKETS)
				return locus__err(err, LOCUS_EPARSE, name, 1, (long)i + 1,
						  "at most %d brackets in a name",
						  LOCUS_HOSTLIST_BRACKETS);
			struct bracket *b = &e->b[e->n_b++];
			int rc = bracket_parse(b, s, len, &i, name, err);
			if (rc)
				return rc;
			e->text[e->n_b] = s + i;
			continue;
		}
		break;
	}
	if (i < len && s[i] != ',')
		return locus__err(err, LOCUS_EPARSE, name, 1, (long)i + 1,
				  "expected a host name character, '[' or ','");
	if (i == start)
		return locus__err(err, LOCUS_EPARSE, name, 1, (long)i + 1, "expected a host name");
	*at = i;
	return 0;
}

/* Appends every name expression e stands for. */
static int expr_expand(const struct expr *e, struct out *o, const char *name,
		       struct locus_error *err)
{
	size_t total = 1;
	for (size_t k = 0; k < e->n_b; k++) {
		if (total > LOCUS_HOSTLIST_MAX / e->b[k].count)
			return locus__err(err, LOCUS_EPARSE, name, 0, 0, "more than %d names",
					  LOCUS_HOSTLIST_MAX);
		total *= e->b[k].count;
	}
	if (o->n + total > LOCUS_HOSTLIST_MAX)
		return locus__err(err, LOCUS_EPARSE, name, 0, 0, "more than %d names",
				  LOCUS_HOSTLIST_MAX);
	if (o->n + total > o->cap) {
		size_t cap = o->cap ? o->cap : 8;
		while (cap < o->n + total)
			cap *= 2;
		char **nn = realloc(o->names, cap * sizeof *nn);
		if (!nn)
			return locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
		o->names = nn;
		o->cap = cap;
	}
	size_t size = 1;
	for (size_t k = 0; k <= e->n_b; k++)
		size += e->text_len[k] + (k < e->n_b ? 10 : 0);
	/* The combination number j, the last bracket fastest. */
	for (size_t j = 0; j < total; j++) {
		char *s = malloc(size);
		if (!s)
			return locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
		size_t at = 0, rest = j, idx[LOCUS_HOSTLIST_BRACKETS];
		for (size_t k = e->n_b; k-- > 0;) {
			idx[k] = rest % e->b[k].count;
			rest /= e->b[k].count;
		}
		for (size_t k = 0; k <= e->n_b; k++) {
			memcpy(s + at, e->text[k], e->text_len[k]);
			at += e->text_len[k];
			if (k == e->n_b)
				break;
			const struct bracket *b = &e->b[k];
			size_t q = idx[k], r = 0;
			while (q >= b->r[r].hi - b->r[r].lo + 1) {
				q -= b->r[r].hi - b->r[r].lo + 1;
				r++;
			}
			int w = snprintf(s + at, size - at, "%0*lu", b->r[r].width,
					 b->r[r].lo + (unsigned long)q);
			at += (size_t)w;
		}
		s[at] = 0;
		o->names[o->n++] = s;
	}
	return 0;
}

int locus_hostlist_expand(const char *text, size_t len, const char *name, char ***names, size_t *n,
			  struct locus_error *err)
{
	struct out o = {0};
	int rc = 0;
	size_t at = 0;
	*names = NULL;
	*n = 0;
	if (!name)
		name = "host list";
	if (len == 0)
		return locus__err(err, LOCUS_EPARSE, name, 1, 1, "expected a host name");
	while (!rc && at <= len) {
		struct expr e;
		rc = expr_parse(&e, text, len, &at, name, err);
		if (!rc)
			rc = expr_expand(&e, &o, name, err);
		expr_fini(&e);
		if (at == len)
			break;
		at++; /* the ',' */
		if (!rc && at == len)
			rc = locus__err(err, LOCUS_EPARSE, name, 1, (long)at + 1,
					"expected a host name after ','");
	}
	if (rc) {
		locus_hostlist_free(o.names, o.n);
		return rc;
	}
	*names = o.names;
	*n = o.n;
	return 0;
}

void locus_hostlist_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}
