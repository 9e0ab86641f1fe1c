/*
 * Command lines from tables (cli.h): the options of a command are the
 * groups it takes, each a table that says, per option, its long name,
 * its short letter or named id, what its argument is and where its value
 * goes, and its --help line. getopt_long's tables, the parsing loop and
 * the option lines of --help are all made from them here, so that an
 * option several commands take is written once and behaves alike in
 * each.
 */
#include <ctype.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The most options one command takes. */
#define MAX_OPTIONS 128

/* Every command's -h, --help (its line only: cli_parse knows it). */
static const struct cli_opt help = {"help", 'h', CLI_FLAG, 0, NULL, "show this help"};
/* Its "--" line (a line of --help only). */
static const struct cli_opt end_of_options = {
    .name = "",
    .help = "end of the options: an argument after it may start\nwith '-' (a file named -x.mf)"};

int cli_expects(const char *cmd, const char *opt, const char *what, const char *arg)
{
	return cli_usage_error(cmd, "%s expects %s, got \"%s\"", opt, what, arg);
}

int cli_list_check(const char *cmd, const char *opt, const char *what, const char *list)
{
	for (const char *s = list;; s++) {
		size_t n = strcspn(s, ",");
		if (!n)
			return cli_usage_error(cmd,
					       "%s expects %s separated by commas, got \"%s\" (a "
					       "name is missing)",
					       opt, what, list);
		s += n;
		if (!*s)
			return 0;
	}
}

/* Whether option id is its short letter (else a named id of 256 on). */
static int is_letter(int id)
{
	return id > 0 && id < 256 && isalnum(id);
}

/* The option with this id among c's groups, and the use it belongs to. */
static const struct cli_opt *find(const struct cli_command *c, int id, const struct cli_use **use)
{
	for (size_t u = 0; u < c->n_uses; u++)
		for (size_t k = 0; k < c->uses[u].group->n; k++)
			if (c->uses[u].group->opts[k].name && c->uses[u].group->opts[k].id == id) {
				*use = &c->uses[u];
				return &c->uses[u].group->opts[k];
			}
	return NULL;
}

/* Sets the value of option o (of the group whose values are at target)
 * from its argument: 0, or an exit status (the error printed). */
static int set_value(const char *cmd, const struct cli_opt *o, void *target, const char *arg)
{
	char opt[64];
	void *v = (char *)target + o->at;
	snprintf(opt, sizeof opt, "--%s", o->name);
	switch (o->arg) {
	case CLI_FLAG:
		*(int *)v = 1;
		return 0;
	case CLI_TEXT:
		*(const char **)v = arg;
		return 0;
	case CLI_UINT:
		return cli_uint(cmd, opt, arg, v);
	case CLI_SIZE:
		return cli_size(cmd, opt, arg, v);
	case CLI_BANDWIDTH:
		return cli_bandwidth(cmd, opt, arg, v);
	case CLI_NUMBER:
		return cli_double(cmd, opt, arg, v);
	case CLI_SECONDS: {
		int rc = cli_double(cmd, opt, arg, v);
		double s = *(double *)v;
		char what[64];
		snprintf(what, sizeof what, "seconds from 0 to %g", LOCUS_LATENCY_MAX);
		if (!rc && !(s >= 0 && s <= LOCUS_LATENCY_MAX))
			rc = cli_expects(cmd, opt, what, arg);
		return rc;
	}
	case CLI_OWN:
		return 0;
	}
	return 0;
}

/* getopt_long's long options and short option string for c: 0, or -1
 * when c has more options than fit or an id twice (a mistake in the
 * tables, said on stderr). */
static int make_tables(const char *cmd, const struct cli_command *c, struct option *longs,
		       char *shorts)
{
	size_t n = 0, s = 0;
	if (c->order == CLI_OPTIONS_FIRST)
		shorts[s++] = '+';
	if (c->errors != CLI_ERRORS_GETOPT)
		shorts[s++] = ':';
	for (size_t u = 0; u < c->n_uses; u++)
		for (size_t k = 0; k < c->uses[u].group->n; k++) {
			const struct cli_opt *o = &c->uses[u].group->opts[k];
			const struct cli_use *first;
			if (!o->name)
				continue;
			if (n == MAX_OPTIONS || o->id == 'h' || find(c, o->id, &first) != o) {
				fprintf(stderr, "locus %s: internal: option --%s: %s\n", cmd,
					o->name,
					n == MAX_OPTIONS ? "too many options" : "its id is taken");
				return -1;
			}
			int has_arg = o->arg == CLI_FLAG ? no_argument : required_argument;
			longs[n++] = (struct option){o->name, has_arg, NULL, o->id};
			if (is_letter(o->id)) {
				shorts[s++] = (char)o->id;
				if (has_arg == required_argument)
					shorts[s++] = ':';
			}
		}
	/* Last: getopt's message on an ambiguous option (locus run shows it)
	 * lists the possibilities in the table's order, --help after
	 * --hostfile as it always was. */
	longs[n++] = (struct option){"help", no_argument, NULL, 'h'};
	longs[n] = (struct option){NULL, 0, NULL, 0};
	shorts[s++] = 'h';
	shorts[s] = 0;
	return 0;
}

