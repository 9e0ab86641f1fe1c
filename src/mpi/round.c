/*
 * A run (locus_mpi_flow_run) in rounds: each round sets up the ranks'
 * nodes and roles, directories and policy, runs to its end, and a round
 * that lost a file gives way to the next.
 */
#define _GNU_SOURCE
#include "core/journal.h"
#include "mpi/chunks.h"
#include "mpi/runtime.h"

#include <dirent.h>
#include <sys/statvfs.h>

static int roles(struct flow *f);

static int check_names(struct flow *f)
{
	const struct locus_graph *g = f->g;
	char nb[64];
	for (uint32_t o = 0; o < g->n_objects; o++)
		if (!locus__rt_safe_name(g->objects[o].name))
			return locus__err(
			    f->err, LOCUS_EINVAL, NULL, 0, 0,
			    "file \"%s\" cannot be used: a workflow's file names must "
			    "be relative, without \"..\"",
			    g->objects[o].name ? g->objects[o].name : "");
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task *tk = &g->tasks[t];
		for (uint32_t k = 0; k < tk->n_in; k++)
			if (g->input_as && g->input_as[tk->in_at + k] &&
			    !locus__rt_safe_name(g->input_as[tk->in_at + k]))
				return locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
						  "task %s names an input \"%s\": names must be "
						  "relative, without \"..\"",
						  locus__rt_task_name(f, t, nb, sizeof nb),
						  g->input_as[tk->in_at + k]);
		for (uint32_t k = 0; k < tk->n_out; k++)
			if (g->output_as && g->output_as[tk->out_at + k] &&
			    !locus__rt_safe_name(g->output_as[tk->out_at + k]))
				return locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
						  "task %s names an output \"%s\": names must be "
						  "relative, without \"..\"",
						  locus__rt_task_name(f, t, nb, sizeof nb),
						  g->output_as[tk->out_at + k]);
	}
	return 0;
}

/* Nodes and roles: K worker nodes (emulated, or the ranks' hosts), then D
 * nodes of the scheduler ranks, without cores. */
static int layout(struct flow *f)
{
	const struct locus_mpi_flow_options *o = f->opt;
	const struct locus__rt_chunks *ck = f->ck;
	size_t D = ck ? ck->schedulers : o->dispatchers ? o->dispatchers : 1;
	if ((size_t)f->size < D + 1)
		return locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
				  "%d ranks cannot run %zu scheduler rank%s and a worker", f->size,
				  D, D == 1 ? "" : "s");
	char host[MPI_MAX_PROCESSOR_NAME + 1];
	locus__mpi_node_name(host);
	char *hosts = calloc((size_t)f->size, MPI_MAX_PROCESSOR_NAME);
	uint32_t *rank_node = calloc((size_t)f->size, sizeof *rank_node);
	if (!hosts || !rank_node) {
		free(hosts);
		free(rank_node);
		return locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME,
		      MPI_CHAR, f->comm);
	f->one_host = 1;
	for (size_t r = 1; r < (size_t)f->size; r++)
		f->one_host &= !strcmp(hosts, hosts + r * MPI_MAX_PROCESSOR_NAME);
	size_t W = (size_t)f->size - D, K = 0;
	if (ck) {
		/* A store's nodes, each worker rank's matched by the caller. */
		K = ck->n_nodes;
		for (size_t r = D; r < (size_t)f->size; r++)
			rank_node[r] = ck->rank_node[r];
	} else if (o->emulate_nodes) {
		K = o->emulate_nodes < W ? o->emulate_nodes : W;
		for (size_t r = D; r < (size_t)f->size; r++)
			rank_node[r] = (uint32_t)((r - D) % K);
	} else {
		for (size_t r = D; r < (size_t)f->size; r++) {
			size_t k = 0;
			while (k < K &&
			       strcmp(hosts + (size_t)f->node_rank[k] * MPI_MAX_PROCESSOR_NAME,
				      hosts + r * MPI_MAX_PROCESSOR_NAME))
				k++;
			if (k == K) {
				int *nr = realloc(f->node_rank, (K + 1) * sizeof *nr);
				if (!nr) {
					free(hosts);
					free(rank_node);
					return locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0,
							  "out of memory");
				}
				f->node_rank = nr;
				nr[K++] = (int)r; /* the node's first rank, for its name */
			}
			rank_node[r] = (uint32_t)k;
		}
	}
	f->D = D;
	f->K = K;
	size_t n = K + D;
	char **names = calloc(n, sizeof *names);
	int *cores = calloc(n, sizeof *cores);
	int rc = names && cores ? 0 : LOCUS_ENOMEM;
	for (size_t r = D; r < (size_t)f->size && !rc; r++)
		cores[rank_node[r]]++;
	for (size_t i = 0; i < n && !rc; i++) {
		char buf[MPI_MAX_PROCESSOR_NAME + 16];
		if (i >= K)
			locus__rt_fmt(buf, sizeof buf, "dispatcher%zu", i - K);
		else if (ck)
			locus__rt_fmt(buf, sizeof buf, "%s", ck->node_names[i]);
		else if (o->emulate_nodes)
			locus__rt_fmt(buf, sizeof buf, "node%03zu", i);
		else
			locus__rt_fmt(buf, sizeof buf, "%s",
				      hosts + (size_t)f->node_rank[i] * MPI_MAX_PROCESSOR_NAME);
		if (!(names[i] = strdup(buf)))
			rc = LOCUS_ENOMEM;
	}
	free(hosts);
	if (!rc)
		rc = locus_platform_create(&f->plat, (const char *const *)names, cores, n, f->err);
	else
		locus__err(f->err, rc, NULL, 0, 0, "out of memory");
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(cores);
	/* Each worker node's ranks, in rank order. */
	free(f->node_rank);
	f->node_rank = malloc((size_t)f->size * sizeof *f->node_rank);
	f->node_at = calloc(K + 1, sizeof *f->node_at);
	if (!rc && (!f->node_rank || !f->node_at))
		rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	/* A run of chunks: a store node without a worker rank has its chunks
	 * served by the scheduler ranks on it (listed after the workers'). */
	unsigned char *serves = NULL;
	if (!rc && ck && !(serves = calloc((size_t)f->size, 1)))
		rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	for (size_t r = 0; serves && r < D; r++) {
		uint32_t k = ck->rank_node[r];
		int workers = 0;
		for (size_t q = D; q < (size_t)f->size && !workers; q++)
			workers = rank_node[q] == k;
		serves[r] = k < K && !workers;
	}
	f->serve_node = NONE;
	if (!rc) {
		for (size_t r = 0; r < (size_t)f->size; r++)
			if (r >= D || (serves && serves[r]))
				f->node_at[(r >= D ? rank_node[r] : ck->rank_node[r]) + 1]++;
		for (size_t k = 0; k < K; k++)
			f->node_at[k + 1] += f->node_at[k];
		size_t *fill = calloc(K, sizeof *fill);
		if (!fill)
			rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		for (size_t r = D; fill && r < (size_t)f->size; r++) {
			uint32_t k = rank_node[r];
			f->node_rank[f->node_at[k] + fill[k]++] = (int)r;
		}
		for (size_t r = 0; fill && serves && r < D; r++)
			if (serves[r]) {
				uint32_t k = ck->rank_node[r];
				f->node_rank[f->node_at[k] + fill[k]++] = (int)r;
				if ((int)r == f->rank)
					f->serve_node = k;
			}
		free(fill);
	}
	free(serves);
	if (!rc)
		f->node = f->rank < (int)D ? (uint32_t)(K + (size_t)f->rank) : rank_node[f->rank];
	if (!rc && f->rank >= (int)D)
		f->serve_node = f->node;
	free(rank_node);
	return rc;
}

