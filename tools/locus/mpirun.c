/*
 * What the commands that run on MPI ranks share (cli.h): locus run and
 * locus scatter.
 *
 * Launching: started by hand, such a command checks its arguments and
 * runs mpirun as its child (and explains how it ended when the job did
 * not), which starts the ranks: each is this same
 * program, which sees it runs inside an MPI job (the launcher's
 * environment) and takes part. Started under mpirun by the user (a
 * cluster with a hostfile, a batch system), it takes part directly.
 *
 * Commands per chunk: run without a shell (posix_spawnp), so that a
 * chunk's name or path can never become part of a command line; stdout
 * into a result file written whole or not at all, stderr kept to be shown
 * on success and quoted on failure.
 */
#define _GNU_SOURCE /* pipe2, process_vm_readv */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif
#include "cli.h"

extern char **environ;

volatile int cli_cancelled;
static volatile pid_t child; /* the command running now, or 0 */
/* The process group commands run in: the keeper's (cli_keep_commands),
 * or 0, each its own. */
static pid_t keeper_group;
static int keeper_fd = -1; /* the write end of its pipe */
/* Held while a command starts and `child` is set, so that the watch over
 * the launcher never misses a command that has started: it used to read
 * 0 while posix_spawnp returned, and that command outlived the rank. */
static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;
static int die_of_signal;
static char live_tmp[PATH_MAX + 96]; /* the result temporary being written, or "" */

/* ---- launching -------------------------------------------------------------- */

int cli_in_mpi_job(void)
{
	static const char *const vars[] = {
	    "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",	     "PMI_RANK", "PMIX_RANK",
	    "MPI_LOCALNRANKS",	    "LOCUS_RUN_RANK"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if (getenv(vars[i]))
			return 1;
	return 0;
}

/* Named ids of the launcher's options (a shared group's: 2000 and on). */
enum { CLI_MPI_MPIRUN = 2000, CLI_MPI_HOSTFILE, CLI_MPI_ARG };

/* --mpi-arg: one more, up to CLI_MAX_MPI_ARGS. */
static int mpi_option(const char *cmd, void *values, int id, const char *arg)
{
	struct cli_mpi *m = values;
	if (id != CLI_MPI_ARG)
		return 0;
	if (m->n_args == CLI_MAX_MPI_ARGS)
		return cli_usage_error(cmd, "at most %d --mpi-arg", CLI_MAX_MPI_ARGS);
	m->args[m->n_args++] = arg;
	return 0;
}

static const struct cli_opt mpi_opts[] = {
    {"mpirun", CLI_MPI_MPIRUN, CLI_TEXT, offsetof(struct cli_mpi, mpirun), "PATH",
     "the launcher (default: the one of the MPI\nlocus was built with, else mpirun)"},
    {"hostfile", CLI_MPI_HOSTFILE, CLI_TEXT, offsetof(struct cli_mpi, hostfile), "FILE",
     "hosts to run on (passed to the launcher)"},
    {"mpi-arg", CLI_MPI_ARG, CLI_OWN, 0, "ARG", "another argument for the launcher (repeatable)"},
};
const struct cli_group cli_mpi_group = CLI_GROUP(mpi_opts, mpi_option);

void cli_mpi_np_spelling(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-np"))
			argv[i] = "--np";
}

/* How long `mpirun --version` may take: a launcher that hangs there
 * would hang every command that launches. */
#define VERSION_SECONDS 5

/* What `prog --version` prints, in buf ("" when it cannot run). Returns
 * 1 when it did not end within VERSION_SECONDS (then it and what it
 * started, its process group, are killed), else 0. */
static int launcher_version(const char *prog, char *buf, size_t size)
{
	int fds[2];
	buf[0] = 0;
	if (pipe(fds) != 0)
		return 0;
	pid_t self = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		/* Its own process group, so that what a script starts goes
		 * with it; killed with us, even by SIGKILL. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != self)
			_exit(127);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execlp(prog, prog, "--version", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return 0;
	}
	setpgid(pid, pid); /* as the child does: whichever runs first */
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	size_t got = 0;
	int late = 0;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long ms = VERSION_SECONDS * 1000L - (now.tv_sec - t0.tv_sec) * 1000L -
			  (now.tv_nsec - t0.tv_nsec) / 1000000L;
		struct pollfd pf = {.fd = fds[0], .events = POLLIN};
		int r = ms > 0 ? poll(&pf, 1, (int)ms) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			late = r == 0;
			break;
		}
		char drain[256];
		char *to = got + 1 < size ? buf + got : drain;
		size_t room = got + 1 < size ? size - 1 - got : sizeof drain;
		ssize_t k = read(fds[0], to, room);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		if (to != drain)
			got += (size_t)k;
	}
	buf[got] = 0;
	close(fds[0]);
	if (late)
		kill(-pid, SIGKILL);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (late)
		buf[0] = 0;
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && !got)
		buf[0] = 0; /* not found, or not runnable */
	return late;
}

#if defined(__SANITIZE_ADDRESS__)
int cli_leak_check(void)
{
	return __lsan_do_recoverable_leak_check();
}
#else
int cli_leak_check(void)
{
	return 0;
}
#endif

const char *cli_mpi_default_launcher(void)
{
	/* The launcher of the MPI this program was built with (CMake's
	 * MPIEXEC_EXECUTABLE): with Open MPI and MPICH both installed, the
	 * "mpirun" on PATH may belong to the other one, whose ranks would each
	 * start alone. */
#ifdef LOCUS_MPIEXEC
	if (LOCUS_MPIEXEC[0] && access(LOCUS_MPIEXEC, X_OK) == 0)
		return LOCUS_MPIEXEC;
#endif
	return "mpirun";
}

/* A count after `key` in token tok ("slots=4"), or 0 when tok is not
 * one. */
static uint64_t count_after(const char *tok, const char *key)
{
	size_t k = strlen(key);
	if (strncmp(tok, key, k) != 0 || tok[k] < '0' || tok[k] > '9')
		return 0;
	char *end;
	unsigned long long n = strtoull(tok + k, &end, 10);
	return *end ? 0 : (uint64_t)n;
}

/* What a hostfile lets the launcher start. Each line names a host and
 * its slots, in Open MPI's form ("node01 slots=4 max_slots=8") or
 * MPICH's ("node01:4"); a host without a count has as many slots as this
 * machine has cores (Open MPI counts a host's cores). *soft gets the
 * slots of the hosts without max_slots, *hard the sum of the max_slots
 * given (a limit the launcher holds even when it oversubscribes). 0 with
 * the error printed when the file cannot be read or names no host, else
 * the number of hosts. */