/* The word of argv that holds the unknown option getopt_long just
 * returned '?' for: the one it stepped past, unless the letter (optopt)
 * is not the last of its word, where getopt stays on that word. */
static const char *unknown_word(int argc, char **argv, int id)
{
	const char *prev = argv[optind - 1];
	if (id != '?' || !optopt || optind >= argc)
		return prev;
	if (prev[0] == '-' && prev[1] != '-' && strchr(prev + 1, optopt))
		return prev;
	return argv[optind];
}

int cli_parse(const char *cmd, const struct cli_command *c, void *values, int argc, char **argv)
{
	struct option longs[MAX_OPTIONS + 2]; /* and --help, and the end */
	char shorts[2 * MAX_OPTIONS + 4];
	int id;
	if (make_tables(cmd, c, longs, shorts))
		return CLI_EXIT_FAIL;
	optind = 1;
	opterr = c->errors == CLI_ERRORS_GETOPT;
	while ((id = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (id == 'h') {
			cli_help(c, stdout);
			return CLI_HELP_SHOWN;
		}
		const struct cli_use *use = NULL;
		const struct cli_opt *o = id == ':' || id == '?' ? NULL : find(c, id, &use);
		if (!o && c->errors == CLI_ERRORS_GETOPT)
			return cli_usage_error(cmd, "unknown option"); /* getopt said which */
		if (!o && id == ':')
			return c->errors == CLI_ERRORS_QUOTED
				   ? cli_usage_error(cmd, "%s needs a value", argv[optind - 1])
				   : cli_usage_error(cmd, "option %s needs a value",
						     argv[optind - 1]);
		const char *word = unknown_word(argc, argv, id);
		if (!o && strlen(word) > 2 && word[1] != '-')
			/* A letter inside a word ("-my flow.mf"): most often a
			 * name that starts with '-'. */
			return cli_usage_error(cmd,
					       "unknown option -%c in \"%s\" (an argument that "
					       "starts with '-' goes after \"--\")",
					       optopt, word);
		if (!o)
			return c->errors == CLI_ERRORS_QUOTED
				   ? cli_usage_error(cmd, "unknown option \"%s\"", word)
				   : cli_usage_error(cmd, "unknown option %s", word);
		void *target = (char *)values + use->at;
		int rc = set_value(cmd, o, target, optarg);
		if (!rc && use->group->option)
			rc = use->group->option(cmd, target, id, optarg);
		if (rc)
			return rc;
	}
	return 0;
}

/* Option o's line(s) of --help: "  -x, --name ARG" or "      --name ARG",
 * then its words from `column` on (two spaces after a longer synopsis),
 * each further line of them indented to `column`. */
static void help_option(FILE *fp, const struct cli_opt *o, const char *words, int column)
{
	int n = is_letter(o->id) ? fprintf(fp, "  -%c, --%s", o->id, o->name)
				 : fprintf(fp, "      --%s", o->name);
	if (o->meta)
		n += fprintf(fp, " %s", o->meta);
	fprintf(fp, "%*s", n < column ? column - n : 2, "");
	for (const char *line = words;;) {
		const char *nl = strchr(line, '\n');
		if (!nl) {
			fprintf(fp, "%s\n", line);
			return;
		}
		fprintf(fp, "%.*s\n%*s", (int)(nl - line), line, column, "");
		line = nl + 1;
	}
}

/* The words a command says for option id of a use, else the group's. */
static const char *words_of(const struct cli_use *use, const struct cli_opt *o)
{
	for (const struct cli_say *s = use->say; s && s->id; s++)
		if (s->id == o->id)
			return s->help;
	return o->help;
}

void cli_help(const struct cli_command *c, FILE *fp)
{
	fputs(c->head, fp);
	for (size_t u = 0; u < c->n_uses; u++) {
		const struct cli_use *use = &c->uses[u];
		if (use->before)
			fputs(use->before, fp);
		if (use->instead) {
			fputs(use->instead, fp);
			continue;
		}
		for (size_t k = 0; k < use->group->n; k++) {
			const struct cli_opt *o = &use->group->opts[k];
			const char *words = words_of(use, o);
			if (!o->name && words)
				fprintf(fp, "%s\n", words);
			else if (words)
				help_option(fp, o, words, c->column);
		}
	}
	help_option(fp, &help, help.help, c->column);
	/* "--" ends the options (getopt's rule); where options stand first,
	 * the command's own words say what "--" leads to. */
	if (c->order == CLI_OPTIONS_ANYWHERE)
		help_option(fp, &end_of_options, end_of_options.help, c->column);
	fputs(c->tail, fp);
}

/* ---- a run's policy ---------------------------------------------------------- */

#define AT(field) offsetof(struct cli_policy, field)
static const struct cli_opt policy_opts[] = {
    {"policy", 'x', CLI_TEXT, AT(name), "NAME", "the policy"},
    {"opt", 'o', CLI_TEXT, AT(opts), "KEY=VALUE,...", "policy options"},
};
const struct cli_group cli_policy_group = CLI_GROUP(policy_opts, NULL);
#undef AT
