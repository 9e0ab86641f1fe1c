#!/bin/bash
# locus flow run, part 2 (tests/mpi/flow.sh is part 1): faults and names.
#  - names with spaces and shell characters reach no shell and cannot
#    escape the working directory; names with ".." are refused;
#  - a failing command is retried and then ends the run quoting its
#    stderr; GTP/r is told of a failed command and reschedules; one
#    failing on its node only succeeds on another node's
#    worker, its output brought home; a missing input is named; a
#    stand-in run of a WfCommons instance writes outputs of the recorded
#    sizes;
#  - a killed run resumes from its journal without running again what
#    it recorded, and makes again what a lost node's storage held; a
#    journal in use is refused to a second run; a killed launcher leaves
#    no command running, and the next run sweeps its directory;
#  - a file deleted (or, with --checksum, damaged) while the run goes is
#    made again by its producer, in a second round;
#  - --measured: the run replayed by locus flow sim on the measured
#    platform and task times gives the measured makespan.
# Usage: flow_faults.sh LOCUS
. "$(dirname "$0")/flow_lib.sh"

# ---- names ----------------------------------------------------------------------
# WfCommons commands run as argv: names with spaces, quotes, $() and ; are
# plain arguments; nothing is executed from them.
d="$tmp/names"
mkdir -p "$d"
printf 'some text\n' >"$d/in put \$(touch PWNED); x'q.txt"
cat >"$d/wf.json" <<'EOF'
{"name": "names", "schemaVersion": "1.4",
 "workflow": {"executedAt": "20240101T000000+0000", "makespanInSeconds": 1,
  "tasks": [
   {"name": "copy", "id": "copy", "type": "compute", "runtimeInSeconds": 0.1,
    "command": {"program": "cp", "arguments": ["in put $(touch PWNED); x'q.txt", "mid `touch PWNED2`.txt"]},
    "parents": [], "children": ["rev"],
    "files": [{"link": "input", "name": "in put $(touch PWNED); x'q.txt", "sizeInBytes": 10},
              {"link": "output", "name": "mid `touch PWNED2`.txt", "sizeInBytes": 10}]},
   {"name": "rev", "id": "rev", "type": "compute", "runtimeInSeconds": 0.1,
    "command": {"program": "cp", "arguments": ["mid `touch PWNED2`.txt", "out; rm -rf x.txt"]},
    "parents": ["copy"], "children": [],
    "files": [{"link": "input", "name": "mid `touch PWNED2`.txt", "sizeInBytes": 10},
              {"link": "output", "name": "out; rm -rf x.txt", "sizeInBytes": 10}]}
  ]}}
EOF
if run "wfcommons:$d/wf.json" -np 3 --emulate-nodes 2 -q --local "$tmp/local" &&
	cmp -s "$d/out; rm -rf x.txt" "$d/in put \$(touch PWNED); x'q.txt" &&
	[ -z "$(find "$tmp" "$PWD" -maxdepth 3 -name 'PWNED*' 2>/dev/null)" ]; then
	pass "names with spaces and shell characters: argv, nothing injected"
else
	fail "names with shell characters"
fi
# A name that climbs out of the working directory is refused.
d="$tmp/climb"
mkdir -p "$d"
echo x >"$d/in.txt"
printf '../escaped.txt: in.txt\n\tcp in.txt ../escaped.txt\n' >"$d/Makeflow"
if ! run "$d/Makeflow" -np 3 --emulate-nodes 2 -q && grep -q 'without ".."' "$tmp/out" &&
	[ ! -e "$tmp/escaped.txt" ]; then
	pass "a name with .. is refused"
else
	fail "a name with .."
fi

# ---- failures ---------------------------------------------------------------------
d="$tmp/fails"
mkdir -p "$d"
echo x >"$d/in.txt"
printf 'out.txt: in.txt\n\techo "bad things happened" >&2; exit 3\n' >"$d/Makeflow"
fails_saying "a failing command: retried, then the run ends quoting its stderr" \
	"failed on 3 attempts" "bad things happened" "exited with 3" -- \
	"$d/Makeflow" -np 3 --emulate-nodes 2 -q --retries 2
# Fails once, then succeeds: the retry completes the run.
printf 'out.txt: in.txt\n\tif [ -e %s/flaky ]; then cp in.txt out.txt; else touch %s/flaky; exit 1; fi\n' \
	"$d" "$d" >"$d/Makeflow"
