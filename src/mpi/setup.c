/*
 * Agreeing on a run of chunks before it starts (chunks.h): which node each
 * rank is on, what the store holds (each node lists only its own
 * directory) and what the journal says is done.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "locality/store.h"
#include "locus/locality.h"
#include "mpi/chunks.h"
#include "mpi/journal.h"

int locus__chunks_agree(struct chunks *e, int rc)
{
	int mine = rc ? e->rank : e->size, first;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, e->comm);
	if (first == e->size)
		return 0;
	struct locus_error copy;
	if (e->rank == first) {
		copy = *e->err;
		if (!copy.code) {
			copy.code = rc;
			snprintf(copy.message, sizeof copy.message, "%s", locus_strerror(rc));
		}
	}
	MPI_Bcast(&copy, (int)sizeof copy, MPI_BYTE, first, e->comm);
	*e->err = copy;
	return copy.code;
}

/* Broadcasts a buffer from rank 0: *data and *len on the others are
 * allocated (NUL-terminated). */
static int bcast_blob(struct chunks *e, char **data, size_t *len)
{
	unsigned long long n = e->rank == 0 ? *len : 0;
	MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, e->comm);
	if (e->rank != 0) {
		*data = malloc(n + 1);
		*len = n;
	}
	int ok = *data != NULL, all;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, e->comm);
	if (!all)
		return locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	for (size_t at = 0; at < n; at += BCAST_PIECE) {
		size_t part = n - at < BCAST_PIECE ? n - at : BCAST_PIECE;
		MPI_Bcast(*data + at, (int)part, MPI_BYTE, 0, e->comm);
	}
	(*data)[n] = 0;
	return 0;
}

void locus__mpi_node_name(char *buf)
{
	const char *slurm = getenv("SLURMD_NODENAME");
	int len = 0;
	memset(buf, 0, MPI_MAX_PROCESSOR_NAME + 1);
	if (slurm && *slurm && strlen(slurm) < MPI_MAX_PROCESSOR_NAME)
		memcpy(buf, slurm, strlen(slurm));
	else
		MPI_Get_processor_name(buf, &len);
}

/* Ranks to nodes. Fills e->rank_node; *names gets one name per node (the
 * platform's names) and *dirs, on node leaders, the store directory of
 * their node (or NULL). */
