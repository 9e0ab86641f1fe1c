/* key=value option lists for policies ("delay=0.5,tau=2"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/kv.h"

int locus_kv_parse(struct locus_kv *kv, const char *text, struct locus_error *err)
{
	memset(kv, 0, sizeof *kv);
	if (!text || !*text)
		return 0;
	size_t cap = 0;
	const char *p = text;
	while (*p) {
		size_t n = strcspn(p, ",");
		const char *eq = memchr(p, '=', n);
		if (!eq || eq == p || eq + 1 == p + n) {
			locus_kv_fini(kv);
			return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
					  "policy option \"%.*s\": expected KEY=VALUE", (int)n, p);
		}
		if (locus__grow(&kv->keys, &cap, kv->n + 1, sizeof *kv->keys)) {
			locus_kv_fini(kv);
			return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		}
		size_t c2 = cap;
		/* vals and used grow with keys. */
		char **v = locus__reallocarray(kv->vals, c2, sizeof *v);
		unsigned char *u = v ? locus__reallocarray(kv->used, c2, 1) : NULL;
		if (v)
			kv->vals = v;
		if (u)
			kv->used = u;
		if (!v || !u) {
			locus_kv_fini(kv);
			return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		}
		kv->keys[kv->n] = locus__strndup(p, (size_t)(eq - p));
		kv->vals[kv->n] = locus__strndup(eq + 1, (size_t)(p + n - eq - 1));
		kv->used[kv->n] = 0;
		kv->n++;
		if (!kv->keys[kv->n - 1] || !kv->vals[kv->n - 1]) {
			locus_kv_fini(kv);
			return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

void locus_kv_fini(struct locus_kv *kv)
{
	for (size_t i = 0; i < kv->n; i++) {
		free(kv->keys[i]);
		free(kv->vals[i]);
	}
	free(kv->keys);
	free(kv->vals);
	free(kv->used);
	memset(kv, 0, sizeof *kv);
}

/* The value of `key` (its last occurrence), or NULL; every occurrence
 * counts as used. */
static const char *kv_value(struct locus_kv *kv, const char *key)
{
	const char *v = NULL;
	for (size_t k = 0; kv && k < kv->n; k++)
		if (strcmp(kv->keys[k], key) == 0) {
			kv->used[k] = 1;
			v = kv->vals[k];
		}
	return v;
}

int locus_kv_double(struct locus_kv *kv, const char *key, double def, double min, double max,
		    double *out, struct locus_error *err)
{
	const char *val = kv_value(kv, key);
	char *end;
	*out = def;
	if (!val)
		return 0;
	double v = strtod(val, &end);
	if (!*val || *end || isnan(v) || v < min || v > max)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy option %s=%s: expected a number from %g to %g", key, val,
				  min, max);
	*out = v;
	return 0;
}

int locus_kv_choice(struct locus_kv *kv, const char *key, const char *const *names, int def,
		    int *out, struct locus_error *err)
{
	const char *val = kv_value(kv, key);
	*out = def;
	if (!val)
		return 0;
	for (int c = 0; names[c]; c++)
		if (strcmp(val, names[c]) == 0) {
			*out = c;
			return 0;
		}
	char allowed[200] = "";
	for (int c = 0; names[c]; c++) {
		size_t at = strlen(allowed);
		snprintf(allowed + at, sizeof allowed - at, "%s%s", c ? ", " : "", names[c]);
	}
	return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "policy option %s=%s: expected one of %s",
			  key, val, allowed);
}

const char *locus_kv_string(struct locus_kv *kv, const char *key, const char *def)
{
	const char *val = kv_value(kv, key);
	return val ? val : def;
}

const char *locus_kv_unused(const struct locus_kv *kv)
{
	for (size_t i = 0; kv && i < kv->n; i++)
		if (!kv->used[i])
			return kv->keys[i];
	return NULL;
}
