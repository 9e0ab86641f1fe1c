/*
 * WfCommons' WfFormat JSON (locus/dag.h, docs/wfcommons-draft.md): a
 * workflow's tasks, their files and runtimes, read into a task graph.
 *
 * Two shapes are read, told apart by their keys (schemaVersion is not
 * needed and not checked):
 *  - WfFormat 1.5 and 1.6: workflow.specification.tasks[] (id, name,
 *    parents, children, inputFiles, outputFiles: file ids),
 *    workflow.specification.files[] ({id, sizeInBytes}) and
 *    workflow.execution.tasks[] ({id, runtimeInSeconds}). 1.6 only adds
 *    optional metrics, which are ignored.
 *  - WfFormat 1.4 (and the older "jobs"): workflow.tasks[] with name, id,
 *    runtimeInSeconds (or 1.3's runtime), parents and children naming
 *    tasks, and files[] inside each task ({name, sizeInBytes or size,
 *    link: "input" or "output", path}).
 * A task may mix the two (a 1.5 task with runtimeInSeconds or files[]);
 * the execution's runtime wins over one in the specification. A task's
 * coreCount and memoryInBytes (1.4: cores, memory in KB), wherever
 * stated, are its demand (struct locus_demand).
 *
 * What becomes what: a task is a task named by its id (its name when it
 * has none) whose work is its runtime in seconds (0 when none is given),
 * whose stage is its command's program (without a directory), else its
 * category (1.4), else its name without the "_ID0000001" WfCommons'
 * generators append, and whose command is the program and its arguments;
 * a file a task refers to is an object of its size in bytes, written by
 * the task that lists it as an output (one at most) and read by those
 * that list it as an input; a file nobody writes is stored (the
 * workflow's input). A file that a task lists as both its input and its
 * output is its output only (the task updates it; it does not wait for
 * itself). Parents and children are merged (p -> c when p lists c as a
 * child or c lists p as a parent) and each pair with no file from p to c
 * becomes an edge of 0 bytes. References are task ids, or task names
 * (1.4 and older) when no task has that id.
 *
 * Names are found with hash maps (tens of thousands of tasks read in a
 * few hundred milliseconds). Errors name the JSON path of the value at
 * fault (jansson keeps no positions for values); malformed JSON gets its
 * line and column.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/internal.h"
#include "core/json.h"
#include "locus/dag.h"

#define NONE UINT32_MAX
/* A name more than one task has (references to it are ambiguous). */
#define AMBIGUOUS SIZE_MAX

struct wfile {
	uint64_t bytes;
	uint32_t obj; /* its graph object, NONE until a task refers to it */
};

/* A parent relation p -> c as the input states it. */
struct dep {
	uint32_t c, p;
};

struct wctx {
	const char *file;
	struct locus_error *err;
	struct locus_graph *g;
	const char *tasks_path; /* "workflow.specification.tasks" or "workflow.tasks" */
	const char *files_path; /* where the files are listed, or NULL */
	json_t *tasks;
	size_t n;
	const char **key; /* each task's id (or name), pointing into the JSON */
	double *work;
	/* Each task's command object and where it was ("…tasks[i].command"
	 * of the specification or the execution), and its category, or
	 * NULL: its stage and what it runs. */
	json_t **cmd;
	const char **cmd_list;
	uint32_t *cmd_at;
	const char **category;
	/* Each task's cores and memory (coreCount, memoryInBytes; 1.4's
	 * cores, memory in KB), when it states them (declared). */
	struct locus_demand *demand;
	struct locus_demand task_default; /* what a task stating nothing takes */
	uint8_t *declared;
	struct locus__strmap tix; /* id -> task */
	struct locus__strmap nix; /* name -> task, or AMBIGUOUS */
	struct locus__strmap fix; /* file id -> files[] */
	struct wfile *files;
	size_t n_files, files_cap;
	/* Each task's inputs (object ids): in[in_at[t] .. in_at[t + 1]). */
	uint32_t *in, *in_at;
	size_t n_in, in_cap;
	struct dep *deps;
	size_t n_deps, deps_cap;
};

