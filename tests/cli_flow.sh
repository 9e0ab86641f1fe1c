#!/bin/bash
# End-to-end tests of `locus flow`: show's stages, patterns and critical
# path for a generated Montage and a hand-written Makeflow; sim under
# every AMFS configuration (and the baselines) on generated workflows,
# Makeflows and the WfCommons instances, with versioned JSON, all the
# output files, determinism, and clear errors that leave nothing behind;
# run's hardening (issue 28): "--" before a name starting with '-', the
# default retry, --local and --journal refused or made as documented, one
# run at a time in a directory, what killed runs left swept, unreadable
# inputs, full disks and commands that cannot start said as such (each a
# small run on 3 ranks; skipped without MPI).
# Usage: cli_flow.sh LOCUS_BINARY TESTS_DIR.
set -u
locus=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tests=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-flow.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
. "$tests/lib/cli.sh"

configs=staging,cache,aware,cogather,asgather,shared,auto

run help 0 "$locus" flow --help && expect help-show 'locus flow show WORKFLOW' "$out" &&
	expect help-config 'cogather' "$out" && expect help-example 'locus flow sim gen:montage' "$out"
run help-sub 0 "$locus" flow sim --help && expect help-sub 'gen:blast' "$out"
run no-args 2 "$locus" flow && expect no-args 'usage: locus flow show' "$err"
run bad-sub 2 "$locus" flow walk x && expect bad-sub "expected 'show', 'sim', 'run', 'clean' or 'status'" "$err"
# The BG/P preset (issue 26): a partition of 16 nodes is 15 worker nodes
# of 4 cores and a dispatcher node, with the preset's fetch_cost given to
# amfs; a preset of another name, or of fewer than 2 nodes, is refused.
run preset 0 "$locus" flow sim gen:montage:64 --platform preset:bgp:16 --config staging &&
	expect preset 'config=staging,fetch_cost=0.0677, seed 1: 60 workers on 15 nodes, 3 schedulers' "$out"
run preset-name 2 "$locus" flow sim gen:montage:4 --platform preset:xyz && expect preset-name 'no such preset \(expected preset:bgp\[:NODES\]\)' "$err"
run preset-size 2 "$locus" flow sim gen:montage:4 --platform preset:bgp:1 && expect preset-size 'expected a partition of 2 to 1000000 nodes' "$err"
run run-only 2 "$locus" flow sim gen:montage:4 --np 3 && expect run-only "'locus flow run''s" "$err"
run run-compare 2 "$locus" flow run gen:montage:4 --compare cache,aware && expect run-compare "platform's options are 'locus flow sim''s" "$err"
run run-missing 1 "$locus" flow run /nonexistent/Makeflow && expect run-missing "cannot open" "$err"
run no-workflow 2 "$locus" flow sim --nodes 4 && expect no-workflow 'name the workflow' "$err"
run listed 0 "$locus" --help && expect listed '^  flow ' "$out"
# A launcher that hangs once its ranks have ended (Open MPI 5's mpiexec
# does when a rank dies inside MPI_Init: docs/results/faults.md) is ended
# 10 s after, and said; here one that never reaps its only child. A
# launcher that hangs when asked its version is ended after 5 s, and so
# is what it started (its process group). Both wait out their grace
# beside the rest of this script (in the background, with output files
# of their own), and are checked at its end.
mkdir -p hang
printf 'o: in\n\tcat in > o\n' >hang/Makeflow
echo x >hang/in
printf '#!/bin/sh\n[ "$1" = --version ] && echo "mpiexec (Open MPI) 5.0.0" && exit 0\nsh -c "exit 3" &\nexec sleep 120\n' >hang/mpirun
printf '#!/bin/sh\nsleep 120 &\necho $! >%s/hang/sleeper\nwait\n' "$tmp" >hang/mute
chmod +x hang/mpirun hang/mute
for l in mpirun mute; do
	(
		timeout 60 "$locus" flow run hang/Makeflow -np 3 --mpirun "$tmp/hang/$l" \
			>"hang/$l.out" 2>"hang/$l.err"
		echo $? >"hang/$l.rc"
	) &
	echo $! >"hang/$l.pid"
done
hang_check() {
	wait "$(cat hang/mpirun.pid)" "$(cat hang/mute.pid)"
	err=$(cat hang/mpirun.err)
	[ "$(cat hang/mpirun.rc)" = 1 ] && ok || fail "hung-launcher: exit $(cat hang/mpirun.rc), expected 1"
	expect hung-launcher "the MPI launcher $tmp/hang/mpirun hung: every rank it started here had ended 10 s before" "$err"
	err=$(cat hang/mute.err)
	[ "$(cat hang/mute.rc)" = 1 ] && ok || fail "mute-launcher: exit $(cat hang/mute.rc), expected 1"
	expect mute-launcher "the MPI launcher \"$tmp/hang/mute\" did not answer \"$tmp/hang/mute --version\" within 5 s; ended it" "$err"
	# (A zombie, killed and not yet reaped, is gone.)
	local gone=0 s
	for _ in $(seq 50); do
		s=$(cut -d' ' -f3 "/proc/$(cat hang/sleeper)/stat" 2>/dev/null)
		[ -z "$s" ] || [ "$s" = Z ] && gone=1 && break
		sleep 0.1
	done
	[ $gone = 1 ] && ok || fail "mute-launcher: its sleep still runs"
}

