/*
 * The Makeflow reader (locus_flow_read_makeflow, include/locus/flow.h):
 * the cctools manual's capitol example, a Montage-like and a BLAST-like
 * workflow checked task by task, variables of every form, .SIZE, sizes
 * read from a directory, LOCUS_RUNTIME, remote names, quoted names,
 * comments, CRLF, the stage rule, errors with their line, column and
 * message, the workflow a resumed run has left, and a 100,000-rule
 * workflow timed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "locus/locus.h"
#include "test.h"
#include "test_util.h"

/* ---- helpers ---------------------------------------------------------------- */

static int read_mf(struct locus_graph **g, const char *text,
		   const struct locus_makeflow_options *opt, struct locus_error *err)
{
	int rc = locus_flow_read_makeflow(g, text, strlen(text), "t.mf", opt, err);
	if (rc && err)
		fprintf(stderr, "  %s:%ld:%ld: %s\n", err->file, err->line, err->column,
			err->message);
	return rc;
}

/* The names of task t's inputs (or outputs), in the graph's order, each
 * with "->as" when it has another name where the task runs, joined by
 * '|'. */
static const char *files(const struct locus_graph *g, long t, int outputs)
{
	static char bufs[4][2048];
	static int next;
	char *b = bufs[next++ % 4];
	b[0] = 0;
	if (t < 0)
		return "(no such task)";
	const struct locus_task *tk = &g->tasks[t];
	uint32_t at = outputs ? tk->out_at : tk->in_at, n = outputs ? tk->n_out : tk->n_in;
	const uint32_t *ids = outputs ? g->outputs : g->inputs;
	const char **as = outputs ? g->output_as : g->input_as;
	for (uint32_t k = 0; k < n; k++) {
		size_t len = strlen(b);
		snprintf(b + len, 2048 - len, "%s%s%s%s", k ? "|" : "",
			 g->objects[ids[at + k]].name, as && as[at + k] ? "->" : "",
			 as && as[at + k] ? as[at + k] : "");
	}
	return b;
}

static const char *stage(const struct locus_graph *g, long t)
{
	if (t < 0 || !g->task_stage || g->task_stage[t] == LOCUS_NONE)
		return "(none)";
	return g->stage_names[g->task_stage[t]];
}

static const char *line(const struct locus_graph *g, long t)
{
	return t < 0 || !g->commands || !g->commands[t].line ? "(none)" : g->commands[t].line;
}

/* The command's environment joined by '|'. */
static const char *env(const struct locus_graph *g, long t)
{
	static char buf[2048];
	buf[0] = 0;
	if (t < 0 || !g->commands)
		return "(none)";
	for (uint32_t k = 0; k < g->commands[t].n_env; k++) {
		size_t len = strlen(buf);
		snprintf(buf + len, sizeof buf - len, "%s%s", k ? "|" : "", g->commands[t].env[k]);
	}
	return buf;
}

static uint64_t bytes_of(const struct locus_graph *g, const char *name)
{
	long o = locus_graph_find_object(g, name);
	return o < 0 ? UINT64_MAX : g->objects[o].bytes;
}

/* Whether the graph has an edge from -> to. */
static int edge(const struct locus_graph *g, long from, long to)
{
	if (from < 0 || to < 0)
		return 0;
	for (uint32_t e = g->pred_at[to]; e < g->pred_at[to + 1]; e++)
		if (g->preds[e].task == (uint32_t)from)
			return 1;
	return 0;
}

/* ---- the manual's example ------------------------------------------------------ */

/* The cctools manual's first example, as printed (4-space indents,
 * lines of spaces between rules). */
static const char capitol[] =
    "CURL=/usr/bin/curl\n"
    "CONVERT=/usr/bin/convert\n"
    "URL=\"https://ccl.cse.nd.edu/images/capitol.jpg\"\n"
    "\n"
    "capitol.anim.gif: capitol.jpg capitol.90.jpg capitol.180.jpg capitol.270.jpg "
    "capitol.360.jpg\n"
    "    LOCAL $(CONVERT) -delay 10 -loop 0 capitol.jpg capitol.90.jpg capitol.180.jpg "
    "capitol.270.jpg capitol.360.jpg capitol.270.jpg capitol.180.jpg capitol.90.jpg "
    "capitol.anim.gif\n"
    "    \n"
    "capitol.90.jpg: capitol.jpg\n"
    "    $(CONVERT) -swirl 90 capitol.jpg capitol.90.jpg\n"
    "    \n"
    "capitol.180.jpg: capitol.jpg\n"
    "    $(CONVERT) -swirl 180 capitol.jpg capitol.180.jpg\n"
    "    \n"
    "capitol.270.jpg: capitol.jpg\n"
    "    $(CONVERT) -swirl 270 capitol.jpg capitol.270.jpg\n"
    "    \n"
    "capitol.360.jpg: capitol.jpg\n"
    "    $(CONVERT) -swirl 360 capitol.jpg capitol.360.jpg\n"
    "    \n"
    "capitol.jpg:\n"
    "    LOCAL $(CURL) -o capitol.jpg $(URL)\n";

TEST(capitol)
{
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_mf(&g, capitol, NULL, &err), 0);
	CHECK_EQ_STR(g->name, "t.mf");
	CHECK_EQ_INT(g->n_tasks, 6);
	CHECK_EQ_INT(g->n_objects, 6);
	CHECK_EQ_INT(g->n_edges, 9);
	CHECK_EQ_INT(g->n_stages, 2);
	static const char *names[] = {"capitol.anim.gif", "capitol.90.jpg",  "capitol.180.jpg",
				      "capitol.270.jpg",  "capitol.360.jpg", "capitol.jpg"};
	for (long t = 0; t < 6; t++) {
		CHECK_EQ_STR(g->tasks[t].name, names[t]);
		CHECK_EQ_INT(locus_graph_find_task(g, names[t]), t);
		CHECK(g->tasks[t].work == 0);
		CHECK_EQ_INT(g->commands[t].n_env, 0);
		CHECK_EQ_INT(g->commands[t].flags, t == 0 || t == 5 ? LOCUS_COMMAND_LOCAL : 0);
		CHECK_EQ_STR(stage(g, t), t == 5 ? "curl" : "convert");
		CHECK_EQ_STR(files(g, t, 1), names[t]);
	}
	CHECK_EQ_STR(files(g, 0, 0),
		     "capitol.jpg|capitol.90.jpg|capitol.180.jpg|capitol.270.jpg|capitol.360.jpg");
	for (long t = 1; t < 5; t++) {
		CHECK_EQ_STR(files(g, t, 0), "capitol.jpg");
		CHECK(edge(g, 5, t) && edge(g, t, 0));
	}
	CHECK_EQ_STR(files(g, 5, 0), "");
	CHECK(edge(g, 5, 0));
	CHECK_EQ_STR(line(g, 0), "/usr/bin/convert -delay 10 -loop 0 capitol.jpg capitol.90.jpg "
				 "capitol.180.jpg capitol.270.jpg capitol.360.jpg capitol.270.jpg "
				 "capitol.180.jpg capitol.90.jpg capitol.anim.gif");
	CHECK_EQ_STR(line(g, 1), "/usr/bin/convert -swirl 90 capitol.jpg capitol.90.jpg");
	CHECK_EQ_STR(line(g, 4), "/usr/bin/convert -swirl 360 capitol.jpg capitol.360.jpg");
	/* Makeflow keeps the quotes of a value. */
	CHECK_EQ_STR(line(g, 5), "/usr/bin/curl -o capitol.jpg "
				 "\"https://ccl.cse.nd.edu/images/capitol.jpg\"");
	CHECK_EQ_INT(g->topo[0], 5);
	CHECK_EQ_INT(g->topo[5], 0);
	CHECK(g->input_as == NULL && g->output_as == NULL);
	locus_graph_destroy(g);
}

/* ---- a Montage-like and a BLAST-like workflow -------------------------------------- */