if run "$d/Makeflow" -np 3 --emulate-nodes 2 -q --retries 1 && cmp -s "$d/out.txt" "$d/in.txt"; then
	pass "a command failing once succeeds on its retry"
else
	fail "a retry"
fi
# GTP/r is told of a command's failed attempt (the FAILED event) and
# reschedules from there: a resched point, a remapping, the task run again
# and the chain complete. (tests/mpi/test_conform.c checks that the
# simulator makes the same decisions on a failed task function.)
printf 'a.txt:\n\techo a > a.txt\nb.txt: a.txt\n\tif [ -e %s/gtp-once ]; then cat a.txt > b.txt; else touch %s/gtp-once; exit 3; fi\nc.txt: b.txt\n\tcat b.txt > c.txt\n' \
	"$d" "$d" >"$d/Makeflow"
rm -f "$d/gtp-once"
if run "$d/Makeflow" -np 3 --emulate-nodes 2 -q --policy gtp-r --out "$d/g.json" &&
	[ "$(cat "$d/c.txt")" = a ] &&
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
t = {t["name"]: t for t in r["tasks"]}
c = r["policy_stats"]["counters"]
sys.exit(not (t["b.txt"]["attempts"] == 2 and t["a.txt"]["attempts"] == 1 and
              c["resched_points"] == 1 and c["remappings"] == 1 and r["status"] == "complete"))' "$d/g.json"; then
	pass "GTP/r is told of a failed command and reschedules"
else
	fail "GTP/r and a failed command: $(cat "$d/g.json" 2>/dev/null | head -c 300)"
fi
# Fails on the first node it runs on, and there ever after: the retry
# must run on another node (and its output come back to the node of the
# worker it was assigned to, where the policy looks for it).
cat >"$d/node-once.sh" <<'EOF'
n=$(dirname "$(dirname "$PWD")")
if [ ! -e "$1/badnode" ]; then echo "$n" >"$1/badnode"; echo "no luck on $n" >&2; exit 1; fi
if [ "$(cat "$1/badnode")" = "$n" ]; then echo "again on $n" >&2; exit 1; fi
echo "$n" >"$1/goodnode"
cp in.txt mid.txt
EOF
printf 'mid.txt: in.txt\n\tsh %s/node-once.sh %s\n\nout.txt: mid.txt\n\tcp mid.txt out.txt\n' \
	"$d" "$d" >"$d/Makeflow"
rm -f "$d/out.txt" "$d/badnode" "$d/goodnode"
if run "$d/Makeflow" -np 3 --emulate-nodes 2 -q --retries 1 --out "$d/r.json" &&
	cmp -s "$d/out.txt" "$d/in.txt" && [ -s "$d/goodnode" ] &&
	! cmp -s "$d/badnode" "$d/goodnode" &&
	python3 -c 'import json,sys; t={t["name"]: t for t in json.load(open(sys.argv[1]))["tasks"]}["mid.txt"]; sys.exit(t["attempts"] != 2)' "$d/r.json"; then
	pass "a command failing on its node succeeds on another node"
else
	fail "a retry on another node"
fi
# Failing everywhere: the attempts go round the nodes, then the run ends.
printf 'out.txt: in.txt\n\tsh %s/node-always.sh\n' "$d" >"$d/Makeflow"
echo 'echo "no luck on $(dirname "$(dirname "$PWD")")" >&2; exit 1' >"$d/node-always.sh"
fails_saying "a command failing on every node ends the run" "failed on 3 attempts" "no luck on" -- \
	"$d/Makeflow" -np 4 --emulate-nodes 3 -q --retries 2
printf 'out.txt: absent.txt\n\tcp absent.txt out.txt\n' >"$d/Makeflow"
fails_saying "a missing input is named" "absent.txt, an input of task" -- \
	"$d/Makeflow" -np 3 --emulate-nodes 2 -q
# Plain words run without the shell, with the shell's outcome: a program
# not found exits 127 with sh's message; one found runs in the working
# directory with its arguments.
printf 'out.txt: in.txt\n\tno_such_program_xyz in.txt out.txt\n' >"$d/Makeflow"
fails_saying "a program not found: the shell's status and message" \
	"exited with 127" "no_such_program_xyz: not found" -- "$d/Makeflow" -np 3 --emulate-nodes 2 -q
