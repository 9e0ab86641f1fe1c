/*
 * The Makeflow reader's lines (makeflow.h says which part of the language
 * it reads and how): each line of the text a rule, a command line, a
 * variable, export or a directive, their checks, and the reader's entry,
 * locus_flow_read_makeflow.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/makeflow.h"

/* ---- lines ------------------------------------------------------------------------ */

/* The physical line of the pending rule, quoted. */
static const char *rule_text(const struct mf *r, char *buf)
{
	size_t e = r->rule_off;
	while (e < r->len && r->text[e] != '\n' && r->text[e] != '\r')
		e++;
	while (e > r->rule_off && (r->text[e - 1] == ' ' || r->text[e - 1] == '\t'))
		e--;
	return locus__mf_quote(buf, r->text + r->rule_off, e - r->rule_off);
}

static int missing_command(struct mf *r, const char *found)
{
	char q[MF_QUOTE_SIZE];
	long line, col;
	locus__mf_where(r, r->rule_off, &line, &col);
	return locus__mf_perr(
	    r, r->rule_off,
	    "rule at line %ld has no command: expected a line starting with a tab after "
	    "%s, got %s",
	    line, rule_text(r, q), found);
}

/* The name rule file f has where the rule's command runs. */
static const char *seen_as(const struct mf *r, const struct mf_file *f)
{
	return f->as == SIZE_MAX ? r->g->objects[f->obj].name : r->files.text.data + f->as;
}

/* Whether the rule's files have one name each where its command runs,
 * and each name one file: "o: in1->x in2->x" and "o: in1->in2 in2" gave
 * the task one of the two files, "a->x b->x: in" failed after the run
 * had copied a out. 0 or the error, at the file named second. */
static int one_name_each(struct mf *r)
{
	char q[MF_QUOTE_SIZE], q2[MF_QUOTE_SIZE], q3[MF_QUOTE_SIZE];
	struct locus__strmap by_name, by_file;
	int rc = 0;
	if (r->n_rfiles < 2)
		return 0;
	locus__strmap_init(&by_name);
	locus__strmap_init(&by_file);
	for (size_t k = 0; k < r->n_rfiles && !rc; k++) {
		const struct mf_file *f = &r->rfiles[k];
		const char *name = r->g->objects[f->obj].name, *as = seen_as(r, f);
		size_t j;
		long line, col;
		if (locus__strmap_get(&by_name, as, &j) && r->rfiles[j].obj != f->obj) {
			locus__mf_where(r, r->rfiles[j].off, &line, &col);
			rc = locus__mf_perr(
			    r, f->off,
			    "%s names both %s (column %ld) and %s where the rule's command runs: "
			    "expected one file for each name (rename one with local->remote)",
			    locus__mf_quote(q, as, strlen(as)),
			    locus__mf_quote(q2, r->g->objects[r->rfiles[j].obj].name,
					    strlen(r->g->objects[r->rfiles[j].obj].name)),
			    col, locus__mf_quote(q3, name, strlen(name)));
		} else if (locus__strmap_get(&by_file, name, &j) &&
			   strcmp(seen_as(r, &r->rfiles[j]), as)) {
			const char *other = seen_as(r, &r->rfiles[j]);
			locus__mf_where(r, r->rfiles[j].off, &line, &col);
			rc = locus__mf_perr(r, f->off,
					    "file %s is named %s (column %ld) and %s where the "
					    "rule's command runs: expected one name for each file",
					    locus__mf_quote(q, name, strlen(name)),
					    locus__mf_quote(q2, other, strlen(other)), col,
					    locus__mf_quote(q3, as, strlen(as)));
		} else if (locus__strmap_put(&by_name, as, k) ||
			   locus__strmap_put(&by_file, name, k)) {
			rc = locus__mf_oom(r);
		}
	}
	locus__strmap_fini(&by_name);
	locus__strmap_fini(&by_file);
	return rc;
}

/* The line's file list: targets, ':', sources, each maybe renamed with
 * local->remote. */
