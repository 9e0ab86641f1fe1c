/*
 * Agreeing on a run before its first event (engine.h): which node each
 * rank is on, what the store holds (each node lists only its own
 * directory), what the journal says is done, who schedules and who works,
 * and the workload every rank's policy instance is built from.
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
#include "mpi/engine.h"
#include "mpi/journal.h"

int locus__mpi_agree(struct engine *e, int rc)
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
static int bcast_blob(struct engine *e, char **data, size_t *len)
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
	for (size_t at = 0; at < n; at += DATA_PIECE) {
		size_t part = n - at < DATA_PIECE ? n - at : DATA_PIECE;
		MPI_Bcast(*data + at, (int)part, MPI_BYTE, 0, e->comm);
	}
	(*data)[n] = 0;
	return 0;
}

/* Ranks to nodes. Fills e->rank_node; *names gets one name per node (the
 * platform's names) and *dirs, on node leaders, the store directory of
 * their node (or NULL). */
static int map_nodes(struct engine *e, char ***names, size_t *n_nodes, char **my_dir)
{
	const struct locus_mpi_options *o = e->opt;
	int rc = 0;
	*names = NULL;
	*n_nodes = 0;
	*my_dir = NULL;
	e->rank_node = locus__calloc((size_t)e->size, sizeof *e->rank_node);
	if (!e->rank_node)
		rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if ((rc = locus__mpi_agree(e, rc)))
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
		if ((rc = locus__mpi_agree(e, rc))) {
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
		return locus__mpi_agree(e, rc);
	}
	/* Nodes by processor name, in the order of their first rank. */
	char me[MPI_MAX_PROCESSOR_NAME + 1] = {0};
	int len;
	MPI_Get_processor_name(me, &len);
	char *all = locus__calloc((size_t)e->size, MPI_MAX_PROCESSOR_NAME + 1);
	rc = locus__mpi_agree(
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
	return locus__mpi_agree(e, rc);
}

/* Rank 0's error when no node of the run has a directory in the store:
 * the hosts it looked for and a few of the names the store has (the scan
 * would say "no dataset ... under 0 node directories" of a store that has
 * some). */
static int no_node_dir(struct engine *e, char *const *names, size_t n_nodes)
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
static int gather_catalog(struct engine *e, char *const *names, size_t n_nodes, const char *my_dir,
			  int leader)
{
	struct locus__buf mine = {0};
	int rc = 0;
	if (leader) {
		rc = locus__buf_printf(&mine, "%s\n", my_dir ? my_dir : "");
		if (!rc && my_dir)
			rc = locus__store_list_node(e->opt->store, my_dir, &mine, e->err);
	}
	if ((rc = locus__mpi_agree(e, rc))) {
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
	if ((rc = locus__mpi_agree(e, rc)))
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
	if ((rc = locus__mpi_agree(e, rc)))
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
	if ((rc = locus__mpi_agree(e, rc))) {
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
	rc = locus__mpi_agree(e, rc);
out:
	locus__buf_fini(&mine);
	free(lens);
	free(displs);
	free(all);
	return rc;
}

struct skip_ctx {
	const unsigned char *skip;
	size_t *first; /* by dataset: its first chunk's flat index */
};

static int skip_done(void *user, size_t ds, size_t chunk)
{
	const struct skip_ctx *s = user;
	return s->skip[s->first[ds] + chunk];
}

/* Rank 0 reads the journal; everyone gets which chunks it says are done. */
static int read_journal(struct engine *e, unsigned char **skip, size_t *first)
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
	if ((rc = locus__mpi_agree(e, rc)))
		return rc;
	for (size_t at = 0; at < n; at += DATA_PIECE) {
		size_t part = n - at < DATA_PIECE ? n - at : DATA_PIECE;
		MPI_Bcast(*skip + at, (int)part, MPI_BYTE, 0, e->comm);
	}
	return 0;
}

/* Who schedules and who works: the policy's number of schedulers for the
 * workers left, scheduler k on rank floor(k P / S) (rank 0 is always
 * scheduler 0), workers numbered in node order. */
static int assign_roles(struct engine *e, size_t n_nodes, int *cores)
{
	size_t P = (size_t)e->size, S = 0;
	for (size_t s = 1; s < P && !S; s++)
		if (e->pol->schedulers(P - s, e->opt->schedulers) == s)
			S = s;
	if (!S && e->opt->schedulers)
		return locus__err(e->err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s cannot run %zu scheduler%s on %zu ranks (it needs at "
				  "least one worker rank, and its own number of schedulers)",
				  e->pol->name, e->opt->schedulers,
				  e->opt->schedulers == 1 ? "" : "s", P);
	if (!S)
		return locus__err(e->err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s finds no number of schedulers for %zu ranks",
				  e->pol->name, P);
	e->n_scheds = S;
	e->n_workers = P - S;
	e->n_procs = P;
	e->proc_rank = locus__calloc(P, sizeof *e->proc_rank);
	e->rank_proc = locus__calloc(P, sizeof *e->rank_proc);
	unsigned char *sched = locus__calloc(P, 1);
	if (!e->proc_rank || !e->rank_proc || !sched) {
		free(sched);
		return locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	for (size_t k = 0; k < S; k++) {
		size_t r = k * P / S;
		sched[r] = 1;
		e->proc_rank[e->n_workers + k] = (int)r;
		e->rank_proc[r] = (uint32_t)(e->n_workers + k);
	}
	size_t w = 0;
	for (size_t node = 0; node < n_nodes; node++)
		for (size_t r = 0; r < P; r++)
			if (!sched[r] && e->rank_node[r] == node) {
				e->proc_rank[w] = (int)r;
				e->rank_proc[r] = (uint32_t)w++;
				cores[node]++;
			}
	/* Who serves each node's chunks: its workers first, then its
	 * schedulers (they must stay quick to answer). */
	e->server_at = locus__calloc(n_nodes + 1, sizeof *e->server_at);
	e->servers = locus__calloc(P, sizeof *e->servers);
	if (!e->server_at || !e->servers) {
		free(sched);
		return locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	size_t at = 0;
	for (size_t node = 0; node < n_nodes; node++) {
		e->server_at[node] = at;
		for (int pass = 0; pass < 2; pass++)
			for (size_t r = 0; r < P; r++)
				if (e->rank_node[r] == node && sched[r] == pass)
					e->servers[at++] = (int)r;
	}
	e->server_at[n_nodes] = at;
	free(sched);
	e->proc = e->rank_proc[e->rank];
	e->is_worker = e->proc < e->n_workers;
	e->node = e->rank_node[e->rank];
	return 0;
}

/* The first chunk no rank can reach, as an error. */
static int check_reachable(struct engine *e)
{
	const struct locus_workload *wl = e->wl;
	for (size_t t = 0; t < wl->n_tasks; t++) {
		const struct locus_task *tk = &wl->tasks[t];
		if (tk->n_holders)
			continue;
		const struct locus_dataset *ds = &e->cat->datasets[tk->dataset];
		const struct locus_chunk *ch = &ds->chunks[tk->chunk];
		return locus__err(e->err, LOCUS_EINCOMPLETE, e->opt->store, 0, 0,
				  "chunk %u of \"%s\" is on no node that runs a rank (%s)%s",
				  tk->chunk, ds->name,
				  ch->n_replicas ? "its replicas are on nodes without ranks"
						 : "no node of the store holds it",
				  e->opt->emulate_nodes ? "; raise --emulate-nodes or -np" : "");
	}
	return 0;
}

/* Whether /dev/shm (memory) can hold this run's fetched chunks: it exists,
 * this process may write there, and it has room for four of the largest
 * chunk (a rank holds one at a time; several ranks share a node). */
static int shm_fits(const struct engine *e)
{
	struct statvfs fs;
	if (access("/dev/shm", W_OK | X_OK) != 0 || statvfs("/dev/shm", &fs) != 0)
		return 0;
	uint64_t largest = 0;
	for (size_t t = 0; t < e->wl->n_tasks; t++)
		if (e->wl->tasks[t].bytes > largest)
			largest = e->wl->tasks[t].bytes;
	return (double)fs.f_bavail * (double)fs.f_frsize >= 4.0 * (double)largest;
}

/* Whether process pid is there and not a zombie (dead, unreaped). */
static int pid_alive(long pid)
{
	if (pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
		return 0;
	char path[64], st[256];
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return 1;
	size_t n = fread(st, 1, sizeof st - 1, fp);
	fclose(fp);
	st[n] = 0;
	const char *paren = strrchr(st, ')');
	return !(paren && paren[1] == ' ' && paren[2] == 'Z');
}

/* Removes the scratch directories (locus-rankR-HOST-PID-XXXXXX) of this
 * host's processes that are gone: a rank killed with its launcher leaves
 * its own. Only this host's: with TMPDIR on a shared file system, a
 * directory of another host names a pid this host cannot check, and
 * deleting it could pull a live rank's chunk from under its command.
 * (A name without a host, from an older Locus, is left alone too.) */
static void sweep_scratch(const char *base, const char *host)
{
	DIR *d = opendir(base);
	struct dirent *de;
	size_t hl = strlen(host);
	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *nm = de->d_name, *p;
		int r, at = 0;
		long pid;
		if (sscanf(nm, "locus-rank%d-%n", &r, &at) != 1 || !at)
			continue;
		p = nm + at;
		if (!hl || strncmp(p, host, hl) != 0 || p[hl] != '-')
			continue;
		p += hl + 1;
		at = 0;
		if (sscanf(p, "%ld-%n", &pid, &at) != 1 || !at || strlen(p + at) != 6 ||
		    pid_alive(pid))
			continue;
		char path[4096];
		if (snprintf(path, sizeof path, "%s/%s", base, nm) < (int)sizeof path)
			locus__rmtree(path);
	}
	closedir(d);
}

static int make_scratch(struct engine *e)
{
	/* Where fetched chunks are written for the function: the option,
	 * else $TMPDIR, else memory (/dev/shm) when it has room, else /tmp.
	 * A file per fetched chunk is created and removed: on a disk file
	 * system that made inode allocation the largest cost of a dispatch
	 * (docs/mpi.md, "Performance"). */
	const char *base = e->opt->scratch;
	if (!base)
		base = getenv("TMPDIR");
	if ((!base || !*base) && shm_fits(e))
		base = "/dev/shm";
	if (!base || !*base)
		base = "/tmp";
	/* The host in the name: TMPDIR may be shared by several hosts, and
	 * only this host can tell whether one of its pids is alive. */
	char host[256] = "";
	if (gethostname(host, sizeof host - 1) != 0 || strchr(host, '/'))
		host[0] = 0;
	if (host[0])
		sweep_scratch(base, host);
	else
		snprintf(host, sizeof host, "unknown-host"); /* never swept */
	int n = snprintf(e->scratch, sizeof e->scratch, "%s/locus-rank%d-%s-%ld-XXXXXX", base,
			 e->rank, host, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof e->scratch - 64)
		return locus__err(e->err, LOCUS_ERANGE, base, 0, 0,
				  "the scratch directory's path is too long");
	if (!mkdtemp(e->scratch)) {
		int er = errno;
		e->scratch[0] = 0;
		return locus__err(e->err, LOCUS_EIO, base, 0, 0,
				  "cannot make a scratch directory: %s", strerror(er));
	}
	return 0;
}

int locus__mpi_setup(struct engine *e)
{
	const struct locus_mpi_options *o = e->opt;
	char **names = NULL, *my_dir = NULL;
	size_t n_nodes = 0, *first = NULL;
	unsigned char *skip = NULL;
	int *cores = NULL, rc = 0;

	/* Options: the same on every rank, so each checks them alike. */
	if (!o || !o->store)
		rc = locus__err(e->err, LOCUS_EINVAL, NULL, 0, 0, "no store given");
	else if (!(e->pol = locus_policy_find(o->policy ? o->policy : "scal")))
		rc = locus__err(e->err, LOCUS_EINVAL, NULL, 0, 0, "no policy \"%s\"", o->policy);
	else if (locus_policy_flags(e->pol) & (LOCUS_POLICY_GRAPHS | LOCUS_POLICY_RETRIES))
		rc =
		    locus__err(e->err, LOCUS_ENOTSUP, NULL, 0, 0,
			       "policy %s schedules task graphs, which the MPI engine does not run "
			       "yet (use locus sim)",
			       e->pol->name);
	else if ((rc = locus_policy_check(e->pol, LOCUS_POLICY_VERSION, LOCUS_MPI_OFFERS,
					  "the MPI runtime for chunks", e->err)))
		;
	else if (o->retries < 0 || o->emulate_net_bw < 0 || o->max_idle_sleep < 0)
		rc = locus__err(e->err, LOCUS_EINVAL, NULL, 0, 0,
				"retries, emulate_net_bw and max_idle_sleep must be >= 0");
	else if (e->size < 2)
		rc = locus__err(e->err, LOCUS_EINVAL, NULL, 0, 0,
				"a run needs at least 2 ranks: a scheduler and a worker");
	if ((rc = locus__mpi_agree(e, rc)))
		return rc;
	if ((rc = map_nodes(e, &names, &n_nodes, &my_dir)))
		goto out;
	int leader = 1;
	for (int r = 0; r < e->rank; r++)
		leader &= e->rank_node[r] != e->rank_node[e->rank];
	if ((rc = gather_catalog(e, names, n_nodes, my_dir, leader)))
		goto out;
	first = locus__calloc(e->cat->n_datasets + 1, sizeof *first);
	cores = locus__calloc(n_nodes, sizeof *cores);
	rc = first && cores ? 0 : locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if ((rc = locus__mpi_agree(e, rc)) || (rc = read_journal(e, &skip, first)))
		goto out;
	rc = assign_roles(e, n_nodes, cores);
	if (!rc)
		rc = locus_platform_create(&e->plat, (const char *const *)names, cores, n_nodes,
					   e->err);
	struct locus_work_spec none = {.dist = LOCUS_WORK_FIXED, .mean = 0};
	struct skip_ctx sk = {skip, first};
	if (!rc)
		rc = locus_workload_build_skip(&e->wl, e->plat, e->cat, o->dataset, &none, o->seed,
					       skip_done, &sk, e->err);
	if (!rc) {
		long only = o->dataset ? locus_catalog_find_dataset(e->cat, o->dataset) : -1;
		for (size_t d = 0; d < e->cat->n_datasets; d++)
			if (only < 0 || (size_t)only == d)
				e->total_chunks += e->cat->datasets[d].n_chunks;
		e->skipped = e->total_chunks - e->wl->n_tasks;
		rc = check_reachable(e);
	}
	if ((rc = locus__mpi_agree(e, rc)))
		goto out;
	/* This rank's process of the policy (none when nothing is left). */
	rc = locus_kv_parse(&e->kv, o->policy_opts, e->err);
	if (!rc && e->wl->n_tasks) {
		struct locus_policy_ctx ctx = {.wl = e->wl,
					       .n_workers = e->n_workers,
					       .n_schedulers = e->n_scheds,
					       .seed = o->seed,
					       .opts = &e->kv};
		rc = e->pol->create(&e->pstate, &ctx, e->err);
		if (!rc && locus_kv_unused(&e->kv))
			rc = locus__err(e->err, LOCUS_EINVAL, NULL, 0, 0,
					"policy %s has no option \"%s\"", e->pol->name,
					locus_kv_unused(&e->kv));
	}
	if (!rc && e->is_worker)
		rc = make_scratch(e);
	if (!rc && e->rank == 0) {
		e->outcome = locus__calloc(e->wl->n_tasks + 1, 1);
		e->worker_idle = locus__calloc(e->n_workers, 1);
		if (!e->outcome || !e->worker_idle)
			rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	rc = locus__mpi_agree(e, rc);
out:
	for (size_t i = 0; i < n_nodes; i++)
		free(names ? names[i] : NULL);
	free(names);
	free(my_dir);
	free(first);
	free(skip);
	free(cores);
	return rc;
}
