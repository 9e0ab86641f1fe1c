/*
 * libFuzzer target for the platform reader: any input either fails
 * cleanly or gives a platform that keeps the reader's promises. On
 * success it also checks that the name index answers every query as the
 * plain scan does, and that host matching is symmetric.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static int clean(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* find() with the index must agree with find() by scanning. */
static void same_find(const struct locus_platform *p, const char *q)
{
	struct locus_platform scan = *p;

	scan.index = NULL;
	check(locus_platform_find(p, q) == locus_platform_find(&scan, q));
}

static void check_queries(const struct locus_platform *p, size_t i)
{
	const char *name = p->nodes[i].name;
	size_t n = strlen(name);
	char *q = malloc(n + 8);

	check(q != NULL);
	check(locus_platform_find(p, name) == (long)i);
	for (size_t k = 0; k <= n; k++)
		q[k] = (name[k] >= 'a' && name[k] <= 'z') ? (char)(name[k] - 32) : name[k];
	check(locus_platform_find(p, q) == (long)i);
	memcpy(q, name, n);
	memcpy(q + n, ".fz.org", 8);
	same_find(p, q);
	q[strcspn(name, ".")] = 0;
	same_find(p, q);
	check(locus_host_match(name, q) == locus_host_match(q, name));
	if (i > 0)
		check(locus_host_match(name, p->nodes[i - 1].name) ==
		      locus_host_match(p->nodes[i - 1].name, name));
	free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct locus_platform *p = (struct locus_platform *)&size;
	struct locus_error err;
	size_t cores = 0;
	int rc;

	locus_error_clear(&err);
	rc = locus_platform_parse(&p, (const char *)data, size, "fuzz.json", &err);
	if (rc) {
		check(rc < 0 && p == NULL && err.code == rc && err.message[0]);
		return 0;
	}
	check(p != NULL && p->n_nodes >= 1);
	check(p->latency >= 0 && isfinite(p->latency));
	check(p->backbone_bw >= 0 && isfinite(p->backbone_bw));
	check(p->rack_bw >= 0 && isfinite(p->rack_bw));
	for (size_t i = 0; i < p->n_nodes; i++) {
		const struct locus_node *nd = &p->nodes[i];
		check(clean(nd->name) && nd->name[0] != '.');
		check(clean(nd->rack) && nd->rack[0] == '/');
		check(nd->cores >= 0 && nd->max_transfers >= 0);
		check(nd->speed > 0 && nd->disk_bw > 0 && nd->net_bw > 0);
		check(isfinite(nd->speed) && isfinite(nd->disk_bw) && isfinite(nd->net_bw));
		cores += (size_t)nd->cores;
		/* Every name is found, as itself and in capitals; the first
		 * nodes also against the scan. */
		if (i < 64 || i + 1 == p->n_nodes)
			check_queries(p, i);
	}
	check(locus_platform_cores(p) == cores);
	locus_platform_destroy(p);
	return 0;
}
