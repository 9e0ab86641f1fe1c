#!/bin/bash
# Divisible-load plans executed for real (locus_mpi_scatter, locus scatter),
# 4 to 8 ranks on this machine: every byte of the input delivered exactly
# once, chunks as large as the plan says, each worker's rounds in order,
# failures named with their chunk on every rank, worker counts checked,
# UMR and PTUMR both. Called by run.sh.
# Usage: scatter.sh MPIEXEC TEST_MPI_SCATTER LOCUS
set -u
mpiexec=$1
prog=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
locus=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-scatter.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$here/mpienv.sh"
. "$here/../lib/cli.sh"
cd "$tmp" || exit 1

# 3 MB of input that is not a whole number of units.
head -c 3000017 /dev/urandom >in.bin

# ---- the library: test_mpi_scatter checks bytes, sizes and times itself.
check() { # NAME NP ARGS...
	local name=$1 np=$2
	shift 2
	if mpi_run "$np" "$prog" "$@" >"$tmp/log" 2>&1; then
		echo "ok   $name"
		sed 's/^/       /' "$tmp/log" | grep -v "all checks passed"
		ok
	else
		echo "FAIL $name" >&2
		tail -n 20 "$tmp/log" >&2
		failed=$((failed + 1))
	fi
}
check "scatter: ptumr, umr, ptumr-nogt on 6 ranks" 6 in.bin ptumr umr ptumr-nogt work=5
check "scatter: 8 ranks, heterogeneous" 8 in.bin ptumr umr het=0.5
check "scatter: a failing function, reported everywhere" 5 in.bin ptumr umr het=0 fail=1:2
LOCUS_SCATTER_PIECE=4096 check "scatter: chunks in 4 KiB pieces, function inline" 4 in.bin \
	ptumr umr rounds=3 inline

# ---- the command.
size=$(wc -c <in.bin)
run help 0 "$locus" scatter --help &&
	expect help 'without a shell' "$out" && expect help-example 'locus scatter -np 5' "$out" &&
	expect help-plan '--workers-file FILE' "$out"
run no-input 2 "$locus" scatter -np 4 && expect no-input 'no INPUT' "$err"
run no-cmd 2 "$locus" scatter -np 4 in.bin && expect no-cmd 'no command' "$err"
run missing 2 "$locus" scatter -np 4 none.bin -- cat {} && expect missing 'none.bin: No such file' "$err"
: >empty.bin
run empty 2 "$locus" scatter -np 4 empty.bin -- cat {} && expect empty 'empty' "$err"
run one-rank 2 "$locus" scatter -np 1 in.bin -- cat {} && expect one-rank 'at least 2 ranks' "$err"
run bad-unit 2 "$locus" scatter -np 4 --unit 4Q in.bin -- cat {} && expect bad-unit '--unit expects' "$err"
# Worker counts: given workers must be N-1.
run mismatch 2 "$locus" scatter -np 6 --workers 3 in.bin -- cat {} &&
	expect mismatch '--workers gives 3 workers but the job has 6 ranks, 5 workers besides the master: give -np 4' "$err"
printf '{"format": "locus-workers", "version": 1, "b0": 4000,
 "workers": [{"s": 100, "b": 1000, "delta": 0.002, "eps": 0.0005, "count": 2},
             {"s": 50, "b": 500, "delta": 0.002, "eps": 0.0005}]}\n' >w.json
run mismatch-file 2 "$locus" scatter -np 6 --workers-file w.json in.bin -- cat {} &&
	expect mismatch-file 'w.json gives 3 workers but the job has 6 ranks' "$err"
# Under a launcher already, the job's size decides, with the same message.
run mismatch-mpirun 2 mpi_run 5 "$locus" scatter --workers 3 in.bin -- cat {} &&
	expect mismatch-mpirun 'gives 3 workers but the job has 5 ranks' "$err"

