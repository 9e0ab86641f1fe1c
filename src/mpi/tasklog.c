/*
 * Each attempt's stdout, stderr and measured resources, kept beside the
 * run's status file (STATUS.tasks/, read by `locus flow status --task`;
 * docs/formats.md, "Task logs"). The worker that ran the command copies
 * its two files there from the node's storage when the command ends, and
 * appends what wait4 measured (wall time, CPU time, user and system, and
 * peak resident memory) as one line to its rank's attempts file,
 * attempts.RANK.jsonl. An empty stream is not copied (most commands
 * write nothing to one or both: three files an attempt cost a chain of
 * commands a tenth of its rate), and the measures go to a file opened
 * once a run (a file made an attempt cost 600 short commands 3 % of their
 * makespan, and is a metadata operation a task on a parallel file
 * system). The copies are written to a temporary and renamed, so a reader
 * never sees half of one; a line is written by one write(), and a reader
 * skips a line that does not parse (one being written, or cut by a full
 * disk).
 */
#include "mpi/runtime.h"

#include <jansson.h>
#include <sys/resource.h>

#define TASKLOG_FORMAT	"locus-task-log"
#define TASKLOG_VERSION 2

void locus__rt_tasklog_dir(const char *status, char *buf, size_t size)
{
	locus__rt_fmt(buf, size, "%s.tasks", status);
}

/* Copies file `from` to `to` whole (temporary, then rename); a source
 * that is not there gives an empty file. 0 or -1. */
static int copy_whole(const char *from, const char *to)
{
	char tmp[PATH_MAX + 32];
	locus__rt_fmt(tmp, sizeof tmp, "%s.tmp-%ld", to, (long)getpid());
	int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0)
		return -1;
	int in = open(from, O_RDONLY | O_CLOEXEC), rc = 0;
	char buf[1 << 16];
	ssize_t n;
	while (in >= 0 && (n = read(in, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -1;
			break;
		}
		for (ssize_t at = 0; at < n && !rc;) {
			ssize_t w = write(out, buf + at, (size_t)(n - at));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				rc = -1;
			else
				at += w;
		}
		if (rc)
			break;
	}
	if (in >= 0)
		close(in);
	if (close(out))
		rc = -1;
	if (rc || rename(tmp, to)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static double tv_seconds(struct timeval tv)
{
	return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

/* This rank's attempts file in dir, opened (and dir made) at its first
 * attempt: its descriptor, or -1 when it cannot be (the run goes on
 * without its logs, and does not try again). */
static int attempts_file(struct flow *f, const char *dir)
{
	if (f->tlog_fd != -1)
		return f->tlog_fd >= 0 ? f->tlog_fd : -1;
	f->tlog_fd = -2;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	char p[PATH_MAX + 48];
	locus__rt_fmt(p, sizeof p, "%s/attempts.%d.jsonl", dir, f->rank);
	int fd = open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0)
		f->tlog_fd = fd;
	return fd;
}

void locus__rt_tasklog_keep(struct flow *f, int status, const struct rusage *ru, double wall)
{
	if (!f->opt->status || !f->work[0])
		return;
	char dir[PATH_MAX], base[PATH_MAX + 64], from[PATH_MAX + 8], to[PATH_MAX + 80];
	locus__rt_tasklog_dir(f->opt->status, dir, sizeof dir);
	int fd = attempts_file(f, dir);
	if (fd < 0)
		return;
	uint32_t t = f->cur;
	locus__rt_fmt(base, sizeof base, "%s/t%" PRIu32 ".%d", dir, t, f->attempt);
	static const char *const ext[] = {"out", "err"};
	char leaf[2][64];
	int kept[2] = {0, 0};
	for (size_t k = 0; k < 2; k++) {
		struct stat st;
		locus__rt_fmt(from, sizeof from, "%s.%s", f->work, ext[k]);
		locus__rt_fmt(to, sizeof to, "%s.%s", base, ext[k]);
		locus__rt_fmt(leaf[k], sizeof leaf[k], "t%" PRIu32 ".%d.%s", t, f->attempt, ext[k]);
		if (stat(from, &st) || !st.st_size)
			continue;
		if (copy_whole(from, to))
			return;
		kept[k] = 1;
	}
	char nb[512];
	const char *name = locus__rt_task_name(f, t, nb, sizeof nb);
	/* The kernel's peak counts the memory of the process the command
	 * was spawned from (this rank, whose memory the command shared
	 * until it exec'd): the rank's own peak is written beside it, so a
	 * reader can tell when the command stayed below it. */
	struct rusage self;
	if (getrusage(RUSAGE_SELF, &self))
		self.ru_maxrss = 0;
	json_t *doc =
	    json_pack("{sssisssIsisssfsfsfsfsIsIss?ss?}", "format", TASKLOG_FORMAT, "version",
		      TASKLOG_VERSION, "task", name, "index", (json_int_t)t, "attempt", f->attempt,
		      "node", f->plat->nodes[f->node].name, "wall", wall, "cpu",
		      tv_seconds(ru->ru_utime) + tv_seconds(ru->ru_stime), "user",
		      tv_seconds(ru->ru_utime), "system", tv_seconds(ru->ru_stime), "max_rss_kb",
		      (json_int_t)ru->ru_maxrss, "rank_rss_kb", (json_int_t)self.ru_maxrss,
		      "stdout", kept[0] ? leaf[0] : NULL, "stderr", kept[1] ? leaf[1] : NULL);
	if (!doc)
		return;
	if (WIFEXITED(status))
		json_object_set_new(doc, "exit", json_integer(WEXITSTATUS(status)));
	else if (WIFSIGNALED(status))
		json_object_set_new(doc, "signal", json_integer(WTERMSIG(status)));
	if (f->timed_out)
		json_object_set_new(doc, "timed_out", json_true());
	char *text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (!text)
		return;
	/* One write: the line whole, or (a full disk) cut, which readers
	 * skip. */
	size_t n = strlen(text);
	char *line = realloc(text, n + 2);
	if (!line) {
		free(text);
		return;
	}
	line[n] = '\n';
	ssize_t w = write(fd, line, n + 1);
	(void)w;
	free(line);
}
