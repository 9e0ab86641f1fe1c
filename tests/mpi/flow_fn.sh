#!/bin/bash
# Workflows of task functions (locus_mpi_flow_run with options.fn) under
# mpirun, Open MPI or MPICH: random workflows under amfs in several
# configurations, taskvine and dask run every task exactly once, after its
# inputs, with the final outputs of a sequential evaluation; first
# attempts that fail are retried; a task failing always ends the run
# naming it; a cancelled run resumes from its journal, running nothing it
# recorded; ranks that sleep up to a second between messages are woken
# by their doorbells (tests/mpi/test_mpi_flow.c says how each is checked).
# Usage: flow_fn.sh MPIEXEC TEST_MPI_FLOW
set -u
mpiexec=$1
prog=$2
. "$(dirname "$0")/mpienv.sh"
failed=0
run() { # NP ARGS...
	local np=$1
	shift
	if out=$(mpi_run "$np" "$prog" "$@" 2>&1); then
		echo "ok   -np $np $*"
	else
		echo "FAIL -np $np $*" >&2
		printf '%s\n' "$out" | grep -v '^$' | head -n 12 >&2
		failed=$((failed + 1))
	fi
}
run 5 1 300 amfs -
run 5 2 300 amfs config=cogather
run 5 3 300 amfs config=asgather,steal=2
run 4 4 300 amfs config=staging
run 5 5 300 taskvine -
run 5 6 300 dask -
run 3 7 200 amfs - flaky
run 4 8 60 amfs - broken=11
run 5 9 400 amfs - resume
run 4 10 300 dask - resume
run 4 11 60 amfs - slow
run 6 12 100 amfs config=cogather slow
[ $failed -eq 0 ] && echo "flow_fn: all passed"
exit $((failed > 0))
