# Sourced by the flow test scripts (tests/mpi/flow.sh, flow_faults.sh):
# LOCUS from $1, a scratch directory $tmp removed at the end, pass/fail
# counting failures, run (a flow run into $tmp/out) and finish.
set -u
locus=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-flow.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$here/sanitizer-env.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
failed=0
pass() { echo "ok   $1"; }
fail() {
	echo "FAIL $1" >&2
	[ -f "$tmp/out" ] && tail -n 15 "$tmp/out" >&2
	failed=$((failed + 1))
}

run() { # ARGS... : a flow run whose output goes to $tmp/out; a run that
	# hangs is interrupted, and its ranks say what they waited for.
	LOCUS_FLOW_DEBUG=1 timeout -s INT -k 10 120 "$locus" flow run "$@" >"$tmp/out" 2>&1
}

fails_saying() { # WHAT PATTERN... -- ARGS...: a run that must fail, its
	# output matching every PATTERN (grep's)
	local what=$1 p pats=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		pats+=("$1")
		shift
	done
	shift
	if run "$@"; then
		fail "$what: the run succeeded"
		return
	fi
	for p in "${pats[@]}"; do
		grep -q -- "$p" "$tmp/out" || {
			fail "$what: nothing says \"$p\""
			return
		}
	done
	pass "$what"
}

finish() { # NAME: the verdict of the script
	[ "$failed" -eq 0 ] || { echo "$failed $1 check(s) failed" >&2; exit 1; }
	echo "all $1 checks passed"
}
