/*
 * The Makeflow reader (include/locus/flow.h; docs/formats.md, "Makeflow",
 * says which part of the language and what becomes what): the classic
 * Make-like language of cctools, read the way Makeflow's own lexer reads
 * it (makeflow/src/lexer.c, parser_make.c), so that a workflow Makeflow
 * runs reads here into the same rules, files and command lines.
 *
 *   CONVERT=/usr/bin/convert           a variable, expanded when defined
 *   export PATH                        handed to every later command
 *   .SIZE capitol.jpg 51274            a file's size
 *   capitol.90.jpg: capitol.jpg        a rule: targets, then sources
 *   @LOCUS_RUNTIME=12                  its own variables (with or without @)
 *   <tab>$(CONVERT) -swirl 90 capitol.jpg capitol.90.jpg     its one command
 *
 * What Makeflow's lexer does and this reader does the same: $NAME, $(NAME)
 * and ${NAME} are substituted in file lists and commands (a bare $ must be
 * written \$), a variable's value is expanded when it is defined, a value
 * substituted into a command or a file list is read again as command or
 * file-list text (32 levels deep at most), quotes stay in commands and in
 * values, a backslash escapes the next character and is dropped, runs of
 * blanks outside quotes become one space, '#' starts a comment wherever it
 * is not quoted, and every line that starts with a space or a tab is a
 * command line. Where Makeflow misreads its input (a comment after a
 * value swallowing the next line, a quote left open up to some later line)
 * this reader stops with an error instead: quotes close on their line.
 *
 * The reader keeps every task's inputs for its own checks (a file made by
 * two rules, a rule reading its own target, a cycle told as rules and
 * files). It adds tasks and files to the graph as it goes, but stages and
 * commands once every task is in (the graph's arrays by task would grow at
 * each task otherwise); it reads in time linear in the text (hash maps for
 * variables, files and sizes).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/internal.h"
#include "locus/flow.h"

/* Substitutions nested deeper than this are an error (Makeflow's limit). */
#define MF_MAX_DEPTH 32
/* The most bytes one line may expand to, and the most substitutions in
 * one line: a definition that doubles at each step stops here. */
#define MF_MAX_LINE  ((size_t)16 << 20)
#define MF_MAX_SUBST 1000000
/* How much of a name or a line a message quotes. */
#define MF_QUOTE_MAX  60
#define MF_QUOTE_SIZE (MF_QUOTE_MAX * 4 + 8)

/* Characters that end a variable name (Makeflow's SYNTAX_LIMITS). */
static const char name_stops[] = "\\\"'$#,.-(){}[]<>=+!?/:";

/* ---- the reader's state ------------------------------------------------------ */

struct mf_var {
	char *name, *value;
};

enum mf_item_kind { MF_NAME, MF_COLON, MF_RENAME };

/* A word of a file list or a directive, or a ':' or '->' between them. */
struct mf_item {
	enum mf_item_kind kind;
	size_t at, len; /* its text in the words' buffer (MF_NAME) */
	size_t off;	/* where it is in the file */
};

/* Words as a scanner finds them: names glued from literals, quoted parts
 * and substituted values, as Makeflow glues consecutive literals. */
struct mf_words {
	struct mf_item *v;
	size_t n, cap;
	struct locus__buf text; /* the names, each ending in NUL */
	int open;		/* the last name is still growing */
};

enum mf_piece_kind { MF_SPACE, MF_WORD, MF_QUOTED };

/* A token of a command line, as Makeflow's lexer cuts it: a run of
 * blanks, an unquoted literal or a quoted string. */
struct mf_piece {
	enum mf_piece_kind kind;
	size_t at;  /* in the command buffer; it ends where the next begins */
	size_t off; /* where it is in the file */
};

/* A rule's stage and command, kept until every task is added: set as
 * the tasks come, the graph's arrays by task would grow at each one. */
struct mf_cmd {
	size_t line; /* in the store */
	size_t env;  /* its first NAME=value in the store */
	uint32_t n_env, flags, stage;
};

/* A file of the rule being read. */
struct mf_file {
	uint32_t obj;
	int target;
	size_t as;  /* its remote name in the rule's words, or SIZE_MAX */
	size_t off; /* where it is named */
};

struct mf {
	const char *text;
	size_t len;
	const char *name;
	struct locus_error *err;
	const struct locus_makeflow_options *opt;
	struct locus_graph *g;
	long line; /* where the line being read starts */
	size_t subst;

	/* Variables: global ones by name, the rule's own in a short list. */
	struct locus__strmap var_ix;
	struct mf_var *vars, *locals;
	size_t n_vars, vars_cap, n_locals, locals_cap;
	/* Exported names, in the order first exported. */
	struct locus__strmap export_ix;
	char **exports;
	size_t n_exports, exports_cap;
	/* .SIZE: name -> sizes[]. */
	struct locus__strmap size_ix;
	uint64_t *sizes;
	size_t n_sizes, sizes_cap;

	/* Files: name -> object id; by object, the rule making it and where
	 * it is first named. */
	struct locus__strmap file_ix;
	uint32_t *prod;
	size_t *file_off;
	size_t files_cap;

	/* Rules (one task each, same ids): where each is, and its sources
	 * (src_at[rule] .. src_at[rule + 1]). */
	long *rule_line;
	size_t rules_cap, n_rules;
	uint32_t *src_at, *src_obj;
	size_t *src_off;
	size_t src_at_cap, n_src, src_cap;
	struct mf_cmd *cmds;
	size_t cmds_cap;
	struct locus__buf store; /* command lines and environments */

	/* The rule whose command is still to come. */
	int pending;
	int after_command; /* the last line that was not blank was a command */
	long cmd_line;
	size_t rule_off;
	struct mf_words files;
	struct mf_file *rfiles;
	size_t n_rfiles, rfiles_cap;

	/* Scratch. */
	struct mf_words args;	 /* a directive's words */
	struct locus__buf val;	 /* a value being read */
	struct locus__buf cmd;	 /* a command line being read */
	struct locus__buf key;	 /* a substituted name */
	struct locus__buf vname; /* a variable being defined */
	struct locus__buf tmp;
	struct mf_piece *pieces;
	size_t n_pieces, pieces_cap;
	const char **env;
	size_t env_cap;
};

/* Text being read: the file (where a line end ends the line) or a value
 * substituted into it (errors then point at the outermost '$'). */
struct mf_src {
	const char *s;
	size_t n, i;
	int top;
	size_t at;
	int depth;
};

/* Where a scanner writes: a buffer, or the growing words of a list. */
struct mf_out {
	struct locus__buf *buf;
	struct mf_words *w;
};

/* ---- errors -------------------------------------------------------------------- */

static void where(const struct mf *r, size_t off, long *line, long *col)
{
	long ln = 1;
	size_t start = 0;
	if (off > r->len)
		off = r->len;
	for (size_t i = 0; i < off; i++)
		if (r->text[i] == '\n') {
			ln++;
			start = i + 1;
		}
	*line = ln;
	*col = (long)(off - start) + 1;
}