static int perr(struct wctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int perr(struct wctx *c, const char *fmt, ...)
{
	char msg[480];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return locus__err(c->err, LOCUS_EPARSE, c->file, 0, 0, "%s", msg);
}

static int nomem(struct wctx *c)
{
	return locus__err(c->err, LOCUS_ENOMEM, c->file, 0, 0, "out of memory");
}

/* Where a value of a task is, formatted only for a message:
 * TASKS[i].key[k] (k SIZE_MAX: TASKS[i].key). */
struct where {
	uint32_t i;
	const char *key;
	size_t k;
};

static const char *wpath(const struct wctx *c, const struct where *w, char *buf, size_t size)
{
	if (w->k == SIZE_MAX)
		snprintf(buf, size, "%s[%" PRIu32 "].%s", c->tasks_path, w->i, w->key);
	else
		snprintf(buf, size, "%s[%" PRIu32 "].%s[%zu]", c->tasks_path, w->i, w->key, w->k);
	return buf;
}

/* Whether `v` is a non-empty string without NUL characters. */
static int plain_id(json_t *v)
{
	return json_is_string(v) && json_string_length(v) &&
	       strlen(json_string_value(v)) == json_string_length(v);
}

/* `v` as a non-empty string without NUL characters (ids are map keys). */
static int id_string(struct wctx *c, json_t *v, const char *path, const char **out)
{
	char got[64];
	if (!plain_id(v))
		return perr(c, "%s: expected a non-empty string, got %s", path,
			    v ? locus__json_describe(v, got, sizeof got) : "nothing");
	*out = json_string_value(v);
	return 0;
}

/* A runtime in seconds: a number from 0 to LOCUS_WORK_MAX. */
static int seconds(struct wctx *c, json_t *v, const char *path, double *out)
{
	char got[64];
	if (!json_is_number(v))
		return perr(c, "%s: expected a number of seconds, got %s", path,
			    locus__json_describe(v, got, sizeof got));
	double s = json_number_value(v);
	if (!(s >= 0 && s <= LOCUS_WORK_MAX))
		return perr(c, "%s: expected a runtime from 0 to %g seconds, got %s", path,
			    LOCUS_WORK_MAX, locus__json_describe(v, got, sizeof got));
	*out = s;
	return 0;
}

/* A size in bytes: an integer >= 0 (a real is rounded to a byte). */
static int byte_count(struct wctx *c, json_t *v, const char *path, uint64_t *out)
{
	char got[64];
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 9.2e18) {
		*out = (uint64_t)llround(json_real_value(v));
		return 0;
	}
	return perr(c, "%s: expected a size of 0 bytes or more, got %s", path,
		    v ? locus__json_describe(v, got, sizeof got) : "nothing");
}

/* The value of the first of two keys that `obj` has (NULL: neither). */
static json_t *either(json_t *obj, const char *a, const char *b, const char **which)
{
	json_t *v = json_object_get(obj, a);
	*which = a;
	if (!v) {
		v = json_object_get(obj, b);
		*which = b;
	}
	return v;
}

/* An optional array member: NULL when absent, else it must be an array. */
static int opt_array(struct wctx *c, json_t *obj, const char *key, const char *path, json_t **out)
{
	char got[64];
	json_t *v = json_object_get(obj, key);
	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_array(v))
		return perr(c, "%s.%s: expected an array, got %s", path, key,
			    locus__json_describe(v, got, sizeof got));
	*out = v;
	return 0;
}

/* ---- tasks ------------------------------------------------------------------ */

/* opt_array on key `key` of task i. */
static int task_array(struct wctx *c, json_t *t, uint32_t i, const char *key, json_t **out)
{
	json_t *v = json_object_get(t, key);
	*out = NULL;
	if (!v || json_is_array(v)) {
		*out = v;
		return 0;
	}
	char path[200];
	snprintf(path, sizeof path, "%s[%" PRIu32 "]", c->tasks_path, i);
	return opt_array(c, t, key, path, out);
}

/* A task's coreCount (cores) and memoryInBytes (1.4: memory, in KB) in
 * `t`, at `path` ("...tasks[i]"), into task i's demand. */
static int read_demand(struct wctx *c, json_t *t, const char *path, size_t i)
{
	char where[200], got[64];
	const char *which;
	json_t *v = either(t, "coreCount", "cores", &which);
	if (v) {
		double n = json_is_number(v) ? json_number_value(v) : 0;
		snprintf(where, sizeof where, "%s.%s", path, which);
		if (!(n >= 1 && n <= 1e6))
			return perr(c, "%s: expected a number of cores from 1 to 1000000, got %s",
				    where, locus__json_describe(v, got, sizeof got));
		c->demand[i].cores = (uint32_t)ceil(n);
		c->declared[i] = 1;
	}
	v = either(t, "memoryInBytes", "memory", &which);
	if (v) {
		double scale = !strcmp(which, "memory") ? 1024 : 1;
		double n = json_is_number(v) ? json_number_value(v) * scale : -1;
		snprintf(where, sizeof where, "%s.%s", path, which);
		if (!(n >= 0 && n < 0x1p63))
			return perr(c, "%s: expected %s from 0 to 2^63 bytes, got %s", where,
				    scale > 1 ? "a memory size in KB" : "a memory size in bytes",
				    locus__json_describe(v, got, sizeof got));
		c->demand[i].memory = (uint64_t)ceil(n);
		c->declared[i] = 1;
	}
	return 0;
}

