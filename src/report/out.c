/* Buffered writing, exact numbers and escaping for the report writers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/json.h"
#include "locus/report.h"
#include "report/out.h"

#define OUT_BUF_SIZE (64 * 1024)

void locus__out_init(struct locus__out *o, FILE *fp)
{
	memset(o, 0, sizeof *o);
	o->fp = fp;
	o->buf = malloc(OUT_BUF_SIZE);
	if (o->buf)
		o->cap = OUT_BUF_SIZE;
	else
		o->rc = LOCUS_ENOMEM;
}

void locus__out_flush(struct locus__out *o)
{
	if (!o->rc && o->len && fwrite(o->buf, 1, o->len, o->fp) != o->len)
		o->rc = LOCUS_EIO;
	o->len = 0;
}

void locus__out_write_slow(struct locus__out *o, const char *s, size_t n)
{
	if (o->rc)
		return;
	locus__out_flush(o);
	if (n > o->cap) {
		if (!o->rc && fwrite(s, 1, n, o->fp) != n)
			o->rc = LOCUS_EIO;
		return;
	}
	memcpy(o->buf, s, n);
	o->len = n;
}

int locus__out_fini(struct locus__out *o)
{
	locus__out_flush(o);
	if (!o->rc && (fflush(o->fp) != 0 || ferror(o->fp)))
		o->rc = LOCUS_EIO;
	free(o->buf);
	o->buf = NULL;
	o->cap = 0;
	return o->rc;
}

/* ---- integers ------------------------------------------------------------ */

