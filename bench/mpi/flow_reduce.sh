#!/usr/bin/env bash
# A reduction for real (docs/results/flow.md, "Reductions"): the minimum of
# eight files of random integers, one written on each of 8 emulated nodes
# (-np 9, --config cogather), as the AME paper's Fig. 9 reduce benchmark
# does with its min() binary:
#
#   bench/mpi/flow_reduce.sh LOCUS [REPS] [MB...]
#
# For each size (MB a node; default 1 and 16) and REPS runs (default 3,
# the median quoted), three ways of the same workflow:
#  reduce   --reduce awk: the min command runs at every node of the
#           binomial tree over what that node holds, and partial results
#           (one number) go up;
#  gather   the same tree moves the files themselves (an archive a
#           subtree) to the root, where the min command reads them all;
#  fetch    --config aware: the root's worker brings the files one after
#           another, then reads them all.
# Timed: from the last producer's end to the min task's end (the run's
# clock), against the min command over one node's file (c x S, the
# reduce model's computing term: the tree's nodes compute at once) and
# over all eight (one node doing it all), and from the last producer's
# end to the min task's start (its inputs there). Beside them, the same
# trees by hand over 8 directories of /dev/shm: the gather's binomial
# tree of plain cp, the fetch's 7 cp one after another, the reduction's
# tree of the min command with cp of the partial results. Every run's
# minimum equals the one computed here without Locus. Needs mpirun and python3; about a
# minute on 2 cores.
set -euo pipefail