static int rule_line(struct mf *r, struct mf_src *c)
{
	char q[MF_QUOTE_SIZE], what[48];
	if (r->pending) {
		snprintf(what, sizeof what, "the rule at line %ld", r->line);
		return missing_command(r, what);
	}
	size_t start = c->i;
	struct mf_words *w = &r->files;
	locus__mf_words_reset(w);
	r->subst = 0;
	int rc = locus__mf_scan_files(r, c, w);
	if (rc || (rc = locus__mf_close_word(r, w)))
		return rc;
	uint32_t rule = (uint32_t)r->n_rules;
	size_t colon = SIZE_MAX, targets = 0;
	r->n_rfiles = 0;
	for (size_t k = 0; k < w->n; k++) {
		const struct mf_item *it = &w->v[k];
		if (it->kind == MF_COLON) {
			if (colon != SIZE_MAX)
				return locus__mf_perr(
				    r, it->off,
				    "a second ':' in a rule: expected one ':' between the "
				    "targets and the sources (quote a name that has a colon)");
			if (!targets)
				return locus__mf_perr(
				    r, it->off,
				    "expected at least one target before ':' (the files the "
				    "rule makes)");
			colon = it->off;
			continue;
		}
		if (it->kind == MF_RENAME)
			return locus__mf_perr(r, it->off, "expected a file name before \"->\"");
		size_t as = SIZE_MAX;
		int renamed = k + 1 < w->n && w->v[k + 1].kind == MF_RENAME;
		if (renamed) {
			if (k + 2 >= w->n || w->v[k + 2].kind != MF_NAME)
				return locus__mf_perr(
				    r, w->v[k + 1].off + 2,
				    "expected the remote name after \"%s->\"",
				    locus__visible(locus__mf_word(w, k), it->len, q, sizeof q));
			as = w->v[k + 2].at;
			if (!strcmp(locus__mf_word(w, k), locus__mf_word(w, k + 2)))
				as = SIZE_MAX;
		}
		uint32_t obj = 0;
		if ((rc = locus__mf_intern(r, locus__mf_word(w, k), it->off, &obj)))
			return rc;
		int target = colon == SIZE_MAX;
		uint32_t was = r->prod[obj];
		if (target && was != LOCUS_NONE && was != rule)
			return locus__mf_perr(
			    r, it->off,
			    "file %s is made by the rules at lines %ld and %ld: expected one "
			    "rule making each file",
			    locus__mf_quote(q, locus__mf_word(w, k), it->len), r->rule_line[was],
			    r->line);
		if (!target && was == rule)
			return locus__mf_perr(
			    r, it->off,
			    "the rule at line %ld reads its own target %s: expected its "
			    "sources to be other files",
			    r->line, locus__mf_quote(q, locus__mf_word(w, k), it->len));
		if (target) {
			r->prod[obj] = rule;
			targets++;
		}
		if (locus__grow(&r->rfiles, &r->rfiles_cap, r->n_rfiles + 1, sizeof *r->rfiles))
			return locus__mf_oom(r);
		r->rfiles[r->n_rfiles++] = (struct mf_file){obj, target, as, it->off};
		if (renamed)
			k += 2;
	}
	if (colon == SIZE_MAX)
		return locus__mf_perr(r, start, "expected ':' between the targets and the sources");
	if ((rc = one_name_each(r)))
		return rc;
	if (locus__grow(&r->rule_line, &r->rules_cap, r->n_rules + 1, sizeof *r->rule_line))
		return locus__mf_oom(r);
	r->rule_line[r->n_rules] = r->line;
	r->rule_off = start;
	r->pending = 1;
	r->after_command = 0;
	return 0;
}