static uint64_t hostfile_slots(const char *cmd, const char *path, uint64_t cores, uint64_t *soft,
			       uint64_t *hard)
{
	FILE *fp = fopen(path, "r");
	*soft = *hard = 0;
	if (!fp) {
		fprintf(stderr, "locus %s: --hostfile %s: %s\n", cmd, path, strerror(errno));
		return 0;
	}
	char line[4096];
	uint64_t hosts = 0;
	while (fgets(line, sizeof line, fp)) {
		char *hash = strchr(line, '#'), *save = NULL;
		if (hash)
			*hash = 0;
		char *tok = strtok_r(line, " \t\r\n", &save);
		if (!tok)
			continue;
		hosts++;
		uint64_t slots = 0, max_slots = 0;
		/* MPICH: "host:N" (one ':', so an IPv6 address is left alone). */
		const char *colon = strchr(tok, ':');
		if (colon && !strchr(colon + 1, ':'))
			slots = count_after(colon + 1, "");
		while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
			uint64_t n;
			if ((n = count_after(tok, "slots=")))
				slots = n;
			else if ((n = count_after(tok, "max_slots=")) ||
				 (n = count_after(tok, "max-slots=")))
				max_slots = n;
		}
		if (max_slots)
			*hard += max_slots < UINT64_MAX / 4 ? max_slots : UINT64_MAX / 4;
		else
			*soft += slots ? (slots < UINT64_MAX / 4 ? slots : UINT64_MAX / 4) : cores;
		if (*soft > UINT64_MAX / 64)
			*soft = UINT64_MAX / 64;
		if (*hard > UINT64_MAX / 4)
			*hard = UINT64_MAX / 4;
	}
	fclose(fp);
	if (!hosts)
		fprintf(stderr, "locus %s: --hostfile %s names no host\n", cmd, path);
	return hosts;
}