if [ $# -lt 1 ]; then
	echo "usage: $0 LOCUS [REPS] [MB...]" >&2
	exit 2
fi
LOCUS=$(realpath "$1")
REPS=${2:-3}
shift $(($# > 1 ? 2 : 1))
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1 16)
W=$(mktemp -d "${TMPDIR:-/tmp}/flow-reduce.XXXXXX")
trap 'rm -rf "$W" /dev/shm/flow-reduce-tree.$$' EXIT
declare -A R
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

MIN='NR == 1 || $1 < m { m = $1 } END { print m }'
median() { python3 -c 'import sys,statistics; print("%.4f" % statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
now() { date +%s.%N; }

for mb in "${SIZES[@]}"; do
	lines=$((mb * 1000000 / 10)) # numbers of 9 digits and a newline
	d="$W/wf$mb"
	mkdir -p "$d/ref"
	ins=""
	{
		for i in 0 1 2 3 4 5 6 7; do
			printf 'p%d:\n\tseq %d | awk -v s=%d '\''BEGIN { srand(s) } { print 100000000 + int(rand() * 899999999) }'\'' > p%d\n\n' \
				"$i" "$lines" "$((i + 1))" "$i"
			ins="$ins p$i"
		done
		printf 'min:%s\n\tawk '\''%s'\''%s > min\n' "$ins" "${MIN//\$/\\\$}" "$ins"
	} >"$d/Makeflow"
	# The reference, and the min command's own time over one file and
	# over all eight.
	for i in 0 1 2 3 4 5 6 7; do
		seq "$lines" | awk -v s=$((i + 1)) 'BEGIN { srand(s) } { print 100000000 + int(rand() * 899999999) }' >"$d/ref/p$i"
	done
	want=$(cat "$d/ref"/p* | awk "$MIN")
	one=()
	all=()
	for r in $(seq "$REPS"); do
		t0=$(now)
		awk "$MIN" "$d/ref/p0" >/dev/null
		t1=$(now)
		(cd "$d/ref" && awk "$MIN" p0 p1 p2 p3 p4 p5 p6 p7 >/dev/null)
		t2=$(now)
		one+=("$(python3 -c "print(float('$t1') - float('$t0'))")")
		all+=("$(python3 -c "print(float('$t2') - float('$t1'))")")
	done
	echo "$mb MB a node (8 nodes): min over one node's file $(median "${one[@]}") s, over all eight $(median "${all[@]}") s"
	for how in reduce gather fetch; do
		case $how in
		reduce) args=(--config cogather --reduce awk) ;;
		gather) args=(--config cogather) ;;
		fetch) args=(--config aware) ;;
		esac
		ts=()
		ms=()
		for r in $(seq "$REPS"); do
			rm -rf "$d/run" && mkdir -p "$d/run" && cp "$d/Makeflow" "$d/run/"
			"$LOCUS" flow run "$d/run/Makeflow" -np 9 --emulate-nodes 8 --gather 8 -q \
				"${args[@]}" --out "$d/run.json" >/dev/null
			got=$(cat "$d/run/min")
			if [ "$got" != "$want" ]; then
				echo "$how: minimum $got, not $want" >&2
				exit 1
			fi
			read -r t m < <(python3 - "$d/run.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["name"]: x for x in d["tasks"]}
last = max(x["end"] for n, x in t.items() if n != "min")
print("%.6f %.6f" % (t["min"]["end"] - last, t["min"]["start"] - last))
EOF
)
			ts+=("$t")
			ms+=("$m")
		done
		R[$how]=$(median "${ts[@]}")
		R[${how}_moved]=$(median "${ms[@]}")
		echo "  $how: $(median "${ts[@]}") s (runs: ${ts[*]}); inputs there after $(median "${ms[@]}") s"
	done
	# The same trees by hand on 8 directories of /dev/shm, each node's
	# file in its own: the gather's binomial tree of plain cp (rounds of
	# 4, 2 and 1 copies, each of what the subtree holds), the fetch's 7
	# cp one after another into the root, and the reduction's tree of the
	# min command (all 8 nodes at once over their file, then rounds of 4,
	# 2 and 1 steps: cp of the partial result, the command over two).
	T=/dev/shm/flow-reduce-tree.$$
	tree=()
	seqcp=()
	red=()
	for r in $(seq "$REPS"); do
		rm -rf "$T"
		for i in 0 1 2 3 4 5 6 7; do mkdir -p "$T/n$i" && cp "$d/ref/p$i" "$T/n$i/"; done
		t0=$(now)
		for i in 1 3 5 7; do cp "$T/n$i/p$i" "$T/n$((i - 1))/" & done
		wait
		cp "$T"/n2/p* "$T/n0/" & cp "$T"/n6/p* "$T/n4/" & wait
		cp "$T"/n4/p* "$T/n0/"
		t1=$(now)
		rm -rf "$T/f" && mkdir -p "$T/f"
		t2=$(now)
		for i in 1 2 3 4 5 6 7; do cp "$T/n$i/p$i" "$T/f/"; done
		t3=$(now)
		for i in 0 1 2 3 4 5 6 7; do awk "$MIN" "$T/n$i/p$i" >"$T/n$i/m" & done
		wait
		for step in 1 2 4; do
			for ((i = 0; i < 8; i += 2 * step)); do
				(cp "$T/n$((i + step))/m" "$T/n$i/m2" && awk "$MIN" "$T/n$i/m" "$T/n$i/m2" >"$T/n$i/m3" &&
					mv "$T/n$i/m3" "$T/n$i/m") &
			done
			wait
		done
		t4=$(now)
		[ "$(cat "$T/n0/m")" = "$want" ] || { echo "the plain reduction: $(cat "$T/n0/m"), not $want" >&2; exit 1; }
		tree+=("$(python3 -c "print(float('$t1') - float('$t0'))")")
		seqcp+=("$(python3 -c "print(float('$t3') - float('$t2'))")")
		red+=("$(python3 -c "print(float('$t4') - float('$t3'))")")
	done
	rm -rf "$T"
	tr=$(median "${tree[@]}")
	sq=$(median "${seqcp[@]}")
	rd=$(median "${red[@]}")
	q() { python3 -c "print('%.2f' % ($1 / $2))"; }
	echo "  by hand: gather's cp tree $tr s, 7 cp one after another $sq s, the reduction's tree $rd s"
	echo "  gather's inputs / cp tree $(q "${R[gather_moved]}" "$tr"); fetch's / 7 cp $(q "${R[fetch_moved]}" "$sq"); reduce / its tree by hand $(q "${R[reduce]}" "$rd")"
done
