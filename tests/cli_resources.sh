#!/bin/bash
# End-to-end tests of resources (docs/flow.md, "Resources"): a Makeflow
# and a WfCommons workflow whose tasks take 2 cores, on nodes of 2 cores,
# never run two at once on a node, in `locus flow sim` (the result's
# times) and for real in `locus flow run` (the times the commands
# themselves wrote, on 2 emulated nodes; skipped without MPI); memory
# likewise (--memory), and disk in a real run (--storage: the room for
# the tasks' declared DISK); a task no node holds is refused at load with
# its file and line.
# Usage: cli_resources.sh LOCUS_BINARY TESTS_DIR.
set -u
locus=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tests=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-res.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
. "$tests/lib/cli.sh"

# overlaps FILE: lines "NODE START END"; prints the pairs of intervals on
# one node that overlap (nothing when none does).
overlaps() {
	sort -k1,1 -k2,2g "$1" | awk '$1 == node && $2 < end { print "node " $1 ": " $2 " < " end }
		{ if ($1 != node || $3 > end) end = $3; node = $1 }'
}

# sim_intervals RESULT_JSON: "NODE START END" of each task, from --out.
sim_intervals() {
	tr '{' '\n' <"$1" | sed -n 's/.*"node": *\([0-9]*\),.*"read_end": *\([0-9.e+-]*\), *"end": *\([0-9.e+-]*\).*/\1 \2 \3/p'
}

# A Makeflow of 6 rules of 1 s, each with $2 before its command ($1 first).
makeflow() {
	printf '%s\nLOCUS_RUNTIME=1\n' "$1"
	for i in 0 1 2 3 4 5; do
		printf 't%d:\n%s\tsh -c "date +%%s.%%N > t%d; sleep 0.3; date +%%s.%%N >> t%d; pwd >> t%d"\n' \
			"$i" "$2" "$i" "$i" "$i"
	done
}

# ---- locus flow sim ---------------------------------------------------------------------
makeflow '.MAKEFLOW CORES 2' '' >cores.mf
# The dynamic policies place where room comes free: 3 s; heft's plan
# counts 4 workers and the executor holds what does not fit (4 s).
for pol in amfs:3 dask:3 taskvine:3 heft:4; do
	run sim-cores-${pol%:*} 0 "$locus" flow sim cores.mf -x ${pol%:*} --nodes 2 --cores 2 --out r.json &&
		sim_intervals r.json >iv && [ "$(wc -l <iv)" -eq 6 ] && [ -z "$(overlaps iv)" ] &&
		expect sim-cores-$pol-makespan "\"makespan\": ${pol#*:}\\.0" "$(cat r.json)" ||
		fail "sim, $pol: 2-core tasks overlap on a node: $(overlaps iv)"
done
# Ignoring the cores, the same run takes 1.5 s: the test above sees it.
makeflow '' '' >plain.mf
run sim-plain 0 "$locus" flow sim plain.mf --nodes 2 --cores 2 --out p.json &&
	sim_intervals p.json >iv && [ -n "$(overlaps iv)" ] && ok || fail "1-core tasks never overlap"
# Memory: 600 MiB tasks, nodes of 1 GiB.
makeflow '.MAKEFLOW MEMORY 600' '' >mem.mf
run sim-mem 0 "$locus" flow sim mem.mf --nodes 2 --cores 2 --memory 1G --out m.json &&
	sim_intervals m.json >iv && [ -z "$(overlaps iv)" ] && ok || fail "sim: memory overlaps"
run sim-mem-free 0 "$locus" flow sim mem.mf --nodes 2 --cores 2 --out m.json &&
	sim_intervals m.json >iv && [ -n "$(overlaps iv)" ] && ok || fail "sim: no memory limit waits"
# WfCommons: coreCount 2.
{
	printf '{"name": "w", "schemaVersion": "1.5", "workflow": {"specification": {"tasks": ['
	for i in 0 1 2 3; do
		printf '%s{"id": "t%d", "name": "t%d", "parents": [], "children": [], "inputFiles": [], "outputFiles": []}' \
			"$([ $i -gt 0 ] && echo ,)" $i $i
	done
	printf '], "files": []}, "execution": {"tasks": ['
	for i in 0 1 2 3; do
		printf '%s{"id": "t%d", "runtimeInSeconds": 1, "coreCount": 2}' "$([ $i -gt 0 ] && echo ,)" $i
	done
	printf ']}}}\n'
} >w.json
run sim-wfcommons 0 "$locus" flow sim w.json --nodes 2 --cores 2 --out w-r.json &&
	sim_intervals w-r.json >iv && [ "$(wc -l <iv)" -eq 4 ] && [ -z "$(overlaps iv)" ] && ok ||
	fail "sim, WfCommons coreCount 2: overlap"
# The workflow's default demand: the plain rules and a WfCommons
# instance without coreCount, given 2 cores by --task-cores, never overlap
# (3 s); a rule's own CORES=1 wins over it.
run sim-default 0 "$locus" flow sim plain.mf --task-cores 2 --nodes 2 --cores 2 --out d.json &&
	sim_intervals d.json >iv && [ "$(wc -l <iv)" -eq 6 ] && [ -z "$(overlaps iv)" ] &&
	expect sim-default-makespan '"makespan": 3\.0' "$(cat d.json)" || fail "sim, --task-cores 2: overlap"
