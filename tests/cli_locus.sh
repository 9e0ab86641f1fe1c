#!/bin/bash
# End-to-end tests of the locus CLI: exit statuses, messages, outputs.
# Usage: cli_locus.sh LOCUS_BINARY TESTS_DIR
set -u
locus=$1
tests=$2
fixtures=$tests/fixtures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$tests/lib/cli.sh"

run version 0 "$locus" --version && expect version '^locus [0-9]+\.[0-9]+\.[0-9]+$' "$out"
run help 0 "$locus" --help && expect help 'place' "$out"
run help-cmd 0 "$locus" help locate && expect help-cmd 'check-data DATASET PROCESS OFFSET' "$out"
run no-args 2 "$locus" && expect no-args 'usage: locus' "$err"
run unknown-cmd 2 "$locus" frobnicate && expect unknown-cmd 'unknown command "frobnicate"' "$err"
run place-help 0 "$locus" place --help && expect place-help 'skew-std' "$out"
run place-no-data 2 "$locus" place --store "$tmp/s" && expect place-no-data 'exactly one of --input' "$err"
run place-no-out 2 "$locus" place --chunks 3 && expect place-no-out '--store DIR and/or --catalog' "$err"
run place-bad-size 2 "$locus" place --generate 12Q --store "$tmp/s" && expect place-bad-size 'expects a size' "$err"
run place-bad-policy 2 "$locus" place --chunks 3 --policy best --catalog "$tmp/c" && expect place-bad-policy 'hdfs, random or skewed' "$err"
run place-too-many-replicas 2 "$locus" place --chunks 3 --nodes 2 --catalog "$tmp/c" && expect place-too-many-replicas 'between 1 and the number of nodes \(2\)' "$err"
run place-missing-input 1 "$locus" place --input "$tmp/none" --store "$tmp/s" && expect place-missing-input "none.*No such file" "$err"
[ ! -e "$tmp/s" ] && ok || fail "failed place left a store behind"

# A real file, placed into a store and a catalog.
printf '>a\nACGT\n>b\nGGGG\nCCCC\n>c\nTTTT\n' >"$tmp/in.fa"
run place-file 0 "$locus" place --input "$tmp/in.fa" --chunk-size 8 --split fasta --nodes 4 --replicas 2 \
	--store "$tmp/s" --catalog "$tmp/c.cat" && expect place-file 'placed in.fa: 29 bytes in 3 chunks' "$out"
cat "$tmp"/s/node0*/in.fa/chunk-000000-0 | head -c 8 >"$tmp/first"
[ "$(cat "$tmp/first")" = "$(printf '>a\nACGT\n')" ] && ok || fail "chunk 0 holds the first record"
run place-exists 1 "$locus" place --input "$tmp/in.fa" --chunk-size 8 --nodes 4 --store "$tmp/s" && expect place-exists 'already in the store \(use --force' "$err"
run place-exists-catalog 1 "$locus" place --input "$tmp/in.fa" --chunk-size 8 --nodes 4 --catalog "$tmp/c.cat" && expect place-exists-catalog 'already in the catalog' "$err"
run place-add-catalog 0 "$locus" place --chunks 2 --nodes 4 --dataset second --catalog "$tmp/c.cat"
run locate-two 0 "$locus" locate "$tmp/c.cat" && expect locate-two '2 datasets on 4 hosts' "$out"

# A catalog that cannot be written stops place before the store is touched.
mkdir "$tmp/catdir"
printf 'not a catalog\n' >"$tmp/bad.cat"
for c in catdir bad.cat bad.cat/x.cat; do
	run "place-bad-catalog-$c" 1 "$locus" place --generate 64K --chunk-size 16K --nodes 2 --replicas 1 \
		--store "$tmp/s8" --catalog "$tmp/$c"
	[ ! -e "$tmp/s8" ] && ok || fail "place with catalog $c left a store behind"
	[ "$c" = catdir ] && expect place-catalog-dir 'catdir: is a directory' "$err"