# A launcher told to end (a time limit's SIGTERM, passed on) that dies of
# another signal as it tears the job down (Open MPI 4.1's mpiexec has
# crashed in PMIx_Finalize there, under the Slurm test's time limit): the
# run says the job was cut short, and ends by the signal it was sent. The
# fake launcher says it is ready only once its trap is set (said before it,
# a loaded machine let the SIGTERM land first, and the launcher died of it).
mkdir -p segv
printf 'o: \n\techo x > o\n' >segv/Makeflow
cat >segv/mpirun <<'EOF'
#!/bin/sh
[ "$1" = --version ] && { echo "mpirun (Open MPI) 4.1.4"; exit 0; }
trap 'kill "$s" 2>/dev/null; trap - SEGV; kill -SEGV $$' TERM
sleep 30 &
s=$!
: >"$SEGV_READY"
wait "$s"
EOF
chmod +x segv/mpirun
SEGV_READY=$tmp/segv/ready "$locus" flow run segv/Makeflow -np 2 -q --mpirun "$tmp/segv/mpirun" \
	>segv/out 2>segv/err &
pid=$!
for _ in $(seq 200); do [ -e segv/ready ] && break; sleep 0.05; done
kill -TERM $pid
wait $pid
rc=$?
err=$(cat segv/err)
[ $rc = 143 ] && ok || fail "launcher-segv: exit $rc, expected 143 (SIGTERM's)"
expect launcher-segv "the MPI launcher $tmp/segv/mpirun was killed by signal 11 \(Segmentation fault\) while ending the job on signal 15 \(Terminated\): the job was cut short" "$err"

# --work replaces the workflow's runtimes: a chain of three rules on one
# core takes their sum (fixed:2, and a trace of 1, 2, 3 seconds).
printf 'b: a\n\tcp a b\nc: b\n\tcp b c\nd: c\n\tcp c d\n' >chain.mf
printf '# seconds\n1\n2\n3\n' >chain.work
run work-fixed 0 "$locus" flow sim chain.mf --nodes 1 --cores 1 --work fixed:2 --json &&
	expect work-fixed '"makespan": 6\.0' "$out"
run work-trace 0 "$locus" flow sim chain.mf --nodes 1 --cores 1 --work trace:chain.work --json &&
	expect work-trace '"makespan": 6\.0' "$out"
run work-bad 1 "$locus" flow sim chain.mf --work bogus:1 && expect work-bad 'fixed' "$err"
run work-show 2 "$locus" flow show chain.mf --work fixed:1 && expect work-show "--work replaces" "$err"

# show: the generated Montage's stages and patterns (Fig. 4: mImgtbl,
# mConcatFit and mAdd gather; the projected images and their areas are
# multicast to mDiffFit), and a critical path through its nine steps.
run show 0 "$locus" flow show gen:montage:30 --seed 3 &&
	expect show-head 'gen:montage:30: 153 tasks in 8 stages' "$out" &&
	expect show-project '^mProject +30 ' "$out" &&
	expect show-imgtbl '^mImgtbl +2 .*gather \(2 gathering' "$out" &&
	expect show-diff '^mDiffFit +88 .*multicast \(21 files' "$out" &&
	expect show-concat '^mConcatFit +1 .*gather' "$out" &&
	expect show-add '^mAdd +1 .*gather' "$out" &&
	expect show-cp 'critical path: [0-9.]+ s over 9 tasks' "$out"
run show-json 0 "$locus" flow show gen:montage:30 --seed 3 --json &&
	expect show-json-format '"format": "locus-flow"' "$out" &&
	expect show-json-stage '"name": "mDiffFit", "tasks": 88' "$out" &&
	expect show-json-patterns '"patterns": \["pipeline", "multicast"\]' "$out"
run show-threshold 0 "$locus" flow show gen:montage:30 --seed 3 --multicast 1000 &&
	{ printf '%s\n' "$out" | grep -Eq '^mDiffFit .*multicast' && fail "threshold 1000 still multicast" || ok; }
run show-blast 0 "$locus" flow show gen:blast:8:16 --gather 8 --reduce merge &&
	expect show-blast-scatter '^fastasplitn +1 .*scatter' "$out" &&
	expect show-blast-multicast '^blastp +128 .*multicast \(24 files, up to 16 readers' "$out" &&
	expect show-blast-reduce '^merge +16 .*reduce' "$out"

# A Makeflow written by hand: split, search each part, merge (a gather
# at threshold 3), with sizes and runtimes in variables.
mkdir -p mf
cat >mf/Makeflow <<'M'
# Split the query, search each part, merge the hits.
LOCUS_RUNTIME=2
.SIZE query.fa 4000000
part.0 part.1 part.2 part.3: query.fa
	split.sh query.fa 4
hits.0: part.0 db
LOCUS_RUNTIME=30
	search part.0 db > hits.0
hits.1: part.1 db
	search part.1 db > hits.1
hits.2: part.2 db
	search part.2 db > hits.2
hits.3: part.3 db
	search part.3 db > hits.3
result: hits.0 hits.1 hits.2 hits.3
	cat hits.0 hits.1 hits.2 hits.3 > result
M
printf 'ACGT\n' >mf/db
run show-mf 0 "$locus" flow show mf/Makeflow --gather 3 &&
	expect show-mf-head '6 tasks' "$out" && expect show-mf-gather '^cat +1 .*gather' "$out"