static int perr(struct mf *r, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int perr(struct mf *r, size_t off, const char *fmt, ...)
{
	char msg[512];
	long line, col;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	where(r, off, &line, &col);
	return locus__err(r->err, LOCUS_EPARSE, r->name, line, col, "%s", msg);
}

static int oom(struct mf *r)
{
	return locus__err(r->err, LOCUS_ENOMEM, r->name, 0, 0, "out of memory");
}

/* s[0..n) in double quotes for a message: control bytes escaped, a long
 * text cut with "...". */
static const char *quote(char *buf, const char *s, size_t n)
{
	size_t m = n < MF_QUOTE_MAX ? n : MF_QUOTE_MAX;
	buf[0] = '"';
	locus__visible(s, m, buf + 1, MF_QUOTE_SIZE - 6);
	strcat(buf, m < n ? "...\"" : "\"");
	return buf;
}

/* What is at c's position, for "got ..." in a message. */
static const char *got(char *buf, const struct mf_src *c)
{
	if (c->i >= c->n)
		return c->top ? "the end of the file" : "the end of the substituted value";
	if (c->top && (c->s[c->i] == '\n' || c->s[c->i] == '\r'))
		return "the end of the line";
	size_t k = c->i;
	while (k < c->n && k - c->i < 12 && c->s[k] != '\n' && c->s[k] != '\r' && c->s[k] != ' ' &&
	       c->s[k] != '\t')
		k++;
	if (k == c->i)
		k++;
	return quote(buf, c->s + c->i, k - c->i);
}

static size_t off_of(const struct mf_src *c)
{
	return c->top ? c->i : c->at;
}

/* " (in the value substituted here)" for an error inside a value. */
static const char *in_value(const struct mf_src *c)
{
	return c->top ? "" : " (in a substituted value)";
}

/* ---- characters ------------------------------------------------------------------ */

/* The bytes of the line end at s[i] (LF, CRLF, or a CR that ends the
 * text), or 0. */
static size_t eol_size(const char *s, size_t n, size_t i)
{
	if (i >= n)
		return 0;
	if (s[i] == '\n')
		return 1;
	if (s[i] == '\r' && (i + 1 == n || s[i + 1] == '\n'))
		return i + 1 == n ? 1 : 2;
	return 0;
}

static int at_end(const struct mf_src *c)
{
	return c->i >= c->n || (c->top && eol_size(c->s, c->n, c->i));
}

/* A backslash that ends a line: the line goes on on the next one. */
static int continuation(const struct mf_src *c)
{
	return c->top && c->s[c->i] == '\\' && eol_size(c->s, c->n, c->i + 1);
}

static int blank(const struct mf_src *c)
{
	char ch = c->s[c->i];
	return ch == ' ' || ch == '\t' || (!c->top && (ch == '\n' || ch == '\r'));
}

/* Skips blanks and line continuations; returns whether it skipped any. */
static int skip_blanks(struct mf_src *c)
{
	size_t from = c->i;
	while (c->i < c->n) {
		if (blank(c))
			c->i++;
		else if (continuation(c))
			c->i += 1 + eol_size(c->s, c->n, c->i + 1);
		else
			break;
	}
	return c->i > from;
}

static void skip_line(struct mf_src *c)
{
	while (!at_end(c))
		c->i++;
}

static int name_char(unsigned char ch)
{
	return ch > 0x20 && ch != 0x7f && !strchr(name_stops, ch);
}

/* The character a backslash escape at c gives (c at the backslash, not a
 * line continuation), moving past it: the next character, or with
 * `special` the control character of \a \b \f \n \r \t \v (Makeflow's
 * rules inside double quotes and unquoted values). A backslash at the
 * very end stays a backslash. */
static char escape(struct mf_src *c, int special)
{
	if (c->i + 1 >= c->n) {
		c->i++;
		return '\\';
	}
	char ch = c->s[c->i + 1];
	c->i += 2;
	if (!special)
		return ch;
	switch (ch) {
	case 'a':
		return 7;
	case 'b':
		return 8;
	case 'f':
		return 12;
	case 'n':
		return 10;
	case 'r':
		return 13;
	case 't':
		return 9;
	case 'v':
		return 11;
	default:
		return ch;
	}
}

/* ---- output -------------------------------------------------------------------- */

static int too_long(struct mf *r, const struct mf_src *c)
{
	return perr(r, off_of(c),
		    "the line expands to more than %zu bytes: expected no runaway substitution",
		    MF_MAX_LINE);
}

/* Appends s[0..n) to o: to a word of a list (starting one where none is
 * growing, at `off`) or to a buffer. */
static int put(struct mf *r, const struct mf_out *o, const struct mf_src *c, const char *s,
	       size_t n)
{
	struct locus__buf *b = o->w ? &o->w->text : o->buf;
	if (b->len + n > MF_MAX_LINE)
		return too_long(r, c);
	if (o->w && !o->w->open) {
		struct mf_words *w = o->w;
		if (locus__grow(&w->v, &w->cap, w->n + 1, sizeof *w->v))
			return oom(r);
		w->v[w->n++] = (struct mf_item){MF_NAME, b->len, 0, off_of(c)};
		w->open = 1;
	}
	return locus__buf_append(b, s, n) ? oom(r) : 0;
}

static int put_char(struct mf *r, const struct mf_out *o, const struct mf_src *c, char ch)
{
	return put(r, o, c, &ch, 1);
}

/* Ends the growing word of w; an empty one is dropped (Makeflow drops
 * empty literals). */
static int close_word(struct mf *r, struct mf_words *w)
{
	if (!w->open)
		return 0;
	w->open = 0;
	struct mf_item *it = &w->v[w->n - 1];
	it->len = w->text.len - it->at;
	if (!it->len) {
		w->n--;
		return 0;
	}
	return locus__buf_append(&w->text, "", 1) ? oom(r) : 0;
}

static int add_item(struct mf *r, struct mf_words *w, enum mf_item_kind kind, size_t off)
{
	int rc = close_word(r, w);
	if (rc)
		return rc;
	if (locus__grow(&w->v, &w->cap, w->n + 1, sizeof *w->v))
		return oom(r);
	w->v[w->n++] = (struct mf_item){kind, 0, 0, off};
	return 0;
}

static void words_reset(struct mf_words *w)
{
	w->n = 0;
	w->open = 0;
	w->text.len = 0;
}

static void words_fini(struct mf_words *w)
{
	free(w->v);
	locus__buf_fini(&w->text);
}

static const char *word(const struct mf_words *w, size_t k)
{
	return w->text.data + w->v[k].at;
}

/* ---- variables ------------------------------------------------------------------- */

/* A variable's value: the rule's own, else the global one, else (when
 * `env`) the process environment's; NULL when none. */
static const char *lookup(const struct mf *r, const char *name, int env)
{
	size_t ix;
	for (size_t k = 0; k < r->n_locals; k++)
		if (!strcmp(r->locals[k].name, name))
			return r->locals[k].value;
	if (locus__strmap_get(&r->var_ix, name, &ix))
		return r->vars[ix].value;
	return env ? getenv(name) : NULL;
}

/* Sets a variable (the rule's own while a rule is being read); takes
 * `value`, which it frees on error. */
static int set_var(struct mf *r, const char *name, char *value)
{
	struct mf_var *list = r->pending ? r->locals : r->vars;
	size_t n = r->pending ? r->n_locals : r->n_vars, ix;
	int found = 0;
	if (r->pending) {
		for (ix = 0; ix < n && !found; ix++)
			found = !strcmp(list[ix].name, name);
		ix -= found;
	} else {
		found = locus__strmap_get(&r->var_ix, name, &ix);
	}
	if (found) {
		free(list[ix].value);
		list[ix].value = value;
		return 0;
	}
	char *copy = locus__strdup(name);
	int bad = !copy;
	if (!bad && r->pending)
		bad = locus__grow(&r->locals, &r->locals_cap, r->n_locals + 1, sizeof *r->locals);
	else if (!bad)
		bad = locus__grow(&r->vars, &r->vars_cap, r->n_vars + 1, sizeof *r->vars) ||
		      locus__strmap_put(&r->var_ix, name, r->n_vars);
	if (bad) {
		free(copy);
		free(value);
		return oom(r);
	}
	if (r->pending)
		r->locals[r->n_locals++] = (struct mf_var){copy, value};
	else
		r->vars[r->n_vars++] = (struct mf_var){copy, value};
	return 0;
}

static void clear_locals(struct mf *r)
{
	for (size_t k = 0; k < r->n_locals; k++) {
		free(r->locals[k].name);
		free(r->locals[k].value);
	}
	r->n_locals = 0;
}

/* Seconds as LOCUS_RUNTIME gives them: a finite number >= 0, the whole
 * value. */
static int parse_seconds(const char *s, double *out)
{
	char *end, q = *s == '"' || *s == '\'' ? *s : 0;
	size_t n = strlen(s);
	if (q && (n < 2 || s[n - 1] != q))
		return -1;
	s += q != 0; /* a value in quotes: Makeflow keeps them */
	if (!*s || *s == ' ' || *s == '\t' || *s == q)
		return -1;
	double v = strtod(s, &end);
	if (*end != q || (q && end[1]) || !isfinite(v) || !(v >= 0))
		return -1;
	*out = v + 0.0;
	return 0;
}

/* At a '$' in c: reads $NAME, $(NAME) or ${NAME} and finds its value. */
static int substitution(struct mf *r, struct mf_src *c, const char **value)
{
	char q[MF_QUOTE_SIZE], q2[MF_QUOTE_SIZE];
	size_t dollar = off_of(c);
	char close = 0;
	c->i++;
	if (c->i < c->n && (c->s[c->i] == '(' || c->s[c->i] == '{')) {
		close = c->s[c->i] == '(' ? ')' : '}';
		c->i++;
	}
	size_t from = c->i;
	while (c->i < c->n && name_char((unsigned char)c->s[c->i]))
		c->i++;
	size_t n = c->i - from;
	if (!n)
		return perr(r, off_of(c),
			    "expected a variable name after \"$%s\", got %s%s (write \\$ for a $ "
			    "the shell should see)",
			    close ? (close == ')' ? "(" : "{") : "", got(q, c), in_value(c));
	if (close) {
		if (c->i >= c->n || c->s[c->i] != close)
			return perr(r, off_of(c), "expected '%c' to close \"$%c%s\", got %s%s",
				    close, close == ')' ? '(' : '{',
				    locus__visible(c->s + from, n, q, sizeof q), got(q2, c),
				    in_value(c));
		c->i++;
	}
	if (++r->subst > MF_MAX_SUBST)
		return perr(r, dollar,
			    "more than %d substitutions in one line: expected no runaway "
			    "definition",
			    MF_MAX_SUBST);
	r->key.len = 0;
	if (locus__buf_append(&r->key, c->s + from, n))
		return oom(r);
	*value = lookup(r, r->key.data, 1);
	if (!*value)
		return perr(r, dollar,
			    "undefined variable %s: expected it defined before this line (in the "
			    "rule, globally, or in the environment)%s",
			    quote(q, r->key.data, n), in_value(c));
	return 0;
}

/* A substituted value, to be read again as text of its own, one level
 * deeper. */
static int nested(struct mf *r, const struct mf_src *c, const char *value, size_t dollar,
		  struct mf_src *sub)
{
	char q[MF_QUOTE_SIZE];
	if (c->depth + 1 > MF_MAX_DEPTH)
		return perr(r, dollar,
			    "substitutions nest more than %d levels deep (last %s): expected no "
			    "variable whose value refers to itself",
			    MF_MAX_DEPTH, quote(q, r->key.data, r->key.len));
	*sub = (struct mf_src){value, strlen(value), 0, 0, dollar, c->depth + 1};
	return 0;
}

/* ---- scanners -------------------------------------------------------------------- */

/* At an opening quote: copies the quoted text to o, with its quotes when
 * `keep`. In '...' a backslash escapes the next character; in "..." the
 * special escapes apply too, $ is substituted when `subst` (the value as
 * it is, not read again), and a ' quotes again up to the next ' (all as
 * Makeflow's lexer does, which also drops blanks just after an opening
 * "). The quote must close on its line. */
static int scan_quoted(struct mf *r, struct mf_src *c, const struct mf_out *o, int keep, int subst,
		       int inner)
{
	char q = c->s[c->i];
	size_t open = off_of(c);
	int dq = q == '"', rc;
	if (keep && (rc = put_char(r, o, c, q)))
		return rc;
	if (o->w && !keep && (rc = put(r, o, c, "", 0)))
		return rc; /* the word starts at the quote */
	c->i++;
	/* Makeflow drops blanks after an opening double quote. */
	if (dq)
		while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t'))
			c->i++;
	for (;;) {
		if (at_end(c))
			return perr(
			    r, open,
			    "unterminated quote: expected a closing %c on the same line%s%s", q,
			    inner ? " (inside \"...\" too, ' starts a quoted part: write \\' "
				    "for an apostrophe)"
				  : "",
			    in_value(c));
		char ch = c->s[c->i];
		if (ch == q) {
			c->i++;
			break;
		}
		if (continuation(c)) {
			c->i += 1 + eol_size(c->s, c->n, c->i + 1);
			rc = put_char(r, o, c, ' ');
		} else if (ch == '\\') {
			rc = put_char(r, o, c, escape(c, dq));
		} else if (dq && ch == '\'') {
			rc = scan_quoted(r, c, o, keep, 0, 1);
		} else if (dq && subst && ch == '$') {
			const char *v;
			rc = substitution(r, c, &v);
			if (!rc)
				rc = put(r, o, c, v, strlen(v));
		} else {
			size_t k = c->i + 1;
			while (k < c->n && c->s[k] != q && c->s[k] != '\\' && c->s[k] != '\'' &&
			       c->s[k] != '$' && !(c->top && (c->s[k] == '\n' || c->s[k] == '\r')))
				k++;
			rc = put(r, o, c, c->s + c->i, k - c->i);
			c->i = k;
		}
		if (rc)
			return rc;
	}
	return keep ? put_char(r, o, c, q) : 0;
}

static int piece(struct mf *r, const struct mf_src *c, enum mf_piece_kind kind)
{
	if (locus__grow(&r->pieces, &r->pieces_cap, r->n_pieces + 1, sizeof *r->pieces))
		return oom(r);
	r->pieces[r->n_pieces++] = (struct mf_piece){kind, r->cmd.len, off_of(c)};
	return 0;
}

/* A command line (or a value substituted into one, read again as command
 * text) into r->cmd, cut into pieces. */
static int scan_command(struct mf *r, struct mf_src *c)
{
	const struct mf_out o = {&r->cmd, NULL};
	int rc = 0;
	if (skip_blanks(c) && c->depth > 0 &&
	    ((rc = piece(r, c, MF_SPACE)) || (rc = put_char(r, &o, c, ' '))))
		return rc;
	while (!rc && !at_end(c)) {
		char ch = c->s[c->i];
		if (blank(c) || continuation(c)) {
			skip_blanks(c);
			if (!(rc = piece(r, c, MF_SPACE)))
				rc = put_char(r, &o, c, ' ');
		} else if (ch == '#') {
			skip_line(c);
		} else if (ch == '$') {
			const char *v;
			struct mf_src sub;
			size_t dollar = off_of(c);
			if (!(rc = substitution(r, c, &v)) && !(rc = nested(r, c, v, dollar, &sub)))
				rc = scan_command(r, &sub);
		} else if (ch == '"' || ch == '\'') {
			if (!(rc = piece(r, c, MF_QUOTED)))
				rc = scan_quoted(r, c, &o, 1, 1, 0);
		} else {
			if ((rc = piece(r, c, MF_WORD)))
				break;
			while (!rc && !at_end(c) && !blank(c) && !continuation(c) &&
			       !strchr("\"'$#", c->s[c->i])) {
				if (c->s[c->i] == '\\') {
					rc = put_char(r, &o, c, escape(c, 0));
					continue;
				}
				size_t k = c->i + 1;
				while (k < c->n && !strchr(" \t\n\r\"'$#\\", c->s[k]))
					k++;
				rc = put(r, &o, c, c->s + c->i, k - c->i);
				c->i = k;
			}
		}
	}
	return rc;
}

/* A file list (or a value substituted into one, read again as a file
 * list) into w: names, ':' and '->'. */
static int scan_files(struct mf *r, struct mf_src *c, struct mf_words *w)
{
	const struct mf_out o = {NULL, w};
	int rc = 0;
	skip_blanks(c);
	while (!rc && !at_end(c)) {
		char ch = c->s[c->i];
		if (blank(c) || continuation(c)) {
			skip_blanks(c);
			rc = close_word(r, w);
		} else if (ch == '#') {
			skip_line(c);
		} else if (ch == ':') {
			rc = add_item(r, w, MF_COLON, off_of(c));
			c->i++;
		} else if (ch == '-' && c->i + 1 < c->n && c->s[c->i + 1] == '>') {
			rc = add_item(r, w, MF_RENAME, off_of(c));
			c->i += 2;
		} else if (ch == '$') {
			const char *v;
			struct mf_src sub;
			size_t dollar = off_of(c);
			if (!(rc = substitution(r, c, &v)) && !(rc = nested(r, c, v, dollar, &sub)))
				rc = scan_files(r, &sub, w);
		} else if (ch == '"' || ch == '\'') {
			rc = scan_quoted(r, c, &o, 0, 1, 0);
		} else if (ch == '\\') {
			rc = put_char(r, &o, c, escape(c, 0));
		} else {
			size_t k = c->i + 1;
			while (k < c->n && !strchr(" \t\n\r#:-$\"'\\", c->s[k]))
				k++;
			rc = put(r, &o, c, c->s + c->i, k - c->i);
			c->i = k;
		}
	}
	return rc;
}

/* A variable's value, from c to the end of the line, into r->val:
 * substituted as it is read, quotes kept, blanks at its end dropped. */
static int scan_value(struct mf *r, struct mf_src *c)
{
	const struct mf_out o = {&r->val, NULL};
	size_t keep = 0;
	int rc = 0;
	r->val.len = 0;
	if ((rc = locus__buf_append(&r->val, "", 0)))
		return oom(r);
	skip_blanks(c);
	while (!rc && !at_end(c)) {
		char ch = c->s[c->i];
		int raw = 0;
		if (ch == '#') {
			skip_line(c);
			break;
		} else if (ch == '$') {
			const char *v;
			if (!(rc = substitution(r, c, &v)))
				rc = put(r, &o, c, v, strlen(v));
		} else if (ch == '"' || ch == '\'') {
			rc = scan_quoted(r, c, &o, 1, 1, 0);
		} else if (continuation(c)) {
			c->i += 1 + eol_size(c->s, c->n, c->i + 1);
			rc = put_char(r, &o, c, ' ');
			raw = 1;
		} else if (ch == '\\') {
			rc = put_char(r, &o, c, escape(c, 1));
		} else {
			raw = blank(c);
			rc = put_char(r, &o, c, ch);
			c->i++;
		}
		if (!raw)
			keep = r->val.len;
	}
	r->val.len = keep;
	r->val.data[keep] = 0;
	return rc;
}

/* A directive's words: literals and quoted parts, no substitution. */
static int scan_args(struct mf *r, struct mf_src *c, struct mf_words *w)
{
	const struct mf_out o = {NULL, w};
	char q[MF_QUOTE_SIZE];
	int rc = 0;
	while (!rc && !at_end(c)) {
		char ch = c->s[c->i];
		if (blank(c) || continuation(c)) {
			skip_blanks(c);
			rc = close_word(r, w);
		} else if (ch == '#') {
			skip_line(c);
		} else if (ch == '$') {
			return perr(r, c->i,
				    "a directive's values are not substituted: expected a literal "
				    "value, got %s",
				    got(q, c));
		} else if (ch == '"' || ch == '\'') {
			rc = scan_quoted(r, c, &o, 0, 0, 0);
		} else if (ch == '\\') {
			rc = put_char(r, &o, c, escape(c, 0));
		} else {
			rc = put_char(r, &o, c, ch);
			c->i++;
		}
	}
	return rc ? rc : close_word(r, w);
}

/* The name at c (Makeflow's syntax name); its length, 0 when none. */
static size_t read_name(struct mf_src *c)
{
	size_t from = c->i;
	while (c->i < c->n && name_char((unsigned char)c->s[c->i]))
		c->i++;
	return c->i - from;
}

/* Where the first unquoted ':' and '=' of the line at c are (SIZE_MAX
 * when none), as Makeflow's lexer looks ahead to tell a rule from a
 * variable; a comment ends the look. */
static void look_ahead(const struct mf_src *c, size_t *colon, size_t *equal)
{
	size_t i = c->i;
	char q = 0;
	*colon = *equal = SIZE_MAX;
	while (i < c->n && !eol_size(c->s, c->n, i)) {
		char ch = c->s[i];
		if (ch == '\\') {
			size_t e = eol_size(c->s, c->n, i + 1);
			i += 1 + (e ? e : 1);
			continue;
		}
		if (q) {
			if (ch == q)
				q = 0;
		} else if (ch == '"' || ch == '\'') {
			q = ch;
		} else if (ch == '#') {
			break;
		} else if (ch == ':' && *colon == SIZE_MAX) {
			*colon = i;
		} else if (ch == '=' && *equal == SIZE_MAX) {
			*equal = i;
		}
		i++;
	}
}

/* ---- files and sizes ---------------------------------------------------------- */

/* The object of file `name`, added when it is new. */
static int intern(struct mf *r, const char *name, size_t off, uint32_t *obj)
{
	size_t ix;
	if (locus__strmap_get(&r->file_ix, name, &ix)) {
		*obj = (uint32_t)ix;
		return 0;
	}
	long o = locus_graph_add_object(r->g, name, 0);
	if (o == LOCUS_ENOMEM)
		return oom(r);
	if (o < 0)
		return perr(r, off, "too many files");
	size_t cap = r->files_cap;
	if (locus__grow(&r->prod, &cap, (size_t)o + 1, sizeof *r->prod) ||
	    locus__grow(&r->file_off, &r->files_cap, (size_t)o + 1, sizeof *r->file_off) ||
	    locus__strmap_put(&r->file_ix, name, (size_t)o))
		return oom(r);
	r->prod[o] = LOCUS_NONE;
	r->file_off[o] = off;
	*obj = (uint32_t)o;
	return 0;
}

/* A .SIZE value: a whole number of bytes, optionally followed by K, M, G,
 * T or P (powers of 1024, as cctools' string_metric_parse) and an
 * optional B or iB; B alone is bytes. */
static int parse_size(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	static const char units[] = "KMGTP";
	const char *u = *p ? strchr(units, *p >= 'a' ? *p - 'a' + 'A' : *p) : NULL;
	int shift = u ? 10 * (int)(u - units + 1) : 0;
	if (u) {
		p++;
		if (*p == 'i')
			p++;
	}
	if (*p == 'B' || *p == 'b')
		p++;
	if (*p || (u && p[-1] == 'i'))
		return -1;
	if (shift && v > (UINT64_MAX >> 1) >> shift)
		return -1;
	if (!shift && v > UINT64_MAX >> 1)
		return -1;
	*out = v << shift;
	return 0;
}

static int io_error(struct mf *r, uint32_t obj, const char *path, int e)
{
	long line, col;
	char q[MF_QUOTE_SIZE];
	const char *name = r->g->objects[obj].name;
	where(r, r->file_off[obj], &line, &col);
	return locus__err(r->err, LOCUS_EIO, r->name, line, col,
			  "cannot read the size of %s (%s): %s", quote(q, name, strlen(name)), path,
			  strerror(e));
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The sum of the regular files under directory `path` (a buffer it
 * extends and restores), symbolic links not followed. */
static int tree_size(struct mf *r, struct locus__buf *path, uint32_t obj, uint64_t *sum)
{
	DIR *d = opendir(path->data);
	if (!d)
		return io_error(r, obj, path->data, errno);
	size_t base = path->len;
	int rc = 0;
	for (;;) {
		errno = 0;
		struct dirent *e = readdir(d);
		if (!e) {
			if (errno)
				rc = io_error(r, obj, path->data, errno);
			break;
		}
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		path->len = base;
		if (locus__buf_append(path, "/", 1) ||
		    locus__buf_append(path, e->d_name, strlen(e->d_name))) {
			rc = oom(r);
			break;
		}
		struct stat st;
		if (lstat(path->data, &st)) {
			if (errno == ENOENT)
				continue;
			rc = io_error(r, obj, path->data, errno);
			break;
		}
		if (S_ISREG(st.st_mode))
			*sum = add_sat(*sum, (uint64_t)st.st_size);
		else if (S_ISDIR(st.st_mode) && (rc = tree_size(r, path, obj, sum)))
			break;
	}
	closedir(d);
	path->len = base;
	path->data[base] = 0;
	return rc;
}

/* Every object's size: its .SIZE, else what it holds under opt->dir (0
 * when it is not there). */
static int set_sizes(struct mf *r)
{
	const char *dir = r->opt ? r->opt->dir : NULL;
	int dir_ok = 0;
	for (uint32_t o = 0; o < r->g->n_objects; o++) {
		const char *name = r->g->objects[o].name;
		size_t ix;
		uint64_t bytes = 0;
		if (locus__strmap_get(&r->size_ix, name, &ix)) {
			bytes = r->sizes[ix];
		} else if (dir) {
			struct stat st;
			r->tmp.len = 0;
			if (name[0] != '/') {
				if (!dir_ok && stat(dir, &st))
					return locus__err(
					    r->err, LOCUS_EIO, r->name, 0, 0,
					    "cannot read the workflow's directory %s: %s", dir,
					    strerror(errno));
				if (!dir_ok && !S_ISDIR(st.st_mode))
					return locus__err(r->err, LOCUS_EIO, r->name, 0, 0,
							  "the workflow's directory %s is not a "
							  "directory",
							  dir);
				dir_ok = 1;
				if (locus__buf_append(&r->tmp, dir, strlen(dir)) ||
				    locus__buf_append(&r->tmp, "/", 1))
					return oom(r);
			}
			if (locus__buf_append(&r->tmp, name, strlen(name)))
				return oom(r);
			if (stat(r->tmp.data, &st)) {
				if (errno != ENOENT && errno != ENOTDIR)
					return io_error(r, o, r->tmp.data, errno);
			} else if (S_ISREG(st.st_mode)) {
				bytes = (uint64_t)st.st_size;
			} else if (S_ISDIR(st.st_mode)) {
				int rc = tree_size(r, &r->tmp, o, &bytes);
				if (rc)
					return rc;
			}
		}
		locus_graph_set_object_bytes(r->g, o, bytes);
	}
	return 0;
}

/* ---- the stage: the program a command runs ------------------------------------ */

static int shell_op(char ch)
{
	return ch && strchr(";|&()<>", ch);
}

/* The next word of a shell line at *pp into w, quotes removed: 0 at the
 * end, 1 for a word (*assign: it is NAME=value), 2 for an operator. */
static int shell_word(const char **pp, struct locus__buf *w, int *assign)
{
	const char *p = *pp;
	int name = 1, rc = 0;
	*assign = 0;
	w->len = 0;
	if (w->data)
		w->data[0] = 0;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (!*p)
		return 0;
	if (shell_op(*p)) {
		const char *from = p;
		while (shell_op(*p))
			p++;
		rc = locus__buf_append(w, from, (size_t)(p - from));
		*pp = p;
		return rc ? -1 : 2;
	}
	while (!rc && *p && *p != ' ' && *p != '\t' && *p != '\n' && !shell_op(*p)) {
		char ch = *p;
		if (ch == '\'' || ch == '"') {
			name = 0;
			for (p++; *p && *p != ch; p++) {
				if (ch == '"' && *p == '\\' && p[1] && strchr("\"\\$`", p[1]))
					p++;
				if ((rc = locus__buf_append(w, p, 1)))
					break;
			}
			if (*p)
				p++;
			continue;
		}
		if (ch == '\\') {
			name = 0;
			p++;
			if (*p && (rc = locus__buf_append(w, p++, 1)))
				break;
			continue;
		}
		if (name && !*assign) {
			if (ch == '=' && w->len > 0)
				*assign = 1;
			else if (!(ch == '_' || (ch >= 'A' && ch <= 'Z') ||
				   (ch >= 'a' && ch <= 'z') ||
				   (w->len > 0 && ch >= '0' && ch <= '9')))
				name = 0;
		}
		rc = locus__buf_append(w, p++, 1);
	}
	*pp = p;
	if (rc)
		return -1;
	if (!w->data && locus__buf_append(w, "", 0))
		return -1;
	return 1;
}

enum mf_interp { MF_NOT, MF_SH, MF_PY, MF_PERL, MF_RUBY, MF_NODE, MF_R };

static enum mf_interp interpreter(const char *p)
{
	if (!strcmp(p, "sh") || !strcmp(p, "bash") || !strcmp(p, "dash"))
		return MF_SH;
	if (!strncmp(p, "python", 6) && strspn(p + 6, "0123456789.") == strlen(p + 6))
		return MF_PY;
	if (!strcmp(p, "perl"))
		return MF_PERL;
	if (!strcmp(p, "ruby"))
		return MF_RUBY;
	if (!strcmp(p, "node"))
		return MF_NODE;
	if (!strcmp(p, "Rscript"))
		return MF_R;
	return MF_NOT;
}

static const char *base_name(const char *p)
{
	const char *slash = strrchr(p, '/');
	return slash && slash[1] ? slash + 1 : p;
}

/* The stage of command line `line` into out: its program without its
 * directory, after NAME=value assignments and redirections; for an
 * interpreter, the script it runs (or a Python module) when it runs one,
 * else the interpreter. -1 when the line runs no program, -2 out of
 * memory. */
static int stage_of(const char *line, struct locus__buf *w, struct locus__buf *out)
{
	const char *p = line;
	int assign, k;
	out->len = 0;
	for (;;) {
		k = shell_word(&p, w, &assign);
		if (k <= 0)
			return k ? -2 : -1;
		if (k == 2) {
			if (strpbrk(w->data, "<>") && (k = shell_word(&p, w, &assign)) <= 0)
				return k ? -2 : -1;
			continue;
		}
		if (assign || !strcmp(w->data, "!") || !strcmp(w->data, "{"))
			continue;
		if (w->data[strspn(w->data, "0123456789")] == 0 && (*p == '<' || *p == '>'))
			continue; /* a file descriptor: 2>err */
		break;
	}
	const char *prog = base_name(w->data);
	if (!*prog)
		return -1;
	if (locus__buf_append(out, prog, strlen(prog)))
		return -2;
	enum mf_interp in = interpreter(out->data);
	if (in == MF_NOT)
		return 0;
	while ((k = shell_word(&p, w, &assign)) == 1) {
		const char *a = w->data;
		if (a[0] != '-') {
			out->len = 0;
			const char *script = base_name(a);
			if (!*script)
				return 0;
			return locus__buf_append(out, script, strlen(script)) ? -2 : 0;
		}
		if (!a[1] || (in == MF_NODE && (!strcmp(a, "--eval") || !strcmp(a, "--print"))))
			return 0; /* "-": the program comes on stdin */
		if (a[1] == '-')
			continue;
		for (const char *f = a + 1; *f; f++) {
			int inline_code = (in == MF_SH && *f == 'c') ||
					  (in == MF_PY && *f == 'c') ||
					  (in == MF_PERL && (*f == 'e' || *f == 'E')) ||
					  (in == MF_RUBY && *f == 'e') ||
					  (in == MF_NODE && (*f == 'e' || *f == 'p')) ||
					  (in == MF_R && *f == 'e');
			if (inline_code)
				return 0;
			if (in == MF_PY && *f == 'm') {
				const char *mod = f + 1; /* -mNAME or -m NAME */
				if (!*mod) {
					if (shell_word(&p, w, &assign) != 1)
						return 0;
					mod = w->data;
				}
				out->len = 0;
				return locus__buf_append(out, mod, strlen(mod)) ? -2 : 0;
			}
			if (in == MF_PY && (*f == 'W' || *f == 'X')) {
				if (!f[1] && shell_word(&p, w, &assign) != 1)
					return 0;
				break;
			}
		}
	}
	return k < 0 ? -2 : 0;
}

/* ---- lines ------------------------------------------------------------------------ */

/* The physical line of the pending rule, quoted. */
static const char *rule_text(const struct mf *r, char *buf)
{
	size_t e = r->rule_off;
	while (e < r->len && r->text[e] != '\n' && r->text[e] != '\r')
		e++;
	while (e > r->rule_off && (r->text[e - 1] == ' ' || r->text[e - 1] == '\t'))
		e--;
	return quote(buf, r->text + r->rule_off, e - r->rule_off);
}

static int missing_command(struct mf *r, const char *found)
{
	char q[MF_QUOTE_SIZE];
	long line, col;
	where(r, r->rule_off, &line, &col);
	return perr(r, r->rule_off,
		    "rule at line %ld has no command: expected a line starting with a tab after "
		    "%s, got %s",
		    line, rule_text(r, q), found);
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
	words_reset(w);
	r->subst = 0;
	int rc = scan_files(r, c, w);
	if (rc || (rc = close_word(r, w)))
		return rc;
	uint32_t rule = (uint32_t)r->n_rules;
	size_t colon = SIZE_MAX, targets = 0;
	r->n_rfiles = 0;
	for (size_t k = 0; k < w->n; k++) {
		const struct mf_item *it = &w->v[k];
		if (it->kind == MF_COLON) {
			if (colon != SIZE_MAX)
				return perr(
				    r, it->off,
				    "a second ':' in a rule: expected one ':' between the "
				    "targets and the sources (quote a name that has a colon)");
			if (!targets)
				return perr(
				    r, it->off,
				    "expected at least one target before ':' (the files the "
				    "rule makes)");
			colon = it->off;
			continue;
		}
		if (it->kind == MF_RENAME)
			return perr(r, it->off, "expected a file name before \"->\"");
		size_t as = SIZE_MAX;
		int renamed = k + 1 < w->n && w->v[k + 1].kind == MF_RENAME;
		if (renamed) {
			if (k + 2 >= w->n || w->v[k + 2].kind != MF_NAME)
				return perr(r, w->v[k + 1].off + 2,
					    "expected the remote name after \"%s->\"",
					    locus__visible(word(w, k), it->len, q, sizeof q));
			as = w->v[k + 2].at;
			if (!strcmp(word(w, k), word(w, k + 2)))
				as = SIZE_MAX;
		}
		uint32_t obj = 0;
		if ((rc = intern(r, word(w, k), it->off, &obj)))
			return rc;
		int target = colon == SIZE_MAX;
		uint32_t was = r->prod[obj];
		if (target && was != LOCUS_NONE && was != rule)
			return perr(
			    r, it->off,
			    "file %s is made by the rules at lines %ld and %ld: expected one "
			    "rule making each file",
			    quote(q, word(w, k), it->len), r->rule_line[was], r->line);
		if (!target && was == rule)
			return perr(r, it->off,
				    "the rule at line %ld reads its own target %s: expected its "
				    "sources to be other files",
				    r->line, quote(q, word(w, k), it->len));
		if (target) {
			r->prod[obj] = rule;
			targets++;
		}
		if (locus__grow(&r->rfiles, &r->rfiles_cap, r->n_rfiles + 1, sizeof *r->rfiles))
			return oom(r);
		r->rfiles[r->n_rfiles++] = (struct mf_file){obj, target, as, it->off};
		if (renamed)
			k += 2;
	}
	if (colon == SIZE_MAX)
		return perr(r, start, "expected ':' between the targets and the sources");
	if (locus__grow(&r->rule_line, &r->rules_cap, r->n_rules + 1, sizeof *r->rule_line))
		return oom(r);
	r->rule_line[r->n_rules] = r->line;
	r->rule_off = start;
	r->pending = 1;
	r->after_command = 0;
	return 0;
}

/* Keeps the rule's stage, command line and exported variables (those
 * with a value, as NAME=value) for its task. */
static int keep_command(struct mf *r, uint32_t t, const char *line, uint32_t flags, uint32_t stage)
{
	struct mf_cmd *c;
	if (locus__grow(&r->cmds, &r->cmds_cap, (size_t)t + 1, sizeof *r->cmds))
		return oom(r);
	c = &r->cmds[t];
	*c = (struct mf_cmd){r->store.len, 0, 0, flags, stage};
	if (locus__buf_append(&r->store, line, strlen(line) + 1))
		return oom(r);
	c->env = r->store.len;
	for (size_t e = 0; e < r->n_exports; e++) {
		const char *v = lookup(r, r->exports[e], 1);
		if (!v)
			continue;
		if (locus__buf_printf(&r->store, "%s=%s", r->exports[e], v) ||
		    locus__buf_append(&r->store, "", 1))
			return oom(r);
		c->n_env++;
	}
	return 0;
}

/* Gives every task its stage and command, once all are added. */
static int set_commands(struct mf *r)
{
	for (uint32_t t = 0; t < r->n_rules; t++) {
		const struct mf_cmd *c = &r->cmds[t];
		if (c->n_env && locus__grow(&r->env, &r->env_cap, c->n_env, sizeof *r->env))
			return oom(r);
		const char *p = r->store.data + c->env;
		for (uint32_t i = 0; i < c->n_env; i++) {
			r->env[i] = p;
			p += strlen(p) + 1;
		}
		struct locus_command lc = {.line = r->store.data + c->line,
					   .flags = c->flags,
					   .env = c->n_env ? r->env : NULL,
					   .n_env = c->n_env};
		if (locus_graph_set_stage(r->g, t, c->stage) ||
		    locus_graph_set_command(r->g, t, &lc))
			return oom(r);
	}
	return 0;
}

/* The rule's command line: its task, with its files, stage and command. */
static int command_line(struct mf *r, struct mf_src *c)
{
	char q[MF_QUOTE_SIZE];
	if (!r->pending) {
		struct mf_src t = *c;
		skip_blanks(&t);
		if (at_end(&t) || t.s[t.i] == '#') {
			skip_line(c);
			return 0;
		}
		if (r->after_command)
			return perr(
			    r, t.i,
			    "a second command line for the rule at line %ld (its command is "
			    "on line %ld): expected one command per rule (join commands with "
			    "; or &&; a line that starts with a space or a tab is a command)",
			    r->rule_line[r->n_rules - 1], r->cmd_line);
		return perr(r, t.i,
			    "a command line outside a rule: expected a rule \"targets: sources\" "
			    "before it (a line that starts with a space or a tab is a command)");
	}
	r->cmd.len = 0;
	r->n_pieces = 0;
	r->subst = 0;
	int rc = scan_command(r, c);
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
			return perr(r, p->off,
				    "nested workflows (MAKEFLOW) are not supported: expected a "
				    "command to run");
		} else {
			break;
		}
	}
	if (first == end)
		return perr(r, r->pieces[0].off,
			    "the command is empty after LOCAL: expected a program to run");
	size_t from = r->pieces[first].at;
	size_t to = end < r->n_pieces ? r->pieces[end].at : r->cmd.len;
	r->cmd.data[to] = 0;
	const char *line = r->cmd.data + from;

	rc = stage_of(line, &r->tmp, &r->val);
	if (rc == -2)
		return oom(r);
	if (rc)
		return perr(r, r->pieces[first].off,
			    "the command runs no program: expected a program after its variable "
			    "assignments and redirections, got %s%s",
			    quote(q, line, to - from),
			    strchr(line, '=') ? " (a line that starts with a space or a tab is a "
						"command: write the rule's variables unindented)"
					      : "");
	/* The task is named by the rule's first target. */
	const char *task_name = r->g->objects[r->rfiles[0].obj].name;
	double work = r->opt ? r->opt->runtime : 0;
	const char *rt = lookup(r, "LOCUS_RUNTIME", 0);
	if (rt)
		parse_seconds(rt, &work);
	long t = locus_graph_add_task(r->g, task_name, work);
	if (t < 0)
		return t == LOCUS_ENOMEM ? oom(r) : perr(r, r->rule_off, "too many rules");
	long stage = locus_graph_stage(r->g, r->val.data);
	if (stage < 0)
		return oom(r);
	if ((rc = keep_command(r, (uint32_t)t, line, flags, (uint32_t)stage)))
		return rc;

	if (locus__grow(&r->src_at, &r->src_at_cap, r->n_rules + 2, sizeof *r->src_at))
		return oom(r);
	r->src_at[r->n_rules] = (uint32_t)r->n_src;
	for (size_t k = 0; k < r->n_rfiles; k++) {
		const struct mf_file *f = &r->rfiles[k];
		const char *as = f->as == SIZE_MAX ? NULL : r->files.text.data + f->as;
		if (f->target) {
			if ((rc = locus_graph_add_output_as(r->g, (uint32_t)t, f->obj, as, r->err)))
				return rc == LOCUS_ENOMEM ? oom(r) : rc;
			continue;
		}
		size_t cap = r->src_cap;
		if (locus_graph_add_input_as(r->g, (uint32_t)t, f->obj, as) ||
		    locus__grow(&r->src_obj, &cap, r->n_src + 1, sizeof *r->src_obj) ||
		    locus__grow(&r->src_off, &r->src_cap, r->n_src + 1, sizeof *r->src_off))
			return oom(r);
		r->src_obj[r->n_src] = f->obj;
		r->src_off[r->n_src++] = f->off;
	}
	r->n_rules++;
	r->src_at[r->n_rules] = (uint32_t)r->n_src;
	clear_locals(r);
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
		return oom(r);
	}
	r->exports[r->n_exports++] = copy;
	return 0;
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
		return oom(r);
	const char *name = r->vname.data;
	skip_blanks(c);
	if (!at_end(c) && c->s[c->i] == '=') {
		c->i++;
	} else if (!at_end(c) && c->s[c->i] == '+' && c->i + 1 < c->n && c->s[c->i + 1] == '=') {
		append = 1;
		c->i += 2;
	} else if (!at_end(c) && c->i + 1 < c->n && c->s[c->i + 1] == '=') {
		return perr(r, c->i, "expected '=' or '+=' after the variable name %s, got %s",
			    quote(q, name, name_n), quote(q2, c->s + c->i, 2));
	} else {
		return perr(r, c->i, "expected '=' after the variable name %s, got %s",
			    quote(q, name, name_n), got(q2, c));
	}
	skip_blanks(c);
	size_t at = c->i;
	r->subst = 0;
	int rc = scan_value(r, c);
	if (rc)
		return rc;
	const char *old = append ? lookup(r, name, 1) : NULL;
	r->tmp.len = 0;
	if ((old && (locus__buf_append(&r->tmp, old, strlen(old)) ||
		     locus__buf_append(&r->tmp, " ", 1))) ||
	    locus__buf_append(&r->tmp, r->val.data, r->val.len))
		return oom(r);
	if (!strcmp(name, "LOCUS_RUNTIME")) {
		double v;
		if (parse_seconds(r->tmp.data, &v))
			return perr(r, at,
				    "expected LOCUS_RUNTIME in seconds (a number >= 0), got %s",
				    quote(q, r->tmp.data, r->tmp.len));
	}
	char *value = locus__strndup(r->tmp.data, r->tmp.len);
	if (!value)
		return oom(r);
	if ((rc = set_var(r, name, value)))
		return rc;
	return exported ? export_name(r, name) : 0;
}

