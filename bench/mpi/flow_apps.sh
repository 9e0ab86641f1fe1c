#!/usr/bin/env bash
# The real applications under `locus flow run` (docs/results/flow.md):
#
#   bench/mpi/flow_apps.sh LOCUS [GRID [NODES]]
#
# (a) Montage: a GRID x GRID mosaic (default 6: 36 tiles) made with
#     examples/montage/make-workflow.sh, run on NODES emulated nodes
#     (default 4, one worker rank each, beside one dispatcher rank) under
#     every AMFS configuration of the paper's Fig. 10 and the taskvine and
#     dask policies; each run's mosaic is checked against the sequential
#     run's (byte for byte), and each stage's span is printed with its
#     ratio to staging's, as Fig. 10 does, beside the sequential time.
# (b) mtcBLAST: examples/mtcblast/make-workflow.sh (16 fragments, 4 query
#     files, then 1) under cogather and asgather, its merged hits checked against
#     the sequential blastn, and the same data searched as examples/blast
#     does it (the mpiBLAST-style `locus run` over 16 placed fragments,
#     scal and fifo) on as many ranks and nodes, each run timed alike
#     (makespan, and wall seconds with MPI's start) and its hits checked.
# (c) Each WfCommons instance of tests/fixtures/wfcommons with stand-ins
#     (runtimes x 0.01) on 2 emulated nodes of 2 workers, --measured, then
#     replayed by locus flow sim on the measured platform: the makespans
#     side by side.
# Needs Montage, ncbi-blast+ and python3. A few minutes on 2 cores.
set -euo pipefail

