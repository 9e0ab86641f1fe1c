/* locus place: split data into chunks and place replicas on nodes. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char *const help =
    "usage: locus place [OPTIONS] (--input FILE | --generate SIZE | --chunks N)\n"
    "                   (--store DIR | --catalog FILE)...\n"
    "\n"
    "Splits a dataset into chunks, chooses the nodes that hold each chunk's\n"
    "replicas, and writes the chunks into a node-local store\n"
    "(DIR/<node>/<dataset>/chunk-...) and/or the chunk map into a catalog.\n"
    "Nothing is left half-written: a failed run leaves store and catalog as\n"
    "they were.\n"
    "\n"
    "Data:\n"
    "  -i, --input FILE       split this file\n"
    "  -g, --generate SIZE    make SIZE bytes of synthetic data (e.g. 64M)\n"
    "      --content KIND     synthetic content: fasta (default), random, zero\n"
    "  -n, --chunks N         no data: N chunks of --chunk-size (catalog only)\n"
    "  -c, --chunk-size SIZE  chunk size (default 64M; K, M, G are powers of 1024)\n"
    "      --split MODE       bytes (default): exact sizes; lines: end chunks at a\n"
    "                         newline; fasta: end chunks before a '>' record\n"
    "  -d, --dataset NAME     dataset name (default: the input's file name,\n"
    "                         or \"synthetic\")\n"
    "\n"
    "Nodes:\n"
    "  -p, --platform FILE    nodes and racks from a platform file (docs/formats.md)\n"
    "  -N, --nodes N          or N generated nodes node01..nodeN (default 8)\n"
    "      --racks K          racks for generated nodes (default 2)\n"
    "\n"
    "Placement:\n"
    "  -P, --policy NAME      hdfs (default): HDFS's rack-aware rule;\n"
    "                         random: distinct nodes uniformly;\n"
    "                         skewed: replicas per node with a set std deviation\n"
    "  -r, --replicas R       replicas per chunk (default 3)\n"
    "      --writer NODE      hdfs: the writer's node takes every first replica\n"
    "      --skew-std S       skewed: target standard deviation of replicas per node\n"
    "  -s, --seed S           random seed (default 1); same seed, same placement\n"
    "\n"
    "Output:\n"
    "  -o, --store DIR        write the chunks into this node-local store\n"
    "  -C, --catalog FILE     write (or add the dataset to) this catalog\n"
    "  -f, --force            replace the dataset in the store, or the catalog\n"
    "      --json             print the summary as JSON\n"
    "  -h, --help             show this help\n"
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

static int parse_args(int argc, char **argv, struct place_args *a)
{
	static const struct option opts[] = {
	    {"input", required_argument, 0, 'i'},
	    {"generate", required_argument, 0, 'g'},
	    {"content", required_argument, 0, 1},
	    {"chunks", required_argument, 0, 'n'},
	    {"chunk-size", required_argument, 0, 'c'},
	    {"split", required_argument, 0, 2},
	    {"dataset", required_argument, 0, 'd'},
	    {"platform", required_argument, 0, 'p'},
	    {"nodes", required_argument, 0, 'N'},
	    {"racks", required_argument, 0, 3},
	    {"policy", required_argument, 0, 'P'},
	    {"replicas", required_argument, 0, 'r'},
	    {"writer", required_argument, 0, 4},
	    {"skew-std", required_argument, 0, 5},
	    {"seed", required_argument, 0, 's'},
	    {"store", required_argument, 0, 'o'},
	    {"catalog", required_argument, 0, 'C'},
	    {"force", no_argument, 0, 'f'},
	    {"json", no_argument, 0, 6},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	int c, rc = 0;
	*a = (struct place_args){.chunk_size = 64ull << 20,
				 .nodes = 8,
				 .racks = 2,
				 .replicas = 3,
				 .seed = 1,
				 .content = "fasta"};
	optind = 1;
	opterr = 0;
	while (!rc &&
	       (c = getopt_long(argc, argv, ":i:g:n:c:d:p:N:P:r:s:o:C:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			a->input = optarg;
			break;
		case 'g':
			rc = cli_size("place", "--generate", optarg, &a->generate);
			a->have_generate = 1;
			break;
		case 1:
			a->content = optarg;
			break;
		case 'n':
			rc = cli_uint("place", "--chunks", optarg, &a->chunks);
			a->have_chunks = 1;
			break;
		case 'c':
			rc = cli_size("place", "--chunk-size", optarg, &a->chunk_size);
			break;
		case 2:
			if (locus_split_mode_parse(optarg, &a->split))
				rc = cli_usage_error(
				    "place", "--split expects bytes, lines or fasta, got \"%s\"",
				    optarg);
			break;
		case 'd':
			a->dataset = optarg;
			break;
		case 'p':
			a->platform = optarg;
			break;
		case 'N':
			rc = cli_uint("place", "--nodes", optarg, &a->nodes);
			break;
		case 3:
			rc = cli_uint("place", "--racks", optarg, &a->racks);
			break;
		case 'P':
			if (locus_place_policy_parse(optarg, &a->policy))
				rc = cli_usage_error(
				    "place", "--policy expects hdfs, random or skewed, got \"%s\"",
				    optarg);
			break;
		case 'r':
			rc = cli_uint("place", "--replicas", optarg, &a->replicas);
			break;
		case 4:
			a->writer = optarg;
			break;
		case 5:
			rc = cli_double("place", "--skew-std", optarg, &a->skew_std);
			a->have_skew = 1;
			break;
		case 's':
			rc = cli_uint("place", "--seed", optarg, &a->seed);
			break;
		case 'o':
			a->store = optarg;
			break;
		case 'C':
			a->catalog = optarg;
			break;
		case 'f':
			a->force = 1;
			break;
		case 6:
			a->json = 1;
			break;
		case 'h':
			fputs(help, stdout);
			return -1;
		case ':':
			return cli_usage_error("place", "option %s needs a value",
					       argv[optind - 1]);
		default:
			return cli_usage_error("place", "unknown option %s", argv[optind - 1]);
		}
	}
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

int cmd_place(int argc, char **argv)
{
	struct place_args a;
	struct locus_error err = {0};
	struct locus_platform *plat = NULL;
	struct locus_catalog *cat = NULL;
	uint64_t *lengths = NULL;
	uint32_t *nodes = NULL, *reps = NULL;
	size_t *counts = NULL, n_chunks = 0;
	char *tmpdata = NULL;
	const char *data = NULL;
	int fd = -1, status = 0, cat_lock = -1;
	struct cli_outputs staged = {0};
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;

	if (a.platform)
		rc = locus_platform_load(&plat, a.platform, &err);
	else
		rc = locus_platform_generate(&plat, (size_t)a.nodes, (size_t)a.racks, 1, "node");
	if (rc)
		goto fail;

	/* The data: a real file, or synthetic content in a temporary file. */
	if (a.have_generate) {
		const char *base = getenv("TMPDIR");
		size_t n = strlen(base && *base ? base : "/tmp") + 40;
		tmpdata = malloc(n);
		if (!tmpdata) {
			rc = LOCUS_ENOMEM;
			goto fail;
		}
		snprintf(tmpdata, n, "%s/locus-synth.%ld", base && *base ? base : "/tmp",
			 (long)getpid());
		enum locus_synth_kind kind;
		locus_synth_kind_parse(a.content, &kind);
		if ((rc = locus_synth_write(tmpdata, a.generate, kind, a.seed, &err)))
			goto fail;
		data = tmpdata;
	} else if (a.input) {
		data = a.input;
	}
	if (data) {
		if ((rc = locus_split_file(&lengths, &n_chunks, data, a.chunk_size, a.split, &err)))
			goto fail;
	} else {
		n_chunks = (size_t)a.chunks;
		lengths = cli_calloc(n_chunks, sizeof *lengths);
		if (!lengths) {
			rc = LOCUS_ENOMEM;
			goto fail;
		}
		for (size_t c = 0; c < n_chunks; c++)
			lengths[c] = a.chunk_size;
	}

	struct locus_place_options po = {.policy = a.policy,
					 .replicas = (unsigned)a.replicas,
					 .seed = a.seed,
					 .writer = a.writer,
					 .skew_std = a.skew_std};
	if (a.replicas == 0 || a.replicas > plat->n_nodes) {
		status = cli_usage_error(
		    "place", "--replicas must be between 1 and the number of nodes (%zu)",
		    plat->n_nodes);
		goto out;
	}
	nodes = cli_calloc(n_chunks * a.replicas, sizeof *nodes);
	if (!nodes) {
		rc = LOCUS_ENOMEM;
		goto fail;
	}
	if ((rc = locus_place(plat, n_chunks, &po, nodes, &err)))
		goto fail;

	/* The catalog of this dataset: every node is a host, in platform
	 * order, so nodes without a replica still show. */
	if ((rc = locus_catalog_create(&cat)))
		goto fail;
	for (size_t i = 0; i < plat->n_nodes; i++)
		if (locus_catalog_add_host(cat, plat->nodes[i].name, plat->nodes[i].rack) < 0) {
			rc = LOCUS_ENOMEM;
			goto fail;
		}
	long d = locus_catalog_add_dataset(cat, a.dataset);
	if (d < 0) {
		rc = cli_set_error(&err, (int)d, NULL, "dataset name \"%s\": %s", a.dataset,
				   d == LOCUS_EINVAL
				       ? "expected a non-empty name without control characters"
				       : locus_strerror((int)d));
		goto fail;
	}
	for (size_t c = 0; c < n_chunks; c++) {
		long ci = locus_catalog_add_chunk(cat, (size_t)d, lengths[c],
						  nodes + c * a.replicas, (uint32_t)a.replicas, 0);
		if (ci < 0) {
			rc = (int)ci;
			goto fail;
		}
	}

	/* The catalog first, under its lock, as far as a temporary file next
	 * to it: a catalog that cannot be read, merged or written stops the
	 * run before the store is touched. */
	if (a.catalog && (rc = prepare_catalog(&a, cat, &cat_lock, &staged, &err))) {
		if (rc < 0)
			goto fail;
		status = rc;
		goto out;
	}
	if (a.store) {
		struct file_source fs;
		fd = open(data, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			rc = cli_set_error(&err, LOCUS_EIO, data, "cannot open: %s",
					   strerror(errno));
			goto fail;
		}
		fs.fd = fd;
		if ((rc = locus_store_write(cat, (size_t)d, a.store, read_bytes, &fs, a.force,
					    &err)))
			goto fail;
	}
	if (a.catalog && cli_outputs_commit("place", &staged)) {
		/* The temporary was written next to the catalog, so this is
		 * rare: take the new copies out of the store again. */
		if (a.store && !a.force)
			unplace_store(&a, cat, (size_t)d);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	counts = cli_calloc(cat->n_hosts, sizeof *counts);
	if (!counts) {
		rc = LOCUS_ENOMEM;
		goto fail;
	}
	locus_catalog_replica_counts(cat, counts);
	print_summary(&a, cat, (size_t)d, counts);
	goto out;
fail:
	status = cli_error("place", &err, rc);
out:
	cli_outputs_discard(&staged);
	if (cat_lock >= 0)
		close(cat_lock); /* releases the lock */
	if (fd >= 0)
		close(fd);
	if (tmpdata) {
		unlink(tmpdata);
		free(tmpdata);
	}
	free(lengths);
	free(nodes);
	free(reps);
	free(counts);
	locus_catalog_destroy(cat);
	locus_platform_destroy(plat);
	return status;
}