static const char montage[] =
    "# A Montage-like mosaic of two images\n"
    "MBIN=/opt/montage/bin\n"
    ".SIZE region.hdr 1K\n"
    ".SIZE raw1.fits 4M\n"
    ".SIZE raw2.fits 4M\n"
    "\n"
    "p1.fits p1_area.fits: raw1.fits region.hdr $(MBIN)/mProjectPP\n"
    "\t$(MBIN)/mProjectPP raw1.fits p1.fits region.hdr\n"
    "p2.fits p2_area.fits: raw2.fits region.hdr $(MBIN)/mProjectPP\n"
    "\t$(MBIN)/mProjectPP raw2.fits p2.fits region.hdr\n"
    "diff.1.2.fits fit.1.2.txt: p1.fits p1_area.fits p2.fits p2_area.fits region.hdr\n"
    "\t$(MBIN)/mDiffFit p1.fits p2.fits diff.1.2.fits region.hdr > fit.1.2.txt\n"
    "fits.tbl: fit.1.2.txt\n"
    "\t$(MBIN)/mConcatFit statfile.tbl fits.tbl .\n"
    "corrections.tbl: fits.tbl images.tbl\n"
    "\t$(MBIN)/mBgModel images.tbl fits.tbl corrections.tbl\n"
    "c1.fits c1_area.fits: p1.fits p1_area.fits corrections.tbl\n"
    "\t$(MBIN)/mBackground -t p1.fits c1.fits images.tbl corrections.tbl\n"
    "c2.fits c2_area.fits: p2.fits p2_area.fits corrections.tbl\n"
    "\t$(MBIN)/mBackground -t p2.fits c2.fits images.tbl corrections.tbl\n"
    "cimages.tbl: c1.fits c2.fits\n"
    "\t$(MBIN)/mImgtbl . -t cimages.tbl\n"
    "mosaic.fits mosaic_area.fits: c1.fits c1_area.fits c2.fits c2_area.fits cimages.tbl "
    "region.hdr\n"
    "\t$(MBIN)/mAdd -e cimages.tbl region.hdr mosaic.fits\n"
    "mosaic.jpg: mosaic.fits\n"
    "\tLOCAL $(MBIN)/mJPEG -ct 1 -gray mosaic.fits -1s max gaussian-log -out mosaic.jpg\n";

TEST(montage)
{
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_mf(&g, montage, NULL, &err), 0);
	static const struct {
		const char *task, *in, *out, *stage;
	} want[] = {
	    {"p1.fits", "raw1.fits|region.hdr|/opt/montage/bin/mProjectPP", "p1.fits|p1_area.fits",
	     "mProjectPP"},
	    {"p2.fits", "region.hdr|/opt/montage/bin/mProjectPP|raw2.fits", "p2.fits|p2_area.fits",
	     "mProjectPP"},
	    {"diff.1.2.fits", "p1.fits|p1_area.fits|region.hdr|p2.fits|p2_area.fits",
	     "diff.1.2.fits|fit.1.2.txt", "mDiffFit"},
	    {"fits.tbl", "fit.1.2.txt", "fits.tbl", "mConcatFit"},
	    {"corrections.tbl", "fits.tbl|images.tbl", "corrections.tbl", "mBgModel"},
	    {"c1.fits", "p1.fits|p1_area.fits|corrections.tbl", "c1.fits|c1_area.fits",
	     "mBackground"},
	    {"c2.fits", "p2.fits|p2_area.fits|corrections.tbl", "c2.fits|c2_area.fits",
	     "mBackground"},
	    {"cimages.tbl", "c1.fits|c2.fits", "cimages.tbl", "mImgtbl"},
	    {"mosaic.fits", "region.hdr|c1.fits|c1_area.fits|c2.fits|c2_area.fits|cimages.tbl",
	     "mosaic.fits|mosaic_area.fits", "mAdd"},
	    {"mosaic.jpg", "mosaic.fits", "mosaic.jpg", "mJPEG"},
	};
	CHECK_EQ_INT(g->n_tasks, LOCUS__ARRAY_LEN(want));
	CHECK_EQ_INT(g->n_stages, 8);
	for (size_t k = 0; k < LOCUS__ARRAY_LEN(want); k++) {
		long t = locus_graph_find_task(g, want[k].task);
		CHECK_EQ_INT(t, (long)k);
		CHECK_EQ_STR(files(g, t, 0), want[k].in);
		CHECK_EQ_STR(files(g, t, 1), want[k].out);
		CHECK_EQ_STR(stage(g, t), want[k].stage);
		CHECK_EQ_INT(g->commands[t].flags, k == 9 ? LOCUS_COMMAND_LOCAL : 0);
	}
	/* Stored inputs: the raw images, the header, the program, images.tbl. */
	static const char *stored[] = {"raw1.fits", "raw2.fits", "region.hdr",
				       "/opt/montage/bin/mProjectPP", "images.tbl"};
	for (size_t k = 0; k < LOCUS__ARRAY_LEN(stored); k++) {
		long o = locus_graph_find_object(g, stored[k]);
		CHECK(o >= 0);
		CHECK_EQ_INT(g->objects[o].producer, LOCUS_NONE);
	}
	CHECK_EQ_INT(bytes_of(g, "region.hdr"), 1024);
	CHECK_EQ_INT(bytes_of(g, "raw1.fits"), 4 << 20);
	CHECK_EQ_INT(g->tasks[0].bytes, (4 << 20) + 1024);
	CHECK_EQ_STR(line(g, 2), "/opt/montage/bin/mDiffFit p1.fits p2.fits diff.1.2.fits "
				 "region.hdr > fit.1.2.txt");
	CHECK_EQ_STR(line(g, 9), "/opt/montage/bin/mJPEG -ct 1 -gray mosaic.fits -1s max "
				 "gaussian-log -out mosaic.jpg");
	CHECK_EQ_INT(g->n_levels, 8);
	locus_graph_destroy(g);
}

static const char blast[] = "# A BLAST-like workflow: split the query, search each part, merge.\n"
			    "BLAST=/usr/bin/blastall\n"
			    "DB=nr\n"
			    "export BLASTDB=/data/blastdb\n"
			    ".SIZE query.fa 120K\n"
			    ".SIZE nr.pal 2G\n"
			    "LOCUS_RUNTIME=60\n"
			    "\n"
			    "query.0.fa query.1.fa query.2.fa: query.fa split_fasta.py\n"
			    "@LOCUS_RUNTIME=5\n"
			    "\tpython3 split_fasta.py -n 3 query.fa query\n"
			    "\n"
			    "out.0.txt: query.0.fa $(DB).pal\n"
			    "LOCUS_RUNTIME=300\n"
			    "\t$(BLAST) -p blastp -d $(DB) -i query.0.fa -o out.0.txt\n"
			    "out.1.txt: query.1.fa $(DB).pal\n"
			    "\t$(BLAST) -p blastp -d $(DB) -i query.1.fa -o out.1.txt\n"
			    "out.2.txt: query.2.fa $(DB).pal\n"
			    "\t$(BLAST) -p blastp -d $(DB) -i query.2.fa -o out.2.txt\n"
			    "\n"
			    "report.txt: out.0.txt out.1.txt out.2.txt merge.sh\n"
			    "\tLOCAL bash merge.sh out.0.txt out.1.txt out.2.txt > report.txt\n";

