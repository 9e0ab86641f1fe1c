#!/bin/bash
# The engines conform (tests/mpi/test_conform.c says what is compared and
# how time is kept out of it): every case on MPI ranks and in the
# simulator makes the same decisions.
# Usage: conform.sh MPIEXEC TEST_CONFORM
set -u
mpiexec=$1
prog=$2
. "$(dirname "$0")/mpienv.sh"
mpi_run 3 "$prog" "${@:3}"