/* First pass: each task's id (or name), its runtime if it states one,
 * and the maps from ids and names to tasks. */
static int read_task_ids(struct wctx *c)
{
	char path[160], got[64];
	c->key = locus__calloc(c->n, sizeof *c->key);
	c->work = locus__calloc(c->n, sizeof *c->work);
	c->cmd = locus__calloc(c->n, sizeof *c->cmd);
	c->cmd_list = locus__calloc(c->n, sizeof *c->cmd_list);
	c->cmd_at = locus__calloc(c->n, sizeof *c->cmd_at);
	c->category = locus__calloc(c->n, sizeof *c->category);
	c->demand = locus__calloc(c->n, sizeof *c->demand);
	c->declared = locus__calloc(c->n, 1);
	if (!c->key || !c->work || !c->cmd || !c->cmd_list || !c->cmd_at || !c->category ||
	    !c->demand || !c->declared)
		return nomem(c);
	for (size_t i = 0; i < c->n; i++) {
		json_t *t = json_array_get(c->tasks, i), *id, *name, *rt;
		const char *sid = NULL, *sname = NULL, *which;
		size_t was;
		int rc;
		snprintf(path, sizeof path, "%s[%zu]", c->tasks_path, i);
		if (!json_is_object(t))
			return perr(c, "%s: expected a task object, got %s", path,
				    locus__json_describe(t, got, sizeof got));
		id = json_object_get(t, "id");
		name = json_object_get(t, "name");
		if (!id && !name)
			return perr(c, "%s: expected an \"id\" or a \"name\"", path);
		snprintf(path, sizeof path, "%s[%zu].id", c->tasks_path, i);
		if (id && (rc = id_string(c, id, path, &sid)))
			return rc;
		snprintf(path, sizeof path, "%s[%zu].name", c->tasks_path, i);
		if (name && (rc = id_string(c, name, path, &sname)))
			return rc;
		c->key[i] = sid ? sid : sname;
		if (locus__strmap_get(&c->tix, c->key[i], &was))
			return perr(c,
				    "%s[%zu].%s: task id \"%s\" is also %s[%zu]'s: expected "
				    "unique task ids",
				    c->tasks_path, i, sid ? "id" : "name", c->key[i], c->tasks_path,
				    was);
		if (locus__strmap_put(&c->tix, c->key[i], i))
			return nomem(c);
		if (sname) {
			if (locus__strmap_get(&c->nix, sname, &was))
				rc = locus__strmap_put(&c->nix, sname, AMBIGUOUS);
			else
				rc = locus__strmap_put(&c->nix, sname, i);
			if (rc)
				return nomem(c);
		}
		rt = either(t, "runtimeInSeconds", "runtime", &which);
		snprintf(path, sizeof path, "%s[%zu].%s", c->tasks_path, i, which);
		if (rt && (rc = seconds(c, rt, path, &c->work[i])))
			return rc;
		c->demand[i] = c->task_default;
		c->declared[i] =
		    c->task_default.cores != 1 || c->task_default.memory || c->task_default.disk;
		snprintf(path, sizeof path, "%s[%zu]", c->tasks_path, i);
		if ((rc = read_demand(c, t, path, i)))
			return rc;
		if ((c->cmd[i] = json_object_get(t, "command"))) {
			c->cmd_list[i] = c->tasks_path;
			c->cmd_at[i] = (uint32_t)i;
		}
		json_t *cat = json_object_get(t, "category");
		if (cat) {
			snprintf(path, sizeof path, "%s[%zu].category", c->tasks_path, i);
			if ((rc = id_string(c, cat, path, &c->category[i])))
				return rc;
		}
	}
	return 0;
}

/* The task a parent or child reference names: by id, else by a name only
 * one task has. */
