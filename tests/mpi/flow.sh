#!/bin/bash
# locus flow run: workflows for real on MPI ranks (src/mpi/flow.c).
#  - random workflows under every amfs configuration and the taskvine and
#    dask policies: every task runs exactly once (each appends its id to a
#    log), every final output equals the one a sequential run of the same
#    commands writes, the nodes' storage is gone afterwards;
#  - a reduce stage's command runs at every node of the reduction tree
#    and gives the sequential result (Makeflow lines, WfCommons
#    arguments); one naming its inputs by a glob is refused;
#  - names with spaces and shell characters reach no shell and cannot
#    escape the working directory; names with ".." are refused;
#  - a failing command is retried and then ends the run quoting its
#    stderr; one failing on its node only succeeds on another node's
#    worker, its output brought home; a missing input is named; a
#    stand-in run of a WfCommons instance writes outputs of the recorded
#    sizes;
#  - a killed run resumes from its journal without running again what
#    it recorded, and makes again what a lost node's storage held; a
#    journal in use is refused to a second run; a killed launcher leaves
#    no command running;
#  - a file deleted (or, with --checksum, damaged) while the run goes is
#    made again by its producer, in a second round;
#  - --measured: the run replayed by locus flow sim on the measured
#    platform and task times gives the measured makespan.
# Usage: flow.sh LOCUS
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

# A random workflow (seed $1, $2 tasks) in directory $3: four inputs; task
# i runs one of four checksum programs (its stage) over 1 to 3 earlier
# files, or over 18 of them (a gather), and appends its id; every 7th task
# writes a second file. Files written early are read by many (multicasts).
# LOG: each command appends its id there. Also writes seq.sh, the same
# commands in order in one directory (the reference).
gen_random() {
	local seed=$1 n=$2 dir=$3
	mkdir -p "$dir/in"
	for k in 0 1 2 3; do
		awk -v k="$k" -v s="$seed" 'BEGIN { srand(s * 10 + k); for (i = 0; i < 200 + k * 50; i++) print int(rand() * 1e9) }' >"$dir/in/d$k.txt"
	done
	awk -v seed="$seed" -v n="$n" -v logf="$tmp/log" 'BEGIN {
		srand(seed); progs[0] = "md5sum"; progs[1] = "sha1sum"; progs[2] = "cksum"; progs[3] = "sha256sum"
		nf = 4; for (k = 0; k < 4; k++) files[k] = "in/d" k ".txt"
		for (i = 0; i < n; i++) {
			p = progs[int(i * 4 / n)]
			if (i % 11 == 10 && nf > 24) m = 18; else m = 1 + int(rand() * 3)
			delete used; ins = ""
			for (j = 0; j < m; j++) {
				# Early files more often: they become multicasts.
				f = rand() < 0.3 ? int(rand() * (nf < 6 ? nf : 6)) : int(rand() * nf)
				if (f in used) continue
				used[f] = 1; ins = ins " " files[f]
			}
			out = "mid/t" i ".out"; outs = out
			if (i % 7 == 3) { out2 = "mid/t" i ".extra"; outs = outs " " out2 }
			printf("%s:%s\n\t%s%s > %s && echo %d >> %s", outs, ins, p, ins, out, i, out)
			if (i % 7 == 3) printf(" && echo extra %d > %s", i, out2)
			printf(" && echo %d >> %s\n\n", i, logf)
			files[nf++] = out; if (i % 7 == 3) files[nf++] = out2
		}
	}' >"$dir/Makeflow"
	# The reference: the commands in order, the log left out.
	{ echo "mkdir -p mid"; awk -v logf="$tmp/log" '/^\t/ { line = substr($0, 2); sub(" && echo [0-9]+ >> " logf "$", "", line); print line }' \
		"$dir/Makeflow"; } >"$dir/seq.sh"
}

run() { # ARGS... : a flow run whose output goes to $tmp/out; a run that
	# hangs is interrupted, and its ranks say what they waited for.
	LOCUS_FLOW_DEBUG=1 timeout -s INT -k 10 120 "$locus" flow run "$@" >"$tmp/out" 2>&1
}

# Final outputs of the run in $1 equal the sequential ones in $2.
same_finals() {
	local a=$1 b=$2 n=0
	# Finals: files no rule reads.
	for f in $(awk -F: '/^[^\t#].*:/ { n = split($1, o, " "); for (k = 1; k <= n; k++) out[o[k]] = 1;
			m = split($2, s, " "); for (k = 1; k <= m; k++) used[s[k]] = 1 }
			END { for (o2 in out) if (!(o2 in used)) print o2 }' "$b/Makeflow" | sort); do
		n=$((n + 1))
		cmp -s "$a/$f" "$b/$f" || { echo "final $f differs" >>"$tmp/out"; return 1; }
	done
	[ "$n" -gt 0 ]
}