int cli_mpi_check_np(const char *cmd, const struct cli_mpi *m, uint64_t np)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t cores = online > 0 ? (uint64_t)online : 1, slots = cores, hard = 0;
	if (m->hostfile && !hostfile_slots(cmd, m->hostfile, cores, &slots, &hard))
		return CLI_EXIT_USAGE;
	/* In a Slurm allocation the launcher gets its tasks, not this
	 * machine's cores. */
	struct cli_slurm sl;
	int in_slurm = m->hostfile ? 0 : cli_slurm_allocation(cmd, &sl);
	if (in_slurm < 0)
		return -in_slurm;
	if (in_slurm) {
		slots = sl.ntasks;
		cli_slurm_fini(&sl);
	}
	uint64_t most = slots * CLI_RANKS_PER_SLOT + hard;
	if (np > most) {
		char why[160] = "", caps[64] = "";
		if (slots || !hard)
			snprintf(why, sizeof why, "%" PRIu64 " %s x %d ranks each", slots,
				 m->hostfile ? "slots"
				 : in_slurm  ? "tasks"
					     : "cores",
				 CLI_RANKS_PER_SLOT);
		if (hard)
			snprintf(caps, sizeof caps, "%s%" PRIu64 " by max_slots",
				 why[0] ? " + " : "", hard);
		fprintf(stderr,
			"locus %s: -np %" PRIu64 " is more ranks than %s can hold: at most %" PRIu64
			" (%s%s)\n",
			cmd, np,
			m->hostfile ? m->hostfile
			: in_slurm  ? "the Slurm allocation"
				    : "this machine",
			most, why, caps);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/* ---- the launcher's end, explained ------------------------------------------- */

/* The launcher runs as this process's child rather than in its place, so
 * that how it ended can be said: without a hostfile it runs with --quiet
 * (Open MPI's advice banners stay out of the output), which also hides
 * its own word on a killed rank or a failed start, and the job ended with
 * status 137 or 1 and nothing printed. Rank 0 of the job, when it runs on
 * this host, writes to the file named by LOCUS_LAUNCH_REPORT that it
 * started, then the status it ended with; the launcher's status is
 * explained when rank 0 did not explain it itself. */
#define LAUNCH_REPORT_ENV "LOCUS_LAUNCH_REPORT"

static volatile pid_t launched; /* the launcher, while it runs */

/* Passes a signal sent to this process (kill(1), a batch system) on to
 * the launcher, which stops the job; one from the terminal reached the
 * launcher already (one process group). */
static volatile sig_atomic_t forwarded; /* the last signal passed to it, or 0 */

static void forward_signal(int sig, siginfo_t *info, void *ctx)
{
	(void)ctx;
	pid_t p = launched;
	if (p > 0 && (!info || info->si_code <= 0)) {
		forwarded = sig;
		kill(p, sig);
	}
}

/* This rank's number in the job, from the launcher's environment; -1 when
 * none says. */
static long env_rank(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
	for (size_t i = 0; i < CLI_ARRAY_LEN(vars); i++) {
		const char *v = getenv(vars[i]);
		char *end;
		long r = v && *v ? strtol(v, &end, 10) : -1;
		if (v && *v && !*end)
			return r;
	}
	return -1;
}

/* Appends a line to the launching process's report file (rank 0 only;
 * nothing when the file is not on this host). */
static void report_line(const char *line)
{
	const char *path = getenv(LAUNCH_REPORT_ENV);
	if (!path || !*path || !cli_in_mpi_job() || env_rank() != 0)
		return;
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t w = write(fd, line, strlen(line));
	(void)w;
	close(fd);
}

void cli_mpi_report_start(void)
{
	report_line("started\n");
	/* Open MPI's job: its id, where its ranks put their shared-memory
	 * segments and its launcher's session directory, which a launcher
	 * killed by SIGKILL leaves behind (job_leftovers). */
	const char *job = getenv("OMPI_MCA_ess_base_jobid"), *dir = getenv("PMIX_SERVER_TMPDIR");
	const char *shm = getenv("OMPI_MCA_btl_vader_backing_directory");
	if (!shm || !*shm)
		shm = "/dev/shm";
	char line[2 * PATH_MAX + 64];
	int n = job && dir ? snprintf(line, sizeof line, "ompi\t%s\t%s\t%s\n", job, shm, dir) : -1;
	if (n > 0 && n < (int)sizeof line && !strpbrk(shm, "\t\n") && !strpbrk(dir, "\t\n"))
		report_line(line);
}

void cli_mpi_report_end(int status)
{
	char line[32];
	snprintf(line, sizeof line, "ended %d\n", status);
	report_line(line);
}

/* What the Open MPI jobs of launchers that were killed left: their
 * ranks' shared-memory segments and the launchers' session directories. */
struct leftovers {
	size_t segments, sessions;
};

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* Removes the shared-memory segments in `shm` of Open MPI job `id`
 * (SHM/vader_segment.HOST.UID.JOB.N, JOB in hex: this user's, this job's
 * only). */
static void job_segments(const char *shm, unsigned long id, struct leftovers *lo)
{
	char suffix[64];
	snprintf(suffix, sizeof suffix, ".%u.%lx.", (unsigned)getuid(), id);
	DIR *d = opendir(shm);
	for (struct dirent *e; d && (e = readdir(d));) {
		const char *at = strstr(e->d_name, suffix);
		char p[2 * PATH_MAX];
		if (strncmp(e->d_name, "vader_segment.", 14) || !at || !at[strlen(suffix)] ||
		    strspn(at + strlen(suffix), "0123456789") != strlen(at + strlen(suffix)))
			continue;
		snprintf(p, sizeof p, "%s/%s", shm, e->d_name);
		lo->segments += !unlink(p);
	}
	if (d)
		closedir(d);
}

/* Removes session directory `session` (counted when it went). */
static void session_gone(const char *session, struct leftovers *lo)
{
	struct stat sb;
	if (!lstat(session, &sb) && S_ISDIR(sb.st_mode)) {
		nftw(session, remove_one, 16, FTW_DEPTH | FTW_PHYS);
		lo->sessions += lstat(session, &sb) != 0;
	}
}

/* Removes what the Open MPI job of launch report `path` left once its
 * launcher (mpirun, the process named by the session directory
 * ".../pid.MPIRUN") is gone: the segments SHM/vader_segment.HOST.UID.JOB.N
 * of its ranks (JOB in hex: this job's only) and that session directory.
 * `mpirun`: the launcher's pid when the caller knows it, else 0. */
static void job_leftovers(const char *path, long mpirun, struct leftovers *lo)
{
	char line[2 * PATH_MAX + 64], job[32] = "", shm[PATH_MAX] = "", session[PATH_MAX] = "";
	FILE *fp = fopen(path, "re");
	while (fp && fgets(line, sizeof line, fp))
		if (!strncmp(line, "ompi\t", 5) && line[strlen(line) - 1] == '\n') {
			line[strlen(line) - 1] = 0;
			char *f[4], *save = NULL;
			int k = 0;
			for (char *t = strtok_r(line, "\t", &save); t && k < 4;
			     t = strtok_r(NULL, "\t", &save))
				f[k++] = t;
			if (k == 4 && strlen(f[1]) < sizeof job) {
				strcpy(job, f[1]);
				snprintf(shm, sizeof shm, "%s", f[2]);
				snprintf(session, sizeof session, "%s", f[3]);
			}
		}
	if (fp)
		fclose(fp);
	/* Only a whole record of a launcher that is gone (and, where it is
	 * known, this one), its session under an "ompi.*" directory. */
	char *end = NULL;
	unsigned long id = strtoul(job, &end, 10);
	if (!job[0] || *end || !id)
		return;
	const char *base = strrchr(session, '/'), *parent = base;
	while (parent && parent > session && parent[-1] != '/')
		parent--;
	long pid = base && !strncmp(base, "/pid.", 5) ? strtol(base + 5, &end, 10) : 0;
	if (pid <= 0 || *end || (mpirun && pid != mpirun) || cli_pid_alive(pid) ||
	    strncmp(parent, "ompi.", 5))
		return;
	job_segments(shm, id, lo);
	session_gone(session, lo);
}

/* Whether s is a decimal number below `limit`, into *v. */
static int decimal(const char *s, unsigned long limit, unsigned long *v)
{
	char *end;
	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !*end && !errno && *v < limit;
}

/* Removes the Open MPI sessions of launchers that are gone, whoever ran
 * them (a launcher killed before its ranks wrote the launch report's
 * record, or another program's job of this user): each
 * TMPDIR/ompi.HOST.UID/pid.N of this host and user whose launcher, pid
 * N, is no longer a process, and the segments in /dev/shm of the jobs it
 * names (its contact.txt gives their family, its numbered directories
 * the jobs), as Open MPI's orte-clean does. */
static void sweep_sessions(const char *tmpdir, struct leftovers *lo)
{
	char host[256];
	if (gethostname(host, sizeof host))
		return;
	host[sizeof host - 1] = 0;
	/* Open MPI names the host without its domain unless told to keep
	 * it: both are looked at. */
	for (int pass = 0; pass < 2; pass++) {
		char *dot = strchr(host, '.');
		if (pass && !dot)
			break;
		if (pass)
			*dot = 0;
		char top[PATH_MAX];
		if (snprintf(top, sizeof top, "%s/ompi.%s.%u", tmpdir, host, (unsigned)getuid()) >=
		    (int)sizeof top)
			continue;
		DIR *d = opendir(top);
		for (struct dirent *e; d && (e = readdir(d));) {
			unsigned long pid, family, id;
			char session[2 * PATH_MAX], line[64] = "";
			if (strncmp(e->d_name, "pid.", 4) ||
			    !decimal(e->d_name + 4, INT_MAX, &pid) || !pid ||
			    cli_pid_alive((long)pid))
				continue;
			snprintf(session, sizeof session, "%s/%s", top, e->d_name);
			/* "FAMILY.0;URI": the launcher's job id, its family in
			 * the high 16 bits. */
			char contact[2 * PATH_MAX + 16];
			snprintf(contact, sizeof contact, "%s/contact.txt", session);
			FILE *fp = fopen(contact, "re");
			if (fp && fgets(line, sizeof line, fp))
				line[strcspn(line, ".")] = 0;
			if (decimal(line, 1ul << 32, &family) && !(family & 0xffff)) {
				DIR *jd = opendir(session);
				for (struct dirent *j; jd && (j = readdir(jd));)
					if (decimal(j->d_name, 1ul << 16, &id))
						job_segments("/dev/shm", family | id, lo);
				if (jd)
					closedir(jd);
			}
			if (fp)
				fclose(fp);
			session_gone(session, lo);
		}
		if (d)
			closedir(d);
	}
}

/* Says what job_leftovers swept, if anything. */
static void say_leftovers(const char *cmd, const struct leftovers *lo, const char *whose)
{
	if (lo->segments || lo->sessions)
		fprintf(stderr,
			"locus %s: swept what %s left: %zu shared-memory segment%s, %zu "
			"session director%s of Open MPI\n",
			cmd, whose, lo->segments, lo->segments == 1 ? "" : "s", lo->sessions,
			lo->sessions == 1 ? "y" : "ies");
}

/* Removes the launch reports in `dir` of launchers that are gone (killed
 * by SIGKILL before they could: each is named by its launcher's pid), and
 * what their jobs left (lo). Returns how many reports. */
static size_t sweep_reports(const char *dir, struct leftovers *lo)
{
	size_t swept = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		char *end;
		if (strncmp(e->d_name, "locus-launch-", 13) || e->d_name[13] < '1' ||
		    e->d_name[13] > '9')
			continue;
		long pid = strtol(e->d_name + 13, &end, 10);
		if (*end != '-' || pid == (long)getpid() || cli_pid_alive(pid))
			continue;
		char path[PATH_MAX];
		if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
			continue;
		job_leftovers(path, 0, lo);
		swept += !unlink(path);
	}
	if (d)
		closedir(d);
	return swept;
}