static int resolve(struct wctx *c, const char *ref, const struct where *w, uint32_t *out)
{
	char path[240];
	size_t t;
	if (locus__strmap_get(&c->tix, ref, &t) ||
	    (locus__strmap_get(&c->nix, ref, &t) && t != AMBIGUOUS)) {
		*out = (uint32_t)t;
		return 0;
	}
	wpath(c, w, path, sizeof path);
	if (locus__strmap_get(&c->nix, ref, &t))
		return perr(c,
			    "%s: \"%s\" is the name of several tasks and the id of none: "
			    "expected a task id",
			    path, ref);
	return perr(c, "%s: no task has id \"%s\": expected the id of a task in %s", path, ref,
		    c->tasks_path);
}

/* The runtimes of workflow.execution.tasks[]. */
static int read_execution(struct wctx *c, json_t *exec)
{
	char path[160], got[64];
	json_t *et;
	int rc;
	if (!json_is_object(exec))
		return perr(c, "workflow.execution: expected an object, got %s",
			    locus__json_describe(exec, got, sizeof got));
	if ((rc = opt_array(c, exec, "tasks", "workflow.execution", &et)) || !et)
		return rc;
	unsigned char *seen = locus__calloc(c->n ? c->n : 1, 1);
	if (!seen)
		return nomem(c);
	for (size_t i = 0; i < json_array_size(et); i++) {
		json_t *t = json_array_get(et, i), *rt;
		const char *id, *which;
		size_t k;
		snprintf(path, sizeof path, "workflow.execution.tasks[%zu]", i);
		if (!json_is_object(t)) {
			rc = perr(c, "%s: expected a task object, got %s", path,
				  locus__json_describe(t, got, sizeof got));
			break;
		}
		snprintf(path, sizeof path, "workflow.execution.tasks[%zu].id", i);
		if ((rc = id_string(c, json_object_get(t, "id"), path, &id)))
			break;
		if (!locus__strmap_get(&c->tix, id, &k)) {
			rc = perr(c, "%s: no task has id \"%s\": expected the id of a task in %s",
				  path, id, c->tasks_path);
			break;
		}
		if (seen[k]++) {
			rc = perr(c, "%s: task \"%s\" has two execution entries: expected one",
				  path, id);
			break;
		}
		rt = either(t, "runtimeInSeconds", "runtime", &which);
		snprintf(path, sizeof path, "workflow.execution.tasks[%zu].%s", i, which);
		if (rt && (rc = seconds(c, rt, path, &c->work[k])))
			break;
		snprintf(path, sizeof path, "workflow.execution.tasks[%zu]", i);
		if ((rc = read_demand(c, t, path, k)))
			break;
		if (json_object_get(t, "command")) {
			c->cmd[k] = json_object_get(t, "command");
			c->cmd_list[k] = "workflow.execution.tasks";
			c->cmd_at[k] = (uint32_t)i;
		}
	}
	free(seen);
	return rc;
}

/* ---- stages and commands -------------------------------------------------------- */

/* A task's stage when nothing names its program: its name without the
 * "_ID0000001" (or "_0001") WfCommons' generators append. */
static size_t stem_length(const char *name)
{
	size_t n = strlen(name), d = n;
	while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
		d--;
	if (d == n)
		return n;
	if (d >= 3 && !strncmp(name + d - 3, "_ID", 3) && d > 3)
		return d - 3;
	if (d >= 1 && name[d - 1] == '_' && d > 1)
		return d - 1;
	return n;
}

/* Task i's stage (its command's program, without a directory, else its
 * category, else its name's stem) and command (program and arguments, run
 * without a shell). */