/* Writes the digits of `v` ending at `end` (exclusive); returns the start. */
static char *u64_digits(char *end, uint64_t v)
{
	char *p = end;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

void locus__out_u64(struct locus__out *o, uint64_t v)
{
	char tmp[24];
	char *p = u64_digits(tmp + sizeof tmp, v);
	locus__out_write(o, p, (size_t)(tmp + sizeof tmp - p));
}

void locus__out_i64(struct locus__out *o, int64_t v)
{
	char tmp[24];
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	char *p = u64_digits(tmp + sizeof tmp, u);
	if (v < 0)
		*--p = '-';
	locus__out_write(o, p, (size_t)(tmp + sizeof tmp - p));
}

void locus__out_key(struct locus__out *o, const char *k)
{
	locus__out_char(o, '"');
	locus__out_str(o, k);
	locus__out_write(o, "\": ", 3);
}

void locus__out_seed(struct locus__out *o, uint64_t seed)
{
	if (seed > (uint64_t)INT64_MAX) {
		locus__out_char(o, '"');
		locus__out_u64(o, seed);
		locus__out_char(o, '"');
	} else {
		locus__out_u64(o, seed);
	}
}

/* ---- exact numbers -------------------------------------------------------- */

/*
 * Lays out significant digits d[0..nd) with decimal exponent x (the value
 * is d0.d1d2... * 10^x) the way printf's %.{prec}g does: trailing zeros
 * dropped, scientific notation when x < -4 or x >= prec.
 */
static size_t layout_g(char *buf, int neg, char *d, int nd, int x, int prec)
{
	size_t n = 0;

	while (nd > 1 && d[nd - 1] == 0)
		nd--;
	if (neg)
		buf[n++] = '-';
	if (x < -4 || x >= prec) {
		buf[n++] = (char)('0' + d[0]);
		if (nd > 1) {
			buf[n++] = '.';
			for (int i = 1; i < nd; i++)
				buf[n++] = (char)('0' + d[i]);
		}
		buf[n++] = 'e';
		buf[n++] = x < 0 ? '-' : '+';
		int ax = x < 0 ? -x : x;
		if (ax >= 100)
			buf[n++] = (char)('0' + ax / 100);
		buf[n++] = (char)('0' + ax / 10 % 10);
		buf[n++] = (char)('0' + ax % 10);
	} else if (x >= 0) {
		for (int i = 0; i <= x; i++)
			buf[n++] = (char)('0' + (i < nd ? d[i] : 0));
		if (nd > x + 1) {
			buf[n++] = '.';
			for (int i = x + 1; i < nd; i++)
				buf[n++] = (char)('0' + d[i]);
		}
	} else {
		buf[n++] = '0';
		buf[n++] = '.';
		for (int i = -1; i > x; i--)
			buf[n++] = '0';
		for (int i = 0; i < nd; i++)
			buf[n++] = (char)('0' + d[i]);
	}
	buf[n] = 0;
	return n;
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

static const uint64_t pow10_u64[20] = {
    1ull,
    10ull,
    100ull,
    1000ull,
    10000ull,
    100000ull,
    1000000ull,
    10000000ull,
    100000000ull,
    1000000000ull,
    10000000000ull,
    100000000000ull,
    1000000000000ull,
    10000000000000ull,
    100000000000000ull,
    1000000000000000ull,
    10000000000000000ull,
    100000000000000000ull,
    1000000000000000000ull,
    10000000000000000000ull,
};

static u128 pow10_u128(int j)
{
	return j < 20 ? pow10_u64[j] : (u128)pow10_u64[19] * pow10_u64[j - 19];
}

/*
 * The fast path of locus__fmt_number, for normal non-integral values with
 * 2^-44 < |v| < 1e15. Then v = m / 2^s exactly with s <= 96, so its first
 * 17 significant digits D and the exact remainder after them come out of
 * 128-bit fixed point; for each precision the rounded candidate is the
 * one printf would write (half to even on the exact value), and whether
 * it reads back as v is decided exactly against half the gap to v's
 * neighbours. Returns 0 for the values it does not handle.
 */
static size_t fmt_fast(char *buf, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	int neg = (int)(bits >> 63);
	int bexp = (int)((bits >> 52) & 0x7ff);
	uint64_t frac = bits & ((1ull << 52) - 1);
	if (bexp == 0 || bexp == 0x7ff)
		return 0;
	uint64_t m = frac | (1ull << 52);
	int s = 1075 - bexp; /* v = m / 2^s */
	if (s <= 0 || s > 96 || fabs(v) >= 1e15)
		return 0;
	/* At the bottom of a binade the neighbour below is half as far. */
	int lower_close = frac == 0;
	u128 mask = ((u128)1 << s) - 1;
	uint64_t ip = s >= 64 ? 0 : m >> s;
	uint64_t d17; /* the first 17 significant digits */
	u128 rem;     /* what is left, in units of 2^-s of the 17th digit */
	int j, x;     /* fraction digits in d17; exponent of its first digit */

	if (ip) {
		int k = 1;
		while (k < 20 && ip >= pow10_u64[k])
			k++;
		j = 17 - k;
		u128 t = (u128)m * pow10_u64[j];
		d17 = (uint64_t)(t >> s);
		rem = t & mask;
		x = k - 1;
	} else {
		u128 t = m, one = (u128)1 << s;
		int z = 0; /* zeros after the point */
		while (t * 10 < one) {
			t *= 10;
			z++;
		}
		t *= pow10_u64[8];
		uint64_t hi = (uint64_t)(t >> s);
		t = (t & mask) * pow10_u64[9];
		d17 = hi * pow10_u64[9] + (uint64_t)(t >> s);
		rem = t & mask;
		j = z + 17;
		x = -(z + 1);
	}
	u128 p10j = pow10_u128(j);
	for (int prec = 15; prec <= 17; prec++) {
		uint64_t q = pow10_u64[17 - prec];
		uint64_t head = d17 / q, tail = d17 % q;
		u128 r = (u128)tail << s | rem, half = (u128)q << s;
		int up = r * 2 > half || (r * 2 == half && (head & 1));
		/* Distance to the candidate in units of 2^-s / 10^j, doubled,
		 * against the gap to the neighbour on that side; a tie reads
		 * back as v when m is even. */
		u128 dist = up ? (half - r) * 2 : (lower_close ? r * 4 : r * 2);
		if (dist > p10j || (dist == p10j && (m & 1)))
			continue;
		int rx = x;
		head += (uint64_t)up;
		if (head == pow10_u64[prec]) {
			head = pow10_u64[prec - 1];
			rx++;
		}
		char d[20];
		for (int i = prec - 1; i >= 0; i--) {
			d[i] = (char)(head % 10);
			head /= 10;
		}
		return layout_g(buf, neg, d, prec, rx, prec);
	}
	return 0;
}
#else
static size_t fmt_fast(char *buf, double v)
{
	(void)buf;
	(void)v;
	return 0;
}
#endif

size_t locus__fmt_number(char *buf, double v)
{
	if (v == floor(v) && fabs(v) < 1e15) {
		char tmp[24];
		int64_t i = (int64_t)v;
		uint64_t u = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
		char *p = u64_digits(tmp + sizeof tmp, u);
		if (signbit(v))
			*--p = '-';
		size_t n = (size_t)(tmp + sizeof tmp - p);
		memcpy(buf, p, n);
		buf[n] = 0;
		return n;
	}
	size_t n = fmt_fast(buf, v);
	if (n)
		return n;
	locus__json_number(buf, LOCUS__NUM_MAX, v);
	return strlen(buf);
}

size_t locus__fmt_fixed(char *buf, double v, int decimals, int trim)
{
	static const double scale[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
	static const uint64_t iscale[] = {1ull,		10ull,	      100ull,	  1000ull,
					  10000ull,	100000ull,    1000000ull, 10000000ull,
					  100000000ull, 1000000000ull};
	if (!isfinite(v)) {
		memcpy(buf, "0", 2);
		return 1;
	}
	if (decimals < 0)
		decimals = 0;
	if (decimals > 9)
		decimals = 9;
	double sv = v * scale[decimals];
	if (fabs(sv) >= 9e15)
		return locus__fmt_number(buf, v);
	int64_t i = llround(sv);
	uint64_t u = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
	uint64_t ip = u / iscale[decimals], fp = u % iscale[decimals];
	char tmp[48];
	char *end = tmp + sizeof tmp;
	char *p = end;
	if (decimals) {
		for (int k = 0; k < decimals; k++) {
			*--p = (char)('0' + fp % 10);
			fp /= 10;
		}
		*--p = '.';
	}
	p = u64_digits(p, ip);
	if (i < 0)
		*--p = '-';
	size_t n = (size_t)(end - p);
	if (trim && decimals) {
		while (p[n - 1] == '0')
			n--;
		if (p[n - 1] == '.')
			n--;
	}
	memcpy(buf, p, n);
	buf[n] = 0;
	return n;
}

size_t locus__fmt_short(char *buf, double v)
{
	if (!isfinite(v) || v == 0) {
		memcpy(buf, "0", 2);
		return 1;
	}
	if (fabs(v) >= 1e15)
		return locus__fmt_number(buf, v);
	int mag = (int)floor(log10(fabs(v)));
	return locus__fmt_fixed(buf, v, 3 - mag, 1);
}

void locus__out_num(struct locus__out *o, double v)
{
	char buf[LOCUS__NUM_MAX];
	if (!isfinite(v)) {
		locus__out_write(o, "null", 4);
		return;
	}
	locus__out_write(o, buf, locus__fmt_number(buf, v));
}

void locus__out_csv_num(struct locus__out *o, double v)
{
	char buf[LOCUS__NUM_MAX];
	if (isfinite(v))
		locus__out_write(o, buf, locus__fmt_number(buf, v));
}

void locus__out_fixed(struct locus__out *o, double v, int decimals)
{
	char buf[LOCUS__NUM_MAX];
	locus__out_write(o, buf, locus__fmt_fixed(buf, v, decimals, 1));
}

void locus__out_short(struct locus__out *o, double v)
{
	char buf[LOCUS__NUM_MAX];
	locus__out_write(o, buf, locus__fmt_short(buf, v));
}

/* ---- strings -------------------------------------------------------------- */

/* The length of the valid UTF-8 sequence at s[0..n) (a character XML and
 * JSON both allow), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	uint32_t cp, min;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
		min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		len = 3;
		cp = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe ||
	    cp == 0xffff)
		return 0;
	return len;
}

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

void locus__out_json_str(struct locus__out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;

	locus__out_char(o, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = u[i];
		if (c == '"' || c == '\\') {
			char esc[2] = {'\\', (char)c};
			locus__out_write(o, esc, 2);
			i++;
		} else if (c < 0x20) {
			char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			if (c == '\n' || c == '\t' || c == '\r') {
				esc[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
				locus__out_write(o, esc, 2);
			} else {
				locus__out_write(o, esc, 6);
			}
			i++;
		} else {
			size_t len = utf8_seq(u + i, n - i);
			if (len) {
				locus__out_write(o, s + i, len);
				i += len;
			} else {
				locus__out_write(o, replacement, 3);
				i++;
			}
		}
	}
	locus__out_char(o, '"');
}

void locus__out_xml(struct locus__out *o, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		unsigned char c = u[i];
		size_t len = 1;
		switch (c) {
		case '<':
			locus__out_write(o, "&lt;", 4);
			break;
		case '>':
			locus__out_write(o, "&gt;", 4);
			break;
		case '&':
			locus__out_write(o, "&amp;", 5);
			break;
		case '"':
			locus__out_write(o, "&quot;", 6);
			break;
		case '\'':
			locus__out_write(o, "&#39;", 5);
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				locus__out_char(o, '?');
			} else if ((len = utf8_seq(u + i, n - i)) != 0) {
				locus__out_write(o, s + i, len);
			} else {
				locus__out_write(o, replacement, 3);
				len = 1;
			}
		}
		i += len;
	}
}

/* ---- derived values ------------------------------------------------------- */

size_t locus__policy_len(const struct locus_result *r)
{
	return strnlen(r->policy, sizeof r->policy);
}

double locus__ratio(double a, double b)
{
	if (!isfinite(a) || !isfinite(b) || b <= 0)
		return NAN;
	return a / b;
}

double locus__makespan_ratio(const struct locus_result *r)
{
	return locus__ratio(r->makespan, r->lb_makespan);
}

size_t locus__fmt_percent(char *buf, double fraction)
{
	if (isfinite(fraction))
		return locus__fmt_fixed(buf, fraction * 100, 1, 1);
	strcpy(buf, "-");
	return 1;
}

double locus__local_fraction(const struct locus_result *r)
{
	return locus__ratio((double)r->local_tasks, (double)r->n_tasks);
}

struct locus__bytes locus__input_bytes(const struct locus_result *r)
{
	struct locus__bytes b = {0, 0, 0, 0};
	if (!r->flow || !r->stages || !r->graph) {
		b.local = r->bytes_local;
		b.peer = r->bytes_remote;
		return b;
	}
	for (size_t k = 0; k < r->graph->n_stages; k++) {
		b.local += r->stages[k].bytes_local;
		b.peer += r->stages[k].bytes_peer;
		b.fs += r->stages[k].bytes_fs_read;
		b.out += r->stages[k].bytes_fs_written;
	}
	return b;
}

size_t locus_report_worker_nodes(const struct locus_result *r)
{
	size_t n = r->workers ? r->n_workers : 0, top = 0, count = 0;
	for (size_t w = 0; w < n; w++)
		if ((size_t)r->workers[w].node + 1 > top)
			top = (size_t)r->workers[w].node + 1;
	unsigned char *seen = calloc(top ? top : 1, 1);
	if (!seen)
		return r->n_nodes; /* at most that many */
	for (size_t w = 0; w < n; w++)
		if (!seen[r->workers[w].node]) {
			seen[r->workers[w].node] = 1;
			count++;
		}
	free(seen);
	return count;
}

double locus__local_vs_balanced(const struct locus_result *r)
{
	if (r->opt_local < 0)
		return NAN;
	return locus__ratio((double)r->local_tasks, (double)r->opt_local);
}

void locus__out_field_num(struct locus__out *o, const char *k, double v)
{
	locus__out_key(o, k);
	locus__out_num(o, v);
}

void locus__out_field_u64(struct locus__out *o, const char *k, uint64_t v)
{
	locus__out_key(o, k);
	locus__out_u64(o, v);
}

void locus__out_wait(struct locus__out *o, const struct locus_result *r)
{
	locus__out_str(o, "\"wait\": {");
	locus__out_field_num(o, "mean", r->wait_mean);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "p50", r->wait_p50);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "p99", r->wait_p99);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "max", r->wait_max);
	locus__out_str(o, "}");
}

