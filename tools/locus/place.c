/* locus place: split data into chunks and place replicas on nodes. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char *const help_head =
    "usage: locus place [OPTIONS] (--input FILE | --generate SIZE | --chunks N)\n"
    "                   (--store DIR | --catalog FILE)...\n"
    "\n"
    "Splits a dataset into chunks, chooses the nodes that hold each chunk's\n"
    "replicas, and writes the chunks into a node-local store\n"
    "(DIR/<node>/<dataset>/chunk-...) and/or the chunk map into a catalog.\n"
    "Nothing is left half-written: a failed run leaves store and catalog as\n"
    "they were.\n";

static const char *const help_tail =
    "\n"
    "Examples:\n"
    "  locus place --generate 32M --chunk-size 1M --split fasta --nodes 8 \\\n"
    "              --store /tmp/store --dataset reads.fa\n"
    "  locus place --input genome.fa --platform cluster.json --catalog genome.cat\n"
    "  locus place --chunks 30720 --nodes 1024 --replicas 1 --policy skewed \\\n"
    "              --skew-std 7.42 --catalog fig6.cat\n";

struct place_args {
	const char *input, *platform, *writer, *dataset, *store, *catalog;
	const char *content;
	uint64_t generate, chunks, chunk_size, nodes, racks, replicas, seed;
	double skew_std;
	enum locus_place_policy policy;
	enum locus_split_mode split;
	int force, json, have_generate, have_chunks, have_skew;
};

/* Bytes of the dataset for the store writer: read from the input file. */
struct file_source {
	int fd;
};

static int read_bytes(void *user, uint64_t offset, void *buf, size_t len)
{
	struct file_source *fs = user;
	char *p = buf;
	while (len) {
		ssize_t r = pread(fs->fd, p, len, (off_t)offset);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return LOCUS_EIO;
		p += r;
		len -= (size_t)r;
		offset += (uint64_t)r;
	}
	return 0;
}

/* ---- the options, a group per section of --help ------------------------------ */

/* Named ids of the options without a short letter. */
enum { O_CONTENT = 256, O_SPLIT, O_RACKS, O_WRITER, O_SKEW_STD, O_JSON };

#define AT(field) offsetof(struct place_args, field)

static int data_option(const char *cmd, void *values, int id, const char *arg)
{
	struct place_args *a = values;
	a->have_generate |= id == 'g';
	a->have_chunks |= id == 'n';
	if (id == O_SPLIT && locus_split_mode_parse(arg, &a->split))
		return cli_usage_error(cmd, "--split expects bytes, lines or fasta, got \"%s\"",
				       arg);
	return 0;
}

static const struct cli_opt data_opts[] = {
    {"input", 'i', CLI_TEXT, AT(input), "FILE", "split this file"},
    {"generate", 'g', CLI_SIZE, AT(generate), "SIZE",
     "make SIZE bytes of synthetic data (e.g. 64M)"},
    {"content", O_CONTENT, CLI_TEXT, AT(content), "KIND",
     "synthetic content: fasta (default), random, zero"},
    {"chunks", 'n', CLI_UINT, AT(chunks), "N", "no data: N chunks of --chunk-size (catalog only)"},
    {"chunk-size", 'c', CLI_SIZE, AT(chunk_size), "SIZE",
     "chunk size (default 64M; K, M, G are powers of 1024)"},
    {"split", O_SPLIT, CLI_OWN, 0, "MODE",
     "bytes (default): exact sizes; lines: end chunks at a\n"
     "newline; fasta: end chunks before a '>' record"},
    {"dataset", 'd', CLI_TEXT, AT(dataset), "NAME",
     "dataset name (default: the input's file name,\n"
     "or \"synthetic\")"},
};
static const struct cli_group data_group = CLI_GROUP(data_opts, data_option);

static const struct cli_opt nodes_opts[] = {
    {"platform", 'p', CLI_TEXT, AT(platform), "FILE",
     "nodes and racks from a platform file (docs/formats.md)"},
    {"nodes", 'N', CLI_UINT, AT(nodes), "N", "or N generated nodes node01..nodeN (default 8)"},
    {"racks", O_RACKS, CLI_UINT, AT(racks), "K", "racks for generated nodes (default 2)"},
};
static const struct cli_group nodes_group = CLI_GROUP(nodes_opts, NULL);

