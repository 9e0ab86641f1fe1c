#!/bin/bash
# The MPI engine under mpirun (Open MPI or MPICH): every policy runs every
# chunk exactly once with the right bytes, local or fetched from a peer;
# retries, failures, scheduler counts and rank-to-node mapping by name.
# Also runs examples/mpi_seqstats.c and checks its statistics against awk,
# and scatter.sh (locus_mpi_scatter and locus scatter).
# Usage: run.sh MPIEXEC TEST_MPI_RUN LOCUS MPI_SEQSTATS
set -u
mpiexec=$1
prog=$2
locus=$3
seqstats=$4
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-mpi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$here/mpienv.sh"
failed=0

# A FASTA source of ~600 KB with records of varied lengths, split into
# chunks of at most 16 KiB ending before a record.
awk 'BEGIN { srand(11); for (i = 0; i < 2400; i++) { printf(">read%d\n", i);
	n = 60 + int(rand() * 400); s = "";
	for (j = 0; j < n; j++) s = s substr("ACGT", 1 + int(rand() * 4), 1);
	print s } }' >"$tmp/src.fa"
place() { # STORE DATASET ARGS...
	local store=$1 ds=$2
	shift 2
	"$locus" place --input "$tmp/src.fa" --chunk-size 16K --split fasta --store "$store" \
		--dataset "$ds" --seed 3 "$@" >/dev/null || { echo "FAIL: locus place" >&2; exit 1; }
}
place "$tmp/store" "reads.fa" --nodes 4 --racks 1 --replicas 2
place "$tmp/store" "odd name; \$(x) 'q'.fa" --nodes 4 --racks 1 --replicas 1

check() { # NAME NP ARGS...
	local name=$1 np=$2
	shift 2
	if mpi_run "$np" "$prog" "$@" >"$tmp/out" 2>&1; then
		echo "ok   $name"
		sed 's/^/       /' "$tmp/out" | grep -v "all checks passed"
	else
		echo "FAIL $name" >&2
		tail -n 20 "$tmp/out" >&2
		failed=$((failed + 1))
	fi
}
check "every policy, paths" 6 "$tmp/store" "$tmp/src.fa" reads.fa 4 \
	fifo monolithic dlmpi delay scal
check "bytes, function on the main thread" 5 "$tmp/store" "$tmp/src.fa" reads.fa 4 \
	fifo dlmpi scal bytes inline
check "retries on another rank" 5 "$tmp/store" "$tmp/src.fa" reads.fa 4 \
	fifo monolithic dlmpi delay scal flaky
# Many small chunks, one replica each, the function on the rank's own
# thread: it runs at the rank's next turn (scal hung when it ran inside
# the executor's call that started it).
"$locus" place --input "$tmp/src.fa" --chunk-size 1K --split fasta --store "$tmp/tiny" \
	--dataset reads.fa --seed 3 --nodes 4 --racks 1 --replicas 1 >/dev/null ||
	{ echo "FAIL: locus place" >&2; exit 1; }
check "many small chunks, function on the main thread" 4 "$tmp/tiny" "$tmp/src.fa" reads.fa 4 \
	monolithic dlmpi scal inline
check "a chunk failing every attempt" 5 "$tmp/store" "$tmp/src.fa" reads.fa 4 \
	fifo scal broken=5 flaky
check "two scal schedulers among 8 ranks" 8 "$tmp/store" "$tmp/src.fa" reads.fa 4 \
	scal schedulers=2
check "more nodes than ranks' share, one replica, odd name" 7 "$tmp/store" "$tmp/src.fa" \
	"odd name; \$(x) 'q'.fa" 4 fifo dlmpi scal bytes
# The engines agree: one worker rank reads half its chunks locally and half
# from the master's node; the simulator, on the same platform, chunks and
# seed, runs them in the same order from the same nodes.
place "$tmp/two" reads.fa --nodes 2 --racks 1 --replicas 1
check "the simulator runs a policy as the MPI engine does" 2 "$tmp/two" "$tmp/src.fa" \
	reads.fa 2 fifo monolithic dlmpi scal conform
# Ranks mapped to nodes by processor name: a store whose one node is this
# host.
host=$(uname -n)
printf '{"format": "locus-platform", "version": 1, "nodes": [{"name": "%s", "cores": 4}]}\n' \
	"$host" >"$tmp/one.json"
place "$tmp/named" reads.fa --platform "$tmp/one.json" --replicas 1
check "ranks on nodes by processor name" 3 "$tmp/named" "$tmp/src.fa" reads.fa 0 dlmpi scal

# The example: its statistics equal those computed sequentially.
awk '/^>/ { if (n) print len; n = 1; len = 0; next } { len += length($0); g = $0;
	gc += gsub(/[GCgc]/, "", g) } END { if (n) print len; print "gc", gc > "/dev/stderr" }' \
	"$tmp/src.fa" 2>"$tmp/gc" | sort -n >"$tmp/lens"
want=$(awk '{ s += $1; n++; if (n == 1) mn = $1; mx = $1 } END {
	printf "sequences %d\nbases %d\nmin %d\nmax %d\nmean %.2f\n", n, s, mn, mx, s / n }' "$tmp/lens")
gc=$(awk '{print $2}' "$tmp/gc")
for p in dlmpi scal fifo; do
	if mpi_run 5 "$seqstats" "$tmp/store" reads.fa 4 $p >"$tmp/stats" 2>"$tmp/stats.err" &&
		[ "$(head -5 "$tmp/stats")" = "$want" ] &&
		awk -v gc="$gc" '/^bases/ { b = $2 } /^gc/ { g = $2 } END {
			exit !(g - gc / b < 1e-4 && gc / b - g < 1e-4) }' "$tmp/stats"; then
		echo "ok   example mpi_seqstats ($p): $(tail -1 "$tmp/stats.err")"
	else
		echo "FAIL example mpi_seqstats ($p)" >&2
		diff <(echo "$want") <(head -5 "$tmp/stats") >&2
		cat "$tmp/stats.err" >&2
		failed=$((failed + 1))
	fi
done

# Divisible-load plans executed for real: locus_mpi_scatter and locus
# scatter (test_mpi_scatter is built next to test_mpi_run).
if bash "$here/scatter.sh" "$mpiexec" "$(dirname "$prog")/test_mpi_scatter" "$locus"; then
	echo "ok   locus scatter"
else
	echo "FAIL locus scatter" >&2
	failed=$((failed + 1))
fi

[ $failed -eq 0 ] && echo "mpi tests: all passed" && exit 0
echo "mpi tests: $failed failed" >&2
exit 1