printf 'out.txt: in.txt\n\tcp in.txt out.txt\n' >"$d/Makeflow"
if run "$d/Makeflow" -np 3 --emulate-nodes 2 -q && cmp -s "$d/out.txt" "$d/in.txt"; then
	pass "a command of plain words"
else
	fail "a command of plain words"
fi
printf 'out.txt: in.txt\n\ttrue\n' >"$d/Makeflow"
fails_saying "an output the command did not write fails the task" "did not write out.txt" -- \
	"$d/Makeflow" -np 3 --emulate-nodes 2 -q

# ---- the journal: a killed run resumes; lost files are made again ------------------
d="$tmp/journal"
mkdir -p "$d"
echo seed >"$d/in.txt"
# Each task waits for a gate, opened once the second run below has been
# refused: under ASan on a loaded machine that refusal took longer than
# the whole first run, which then had nothing left to resume.
awk -v logf="$tmp/log" -v gate="$d/gate" 'BEGIN { all = ""; for (i = 0; i < 12; i++) {
	printf("a%d.txt: in.txt\n\twhile [ ! -e %s ]; do sleep 0.05; done; sleep 1.2; cat in.txt > a%d.txt; echo %d >> a%d.txt; echo %d >> %s\n", i, gate, i, i, i, i, logf)
	all = all " a" i ".txt" }
	printf("all.txt:%s\n\tcat%s > all.txt; echo all >> %s\n", all, all, logf) }' >"$d/Makeflow"
(cd "$d" && for i in $(seq 0 11); do { cat in.txt; echo "$i"; }; done >"$tmp/all.ref")
: >"$tmp/log"
# Its output goes to a file of its own: the second run's below would
# otherwise be overwritten when this one ends (under ASan on a loaded
# machine the second takes seconds to start).
LOCUS_FLOW_DEBUG= "$locus" flow run "$d/Makeflow" -np 3 --emulate-nodes 2 -q --journal "$d/j" \
	--local "$tmp/jlocal" >"$tmp/out1" 2>&1 &
# Until the run holds the journal (its header written).
for _ in $(seq 100); do [ -s "$d/j" ] && break; sleep 0.1; done
# A second run on the same journal meanwhile is refused.
fails_saying "a second run on a journal in use is refused" "j: another run (pid [0-9]*) is using the journal" -- \
	"$d/Makeflow" -np 3 --emulate-nodes 2 -q --journal "$d/j" --local "$tmp/jlocal2"
touch "$d/gate"
# Until two tasks are done, then the run is killed.
for _ in $(seq 100); do [ "$(grep -c '^task' "$d/j")" -ge 2 ] && break; sleep 0.1; done
pkill -TERM -f -- "--journal $d/j"
wait
first=$(grep -c '^task' "$d/j")
cp "$d/j" "$tmp/j1"
# Node 0's storage is lost: what it kept is made again.
rm -rf "$tmp"/jlocal/*/node000/store/*
if [ "$first" -gt 0 ] && [ "$first" -lt 13 ] &&
	run "$d/Makeflow" -np 3 --emulate-nodes 2 -q --journal "$d/j" --local "$tmp/jlocal" &&
	grep -q "the journal says $first tasks are done" "$tmp/out" &&
	cmp -s "$d/all.txt" "$tmp/all.ref" && [ ! -e "$d/a0.txt" ] &&
	[ "$(grep -c '^all$' "$tmp/log")" = 1 ]; then
	rerun=$(sed -n 's/.* \([0-9]*\) of those run again.*/\1/p' "$tmp/out")
	# Tasks the journal kept on node 1 never ran twice (a task whose
	# command ended after the kill reached rank 0 may, unrecorded); some
	# of node 0's ran again when it recorded any.
	kept1=$(awk -F'\t' '$1 == "task" && $3 == "node001" && $2 ~ /^a[0-9]+\.txt$/ { sub(/^a/, "", $2); sub(/\.txt$/, "", $2); print $2 }' "$tmp/j1")
	again=0
	for i in $kept1; do
		[ "$(grep -cx "$i" "$tmp/log")" = 1 ] || again=$((again + 1))
	done
	on0=$(awk -F'\t' '$1 == "task" && $3 == "node000"' "$tmp/j1" | wc -l)
	if [ "$again" = 0 ] && { [ "$on0" = 0 ] || [ "$rerun" -ge 1 ]; }; then
		pass "a killed run resumed from its journal: $first done before, $rerun made again (node 0's files lost), result equal"
	else
		fail "journal: $again tasks node 1 kept ran twice; node 0 kept $on0, $rerun run again"
	fi