static void check_blast(const struct locus_graph *g)
{
	static const struct {
		const char *task, *in, *out, *stage, *line;
		double work;
	} want[] = {
	    {"query.0.fa", "query.fa|split_fasta.py", "query.0.fa|query.1.fa|query.2.fa",
	     "split_fasta.py", "python3 split_fasta.py -n 3 query.fa query", 5},
	    {"out.0.txt", "query.0.fa|nr.pal", "out.0.txt", "blastall",
	     "/usr/bin/blastall -p blastp -d nr -i query.0.fa -o out.0.txt", 300},
	    {"out.1.txt", "query.1.fa|nr.pal", "out.1.txt", "blastall",
	     "/usr/bin/blastall -p blastp -d nr -i query.1.fa -o out.1.txt", 60},
	    {"out.2.txt", "query.2.fa|nr.pal", "out.2.txt", "blastall",
	     "/usr/bin/blastall -p blastp -d nr -i query.2.fa -o out.2.txt", 60},
	    {"report.txt", "out.0.txt|out.1.txt|out.2.txt|merge.sh", "report.txt", "merge.sh",
	     "bash merge.sh out.0.txt out.1.txt out.2.txt > report.txt", 60},
	};
	CHECK_EQ_INT(g->n_tasks, 5);
	CHECK_EQ_INT(g->n_stages, 3);
	for (size_t k = 0; k < LOCUS__ARRAY_LEN(want); k++) {
		long t = locus_graph_find_task(g, want[k].task);
		CHECK_EQ_INT(t, (long)k);
		CHECK_EQ_STR(files(g, t, 0), want[k].in);
		CHECK_EQ_STR(files(g, t, 1), want[k].out);
		CHECK_EQ_STR(stage(g, t), want[k].stage);
		CHECK_EQ_STR(line(g, t), want[k].line);
		CHECK_EQ_STR(env(g, t), "BLASTDB=/data/blastdb");
		CHECK(g->tasks[t].work == want[k].work);
		CHECK_EQ_INT(g->commands[t].flags, k == 4 ? LOCUS_COMMAND_LOCAL : 0);
	}
	CHECK_EQ_INT(bytes_of(g, "query.fa"), 120 << 10);
	CHECK_EQ_INT(bytes_of(g, "nr.pal"), (uint64_t)2 << 30);
	CHECK_EQ_INT(bytes_of(g, "split_fasta.py"), 0);
	CHECK(edge(g, 0, 1) && edge(g, 0, 2) && edge(g, 0, 3));
	CHECK(edge(g, 1, 4) && edge(g, 2, 4) && edge(g, 3, 4));
	CHECK_EQ_INT(g->n_edges, 6);
}

TEST(blast)
{
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_mf(&g, blast, NULL, &err), 0);
	check_blast(g);
	locus_graph_destroy(g);
}

TEST(crlf)
{
	/* The same workflow with CRLF line ends, and without the last one. */
	size_t n = strlen(blast);
	char *text = malloc(2 * n + 1), *p = text;
	CHECK(text != NULL);
	for (size_t i = 0; i < n; i++) {
		if (blast[i] == '\n')
			*p++ = '\r';
		*p++ = blast[i];
	}
	*p = 0;
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	int rc = read_mf(&g, text, NULL, &err);
	if (!rc) {
		check_blast(g);
		locus_graph_destroy(g);
	}
	p[-2] = 0;
	if (!rc)
		rc = read_mf(&g, text, NULL, &err);
	free(text);
	CHECK_EQ_INT(rc, 0);
	check_blast(g);
	locus_graph_destroy(g);
}

/* ---- variables ---------------------------------------------------------------------- */

TEST(variables)
{
	setenv("LOCUS_MF_TEST_ENV", "/env", 1);
	unsetenv("LOCUS_MF_TEST_UNSET");
	const char *text = "A = one\n"
			   "A += two\n"
			   "B=$(A) three\n"
			   "C=${B}\n"
			   "D=$A-x\n"
			   "E=$(LOCUS_MF_TEST_ENV)/bin\n"
			   "NEW+=first\n"
			   "Q=\\$(A)\n"
			   "M=LOCAL\n"
			   "X=global\n"
			   "export X\n"
			   "export Y=exported\n"
			   "export LOCUS_MF_TEST_ENV LOCUS_MF_TEST_UNSET\n"
			   "r1:\n"
			   "\techo $(B) ${C} $D $(E) $(X) $(NEW)\n"
			   "r2:\n"
			   "X=local1\n"
			   "\techo $(X)\n"
			   "r3:\n"
			   "@X=local2\n"
			   "@X+=more\n"
			   "@A+=local\n"
			   "\techo $(X) $(A)\n"
			   "r4:\n"
			   "\techo $(X) \"$(Q)\" '$(Q)'\n"
			   "A=changed\n"
			   "r5:\n"
			   "\t$(M) echo $(B) $(A) $(Q)\n";
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_mf(&g, text, NULL, &err), 0);
	CHECK_EQ_INT(g->n_tasks, 5);
	/* Global, +=, $(), ${}, bare $NAME (ended by '-'), the environment. */
	CHECK_EQ_STR(line(g, 0),
		     "echo one two three one two three one two-x /env/bin global first");
	/* Exported: with a value, without one (the environment's), none at all
	 * (left out). */
	CHECK_EQ_STR(env(g, 0), "X=global|Y=exported|LOCUS_MF_TEST_ENV=/env");
	/* Rule-local without @ and with it, += on a local and on a global;
	 * the export takes the rule's value. */
	CHECK_EQ_STR(line(g, 1), "echo local1");
	CHECK_EQ_STR(env(g, 1), "X=local1|Y=exported|LOCUS_MF_TEST_ENV=/env");
	CHECK_EQ_STR(line(g, 2), "echo local2 more one two local");
	CHECK_EQ_STR(env(g, 2), "X=local2 more|Y=exported|LOCUS_MF_TEST_ENV=/env");
	/* Locals end with their rule; in double quotes a value is not read
	 * again, in single quotes nothing is substituted. */
	CHECK_EQ_STR(line(g, 3), "echo global \"$(A)\" '$(Q)'");
	/* Values are expanded when defined (B keeps "one two"); a value read
	 * again substitutes what it holds ($(Q) is "$(A)"); a modifier may
	 * come from a variable. */
	CHECK_EQ_STR(line(g, 4), "echo one two three changed changed");
	CHECK_EQ_INT(g->commands[4].flags, LOCUS_COMMAND_LOCAL);
	CHECK_EQ_INT(g->commands[3].flags, 0);
	locus_graph_destroy(g);
	unsetenv("LOCUS_MF_TEST_ENV");
}

TEST(variables_in_file_lists)
{
	const char *text = "INPUTS=a.txt b.txt\n"
			   "N=3\n"
			   "PAIR='x y.txt' z.txt\n"
			   "out.$(N): $(INPUTS) \"$(INPUTS)\" pre$(N)post\n"
			   "\tcat $(INPUTS) > out.$(N)\n"
			   "$(PAIR):\n"
			   "\ttouch 'x y.txt' z.txt\n";
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_mf(&g, text, NULL, &err), 0);
	CHECK_EQ_STR(g->tasks[0].name, "out.3");
	/* A value read again as a file list splits at blanks unless quoted. */
	CHECK_EQ_STR(files(g, 0, 0), "a.txt|b.txt|a.txt b.txt|pre3post");
	CHECK_EQ_STR(files(g, 1, 1), "x y.txt|z.txt");
	CHECK_EQ_STR(line(g, 0), "cat a.txt b.txt > out.3");
	locus_graph_destroy(g);
}

/* ---- commands -------------------------------------------------------------------------- */

TEST(command_lines)
{
	/* Blanks collapse outside quotes and stay inside them; a backslash
	 * escapes the next character (Makeflow drops the backslash; \n in
	 * double quotes is a newline); a line continues after a final
	 * backslash; '#' outside quotes starts a comment. */
	const char *text = "a:\n"
			   "\techo   one\t two  \"  three  four \" 'five  six'   # a comment\n"
			   "b:\n"
			   "\tawk '{print $1}' in \\\n"
			   "\t\t> b \\$HOME \"#x\\ty\" '#z'\n"
			   "c:\n"
			   "\t  LOCAL    LOCAL sort -k1   < in >c\n";
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_mf(&g, text, NULL, &err), 0);
	/* Makeflow also drops blanks just after an opening double quote. */
	CHECK_EQ_STR(line(g, 0), "echo one two \"three  four \" 'five  six'");
	CHECK_EQ_STR(line(g, 1), "awk '{print $1}' in > b $HOME \"#x\ty\" '#z'");
	CHECK_EQ_STR(stage(g, 1), "awk");
	CHECK_EQ_STR(line(g, 2), "sort -k1 < in >c");
	CHECK_EQ_INT(g->commands[2].flags, LOCUS_COMMAND_LOCAL);
	locus_graph_destroy(g);
}

