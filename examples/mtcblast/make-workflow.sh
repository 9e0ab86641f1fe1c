#!/bin/bash
# mtcBLAST as a Makeflow: the many-task BLAST of the AME/AMFS paper, on
# synthetic data small enough to run in seconds. Writes into OUTDIR:
#
#   db.fa, queries.fa   the database and queries of examples/blast/run.sh
#                       (the same awk generators and seeds, so byte for byte
#                       the same data)
#   q0.fa ...           the queries dealt round-robin into QUERYFILES files
#   fastasplitn, merge  the two small shell scripts the workflow runs
#   Makeflow            the workflow: fastasplitn (1 task) -> makeblastdb
#                       (one per fragment) -> blastn (one per query file and
#                       fragment) -> merge (one per query file)
#   sequential.sh       the same tasks run one after another in OUTDIR, and
#                       the reference: one blastn over the whole database
#
# Both the Makeflow and sequential.sh are written from one list of tasks
# (the `task` calls below), so they cannot drift apart.
#
# Usage: examples/mtcblast/make-workflow.sh OUTDIR [FRAGMENTS [QUERYFILES]]
#   FRAGMENTS   database fragments, 1 to 600 (default 4)
#   QUERYFILES  query files, 1 to 12 (default 2)
# OUTDIR must not exist or be empty. Needs only bash and awk; running the
# workflow needs ncbi-blast+ (blastn, makeblastdb).
set -eu

usage() {
	echo "usage: $0 OUTDIR [FRAGMENTS [QUERYFILES]]" >&2
	exit 2
}
[ $# -ge 1 ] && [ $# -le 3 ] || usage
outdir=$1
nfrag=${2:-4}
nquery=${3:-2}
case $nfrag in '' | *[!0-9]*) usage ;; esac
case $nquery in '' | *[!0-9]*) usage ;; esac
# 600 database sequences and 12 queries: no fragment or query file empty.
if [ "$nfrag" -lt 1 ] || [ "$nfrag" -gt 600 ]; then
	echo "$0: FRAGMENTS must be 1 to 600 (the database has 600 sequences), got $nfrag" >&2
	exit 2
fi
if [ "$nquery" -lt 1 ] || [ "$nquery" -gt 12 ]; then
	echo "$0: QUERYFILES must be 1 to 12 (there are 12 queries), got $nquery" >&2
	exit 2
fi
if [ -e "$outdir" ] && [ -n "$(ls -A "$outdir")" ]; then
	echo "$0: $outdir exists and is not empty" >&2
	exit 1
fi
mkdir -p "$outdir"
cd "$outdir"

# --- The data: exactly examples/blast/run.sh's. ---------------------------
# A database of 600 random sequences of 200 to 1,200 bases, and 12 queries:
# 11 stretches of database sequences with 3 random substitutions each (the
# name says where from), and one random sequence that should hit nothing.
awk 'BEGIN { srand(42); for (i = 0; i < 600; i++) { printf(">db%04d\n", i);
	n = 200 + int(rand() * 1000); s = "";
	for (j = 0; j < n; j++) s = s substr("ACGT", 1 + int(rand() * 4), 1);
	for (j = 1; j <= n; j += 70) print substr(s, j, 70) } }' >db.fa
awk 'BEGIN { srand(7) } /^>/ { ids[n++] = substr($0, 2); next } { seq[n - 1] = seq[n - 1] $0 }
	END { for (q = 0; q < 11; q++) { k = int(rand() * n); s = seq[k];
		len = 80 + int(rand() * 100); if (len > length(s)) len = length(s);
		st = 1 + int(rand() * (length(s) - len + 1)); t = substr(s, st, len);
		for (m = 0; m < 3; m++) { p = 1 + int(rand() * len);
			t = substr(t, 1, p - 1) substr("ACGT", 1 + int(rand() * 4), 1) substr(t, p + 1) }
		printf(">q%02d_from_%s\n%s\n", q, ids[k], t) }
	s = ""; for (j = 0; j < 150; j++) s = s substr("ACGT", 1 + int(rand() * 4), 1);
	printf(">q11_random\n%s\n", s) }' db.fa >queries.fa
# The query files: query k goes to q(k mod QUERYFILES).fa (each query is
# two lines, its name and its sequence).
awk -v n="$nquery" '/^>/ { f = "q" (k++ % n) ".fa" } { print > f }' queries.fa

# E-values: blastn computes them from the search space, which it derives
# from the database's length and number of sequences; a fragment knows
# only its own. Every search here, fragment or whole, is given the whole
# database's: its bases times 150 (as examples/blast/run.sh), so the
# fragments' E-values are the whole search's and the same -evalue cut-off
# keeps the same hits.
dbsize=$(grep -v '^>' db.fa | tr -d '\n' | wc -c)
searchsp=$((dbsize * 150))
fmt="6 qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore"
search="-searchsp $searchsp -evalue 1e-5 -outfmt \"$fmt\""