/* Whether process `pid` has children here and every one of them has
 * ended without being reaped (Linux's /proc; 0 where it cannot say). */
static int only_ended_children(pid_t pid)
{
	DIR *d = opendir("/proc");
	int ended = 0, alive = 0;
	for (struct dirent *e; d && !alive && (e = readdir(d));) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		char path[300], buf[512];
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = 0;
		/* "PID (NAME) STATE PPID ...": NAME may hold anything. */
		char *r = strrchr(buf, ')'), state;
		long ppid;
		if (r && sscanf(r + 1, " %c %ld", &state, &ppid) == 2 && ppid == (long)pid)
			*(state == 'Z' ? &ended : &alive) += 1;
	}
	if (d)
		closedir(d);
	return ended && !alive;
}

/* Waits for the launcher `pid` into *st. An mpirun whose ranks here have
 * all ended and that has not reaped them for 10 s has hung (Open MPI 5's
 * mpiexec does when a rank dies inside MPI_Init): it is killed, and 1
 * returned. */
static int wait_launcher(pid_t pid, int *st)
{
	double stuck = -1;
	for (int tick = 0;; tick++) {
		pid_t r = waitpid(pid, st, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return 0;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
		if (tick % 20 == 0) /* a look at its children every second */
			stuck = only_ended_children(pid) ? (stuck < 0 ? now : stuck) : -1;
		if (stuck >= 0 && now - stuck >= 10) {
			kill(pid, SIGKILL);
			while (waitpid(pid, st, 0) < 0 && errno == EINTR)
				;
			return 1;
		}
		struct timespec nap = {0, 50 * 1000 * 1000};
		nanosleep(&nap, NULL);
	}
}

/* Runs the launcher av (av[0] == mpirun) as a child, waits for it and
 * returns its exit status (or dies of its signal), having said why when
 * it failed and rank 0 did not say so itself. `quiet`: it runs with
 * --quiet. */
static int run_launcher(const char *cmd, const char *mpirun, char **av, int quiet)
{
	char report[PATH_MAX];
	const char *tmpdir = getenv("TMPDIR");
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	struct leftovers lo = {0, 0};
	size_t swept = sweep_reports(tmpdir, &lo);
	sweep_sessions(tmpdir, &lo);
	if (swept)
		fprintf(stderr,
			"locus %s: swept what killed launchers left: %zu launch report%s in %s\n",
			cmd, swept, swept == 1 ? "" : "s", tmpdir);
	say_leftovers(cmd, &lo, "their jobs");
	snprintf(report, sizeof report, "%s/locus-launch-%ld-XXXXXX", tmpdir, (long)getpid());
	int rfd = mkstemp(report);
	if (rfd >= 0) {
		close(rfd);
		setenv(LAUNCH_REPORT_ENV, report, 1);
	} else {
		report[0] = 0;
		unsetenv(LAUNCH_REPORT_ENV);
	}
	/* The exec's failure comes back through a pipe closed on success. */
	int fds[2];
	if (pipe(fds) != 0 || fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0 ||
	    fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
		fprintf(stderr, "locus %s: cannot start the launcher: %s\n", cmd, strerror(errno));
		if (report[0])
			unlink(report);
		return CLI_EXIT_FAIL;
	}
	pid_t self = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		/* Killed with us, even by SIGKILL: the ranks then see their
		 * launcher gone (cli_watch_launcher) and stop. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != self)
			_exit(CLI_EXIT_FAIL);
		execvp(mpirun, av);
		int e = errno;
		ssize_t w = write(fds[1], &e, sizeof e);
		(void)w;
		_exit(127);
	}
	close(fds[1]);
	unsetenv(LAUNCH_REPORT_ENV);
	if (pid < 0) {
		fprintf(stderr, "locus %s: cannot start the launcher: %s\n", cmd, strerror(errno));
		close(fds[0]);
		if (report[0])
			unlink(report);
		return CLI_EXIT_FAIL;
	}
	launched = pid;
	struct sigaction sa = {.sa_sigaction = forward_signal, .sa_flags = SA_SIGINFO | SA_RESTART};
	sigemptyset(&sa.sa_mask);
	int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	for (size_t i = 0; i < CLI_ARRAY_LEN(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
	int exec_errno = 0;
	ssize_t got;
	while ((got = read(fds[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
		;
	close(fds[0]);
	int st = 0;
	int hung = wait_launcher(pid, &st);
	launched = 0;
	/* What rank 0 said: "started", then "ended STATUS". */
	int started = 0, ended = 0, rank0 = 0;
	struct leftovers job = {0, 0};
	if (report[0]) {
		/* The job's segments in shared memory: some are left even
		 * when it succeeds (Open MPI 4.1), all of them and the
		 * session directory when its launcher was killed; it was
		 * this process's child, so it is gone now. Said when it
		 * failed. */
		job_leftovers(report, (long)pid, &job);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			say_leftovers(cmd, &job, "the job");
		FILE *fp = fopen(report, "r");
		char line[64];
		while (fp && fgets(line, sizeof line, fp)) {
			started |= !strcmp(line, "started\n");
			if (sscanf(line, "ended %d", &rank0) == 1)
				ended = 1;
		}
		if (fp)
			fclose(fp);
		unlink(report);
	}
	if (got == (ssize_t)sizeof exec_errno) {
		fprintf(stderr, "locus %s: cannot run the MPI launcher %s: %s\n", cmd, mpirun,
			strerror(exec_errno));
		return CLI_EXIT_FAIL;
	}
	if (hung) {
		fprintf(stderr,
			"locus %s: the MPI launcher %s hung: every rank it started here had "
			"ended 10 s before and it waited on; ended it (SIGKILL)\n",
			cmd, mpirun);
		return CLI_EXIT_FAIL;
	}
	if (WIFSIGNALED(st)) {
		int sig = WTERMSIG(st), sent = forwarded;
		/* Told to end (a time limit, a cancel), the launcher may die of
		 * another signal while it tears the job down (Open MPI 4.1's
		 * mpiexec has crashed in PMIx_Finalize there): the job was cut
		 * short by the signal this process passed on, and it ends by
		 * that signal, as its caller expects. */
		char on[128] = "";
		if (sent && sig != sent)
			snprintf(on, sizeof on, " while ending the job on signal %d (%s)", sent,
				 strsignal(sent));
		if (sent)
			strcat(on, sig != sent ? ": the job was cut short"
					       : ", passed on to it: the job was cut short");
		fprintf(stderr, "locus %s: the MPI launcher %s was killed by signal %d (%s)%s\n",
			cmd, mpirun, sig, strsignal(sig), on);
		fflush(stderr);
		sig = sent ? sent : sig;
		signal(sig, SIG_DFL);
		raise(sig);
		return 128 + sig;
	}
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : CLI_EXIT_FAIL;
	if (code == 0 || (ended && rank0 == code))
		return code; /* success, or rank 0 said why */
	char why[160] = "";
	if (code > 128 && code < 128 + 65)
		snprintf(why, sizeof why,
			 " (%d is 128 + %d: a process of the job was killed by signal %d, %s)",
			 code, code - 128, code - 128, strsignal(code - 128));
	if (ended)
		fprintf(
		    stderr,
		    "locus %s: the MPI launcher %s exited with status %d%s, though rank 0 ended "
		    "with status %d: another process of the job failed\n",
		    cmd, mpirun, code, why, rank0);
	else if (started)
		fprintf(stderr,
			"locus %s: the MPI launcher %s exited with status %d%s before rank 0 "
			"ended: the job was cut short\n",
			cmd, mpirun, code, why);
	else
		fprintf(stderr,
			"locus %s: the MPI launcher %s exited with status %d%s and no rank of the "
			"job started on this host%s\n",
			cmd, mpirun, code, why,
			quiet ? " (its own messages are hidden by --quiet without a hostfile)"
			      : "");
	return code;
}

/* Whether one process may read another's memory as Open MPI's shared
 * memory does for a large message (process_vm_readv): tried between two
 * children of this one, as ranks are siblings under mpirun. The first
 * sets a mark and waits; the second reads it. About a millisecond. */
static int cross_memory_attach(void)
{
	static volatile uint64_t mark;
	const uint64_t want = 0x6c6f637573636d61; /* "locuscma" */
	int ready[2], hold[2];
	if (pipe2(ready, O_CLOEXEC))
		return 0;
	if (pipe2(hold, O_CLOEXEC)) {
		close(ready[0]);
		close(ready[1]);
		return 0;
	}
	int ok = 0;
	pid_t a = fork();
	if (a == 0) {
		mark = want;
		char c = 1;
		close(hold[1]);
		if (write(ready[1], &c, 1) == 1)
			while (read(hold[0], &c, 1) < 0 && errno == EINTR)
				;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	char c;
	ssize_t got;
	while ((got = read(ready[0], &c, 1)) < 0 && errno == EINTR)
		;
	if (a > 0 && got == 1) {
		pid_t b = fork();
		if (b == 0) {
			uint64_t v = 0;
			struct iovec here = {&v, sizeof v}, there = {(void *)&mark, sizeof v};
			ssize_t k = process_vm_readv(a, &here, 1, &there, 1, 0);
			_exit(k == (ssize_t)sizeof v && v == want ? 0 : 1);
		}
		int st;
		if (b > 0 && waitpid(b, &st, 0) == b)
			ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	close(ready[0]);
	close(hold[1]);
	if (a > 0)
		while (waitpid(a, NULL, 0) < 0 && errno == EINTR)
			;
	return ok;
}

int cli_mpi_launch(const char *cmd, const struct cli_mpi *m, uint64_t np, const char *extra,
		   int argc, char **argv)
{
	char self[PATH_MAX], version[512];
	const char *mpirun = m->mpirun ? m->mpirun : cli_mpi_default_launcher();
	int rc = cli_mpi_check_np(cmd, m, np);
	if (rc)
		return rc;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return fprintf(stderr, "locus %s: cannot find this program's path\n", cmd),
		       CLI_EXIT_FAIL;
	self[n] = 0;
	if (launcher_version(mpirun, version, sizeof version)) {
		fprintf(stderr,
			"locus %s: the MPI launcher \"%s\" did not answer \"%s --version\" "
			"within %d s; ended it (name a working one with --mpirun)\n",
			cmd, mpirun, mpirun, VERSION_SECONDS);
		return CLI_EXIT_FAIL;
	}
	if (!version[0]) {
		fprintf(stderr,
			"locus %s: cannot run the MPI launcher \"%s\"; install Open MPI or MPICH "
			"(scripts/install-deps) or name it with --mpirun\n",
			cmd, mpirun);
		return CLI_EXIT_FAIL;
	}
	int open_mpi = strstr(version, "Open MPI") || strstr(version, "OpenRTE") ||
		       strstr(version, "open-mpi");
	char npbuf[32];
	snprintf(npbuf, sizeof npbuf, "%" PRIu64, np);
	size_t cap = (size_t)argc + m->n_args + 16, k = 0;
	char **av = calloc(cap, sizeof *av);
	if (!av)
		return fprintf(stderr, "locus %s: out of memory\n", cmd), CLI_EXIT_FAIL;
	av[k++] = (char *)mpirun;
	if (open_mpi) {
		/* Ranks may outnumber cores (they wait without spinning), and
		 * the launcher's advice banners stay out of the output on one
		 * machine; across hosts (a hostfile) its messages say why a
		 * host could not be reached, so they are shown. */
		av[k++] = "--oversubscribe";
		if (!m->hostfile)
			av[k++] = "--quiet";
		if (geteuid() == 0) {
			setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
			setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
		}
		/* On one machine, shared-memory transfers read the sender's
		 * memory in one copy (cross-memory attach) where the kernel
		 * lets two ranks do it, else go through a shared buffer: many
		 * containers forbid it, and Open MPI told to use it there
		 * complains at every large message. A user's setting wins. */
		if (!m->hostfile && !getenv("OMPI_MCA_btl_vader_single_copy_mechanism"))
			setenv("OMPI_MCA_btl_vader_single_copy_mechanism",
			       cross_memory_attach() ? "cma" : "none", 0);
		/* On this machine alone (no hostfile, no Slurm allocation, no
		 * launcher options of the user's), the point-to-point layer
		 * that needs no network library: else every rank starts UCX
		 * (and probes the other layers), 0.2 s of the 0.8 s an empty
		 * 4-rank job takes here. Across hosts the library chooses (UCX
		 * is InfiniBand's); a user's setting wins. */
		struct cli_slurm sl;
		int in_slurm = m->hostfile ? 0 : cli_slurm_allocation(cmd, &sl);
		if (in_slurm > 0)
			cli_slurm_fini(&sl);
		if (!m->hostfile && !in_slurm && !m->n_args)
			setenv("OMPI_MCA_pml", "ob1", 0);
	}
	if (m->hostfile) {
		av[k++] = "--hostfile";
		av[k++] = (char *)m->hostfile;
	}
	for (size_t i = 0; i < m->n_args; i++)
		av[k++] = (char *)m->args[i];
	av[k++] = "-np";
	av[k++] = npbuf;
	av[k++] = self;
	av[k++] = (char *)cmd;
	if (extra)
		av[k++] = (char *)extra;
	for (int i = 1; i < argc; i++)
		av[k++] = argv[i];
	av[k] = NULL;
	setenv("LOCUS_RUN_RANK", "1", 1);
	int status = run_launcher(cmd, mpirun, av, open_mpi && !m->hostfile);
	free(av);
	return status;
}

/* ---- signals ------------------------------------------------------------------ */

/* The process group of command p (the keeper ignores SIGINT and SIGTERM). */
static pid_t group_of(pid_t p)
{
	return keeper_group > 0 ? keeper_group : p;
}

static void on_signal(int sig)
{
	cli_cancelled = 1;
	pid_t p = child;
	if (p > 0)
		kill(-group_of(p), sig == SIGINT ? SIGINT : SIGTERM);
	if (die_of_signal) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
}

void cli_catch_signals(int die)
{
	die_of_signal = die;
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* ---- a launcher that is gone --------------------------------------------------- */

static pid_t launcher;

static void *watch_launcher(void *arg)
{
	(void)arg;
	const struct timespec tick = {0, 50 * 1000 * 1000};
	for (;;) {
		nanosleep(&tick, NULL);
		if (getppid() == launcher)
			continue;
		/* The launcher died (SIGKILL: it could not stop us): nobody
		 * reads our output or waits for our results any more. Stop the
		 * command and leave nothing half-written. The lock is never
		 * released: no command starts after this one is killed. */
		pthread_mutex_lock(&spawn_lock);
		pid_t p = child;
		if (p > 0)
			kill(-group_of(p), SIGKILL);
		if (live_tmp[0])
			unlink(live_tmp);
		_exit(CLI_EXIT_FAIL);
	}
	return NULL;
}

void cli_watch_launcher(void)
{
	pthread_t t;
	launcher = getppid();
	if (launcher <= 1)
		return;
	if (pthread_create(&t, NULL, watch_launcher, NULL) == 0)
		pthread_detach(t);
}

/* The keeper: forked from a rank that runs MPI's threads, so it does only
 * what is safe in such a child (system calls). It leads the process group
 * the rank's commands run in, holds the read end of a pipe whose write
 * end only the rank holds, and when that pipe ends (the rank is gone, or
 * done) kills the group: itself and every command left. A command with a
 * time limit runs in a group of its own, which the rank tells it of
 * through the pipe (its id as an int32 when it starts, negated when it
 * has ended): those left are killed first. */
#define KEEPER_GROUPS 64
static void keeper_run(int rd)
{
	struct sigaction ign = {.sa_handler = SIG_IGN};
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGTERM, &ign, NULL);
	sigaction(SIGHUP, &ign, NULL);
	sigaction(SIGPIPE, &ign, NULL);
	setpgid(0, 0);
	/* Nothing of the rank's open but the pipe: a launcher waits for the
	 * ends of its sockets and of the ranks' output. */
	if (rd != 3 && dup2(rd, 3) == 3)
		rd = 3;
	long closed = -1;
#ifdef SYS_close_range
	closed = syscall(SYS_close_range, 4u, ~0u, 0u);
#endif
	if (closed != 0)
		for (int fd = 4; fd < 4096; fd++)
			close(fd);
	int nul = open("/dev/null", O_RDWR);
	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
		if (nul > 3)
			close(nul);
	}
	int32_t groups[KEEPER_GROUPS], id;
	size_t n_groups = 0, got = 0;
	for (;;) {
		ssize_t n = read(rd, (char *)&id + got, sizeof id - got);
		if (n == 0 || (n < 0 && errno != EINTR))
			break;
		if (n < 0 || (got += (size_t)n) < sizeof id)
			continue;
		got = 0;
		if (id > 0 && n_groups < KEEPER_GROUPS) {
			groups[n_groups++] = id;
		} else if (id < 0) {
			for (size_t k = 0; k < n_groups; k++)
				if (groups[k] == -id) {
					groups[k] = groups[--n_groups];
					break;
				}
		}
	}
	for (size_t k = 0; k < n_groups; k++)
		kill(-groups[k], SIGKILL);
	kill(0, SIGKILL);
	_exit(0);
}

int cli_keep_commands(void)
{
	int fds[2];
	if (keeper_group > 0 || pipe(fds))
		return keeper_group;
	if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) || fcntl(fds[1], F_SETFD, FD_CLOEXEC)) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	pid_t p = fork();
	if (p == 0) {
		close(fds[1]);
		keeper_run(fds[0]);
	}
	close(fds[0]);
	if (p < 0) {
		close(fds[1]);
		return 0;
	}
	/* The write end stays open, unread, until this process ends. Both
	 * sides set the group, so that it exists whichever runs first. */
	if (setpgid(p, p) && errno != EACCES) {
		kill(p, SIGKILL);
		close(fds[1]);
		return 0;
	}
	keeper_group = p;
	keeper_fd = fds[1];
	return p;
}

