#!/bin/bash
# End-to-end tests of what a Makeflow user expects of `locus flow` beside
# running (issue 29): `run --dry-run` prints the tasks in an order their
# dependencies allow with their commands, reads and writes, and leaves
# the directory byte for byte as it was (no file, lock, journal or node
# directory); `clean` removes exactly the files the workflow makes and
# its journal, refusing (and removing nothing) when it would remove what
# the workflow does not make; `--timeout` and `.MAKEFLOW WALL_TIME` end
# an attempt that runs too long, its process group with it.
# Usage: cli_flow_ops.sh LOCUS_BINARY TESTS_DIR.
set -u
locus=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tests=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-flowops.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
. "$tests/lib/cli.sh"

# What a directory holds: every entry's path, type, size, mode and
# modification time (the directory's own too, unless a second argument
# says "entries"), and every file's bytes.
snapshot() {
	local depth=0
	[ "${2:-}" = entries ] && depth=1
	(cd "$1" && find . -mindepth $depth -printf '%p %y %s %m %T@\n' | LC_ALL=C sort &&
		find . -type f -exec md5sum {} + | LC_ALL=C sort)
}

mkdir wf && cd wf || exit 1
echo 'some input' >in.txt
echo 'not the workflow'"'"'s' >notes.txt
cat >Makeflow <<'MF'
a.txt: in.txt
	cat in.txt > a.txt
b.txt: a.txt
	cat a.txt a.txt > b.txt
out.txt: a.txt b.txt
	cat a.txt b.txt > out.txt
MF
cd "$tmp" || exit 1

# ---- run --dry-run --------------------------------------------------------------------
before=$(snapshot wf)
run dry 0 "$locus" flow run wf/Makeflow --dry-run -np 3 --emulate-nodes 2 --journal wf/run.j \
	--local "$tmp/wf/nodes" --timeout 7
expect dry-head 'nothing is run or made' "$out"
expect dry-ranks 'ranks +3: 1 dispatcher, 2 workers on 2 emulated nodes; node storage under .*/wf/nodes' "$out"
expect dry-limit 'attempts +2 per task, each ended after 7 s' "$out"
expect dry-journal 'journal +wf/run.j: none yet, the run would make it' "$out"
expect dry-input '^  in.txt \(11 bytes\)$' "$out"
expect dry-cmd '^       run +cat a.txt b.txt > out.txt$' "$out"
expect dry-reads '^       reads +a.txt, b.txt$' "$out"
expect dry-final 'final outputs, written to wf: out.txt$' "$out"
# The tasks in dependency order, each with its number.
order=$(printf '%s\n' "$out" | awk '$1 ~ /^[0-9]+$/ { printf "%s%s ", $1, $2 }')
[ "$order" = "1a.txt 2b.txt 3out.txt " ] && ok || fail "dry run order: $order"
[ "$(snapshot wf)" = "$before" ] && ok || fail "the dry run changed the directory: $(ls -la wf)"
# A missing input is said, and the dry run fails as the run would; an
# existing file that is not this workflow's journal is refused.
mv wf/in.txt in.away
run dry-missing 1 "$locus" flow run wf/Makeflow --dry-run -np 3 &&
	expect dry-missing '1 input of the workflow is missing in wf: the run would fail' "$err" &&
	expect dry-missing-line 'in.txt \(MISSING: No such file or directory\)' "$out"
mv in.away wf/in.txt
before=$(snapshot wf)
run dry-notes 1 "$locus" flow run wf/Makeflow --dry-run --journal wf/notes.txt &&
	expect dry-notes 'notes.txt:1:1: expected "locus-journal 2"' "$err"
[ "$(snapshot wf)" = "$before" ] && ok || fail "a failed dry run changed the directory"
run dry-out 2 "$locus" flow run wf/Makeflow --dry-run --out r.json &&
	expect dry-out 'a dry run writes nothing' "$err"

# ---- clean ------------------------------------------------------------------------------
# What a run leaves (made here by hand: the same names), then clean:
# only what the workflow does not make stays.
for f in a.txt b.txt out.txt; do echo made >"wf/$f"; done
run clean 0 "$locus" flow clean wf/Makeflow &&
	expect clean 'removed 3 files \(15 bytes\) of wf/Makeflow from wf \(0 of the 3' "$out"
[ "$(cd wf && ls | tr '\n' ' ')" = "Makeflow in.txt notes.txt " ] && ok ||
	fail "clean left $(ls wf)"