/* A worker node's memory for a real run: the option's, else the
 * machine's (MemTotal) over the nodes it plays, the smallest any rank
 * sees. Collective. */
static double node_memory(struct flow *f)
{
	double mine = f->opt->node_memory;
	if (!(mine > 0)) {
		mine = INFINITY;
		FILE *in = fopen("/proc/meminfo", "r");
		char line[256];
		unsigned long long kb;
		while (in && fgets(line, sizeof line, in))
			if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
				mine = (double)kb * 1024 / (double)(f->one_host && f->K ? f->K : 1);
		if (in)
			fclose(in);
	}
	double all = 0;
	MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MIN, f->comm);
	return isfinite(all) ? floor(all) : 0;
}

/* A worker node's room for its tasks' disk (DISK) in a real run: the
 * option's, else the space free to this user in the file system that
 * holds the node's storage, over the nodes this machine plays when they
 * share it, the smallest any rank sees. Collective. */
static double node_disk(struct flow *f)
{
	double mine = f->opt->node_disk;
	struct statvfs sv;
	if (!(mine > 0)) {
		mine = INFINITY;
		if (f->node_dir[0] && !statvfs(f->node_dir, &sv))
			mine = (double)sv.f_bavail * (double)sv.f_frsize /
			       (double)(f->one_host && f->K ? f->K : 1);
	}
	double all = 0;
	MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MIN, f->comm);
	return isfinite(all) ? floor(all) : 0;
}

void locus__rt_ledgers_open(struct flow *f)
{
	int want = f->plat && f->g && locus__demands(f->g), all = 0;
	MPI_Allreduce(&want, &all, 1, MPI_INT, MPI_MIN, f->comm);
	f->res_host = MPI_COMM_NULL;
	f->res_win = MPI_WIN_NULL;
	if (!all)
		return;
	double mem = node_memory(f), disk = node_disk(f);
	size_t size = 0, *at = calloc(f->K + 1, sizeof *at);
	for (size_t k = 0; k < f->K; k++) {
		f->plat->nodes[k].memory = mem;
		f->plat->nodes[k].storage = disk;
		at[k] = size;
		size += (locus__ledger_size((size_t)f->plat->nodes[k].cores) + 15) & ~(size_t)15;
	}
	int hr = 0;
	MPI_Comm_split_type(f->comm, MPI_COMM_TYPE_SHARED, f->rank, MPI_INFO_NULL, &f->res_host);
	MPI_Comm_rank(f->res_host, &hr);
	char *base = NULL;
	MPI_Win_allocate_shared(hr ? 0 : (MPI_Aint)size + 16, 1, MPI_INFO_NULL, f->res_host, &base,
				&f->res_win);
	MPI_Aint got = 0;
	int unit = 0;
	MPI_Win_shared_query(f->res_win, 0, &got, &unit, &base);
	f->ledgers = calloc(f->K + 1, sizeof *f->ledgers);
	for (size_t k = 0; f->ledgers && at && k < f->K; k++) {
		f->ledgers[k] = (struct locus__ledger *)(base + at[k]);
		if (!hr)
			locus__ledger_init(f->ledgers[k], &f->plat->nodes[k]);
	}
	free(at);
	/* Set up before any rank counts on it. */
	MPI_Barrier(f->res_host);
}

void locus__rt_ledgers_close(struct flow *f)
{
	free(f->ledgers);
	f->ledgers = NULL;
	if (f->res_win != MPI_WIN_NULL)
		MPI_Win_free(&f->res_win);
	if (f->res_host != MPI_COMM_NULL)
		MPI_Comm_free(&f->res_host);
}

/* The policy's processes on the ranks: workers in node order on the
 * node's ranks, schedulers on the rank of the node the policy puts them
 * on (or spread over the scheduler ranks). */
static int roles(struct flow *f)
{
	int amfs = !strcmp(f->pol->name, "amfs");
	f->n_workers = f->wl->n_workers;
	f->n_scheds = f->pol->schedulers(f->n_workers, f->ck  ? f->ck->sched_wish
						       : amfs ? 1 + 2 * f->D
							      : 0);
	f->n_procs = f->n_workers + f->n_scheds;
	f->proc_rank = malloc(f->n_procs * sizeof *f->proc_rank);
	if (!f->proc_rank)
		return locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	f->worker = NONE;
	size_t *fill = calloc(f->K, sizeof *fill);
	if (!fill)
		return locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	for (size_t w = 0; w < f->n_workers; w++) {
		uint32_t n = f->wl->worker_node[w];
		int r = f->node_rank[f->node_at[n] + fill[n]++];
		f->proc_rank[w] = r;
		if (r == f->rank)
			f->worker = (uint32_t)w;
	}
	free(fill);
	for (size_t s = 0; s < f->n_scheds; s++) {
		uint32_t n = f->pol->version >= 3 && f->pol->scheduler_node
				 ? f->pol->scheduler_node(f->wl, f->n_scheds, s)
				 : NONE;
		f->proc_rank[f->n_workers + s] =
		    n != NONE && n >= f->K && n < f->K + f->D ? (int)(n - f->K) : (int)(s % f->D);
	}
	return 0;
}

/* Whether file name `name` is a temporary a copy left
 * (NAME.locus-tmp-RANK-PID, locus__rt_copy_file) whose process is not
 * alive on this host. */