/* The rule's command line: its task, with its files, stage and command. */
static int command_line(struct mf *r, struct mf_src *c)
{
	char q[MF_QUOTE_SIZE];
	if (!r->pending) {
		struct mf_src t = *c;
		locus__mf_skip_blanks(&t);
		if (locus__mf_at_end(&t) || t.s[t.i] == '#') {
			locus__mf_skip_line(c);
			return 0;
		}
		if (r->after_command)
			return locus__mf_perr(
			    r, t.i,
			    "a second command line for the rule at line %ld (its command is "
			    "on line %ld): expected one command per rule (join commands with "
			    "; or &&; a line that starts with a space or a tab is a command)",
			    r->rule_line[r->n_rules - 1], r->cmd_line);
		return locus__mf_perr(
		    r, t.i,
		    "a command line outside a rule: expected a rule \"targets: sources\" "
		    "before it (a line that starts with a space or a tab is a command)");
	}
	r->cmd.len = 0;
	r->n_pieces = 0;
	r->subst = 0;
	int rc = locus__mf_scan_command(r, c);
	if (rc)
		return rc;
	size_t first = 0, end = 0;
	uint32_t flags = 0;
	for (size_t k = 0; k < r->n_pieces; k++)
		if (r->pieces[k].kind != MF_SPACE)
			end = k + 1;
	if (!end)
		return 0; /* blanks and a comment: a blank line */
	while (first < end) {
		const struct mf_piece *p = &r->pieces[first];
		size_t n = (first + 1 < r->n_pieces ? r->pieces[first + 1].at : r->cmd.len) - p->at;
		const char *s = r->cmd.data + p->at;
		if (p->kind == MF_SPACE) {
			first++;
		} else if (p->kind == MF_WORD && n == 5 && !memcmp(s, "LOCAL", 5)) {
			flags |= LOCUS_COMMAND_LOCAL;
			first++;
		} else if (p->kind == MF_WORD && n == 8 && !memcmp(s, "MAKEFLOW", 8)) {
			return locus__mf_perr(
			    r, p->off,
			    "nested workflows (MAKEFLOW) are not supported: expected a "
			    "command to run");
		} else {
			break;
		}
	}
	if (first == end)
		return locus__mf_perr(
		    r, r->pieces[0].off,
		    "the command is empty after LOCAL: expected a program to run");
	size_t from = r->pieces[first].at;
	size_t to = end < r->n_pieces ? r->pieces[end].at : r->cmd.len;
	r->cmd.data[to] = 0;
	const char *line = r->cmd.data + from;

	rc = locus__mf_stage_of(line, &r->tmp, &r->val);
	if (rc == -2)
		return locus__mf_oom(r);
	if (rc)
		return locus__mf_perr(
		    r, r->pieces[first].off,
		    "the command runs no program: expected a program after its variable "
		    "assignments and redirections, got %s%s",
		    locus__mf_quote(q, line, to - from),
		    strchr(line, '=') ? " (a line that starts with a space or a tab is a "
					"command: write the rule's variables unindented)"
				      : "");
	/* The task is named by the rule's first target. */
	const char *task_name = r->g->objects[r->rfiles[0].obj].name;
	double work = r->opt ? r->opt->runtime : 0;
	const char *rt = locus__mf_lookup(r, "LOCUS_RUNTIME", 0);
	if (rt)
		locus__mf_parse_seconds(rt, &work);
	long t = locus_graph_add_task(r->g, task_name, work);
	if (t < 0)
		return t == LOCUS_ENOMEM ? locus__mf_oom(r)
					 : locus__mf_perr(r, r->rule_off, "too many rules");
	long stage = locus_graph_stage(r->g, r->val.data);
	if (stage < 0)
		return locus__mf_oom(r);
	if ((rc = locus__mf_keep_command(r, (uint32_t)t, line, flags, (uint32_t)stage)))
		return rc;
	/* Its time limit: WALL_TIME in its scope (checked when set). */
	const char *wt = locus__mf_lookup(r, "WALL_TIME", 0);
	if (wt)
		locus__mf_parse_seconds(wt, &r->cmds[t].wall_time);
	/* Its resources: CORES, MEMORY and DISK in its scope or category. */
	locus__mf_rule_demand(r, &r->cmds[t].demand, &r->cmds[t].declared);

	if (locus__grow(&r->src_at, &r->src_at_cap, r->n_rules + 2, sizeof *r->src_at))
		return locus__mf_oom(r);
	r->src_at[r->n_rules] = (uint32_t)r->n_src;
	for (size_t k = 0; k < r->n_rfiles; k++) {
		const struct mf_file *f = &r->rfiles[k];
		const char *as = f->as == SIZE_MAX ? NULL : r->files.text.data + f->as;
		if (f->target) {
			if ((rc = locus_graph_add_output_as(r->g, (uint32_t)t, f->obj, as, r->err)))
				return rc == LOCUS_ENOMEM ? locus__mf_oom(r) : rc;
			continue;
		}
		size_t cap = r->src_cap;
		if (locus_graph_add_input_as(r->g, (uint32_t)t, f->obj, as) ||
		    locus__grow(&r->src_obj, &cap, r->n_src + 1, sizeof *r->src_obj) ||
		    locus__grow(&r->src_off, &r->src_cap, r->n_src + 1, sizeof *r->src_off))
			return locus__mf_oom(r);
		r->src_obj[r->n_src] = f->obj;
		r->src_off[r->n_src++] = f->off;
	}
	r->n_rules++;
	r->src_at[r->n_rules] = (uint32_t)r->n_src;
	locus__mf_clear_locals(r);
	r->pending = 0;
	r->after_command = 1;
	r->cmd_line = r->line;
	return 0;
}

