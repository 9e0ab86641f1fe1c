# Sourced by the MPI test scripts: mpi_run NP PROGRAM ARGS... runs PROGRAM
# on NP ranks of this machine with $mpiexec, Open MPI or MPICH, as root too.
mpi_flags=()
if "$mpiexec" --version 2>&1 | grep -qi "open mpi\|open-mpi\|openrte"; then
	mpi_flags=(--oversubscribe)
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	# No network probing on a single machine: shared memory and loopback.
	export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo
	export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_pml=ob1
	# Containers often forbid cross-memory attach (ptrace).
	export OMPI_MCA_btl_vader_single_copy_mechanism=none
fi
. "$(dirname "${BASH_SOURCE[0]}")/sanitizer-env.sh"
# With Open MPI, each job's shared-memory segments go to a directory of
# its own, removed when it ends: a job leaves some in /dev/shm even when
# it succeeds (4.1), and all of them when it is killed.
mpi_run() {
	local np=$1 shm rc
	shift
	if [ ${#mpi_flags[@]} -gt 0 ] && shm=$(mktemp -d /dev/shm/locus-test-XXXXXX 2>/dev/null); then
		OMPI_MCA_btl_vader_backing_directory=$shm timeout 300 "$mpiexec" "${mpi_flags[@]}" \
			-np "$np" "$@"
		rc=$?
		rm -rf "$shm"
		return $rc
	fi
	timeout 300 "$mpiexec" "${mpi_flags[@]}" -np "$np" "$@"
}
