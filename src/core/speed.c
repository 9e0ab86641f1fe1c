/*
 * Speed traces: a platform's node speeds over time, as a text of
 * "TIME NODE SPEED" lines (docs/formats.md): node NODE runs at relative
 * speed SPEED from TIME seconds on. Blank lines and lines starting with
 * '#' are skipped; times must not decrease.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/platform.h"

int locus_speed_trace_parse(struct locus_speed_change **out, size_t *n,
			    const struct locus_platform *p, const char *text, size_t len,
			    const char *name, struct locus_error *err)
{
	size_t pos = 0, ln, cap = 0;
	const char *line;
	long lineno = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	while (!rc && locus__next_line(text, len, &pos, &line, &ln)) {
		struct locus__field f[3];
		double t, s;
		char node[256];
		lineno++;
		size_t k = locus__split_fields(line, ln, f, 3);
		if (k == 0)
			continue;
		if (k != 3) {
			rc = locus__err(err, LOCUS_EPARSE, name, lineno, k > 3 ? 0 : 1,
					"expected \"TIME NODE SPEED\" (%zu field%s)", k,
					k == 1 ? "" : "s");
			break;
		}
		if (locus__field_number(&f[0], &t) || t < 0) {
			rc = locus__err(err, LOCUS_EPARSE, name, lineno, f[0].col,
					"expected a time in seconds >= 0");
			break;
		}
		if (locus__field_number(&f[2], &s) ||
		    !(s >= LOCUS_SPEED_MIN && s <= LOCUS_SPEED_MAX)) {
			rc = locus__err(err, LOCUS_EPARSE, name, lineno, f[2].col,
					"expected a speed in [%g, %g]", LOCUS_SPEED_MIN,
					LOCUS_SPEED_MAX);
			break;
		}
		long idx = -1;
		if (f[1].n < sizeof node && !memchr(f[1].s, 0, f[1].n)) {
			memcpy(node, f[1].s, f[1].n);
			node[f[1].n] = 0;
			idx = locus_platform_find(p, node);
		}
		if (idx < 0) {
			rc = locus__err(err, LOCUS_EPARSE, name, lineno, f[1].col,
					"no node \"%.*s\" in the platform",
					(int)(f[1].n < 64 ? f[1].n : 64), f[1].s);
			break;
		}
		if (*n && t < (*out)[*n - 1].time) {
			rc = locus__err(err, LOCUS_EPARSE, name, lineno, f[0].col,
					"times must not decrease (%g after %g)", t,
					(*out)[*n - 1].time);
			break;
		}
		if (locus__grow(out, &cap, *n + 1, sizeof **out)) {
			rc = locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
			break;
		}
		(*out)[(*n)++] = (struct locus_speed_change){t, (uint32_t)idx, s};
	}
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

int locus_speed_trace_load(struct locus_speed_change **out, size_t *n,
			   const struct locus_platform *p, const char *path,
			   struct locus_error *err)
{
	char *text;
	size_t len;
	*out = NULL;
	*n = 0;
	int rc = locus__read_file(&text, &len, path, err);
	if (rc)
		return rc;
	rc = locus_speed_trace_parse(out, n, p, text, len, path, err);
	free(text);
	return rc;
}