int cli_keeper_fd(void)
{
	return keeper_fd;
}

int cli_pid_alive(long pid)
{
	if (pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
		return 0;
	/* A zombie (dead, its parent gone, not yet reaped) is gone too. */
	char path[64], stat[256];
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return 1;
	size_t n = fread(stat, 1, sizeof stat - 1, fp);
	fclose(fp);
	stat[n] = 0;
	const char *paren = strrchr(stat, ')');
	return !(paren && paren[1] == ' ' && paren[2] == 'Z');
}

int cli_write_measured(const char *prefix, const struct locus_platform *p, const double *work,
		       size_t n, const char *header, struct locus_error *err)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s.platform.json", prefix);
	int rc = locus_platform_save(p, path, err);
	if (rc)
		return rc;
	char *data = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&data, &len);
	if (!fp)
		return cli_set_error(err, LOCUS_ENOMEM, NULL, "out of memory");
	fprintf(fp, "# %s\n", header);
	for (size_t t = 0; t < n; t++)
		fprintf(fp, "%.9g\n", work[t]);
	if (fclose(fp)) {
		free(data);
		return cli_set_error(err, LOCUS_ENOMEM, NULL, "out of memory");
	}
	snprintf(path, sizeof path, "%s.work", prefix);
	rc = locus_write_atomic(path, data, len, err);
	free(data);
	return rc;
}

