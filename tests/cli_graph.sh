#!/bin/bash
# End-to-end tests of `locus sim --graph`: the HEFT paper's example, the
# STG set under every DAG policy against bounds read from the files
# themselves, WfCommons with a failing node, generated graphs with CCR,
# beta and scenarios, the reactive policies (GTP and its variants, DLS/sr)
# with variability and a failure, determinism, and clear errors.
# Usage: cli_graph.sh LOCUS_BINARY TESTS_DIR.
set -u
locus=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tests=$(cd "$2" && pwd)
data=$tests/fixtures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-graph.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
. "$tests/lib/cli.sh"

# ge A B: A >= B as numbers, up to a relative 1e-9
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= (b + 0) * (1 - 1e-9)) }'; }

cat >heft.txt <<'G'
# Topcuoglu, Hariri and Wu 2002, Fig. 2: costs on P1..P3, edge data as
# transfer times on unit links.
tasks 10 procs 3
1 14 16 9
2 13 19 18
3 11 13 19
4 13 8 17
5 12 13 10
6 13 16 9
7 7 15 11
8 5 11 14
9 18 12 20
10 21 7 16
edges 15
1 2 18
1 3 12
1 4 9
1 5 11
1 6 14
2 8 19
2 9 16
3 7 23
4 8 27
4 9 23
5 9 13
6 8 15
7 10 17
8 10 11
9 10 13
G

run help 0 "$locus" sim --help && expect help-graph '--graph SPEC' "$out" &&
	expect help-example 'locus sim --graph' "$out"

# The paper's schedule, task by task, and its makespan.
run heft 0 "$locus" sim --graph heft.txt --schedule &&
	expect heft-policy '^policy heft' "$out" &&
	expect heft-makespan 'makespan +80\.000000 s' "$out" &&
	expect heft-planned 'planned makespan +80\.000000 s' "$out"
for row in '1 p03 0 9' '3 p03 9 28' '4 p02 18 26' '2 p01 27 40' '5 p03 28 38' \
	'6 p02 26 42' '7 p03 38 49' '9 p02 56 68' '8 p01 57 62' '10 p02 73 80'; do
	set -- $row
	printf '%s\n' "$out" |
		awk -v t="$1" -v p="$2" -v s="$3" -v f="$4" \
			'$1 == t && $2 == p && $3 + 0 == s && $4 + 0 == f { hit = 1 } END { exit !hit }' &&
		ok || fail "heft schedule: no row '$row'"
done
run cpop 0 "$locus" sim --graph heft.txt --policy cpop && expect cpop 'makespan +86\.000000 s' "$out"
run compare 0 "$locus" sim --graph heft.txt --compare heft,cpop,dls,peft &&
	expect compare-head 'policy +status +makespan +/bound +NSL +SLR' "$out" &&
	expect compare-heft '^heft +complete +80\.00' "$out" &&
	expect compare-peft '^peft +complete +85\.00' "$out"
run compare-json 0 "$locus" sim --graph text:heft.txt --compare heft,cpop --json &&
	expect compare-json-v5 '"version": 5' "$out" && expect compare-json-nsl '"nsl": ' "$out"
run out 0 "$locus" sim --graph heft.txt --out r.json --csv r.csv --gantt g.svg --trace t.json
# Version 5: version 2's fields, the balanced optimum named for what it is.
grep -q '"version": 5' r.json && grep -q '"status": "complete"' r.json &&
	grep -q '"transfers": \[' r.json && grep -q '"balanced_local_tasks": null' r.json && ok ||
	fail "result JSON: no version 5 fields"
head -n 1 r.csv | grep -q ',start,attempts,name$' && [ "$(wc -l <r.csv)" -eq 11 ] && ok ||
	fail "csv: not 10 tasks with the graph columns"
tail -n 1 g.svg | grep -q '</svg>' && ok || fail "gantt: not a whole SVG"