[ "$(snapshot wf entries)" = "$(printf '%s\n' "$before" | grep -v '^\. ')" ] && ok ||
	fail "clean changed what the workflow does not make"
run clean-again 0 "$locus" flow clean wf/Makeflow && expect clean-again 'removed 0 files .*3 of the 3' "$out"
# Refusals remove nothing: a journal that is not the workflow's (or
# not a journal), a directory where the workflow writes a file, the
# workflow's own file among what it makes; and a run holding the
# directory.
echo made >wf/out.txt
run clean-notes 1 "$locus" flow clean wf/Makeflow --journal wf/notes.txt &&
	expect clean-notes 'refusing to remove wf/notes.txt, which is not a journal of wf/Makeflow \(.*expected "locus-journal 2"' "$err"
printf 'locus-flow-journal 1\t9\t9\n' >other.j
run clean-other 1 "$locus" flow clean wf/Makeflow --journal other.j &&
	expect clean-other 'refusing to remove other.j, which is not a journal of wf/Makeflow' "$err"
[ -e wf/out.txt ] && [ -e wf/notes.txt ] && [ -e other.j ] && ok || fail "a refused clean removed something"
mkdir wf/b.txt
run clean-dir 1 "$locus" flow clean wf/Makeflow &&
	expect clean-dir 'refusing to remove wf/b.txt, a directory, not a file the workflow makes \(task "b.txt" writes "b.txt"\); nothing removed' "$err"
[ -e wf/out.txt ] && ok || fail "clean-dir removed out.txt"
rmdir wf/b.txt
mkdir self && printf 'in.txt: x\n\tcp x in.txt\nMakeflow: in.txt\n\tcp in.txt Makeflow\n' >self/Makeflow
echo x >self/x && echo y >self/in.txt
run clean-self 1 "$locus" flow clean self/Makeflow &&
	expect clean-self 'refusing to remove self/Makeflow, the workflow itself' "$err"
[ -e self/in.txt ] && ok || fail "clean-self removed in.txt"
if command -v flock >/dev/null; then
	run clean-locked 1 flock wf "$locus" flow clean wf/Makeflow &&
		expect clean-locked 'another run is using the shared directory wf; clean once it is over' "$err"
	[ -e wf/out.txt ] && ok || fail "clean under a run removed out.txt"
fi
run clean-opt 2 "$locus" flow clean wf/Makeflow -np 3 &&
	expect clean-opt "'locus flow clean' takes the workflow's options, --shared and --journal" "$err"
rm -f wf/out.txt

# ---- time limits in the simulator ----------------------------------------------------
# A rule of 5 s under a WALL_TIME of 2 s fails each attempt; --timeout
# gives the rules without one theirs; a limit above the runtimes changes
# nothing.
printf 'LOCUS_RUNTIME=5\na.txt:\n\techo a > a.txt\nLOCUS_RUNTIME=1\n.MAKEFLOW WALL_TIME 2\nb.txt: a.txt\n\tcat a.txt > b.txt\n' >lim.mf
run sim-free 0 "$locus" flow sim lim.mf --nodes 2 -q && expect sim-free 'makespan +6.0' "$out"
run sim-limit 1 "$locus" flow sim lim.mf --nodes 2 -q --timeout 4 --retries 2 &&
	expect sim-limit 'task a.txt failed on 3 attempts \(last on node .*\): attempt 3 timed out after 4 s' "$err"
run sim-limit-above 0 "$locus" flow sim lim.mf --nodes 2 -q --timeout 6 && expect sim-limit-above 'makespan +6.0' "$out"
printf 'LOCUS_RUNTIME=3\n.MAKEFLOW WALL_TIME 2\nb.txt:\n\techo b > b.txt\n' >lim2.mf
run sim-wall 1 "$locus" flow sim lim2.mf --nodes 2 -q --timeout 60 &&
	expect sim-wall 'task b.txt failed on 2 attempts .*: attempt 2 timed out after 2 s' "$err"
run dry-wall 0 "$locus" flow run lim.mf --dry-run && expect dry-wall '2  b.txt .* limit 2 s \(WALL_TIME\)' "$out"
run show-limit 2 "$locus" flow show lim.mf --timeout 3 &&
	expect show-limit "--timeout and --retries are 'locus flow run''s and 'locus flow sim''s" "$err"

