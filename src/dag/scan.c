/* Token scanning for the text readers of task graphs (scan.h). */
#include <math.h>
#include <string.h>

#include "dag/scan.h"

/* Field f in double quotes for a message: at most 40 bytes of it, control
 * characters as '?'. */
static const char *quote(const struct locus__field *f, char *buf, size_t size)
{
	size_t n = f->n < 40 ? f->n : 40, k = 0;
	buf[k++] = '"';
	for (size_t i = 0; i < n && k + 5 < size; i++) {
		unsigned char c = (unsigned char)f->s[i];
		buf[k++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	if (n < f->n && k + 5 < size) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k++] = '"';
	buf[k] = 0;
	return buf;
}

const char *locus__dag_quote(const struct locus__field *f, char *buf, size_t size)
{
	return quote(f, buf, size);
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

void locus__dag_scan_init(struct dag_scan *sc, const char *text, size_t len, const char *name,
			  struct locus_error *err)
{
	memset(sc, 0, sizeof *sc);
	sc->text = text ? text : "";
	sc->len = text ? len : 0;
	sc->name = name;
	sc->err = err;
	/* A UTF-8 byte-order mark is not content. */
	if (sc->len >= 3 && memcmp(sc->text, "\xEF\xBB\xBF", 3) == 0)
		sc->pos = 3;
}

int locus__dag_scan_line(struct dag_scan *sc)
{
	while (locus__next_line(sc->text, sc->len, &sc->pos, &sc->s, &sc->n)) {
		sc->line++;
		/* The first line starts after the byte-order mark. */
		sc->i = 0;
		size_t k = 0;
		while (k < sc->n && blank(sc->s[k]))
			k++;
		if (k < sc->n && sc->s[k] != '#')
			return 1;
	}
	sc->s = NULL;
	sc->n = sc->i = 0;
	return 0;
}

int locus__dag_scan_tok(struct dag_scan *sc, struct locus__field *f)
{
	while (sc->i < sc->n && blank(sc->s[sc->i]))
		sc->i++;
	if (sc->i >= sc->n || sc->s[sc->i] == '#') {
		sc->i = sc->n;
		return 0;
	}
	size_t start = sc->i;
	while (sc->i < sc->n && !blank(sc->s[sc->i]) && sc->s[sc->i] != '#')
		sc->i++;
	f->s = sc->s + start;
	f->n = sc->i - start;
	f->col = (long)start + 1;
	return 1;
}

long locus__dag_scan_eol(const struct dag_scan *sc)
{
	size_t n = sc->n;
	while (n && blank(sc->s[n - 1]))
		n--;
	return (long)n + 1;
}

int locus__dag_scan_uint(struct dag_scan *sc, const struct locus__field *f, uint64_t limit,
			 const char *what, uint64_t *out)
{
	char q[64];
	if (locus__parse_u64(f->s, f->n, out) == 0 && *out < limit)
		return 0;
	return locus__err(sc->err, LOCUS_EPARSE, sc->name, sc->line, f->col, "expected %s, got %s",
			  what, quote(f, q, sizeof q));
}

int locus__dag_scan_cost(struct dag_scan *sc, const struct locus__field *f, const char *what,
			 double *out)
{
	char q[64];
	if (locus__field_number(f, out) == 0 && *out >= 0 && isfinite(*out)) {
		*out += 0.0; /* -0 is 0 */
		return 0;
	}
	return locus__err(sc->err, LOCUS_EPARSE, sc->name, sc->line, f->col,
			  "expected %s (a number >= 0), got %s", what, quote(f, q, sizeof q));
}