# Every STG graph (tests/fixtures/stg) on 2, 4, 8 and 16 identical processors without
# communication: no policy beats the critical path or work/P, both read
# from the file itself (its "CP Length" line and the sum of its costs).
n=0
for f in "$data"/stg/*/*.stg; do
	cp=$(awk '/CP Length/ { print $NF }' "$f")
	work=$(awk '!/^#/ && NF >= 3 && NR > 1 { s += $2 } END { print s }' "$f")
	for p in 2 4 8 16; do
		if ! "$locus" sim --graph "$f" --procs $p --compare heft,cpop,dls,peft --json >c.json 2>c.err; then
			fail "stg $f on $p: $(cat c.err)"
			continue
		fi
		runs=$(grep -c '"policy": ' c.json)
		[ "$runs" -eq 4 ] || fail "stg $f on $p: $runs runs"
		grep -o '"makespan": [0-9.e+-]*' c.json | sed 's/.*: //' >ms.txt
		bad=$(awk -v cp="$cp" -v w="$work" -v p=$p \
			'$1 + 0 < cp * (1 - 1e-9) || $1 + 0 < w / p * (1 - 1e-9) { print }' ms.txt)
		grep -q '"status": "failed"' c.json && fail "stg $f on $p: a run failed"
		[ -z "$bad" ] && [ -s ms.txt ] || fail "stg $f on $p: makespan $bad below cp $cp or work/P $work/$p"
		n=$((n + 1))
	done
done
[ "$n" -ge 80 ] && ok || fail "stg: only $n graph x processor runs"

# A WfCommons instance: complete under every policy; a node failing
# midway ends a static plan's run with a message naming the task, exit 1.
wf="$data/wfcommons/blast-chameleon-small-001.json"
run wf 0 "$locus" sim --graph "$wf" --procs 4 --compare heft,cpop,dls,peft &&
	[ "$(printf '%s\n' "$out" | grep -c ' complete ')" -eq 4 ] && ok ||
	fail "wfcommons: not four complete runs"
run wf-run 0 "$locus" sim --graph "$wf" --procs 4 --json
ms=$(printf '%s\n' "$out" | grep -o '"makespan": [0-9.e+-]*' | head -n 1 | sed 's/.*: //')
half=$(awk -v m="$ms" 'BEGIN { print m / 2 }')
run wf-fail 1 "$locus" sim --graph "$wf" --procs 4 --fail "p02@$half" &&
	expect wf-fail-status 'status +FAILED after' "$out" &&
	expect wf-fail-err 'the run failed: task .* (was lost when node p02 failed|lost .* from node p02)' "$err"
run wf-recover 1 "$locus" sim --graph "$wf" --procs 4 --fail "p02@$half+10" --json &&
	expect wf-recover-json '"status": "failed"' "$out"

# Generated graphs, derived data and heterogeneity, scenarios.
run gen 0 "$locus" sim --graph gen:layrpred:300 --procs 10 --ccr 0.5 --beta 0.5 --seed 3 --json
first=$out
run gen-again 0 "$locus" sim --graph gen:layrpred:300 --procs 10 --ccr 0.5 --beta 0.5 --seed 3 --json
[ "$out" = "$first" ] && ok || fail "the same seed gave different results"
run gen-other 0 "$locus" sim --graph gen:layrpred:300 --procs 10 --ccr 0.5 --beta 0.5 --seed 4 --json
[ "$out" != "$first" ] && ok || fail "another seed gave the same result"
for m in sameprob samepred layrprob layrpred; do
	run "gen-$m" 0 "$locus" sim --graph gen:$m:200 --procs 8 --ccr 1.5 --compare heft,cpop,dls,peft &&
		[ "$(printf '%s\n' "$out" | grep -c ' complete ')" -eq 4 ] && ok || fail "gen:$m: not four complete runs"
done
run no-ccr 0 "$locus" sim --graph gen:sameprob:100 --procs 4 --json &&
	expect no-ccr '"bytes_moved": 0' "$out"
run ccr 0 "$locus" sim --graph gen:sameprob:100 --procs 4 --ccr 1 --json
printf '%s\n' "$out" | grep -q '"bytes_moved": 0,' && fail "ccr 1 moved no bytes" || ok

cat >scen.txt <<'S'
# p02 half available, then a link slows
0   avail p02 0.5
5   link  p01 p03 0.25
S
run scenario 0 "$locus" sim --graph gen:samepred:200 --procs 4 --ccr 0.5 --scenario scen.txt --json
slow=$(printf '%s\n' "$out" | grep -o '"makespan": [0-9.e+-]*' | head -n 1 | sed 's/.*: //')
run plain 0 "$locus" sim --graph gen:samepred:200 --procs 4 --ccr 0.5 --json
fast=$(printf '%s\n' "$out" | grep -o '"makespan": [0-9.e+-]*' | head -n 1 | sed 's/.*: //')
ge "$slow" "$fast" && ok || fail "a slower platform gave a shorter run ($slow < $fast)"
run variability 0 "$locus" sim --graph gen:layrprob:300 --procs 10 --ccr 0.5 --variability 0.6 --json
var=$(printf '%s\n' "$out" | grep -o '"makespan": [0-9.e+-]*' | head -n 1 | sed 's/.*: //')
run variability-0 0 "$locus" sim --graph gen:layrprob:300 --procs 10 --ccr 0.5 --variability 0 --json
var0=$(printf '%s\n' "$out" | grep -o '"makespan": [0-9.e+-]*' | head -n 1 | sed 's/.*: //')
ge "$var" "$var0" && ok || fail "variability 0.6 gave a shorter run ($var < $var0)"
# The result records the scenario's rate of change: the default period
# (the lower bound / 10) and horizon, or --var-period's.
run var-record 0 "$locus" sim --graph "$tests/fixtures/stg/50/rand0002.stg" --procs 4 --ccr 0 \
	--variability 0.4 --policy gtp-c --json &&
	expect var-record '"variability": \{"bound": 0.4, "period": 7.1, "horizon": 710, "links": true\}' "$out"
run var-period 0 "$locus" sim --graph "$tests/fixtures/stg/50/rand0002.stg" --procs 4 --ccr 0 \
	--variability 0.4 --var-period 2.5 --var-links 0 --policy gtp-c &&
	expect var-period 'variability +bound 0.4, each resource changing every 2.5 s on average until 710 s \(processors only\)' "$out"

# Reactive DAG scheduling: GTP, GTP/c, GTP/r, GTP/c/r and DLS/sr on a
# variable platform complete, with their counters, and the same seed gives
# the same bytes; with no variability GTP's run is non-insertion HEFT's; a
# failure ends the run of a policy that does not rewind with a message
# naming the task, and GTP/r and GTP/c/r rewind through it.
reactive="--graph gen:sameprob:100 --procs 6 --ccr 0.5 --beta 0.5 --seed 2"
for pol in gtp gtp-c gtp-r gtp-c-r dls-sr; do
	run "$pol" 0 "$locus" sim $reactive --variability 0.5 --policy $pol &&
		expect "$pol-status" 'status +complete' "$out" &&
		expect "$pol-points" 'resched_points +[1-9]' "$out"
	run "$pol-json" 0 "$locus" sim $reactive --variability 0.5 --policy $pol --json &&
		expect "$pol-json-counters" '"counters": \{"assignments": [0-9]+, "resched_points": [0-9]+, "remappings": [0-9]+, "migrations": [0-9]+, "bytes_resent": [0-9]+' "$out"
	first=$out
	run "$pol-again" 0 "$locus" sim $reactive --variability 0.5 --policy $pol --json
	[ -n "$first" ] && [ "$out" = "$first" ] && ok || fail "$pol: the same seed gave different results"
done
expect dls-sr-slack '"slack_exceeded": [1-9]' "$out"
run gtp-periodic 0 "$locus" sim $reactive --variability 0.5 --policy gtp-c -o period=5,on=none &&
	expect gtp-periodic-points 'resched_points +([2-9][0-9])' "$out"
run gtp-option 1 "$locus" sim $reactive --policy gtp -o perio=3 &&
	expect gtp-option 'unknown option "perio"' "$err"
run gtp-static 0 "$locus" sim $reactive --policy gtp &&
	expect gtp-static-remaps 'remappings +0$' "$out"
gtp_ms=$(printf '%s\n' "$out" | awk '$1 == "makespan" { print $2 }')
run heft-static 0 "$locus" sim $reactive --policy heft -o insertion=0
heft_ms=$(printf '%s\n' "$out" | awk '$1 == "makespan" { print $2 }')
[ -n "$gtp_ms" ] && [ "$gtp_ms" = "$heft_ms" ] && ok ||
	fail "no variability: gtp's makespan $gtp_ms is not heft's $heft_ms"
for pol in gtp gtp-c dls-sr; do
	run "$pol-fail" 1 "$locus" sim $reactive --variability 0.5 --fail p03@40 --policy $pol &&
		expect "$pol-fail-status" 'status +FAILED after' "$out" &&
		expect "$pol-fail-err" "$pol: the run failed: task .* (was lost when node p03 failed|lost .* from node p03)" "$err"
done
for pol in gtp-r gtp-c-r; do
	run "$pol-fail" 0 "$locus" sim $reactive --variability 0.5 --fail p03@40 --policy $pol --json &&
		expect "$pol-fail-status" '"status": "complete"' "$out" &&
		expect "$pol-fail-lost" '"attempts_lost": [1-9]' "$out" &&
		expect "$pol-fail-rt" '"rewound_tasks": [0-9]+, "rewound_levels": [0-9]+' "$out"
	first=$out
	run "$pol-fail-again" 0 "$locus" sim $reactive --variability 0.5 --fail p03@40 --policy $pol --json
	[ "$out" = "$first" ] && ok || fail "$pol with a failure: the same seed gave different results"
done
run reactive-compare 0 "$locus" sim $reactive --variability 0.5 --compare heft,gtp,gtp-c,gtp-r,gtp-c-r,dls-sr &&
	[ "$(printf '%s\n' "$out" | grep -c ' complete ')" -eq 6 ] && ok ||
	fail "reactive policies: not six complete runs"

# Tasks of no work (issue 28): every static plan once put a task of no
# duration before its predecessor on a processor, and the run never ended.
printf '3\n0 0 0\n1 0 1 0\n2 0 1 1\n3 0 1 0\n4 0 2 2 3\n' >zero.stg
cat >zero.json <<'J'
{"schemaVersion": "1.5", "name": "zero", "workflow": {"specification": {
 "tasks": [{"id": "a", "name": "a", "parents": [], "children": ["b"], "inputFiles": [], "outputFiles": ["f"]},
  {"id": "b", "name": "b", "parents": ["a"], "children": [], "inputFiles": ["f"], "outputFiles": []},
  {"id": "c", "name": "c", "parents": [], "children": [], "inputFiles": [], "outputFiles": []}],
 "files": [{"id": "f", "sizeInBytes": 10}]}}}
J
for g in zero.stg zero.json; do
	run "zero-$g" 0 "$locus" sim --graph $g --compare heft,cpop,peft,dls,gtp &&
		[ "$(printf '%s\n' "$out" | grep -c ' complete ')" -eq 5 ] && ok ||
		fail "$g: tasks of no work, not five complete runs"
done

# A graph from a pipe (issue 28): read once, then told and parsed (the
# format check used to consume it: "empty file"). Streams are held to
# the limit of files (test_core: read_file_limit).
run pipe-text 0 "$locus" sim --graph <(cat heft.txt) && expect pipe-text 'makespan +80\.000000 s' "$out"
run pipe-stg 0 "$locus" sim --graph <(cat zero.stg) && expect pipe-stg 'status +complete' "$out"
run pipe-json 0 "$locus" sim --graph <(cat zero.json) && expect pipe-json 'status +complete' "$out"

# Errors: usage, input naming file:line:column, nothing written.
run no-graph 1 "$locus" sim --graph missing.stg && expect no-graph 'missing.stg' "$err"
printf '3\n0 0 0\n1 2 1 0\n2 3 1 5\n' >bad.stg
run bad-stg 1 "$locus" sim --graph bad.stg --out never.json && expect bad-stg 'bad.stg:4:' "$err"
[ ! -e never.json ] && ok || fail "a failed run left a file"
printf 'hello\n' >what.txt
run sniff 1 "$locus" sim --graph what.txt && expect sniff 'what.txt:1:1: expected a task graph' "$err"
run beta-matrix 2 "$locus" sim --graph heft.txt --beta 0.5 && expect beta-matrix 'per processor' "$err"
run matrix-procs 1 "$locus" sim --graph heft.txt --procs 4 && expect matrix-procs '3' "$err"
run gen-bad 1 "$locus" sim --graph gen:nosuch:10 && expect gen-bad 'gen:METHOD:N' "$err"
run procs-graph 2 "$locus" sim --procs 4 && expect procs-graph 'apply to a task graph' "$err"
run graph-source 2 "$locus" sim --graph heft.txt --tasks 10 && expect graph-source 'drop' "$err"
run fail-node 1 "$locus" sim --graph heft.txt --fail nosuch@3 && expect fail-node 'no node "nosuch"' "$err"
run var-range 2 "$locus" sim --graph heft.txt --variability 1.5 && expect var-range 'in \[0, 1\)' "$err"
run ccr-neg 2 "$locus" sim --graph heft.txt --ccr -1 && expect ccr-neg 'ccr must be between 0 and 1e6' "$err"
run compare-empty 2 "$locus" sim --graph heft.txt --compare '' && expect compare-empty 'a name is missing' "$err"
printf '1\n0 0 0\n1 0x10 1 0\n2 0 1 1\n' >hex.stg
run hex-stg 1 "$locus" sim --graph hex.stg &&
	expect hex-stg 'hex.stg:3:3: expected the cost of task 1 \(a decimal number from 0 to 1e\+09\), got "0x10"' "$err"
printf '1\n0 0 0\n1 1e308 1 0\n2 0 1 1\n' >huge.stg
run huge-stg 1 "$locus" sim --graph huge.stg && expect huge-stg 'huge.stg:3:3: .* got 1e308' "$err"
run procs-range 2 "$locus" sim --graph heft.txt --procs 1000001 &&
	expect procs-range 'procs must be between 1 and 1000000' "$err"
run procs-zero 2 "$locus" sim --graph heft.txt --procs 0 && expect procs-zero 'between 1 and 1000000' "$err"
expect help-procs 'P processors \(1 to 1000000\)' "$("$locus" sim --help)"
# Many processors in time linear in them (issue 28: the mean bandwidth
# visited every pair of nodes, a minute for 100,000).
run procs-many 0 timeout 20 "$locus" sim --graph gen:sameprob:20 --procs 100000 &&
	expect procs-many 'status +complete' "$out"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