static int stale_temporary(const char *name)
{
	const char *t = strstr(name, ".locus-tmp-"), *p;
	if (!t || t == name)
		return 0;
	for (p = t + 11; *p >= '0' && *p <= '9'; p++)
		;
	if (p == t + 11 || *p != '-' || !p[1])
		return 0;
	char *end;
	long pid = strtol(p + 1, &end, 10);
	if (*end || pid <= 0 || strstr(t + 1, ".locus-tmp-"))
		return 0;
	return !locus__pid_alive(pid);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Rank 0, holding the shared directory's lock: removes the temporaries
 * killed runs left beside the workflow's files (in each directory the
 * workflow's names point into). Returns how many. */
static size_t sweep_shared(struct flow *f)
{
	const struct locus_graph *g = f->opt->graph;
	char **dirs = calloc(g->n_objects + 1, sizeof *dirs);
	size_t n = 0, swept = 0;
	if (!dirs)
		return 0;
	dirs[n++] = strdup(f->shared);
	for (uint32_t o = 0; o < g->n_objects; o++) {
		const char *slash = strrchr(g->objects[o].name, '/');
		if (!slash)
			continue;
		char p[PATH_MAX];
		locus__rt_fmt(p, sizeof p, "%s/%.*s", f->shared, (int)(slash - g->objects[o].name),
			      g->objects[o].name);
		dirs[n++] = strdup(p);
	}
	qsort(dirs, n, sizeof *dirs, str_cmp);
	for (size_t i = 0; i < n; i++) {
		if (!dirs[i] || (i && dirs[i - 1] && !strcmp(dirs[i], dirs[i - 1])))
			continue;
		DIR *d = opendir(dirs[i]);
		for (struct dirent *e; d && (e = readdir(d));) {
			char p[PATH_MAX * 2];
			locus__rt_fmt(p, sizeof p, "%s/%s", dirs[i], e->d_name);
			if (stale_temporary(e->d_name) && !unlink(p))
				swept++;
		}
		if (d)
			closedir(d);
	}
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	return swept;
}

int locus__rt_lock(struct flow *f, int fd, const char *what, const char *path)
{
	return locus__journal_lock(fd, path, what, f->opt->wait, f->opt->cancel, f->err);
}

/* Rank 0, before anything is made: the journal (opened, checked, locked)
 * and the shared directory (locked: one run at a time in it; then what
 * killed runs left there is swept). */
static int claim(struct flow *f)
{
	struct state *st = f->st;
	int rc = f->opt->journal ? locus__rt_journal_open(f, f->opt->graph) : 0;
	if (f->ck)
		return rc; /* a run of chunks has no shared directory */
	if (!rc && st->shared_fd < 0) {
		st->shared_fd = open(f->shared, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (st->shared_fd < 0)
			rc = locus__err(f->err, LOCUS_EIO, NULL, 0, 0, "shared directory %s: %s",
					f->shared, strerror(errno));
	}
	/* A file system without locks (NFS may refuse one on a directory):
	 * the run goes, unlocked and sweeping nothing. */
	int unlocked = !rc && !st->shared_locked
			   ? locus__rt_lock(f, st->shared_fd, "shared directory", f->shared)
			   : 0;
	if (unlocked < 0) {
		rc = unlocked;
	} else if (!rc && !st->shared_locked && !unlocked) {
		st->shared_locked = 1;
		st->swept_files = sweep_shared(f);
	}
	/* A journal this refused run made goes (it holds only its head). */
	if (rc && f->jmade)
		unlink(f->opt->journal);
	return rc;
}

/* The directory `local` (opt->local): there, or made when its parent is
 * (and then removed at the end, when empty); never an empty name. */
static int local_dir(struct flow *f, const char *local)
{
	struct stat sb;
	if (!*local)
		return locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
				  "the nodes' storage directory (--local) is an empty name");
	if (!stat(local, &sb))
		return S_ISDIR(sb.st_mode)
			   ? 0
			   : locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
					"nodes' storage %s: not a directory", local);
	if (errno != ENOENT)
		return locus__err(f->err, LOCUS_EIO, NULL, 0, 0, "nodes' storage %s: %s", local,
				  strerror(errno));
	if (!mkdir(local, 0755)) {
		f->st->made_local = 1;
		return 0;
	}
	int e = errno;
	if (e == EEXIST)
		return 0;
	return locus__err(f->err, LOCUS_ENOENT, NULL, 0, 0,
			  "nodes' storage %s: cannot make it: %s%s", local, strerror(e),
			  e == ENOENT ? " (its parent directory is missing)" : "");
}

/* This rank holds the run's directory `dir` (made if missing) with a
 * shared lock over the rounds: a run sweeping killed runs' directories
 * takes only those no rank holds. The directory is checked to be the
 * one locked (a sweep may have removed it between its making and the
 * lock: then made again). */
static int hold_job_dir(struct flow *f, const char *dir)
{
	struct state *st = f->st;
	for (int tries = 0; st->job_fd < 0 && tries < 100; tries++) {
		if (mkdir(dir, 0755) && errno != EEXIST)
			return locus__err(f->err, LOCUS_EIO, NULL, 0, 0, "node storage %s: %s", dir,
					  strerror(errno));
		int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		struct stat a, b;
		/* Where the file system has no locks, held without one (no
		 * sweep can take it: it cannot lock it either). */
		int held =
		    fd >= 0 && (!flock(fd, LOCK_SH) || (errno != EINTR && errno != EWOULDBLOCK));
		if (held && !fstat(fd, &a) && !stat(dir, &b) && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			st->job_fd = fd;
		else if (fd >= 0)
			close(fd);
	}
	return st->job_fd >= 0 ? 0
			       : locus__err(f->err, LOCUS_EIO, NULL, 0, 0,
					    "node storage %s: cannot hold it", dir);
}

/* A node's first rank: removes the directories under `local` of runs
 * that are gone (killed: no rank holds them, and their rank 0's process,
 * which names them, is not alive here), keeping a journal's
 * (locus-flow-j*: its resume takes their files). Returns how many. */
static size_t sweep_local(struct flow *f, const char *local)
{
	size_t swept = 0;
	DIR *d = opendir(local);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strncmp(e->d_name, "locus-flow-", 11) || e->d_name[11] < '0' ||
		    e->d_name[11] > '9' || !strcmp(e->d_name, f->st->job))
			continue;
		/* Named by its rank 0's process: one alive here may be a run
		 * that holds no lock (a locus before the locks). A zombie is
		 * not: a killed launcher's ranks wait to be reaped by an init
		 * that may take its time (then the directory was left). */
		long pid = strtol(e->d_name + 11, NULL, 10);
		if (pid > 0 && locus__pid_alive(pid))
			continue;
		char p[PATH_MAX];
		locus__rt_fmt(p, sizeof p, "%s/%s", local, e->d_name);
		int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat a, b;
		if (fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB) && !fstat(fd, &a) && !stat(p, &b) &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino && !locus__rmtree(p))
			swept++;
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
	return swept;
}

/* A journal's directory (locus-flow-jHASH) records the journal it serves
 * in this file: "PATH\nHOST\n", the absolute path its name hashes and the
 * host of the rank 0 that named it. A later run whose rank 0 is on that
 * host and finds the directory held by no run and that journal gone
 * sweeps it. */
#define JOURNAL_RECORD ".journal"

/* Writes `record` ("PATH\nHOST") into the run's directory `dir`; a
 * directory without one is kept, so a failure only costs that. */
static void record_journal(const char *dir, const char *record)
{
	char p[PATH_MAX + 16], line[PATH_MAX + 1];
	int n = locus__rt_fmt(line, sizeof line, "%s\n", record);
	locus__rt_fmt(p, sizeof p, "%s/" JOURNAL_RECORD, dir);
	int fd = n > 0 && (size_t)n < sizeof line
		     ? open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)
		     : -1;
	if (fd < 0)
		return;
	ssize_t w = write(fd, line, (size_t)n);
	(void)w; /* a short record does not match its directory's name: kept */
	close(fd);
}

