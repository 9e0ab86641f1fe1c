/* Allocation, string maps, buffers, number parsing and file helpers. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "locus/files.h"

void *locus__calloc(size_t n, size_t size)
{
	if (n == 0 || size == 0)
		return calloc(1, 1);
	return calloc(n, size);
}

int locus__pid_alive(long pid)
{
	if (pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
		return 0;
	char path[64], stat[256];
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	ssize_t n = read(fd, stat, sizeof stat - 1);
	close(fd);
	stat[n > 0 ? n : 0] = 0;
	/* "PID (COMM) STATE ...": COMM may hold spaces and parentheses. */
	const char *paren = strrchr(stat, ')');
	return !(paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X'));
}

void locus__prefault(void *p, size_t n)
{
	long page = sysconf(_SC_PAGESIZE);
	if (page <= 0 || n < (size_t)page)
		return;
#ifdef MADV_POPULATE_WRITE
	uintptr_t a = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	uintptr_t b = ((uintptr_t)p + n) & ~((uintptr_t)page - 1);
	if (b > a)
		(void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#endif
	/* And a write to each page: on a virtual machine the kernel's
	 * populating maps a page in the guest, but the first write to it
	 * still cost half a fault (the host's side: 7.2 MB of reports took
	 * 9 ms to write after MADV_POPULATE_WRITE, 0.2 ms after a write a
	 * page). The byte is written back as it was. */
	volatile unsigned char *c = p;
	for (size_t i = 0; i < n; i += (size_t)page)
		c[i] = c[i];
}

void *locus__reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return realloc(p, (n && size) ? n * size : 1);
}

char *locus__strdup(const char *s)
{
	return s ? locus__strndup(s, strlen(s)) : NULL;
}

char *locus__strndup(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

int locus__grow(void *array, size_t *cap, size_t need, size_t size)
{
	void **a = array;
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return LOCUS_ENOMEM;
		ncap *= 2;
	}
	void *p = locus__reallocarray(*a, ncap, size);
	if (!p)
		return LOCUS_ENOMEM;
	*a = p;
	*cap = ncap;
	return 0;
}

/* ---- string map (FNV-1a, linear probing) ---------------------------- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

void locus__strmap_init(struct locus__strmap *m)
{
	memset(m, 0, sizeof *m);
}

void locus__strmap_fini(struct locus__strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

static size_t slot_of(const struct locus__strmap *m, const char *key)
{
	size_t i = (size_t)hash_str(key) & (m->cap - 1);
	while (m->keys[i] && strcmp(m->keys[i], key) != 0)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int rehash(struct locus__strmap *m, size_t ncap)
{
	struct locus__strmap n = {0};
	n.keys = calloc(ncap, sizeof *n.keys);
	n.vals = calloc(ncap, sizeof *n.vals);
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return LOCUS_ENOMEM;
	}
	n.cap = ncap;
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = slot_of(&n, m->keys[i]);
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
		n.count++;
	}
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int locus__strmap_put(struct locus__strmap *m, const char *key, size_t val)
{
	if ((m->count + 1) * 4 > m->cap * 3 && rehash(m, m->cap ? m->cap * 2 : 16))
		return LOCUS_ENOMEM;
	size_t i = slot_of(m, key);
	if (!m->keys[i]) {
		m->keys[i] = locus__strdup(key);
		if (!m->keys[i])
			return LOCUS_ENOMEM;
		m->count++;
	}
	m->vals[i] = val;
	return 0;
}

int locus__strmap_get(const struct locus__strmap *m, const char *key, size_t *val)
{
	if (!m->cap)
		return 0;
	size_t i = slot_of(m, key);
	if (!m->keys[i])
		return 0;
	if (val)
		*val = m->vals[i];
	return 1;
}

/* ---- growable buffer ------------------------------------------------- */

int locus__buf_append(struct locus__buf *b, const char *s, size_t n)
{
	if (locus__grow(&b->data, &b->cap, b->len + n + 1, 1))
		return LOCUS_ENOMEM;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = 0;
	return 0;
}

int locus__buf_printf(struct locus__buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return LOCUS_EINVAL;
	if (locus__grow(&b->data, &b->cap, b->len + (size_t)n + 1, 1))
		return LOCUS_ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void locus__buf_fini(struct locus__buf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

/* ---- parsing ------------------------------------------------------------ */

int locus__next_line(const char *text, size_t size, size_t *pos, const char **line, size_t *len)
{
	if (*pos >= size)
		return 0;
	const char *start = text + *pos;
	const char *nl = memchr(start, '\n', size - *pos);
	size_t n = nl ? (size_t)(nl - start) : size - *pos;
	*pos += n + (nl ? 1 : 0);
	if (n && start[n - 1] == '\r')
		n--;
	*line = start;
	*len = n;
	return 1;
}

size_t locus__split_fields(const char *line, size_t n, struct locus__field *f, size_t max)
{
	size_t count = 0, i = 0;
	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i < n && line[i] == '#')
		return 0;
	while (i < n) {
		size_t start = i;
		while (i < n && line[i] != ' ' && line[i] != '\t')
			i++;
		if (count < max)
			f[count] = (struct locus__field){line + start, i - start, (long)start + 1};
		count++;
		while (i < n && (line[i] == ' ' || line[i] == '\t'))
			i++;
	}
	return count;
}

size_t locus__bom_len(const char *s, size_t n)
{
	return s && n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3) ? 3 : 0;
}