TEST(stages)
{
	static const struct {
		const char *command, *stage;
	} cases[] = {
	    {"./bin/mysim.exe -c calib.data -o output.txt", "mysim.exe"},
	    {"FOO=1 BAR='x y' ./bin/mysim.exe", "mysim.exe"},
	    {"python3 -u scripts/run.py --n 3", "run.py"},
	    {"python scripts/run.py", "run.py"},
	    {"python -m pkg.tool x", "pkg.tool"},
	    {"python -c 'print(1)'", "python"},
	    {"bash -c 'echo hi'", "bash"},
	    {"bash -e ./steps.sh", "steps.sh"},
	    {"sh run.sh a b", "run.sh"},
	    {"dash < script.sh", "dash"},
	    {"perl -ne 'print' x", "perl"},
	    {"perl tools/fix.pl x", "fix.pl"},
	    {"Rscript plot.R", "plot.R"},
	    {"ruby script.rb", "script.rb"},
	    {"node --eval 'x'", "node"},
	    {"node app/main.js", "main.js"},
	    {"/usr/bin/env python3 x.py", "env"},
	    {"< in.txt sort -k1 > out", "sort"},
	    {"2>err.log ./a.out", "a.out"},
	    {"'/opt/my tools/prog' x", "prog"},
	    {"! diff a b", "diff"},
	    {"cd dir && make", "cd"},
	};
	for (size_t k = 0; k < LOCUS__ARRAY_LEN(cases); k++) {
		char text[256];
		snprintf(text, sizeof text, "out:\n\t%s\n", cases[k].command);
		struct locus_graph *g = NULL;
		struct locus_error err = {0};
		int rc = read_mf(&g, text, NULL, &err);
		if (rc || strcmp(stage(g, 0), cases[k].stage))
			fprintf(stderr, "  case %zu: %s\n", k, cases[k].command);
		CHECK_EQ_INT(rc, 0);
		CHECK_EQ_STR(stage(g, 0), cases[k].stage);
		locus_graph_destroy(g);
	}
}

/* ---- files -------------------------------------------------------------------------------- */

TEST(renames_and_quotes)
{
	const char *text = "b: a myprog\n"
			   "\tLOCAL myprog a > b\n"
			   "\n"
			   "c->out: a->in1 b myprog -> prog\n"
			   "\tprog in1 b > out\n"
			   "'my file.txt' \"other file.txt\" a\\ b: 'in put' x->x\n"
			   "\tcp 'in put' 'my file.txt'\n";
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_mf(&g, text, NULL, &err), 0);
	CHECK_EQ_INT(g->n_tasks, 3);
	CHECK_EQ_STR(files(g, 0, 0), "a|myprog");
	CHECK_EQ_STR(files(g, 1, 0), "b|a->in1|myprog->prog");
	CHECK_EQ_STR(files(g, 1, 1), "c->out");
	long c = locus_graph_find_task(g, "c");
	CHECK_EQ_INT(c, 1);
	CHECK(g->input_as && g->output_as);
	CHECK_EQ_STR(g->output_as[g->tasks[c].out_at], "out");
	CHECK(g->input_as[g->tasks[0].in_at] == NULL);
	/* Quoted names keep their blanks; a->a is no rename. */
	CHECK_EQ_STR(g->tasks[2].name, "my file.txt");
	CHECK_EQ_STR(files(g, 2, 1), "my file.txt|other file.txt|a b");
	CHECK_EQ_STR(files(g, 2, 0), "in put|x");
	CHECK(locus_graph_find_object(g, "in put") >= 0);
	CHECK(edge(g, 0, 1));
	locus_graph_destroy(g);
}

TEST(comments)
{
	const char *text = "# a header\n"
			   "X=1 # after a value\n"
			   "   # an indented comment\n"
			   "#\n"
			   "out: in # after a rule\n"
			   "# between the rule and its command\n"
			   "\t# a tab-indented comment is a blank line\n"
			   "Y=2#glued\n"
			   "\techo $(X) $(Y) '#quoted' a#b # after a command\n"
			   "\t\n"
			   "# the end";
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_mf(&g, text, NULL, &err), 0);
	CHECK_EQ_INT(g->n_tasks, 1);
	CHECK_EQ_STR(files(g, 0, 0), "in");
	CHECK_EQ_STR(line(g, 0), "echo 1 2 '#quoted' a");
	locus_graph_destroy(g);
}

TEST(size_directive)
{
	static const struct {
		const char *size;
		uint64_t bytes;
	} cases[] = {
	    {"0", 0},
	    {"51274", 51274},
	    {"10B", 10},
	    {"3K", 3 << 10},
	    {"3k", 3 << 10},
	    {"3KB", 3 << 10},
	    {"3kib", 3 << 10},
	    {"2M", 2 << 20},
	    {"2MB", 2 << 20},
	    {"5G", (uint64_t)5 << 30},
	    {"7T", (uint64_t)7 << 40},
	    {"1P", (uint64_t)1 << 50},
	    {"1pb", (uint64_t)1 << 50},
	};
	for (size_t k = 0; k < LOCUS__ARRAY_LEN(cases); k++) {
		char text[256];
		/* .SIZE after the rule that uses the file works too. */
		snprintf(text, sizeof text, "out: in\n\tcp in out\n.SIZE in %s\n", cases[k].size);
		struct locus_graph *g = NULL;
		struct locus_error err = {0};
		CHECK_EQ_INT(read_mf(&g, text, NULL, &err), 0);
		CHECK_EQ_INT(bytes_of(g, "in"), cases[k].bytes);
		CHECK_EQ_INT(g->tasks[0].bytes, cases[k].bytes);
		locus_graph_destroy(g);
	}
	/* The last .SIZE wins; a file no rule names is no object. */
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_mf(&g, ".SIZE in 1K\n.SIZE nobody 5\nout: in\n\tcp in out\n.SIZE in 2K\n",
			     NULL, &err),
		     0);
	CHECK_EQ_INT(bytes_of(g, "in"), 2048);
	CHECK_EQ_INT(g->n_objects, 2);
	locus_graph_destroy(g);
}

static int write_bytes(const char *dir, const char *name, size_t n)
{
	char path[2100];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *fp = fopen(path, "wb");
	if (!fp)
		return -1;
	for (size_t i = 0; i < n; i++)
		fputc('x', fp);
	return fclose(fp);
}