/* The length of record's path (up to its "\n"). */
static size_t path_len(const char *record)
{
	return strcspn(record, "\n");
}

/* The record in directory `fd`, named `name`, into rec ("PATH\nHOST"): 1
 * when it is whole, its path absolute and hashing to that name, and it
 * names a host (a torn or foreign record keeps the directory). */
static int recorded_journal(int fd, const char *name, char *rec, size_t size)
{
	int rfd = openat(fd, JOURNAL_RECORD, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (rfd < 0)
		return 0;
	ssize_t n = read(rfd, rec, size - 1);
	close(rfd);
	if (n < 4 || rec[0] != '/' || rec[n - 1] != '\n')
		return 0;
	rec[n - 1] = 0;
	size_t k = path_len(rec);
	if (strlen(rec) != (size_t)n - 1 || !rec[k] || !rec[k + 1] || strchr(rec + k + 1, '\n'))
		return 0;
	char want[64];
	locus__rt_fmt(want, sizeof want, "locus-flow-j%016" PRIx64,
		      locus__rt_fnv(FNV_START, rec, k));
	return !strcmp(want, name);
}

/* Opens directory `name` under `local` locked (exclusive: no run holds
 * it) into *fd, with its record in path; 0 when it cannot be had. */
static int take_journal_dir(const char *local, const char *name, int *fd, char *path, size_t size)
{
	char p[PATH_MAX];
	locus__rt_fmt(p, sizeof p, "%s/%s", local, name);
	*fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat a, b;
	if (*fd >= 0 && !flock(*fd, LOCK_EX | LOCK_NB) && !fstat(*fd, &a) && !stat(p, &b) &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino && recorded_journal(*fd, name, path, size))
		return 1;
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	return 0;
}

/* A node's first rank: the records of the journals' directories under
 * `local` that no run holds, NUL-separated into *paths (*len bytes, *n
 * records; the caller frees). */
static void journal_dirs(struct flow *f, const char *local, char **paths, size_t *len, size_t *n)
{
	size_t cap = 0;
	DIR *d = opendir(local);
	for (struct dirent *e; d && (e = readdir(d));) {
		char path[PATH_MAX];
		int fd;
		if (strncmp(e->d_name, "locus-flow-j", 12) || !strcmp(e->d_name, f->st->job) ||
		    !take_journal_dir(local, e->d_name, &fd, path, sizeof path))
			continue;
		close(fd);
		size_t k = strlen(path) + 1;
		if (locus__grow(paths, &cap, *len + k, 1))
			break;
		memcpy(*paths + *len, path, k);
		*len += k;
		++*n;
	}
	if (d)
		closedir(d);
}

/* Rank 0: whether the journal of each of the `n` NUL-separated records
 * is gone; only a record of this host (where the run that made it had its
 * rank 0, and the journal lives) can say so. */
static void judge_journals(const char *recs, size_t n, char *gone)
{
	char host[MPI_MAX_PROCESSOR_NAME + 1], path[PATH_MAX];
	locus__mpi_node_name(host);
	for (size_t i = 0; i < n; recs += strlen(recs) + 1, i++) {
		size_t k = path_len(recs);
		struct stat sb;
		locus__rt_fmt(path, sizeof path, "%.*s", (int)k, recs);
		gone[i] = !strcmp(recs + k + 1, host) && stat(path, &sb) &&
			  (errno == ENOENT || errno == ENOTDIR);
	}
}

/* Removes the directories under `local` of journals that were deleted:
 * each node's first rank (`leader`) names those no run holds, rank 0
 * says whose journal is gone, and the leader removes those still held by
 * none. Collective. Returns how many this rank removed. */
static size_t sweep_journal_dirs(struct flow *f, const char *local, int leader)
{
	char *paths = NULL, *all = NULL, *gone = NULL, *verdict = NULL;
	size_t len = 0, n = 0, swept = 0;
	if (leader)
		journal_dirs(f, local, &paths, &len, &n);
	if (n && !(gone = calloc(n, 1))) {
		free(paths);
		paths = NULL;
		len = n = 0;
	}
	/* Counts fit an int: a directory listing's names. */
	int mine[2] = {(int)len, (int)n}, sum[2] = {0, 0}, *c = NULL;
	MPI_Allreduce(mine, sum, 2, MPI_INT, MPI_SUM, f->comm);
	int ok = sum[1] > 0;
	if (ok && f->rank == 0) {
		/* By rank: its bytes and paths, gathered; the same apart;
		 * their displacements. */
		c = calloc((size_t)f->size * 6, sizeof *c);
		all = malloc((size_t)sum[0]);
		verdict = calloc((size_t)sum[1], 1);
		ok = c && all && verdict;
	}
	if (sum[1])
		MPI_Bcast(&ok, 1, MPI_INT, 0, f->comm);
	if (ok) {
		int z = f->size, *bytes = c ? c + 2 * z : NULL, *nums = c ? c + 3 * z : NULL;
		int *bat = c ? c + 4 * z : NULL, *nat = c ? c + 5 * z : NULL;
		MPI_Gather(mine, 2, MPI_INT, c, 2, MPI_INT, 0, f->comm);
		for (int r = 0, b = 0, k = 0; c && r < z; b += bytes[r], k += nums[r], r++) {
			bytes[r] = c[2 * r];
			nums[r] = c[2 * r + 1];
			bat[r] = b;
			nat[r] = k;
		}
		MPI_Gatherv(paths, mine[0], MPI_CHAR, all, bytes, bat, MPI_CHAR, 0, f->comm);
		if (f->rank == 0)
			judge_journals(all, (size_t)sum[1], verdict);
		MPI_Scatterv(verdict, nums, nat, MPI_CHAR, gone, mine[1], MPI_CHAR, 0, f->comm);
	}
	const char *p = paths;
	for (size_t i = 0; ok && i < n; p += strlen(p) + 1, i++) {
		char name[64], again[PATH_MAX], dir[PATH_MAX];
		int fd;
		locus__rt_fmt(name, sizeof name, "locus-flow-j%016" PRIx64,
			      locus__rt_fnv(FNV_START, p, path_len(p)));
		locus__rt_fmt(dir, sizeof dir, "%s/%s", local, name);
		/* Taken again: a run may have begun on it since. */
		if (gone[i] && take_journal_dir(local, name, &fd, again, sizeof again)) {
			swept += !strcmp(again, p) && !locus__rmtree(dir);
			close(fd);
		}
	}
	free(paths);
	free(all);
	free(gone);
	free(verdict);
	free(c);
	return swept;
}

/* Removes the run's directory `dir` when it holds nothing but its
 * journal's record. */
static void remove_job_dir(const char *dir)
{
	DIR *d = opendir(dir);
	int other = !d;
	for (struct dirent *e; d && !other && (e = readdir(d));)
		other = strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			strcmp(e->d_name, JOURNAL_RECORD);
	if (d)
		closedir(d);
	char p[PATH_MAX + 16];
	locus__rt_fmt(p, sizeof p, "%s/" JOURNAL_RECORD, dir);
	if (!other)
		unlink(p);
	rmdir(dir);
}

/* The run's directory under `local`, named by rank 0; this node's in it;
 * the directories of killed runs there swept. Collective. */
int locus__rt_directories(struct flow *f)
{
	const char *local = f->opt->local ? f->opt->local : "/dev/shm";
	char name[64] = {0}, record[PATH_MAX] = {0};
	if (f->st->job[0]) {
		/* A later round: the same place. */
		locus__rt_fmt(name, sizeof name, "%s", f->st->job);
	} else if (f->rank == 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		locus__rt_fmt(name, sizeof name, "locus-flow-%ld-%lx", (long)getpid(),
			      (unsigned long)ts.tv_nsec);
		/* With a journal, the same place every time: a resumed run
		 * finds the files the interrupted one kept. */
		if (f->opt->journal) {
			/* Named by the journal's absolute path (its directory's
			 * real path: the journal itself may not exist yet). */
			char real[PATH_MAX];
			const char *base = locus__rt_journal_place(f, real, sizeof real);
			if (!base) {
				locus__rt_fmt(real, sizeof real, "?");
				base = strrchr(f->opt->journal, '/');
				base = base ? base + 1 : f->opt->journal;
			}
			uint64_t h = locus__rt_fnv(FNV_START, real, strlen(real));
			h = locus__rt_fnv(h, "/", 1);
			h = locus__rt_fnv(h, base, strlen(base));
			locus__rt_fmt(name, sizeof name, "locus-flow-j%016" PRIx64, h);
			char host[MPI_MAX_PROCESSOR_NAME + 1];
			locus__mpi_node_name(host);
			if (real[0] == '/' && !strchr(real, '\n') && !strchr(base, '\n'))
				locus__rt_fmt(record, sizeof record, "%s/%s\n%s", real, base, host);
		}
	}
	MPI_Bcast(name, sizeof name, MPI_CHAR, 0, f->comm);
	int first = !f->st->job[0];
	if (first && f->opt->journal)
		MPI_Bcast(record, sizeof record, MPI_CHAR, 0, f->comm);
	locus__rt_fmt(f->st->job, sizeof f->st->job, "%s", name);
	/* The round's name for partial locus__rt_results (reductions). */
	uint64_t nonce = 0;
	if (f->rank == 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		nonce = locus__rt_fnv(FNV_START, &ts, sizeof ts);
		nonce = locus__rt_fnv(nonce, &f->st->round, sizeof f->st->round);
	}
	MPI_Bcast(&nonce, 1, MPI_UINT64_T, 0, f->comm);
	f->nonce = nonce;
	/* Made if need be, and then by its real path: a task's working
	 * directory links to the node's files by absolute paths. */
	int rc = f->rank >= (int)f->D ? local_dir(f, local) : 0;
	char real[PATH_MAX];
	if (!rc && f->rank >= (int)f->D && realpath(local, real))
		local = real;
	int n = locus__rt_fmt(f->job_dir, sizeof f->job_dir, "%s/%s", local, name);
	if (!rc && (n < 0 || (size_t)n >= sizeof f->job_dir))
		rc = locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0, "--local %s: too long", local);
	if (f->rank < (int)f->D)
		f->job_dir[0] = 0; /* a scheduler rank keeps nothing there */
	if (!rc && f->job_dir[0])
		rc = hold_job_dir(f, f->job_dir);
	/* Every rank holds the run's directory before any sweeps. */
	if ((rc = locus__rt_agree(f, rc)))
		return rc;
	unsigned long swept[2] = {0, 0}, all[2] = {0, 0};
	int leader = f->job_dir[0] && f->node_rank[f->node_at[f->node]] == f->rank;
	if (first && leader && record[0])
		record_journal(f->job_dir, record);
	if (first && leader)
		swept[0] = sweep_local(f, local);
	if (first)
		swept[1] = sweep_journal_dirs(f, local, leader);
	swept[0] += swept[1];
	MPI_Reduce(swept, all, 2, MPI_UNSIGNED_LONG, MPI_SUM, 0, f->comm);
	if (first) {
		f->st->swept_dirs = all[0];
		f->st->swept_journal_dirs = all[1];
	}
	if (!f->job_dir[0])
		return 0;
	locus__rt_fmt(f->node_dir, sizeof f->node_dir, "%s/%s", f->job_dir,
		      f->plat->nodes[f->node].name);
	char p[PATH_MAX + 16];
	locus__rt_fmt(p, sizeof p, "%s/store", f->node_dir);
	struct locus_error e = {0};
	if (locus__mkdirs(p, &e))
		return locus__err(f->err, e.code, NULL, 0, 0, "node storage %s: %s", p, e.message);
	locus__rt_fmt(p, sizeof p, "%s/work", f->node_dir);
	if (locus__mkdirs(p, &e))
		return locus__err(f->err, e.code, NULL, 0, 0, "node storage %s: %s", p, e.message);
	locus__rt_fmt(p, sizeof p, "%s/reduce", f->node_dir);
	if (locus__mkdirs(p, &e))
		return locus__err(f->err, e.code, NULL, 0, 0, "node storage %s: %s", p, e.message);
	return 0;
}