static int task_stage_and_command(struct wctx *c, uint32_t i)
{
	char path[200], got[64], stem[256];
	const char *program = NULL, **argv = NULL;
	size_t argc = 0;
	int rc = 0;
	json_t *cmd = c->cmd[i];
	if (cmd) {
		snprintf(path, sizeof path, "%s[%" PRIu32 "].command", c->cmd_list[i],
			 c->cmd_at[i]);
		if (!json_is_object(cmd))
			return perr(c,
				    "%s: expected an object with \"program\" and \"arguments\", "
				    "got %s",
				    path, locus__json_describe(cmd, got, sizeof got));
		json_t *prog = json_object_get(cmd, "program"),
		       *args = json_object_get(cmd, "arguments");
		char p2[240];
		snprintf(p2, sizeof p2, "%s.program", path);
		if (prog && (rc = id_string(c, prog, p2, &program)))
			return rc;
		if (args && !json_is_array(args))
			return perr(c, "%s.arguments: expected an array of strings, got %s", path,
				    locus__json_describe(args, got, sizeof got));
		if (program) {
			argc = 1 + json_array_size(args);
			argv = locus__calloc(argc, sizeof *argv);
			if (!argv)
				return nomem(c);
			argv[0] = program;
			for (size_t k = 1; k < argc; k++) {
				json_t *a = json_array_get(args, k - 1);
				if (!json_is_string(a) ||
				    strlen(json_string_value(a)) != json_string_length(a)) {
					free(argv);
					return perr(
					    c, "%s.arguments[%zu]: expected a string, got %s", path,
					    k - 1, locus__json_describe(a, got, sizeof got));
				}
				argv[k] = json_string_value(a);
			}
		}
	}
	const char *stage = c->category[i];
	if (program) {
		const char *slash = strrchr(program, '/');
		stage = slash && slash[1] ? slash + 1 : program;
	}
	if (!stage) {
		size_t n = stem_length(c->key[i]);
		if (n >= sizeof stem)
			n = sizeof stem - 1;
		memcpy(stem, c->key[i], n);
		stem[n] = 0;
		stage = stem;
	}
	long id = locus_graph_stage(c->g, stage);
	if (id < 0 || locus_graph_set_stage(c->g, i, (uint32_t)id))
		rc = nomem(c);
	if (!rc && argv) {
		struct locus_command lc = {.argv = argv, .argc = (uint32_t)argc};
		if (locus_graph_set_command(c->g, i, &lc))
			rc = nomem(c);
	}
	free(argv);
	return rc;
}

/* ---- files ------------------------------------------------------------------ */

static int new_file(struct wctx *c, const char *id, uint64_t bytes, size_t *out)
{
	if (locus__grow(&c->files, &c->files_cap, c->n_files + 1, sizeof *c->files) ||
	    locus__strmap_put(&c->fix, id, c->n_files))
		return nomem(c);
	c->files[c->n_files] = (struct wfile){.bytes = bytes, .obj = NONE};
	*out = c->n_files++;
	return 0;
}

/* workflow.specification.files[]: {id, sizeInBytes}. */
static int read_files(struct wctx *c, json_t *files)
{
	char path[160], got[64];
	for (size_t i = 0; i < json_array_size(files); i++) {
		json_t *f = json_array_get(files, i), *v;
		const char *id, *which;
		uint64_t bytes;
		size_t was;
		int rc;
		snprintf(path, sizeof path, "%s[%zu]", c->files_path, i);
		if (!json_is_object(f))
			return perr(c, "%s: expected a file object, got %s", path,
				    locus__json_describe(f, got, sizeof got));
		v = either(f, "id", "name", &which);
		snprintf(path, sizeof path, "%s[%zu].%s", c->files_path, i, which);
		if ((rc = id_string(c, v, path, &id)))
			return rc;
		if (locus__strmap_get(&c->fix, id, &was))
			return perr(c, "%s: file \"%s\" is listed twice: expected unique file ids",
				    path, id);
		v = either(f, "sizeInBytes", "size", &which);
		snprintf(path, sizeof path, "%s[%zu].sizeInBytes", c->files_path, i);
		if (!v)
			return perr(c, "%s[%zu]: missing key \"sizeInBytes\"", c->files_path, i);
		if ((rc = byte_count(c, v, path, &bytes)) || (rc = new_file(c, id, bytes, &was)))
			return rc;
	}
	return 0;
}

/* The graph object of file `id` (creating it at first use). A file given
 * inside a task (embedded, bytes >= 0) is added when new and keeps the
 * largest size stated; a file id alone must be listed. */
static int file_object(struct wctx *c, const char *id, int64_t bytes, const struct where *wh,
		       uint32_t *out)
{
	char path[240];
	size_t f;
	if (!locus__strmap_get(&c->fix, id, &f)) {
		if (bytes < 0 && wpath(c, wh, path, sizeof path))
			return c->files_path
				   ? perr(c, "%s: file \"%s\" is not in %s: expected a listed file",
					  path, id, c->files_path)
				   : perr(c,
					  "%s: file \"%s\" is not listed (no "
					  "workflow.specification.files)",
					  path, id);
		int rc = new_file(c, id, (uint64_t)bytes, &f);
		if (rc)
			return rc;
	}
	struct wfile *w = &c->files[f];
	if (bytes >= 0 && (uint64_t)bytes > w->bytes) {
		w->bytes = (uint64_t)bytes;
		if (w->obj != NONE)
			locus_graph_set_object_bytes(c->g, w->obj, w->bytes);
	}
	if (w->obj == NONE) {
		long o = locus_graph_add_object(c->g, id, w->bytes);
		if (o < 0)
			return o == LOCUS_ENOMEM
				   ? nomem(c)
				   : perr(c, "%s: too many files", wpath(c, wh, path, sizeof path));
		w->obj = (uint32_t)o;
	}
	*out = w->obj;
	return 0;
}