if [ $# -lt 1 ]; then
	echo "usage: $0 LOCUS [GRID [NODES]]" >&2
	exit 2
fi
LOCUS=$(realpath "$1")
GRID=${2:-6}
NODES=${3:-4}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DATA=${FLOW_APPS_DATA:-$ROOT/tests/fixtures/wfcommons}
W=$(mktemp -d "${TMPDIR:-/tmp}/flow-apps.XXXXXX")
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NP=$((NODES + 1))

now() { date +%s.%N; }
since() { python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$(now)"; }

echo "machine: $(nproc) cores, $(uname -r); $(mpirun --version 2>/dev/null | head -1)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- (a) Montage -------------------------------------------------------------
echo
echo "(a) Montage ${GRID}x${GRID}, -np $NP on $NODES emulated nodes"
"$ROOT/examples/montage/make-workflow.sh" "$W/m" "$GRID" >/dev/null
t0=$(now)
"$W/m/sequential.sh" "$W/seq" >/dev/null 2>&1
seq_s=$(since "$t0")
echo "sequential.sh: $seq_s s"
runs="staging cache aware cogather asgather shared taskvine dask"
for c in $runs; do
	d="$W/run-$c"
	cp -r "$W/m" "$d"
	if [ "$c" = taskvine ] || [ "$c" = dask ]; then
		how=(--policy "$c")
	else
		how=(--config "$c")
	fi
	t0=$(now)
	"$LOCUS" flow run "$d/Makeflow" -np "$NP" --emulate-nodes "$NODES" "${how[@]}" -q \
		--out "$W/$c.json" >/dev/null
	wall=$(since "$t0")
	same=no
	"$ROOT/examples/montage/check-mosaic.sh" "$W/seq/mosaic.fits" "$d/mosaic.fits" >/dev/null 2>&1 &&
		same=yes
	echo "$c $wall $same" >>"$W/montage.txt"
done
python3 - "$W" $runs <<'EOF'
import json, sys
w, runs = sys.argv[1], sys.argv[2:]
meta = {l.split()[0]: l.split()[1:] for l in open(f"{w}/montage.txt")}
res = {c: json.load(open(f"{w}/{c}.json")) for c in runs}
stages = [s["name"] for s in res[runs[0]]["stages"]]
span = lambda r, n: next((s["last_end"] - s["first_start"]) for s in r["stages"] if s["name"] == n)
print("%-12s" % "stage" + "".join("%11s" % c for c in runs))
for n in stages:
    print("%-12s" % n + "".join("%11.2f" % span(res[c], n) for c in runs))
print("%-12s" % "makespan" + "".join("%11.2f" % res[c]["summary"]["makespan"] for c in runs))
print("%-12s" % "wall" + "".join("%11s" % meta[c][0] for c in runs))
print("%-12s" % "MB peer" + "".join("%11.1f" % (sum(s["bytes_peer"] for s in res[c]["stages"]) / 1e6) for c in runs))
print("%-12s" % "MB FS" + "".join("%11.1f" % (sum(s["bytes_fs_read"] + s["bytes_fs_written"] for s in res[c]["stages"]) / 1e6) for c in runs))
print("%-12s" % "mosaic ok" + "".join("%11s" % meta[c][1] for c in runs))
print("\nstage span / staging's (Fig. 10)")
print("%-12s" % "stage" + "".join("%11s" % c for c in runs))
for n in stages:
    b = span(res["staging"], n)
    print("%-12s" % n + "".join("%11s" % ("%.2f" % (span(res[c], n) / b) if b > 0 else "-") for c in runs))
EOF

# ---- (b) mtcBLAST against examples/blast ---------------------------------------------
echo
echo "(b) mtcBLAST, 16 fragments, 4 and 1 query files, -np $NP on $NODES emulated nodes"
for q in 4 1; do
	"$ROOT/examples/mtcblast/make-workflow.sh" "$W/ref$q" 16 "$q" >/dev/null
	"$W/ref$q/sequential.sh" >/dev/null 2>&1
	for c in cogather asgather; do
		d="$W/blast-$c-$q"
		"$ROOT/examples/mtcblast/make-workflow.sh" "$d" 16 "$q" >/dev/null
		t0=$(now)
		"$LOCUS" flow run "$d/Makeflow" -np "$NP" --emulate-nodes "$NODES" --config "$c" -q \
			--out "$W/b-$c-$q.json" >/dev/null
		wall=$(since "$t0")
		same=no
		"$ROOT/examples/mtcblast/check-hits.sh" "$d/merged" "$W/ref$q/reference" >/dev/null 2>&1 && same=yes
		ms=$(python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["summary"]["makespan"])' "$W/b-$c-$q.json")
		echo "locus flow run, $q query file(s), --config $c: makespan $ms s, wall $wall s, hits equal to sequential: $same"
	done
done
# The same database and queries as examples/blast/run.sh searches them:
# the database cut into 16 fragments (chunks cut between records, 2
# replicas over the same nodes), one task a fragment making its BLAST
# database and searching every query with blastn, under `locus run` on as
# many ranks; its hits, merged, against one sequential blastn (the
# example's reference, with the same -searchsp).
m="$W/mpiblast"
mkdir -p "$m"
cp "$W/ref1/db.fa" "$W/ref1/queries.fa" "$m/"
dbsize=$(grep -v '^>' "$m/db.fa" | tr -d '\n' | wc -c)
searchsp=$((dbsize * 150))
fmt="6 qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore"
chunk=$((($(stat -c %s "$m/db.fa") + 15) / 16))
(cd "$m" && makeblastdb -in db.fa -dbtype nucl -out whole/db >/dev/null &&
	blastn -query queries.fa -db whole/db -searchsp "$searchsp" -outfmt "$fmt" -evalue 1e-5 |
	sort >sequential.hits)
"$LOCUS" place --input "$m/db.fa" --chunk-size "$chunk" --split fasta --nodes "$NODES" \
	--replicas 2 --seed 3 --store "$m/store" --dataset db.fa >/dev/null
for p in scal fifo; do
	t0=$(now)
	"$LOCUS" run -np "$NP" --emulate-nodes "$NODES" --store "$m/store" --policy "$p" -q \
		--results "$m/results-$p" --out "$m/$p.json" -- sh -c '
		set -e
		d=$(mktemp -d "${TMPDIR:-/tmp}/frag.XXXXXX")
		trap "rm -rf \"$d\"" EXIT
		makeblastdb -in "$1" -dbtype nucl -out "$d/db" >/dev/null
		blastn -query "$2" -db "$d/db" -searchsp "$3" -outfmt "$4" -evalue 1e-5' \
		sh {} "$m/queries.fa" "$searchsp" "$fmt" >/dev/null
	wall=$(since "$t0")
	cat "$m/results-$p"/db.fa/chunk-*.out | sort >"$m/$p.hits"
	same=no
	cmp -s "$m/sequential.hits" "$m/$p.hits" && same=yes
	ms=$(python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["summary"]["makespan"])' "$m/$p.json")
	echo "locus run --policy $p ($(ls "$m/results-$p"/db.fa | wc -l) fragments, each makeblastdb + blastn of the 12 queries): makespan $ms s, wall $wall s, hits equal to sequential: $same"
done

# ---- (c) WfCommons: measured run against its replay --------------------------------------
echo
echo "(c) WfCommons instances, stand-ins x 0.01, -np 5 on 2 emulated nodes, replayed in locus flow sim"
printf '%-48s %7s %10s %10s %8s\n' instance tasks "run (s)" "sim (s)" sim/run
for wf in "$DATA"/*.json; do
	case $(basename "$wf") in wfcommons-schema.json) continue ;; esac
	d="$W/wf-$(basename "$wf" .json)"
	mkdir -p "$d"
	"$LOCUS" flow run "wfcommons:$wf" --shared "$d" -np 5 --emulate-nodes 2 --stand-in 0.01 -q \
		--out "$d/real.json" --measured "$d/m" >/dev/null 2>"$d/err" || { echo "$(basename "$wf"): run failed"; continue; }
	replay=$(sed -n 's/.*replay with: locus flow sim //p' "$d/err")
	# The stand-ins slept 0.01 of each runtime: the replay takes the measured times.
	# shellcheck disable=SC2086
	"$LOCUS" flow sim $replay -q --out "$d/sim.json" >/dev/null
	python3 - "$wf" "$d" <<'EOF'
import json, os, sys
wf, d = sys.argv[1], sys.argv[2]
r = json.load(open(f"{d}/real.json")); s = json.load(open(f"{d}/sim.json"))
a, b = r["summary"]["makespan"], s["summary"]["makespan"]
print("%-48s %7d %10.2f %10.2f %8.2f" % (os.path.basename(wf), r["summary"]["tasks"], a, b, b / a))
EOF
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
