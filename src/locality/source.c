/* Opening a source of block locations from a URI-like string. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/internal.h"
#include "locus/locality.h"

/* Splits "kind:path?k=v&k=v" into its parts (copies in *buf). */
struct spec {
	char *kind; /* NULL when the spec is a bare path */
	char *path;
	char *hosts;
	char *dataset;
};

static int parse_spec(const char *s, char **buf, struct spec *sp, struct locus_error *err)
{
	memset(sp, 0, sizeof *sp);
	*buf = locus__strdup(s);
	if (!*buf)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	char *p = *buf;
	static const char *kinds[] = {"catalog", "fsck", "webhdfs", "store"};
	for (size_t i = 0; i < LOCUS__ARRAY_LEN(kinds); i++) {
		size_t k = strlen(kinds[i]);
		if (strncmp(p, kinds[i], k) == 0 && p[k] == ':') {
			sp->kind = p;
			p[k] = 0;
			p += k + 1;
			break;
		}
	}
	sp->path = p;
	char *q = strchr(p, '?');
	if (q && sp->kind) {
		*q++ = 0;
		while (q && *q) {
			char *amp = strchr(q, '&');
			if (amp)
				*amp = 0;
			char *eq = strchr(q, '=');
			if (!eq)
				return locus__err(
				    err, LOCUS_EINVAL, NULL, 0, 0,
				    "source \"%s\": expected KEY=VALUE after '?', got \"%s\"", s,
				    q);
			*eq = 0;
			if (strcmp(q, "hosts") == 0)
				sp->hosts = eq + 1;
			else if (strcmp(q, "dataset") == 0)
				sp->dataset = eq + 1;
			else
				return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
						  "source \"%s\": unknown option \"%s\" (expected "
						  "hosts= or dataset=)",
						  s, q);
			q = amp ? amp + 1 : NULL;
		}
	}
	if (!*sp->path)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "source \"%s\": expected a path",
				  s);
	return 0;
}

/* Guesses the reader of a file from its first bytes. */
static const char *sniff(const char *text, size_t len)
{
	size_t i = 0;
	while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
		i++;
	if (len - i >= strlen(LOCUS_CATALOG_MAGIC) &&
	    memcmp(text + i, LOCUS_CATALOG_MAGIC, strlen(LOCUS_CATALOG_MAGIC)) == 0)
		return "catalog";
	if (i < len && (text[i] == '{' || text[i] == '['))
		return "webhdfs";
	return "fsck";
}

int locus_source_open(struct locus_catalog **out, const char *spec_text, struct locus_error *err)
{
	struct spec sp;
	char *buf = NULL, *text = NULL;
	size_t len = 0;
	struct locus_hostmap *hosts = NULL;
	*out = NULL;
	int rc = parse_spec(spec_text, &buf, &sp, err);
	if (rc)
		goto done;
	struct stat st;
	if (stat(sp.path, &st) != 0) {
		rc = locus__err(err, LOCUS_ENOENT, sp.path, 0, 0, "cannot open: %s",
				strerror(errno));
		goto done;
	}
	const char *kind = sp.kind;
	if (!kind && S_ISDIR(st.st_mode))
		kind = "store";
	if (kind && strcmp(kind, "store") == 0) {
		if (sp.hosts || sp.dataset) {
			rc = locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
					"source \"%s\": a store takes no options", spec_text);
			goto done;
		}
		rc = locus_store_scan(out, sp.path, err);
		goto done;
	}
	if ((rc = locus_read_file(&text, &len, sp.path, err)))
		goto done;
	if (!kind)
		kind = sniff(text, len);
	if (sp.hosts && (rc = locus_hostmap_load(&hosts, sp.hosts, err)))
		goto done;
	if (strcmp(kind, "catalog") == 0) {
		if (sp.hosts || sp.dataset)
			rc = locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
					"source \"%s\": a catalog takes no options", spec_text);
		else
			rc = locus_catalog_parse(out, text, len, sp.path, err);
	} else if (strcmp(kind, "fsck") == 0) {
		if (sp.dataset)
			rc = locus__err(
			    err, LOCUS_EINVAL, NULL, 0, 0,
			    "source \"%s\": fsck output names its files; dataset= does not apply",
			    spec_text);
		else
			rc = locus_fsck_parse(out, text, len, sp.path, hosts, err);
	} else {
		rc = locus_webhdfs_parse(out, text, len, sp.path, sp.dataset, hosts, err);
	}
	locus_log(LOCUS_LOG_LOCALITY, "source %s read as %s: %s", spec_text, kind,
		  rc ? "failed" : "ok");
done:
	locus_hostmap_destroy(hosts);
	free(text);
	free(buf);
	return rc;
}