/* Task t writes object o. */
static int output(struct wctx *c, uint32_t t, uint32_t o, const struct where *w)
{
	char path[240];
	uint32_t was = c->g->objects[o].producer;
	if (was == t)
		return 0;
	if (was != LOCUS_NONE)
		return perr(c,
			    "%s: file \"%s\" is written by task \"%s\" and by task \"%s\": "
			    "expected one task writing each file",
			    wpath(c, w, path, sizeof path), c->g->objects[o].name, c->key[was],
			    c->key[t]);
	return locus_graph_add_output(c->g, t, o, c->err) ? nomem(c) : 0;
}

/* Task t reads object o (not when it writes o itself: it updates it). */
static int input(struct wctx *c, uint32_t t, uint32_t o)
{
	if (c->g->objects[o].producer == t)
		return 0;
	if (locus__grow(&c->in, &c->in_cap, c->n_in + 1, sizeof *c->in) ||
	    locus_graph_add_input(c->g, t, o))
		return nomem(c);
	c->in[c->n_in++] = o;
	return 0;
}

/* A file inside a task (WfFormat 1.4): {name, path, sizeInBytes or size,
 * link}. want: 'o' (outputs) or 'i' (inputs): the pass it is read in. */
static int embedded_file(struct wctx *c, uint32_t t, json_t *f, const struct where *w, int want)
{
	char path[200], p2[240], got[64], idbuf[1024];
	const char *id, *which, *link;
	json_t *v;
	uint64_t bytes;
	uint32_t o;
	int rc;
	wpath(c, w, path, sizeof path);
	if (!json_is_object(f))
		return perr(c, "%s: expected a file object, got %s", path,
			    locus__json_describe(f, got, sizeof got));
	v = json_object_get(f, "link");
	snprintf(p2, sizeof p2, "%s.link", path);
	if (!json_is_string(v))
		return perr(c, "%s: expected \"input\" or \"output\", got %s", p2,
			    v ? locus__json_describe(v, got, sizeof got) : "nothing");
	link = json_string_value(v);
	int is_out = !strcasecmp(link, "output");
	if (!is_out && strcasecmp(link, "input"))
		return perr(c, "%s: expected \"input\" or \"output\", got %s", p2,
			    locus__json_describe(v, got, sizeof got));
	if (is_out != (want == 'o'))
		return 0;
	v = either(f, "name", "id", &which);
	snprintf(p2, sizeof p2, "%s.%s", path, which);
	if ((rc = id_string(c, v, p2, &id)))
		return rc;
	/* 1.4 files may have a directory apart: WfCommons' own migration
	 * names them path + name. */
	v = json_object_get(f, "path");
	if (json_is_string(v) && json_string_length(v)) {
		int k = snprintf(idbuf, sizeof idbuf, "%s%s", json_string_value(v), id);
		if (k < 0 || (size_t)k >= sizeof idbuf)
			return perr(c, "%s: the file's path and name are too long", path);
		id = idbuf;
	}
	v = either(f, "sizeInBytes", "size", &which);
	snprintf(p2, sizeof p2, "%s.%s", path, which);
	if (!v)
		return perr(c, "%s: missing key \"sizeInBytes\"", path);
	if ((rc = byte_count(c, v, p2, &bytes)))
		return rc;
	if (bytes > INT64_MAX)
		return perr(c, "%s: expected a size below 2^63 bytes", p2);
	if ((rc = file_object(c, id, (int64_t)bytes, w, &o)))
		return rc;
	return is_out ? output(c, t, o, w) : input(c, t, o);
}

/* Task i's files, outputs first: inputFiles / outputFiles (ids) and
 * files[] (embedded). */
static int read_task_files(struct wctx *c, uint32_t i, json_t *t)
{
	char path[240];
	json_t *list;
	int rc;
	for (int pass = 0; pass < 2; pass++) {
		struct where w = {i, pass ? "inputFiles" : "outputFiles", 0};
		if ((rc = task_array(c, t, i, w.key, &list)))
			return rc;
		for (w.k = 0; w.k < json_array_size(list); w.k++) {
			json_t *v = json_array_get(list, w.k);
			const char *id = json_string_value(v);
			uint32_t o;
			if (!plain_id(v))
				return id_string(c, v, wpath(c, &w, path, sizeof path), &id);
			if ((rc = file_object(c, id, -1, &w, &o)) ||
			    (rc = pass ? input(c, i, o) : output(c, i, o, &w)))
				return rc;
		}
		w.key = "files";
		if ((rc = task_array(c, t, i, w.key, &list)))
			return rc;
		for (w.k = 0; w.k < json_array_size(list); w.k++)
			if ((rc = embedded_file(c, i, json_array_get(list, w.k), &w,
						pass ? 'i' : 'o')))
				return rc;
	}
	return 0;
}

