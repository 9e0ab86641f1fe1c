/* locus locate: DL-MPI's data locality calls (Table I) from the shell. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const help =
    "usage: locus locate [OPTIONS] SOURCE [CALL ARGS...]\n"
    "\n"
    "Answers DL-MPI's data locality calls (Table I) over a source of block\n"
    "locations. A process is named by its host; a process on a host that holds\n"
    "nothing has no local chunk.\n"
    "\n"
    "SOURCE is one of\n"
    "  DIR                     a node-local store (DIR/<node>/<dataset>/chunk-...)\n"
    "  FILE                    a catalog, WebHDFS JSON or hdfs fsck output, by content\n"
    "  catalog:FILE            a Locus catalog\n"
    "  fsck:FILE[?hosts=H]     'hdfs fsck PATH -files -blocks -locations' output;\n"
    "                          H maps datanode addresses to host names (/etc/hosts form)\n"
    "  webhdfs:FILE[?dataset=NAME&hosts=H]\n"
    "                          a WebHDFS GETFILEBLOCKLOCATIONS document for file NAME\n"
    "  store:DIR               a node-local store\n"
    "\n"
    "CALL is one of (default: datasets)\n"
    "  datasets                           list datasets, sizes, chunks and problems\n"
    "  summary DATASET                    local chunks and percentage on every host\n"
    "  process-chunks DATASET PROCESS     chunks local to PROCESS (DLI_map_process_chunks)\n"
    "  chunks-process DATASET [PROC...]   map of local chunks per process, every host\n"
    "                                     by default (DLI_map_chunks_process)\n"
    "  dprocess-dchunks DIR [PROC...]     the same for every dataset under DIR\n"
    "                                     (DLI_map_Dprocess_Dchunks)\n"
    "  total-chunks DATASET PROCESS       number of local chunks (DLI_get_total_chunks)\n"
    "  data-percentage DATASET PROCESS    percentage of bytes local (DLI_get_data_percentage)\n"
    "  check-data DATASET PROCESS OFFSET  is byte OFFSET local? (DLI_check_data)\n"
    "\n"
    "Options:\n"
    "  --json       print JSON for programs instead of tables\n"
    "  -h, --help   show this help\n"
    "\n"
    "Blocks that are missing, under construction or have corrupt replicas are\n"
    "reported on stderr (and under \"problems\" in JSON), never dropped silently.\n"
    "\n"
    "Examples:\n"
    "  locus locate /tmp/store summary reads.fa\n"
    "  locus locate 'fsck:fsck.txt?hosts=hosts' chunks-process /data/genome.fa dn1 dn2\n"
    "  locus locate --json genome.cat check-data genome.fa node03 134217728\n";

static int json;

/* Prints chunk ids as ranges: "0-3,7,9-10". */
static void print_ranges(const struct locus_idlist *l)
{
	if (!l->n) {
		printf("-");
		return;
	}
	for (size_t i = 0; i < l->n;) {
		size_t j = i;
		while (j + 1 < l->n && l->ids[j + 1] == l->ids[j] + 1)
			j++;
		printf("%s%zu", i ? "," : "", l->ids[i]);
		if (j > i)
			printf("-%zu", l->ids[j]);
		i = j + 1;
	}
}

static void print_ids_json(const struct locus_idlist *l)
{
	printf("[");
	for (size_t i = 0; i < l->n; i++)
		printf("%s%zu", i ? ", " : "", l->ids[i]);
	printf("]");
}

