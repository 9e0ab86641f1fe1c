#!/bin/bash
# A parallel BLAST in the style of mpiBLAST, on Locus: a nucleotide database
# is split into fragments placed with replicas over emulated nodes; each
# fragment is one chunk, and `locus run` makes a BLAST database of it
# (makeblastdb) and searches the query set against it (blastn), on a rank
# that holds it when the policy can. E-values depend on the search space:
# blastn derives it from the database's length and its number of
# sequences, which a fragment does not know (mpiBLAST patched NCBI's
# library to pass both), so every search, the sequential one too, is given
# the same search space (-searchsp: the whole database's bases times 150).
# The fragments' hits, merged, must equal those of one sequential blastn
# over the whole database.
#
# Usage: examples/blast/run.sh LOCUS [WORKDIR]   (Debian: ncbi-blast+)
# Exit 77 when blastn or makeblastdb is missing.
set -u
locus=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=${2:-}
if ! command -v blastn >/dev/null || ! command -v makeblastdb >/dev/null; then
	echo "blastn/makeblastdb not found (apt-get install ncbi-blast+): skipped"
	exit 77
fi
if [ -z "$work" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/locus-blast.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
cd "$work" || exit 1
. "$(dirname "${BASH_SOURCE[0]}")/../../tests/mpi/sanitizer-env.sh"

# A database of 600 random sequences of 200 to 1,200 bases, and 12 queries:
# stretches of database sequences with a few substitutions, plus one
# random sequence that should hit nothing.
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
dbsize=$(grep -v '^>' db.fa | tr -d '\n' | wc -c)
searchsp=$((dbsize * 150))
fmt="6 qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore"

# The reference: one blastn over the whole database.
makeblastdb -in db.fa -dbtype nucl -out whole/db >/dev/null || exit 1
blastn -query queries.fa -db whole/db -searchsp "$searchsp" -outfmt "$fmt" -evalue 1e-5 |
	sort >sequential.hits
echo "sequential blastn: $(wc -l <sequential.hits) hits for 12 queries over $dbsize bases"
# Each of the 11 stretches must find its source at least.
[ "$(cut -f1 sequential.hits | sort -u | wc -l)" -ge 11 ] ||
	{ echo "FAIL: the sequential search found too little to compare" >&2; exit 1; }

# The fragments: 16 KiB chunks cut between records, 2 replicas on 6 nodes.
"$locus" place --input db.fa --chunk-size 16K --split fasta --nodes 6 --racks 2 --replicas 2 \
	--seed 3 --store store --dataset db.fa >/dev/null || exit 1

status=0
for p in scal dlmpi fifo; do
	# Each fragment: its own BLAST database in a scratch directory, then
	# the search; the hits go to results/<policy>/db.fa/chunk-N.out.
	"$locus" run -np 7 --emulate-nodes 6 --store store --policy $p -q --results "results-$p" \
		--out "$p.json" -- sh -c '
		set -e
		d=$(mktemp -d "${TMPDIR:-/tmp}/frag.XXXXXX")
		trap "rm -rf \"$d\"" EXIT
		makeblastdb -in "$1" -dbtype nucl -out "$d/db" >/dev/null
		blastn -query "$2" -db "$d/db" -searchsp "$3" -outfmt "$4" -evalue 1e-5' \
		sh {} "$work/queries.fa" "$searchsp" "$fmt" >"$p.txt" 2>&1 || {
		echo "FAIL $p: locus run failed" >&2
		cat "$p.txt" >&2
		status=1
		continue
	}
	cat "results-$p"/db.fa/chunk-*.out | sort >"$p.hits"
	local_reads=$(grep 'local reads' "$p.txt" | awk '{print $4}')
	moved=$(grep 'bytes moved' "$p.txt" | awk '{print $3}')
	if cmp -s sequential.hits "$p.hits"; then
		echo "ok   $p: $(wc -l <"$p.hits") merged hits equal the sequential ones; local reads $local_reads, $moved bytes moved"
	else
		echo "FAIL $p: merged hits differ from the sequential ones" >&2
		diff sequential.hits "$p.hits" | head -20 >&2
		status=1
	fi
done
exit $status
