/*
 * The Makeflow reader's lexer (makeflow.h): the text read as Makeflow's
 * lexer reads it (makeflow/src/lexer.c): line ends and continuations,
 * blanks, quotes and escapes, variables and their substitution, and the
 * scanners of file lists, command lines, values and a directive's words;
 * errors with their line and column.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow/makeflow.h"

/* Substitutions nested deeper than this are an error (Makeflow's limit). */
#define MF_MAX_DEPTH 32
/* The most bytes one line may expand to, and the most substitutions in
 * one line: a definition that doubles at each step stops here. */
#define MF_MAX_LINE  ((size_t)16 << 20)
#define MF_MAX_SUBST 1000000

/* Characters that end a variable name (Makeflow's SYNTAX_LIMITS). */
static const char name_stops[] = "\\\"'$#,.-(){}[]<>=+!?/:";

/* ---- errors -------------------------------------------------------------------- */

void locus__mf_where(const struct mf *r, size_t off, long *line, long *col)
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

int locus__mf_perr(struct mf *r, size_t off, const char *fmt, ...)
{
	char msg[512];
	long line, col;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	locus__mf_where(r, off, &line, &col);
	return locus__err(r->err, LOCUS_EPARSE, r->name, line, col, "%s", msg);
}

int locus__mf_oom(struct mf *r)
{
	return locus__err(r->err, LOCUS_ENOMEM, r->name, 0, 0, "out of memory");
}

/* s[0..n) in double quotes for a message: control bytes escaped, a long
 * text cut with "...". */
const char *locus__mf_quote(char *buf, const char *s, size_t n)
{
	size_t m = n < MF_QUOTE_MAX ? n : MF_QUOTE_MAX;
	buf[0] = '"';
	locus__visible(s, m, buf + 1, MF_QUOTE_SIZE - 6);
	strcat(buf, m < n ? "...\"" : "\"");
	return buf;
}

/* What is at c's position, for "got ..." in a message. */
const char *locus__mf_got(char *buf, const struct mf_src *c)
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
	return locus__mf_quote(buf, c->s + c->i, k - c->i);
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
size_t locus__mf_eol_size(const char *s, size_t n, size_t i)
{
	if (i >= n)
		return 0;
	if (s[i] == '\n')
		return 1;
	if (s[i] == '\r' && (i + 1 == n || s[i + 1] == '\n'))
		return i + 1 == n ? 1 : 2;
	return 0;
}

int locus__mf_at_end(const struct mf_src *c)
{
	return c->i >= c->n || (c->top && locus__mf_eol_size(c->s, c->n, c->i));
}

/* A backslash that ends a line: the line goes on on the next one. */
static int continuation(const struct mf_src *c)
{
	return c->top && c->s[c->i] == '\\' && locus__mf_eol_size(c->s, c->n, c->i + 1);
}

static int blank(const struct mf_src *c)
{
	char ch = c->s[c->i];
	return ch == ' ' || ch == '\t' || (!c->top && (ch == '\n' || ch == '\r'));
}

/* Skips blanks and line continuations; returns whether it skipped any. */
int locus__mf_skip_blanks(struct mf_src *c)
{
	size_t from = c->i;
	while (c->i < c->n) {
		if (blank(c))
			c->i++;
		else if (continuation(c))
			c->i += 1 + locus__mf_eol_size(c->s, c->n, c->i + 1);
		else
			break;
	}
	return c->i > from;
}

void locus__mf_skip_line(struct mf_src *c)
{
	while (!locus__mf_at_end(c))
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
	return locus__mf_perr(
	    r, off_of(c),
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
			return locus__mf_oom(r);
		w->v[w->n++] = (struct mf_item){MF_NAME, b->len, 0, off_of(c)};
		w->open = 1;
	}
	return locus__buf_append(b, s, n) ? locus__mf_oom(r) : 0;
}

static int put_char(struct mf *r, const struct mf_out *o, const struct mf_src *c, char ch)
{
	return put(r, o, c, &ch, 1);
}

/* Ends the growing word of w; an empty one is dropped (Makeflow drops
 * empty literals). */
int locus__mf_close_word(struct mf *r, struct mf_words *w)
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
	return locus__buf_append(&w->text, "", 1) ? locus__mf_oom(r) : 0;
}

static int add_item(struct mf *r, struct mf_words *w, enum mf_item_kind kind, size_t off)
{
	int rc = locus__mf_close_word(r, w);
	if (rc)
		return rc;
	if (locus__grow(&w->v, &w->cap, w->n + 1, sizeof *w->v))
		return locus__mf_oom(r);
	w->v[w->n++] = (struct mf_item){kind, 0, 0, off};
	return 0;
}