# sim: one configuration, in text and as version 6 JSON, deterministic.
run sim 0 "$locus" flow sim gen:montage:30 --seed 3 --nodes 8 --config cogather -q &&
	expect sim-status 'status +complete' "$out" &&
	expect sim-policy 'policy amfs config=cogather, seed 3: 32 workers on 8 nodes, 3 schedulers' "$out" &&
	expect sim-stage '^mDiffFit +88 ' "$out" &&
	expect sim-collectives '^mAdd +1 .* gather \(1\)' "$out"
run sim-json 0 "$locus" flow sim gen:montage:30 --seed 3 --nodes 8 --config cogather --json
first=$out
expect sim-json-version '"version": 6' "$out" && expect sim-json-options '"policy_options": "config=cogather"' "$out" &&
	expect sim-json-fs '"file_system": \{"operations": ' "$out" && expect sim-json-stages '"stages": \[' "$out"
run sim-again 0 "$locus" flow sim gen:montage:30 --seed 3 --nodes 8 --config cogather --json
[ "$out" = "$first" ] && ok || fail "the same seed gave different results"
run sim-other 0 "$locus" flow sim gen:montage:30 --seed 4 --nodes 8 --config cogather --json
[ "$out" != "$first" ] && ok || fail "another seed gave the same result"

# Every configuration, one table; the shared one moves nothing between
# nodes, staging writes every output to the file system.
run compare 0 "$locus" flow sim gen:montage:30 --nodes 8 --compare $configs -q &&
	[ "$(printf '%s\n' "$out" | grep -c '^amfs config=[a-z]* *complete ')" -eq 7 ] && ok ||
	fail "compare: not seven complete runs"
expect compare-stages '^mBackground ' "$out" && expect compare-per-stage 'time per stage' "$out"
shared_moved=$(printf '%s\n' "$out" | awk '$2 == "config=shared" { print $10 }')
[ "$shared_moved" = "0.0" ] && ok || fail "shared moved $shared_moved MB between nodes"
# The baselines beside AMFS, on the same table.
run baselines 0 "$locus" flow sim gen:montage:30 --nodes 8 --compare cogather,taskvine,dask -q &&
	expect baselines-taskvine '^taskvine +complete ' "$out" && expect baselines-dask '^dask +complete ' "$out"