/* Task i's parents and children, as parent relations. */
static int read_task_deps(struct wctx *c, uint32_t i, json_t *t)
{
	char path[240];
	json_t *list;
	int rc;
	for (int pass = 0; pass < 2; pass++) {
		struct where w = {i, pass ? "children" : "parents", 0};
		if ((rc = task_array(c, t, i, w.key, &list)))
			return rc;
		for (w.k = 0; w.k < json_array_size(list); w.k++) {
			json_t *v = json_array_get(list, w.k);
			const char *ref = json_string_value(v);
			uint32_t other = 0;
			if (!plain_id(v))
				return id_string(c, v, wpath(c, &w, path, sizeof path), &ref);
			if ((rc = resolve(c, ref, &w, &other)))
				return rc;
			if (other == i)
				return perr(c, "%s: task \"%s\" lists itself as its %s",
					    wpath(c, &w, path, sizeof path), c->key[i],
					    pass ? "child" : "parent");
			if (locus__grow(&c->deps, &c->deps_cap, c->n_deps + 1, sizeof *c->deps))
				return nomem(c);
			c->deps[c->n_deps++] =
			    pass ? (struct dep){other, i} : (struct dep){i, other};
		}
	}
	return 0;
}

static int cmp_dep(const void *a, const void *b)
{
	const struct dep *x = a, *y = b;
	if (x->c != y->c)
		return x->c < y->c ? -1 : 1;
	return (x->p > y->p) - (x->p < y->p);
}

/* An edge of 0 bytes for each parent relation no file carries. */
static int parent_edges(struct wctx *c)
{
	uint32_t *mark = locus__calloc(c->n ? c->n : 1, sizeof *mark);
	if (!mark)
		return nomem(c);
	for (size_t t = 0; t < c->n; t++)
		mark[t] = NONE;
	if (c->n_deps)
		qsort(c->deps, c->n_deps, sizeof *c->deps, cmp_dep);
	for (size_t k = 0; k < c->n_deps; k++) {
		struct dep d = c->deps[k];
		if (k && d.c == c->deps[k - 1].c && d.p == c->deps[k - 1].p)
			continue;
		if (!k || d.c != c->deps[k - 1].c)
			for (uint32_t j = c->in_at[d.c]; j < c->in_at[d.c + 1]; j++) {
				uint32_t p = c->g->objects[c->in[j]].producer;
				if (p != LOCUS_NONE)
					mark[p] = d.c;
			}
		if (mark[d.p] == d.c)
			continue;
		long o = locus_graph_add_edge(c->g, d.p, d.c, 0);
		if (o < 0) {
			free(mark);
			return o == LOCUS_ENOMEM ? nomem(c) : perr(c, "too many dependencies");
		}
	}
	free(mark);
	return 0;
}

/* ---- the document ------------------------------------------------------------ */

