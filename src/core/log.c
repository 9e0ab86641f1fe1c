/* Debug logging with per-part flags (LOCUS_DEBUG). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/log.h"

static const struct {
	const char *name;
	unsigned flag;
} parts[] = {
    {"core", LOCUS_LOG_CORE},
    {"locality", LOCUS_LOG_LOCALITY},
    {"place", LOCUS_LOG_PLACE},
    {"sched", LOCUS_LOG_SCHED},
    {"sim", LOCUS_LOG_SIM},
    {"mpi", LOCUS_LOG_MPI},
    {"divisible", LOCUS_LOG_DIVISIBLE},
    {"dag", LOCUS_LOG_DAG},
    {"flow", LOCUS_LOG_FLOW},
    {"report", LOCUS_LOG_REPORT},
    {"all", LOCUS_LOG_ALL},
};

static unsigned enabled;
static int initialised;
static locus_log_sink_fn sink;
static void *sink_user;

unsigned locus_log_parse(const char *list)
{
	unsigned flags = 0;
	if (!list)
		return 0;
	const char *p = list;
	while (*p) {
		size_t n = strcspn(p, ", ");
		for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
			if (strlen(parts[i].name) == n && strncmp(parts[i].name, p, n) == 0)
				flags |= parts[i].flag;
		p += n;
		p += strspn(p, ", ");
	}
	return flags;
}

void locus_log_set_parts(unsigned p)
{
	enabled = p;
	initialised = 1;
}

unsigned locus_log_parts(void)
{
	if (!initialised) {
		enabled = locus_log_parse(getenv("LOCUS_DEBUG"));
		initialised = 1;
	}
	return enabled;
}

void locus_log_set_sink(locus_log_sink_fn fn, void *user)
{
	sink = fn;
	sink_user = user;
}

static const char *part_name(unsigned part)
{
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		if (parts[i].flag == part)
			return parts[i].name;
	return "locus";
}

void locus_log(unsigned part, const char *fmt, ...)
{
	if (!(locus_log_parts() & part))
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (sink)
		sink(part, msg, sink_user);
	else
		fprintf(stderr, "locus[%s]: %s\n", part_name(part), msg);
}
