#!/usr/bin/env bash
# The rates of `locus flow run` against what the same ranks can do without
# the engine (docs/results/flow-run.md):
#
#   bench/mpi/flow_rates.sh LOCUS [REPS]
#
# LOCUS is the locus program (built with MPI); REPS runs of each figure
# (default 3), the median quoted. For 4 and 8 ranks (1 dispatcher, 3 or 7
# workers, each worker its own emulated node):
#
#  (a) independent tasks: T one-rule Makeflow tasks, each writing one tiny
#      file, against the ceiling: the worker ranks each spawning
#      `/bin/sh -c true` T/W times by posix_spawn + waitpid (flow_probe
#      spawn), the dispatcher rank waiting without spinning. Two task
#      commands: `touch o_i` (sh execs touch: a second exec per task) and
#      `: > o_i` (a shell builtin: the same processes as the ceiling).
#      tasks/s = T / makespan (rank 0's clock, from the start of the run to
#      the last task's end); the wall time of the whole command (MPI
#      start-up, reading, set-up, results) is given beside it.
#  (b) a chain of C tasks, each reading its predecessor's file, against one
#      rank spawning `/bin/sh -c true` C times, and against one rank
#      spawning a chain task's own command C times (`cat c0 > c1; echo 1
#      >> c1`: sh and cat, two processes a task where `true` is one; the
#      rate a chain could have if nothing but its processes cost).
# Once, with 9 ranks on 8 emulated nodes (--config aware):
#  (c) a multicast of a 100 MB file to 8 nodes: the time from the end of
#      the task writing it to the first assignment of a reader (the readers
#      are assigned once the policy's binomial multicast has made its 7
#      copies), against the binomial model ceil(log2 8) x 100 MB / BW, BW
#      the median of one 100 MB MPI_Send between two ranks (flow_probe bw),
#      under the same transport settings as the engine; and against the
#      same model with the time `cp` takes to copy the file from one
#      node's directory to another's (what one copy must at least do: read
#      the file and write it anew). The engine's own single copy (3 ranks,
#      2 nodes, --config cache: the reader on the other node) is given
#      beside it.
#  (e) task functions in the process (bench_flow, beside LOCUS): T2
#      independent empty tasks and a chain of C2 tasks each reading its
#      predecessor's file, on 4 and 8 ranks.
#  (d) a WfCommons instance with stand-ins (runtimes x 0.01) on 5 ranks, 2
#      emulated nodes, against `locus flow sim` of the same instance with
#      its runtimes multiplied by 0.01 in a copy (--runtime-scale applies to
#      generated workflows only) on 2 nodes x 2 cores and 1 dispatcher.
#
#      Beside it, the binomial tree of plain `cp` it stands for, run here:
#      the file in one of 8 directories of /dev/shm, then 1, 2 and 4 `cp`s
#      at once, each from a directory that has it to one that has not.
# The MPI launcher settings are those `locus flow run` uses with Open MPI
# (tools/locus/mpirun.c): --oversubscribe, and the shared-memory
# single-copy mechanism the launcher chooses (cma where the kernel lets
# ranks read each other's memory, else none) unless the environment sets
# it (both locus and this script then take the environment's value).
# Needs mpicc, mpirun and python3. About 2 minutes on 2 cores.
set -euo pipefail