void locus__mf_words_reset(struct mf_words *w)
{
	w->n = 0;
	w->open = 0;
	w->text.len = 0;
}

void locus__mf_words_fini(struct mf_words *w)
{
	free(w->v);
	locus__buf_fini(&w->text);
}

const char *locus__mf_word(const struct mf_words *w, size_t k)
{
	return w->text.data + w->v[k].at;
}

/* ---- variables ------------------------------------------------------------------- */

/* A variable's value: the rule's own, else the global one, else (when
 * `env`) the process environment's; NULL when none. */
const char *locus__mf_lookup(const struct mf *r, const char *name, int env)
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
int locus__mf_set_var(struct mf *r, const char *name, char *value)
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
		return locus__mf_oom(r);
	}
	if (r->pending)
		r->locals[r->n_locals++] = (struct mf_var){copy, value};
	else
		r->vars[r->n_vars++] = (struct mf_var){copy, value};
	return 0;
}

void locus__mf_clear_locals(struct mf *r)
{
	for (size_t k = 0; k < r->n_locals; k++) {
		free(r->locals[k].name);
		free(r->locals[k].value);
	}
	r->n_locals = 0;
}

/* Seconds as LOCUS_RUNTIME gives them: a decimal number from 0 to
 * LOCUS_WORK_MAX, the whole value. */
int locus__mf_unquote(const char **s, size_t *n)
{
	char q = **s == '"' || **s == '\'' ? **s : 0;
	*n = strlen(*s);
	if (q && (*n < 2 || (*s)[*n - 1] != q))
		return -1;
	*s += q != 0; /* a value in quotes: Makeflow keeps them */
	*n -= q ? 2 : 0;
	return 0;
}

int locus__mf_parse_seconds(const char *s, double *out)
{
	size_t n;
	if (locus__mf_unquote(&s, &n))
		return -1;
	double v;
	if (locus__parse_decimal(s, n, &v) || !(v >= 0 && v <= LOCUS_WORK_MAX))
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
		return locus__mf_perr(
		    r, off_of(c),
		    "expected a variable name after \"$%s\", got %s%s (write \\$ for a $ "
		    "the shell should see)",
		    close ? (close == ')' ? "(" : "{") : "", locus__mf_got(q, c), in_value(c));
	if (close) {
		if (c->i >= c->n || c->s[c->i] != close)
			return locus__mf_perr(
			    r, off_of(c), "expected '%c' to close \"$%c%s\", got %s%s", close,
			    close == ')' ? '(' : '{', locus__visible(c->s + from, n, q, sizeof q),
			    locus__mf_got(q2, c), in_value(c));
		c->i++;
	}
	if (++r->subst > MF_MAX_SUBST)
		return locus__mf_perr(r, dollar,
				      "more than %d substitutions in one line: expected no runaway "
				      "definition",
				      MF_MAX_SUBST);
	r->key.len = 0;
	if (locus__buf_append(&r->key, c->s + from, n))
		return locus__mf_oom(r);
	*value = locus__mf_lookup(r, r->key.data, 1);
	if (!*value)
		return locus__mf_perr(
		    r, dollar,
		    "undefined variable %s: expected it defined before this line (in the "
		    "rule, globally, or in the environment)%s",
		    locus__mf_quote(q, r->key.data, n), in_value(c));
	return 0;
}

/* A substituted value, to be read again as text of its own, one level
 * deeper. */
