/*
 * Output files (cli.h), written all or none (cli_outputs_*): each staged
 * under a temporary name next to its place, then all renamed, so that a
 * command never leaves one of its files without the others.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

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

int cli_outputs_write(const char *cmd, const struct cli_output *outs, size_t n)
{
	struct cli_outputs staged = {0};
	int rc = 0;
	for (size_t k = 0; !rc && k < n; k++)
		if (outs[k].path)
			rc = cli_outputs_stage(cmd, &staged, outs[k].path, outs[k].writer,
					       outs[k].ctx);
	if (!rc)
		rc = cli_outputs_commit(cmd, &staged);
	cli_outputs_discard(&staged);
	return rc;
}

int cli_report_write(void *ctx, FILE *fp)
{
	const struct cli_report_writer *w = ctx;
	return w->fn(w->r, fp);
}

/* ---- a run's result files ------------------------------------------------------ */

#define AT(field) offsetof(struct cli_results, field)
static const struct cli_opt results_opts[] = {
    {"json", CLI_RESULTS_JSON, CLI_FLAG, AT(json), NULL,
     "print the result (or comparison) as JSON"},
    {"out", CLI_RESULTS_OUT, CLI_TEXT, AT(out), "FILE",
     "write the full result JSON (per worker, per task)"},
    {"csv", CLI_RESULTS_CSV, CLI_TEXT, AT(csv), "FILE", "one line per task"},
    {"trace", CLI_RESULTS_TRACE, CLI_TEXT, AT(trace), "FILE",
     "Chrome trace-event JSON (open in Perfetto)"},
    {"gantt", CLI_RESULTS_GANTT, CLI_TEXT, AT(gantt), "FILE", "SVG Gantt chart"},
    {"load", CLI_RESULTS_LOAD, CLI_TEXT, AT(load), "FILE",
     "SVG chart of per-worker load and local/remote reads"},
    {"report", CLI_RESULTS_REPORT, CLI_TEXT, AT(report), "FILE.html",
     "one self-contained HTML page: summary, stages,\n"
     "the Gantt chart, where the bytes came from, failures"},
};
const struct cli_group cli_results_group = CLI_GROUP(results_opts, NULL);
#undef AT

/* The files, in the order they are written. */
#define RESULT_FILES 6
static void results_files(const struct cli_results *o, const char **paths)
{
	const char *const p[RESULT_FILES] = {o->out,   o->csv,	o->trace,
					     o->gantt, o->load, o->report};
	memcpy(paths, p, sizeof p);
}

int cli_results_any(const struct cli_results *o)
{
	return o->out || o->csv || o->trace || o->gantt || o->load || o->report;
}

int cli_results_transfers(const struct cli_results *o)
{
	return o->out || o->trace || o->gantt || o->report;
}

int cli_results_one_run(const char *cmd, const struct cli_results *o)
{
	if (!cli_results_any(o))
		return 0;
	return cli_usage_error(
	    cmd, "--out, --csv, --trace, --gantt, --load and --report describe one run; drop "
		 "--compare");
}

int cli_results_check(const char *cmd, const struct cli_results *o, const char *const *more,
		      size_t n_more)
{
	const char *paths[CLI_MAX_OUTPUTS];
	size_t n = RESULT_FILES;
	results_files(o, paths);
	for (size_t k = 0; k < n_more && n < CLI_ARRAY_LEN(paths); k++)
		paths[n++] = more[k];
	return cli_outputs_check(cmd, paths, n);
}

struct html_writer {
	const struct locus_result *r;
	const struct locus_report_html_options *opt;
};

static int html_write(void *ctx, FILE *fp)
{
	const struct html_writer *h = ctx;
	return locus_report_html(h->r, h->opt, fp);
}

int cli_results_write(const char *cmd, const struct cli_results *o, const struct locus_result *r)
{
	static int (*const fns[RESULT_FILES - 1])(const struct locus_result *, FILE *) = {
	    locus_report_json, locus_report_csv, locus_report_trace, locus_report_svg_gantt,
	    locus_report_svg_load};
	const char *paths[RESULT_FILES];
	struct cli_report_writer w[RESULT_FILES - 1];
	struct cli_output outs[RESULT_FILES];
	struct html_writer h = {r, o->html};
	results_files(o, paths);
	for (size_t k = 0; k < RESULT_FILES - 1; k++) {
		w[k] = (struct cli_report_writer){r, fns[k]};
		outs[k] = (struct cli_output){paths[k], cli_report_write, &w[k]};
	}
	outs[RESULT_FILES - 1] = (struct cli_output){paths[RESULT_FILES - 1], html_write, &h};
	return cli_outputs_write(cmd, outs, RESULT_FILES);
}