else
	fail "a killed run resumed from its journal (first run: $first tasks)"
fi
# Run again: nothing left to do.
: >"$tmp/log"
if run "$d/Makeflow" -np 3 --emulate-nodes 2 -q --journal "$d/j" && [ ! -s "$tmp/log" ]; then
	pass "a finished journal: nothing runs again"
else
	fail "a finished journal"
fi

# The launcher killed with SIGKILL (the locus process, and with it its
# mpirun): within 3 s no command of the run is left, where they would
# run 5 s (each rank's keeper kills its commands' process group once the
# rank is gone; under ASan on a loaded machine the ranks' going took
# more than a second once).
d="$tmp/killed"
mkdir -p "$d"
for i in 0 1 2 3; do
	printf 'o%d:\n\techo \\$\\$ >> %s/pids; sleep 5; echo x > o%d\n\n' "$i" "$d" "$i"
done >"$d/Makeflow"
"$locus" flow run "$d/Makeflow" -np 5 --emulate-nodes 4 -q --local "$tmp/local" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do [ -s "$d/pids" ] && [ "$(wc -l <"$d/pids")" -ge 4 ] && break; sleep 0.05; done
kill -KILL $pid
killed=$(date +%s.%N)
wait $pid 2>/dev/null
for _ in $(seq 1 30); do
	alive=0
	for p in $(cat "$d/pids" 2>/dev/null); do
		[ -e "/proc/$p" ] && ! grep -q ') Z' "/proc/$p/stat" 2>/dev/null && alive=$((alive + 1))
	done
	[ "$alive" -eq 0 ] && break
	sleep 0.1