/* Marks variable `name` exported (once). */
static int export_name(struct mf *r, const char *name)
{
	size_t ix;
	if (locus__strmap_get(&r->export_ix, name, &ix))
		return 0;
	char *copy = locus__strdup(name);
	if (!copy ||
	    locus__grow(&r->exports, &r->exports_cap, r->n_exports + 1, sizeof *r->exports) ||
	    locus__strmap_put(&r->export_ix, copy, r->n_exports)) {
		free(copy);
		return locus__mf_oom(r);
	}
	r->exports[r->n_exports++] = copy;
	return 0;
}

/* A value of CORES, MEMORY or DISK that is not one. */
static int resource_error(struct mf *r, size_t at, const char *name, const char *val, size_t n)
{
	char q[MF_QUOTE_SIZE];
	return locus__mf_perr(r, at,
			      !strcmp(name, "CORES")
				  ? "expected %s a whole number of cores from 1 to 1000000, got %s"
				  : "expected %s in megabytes (a whole number), or in bytes with "
				    "a unit K, M, G, T or P (powers of 1024), got %s",
			      name, locus__mf_quote(q, val, n));
}

/* NAME=value or NAME+=value, c just after the name; `exported` for an
 * export line. */
static int variable_line(struct mf *r, struct mf_src *c, size_t name_at, size_t name_n,
			 int exported)
{
	char q[MF_QUOTE_SIZE], q2[MF_QUOTE_SIZE];
	int append = 0;
	r->vname.len = 0;
	if (locus__buf_append(&r->vname, c->s + name_at, name_n))
		return locus__mf_oom(r);
	const char *name = r->vname.data;
	locus__mf_skip_blanks(c);
	if (!locus__mf_at_end(c) && c->s[c->i] == '=') {
		c->i++;
	} else if (!locus__mf_at_end(c) && c->s[c->i] == '+' && c->i + 1 < c->n &&
		   c->s[c->i + 1] == '=') {
		append = 1;
		c->i += 2;
	} else if (!locus__mf_at_end(c) && c->i + 1 < c->n && c->s[c->i + 1] == '=') {
		return locus__mf_perr(
		    r, c->i, "expected '=' or '+=' after the variable name %s, got %s",
		    locus__mf_quote(q, name, name_n), locus__mf_quote(q2, c->s + c->i, 2));
	} else {
		return locus__mf_perr(r, c->i, "expected '=' after the variable name %s, got %s",
				      locus__mf_quote(q, name, name_n), locus__mf_got(q2, c));
	}
	locus__mf_skip_blanks(c);
	size_t at = c->i;
	r->subst = 0;
	int rc = locus__mf_scan_value(r, c);
	if (rc)
		return rc;
	const char *old = append ? locus__mf_lookup(r, name, 1) : NULL;
	r->tmp.len = 0;
	if ((old && (locus__buf_append(&r->tmp, old, strlen(old)) ||
		     locus__buf_append(&r->tmp, " ", 1))) ||
	    locus__buf_append(&r->tmp, r->val.data, r->val.len))
		return locus__mf_oom(r);
	if (!strcmp(name, "LOCUS_RUNTIME") || !strcmp(name, "WALL_TIME")) {
		double v;
		if (locus__mf_parse_seconds(r->tmp.data, &v))
			return locus__mf_perr(
			    r, at, "expected %s in seconds (a decimal number from 0 to %g), got %s",
			    name, LOCUS_WORK_MAX, locus__mf_quote(q, r->tmp.data, r->tmp.len));
	}
	int res = locus__mf_resource(name);
	uint64_t amount;
	if (res >= 0 && locus__mf_parse_resource(res, r->tmp.data, &amount))
		return resource_error(r, at, name, r->tmp.data, r->tmp.len);
	char *value = locus__strndup(r->tmp.data, r->tmp.len);
	if (!value)
		return locus__mf_oom(r);
	if ((rc = locus__mf_set_var(r, name, value)))
		return rc;
	if (res >= 0 && !r->pending && (rc = locus__mf_note_resource(r, res, r->tmp.data)))
		return rc;
	return exported ? export_name(r, name) : 0;
}