/* Rank 0: every input of the workflow is in the shared directory (made,
 * of its recorded size, for stand-ins). */
static int check_inputs(struct flow *f)
{
	char p[PATH_MAX], nb[64];
	for (uint32_t o = 0; o < f->g->n_objects; o++) {
		const struct locus_object *ob = &f->g->objects[o];
		if (ob->producer != LOCUS_NONE || !ob->n_cons)
			continue;
		locus__rt_shared_path(f, o, p, sizeof p);
		struct stat st;
		/* Stand-ins read inputs of the recorded sizes: made when absent. */
		if (f->opt->stand_in > 0 && stat(p, &st) && errno == ENOENT &&
		    locus__rt_standin_output(f, p, ob->bytes))
			return locus__err(f->err, LOCUS_EIO, NULL, 0, 0, "cannot make %s: %s", p,
					  strerror(errno));
		if (stat(p, &st) || !S_ISREG(st.st_mode))
			return locus__err(
			    f->err, LOCUS_ENOENT, NULL, 0, 0,
			    "%s, an input of task %s, is not in the shared directory %s",
			    locus__rt_obj_name(f, o),
			    locus__rt_task_name(f, f->g->consumers[ob->cons_at], nb, sizeof nb),
			    f->shared);
	}
	return 0;
}

/* A run of chunks: each chunk is where the store has it (no copy on the
 * shared file system), and every rank knows it from the start. */
static int chunks_placed(struct flow *f)
{
	const struct locus_workload *wl = f->wl;
	f->ck_here = calloc(f->g->n_objects + 1, 1);
	if (!f->ck_here)
		return locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	for (uint32_t o = 0; o < f->g->n_objects; o++) {
		f->on_fs[o] = 0;
		f->obj_bytes[o] = f->g->objects[o].bytes;
		for (uint32_t k = wl->obj_at[o]; k < wl->obj_at[o + 1]; k++) {
			if (locus_replicas_add(f->rep, o, wl->holders[k]) < 0)
				return locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0,
						  "out of memory");
			if (wl->holders[k] == f->serve_node)
				f->ck_here[o] = 1;
		}
	}
	if (f->ck->here)
		*f->ck->here = f->ck_here;
	return 0;
}