static uint64_t local_bytes(const struct locus_catalog *cat, size_t d, const struct locus_idlist *l)
{
	uint64_t b = 0;
	for (size_t i = 0; i < l->n; i++)
		b += cat->datasets[d].chunks[l->ids[i]].length;
	return b;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void report_problems(const struct locus_catalog *cat)
{
	if (!cat->n_problems || json)
		return;
	fprintf(stderr, "locus locate: warning: the source reports %zu problem%s:\n",
		cat->n_problems, cat->n_problems == 1 ? "" : "s");
	for (size_t i = 0; i < cat->n_problems && i < 10; i++)
		fprintf(stderr, "  %s: %s\n", cat->datasets[cat->problems[i].dataset].name,
			cat->problems[i].detail);
	if (cat->n_problems > 10)
		fprintf(stderr, "  ... and %zu more (see --json)\n", cat->n_problems - 10);
}

static void problems_json(const struct locus_catalog *cat)
{
	printf("\"problems\": [");
	for (size_t i = 0; i < cat->n_problems; i++) {
		const struct locus_problem *p = &cat->problems[i];
		printf("%s{\"dataset\": ", i ? ", " : "");
		cli_json_string(cat->datasets[p->dataset].name);
		if (p->chunk == SIZE_MAX)
			printf(", \"chunk\": null");
		else
			printf(", \"chunk\": %zu", p->chunk);
		printf(
		    ", \"missing\": %s, \"under_construction\": %s, \"corrupt\": %s, \"detail\": ",
		    p->flags & LOCUS_CHUNK_MISSING ? "true" : "false",
		    p->flags & LOCUS_CHUNK_UNDER_CONSTRUCTION ? "true" : "false",
		    p->flags & LOCUS_CHUNK_CORRUPT ? "true" : "false");
		cli_json_string(p->detail);
		printf("}");
	}
	printf("]");
}

static int call_datasets(const struct locus_catalog *cat)
{
	if (json) {
		printf("{\"call\": \"datasets\", \"hosts\": [");
		for (size_t h = 0; h < cat->n_hosts; h++) {
			printf("%s{\"name\": ", h ? ", " : "");
			cli_json_string(cat->hosts[h].name);
			printf(", \"rack\": ");
			if (cat->hosts[h].rack)
				cli_json_string(cat->hosts[h].rack);
			else
				printf("null");
			printf("}");
		}
		printf("], \"datasets\": [");
		for (size_t d = 0; d < cat->n_datasets; d++) {
			const struct locus_dataset *ds = &cat->datasets[d];
			size_t reps = 0, missing = 0;
			for (size_t c = 0; c < ds->n_chunks; c++) {
				reps += ds->chunks[c].n_replicas;
				missing += !ds->chunks[c].n_replicas;
			}
			printf("%s{\"name\": ", d ? ", " : "");
			cli_json_string(ds->name);
			printf(", \"size\": %" PRIu64
			       ", \"chunks\": %zu, \"replicas\": %zu, \"missing_chunks\": %zu}",
			       ds->size, ds->n_chunks, reps, missing);
		}
		printf("], ");
		problems_json(cat);
		printf("}\n");
		return 0;
	}
	printf("%-40s %14s %8s %10s %8s\n", "dataset", "bytes", "chunks", "replicas", "missing");
	for (size_t d = 0; d < cat->n_datasets; d++) {
		const struct locus_dataset *ds = &cat->datasets[d];
		size_t reps = 0, missing = 0;
		for (size_t c = 0; c < ds->n_chunks; c++) {
			reps += ds->chunks[c].n_replicas;
			missing += !ds->chunks[c].n_replicas;
		}
		printf("%-40s %14" PRIu64 " %8zu %10zu %8zu\n", ds->name, ds->size, ds->n_chunks,
		       reps, missing);
	}
	printf("\n%zu dataset%s on %zu host%s\n", cat->n_datasets, cat->n_datasets == 1 ? "" : "s",
	       cat->n_hosts, cat->n_hosts == 1 ? "" : "s");
	return 0;
}

static void map_out(const struct locus_catalog *cat, const struct locus_chunk_map *m, int ranges)
{
	const struct locus_dataset *ds = &cat->datasets[m->dataset];
	if (json) {
		printf("{\"dataset\": ");
		cli_json_string(ds->name);
		printf(", \"size\": %" PRIu64 ", \"chunks\": %zu, \"processes\": [", ds->size,
		       ds->n_chunks);
		for (size_t i = 0; i < m->n_procs; i++) {
			uint64_t b = local_bytes(cat, m->dataset, &m->local[i]);
			printf("%s{\"process\": ", i ? ", " : "");
			cli_json_string(m->procs[i]);
			printf(
			    ", \"known_host\": %s, \"total_chunks\": %zu, \"local_bytes\": %" PRIu64
			    ", \"data_percentage\": %.6f, \"chunks\": ",
			    locus_catalog_find_host(cat, m->procs[i]) >= 0 ? "true" : "false",
			    m->local[i].n, b, pct(b, ds->size));
			print_ids_json(&m->local[i]);
			printf("}");
		}
		printf("]}");
		return;
	}
	printf("%s: %" PRIu64 " bytes in %zu chunks\n\n", ds->name, ds->size, ds->n_chunks);
	printf("  %-20s %8s %9s  %s\n", "process", "chunks", "local %",
	       ranges ? "local chunks" : "");
	for (size_t i = 0; i < m->n_procs; i++) {
		uint64_t b = local_bytes(cat, m->dataset, &m->local[i]);
		printf("  %-20s %8zu %8.2f%%  ", m->procs[i], m->local[i].n, pct(b, ds->size));
		if (ranges)
			print_ranges(&m->local[i]);
		printf("\n");
	}
}

/* The process names to map: those given, or every host of the catalog. */
static const char **procs_or_hosts(const struct locus_catalog *cat, char **given, int n_given,
				   size_t *n)
{
	const char **p = cli_calloc(n_given ? (size_t)n_given : cat->n_hosts, sizeof *p);
	if (!p)
		return NULL;
	if (n_given) {
		for (int i = 0; i < n_given; i++) {
			p[i] = given[i];
			if (locus_catalog_find_host(cat, given[i]) < 0)
				fprintf(stderr,
					"locus locate: warning: no host \"%s\" in the source; it "
					"holds no chunk\n",
					given[i]);
		}
		*n = (size_t)n_given;
	} else {
		for (size_t h = 0; h < cat->n_hosts; h++)
			p[h] = cat->hosts[h].name;
		*n = cat->n_hosts;
	}
	return p;
}

static int need(const char *call, int have, int want, const char *args)
{
	if (have < want)
		return cli_usage_error("locate", "%s expects %s", call, args);
	return 0;
}

/* What a call's library answer means for the exit status: a dataset that
 * is not there is said so; another error by its message. */
static int result(int rc, const char *ds)
{
	if (rc == LOCUS_ENOENT) {
		fprintf(stderr,
			"locus locate: no dataset \"%s\" in the source (run 'locus locate SOURCE "
			"datasets')\n",
			ds);
		return CLI_EXIT_FAIL;
	}
	if (rc)
		return cli_error("locate", NULL, rc);
	return 0;
}

/* Each call: its arguments args[0..n) checked, then its answer printed;
 * 0 or an exit status. */

static int call_list(const struct locus_catalog *cat, const char *call, char **args, int n)
{
	if (n)
		return cli_usage_error("locate", "datasets takes no argument");
	return call_datasets(cat);
}

/* summary, chunks-process (and its old name, map). */
static int call_map(const struct locus_catalog *cat, const char *call, char **args, int n)
{
	int summary = strcmp(call, "summary") == 0, rc;
	if ((rc = need(call, n, 1, summary ? "DATASET" : "DATASET [PROCESS...]")))
		return rc;
	if (summary && n > 1)
		return cli_usage_error("locate", "summary takes only DATASET");
	size_t np;
	const char **procs = procs_or_hosts(cat, args + 1, n - 1, &np);
	struct locus_chunk_map m;
	rc = procs ? locus_dli_map_chunks_process(cat, args[0], procs, np, &m) : LOCUS_ENOMEM;
	if (!rc) {
		if (json)
			printf("{\"call\": \"%s\", \"result\": ",
			       summary ? "summary" : "chunks-process");
		map_out(cat, &m, !summary);
		if (json) {
			printf(", ");
			problems_json(cat);
			printf("}\n");
		}
		locus_chunk_map_fini(&m);
	}
	free(procs);
	return result(rc, args[0]);
}

static int call_dir_map(const struct locus_catalog *cat, const char *call, char **args, int n)
{
	int rc;
	if ((rc = need(call, n, 1, "DIR [PROCESS...]")))
		return rc;
	const char *dir = args[0];
	size_t np;
	const char **procs = procs_or_hosts(cat, args + 1, n - 1, &np);
	struct locus_dir_map m;
	rc = procs ? locus_dli_map_dprocess_dchunks(cat, dir, procs, np, &m) : LOCUS_ENOMEM;
	if (rc == LOCUS_ENOENT) {
		free(procs);
		fprintf(stderr, "locus locate: no dataset under directory \"%s\"\n", dir);
		return CLI_EXIT_FAIL;
	}
	if (rc) {
		free(procs);
		return result(rc, dir);
	}
	if (json) {
		printf("{\"call\": \"dprocess-dchunks\", \"directory\": ");
		cli_json_string(dir);
		printf(", \"result\": [");
	}
	for (size_t i = 0; i < m.n_datasets; i++) {
		if (i)
			printf(json ? ", " : "\n");
		map_out(cat, &m.maps[i], 1);
	}
	if (json) {
		printf("], ");
		problems_json(cat);
		printf("}\n");
	}
	locus_dir_map_fini(&m);
	free(procs);
	return 0;
}

static int call_process_chunks(const struct locus_catalog *cat, const char *call, char **args,
			       int n)
{
	int rc;
	if ((rc = need(call, n, 2, "DATASET PROCESS")) ||
	    (n > 2 && (rc = cli_usage_error("locate", "process-chunks takes DATASET PROCESS"))))
		return rc;
	const char *ds = args[0], *proc = args[1];
	if (locus_catalog_find_host(cat, proc) < 0)
		fprintf(stderr,
			"locus locate: warning: no host \"%s\" in the source; it holds no "
			"chunk\n",
			proc);
	struct locus_idlist l;
	if ((rc = locus_dli_map_process_chunks(cat, ds, proc, &l)))
		return result(rc, ds);
	const struct locus_chunk *chunks =
	    cat->datasets[locus_catalog_find_dataset(cat, ds)].chunks;
	if (json) {
		printf("{\"call\": \"process-chunks\", \"dataset\": ");
		cli_json_string(ds);
		printf(", \"process\": ");
		cli_json_string(proc);
		printf(", \"chunks\": ");
		print_ids_json(&l);
		printf(", \"offsets\": [");
		for (size_t i = 0; i < l.n; i++)
			printf("%s[%" PRIu64 ", %" PRIu64 "]", i ? ", " : "",
			       chunks[l.ids[i]].offset, chunks[l.ids[i]].length);
		printf("]}\n");
	} else {
		printf("%s on %s: %zu local chunk%s\n\n  %8s %16s %12s\n", ds, proc, l.n,
		       l.n == 1 ? "" : "s", "chunk", "offset", "length");
		for (size_t i = 0; i < l.n; i++)
			printf("  %8zu %16" PRIu64 " %12" PRIu64 "\n", l.ids[i],
			       chunks[l.ids[i]].offset, chunks[l.ids[i]].length);
	}
	locus_idlist_fini(&l);
	return 0;
}

/* total-chunks, data-percentage. */
static int call_count(const struct locus_catalog *cat, const char *call, char **args, int n)
{
	int rc;
	if ((rc = need(call, n, 2, "DATASET PROCESS")) ||
	    (n > 2 && (rc = cli_usage_error("locate", "%s takes DATASET PROCESS", call))))
		return rc;
	size_t total = 0;
	double p = 0;
	int is_total = call[0] == 't';
	rc = is_total ? locus_dli_get_total_chunks(cat, args[0], args[1], &total)
		      : locus_dli_get_data_percentage(cat, args[0], args[1], &p);
	if (rc)
		return result(rc, args[0]);
	if (json) {
		printf("{\"call\": \"%s\", \"dataset\": ", call);
		cli_json_string(args[0]);
		printf(", \"process\": ");
		cli_json_string(args[1]);
		if (is_total)
			printf(", \"total_chunks\": %zu}\n", total);
		else
			printf(", \"data_percentage\": %.6f}\n", p);
	} else if (is_total) {
		printf("%zu\n", total);
	} else {
		printf("%.2f%%\n", p);
	}
	return 0;
}

static int call_check_data(const struct locus_catalog *cat, const char *call, char **args, int n)
{
	uint64_t off;
	bool local;
	int rc;
	if ((rc = need(call, n, 3, "DATASET PROCESS OFFSET")) ||
	    (n > 3 &&
	     (rc = cli_usage_error("locate", "check-data takes DATASET PROCESS OFFSET"))) ||
	    (rc = cli_size("locate", "OFFSET", args[2], &off)))
		return rc;
	const char *ds = args[0];
	rc = locus_dli_check_data(cat, ds, args[1], off, &local);
	if (rc == LOCUS_ERANGE) {
		fprintf(stderr,
			"locus locate: offset %" PRIu64 " is past the end of %s (%" PRIu64
			" bytes)\n",
			off, ds, cat->datasets[locus_catalog_find_dataset(cat, ds)].size);
		return CLI_EXIT_FAIL;
	}
	if (rc)
		return result(rc, ds);
	if (json) {
		printf("{\"call\": \"check-data\", \"dataset\": ");
		cli_json_string(ds);
		printf(", \"process\": ");
		cli_json_string(args[1]);
		printf(", \"offset\": %" PRIu64 ", \"local\": %s}\n", off,
		       local ? "true" : "false");
	} else {
		printf("%s\n", local ? "local" : "remote");
	}
	return 0;
}

static const struct {
	const char *name;
	int (*run)(const struct locus_catalog *cat, const char *call, char **args, int n);
} calls[] = {
    {"datasets", call_list},
    {"summary", call_map},
    {"chunks-process", call_map},
    {"map", call_map},
    {"dprocess-dchunks", call_dir_map},
    {"process-chunks", call_process_chunks},
    {"total-chunks", call_count},
    {"data-percentage", call_count},
    {"check-data", call_check_data},
};

static int run_call(const struct locus_catalog *cat, const char *call, char **args, int n)
{
	for (size_t k = 0; k < CLI_ARRAY_LEN(calls); k++)
		if (strcmp(call, calls[k].name) == 0)
			return calls[k].run(cat, call, args, n);
	return cli_usage_error("locate", "unknown call \"%s\"", call);
}

int cmd_locate(int argc, char **argv)
{
	enum { O_JSON = 256 };
	static const struct option opts[] = {
	    {"json", no_argument, 0, O_JSON},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	int c;
	json = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case O_JSON:
			json = 1;
			break;
		case 'h':
			fputs(help, stdout);
			return 0;
		default:
			return cli_usage_error("locate", "unknown option %s", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("locate", "expected a SOURCE");
	struct locus_catalog *cat;
	struct locus_error err = {0};
	int rc = locus_source_open(&cat, argv[optind], &err);
	if (rc)
		return cli_error("locate", &err, rc);
	report_problems(cat);
	const char *call = optind + 1 < argc ? argv[optind + 1] : "datasets";
	int n = optind + 2 < argc ? argc - optind - 2 : 0;
	rc = run_call(cat, call, argv + optind + 2, n);
	locus_catalog_destroy(cat);
	return rc;
}