static int map_nodes(struct chunks *e, char ***names, size_t *n_nodes, char **my_dir)
{
	const struct locus_mpi_options *o = e->opt;
	int rc = 0;
	*names = NULL;
	*n_nodes = 0;
	*my_dir = NULL;
	e->rank_node = locus__calloc((size_t)e->size, sizeof *e->rank_node);
	if (!e->rank_node)
		rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if ((rc = locus__chunks_agree(e, rc)))
		return rc;
	if (o->emulate_nodes) {
		/* Rank 0 lists the store's node directories for everyone. */
		struct locus__buf blob = {0};
		char **dirs = NULL;
		size_t n_dirs = 0;
		if (e->rank == 0) {
			rc = locus__store_nodes(o->store, &dirs, &n_dirs, e->err);
			if (!rc && n_dirs < o->emulate_nodes)
				rc =
				    locus__err(e->err, LOCUS_EINVAL, o->store, 0, 0,
					       "--emulate-nodes %zu, but the store has %zu node "
					       "director%s",
					       o->emulate_nodes, n_dirs, n_dirs == 1 ? "y" : "ies");
			for (size_t i = 0; !rc && i < o->emulate_nodes; i++)
				rc = locus__buf_printf(&blob, "%s\n", dirs[i]);
			locus__store_nodes_free(dirs, n_dirs);
		}
		if ((rc = locus__chunks_agree(e, rc))) {
			locus__buf_fini(&blob);
			return rc;
		}
		size_t len = blob.len;
		if ((rc = bcast_blob(e, &blob.data, &len)))
			return rc;
		*names = locus__calloc(o->emulate_nodes, sizeof **names);
		size_t pos = 0, ll;
		const char *line;
		while (*names && *n_nodes < o->emulate_nodes &&
		       locus__next_line(blob.data, len, &pos, &line, &ll)) {
			(*names)[*n_nodes] = malloc(ll + 1);
			if (!(*names)[*n_nodes])
				break;
			memcpy((*names)[*n_nodes], line, ll);
			(*names)[(*n_nodes)++][ll] = 0;
		}
		free(blob.data);
		if (*n_nodes < o->emulate_nodes)
			rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		for (int r = 0; r < e->size; r++)
			e->rank_node[r] = (uint32_t)((size_t)r % o->emulate_nodes);
		if (!rc && (size_t)e->rank < o->emulate_nodes &&
		    !(*my_dir = locus__strdup((*names)[e->rank])))
			rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		return locus__chunks_agree(e, rc);
	}
	/* Nodes by processor name, in the order of their first rank. */
	char me[MPI_MAX_PROCESSOR_NAME + 1];
	locus__mpi_node_name(me);
	char *all = locus__calloc((size_t)e->size, MPI_MAX_PROCESSOR_NAME + 1);
	rc = locus__chunks_agree(
	    e, all ? 0 : locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory"));
	if (rc) {
		free(all);
		return rc;
	}
	MPI_Allgather(me, MPI_MAX_PROCESSOR_NAME + 1, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME + 1,
		      MPI_CHAR, e->comm);
	*names = locus__calloc((size_t)e->size, sizeof **names);
	int leader = 0;
	for (int r = 0; *names && r < e->size && !rc; r++) {
		const char *nm = all + (size_t)r * (MPI_MAX_PROCESSOR_NAME + 1);
		size_t k = 0;
		while (k < *n_nodes && strcmp((*names)[k], nm))
			k++;
		if (k == *n_nodes) {
			if (!((*names)[k] = locus__strdup(nm)))
				break;
			(*n_nodes)++;
			if (r == e->rank)
				leader = 1;
		}
		e->rank_node[r] = (uint32_t)k;
	}
	free(all);
	if (!*names || *n_nodes == 0 || !(*names)[*n_nodes - 1])
		rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	/* A node leader finds its own directory in the store. */
	if (!rc && leader) {
		char **dirs = NULL;
		size_t n_dirs = 0;
		rc = locus__store_nodes(o->store, &dirs, &n_dirs, e->err);
		for (size_t i = 0; !rc && i < n_dirs; i++)
			if (locus_host_match(dirs[i], me)) {
				if (!(*my_dir = locus__strdup(dirs[i])))
					rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0,
							"out of memory");
				break;
			}
		locus__store_nodes_free(dirs, n_dirs);
	}
	return locus__chunks_agree(e, rc);
}

/* Rank 0's error when no node of the run has a directory in the store:
 * the hosts it looked for and a few of the names the store has (the scan
 * would say "no dataset ... under 0 node directories" of a store that has
 * some). */
static int no_node_dir(struct chunks *e, char *const *names, size_t n_nodes)
{
	char **dirs = NULL;
	size_t n_dirs = 0;
	int rc = locus__store_nodes(e->opt->store, &dirs, &n_dirs, e->err);
	if (rc)
		return rc;
	if (!n_dirs) {
		locus__store_nodes_free(dirs, n_dirs);
		return 0; /* an empty store: the scan says so */
	}
	struct locus__buf hosts = {0}, have = {0};
	enum { SHOWN = 4 };
	for (size_t i = 0; !rc && i < n_nodes && i < SHOWN; i++)
		rc = locus__buf_printf(&hosts, "%s\"%s\"", i ? ", " : "", names[i]);
	if (!rc && n_nodes > SHOWN)
		rc = locus__buf_printf(&hosts, " and %zu more", n_nodes - SHOWN);
	for (size_t i = 0; !rc && i < n_dirs && i < SHOWN; i++)
		rc = locus__buf_printf(&have, "%s\"%s\"", i ? ", " : "", dirs[i]);
	if (!rc && n_dirs > SHOWN)
		rc = locus__buf_printf(&have, " and %zu more", n_dirs - SHOWN);
	if (rc)
		rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	else
		rc = locus__err(e->err, LOCUS_EINVAL, e->opt->store, 0, 0,
				"no node directory of the store is named for the host%s of this "
				"run (%s); the store has %zu: %s. A node's directory is named "
				"after its host (names match ignoring case and domain); on one "
				"machine, emulate the nodes (--emulate-nodes)",
				n_nodes == 1 ? "" : "s", hosts.data, n_dirs, have.data);
	locus__buf_fini(&hosts);
	locus__buf_fini(&have);
	locus__store_nodes_free(dirs, n_dirs);
	return rc;
}

