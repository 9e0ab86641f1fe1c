/*
 * Output files (cli.h): one written atomically (cli_save), or several
 * written all or none (cli_outputs_*): each staged under a temporary name
 * next to its place, then all renamed, so that a run never leaves one of
 * its files without the others.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int cli_save(const char *cmd, const char *path, int (*writer)(void *, FILE *), void *ctx)
{
	struct locus_error err = {0};
	if (strcmp(path, "-") == 0) {
		int rc = writer(ctx, stdout);
		return rc ? cli_error(cmd, NULL, rc) : 0;
	}
	char *data = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&data, &len);
	if (!fp)
		return cli_error(cmd, NULL, LOCUS_ENOMEM);
	int rc = writer(ctx, fp);
	if (fclose(fp) && !rc)
		rc = LOCUS_EIO;
	if (!rc)
		rc = locus_write_atomic(path, data, len, &err);
	free(data);
	return rc ? cli_error(cmd, &err, rc) : 0;
}

int cli_outputs_check(const char *cmd, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = paths[i];
		struct stat st;
		if (!p || strcmp(p, "-") == 0)
			continue;
		for (size_t k = 0; k < i; k++)
			if (paths[k] && strcmp(paths[k], p) == 0) {
				fprintf(stderr, "locus %s: %s: named for two outputs\n", cmd, p);
				return CLI_EXIT_FAIL;
			}
		if (!*p || (stat(p, &st) == 0 && S_ISDIR(st.st_mode))) {
			fprintf(stderr, "locus %s: %s: cannot write an output there: %s\n", cmd,
				*p ? p : "\"\"", *p ? "it is a directory" : "an empty path");
			return CLI_EXIT_FAIL;
		}
		/* Its directory must exist and take a new file (the temporary). */
		char *dir = strdup(p);
		if (!dir)
			return cli_error(cmd, NULL, LOCUS_ENOMEM);
		char *slash = strrchr(dir, '/');
		const char *d = slash ? (slash == dir ? "/" : (*slash = 0, dir)) : ".";
		int bad = stat(d, &st) != 0		? errno
			  : !S_ISDIR(st.st_mode)	? ENOTDIR
			  : access(d, W_OK | X_OK) != 0 ? errno
							: 0;
		if (bad)
			fprintf(stderr, "locus %s: %s: cannot write an output there: %s: %s\n", cmd,
				p, d, strerror(bad));
		free(dir);
		if (bad)
			return CLI_EXIT_FAIL;
	}
	return 0;
}

int cli_outputs_stage(const char *cmd, struct cli_outputs *o, const char *path,
		      int (*writer)(void *, FILE *), void *ctx)
{
	if (strcmp(path, "-") == 0) {
		int rc = writer(ctx, stdout);
		return rc ? cli_error(cmd, NULL, rc) : 0;
	}
	if (o->n == CLI_MAX_OUTPUTS)
		return cli_error(cmd, NULL, LOCUS_ERANGE);
	char *data = NULL;
	size_t len = 0, plen = strlen(path) + 32;
	char *tmp = malloc(plen);
	FILE *fp = tmp ? open_memstream(&data, &len) : NULL;
	if (!fp) {
		free(tmp);
		return cli_error(cmd, NULL, LOCUS_ENOMEM);
	}
	int rc = writer(ctx, fp);
	if (fclose(fp) && !rc)
		rc = LOCUS_ENOMEM;
	if (rc) {
		free(data);
		free(tmp);
		return cli_error(cmd, NULL, rc);
	}
	snprintf(tmp, plen, "%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), e = 0;
	if (fd < 0)
		e = errno;
	for (size_t at = 0; !e && at < len;) {
		ssize_t w = write(fd, data + at, len - at);
		if (w < 0 && errno != EINTR)
			e = errno;
		else if (w > 0)
			at += (size_t)w;
	}
	if (fd >= 0 && !e && fsync(fd) != 0)
		e = errno;
	if (fd >= 0 && close(fd) != 0 && !e)
		e = errno;
	free(data);
	if (e) {
		if (fd >= 0)
			unlink(tmp);
		free(tmp);
		fprintf(stderr, "locus %s: %s: cannot write: %s\n", cmd, path, strerror(e));
		return CLI_EXIT_FAIL;
	}
	o->path[o->n] = path;
	o->tmp[o->n++] = tmp;
	return 0;
}

int cli_outputs_commit(const char *cmd, struct cli_outputs *o)
{
	for (size_t i = 0; i < o->n; i++)
		if (rename(o->tmp[i], o->path[i]) != 0) {
			fprintf(stderr, "locus %s: %s: cannot write: %s\n", cmd, o->path[i],
				strerror(errno));
			/* The ones renamed already stay; the others go. */
			memmove(o->tmp, o->tmp + i, (o->n - i) * sizeof *o->tmp);
			memmove(o->path, o->path + i, (o->n - i) * sizeof *o->path);
			o->n -= i;
			cli_outputs_discard(o);
			return CLI_EXIT_FAIL;
		} else {
			free(o->tmp[i]);
			o->tmp[i] = NULL;
		}
	o->n = 0;
	return 0;
}

void cli_outputs_discard(struct cli_outputs *o)
{
	for (size_t i = 0; i < o->n; i++) {
		if (o->tmp[i])
			unlink(o->tmp[i]);
		free(o->tmp[i]);
		o->tmp[i] = NULL;
	}
	o->n = 0;
}

int cli_report_write(void *ctx, FILE *fp)
{
	const struct cli_report_writer *w = ctx;
	return w->fn(w->r, fp);
}