/* export NAME=value, export NAME+=value, or export NAME... */
static int export_line(struct mf *r, struct mf_src *c, size_t at)
{
	char q[MF_QUOTE_SIZE];
	size_t colon, equal, count = 0;
	if (r->pending)
		return locus__mf_perr(
		    r, at,
		    "export inside a rule: expected the rule's variables or its command "
		    "after %s (export before the rule)",
		    rule_text(r, q));
	locus__mf_skip_blanks(c);
	locus__mf_look_ahead(c, &colon, &equal);
	if (equal != SIZE_MAX) {
		size_t from = c->i, n = locus__mf_read_name(c);
		if (!n)
			return locus__mf_perr(r, c->i,
					      "expected a variable name after export, got %s",
					      locus__mf_got(q, c));
		return variable_line(r, c, from, n, 1);
	}
	for (;;) {
		locus__mf_skip_blanks(c);
		if (locus__mf_at_end(c))
			break;
		if (c->s[c->i] == '#') {
			locus__mf_skip_line(c);
			break;
		}
		size_t from = c->i, n = locus__mf_read_name(c);
		if (!n)
			return locus__mf_perr(r, c->i,
					      "expected a variable name after export, got %s",
					      locus__mf_got(q, c));
		r->vname.len = 0;
		int rc = locus__buf_append(&r->vname, c->s + from, n) ? locus__mf_oom(r) : 0;
		if (rc || (rc = export_name(r, r->vname.data)))
			return rc;
		count++;
	}
	if (!count)
		return locus__mf_perr(
		    r, c->i, "expected the names of the variables to export after export, got %s",
		    locus__mf_got(q, c));
	return 0;
}

static int is_word(const struct mf_words *w, size_t k, const char *s)
{
	return !strcmp(locus__mf_word(w, k), s);
}

