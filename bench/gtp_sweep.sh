#!/bin/sh
# The reactive DAG policies on every graph of ../shared/data/stg and on
# generated 300- and 1,000-task graphs, whole-number costs (no --beta),
# CCR 0 and 1, 2 to 16 processors, nothing varying and at variability 0.4:
# every run must complete and never end under its lower bound; with nothing
# varying GTP's four variants must end where HEFT without insertion does
# (no estimate fails, so no point changes the schedule). tests/test_gtp.c
# runs a few of these graphs in `make check`; this is the wide sweep
# (issue 27). 2,300 runs (23 graphs); prints one line per failure and a count.
#
#   bench/gtp_sweep.sh [LOCUS] [GRAPH...]   (LOCUS: build/locus)
set -u
LOCUS=${1:-build/locus}
[ $# -gt 0 ] && shift
if [ $# -eq 0 ]; then
	set -- ../shared/data/stg/50/*.stg ../shared/data/stg/100/*.stg \
		gen:sameprob:300 gen:layrpred:300 gen:sameprob:1000
fi
runs=0 bad=0
# "makespan M ... lower bound L" and the status of one run's summary.
one() {
	"$LOCUS" sim "$@" 2>&1 | awk '
		/^  status/ { st = $2 }
		/^  makespan/ { m = $2; lb = $6 }
		END { if (st == "") st = "error"; print st, m, lb }'
}
for g in "$@"; do
	for p in 2 3 4 8 16; do
		for c in 0 1; do
			for v in 0 0.4; do
				vary=""
				[ "$v" != 0 ] && vary="--variability $v --seed 3"
				set -- $(one --graph "$g" --procs $p --ccr $c $vary --policy heft -o insertion=0)
				heft=$2
				for pol in gtp gtp-c gtp-r gtp-c-r dls-sr; do
					opt=""
					[ "$pol" != dls-sr ] && opt="-o on=none"
					set -- $(one --graph "$g" --procs $p --ccr $c $vary --policy $pol $opt)
					runs=$((runs + 1))
					why=""
					[ "$1" != complete ] && why="not complete ($1)"
					[ -z "$why" ] && awk "BEGIN { exit !($2 < $3 * (1 - 1e-12)) }" &&
						why="under its bound ($2 < $3)"
					[ -z "$why" ] && [ "$v" = 0 ] && [ "$pol" != dls-sr ] && [ "$2" != "$heft" ] &&
						why="not HEFT's $heft with nothing varying ($2)"
					if [ -n "$why" ]; then
						bad=$((bad + 1))
						echo "$pol on $g, $p procs, CCR $c, variability $v: $why"
					fi
				done
			done
		done
	done
done
echo "$runs runs, $bad failed"
[ "$bad" -eq 0 ]