TEST(sizes_from_directory)
{
	char dir[] = "/tmp/locus-mf-XXXXXX", path[1024], sub[1024];
	CHECK(mkdtemp(dir) != NULL);
	int ok = write_bytes(dir, "in.dat", 100) == 0 && write_bytes(dir, "big", 5) == 0 &&
		 write_bytes(dir, "abs.dat", 7) == 0;
	snprintf(sub, sizeof sub, "%s/tree", dir);
	ok = ok && mkdir(sub, 0755) == 0 && write_bytes(sub, "a", 10) == 0;
	snprintf(path, sizeof path, "%s/tree/sub", dir);
	ok = ok && mkdir(path, 0755) == 0 && write_bytes(path, "b", 20) == 0;
	snprintf(path, sizeof path, "%s/tree/sub/deeper", dir);
	ok = ok && mkdir(path, 0755) == 0 && write_bytes(path, "c", 30) == 0;
	/* Links inside a tree are not followed; a linked name is. */
	snprintf(path, sizeof path, "%s/tree/link", dir);
	ok = ok && symlink("../in.dat", path) == 0;
	snprintf(path, sizeof path, "%s/tree/linkdir", dir);
	ok = ok && symlink("sub", path) == 0;
	snprintf(path, sizeof path, "%s/lnk", dir);
	ok = ok && symlink("in.dat", path) == 0;
	char text[2048];
	snprintf(text, sizeof text,
		 ".SIZE big 1K\n"
		 "out: in.dat tree big missing.dat %s/abs.dat lnk\n"
		 "\trun\n"
		 "last: out\n"
		 "\trun\n",
		 dir);
	struct locus_makeflow_options opt = {.dir = dir};
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	int rc = ok ? read_mf(&g, text, &opt, &err) : -1;
	if (!rc) {
		char abs[1100];
		snprintf(abs, sizeof abs, "%s/abs.dat", dir);
		ok = bytes_of(g, "in.dat") == 100 && bytes_of(g, "tree") == 60 &&
		     bytes_of(g, "big") == 1024 && bytes_of(g, "missing.dat") == 0 &&
		     bytes_of(g, abs) == 7 && bytes_of(g, "lnk") == 100 &&
		     bytes_of(g, "out") == 0 && g->tasks[0].bytes == 100 + 60 + 1024 + 0 + 7 + 100;
		locus_graph_destroy(g);
	}
	/* Without a directory: .SIZE only. */
	if (!rc) {
		rc = read_mf(&g, text, NULL, &err);
		if (!rc) {
			ok = ok && bytes_of(g, "in.dat") == 0 && bytes_of(g, "big") == 1024;
			locus_graph_destroy(g);
		}
	}
	/* A name that cannot be stat'ed: LOCUS_EIO where the file is named. */
	int rc_loop = 0, rc_nodir = 0;
	struct locus_error e2 = {0}, e3 = {0};
	snprintf(path, sizeof path, "%s/loop1", dir);
	ok = ok && symlink("loop2", path) == 0;
	snprintf(path, sizeof path, "%s/loop2", dir);
	ok = ok && symlink("loop1", path) == 0;
	g = (void *)&g;
	rc_loop = locus_flow_read_makeflow(&g, "o: a loop1\n\tx\n", 14, "t.mf", &opt, &e2);
	struct locus_graph *g2 = (void *)&g2;
	struct locus_makeflow_options nodir = {.dir = "/nonexistent/locus-mf"};
	rc_nodir = locus_flow_read_makeflow(&g2, "o: a\n\tx\n", 8, "t.mf", &nodir, &e3);
	locus__rmtree(dir);
	CHECK_EQ_INT(rc, 0);
	CHECK(ok);
	CHECK_EQ_INT(rc_loop, LOCUS_EIO);
	CHECK(g == NULL);
	CHECK_EQ_INT(e2.code, LOCUS_EIO);
	CHECK_EQ_INT(e2.line, 1);
	CHECK_EQ_INT(e2.column, 6);
	CHECK(strstr(e2.message, "\"loop1\"") && strstr(e2.message, "evels of symbolic links"));
	CHECK_EQ_INT(rc_nodir, LOCUS_EIO);
	CHECK(g2 == NULL);
	CHECK(strstr(e3.message, "/nonexistent/locus-mf") != NULL);
}

/* ---- work --------------------------------------------------------------------------- */

TEST(runtime)
{
	const char *text = "LOCUS_RUNTIME=2.5\n"
			   "a:\n"
			   "\tx\n"
			   "b:\n"
			   "LOCUS_RUNTIME=7\n"
			   "\tx\n"
			   "c:\n"
			   "@LOCUS_RUNTIME=\"1e2\"\n"
			   "\tx\n"
			   "LOCUS_RUNTIME = 0\n"
			   "d:\n"
			   "\tx\n";
	struct locus_makeflow_options opt = {.runtime = 9};
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_mf(&g, text, &opt, &err), 0);
	CHECK(g->tasks[0].work == 2.5);
	CHECK(g->tasks[1].work == 7);
	CHECK(g->tasks[2].work == 100);
	CHECK(g->tasks[3].work == 0);
	locus_graph_destroy(g);
	/* No LOCUS_RUNTIME: opt->runtime, else 0; the environment's is not
	 * read. */
	setenv("LOCUS_RUNTIME", "55", 1);
	CHECK_EQ_INT(read_mf(&g, "a:\n\tx\n", &opt, &err), 0);
	CHECK(g->tasks[0].work == 9);
	locus_graph_destroy(g);
	CHECK_EQ_INT(read_mf(&g, "a:\n\tx\n", NULL, &err), 0);
	CHECK(g->tasks[0].work == 0);
	locus_graph_destroy(g);
	unsetenv("LOCUS_RUNTIME");
	/* A bad default is the caller's error. */
	opt.runtime = -1;
	CHECK_EQ_INT(locus_flow_read_makeflow(&g, "a:\n\tx\n", 6, "t.mf", &opt, &err),
		     LOCUS_EINVAL);
	CHECK(g == NULL);
}

/* WALL_TIME (Makeflow's time limit, seconds): a rule's command keeps the
 * value in its scope, the directive's or a variable's; a workflow left
 * to run keeps it. */
TEST(wall_time)
{
	const char *text = ".MAKEFLOW WALL_TIME 30\n"
			   "a:\n"
			   "\tx\n"
			   "b: a\n"
			   ".MAKEFLOW WALL_TIME 1.5\n"
			   "\tx\n"
			   "c: b\n"
			   "\tx\n"
			   "WALL_TIME=0\n"
			   "d: c\n"
			   "\tx\n";
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_mf(&g, text, NULL, &err), 0);
	CHECK(g->commands[0].wall_time == 30);
	CHECK(g->commands[1].wall_time == 1.5);
	CHECK(g->commands[2].wall_time == 30);
	CHECK(g->commands[3].wall_time == 0);
	unsigned char done[4] = {1, 0, 0, 0};
	struct locus_graph *left = NULL;
	CHECK_EQ_INT(locus_flow_remaining(&left, g, done, &err), 0);
	CHECK_EQ_INT(left->n_tasks, 3);
	CHECK(left->commands[0].wall_time == 1.5);
	CHECK(left->commands[1].wall_time == 30);
	CHECK(left->commands[2].wall_time == 0);
	locus_graph_destroy(left);
	locus_graph_destroy(g);
	/* None: no limit. */
	CHECK_EQ_INT(read_mf(&g, "a:\n\tx\n", NULL, &err), 0);
	CHECK(g->commands[0].wall_time == 0);
	locus_graph_destroy(g);
}

/* A run's status file: written atomically (nothing left beside it) and
 * read back as written; a file of another kind or version refused. */
TEST(status_file)
{
	const char *dir = test_tmpdir();
	char path[1024], other[1024];
	snprintf(path, sizeof path, "%s/st", dir);
	char *names[] = {"mProject", "mAdd"};
	struct locus_flow_status_count stages[2] = {{3, 1, 1, 1, 2, 100, 200},
						    {1, 1, 0, 0, 0, 0, 0}};
	struct locus_flow_status s = {.workflow = "wf/Makeflow",
				      .state = "failed",
				      .failure = "task x failed",
				      .host = "h1",
				      .pid = 4242,
				      .started = 1.5e9,
				      .updated = 1.5e9 + 2.25,
				      .tasks = {4, 2, 1, 1, 2, 100, 200},
				      .n_stages = 2,
				      .stage_names = names,
				      .stages = stages};
	struct locus_error err = {0};
	CHECK_EQ_INT(locus_flow_status_write(&s, path, &err), 0);
	struct locus_flow_status r;
	CHECK_EQ_INT(locus_flow_status_read(&r, path, &err), 0);
	CHECK_EQ_STR(r.workflow, "wf/Makeflow");
	CHECK_EQ_STR(r.state, "failed");
	CHECK_EQ_STR(r.failure, "task x failed");
	CHECK_EQ_STR(r.host, "h1");
	CHECK_EQ_INT(r.pid, 4242);
	CHECK(r.started == 1.5e9 && r.updated == 1.5e9 + 2.25);
	CHECK(!memcmp(&r.tasks, &s.tasks, sizeof r.tasks));
	CHECK_EQ_INT(r.n_stages, 2);
	CHECK_EQ_STR(r.stage_names[1], "mAdd");
	CHECK(!memcmp(r.stages, stages, sizeof stages));
	locus_flow_status_fini(&r);
	/* Only the file: the temporary was renamed over it. */
	DIR *d = opendir(dir);
	size_t n = 0;
	for (struct dirent *de; d && (de = readdir(d));)
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	CHECK_EQ_INT(n, 1);
	snprintf(other, sizeof other, "%s/other", dir);
	CHECK_EQ_INT(test_write(other, "{\"format\": \"locus-result\", \"version\": 1}"), 0);
	CHECK_EQ_INT(locus_flow_status_read(&r, other, &err), LOCUS_EPARSE);
	CHECK(strstr(err.message, "format: expected \"locus-flow-status\"") != NULL);
	CHECK_EQ_INT(test_write(other, "{\"format\": \"locus-flow-status\", \"version\": 2}"), 0);
	CHECK_EQ_INT(locus_flow_status_read(&r, other, &err), LOCUS_EPARSE);
	CHECK(strstr(err.message, "version: expected 1") != NULL);
	CHECK_EQ_INT(test_write(other, "{\"format\": \"locus-flow-status\",\n\"version\": 1,"), 0);
	CHECK_EQ_INT(locus_flow_status_read(&r, other, &err), LOCUS_EPARSE);
	CHECK_EQ_INT(err.line, 2);
	snprintf(other, sizeof other, "%s/none", dir);
	CHECK_EQ_INT(locus_flow_status_read(&r, other, &err), LOCUS_EIO);
}