if "$locus" flow run gen:montage:4 2>&1 | grep -q "built without MPI"; then
	echo "locus was built without MPI: the real runs skipped"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
fi
. "$tests/mpi/sanitizer-env.sh"
R=(-np 3 --emulate-nodes 2 -q)

# A real run with a journal, then clean: back to what was there before.
run real 0 "$locus" flow run wf/Makeflow "${R[@]}" --journal wf/run.j --local "$tmp/loc" &&
	[ -s wf/out.txt ] && [ -s wf/run.j ] && ok || fail "the run with a journal"
run real-clean 0 "$locus" flow clean wf/Makeflow --journal wf/run.j &&
	expect real-clean ', and the journal wf/run.j' "$out"
[ "$(cd wf && ls | tr '\n' ' ')" = "Makeflow in.txt notes.txt " ] && ok ||
	fail "clean after a run left $(ls wf)"

# A static policy's dry run lists its plan, each task with its node: the
# nodes the real run then used, task for task (HEFT and CPOP).
mkdir plan && cd plan || exit 1
echo x >in.txt
printf 'a.txt: in.txt\n\tcat in.txt > a.txt\n' >Makeflow
for f in b c d; do printf '%s.txt: a.txt\n\tcat a.txt a.txt > %s.txt\n' $f $f >>Makeflow; done
printf 'out.txt: b.txt c.txt d.txt\n\tcat b.txt c.txt d.txt > out.txt\n' >>Makeflow
for x in heft cpop; do
	run "plan-$x" 0 "$locus" flow run Makeflow -np 4 --emulate-nodes 2 -x $x --dry-run &&
		expect "plan-$x" "policy +$x: its plan, made before any task runs" "$out"
	planned=$(printf '%s\n' "$out" | awk '$1 ~ /^[0-9]+$/ && $3 == "on" { print $2, $4 }' | LC_ALL=C sort)
	run "real-$x" 0 "$locus" flow run Makeflow -np 4 --emulate-nodes 2 -x $x -q --out "r-$x.json" --local "$tmp/loc"
	ran=$(grep -o '"node": [0-9]*, "source".*"name": "[^"]*"' "r-$x.json" |
		sed 's/"node": \([0-9]*\),.*"name": "\([^"]*\)"/\2 node00\1/' | LC_ALL=C sort)
	[ "$(printf '%s\n' "$planned" | wc -l)" -eq 5 ] && [ "$planned" = "$ran" ] && ok ||
		fail "$x: the dry run planned $(echo $planned), the run ran $(echo $ran)"
	rm -f a.txt b.txt c.txt d.txt out.txt
done
cd "$tmp" || exit 1

# ---- time limits ------------------------------------------------------------------------
# A rule's .MAKEFLOW WALL_TIME of 1 s: the first attempt (a shell that
# starts a child, both sleeping 30 s) is ended with its child, the second
# (the retry) runs at once and succeeds. The script notes when each
# attempt started and the child's pid.
# Whether process $1 lives (a zombie, killed and not yet reaped, does not).
alive() {
	[ -r "/proc/$1/stat" ] && ! awk '{ exit !($3 == "Z") }' "/proc/$1/stat" 2>/dev/null
}
mkdir tl && cd tl || exit 1
cat >slow.sh <<'SH'
date +%s.%N >>"$1/starts"
if [ -e "$1/first" ]; then echo done >out.txt; exit 0; fi
touch "$1/first"
sleep 30 &
echo $! >"$1/child.pid"
echo "started, then slept" >&2
sleep 30
SH
printf '.MAKEFLOW WALL_TIME 1\nout.txt:\n\tsh %s/slow.sh %s\n' "$PWD" "$PWD" >Makeflow
t0=$(date +%s.%N)
run limit 0 "$locus" flow run Makeflow "${R[@]}" --local "$tmp/loc"
t1=$(date +%s.%N)
[ "$(cat out.txt 2>/dev/null)" = done ] && ok || fail "the retry after a time-out did not run"
gap=$(awk 'NR == 1 { a = $1 } NR == 2 { printf "%.2f", $1 - a }' starts)
awk -v g="$gap" 'BEGIN { exit !(g >= 0.9 && g < 2.5) }' && ok ||
	fail "the attempt over its 1 s limit was ended $gap s after it started"