static int setup(struct flow *f)
{
	const struct locus_mpi_flow_options *o = f->opt;
	int rc = 0;
	if (!o->graph || (!o->shared && !f->ck))
		rc = locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
				"a workflow and a shared directory are required");
	if (!rc && !f->ck && !realpath(o->shared, f->shared))
		rc = locus__err(f->err, LOCUS_ENOENT, NULL, 0, 0, "shared directory %s: %s",
				o->shared, strerror(errno));
	f->g = o->graph;
	if (!rc && !(f->pol = o->policy_def ? o->policy_def
					    : locus_policy_find(o->policy ? o->policy : "amfs")))
		rc = locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0, "no policy \"%s\"", o->policy);
	if (!rc)
		rc = locus_policy_check(f->pol, LOCUS_POLICY_VERSION, LOCUS_MPI_FLOW_OFFERS,
					"the MPI runtime", f->err);
	if (!rc && f->pol->version >= 2 && !(f->pol->flags & LOCUS_POLICY_GRAPHS) &&
	    locus_graph_has_edges(f->g))
		rc = locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
				"policy %s schedules independent tasks, not a workflow",
				f->pol->name);
	if (!rc && o->fn && o->stand_in > 0)
		rc = locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
				"a run has task functions or stand-ins, not both");
	if (!rc && !f->ck) /* a run of chunks names no file */
		rc = check_names(f);
	if ((rc = locus__rt_agree(f, rc)))
		return rc;
	rc = layout(f);
	if (!rc && f->rank == 0)
		rc = claim(f);
	/* Nothing is made on the nodes for a run that cannot claim its
	 * journal or its shared directory. */
	rc = locus__rt_agree(f, rc);
	if (!rc)
		rc = locus__rt_directories(f);
	locus__rt_bell_open(f);
	locus__rt_ledgers_open(f);
	if (!rc && f->res_win != MPI_WIN_NULL && !f->ledgers)
		rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if ((rc = locus__rt_agree(f, rc)))
		return rc;
	if ((o->journal || f->st->round) && (rc = locus__rt_resume(f)))
		return rc;
	rc = locus_workload_from_graph(&f->wl, f->plat, f->g, f->ck ? f->ck->cat : NULL, f->err);
	if (!rc)
		rc = roles(f);
	if (!rc && f->rank == 0 && !f->ck)
		rc = check_inputs(f);
	if (!rc && locus_replicas_create(&f->rep, f->g->n_objects, f->plat->n_nodes))
		rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	f->on_fs = calloc(f->g->n_objects + 1, 1);
	f->obj_bytes = malloc((f->g->n_objects + 1) * sizeof *f->obj_bytes);
	f->obj_sum = calloc(f->g->n_objects + 1, sizeof *f->obj_sum);
	for (size_t k = 0; f->obj_bytes && k < f->g->n_objects; k++)
		f->obj_bytes[k] = UNKNOWN;
	f->tassigned = calloc(f->g->n_tasks + 1, sizeof *f->tassigned);
	f->ran = calloc(f->g->n_tasks + 1, sizeof *f->ran);
	if (f->tassigned && f->ran) {
		locus__prefault(f->tassigned, (f->g->n_tasks + 1) * sizeof *f->tassigned);
		locus__prefault(f->ran, (f->g->n_tasks + 1) * sizeof *f->ran);
	}
	f->hosted = calloc(f->n_workers + 1, 1);
	f->sent = calloc((size_t)f->size, sizeof *f->sent);
	f->recvd = calloc((size_t)f->size, sizeof *f->recvd);
	f->batch = calloc((size_t)f->size, sizeof *f->batch);
	f->urgent = calloc((size_t)f->size, 1);
	f->pend = calloc((size_t)f->size, sizeof *f->pend);
	f->pend_in = calloc((size_t)f->size, 1);
	f->stage_bytes = calloc(4 * f->g->n_stages + 1, sizeof *f->stage_bytes);
	if (!rc && (!f->on_fs || !f->obj_bytes || !f->obj_sum || !f->tassigned || !f->ran ||
		    !f->hosted || !f->sent || !f->recvd || !f->batch || !f->urgent || !f->pend ||
		    !f->pend_in || !f->stage_bytes))
		rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	/* A policy that reads a monitor of every task: its scheduler ranks
	 * hear each task's state from the worker that has it. */
	f->monitor_all = !!(locus_policy_needs(f->pol) & LOCUS_NEEDS_MONITOR);
	if (!rc && f->monitor_all && !(f->sbatch = calloc((size_t)f->size, sizeof *f->sbatch)))
		rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if (!rc && f->monitor_all && f->rank < (int)f->D) {
		f->mon_worker = malloc((f->g->n_tasks + 1) * sizeof *f->mon_worker);
		f->mon_state = calloc(f->g->n_tasks + 1, 1);
		f->mon_since = calloc(f->g->n_tasks + 1, sizeof *f->mon_since);
		if (!f->mon_worker || !f->mon_state || !f->mon_since)
			rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		for (size_t t = 0; f->mon_worker && t < f->g->n_tasks; t++)
			f->mon_worker[t] = NONE;
	}
	if (!rc && f->rank == 0) {
		f->recs = calloc(f->g->n_tasks + 1, sizeof *f->recs);
		f->done = calloc(f->g->n_tasks + 1, 1);
		if (!f->recs || !f->done)
			rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		/* Written one task at a time while the run goes: mapped now,
		 * before the clock starts, in one call. A page fault costs a
		 * few microseconds on a virtual machine, and rank 0 took one
		 * every 56 reports (docs/mpi.md). */
		if (!rc) {
			locus__prefault(f->recs, (f->g->n_tasks + 1) * sizeof *f->recs);
			locus__prefault(f->done, f->g->n_tasks + 1);
		}
	}
	for (uint32_t k = 0; !rc && k < f->g->n_objects; k++)
		f->on_fs[k] = f->g->objects[k].producer == LOCUS_NONE;
	if (!rc && f->ck)
		rc = chunks_placed(f);
	if (!rc && locus_heap_init(&f->timers, sizeof(struct timer), locus__rt_timer_cmp))
		rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if (!rc) {
		/* The executor of this rank's worker (and of the processes it
		 * hosts): final outputs go to the shared directory, whatever
		 * the assignment says, as a run's results must. */
		if (f->worker != NONE)
			f->hosted[f->worker] = 1;
		struct locus__exec_config xc = {.wl = f->wl,
						.policy = f->pol,
						.n_schedulers = f->n_scheds,
						.rep = f->rep,
						.on_fs = f->on_fs,
						.ops = &locus__rt_mpi_ops,
						.eng = f,
						.engine = "the MPI runtime",
						.hosted = f->hosted,
						.retries = (uint32_t)o->retries,
						.finals_to_fs = 1,
						.keep_going = f->ck != NULL,
						.ledgers = f->ledgers};
		if (locus__exec_init(&f->x, &xc))
			rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		f->x_on = !rc;
	}
	f->cur = NONE;
	if (!rc)
		rc = locus__rt_fn_start(f);
	if ((rc = locus__rt_agree(f, rc)))
		return rc;
	f->mon = (struct locus_monitor){.engine = f,
					.replicas = f->rep,
					.placed = locus__rt_mon_placed,
					.moved = locus__rt_mon_moved,
					.avail = locus__rt_mon_one,
					.bandwidth = locus__rt_mon_one,
					.pair_bw = locus__rt_mon_pair_bw,
					.room = locus__rt_mon_room};
	rc = locus_kv_parse(&f->kv, o->policy_opts, f->err);
	if (!rc && f->g->n_tasks) {
		struct locus_policy_ctx ctx = {.wl = f->wl,
					       .n_workers = f->n_workers,
					       .n_schedulers = f->n_scheds,
					       .seed = o->seed,
					       .opts = &f->kv,
					       .monitor = &f->mon};
		rc = f->pol->create(&f->pstate, &ctx, f->err);
		if (!rc && locus_kv_unused(&f->kv))
			rc = locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
					"policy %s has no option \"%s\"", f->pol->name,
					locus_kv_unused(&f->kv));
	}
	return locus__rt_agree(f, rc);
}

