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
 *
 * Its files share this header, internal to the reader:
 *   read_makeflow.c  - the lines: rules, command lines, variables, export
 *                      and directives, in order; locus_flow_read_makeflow
 *   makeflow_lex.c   - the text as Makeflow's lexer reads it: line ends,
 *                      blanks, quotes and escapes, variables and their
 *                      substitution, the scanners of file lists, commands,
 *                      values and a directive's words; errors with their
 *                      line and column
 *   makeflow_graph.c - what the graph gets besides the rules' tasks:
 *                      files and their sizes, each task's stage (the
 *                      program its command runs) and command; a cycle told
 *                      as rules and files
 */
#ifndef LOCUS_FLOW_MAKEFLOW_H
#define LOCUS_FLOW_MAKEFLOW_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "locus/flow.h"
#include "locus/workload.h"

/* How much of a name or a line a message quotes. */
#define MF_QUOTE_MAX  60
#define MF_QUOTE_SIZE (MF_QUOTE_MAX * 4 + 8)

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
	double wall_time;	    /* its WALL_TIME, seconds (0: none) */
	struct locus_demand demand; /* its CORES, MEMORY and DISK */
	int declared;		    /* it has one of them */
};

/* Makeflow's resources by category: CORES, MEMORY and DISK set at the top
 * level belong to the category then current (CATEGORY; "default" when
 * unset), whose rules take them; the default category's stand for the
 * others' (v[k]: the value as set, or NULL). */
enum { MF_CORES, MF_MEMORY, MF_DISK, MF_RESOURCES };
struct mf_cat {
	char *name;
	char *v[MF_RESOURCES];
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
	struct mf_cat *cats;
	size_t n_cats, cats_cap;
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

/* ---- makeflow_lex.c: errors ----------------------------------------------------- */

/* The line and column of byte `off` of the file. */
void locus__mf_where(const struct mf *r, size_t off, long *line, long *col);
/* A parse error at byte `off` (LOCUS_EPARSE), and running out of memory
 * (LOCUS_ENOMEM): the code, with r->err filled in. */
int locus__mf_perr(struct mf *r, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int locus__mf_oom(struct mf *r);
/* s[0..n) in double quotes for a message (buf: MF_QUOTE_SIZE bytes). */
const char *locus__mf_quote(char *buf, const char *s, size_t n);
/* What is at c's position, for "got ..." in a message. */
const char *locus__mf_got(char *buf, const struct mf_src *c);

/* ---- makeflow_lex.c: characters and words -------------------------------------- */

/* The bytes of the line end at s[i] (LF, CRLF, or a CR that ends the
 * text), or 0. */
size_t locus__mf_eol_size(const char *s, size_t n, size_t i);
/* Whether c is at the end of its line (or of its text). */
int locus__mf_at_end(const struct mf_src *c);
/* Skips blanks and line continuations; returns whether it skipped any. */
int locus__mf_skip_blanks(struct mf_src *c);
/* Goes to the end of the line. */
void locus__mf_skip_line(struct mf_src *c);
/* Ends the growing word of w; an empty one is dropped. */
int locus__mf_close_word(struct mf *r, struct mf_words *w);
void locus__mf_words_reset(struct mf_words *w);
void locus__mf_words_fini(struct mf_words *w);
/* Word k of w, NUL-terminated. */
const char *locus__mf_word(const struct mf_words *w, size_t k);

/* ---- makeflow_lex.c: variables ------------------------------------------------- */

/* A variable's value: the rule's own, else the global one, else (when
 * `env`) the process environment's; NULL when none. */
const char *locus__mf_lookup(const struct mf *r, const char *name, int env);
/* Sets a variable (the rule's own while a rule is being read); takes
 * `value`, which it frees on error. */
int locus__mf_set_var(struct mf *r, const char *name, char *value);
/* Forgets the rule's own variables. */
void locus__mf_clear_locals(struct mf *r);
/* A value as Makeflow keeps it, in matching quotes or without: *s and *n
 * set to what is inside. Returns 0, or -1 for an unmatched quote. */
int locus__mf_unquote(const char **s, size_t *n);

/* Seconds as LOCUS_RUNTIME gives them: 0, or -1 when s is not a finite
 * number >= 0. */
int locus__mf_parse_seconds(const char *s, double *out);
/* Which resource variable `name` is (MF_CORES, _MEMORY, _DISK), or -1. */
int locus__mf_resource(const char *name);
/* A resource's value: CORES a whole number from 1 to 1000000; MEMORY and
 * DISK megabytes (MiB, Makeflow's unit) as a whole number, or bytes with
 * a unit K, M, G, T or P (powers of 1024, maybe followed by B). 0, or -1
 * for anything else. */
int locus__mf_parse_resource(int which, const char *s, uint64_t *out);
/* Value `value` of resource `which` set at the top level: kept for the
 * current category. 0 or LOCUS_ENOMEM (said). */
int locus__mf_note_resource(struct mf *r, int which, const char *value);
/* The demand of the rule being read, from its own variables, its
 * category's, the default category's; *declared whether any is set. */
void locus__mf_rule_demand(const struct mf *r, struct locus_demand *d, int *declared);

/* ---- makeflow_lex.c: scanners -------------------------------------------------- */

/* A command line into r->cmd, cut into pieces (r->pieces). */
int locus__mf_scan_command(struct mf *r, struct mf_src *c);
/* A file list into w: names, ':' and '->'. */
int locus__mf_scan_files(struct mf *r, struct mf_src *c, struct mf_words *w);
/* A variable's value, from c to the end of the line, into r->val. */
int locus__mf_scan_value(struct mf *r, struct mf_src *c);
/* A directive's words: literals and quoted parts, no substitution. */
int locus__mf_scan_args(struct mf *r, struct mf_src *c, struct mf_words *w);
/* The name at c (Makeflow's syntax name); its length, 0 when none. */
size_t locus__mf_read_name(struct mf_src *c);
/* Where the first unquoted ':' and '=' of the line at c are (SIZE_MAX
 * when none). */
void locus__mf_look_ahead(const struct mf_src *c, size_t *colon, size_t *equal);

/* ---- makeflow_graph.c ---------------------------------------------------------- */

/* The object of file `name` (named at byte `off`), added when it is new. */
int locus__mf_intern(struct mf *r, const char *name, size_t off, uint32_t *obj);
/* A .SIZE value in bytes: 0, or -1 when s is not one. */
int locus__mf_parse_size(const char *s, uint64_t *out);
/* Every object's size: its .SIZE, else what it holds under opt->dir. */
int locus__mf_set_sizes(struct mf *r);
/* The stage of command line `line` into out (w: scratch): 0, -1 when
 * the line runs no program, -2 out of memory. */
int locus__mf_stage_of(const char *line, struct locus__buf *w, struct locus__buf *out);
/* Keeps task t's stage, command line and exported variables. */
int locus__mf_keep_command(struct mf *r, uint32_t t, const char *line, uint32_t flags,
			   uint32_t stage);
/* Gives every task its stage and command, once all are added. */
int locus__mf_set_commands(struct mf *r);
/* After locus_graph_finish found a cycle: tells one (returns
 * LOCUS_EPARSE, the story in r->err), or returns 1 when it finds none,
 * or LOCUS_ENOMEM. */
int locus__mf_cycle_error(struct mf *r);

#endif