/* ---- errors ------------------------------------------------------------------------------ */

struct bad_case {
	const char *text;
	long line, col;
	const char *message; /* a part of it */
};

static const struct bad_case bad[] = {
    {"out.txt: in.txt\n\nX=1\nnext: out.txt\n\tcat out.txt > next\n", 1, 1,
     "rule at line 1 has no command: expected a line starting with a tab after \"out.txt: "
     "in.txt\", got the rule at line 4"},
    {"# a\nout: in\n", 2, 1,
     "rule at line 2 has no command: expected a line starting with a tab after \"out: in\", "
     "got the end of the file"},
    {"a: b\n\tcmd1\n\n\tcmd2\n", 4, 2,
     "a second command line for the rule at line 1 (its command is on line 2)"},
    {"X=1\n\techo hi\n", 2, 2, "a command line outside a rule: expected a rule"},
    {"a: b\n\tc\nX=1\n  d\n", 4, 3, "a command line outside a rule"},
    {"a: x\n\tc\nb: y\n\tc\na: z\n\tc\n", 5, 1,
     "file \"a\" is made by the rules at lines 1 and 5: expected one rule making each file"},
    {"a: b\n\tc\nb: c\n\tc\nc: a\n\tc\n", 1, 4,
     "a cycle: the rule at line 1 reads \"b\", made by the rule at line 3, which reads \"c\", "
     "made by the rule at line 5, which reads \"a\", made by the rule at line 1"},
    {"x y: x\n\tc\n", 1, 6, "the rule at line 1 reads its own target \"x\""},
    {"a: $(NOPE)\n\tc\n", 1, 4, "undefined variable \"NOPE\": expected it defined before"},
    {"a:\n\techo ${NOPE}\n", 2, 7, "undefined variable \"NOPE\""},
    {"A=x\nB=$(A) $(C)\n", 2, 8, "undefined variable \"C\""},
    {"A=\\$(B)\nB=\\$(A)\na:\n\techo $(A)\n", 4, 7, "substitutions nest more than 32 levels deep"},
    {".SIZE in 10X\n", 1, 10,
     "expected the size of \"in\" in bytes (a whole number, maybe followed by K, M, G, T or "
     "P: powers of 1024), got \"10X\""},
    {".SIZE in 1.5G\n", 1, 10, "got \"1.5G\""},
    {".SIZE in 99999999P\n", 1, 10, "got \"99999999P\""},
    {".SIZE in\n", 1, 9, "expected \".SIZE FILE SIZE\", the line ends after 1 value"},
    {".SIZE in 1 2\n", 1, 12, "got an extra value \"2\""},
    {".MAKEFLOW SIZE 10\n", 1, 11,
     "unknown .MAKEFLOW key \"SIZE\": expected CATEGORY, CORES, DISK, MEMORY, MODE, "
     "WALL_TIME or MPI_PROCESSES"},
    {".MAKEFLOW CORES many\n", 1, 17, "expected a number for .MAKEFLOW CORES, got \"many\""},
    {".MAKEFLOW WALL_TIME 10s\n", 1, 21,
     "expected .MAKEFLOW WALL_TIME in seconds (a decimal number from 0 to"},
    {"WALL_TIME=soon\n", 1, 11, "expected WALL_TIME in seconds (a decimal number from 0 to"},
    {".MAKEFLOW MODE FAST\n", 1, 16, "expected MAX_THROUGHPUT, MIN_WASTE or FIXED"},
    {".UMBRELLA SPEC x.json\n", 1, 1, ".UMBRELLA is not supported"},
    {".INCLUDE x\n", 1, 1, "unknown directive \".INCLUDE\": expected .MAKEFLOW or .SIZE"},
    {"out: in sub.mf\n\tMAKEFLOW sub.mf\n", 2, 2, "nested workflows (MAKEFLOW) are not supported"},
    {"out: in\n\tLOCAL MAKEFLOW sub.mf\n", 2, 8, "nested workflows (MAKEFLOW)"},
    {"\n  {\"rules\": [{\"command\": \"x\"}]}\n", 2, 3,
     "this looks like a JX workflow (JSON), which is not supported"},
    {": in\n\tc\n", 1, 1, "expected at least one target before ':'"},
    {"LOCUS_RUNTIME=5\nLOCUS_RUNTIME+=6\n", 2, 16,
     "expected LOCUS_RUNTIME in seconds (a decimal number from 0 to 1e+09), got \"5 6\""},
    {"a:\n@LOCUS_RUNTIME=-1\n\tc\n", 2, 16, "got \"-1\""},
    {"a:\nLOCUS_RUNTIME=nan\n\tc\n", 2, 15, "got \"nan\""},
    {"a: 'my file\n\tc\n", 1, 4, "unterminated quote: expected a closing ' on the same line"},
    {"a:\n\techo \"it's\"\n", 2, 10,
     "unterminated quote: expected a closing ' on the same line (inside \"...\" too"},
    {"X=\"abc\n", 1, 3, "unterminated quote: expected a closing \""},
    {"a: b\n\tLOCAL\n", 2, 2, "the command is empty after LOCAL"},
    {"a: b\n\tX=1\n", 2, 2,
     "the command runs no program: expected a program after its variable assignments and "
     "redirections, got \"X=1\" (a line that starts with a space or a tab is a command"},
    {"a: b: c\n\tc\n", 1, 5, "a second ':' in a rule"},
    {"a->: b\n\tc\n", 1, 4, "expected the remote name after \"a->\""},
    {"x -> : b\n\tc\n", 1, 5, "expected the remote name after \"x->\""},
    {"a: ->y\n\tc\n", 1, 4, "expected a file name before \"->\""},
    {"run the thing\n", 1, 1,
     "expected a rule \"targets: sources\", a variable \"NAME=value\", export or a directive, "
     "got \"run the thing\""},
    {"X?=1\n", 1, 2, "expected '=' or '+=' after the variable name \"X\", got \"?=\""},
    {"MY-VAR=1\n", 1, 3, "expected '=' after the variable name \"MY\", got \"-VAR=1\""},
    {"=1\n", 1, 1, "expected a variable name before '='"},
    {"export\n", 1, 7, "expected the names of the variables to export after export"},
    {"export A -B\n", 1, 10, "expected a variable name after export, got \"-B\""},
    {"a: b\nexport X\n\tc\n", 2, 1, "export inside a rule"},
    {"a:\n\techo $1\n", 2, 7, "undefined variable \"1\""},
    {"a:\n\techo $$\n", 2, 8,
     "expected a variable name after \"$\", got \"$\" (write \\$ for a $ the shell should see)"},
    {"a: $(X\n\tc\n", 1, 7, "expected ')' to close \"$(X\", got the end of the line"},
    {".SIZE $(F) 10\n", 1, 7, "a directive's values are not substituted"},
    {"", 1, 1,
     "expected at least one rule (\"targets: sources\" and a command line), the file "
     "has none"},
    {"# only comments\nX=1\n", 3, 1, "the file has none"},
    {"a:\n\tc\x01\0d\n", 2, 4, "a NUL byte: expected text"},
    /* A name where the command runs is one file's, a file has one name
     * (issue 28: the task got one of the two, or a run failed late). */
    {"LOCUS_RUNTIME=0x10\na:\n\tc\n", 1, 15,
     "expected LOCUS_RUNTIME in seconds (a decimal number from 0 to 1e+09), got \"0x10\""},
    {"a:\nLOCUS_RUNTIME='1e300'\n\tc\n", 2, 15, "from 0 to 1e+09), got \"'1e300'\""},
    {"o: in1->x in2->x\n\tc\n", 1, 11,
     "\"x\" names both \"in1\" (column 4) and \"in2\" where the rule's command runs: "
     "expected one file for each name (rename one with local->remote)"},
    {"o: in1->in2 in2\n\tc\n", 1, 13, "\"in2\" names both \"in1\" (column 4) and \"in2\""},
    {"a->x b->x: in\n\tc\n", 1, 6, "\"x\" names both \"a\" (column 1) and \"b\""},
    {"x: a->x\n\tc\n", 1, 4, "\"x\" names both \"x\" (column 1) and \"a\""},
    {"o: in -> a in->b\n\tc\n", 1, 12,
     "file \"in\" is named \"a\" (column 4) and \"b\" where the rule's command runs: "
     "expected one name for each file"},
};

