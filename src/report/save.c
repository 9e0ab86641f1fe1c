/*
 * Saving a report: the writer runs into memory, and only a complete
 * report is written, to a temporary file next to `path` that is then
 * renamed over it. A failure leaves `path` as it was and no temporary file.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/internal.h"
#include "locus/report.h"

int locus_report_save(const struct locus_result *r,
		      int (*writer)(const struct locus_result *, FILE *), const char *path,
		      struct locus_error *err)
{
	char *data = NULL;
	size_t len = 0;

	if (!r || !writer || !path || !*path)
		return locus__err(err, LOCUS_EINVAL, path, 0, 0,
				  "a result, a writer and a path are needed");
	FILE *fp = open_memstream(&data, &len);
	if (!fp)
		return locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
	int rc = writer(r, fp);
	if (fclose(fp) != 0 && !rc)
		rc = LOCUS_ENOMEM;
	if (rc) {
		free(data);
		return locus__err(err, rc, path, 0, 0, "cannot write the report: %s",
				  locus_strerror(rc));
	}
	rc = locus__write_atomic(path, data, len, err);
	free(data);
	return rc;
}