static size_t digits(const char *s, size_t i, size_t n)
{
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return i;
}

size_t locus__decimal_len(const char *s, size_t n)
{
	size_t i = n && (s[0] == '+' || s[0] == '-');
	size_t int_end = digits(s, i, n), end = int_end;
	if (end < n && s[end] == '.') {
		size_t frac_end = digits(s, end + 1, n);
		if (int_end == i && frac_end == end + 1)
			return 0; /* "." or "-." */
		end = frac_end;
	} else if (int_end == i) {
		return 0;
	}
	if (end < n && (s[end] == 'e' || s[end] == 'E')) {
		size_t j = end + 1;
		j += j < n && (s[j] == '+' || s[j] == '-');
		size_t exp_end = digits(s, j, n);
		if (exp_end > j)
			end = exp_end;
	}
	return end;
}

int locus__parse_decimal(const char *s, size_t n, double *out)
{
	char tmp[64], *end;
	if (n == 0 || n >= sizeof tmp || locus__decimal_len(s, n) != n)
		return LOCUS_EPARSE;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	double v = strtod(tmp, &end);
	if (*end || !isfinite(v))
		return LOCUS_EPARSE;
	*out = v;
	return 0;
}

int locus__field_number(const struct locus__field *f, double *out)
{
	char tmp[64], *end;
	if (f->n == 0 || f->n >= sizeof tmp || memchr(f->s, 0, f->n))
		return LOCUS_EPARSE;
	memcpy(tmp, f->s, f->n);
	tmp[f->n] = 0;
	double v = strtod(tmp, &end);
	if (*end || !isfinite(v))
		return LOCUS_EPARSE;
	*out = v;
	return 0;
}

int locus__field_decimal(const struct locus__field *f, double *out)
{
	return locus__parse_decimal(f->s, f->n, out);
}

size_t locus__put_u64(char *out, uint64_t v, int width)
{
	char rev[20];
	size_t n = 0;
	do {
		rev[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	size_t pad = width > 20 ? 20 : width > 0 ? (size_t)width : 0;
	size_t k = 0;
	for (; k + n < pad; k++)
		out[k] = '0';
	while (n)
		out[k++] = rev[--n];
	return k;
}

size_t locus__join(char *buf, size_t size, const char *const *parts, size_t n)
{
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(parts[i]);
		if (at < size) {
			size_t room = size - 1 - at;
			memcpy(buf + at, parts[i], len < room ? len : room);
		}
		at += len;
	}
	if (size)
		buf[at < size ? at : size - 1] = 0;
	return at;
}

int locus__parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (n == 0)
		return LOCUS_EPARSE;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return LOCUS_EPARSE;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return LOCUS_ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int locus__parse_size(const char *s, uint64_t *out)
{
	size_t digits = strspn(s, "0123456789");
	uint64_t v, mul = 1;
	int rc = locus__parse_u64(s, digits, &v);
	if (rc)
		return rc;
	const char *suf = s + digits;
	static const struct {
		const char *s;
		uint64_t m;
	} sufs[] = {
	    {"", 1},
	    {"B", 1},
	    {"K", 1ull << 10},
	    {"M", 1ull << 20},
	    {"G", 1ull << 30},
	    {"T", 1ull << 40},
	    {"KiB", 1ull << 10},
	    {"MiB", 1ull << 20},
	    {"GiB", 1ull << 30},
	    {"TiB", 1ull << 40},
	    {"KB", 1000ull},
	    {"MB", 1000000ull},
	    {"GB", 1000000000ull},
	    {"TB", 1000000000000ull},
	};
	size_t i;
	for (i = 0; i < LOCUS__ARRAY_LEN(sufs); i++)
		if (strcmp(suf, sufs[i].s) == 0)
			break;
	if (i == LOCUS__ARRAY_LEN(sufs))
		return LOCUS_EPARSE;
	mul = sufs[i].m;
	if (v && mul > UINT64_MAX / v)
		return LOCUS_ERANGE;
	*out = v * mul;
	return 0;
}

/* ---- files ------------------------------------------------------------- */

int locus__write_atomic(const char *path, const void *data, size_t n, struct locus_error *err)
{
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 32);
	if (!tmp)
		return locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
	snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;
		free(tmp);
		return locus__err(err, LOCUS_EIO, path, 0, 0,
				  "cannot create a temporary file next to it: %s", strerror(e));
	}
	const char *p = data;
	size_t left = n;
	int e = 0;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			break;
		}
		p += w;
		left -= (size_t)w;
	}
	if (!e && fsync(fd) != 0)
		e = errno;
	if (close(fd) != 0 && !e)
		e = errno;
	if (!e && rename(tmp, path) != 0)
		e = errno;
	if (e) {
		unlink(tmp);
		free(tmp);
		return locus__err(err, LOCUS_EIO, path, 0, 0, "cannot write: %s", strerror(e));
	}
	free(tmp);
	return 0;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) ? -1 : 0;
}