static const char *sweep_host;

static int sweep_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	/* NAME.tmp.HOST.PID, from a process of this host that is gone. */
	const char *t = flag == FTW_F ? strstr(path, ".out.tmp.") : NULL;
	size_t hl = strlen(sweep_host);
	if (t && strncmp(t + 9, sweep_host, hl) == 0 && t[9 + hl] == '.') {
		char *end;
		long pid = strtol(t + 10 + hl, &end, 10);
		if (!*end && !cli_pid_alive(pid))
			unlink(path);
	}
	return 0;
}

void cli_sweep_results(const char *dir)
{
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	sweep_host = host;
	nftw(dir, sweep_one, 16, FTW_PHYS);
}

/* ---- a command per chunk ------------------------------------------------------- */

/* Appends s[0..n) to the growing string *buf. */
static int append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t want = *cap ? 2 * *cap : 64;
		while (want < *len + n + 1)
			want *= 2;
		char *grown = realloc(*buf, want);
		if (!grown)
			return -1;
		*buf = grown;
		*cap = want;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = 0;
	return 0;
}

/* `tmpl` with every placeholder replaced (malloc'ed; NULL: no memory);
 * *used_first is set when subs[0]'s appeared. */
static char *expand(const char *tmpl, const struct cli_subst *subs, size_t n, int *used_first)
{
	char *out = NULL;
	size_t len = 0, cap = 0;
	const char *p = tmpl;
	if (append(&out, &len, &cap, "", 0))
		return NULL;
	while (*p) {
		const struct cli_subst *hit = NULL;
		for (size_t i = 0; i < n && !hit; i++)
			if (!strncmp(p, subs[i].key, strlen(subs[i].key)))
				hit = &subs[i];
		if (hit == subs)
			*used_first = 1;
		int bad = hit ? append(&out, &len, &cap, hit->value, strlen(hit->value))
			      : append(&out, &len, &cap, p, 1);
		if (bad) {
			free(out);
			return NULL;
		}
		p += hit ? strlen(hit->key) : 1;
	}
	return out;
}

