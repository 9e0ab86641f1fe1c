/*
 * What the Makeflow reader gives the graph besides the rules' tasks
 * (makeflow.h): the files and their sizes (a .SIZE, else what is on
 * disk), each task's stage (the program its command runs) and command,
 * and, when the rules make a cycle, its story told as rules and files.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flow/makeflow.h"

/* ---- files and sizes ---------------------------------------------------------- */

/* The object of file `name`, added when it is new. */
int locus__mf_intern(struct mf *r, const char *name, size_t off, uint32_t *obj)
{
	size_t ix;
	if (locus__strmap_get(&r->file_ix, name, &ix)) {
		*obj = (uint32_t)ix;
		return 0;
	}
	long o = locus_graph_add_object(r->g, name, 0);
	if (o == LOCUS_ENOMEM)
		return locus__mf_oom(r);
	if (o < 0)
		return locus__mf_perr(r, off, "too many files");
	size_t cap = r->files_cap;
	if (locus__grow(&r->prod, &cap, (size_t)o + 1, sizeof *r->prod) ||
	    locus__grow(&r->file_off, &r->files_cap, (size_t)o + 1, sizeof *r->file_off) ||
	    locus__strmap_put(&r->file_ix, name, (size_t)o))
		return locus__mf_oom(r);
	r->prod[o] = LOCUS_NONE;
	r->file_off[o] = off;
	*obj = (uint32_t)o;
	return 0;
}

/* A .SIZE value: a whole number of bytes, optionally followed by K, M, G,
 * T or P (powers of 1024, as cctools' string_metric_parse) and an
 * optional B or iB; B alone is bytes. */
int locus__mf_parse_size(const char *s, uint64_t *out)
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
	locus__mf_where(r, r->file_off[obj], &line, &col);
	return locus__err(r->err, LOCUS_EIO, r->name, line, col,
			  "cannot read the size of %s (%s): %s",
			  locus__mf_quote(q, name, strlen(name)), path, strerror(e));
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
			rc = locus__mf_oom(r);
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
int locus__mf_set_sizes(struct mf *r)
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
					return locus__mf_oom(r);
			}
			if (locus__buf_append(&r->tmp, name, strlen(name)))
				return locus__mf_oom(r);
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
int locus__mf_stage_of(const char *line, struct locus__buf *w, struct locus__buf *out)
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

/* ---- a task's command ---------------------------------------------------------- */

/* Keeps the rule's stage, command line and exported variables (those
 * with a value, as NAME=value) for its task. */
int locus__mf_keep_command(struct mf *r, uint32_t t, const char *line, uint32_t flags,
			   uint32_t stage)
{
	struct mf_cmd *c;
	if (locus__grow(&r->cmds, &r->cmds_cap, (size_t)t + 1, sizeof *r->cmds))
		return locus__mf_oom(r);
	c = &r->cmds[t];
	*c = (struct mf_cmd){.line = r->store.len, .flags = flags, .stage = stage};
	if (locus__buf_append(&r->store, line, strlen(line) + 1))
		return locus__mf_oom(r);
	c->env = r->store.len;
	for (size_t e = 0; e < r->n_exports; e++) {
		const char *v = locus__mf_lookup(r, r->exports[e], 1);
		if (!v)
			continue;
		if (locus__buf_printf(&r->store, "%s=%s", r->exports[e], v) ||
		    locus__buf_append(&r->store, "", 1))
			return locus__mf_oom(r);
		c->n_env++;
	}
	return 0;
}

/* ---- resources ---------------------------------------------------------------- */

static const char *const resource_names[MF_RESOURCES] = {"CORES", "MEMORY", "DISK"};

int locus__mf_resource(const char *name)
{
	for (int k = 0; k < MF_RESOURCES; k++)
		if (!strcmp(name, resource_names[k]))
			return k;
	return -1;
}

int locus__mf_parse_resource(int which, const char *s, uint64_t *out)
{
	size_t n;
	if (locus__mf_unquote(&s, &n))
		return -1;
	uint64_t v = 0;
	size_t i = 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (!i)
		return -1;
	if (which == MF_CORES) {
		if (i != n || v < 1 || v > 1000000)
			return -1;
		*out = v;
		return 0;
	}
	unsigned shift = 20; /* megabytes without a unit */
	if (i < n) {
		const char *units = "KMGTP", *u = strchr(units, s[i] & ~0x20);
		if (!u || !*u)
			return -1;
		shift = 10 * (unsigned)(u - units + 1);
		i++;
		if (i < n && (s[i] == 'B' || s[i] == 'b'))
			i++;
		if (i != n)
			return -1;
	}
	if (v > UINT64_MAX >> shift)
		return -1;
	*out = v << shift;
	return 0;
}