done
took=$(awk -v a="$killed" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
if [ "$(wc -l <"$d/pids" 2>/dev/null)" -ge 4 ] && [ "$alive" -eq 0 ]; then
	pass "launcher killed: no command left ${took} s later"
else
	fail "launcher killed: $alive of $(wc -l <"$d/pids" 2>/dev/null) commands still run ${took} s later"
fi
# The next run with that --local sweeps the killed run's directory, and
# says so, once the killed run's ranks are gone (they go a moment after
# their commands; a rank still alive holds its directory, which a sweep
# rightly keeps).
for _ in $(seq 1 100); do
	busy=0
	for k in "$tmp"/local/locus-flow-*; do
		[ -d "$k" ] || continue
		p=${k##*/locus-flow-}
		p=${p%%-*}
		if [ -e "/proc/$p" ] || ! flock -n "$k" true 2>/dev/null; then busy=1; fi
	done
	[ "$busy" -eq 0 ] && break
	sleep 0.1
done
mkdir -p "$d/next"
echo x >"$d/next/in.txt"
printf 'out.txt: in.txt\n\tcp in.txt out.txt\n' >"$d/next/Makeflow"
if run "$d/next/Makeflow" -np 3 --emulate-nodes 2 -q --local "$tmp/local" &&
	grep -q "swept what killed runs left: 0 temporaries in the shared directory, 1 run directory under $tmp/local" "$tmp/out" &&
	[ -z "$(ls -A "$tmp/local")" ]; then
	pass "launcher killed: the next run swept its directory"
else
	fail "launcher killed: the next run did not sweep ($(ls -A "$tmp/local" 2>&1))"
fi
rm -rf "$tmp/local"

# ---- a file lost while the run goes: its producer runs again -----------------------
# a.txt is made; every node's copy of it is deleted (or, with --checksum,
# overwritten with other bytes of the same size) while gate.txt waits;
# b.txt, reading both, finds a.txt gone: the round ends and the next
# makes a.txt again (a runs twice, gate and b once).
for how in deleted corrupted; do
	d="$tmp/lost-$how"
	mkdir -p "$d"
	echo hello >"$d/in.txt"
	printf 'a.txt: in.txt\n\tcp in.txt a.txt; echo a >> %s/log\n\n' "$d" >"$d/Makeflow"
	printf 'gate.txt: in.txt\n\twhile [ ! -e %s/go ]; do sleep 0.05; done; echo g > gate.txt; echo gate >> %s/log\n\n' \
		"$d" "$d" >>"$d/Makeflow"
	printf 'b.txt: a.txt gate.txt\n\tcat a.txt gate.txt > b.txt; echo b >> %s/log\n' "$d" >>"$d/Makeflow"
	: >"$d/log"
	extra=()
	[ "$how" = corrupted ] && extra=(--checksum)
	"$locus" flow run "$d/Makeflow" -np 3 --emulate-nodes 2 --local "$d/local" --json "${extra[@]}" \
		>"$d/run.json" 2>"$tmp/out" &
	for _ in $(seq 200); do grep -qx a "$d/log" && break; sleep 0.05; done
	sleep 0.2
	if [ "$how" = deleted ]; then
		find "$d/local" -path '*/store/*' -type f -delete
	else
		for c in $(grep -lx hello $(find "$d/local" -path '*/store/*' -type f)); do echo jello >"$c"; done
	fi
	touch "$d/go"
	wait
	if [ "$(sort "$d/log" | tr '\n' ' ')" = "a a b gate " ] && printf 'hello\ng\n' | cmp -s - "$d/b.txt" &&
		grep -q "1 file was lost while the run went" "$tmp/out" &&
		grep -q '"status": "complete"' "$d/run.json" && [ -z "$(ls -A "$d/local")" ]; then
		pass "a file $how while the run goes is made again by its producer"
	else
		fail "a file $how ($(tr '\n' ' ' <"$d/log"))"
	fi
done

# ---- stand-ins ------------------------------------------------------------------------
# (the smallest instance of tests/fixtures/wfcommons: 101 tasks, 1.6 MB
# of files)
wf="$here/../fixtures/wfcommons/seismology-chameleon-100p-001.json"
if [ ! -r "$wf" ]; then
	fail "no $wf"
else
	d="$tmp/standin"
	mkdir -p "$d"
	if run "wfcommons:$wf" --shared "$d" -np 5 --emulate-nodes 2 --stand-in 0.0001 -q \
		--out "$d/r.json" && grep -q '"tasks_done": 101' "$d/r.json" &&
		[ "$(find "$d" -type f ! -name r.json | wc -l)" -gt 200 ]; then
		pass "stand-ins of $(basename "$wf")"
	else
		fail "stand-ins of $(basename "$wf")"
	fi
fi

# ---- --measured: the run replayed in the simulator ---------------------------------
# Eight tasks of 0.3 s in two waves of four (a gather of them at the end)
# on two nodes of two workers: the replay's makespan is the real one's,
# within what a busy machine adds.
d="$tmp/measured"
mkdir -p "$d"
echo x >"$d/in.txt"
all=""
for i in 0 1 2 3 4 5 6 7; do
	printf 'p%d.txt: in.txt\n\tsleep 0.3; cat in.txt > p%d.txt\n\n' "$i" "$i" >>"$d/Makeflow"
	all="$all p$i.txt"
done
printf 'all.txt:%s\n\tcat%s > all.txt\n' "$all" "$all" >>"$d/Makeflow"
if run "$d/Makeflow" -np 5 --emulate-nodes 2 -q --out "$d/real.json" --measured "$d/m" &&
	[ "$(grep -cv '^#' "$d/m.work")" = 9 ] && grep -q '"cores": 2' "$d/m.platform.json" &&
	replay=$(sed -n 's/.*replay with: locus flow sim //p' "$tmp/out") && [ -n "$replay" ] &&
	# shellcheck disable=SC2086
	"$locus" flow sim $replay -q --out "$d/sim.json" >/dev/null 2>&1; then
	real=$(sed -n 's/.*"makespan": \([0-9.e+-]*\).*/\1/p' "$d/real.json" | head -n 1)
	sim=$(sed -n 's/.*"makespan": \([0-9.e+-]*\).*/\1/p' "$d/sim.json" | head -n 1)
	if awk -v r="$real" -v s="$sim" 'BEGIN { exit !(s > 0.5 * r && s < 1.5 * r && s > 0.6) }'; then
		pass "--measured: replayed in the simulator ($sim s against $real s measured)"
	else
		fail "--measured: replay $sim s against $real s"
	fi
else
	fail "--measured"
fi

finish "flow (faults)"
