/*
 * Inside a Slurm allocation (cli.h): salloc or sbatch gave this process
 * nodes and tasks, which locus run and locus flow run take when the user
 * names none. The ranks are started by the MPI launcher, which reads the
 * allocation itself (Open MPI's and MPICH's Slurm support: srun starts
 * its daemons on the allocated nodes), and their node storage goes to the
 * job's local temporary directory.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "locus/locality.h"

/* A count in variable `name` ("4", or Slurm's "2(x3)" form summed:
 * "2(x3),1" is 7); 0 when unset or not one. */
static uint64_t env_count(const char *name)
{
	const char *v = getenv(name);
	uint64_t sum = 0;
	while (v && *v) {
		char *end;
		errno = 0;
		unsigned long long n = strtoull(v, &end, 10);
		if (errno || end == v)
			return 0;
		unsigned long long times = 1;
		if (!strncmp(end, "(x", 2)) {
			const char *t = end + 2;
			times = strtoull(t, &end, 10);
			if (end == t || *end != ')')
				return 0;
			end++;
		}
		if (n > UINT32_MAX || times > UINT32_MAX)
			return 0;
		sum += (uint64_t)(n * times);
		if (*end == ',')
			end++;
		else if (*end)
			return 0;
		v = end;
	}
	return sum;
}

const char *cli_slurm_tmpdir(void)
{
	if (!getenv("SLURM_JOB_ID"))
		return NULL;
	static const char *const vars[] = {"SLURM_TMPDIR", "TMPDIR"};
	for (size_t i = 0; i < CLI_ARRAY_LEN(vars); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return v;
	}
	return "/tmp";
}

int cli_slurm_allocation(const char *cmd, struct cli_slurm *s)
{
	memset(s, 0, sizeof *s);
	const char *job = getenv("SLURM_JOB_ID");
	if (!job || !*job)
		return 0;
	const char *list = getenv("SLURM_JOB_NODELIST");
	if (!list)
		list = getenv("SLURM_NODELIST");
	if (!list || !*list) {
		fprintf(stderr,
			"locus %s: in Slurm job %s, but SLURM_JOB_NODELIST is not set: name the "
			"ranks (--np) or unset SLURM_JOB_ID\n",
			cmd, job);
		return -CLI_EXIT_USAGE;
	}
	struct locus_error err;
	if (locus_hostlist_expand(list, strlen(list), "SLURM_JOB_NODELIST", &s->nodes, &s->n_nodes,
				  &err)) {
		char buf[800];
		fprintf(stderr, "locus %s: %s\n", cmd, locus_error_format(&err, buf, sizeof buf));
		return -CLI_EXIT_USAGE;
	}
	snprintf(s->job, sizeof s->job, "%s", job);
	s->list = list;
	/* The tasks asked for (-n), else the CPUs of the nodes, else one a
	 * node. */
	s->ntasks = env_count("SLURM_NTASKS");
	if (!s->ntasks)
		s->ntasks = env_count("SLURM_NPROCS");
	if (!s->ntasks)
		s->ntasks = env_count("SLURM_JOB_CPUS_PER_NODE");
	if (!s->ntasks)
		s->ntasks = s->n_nodes;
	s->tmpdir = cli_slurm_tmpdir();
	return 1;
}

void cli_slurm_fini(struct cli_slurm *s)
{
	locus_hostlist_free(s->nodes, s->n_nodes);
	memset(s, 0, sizeof *s);
}