# Workers whose plans have several rounds over 183 units of 16 KiB (PTUMR
# 5 rounds, UMR 8).
plan=(--mean-s 10 --mean-b 100 --b0 300 --mean-delta 0.01 --mean-eps 0.001)
# Every byte exactly once, chunks of the plan's sizes, rounds in order.
for m in ptumr umr; do
	rm -f log
	run "bytes-$m" 0 "$locus" scatter -np 6 --method $m "${plan[@]}" --het 0.4 --unit 16K \
		--results "res-$m" --json "$m.json" in.bin -- \
		sh -c 'echo "$LOCUS_WORKER $2 $3 $4" >> log; cat "$1"' sh {} {round} {offset} {length} ||
		continue
	# The outputs, in offset order, are the input.
	ls "res-$m" | sort -n | sed "s|^|res-$m/|" | xargs cat | cmp -s - in.bin && ok ||
		fail "$m: the chunks' outputs, by offset, differ from the input"
	# Sizes: the plan's units (send order is offset order) x 16 KiB, within a byte.
	grep -o '"units": [0-9.e+-]*' "$m.json" | awk '{print $2}' >units
	ls "res-$m" | sort -n | while read -r f; do wc -c <"res-$m/$f"; done >sizes
	paste units sizes | awk -v n="$(wc -l <units)" '
		{ d = $1 * 16384 - $2; if (d < -1.000001 || d > 1.000001) { print "chunk " NR ": " $2 " bytes, plan " $1 * 16384; bad = 1 } }
		END { exit bad || NR != n || NR == 0 }' >diffs && ok ||
		fail "$m: chunk sizes differ from the plan: $(head -3 diffs)"
	[ "$(wc -l <log)" -eq "$(wc -l <units)" ] && ok ||
		fail "$m: $(wc -l <log) commands for $(wc -l <units) chunks"
	# {offset} and {length} as the result names and sizes say; rounds in order.
	awk '{ print $3, $4 }' log | sort -n | awk -v s="$size" '
		$1 != at { exit 1 } { at = $1 + $2 } END { exit at != s }' && ok ||
		fail "$m: {offset} and {length} do not tile the input"
	awk '{ if (($1 in last) && $2 <= last[$1]) bad = 1; last[$1] = $2 } END { exit bad }' log &&
		ok || fail "$m: a worker's rounds out of order: $(cat log)"
	expect "table-$m" 'round +vw +chunks +bytes \| +T_comm +T_comp \| +send span +comp span' "$out"
	expect "makespan-$m" '^makespan +[0-9.]+ +[0-9.]+$' "$out"
	grep -q '"label": "measured"' "$m.json" && ok || fail "$m: --json has no measured run"
done
# A workers file with N-1 workers; -np from it.
run workers-file 0 "$locus" scatter --workers-file w.json --unit 64K in.bin -- true &&
	expect workers-file '3 workers' "$out"

# --json and --svg are written all or none: an --svg that cannot be
# written leaves no --json either (it used to be written alone).
run outputs-none 1 "$locus" scatter -np 4 --unit 64K --json both.json --svg nodir/both.svg \
	in.bin -- true && expect outputs-none 'nodir/both.svg: cannot write' "$err"
[ ! -e both.json ] && ok || fail "outputs-none: --json written without --svg"
run outputs-both 0 "$locus" scatter -np 4 --unit 64K --json both.json --svg both.svg in.bin -- true
[ -s both.json ] && [ -s both.svg ] && ok || fail "outputs-both: no both.json and both.svg"

# A failing command: exit 1, the chunk named with its status and stderr.
run fails 1 "$locus" scatter -np 5 "${plan[@]}" --unit 16K in.bin -- sh -c \
	'if [ "$LOCUS_ROUND" = 1 ] && [ "$LOCUS_WORKER" = 2 ]; then echo "no good" >&2; exit 3; fi' sh {}
expect fails 'the chunk at byte offset [0-9]+ \([0-9]+ bytes, round 1\) failed on rank 3 \(worker 2\): sh exited with status 3; stderr: no good' "$err"
run killed 1 "$locus" scatter -np 4 "${plan[@]}" --unit 16K in.bin -- sh -c \
	'if [ "$LOCUS_WORKER" = 0 ]; then kill -KILL $$; fi' sh {}
expect killed 'round 0\) failed on rank 1 \(worker 0\): sh was killed by signal 9' "$err"
run no-such-cmd 1 "$locus" scatter -np 4 --unit 16K in.bin -- /no/such/command {}
expect no-such-cmd 'cannot run "/no/such/command"' "$err"

echo "scatter: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
