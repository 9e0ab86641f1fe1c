/*
 * Option lists: "key=value,key=value" as policies take them ("delay=0.5,
 * tau=2"). The getters mark what they read, so that a key no one asked for
 * is caught (locus_kv_unused) and named in the error.
 *
 * The caller owns the struct (locus_kv_parse fills it, locus_kv_fini
 * frees what it allocated).
 */
#ifndef LOCUS_KV_H
#define LOCUS_KV_H

#include <stddef.h>

#include "locus/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct locus_kv {
	size_t n;
	char **keys, **vals;
	unsigned char *used; /* set by the getters, so unknown keys are caught */
};
int locus_kv_parse(struct locus_kv *kv, const char *text, struct locus_error *err);
void locus_kv_fini(struct locus_kv *kv);
/* Reads `key` as a number, or `def` when absent. LOCUS_EINVAL (with a
 * message) when present but not a number in [min, max]. */
int locus_kv_double(struct locus_kv *kv, const char *key, double def, double min, double max,
		    double *out, struct locus_error *err);
/* Reads `key` as one of the NULL-terminated `names` (*out its index), or
 * `def` when absent. LOCUS_EINVAL (naming the choices) otherwise. */
int locus_kv_choice(struct locus_kv *kv, const char *key, const char *const *names, int def,
		    int *out, struct locus_error *err);
/* The value of `key` (its last occurrence, borrowed from kv), or `def`
 * when absent. */
const char *locus_kv_string(struct locus_kv *kv, const char *key, const char *def);
/* The first key no getter asked for, or NULL. */
const char *locus_kv_unused(const struct locus_kv *kv);

#ifdef __cplusplus
}
#endif
#endif
