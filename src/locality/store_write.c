/*
 * Writing a dataset into a node-local store, all or nothing.
 *
 * Phase 1 writes each node's copy under ROOT/<node>/.locus-tmp.<pid>.<k>;
 * phase 2, only when every copy is complete and synced, renames each into
 * place (moving a replaced copy aside first). Any failure removes the
 * temporaries and undoes the renames already made, so the store is left as
 * it was.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "locus/locality.h"
#include "locus/place.h"

#define PIECE (1u << 20)

/* A dataset name in a store is a relative path of plain components. */
static int check_name(const char *name, struct locus_error *err)
{
	const char *p = name;
	if (!*p || *p == '/')
		return locus__err(
		    err, LOCUS_EINVAL, NULL, 0, 0,
		    "dataset name \"%s\": a store needs a relative path (no leading '/')", name);
	while (*p) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.') ||
		    p[0] == '.')
			return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
					  "dataset name \"%s\": components must be non-empty and "
					  "not start with '.'",
					  name);
		p += n;
		if (*p == '/')
			p++;
		if (!*p && p[-1] == '/')
			return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
					  "dataset name \"%s\" ends with '/'", name);
	}
	return 0;
}

static int check_host(const char *host, struct locus_error *err)
{
	if (!*host || host[0] == '.' || strchr(host, '/'))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "host name \"%s\" cannot name a store directory", host);
	return 0;
}

struct node_copy {
	uint32_t host;
	char *tmp;   /* ROOT/<host>/.locus-tmp.<pid>.<k> */
	char *final; /* ROOT/<host>/<dataset> */
	char *old;   /* where a replaced copy is moved aside */
	char *node;  /* ROOT/<host> when this write created it, else NULL */
	int state;   /* 0 written in tmp, 1 old moved aside, 2 renamed in */
};

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void fsync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

static char *join(const char *a, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(b) + (c ? strlen(c) + 1 : 0) + 2;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s/%s%s%s", a, b, c ? "/" : "", c ? c : "");
	return s;
}

static char *parent_of(const char *path)
{
	char *p = locus__strdup(path);
	char *slash = p ? strrchr(p, '/') : NULL;
	if (slash)
		*slash = 0;
	return p;
}

/* Adds, as copies without a temporary, every node directory under `root`
 * that holds dataset `name` and is not yet in `copies`. */
static int add_stale_copies(const char *root, const char *name, struct node_copy **copies,
			    size_t *cap, size_t *n, struct locus_error *err)
{
	DIR *d = opendir(root);
	struct dirent *e;
	int rc = 0;
	if (!d)
		return 0; /* a new store */
	while (!rc && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *final = join(root, e->d_name, name);
		struct stat st;
		int known = 0;
		if (!final) {
			rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
			break;
		}
		for (size_t i = 0; i < *n; i++)
			known |= strcmp((*copies)[i].final, final) == 0;
		if (known || lstat(final, &st) != 0) {
			free(final);
			continue;
		}
		char tag[64];
		snprintf(tag, sizeof tag, ".locus-old.%ld.s%zu", (long)getpid(), *n);
		if (locus__grow(copies, cap, *n + 1, sizeof **copies)) {
			free(final);
			rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
			break;
		}
		struct node_copy *nc = &(*copies)[(*n)++];
		memset(nc, 0, sizeof *nc);
		nc->final = final;
		nc->old = join(root, e->d_name, tag);
		if (!nc->old)
			rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	closedir(d);
	return rc;
}

/* Lists, in host order, a copy for each node that holds at least one
 * replica of the dataset, with its temporary, final and moved-aside paths;
 * slot[h] is host h's index in `copies`, or -1 when it holds no replica.
 * `*n` counts a copy as soon as it is taken, so that a failure frees the
 * paths already made. */
static int plan_copies(const struct locus_catalog *cat, const struct locus_dataset *ds,
		       const char *root, int *slot, struct node_copy *copies, size_t *n,
		       struct locus_error *err)
{
	int rc;
	for (size_t h = 0; h < cat->n_hosts; h++)
		slot[h] = -1;
	for (size_t c = 0; c < ds->n_chunks; c++)
		for (uint32_t r = 0; r < ds->chunks[c].n_replicas; r++) {
			uint32_t h = ds->chunks[c].replicas[r];
			if (slot[h] >= 0)
				continue;
			if ((rc = check_host(cat->hosts[h].name, err)))
				return rc;
			slot[h] = (int)*n;
			struct node_copy *nc = &copies[(*n)++];
			char tag[64];
			nc->host = h;
			snprintf(tag, sizeof tag, ".locus-tmp.%ld.%zu", (long)getpid(), *n);
			nc->tmp = join(root, cat->hosts[h].name, tag);
			snprintf(tag, sizeof tag, ".locus-old.%ld.%zu", (long)getpid(), *n);
			nc->old = join(root, cat->hosts[h].name, tag);
			nc->final = join(root, cat->hosts[h].name, ds->name);
			if (!nc->tmp || !nc->old || !nc->final)
				return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		}
	return 0;
}

/* Refuses a dataset that any of the nodes already holds, before anything
 * is written. */
static int refuse_existing(const struct node_copy *copies, size_t n, const char *name,
			   struct locus_error *err)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (lstat(copies[i].final, &st) == 0)
			return locus__err(
			    err, LOCUS_EEXIST, copies[i].final, 0, 0,
			    "dataset \"%s\" is already in the store (use --force to replace it)",
			    name);
	}
	return 0;
}