TEST(errors)
{
	for (size_t i = 0; i < LOCUS__ARRAY_LEN(bad); i++) {
		const struct bad_case *b = &bad[i];
		struct locus_graph *g = (void *)&g;
		struct locus_error err = {0};
		size_t len = strlen(b->text);
		if (strstr(b->message, "NUL"))
			len += 3; /* the text goes on after its NUL */
		int rc = locus_flow_read_makeflow(&g, b->text, len, "wf.mf", NULL, &err);
		if (rc != LOCUS_EPARSE || err.line != b->line || err.column != b->col ||
		    !strstr(err.message, b->message))
			fprintf(stderr, "  case %zu: rc %d %ld:%ld: %s\n", i, rc, err.line,
				err.column, err.message);
		CHECK_EQ_INT(rc, LOCUS_EPARSE);
		CHECK(g == NULL);
		CHECK_EQ_INT(err.code, LOCUS_EPARSE);
		CHECK_EQ_STR(err.file, "wf.mf");
		CHECK_EQ_INT(err.line, b->line);
		CHECK_EQ_INT(err.column, b->col);
		CHECK(strstr(err.message, b->message) != NULL);
	}
	/* Arguments; no error struct gives the same result. */
	struct locus_graph *g = (void *)&g;
	CHECK_EQ_INT(locus_flow_read_makeflow(NULL, "a:\n\tx\n", 6, "t", NULL, NULL), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_flow_read_makeflow(&g, NULL, 3, "t", NULL, NULL), LOCUS_EINVAL);
	CHECK(g == NULL);
	CHECK_EQ_INT(locus_flow_read_makeflow(&g, "a: b\n", 5, NULL, NULL, NULL), LOCUS_EPARSE);
	CHECK_EQ_INT(locus_flow_read_makeflow(&g, "a:\n\tx\n", 6, NULL, NULL, NULL), 0);
	CHECK_EQ_STR(g->tasks[0].name, "a");
	locus_graph_destroy(g);
}

TEST(accepted)
{
	/* What Makeflow accepts and this reader too: .MAKEFLOW keys (setting
	 * variables), CATEGORY, @ at the top level (a global), a rule
	 * without sources, exported names given twice, a rule's local
	 * .SIZE. */
	const char *text = ".MAKEFLOW CATEGORY analysis\n"
			   ".MAKEFLOW CORES 4\n"
			   ".MAKEFLOW MEMORY 1024\n"
			   ".MAKEFLOW DISK 2G\n"
			   ".MAKEFLOW WALL_TIME 3600\n"
			   ".MAKEFLOW MODE MAX_THROUGHPUT\n"
			   "CATEGORY=simulation\n"
			   "@G=top\n"
			   "export G G\n"
			   "out:\n"
			   ".MAKEFLOW CORES 8\n"
			   ".SIZE in 3\n"
			   "\techo $(CATEGORY) $(CORES) $(MEMORY) $(G)\n"
			   "next: out in\n"
			   "\techo $(CORES)\n";
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_mf(&g, text, NULL, &err), 0);
	CHECK_EQ_STR(line(g, 0), "echo simulation 8 1024 top");
	CHECK_EQ_STR(line(g, 1), "echo 4");
	CHECK_EQ_STR(env(g, 1), "G=top");
	CHECK(g->commands[0].wall_time == 3600 && g->commands[1].wall_time == 3600);
	CHECK_EQ_INT(bytes_of(g, "in"), 3);
	locus_graph_destroy(g);
	/* A file named twice under one name is one input. */
	const char *twice[] = {"o: in in\n\tc\n", "o: in->a in->a\n\tc\n", "o: in->in in\n\tc\n"};
	for (size_t k = 0; k < LOCUS__ARRAY_LEN(twice); k++) {
		CHECK_EQ_INT(read_mf(&g, twice[k], NULL, &err), 0);
		CHECK_EQ_INT(g->tasks[0].n_in, 1);
		locus_graph_destroy(g);
	}
}

/* ---- size ---------------------------------------------------------------------------------- */

TEST(remaining)
{
	/* A resumed run's workflow: b and c done; d reads c (now an input
	 * of the workflow left) and e reads d and the remote-named a. */
	const char *text = "b: a\n\tcp a b\n"
			   "c: b\n\tcp b c\n"
			   "d: c\n\tcp c d\n"
			   "e->out: d a->in\n\tcat d in > out\n";
	struct locus_graph *g = NULL, *r = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_mf(&g, text, NULL, &err), 0);
	unsigned char done[4] = {1, 1, 0, 0};
	CHECK_EQ_INT(locus_flow_remaining(&r, g, done, &err), 0);
	CHECK_EQ_INT(r->n_tasks, 2);
	CHECK_EQ_STR(r->tasks[0].name, "d");
	CHECK_EQ_STR(r->tasks[1].name, "e");
	long c = locus_graph_find_object(r, "c"), d = locus_graph_find_object(r, "d");
	CHECK(c >= 0 && d >= 0);
	CHECK_EQ_INT(r->objects[c].producer, LOCUS_NONE);
	CHECK_EQ_INT(r->objects[d].producer, 0);
	CHECK(locus_graph_find_object(r, "b") < 0);
	CHECK_EQ_STR(r->commands[1].line, "cat d in > out");
	CHECK_EQ_STR(files(r, 1, 0), "d|a->in");
	CHECK_EQ_STR(files(r, 1, 1), "e->out");
	CHECK_EQ_STR(r->stage_names[r->task_stage[1]], "cat");
	CHECK(edge(r, 0, 1));
	locus_graph_destroy(r);
	/* Everything done: an empty workflow. */
	unsigned char all[4] = {1, 1, 1, 1};
	CHECK_EQ_INT(locus_flow_remaining(&r, g, all, &err), 0);
	CHECK_EQ_INT(r->n_tasks, 0);
	locus_graph_destroy(r);
	locus_graph_destroy(g);
}

/* The journal of a workflow run (locus_flow_journal_parse): what it says
 * of each task and file, escapes, a CRLF file, and each error with its
 * line and column. */