done
# Concurrent runs into one catalog: every dataset is in it (a lock file
# next to the catalog orders them).
for i in 1 2 3 4; do
	"$locus" place --chunks 300 --nodes 16 --dataset "con$i" --catalog "$tmp/con.cat" >/dev/null &
done
wait
[ "$(grep -c '^dataset' "$tmp/con.cat")" -eq 4 ] && ok || fail "4 concurrent places kept $(grep -c '^dataset' "$tmp/con.cat") datasets"

# Store and catalog answer alike.
run locate-store 0 "$locus" locate --json "$tmp/s" chunks-process in.fa node01 node02 node03 node04
store_json=$out
run locate-cat 0 "$locus" locate --json "$tmp/c.cat" chunks-process in.fa node01 node02 node03 node04
# A node without a replica has no directory in the store, so only the
# catalog knows it as a host; the maps are otherwise equal.
strip() { printf '%s' "$1" | sed 's/"known_host": [a-z]*, //g'; }
[ "$(strip "$store_json")" = "$(strip "$out")" ] && ok || fail "store and catalog give different maps"
expect locate-store '"call": "chunks-process"' "$store_json"

# Determinism: the same seed writes the same catalog byte for byte.
"$locus" place --chunks 500 --nodes 16 --racks 4 --seed 9 --catalog "$tmp/a.cat" >/dev/null
"$locus" place --chunks 500 --nodes 16 --racks 4 --seed 9 --catalog "$tmp/b.cat" >/dev/null
"$locus" place --chunks 500 --nodes 16 --racks 4 --seed 10 --catalog "$tmp/d.cat" >/dev/null
cmp -s "$tmp/a.cat" "$tmp/b.cat" && ok || fail "same seed, different catalogs"
cmp -s "$tmp/a.cat" "$tmp/d.cat" && fail "different seeds, same catalogs" || ok

# ScalScheduling Fig. 6: 1024 processes, 30 local chunks on average.
for target in 6.05 7.42 8.82; do
	run "skew-$target" 0 "$locus" place --chunks 30720 --nodes 1024 --replicas 1 --policy skewed \
		--skew-std "$target" --seed 3 --catalog "$tmp/skew.cat" --force --json || continue
	std=$(printf '%s' "$out" | grep -o '"std": [0-9.]*' | grep -o '[0-9.]*$')
	awk -v s="$std" -v t="$target" 'BEGIN { d = (s - t) / t; exit !(d < 0.02 && d > -0.02) }' \
		&& ok || fail "skewed std $std not within 2% of $target"
done

# The six calls from the shell, on the known layout.
cat="$fixtures/dli/layout.cat"
run total 0 "$locus" locate "$cat" total-chunks dir/a dn1 && [ "$out" = 3 ] && ok || fail "total-chunks"
run pct 0 "$locus" locate "$cat" data-percentage dir/a dn4 && [ "$out" = "66.67%" ] && ok || fail "data-percentage"
run check-local 0 "$locus" locate "$cat" check-data dir/a dn1 200 && [ "$out" = local ] && ok || fail "check-data local"
run check-remote 0 "$locus" locate "$cat" check-data dir/a dn1 100 && [ "$out" = remote ] && ok || fail "check-data remote"
run check-past 1 "$locus" locate "$cat" check-data dir/a dn1 450 && expect check-past 'past the end' "$err"
run pchunks 0 "$locus" locate --json "$cat" process-chunks dir/a dn4 && expect pchunks '"chunks": \[1, 2, 3\]' "$out"
run dirmap 0 "$locus" locate --json "$cat" dprocess-dchunks dir dn2 && expect dirmap '"dataset": "dir/sub/b"' "$out"
run map-unknown 0 "$locus" locate "$cat" chunks-process dir/a dn1 nohost && expect map-unknown 'no host "nohost"' "$err"
run no-dataset 1 "$locus" locate "$cat" summary nope && expect no-dataset 'no dataset "nope"' "$err"
run no-dir 1 "$locus" locate "$cat" dprocess-dchunks nope && expect no-dir 'no dataset under directory "nope"' "$err"
run bad-call 2 "$locus" locate "$cat" teleport && expect bad-call 'unknown call "teleport"' "$err"
run few-args 2 "$locus" locate "$cat" check-data dir/a && expect few-args 'expects DATASET PROCESS OFFSET' "$err"

