#!/bin/sh
# The simulator's reference runs: every full result (--out) of a set of
# runs that cover the chunk policies, racks and uplinks, a shared file
# system, failures, bandwidth changes, task graphs and workflows. A change
# to the engine or the sharing that should keep every result compares two
# builds' directories byte for byte:
#
#   bench/sim_refruns.sh OLD/locus /tmp/a && bench/sim_refruns.sh build/locus /tmp/b
#   diff -r /tmp/a /tmp/b && echo same
#
# STG graphs are read from ../shared/data/stg when it exists (else skipped).
set -e
locus=${1:?usage: sim_refruns.sh LOCUS OUTDIR}
out=${2:?usage: sim_refruns.sh LOCUS OUTDIR}
mkdir -p "$out"
stg=$(dirname "$0")/../../shared/data/stg

run() {
	name=$1
	shift
	"$locus" "$@" -q --out "$out/$name.json" >/dev/null
}

for x in fifo monolithic dlmpi delay scal; do
	run "$x-128x16" sim --nodes 128 -P 16 --tasks 20000 --work uniform:1:3 -x $x
	run "$x-2048x1" sim --nodes 2048 --tasks 20000 --work uniform:1:3 -x $x
done
run fifo-racks sim --nodes 128 -P 8 --racks 8 --rack-bw 400MB --tasks 8000 --work uniform:1:3 -x fifo
run scal-racks sim --nodes 128 -P 8 --racks 8 --rack-bw 400MB --backbone-bw 2GB --tasks 8000 \
	--work uniform:1:3 -x scal
run delay-fs sim --nodes 64 -P 4 --shared-fs 2GB --tasks 4000 --work uniform:1:3 -x delay
run dlmpi-fail sim --nodes 64 -P 4 --tasks 4000 --work uniform:1:3 -x dlmpi --fail node03@20
run fifo-var sim --nodes 64 -P 4 --tasks 4000 --work uniform:1:3 -x fifo --variability 0.5
run fifo-slowlink sim --nodes 64 -P 8 --net-bw 60MB --tasks 4000 --work uniform:1:3 -x fifo
if [ -d "$stg" ]; then
	for g in 50/rand0000.stg 50/rand0002.stg 100/rand0003.stg 100/rand0005.stg 100/rand0009.stg; do
		n=$(echo "$g" | tr / -)
		run "heft-$n" sim --graph "$stg/$g" --procs 4 --ccr 1 -x heft
		run "gtp-$n" sim --graph "$stg/$g" --procs 4 --ccr 1 --variability 0.3 -x gtp
		run "heft-nodes-$n" sim --graph "$stg/$g" --nodes 8 --ccr 1 -x heft
	done
fi
for x in amfs taskvine dask heft; do
	run "flow-montage-$x" flow sim gen:montage:200 --nodes 32 -x $x
	run "flow-blast-$x" flow sim gen:blast:32:16 --nodes 32 -x $x
done