char **cli_command(char *const *tmpl, int n, const struct cli_subst *subs, size_t n_subs)
{
	char **argv = calloc((size_t)n + 2, sizeof *argv);
	int used = 0;
	if (!argv)
		return NULL;
	for (int i = 0; i < n; i++)
		if (!(argv[i] = expand(tmpl[i], subs, n_subs, &used))) {
			cli_command_free(argv);
			return NULL;
		}
	if (!used && !(argv[n] = strdup(subs[0].value))) {
		cli_command_free(argv);
		return NULL;
	}
	return argv;
}

void cli_command_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

char **cli_env(char *const *vars, size_t n)
{
	size_t n_env = 0;
	while (environ[n_env])
		n_env++;
	char **envp = calloc(n_env + n + 1, sizeof *envp);
	if (!envp)
		return NULL;
	memcpy(envp, environ, n_env * sizeof *envp);
	memcpy(envp + n_env, vars, n * sizeof *vars);
	return envp;
}

/* The last `max` bytes of file fd, newlines shown as ";", in out. */
static void tail_of(int fd, char *out, size_t max)
{
	out[0] = 0;
	off_t end = lseek(fd, 0, SEEK_END);
	if (end <= 0)
		return;
	off_t from = end > (off_t)max - 1 ? end - (off_t)max + 1 : 0;
	ssize_t got = pread(fd, out, max - 1, from);
	if (got <= 0)
		return;
	while (got > 0 && (out[got - 1] == '\n' || out[got - 1] == '\r'))
		got--;
	out[got] = 0;
	for (ssize_t i = 0; i < got; i++)
		if (out[i] == '\n')
			out[i] = ';';
		else if ((unsigned char)out[i] < 0x20)
			out[i] = ' ';
}

/* Copies what the command wrote on stderr to ours. */
static void forward(int fd)
{
	char buf[8192];
	ssize_t got;
	if (lseek(fd, 0, SEEK_SET) != 0)
		return;
	while ((got = read(fd, buf, sizeof buf)) > 0)
		if (write(2, buf, (size_t)got) != got)
			break;
}

/* Copies a chunk's collected stdout to ours in whole lines: each write
 * ends at a newline and, where the lines allow, stays within PIPE_BUF,
 * which a pipe (the launcher's) takes in one piece. */