run compare-json 0 "$locus" flow sim gen:blast:8:4 --nodes 8 --compare staging,cogather --json &&
	expect compare-json-v6 '"version": 6' "$out" &&
	[ "$(printf '%s\n' "$out" | grep -c '"policy_options": "config=')" -eq 2 ] && ok ||
	fail "compare json: not two runs with their options"

# A Makeflow run with every output file; the trace has the staging copies
# from the file system.
run mf-sim 0 "$locus" flow sim mf/Makeflow --nodes 2 --cores 2 --config staging \
	--out r.json --csv r.csv --trace t.json --gantt g.svg --load l.svg -q &&
	expect mf-sim 'status +complete' "$out"
grep -q '"version": 6' r.json && grep -q '"name": "search"' r.json && ok ||
	fail "result: no version 6 stages"
[ "$(wc -l <r.csv)" -eq 7 ] && ok || fail "csv: not 6 tasks"
grep -q '"from":null' t.json && ok || fail "trace: no copy from the file system"
tail -n 1 g.svg | grep -q '</svg>' && tail -n 1 l.svg | grep -q '</svg>' && ok || fail "svg: not whole"
# locus sim reads the same workflows.
run sim-graph 0 "$locus" sim --graph makeflow:mf/Makeflow --procs 2 &&
	expect sim-graph 'status +complete' "$out"
run sim-gen 0 "$locus" sim --graph gen:blast:4:2 --procs 4 && expect sim-gen 'status +complete' "$out"

# Rules of no work (issue 28): heft, cpop and peft once ran none of them
# (a task of no duration planned before its predecessor).
mkdir -p zero
printf 'LOCUS_RUNTIME=0\na:\n\techo a > a\nb: a\n\tcat a > b\nc:\n\techo c > c\n' >zero/Makeflow
for pol in heft cpop peft; do
	run "zero-$pol" 0 "$locus" flow sim zero/Makeflow --nodes 2 -x $pol -q &&
		expect "zero-$pol" 'status +complete' "$out"
done

# flow run refuses a task that writes files and has no command before
# anything runs (issue 28: it failed at run time, "did not write g");
# flow sim simulates it.
cat >nocmd.json <<'J'
{"schemaVersion": "1.5", "name": "nocmd", "workflow": {"specification": {
 "tasks": [{"id": "a", "name": "a", "parents": [], "children": ["b"], "inputFiles": [], "outputFiles": ["f"]},
  {"id": "b", "name": "b", "parents": ["a"], "children": [], "inputFiles": ["f"], "outputFiles": ["g"]}],
 "files": [{"id": "f", "sizeInBytes": 2}, {"id": "g", "sizeInBytes": 2}]},
 "execution": {"tasks": [{"id": "a", "runtimeInSeconds": 1, "command": {"program": "sh", "arguments": ["-c", "echo x > f"]}},
  {"id": "b", "runtimeInSeconds": 1}]}}}
J
run nocmd-run 1 "$locus" flow run nocmd.json -q &&
	expect nocmd-run 'nocmd.json: task "b" has no command, and it writes "g": expected a command for every task that writes files' "$err"
run nocmd-sim 0 "$locus" flow sim nocmd.json -q && expect nocmd-sim 'status +complete' "$out"

# The WfCommons instances (tests/fixtures/wfcommons): every configuration
# completes.
n=0
for f in "$tests"/fixtures/wfcommons/*-001.json; do
	if run "wf $(basename "$f")" 0 "$locus" flow sim "$f" --nodes 8 --compare $configs -q; then
		[ "$(printf '%s\n' "$out" | grep -c ' complete ')" -eq 7 ] && ok ||
			fail "$f: not seven complete runs"
		n=$((n + 1))
	fi
done
[ "$n" -eq 4 ] && ok || fail "wfcommons: $n of 4 instances ran"

# Errors: clear, with the right status, nothing half-written.
run bad-config 2 "$locus" flow sim gen:montage:8 --config fast &&
	expect bad-config '--config expects staging' "$err"
run bad-compare 2 "$locus" flow sim gen:montage:8 --compare cache,nope &&
	expect bad-compare '"nope" is neither an amfs configuration' "$err"
run config-policy 2 "$locus" flow sim gen:montage:8 --config cache --policy fifo &&
	expect config-policy '--config is amfs' "$err"
run show-sim-opt 2 "$locus" flow show gen:montage:8 --nodes 4 && expect show-sim-opt "sim's" "$err"
run bad-gen 1 "$locus" flow show gen:montage:0 && expect bad-gen 'gen:montage\[:IMAGES\]' "$err"
run missing 1 "$locus" flow show nowhere.json && expect missing 'nowhere.json' "$err"
printf 'hello\n' >what.txt
run unknown 1 "$locus" flow show what.txt &&
	expect unknown 'what.txt:1:1: expected a task graph: .*a Makeflow' "$err"
printf 'a: b\n\tcmd\nc d\n' >bad.mf
run bad-mf 1 "$locus" flow show bad.mf && expect bad-mf 'bad.mf:3:' "$err"
# A run that overfills a node fails saying which file, and its result
# says so; an error before the run writes nothing.
run full 1 "$locus" flow sim gen:montage:8 --nodes 2 --storage 1M --config cache --out full.json -q &&
	expect full 'local storage \(1048576 bytes\) cannot hold file' "$err"
grep -q '"status": "failed"' full.json && ok || fail "the failed run's result does not say so"
run bad-opt 1 "$locus" flow sim gen:montage:8 -o nope=1 --out bad.json &&
	expect bad-opt 'no option "nope"' "$err"
[ -e bad.json ] && fail "an error left bad.json" || ok
run no-dir 1 "$locus" flow sim gen:montage:8 --out nodir/r.json && expect no-dir 'nodir' "$err"
# Issue 28: a reduce stage the workflow lacks, an empty list, hexadecimal
# and work past its range were accepted.
run reduce-none 1 "$locus" flow sim gen:montage:8 --reduce mAdd,nosuch &&
	expect reduce-none 'stage "nosuch": the workflow has no such stage: expected one of its 8 stages \(mProject, ' "$err"
run reduce-none-show 1 "$locus" flow show gen:montage:8 --reduce nosuch && expect reduce-none-show 'no such stage' "$err"
run reduce-empty 2 "$locus" flow sim gen:montage:8 --reduce '' && expect reduce-empty '--reduce expects stages' "$err"
run compare-empty 2 "$locus" flow sim gen:montage:8 --compare '' &&
	expect compare-empty '--compare expects configurations or policies separated by commas, got "" \(a name is missing\)' "$err"
run compare-comma 2 "$locus" flow sim gen:montage:8 --compare cache, && expect compare-comma 'a name is missing' "$err"
printf 'LOCUS_RUNTIME=0x10\na:\n\techo a > a\n' >hex.mf
run hex-runtime 1 "$locus" flow sim hex.mf &&
	expect hex-runtime 'hex.mf:1:15: expected LOCUS_RUNTIME in seconds \(a decimal number from 0 to 1e\+09\), got "0x10"' "$err"

# ---- locus flow run: hardening (issue 28) ------------------------------------------
if "$locus" flow run gen:montage:4 2>&1 | grep -q "built without MPI"; then
	echo "locus was built without MPI: flow run's checks skipped"
else
	. "$tests/mpi/sanitizer-env.sh"
	R=(-np 3 --emulate-nodes 2 -q)
	mkdir -p hr && cd hr || exit 1
	echo x >in.txt
	printf 'out.txt: in.txt\n\tcp in.txt out.txt\n' >Makeflow
	# A name that starts with '-' after "--" (and said so without it);
	# --local: never empty; a missing directory is made when its parent
	# exists, and removed afterwards; a missing parent is refused.
	cp Makeflow ./-my\ flow.mf
	run dash-name 0 "$locus" flow run "${R[@]}" --local "$tmp/hr/newlocal" -- '-my flow.mf' &&
		cmp -s out.txt in.txt && [ ! -e newlocal ] && ok ||
		fail "a workflow named -my flow.mf after --, --local made and removed"
	run dash-hint 2 "$locus" flow run '-my flow.mf' "${R[@]}" &&
		expect dash-hint 'unknown option -m in "-my flow.mf" \(an argument that starts with .-. goes after "--"\)' "$err"
	run dash-help 0 "$locus" sim --help && expect dash-help '^      -- +end of the options' "$out"
	rm -f out.txt
	run local-empty 2 "$locus" flow run Makeflow "${R[@]}" --local '' &&
		expect local-empty '--local expects a directory, got ""' "$err"
	run local-parent 1 "$locus" flow run Makeflow "${R[@]}" --local "$tmp/hr/no/dir" &&
		expect local-parent 'its parent directory is missing' "$err"
	[ ! -e no ] && ok || fail "--local with a missing parent made it"
	# --retries defaults to 1: a command failing once succeeds. What a
	# killed run left (a temporary in the shared directory, its directory
	# under --local) is swept, and said; a journal's directory is kept.
	printf 'out.txt: in.txt\n\tif [ -e %s/once ]; then cp in.txt out.txt; else touch %s/once; exit 1; fi\n' \
		"$PWD" "$PWD" >Once.mf
	sh -c 'echo $$ >dead.pid'
	dead=$(cat dead.pid)
	echo partial >"out.txt.locus-tmp-1-$dead"
	mkdir -p "loc/locus-flow-$dead-1f/node000/store" "loc/locus-flow-j0123/node000/store"
	echo x >"loc/locus-flow-$dead-1f/node000/store/o1"
	# A launcher killed by SIGKILL leaves its launch report in TMPDIR
	# (named by its pid): the next launcher there sweeps it, and keeps a
	# live one's.
	mkdir -p ltmp
	touch "ltmp/locus-launch-$dead-AbC123" "ltmp/locus-launch-$$-XyZ789"
	TMPDIR=$tmp/hr/ltmp run retry-sweep 0 "$locus" flow run Once.mf "${R[@]}" --local "$tmp/hr/loc" &&
		cmp -s out.txt in.txt && ok || fail "the default retry"
	expect sweep 'swept what killed runs left: 1 temporary in the shared directory, 1 run directory under' "$err"
	[ ! -e "out.txt.locus-tmp-1-$dead" ] && [ "$(ls loc)" = locus-flow-j0123 ] && ok ||
		fail "sweep: left $(ls out.txt.* loc 2>&1)"
	expect sweep-launch "swept what killed launchers left: 1 launch report in $tmp/hr/ltmp" "$err"
	[ "$(ls ltmp | grep locus-launch)" = "locus-launch-$$-XyZ789" ] && ok ||
		fail "sweep-launch: ltmp holds $(ls ltmp)"
	rm -f out.txt
	# Open MPI's shared memory: a launcher killed by SIGKILL leaves its
	# ranks' segments (/dev/shm/vader_segment.HOST.UID.JOB.N) and its
	# session directory (TMPDIR/ompi.HOST.UID/pid.N), and a job that
	# succeeds leaves some segments (Open MPI 4.1): the next launcher
	# sweeps the killed job's, each launcher its own job's, and nothing
	# of another job (another id, another user).
	if mpiexec --version 2>&1 | grep -qi "open mpi\|open-mpi\|openrte"; then
		mkdir -p kt
		printf '#!/bin/sh\necho "$OMPI_MCA_ess_base_jobid" >%s/job.$1\n' "$PWD" >job.sh
		printf 'out.txt: in.txt\n\tsh %s/job.sh 1; sleep 30; cp in.txt out.txt\n' "$PWD" >Slow.mf
		printf 'out.txt: in.txt\n\tsh %s/job.sh 2; cp in.txt out.txt\n' "$PWD" >Quick.mf
		rm -f job.1 job.2
		TMPDIR=$tmp/hr/kt "$locus" flow run Slow.mf "${R[@]}" --local "$tmp/hr/kl" >/dev/null 2>&1 &
		pid=$!
		for _ in $(seq 200); do [ -s job.1 ] && break; sleep 0.1; done
		mpx=$(pgrep -P $pid | head -1)
		kill -KILL $pid
		wait $pid 2>/dev/null
		for _ in $(seq 100); do kill -0 "$mpx" 2>/dev/null || break; sleep 0.1; done
		hex=$(printf '%x' "$(cat job.1)")
		segs() { find /dev/shm -maxdepth 1 -name "vader_segment.*.$(id -u).$1.*" | wc -l; }
		left=$(segs "$hex")
		[ "$left" -gt 0 ] && [ -d "kt/ompi.$(hostname).$(id -u)/pid.$mpx" ] && ok ||
			fail "killed launcher: $left segments of job $hex, $(ls -R kt)"
		other=/dev/shm/vader_segment.$(hostname).$(($(id -u) + 1)).$hex.0
		other2=/dev/shm/vader_segment.$(hostname).$(id -u).$hex"0".0
		touch "$other" "$other2"
		TMPDIR=$tmp/hr/kt run shm-swept 0 "$locus" flow run Quick.mf "${R[@]}" --local "$tmp/hr/kl" &&
			expect shm-swept "swept what their jobs left: $left shared-memory segments?, 1 session directory of Open MPI" "$err"
		[ "$(segs "$hex")" = 0 ] && [ ! -e "kt/ompi.$(hostname).$(id -u)/pid.$mpx" ] && ok ||
			fail "shm-swept: $(segs "$hex") segments of job $hex left, $(ls -R kt)"
		[ -e "$other" ] && [ -e "$other2" ] && ok || fail "shm-swept: another job's segment went"
		rm -f "$other" "$other2"
		own=$(printf '%x' "$(cat job.2)")
		[ "$(segs "$own")" = 0 ] && ok || fail "shm-own: the job $own left $(segs "$own") segments"
		# A session whose launcher is gone and that no launch report
		# names (its launcher killed before its ranks wrote one, or
		# another program's job) goes too, with its jobs' segments
		# (contact.txt: the job family 0x7e570000; jobs 0 and 1); a live
		# launcher's stays.
		s=kt/ompi.$(hostname).$(id -u)
		mkdir -p "$s/pid.$dead/0" "$s/pid.$dead/1/0" "$s/pid.$$/1"
		echo '2119630848.0;tcp://127.0.0.1:1' >"$s/pid.$dead/contact.txt"
		touch "/dev/shm/vader_segment.$(hostname).$(id -u).7e570001.0" \
			"/dev/shm/vader_segment.$(hostname).$(id -u).7e570001.1"
		rm -f out.txt
		TMPDIR=$tmp/hr/kt run session-swept 0 "$locus" flow run Quick.mf "${R[@]}" --local "$tmp/hr/kl" &&
			expect session-swept "swept what their jobs left: 2 shared-memory segments, 1 session directory of Open MPI" "$err"
		[ "$(segs 7e570001)" = 0 ] && [ ! -e "$s/pid.$dead" ] && [ -d "$s/pid.$$" ] && ok ||
			fail "session-swept: $(segs 7e570001) segments left, $(ls -R kt)"
		rm -rf out.txt job.* kt kl
		# Shared memory reads a large message from the sender's memory
		# in one copy (cross-memory attach) where the kernel allows it,
		# and goes through a shared buffer where it does not (a shim
		# refuses process_vm_readv, as many containers do; Open MPI told
		# to attach there complains "Read -1, ... errno = 1" at each
		# large message). The launcher chooses attach exactly when a run
		# told to use it works; either way a 4 MB file crosses nodes
		# intact; a user's setting is kept.
		printf 'big big.sum:\n\thead -c 4000000 /dev/urandom > big; cksum < big > big.sum\n\n' >Cma.mf
		printf 'r1: big\n\tcksum < big > r1\n\nr2: big\n\tcksum < big > r2\n\n' >>Cma.mf
		printf 'env:\n\techo \\$OMPI_MCA_btl_vader_single_copy_mechanism > env\n' >>Cma.mf
		cat >nocma.c <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <sys/uio.h>
ssize_t process_vm_readv(pid_t pid, const struct iovec *l, unsigned long nl,
			 const struct iovec *r, unsigned long nr, unsigned long flags)
{
	(void)pid, (void)l, (void)nl, (void)r, (void)nr, (void)flags;
	errno = EPERM;
	return -1;
}
EOF
		cma_run() { # NAME [ENV...]: the multicast of big; 0 when intact
			local name=$1
			shift
			rm -f big.sum r1 r2 env
			env -u OMPI_MCA_btl_vader_single_copy_mechanism "$@" \
				"$locus" flow run Cma.mf "${R[@]}" --config aware -o multicast=2 --out cma.json \
				>"$name.out" 2>"$name.err"
			local rc=$? moved
			moved=$(python3 -c 'import json,sys; print(sum(t["bytes"] for t in json.load(open(sys.argv[1]))["transfers"] if t["from"] != t["to"]))' cma.json 2>/dev/null)
			[ $rc = 0 ] && cmp -s r1 big.sum && cmp -s r2 big.sum && [ "$moved" = 4000000 ] &&
				! grep -q 'errno' "$name.err"
		}
		allowed=none
		cma_run cma-told OMPI_MCA_btl_vader_single_copy_mechanism=cma && allowed=cma
		cma_run cma-probe && [ "$(cat env)" = $allowed ] && ok ||
			fail "cma-probe: chose $(cat env 2>/dev/null) where a run told to attach says $allowed: $(cat cma-probe.err)"
		cma_run cma-user OMPI_MCA_btl_vader_single_copy_mechanism=none && [ "$(cat env)" = none ] && ok ||
			fail "cma-user: chose $(cat env 2>/dev/null) where the user said none: $(cat cma-user.err)"
		if cc -shared -fPIC -o nocma.so nocma.c 2>/dev/null; then
			nocma=(LD_PRELOAD="$PWD/nocma.so" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0")
			! cma_run cma-shim "${nocma[@]}" OMPI_MCA_btl_vader_single_copy_mechanism=cma && ok ||
				fail "cma-shim: a run told to attach under the shim went through"
			cma_run cma-forbidden "${nocma[@]}" && [ "$(cat env)" = none ] && ok ||
				fail "cma-forbidden: chose $(cat env 2>/dev/null) under the shim: $(cat cma-forbidden.err)"
		fi
		rm -f Cma.mf big.sum r1 r2 env cma.json nocma.* cma-*.out cma-*.err
	fi
	# A journal's directory is kept while its journal is there (the
	# resume takes its files), and swept by the next run there once the
	# journal was deleted, and said; one whose record names another host
	# (where its journal would be) is kept.
	printf 'mid: in.txt\n\tcp in.txt mid; echo >>%s/ran.mid\nend: mid\n\texit 1\n' "$PWD" >Fails.mf
	for j in gone kept away; do
		run "journal-$j" 1 "$locus" flow run Fails.mf "${R[@]}" --retries 0 --journal $j.j \
			--local "$tmp/hr/jg" && expect "journal-$j" 'task end' "$err"
	done
	[ "$(ls jg | wc -l)" = 3 ] && ok || fail "three failed journal runs: jg holds $(ls jg)"
	kept=$(cd jg && grep -l kept.j locus-flow-j*/.journal)
	away=$(cd jg && grep -l away.j locus-flow-j*/.journal)
	sed -i '2s/.*/elsewhere/' "jg/$away"
	rm -f gone.j away.j mid
	run journal-swept 0 "$locus" flow run Makeflow "${R[@]}" --local "$tmp/hr/jg" &&
		expect journal-swept "swept what killed runs left: 0 temporaries in the shared directory, 1 run directory under $tmp/hr/jg \(1 whose journal was deleted\)" "$err"
	[ "$(ls jg | sort)" = "$(printf '%s\n' "${kept%/.journal}" "${away%/.journal}" | sort)" ] && ok ||
		fail "journal-swept: jg holds $(ls jg)"
	# The kept one resumes: mid is not made again.
	run journal-resume 1 "$locus" flow run Fails.mf "${R[@]}" --retries 0 --journal kept.j \
		--local "$tmp/hr/jg" && expect journal-resume 'task end' "$err"
	[ "$(wc -l <ran.mid)" = 3 ] && [ -e mid ] && ok || fail "journal-resume: mid made again"
	rm -rf out.txt mid ran.mid kept.j jg
	# A file that is not a journal is refused and left as it was; so is
	# a journal the workflow would write; neither leaves a directory.
	for body in 'one line' 'line one\nline two'; do
		printf "$body" >notes.txt
		cp notes.txt notes.ref
		run "not-a-journal $body" 1 "$locus" flow run Makeflow "${R[@]}" --journal notes.txt \
			--local "$tmp/hr/jl" &&
			expect not-a-journal 'notes.txt:1:1: expected "locus-journal 2' "$err"
		cmp -s notes.txt notes.ref && ok || fail "not-a-journal \"$body\": the file was changed"
	done
	[ ! -e out.txt ] && ok || fail "a refused journal: the run went on"
	[ ! -e jl ] && ok || fail "a refused journal left $(find jl)"
	# A journal run that fails before its tasks keeps no empty directory.
	printf 'out.txt: absent.txt\n\tcp absent.txt out.txt\n' >Absent.mf
	run journal-early 1 "$locus" flow run Absent.mf "${R[@]}" --journal early.j --local "$tmp/hr/jl" &&
		expect journal-early 'absent.txt, an input of task' "$err"
	[ ! -e jl ] && ok || fail "a journal run failing early left $(find jl)"
	run journal-output 1 "$locus" flow run Makeflow "${R[@]}" --journal out.txt &&
		expect journal-output 'the journal would be the workflow.s file "out.txt", an output of task' "$err"
	[ ! -e out.txt ] && ok || fail "journal-output: out.txt was made"
	# amfs's pipeline=1: a chain's tasks go with its first to one worker
	# and each starts when its predecessor's file is made there; the one
	# that fails once is retried (wherever the executor sends it) and the
	# chain still ends with every line.
	printf 'p_1: in.txt\n\tcat in.txt > p_1\n' >Pipe.mf
	for i in 2 3 4 5 6; do
		if [ $i = 4 ]; then
			printf 'p_%d: p_%d\n\tif [ -e %s/pipe.once ]; then cat p_%d > p_%d; echo %d >> p_%d; else touch %s/pipe.once; exit 1; fi\n' \
				$i $((i - 1)) "$PWD" $((i - 1)) $i $i $i "$PWD"
		else
			printf 'p_%d: p_%d\n\tcat p_%d > p_%d; echo %d >> p_%d\n' $i $((i - 1)) $((i - 1)) $i $i $i
		fi
	done >>Pipe.mf
	rm -f pipe.once
	run pipeline 0 "$locus" flow run Pipe.mf "${R[@]}" -o pipeline=1 --retries 2 &&
		[ "$(tail -n 5 p_6 | tr '\n' ' ')" = "2 3 4 5 6 " ] && [ -e pipe.once ] && ok ||
		fail "pipeline=1: p_6 holds $(tr '\n' ' ' <p_6 2>&1)"
	rm -f p_? pipe.once Pipe.mf
	# One run at a time in a directory: the second is refused while the
	# first waits for a gate.
	printf 'out.txt: in.txt\n\twhile [ ! -e %s/go ]; do sleep 0.05; done; cp in.txt out.txt\n' "$PWD" >Gate.mf
	"$locus" flow run Gate.mf "${R[@]}" --local "$tmp/hr/l1" >first.out 2>&1 &
	first=$!
	for _ in $(seq 200); do [ -d l1 ] && break; sleep 0.05; done
	sleep 0.3
	run two-runs 1 "$locus" flow run Makeflow "${R[@]}" --local "$tmp/hr/l2" --journal new.j &&
		expect two-runs '/hr: another run \(pid [0-9]+\) is using the shared directory \(one run at a time\); wait for it to end, or run with --wait' "$err"
	[ ! -e new.j ] && [ ! -e l2 ] && ok || fail "two runs: the refused one left $(ls -d new.j l2 2>&1)"
	# With --wait (issue 28, item 10), a second run without a journal
	# waits for the first, then runs: it has not ended while the gate is
	# shut, and ends with its output once the first has.
	rm -f waited.txt
	printf 'waited.txt: in.txt\n\tcp in.txt waited.txt\n' >Wait.mf
	"$locus" flow run Wait.mf "${R[@]}" --local "$tmp/hr/l3" --wait >second.out 2>&1 &
	second=$!
	sleep 1.5
	kill -0 $second 2>/dev/null && [ ! -e waited.txt ] && ok ||
		fail "--wait: the second run did not wait: $(cat second.out)"
	touch go
	wait $first && [ -s out.txt ] && ok || fail "two runs: the first failed: $(cat first.out)"
	wait $second && cmp -s waited.txt in.txt && ok || fail "--wait: the second run failed: $(cat second.out)"
	rm -f out.txt go waited.txt
	# An input that cannot be read (as root: a file of /proc/sys that is
	# write-only) ends the run naming it, under every policy.
	wo=""
	for p in /proc/sys/vm/compact_memory /proc/sys/net/ipv4/route/flush; do
		[ -e "$p" ] && ! cat "$p" >/dev/null 2>&1 && wo=$p && break
	done
	if [ -n "$wo" ]; then
		mkdir -p unread && ln -sf "$wo" unread/in.txt
		printf 'mid.txt: in.txt\n\tcp in.txt mid.txt\nout.txt: mid.txt\n\tcp mid.txt out.txt\n' >unread/Makeflow
		for pol in "--config cache" "-x taskvine"; do
			# shellcheck disable=SC2086
			run "unreadable $pol" 1 timeout 20 "$locus" flow run unread/Makeflow "${R[@]}" $pol &&
				expect "unreadable $pol" 'in.txt.*Permission denied' "$err"
		done
	fi
	# A command that cannot start: a WfCommons program not found.
	cat >nf.json <<'EOF'
{"name": "nf", "schemaVersion": "1.4",
 "workflow": {"executedAt": "20240101T000000+0000", "makespanInSeconds": 1,
  "tasks": [{"name": "t", "id": "t", "type": "compute", "runtimeInSeconds": 0.1,
    "command": {"program": "no_such_program_xyz", "arguments": ["in.txt"]},
    "parents": [], "children": [],
    "files": [{"link": "input", "name": "in.txt", "sizeInBytes": 2},
              {"link": "output", "name": "nf.out", "sizeInBytes": 2}]}]}}