child=$(cat child.pid)
! alive "$child" && ok || fail "the timed-out command's child $child still runs"
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 20) }' && ok || fail "the run took $t0 to $t1"
# No retry left: the run fails, saying so with the attempt's stderr.
rm -f first starts out.txt
run limit-fail 1 "$locus" flow run Makeflow "${R[@]}" --local "$tmp/loc" --retries 0 &&
	expect limit-fail 'task out.txt failed .*its command timed out after 1 s \(its process group ended by SIGTERM\); its stderr ends: started, then slept' "$err"
# --timeout for every task; a command ignoring SIGTERM (its child too)
# gets SIGKILL 2 s later. The limit leaves the shell time to set its trap
# on a loaded machine (at 0.5 s a slow start would die of the SIGTERM).
cat >stubborn.sh <<'SH'
trap '' TERM
sleep 30 &
echo $! >"$1/stubborn.pid"
sleep 30
SH
printf 'out.txt:\n\tsh %s/stubborn.sh %s\n' "$PWD" "$PWD" >Stubborn.mf
t0=$(date +%s.%N)
run stubborn 1 "$locus" flow run Stubborn.mf "${R[@]}" --local "$tmp/loc" --retries 0 --timeout 1.5 &&
	expect stubborn 'timed out after 1.5 s \(its process group ended by SIGKILL, 2 s after SIGTERM\)' "$err"
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 15) }' && ok || fail "stubborn: the run took $t0 to $t1"
child=$(cat stubborn.pid)
! alive "$child" && ok || fail "the child $child that ignores SIGTERM still runs"
run timeout-bad 2 "$locus" flow run Makeflow --timeout 0 && expect timeout-bad '--timeout expects seconds > 0, got "0"' "$err"
cd "$tmp" || exit 1

# ---- the status file ----------------------------------------------------------------------
# While a run goes its status file says what runs; at the end, what was
# done and read and written (exact here); a killed run is said killed.
mkdir st && cd st || exit 1
echo x >in.txt
cat >Makeflow <<'MF'
a.txt: in.txt
	cat in.txt > a.txt
b.txt: a.txt
	sleep 1.5; cat a.txt a.txt > b.txt
c.txt: a.txt
	sleep 1.5; cat a.txt a.txt > c.txt
out.txt: c.txt b.txt
	cat c.txt b.txt > out.txt
MF
run st-none 1 "$locus" flow status . && expect st-none 'no status file at ./.locus-flow-status' "$err"
"$locus" flow run Makeflow "${R[@]}" --local "$tmp/loc" >run.out 2>&1 &
pid=$!
seen=""
for _ in $(seq 100); do
	if "$locus" flow status . --json >s.json 2>/dev/null &&
		grep -q '"running": 2' s.json && grep -q '"state": "running"' s.json; then
		seen=yes
		break
	fi
	sleep 0.05
done
[ -n "$seen" ] && ok || fail "the status file never said 2 tasks were running ($(cat s.json 2>&1))"
wait $pid && ok || fail "the status run failed: $(cat run.out)"
run st-done 0 "$locus" flow status . &&
	expect st-done '^run of .*Makeflow: complete$' "$out" &&
	expect st-done-tasks 'tasks 4: 0 waiting, 0 running, 4 done; 0 failed attempts' "$out" &&
	expect st-done-bytes 'the done tasks read 14 bytes and wrote 18' "$out" &&
	expect st-done-stage '^sleep +2 +0 +0 +2 +0 +4 +8$' "$out"
[ -z "$(ls -a | grep 'locus-flow-status.tmp')" ] && ok || fail "a status temporary was left"
# Killed with SIGKILL: the status says what it last knew, and that the
# run is gone.
rm -f a.txt b.txt c.txt out.txt
"$locus" flow run Makeflow "${R[@]}" --local "$tmp/loc2" >run.out 2>&1 &
pid=$!
for _ in $(seq 100); do
	grep -qs '"running": 2' .locus-flow-status && break
	sleep 0.05
done
{
	kill -9 $pid
	wait $pid
} 2>/dev/null
sleep 0.5
run st-killed 1 "$locus" flow status . &&
	expect st-killed 'killed: its rank 0 \(pid [0-9]+ on .*\) is gone' "$out" &&
	expect st-killed-tasks 'tasks 4: 1 waiting, 2 running, 1 done' "$out"