/* One round: the workflow, or what st says is left of it. */
/* What a round held on this rank, freed (its report's graph aside). */
static void round_free(struct flow *f)
{
	if (f->jfd >= 0)
		close(f->jfd);
	if (f->pidfd >= 0)
		close(f->pidfd);
	if (f->tlog_fd >= 0)
		close(f->tlog_fd);
	locus__rt_fn_stop(f);
	if (f->pstate)
		f->pol->destroy(f->pstate);
	locus_kv_fini(&f->kv);
	if (f->x_on)
		locus__exec_fini(&f->x);
	locus__action_stack_fini(&f->acts);
	locus_heap_fini(&f->timers);
	locus_replicas_destroy(f->rep);
	locus_workload_destroy(f->wl);
	locus_platform_destroy(f->plat);
	for (size_t j = 0; j < f->n_jobs; j++)
		free(f->jobs[j].objs);
	for (size_t p = 0; p < f->n_pulls; p++)
		if (f->pulls[p].used && f->pulls[p].fd >= 0) {
			close(f->pulls[p].fd);
			unlink(f->pulls[p].tmp);
		}
	for (size_t s = 0; s < f->n_serves; s++)
		if (f->serves[s].used)
			close(f->serves[s].fd);
	free(f->jobs);
	free(f->pulls);
	free(f->serves);
	free(f->req);
	free(f->bufs);
	free(f->caps);
	for (size_t i = 0; i < f->n_spare; i++)
		free(f->spare[i].data);
	free(f->dests);
	free(f->tested);
	free(f->sent);
	free(f->recvd);
	for (int r = 0; f->batch && r < f->size; r++)
		locus__buf_fini(&f->batch[r]);
	free(f->batch);
	for (int r = 0; f->sbatch && r < f->size; r++)
		locus__buf_fini(&f->sbatch[r]);
	free(f->sbatch);
	free(f->urgent);
	free(f->pend);
	free(f->pend_in);
	for (size_t i = 0; i < OUT_MAX; i++)
		free(f->piece_buf[i]);
	free(f->rbuf);
	free(f->inbox);
	free(f->ups);
	free(f->tassigned);
	free(f->ran);
	free(f->hosted);
	free(f->fresh);
	free(f->reads);
	free(f->on_fs);
	free(f->stage_bytes);
	free(f->recs);
	free(f->done);
	free(f->mon_worker);
	free(f->mon_state);
	free(f->mon_since);
	free(f->proc_rank);
	free(f->node_rank);
	free(f->node_at);
	free(f->obj_bytes);
	free(f->fs_span);
	free(f->xfers);
	free(f->obj_sum);
	free(f->fn_paths);
	for (size_t i = 0; i < f->n_rsteps; i++) {
		free(f->rsteps[i].keep);
		free(f->rsteps[i].cover);
	}
	free(f->rsteps);
	free(f->r_keep);
	free(f->fn_ptrs);
	free(f->task_full);
	free(f->obj_full);
	free(f->obj_round);
	free(f->ck_here);
}

static int run_round(MPI_Comm comm, const struct locus_mpi_flow_options *opt,
		     const struct locus__rt_chunks *ck, struct state *st,
		     struct locus_mpi_flow_report *report, struct locus_error *err)
{
	memset(report, 0, sizeof *report);
	struct flow *f = calloc(1, sizeof *f);
	int ok = f != NULL, all = 0;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
	if (!all) {
		free(f);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	MPI_Comm_dup(comm, &f->comm);
	MPI_Comm_rank(f->comm, &f->rank);
	MPI_Comm_size(f->comm, &f->size);
	f->opt = opt;
	f->ck = ck;
	f->st = st;
	f->err = err;
	f->pid = 0;
	f->pidfd = -1;
	f->tlog_fd = -1;
	f->decide_rng = (uint64_t)f->rank + 1;
	f->fn_evfd = -1;
	f->bell = -1;
	f->host = MPI_COMM_NULL;
	f->bell_win = MPI_WIN_NULL;
	f->res_host = MPI_COMM_NULL;
	f->res_win = MPI_WIN_NULL;
	f->jfd = -1;
	int rc = setup(f);
	if (!rc) {
		MPI_Barrier(f->comm);
		f->t0 = locus__rt_mono();
		/* On one machine every rank reads the same monotonic clock:
		 * with rank 0's origin, the times of all ranks compare. */
		if (f->one_host)
			MPI_Bcast(&f->t0, 1, MPI_DOUBLE, 0, f->comm);
		locus__rt_clock_moved(f); /* a time read in setup had no origin */
		if (f->rank == 0 && !f->g->n_tasks)
			locus__rt_finish(f, 0, NULL);
		/* Every process starts. */
		for (size_t p = 0; p < f->n_procs && f->g->n_tasks > 0; p++)
			if (f->proc_rank[p] == f->rank) {
				struct locus_event ev = {.kind = LOCUS_EV_START,
							 .proc = (uint32_t)p};
				locus__rt_deliver(f, &ev);
			}
		locus__rt_loop(f);
		rc = f->end_code;
		if (rc)
			locus__err(err, rc, NULL, 0, 0, "%s", f->end_msg);
		int r2 = locus__rt_results(f, report);
		rc = locus__rt_agree(f, rc ? rc : r2);
		report->pieces = f->pieces;
		report->rings = f->rings;
		report->repeated += f->reruns;
		if (ck && ck->self) {
			f->rk.fetch_seconds = f->pull_secs;
			*ck->self = f->rk;
		}
	}
	if (st->round == 0) {
		st->skipped = f->skipped;
		st->rerun = f->rerun;
	}
	/* Each node's directory goes, unless kept (or a next round, or a
	 * run given the journal, may take files from it); then the run's.
	 * The files a resumed run or a later round took from the nodes leave
	 * the shared directory once it has succeeded. */
	int keep = opt->keep || (opt->journal && rc) || rc == ROUND_AGAIN;
	/* Kept for the journal: only what holds something (a run that
	 * failed before its tasks kept nothing). */
	int prune = keep && !opt->keep && rc != ROUND_AGAIN;
	if (f->node_dir[0] && !keep)
		locus__rmtree(f->node_dir);
	if (f->node_dir[0] && prune) {
		static const char *const parts[] = {"store", "work", "reduce", ""};
		for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
			char p[PATH_MAX + 16];
			locus__rt_fmt(p, sizeof p, "%s/%s", f->node_dir, parts[k]);
			rmdir(p);
		}
	}
	for (size_t i = 0; !rc && !opt->keep && i < st->n_copied; i++) {
		char p[PATH_MAX];
		locus__rt_fmt(p, sizeof p, "%s/%s", f->shared,
			      opt->graph->objects[st->copied[i]].name);
		unlink(p);
	}
	locus__rt_bell_close(f);
	locus__rt_ledgers_close(f);
	MPI_Barrier(f->comm);
	/* The run's directory, once every node's is gone (on every host),
	 * its journal's record with it. */
	if (f->job_dir[0] && (!keep || prune))
		remove_job_dir(f->job_dir);
	round_free(f);
	/* The result names the tasks of what this round ran. */
	if (report->result && f->own_g) {
		report->graph = f->own_g;
		f->own_g = NULL;
	}
	locus_graph_destroy(f->own_g);
	MPI_Comm_free(&f->comm);
	free(f);
	return rc;
}

