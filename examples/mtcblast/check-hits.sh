#!/bin/bash
# Checks that mtcBLAST's merged hits equal the reference's: for every query
# file, MERGED/qN.tsv (the gather of its fragment searches) must be byte for
# byte REFERENCE/qN.tsv (one blastn over the whole database, sorted by the
# same `merge` script). Both sides list the same 12 columns:
#   qseqid sseqid pident length mismatch gapopen qstart qend sstart send
#   evalue bitscore
# No field may legitimately differ: every search is given the same search
# space (-searchsp), so even the E-values are the whole search's, and the
# sseqids are the FASTA names (no -parse_seqids, no ordinal ids). When the
# files differ only in the E-values, the message says so: a search was run
# without the common -searchsp.
#
# Usage: examples/mtcblast/check-hits.sh MERGED_DIR REFERENCE_DIR
#        examples/mtcblast/check-hits.sh OUTDIR   (OUTDIR/merged, OUTDIR/reference)
# Exit 0 when every file is equal and there is at least one hit, else 1.
set -u
case $# in
1) merged=$1/merged reference=$1/reference ;;
2) merged=$1 reference=$2 ;;
*)
	echo "usage: $0 MERGED_DIR REFERENCE_DIR | $0 OUTDIR" >&2
	exit 2
	;;
esac
for d in "$merged" "$reference"; do
	[ -d "$d" ] || { echo "FAIL: no directory $d" >&2; exit 1; }
done

status=0
files=0
hits=0
# The query files are those the reference has; the merged side must have
# the same ones and no others.
for r in "$reference"/q*.tsv; do
	[ -e "$r" ] || break
	name=$(basename "$r")
	m=$merged/$name
	files=$((files + 1))
	if [ ! -f "$m" ]; then
		echo "FAIL $name: missing from $merged" >&2
		status=1
		continue
	fi
	if cmp -s "$m" "$r"; then
		n=$(wc -l <"$r")
		hits=$((hits + n))
		echo "ok   $name: $n hits, equal"
	elif cmp -s <(cut -f1-10,12 "$m") <(cut -f1-10,12 "$r"); then
		echo "FAIL $name: the same hits, but their E-values differ (was every search given the same -searchsp?)" >&2
		diff "$r" "$m" | head -6 >&2
		status=1
	else
		echo "FAIL $name: merged hits ($(wc -l <"$m")) differ from the reference's ($(wc -l <"$r")):" >&2
		diff "$r" "$m" | head -10 >&2
		status=1
	fi
done
for m in "$merged"/q*.tsv; do
	[ -e "$m" ] || break
	[ -e "$reference/$(basename "$m")" ] || {
		echo "FAIL $(basename "$m"): in $merged but not in $reference" >&2
		status=1
	}
done
if [ $files = 0 ]; then
	echo "FAIL: no q*.tsv in $reference" >&2
	exit 1
fi
if [ $status = 0 ] && [ $hits = 0 ]; then
	echo "FAIL: no hits at all: nothing was compared" >&2
	exit 1
fi
[ $status = 0 ] && echo "ok   $files query files, $hits hits: merged = reference"
exit $status
