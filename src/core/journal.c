/*
 * The journal of a real run (journal.h; docs/formats.md, "Journal"): its
 * head, its lines, its lock and its synced appends, for runs of chunks and
 * of workflows alike.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/journal.h"

static const char v1_flow[] = "locus-flow-journal 1";

int locus__journal_head_line(struct locus__buf *b, enum locus__journal_kind kind, uint64_t tasks,
			     uint64_t files)
{
	if (kind == LOCUS__JOURNAL_CHUNKS)
		return locus__buf_printf(b, LOCUS__JOURNAL_MAGIC " %d\tchunks\n",
					 LOCUS__JOURNAL_VERSION);
	return locus__buf_printf(b,
				 LOCUS__JOURNAL_MAGIC " %d\tworkflow\t%" PRIu64 "\t%" PRIu64 "\n",
				 LOCUS__JOURNAL_VERSION, tasks, files);
}

static int starts(const char *text, size_t len, const char *s)
{
	size_t n = strlen(s);
	return len >= n && !memcmp(text, s, n);
}

int locus__journal_looks_like(const char *text, size_t len)
{
	return starts(text, len, LOCUS__JOURNAL_MAGIC " ") ||
	       starts(text, len, "locus-flow-journal ");
}

size_t locus__journal_whole(const char *text, size_t len)
{
	while (len > 0 && text[len - 1] != '\n')
		len--;
	return len;
}

/* Splits l on tabs (at most LOCUS__JOURNAL_FIELDS fields): -1 for more. */
static int split(char *l, struct locus__journal_line *r)
{
	r->nf = 0;
	for (char *p = l;;) {
		if (r->nf == LOCUS__JOURNAL_FIELDS)
			return -1;
		r->col[r->nf] = (long)(p - l) + 1;
		r->fld[r->nf++] = p;
		char *tab = strchr(p, '\t');
		if (!tab)
			return 0;
		*tab = 0;
		p = tab + 1;
	}
}

/* Undoes the escapes of a name (\t, \n, \\) in place. */
static void unescape(char *s)
{
	size_t k = 0;
	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '\\' && s[i + 1]) {
			i++;
			s[k++] = s[i] == 't' ? '\t' : s[i] == 'n' ? '\n' : s[i];
		} else {
			s[k++] = s[i];
		}
	}
	s[k] = 0;
}

/* A version 1 chunk line, "done INDEX OFFSET LENGTH DATASET" (spaces; the
 * dataset last, spaces in it kept), as a chunk record's fields: as many
 * as the line has (its reader says what is missing). */
static void v1_done(char *l, struct locus__journal_line *r)
{
	r->nf = 0;
	r->fld[r->nf] = (char *)"chunk";
	r->col[r->nf++] = 1;
	char *p = l + 5;
	for (int k = 0; k < 3 && p; k++) {
		char *sp = strchr(p, ' ');
		if (sp)
			*sp = 0;
		r->col[r->nf] = (long)(p - l) + 1;
		r->fld[r->nf++] = p;
		p = sp ? sp + 1 : NULL;
	}
	if (p) {
		r->col[r->nf] = (long)(p - l) + 1;
		r->fld[r->nf++] = p;
	}
}

static int parse_count(const char *s, uint64_t *v)
{
	return locus__parse_u64(s, strlen(s), v);
}

/* The head line l (NUL-ended, no newline). */
static int head(char *l, const char *name, struct locus__journal_head *h, struct locus_error *err)
{
	memset(h, 0, sizeof *h);
	struct locus__journal_line r;
	size_t m = sizeof LOCUS__JOURNAL_MAGIC - 1;
	if (!strcmp(l, LOCUS__JOURNAL_MAGIC " 1")) {
		h->version = 1;
		h->kind = LOCUS__JOURNAL_CHUNKS;
		return 0;
	}
	if (starts(l, strlen(l), v1_flow) && l[sizeof v1_flow - 1] == '\t') {
		if (!split(l + sizeof v1_flow, &r) && r.nf == 2 &&
		    !parse_count(r.fld[0], &h->tasks) && !parse_count(r.fld[1], &h->files)) {
			h->version = 1;
			h->kind = LOCUS__JOURNAL_WORKFLOW;
			return 0;
		}
	} else if (starts(l, strlen(l), LOCUS__JOURNAL_MAGIC " ")) {
		char *v = l + m + 1, *tab = strchr(v, '\t');
		uint64_t ver = 0;
		if (locus__parse_u64(v, tab ? (size_t)(tab - v) : strlen(v), &ver) || ver < 1 ||
		    ver > LOCUS__JOURNAL_VERSION)
			return locus__err(err, LOCUS_EPARSE, name, 1, (long)m + 2,
					  "journal version %.20s is not one this Locus reads (1 or "
					  "%d)",
					  v, LOCUS__JOURNAL_VERSION);
		if (ver == 2 && tab && !split(tab + 1, &r)) {
			h->version = 2;
			if (r.nf == 1 && !strcmp(r.fld[0], "chunks")) {
				h->kind = LOCUS__JOURNAL_CHUNKS;
				return 0;
			}
			if (r.nf == 3 && !strcmp(r.fld[0], "workflow") &&
			    !parse_count(r.fld[1], &h->tasks) &&
			    !parse_count(r.fld[2], &h->files)) {
				h->kind = LOCUS__JOURNAL_WORKFLOW;
				return 0;
			}
		}
	}
	return locus__err(err, LOCUS_EPARSE, name, 1, 1,
			  "expected \"" LOCUS__JOURNAL_MAGIC " %d\", then \"chunks\" or \"workflow "
			  "TASKS FILES\" (tab-separated): this is not a journal of locus run or "
			  "locus flow run",
			  LOCUS__JOURNAL_VERSION);
}

