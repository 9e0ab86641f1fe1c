/*
 * locality_map: ask where a dataset lives, the way an MPI program would
 * before choosing which chunks each rank reads (DL-MPI, Table I).
 *
 *   locality_map SOURCE DATASET [PROCESS...]
 *
 * SOURCE is any Locus source string (a store directory, a catalog, fsck
 * output, a WebHDFS document). Each PROCESS is named by its host, as
 * MPI_Get_processor_name would give it; without any, every host is used.
 *
 * Build against an installed Locus:
 *   cc locality_map.c $(pkg-config --cflags --libs locus) -o locality_map
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <locus/locus.h>

int main(int argc, char **argv)
{
	struct locus_catalog *cat;
	struct locus_error err;
	char msg[1024];

	if (argc < 3) {
		fprintf(stderr, "usage: %s SOURCE DATASET [PROCESS...]\n", argv[0]);
		return 2;
	}
	if (locus_source_open(&cat, argv[1], &err) != 0) {
		fprintf(stderr, "%s\n", locus_error_format(&err, msg, sizeof msg));
		return 1;
	}
	const char *dataset = argv[2];
	const char **procs = (const char **)(argv + 3);
	size_t n = (size_t)(argc - 3);
	if (n == 0) { /* every host of the source */
		procs = malloc(cat->n_hosts * sizeof *procs);
		for (size_t h = 0; procs && h < cat->n_hosts; h++)
			procs[h] = cat->hosts[h].name;
		n = cat->n_hosts;
	}

	/* DLI_map_chunks_process: one call for the whole group. */
	struct locus_chunk_map map;
	int rc = locus_dli_map_chunks_process(cat, dataset, procs, n, &map);
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", dataset, locus_strerror(rc));
		locus_catalog_destroy(cat);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		double pct;
		/* DLI_get_data_percentage for the same process. */
		locus_dli_get_data_percentage(cat, dataset, procs[i], &pct);
		printf("%-16s %4zu chunks %6.2f%%  first:", procs[i], map.local[i].n, pct);
		for (size_t k = 0; k < map.local[i].n && k < 5; k++)
			printf(" %zu", map.local[i].ids[k]);
		printf("\n");
	}

	/* DLI_check_data: would a read at this offset stay on the node? */
	bool local;
	if (n > 0 && locus_dli_check_data(cat, dataset, procs[0], 0, &local) == 0)
		printf("offset 0 is %s to %s\n", local ? "local" : "remote", procs[0]);

	locus_chunk_map_fini(&map);
	if (argc == 3)
		free(procs);
	locus_catalog_destroy(cat);
	return 0;
}