# Every source kind through the CLI.
run fsck 0 "$locus" locate "fsck:$fixtures/dli/layout.fsck?hosts=$fixtures/dli/hosts" total-chunks /dir/a dn4 && [ "$out" = 3 ] && ok || fail "fsck source"
run fsck-sniff 0 "$locus" locate "$fixtures/dli/layout.fsck" && expect fsck-sniff '/dir/a +450' "$out"
run webhdfs 0 "$locus" locate "webhdfs:$fixtures/dli/layout-a.json?dataset=dir/a" total-chunks dir/a dn1 && [ "$out" = 3 ] && ok || fail "webhdfs source"
run bad-option 1 "$locus" locate "webhdfs:$fixtures/dli/layout-a.json?colour=red" && expect bad-option 'unknown option "colour"' "$err"
run missing-source 1 "$locus" locate "$tmp/nothing" && expect missing-source 'nothing: cannot open' "$err"

# Bad input: one clear message with file, line and column.
printf 'locus-catalog\t1\ndataset\td\t10\t1\t-\nchunk\t0\t0\tten\tn1\t-\nend\t1\t1\n' >"$tmp/bad.cat"
run bad-catalog 1 "$locus" locate "$tmp/bad.cat" && expect bad-catalog "bad.cat:3:11: expected the chunk length" "$err"
[ -z "$out" ] && ok || fail "a bad catalog printed a partial result"
head -c 300 "$fixtures/dli/layout.fsck" >"$tmp/cut.fsck"
printf '0. BP-1-10.0.0.1-1:blk_1_1 len=100 Live_repl=1  [DatanodeInfoWithStorage[10.0.0.1:9866,DS-1,DISK]]\n' >>"$tmp/cut.fsck"
run bad-fsck 1 "$locus" locate "fsck:$tmp/cut.fsck" && expect bad-fsck 'cut.fsck:[0-9]+' "$err"
printf '{"BlockLocations": {"BlockLocation": [\n  {"offset": 0, "length": -5}\n]}}\n' >"$tmp/bad.json"
run bad-webhdfs 1 "$locus" locate "$tmp/bad.json" && expect bad-webhdfs 'bad.json' "$err"
printf '{"format": "locus-platform", "version": 1,\n "nodes": [ {"name": "a" ]}\n' >"$tmp/bad-platform.json"
run bad-platform 1 "$locus" place --chunks 2 --platform "$tmp/bad-platform.json" --catalog "$tmp/x.cat" && expect bad-platform 'bad-platform.json:2:' "$err"
[ ! -e "$tmp/x.cat" ] && ok || fail "failed place wrote a catalog"

# Problems are reported, not dropped.
run problems 0 "$locus" locate "fsck:$fixtures/fsck/hadoop3-missing.txt" && expect problems 'warning: the source reports [0-9]+ problem' "$err"