static int read_workflow(struct wctx *c, json_t *root)
{
	char got[64];
	json_t *wf, *spec, *exec = NULL, *files = NULL;
	int rc;
	if (!json_is_object(root))
		return perr(c, "expected a WfFormat JSON object with a \"workflow\", got %s",
			    locus__json_describe(root, got, sizeof got));
	wf = json_object_get(root, "workflow");
	if (!wf)
		return perr(c, "missing key \"workflow\": expected a WfCommons instance "
			       "(WfFormat 1.4 to 1.6)");
	if (!json_is_object(wf))
		return perr(c, "workflow: expected an object, got %s",
			    locus__json_describe(wf, got, sizeof got));
	spec = json_object_get(wf, "specification");
	if (spec) {
		if (!json_is_object(spec))
			return perr(c, "workflow.specification: expected an object, got %s",
				    locus__json_describe(spec, got, sizeof got));
		c->tasks_path = "workflow.specification.tasks";
		c->tasks = json_object_get(spec, "tasks");
		if ((rc = opt_array(c, spec, "files", "workflow.specification", &files)))
			return rc;
		if (files)
			c->files_path = "workflow.specification.files";
		exec = json_object_get(wf, "execution");
	} else {
		c->tasks_path = "workflow.tasks";
		c->tasks = json_object_get(wf, "tasks");
		if (!c->tasks) {
			c->tasks = json_object_get(wf, "jobs");
			if (c->tasks)
				c->tasks_path = "workflow.jobs";
		}
		/* Not WfFormat, but a list of files beside 1.4 tasks is read. */
		if ((rc = opt_array(c, wf, "files", "workflow", &files)))
			return rc;
		if (files)
			c->files_path = "workflow.files";
	}
	if (!c->tasks)
		return perr(c, "workflow: expected \"specification\": {\"tasks\": [...]} "
			       "(WfFormat 1.5, 1.6) or \"tasks\": [...] (WfFormat 1.4)");
	if (!json_is_array(c->tasks))
		return perr(c, "%s: expected an array of tasks, got %s", c->tasks_path,
			    locus__json_describe(c->tasks, got, sizeof got));
	c->n = json_array_size(c->tasks);
	if (!c->n)
		return perr(c, "%s: expected at least one task, got none", c->tasks_path);
	if (c->n >= UINT32_MAX - 1)
		return perr(c, "%s: too many tasks", c->tasks_path);
	if ((rc = read_task_ids(c)) || (exec && (rc = read_execution(c, exec))))
		return rc;
	for (size_t i = 0; i < c->n; i++) {
		long t = locus_graph_add_task(c->g, c->key[i], c->work[i]);
		if (t < 0)
			return t == LOCUS_ENOMEM ? nomem(c) : perr(c, "too many tasks");
	}
	for (uint32_t i = 0; i < c->n; i++)
		if (c->declared[i] && locus_graph_set_demand(c->g, i, &c->demand[i]))
			return nomem(c);
	for (uint32_t i = 0; i < c->n; i++)
		if ((rc = task_stage_and_command(c, i)))
			return rc;
	if (files && (rc = read_files(c, files)))
		return rc;
	c->in_at = locus__calloc(c->n + 1, sizeof *c->in_at);
	if (!c->in_at)
		return nomem(c);
	for (uint32_t i = 0; i < c->n; i++) {
		json_t *t = json_array_get(c->tasks, i);
		if ((rc = read_task_files(c, i, t)) || (rc = read_task_deps(c, i, t)))
			return rc;
		c->in_at[i + 1] = (uint32_t)c->n_in;
	}
	return parent_edges(c);
}

int locus_dag_read_wfcommons(struct locus_graph **out, const char *text, size_t len,
			     const char *name, struct locus_error *err)
{
	return locus__read_wfcommons(out, text, len, name, NULL, err);
}

int locus__read_wfcommons(struct locus_graph **out, const char *text, size_t len, const char *name,
			  const struct locus_demand *task_default, struct locus_error *err)
{
	struct wctx c = {.file = name, .err = err, .task_default = LOCUS_DEMAND_DEFAULT};
	if (task_default) {
		c.task_default = *task_default;
		c.task_default.cores += !c.task_default.cores;
	}
	json_error_t je;
	int rc;
	if (out)
		*out = NULL;
	if (!out || (!text && len))
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no output or no text");
	/* json_loadb reads exactly `len` bytes: the text need not end in NUL.
	 * A byte-order mark, which JSON parsers may skip (RFC 8259), is. */
	size_t bom = locus__bom_len(text, len);
	if (bom) {
		text += bom;
		len -= bom;
	}
	json_t *root = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return locus__err(err, LOCUS_EPARSE, name, je.line, je.column, "invalid JSON: %s",
				  je.text);
	locus__strmap_init(&c.tix);
	locus__strmap_init(&c.nix);
	locus__strmap_init(&c.fix);
	rc = locus_graph_create(&c.g, name, err);
	if (!rc)
		rc = read_workflow(&c, root);
	if (!rc && (rc = locus_graph_finish(c.g, err)) == LOCUS_EINVAL) {
		rc = LOCUS_EPARSE; /* a cycle: the input is at fault */
		if (err)
			err->code = rc;
	}
	json_decref(root);
	locus__strmap_fini(&c.tix);
	locus__strmap_fini(&c.nix);
	locus__strmap_fini(&c.fix);
	free(c.key);
	free(c.work);
	free(c.cmd);
	free(c.cmd_list);
	free(c.cmd_at);
	free(c.category);
	free(c.demand);
	free(c.declared);
	free(c.files);
	free(c.in);
	free(c.in_at);
	free(c.deps);
	if (rc) {
		locus_graph_destroy(c.g);
		return rc;
	}
	*out = c.g;
	return 0;
}
