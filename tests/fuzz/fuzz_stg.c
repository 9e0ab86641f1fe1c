/*
 * libFuzzer target for the STG reader: an input either fails cleanly (no
 * graph, an error with its code) or gives a finished acyclic graph whose
 * STG form reads back as the same graph and writes the same bytes again.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct locus_graph *g = (struct locus_graph *)1, *h = NULL;
	struct locus_error err = {0};
	int rc = locus_dag_read_stg(&g, (const char *)data, size, "fuzz.stg", &err);
	if (rc) {
		dag_check(g == NULL && err.code == rc && err.message[0]);
		return 0;
	}
	dag_check_graph(g);
	char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	FILE *fp = open_memstream(&a, &na);
	dag_check(fp && locus_dag_write_stg(g, 0, fp) == 0);
	fclose(fp);
	dag_check(locus_dag_read_stg(&h, a, na, "written", &err) == 0);
	dag_check(h->n_tasks == g->n_tasks && h->n_edges == g->n_edges);
	fp = open_memstream(&b, &nb);
	dag_check(fp && locus_dag_write_stg(h, 0, fp) == 0);
	fclose(fp);
	dag_check(na == nb && memcmp(a, b, na) == 0);
	free(a);
	free(b);
	locus_graph_destroy(g);
	locus_graph_destroy(h);
	return 0;
}