# sim reports them too, on stderr and in the result JSON (they reached the
# user only through locate): a Live_repl that disagrees with the replicas
# listed, a truncated replica dropped from a store.
cat >"$tmp/repl.fsck" <<'F'
/data/a.txt 2048 bytes, replicated: replication=3, 2 block(s):  OK
0. BP-1-10.0.0.1-1:blk_1_1 len=1024 Live_repl=3  [DatanodeInfoWithStorage[10.0.0.1:9866,DS-1,DISK], DatanodeInfoWithStorage[10.0.0.2:9866,DS-2,DISK]]
1. BP-1-10.0.0.1-1:blk_2_2 len=1024 Live_repl=2  [DatanodeInfoWithStorage[10.0.0.2:9866,DS-2,DISK], DatanodeInfoWithStorage[10.0.0.1:9866,DS-1,DISK]]
F
printf '10.0.0.1 node01\n10.0.0.2 node02\n' >"$tmp/repl.hosts"
run sim-problems 0 "$locus" sim -s "fsck:$tmp/repl.fsck?hosts=$tmp/repl.hosts" -N 3 -q --out "$tmp/repl.json" &&
	expect sim-problems 'locus sim: warning: the source reports 1 problem' "$err" &&
	expect sim-problems-line '/data/a.txt: block blk_1_1: Live_repl=3 but 2 replicas are listed' "$err"
grep -q '"chunk": 0, "missing": false, "under_construction": false, "corrupt": false, "detail": "block blk_1_1: Live_repl=3' "$tmp/repl.json" &&
	ok || fail "sim-problems: no problems in the result JSON"
"$locus" place --generate 64K --chunk-size 8K --nodes 3 --racks 1 --replicas 2 --seed 1 --store "$tmp/s2" \
	--dataset ds >/dev/null || fail "place into s2"
truncate -s 100 "$(ls "$tmp"/s2/node0*/ds/chunk-000001-8192 | head -n 1)"
run sim-truncated 0 "$locus" sim -s "store:$tmp/s2" -N 3 -q --json &&
	expect sim-truncated 'ds: chunk 1 on node node0[1-3] is 100 bytes at offset 8192' "$err" &&
	expect sim-truncated-json '"problems": \[' "$out" &&
	expect sim-truncated-json-entry '\{"dataset": "ds", "chunk": 1, "missing": false, "under_construction": false, "corrupt": true' "$out"
run sim-compare-problems 0 "$locus" sim -s "store:$tmp/s2" -N 3 -q --compare fifo,dlmpi --json &&
	expect sim-compare-problems '"corrupt": true' "$out"
[ "$(printf '%s\n' "$err" | grep -c 'warning: the source reports')" -eq 1 ] && ok ||
	fail "sim --compare: the problems are said once, not once per policy"
run sim-no-problems 0 "$locus" sim -s "$tmp/s" -N 4 -q --json &&
	! printf '%s\n' "$out" | grep -q '"problems"' && [ -z "$err" ] && ok || fail "sim without problems: $err"

# locus sim: usage, results, determinism, files, bad input.
run sim-help 0 "$locus" sim --help && expect sim-help '--compare A,B' "$out"
run sim-list 0 "$locus" sim --list-policies && expect sim-list 'dlmpi +one master draws' "$out"
run sim-unknown-policy 2 "$locus" sim --policy best && expect sim-unknown-policy 'no policy "best"; the policies are' "$err"
run sim-bad-option 1 "$locus" sim --policy delay -o wait=3 -q && expect sim-bad-option 'unknown option "wait" \(it takes delay=SECONDS, prefetch=1\)' "$err"
run sim-bad-work 1 "$locus" sim --work gauss:1 -q && expect sim-bad-work 'expected fixed:SECONDS' "$err"
run sim-compare-files 2 "$locus" sim --compare fifo,dlmpi --out "$tmp/r.json" && expect sim-compare-files 'describe one run' "$err"
run sim-platform-excl 2 "$locus" sim --platform "$fixtures/platform/small.json" --nodes 4 && expect sim-platform-excl 'excludes --nodes' "$err"
run sim-schedulers 1 "$locus" sim --nodes 4 --schedulers 3 --policy fifo -q && expect sim-schedulers 'policy fifo runs 1 scheduler, not 3' "$err"
run sim-zero-bw 2 "$locus" sim --disk-bw 0 && expect sim-zero-bw '--disk-bw expects bytes/s from 1 to 1e\+18' "$err"
run sim-run 0 "$locus" sim --nodes 8 -P 2 --tasks 64 --work uniform:1:2 --policy dlmpi -q && expect sim-run 'makespan +[0-9.]+ s +lower bound' "$out"
first=$out
run sim-again 0 "$locus" sim --nodes 8 -P 2 --tasks 64 --work uniform:1:2 --policy dlmpi -q
[ "$(printf '%s\n' "$first" | grep -v simulated)" = "$(printf '%s\n' "$out" | grep -v simulated)" ] && ok || fail "same seed, different summary"
run sim-compare 0 "$locus" sim --nodes 8 -P 2 --tasks 64 --compare fifo,monolithic,dlmpi,delay -q && expect sim-compare '^delay +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+' "$out" && expect sim-compare '^fifo ' "$out"
run sim-json 0 "$locus" sim --nodes 4 --tasks 16 --policy fifo --json -q && expect sim-json '"format": "locus-result"' "$out"
# Version 4: the balanced optimum is called what it is (a run that
# unbalances the loads beats it, so "optimal" was wrong).
expect sim-json-v4 '"version": 4' "$out" && expect sim-json-balanced '"balanced_local_tasks": [0-9]+' "$out" &&
	expect sim-json-vs-balanced '"local_vs_balanced": ' "$out"
