/*
 * A task graph named by a spec: "stg:FILE", "text:FILE", "wfcommons:FILE",
 * or a FILE whose format its first significant character tells (as
 * locus_source_open tells a catalog from fsck output).
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/dag.h"
#include "locus/files.h"

enum format { F_UNKNOWN, F_STG, F_TEXT, F_WFCOMMONS };

static const struct {
	const char *prefix;
	enum format format;
} prefixes[] = {{"stg:", F_STG}, {"text:", F_TEXT}, {"wfcommons:", F_WFCOMMONS}};

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

size_t locus__first_significant(const char *s, size_t n, long *line, long *col)
{
	size_t i = 0;
	long ln = 1, c0 = 0;
	/* Columns count from after a byte-order mark, as the readers'. */
	i = locus__bom_len(s, n);
	c0 = (long)i;
	while (i < n) {
		if (s[i] == '\n') {
			ln++;
			c0 = (long)i + 1;
			i++;
		} else if (is_blank(s[i])) {
			i++;
		} else if (s[i] == '#') {
			while (i < n && s[i] != '\n')
				i++;
		} else {
			break;
		}
	}
	*line = ln;
	*col = (long)i - c0 + 1;
	return i;
}

/* The format the first significant character says. */
static enum format sniff(const char *s, size_t n, long *line, long *col)
{
	size_t i = locus__first_significant(s, n, line, col);
	if (i >= n)
		return F_UNKNOWN;
	if (s[i] == '{')
		return F_WFCOMMONS;
	if (s[i] >= '0' && s[i] <= '9')
		return F_STG;
	if (n - i >= 5 && memcmp(s + i, "tasks", 5) == 0 && (n - i == 5 || is_blank(s[i + 5])))
		return F_TEXT;
	return F_UNKNOWN;
}

int locus__dag_load_text(struct locus_graph **out, const char *text, size_t len, const char *path,
			 int format, struct locus_error *err)
{
	enum format f = (enum format)format;
	*out = NULL;
	if (f == F_UNKNOWN) {
		long line, col;
		f = sniff(text, len, &line, &col);
		if (f == F_UNKNOWN)
			return locus__err(err, LOCUS_EPARSE, path, line, col,
					  len ? "expected a task graph: WfCommons JSON ('{'), the "
						"text form ('tasks N procs P') or STG (the number "
						"of tasks); or name the format: stg:, text:, "
						"wfcommons:"
					      : "empty file: expected a task graph");
	}
	switch (f) {
	case F_STG:
		return locus_dag_read_stg(out, text, len, path, err);
	case F_TEXT:
		return locus_dag_read_text(out, text, len, path, err);
	default:
		return locus_dag_read_wfcommons(out, text, len, path, err);
	}
}

int locus_dag_load(struct locus_graph **out, const char *spec, struct locus_error *err)
{
	if (!out || !spec)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no graph named");
	*out = NULL;
	enum format f = F_UNKNOWN;
	const char *path = spec;
	for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++) {
		size_t n = strlen(prefixes[k].prefix);
		if (strncmp(spec, prefixes[k].prefix, n) == 0) {
			f = prefixes[k].format;
			path = spec + n;
		}
	}
	if (!*path)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "graph \"%s\": no file named",
				  spec);
	/* Read once, then told and parsed from memory: a pipe is read once. */
	char *text = NULL;
	size_t len = 0;
	int rc = locus_read_file(&text, &len, path, err);
	if (rc)
		return rc;
	rc = locus__dag_load_text(out, text, len, path, f, err);
	free(text);
	return rc;
}