once() { # N: the log holds 0..N-1, each once
	sort -n "$tmp/log" | awk -v n="$1" '$1 != NR - 1 { bad = 1 } END { exit bad || NR != n }'
}

# ---- random workflows under every configuration and policy ---------------
gen_random 5 60 "$tmp/ref"
(cd "$tmp/ref" && sh seq.sh) || fail "sequential reference"
"$locus" flow show "$tmp/ref/Makeflow" >"$tmp/show" 2>&1 || fail "flow show"
grep -q gather "$tmp/show" && grep -q multicast "$tmp/show" || fail "patterns in the random workflow"
k=0
for how in "--config cache" "--config aware" "--config cogather" "--config asgather" \
	"--config staging" "--config shared" "--config auto" "--config aware -o steal=2" \
	"--policy taskvine" "--policy dask"; do
	k=$((k + 1))
	d="$tmp/run$k"
	gen_random 5 60 "$d"
	: >"$tmp/log"
	# shellcheck disable=SC2086
	if run "$d/Makeflow" -np 5 --emulate-nodes 2 --seed $k -q $how --local "$tmp/local" \
		--out "$d/result.json" && once 60 && same_finals "$d" "$tmp/ref" &&
		[ -z "$(ls -A "$tmp/local" 2>/dev/null)" ] &&
		grep -q '"engine": "mpi"' "$d/result.json"; then
		pass "random workflow, $how: every task once, finals equal, storage gone"
	else
		fail "random workflow, $how"
	fi
done

# Three nodes, two dispatchers, more workers than nodes.
d="$tmp/run-d2"
gen_random 9 80 "$d"
(cd "$d" && cp -r . ../ref9 && cd ../ref9 && sh seq.sh) || fail "reference 9"
: >"$tmp/log"
if run "$d/Makeflow" -np 8 --emulate-nodes 3 --dispatchers 2 --config cogather -q &&
	once 80 && same_finals "$d" "$tmp/ref9"; then
	pass "80 tasks, 2 dispatchers, 6 workers on 3 nodes"
else
	fail "80 tasks, 2 dispatchers"
fi

# ---- reductions ------------------------------------------------------------------
# A reduce stage (--reduce) runs its own command at every node of the
# policy's tree over the files that node holds and its children's partial
# results, then once more over what reached the root: the result equals
# the sequential one over every input, for random trees (N producers
# spread over 2 to 4 nodes), a minimum and a sum, as a Makeflow line and
# as WfCommons arguments; the command ran once per tree node (more than
# once: a plain gather runs it once), every producer once.
gen_reduce() { # SEED N KIND DIR: N producers of 50 random numbers, one reduction
	local seed=$1 n=$2 kind=$3 dir=$4 ins="" i
	mkdir -p "$dir"
	{
		for ((i = 0; i < n; i++)); do
			printf 'p%d.txt:\n\tseq 50 | awk -v s=%d '\''BEGIN { srand(s) } { print int(rand() * 1e6) - 500000 }'\'' > p%d.txt && echo %d >> %s\n\n' \
				"$i" "$((seed * 100 + i))" "$i" "$i" "$tmp/log"
			ins="$ins p$i.txt"
		done
		case $kind in
		min) printf 'red.txt:%s\n\tsort -n%s | head -n 1 > red.txt && echo r >> %s\n' "$ins" "$ins" "$tmp/rlog" ;;
		sum) printf 'red.txt:%s\n\tawk '\''{ s += \\$1 } END { print s }'\''%s > red.txt && echo r >> %s\n' "$ins" "$ins" "$tmp/rlog" ;;
		esac
	} >"$dir/Makeflow"
	(cd "$dir" && mkdir -p seq && cd seq &&
		for ((i = 0; i < n; i++)); do
			seq 50 | awk -v s=$((seed * 100 + i)) 'BEGIN { srand(s) } { print int(rand() * 1e6) - 500000 }'
		done >all.txt &&
		case $kind in
		min) sort -n all.txt | head -n 1 ;;
		sum) awk '{ s += $1 } END { print s }' all.txt ;;
		esac >red.txt)
}
k=0
# (The last: two worker ranks a node, so that a step's rank may not be the
# one that made its files.)
for spec in "1 12 min 4" "2 17 sum 3" "3 9 min 2" "4 20 sum 4" "5 6 sum 3" "6 16 sum 4 9"; do
	read -r seed n kind nodes np <<<"$spec"
	k=$((k + 1))
	d="$tmp/red$k"
	gen_reduce "$seed" "$n" "$kind" "$d"
	stage=$([ "$kind" = min ] && echo sort || echo awk)
	: >"$tmp/log"
	: >"$tmp/rlog"
	if run "$d/Makeflow" -np "${np:-$((nodes + 1))}" --emulate-nodes "$nodes" --seed "$seed" -q \
		--config cogather --gather 4 --reduce "$stage" --local "$tmp/local" &&
		once "$n" && cmp -s "$d/red.txt" "$d/seq/red.txt" &&
		[ "$(wc -l <"$tmp/rlog")" -gt 1 ] && [ -z "$(ls -A "$tmp/local" 2>/dev/null)" ]; then
		pass "reduction ($kind of $n files on $nodes nodes): equals the sequential one, $(wc -l <"$tmp/rlog") steps"
	else
		fail "reduction ($kind of $n files on $nodes nodes): $(cat "$d/red.txt" 2>/dev/null) against $(cat "$d/seq/red.txt"), $(wc -l <"$tmp/rlog") steps"
	fi