# --- The scripts the tasks run (inputs of the workflow). -------------------
cat >fastasplitn <<'EOF'
#!/bin/sh
# fastasplitn N IN PREFIX: deals IN's FASTA records round-robin into N
# files PREFIX0.fa .. PREFIX<N-1>.fa (record k into PREFIX<k mod N>.fa),
# writing all N even when some get nothing.
set -eu
n=$1 in=$2 prefix=$3
case $prefix in */*) mkdir -p "${prefix%/*}" ;; esac
awk -v n="$n" -v p="$prefix" '
	BEGIN { for (i = 0; i < n; i++) printf("") > (p i ".fa") }
	/^>/ { f = p (k++ % n) ".fa" }
	f == "" { print "fastasplitn: " FILENAME " does not start with a FASTA header" > "/dev/stderr"; exit 1 }
	{ print > f }' "$in"
EOF
cat >merge <<'EOF'
#!/bin/sh
# merge OUT HITS...: the tabular hits of every fragment, in one file sorted
# as whole lines in the C locale (the reference is sorted the same way).
set -eu
[ $# -ge 2 ] || { echo "usage: merge OUT HITS..." >&2; exit 2; }
out=$1
shift
LC_ALL=C sort -o "$out" -- "$@"
EOF
chmod +x fastasplitn merge

# --- The tasks. -------------------------------------------------------------
# task PART TARGETS SOURCES COMMAND: PART is "workflow" (in the Makeflow)
# or "reference" (only in sequential.sh). TARGETS are every file COMMAND
# writes, SOURCES every file it reads, all relative to OUTDIR.
parts=() targets=() sources=() commands=()
task() {
	parts+=("$1")
	targets+=("$2")
	sources+=("$3")
	commands+=("$4")
}
# The files makeblastdb (ncbi-blast+ 2.12, BLAST database version 5)
# writes for a nucleotide database without -parse_seqids; blastn opens
# .ndb .nhr .nin .nsq of them, but the database is used as a whole.
exts="ndb nhr nin not nsq ntf nto"
dbfiles() { # dbfiles NAME: NAME.ndb NAME.nhr ...
	local e list=""
	for e in $exts; do list="$list $1.$e"; done
	echo "${list# }"
}

# Scatter: one task writes every fragment.
frags=""
for ((f = 0; f < nfrag; f++)); do frags="$frags frag/db_$f.fa"; done
task workflow "${frags# }" "db.fa fastasplitn" "sh fastasplitn $nfrag db.fa frag/db_"
# Pipeline: each fragment's BLAST database.
for ((f = 0; f < nfrag; f++)); do
	task workflow "$(dbfiles "blastdb/db_$f")" "frag/db_$f.fa" \
		"makeblastdb -in frag/db_$f.fa -dbtype nucl -out blastdb/db_$f"
done
# Each query file against each fragment's database (each database is read
# by every query file's search: a multicast).
for ((q = 0; q < nquery; q++)); do
	for ((f = 0; f < nfrag; f++)); do
		task workflow "hits/q${q}_db_$f.tsv" "q$q.fa $(dbfiles "blastdb/db_$f")" \
			"blastn -query q$q.fa -db blastdb/db_$f $search -out hits/q${q}_db_$f.tsv"
	done
done
# Gather: each query file's hits over all fragments, merged.
for ((q = 0; q < nquery; q++)); do
	hits=""
	for ((f = 0; f < nfrag; f++)); do hits="$hits hits/q${q}_db_$f.tsv"; done
	task workflow "merged/q$q.tsv" "merge$hits" "sh merge merged/q$q.tsv$hits"
done
# The reference: one database of the whole db.fa, one blastn a query file
# with the same search space, sorted by the same script.
task reference "$(dbfiles reference/db/whole)" "db.fa" \
	"makeblastdb -in db.fa -dbtype nucl -out reference/db/whole"
for ((q = 0; q < nquery; q++)); do
	task reference "reference/raw/q$q.tsv" "q$q.fa $(dbfiles reference/db/whole)" \
		"blastn -query q$q.fa -db reference/db/whole $search -out reference/raw/q$q.tsv"
	task reference "reference/q$q.tsv" "merge reference/raw/q$q.tsv" \
		"sh merge reference/q$q.tsv reference/raw/q$q.tsv"
done

# --- The Makeflow. ----------------------------------------------------------
{
	cat <<EOF
# mtcBLAST, the many-task BLAST of the AME/AMFS paper, on the synthetic data
# of examples/blast: written by examples/mtcblast/make-workflow.sh with
# $nfrag database fragments and $nquery query files.
#
#   fastasplitn  1 task: db.fa into $nfrag fragments (scatter)
#   makeblastdb  $nfrag tasks: a BLAST database of each fragment (pipeline)
#   blastn       $((nfrag * nquery)) tasks: each query file against each fragment's
#                database, whose files every query file reads (multicast)
#   merge        $nquery tasks: a query file's hits from all fragments (gather)
#
# Every search is given the whole database's search space
# (-searchsp $searchsp: its $dbsize bases times 150), so E-values equal
# those of one search over the whole database (sequential.sh's reference).
# Each rule lists every file its command reads and writes; the commands use
# relative paths only.
EOF
	for i in "${!parts[@]}"; do
		[ "${parts[$i]}" = workflow ] || continue
		printf '\n%s: %s\n\t%s\n' "${targets[$i]}" "${sources[$i]}" "${commands[$i]}"
	done
} >Makeflow

# --- sequential.sh ----------------------------------------------------------
squote() { # squote TEXT: TEXT in single quotes, for the shell
	printf "'%s'" "${1//\'/\'\\\'\'}"
}
{
	cat <<'EOF'
#!/bin/bash
# Runs this directory's mtcBLAST tasks one after another, in the Makeflow's
# order (a valid one), here; then the reference: one blastn a query file
# over a BLAST database of the whole db.fa, with the same search space,
# sorted the same way, into reference/. Written by
# examples/mtcblast/make-workflow.sh from the list the Makeflow was
# written from. Compare with: examples/mtcblast/check-hits.sh merged reference
#
# Usage: sequential.sh [--isolated] [all|workflow|reference]
#   workflow    the Makeflow's tasks only (merged/ and what leads to it)
#   reference   the reference only (reference/)
#   --isolated  run each task as `locus flow run` would: in a scratch
#               directory holding links to its listed sources only, its
#               listed targets moved back here after it; fails when a task
#               misses a target or leaves a file it does not list
# Each task's output goes to sequential.log.
set -u
isolated=0
want=all
for a in "$@"; do
	case $a in
	--isolated) isolated=1 ;;
	all | workflow | reference) want=$a ;;
	*) echo "usage: $0 [--isolated] [all|workflow|reference]" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here" || exit 1
: >sequential.log
if [ $isolated = 1 ]; then
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/mtcblast-tasks.XXXXXX") || exit 1
	trap 'rm -rf "$scratch"' EXIT
fi
ntasks=0
start=$(date +%s.%N)

die() {
	echo "sequential.sh: $*" >&2
	echo "  (last lines of $here/sequential.log:)" >&2
	tail -5 sequential.log | sed 's/^/  /' >&2
	exit 1
}

# task PART TARGETS SOURCES COMMAND: runs COMMAND with /bin/sh, as Makeflow.
task() {
	local part=$1 targets=$2 sources=$3 cmd=$4 s t d f known
	[ "$want" = all ] || [ "$want" = "$part" ] || return 0
	ntasks=$((ntasks + 1))
	for s in $sources; do
		[ -f "$s" ] || die "task $ntasks ($cmd): its source $s does not exist"
	done
	echo "+ $cmd" >>sequential.log
	if [ $isolated = 0 ]; then
		for t in $targets; do
			mkdir -p "$(dirname "$t")" && rm -f "$t"
		done
		sh -c "$cmd" >>sequential.log 2>&1 || die "task $ntasks failed: $cmd"
		for t in $targets; do
			[ -f "$t" ] || die "task $ntasks ($cmd) did not write its target $t"
		done
		return 0
	fi
	d=$(mktemp -d "$scratch/task.XXXXXX") || exit 1
	for s in $sources; do
		mkdir -p "$d/$(dirname "$s")" && ln -s "$here/$s" "$d/$s" || exit 1
	done
	for t in $targets; do mkdir -p "$d/$(dirname "$t")" || exit 1; done
	(cd "$d" && sh -c "$cmd") >>sequential.log 2>&1 || die "task $ntasks failed: $cmd"
	for t in $targets; do
		[ -f "$d/$t" ] && [ ! -L "$d/$t" ] ||
			die "task $ntasks ($cmd) did not write its target $t"
		mkdir -p "$(dirname "$t")" && mv -f "$d/$t" "$t" || exit 1
	done
	while IFS= read -r f; do
		f=${f#./}
		known=0
		for s in $sources; do [ "$f" = "$s" ] && known=1; done
		[ $known = 1 ] || die "task $ntasks ($cmd) wrote $f, not among its targets"
	done < <(cd "$d" && find . ! -type d)
	rm -rf "$d"
}

EOF
	last=""
	for i in "${!parts[@]}"; do
		if [ "${parts[$i]}" != "$last" ]; then
			printf '\n# %s\n' "${parts[$i]}"
			last=${parts[$i]}
		fi
		printf 'task %s %s \\\n\t%s \\\n\t%s\n' "${parts[$i]}" "$(squote "${targets[$i]}")" \
			"$(squote "${sources[$i]}")" "$(squote "${commands[$i]}")"
	done
	cat <<'EOF'

end=$(date +%s.%N)
mode=""
[ $isolated = 1 ] && mode=", each in its own directory"
echo "sequential.sh: $ntasks tasks ($want) in $(awk -v a="$start" -v b="$end" 'BEGIN { printf("%.2f", b - a) }') s$mode"
EOF
} >sequential.sh
chmod +x sequential.sh

ntask=0
for p in "${parts[@]}"; do [ "$p" = workflow ] && ntask=$((ntask + 1)); done
echo "$outdir: Makeflow of $ntask tasks ($nfrag fragments, $nquery query files; -searchsp $searchsp), sequential.sh"