static int placement_option(const char *cmd, void *values, int id, const char *arg)
{
	struct place_args *a = values;
	a->have_skew |= id == O_SKEW_STD;
	if (id == 'P' && locus_place_policy_parse(arg, &a->policy))
		return cli_usage_error(cmd, "--policy expects hdfs, random or skewed, got \"%s\"",
				       arg);
	return 0;
}

static const struct cli_opt placement_opts[] = {
    {"policy", 'P', CLI_OWN, 0, "NAME",
     "hdfs (default): HDFS's rack-aware rule;\n"
     "random: distinct nodes uniformly;\n"
     "skewed: replicas per node with a set std deviation"},
    {"replicas", 'r', CLI_UINT, AT(replicas), "R", "replicas per chunk (default 3)"},
    {"writer", O_WRITER, CLI_TEXT, AT(writer), "NODE",
     "hdfs: the writer's node takes every first replica"},
    {"skew-std", O_SKEW_STD, CLI_NUMBER, AT(skew_std), "S",
     "skewed: target standard deviation of replicas per node"},
    {"seed", 's', CLI_UINT, AT(seed), "S", "random seed (default 1); same seed, same placement"},
};
static const struct cli_group placement_group = CLI_GROUP(placement_opts, placement_option);

static const struct cli_opt output_opts[] = {
    {"store", 'o', CLI_TEXT, AT(store), "DIR", "write the chunks into this node-local store"},
    {"catalog", 'C', CLI_TEXT, AT(catalog), "FILE", "write (or add the dataset to) this catalog"},
    {"force", 'f', CLI_FLAG, AT(force), NULL, "replace the dataset in the store, or the catalog"},
    {"json", O_JSON, CLI_FLAG, AT(json), NULL, "print the summary as JSON"},
};
static const struct cli_group output_group = CLI_GROUP(output_opts, NULL);

#undef AT

static const struct cli_use uses[] = {
    {.group = &data_group, .before = "\nData:\n"},
    {.group = &nodes_group, .before = "\nNodes:\n"},
    {.group = &placement_group, .before = "\nPlacement:\n"},
    {.group = &output_group, .before = "\nOutput:\n"},
};

static const struct cli_command command =
    CLI_COMMAND(uses, CLI_OPTIONS_ANYWHERE, CLI_ERRORS_PLAIN, help_head, help_tail, 25);

static int parse_args(int argc, char **argv, struct place_args *a)
{
	*a = (struct place_args){.chunk_size = 64ull << 20,
				 .nodes = 8,
				 .racks = 2,
				 .replicas = 3,
				 .seed = 1,
				 .content = "fasta"};
	int rc = cli_parse("place", &command, a, argc, argv);
	if (rc)
		return rc;
	if (optind < argc)
		return cli_usage_error("place", "unexpected argument \"%s\"", argv[optind]);
	if (!!a->input + a->have_generate + a->have_chunks != 1)
		return cli_usage_error("place",
				       "give exactly one of --input, --generate and --chunks");
	if (!a->store && !a->catalog)
		return cli_usage_error(
		    "place",
		    "give --store DIR and/or --catalog FILE: where should the placement go?");
	if (a->have_chunks && a->store)
		return cli_usage_error("place", "--chunks makes no data, so it can only write a "
						"--catalog (use --generate for data)");
	if (a->chunk_size == 0)
		return cli_usage_error("place", "--chunk-size must be at least 1 byte");
	if (a->policy == LOCUS_PLACE_SKEWED && !a->have_skew)
		return cli_usage_error("place", "--policy skewed needs --skew-std S");
	if (a->policy != LOCUS_PLACE_SKEWED && a->have_skew)
		return cli_usage_error("place", "--skew-std applies only to --policy skewed");
	if (a->writer && a->policy != LOCUS_PLACE_HDFS)
		return cli_usage_error("place", "--writer applies only to --policy hdfs");
	if (a->platform && (a->nodes != 8 || a->racks != 2))
		return cli_usage_error("place",
				       "--platform and --nodes/--racks exclude each other");
	if (!a->platform && (a->nodes == 0 || a->racks == 0))
		return cli_usage_error("place", "--nodes and --racks must be at least 1");
	enum locus_synth_kind kind;
	if (locus_synth_kind_parse(a->content, &kind))
		return cli_usage_error(
		    "place", "--content expects fasta, random or zero, got \"%s\"", a->content);
	if (!a->dataset) {
		if (a->input) {
			const char *slash = strrchr(a->input, '/');
			a->dataset = slash ? slash + 1 : a->input;
		} else {
			a->dataset = "synthetic";
		}
	}
	return 0;
}

