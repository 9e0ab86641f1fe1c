/*
 * libFuzzer target for the journal of a workflow run
 * (locus_flow_journal_parse) of a small fixed workflow: each input either
 * fails cleanly (nothing kept, an error with its code and a line) or says
 * of each task done or not and of each file nothing or a non-empty place.
 */
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

static struct locus_graph *workflow(void)
{
	static struct locus_graph *g;
	static const char text[] = "b: a\n\tcp a b\n'c\td': a b\n\tcat a b > c\n";
	struct locus_error err;
	if (!g && locus_flow_read_makeflow(&g, text, strlen(text), "fuzz", NULL, &err))
		abort();
	return g;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct locus_graph *g = workflow();
	struct locus_flow_journal j;
	struct locus_error err = {0};
	int rc = locus_flow_journal_parse(&j, g, (const char *)data, size, "fuzz", &err);
	if (rc) {
		check(!j.done && !j.place && !j.bytes && !j.sum);
		check(err.code == rc && (rc == LOCUS_ENOMEM || err.line >= 1));
		return 0;
	}
	check(j.n_tasks == g->n_tasks && j.n_objects == g->n_objects);
	for (size_t t = 0; t < j.n_tasks; t++)
		check(j.done[t] <= 1);
	for (size_t o = 0; o < j.n_objects; o++)
		check(!j.place[o] || j.place[o][0]);
	locus_flow_journal_fini(&j);
	return 0;
}
