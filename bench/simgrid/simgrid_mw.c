/*
 * The master/worker star of bench_sim, written for SimGrid (3.32, C API),
 * the reference simulator of the field: the same platform, the same
 * worker speeds (drawn with Locus's generator from the same seed) and the
 * same protocol as Locus's fifo policy runs it, so that both simulators
 * can be timed on one scenario and their makespans compared.
 *
 *   simgrid_mw WORKERS TASKS_PER_WORKER serial|maxmin SEED
 *
 * prints "makespan SECONDS" (the end of the last computation). The star:
 * a master host whose link is 1.25 GB/s and N worker hosts with 125 MB/s
 * links, 50 us latency each (100 us from master to worker), worker speeds
 * uniform in 0.5..2 Gflop/s; a task is 1 Gflop with 1 MB of input that
 * the master holds; requests are 24 bytes (40 after a task, which reports
 * its time), assignments 32, the final "no more" 16.
 *
 *  - serial: the master sends each task's input itself and waits for the
 *    transfer to end before it serves the next request (a source with one
 *    transfer slot, in Locus);
 *  - maxmin: the master answers each request with an assignment at once
 *    and the worker then fetches the input, every transfer sharing the
 *    master's link max-min fairly (Locus's remote reads).
 *
 * SimGrid runs with its pure max-min model (CM02, no cross traffic, no
 * latency weighting), and mailboxes have permanent receivers, so that a
 * message travels as soon as it is sent, as in Locus.
 *
 * Built by CMake only when SimGrid is installed (apt install
 * libsimgrid-dev); bench_sim runs it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

#include "locus/rng.h"

#define TASK_FLOPS 1e9
#define TASK_BYTES 1e6

static size_t n_workers, n_tasks_left, n_stopped;
static int serial;
static double last_end;

enum { MSG_REQUEST, MSG_ASSIGN, MSG_DATA, MSG_STOP };

struct msg {
	int kind;
	size_t worker;
};

static struct msg *msg_new(int kind, size_t worker)
{
	struct msg *m = malloc(sizeof *m);
	if (!m)
		abort();
	m->kind = kind;
	m->worker = worker;
	return m;
}

static sg_mailbox_t box(const char *what, size_t i)
{
	char name[64];
	snprintf(name, sizeof name, "%s-%zu", what, i);
	return sg_mailbox_by_name(name);
}

static void send_detached(sg_mailbox_t mb, struct msg *m, long bytes)
{
	/* Detaching starts it; nobody waits for it. */
	sg_comm_detach(sg_mailbox_put_init(mb, m, bytes), free);
}

static void master(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sg_mailbox_set_receiver("master-0");
	sg_mailbox_t in = box("master", 0);
	while (n_stopped < n_workers) {
		struct msg *req = sg_mailbox_get(in);
		size_t w = req->worker;
		free(req);
		if (!n_tasks_left) {
			send_detached(box("worker", w), msg_new(MSG_STOP, w), 16);
			n_stopped++;
		} else if (serial) {
			n_tasks_left--;
			sg_mailbox_put(box("worker", w), msg_new(MSG_DATA, w), (long)TASK_BYTES);
		} else {
			n_tasks_left--;
			send_detached(box("worker", w), msg_new(MSG_ASSIGN, w), 32);
			send_detached(box("data", w), msg_new(MSG_DATA, w), (long)TASK_BYTES);
		}
	}
}

static void worker(int argc, char **argv)
{
	size_t me = (size_t)strtoul(argv[argc - 1], NULL, 10);
	char name[64];
	snprintf(name, sizeof name, "worker-%zu", me);
	sg_mailbox_set_receiver(name);
	sg_mailbox_t in = box("worker", me), data = box("data", me), master = box("master", 0);
	long req_bytes = 24;
	for (;;) {
		send_detached(master, msg_new(MSG_REQUEST, me), req_bytes);
		req_bytes = 40;
		struct msg *m = sg_mailbox_get(in);
		int kind = m->kind;
		free(m);
		if (kind == MSG_STOP)
			return;
		if (kind == MSG_ASSIGN)
			free(sg_mailbox_get(data));
		/* The host's speed is the worker's: 1 Gflop takes 1 / speed s. */
		sg_actor_execute(TASK_FLOPS);
		if (simgrid_get_clock() > last_end)
			last_end = simgrid_get_clock();
	}
}

/* The star in SimGrid's platform format: routes through the master's link
 * and the worker's. Full routing (a table of routes) is SimGrid's fastest
 * here; it costs 8 bytes per pair of hosts, 540 MB at 8,192 workers. */
static int write_platform(const char *path, size_t n, uint64_t seed)
{
	FILE *fp = fopen(path, "w");
	struct locus_rng rng;
	if (!fp)
		return -1;
	locus_rng_init(&rng, seed);
	fprintf(fp, "<?xml version='1.0'?>\n"
		    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
		    "<platform version=\"4.1\">\n<zone id=\"star\" routing=\"Full\">\n"
		    "<host id=\"master\" speed=\"1Gf\"/>\n"
		    "<link id=\"lm\" bandwidth=\"1.25GBps\" latency=\"50us\"/>\n");
	for (size_t i = 0; i < n; i++) {
		double s = 0.5 + 1.5 * locus_rng_uniform(&rng);
		fprintf(fp,
			"<host id=\"w%zu\" speed=\"%.17gf\"/>\n"
			"<link id=\"l%zu\" bandwidth=\"125MBps\" latency=\"50us\"/>\n",
			i, s * 1e9, i);
	}
	for (size_t i = 0; i < n; i++)
		fprintf(fp,
			"<route src=\"master\" dst=\"w%zu\"><link_ctn id=\"lm\"/>"
			"<link_ctn id=\"l%zu\"/></route>\n",
			i, i);
	fprintf(fp, "</zone>\n</platform>\n");
	return fclose(fp) ? -1 : 0;
}

int main(int argc, char **argv)
{
	char *sg_argv[] = {argv[0],
			   "--cfg=network/model:CM02",
			   "--cfg=network/crosstraffic:0",
			   "--cfg=network/weight-S:0",
			   "--cfg=contexts/stack-size:64",
			   "--log=root.thresh:critical",
			   NULL};
	int sg_argc = 6;
	char path[256];

	if (argc != 5 || (strcmp(argv[3], "serial") && strcmp(argv[3], "maxmin"))) {
		fprintf(stderr, "usage: %s WORKERS TASKS_PER_WORKER serial|maxmin SEED\n", argv[0]);
		return 2;
	}
	n_workers = (size_t)strtoul(argv[1], NULL, 10);
	n_tasks_left = n_workers * (size_t)strtoul(argv[2], NULL, 10);
	serial = strcmp(argv[3], "serial") == 0;
	snprintf(path, sizeof path, "/tmp/locus-simgrid-%ld.xml", (long)getpid());
	if (!n_workers || write_platform(path, n_workers, strtoull(argv[4], NULL, 10))) {
		fprintf(stderr, "%s: cannot write the platform %s\n", argv[0], path);
		return 1;
	}
	simgrid_init(&sg_argc, sg_argv);
	simgrid_load_platform(path);
	remove(path);
	sg_actor_create("master", sg_host_by_name("master"), master, 0, NULL);
	for (size_t i = 0; i < n_workers; i++) {
		char host[32], id[32];
		snprintf(host, sizeof host, "w%zu", i);
		snprintf(id, sizeof id, "%zu", i);
		char *wargv[] = {id, NULL};
		sg_actor_create(host, sg_host_by_name(host), worker, 1, wargv);
	}
	simgrid_run();
	printf("makespan %.17g\n", last_end);
	return 0;
}