sed 's/, "coreCount": 2//' w.json >w1.json
run sim-default-wf 0 "$locus" flow sim w1.json --task-cores 2 --nodes 2 --cores 2 --out w-r.json &&
	sim_intervals w-r.json >iv && [ "$(wc -l <iv)" -eq 4 ] && [ -z "$(overlaps iv)" ] && ok ||
	fail "sim, WfCommons with --task-cores 2: overlap"
makeflow '' $'CORES=1\n' >one.mf
run sim-default-own 0 "$locus" flow sim one.mf --task-cores 2 --nodes 2 --cores 2 --out d.json &&
	sim_intervals d.json >iv && [ -n "$(overlaps iv)" ] && ok || fail "sim: a rule's CORES=1 lost to --task-cores"
run default-range 2 "$locus" flow sim plain.mf --task-cores 0 &&
	expect default-range '--task-cores expects a count from 1 to 1000000' "$err"
# Refused at load: 4 cores on nodes of 2 (the rule's line), memory too.
makeflow '' $'CORES=4\n' >big.mf
run refuse-cores 1 "$locus" flow sim big.mf --nodes 2 --cores 2 &&
	expect refuse-cores 'big.mf:3: task t0 needs 4 cores, 0 bytes of memory and 0 of disk, which no node holds: expected at most 2 cores' "$err"
run refuse-mem 1 "$locus" flow sim mem.mf --nodes 2 --cores 2 --memory 500M &&
	expect refuse-mem 'mem.mf:3: task t0 needs 1 core, 629145600 bytes of memory' "$err"
run refuse-platform 2 "$locus" flow sim mem.mf --platform "$tests/fixtures/platform/small.json" --memory 1G &&
	expect refuse-platform 'drop --memory' "$err"

# ---- locus flow run ---------------------------------------------------------------------
if "$locus" flow run plain.mf 2>&1 | grep -q "built without MPI"; then
	echo "locus was built without MPI: flow run's checks skipped"
else
	. "$tests/mpi/sanitizer-env.sh"
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	# real_intervals: "NODE START END" from the commands' own t* files.
	real_intervals() {
		for f in t0 t1 t2 t3 t4 t5; do
			[ -f "$f" ] && awk 'NR == 1 { s = $1 } NR == 2 { e = $1 }
				NR == 3 { n = $0; sub(/.*\/node/, "", n); sub(/\/.*/, "", n); print n, s, e }' "$f"
		done
	}
	# 6 tasks of 0.3 s and 2 cores on 2 emulated nodes of 2 worker ranks.
	run real-cores 0 "$locus" flow run cores.mf -np 5 --emulate-nodes 2 -q &&
		real_intervals >iv && [ "$(wc -l <iv)" -eq 6 ] && [ -z "$(overlaps iv)" ] && ok ||
		fail "run: 2-core tasks overlap on a node: $(overlaps iv) $(cat iv)"
	rm -f t[0-5]
	# Memory: 600 MiB tasks on nodes of 1 GiB.
	run real-mem 0 "$locus" flow run mem.mf -np 5 --emulate-nodes 2 --memory 1G -q &&
		real_intervals >iv && [ "$(wc -l <iv)" -eq 6 ] && [ -z "$(overlaps iv)" ] && ok ||
		fail "run: memory overlaps on a node: $(overlaps iv) $(cat iv)"
	rm -f t[0-5]
	# The workflow's default: --task-cores 2 on the plain rules.
	run real-default 0 "$locus" flow run plain.mf --task-cores 2 -np 5 --emulate-nodes 2 -q &&
		real_intervals >iv && [ "$(wc -l <iv)" -eq 6 ] && [ -z "$(overlaps iv)" ] && ok ||
		fail "run: --task-cores 2 tasks overlap on a node: $(overlaps iv) $(cat iv)"
	rm -f t[0-5]
	# Disk: tasks declaring 4 MiB on nodes whose room for the tasks'
	# disk is 6 MiB (--storage; by default the free space where the
	# node's storage is) run one at a time a node; 3 MiB holds none.
	makeflow '.MAKEFLOW DISK 4' '' >disk.mf
	run real-disk 0 "$locus" flow run disk.mf -np 5 --emulate-nodes 2 --storage 6M -q &&
		real_intervals >iv && [ "$(wc -l <iv)" -eq 6 ] && [ -z "$(overlaps iv)" ] && ok ||
		fail "run: disk overlaps on a node: $(overlaps iv) $(cat iv)"
	rm -f t[0-5]
	run real-disk-refuse 1 "$locus" flow run disk.mf -np 5 --emulate-nodes 2 --storage 3M -q &&
		expect real-disk-refuse 'disk.mf:3: task t0 needs 1 core, 0 bytes of memory and 4194304 of disk, which no node holds: expected at most 2 cores, [0-9]+ bytes of memory and 3145728 of disk' "$err"
	run real-refuse 1 "$locus" flow run big.mf -np 3 --emulate-nodes 2 -q &&
		expect real-refuse 'big.mf:3: task t0 needs 4 cores' "$err"
fi

echo "cli_resources: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
