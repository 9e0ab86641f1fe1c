#!/bin/bash
# GTP and GTP/c against non-insertion HEFT on shared networks, nothing
# varying (issue 27): the makespan over HEFT's for generated 300-task
# graphs and two 100-task STG graphs, CCR 0.5 and 1.5, beta 0.5, 10 nodes,
# on four platform models: interfaces only (disks of 100 GB/s), interfaces
# and 100 MB/s disks (the default), two racks with 50 MB/s uplinks, a
# 300 MB/s backbone. Prints a Markdown table (docs/results/gtp.md).
#
#   [OPTS="-o gain=0.1"] bench/gtp_shared.sh [LOCUS [GRAPH...]]   (LOCUS: build/locus)
#
# GRAPHs replace the four above, e.g. ../shared/data/stg/100/*.stg.
set -u
LOCUS=${1:-build/locus}
[ $# -gt 0 ] && shift
graphs=("$@")
[ ${#graphs[@]} -gt 0 ] || graphs=(gen:sameprob:300 gen:layrpred:300 ../shared/data/stg/100/rand0003.stg
	../shared/data/stg/100/rand0007.stg)
ms() { "$LOCUS" sim "$@" | awk '$1 == "makespan" { print $2 }'; }
echo "| graph | platform | CCR | HEFT (s) | GTP / HEFT | GTP/c / HEFT |"
echo "|---|---|---|---|---|---|"
for g in "${graphs[@]}"; do
	for plat in "--disk-bw 100GB" "" "--racks 2 --rack-bw 50MB" "--backbone-bw 300MB"; do
		for c in 0.5 1.5; do
			set -- --graph "$g" --nodes 10 $plat --ccr $c --beta 0.5 --seed 1
			h=$(ms "$@" --policy heft -o insertion=0)
			a=$(ms "$@" --policy gtp ${OPTS:-})
			b=$(ms "$@" --policy gtp-c ${OPTS:-})
			printf '| %s | %s | %s | %.1f | %s | %s |\n' "${g##*/}" "${plat:-default}" $c "$h" \
				"$(awk -v a="$a" -v h="$h" 'BEGIN { printf "%.3f", a / h }')" \
				"$(awk -v a="$b" -v h="$h" 'BEGIN { printf "%.3f", a / h }')"
		done
	done
done