done
# WfCommons: the command's arguments, without a shell; the program takes
# its output first, then its inputs.
d="$tmp/redwf"
mkdir -p "$d"
printf '#!/bin/sh\nout=$1\nshift\nsort -n "$@" | head -n 1 >"$out" && echo r >>"%s"\n' "$tmp/rlog" >"$d/minof"
chmod +x "$d/minof"
{
	printf '{"name": "reduce", "schemaVersion": "1.4",\n "workflow": {"executedAt": "20240101T000000+0000", "makespanInSeconds": 1,\n  "tasks": [\n'
	args="" files="" parents=""
	for ((i = 0; i < 10; i++)); do
		printf '   {"name": "p%d", "id": "p%d", "type": "compute", "runtimeInSeconds": 0.1, "parents": [], "children": ["red"],\n' "$i" "$i"
		printf '    "command": {"program": "sh", "arguments": ["-c", "seq 40 | awk -v s=%d '\''BEGIN { srand(s) } { print int(rand() * 1e6) }'\'' > p%d.txt"]},\n' "$((i + 50))" "$i"
		printf '    "files": [{"link": "output", "name": "p%d.txt", "sizeInBytes": 300}]},\n' "$i"
		args="$args, \"p$i.txt\""
		files="$files, {\"link\": \"input\", \"name\": \"p$i.txt\", \"sizeInBytes\": 300}"
		parents="$parents${parents:+, }\"p$i\""
	done
	printf '   {"name": "red", "id": "red", "type": "compute", "runtimeInSeconds": 0.1, "parents": [%s], "children": [],\n' "$parents"
	printf '    "command": {"program": "%s", "arguments": ["min.txt"%s]},\n' "$d/minof" "$args"
	printf '    "files": [{"link": "output", "name": "min.txt", "sizeInBytes": 8}%s]}\n  ]}}\n' "$files"
} >"$d/wf.json"
want=$(for ((i = 0; i < 10; i++)); do seq 40 | awk -v s=$((i + 50)) 'BEGIN { srand(s) } { print int(rand() * 1e6) }'; done | sort -n | head -n 1)
: >"$tmp/rlog"
if run "wfcommons:$d/wf.json" -np 5 --emulate-nodes 4 -q --config cogather --gather 4 \
	--reduce minof --local "$tmp/local" && [ "$(cat "$d/min.txt")" = "$want" ] &&
	[ "$(wc -l <"$tmp/rlog")" -gt 1 ]; then
	pass "reduction (WfCommons arguments): equals the sequential one, $(wc -l <"$tmp/rlog") steps"
else
	fail "reduction (WfCommons arguments): $(cat "$d/min.txt" 2>/dev/null) against $want"
fi
# A command that does not name its inputs as words (a glob) cannot run
# over part of them: the run says so.
d="$tmp/redglob"
gen_reduce 7 8 min "$d"
sed -i 's/sort -n p[^|]*|/sort -n p*.txt |/' "$d/Makeflow"
if ! run "$d/Makeflow" -np 4 --emulate-nodes 3 -q --config cogather --gather 4 --reduce sort \
	--local "$tmp/local" && grep -q "does not name its input p[0-9]*.txt as a word of its own" "$tmp/out"; then
	pass "reduction over a glob: refused, saying why"
else
	fail "reduction over a glob: $(tail -n 2 "$tmp/out")"
fi

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
if ! run "$d/Makeflow" -np 3 --emulate-nodes 2 -q --retries 2 &&
	grep -q "failed on 3 attempts" "$tmp/out" && grep -q "bad things happened" "$tmp/out" &&
	grep -q "exited with 3" "$tmp/out"; then
	pass "a failing command: retried, then the run ends quoting its stderr"
else
	fail "a failing command"