int locus__rmtree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : LOCUS_EIO;
	return nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS) ? LOCUS_EIO : 0;
}

int locus__mkdirs(const char *path, struct locus_error *err)
{
	char *p = locus__strdup(path);
	if (!p)
		return locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
	for (char *s = p + 1;; s++) {
		if (*s == '/' || *s == 0) {
			char c = *s;
			*s = 0;
			if (mkdir(p, 0755) != 0 && errno != EEXIST) {
				int e = errno;
				int rc = locus__err(err, LOCUS_EIO, p, 0, 0,
						    "cannot create directory: %s", strerror(e));
				free(p);
				return rc;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return 0;
}

int locus__read_file_max(char **text, size_t *len, const char *path, size_t max,
			 struct locus_error *err)
{
	*text = NULL;
	*len = 0;
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return locus__err(err, errno == ENOENT ? LOCUS_ENOENT : LOCUS_EIO, path, 0, 0,
				  "cannot open: %s", strerror(errno));
	/* A regular file says its size; a pipe, a terminal or a device
	 * (/dev/zero) is read up to the same limit and no further. */
	struct stat st;
	int big = fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) &&
		  (uint64_t)st.st_size > (uint64_t)max;
	struct locus__buf b = {0};
	int rc = 0;
	while (!big) {
		/* Straight into the buffer, one byte more than max at most
		 * (the byte that says the input is larger). */
		if ((rc = locus__grow(&b.data, &b.cap, b.len + 65536 + 1, 1)))
			break;
		size_t room = b.cap - b.len - 1;
		if (room - 1 > max - b.len)
			room = max - b.len + 1;
		size_t n = fread(b.data + b.len, 1, room, fp);
		if (!n)
			break;
		b.len += n;
		big = b.len > max;
	}
	if (b.data)
		b.data[b.len] = 0;
	int e = !big && !rc && ferror(fp) ? (errno ? errno : EIO) : 0;
	fclose(fp);
	if (rc || e || big) {
		locus__buf_fini(&b);
		if (big) {
			/* The limit in GiB or MiB where it is a whole number of them. */
			int shift = max % ((size_t)1 << 30) == 0   ? 30
				    : max % ((size_t)1 << 20) == 0 ? 20
								   : 0;
			const char *unit = shift == 30 ? "GiB" : shift == 20 ? "MiB" : "bytes";
			return locus__err(err, LOCUS_ERANGE, path, 0, 0,
					  "more than %zu %s: expected at most that much in one "
					  "input (a file, a pipe or a device)",
					  max >> shift, unit);
		}
		return rc ? locus__err(err, rc, path, 0, 0, "out of memory")
			  : locus__err(err, LOCUS_EIO, path, 0, 0, "cannot read: %s", strerror(e));
	}
	*text = b.data;
	*len = b.len;
	return 0;
}

int locus__read_file(char **text, size_t *len, const char *path, struct locus_error *err)
{
	return locus__read_file_max(text, len, path, LOCUS_READ_MAX, err);
}

/* ---- the public forms (locus/files.h) ------------------------------------ */

int locus_read_file(char **text, size_t *len, const char *path, struct locus_error *err)
{
	return locus__read_file(text, len, path, err);
}

int locus_write_atomic(const char *path, const void *data, size_t n, struct locus_error *err)
{
	return locus__write_atomic(path, data, n, err);
}

int locus_mkdirs(const char *path, struct locus_error *err)
{
	return locus__mkdirs(path, err);
}

int locus_parse_size(const char *s, uint64_t *out)
{
	return locus__parse_size(s, out);
}

int locus_parse_u64(const char *s, size_t n, uint64_t *out)
{
	return locus__parse_u64(s, n, out);
}

const char *locus__visible(const char *s, size_t n, char *buf, size_t size)
{
	size_t o = 0;
	if (!size)
		return buf;
	for (size_t k = 0; k < n && s[k] && o + 5 < size; k++) {
		unsigned char ch = (unsigned char)s[k];
		if (ch < 0x20 || ch > 0x7e)
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", ch);
		else
			buf[o++] = (char)ch;
	}
	buf[o] = 0;
	return buf;
}