void locus__out_problems(struct locus__out *o, const struct locus_result *r, const char *indent,
			 const char *close)
{
	locus__out_str(o, "\"problems\": [");
	for (size_t i = 0; i < r->n_problems; i++) {
		const struct locus_result_problem *p = &r->problems[i];
		locus__out_str(o, i ? ",\n" : "\n");
		locus__out_str(o, indent);
		locus__out_str(o, "{\"dataset\": ");
		locus__out_json_str(o, p->dataset, strlen(p->dataset));
		locus__out_str(o, ", \"chunk\": ");
		if (p->chunk == SIZE_MAX)
			locus__out_str(o, "null");
		else
			locus__out_u64(o, p->chunk);
		locus__out_str(o, p->flags & LOCUS_CHUNK_MISSING ? ", \"missing\": true"
								 : ", \"missing\": false");
		locus__out_str(o, p->flags & LOCUS_CHUNK_UNDER_CONSTRUCTION
				      ? ", \"under_construction\": true"
				      : ", \"under_construction\": false");
		locus__out_str(o, p->flags & LOCUS_CHUNK_CORRUPT ? ", \"corrupt\": true"
								 : ", \"corrupt\": false");
		locus__out_str(o, ", \"detail\": ");
		locus__out_json_str(o, p->detail, strlen(p->detail));
		locus__out_char(o, '}');
	}
	if (r->n_problems) {
		locus__out_char(o, '\n');
		locus__out_str(o, close);
	}
	locus__out_char(o, ']');
}
