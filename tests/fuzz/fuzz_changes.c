/*
 * libFuzzer target for scenarios (platform changes over time) against a
 * platform of four nodes n01..n04: the input is read as a scenario, its
 * first line as a --fail spec, and its first bytes as a variability for
 * the generator (on a shared and on a contention-free platform). Each
 * either fails cleanly (no result, an error with its code) or gives what
 * its reader promises; every speed trace reads as the same speed changes;
 * the lists merge into a sorted one.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static struct locus_platform *shared, *pairs;

static void check_value(const struct locus_change *c)
{
	switch (c->kind) {
	case LOCUS_CHANGE_AVAIL:
		check(c->value > 0 && c->value <= 1);
		break;
	case LOCUS_CHANGE_SPEED:
	case LOCUS_CHANGE_BANDWIDTH:
	case LOCUS_CHANGE_LINK:
		check(c->value > 0 && isfinite(c->value));
		break;
	case LOCUS_CHANGE_FAIL:
	case LOCUS_CHANGE_RECOVER:
		check(c->value == 0);
		break;
	default:
		check(0);
	}
	if (c->kind == LOCUS_CHANGE_LINK)
		check(c->node < c->node2 && c->node2 < shared->n_nodes);
	else
		check(c->node2 == LOCUS_NONE);
	check(c->node < shared->n_nodes);
	check(c->time >= 0 && isfinite(c->time) && !signbit(c->time));
}

static void check_sorted(const struct locus_change *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		check_value(&c[i]);
		check(i == 0 || c[i].time >= c[i - 1].time);
	}
}

static struct locus_change *scenario(const char *text, size_t size, size_t *n)
{
	struct locus_change *c = (void *)&c;
	struct locus_error err = {0};
	*n = 99;
	int rc = locus_changes_parse(&c, n, shared, text, size, "fuzz", &err);
	if (rc) {
		check(c == NULL && *n == 0 && err.code == rc && rc == LOCUS_EPARSE);
		check(err.line > 0 && err.column > 0 && err.message[0]);
	} else {
		check((c == NULL) == (*n == 0));
		check_sorted(c, *n);
		/* Fail and recover alternate, from up. */
		int down[4] = {0};
		for (size_t i = 0; i < *n; i++) {
			if (c[i].kind == LOCUS_CHANGE_FAIL)
				check(!down[c[i].node]++);
			if (c[i].kind == LOCUS_CHANGE_RECOVER)
				check(down[c[i].node]--);
		}
	}
	/* What the speed-trace reader takes, this one takes the same. */
	struct locus_speed_change *sc;
	size_t ns;
	if (!locus_speed_trace_parse(&sc, &ns, shared, text, size, "fuzz", &err)) {
		check(rc == 0 && ns == *n);
		for (size_t i = 0; i < ns; i++)
			check(c[i].kind == LOCUS_CHANGE_SPEED && c[i].time == sc[i].time &&
			      c[i].node == sc[i].node && c[i].value == sc[i].speed);
		free(sc);
	}
	return c;
}

static int fail_spec(const char *text, size_t size, struct locus_change f[2])
{
	const char *nl = memchr(text, '\n', size);
	size_t a = nl ? (size_t)(nl - text) : size;
	char *spec = strndup(text, a);
	struct locus_error err = {0};
	if (!spec)
		abort();
	int k = locus_change_parse_fail(f, shared, spec, &err);
	free(spec);
	if (k < 0) {
		check(k == LOCUS_EPARSE && err.code == k && err.message[0]);
		return 0;
	}
	check(k == 1 || k == 2);
	check(f[0].kind == LOCUS_CHANGE_FAIL);
	check_value(&f[0]);
	if (k == 2) {
		check(f[1].kind == LOCUS_CHANGE_RECOVER && f[1].node == f[0].node);
		check_value(&f[1]);
		check(f[1].time > f[0].time);
	}
	return k;
}

static struct locus_change *generated(const uint8_t *d, size_t size, size_t *n)
{
	uint8_t b[12] = {0};
	memcpy(b, d, size < sizeof b ? size : sizeof b);
	uint64_t seed = 0;
	for (int i = 4; i < 12; i++)
		seed = seed << 8 | b[i];
	struct locus_variability v = {b[0] / 256.0, 1 + b[1], b[2], b[3] & 1, seed};
	const struct locus_platform *p = b[3] & 2 ? pairs : shared;
	struct locus_change *c, *again;
	size_t n2;
	struct locus_error err = {0};
	check(locus_changes_generate(&c, n, p, &v, &err) == 0);
	check(locus_changes_generate(&again, &n2, p, &v, &err) == 0);
	check(*n == n2 && (!*n || memcmp(c, again, *n * sizeof *c) == 0));
	free(again);
	for (size_t i = 0; i < *n; i++) {
		check(c[i].kind == LOCUS_CHANGE_AVAIL ||
		      (v.links &&
		       c[i].kind == (p == pairs ? LOCUS_CHANGE_LINK : LOCUS_CHANGE_BANDWIDTH)));
		check(c[i].value >= 1 - v.bound && c[i].value <= 1);
		check(c[i].time < v.horizon);
		if (c[i].kind != LOCUS_CHANGE_BANDWIDTH)
			check(p->nodes[c[i].node].cores > 0);
		if (c[i].kind == LOCUS_CHANGE_LINK)
			check(p->nodes[c[i].node2].cores > 0);
	}
	check_sorted(c, *n);
	if (v.bound == 0)
		check(*n == 0);
	return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!shared) {
		if (locus_platform_generate(&shared, 4, 2, 1, "n") ||
		    locus_platform_generate(&pairs, 4, 2, 1, "n"))
			abort();
		locus_platform_set_pairs(pairs, 1e9, 0);
		pairs->nodes[3].cores = 0;
	}
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);
	size_t ns, ng, nm, nm2;
	struct locus_change f[2], *s = scenario(text, size, &ns), *g = generated(data, size, &ng);
	int nf = memchr(text, 0, size) ? 0 : fail_spec(text, size, f);
	struct locus_change *m, *m2;
	check(locus_changes_merge(&m, &nm, s, ns, g, ng) == 0 && nm == ns + ng);
	check_sorted(m, nm);
	check(locus_changes_merge(&m2, &nm2, m, nm, f, (size_t)nf) == 0 && nm2 == nm + (size_t)nf);
	check_sorted(m2, nm2);
	free(m);
	free(m2);
	free(s);
	free(g);
	free(text);
	return 0;
}
