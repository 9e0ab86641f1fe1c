/*
 * What the nodes can do, for a platform file (locus_mpi_probe,
 * include/locus/mpi.h): the slowest node's local storage reading a 64 MiB
 * file it has just written (its first rank on each host: the simulator's
 * disk_bw is a read bandwidth), and MPI moving 64 MiB from the first
 * worker rank to the last. Buffers are written before the clock starts,
 * so that what is timed is the storage and the transport.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locus/mpi.h"

void locus_mpi_probe(MPI_Comm comm, const char *dir, double *disk_bw, double *net_bw)
{
	const size_t n = (size_t)64 << 20;
	int rank, size, local = 0;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	MPI_Comm host;
	MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
	MPI_Comm_rank(host, &local);
	MPI_Comm_free(&host);
	char *buf = malloc(n);
	if (buf)
		memset(buf, 'x', n);
	double disk = 0;
	if (buf && local == 0) {
		char path[4096];
		snprintf(path, sizeof path, "%s/locus-probe-%d-%ld", dir ? dir : "/dev/shm", rank,
			 (long)getpid());
		int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd >= 0 && write(fd, buf, n) == (ssize_t)n && !fsync(fd)) {
			double t0 = MPI_Wtime();
			if (pread(fd, buf, n, 0) == (ssize_t)n)
				disk = (double)n / (MPI_Wtime() - t0);
		}
		if (fd >= 0)
			close(fd);
		unlink(path);
	}
	/* The slowest host's; hosts that did not measure say nothing. */
	double mine = disk > 0 ? disk : 1e300, slowest = 0;
	MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
	*disk_bw = slowest < 1e300 ? slowest : 0;
	int from = size > 2 ? 1 : 0, to = size - 1, ok = buf != NULL, all = 0;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
	double net = 0;
	if (all && from != to) {
		MPI_Barrier(comm);
		double t0 = MPI_Wtime();
		if (rank == from) {
			MPI_Send(buf, (int)n, MPI_BYTE, to, 0, comm);
			MPI_Recv(&ok, 1, MPI_INT, to, 1, comm, MPI_STATUS_IGNORE);
			net = (double)n / (MPI_Wtime() - t0);
		} else if (rank == to) {
			MPI_Recv(buf, (int)n, MPI_BYTE, from, 0, comm, MPI_STATUS_IGNORE);
			MPI_Send(&ok, 1, MPI_INT, from, 1, comm);
		}
	}
	MPI_Reduce(&net, net_bw, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
	free(buf);
}