/* export NAME=value, export NAME+=value, or export NAME... */
static int export_line(struct mf *r, struct mf_src *c, size_t at)
{
	char q[MF_QUOTE_SIZE];
	size_t colon, equal, count = 0;
	if (r->pending)
		return perr(r, at,
			    "export inside a rule: expected the rule's variables or its command "
			    "after %s (export before the rule)",
			    rule_text(r, q));
	skip_blanks(c);
	look_ahead(c, &colon, &equal);
	if (equal != SIZE_MAX) {
		size_t from = c->i, n = read_name(c);
		if (!n)
			return perr(r, c->i, "expected a variable name after export, got %s",
				    got(q, c));
		return variable_line(r, c, from, n, 1);
	}
	for (;;) {
		skip_blanks(c);
		if (at_end(c))
			break;
		if (c->s[c->i] == '#') {
			skip_line(c);
			break;
		}
		size_t from = c->i, n = read_name(c);
		if (!n)
			return perr(r, c->i, "expected a variable name after export, got %s",
				    got(q, c));
		r->vname.len = 0;
		int rc = locus__buf_append(&r->vname, c->s + from, n) ? oom(r) : 0;
		if (rc || (rc = export_name(r, r->vname.data)))
			return rc;
		count++;
	}
	if (!count)
		return perr(r, c->i,
			    "expected the names of the variables to export after export, got %s",
			    got(q, c));
	return 0;
}

