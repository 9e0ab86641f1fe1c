/*
 * A workflow run's status file (locus-flow-status, version 1): what rank 0
 * knows of the run's tasks, rewritten atomically while it goes, read back
 * by `locus flow status`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/json.h"
#include "locus/flow.h"

#define STATUS_FORMAT  "locus-flow-status"
#define STATUS_VERSION 1

static json_t *count_json(const struct locus_flow_status_count *c)
{
	return json_pack("{sIsIsIsIsIsIsI}", "total", (json_int_t)c->total, "waiting",
			 (json_int_t)c->waiting, "running", (json_int_t)c->running, "done",
			 (json_int_t)c->done, "failed_attempts", (json_int_t)c->failed_attempts,
			 "bytes_read", (json_int_t)c->bytes_read, "bytes_written",
			 (json_int_t)c->bytes_written);
}

int locus_flow_status_write(const struct locus_flow_status *s, const char *path,
			    struct locus_error *err)
{
	json_t *stages = json_array();
	json_t *doc =
	    json_pack("{sssiss?sssssIsfsfso}", "format", STATUS_FORMAT, "version", STATUS_VERSION,
		      "workflow", s->workflow, "state", s->state ? s->state : "running", "host",
		      s->host ? s->host : "", "pid", (json_int_t)s->pid, "started", s->started,
		      "updated", s->updated, "tasks", count_json(&s->tasks));
	if (!doc || !stages) {
		json_decref(doc);
		json_decref(stages);
		return locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
	}
	if (s->failure)
		json_object_set_new(doc, "failure", json_string(s->failure));
	for (size_t k = 0; k < s->n_stages; k++) {
		json_t *c = json_pack("{ss}", "name", s->stage_names[k]);
		json_t *n = count_json(&s->stages[k]);
		if (c && n)
			json_object_update(c, n);
		json_decref(n);
		json_array_append_new(stages, c);
	}
	json_object_set_new(doc, "stages", stages);
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (!text)
		return locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
	FILE *fp = fopen(tmp, "w");
	int ok = fp && fputs(text, fp) >= 0 && fputc('\n', fp) != EOF;
	int e = errno;
	if (fp && fclose(fp))
		ok = 0, e = errno;
	free(text);
	if (!ok || rename(tmp, path)) {
		if (ok)
			e = errno;
		unlink(tmp);
		return locus__err(err, LOCUS_EIO, path, 0, 0, "cannot write the status file: %s",
				  strerror(e));
	}
	return 0;
}

void locus_flow_status_fini(struct locus_flow_status *s)
{
	free(s->workflow);
	free(s->state);
	free(s->failure);
	free(s->host);
	for (size_t k = 0; k < s->n_stages; k++)
		free(s->stage_names[k]);
	free(s->stage_names);
	free(s->stages);
	memset(s, 0, sizeof *s);
}

/* Reads count c from object o (at JSON path `at`): 0 or LOCUS_EPARSE. */
static int count_read(struct locus_flow_status_count *c, json_t *o, const char *path,
		      const char *at, struct locus_error *err)
{
	static const char *const keys[] = {"total",	      "waiting",    "running",	    "done",
					   "failed_attempts", "bytes_read", "bytes_written"};
	uint64_t *v[] = {&c->total,	      &c->waiting,    &c->running,	&c->done,
			 &c->failed_attempts, &c->bytes_read, &c->bytes_written};
	if (!json_is_object(o))
		return locus__err(err, LOCUS_EPARSE, path, 0, 0, "%s: expected an object", at);
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		json_t *n = json_object_get(o, keys[k]);
		if (!json_is_integer(n) || json_integer_value(n) < 0)
			return locus__err(err, LOCUS_EPARSE, path, 0, 0,
					  "%s.%s: expected a count (an integer >= 0)", at, keys[k]);
		*v[k] = (uint64_t)json_integer_value(n);
	}
	return 0;
}

static char *str_of(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? strdup(s) : NULL;
}

int locus_flow_status_read(struct locus_flow_status *s, const char *path, struct locus_error *err)
{
	memset(s, 0, sizeof *s);
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);
	if (!doc) {
		if (je.line < 0 || (je.position == 0 && errno))
			return locus__err(err, LOCUS_EIO, path, 0, 0, "cannot read it: %s",
					  je.text);
		return locus__err(err, LOCUS_EPARSE, path, je.line, je.column,
				  "expected a locus-flow-status document: %s", je.text);
	}
	int rc = 0;
	json_t *fmt = json_object_get(doc, "format"), *ver = json_object_get(doc, "version");
	if (!json_is_object(doc) || !json_is_string(fmt) ||
	    strcmp(json_string_value(fmt), STATUS_FORMAT)) {
		rc = locus__err(err, LOCUS_EPARSE, path, 0, 0,
				"format: expected \"%s\" (this is not a run's status file)",
				STATUS_FORMAT);
		goto out;
	}
	if (!json_is_integer(ver) || json_integer_value(ver) != STATUS_VERSION) {
		rc = locus__err(err, LOCUS_EPARSE, path, 0, 0, "version: expected %d",
				STATUS_VERSION);
		goto out;
	}
	s->workflow = str_of(doc, "workflow");
	s->state = str_of(doc, "state");
	s->failure = str_of(doc, "failure");
	s->host = str_of(doc, "host");
	s->pid = (long)json_integer_value(json_object_get(doc, "pid"));
	s->started = json_number_value(json_object_get(doc, "started"));
	s->updated = json_number_value(json_object_get(doc, "updated"));
	if (!s->workflow || !s->state || !s->host) {
		rc = locus__err(err, LOCUS_EPARSE, path, 0, 0,
				"expected the strings workflow, state and host");
		goto out;
	}
	if ((rc = count_read(&s->tasks, json_object_get(doc, "tasks"), path, "tasks", err)))
		goto out;
	json_t *st = json_object_get(doc, "stages");
	if (!json_is_array(st)) {
		rc = locus__err(err, LOCUS_EPARSE, path, 0, 0, "stages: expected an array");
		goto out;
	}
	size_t n = json_array_size(st);
	s->stage_names = calloc(n ? n : 1, sizeof *s->stage_names);
	s->stages = calloc(n ? n : 1, sizeof *s->stages);
	if (!s->stage_names || !s->stages) {
		rc = locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		char at[64];
		snprintf(at, sizeof at, "stages[%zu]", k);
		json_t *e = json_array_get(st, k);
		if ((rc = count_read(&s->stages[k], e, path, at, err)))
			goto out;
		if (!(s->stage_names[k] = str_of(e, "name"))) {
			rc = locus__err(err, LOCUS_EPARSE, path, 0, 0, "%s.name: expected a string",
					at);
			goto out;
		}
		s->n_stages++;
	}
out:
	json_decref(doc);
	if (rc)
		locus_flow_status_fini(s);
	return rc;
}