/* Makes each writing node's temporary directory with the dataset's
 * manifest in it, remembering the node directories this write creates so
 * that a failure removes them again. */
static int make_temporaries(const struct locus_catalog *cat, const struct locus_dataset *ds,
			    const char *root, struct node_copy *copies, size_t n_writers,
			    struct locus_error *err)
{
	int rc;
	for (size_t i = 0; i < n_writers; i++) {
		struct stat st;
		char *node = join(root, cat->hosts[copies[i].host].name, NULL);
		if (node && lstat(node, &st) != 0)
			copies[i].node = node;
		else
			free(node);
		if ((rc = locus__mkdirs(copies[i].tmp, err)))
			return rc;
		char *man = join(copies[i].tmp, ".locus-dataset", NULL);
		char text[128];
		int len = snprintf(text, sizeof text,
				   "locus-store-dataset 1\nsize %" PRIu64 "\nchunks %zu\n",
				   ds->size, ds->n_chunks);
		rc = man ? locus__write_atomic(man, text, (size_t)len, err)
			 : locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		free(man);
		if (rc)
			return rc;
	}
	return 0;
}

/* Creates chunk c's file in the temporary directory of each node that
 * holds a replica of it, one descriptor per replica in `fds`; on a failure
 * none is left open. */
static int open_replicas(const struct locus_dataset *ds, size_t c, const struct node_copy *copies,
			 const int *slot, int *fds, struct locus_error *err)
{
	const struct locus_chunk *ch = &ds->chunks[c];
	char name[64];
	locus_store_chunk_name(name, sizeof name, c, ch->offset);
	for (uint32_t r = 0; r < ch->n_replicas; r++) {
		char *path = join(copies[slot[ch->replicas[r]]].tmp, name, NULL);
		fds[r] = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
		if (fds[r] < 0) {
			int rc = locus__err(err, LOCUS_EIO, path, 0, 0, "cannot create: %s",
					    strerror(errno));
			free(path);
			for (uint32_t k = 0; k < r; k++)
				close(fds[k]);
			return rc;
		}
		free(path);
	}
	return 0;
}

/* Writes chunk c to every replica, a piece at a time from the dataset's
 * bytes, then syncs and closes each replica's file. */
static int write_chunk(const struct locus_dataset *ds, size_t c, const struct node_copy *copies,
		       const int *slot, int *fds, char *piece, locus_bytes_fn bytes, void *user,
		       struct locus_error *err)
{
	const struct locus_chunk *ch = &ds->chunks[c];
	uint32_t nr = ch->n_replicas;
	int rc;
	if (nr > 64)
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
				  "chunk %zu has %u replicas; at most 64 are written", c, nr);
	if ((rc = open_replicas(ds, c, copies, slot, fds, err)))
		return rc;
	for (uint64_t off = 0; off < ch->length && !rc; off += PIECE) {
		size_t n = ch->length - off < PIECE ? (size_t)(ch->length - off) : PIECE;
		rc = bytes(user, ch->offset + off, piece, n);
		if (rc) {
			rc = locus__err(
			    err, rc, NULL, 0, 0,
			    "cannot read bytes %" PRIu64 "..%" PRIu64 " of dataset \"%s\": %s",
			    ch->offset + off, ch->offset + off + n, ds->name, locus_strerror(rc));
			break;
		}
		for (uint32_t r = 0; r < nr && !rc; r++)
			if (write_all(fds[r], piece, n))
				rc =
				    locus__err(err, LOCUS_EIO, copies[slot[ch->replicas[r]]].tmp, 0,
					       0, "cannot write chunk %zu: %s", c, strerror(errno));
	}
	for (uint32_t r = 0; r < nr; r++) {
		if (!rc && fsync(fds[r]) != 0)
			rc = locus__err(err, LOCUS_EIO, copies[slot[ch->replicas[r]]].tmp, 0, 0,
					"cannot sync chunk %zu: %s", c, strerror(errno));
		if (close(fds[r]) != 0 && !rc)
			rc = locus__err(err, LOCUS_EIO, copies[slot[ch->replicas[r]]].tmp, 0, 0,
					"cannot close chunk %zu: %s", c, strerror(errno));
	}
	return rc;
}

/* Writes every chunk of the dataset into the temporary directories. */
static int write_chunks(const struct locus_dataset *ds, const struct node_copy *copies,
			const int *slot, char *piece, locus_bytes_fn bytes, void *user,
			struct locus_error *err)
{
	int rc = 0;
	int *fds = locus__calloc(ds->n_chunks ? 64 : 1, sizeof *fds);
	if (!fds)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	for (size_t c = 0; c < ds->n_chunks && !rc; c++)
		rc = write_chunk(ds, c, copies, slot, fds, piece, bytes, user, err);
	free(fds);
	return rc;
}

