/*
 * A workflow named by a spec: a Makeflow, a generated Montage or BLAST,
 * or any task graph locus_dag_load reads (WfCommons JSON, STG, the text
 * form). A file without a prefix is told by its name (Makeflow, *.mf,
 * *.makeflow) or its first significant character ('{' WfCommons, a digit
 * STG, "tasks" the text form; anything else is read as a Makeflow).
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/dag.h"
#include "locus/flow.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Whether path's name says Makeflow. */
static int named_makeflow(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return !strcmp(base, "Makeflow") || !strcmp(base, "makeflow") || ends_with(base, ".mf") ||
	       ends_with(base, ".makeflow");
}

/* Whether some line that does not start with a blank or '#' holds a ':'
 * (a Makeflow rule, as far as a first look tells). */
static int has_rule(const char *s, size_t n)
{
	int start = 1, skip = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			start = 1;
			skip = 0;
			continue;
		}
		if (start)
			skip = s[i] == ' ' || s[i] == '\t' || s[i] == '#';
		start = 0;
		if (!skip && s[i] == ':')
			return 1;
		if (s[i] == '#')
			skip = 1;
	}
	return 0;
}

/* Reads the Makeflow at path (text already read when not NULL), its
 * inputs' sizes from the directory it is in. */
static int load_makeflow(struct locus_graph **out, const char *path, char *text, size_t len,
			 const struct locus_flow_load_options *opt, struct locus_error *err)
{
	int rc = 0;
	if (!text && (rc = locus__read_file(&text, &len, path, err)))
		return rc;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? locus__strndup(path, slash == path ? 1 : (size_t)(slash - path))
			  : locus__strdup(".");
	if (!dir) {
		free(text);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	struct locus_makeflow_options mo = {.dir = dir, .runtime = opt ? opt->runtime : 0};
	if (opt)
		mo.task_default = opt->task_default;
	rc = locus_flow_read_makeflow(out, text, len, path, &mo, err);
	free(dir);
	free(text);
	return rc;
}

/* "N[:M]" after "gen:montage:" or "gen:blast:": up to two counts >= 1. */
static int counts(const char *s, uint64_t *v, int max)
{
	int k = 0;
	while (*s && k < max) {
		const char *colon = strchr(s, ':');
		size_t n = colon ? (size_t)(colon - s) : strlen(s);
		if (locus__parse_u64(s, n, &v[k]) || !v[k] || v[k] > UINT32_MAX)
			return -1;
		k++;
		s += n;
		if (*s == ':' && !*++s)
			return -1;
	}
	return *s ? -1 : k;
}

static int load_generated(struct locus_graph **out, const char *spec,
			  const struct locus_flow_load_options *opt, struct locus_error *err)
{
	uint64_t v[2] = {0, 0};
	uint64_t seed = opt ? opt->seed : 1;
	double jitter = opt && opt->jitter > 0 ? opt->jitter : 0;
	double scale = opt && opt->runtime_scale > 0 ? opt->runtime_scale : 0;
	if (!strcmp(spec, "gen:montage") ||
	    (!strncmp(spec, "gen:montage:", 12) && counts(spec + 12, v, 1) == 1)) {
		struct locus_montage_spec m = {.images = v[0] ? (uint32_t)v[0] : 1319,
					       .runtime_scale = scale,
					       .jitter = jitter,
					       .seed = seed};
		return locus_flow_montage(out, &m, err);
	}
	int k = 0;
	if (!strcmp(spec, "gen:blast") ||
	    (!strncmp(spec, "gen:blast:", 10) && (k = counts(spec + 10, v, 2)) >= 1)) {
		struct locus_blast_spec b = {.fragments = v[0] ? (uint32_t)v[0] : 63,
					     .queries = v[1] ? (uint32_t)v[1] : 16,
					     .runtime_scale = scale,
					     .jitter = jitter,
					     .seed = seed};
		return locus_flow_blast(out, &b, err);
	}
	return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
			  "workflow %s: expected gen:montage[:IMAGES] (the 6x6 degree mosaic: "
			  "1319) or gen:blast[:FRAGMENTS[:QUERIES]] (63:16), counts >= 1",
			  spec);
}

void locus_flow_load_options_init(struct locus_flow_load_options *o)
{
	*o = (struct locus_flow_load_options){.version = LOCUS_FLOW_LOAD_OPTIONS_VERSION};
}

/* A graph whose format states no demand (STG, the text form, a generated
 * workflow): every task takes the workflow's default, when it is not
 * the built-in one. Set on the finished graph, which owns g->demand. */
static int default_demand(struct locus_graph *g, const struct locus_flow_load_options *opt,
			  struct locus_error *err)
{
	if (!opt || g->demand)
		return 0;
	struct locus_demand d = opt->task_default;
	d.cores += !d.cores;
	if (d.cores == 1 && !d.memory && !d.disk)
		return 0;
	g->demand = malloc((g->n_tasks ? g->n_tasks : 1) * sizeof *g->demand);
	if (!g->demand)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	for (size_t t = 0; t < g->n_tasks; t++)
		g->demand[t] = d;
	return 0;
}