if [ $# -lt 1 ]; then
	echo "usage: $0 LOCUS [REPS]" >&2
	exit 2
fi
LOCUS=$(realpath "$1")
REPS=${2:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
T=${FLOW_RATES_TASKS:-600}     # independent tasks
C=${FLOW_RATES_CHAIN:-150}     # chained tasks
T2=${FLOW_RATES_FN_TASKS:-50000} # independent task functions
C2=${FLOW_RATES_FN_CHAIN:-10000} # chained task functions
BENCH_FLOW=$(dirname "$LOCUS")/bench_flow
WF=${FLOW_RATES_WFCOMMONS:-$HERE/../../tests/fixtures/wfcommons/montage-chameleon-2mass-005d-001.json}
# Scratch in the caller's TMPDIR; the nodes' storage goes to /dev/shm (locus's default).
W=$(mktemp -d "${TMPDIR:-/tmp}/flow-rates.XXXXXX")
trap 'rm -rf "$W" /dev/shm/flow-rates-tree.$$ /dev/shm/flow-rates-a.$$ /dev/shm/flow-rates-b.$$' EXIT

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The probes' MPI runs as the engine's: with the shared-memory single-copy
# mechanism locus's launcher chooses on this machine (a user's setting
# wins), asked of a one-task workflow.
if [ -z "${OMPI_MCA_btl_vader_single_copy_mechanism:-}" ]; then
	mkdir -p "$W/env"
	printf 'env:\n\techo \\$OMPI_MCA_btl_vader_single_copy_mechanism > env\n' >"$W/env/env.mf"
	(cd "$W/env" && "$LOCUS" flow run env.mf -np 2 --shared "$W/env" -q >/dev/null)
	OMPI_MCA_btl_vader_single_copy_mechanism=$(cat "$W/env/env")
	export OMPI_MCA_btl_vader_single_copy_mechanism
fi
MPIRUN=(mpirun --oversubscribe --quiet)

mpicc -O2 -o "$W/flow_probe" "$HERE/flow_probe.c"

median() { python3 -c 'import sys,statistics; print("%.6g" % statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
now() { date +%s.%N; }

# A fresh shared directory for each run: the final outputs go there.
run_flow() { # OUT_JSON SHARED ARGS... ; prints the wall seconds
	local out=$1 shared=$2
	shift 2
	rm -rf "$shared"
	mkdir -p "$shared"
	local t0 t1
	t0=$(now)
	"$LOCUS" flow run "$@" --shared "$shared" -q --out "$out" >/dev/null
	t1=$(now)
	python3 -c "import sys; print('%.6f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$t1"
}
makespan() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["makespan"])' "$1"; }

# ---- the workflows ----------------------------------------------------------
python3 - "$W" "$T" "$C" <<'EOF'
import sys
w, T, C = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(f"{w}/touch.mf", "w") as f:
    for i in range(T):
        f.write(f"o_{i}:\n\ttouch o_{i}\n\n")
with open(f"{w}/builtin.mf", "w") as f:
    for i in range(T):
        f.write(f"o_{i}:\n\t: > o_{i}\n\n")
with open(f"{w}/chain.mf", "w") as f:
    f.write("c_0:\n\techo 0 > c_0\n\n")
    for i in range(1, C):
        f.write(f"c_{i}: c_{i-1}\n\tcat c_{i-1} > c_{i}; echo {i} >> c_{i}\n\n")
with open(f"{w}/multicast.mf", "w") as f:
    f.write("big:\n\thead -c 100000000 /dev/urandom > big\n\n")
    for i in range(8):
        f.write(f"m_{i}: big\n\tmd5sum big > m_{i}\n\n")
EOF

declare -A R # results, printed at the end

echo "machine: $(nproc) cores, $(uname -r); $(mpirun --version 2>/dev/null | head -1)"
echo "locus: $LOCUS; $REPS runs a figure, medians; T=$T independent, C=$C chained tasks"
echo "vader single copy: $OMPI_MCA_btl_vader_single_copy_mechanism; load before: $(cut -d' ' -f1-3 /proc/loadavg)"

spawn_rate() { # NP M D CMD: spawns/s of flow_probe
	"${MPIRUN[@]}" -np "$1" "$W/flow_probe" spawn "$2" "$3" "$4" | awk '{print $NF}'
}
ratio() { python3 -c "import sys; print('%.6g' % (float(sys.argv[1]) / float(sys.argv[2])))" "$1" "$2"; }

# Each repetition runs the ceilings and the flows one after the other, so
# that a ratio compares runs taken under the same load (this machine is
# shared); the ratios quoted are the medians of the repetitions' ratios.
mkdir -p "$W/tx"
echo 0 >"$W/tx/c0"
for NP in 4 8; do
	WK=$((NP - 1))
	M=$(((T + WK - 1) / WK))
	declare -A L=()
	for r in $(seq "$REPS"); do
		# (a) the ceiling: the worker ranks spawning `true`, M each;
		# the same with `touch` (sh execs it, as in the flow's tasks).
		c=$(spawn_rate "$NP" "$M" 1 true)
		ct=$(spawn_rate "$NP" "$M" 1 "touch $W/tx/o")
		# (b)'s ceiling: one rank spawning `true` C times, the others waiting;
		# and spawning a chain task's own command C times (sh, cat,
		# echo: a chain task starts two processes, `true` one).
		cs=$(spawn_rate "$NP" "$C" "$WK" true)
		cc=$(spawn_rate "$NP" "$C" "$WK" "cat $W/tx/c0 > $W/tx/c1; echo 1 >> $W/tx/c1")
		L[ceil]+=" $c"
		L[ceiltouch]+=" $ct"
		L[serial]+=" $cs"
		L[serialcmd]+=" $cc"
		for kind in touch builtin chain; do
			n=$T
			[ "$kind" = chain ] && n=$C
			wall=$(run_flow "$W/$kind.json" "$W/shared" "$W/$kind.mf" -np "$NP" --emulate-nodes "$WK")
			ms=$(makespan "$W/$kind.json")
			rate=$(python3 -c "print($n / $ms)")
			L[${kind}_ms]+=" $ms"
			L[${kind}_wall]+=" $wall"
			L[${kind}_rate]+=" $rate"
		done
		L[touch_q]+=" $(ratio "$(awk '{print $NF}' <<<"${L[touch_rate]}")" "$c")"
		L[touch_qt]+=" $(ratio "$(awk '{print $NF}' <<<"${L[touch_rate]}")" "$ct")"
		L[builtin_q]+=" $(ratio "$(awk '{print $NF}' <<<"${L[builtin_rate]}")" "$c")"
		L[chain_q]+=" $(ratio "$(awk '{print $NF}' <<<"${L[chain_rate]}")" "$cs")"
		L[chain_qc]+=" $(ratio "$(awk '{print $NF}' <<<"${L[chain_rate]}")" "$cc")"
	done
	for k in "${!L[@]}"; do
		# shellcheck disable=SC2086
		R[${k}$NP]=$(median ${L[$k]})
	done
	unset L
done

# ---- (c) multicast ------------------------------------------------------------
mc_time() { # RESULT_JSON: first reader's assignment - the writer's end
	python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ts = {t["name"]: t for t in d["tasks"]}
readers = [t for n, t in ts.items() if n != "big"]
print("%.6f" % (min(t["assigned"] for t in readers) - ts["big"]["end"]))
EOF
}
# As in (a), each repetition takes its own bandwidth, multicast and copy.
bws=()
mcs=()
cps=()
qs=()
cpq=()
cpt=()
tree=()
treeq=()
for r in $(seq "$REPS"); do
	line=$("${MPIRUN[@]}" -np 2 "$W/flow_probe" bw 100000000 5)
	bw=$(awk '{print 100000000 / $7}' <<<"$line") # from the median of 5
	run_flow "$W/mc.json" "$W/shared" "$W/multicast.mf" -np 9 --emulate-nodes 8 --config aware >/dev/null
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["policy_stats"]["counters"]; sys.exit(0 if c["multicasts"]==1 and c["replicas"]==7 else "multicast not made: %s" % c)' "$W/mc.json"
	mc=$(mc_time "$W/mc.json")
	run_flow "$W/cp.json" "$W/shared" "$W/multicast.mf" -np 3 --emulate-nodes 2 --config cache >/dev/null
	# cp of the file from one directory of /dev/shm to another.
	head -c 100000000 /dev/zero >/dev/shm/flow-rates-a.$$
	t0=$(now)
	cp /dev/shm/flow-rates-a.$$ /dev/shm/flow-rates-b.$$
	t1=$(now)
	rm -f /dev/shm/flow-rates-a.$$ /dev/shm/flow-rates-b.$$
	c=$(python3 -c "print(float('$t1') - float('$t0'))")
	# The binomial tree of cp over 8 directories, rounds of 1, 2 and 4.
	T=/dev/shm/flow-rates-tree.$$
	for i in 0 1 2 3 4 5 6 7; do mkdir -p "$T/n$i"; done
	head -c 100000000 /dev/urandom >"$T/n0/big"
	t0=$(now)
	cp "$T/n0/big" "$T/n4/big"
	cp "$T/n0/big" "$T/n2/big" & cp "$T/n4/big" "$T/n6/big" & wait
	for i in 0 2 4 6; do cp "$T/n$i/big" "$T/n$((i + 1))/big" & done
	wait
	t1=$(now)
	rm -rf "$T"
	tree+=("$(python3 -c "print(float('$t1') - float('$t0'))")")
	treeq+=("$(python3 -c "print($mc / (float('$t1') - float('$t0')))")")
	bws+=("$bw")
	mcs+=("$mc")
	cps+=("$(python3 - "$W/cp.json" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
t = [t for t in d["tasks"] if t["name"] != "big"][0]
print("%.6f" % (t["start"] - t["assigned"]))
EOF2
)")
	cpt+=("$c")
	qs+=("$(python3 -c "print($mc / (3 * 1e8 / $bw))")")
	cpq+=("$(python3 -c "print($mc / (3 * $c))")")
done
R[bw]=$(median "${bws[@]}")
R[mc]=$(median "${mcs[@]}")
R[cp]=$(median "${cps[@]}")
R[mcq]=$(median "${qs[@]}")
R[cpt]=$(median "${cpt[@]}")
R[cpq]=$(median "${cpq[@]}")
R[tree]=$(median "${tree[@]}")
R[treeq]=$(median "${treeq[@]}")

# ---- (e) task functions -------------------------------------------------------------
if [ -x "$BENCH_FLOW" ]; then
	for NP in 4 8; do
		"${MPIRUN[@]}" -np "$NP" "$BENCH_FLOW" --tasks "$T2" --chain "$C2" --reps "$REPS" >"$W/bf$NP.txt"
		R[fn_ind$NP]=$(median $(awk '$2 == "independent" { print $10 }' "$W/bf$NP.txt"))
		R[fn_chain$NP]=$(median $(awk '$2 == "chain" { print $10 }' "$W/bf$NP.txt"))
	done
fi

# ---- (d) WfCommons: run against sim ----------------------------------------------
if [ -r "$WF" ]; then
	python3 - "$WF" "$W/scaled.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
w = d["workflow"]
for t in w.get("execution", {}).get("tasks", []) + w.get("specification", {}).get("tasks", []) + w.get("tasks", []):
    for k in ("runtimeInSeconds", "runtime"):
        if k in t:
            t[k] *= 0.01
json.dump(d, open(sys.argv[2], "w"))
EOF
	ms=()
	walls=()
	for r in $(seq "$REPS"); do
		# The stand-ins' inputs are made in the shared directory.
		walls+=("$(run_flow "$W/real.json" "$W/wfin" "wfcommons:$WF" -np 5 --emulate-nodes 2 \
			--stand-in 0.01)")
		ms+=("$(makespan "$W/real.json")")
	done
	R[real_ms]=$(median "${ms[@]}")
	R[real_wall]=$(median "${walls[@]}")
	"$LOCUS" flow sim "wfcommons:$W/scaled.json" --nodes 2 --cores 2 --dispatchers 1 \
		-q --out "$W/sim.json" >/dev/null
	R[sim_ms]=$(makespan "$W/sim.json")
	"$LOCUS" flow sim "wfcommons:$W/scaled.json" --nodes 2 --cores 2 --dispatchers 1 \
		--net-bw "$(python3 -c "print(int(1e8 / ${R[cp]}))")" -q --out "$W/sim2.json" >/dev/null
	R[sim2_ms]=$(makespan "$W/sim2.json")
fi

# ---- the table -----------------------------------------------------------------
r() { python3 -c "print('%.2f' % ($1))"; }
echo
printf '%-44s %12s %12s\n' "figure (medians of $REPS)" "-np 4" "-np 8"
printf '%-44s %12s %12s\n' "(a) ceiling: spawn sh -c true, spawns/s" "${R[ceil4]}" "${R[ceil8]}"
for kind in touch builtin; do
	cmdname="touch o_i"
	[ "$kind" = builtin ] && cmdname=": > o_i"
	printf '%-44s %12s %12s\n' "(a) flow '$cmdname', tasks/s (makespan)" "${R[${kind}_rate4]}" "${R[${kind}_rate8]}"
	printf '%-44s %12s %12s\n' "    flow/ceiling" "$(r "${R[${kind}_q4]}")" "$(r "${R[${kind}_q8]}")"
	if [ "$kind" = touch ]; then
		printf '%-44s %12s %12s\n' "    ceiling with 'touch' as the command" "${R[ceiltouch4]}" "${R[ceiltouch8]}"
		printf '%-44s %12s %12s\n' "    flow/that ceiling" "$(r "${R[touch_qt4]}")" "$(r "${R[touch_qt8]}")"
	fi
	printf '%-44s %12s %12s\n' "    makespan s / wall s (with MPI start)" \
		"$(r "${R[${kind}_ms4]}")/$(r "${R[${kind}_wall4]}")" "$(r "${R[${kind}_ms8]}")/$(r "${R[${kind}_wall8]}")"
done
printf '%-44s %12s %12s\n' "(b) one rank spawning sh -c true, spawns/s" "${R[serial4]}" "${R[serial8]}"
printf '%-44s %12s %12s\n' "(b) chain of $C, tasks/s (makespan)" "${R[chain_rate4]}" "${R[chain_rate8]}"
printf '%-44s %12s %12s\n' "    chain/serial spawn" "$(r "${R[chain_q4]}")" "$(r "${R[chain_q8]}")"
printf '%-44s %12s %12s\n' "(b) one rank spawning a chain task's command" "${R[serialcmd4]}" "${R[serialcmd8]}"
printf '%-44s %12s %12s\n' "    chain/that (its commands one by one)" "$(r "${R[chain_qc4]}")" "$(r "${R[chain_qc8]}")"
printf '%-44s %12s %12s\n' "    makespan s / wall s (with MPI start)" \
	"$(r "${R[chain_ms4]}")/$(r "${R[chain_wall4]}")" "$(r "${R[chain_ms8]}")/$(r "${R[chain_wall8]}")"
echo
model=$(python3 -c "print(3 * 1e8 / ${R[bw]})")
echo "(c) MPI point-to-point, 100 MB:        $(r "${R[bw]} / 1e6") MB/s"
echo "    binomial model, 3 x 100 MB / BW:   $(r "$model") s"
echo "    multicast to 8 nodes (-np 9):      $(r "${R[mc]}") s   multicast/model $(r "${R[mcq]}") (goal <= 1.5)"
echo "    cp of the file, node to node:      $(r "${R[cpt]}") s   model 3 x cp $(r "3 * ${R[cpt]}") s, multicast/that model $(r "${R[cpq]}")"
echo "    binomial tree of cp, 8 directories: $(r "${R[tree]}") s   multicast/tree $(r "${R[treeq]}") (goal <= 1.2)"
echo "    one engine copy (-np 3, 2 nodes):  $(r "${R[cp]}") s   = $(r "1e8 / ${R[cp]} / 1e6") MB/s, $(r "${R[cp]} / (1e8 / ${R[bw]})") x MPI's, $(r "${R[cp]} / ${R[cpt]}") x cp's"
if [ -n "${R[fn_ind4]:-}" ]; then
	echo
	printf '%-44s %12s %12s\n' "(e) task functions (medians of $REPS)" "-np 4" "-np 8"
	printf '%-44s %12s %12s\n' "    $T2 independent empty tasks, tasks/s" "${R[fn_ind4]}" "${R[fn_ind8]}"
	printf '%-44s %12s %12s\n' "    chain of $C2, tasks/s" "${R[fn_chain4]}" "${R[fn_chain8]}"
fi
if [ -n "${R[real_ms]:-}" ]; then
	echo
	echo "(d) $(basename "$WF"), stand-ins x 0.01, -np 5 on 2 nodes:"
	echo "    run makespan $(r "${R[real_ms]}") s (wall $(r "${R[real_wall]}") s); sim 2 nodes x 2 cores: $(r "${R[sim_ms]}") s;" \
		"run/sim $(r "${R[real_ms]} / ${R[sim_ms]}")"
	echo "    sim with --net-bw at the engine's copy rate: $(r "${R[sim2_ms]}") s; run/sim $(r "${R[real_ms]} / ${R[sim2_ms]}")"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