fi
# Fails once, then succeeds: the retry completes the run.
printf 'out.txt: in.txt\n\tif [ -e %s/flaky ]; then cp in.txt out.txt; else touch %s/flaky; exit 1; fi\n' \
	"$d" "$d" >"$d/Makeflow"
if run "$d/Makeflow" -np 3 --emulate-nodes 2 -q --retries 1 && cmp -s "$d/out.txt" "$d/in.txt"; then
	pass "a command failing once succeeds on its retry"
else
	fail "a retry"
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
if ! run "$d/Makeflow" -np 4 --emulate-nodes 3 -q --retries 2 &&
	grep -q "failed on 3 attempts" "$tmp/out" && grep -q "no luck on" "$tmp/out"; then
	pass "a command failing on every node ends the run"
else
	fail "a command failing on every node"
fi
printf 'out.txt: absent.txt\n\tcp absent.txt out.txt\n' >"$d/Makeflow"
if ! run "$d/Makeflow" -np 3 --emulate-nodes 2 -q && grep -q "absent.txt, an input of task" "$tmp/out"; then
	pass "a missing input is named"
else
	fail "a missing input"
fi
# Plain words run without the shell, with the shell's outcome: a program
# not found exits 127 with sh's message; one found runs in the working
# directory with its arguments.
printf 'out.txt: in.txt\n\tno_such_program_xyz in.txt out.txt\n' >"$d/Makeflow"
if ! run "$d/Makeflow" -np 3 --emulate-nodes 2 -q && grep -q "exited with 127" "$tmp/out" &&
	grep -q "no_such_program_xyz: not found" "$tmp/out"; then
	pass "a program not found: the shell's status and message"
else
	fail "a program not found"
fi
printf 'out.txt: in.txt\n\tcp in.txt out.txt\n' >"$d/Makeflow"
if run "$d/Makeflow" -np 3 --emulate-nodes 2 -q && cmp -s "$d/out.txt" "$d/in.txt"; then
	pass "a command of plain words"
else
	fail "a command of plain words"
fi
printf 'out.txt: in.txt\n\ttrue\n' >"$d/Makeflow"
if ! run "$d/Makeflow" -np 3 --emulate-nodes 2 -q && grep -q "did not write out.txt" "$tmp/out"; then
	pass "an output the command did not write fails the task"
else
	fail "a missing output"
fi

# ---- the journal: a killed run resumes; lost files are made again ------------------
d="$tmp/journal"
mkdir -p "$d"
echo seed >"$d/in.txt"
awk -v logf="$tmp/log" 'BEGIN { all = ""; for (i = 0; i < 12; i++) {
	printf("a%d.txt: in.txt\n\tsleep 1.2; cat in.txt > a%d.txt; echo %d >> a%d.txt; echo %d >> %s\n", i, i, i, i, i, logf)
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
if ! run "$d/Makeflow" -np 3 --emulate-nodes 2 -q --journal "$d/j" --local "$tmp/jlocal2" &&
	grep -q "another run is using this journal" "$tmp/out"; then
	pass "a second run on a journal in use is refused"
else
	fail "a second run on a journal in use"
fi
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
# mpirun): within a second no command of the run is left (each rank's
# keeper kills its commands' process group once the rank is gone).
d="$tmp/killed"
mkdir -p "$d"
for i in 0 1 2 3; do
	printf 'o%d:\n\techo \\$\\$ >> %s/pids; sleep 5; echo x > o%d\n\n' "$i" "$d" "$i"
done >"$d/Makeflow"
"$locus" flow run "$d/Makeflow" -np 5 --emulate-nodes 4 -q --local "$tmp/local" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do [ -s "$d/pids" ] && [ "$(wc -l <"$d/pids")" -ge 4 ] && break; sleep 0.05; done
kill -KILL $pid
wait $pid 2>/dev/null
sleep 1
alive=0
for p in $(cat "$d/pids" 2>/dev/null); do
	[ -e "/proc/$p" ] && ! grep -q ') Z' "/proc/$p/stat" 2>/dev/null && alive=$((alive + 1))
done
if [ "$(wc -l <"$d/pids" 2>/dev/null)" -ge 4 ] && [ "$alive" -eq 0 ]; then
	pass "launcher killed: no command left a second later"
else
	fail "launcher killed: $alive of $(wc -l <"$d/pids" 2>/dev/null) commands still run a second later"
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
# (the smallest instance: 101 tasks, 1.6 MB of files)
wf=$(ls "$here/../../../shared/data/wfcommons/"seismology-*.json 2>/dev/null | head -n 1)
if [ -n "$wf" ]; then
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

[ "$failed" -eq 0 ] || { echo "$failed flow check(s) failed" >&2; exit 1; }
echo "all flow checks passed"
