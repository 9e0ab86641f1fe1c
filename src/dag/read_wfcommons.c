/*
 * WfCommons' WfFormat (docs/formats.md, "Task graphs"), schema 1.4 to 1.6,
 * and WorkflowHub's older "jobs" form:
 *  - 1.5 and 1.6: workflow.specification.tasks[] (id, name, parents,
 *    children, inputFiles, outputFiles: file ids), workflow.specification
 *    .files[] (id, sizeInBytes), workflow.execution.tasks[] (id,
 *    runtimeInSeconds);
 *  - 1.4 and before: workflow.tasks[] (or workflow.jobs[]) with name, id,
 *    runtime (or runtimeInSeconds), parents, children and files[] (name or
 *    id, size or sizeInBytes, link "input" or "output").
 * The form is told by the keys present, whatever schemaVersion says. A
 * task's work is its runtime in seconds; each file is one object; a parent
 * that shares no file with its child gives an edge of 0 bytes.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/json.h"
#include "locus/dag.h"

struct pair {
	uint32_t parent, child; /* or task, object */
};

struct wf {
	const char *file;
	struct locus_error *err;
	struct locus_graph *g;
	struct locus__strmap tasks, files;
	struct pair *pairs; /* parent -> child */
	size_t n_pairs, pairs_cap;
	struct pair *ins; /* (task, object) read */
	size_t n_ins, ins_cap;
};