/* Every node leader lists its directory; rank 0 assembles the catalog and
 * sends it, with each node's directory name, to everyone. */
static int gather_catalog(struct chunks *e, char *const *names, size_t n_nodes, const char *my_dir,
			  int leader)
{
	struct locus__buf mine = {0};
	int rc = 0;
	if (leader) {
		rc = locus__buf_printf(&mine, "%s\n", my_dir ? my_dir : "");
		if (!rc && my_dir)
			rc = locus__store_list_node(e->opt->store, my_dir, &mine, e->err);
	}
	if ((rc = locus__chunks_agree(e, rc))) {
		locus__buf_fini(&mine);
		return rc;
	}
	int n = (int)mine.len, *lens = NULL, *displs = NULL;
	char *all = NULL;
	if (mine.len > (size_t)1 << 30)
		rc = locus__err(e->err, LOCUS_ERANGE, e->opt->store, 0, 0,
				"a node's listing is larger than 1 GiB");
	if (e->rank == 0) {
		lens = locus__calloc((size_t)e->size, sizeof *lens);
		displs = locus__calloc((size_t)e->size, sizeof *displs);
		if (!lens || !displs)
			rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	if ((rc = locus__chunks_agree(e, rc)))
		goto out;
	MPI_Gather(&n, 1, MPI_INT, lens, 1, MPI_INT, 0, e->comm);
	size_t total = 0;
	if (e->rank == 0) {
		for (int r = 0; r < e->size; r++) {
			displs[r] = (int)total;
			total += (size_t)lens[r];
		}
		if (total > INT32_MAX)
			rc = locus__err(e->err, LOCUS_ERANGE, e->opt->store, 0, 0,
					"the store's listing is larger than 2 GiB");
		else if (!(all = malloc(total + 1)))
			rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	if ((rc = locus__chunks_agree(e, rc)))
		goto out;
	MPI_Gatherv(mine.data ? mine.data : "", n, MPI_CHAR, all, lens, displs, MPI_CHAR, 0,
		    e->comm);
	struct locus__buf blob = {0};
	if (e->rank == 0) {
		/* Listings by node: the leader of node k is its lowest rank. */
		char **dir_of = locus__calloc(n_nodes, sizeof *dir_of);
		const char **lnames = locus__calloc(n_nodes, sizeof *lnames);
		const char **ltexts = locus__calloc(n_nodes, sizeof *ltexts);
		size_t *ltlens = locus__calloc(n_nodes, sizeof *ltlens);
		size_t m = 0;
		if (!dir_of || !lnames || !ltexts || !ltlens)
			rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		for (int r = 0; !rc && r < e->size; r++) {
			if (!lens[r])
				continue;
			char *text = all + displs[r], *nl = memchr(text, '\n', (size_t)lens[r]);
			size_t k = e->rank_node[r];
			*nl = 0;
			if (*text) {
				lnames[m] = text;
				ltexts[m] = nl + 1;
				ltlens[m] = (size_t)lens[r] - (size_t)(nl + 1 - text);
				m++;
				dir_of[k] = text;
			}
		}
		struct locus_catalog *cat = NULL;
		if (!rc && !m)
			rc = no_node_dir(e, names, n_nodes);
		if (!rc)
			rc = locus__store_assemble(&cat, e->opt->store, lnames, ltexts, ltlens, m,
						   e->err);
		for (size_t k = 0; !rc && k < n_nodes; k++)
			rc = locus__buf_printf(&blob, "%s\n", dir_of[k] ? dir_of[k] : "");
		if (!rc) {
			char *ctext = NULL;
			size_t clen = 0;
			FILE *fp = open_memstream(&ctext, &clen);
			if (!fp || locus_catalog_print(cat, fp) || fclose(fp) ||
			    locus__buf_append(&blob, ctext, clen))
				rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
			free(ctext);
		}
		locus_catalog_destroy(cat);
		free(dir_of);
		free(lnames);
		free(ltexts);
		free(ltlens);
	}
	if ((rc = locus__chunks_agree(e, rc))) {
		locus__buf_fini(&blob);
		goto out;
	}
	size_t blen = blob.len;
	if ((rc = bcast_blob(e, &blob.data, &blen)))
		goto out;
	/* Every rank reads the same text: node directories, then the catalog. */
	e->node_dir = locus__calloc(n_nodes, sizeof *e->node_dir);
	e->n_nodes = e->node_dir ? n_nodes : 0;
	size_t pos = 0, ll;
	const char *line;
	for (size_t k = 0; e->node_dir && k < n_nodes && !rc; k++) {
		if (!locus__next_line(blob.data, blen, &pos, &line, &ll)) {
			rc = LOCUS_EPARSE;
			break;
		}
		if (ll && !(e->node_dir[k] = malloc(ll + 1))) {
			rc = LOCUS_ENOMEM;
			break;
		}
		if (ll) {
			memcpy(e->node_dir[k], line, ll);
			e->node_dir[k][ll] = 0;
		}
	}
	if (!e->node_dir)
		rc = LOCUS_ENOMEM;
	if (!rc)
		rc = locus_catalog_parse(&e->cat, blob.data + pos, blen - pos, "the run's catalog",
					 e->err);
	else
		locus__err(e->err, rc, NULL, 0, 0, "cannot read the run's catalog: %s",
			   locus_strerror(rc));
	free(blob.data);
	rc = locus__chunks_agree(e, rc);
out:
	locus__buf_fini(&mine);
	free(lens);
	free(displs);
	free(all);
	return rc;
}

/* Rank 0 reads the journal; everyone gets which chunks it says are done. */
static int read_journal(struct chunks *e, unsigned char **skip, size_t *first)
{
	const struct locus_catalog *cat = e->cat;
	size_t n = 0;
	int rc = 0;
	for (size_t d = 0; d < cat->n_datasets; d++) {
		first[d] = n;
		n += cat->datasets[d].n_chunks;
	}
	first[cat->n_datasets] = n;
	*skip = locus__calloc(n + 1, 1);
	if (!*skip)
		rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	e->journal_fd = -1;
	if (!rc && e->rank == 0 && e->opt->journal) {
		struct locus__journal_rec *recs = NULL;
		size_t n_recs = 0, n_skip = 0;
		rc = locus__journal_open(e->opt->journal, e->opt->wait_journal, &e->journal_fd,
					 &recs, &n_recs, e->err);
		if (!rc)
			rc = locus__journal_match(recs, n_recs, e->opt->journal, cat, *skip,
						  &n_skip, e->err);
		locus__journal_recs_free(recs, n_recs);
	}
	if ((rc = locus__chunks_agree(e, rc)))
		return rc;
	for (size_t at = 0; at < n; at += BCAST_PIECE) {
		size_t part = n - at < BCAST_PIECE ? n - at : BCAST_PIECE;
		MPI_Bcast(*skip + at, (int)part, MPI_BYTE, 0, e->comm);
	}
	return 0;
}

int locus__chunks_setup(struct chunks *e)
{
	char *my_dir = NULL;
	int rc = map_nodes(e, &e->names, &e->n_nodes, &my_dir);
	if (rc)
		goto out;
	int leader = 1;
	for (int r = 0; r < e->rank; r++)
		leader &= e->rank_node[r] != e->rank_node[e->rank];
	if ((rc = gather_catalog(e, e->names, e->n_nodes, my_dir, leader)))
		goto out;
	e->first = locus__calloc(e->cat->n_datasets + 1, sizeof *e->first);
	rc = e->first ? 0 : locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if (!(rc = locus__chunks_agree(e, rc)))
		rc = read_journal(e, &e->skip, e->first);
out:
	free(my_dir);
	return rc;
}