EOF
	run not-found 1 "$locus" flow run wfcommons:nf.json "${R[@]}" &&
		expect not-found 'task t failed on 2 attempts .*cannot start its command \(no_such_program_xyz\): No such file or directory' "$err"
	# A command that cannot start because the system has no room for a
	# process (fork's EAGAIN, which root's process limit never gives):
	# posix_spawnp of that program fails so in a shim the ranks load.
	cat >eagain.c <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <string.h>
typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);
int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	if (!strcmp(file, "no_such_program_xyz"))
		return EAGAIN;
	spawn_fn *real = (spawn_fn *)dlsym(RTLD_NEXT, "posix_spawnp");
	return real(pid, file, fa, at, argv, envp);
}
EOF
	if cc -shared -fPIC -o eagain.so eagain.c -ldl 2>/dev/null; then
		LD_PRELOAD=$PWD/eagain.so ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
			run eagain 1 "$locus" flow run wfcommons:nf.json "${R[@]}" &&
			expect eagain 'task t failed on 2 attempts .*cannot start its command \(no_such_program_xyz\): Resource temporarily unavailable' "$err"
	fi
	# Full disks (a 64 KiB tmpfs, where one may be mounted): the journal
	# says "No space left on device" and keeps whole lines; a full node
	# storage is said with the command's status.
	mkdir -p mnt
	if mount -t tmpfs -o size=64k tmpfs mnt 2>/dev/null; then
		long=$(printf 'n%.0s' $(seq 200))
		for i in $(seq 20); do printf '%s%d: in.txt\n\tcp in.txt %s%d\n' "$long" "$i" "$long" "$i"; done >Long.mf
		printf 'locus-flow-journal 1\t20\t21\n' >mnt/j
		cat /dev/zero >mnt/fill 2>/dev/null
		# Its nodes' storage under $tmp: a failed journal run keeps it
		# for a resume, and this journal goes with the tmpfs (under
		# /dev/shm, each make check left one there).
		run journal-full 1 "$locus" flow run Long.mf "${R[@]}" --journal mnt/j --local "$tmp/hr/jfull" &&
			expect journal-full 'cannot write the journal mnt/j: No space left on device' "$err"
		[ "$(tail -c 1 mnt/j | od -An -c | tr -d ' ')" = '\n' ] && ok || fail "journal-full: a torn line"
		rm -f mnt/fill mnt/j "$long"*
		head -c 30000 /dev/urandom >big.bin
		printf 'o1: big.bin\n\tcp big.bin o1\no2: o1\n\tcat o1 o1 o1 > o2\n' >Big.mf
		run local-full 1 "$locus" flow run Big.mf "${R[@]}" --local "$tmp/hr/mnt" &&
			expect local-full "task o2 failed .*exited with 1; node node00[01]'s storage .* is full \(No space left on device\)" "$err"
		umount mnt
		# A read-only shared directory: the output that cannot be
		# written there is said as such.
		mount -t tmpfs -o size=64k tmpfs mnt && cp in.txt mnt/ &&
			printf 'out.txt: in.txt\n\tcp in.txt out.txt\n' >mnt/Makeflow &&
			mount -o remount,ro mnt && cd mnt &&
			run read-only 1 "$locus" flow run Makeflow "${R[@]}" --local "$tmp/hr/rol" &&
			expect read-only 'task out.txt: cannot write .*/mnt/out.txt to the shared directory: Read-only file system' "$err"
		cd "$tmp/hr" && umount mnt
	else
		echo "tmpfs cannot be mounted here: the full-disk checks skipped"
	fi
	cd "$tmp" || exit 1
fi

cd "$tmp" && hang_check
echo "cli_flow: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