printf '%s\n' "$out" | grep -q optimal && fail "sim-json: a key still says optimal" || ok
run sim-files 0 "$locus" sim --nodes 4 --tasks 16 --policy monolithic -q --out "$tmp/r.json" --csv "$tmp/r.csv" \
	--trace "$tmp/t.json" --gantt "$tmp/g.svg" --load "$tmp/l.svg"
[ "$(wc -l <"$tmp/r.csv")" -eq 17 ] && ok || fail "the CSV has a line per task"
run sim-files-again 0 "$locus" sim --nodes 4 --tasks 16 --policy monolithic -q --out "$tmp/r2.json" --trace "$tmp/t2.json"
cmp -s "$tmp/r.json" "$tmp/r2.json" && cmp -s "$tmp/t.json" "$tmp/t2.json" && ok || fail "same seed, different result bytes"
head -c 5 "$tmp/g.svg" | grep -q '<svg' && tail -c 7 "$tmp/l.svg" | grep -q '</svg>' && ok || fail "SVG charts"
grep -q '"traceEvents"' "$tmp/t.json" && ok || fail "trace events"
run sim-store 0 "$locus" sim --source "$tmp/s" --nodes 4 --dataset in.fa --policy delay -o delay=0 -q && expect sim-store '3 tasks on 4 workers' "$out"
run sim-ip 0 "$locus" sim --nodes 3 --tasks 6 --speeds 1:2 --compare fifo,dlmpi --ip 0.5:0.5 -q && expect sim-ip '^  optimum +[01]\.[0-9]{4}  \(GLPK, exact\)' "$out" && expect sim-ip '^  dlmpi +[01]\.[0-9]{4}  \([0-9.]+% of the optimum\)' "$out"
run sim-ip-too-big 2 "$locus" sim --nodes 3 --tasks 13 --ip 1:1 -q && expect sim-ip-too-big 'at most 12 tasks; this workload has 13' "$err"
[ -z "$out" ] && ok || fail "--ip on too many tasks ran anyway"
printf '0 node01 0.5\n5 node07 2\n' >"$tmp/speeds.txt"
run sim-bad-trace 1 "$locus" sim --nodes 4 --speed-trace "$tmp/speeds.txt" -q && expect sim-bad-trace 'speeds.txt:2:3: no node "node07"' "$err"
[ -z "$out" ] && ok || fail "a bad speed trace printed a result"
run sim-bad-platform 1 "$locus" sim --platform "$tmp/bad-platform.json" -q && expect sim-bad-platform 'bad-platform.json:2:' "$err"
run sim-no-out-dir 1 "$locus" sim --nodes 2 --tasks 2 -q --out "$tmp/nodir/r.json" && expect sim-no-out-dir 'nodir' "$err"
# Several outputs: checked before the run, written all or none.
run sim-partial 1 "$locus" sim --nodes 2 --tasks 2 --out "$tmp/ok.json" --csv "$tmp/nodir/x.csv" &&
	expect sim-partial 'nodir/x.csv: cannot write an output there: .*No such file' "$err"
