/* Error codes, messages and details. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "locus/error.h"

const char *locus_strerror(int code)
{
	switch (code) {
	case LOCUS_OK:
		return "success";
	case LOCUS_EINVAL:
		return "invalid argument";
	case LOCUS_ENOMEM:
		return "out of memory";
	case LOCUS_EIO:
		return "input/output error";
	case LOCUS_EPARSE:
		return "malformed input";
	case LOCUS_ENOENT:
		return "not found";
	case LOCUS_EEXIST:
		return "already exists";
	case LOCUS_ERANGE:
		return "value out of range";
	case LOCUS_ENOTSUP:
		return "not supported";
	case LOCUS_EINCOMPLETE:
		return "data incomplete";
	default:
		return "unknown error";
	}
}

void locus_error_clear(struct locus_error *err)
{
	if (err)
		memset(err, 0, sizeof *err);
}

char *locus_error_format(const struct locus_error *err, char *buf, size_t size)
{
	if (!size)
		return buf;
	buf[0] = 0;
	if (!err)
		return buf;
	size_t n = 0;
#define APPEND(...)                                                                                \
	do {                                                                                       \
		if (n < size) {                                                                    \
			int w = snprintf(buf + n, size - n, __VA_ARGS__);                          \
			if (w > 0)                                                                 \
				n += (size_t)w;                                                    \
		}                                                                                  \
	} while (0)
	if (err->file[0]) {
		APPEND("%s:", err->file);
		if (err->line > 0) {
			APPEND("%ld:", err->line);
			if (err->column > 0)
				APPEND("%ld:", err->column);
		}
		APPEND(" ");
	}
	if (err->message[0])
		APPEND("%s", err->message);
	else
		APPEND("%s", locus_strerror(err->code));
#undef APPEND
	return buf;
}

int locus__err(struct locus_error *err, int code, const char *file, long line, long col,
	       const char *fmt, ...)
{
	if (!err)
		return code;
	err->code = code;
	snprintf(err->file, sizeof err->file, "%s", file ? file : "");
	err->line = line;
	err->column = col;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
	return code;
}

int locus__check_version(int version, int known, const char *what, struct locus_error *err)
{
	if (version >= 0 && version <= known)
		return 0;
	return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
			  "struct %s of version %d: this library knows versions 1 to %d (a "
			  "program built against another Locus's headers?)",
			  what, version, known);
}