static void print_summary(const struct place_args *a, const struct locus_catalog *cat, size_t d,
			  const size_t *counts)
{
	const struct locus_dataset *ds = &cat->datasets[d];
	double mean = 0, var = 0;
	for (size_t h = 0; h < cat->n_hosts; h++)
		mean += (double)counts[h];
	mean /= (double)cat->n_hosts;
	for (size_t h = 0; h < cat->n_hosts; h++)
		var += ((double)counts[h] - mean) * ((double)counts[h] - mean);
	double sd = sqrt(var / (double)cat->n_hosts);
	if (a->json) {
		printf("{\"dataset\": ");
		cli_json_string(ds->name);
		printf(", \"size\": %" PRIu64 ", \"chunks\": %zu, \"replicas\": %" PRIu64
		       ", \"policy\": \"%s\", \"seed\": %" PRIu64
		       ", \"replicas_per_node\": {\"mean\": %.6f, \"std\": %.6f}, \"nodes\": [",
		       ds->size, ds->n_chunks, a->replicas, locus_place_policy_name(a->policy),
		       a->seed, mean, sd);
		for (size_t h = 0; h < cat->n_hosts; h++) {
			printf("%s{\"name\": ", h ? ", " : "");
			cli_json_string(cat->hosts[h].name);
			printf(", \"rack\": ");
			cli_json_string(cat->hosts[h].rack ? cat->hosts[h].rack : "");
			printf(", \"replicas\": %zu}", counts[h]);
		}
		printf("]");
		if (a->store) {
			printf(", \"store\": ");
			cli_json_string(a->store);
		}
		if (a->catalog) {
			printf(", \"catalog\": ");
			cli_json_string(a->catalog);
		}
		printf("}\n");
		return;
	}
	printf("placed %s: %" PRIu64 " bytes in %zu chunks, %" PRIu64
	       " replicas each (%s, seed %" PRIu64 ")\n",
	       ds->name, ds->size, ds->n_chunks, a->replicas, locus_place_policy_name(a->policy),
	       a->seed);
	if (cat->n_hosts <= 64) {
		printf("\n  %-16s %-12s %8s\n", "node", "rack", "replicas");
		for (size_t h = 0; h < cat->n_hosts; h++)
			printf("  %-16s %-12s %8zu\n", cat->hosts[h].name,
			       cat->hosts[h].rack ? cat->hosts[h].rack : "-", counts[h]);
		printf("\n");
	}
	printf("replicas per node: mean %.2f, standard deviation %.2f over %zu nodes\n", mean, sd,
	       cat->n_hosts);
	if (a->store)
		printf("store:   %s\n", a->store);
	if (a->catalog)
		printf("catalog: %s\n", a->catalog);
}

static int print_catalog(void *ctx, FILE *fp)
{
	return locus_catalog_print(ctx, fp);
}

/* Locks the catalog (flock on FILE.lock, waiting for another locus place
 * that holds it), reads it, adds this dataset and writes the result to a
 * temporary file next to it (*staged): cli_outputs_commit makes it the
 * catalog. *lock_fd holds the lock until it is closed. Returns 0, a
 * LOCUS_E* code (in err), or CLI_EXIT_FAIL when the error is printed. */