static int werr(struct wf *w, int code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int werr(struct wf *w, int code, const char *path, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return locus__err(w->err, code, w->file, 0, 0, "%s%s%s", path ? path : "", path ? ": " : "",
			  msg);
}

static json_t *get(json_t *o, const char *key)
{
	return json_is_object(o) ? json_object_get(o, key) : NULL;
}

/* A task's key: its id, else its name. */
static const char *task_key(json_t *t)
{
	json_t *v = get(t, "id");
	if (!json_is_string(v))
		v = get(t, "name");
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static int number(json_t *v, double *out)
{
	if (!json_is_number(v))
		return -1;
	*out = json_number_value(v);
	return isfinite(*out) ? 0 : -1;
}

/* Object `name` of `bytes` bytes: the one read before, or a new one. */
static long file_object(struct wf *w, const char *name, double bytes, int grow)
{
	size_t o;
	if (locus__strmap_get(&w->files, name, &o)) {
		if (grow && bytes > (double)w->g->objects[o].bytes)
			locus_graph_set_object_bytes(w->g, (uint32_t)o, (uint64_t)llround(bytes));
		return (long)o;
	}
	long id = locus_graph_add_object(w->g, name, (uint64_t)llround(bytes));
	if (id < 0 || locus__strmap_put(&w->files, name, (size_t)id))
		return LOCUS_ENOMEM;
	return id;
}

static int link_file(struct wf *w, uint32_t t, uint32_t o, int output, const char *path)
{
	if (!output) {
		if (locus_graph_add_input(w->g, t, o) ||
		    locus__grow(&w->ins, &w->ins_cap, w->n_ins + 1, sizeof *w->ins))
			return werr(w, LOCUS_ENOMEM, NULL, "out of memory");
		w->ins[w->n_ins++] = (struct pair){t, o};
		return 0;
	}
	uint32_t was = w->g->objects[o].producer;
	if (was != LOCUS_NONE && was != t)
		return werr(w, LOCUS_EPARSE, path,
			    "file \"%.100s\" is written by task \"%.100s\" "
			    "and by task \"%.100s\"",
			    w->g->objects[o].name, w->g->tasks[was].name, w->g->tasks[t].name);
	struct locus_error e2 = {0};
	return locus_graph_add_output(w->g, t, o, &e2)
		   ? werr(w, LOCUS_EPARSE, path, "%s", e2.message)
		   : 0;
}

/* The tasks named in t's parents or children, as pairs. */
static int relatives(struct wf *w, json_t *t, uint32_t self, const char *key, int parents,
		     const char *tpath)
{
	json_t *list = get(t, key);
	char path[160], got[64];
	if (!list)
		return 0;
	if (!json_is_array(list))
		return werr(w, LOCUS_EPARSE, tpath,
			    "expected %s to be an array of task ids, got %s", key,
			    locus__json_describe(list, got, sizeof got));
	for (size_t k = 0; k < json_array_size(list); k++) {
		json_t *v = json_array_get(list, k);
		size_t other;
		snprintf(path, sizeof path, "%s.%s[%zu]", tpath, key, k);
		if (!json_is_string(v))
			return werr(w, LOCUS_EPARSE, path, "expected a task id, got %s",
				    locus__json_describe(v, got, sizeof got));
		if (!locus__strmap_get(&w->tasks, json_string_value(v), &other))
			return werr(w, LOCUS_EPARSE, path, "no task \"%.100s\" in the workflow",
				    json_string_value(v));
		if (other == self)
			return werr(w, LOCUS_EPARSE, path, "a task is not its own %s",
				    parents ? "parent" : "child");
		if (locus__grow(&w->pairs, &w->pairs_cap, w->n_pairs + 1, sizeof *w->pairs))
			return werr(w, LOCUS_ENOMEM, NULL, "out of memory");
		w->pairs[w->n_pairs++] = parents ? (struct pair){(uint32_t)other, self}
						 : (struct pair){self, (uint32_t)other};
	}
	return 0;
}

/* 1.5/1.6: the files of specification.files, and a task's file id lists. */
static int spec_files(struct wf *w, json_t *files)
{
	char path[96], got[64];
	if (!files)
		return 0;
	if (!json_is_array(files))
		return werr(w, LOCUS_EPARSE, "workflow.specification.files",
			    "expected an array of files, got %s",
			    locus__json_describe(files, got, sizeof got));
	for (size_t k = 0; k < json_array_size(files); k++) {
		json_t *f = json_array_get(files, k), *id = get(f, "id"),
		       *sz = get(f, "sizeInBytes");
		double bytes = 0;
		snprintf(path, sizeof path, "workflow.specification.files[%zu]", k);
		if (!json_is_string(id) || !json_string_length(id))
			return werr(w, LOCUS_EPARSE, path, "expected a file with a string \"id\"");
		if (sz && (number(sz, &bytes) || bytes < 0 || bytes > 9e18))
			return werr(w, LOCUS_EPARSE, path, "expected \"sizeInBytes\" >= 0, got %s",
				    locus__json_describe(sz, got, sizeof got));
		if (locus__strmap_get(&w->files, json_string_value(id), &(size_t){0}))
			return werr(w, LOCUS_EPARSE, path, "file \"%.100s\" is listed twice",
				    json_string_value(id));
		if (file_object(w, json_string_value(id), bytes, 0) < 0)
			return werr(w, LOCUS_ENOMEM, NULL, "out of memory");
	}
	return 0;
}

static int id_files(struct wf *w, json_t *t, uint32_t self, const char *key, int output,
		    const char *tpath)
{
	json_t *list = get(t, key);
	char path[160], got[64];
	size_t o;
	if (!list)
		return 0;
	if (!json_is_array(list))
		return werr(w, LOCUS_EPARSE, tpath,
			    "expected %s to be an array of file ids, got %s", key,
			    locus__json_describe(list, got, sizeof got));
	for (size_t k = 0; k < json_array_size(list); k++) {
		json_t *v = json_array_get(list, k);
		snprintf(path, sizeof path, "%s.%s[%zu]", tpath, key, k);
		if (!json_is_string(v))
			return werr(w, LOCUS_EPARSE, path, "expected a file id, got %s",
				    locus__json_describe(v, got, sizeof got));
		if (!locus__strmap_get(&w->files, json_string_value(v), &o))
			return werr(w, LOCUS_EPARSE, path,
				    "no file \"%.100s\" in workflow.specification.files",
				    json_string_value(v));
		int rc = link_file(w, self, (uint32_t)o, output, path);
		if (rc)
			return rc;
	}
	return 0;
}

/* 1.4: files[] inside a task, each with its link. */
static int task_files(struct wf *w, json_t *t, uint32_t self, const char *tpath)
{
	json_t *list = get(t, "files");
	char path[160], got[64];
	if (!list)
		return 0;
	if (!json_is_array(list))
		return werr(w, LOCUS_EPARSE, tpath, "expected files to be an array, got %s",
			    locus__json_describe(list, got, sizeof got));
	for (size_t k = 0; k < json_array_size(list); k++) {
		json_t *f = json_array_get(list, k), *nm = get(f, "name"), *sz = get(f, "size");
		json_t *ln = get(f, "link");
		double bytes = 0;
		snprintf(path, sizeof path, "%s.files[%zu]", tpath, k);
		if (!json_is_string(nm))
			nm = get(f, "id");
		if (!sz)
			sz = get(f, "sizeInBytes");
		if (!json_is_string(nm) || !json_string_length(nm))
			return werr(w, LOCUS_EPARSE, path, "expected a file with a \"name\"");
		if (sz && (number(sz, &bytes) || bytes < 0 || bytes > 9e18))
			return werr(w, LOCUS_EPARSE, path, "expected a size >= 0, got %s",
				    locus__json_describe(sz, got, sizeof got));
		const char *l = json_is_string(ln) ? json_string_value(ln) : "";
		int output = strcmp(l, "output") == 0;
		if (!output && strcmp(l, "input") != 0)
			return werr(w, LOCUS_EPARSE, path,
				    "expected \"link\": \"input\" or \"output\", got %s",
				    locus__json_describe(ln, got, sizeof got));
		long o = file_object(w, json_string_value(nm), bytes, 1);
		if (o < 0)
			return werr(w, LOCUS_ENOMEM, NULL, "out of memory");
		int rc = link_file(w, self, (uint32_t)o, output, path);
		if (rc)
			return rc;
	}
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return x->child < y->child ? -1 : x->child > y->child;
}

static int read_workflow(struct wf *w, json_t *root)
{
	char got[64], path[96];
	json_t *wfl = get(root, "workflow");
	if (!json_is_object(root))
		return werr(w, LOCUS_EPARSE, NULL,
			    "expected a WfCommons workflow (an object), got %s",
			    locus__json_describe(root, got, sizeof got));
	if (!json_is_object(wfl))
		return werr(w, LOCUS_EPARSE, NULL,
			    "expected the key \"workflow\" with an object, got %s",
			    locus__json_describe(wfl, got, sizeof got));
	json_t *spec = get(wfl, "specification"), *tasks, *exec_tasks = NULL;
	const char *tname;
	int modern = json_is_object(spec);
	if (modern) {
		tasks = get(spec, "tasks");
		tname = "workflow.specification.tasks";
		exec_tasks = get(get(wfl, "execution"), "tasks");
	} else {
		tasks = get(wfl, "tasks");
		tname = "workflow.tasks";
		if (!tasks) {
			tasks = get(wfl, "jobs");
			tname = "workflow.jobs";
		}
	}
	if (!json_is_array(tasks) || !json_array_size(tasks))
		return werr(w, LOCUS_EPARSE, tname, "expected a non-empty array of tasks, got %s",
			    tasks ? locus__json_describe(tasks, got, sizeof got) : "nothing");
	size_t n = json_array_size(tasks);
	/* The tasks first, so parents and files can name any of them. */
	for (size_t k = 0; k < n; k++) {
		json_t *t = json_array_get(tasks, k);
		const char *key = task_key(t);
		size_t first;
		snprintf(path, sizeof path, "%s[%zu]", tname, k);
		if (!key || !*key)
			return werr(w, LOCUS_EPARSE, path,
				    "expected a task with a string \"id\" or "
				    "\"name\"");
		if (locus__strmap_get(&w->tasks, key, &first))
			return werr(w, LOCUS_EPARSE, path,
				    "task \"%.100s\" is listed twice (first "
				    "at %s[%zu])",
				    key, tname, first);
		double rt = 0;
		json_t *v = get(t, "runtimeInSeconds");
		if (!v)
			v = get(t, "runtime");
		if (v && (number(v, &rt) || rt < 0))
			return werr(w, LOCUS_EPARSE, path,
				    "expected a runtime >= 0 seconds, got %s",
				    locus__json_describe(v, got, sizeof got));
		long id = locus_graph_add_task(w->g, key, rt);
		if (id < 0 || locus__strmap_put(&w->tasks, key, (size_t)id))
			return werr(w, LOCUS_ENOMEM, NULL, "out of memory");
	}
	/* 1.5 and 1.6: runtimes are in the execution part. */
	if (exec_tasks && json_is_array(exec_tasks)) {
		for (size_t k = 0; k < json_array_size(exec_tasks); k++) {
			json_t *t = json_array_get(exec_tasks, k), *v = get(t, "runtimeInSeconds");
			const char *key = task_key(t);
			size_t id;
			double rt;
			snprintf(path, sizeof path, "workflow.execution.tasks[%zu]", k);
			if (!key || !locus__strmap_get(&w->tasks, key, &id))
				return werr(w, LOCUS_EPARSE, path,
					    "expected the id of a task of the specification");
			if (!v)
				continue;
			if (number(v, &rt) || rt < 0)
				return werr(w, LOCUS_EPARSE, path,
					    "expected \"runtimeInSeconds\" >= 0, got %s",
					    locus__json_describe(v, got, sizeof got));
			w->g->tasks[id].work = rt;
		}
	} else if (exec_tasks) {
		return werr(w, LOCUS_EPARSE, "workflow.execution.tasks",
			    "expected an array, got %s",
			    locus__json_describe(exec_tasks, got, sizeof got));
	}
	int rc = modern ? spec_files(w, get(spec, "files")) : 0;
	for (size_t k = 0; k < n && !rc; k++) {
		json_t *t = json_array_get(tasks, k);
		snprintf(path, sizeof path, "%s[%zu]", tname, k);
		if (modern)
			rc = id_files(w, t, (uint32_t)k, "inputFiles", 0, path);
		if (!rc && modern)
			rc = id_files(w, t, (uint32_t)k, "outputFiles", 1, path);
		/* Some 1.5 instances still list files inside the task. */
		if (!rc && get(t, "files"))
			rc = task_files(w, t, (uint32_t)k, path);
		if (!rc)
			rc = relatives(w, t, (uint32_t)k, "parents", 1, path);
		if (!rc)
			rc = relatives(w, t, (uint32_t)k, "children", 0, path);
	}
	if (rc)
		return rc;
	/* A parent and child that share no file: an edge of 0 bytes. The
	 * inputs by task (sorted pairs) say what each child reads. */
	qsort(w->pairs, w->n_pairs, sizeof *w->pairs, cmp_pair);
	qsort(w->ins, w->n_ins, sizeof *w->ins, cmp_pair);
	for (size_t k = 0, at = 0; k < w->n_pairs; k++) {
		struct pair pr = w->pairs[k];
		if (k && pr.parent == w->pairs[k - 1].parent && pr.child == w->pairs[k - 1].child)
			continue;
		/* The child's inputs: a binary search for its first. */
		size_t lo = 0, hi = w->n_ins;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (w->ins[mid].parent < pr.child)
				lo = mid + 1;
			else
				hi = mid;
		}
		int shared = 0;
		for (at = lo; at < w->n_ins && w->ins[at].parent == pr.child && !shared; at++)
			shared = w->g->objects[w->ins[at].child].producer == pr.parent;
		if (!shared && locus_graph_add_edge(w->g, pr.parent, pr.child, 0) < 0)
			return werr(w, LOCUS_ENOMEM, NULL, "out of memory");
	}
	return 0;
}

int locus_dag_read_wfcommons(struct locus_graph **out, const char *text, size_t len,
			     const char *name, struct locus_error *err)
{
	struct wf w = {.file = name, .err = err};
	json_error_t je;
	if (!out || (!text && len))
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no output or no text");
	*out = NULL;
	json_t *root = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return locus__err(err, LOCUS_EPARSE, name, je.line, je.column, "invalid JSON: %s",
				  je.text);
	locus__strmap_init(&w.tasks);
	locus__strmap_init(&w.files);
	int rc = locus_graph_create(&w.g, name, err);
	if (!rc)
		rc = read_workflow(&w, root);
	if (!rc)
		rc = locus_graph_finish(w.g, err);
	json_decref(root);
	locus__strmap_fini(&w.tasks);
	locus__strmap_fini(&w.files);
	free(w.pairs);
	free(w.ins);
	if (rc) {
		locus_graph_destroy(w.g);
		return rc;
	}
	*out = w.g;
	return 0;
}