static void forward_whole(int fd)
{
	char buf[PIPE_BUF];
	size_t have = 0;
	ssize_t got;
	if (lseek(fd, 0, SEEK_SET) != 0)
		return;
	for (;;) {
		got = read(fd, buf + have, sizeof buf - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got > 0)
			have += (size_t)got;
		if (!have)
			break;
		/* Up to the last newline, or everything when the buffer holds
		 * one long line (or the end without a newline). */
		size_t cut = have;
		if (got > 0 && have == sizeof buf) {
			while (cut > 0 && buf[cut - 1] != '\n')
				cut--;
			if (cut == 0)
				cut = have;
		} else if (got > 0) {
			continue; /* read more before writing */
		}
		if (write(1, buf, cut) != (ssize_t)cut)
			return;
		memmove(buf, buf + cut, have - cut);
		have -= cut;
		if (got <= 0 && !have)
			break;
	}
}

/* The whole of file fd, in a malloc'ed buffer. */
static int slurp(int fd, char **data, size_t *len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	*data = NULL;
	*len = 0;
	if (end < 0 || lseek(fd, 0, SEEK_SET) != 0)
		return -1;
	if (end == 0)
		return 0;
	char *buf = malloc((size_t)end);
	if (!buf)
		return -1;
	size_t got = 0;
	while (got < (size_t)end) {
		ssize_t k = read(fd, buf + got, (size_t)end - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	*data = buf;
	*len = got;
	return 0;
}

int cli_spawn(char *const argv[], char *const envp[], const char *out_path, char **captured,
	      size_t *captured_len, char *why, size_t why_size)
{
	int rc = 1, err_fd = -1, out_fd = -1, std_fd = -1;
	char out_tmp[PATH_MAX + 32], errpath[PATH_MAX], outpath[PATH_MAX];
	const char *tmpdir = getenv("TMPDIR");

	/* stderr into a file that is shown on success and quoted on failure. */
	snprintf(errpath, sizeof errpath, "%s/locus-stderr-XXXXXX",
		 tmpdir && *tmpdir ? tmpdir : "/tmp");
	if ((err_fd = mkstemp(errpath)) < 0) {
		snprintf(why, why_size, "cannot make a file for the command's stderr in %s: %s",
			 tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
		goto out;
	}
	unlink(errpath);
	if (out_path) {
		char host[64] = "";
		gethostname(host, sizeof host - 1);
		snprintf(out_tmp, sizeof out_tmp, "%s.tmp.%s.%d", out_path, host, (int)getpid());
		snprintf(live_tmp, sizeof live_tmp, "%s", out_tmp);
		if ((out_fd = open(out_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
			snprintf(why, why_size, "cannot write %s: %s", out_tmp, strerror(errno));
			goto out;
		}
	} else {
		/* stdout too is collected, to be written whole on success and
		 * quoted in the failure report otherwise: never a failed
		 * attempt's output, never half a line of another chunk. */
		snprintf(outpath, sizeof outpath, "%s/locus-stdout-XXXXXX",
			 tmpdir && *tmpdir ? tmpdir : "/tmp");
		if ((std_fd = mkstemp(outpath)) < 0) {
			snprintf(why, why_size,
				 "cannot make a file for the command's stdout in %s: %s",
				 tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
			goto out;
		}
		unlink(outpath);
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (out_fd >= 0 || std_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, out_fd >= 0 ? out_fd : std_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	/* The command starts with no signal blocked (an engine's thread
	 * blocks them) and the usual dispositions (the rank ignores SIGPIPE),
	 * in the keeper's process group (cli_keep_commands; else one of its
	 * own), so that a signal to the rank stops it and everything it
	 * started, and the keeper kills them all if the rank is killed. */
	posix_spawnattr_t attr;
	sigset_t none, defaults;
	sigemptyset(&none);
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGPIPE);
	sigaddset(&defaults, SIGTERM);
	sigaddset(&defaults, SIGINT);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	posix_spawnattr_setpgroup(&attr, keeper_group);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
					    POSIX_SPAWN_SETPGROUP);
	pid_t pid;
	pthread_mutex_lock(&spawn_lock);
	int src = posix_spawnp(&pid, argv[0], &fa, &attr, argv, envp);
	if (src == EPERM && keeper_group > 0) {
		/* The keeper is gone (killed from outside): a group of its own. */
		keeper_group = 0;
		posix_spawnattr_setpgroup(&attr, 0);
		src = posix_spawnp(&pid, argv[0], &fa, &attr, argv, envp);
	}
	if (src == 0)
		child = pid;
	pthread_mutex_unlock(&spawn_lock);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (src != 0) {
		snprintf(why, why_size, "cannot run \"%s\": %s", argv[0], strerror(src));
		goto out;
	}
	if (cli_cancelled)
		kill(-group_of(pid), SIGTERM);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	child = 0;
	char tail[512], otail[256] = "";
	tail_of(err_fd, tail, sizeof tail);
	if (std_fd >= 0)
		tail_of(std_fd, otail, sizeof otail);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		rc = 0;
		if (std_fd >= 0 && captured) {
			if (slurp(std_fd, captured, captured_len)) {
				snprintf(why, why_size, "out of memory for the command's stdout");
				rc = 1;
			}
		} else if (std_fd >= 0) {
			forward_whole(std_fd);
		}
		forward(err_fd);
	} else if (WIFEXITED(status)) {
		snprintf(why, why_size, "%s exited with status %d%s%s%s%s", argv[0],
			 WEXITSTATUS(status), tail[0] ? "; stderr: " : "", tail,
			 otail[0] ? "; stdout: " : "", otail);
	} else if (WIFSIGNALED(status)) {
		snprintf(why, why_size, "%s was killed by signal %d (%s)%s%s%s%s", argv[0],
			 WTERMSIG(status), strsignal(WTERMSIG(status)), tail[0] ? "; stderr: " : "",
			 tail, otail[0] ? "; stdout: " : "", otail);
	} else {
		snprintf(why, why_size, "%s ended abnormally", argv[0]);
	}
	if (rc == 0 && out_fd >= 0) {
		if (fsync(out_fd) != 0 || close(out_fd) != 0 || rename(out_tmp, out_path) != 0) {
			snprintf(why, why_size, "cannot write %s: %s", out_path, strerror(errno));
			out_fd = -1;
			unlink(out_tmp);
			rc = 1;
			goto out;
		}
		out_fd = -1;
	}
out:
	if (out_fd >= 0) {
		close(out_fd);
		unlink(out_tmp);
	}
	live_tmp[0] = 0;
	if (err_fd >= 0)
		close(err_fd);
	if (std_fd >= 0)
		close(std_fd);
	return rc;
}