static int prepare_catalog(const struct place_args *a, const struct locus_catalog *cat,
			   int *lock_fd, struct cli_outputs *staged, struct locus_error *err)
{
	struct stat st;
	struct locus_catalog *old = NULL;
	const struct locus_catalog *to_save = cat;
	int rc = 0;
	if (stat(a->catalog, &st) == 0 && S_ISDIR(st.st_mode))
		return cli_set_error(err, LOCUS_EIO, a->catalog,
				     "is a directory; --catalog names a file");
	size_t n = strlen(a->catalog) + 8;
	char *lock = malloc(n);
	if (!lock)
		return cli_set_error(err, LOCUS_ENOMEM, NULL, "out of memory");
	snprintf(lock, n, "%s.lock", a->catalog);
	*lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	int e = *lock_fd < 0 ? errno : 0;
	while (!e && flock(*lock_fd, LOCK_EX) != 0)
		if (errno != EINTR)
			e = errno;
	if (e)
		rc = cli_set_error(err, LOCUS_EIO, a->catalog, "cannot lock the catalog (%s): %s",
				   lock, strerror(e));
	free(lock);
	if (rc)
		return rc;
	/* Under the lock: the catalog as the last writer left it. */
	if (!a->force && stat(a->catalog, &st) == 0) {
		char *text;
		size_t len;
		if ((rc = locus_read_file(&text, &len, a->catalog, err)))
			return rc;
		rc = locus_catalog_parse(&old, text, len, a->catalog, err);
		free(text);
		if (rc)
			return rc;
		if (locus_catalog_find_dataset(old, a->dataset) >= 0)
			rc = cli_set_error(
			    err, LOCUS_EEXIST, a->catalog,
			    "dataset \"%s\" is already in the catalog (choose another "
			    "--dataset, or --force to rewrite the catalog)",
			    a->dataset);
		if (!rc)
			rc = locus_catalog_merge(old, cat, err);
		to_save = old;
	}
	/* These print their own errors: an exit status from here on. */
	const char *paths[] = {a->catalog};
	if (!rc && (cli_outputs_check("place", paths, 1) ||
		    cli_outputs_stage("place", staged, a->catalog, print_catalog, (void *)to_save)))
		rc = CLI_EXIT_FAIL;
	locus_catalog_destroy(old);
	return rc;
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) ? -1 : 0;
}

/* Takes dataset d's new copies out of the store (after a catalog that
 * could not be renamed into place). */
static void unplace_store(const struct place_args *a, const struct locus_catalog *cat, size_t d)
{
	const char *name = cat->datasets[d].name;
	for (size_t h = 0; h < cat->n_hosts; h++) {
		size_t n = strlen(a->store) + strlen(cat->hosts[h].name) + strlen(name) + 3;
		char *path = malloc(n);
		if (!path)
			continue;
		snprintf(path, n, "%s/%s/%s", a->store, cat->hosts[h].name, name);
		nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
		free(path);
	}
}

/* What one locus place holds while it runs, freed by place_fini. The
 * steps below return 0, a library error (negative, said by `err`), or an
 * exit status they have printed (positive). */
struct place {
	struct locus_error err;
	struct locus_platform *plat;
	char *tmpdata;	  /* --generate's data, removed at the end */
	const char *data; /* the file split, or NULL (--chunks) */
	uint64_t *lengths;
	size_t n_chunks;
	uint32_t *nodes; /* chunk c's replicas at [c * replicas] */
	struct locus_catalog *cat;
	size_t d; /* the dataset in cat */
	int fd, cat_lock;
	struct cli_outputs staged;
};

static void place_fini(struct place *p)
{
	cli_outputs_discard(&p->staged);
	if (p->cat_lock >= 0)
		close(p->cat_lock); /* releases the lock */
	if (p->fd >= 0)
		close(p->fd);
	if (p->tmpdata) {
		unlink(p->tmpdata);
		free(p->tmpdata);
	}
	free(p->lengths);
	free(p->nodes);
	locus_catalog_destroy(p->cat);
	locus_platform_destroy(p->plat);
}

/* The data: a real file, or synthetic content in a temporary file, cut
 * into chunks; or --chunks lengths without data. */
static int place_data(struct place *p, const struct place_args *a)
{
	int rc;
	if (a->have_generate) {
		const char *base = getenv("TMPDIR");
		size_t n = strlen(base && *base ? base : "/tmp") + 40;
		if (!(p->tmpdata = malloc(n)))
			return LOCUS_ENOMEM;
		snprintf(p->tmpdata, n, "%s/locus-synth.%ld", base && *base ? base : "/tmp",
			 (long)getpid());
		enum locus_synth_kind kind;
		locus_synth_kind_parse(a->content, &kind);
		if ((rc = locus_synth_write(p->tmpdata, a->generate, kind, a->seed, &p->err)))
			return rc;
		p->data = p->tmpdata;
	} else if (a->input) {
		p->data = a->input;
	}
	if (p->data)
		return locus_split_file(&p->lengths, &p->n_chunks, p->data, a->chunk_size, a->split,
					&p->err);
	p->n_chunks = (size_t)a->chunks;
	if (!(p->lengths = cli_calloc(p->n_chunks, sizeof *p->lengths)))
		return LOCUS_ENOMEM;
	for (size_t c = 0; c < p->n_chunks; c++)
		p->lengths[c] = a->chunk_size;
	return 0;
}

