#!/bin/bash
# How GTP/c's gain over non-insertion HEFT depends on the rate the platform
# changes at (issue 27): SCE10-300 as in repro_gtp's Fig. 4 (sameprob
# graphs of 300 tasks, CCR 0.5, beta 0.5, 10 processors linked pairwise at
# 125 MB/s), variability bounds 0.4 and 0.8, each resource changing every
# lower bound / D seconds on average (--var-period) for D = 40, 10 (the
# default), 2 and 1; seeds 1..N (graph and scenario alike). Prints the
# ratio of mean makespans, GTP/c over HEFT, as a Markdown table
# (docs/results/gtp.md).
#
#   bench/gtp_var_period.sh [LOCUS] [N]   (LOCUS: build/locus, N: 8)
set -u
LOCUS=${1:-build/locus}
N=${2:-8}
ms() { "$LOCUS" sim "$@" | awk '$1 == "makespan" { print $2, $6 }'; }
echo "| bound | period = lower bound / 40 | / 10 (default) | / 2 | / 1 |"
echo "|---|---|---|---|---|"
for b in 0.4 0.8; do
	row="| $b |"
	for d in 40 10 2 1; do
		sh=0 sg=0
		for seed in $(seq 1 "$N"); do
			g="--graph gen:sameprob:300 --procs 10 --ccr 0.5 --beta 0.5 --seed $seed"
			# The lower bound, to state the period against (no change moves it).
			set -- $(ms $g --policy heft -o insertion=0)
			p=$(awk -v lb="$2" -v d=$d 'BEGIN { printf "%.9g", lb / d }')
			set -- $(ms $g --variability $b --var-period "$p" --policy heft -o insertion=0)
			sh=$(awk -v a="$sh" -v b="$1" 'BEGIN { printf "%.9g", a + b }')
			set -- $(ms $g --variability $b --var-period "$p" --policy gtp-c -o on=none)
			sg=$(awk -v a="$sg" -v b="$1" 'BEGIN { printf "%.9g", a + b }')
		done
		row="$row $(awk -v g="$sg" -v h="$sh" 'BEGIN { printf "%.3f (%+.1f %%)", g / h, 100 * (h - g) / h }') |"
	done
	echo "$row"
done
