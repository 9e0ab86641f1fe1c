/*
 * The journal of a real run, one format for `locus run` (chunks) and
 * `locus flow run` (workflows): docs/formats.md, "Journal". A head line
 * names the format, its version and what the run was:
 *
 *   locus-journal 2<TAB>chunks
 *   locus-journal 2<TAB>workflow<TAB>TASKS<TAB>FILES
 *
 * then one record a line, fields separated by one tab, names with a tab,
 * a newline and a backslash written \t, \n and \\:
 *
 *   chunk  INDEX OFFSET LENGTH DATASET   a chunk done (locus run)
 *   file   NAME BYTES SUM PLACE          an output kept (locus flow run)
 *   task   NAME NODE                     a task done, after its files
 *
 * Version 1 journals (`locus-journal 1` with `done INDEX OFFSET LENGTH
 * DATASET` lines, `locus-flow-journal 1<TAB>TASKS<TAB>FILES`) are read as
 * they are and continued with version 2's lines: their head stays. A
 * journal is appended to (O_APPEND), synced after each write, and locked
 * (fcntl) by the run that uses it. No MPI here: the runtime's rank 0 and
 * the command line (dry run, clean, status) read journals alike.
 */
#ifndef LOCUS_CORE_JOURNAL_H
#define LOCUS_CORE_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

#define LOCUS__JOURNAL_MAGIC   "locus-journal"
#define LOCUS__JOURNAL_VERSION 2

enum locus__journal_kind { LOCUS__JOURNAL_CHUNKS = 1, LOCUS__JOURNAL_WORKFLOW = 2 };

struct locus__journal_head {
	int version; /* 1 or 2 */
	enum locus__journal_kind kind;
	uint64_t tasks, files; /* a workflow's */
};

/* The head line of a new journal (with its newline) into b. */
int locus__journal_head_line(struct locus__buf *b, enum locus__journal_kind kind, uint64_t tasks,
			     uint64_t files);

/* Whether text[0..len) begins as a journal does ("locus-journal " or
 * version 1's "locus-flow-journal "): a file that does not is not one, and
 * a run leaves it as it is. */
int locus__journal_looks_like(const char *text, size_t len);

/* The length of the whole lines of text (a last line without its newline
 * was torn by a kill). */
size_t locus__journal_whole(const char *text, size_t len);

/* A record: its fields (fld[0] its kind: "chunk", "file", "task"),
 * unescaped and NUL-ended, each with the 1-based column it starts at, and
 * its line; valid during the call. */
#define LOCUS__JOURNAL_FIELDS 8
struct locus__journal_line {
	char *fld[LOCUS__JOURNAL_FIELDS];
	long col[LOCUS__JOURNAL_FIELDS];
	size_t nf;
	long line;
};

/* Returns 0, or an error set in err. */
typedef int (*locus__journal_rec_fn)(void *user, const struct locus__journal_line *r,
				     struct locus_error *err);

/* Reads a journal's text (whole lines; an empty text is an error: a new
 * journal has its head): its head into *h, then each record through rec.
 * Blank lines, lines starting with '#' and a CR before a newline are
 * skipped; a NUL byte, an unknown head or version, and a line of more
 * than LOCUS__JOURNAL_FIELDS fields are LOCUS_EPARSE with line and column. A version 1 chunk
 * line "done INDEX OFFSET LENGTH DATASET" comes as the fields of a
 * "chunk" record. `name` labels errors. */
int locus__journal_read(const char *text, size_t len, const char *name,
			struct locus__journal_head *h, locus__journal_rec_fn rec, void *user,
			struct locus_error *err);

/* Appends s to b, a tab, a newline and a backslash escaped: 0 or
 * LOCUS_ENOMEM. */
int locus__journal_escape(struct locus__buf *b, const char *s);

/* Takes the exclusive lock of a run on the file open as fd: a journal,
 * or a workflow's shared directory (`what` names it in messages). One
 * kind of lock for both, flock: it belongs to the open file, so closing
 * another descriptor of the same file in this process (a second open of
 * the journal, say) does not drop it, as it would an fcntl lock; Linux's
 * /proc/locks names the holder. Waits for it when `wait` (a signal ends
 * the wait when `cancel` is given and set). Returns 0 (held), 1 (this
 * file system has no locks, as some NFS mounts: not held), LOCUS_EEXIST
 * (another run holds it: the message names its pid and --wait),
 * or LOCUS_EINCOMPLETE (cancelled while waiting). */
int locus__journal_lock(int fd, const char *path, const char *what, int wait, volatile int *cancel,
			struct locus_error *err);

/* The process that holds a flock on the file open as fd, as /proc/locks
 * names it; 0 when none is named (another system, or released). */
long locus__lock_holder(int fd);

/* Reads the whole journal through fd, the one its lock is held on (an
 * fcntl lock goes when the process closes any descriptor of the file: the
 * journal is never opened a second time while a run holds it). *text is
 * NUL-ended, to be freed. */
int locus__journal_slurp(int fd, const char *path, char **text, size_t *len,
			 struct locus_error *err);

/* Appends data[0..len) at the journal's end and syncs it (fdatasync).
 * On failure the journal is cut back to where it was (no half-written
 * line stays) and the error says why (ENOSPC as "No space left on
 * device"). */
int locus__journal_append(int fd, const char *path, const void *data, size_t len,
			  struct locus_error *err);

#endif