/* .SIZE FILE SIZE, .MAKEFLOW KEY VALUE; .UMBRELLA is refused. */
static int directive_line(struct mf *r, struct mf_src *c, size_t at, size_t n)
{
	char q[MF_QUOTE_SIZE], q2[MF_QUOTE_SIZE];
	const char *d = c->s + at;
	int is_size = n == 5 && !memcmp(d, ".SIZE", 5);
	int is_mf = n == 9 && !memcmp(d, ".MAKEFLOW", 9);
	if (n == 9 && !memcmp(d, ".UMBRELLA", 9))
		return locus__mf_perr(
		    r, at,
		    ".UMBRELLA is not supported: Locus does not run tasks in Umbrella "
		    "environments (remove the line)");
	if (!is_size && !is_mf)
		return locus__mf_perr(r, at, "unknown directive %s: expected .MAKEFLOW or .SIZE",
				      locus__mf_quote(q, d, n));
	struct mf_words *w = &r->args;
	locus__mf_words_reset(w);
	int rc = locus__mf_scan_args(r, c, w);
	if (rc)
		return rc;
	const char *usage = is_size ? "\".SIZE FILE SIZE\"" : "\".MAKEFLOW KEY VALUE\"";
	if (w->n < 2)
		return locus__mf_perr(r, c->i, "expected %s, the line ends after %zu value%s",
				      usage, w->n, w->n == 1 ? "" : "s");
	if (w->n > 2)
		return locus__mf_perr(r, w->v[2].off, "expected %s, got an extra value %s", usage,
				      locus__mf_quote(q, locus__mf_word(w, 2), w->v[2].len));
	const char *val = locus__mf_word(w, 1);
	if (is_size) {
		uint64_t bytes;
		if (locus__mf_parse_size(val, &bytes))
			return locus__mf_perr(
			    r, w->v[1].off,
			    "expected the size of %s in bytes (a whole number, maybe "
			    "followed by K, M, G, T or P: powers of 1024), got %s",
			    locus__mf_quote(q, locus__mf_word(w, 0), w->v[0].len),
			    locus__mf_quote(q2, val, w->v[1].len));
		size_t ix;
		if (!locus__strmap_get(&r->size_ix, locus__mf_word(w, 0), &ix)) {
			ix = r->n_sizes;
			if (locus__grow(&r->sizes, &r->sizes_cap, ix + 1, sizeof *r->sizes) ||
			    locus__strmap_put(&r->size_ix, locus__mf_word(w, 0), ix))
				return locus__mf_oom(r);
			r->n_sizes++;
		}
		r->sizes[ix] = bytes;
		return 0;
	}
	static const char *const numeric[] = {"CORES", "DISK", "MEMORY", "WALL_TIME",
					      "MPI_PROCESSES"};
	int number = 0;
	for (size_t k = 0; k < LOCUS__ARRAY_LEN(numeric); k++)
		number |= is_word(w, 0, numeric[k]);
	if (is_word(w, 0, "MODE")) {
		if (!is_word(w, 1, "MAX_THROUGHPUT") && !is_word(w, 1, "MIN_WASTE") &&
		    !is_word(w, 1, "FIXED"))
			return locus__mf_perr(
			    r, w->v[1].off,
			    "expected MAX_THROUGHPUT, MIN_WASTE or FIXED after .MAKEFLOW "
			    "MODE, got %s",
			    locus__mf_quote(q, val, w->v[1].len));
		return 0;
	}
	if (!number && !is_word(w, 0, "CATEGORY"))
		return locus__mf_perr(
		    r, w->v[0].off,
		    "unknown .MAKEFLOW key %s: expected CATEGORY, CORES, DISK, MEMORY, "
		    "MODE, WALL_TIME or MPI_PROCESSES",
		    locus__mf_quote(q, locus__mf_word(w, 0), w->v[0].len));
	if (number) {
		/* A number and maybe a unit, as string_metric_parse reads it. */
		char *end;
		double v = strtod(val, &end);
		if (end == val || !(val[0] >= '0' && val[0] <= '9') || !isfinite(v) ||
		    end[strspn(end, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")])
			return locus__mf_perr(
			    r, w->v[1].off, "expected a number for .MAKEFLOW %s, got %s",
			    locus__mf_word(w, 0), locus__mf_quote(q, val, w->v[1].len));
		/* A time limit the run keeps: seconds, no unit. */
		double secs;
		if (is_word(w, 0, "WALL_TIME") && locus__mf_parse_seconds(val, &secs))
			return locus__mf_perr(
			    r, w->v[1].off,
			    "expected .MAKEFLOW WALL_TIME in seconds (a decimal number from 0 "
			    "to %g), got %s",
			    LOCUS_WORK_MAX, locus__mf_quote(q, val, w->v[1].len));
	}
	int res = locus__mf_resource(locus__mf_word(w, 0));
	uint64_t amount;
	if (res >= 0 && locus__mf_parse_resource(res, val, &amount))
		return resource_error(r, w->v[1].off, locus__mf_word(w, 0), val, w->v[1].len);
	/* Makeflow sets the variable KEY (and a resource of the category). */
	char *value = locus__strdup(val);
	if (!value)
		return locus__mf_oom(r);
	if ((rc = locus__mf_set_var(r, locus__mf_word(w, 0), value)))
		return rc;
	return res >= 0 && !r->pending ? locus__mf_note_resource(r, res, val) : 0;
}

/* A line that is not a command: a rule, a variable, export or a
 * directive (`at`: it started with '@', which makes no rule). */
static int statement(struct mf *r, struct mf_src *c, int at)
{
	char q[MF_QUOTE_SIZE];
	size_t colon, equal;
	if (!at) {
		locus__mf_look_ahead(c, &colon, &equal);
		if (colon != SIZE_MAX && (equal == SIZE_MAX || colon < equal))
			return rule_line(r, c);
	}
	r->after_command = 0;
	locus__mf_skip_blanks(c);
	size_t from = c->i, n;
	if (c->i < c->n && c->s[c->i] == '.') {
		c->i++;
		while (c->i < c->n && !strchr(" \t\n\r\\\"'$#", c->s[c->i]))
			c->i++;
		return directive_line(r, c, from, c->i - from);
	}
	n = locus__mf_read_name(c);
	if (n == 6 && !memcmp(c->s + from, "export", 6))
		return export_line(r, c, from);
	locus__mf_look_ahead(c, &colon, &equal);
	if (equal != SIZE_MAX) {
		if (!n)
			return locus__mf_perr(r, from,
					      "expected a variable name before '=', got %s",
					      locus__mf_got(q, c));
		return variable_line(r, c, from, n, 0);
	}
	size_t e = from;
	while (e < c->n && !locus__mf_eol_size(c->s, c->n, e))
		e++;
	return locus__mf_perr(
	    r, from,
	    "expected a rule \"targets: sources\", a variable \"NAME=value\", export or "
	    "a directive, got %s",
	    locus__mf_quote(q, c->s + from, e - from));
}

static int read_line(struct mf *r, struct mf_src *c)
{
	char ch = c->s[c->i];
	if (locus__mf_at_end(c))
		return 0;
	if (ch == '#') {
		locus__mf_skip_line(c);
		return 0;
	}
	if (ch == ' ' || ch == '\t')
		return command_line(r, c);
	if (ch == '@') {
		c->i++;
		return statement(r, c, 1);
	}
	return statement(r, c, 0);
}

/* ---- the reader ---------------------------------------------------------------- */

static int read_all(struct mf *r)
{
	const char *nul = memchr(r->text, 0, r->len);
	if (nul)
		return locus__mf_perr(r, (size_t)(nul - r->text), "a NUL byte: expected text");
	size_t i = 0;
	while (i < r->len && strchr(" \t\r\n", r->text[i]))
		i++;
	if (i < r->len && r->text[i] == '{')
		return locus__mf_perr(
		    r, i,
		    "this looks like a JX workflow (JSON), which is not supported: "
		    "expected the Make-like Makeflow language (rules \"targets: sources\" "
		    "with a tab-indented command)");
	struct mf_src c = {r->text, r->len, 0, 1, 0, 0};
	r->line = 1;
	while (c.i < r->len) {
		size_t start = c.i;
		int rc = read_line(r, &c);
		if (rc)
			return rc;
		locus__mf_skip_line(&c); /* every line reader stops at the line's end */
		c.i += locus__mf_eol_size(c.s, c.n, c.i);
		for (size_t k = start; k < c.i; k++)
			r->line += r->text[k] == '\n';
	}
	if (r->pending)
		return missing_command(r, "the end of the file");
	if (!r->n_rules)
		return locus__mf_perr(
		    r, r->len,
		    "expected at least one rule (\"targets: sources\" and a command line), "
		    "the file has none");
	return 0;
}

void locus_makeflow_options_init(struct locus_makeflow_options *o)
{
	*o = (struct locus_makeflow_options){.version = LOCUS_MAKEFLOW_OPTIONS_VERSION};
}

int locus_flow_read_makeflow(struct locus_graph **out, const char *text, size_t len,
			     const char *name, const struct locus_makeflow_options *opt,
			     struct locus_error *err)
{
	struct locus_error local;
	if (!out)
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no place for the graph");
	*out = NULL;
	if (!text && len)
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no text");
	if (opt && locus__check_version(opt->version, LOCUS_MAKEFLOW_OPTIONS_VERSION,
					"locus_makeflow_options", err))
		return LOCUS_EINVAL;
	/* A byte-order mark is skipped; columns count from after it. */
	size_t bom = locus__bom_len(text, len);
	if (bom) {
		text += bom;
		len -= bom;
	}
	if (opt && !(opt->runtime >= 0 && opt->runtime <= LOCUS_WORK_MAX))
		return locus__err(err, LOCUS_EINVAL, name, 0, 0,
				  "expected a default runtime from 0 to %g seconds, got %g",
				  LOCUS_WORK_MAX, opt->runtime);
	struct mf r = {.text = text ? text : "", .len = len, .name = name, .opt = opt};
	r.err = err ? err : &local;
	locus__strmap_init(&r.var_ix);
	locus__strmap_init(&r.export_ix);
	locus__strmap_init(&r.size_ix);
	locus__strmap_init(&r.file_ix);
	int rc = locus_graph_create(&r.g, name, r.err);
	if (!rc)
		rc = read_all(&r);
	if (!rc)
		rc = locus__mf_set_commands(&r);
	if (!rc)
		rc = locus__mf_set_sizes(&r);
	if (!rc && (rc = locus_graph_finish(r.g, r.err)) == LOCUS_EINVAL) {
		/* A cycle (rules reading their own targets were refused). */
		rc = locus__mf_cycle_error(&r);
		if (rc > 0) {
			rc = LOCUS_EPARSE;
			r.err->code = rc;
		}
	}

	for (size_t k = 0; k < r.n_vars; k++) {
		free(r.vars[k].name);
		free(r.vars[k].value);
	}
	free(r.vars);
	locus__mf_clear_locals(&r);
	free(r.locals);
	for (size_t k = 0; k < r.n_exports; k++)
		free(r.exports[k]);
	free(r.exports);
	free(r.sizes);
	free(r.prod);
	free(r.file_off);
	free(r.rule_line);
	free(r.src_at);
	free(r.src_obj);
	free(r.src_off);
	free(r.rfiles);
	free(r.pieces);
	free(r.env);
	free(r.cmds);
	for (size_t k = 0; k < r.n_cats; k++) {
		free(r.cats[k].name);
		for (int i = 0; i < MF_RESOURCES; i++)
			free(r.cats[k].v[i]);
	}
	free(r.cats);
	locus__buf_fini(&r.store);
	locus__mf_words_fini(&r.files);
	locus__mf_words_fini(&r.args);
	locus__buf_fini(&r.val);
	locus__buf_fini(&r.cmd);
	locus__buf_fini(&r.key);
	locus__buf_fini(&r.vname);
	locus__buf_fini(&r.tmp);
	locus__strmap_fini(&r.var_ix);
	locus__strmap_fini(&r.export_ix);
	locus__strmap_fini(&r.size_ix);
	locus__strmap_fini(&r.file_ix);
	if (rc) {
		locus_graph_destroy(r.g);
		return rc;
	}
	*out = r.g;
	return 0;
}