int locus__journal_read(const char *text, size_t len, const char *name,
			struct locus__journal_head *h, locus__journal_rec_fn rec, void *user,
			struct locus_error *err)
{
	size_t pos = 0, n;
	const char *line;
	long lineno = 0;
	int rc = 0;
	memset(h, 0, sizeof *h);
	while (!rc && locus__next_line(text, len, &pos, &line, &n)) {
		lineno++;
		if (n && line[n - 1] == '\r')
			n--;
		const char *nul = memchr(line, 0, n);
		if (nul) {
			rc = locus__err(err, LOCUS_EPARSE, name, lineno, (long)(nul - line) + 1,
					"expected text, found a NUL byte");
			break;
		}
		char *l = locus__strndup(line, n);
		if (!l)
			return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		struct locus__journal_line r = {.line = lineno};
		if (lineno == 1) {
			rc = head(l, name, h, err);
		} else if (n && l[0] != '#') {
			int v1 = !strncmp(l, "done ", 5);
			int bad = 0;
			if (v1)
				v1_done(l, &r);
			else
				bad = split(l, &r);
			if (bad)
				rc = locus__err(
				    err, LOCUS_EPARSE, name, lineno, 1,
				    "expected a record: \"chunk\", \"file\" or \"task\" and "
				    "its fields, tab-separated");
			for (size_t i = 1; !rc && !v1 && i < r.nf; i++)
				unescape(r.fld[i]);
			if (!rc)
				rc = rec(user, &r, err);
		}
		free(l);
	}
	if (!rc && lineno == 0)
		rc = locus__err(err, LOCUS_EPARSE, name, 1, 1,
				"expected \"" LOCUS__JOURNAL_MAGIC " %d\": the file is empty",
				LOCUS__JOURNAL_VERSION);
	return rc;
}

int locus__journal_escape(struct locus__buf *b, const char *s)
{
	int rc = 0;
	for (; s && *s && !rc; s++) {
		const char *e = *s == '\t'   ? "\\t"
				: *s == '\n' ? "\\n"
				: *s == '\\' ? "\\\\"
					     : NULL;
		rc = e ? locus__buf_append(b, e, 2) : locus__buf_append(b, s, 1);
	}
	return rc ? LOCUS_ENOMEM : 0;
}

long locus__lock_holder(int fd)
{
	struct stat sb;
	FILE *in = fstat(fd, &sb) ? NULL : fopen("/proc/locks", "re");
	long pid = 0;
	char line[256];
	while (in && !pid && fgets(line, sizeof line, in)) {
		char kind[16], mode[16];
		long who;
		unsigned maj, min;
		unsigned long long ino;
		/* "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF"; a waiter's
		 * line has "->" after its number and does not parse. */
		if (sscanf(line, "%*d: %15s %*s %15s %ld %x:%x:%llu", kind, mode, &who, &maj, &min,
			   &ino) == 6 &&
		    !strcmp(kind, "FLOCK") && ino == (unsigned long long)sb.st_ino &&
		    makedev(maj, min) == sb.st_dev)
			pid = who;
	}
	if (in)
		fclose(in);
	return pid;
}

int locus__journal_lock(int fd, const char *path, const char *what, int wait, volatile int *cancel,
			struct locus_error *err)
{
	for (;;) {
		if (!flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)))
			return 0;
		if (errno == EINTR && !(cancel && *cancel))
			continue;
		if (errno == EINTR)
			return locus__err(err, LOCUS_EINCOMPLETE, path, 0, 0,
					  "cancelled while waiting for another run's %s", what);
		if (errno != EWOULDBLOCK)
			return 1; /* ENOLCK, or EBADF for a directory on some NFS mounts */
		long pid = locus__lock_holder(fd);
		char who[48] = "";
		if (pid > 0)
			snprintf(who, sizeof who, " (pid %ld)", pid);
		return locus__err(err, LOCUS_EEXIST, path, 0, 0,
				  "another run%s is using the %s (one run at a time); wait for it "
				  "to end, or run with --wait",
				  who, what);
	}
}

int locus__journal_slurp(int fd, const char *path, char **text, size_t *len,
			 struct locus_error *err)
{
	struct locus__buf b = {0};
	char buf[65536];
	ssize_t got;
	off_t at = 0;
	*text = NULL;
	*len = 0;
	while ((got = pread(fd, buf, sizeof buf, at)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			locus__buf_fini(&b);
			return locus__err(err, LOCUS_EIO, path, 0, 0, "cannot read the journal: %s",
					  strerror(errno));
		}
		if (locus__buf_append(&b, buf, (size_t)got)) {
			locus__buf_fini(&b);
			return locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
		}
		at += got;
	}
	if (locus__buf_append(&b, "", 1)) {
		locus__buf_fini(&b);
		return locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
	}
	*text = b.data;
	*len = b.len - 1;
	return 0;
}

int locus__journal_append(int fd, const char *path, const void *data, size_t len,
			  struct locus_error *err)
{
	off_t at = lseek(fd, 0, SEEK_END);
	const char *p = data;
	size_t left = len;
	int e = 0;
	while (left > 0) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			/* A short write's reason: write again, or the disk is full. */
			e = w < 0 ? errno : ENOSPC;
			break;
		}
		p += w;
		left -= (size_t)w;
	}
	if (!e && fdatasync(fd))
		e = errno;
	if (!e)
		return 0;
	if (at >= 0 && ftruncate(fd, at)) {
		/* it stays torn: the next run cuts its last line */
	}
	return locus__err(err, LOCUS_EIO, NULL, 0, 0, "cannot write the journal %s: %s", path,
			  strerror(e));
}