rm -rf "$tmp/loc2"
# A failed attempt (retried) is counted; with a journal the status
# file is beside it, and clean removes both.
printf 'x: in.txt\n\tif [ -e %s/once ]; then echo out 1; echo err 1 >&2; head -c 40000000 /dev/zero | sort | cksum >/dev/null; cp in.txt x; else echo out 0; echo err 0 >&2; touch %s/once; exit 1; fi\n' "$PWD" "$PWD" >Once.mf
run st-once 0 "$locus" flow run Once.mf "${R[@]}" --local "$tmp/loc" --journal once.j &&
	[ -s once.j.status ] && ok || fail "no once.j.status"
run st-journal 0 "$locus" flow status once.j &&
	expect st-journal 'tasks 1: 0 waiting, 0 running, 1 done; 1 failed attempt$' "$out"
# Each attempt's stdout, stderr and resources are kept beside the status
# file: the failed one's and the retry's, apart.
expect st-logs 'stdout, stderr and resources: once.j.status.tasks \(--task NAME' "$out"
run st-task 0 "$locus" flow status once.j --task x &&
	expect st-task0 '^task x, attempt 0 on node00[01]: exited with 1$' "$out" &&
	expect st-task1 '^task x, attempt 1 on node00[01]: exited with 0$' "$out" &&
	expect st-task-out '^      out 1$' "$out" && expect st-task-err '^      err 0$' "$out"
run st-task-json 0 "$locus" flow status once.j --task x --json
# The retry sorted 40 MB (sort holds it all): its peak memory and CPU
# time say so, its children's included.
awk 'BEGIN { RS = "}" } /"attempt": 1/ { match($0, /"max_rss_kb": [0-9]+/); m = substr($0, RSTART + 14, RLENGTH - 14)
	match($0, /"cpu": [0-9.e-]+/); c = substr($0, RSTART + 7, RLENGTH - 7); ok = m >= 40000 && c >= 0.05 }
	END { exit !ok }' <<<"$out" && ok || fail "st-task-json: the retry's memory or CPU: $out"
# Version 2: the measures are lines of the ranks' attempts files, not a
# file an attempt. A version-1 file of an earlier run is read beside them,
# in the order of the attempts; a line cut short is skipped.
ls once.j.status.tasks | grep -Eq '^attempts\.[0-9]+\.jsonl$' &&
	! ls once.j.status.tasks | grep -Eq '^t[0-9]+\.[0-9]+\.json$' && ok ||
	fail "st-logs-files: $(ls once.j.status.tasks)"
printf '{"format": "locus-task-log", "version": 1, "task": "x", "index": 0, "attempt": 7, "node": "old", "wall": 1, "cpu": 0, "user": 0, "system": 0, "max_rss_kb": 1, "rank_rss_kb": 1, "stdout": null, "stderr": null, "exit": 3}\n' >once.j.status.tasks/t0.7.json
printf '{"format": "locus-task-log", "version": 2, "task": "x", "index": 0, "attempt": 9, "no' >once.j.status.tasks/attempts.99.jsonl
run st-task-v1 0 "$locus" flow status once.j --task x &&
	expect st-task-v1 '^task x, attempt 7 on old: exited with 3$' "$out" &&
	[ "$(grep -c '^task x, attempt' <<<"$out")" -eq 3 ] &&
	[ "$(grep '^task x, attempt' <<<"$out" | sed 's/.*attempt \([0-9]*\).*/\1/' | tr '\n' ' ')" = "0 1 7 " ] && ok ||
	fail "st-task-v1: $out"
run st-task-none 1 "$locus" flow status once.j --task nope && expect st-task-none 'no attempt of task "nope" is kept in once.j.status.tasks' "$err"
run st-task-run 2 "$locus" flow run Once.mf --task x && expect st-task-run "--task is 'locus flow status''s" "$err"
run st-clean 0 "$locus" flow clean Once.mf --journal once.j &&
	expect st-clean "and the journal once.j, and the run's status file" "$out"
[ ! -e once.j ] && [ ! -e once.j.status ] && [ ! -e once.j.status.tasks ] && [ ! -e x ] && ok || fail "clean left $(ls)"
run st-clean-dir 0 "$locus" flow clean Makeflow && [ ! -e .locus-flow-status ] && ok ||
	fail "clean left the shared directory's status file"
run st-other 1 "$locus" flow status Makeflow && expect st-other 'Makeflow:1:1: expected a locus-flow-status document' "$err"
cd "$tmp" || exit 1

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