static int nested(struct mf *r, const struct mf_src *c, const char *value, size_t dollar,
		  struct mf_src *sub)
{
	char q[MF_QUOTE_SIZE];
	if (c->depth + 1 > MF_MAX_DEPTH)
		return locus__mf_perr(
		    r, dollar,
		    "substitutions nest more than %d levels deep (last %s): expected no "
		    "variable whose value refers to itself",
		    MF_MAX_DEPTH, locus__mf_quote(q, r->key.data, r->key.len));
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
		if (locus__mf_at_end(c))
			return locus__mf_perr(
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
			c->i += 1 + locus__mf_eol_size(c->s, c->n, c->i + 1);
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
		return locus__mf_oom(r);
	r->pieces[r->n_pieces++] = (struct mf_piece){kind, r->cmd.len, off_of(c)};
	return 0;
}

/* A command line (or a value substituted into one, read again as command
 * text) into r->cmd, cut into pieces. */
int locus__mf_scan_command(struct mf *r, struct mf_src *c)
{
	const struct mf_out o = {&r->cmd, NULL};
	int rc = 0;
	if (locus__mf_skip_blanks(c) && c->depth > 0 &&
	    ((rc = piece(r, c, MF_SPACE)) || (rc = put_char(r, &o, c, ' '))))
		return rc;
	while (!rc && !locus__mf_at_end(c)) {
		char ch = c->s[c->i];
		if (blank(c) || continuation(c)) {
			locus__mf_skip_blanks(c);
			if (!(rc = piece(r, c, MF_SPACE)))
				rc = put_char(r, &o, c, ' ');
		} else if (ch == '#') {
			locus__mf_skip_line(c);
		} else if (ch == '$') {
			const char *v;
			struct mf_src sub;
			size_t dollar = off_of(c);
			if (!(rc = substitution(r, c, &v)) && !(rc = nested(r, c, v, dollar, &sub)))
				rc = locus__mf_scan_command(r, &sub);
		} else if (ch == '"' || ch == '\'') {
			if (!(rc = piece(r, c, MF_QUOTED)))
				rc = scan_quoted(r, c, &o, 1, 1, 0);
		} else {
			if ((rc = piece(r, c, MF_WORD)))
				break;
			while (!rc && !locus__mf_at_end(c) && !blank(c) && !continuation(c) &&
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
int locus__mf_scan_files(struct mf *r, struct mf_src *c, struct mf_words *w)
{
	const struct mf_out o = {NULL, w};
	int rc = 0;
	locus__mf_skip_blanks(c);
	while (!rc && !locus__mf_at_end(c)) {
		char ch = c->s[c->i];
		if (blank(c) || continuation(c)) {
			locus__mf_skip_blanks(c);
			rc = locus__mf_close_word(r, w);
		} else if (ch == '#') {
			locus__mf_skip_line(c);
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
				rc = locus__mf_scan_files(r, &sub, w);
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
int locus__mf_scan_value(struct mf *r, struct mf_src *c)
{
	const struct mf_out o = {&r->val, NULL};
	size_t keep = 0;
	int rc = 0;
	r->val.len = 0;
	if ((rc = locus__buf_append(&r->val, "", 0)))
		return locus__mf_oom(r);
	locus__mf_skip_blanks(c);
	while (!rc && !locus__mf_at_end(c)) {
		char ch = c->s[c->i];
		int raw = 0;
		if (ch == '#') {
			locus__mf_skip_line(c);
			break;
		} else if (ch == '$') {
			const char *v;
			if (!(rc = substitution(r, c, &v)))
				rc = put(r, &o, c, v, strlen(v));
		} else if (ch == '"' || ch == '\'') {
			rc = scan_quoted(r, c, &o, 1, 1, 0);
		} else if (continuation(c)) {
			c->i += 1 + locus__mf_eol_size(c->s, c->n, c->i + 1);
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
int locus__mf_scan_args(struct mf *r, struct mf_src *c, struct mf_words *w)
{
	const struct mf_out o = {NULL, w};
	char q[MF_QUOTE_SIZE];
	int rc = 0;
	while (!rc && !locus__mf_at_end(c)) {
		char ch = c->s[c->i];
		if (blank(c) || continuation(c)) {
			locus__mf_skip_blanks(c);
			rc = locus__mf_close_word(r, w);
		} else if (ch == '#') {
			locus__mf_skip_line(c);
		} else if (ch == '$') {
			return locus__mf_perr(
			    r, c->i,
			    "a directive's values are not substituted: expected a literal "
			    "value, got %s",
			    locus__mf_got(q, c));
		} else if (ch == '"' || ch == '\'') {
			rc = scan_quoted(r, c, &o, 0, 0, 0);
		} else if (ch == '\\') {
			rc = put_char(r, &o, c, escape(c, 0));
		} else {
			rc = put_char(r, &o, c, ch);
			c->i++;
		}
	}
	return rc ? rc : locus__mf_close_word(r, w);
}

/* The name at c (Makeflow's syntax name); its length, 0 when none. */
size_t locus__mf_read_name(struct mf_src *c)
{
	size_t from = c->i;
	while (c->i < c->n && name_char((unsigned char)c->s[c->i]))
		c->i++;
	return c->i - from;
}

/* Where the first unquoted ':' and '=' of the line at c are (SIZE_MAX
 * when none), as Makeflow's lexer looks ahead to tell a rule from a
 * variable; a comment ends the look. */
void locus__mf_look_ahead(const struct mf_src *c, size_t *colon, size_t *equal)
{
	size_t i = c->i;
	char q = 0;
	*colon = *equal = SIZE_MAX;
	while (i < c->n && !locus__mf_eol_size(c->s, c->n, i)) {
		char ch = c->s[i];
		if (ch == '\\') {
			size_t e = locus__mf_eol_size(c->s, c->n, i + 1);
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