static int is_word(const struct mf_words *w, size_t k, const char *s)
{
	return !strcmp(word(w, k), s);
}

/* .SIZE FILE SIZE, .MAKEFLOW KEY VALUE; .UMBRELLA is refused. */
static int directive_line(struct mf *r, struct mf_src *c, size_t at, size_t n)
{
	char q[MF_QUOTE_SIZE], q2[MF_QUOTE_SIZE];
	const char *d = c->s + at;
	int is_size = n == 5 && !memcmp(d, ".SIZE", 5);
	int is_mf = n == 9 && !memcmp(d, ".MAKEFLOW", 9);
	if (n == 9 && !memcmp(d, ".UMBRELLA", 9))
		return perr(r, at,
			    ".UMBRELLA is not supported: Locus does not run tasks in Umbrella "
			    "environments (remove the line)");
	if (!is_size && !is_mf)
		return perr(r, at, "unknown directive %s: expected .MAKEFLOW or .SIZE",
			    quote(q, d, n));
	struct mf_words *w = &r->args;
	words_reset(w);
	int rc = scan_args(r, c, w);
	if (rc)
		return rc;
	const char *usage = is_size ? "\".SIZE FILE SIZE\"" : "\".MAKEFLOW KEY VALUE\"";
	if (w->n < 2)
		return perr(r, c->i, "expected %s, the line ends after %zu value%s", usage, w->n,
			    w->n == 1 ? "" : "s");
	if (w->n > 2)
		return perr(r, w->v[2].off, "expected %s, got an extra value %s", usage,
			    quote(q, word(w, 2), w->v[2].len));
	const char *val = word(w, 1);
	if (is_size) {
		uint64_t bytes;
		if (parse_size(val, &bytes))
			return perr(r, w->v[1].off,
				    "expected the size of %s in bytes (a whole number, maybe "
				    "followed by K, M, G, T or P: powers of 1024), got %s",
				    quote(q, word(w, 0), w->v[0].len), quote(q2, val, w->v[1].len));
		size_t ix;
		if (!locus__strmap_get(&r->size_ix, word(w, 0), &ix)) {
			ix = r->n_sizes;
			if (locus__grow(&r->sizes, &r->sizes_cap, ix + 1, sizeof *r->sizes) ||
			    locus__strmap_put(&r->size_ix, word(w, 0), ix))
				return oom(r);
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
			return perr(r, w->v[1].off,
				    "expected MAX_THROUGHPUT, MIN_WASTE or FIXED after .MAKEFLOW "
				    "MODE, got %s",
				    quote(q, val, w->v[1].len));
		return 0;
	}
	if (!number && !is_word(w, 0, "CATEGORY"))
		return perr(r, w->v[0].off,
			    "unknown .MAKEFLOW key %s: expected CATEGORY, CORES, DISK, MEMORY, "
			    "MODE, WALL_TIME or MPI_PROCESSES",
			    quote(q, word(w, 0), w->v[0].len));
	if (number) {
		/* A number and maybe a unit, as string_metric_parse reads it. */
		char *end;
		double v = strtod(val, &end);
		if (end == val || !(val[0] >= '0' && val[0] <= '9') || !isfinite(v) ||
		    end[strspn(end, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")])
			return perr(r, w->v[1].off, "expected a number for .MAKEFLOW %s, got %s",
				    word(w, 0), quote(q, val, w->v[1].len));
	}
	/* Makeflow sets the variable KEY. */
	char *value = locus__strdup(val);
	if (!value)
		return oom(r);
	return set_var(r, word(w, 0), value);
}

/* A line that is not a command: a rule, a variable, export or a
 * directive (`at`: it started with '@', which makes no rule). */
static int statement(struct mf *r, struct mf_src *c, int at)
{
	char q[MF_QUOTE_SIZE];
	size_t colon, equal;
	if (!at) {
		look_ahead(c, &colon, &equal);
		if (colon != SIZE_MAX && (equal == SIZE_MAX || colon < equal))
			return rule_line(r, c);
	}
	r->after_command = 0;
	skip_blanks(c);
	size_t from = c->i, n;
	if (c->i < c->n && c->s[c->i] == '.') {
		c->i++;
		while (c->i < c->n && !strchr(" \t\n\r\\\"'$#", c->s[c->i]))
			c->i++;
		return directive_line(r, c, from, c->i - from);
	}
	n = read_name(c);
	if (n == 6 && !memcmp(c->s + from, "export", 6))
		return export_line(r, c, from);
	look_ahead(c, &colon, &equal);
	if (equal != SIZE_MAX) {
		if (!n)
			return perr(r, from, "expected a variable name before '=', got %s",
				    got(q, c));
		return variable_line(r, c, from, n, 0);
	}
	size_t e = from;
	while (e < c->n && !eol_size(c->s, c->n, e))
		e++;
	return perr(r, from,
		    "expected a rule \"targets: sources\", a variable \"NAME=value\", export or "
		    "a directive, got %s",
		    quote(q, c->s + from, e - from));
}

static int read_line(struct mf *r, struct mf_src *c)
{
	char ch = c->s[c->i];
	if (at_end(c))
		return 0;
	if (ch == '#') {
		skip_line(c);
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

/* ---- a cycle ------------------------------------------------------------------ */

/* After locus_graph_finish found a cycle: finds one (a depth-first search
 * from each rule to the rules making its sources) and tells it with its
 * lines and files. */
static int cycle_error(struct mf *r)
{
	size_t n = r->n_rules;
	unsigned char *color = calloc(n ? n : 1, 1);
	uint32_t *stack = calloc(n ? n : 1, sizeof *stack), *next = calloc(n ? n : 1, sizeof *next);
	size_t *via = calloc(n ? n : 1, sizeof *via);
	int rc = -1;
	size_t top = 0, at = 0, src_k = 0;
	if (!color || !stack || !next || !via) {
		rc = oom(r);
		goto done;
	}
	for (uint32_t root = 0; root < n && rc < 0; root++) {
		if (color[root])
			continue;
		top = 0;
		stack[top++] = root;
		next[root] = r->src_at[root];
		color[root] = 1;
		while (top && rc < 0) {
			uint32_t u = stack[top - 1];
			if (next[u] == r->src_at[u + 1]) {
				color[u] = 2;
				top--;
				continue;
			}
			size_t k = next[u]++;
			uint32_t p = r->prod[r->src_obj[k]];
			if (p == LOCUS_NONE || p >= n || color[p] == 2)
				continue;
			via[top - 1] = k;
			if (color[p] == 1) {
				for (at = 0; stack[at] != p; at++)
					;
				rc = 0; /* stack[at .. top) with via[] is the cycle */
				break;
			}
			color[p] = 1;
			next[p] = r->src_at[p];
			stack[top++] = p;
		}
	}
	if (rc < 0) {
		rc = 1;
		goto done;
	}
	/* Start the story at the cycle's first line. */
	size_t len = top - at, first = at;
	for (size_t k = at; k < top; k++)
		if (r->rule_line[stack[k]] < r->rule_line[stack[first]])
			first = k;
	struct locus__buf msg = {0};
	char q[MF_QUOTE_SIZE];
	src_k = via[first];
	int bad =
	    locus__buf_printf(&msg, "a cycle: the rule at line %ld", r->rule_line[stack[first]]);
	for (size_t s = 0; s < len && !bad; s++) {
		size_t k = at + (first - at + s) % len, nk = at + (first - at + s + 1) % len;
		const char *f = r->g->objects[r->src_obj[via[k]]].name;
		if (s == 6 && len > 7) {
			bad = locus__buf_printf(&msg, ", ...");
			s = len - 2;
			continue;
		}
		bad = locus__buf_printf(&msg, "%s reads %s, made by the rule at line %ld",
					s ? ", which" : "", quote(q, f, strlen(f)),
					r->rule_line[stack[nk]]);
	}
	if (!bad)
		bad = locus__buf_printf(&msg, ": expected no file to depend on itself");
	rc = bad ? oom(r) : perr(r, r->src_off[src_k], "%s", msg.data);
	locus__buf_fini(&msg);
done:
	free(color);
	free(stack);
	free(next);
	free(via);
	return rc;
}

/* ---- the reader ---------------------------------------------------------------- */

static int read_all(struct mf *r)
{
	const char *nul = memchr(r->text, 0, r->len);
	if (nul)
		return perr(r, (size_t)(nul - r->text), "a NUL byte: expected text");
	size_t i = 0;
	while (i < r->len && strchr(" \t\r\n", r->text[i]))
		i++;
	if (i < r->len && r->text[i] == '{')
		return perr(r, i,
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
		skip_line(&c); /* every line reader stops at the line's end */
		c.i += eol_size(c.s, c.n, c.i);
		for (size_t k = start; k < c.i; k++)
			r->line += r->text[k] == '\n';
	}
	if (r->pending)
		return missing_command(r, "the end of the file");
	if (!r->n_rules)
		return perr(r, r->len,
			    "expected at least one rule (\"targets: sources\" and a command line), "
			    "the file has none");
	return 0;
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
	if (opt && !(opt->runtime >= 0 && isfinite(opt->runtime)))
		return locus__err(err, LOCUS_EINVAL, name, 0, 0,
				  "expected a default runtime of 0 seconds or more");
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
		rc = set_commands(&r);
	if (!rc)
		rc = set_sizes(&r);
	if (!rc && (rc = locus_graph_finish(r.g, r.err)) == LOCUS_EINVAL) {
		/* A cycle (rules reading their own targets were refused). */
		rc = cycle_error(&r);
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
	clear_locals(&r);
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
	locus__buf_fini(&r.store);
	words_fini(&r.files);
	words_fini(&r.args);
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
