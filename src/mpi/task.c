/*
 * Running the caller's function on a chunk (engine.h). On a thread of its
 * own when MPI allows it, so that the rank's main thread keeps serving
 * its peers' fetches and the policy's messages while the function runs;
 * the thread never calls MPI.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi/engine.h"

static int fail(struct job *j, int code, const char *what, const char *path)
{
	snprintf(j->why, sizeof j->why, "%s %.800s: %.100s", what, path, strerror(errno));
	j->rc = code;
	return code;
}

/* Writes the fetched bytes where the function expects the chunk. */
static int write_scratch(struct job *j)
{
	int fd = open(j->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail(j, LOCUS_EIO, "cannot create", j->path);
	const char *p = j->data;
	for (size_t left = j->length; left > 0;) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			fail(j, LOCUS_EIO, "cannot write", j->path);
			close(fd);
			unlink(j->path);
			return j->rc;
		}
		p += w;
		left -= (size_t)w;
	}
	if (close(fd) != 0) {
		fail(j, LOCUS_EIO, "cannot write", j->path);
		unlink(j->path);
		return j->rc;
	}
	return 0;
}

/* Reads a local chunk into memory, checking its length. */
static int read_local(struct job *j)
{
	int fd = open(j->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		fail(j, LOCUS_EIO, "cannot read", j->path);
		if (fd >= 0)
			close(fd);
		return j->rc;
	}
	if ((uint64_t)st.st_size != j->length) {
		close(fd);
		snprintf(j->why, sizeof j->why, "%.800s is %lld bytes, the catalog says %llu",
			 j->path, (long long)st.st_size, (unsigned long long)j->length);
		return j->rc = LOCUS_EINCOMPLETE;
	}
	j->data = malloc(j->length ? j->length : 1);
	if (!j->data) {
		close(fd);
		snprintf(j->why, sizeof j->why, "out of memory for %.800s", j->path);
		return j->rc = LOCUS_ENOMEM;
	}
	for (size_t at = 0; at < j->length;) {
		ssize_t got = pread(fd, (char *)j->data + at, j->length - at, (off_t)at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got == 0)
				errno = EIO;
			fail(j, LOCUS_EIO, "cannot read", j->path);
			close(fd);
			return j->rc;
		}
		at += (size_t)got;
	}
	close(fd);
	return 0;
}

void locus__task_run(struct engine *e, struct job *j)
{
	int remote = !j->chunk.local;
	j->rc = 0;
	j->why[0] = 0;
	if (remote)
		write_scratch(j);
	else if (e->opt->want_bytes)
		read_local(j);
	j->read_end = locus__mpi_now(e);
	if (!j->rc) {
		j->chunk.data = e->opt->want_bytes ? j->data : NULL;
		j->output = NULL;
		j->output_len = 0;
		j->chunk.output = e->opt->output ? &j->output : NULL;
		j->chunk.output_len = e->opt->output ? &j->output_len : NULL;
		j->rc = e->fn(e->user, &j->chunk, j->why, sizeof j->why);
		if (j->rc) {
			/* A failed attempt's output is never shown. */
			free(j->output);
			j->output = NULL;
			j->output_len = 0;
		}
		if (j->rc && !j->why[0])
			snprintf(j->why, sizeof j->why, "the function returned %d", j->rc);
		if (remote)
			unlink(j->path);
	}
	j->end = locus__mpi_now(e);
}

static void *thread_main(void *arg)
{
	struct engine *e = arg;
	pthread_mutex_lock(&e->mu);
	for (;;) {
		while (!e->job_ready && !e->thread_quit)
			pthread_cond_wait(&e->cv_job, &e->mu);
		if (e->thread_quit)
			break;
		e->job_ready = 0;
		pthread_mutex_unlock(&e->mu);
		locus__task_run(e, &e->job);
		pthread_mutex_lock(&e->mu);
		__atomic_store_n(&e->job_done, 1, __ATOMIC_RELEASE);
		pthread_cond_signal(&e->cv_main);
	}
	pthread_mutex_unlock(&e->mu);
	return NULL;
}

int locus__task_start_thread(struct engine *e)
{
	if (pthread_mutex_init(&e->mu, NULL))
		return LOCUS_ENOMEM;
	if (pthread_cond_init(&e->cv_job, NULL)) {
		pthread_mutex_destroy(&e->mu);
		return LOCUS_ENOMEM;
	}
	if (pthread_cond_init(&e->cv_main, NULL)) {
		pthread_cond_destroy(&e->cv_job);
		pthread_mutex_destroy(&e->mu);
		return LOCUS_ENOMEM;
	}
	if (pthread_create(&e->thread, NULL, thread_main, e)) {
		pthread_cond_destroy(&e->cv_main);
		pthread_cond_destroy(&e->cv_job);
		pthread_mutex_destroy(&e->mu);
		return LOCUS_ENOMEM;
	}
	return 0;
}

void locus__task_stop_thread(struct engine *e)
{
	pthread_mutex_lock(&e->mu);
	e->thread_quit = 1;
	pthread_cond_signal(&e->cv_job);
	pthread_mutex_unlock(&e->mu);
	pthread_join(e->thread, NULL);
	pthread_cond_destroy(&e->cv_main);
	pthread_cond_destroy(&e->cv_job);
	pthread_mutex_destroy(&e->mu);
}