[ ! -e "$tmp/ok.json" ] && [ -z "$out" ] && ok || fail "sim with a bad --csv left ok.json or ran"
run sim-out-is-dir 1 "$locus" sim --nodes 2 --tasks 2 -q --out "$tmp" && expect sim-out-is-dir 'it is a directory' "$err"
run sim-out-twice 1 "$locus" sim --nodes 2 --tasks 2 -q --out "$tmp/a" --csv "$tmp/a" && expect sim-out-twice 'named for two outputs' "$err"
run sim-all-outputs 0 "$locus" sim --nodes 2 --tasks 2 -q --out "$tmp/ok.json" --csv "$tmp/ok.csv"
[ -s "$tmp/ok.json" ] && [ -s "$tmp/ok.csv" ] && [ -z "$(ls "$tmp" | grep '\.tmp\.')" ] && ok || fail "outputs or temporaries"

# Values the model cannot run are refused, saying the range; a run that
# still meets one (a platform's speed near 0) stops saying why (issue 16,
# item 17).
run sim-latency-neg 2 "$locus" sim --nodes 2 --tasks 2 --latency -1 &&
	expect sim-latency-neg 'from 0 to 1000' "$err"
run sim-latency-inf 2 "$locus" sim --nodes 2 --tasks 2 --latency inf &&
	expect sim-latency-inf 'from 0 to 1000' "$err"
run sim-speed-tiny 2 "$locus" sim --nodes 2 --tasks 2 --speeds 1e-320:1 &&
	expect sim-speed-tiny '1e-6 <= LO' "$err"
run sim-work-huge 1 "$locus" sim --nodes 2 --tasks 2 --work fixed:1e308 &&
	expect sim-work-huge 'seconds from 0 to 1e\+09' "$err"
run sim-cost-inf 2 "$locus" sim --nodes 2 --tasks 2 --cost-msg inf &&
	expect sim-cost-inf 'cost-msg expects seconds from 0 to 1000, got "inf"' "$err"
run sim-cost-entry 2 "$locus" sim --nodes 2 --tasks 2 --cost-entry -1 &&
	expect sim-cost-entry 'cost-entry expects seconds from 0 to 1000, got "-1"' "$err"
cat >"$tmp/slow.json" <<'P'
{"format": "locus-platform", "version": 1,
 "nodes": [{"name": "a", "speed": 1e-320}, {"name": "b"}]}
P
run sim-speed-denormal 1 "$locus" sim --platform "$tmp/slow.json" --tasks 4 --policy fifo -q &&
	expect sim-speed-denormal 'slow.json: nodes\[0\].speed: expected a speed in \[1e-06, 1e\+06\]' "$err"
[ -z "$out" ] && ok || fail "a platform speed of 1e-320 ran"
# The platform file is held to the options' limits, naming the JSON path
# (a latency of 1e300 ended as "stalled", --latency 1e300 was refused).
cat >"$tmp/far.json" <<'P'
{"format": "locus-platform", "version": 1, "network": {"latency": 1e300},
 "nodes": [{"name": "a"}, {"name": "b"}]}
P
run sim-platform-latency 1 "$locus" sim --platform "$tmp/far.json" --tasks 4 --policy fifo -q &&
	expect sim-platform-latency 'far.json: network.latency: expected seconds in \[0, 1000\], got 1e\+300' "$err"
run sim-startup-far 2 "$locus" sim --graph gen:sameprob:10 --startup 5000 &&
	expect sim-startup-far '--startup expects seconds from 0 to 1000' "$err"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