/* The replicas' nodes, and the catalog of this dataset: every node is a
 * host, in platform order, so nodes without a replica still show. */
static int place_catalog(struct place *p, const struct place_args *a)
{
	const struct locus_platform *plat = p->plat;
	struct locus_place_options po = {.policy = a->policy,
					 .replicas = (unsigned)a->replicas,
					 .seed = a->seed,
					 .writer = a->writer,
					 .skew_std = a->skew_std};
	int rc;
	if (a->replicas == 0 || a->replicas > plat->n_nodes)
		return cli_usage_error("place",
				       "--replicas must be between 1 and the number of nodes (%zu)",
				       plat->n_nodes);
	if (!(p->nodes = cli_calloc(p->n_chunks * a->replicas, sizeof *p->nodes)))
		return LOCUS_ENOMEM;
	if ((rc = locus_place(plat, p->n_chunks, &po, p->nodes, &p->err)))
		return rc;
	if ((rc = locus_catalog_create(&p->cat)))
		return rc;
	for (size_t i = 0; i < plat->n_nodes; i++)
		if (locus_catalog_add_host(p->cat, plat->nodes[i].name, plat->nodes[i].rack) < 0)
			return LOCUS_ENOMEM;
	long d = locus_catalog_add_dataset(p->cat, a->dataset);
	if (d < 0)
		return cli_set_error(&p->err, (int)d, NULL, "dataset name \"%s\": %s", a->dataset,
				     d == LOCUS_EINVAL
					 ? "expected a non-empty name without control characters"
					 : locus_strerror((int)d));
	p->d = (size_t)d;
	for (size_t c = 0; c < p->n_chunks; c++) {
		long ci =
		    locus_catalog_add_chunk(p->cat, p->d, p->lengths[c], p->nodes + c * a->replicas,
					    (uint32_t)a->replicas, 0);
		if (ci < 0)
			return (int)ci;
	}
	return 0;
}

/* The catalog first, under its lock, as far as a temporary file next to
 * it: a catalog that cannot be read, merged or written stops the run
 * before the store is touched. Then the store, then the catalog renamed
 * into place. */
static int place_write(struct place *p, const struct place_args *a)
{
	int rc;
	if (a->catalog && (rc = prepare_catalog(a, p->cat, &p->cat_lock, &p->staged, &p->err)))
		return rc;
	if (a->store) {
		struct file_source fs;
		p->fd = open(p->data, O_RDONLY | O_CLOEXEC);
		if (p->fd < 0)
			return cli_set_error(&p->err, LOCUS_EIO, p->data, "cannot open: %s",
					     strerror(errno));
		fs.fd = p->fd;
		if ((rc = locus_store_write(p->cat, p->d, a->store, read_bytes, &fs, a->force,
					    &p->err)))
			return rc;
	}
	if (a->catalog && cli_outputs_commit("place", &p->staged)) {
		/* The temporary was written next to the catalog, so this is
		 * rare: take the new copies out of the store again. */
		if (a->store && !a->force)
			unplace_store(a, p->cat, p->d);
		return CLI_EXIT_FAIL;
	}
	return 0;
}

int cmd_place(int argc, char **argv)
{
	struct place_args a;
	struct place p = {.fd = -1, .cat_lock = -1};
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (a.platform)
		rc = locus_platform_load(&p.plat, a.platform, &p.err);
	else
		rc = locus_platform_generate(&p.plat, (size_t)a.nodes, (size_t)a.racks, 1, "node");
	if (!rc)
		rc = place_data(&p, &a);
	if (!rc)
		rc = place_catalog(&p, &a);
	if (!rc)
		rc = place_write(&p, &a);
	size_t *counts = NULL;
	if (!rc && !(counts = cli_calloc(p.cat->n_hosts, sizeof *counts)))
		rc = LOCUS_ENOMEM;
	if (!rc) {
		locus_catalog_replica_counts(p.cat, counts);
		print_summary(&a, p.cat, p.d, counts);
	}
	free(counts);
	int status = rc < 0 ? cli_error("place", &p.err, rc) : rc;
	place_fini(&p);
	return status;
}