/* A task graph (STG, text, WfCommons) at path or in text (read there
 * when NULL; freed), its format told by `format` (locus__dag_load_text's)
 * or its content. WfCommons tasks take the workflow's default for what
 * they do not state; the other formats state nothing. */
static int load_graph(struct locus_graph **out, const char *path, char *text, size_t len,
		      int format, const struct locus_flow_load_options *opt,
		      struct locus_error *err)
{
	int rc = 0;
	if (!text && (rc = locus__read_file(&text, &len, path, err)))
		return rc;
	long line, col;
	size_t i = locus__first_significant(text, len, &line, &col);
	if (format == 3 || (!format && i < len && text[i] == '{'))
		rc = locus__read_wfcommons(out, text, len, path, opt ? &opt->task_default : NULL,
					   err);
	else
		rc = locus__dag_load_text(out, text, len, path, format, err);
	free(text);
	if (!rc && (rc = default_demand(*out, opt, err))) {
		locus_graph_destroy(*out);
		*out = NULL;
	}
	return rc;
}

int locus_flow_load(struct locus_graph **out, const char *spec,
		    const struct locus_flow_load_options *opt, struct locus_error *err)
{
	if (!out || !spec)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no workflow named");
	*out = NULL;
	if (opt && locus__check_version(opt->version, LOCUS_FLOW_LOAD_OPTIONS_VERSION,
					"locus_flow_load_options", err))
		return LOCUS_EINVAL;
	if (!strncmp(spec, "gen:", 4)) {
		int rc = load_generated(out, spec, opt, err);
		if (!rc && (rc = default_demand(*out, opt, err))) {
			locus_graph_destroy(*out);
			*out = NULL;
		}
		return rc;
	}
	if (!strncmp(spec, "makeflow:", 9)) {
		if (!spec[9])
			return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
					  "workflow \"%s\": no file named", spec);
		return load_makeflow(out, spec + 9, NULL, 0, opt, err);
	}
	static const char *const prefixes[] = {"stg:", "text:", "wfcommons:"};
	for (int k = 0; k < 3; k++) {
		size_t n = strlen(prefixes[k]);
		if (strncmp(spec, prefixes[k], n))
			continue;
		if (!spec[n])
			return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
					  "graph \"%s\": no file named", spec);
		return load_graph(out, spec + n, NULL, 0, k + 1, opt, err);
	}
	if (named_makeflow(spec))
		return load_makeflow(out, spec, NULL, 0, opt, err);
	char *text = NULL;
	size_t len = 0;
	int rc = locus__read_file(&text, &len, spec, err);
	if (rc)
		return rc;
	long line, col;
	size_t i = locus__first_significant(text, len, &line, &col);
	int graph = i >= len || text[i] == '{' || (text[i] >= '0' && text[i] <= '9') ||
		    (len - i >= 6 && !memcmp(text + i, "tasks", 5) &&
		     (text[i + 5] == ' ' || text[i + 5] == '\t' || text[i + 5] == '\r' ||
		      text[i + 5] == '\n'));
	if (graph) {
		/* The dag loader says what an empty file lacks, and reads the
		 * rest from this text: a pipe cannot be read twice. */
		return load_graph(out, spec, text, len, 0, opt, err);
	}
	if (!has_rule(text, len)) {
		free(text);
		return locus__err(
		    err, LOCUS_EPARSE, spec, line, col,
		    "expected a task graph: WfCommons JSON ('{'), a Makeflow "
		    "('targets: sources'), the text form ('tasks N procs P') or STG "
		    "(the number of tasks); or name the format: makeflow:, wfcommons:, "
		    "stg:, text:");
	}
	return load_makeflow(out, spec, text, len, opt, err);
}

int locus_flow_check_commands(const struct locus_graph *g, const char *name,
			      struct locus_error *err)
{
	if (!g)
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no workflow");
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		const struct locus_command *c = g->commands ? &g->commands[t] : NULL;
		const struct locus_task *tk = &g->tasks[t];
		if ((c && (c->line || c->argv)) || !tk->n_out)
			continue;
		const char *file = g->objects[g->outputs[tk->out_at]].name;
		return locus__err(
		    err, LOCUS_EINVAL, name, 0, 0,
		    "task \"%s\" has no command, and it writes \"%s\"%s: expected a command "
		    "for every task that writes files (WfCommons: the task's "
		    "command.program and arguments), or stand-ins to run instead of the "
		    "commands",
		    tk->name ? tk->name : "?", file ? file : "?", tk->n_out > 1 ? " and more" : "");
	}
	return 0;
}