/* Puts one node's copy in place: a stale copy (no temporary) is only moved
 * aside; a written one moves the copy it replaces aside, then is renamed to
 * its final name. `state` records each step, for undo_renames. */
static int install_copy(struct node_copy *nc, struct locus_error *err)
{
	int rc = 0;
	if (!nc->tmp) {
		/* A stale copy: only moved aside. */
		if (rename(nc->final, nc->old) != 0)
			return locus__err(err, LOCUS_EIO, nc->final, 0, 0,
					  "cannot move the old copy aside: %s", strerror(errno));
		nc->state = 1;
		return 0;
	}
	fsync_dir(nc->tmp);
	char *parent = parent_of(nc->final);
	if (!parent || (rc = locus__mkdirs(parent, err))) {
		free(parent);
		return rc ? rc : locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	struct stat st;
	if (lstat(nc->final, &st) == 0) {
		if (rename(nc->final, nc->old) != 0) {
			rc = locus__err(err, LOCUS_EIO, nc->final, 0, 0,
					"cannot move the old copy aside: %s", strerror(errno));
			free(parent);
			return rc;
		}
		nc->state = 1;
	}
	if (rename(nc->tmp, nc->final) != 0) {
		rc = locus__err(err, LOCUS_EIO, nc->final, 0, 0, "cannot rename into place: %s",
				strerror(errno));
		free(parent);
		return rc;
	}
	nc->state = 2;
	fsync_dir(parent);
	free(parent);
	return 0;
}

/* Undoes the renames install_copy made: each copy renamed in goes back to
 * its temporary name, and each copy moved aside comes back. */
static void undo_renames(struct node_copy *copies, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct node_copy *nc = &copies[i];
		if (nc->state == 2)
			rename(nc->final, nc->tmp);
		if (nc->state >= 1)
			rename(nc->old, nc->final);
	}
}

/* Frees the copies; after a failure (rc) it first removes their temporary
 * directories and the node directories this write made. */
static void free_copies(struct node_copy *copies, size_t n, int rc)
{
	for (size_t i = 0; i < n; i++) {
		if (rc && copies[i].tmp)
			locus__rmtree(copies[i].tmp);
		if (rc && copies[i].node)
			rmdir(copies[i].node); /* only if this write made it and it is empty */
		free(copies[i].node);
		free(copies[i].tmp);
		free(copies[i].final);
		free(copies[i].old);
	}
	free(copies);
}

int locus_store_write(const struct locus_catalog *cat, size_t d, const char *root,
		      locus_bytes_fn bytes, void *user, bool force, struct locus_error *err)
{
	if (d >= cat->n_datasets)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no dataset %zu", d);
	const struct locus_dataset *ds = &cat->datasets[d];
	int rc = check_name(ds->name, err);
	if (rc)
		return rc;
	/* The nodes that hold at least one replica, in host order. */
	int *slot = locus__calloc(cat->n_hosts, sizeof *slot);
	struct node_copy *copies = locus__calloc(cat->n_hosts, sizeof *copies);
	size_t copies_cap = cat->n_hosts;
	char *piece = malloc(PIECE);
	size_t n_copies = 0, n_writers = 0;
	int made_root = 0;
	if (!slot || !copies || !piece) {
		rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		goto cleanup;
	}
	if ((rc = plan_copies(cat, ds, root, slot, copies, &n_copies, err)))
		goto cleanup;
	n_writers = n_copies;
	/* Replacing: copies on nodes outside the new placement go too. */
	if (force && (rc = add_stale_copies(root, ds->name, &copies, &copies_cap, &n_copies, err)))
		goto cleanup;
	/* Refuse before writing anything. */
	if (!force && (rc = refuse_existing(copies, n_copies, ds->name, err)))
		goto cleanup;
	/* Phase 1: every node's copy under its temporary name. */
	struct stat root_st;
	made_root = lstat(root, &root_st) != 0;
	if ((rc = make_temporaries(cat, ds, root, copies, n_writers, err)) ||
	    (rc = write_chunks(ds, copies, slot, piece, bytes, user, err)))
		goto cleanup;
	/* Phase 2: rename into place; a failure puts back what was renamed. */
	for (size_t i = 0; i < n_copies && !rc; i++)
		rc = install_copy(&copies[i], err);
	if (rc) {
		undo_renames(copies, n_copies);
		goto cleanup;
	}
	/* Committed: drop the replaced copies. */
	for (size_t i = 0; i < n_copies; i++)
		locus__rmtree(copies[i].old);
	locus_log(LOCUS_LOG_PLACE, "wrote dataset %s to %zu nodes of %s", ds->name, n_copies, root);
cleanup:
	free_copies(copies, n_copies, rc);
	if (rc && made_root)
		rmdir(root);
	free(slot);
	free(piece);
	return rc;
}