void locus_mpi_flow_options_init(struct locus_mpi_flow_options *o)
{
	*o = (struct locus_mpi_flow_options){.version = LOCUS_MPI_FLOW_OPTIONS_VERSION,
					     .retries = 1};
}

int locus_mpi_flow_run(MPI_Comm comm, const struct locus_mpi_flow_options *opt,
		       struct locus_mpi_flow_report *report, struct locus_error *err)
{
	/* Every rank has the same options: every rank returns here alike. */
	if (opt && locus__check_version(opt->version, LOCUS_MPI_FLOW_OPTIONS_VERSION,
					"locus_mpi_flow_options", err))
		return LOCUS_EINVAL;
	return locus__rt_run(comm, opt, NULL, report, err);
}

int locus__rt_run(MPI_Comm comm, const struct locus_mpi_flow_options *opt,
		  const struct locus__rt_chunks *ck, struct locus_mpi_flow_report *report,
		  struct locus_error *err)
{
	struct locus_error dummy = {0};
	if (!err)
		err = &dummy;
	memset(report, 0, sizeof *report);
	struct state st = {0};
	size_t nt = opt->graph ? opt->graph->n_tasks : 0,
	       no = opt->graph ? opt->graph->n_objects : 0;
	st.claimed = calloc(nt + 1, 1);
	st.place = malloc((no + 1) * sizeof *st.place);
	st.bytes = calloc(no + 1, sizeof *st.bytes);
	st.sum = calloc(no + 1, sizeof *st.sum);
	st.work = malloc((nt + 1) * sizeof *st.work);
	int ok = st.claimed && st.place && st.bytes && st.sum && st.work, all = 0;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
	int rc = all ? 0 : locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	st.shared_fd = st.job_fd = -1;
	for (size_t o = 0; st.place && o < no; o++)
		st.place[o] = -1;
	for (size_t t = 0; st.work && t < nt; t++)
		st.work[t] = -1;
	int rank = 0;
	MPI_Comm_rank(comm, &rank);
	if (!rc && rank == 0 && opt->status && !opt->journal) {
		/* A run that resumes nothing starts with no task logs (a
		 * resumed one keeps those of the tasks done before). */
		char logs[PATH_MAX];
		locus__rt_tasklog_dir(opt->status, logs, sizeof logs);
		locus__rmtree(logs);
	}
	if (!rc && rank == 0 && opt->status) {
		/* The status file, written once the run holds its directory
		 * (a refused run leaves the running one's alone). */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		st.began = calloc(nt + 1, 1);
		st.fails = calloc(nt + 1, sizeof *st.fails);
		if (!st.began || !st.fails) {
			free(st.began);
			free(st.fails);
			st.began = NULL;
			st.fails = NULL;
		}
		st.status_t0 = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
		st.status_dirty = 1;
	}
	/* A round that lost a file ends, and the next runs what is left. */
	while (!rc) {
		rc = run_round(comm, opt, ck, &st, report, err);
		if (rc != ROUND_AGAIN)
			break;
		for (size_t t = 0; st.began && t < nt; t++)
			if (!st.claimed[t])
				st.began[t] = 0;
		if (++st.round == MAX_ROUNDS) {
			rc = locus__err(
			    err, LOCUS_EINCOMPLETE, NULL, 0, 0,
			    "files were lost in each of %d rounds (the last: %s): giving "
			    "up",
			    MAX_ROUNDS, err->message);
			break;
		}
		locus_mpi_flow_report_fini(report);
		rc = 0;
	}
	if (st.began && st.status_live)
		locus__rt_status_write(opt, &st, rc ? "failed" : "complete",
				       rc ? err->message : NULL);
	free(st.began);
	free(st.fails);
	report->skipped = st.skipped;
	report->rerun = st.rerun;
	report->rounds = st.round + 1;
	report->lost = st.lost;
	report->net_bw = st.peer_secs > 0 ? st.peer_bytes / st.peer_secs : 0;
	report->fs_bw = st.fs_secs > 0 ? st.fs_bytes / st.fs_secs : 0;
	report->work = st.work;
	report->swept_files = st.swept_files;
	report->swept_dirs = st.swept_dirs;
	report->swept_journal_dirs = st.swept_journal_dirs;
	st.work = NULL;
	/* The locks go; a --local directory this rank made goes when empty
	 * (its run directory first: every rank's node directory went before
	 * the last round's barrier). */
	if (st.job_fd >= 0)
		close(st.job_fd);
	if (st.shared_fd >= 0)
		close(st.shared_fd);
	if (st.made_local) {
		char p[PATH_MAX];
		const char *local = opt->local ? opt->local : "/dev/shm";
		locus__rt_fmt(p, sizeof p, "%s/%s", local, st.job);
		rmdir(p);
		rmdir(local);
	}
	free(st.claimed);
	free(st.place);
	free(st.bytes);
	free(st.sum);
	free(st.copied);
	free(st.work);
	return rc;
}

void locus_mpi_flow_report_fini(struct locus_mpi_flow_report *report)
{
	if (!report)
		return;
	locus_result_destroy(report->result);
	locus_platform_destroy(report->platform);
	locus_graph_destroy(report->graph);
	free(report->work);
	memset(report, 0, sizeof *report);
}