TEST(journal)
{
	const char *text = "b: a\n\tcp a b\n"
			   "'c\td': b\n\tcp b c\n";
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	CHECK_EQ_INT(read_mf(&g, text, NULL, &err), 0);
	CHECK_EQ_INT(g->n_tasks, 2);
	CHECK_EQ_INT(g->n_objects, 3);
	long a = locus_graph_find_object(g, "a"), b = locus_graph_find_object(g, "b");
	long cd = locus_graph_find_object(g, "c\td");
	CHECK(a >= 0 && b >= 0 && cd >= 0);
	long tb = locus_graph_find_task(g, "b"), tcd = locus_graph_find_task(g, "c\td");
	CHECK(tb >= 0 && tcd >= 0);

	struct locus_flow_journal j;
	const char *ok = "locus-flow-journal 1\t2\t3\r\n"
			 "file\tb\t12\t-\tnode\\\\1\r\n"
			 "task\tb\tnode\\\\1\r\n"
			 "\r\n"
			 "file\tc\\td\t7\t00000000deadbeef\t:shared\n"
			 "file\tb\t13\tff\t:shared\n";
	CHECK_EQ_INT(locus_flow_journal_parse(&j, g, ok, strlen(ok), "j", &err), 0);
	CHECK_EQ_INT(j.n_tasks, 2);
	CHECK_EQ_INT(j.n_objects, 3);
	CHECK_EQ_INT(j.done[tb], 1);
	CHECK_EQ_INT(j.done[tcd], 0);
	CHECK(j.place[a] == NULL);
	/* The last line of a file wins. */
	CHECK_EQ_STR(j.place[b], ":shared");
	CHECK_EQ_INT(j.bytes[b], 13);
	CHECK_EQ_INT(j.sum[b], 0xff);
	CHECK_EQ_STR(j.place[cd], ":shared");
	CHECK_EQ_INT(j.bytes[cd], 7);
	CHECK(j.sum[cd] == 0xdeadbeefu);
	locus_flow_journal_fini(&j);
	/* The node's name as written, the escape undone; version 2's head. */
	const char *node = "locus-journal 2\tworkflow\t2\t3\nfile\tb\t0\t-\tn\\\\1\n";
	CHECK_EQ_INT(locus_flow_journal_parse(&j, g, node, strlen(node), "j", &err), 0);
	CHECK_EQ_STR(j.place[b], "n\\1");
	CHECK_EQ_INT(j.sum[b], 0);
	locus_flow_journal_fini(&j);

	static const struct {
		const char *text;
		int rc;
		long line, column;
		const char *says;
	} cases[] = {
	    {"", LOCUS_EPARSE, 1, 1, "locus-journal 2"},
	    {"locus-flow-journal 1\t3\t3\n", LOCUS_EPARSE, 1, 1, "2 tasks and 3 files"},
	    {"locus-flow-journal 2\t2\t3\n", LOCUS_EPARSE, 1, 1, "expected \"locus-journal 2\""},
	    {"locus-journal 2\tchunks\n", LOCUS_EPARSE, 1, 1, "a run of chunks"},
	    {"locus-journal 2\tworkflow\t2\t4\n", LOCUS_EPARSE, 1, 1, "2 tasks and 3 files"},
	    {"locus-journal 9\tworkflow\t2\t3\n", LOCUS_EPARSE, 1, 15, "version 9"},
	    {"locus-flow-journal 1\t2\t3\ntask\tz\tn\n", LOCUS_EINVAL, 2, 6, "no task \"z\""},
	    {"locus-flow-journal 1\t2\t3\nfile\tz\t1\t-\tn\n", LOCUS_EINVAL, 2, 6, "no file \"z\""},
	    {"locus-flow-journal 1\t2\t3\nfile\tb\t-1\t-\tn\n", LOCUS_EPARSE, 2, 8,
	     "size in bytes"},
	    {"locus-flow-journal 1\t2\t3\nfile\tb\t1x\t-\tn\n", LOCUS_EPARSE, 2, 8,
	     "size in bytes"},
	    {"locus-flow-journal 1\t2\t3\nfile\tb\t1\tzz\tn\n", LOCUS_EPARSE, 2, 10, "checksum"},
	    {"locus-flow-journal 1\t2\t3\nfile\tb\t1\t-\t\n", LOCUS_EPARSE, 2, 12, ":shared"},
	    {"locus-flow-journal 1\t2\t3\ntask\tb\n", LOCUS_EPARSE, 2, 1, "task NAME NODE"},
	    {"locus-flow-journal 1\t2\t3\nfile\tb\t1\t-\tn\textra\n", LOCUS_EPARSE, 2, 1,
	     "file NAME BYTES SUM PLACE"},
	    {"locus-flow-journal 1\t2\t3\n\ndone 1\n", LOCUS_EPARSE, 3, 1, "expected"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memset(&err, 0, sizeof err);
		j.done = (void *)&j;
		int rc = locus_flow_journal_parse(&j, g, cases[i].text, strlen(cases[i].text), "j",
						  &err);
		if (rc != cases[i].rc || err.line != cases[i].line ||
		    err.column != cases[i].column || !strstr(err.message, cases[i].says))
			fprintf(stderr, "  case %zu: rc %d at %ld:%ld: %s\n", i, rc, err.line,
				err.column, err.message);
		CHECK_EQ_INT(rc, cases[i].rc);
		CHECK_EQ_INT(err.line, cases[i].line);
		CHECK_EQ_INT(err.column, cases[i].column);
		CHECK(strstr(err.message, cases[i].says) != NULL);
		CHECK(j.done == NULL && j.place == NULL);
	}
	/* A NUL byte inside a line. */
	const char nul[] = "locus-flow-journal 1\t2\t3\ntask\tb\0x\tn\n";
	CHECK_EQ_INT(locus_flow_journal_parse(&j, g, nul, sizeof nul - 1, "j", &err), LOCUS_EPARSE);
	CHECK_EQ_INT(err.line, 2);
	locus_graph_destroy(g);
}

TEST(hundred_thousand_rules)
{
	size_t cap = (size_t)100000 * 160 + 256, n = 0;
	char *text = malloc(cap);
	CHECK(text != NULL);
	n += (size_t)snprintf(text + n, cap - n,
			      "BIN=/opt/tools/bin\nexport PATH\nLOCUS_RUNTIME=5\n.SIZE raw.dat "
			      "10M\n");
	uint64_t x = 88172645463325252ull;
	for (long i = 0; i < 100000; i++) {
		long a = 0, b = 0;
		if (i >= 10) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			a = (long)(x % (uint64_t)i);
			b = (long)((x >> 32) % (uint64_t)i);
		}
		if (i < 10)
			n += (size_t)snprintf(text + n, cap - n, "out.%ld: raw.dat\n", i);
		else
			n += (size_t)snprintf(text + n, cap - n, "out.%ld: out.%ld out.%ld\n", i, a,
					      b);
		if (i % 7 == 0)
			n += (size_t)snprintf(text + n, cap - n, "@LOCUS_RUNTIME=%ld\n", i % 50);
		n += (size_t)snprintf(text + n, cap - n, "\t$(BIN)/sim.exe -o out.%ld > log.%ld\n",
				      i, i);
	}
	struct timespec t0, t1;
	struct locus_graph *g = NULL;
	struct locus_error err = {0};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = locus_flow_read_makeflow(&g, text, n, "big.mf", NULL, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	free(text);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	fprintf(stderr, "  100,000 rules (%.1f MB) read in %.3f s\n", (double)n / 1e6, s);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(g->n_tasks, 100000);
	CHECK_EQ_INT(g->n_objects, 100001);
	CHECK_EQ_INT(g->n_stages, 1);
	CHECK(g->tasks[7].work == 7 && g->tasks[8].work == 5);
	CHECK_EQ_INT(bytes_of(g, "raw.dat"), 10 << 20);
	/* No check of the time (a test asserts results, not speed: under
	 * ASan on a loaded machine this took 43 s); a reader quadratic in the
	 * rules would run for hours and meet ctest's time limit. */
	locus_graph_destroy(g);
}

TEST_MAIN(TEST_ENTRY(capitol), TEST_ENTRY(montage), TEST_ENTRY(blast), TEST_ENTRY(crlf),
	  TEST_ENTRY(variables), TEST_ENTRY(variables_in_file_lists), TEST_ENTRY(command_lines),
	  TEST_ENTRY(stages), TEST_ENTRY(renames_and_quotes), TEST_ENTRY(comments),
	  TEST_ENTRY(size_directive), TEST_ENTRY(sizes_from_directory), TEST_ENTRY(runtime),
	  TEST_ENTRY(wall_time), TEST_ENTRY(status_file), TEST_ENTRY(errors), TEST_ENTRY(accepted),
	  TEST_ENTRY(remaining), TEST_ENTRY(journal), TEST_ENTRY(hundred_thousand_rules))