int locus__mf_note_resource(struct mf *r, int which, const char *value)
{
	const char *cat = locus__mf_lookup(r, "CATEGORY", 0);
	if (!cat || !*cat)
		cat = "default";
	size_t k = 0;
	while (k < r->n_cats && strcmp(r->cats[k].name, cat))
		k++;
	if (k == r->n_cats) {
		if (locus__grow(&r->cats, &r->cats_cap, k + 1, sizeof *r->cats))
			return locus__mf_oom(r);
		r->cats[k] = (struct mf_cat){.name = locus__strdup(cat)};
		if (!r->cats[k].name)
			return locus__mf_oom(r);
		r->n_cats++;
	}
	char *copy = locus__strdup(value);
	if (!copy)
		return locus__mf_oom(r);
	free(r->cats[k].v[which]);
	r->cats[k].v[which] = copy;
	return 0;
}

static const struct mf_cat *category(const struct mf *r, const char *name)
{
	for (size_t k = 0; k < r->n_cats; k++)
		if (!strcmp(r->cats[k].name, name))
			return &r->cats[k];
	return NULL;
}

void locus__mf_rule_demand(const struct mf *r, struct locus_demand *d, int *declared)
{
	const char *name = locus__mf_lookup(r, "CATEGORY", 0);
	const struct mf_cat *cat = category(r, name && *name ? name : "default");
	const struct mf_cat *def = category(r, "default");
	const struct locus_demand *td = r->opt ? &r->opt->task_default : NULL;
	uint64_t v[MF_RESOURCES] = {td && td->cores ? td->cores : 1, td ? td->memory : 0,
				    td ? td->disk : 0};
	/* A default other than the built-in one is a declaration. */
	*declared = v[MF_CORES] != 1 || v[MF_MEMORY] || v[MF_DISK];
	for (int k = 0; k < MF_RESOURCES; k++) {
		const char *s = NULL;
		for (size_t i = 0; i < r->n_locals && !s; i++)
			if (!strcmp(r->locals[i].name, resource_names[k]))
				s = r->locals[i].value;
		if (!s && cat)
			s = cat->v[k];
		if (!s && def)
			s = def->v[k];
		/* Checked when it was set. */
		if (s && !locus__mf_parse_resource(k, s, &v[k]))
			*declared = 1;
	}
	*d = (struct locus_demand){
	    .cores = (uint32_t)v[MF_CORES], .memory = v[MF_MEMORY], .disk = v[MF_DISK]};
}

/* Gives every task its stage, command, demand and line, once all are
 * added. */
int locus__mf_set_commands(struct mf *r)
{
	for (uint32_t t = 0; t < r->n_rules; t++) {
		const struct mf_cmd *c = &r->cmds[t];
		if (c->n_env && locus__grow(&r->env, &r->env_cap, c->n_env, sizeof *r->env))
			return locus__mf_oom(r);
		const char *p = r->store.data + c->env;
		for (uint32_t i = 0; i < c->n_env; i++) {
			r->env[i] = p;
			p += strlen(p) + 1;
		}
		struct locus_command lc = {.line = r->store.data + c->line,
					   .flags = c->flags,
					   .env = c->n_env ? r->env : NULL,
					   .n_env = c->n_env,
					   .wall_time = c->wall_time};
		if (locus_graph_set_stage(r->g, t, c->stage) ||
		    locus_graph_set_command(r->g, t, &lc) ||
		    (c->declared && locus_graph_set_demand(r->g, t, &c->demand)) ||
		    locus_graph_set_line(r->g, t, (uint32_t)r->rule_line[t]))
			return locus__mf_oom(r);
	}
	return 0;
}

/* ---- a cycle ------------------------------------------------------------------ */

/* After locus_graph_finish found a cycle: finds one (a depth-first search
 * from each rule to the rules making its sources) and tells it with its
 * lines and files. */
int locus__mf_cycle_error(struct mf *r)
{
	size_t n = r->n_rules;
	unsigned char *color = calloc(n ? n : 1, 1);
	uint32_t *stack = calloc(n ? n : 1, sizeof *stack), *next = calloc(n ? n : 1, sizeof *next);
	size_t *via = calloc(n ? n : 1, sizeof *via);
	int rc = -1;
	size_t top = 0, at = 0, src_k = 0;
	if (!color || !stack || !next || !via) {
		rc = locus__mf_oom(r);
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
					s ? ", which" : "", locus__mf_quote(q, f, strlen(f)),
					r->rule_line[stack[nk]]);
	}
	if (!bad)
		bad = locus__buf_printf(&msg, ": expected no file to depend on itself");
	rc = bad ? locus__mf_oom(r) : locus__mf_perr(r, r->src_off[src_k], "%s", msg.data);
	locus__buf_fini(&msg);
done:
	free(color);
	free(stack);
	free(next);
	free(via);
	return rc;
}
