/*
 * Host map: datanode addresses to host names, read from an /etc/hosts-style
 * file.
 *
 *   # comment
 *   10.1.0.11   dn1.cluster.example   dn1     # trailing comment
 *   ::1         localhost
 *
 * Addresses are validated and canonicalised with inet_pton/inet_ntop, so
 * "0:0:0:0:0:0:0:1" and "::1" are one key. The first name of a line is the
 * host name; aliases are checked but not used. When an address appears on
 * two lines the first wins, as in the resolver.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/locality.h"

struct locus_hostmap {
	struct locus__strmap index; /* canonical address -> index in names */
	char **names;
	size_t n_names;
	size_t names_cap;
};

/* Longest address text we try to convert (IPv6 with an embedded IPv4). */
#define ADDR_MAX 64

/*
 * Writes the canonical text of address s[0..n) into `out` (ADDR_MAX bytes).
 * Returns 0, or -1 when it is neither an IPv4 nor an IPv6 address.
 */
static int canonical_addr(const char *s, size_t n, char *out)
{
	char tmp[ADDR_MAX];
	unsigned char bin[sizeof(struct in6_addr)];

	if (n == 0 || n >= sizeof tmp || memchr(s, 0, n))
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	if (inet_pton(AF_INET, tmp, bin) == 1)
		return inet_ntop(AF_INET, bin, out, ADDR_MAX) ? 0 : -1;
	if (inet_pton(AF_INET6, tmp, bin) == 1)
		return inet_ntop(AF_INET6, bin, out, ADDR_MAX) ? 0 : -1;
	return -1;
}

static int is_addr_char(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') ||
	       c == '.' || c == ':';
}

static int is_name_char(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '-' || c == '.' || c == '_';
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* Adds `addr` -> name s[0..n) unless the address is already mapped. */
static int map_add(struct locus_hostmap *m, const char *addr, const char *s, size_t n)
{
	if (locus__strmap_get(&m->index, addr, NULL))
		return 0;
	if (locus__grow(&m->names, &m->names_cap, m->n_names + 1, sizeof *m->names))
		return LOCUS_ENOMEM;
	char *name = locus__strndup(s, n);
	if (!name)
		return LOCUS_ENOMEM;
	if (locus__strmap_put(&m->index, addr, m->n_names)) {
		free(name);
		return LOCUS_ENOMEM;
	}
	m->names[m->n_names++] = name;
	return 0;
}

/* Parses one line (comment already cut off). Returns 0 or an error code. */
static int parse_line(struct locus_hostmap *m, const char *s, size_t n, const char *file, long line,
		      struct locus_error *err)
{
	size_t i = 0;

	while (i < n && is_blank(s[i]))
		i++;
	if (i == n)
		return 0;

	size_t a0 = i;
	while (i < n && !is_blank(s[i]))
		i++;
	size_t alen = i - a0;
	for (size_t k = a0; k < i; k++)
		if (!is_addr_char((unsigned char)s[k]))
			return locus__err(err, LOCUS_EPARSE, file, line, (long)k + 1,
					  "expected an IPv4 or IPv6 address, got \"%.*s\" "
					  "(invalid character)",
					  (int)(alen > 60 ? 60 : alen), s + a0);
	char addr[ADDR_MAX];
	if (canonical_addr(s + a0, alen, addr))
		return locus__err(err, LOCUS_EPARSE, file, line, (long)a0 + 1,
				  "expected an IPv4 or IPv6 address, got \"%.*s\"",
				  (int)(alen > 60 ? 60 : alen), s + a0);

	/* The host name, then aliases: all must be well-formed names. */
	size_t name0 = 0, name_len = 0;
	int names = 0;
	for (;;) {
		while (i < n && is_blank(s[i]))
			i++;
		if (i == n)
			break;
		size_t t0 = i;
		while (i < n && !is_blank(s[i]))
			i++;
		for (size_t k = t0; k < i; k++)
			if (!is_name_char((unsigned char)s[k]))
				return locus__err(err, LOCUS_EPARSE, file, line, (long)k + 1,
						  "expected a host name (letters, digits, '-', "
						  "'.', '_'), got \"%.*s\"",
						  (int)(i - t0 > 60 ? 60 : i - t0), s + t0);
		if (!names++) {
			name0 = t0;
			name_len = i - t0;
		}
	}
	if (!names)
		return locus__err(err, LOCUS_EPARSE, file, line, (long)i + 1,
				  "expected a host name after the address \"%s\"", addr);
	if (map_add(m, addr, s + name0, name_len))
		return locus__err(err, LOCUS_ENOMEM, file, line, 0, "out of memory");
	return 0;
}

int locus_hostmap_parse(struct locus_hostmap **out, const char *text, size_t len, const char *name,
			struct locus_error *err)
{
	if (!out)
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no result pointer");
	*out = NULL;
	if (!text && len)
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no text");

	struct locus_hostmap *m = calloc(1, sizeof *m);
	if (!m)
		return locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
	locus__strmap_init(&m->index);

	size_t pos = 0, n;
	const char *s;
	long line = 0;
	int rc = 0;
	while (!rc && locus__next_line(text, len, &pos, &s, &n)) {
		line++;
		const char *hash = memchr(s, '#', n);
		if (hash)
			n = (size_t)(hash - s);
		rc = parse_line(m, s, n, name, line, err);
	}
	if (rc) {
		locus_hostmap_destroy(m);
		return rc;
	}
	*out = m;
	return 0;
}

int locus_hostmap_load(struct locus_hostmap **out, const char *path, struct locus_error *err)
{
	char *text;
	size_t len;

	if (!out)
		return locus__err(err, LOCUS_EINVAL, path, 0, 0, "no result pointer");
	*out = NULL;
	int rc = locus_read_file(&text, &len, path, err);
	if (rc)
		return rc;
	rc = locus_hostmap_parse(out, text, len, path, err);
	free(text);
	return rc;
}

const char *locus_hostmap_lookup(const struct locus_hostmap *map, const char *addr)
{
	if (!map || !addr)
		return NULL;

	/* Strip the port: "[v6]:port", "v4:port"; a bare IPv6 address has
	 * several colons and no port. */
	const char *a = addr;
	size_t n = strlen(addr);
	const char *port = NULL;
	if (n && a[0] == '[') {
		const char *close = memchr(a, ']', n);
		if (!close)
			return NULL;
		if (close[1] == ':')
			port = close + 2;
		else if (close[1])
			return NULL;
		n = (size_t)(close - a) - 1;
		a++;
	} else {
		const char *colon = strchr(a, ':');
		if (colon && !strchr(colon + 1, ':')) {
			port = colon + 1;
			n = (size_t)(colon - a);
		}
	}
	if (port) {
		size_t k = strspn(port, "0123456789");
		if (k == 0 || port[k])
			return NULL;
	}

	char key[ADDR_MAX];
	size_t idx;
	if (canonical_addr(a, n, key) || !locus__strmap_get(&map->index, key, &idx))
		return NULL;
	return map->names[idx];
}

void locus_hostmap_destroy(struct locus_hostmap *map)
{
	if (!map)
		return;
	for (size_t i = 0; i < map->n_names; i++)
		free(map->names[i]);
	free(map->names);
	locus__strmap_fini(&map->index);
	free(map);
}
