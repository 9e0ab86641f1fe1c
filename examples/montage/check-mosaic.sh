#!/bin/bash
# Says whether two FITS mosaics (e.g. the Montage example's mosaic.fits
# from two runs) are equal.
#
# Usage: examples/montage/check-mosaic.sh A.fits B.fits
#
# Exit 0: byte for byte equal.
# Exit 3: the data are byte for byte equal and the primary headers differ
#         only in cards that legitimately vary from run to run: DATE and
#         DATE-* (when the file was written), FILENAME, ORIGIN, CREATOR,
#         HISTORY, or a string value naming a path (holding a "/"). Each
#         differing card is printed, as it is in A and in B.
# Exit 1: they differ otherwise (every differing header card is printed,
#         and whether the data differ, with the first differing byte).
# Exit 2: usage, a file missing, or not a FITS file.
#
# The header is the primary HDU's (80-character cards up to END, padded to
# 2,880-byte blocks); "data" is everything after it, extensions included.
set -u
export LC_ALL=C

if [ $# -ne 2 ]; then
	echo "usage: check-mosaic.sh A.fits B.fits" >&2
	exit 2
fi
a=$1
b=$2
for f in "$a" "$b"; do
	if [ ! -f "$f" ]; then
		echo "check-mosaic.sh: $f: no such file" >&2
		exit 2
	fi
	if [ "$(head -c 6 "$f")" != "SIMPLE" ]; then
		echo "check-mosaic.sh: $f: not a FITS file (it does not start with SIMPLE)" >&2
		exit 2
	fi
done

if cmp -s "$a" "$b"; then
	echo "equal: $a and $b are byte for byte identical ($(wc -c <"$a") bytes)"
	exit 0
fi

# cards FILE: the primary header's cards, one a line, up to END (the cards
# are ASCII, so folding the first blocks at 80 characters gives them).
cards() {
	head -c 288000 "$1" | fold -w 80 | awk '{ print } /^END *$/ { exit }'
}
ca=$(cards "$a")
cb=$(cards "$b")
for f in "$a" "$b"; do
	if ! cards "$f" | tail -n 1 | grep -q '^END'; then
		echo "check-mosaic.sh: $f: no END card in its first 100 header blocks" >&2
		exit 2
	fi
done
na=$(printf '%s\n' "$ca" | wc -l)
nb=$(printf '%s\n' "$cb" | wc -l)
ha=$((((na * 80) + 2879) / 2880 * 2880))
hb=$((((nb * 80) + 2879) / 2880 * 2880))

# The header cards that differ, paired by keyword and occurrence (a second
# HISTORY card is compared with the other file's second HISTORY card).
diffs=$(awk -v A="$a" -v B="$b" '
function key(card,   k) {
	k = substr(card, 1, 8)
	sub(/ +$/, "", k)
	return k
}
FNR == 1 { file++ }
{
	k = key($0)
	n = ++seen[file, k]
	id = k SUBSEP n
	if (file == 1) { ca[id] = $0; if (!(id in order)) { order[id] = ++norder; ids[norder] = id } }
	else { cb[id] = $0; if (!(id in order)) { order[id] = ++norder; ids[norder] = id } }
}
END {
	for (i = 1; i <= norder; i++) {
		id = ids[i]
		if ((id in ca) && (id in cb) && ca[id] == cb[id])
			continue
		split(id, p, SUBSEP)
		k = p[1]
		legit = (k ~ /^DATE/ || k == "FILENAME" || k == "ORIGIN" || k == "CREATOR" || k == "HISTORY")
		if (!legit && (id in ca) && (id in cb)) {
			va = ca[id]; vb = cb[id]
			if (substr(va, 9, 2) == "= " && va ~ /= *\x27[^\x27]*\/[^\x27]*\x27/ &&
			    vb ~ /= *\x27[^\x27]*\/[^\x27]*\x27/)
				legit = 2
		}
		why = legit == 2 ? "a path" : legit ? "varies by run" : "unexpected"
		printf("%s\t%s\t%s\t%s\n", legit ? "legit" : "bad", k, why,
		       ((id in ca) ? ca[id] : "(absent)") "\t" ((id in cb) ? cb[id] : "(absent)"))
	}
}' <(printf '%s\n' "$ca") <(printf '%s\n' "$cb"))

data_equal=1
why_data=""
da=$(($(wc -c <"$a") - ha))
db=$(($(wc -c <"$b") - hb))
if [ "$da" -ne "$db" ]; then
	data_equal=0
	why_data="$da bytes after the header in $a, $db in $b"
elif ! first=$(cmp <(tail -c +$((ha + 1)) "$a") <(tail -c +$((hb + 1)) "$b") 2>&1); then
	data_equal=0
	# cmp says "... differ: char N, line L" (or byte N): N counts from 1.
	n=$(printf '%s\n' "$first" | sed -n 's/.*differ: [a-z]* \([0-9]*\).*/\1/p')
	why_data="first at byte ${n:-?} of the data (offset $((ha + ${n:-1} - 1)) in $a)"
fi

if [ -n "$diffs" ]; then
	echo "header cards that differ between $a and $b:"
	printf '%s\n' "$diffs" | while IFS=$'\t' read -r _ k why ca1 cb1; do
		printf '  %-8s (%s)\n    A: %s\n    B: %s\n' "$k" "$why" "${ca1%"${ca1##*[! ]}"}" "${cb1%"${cb1##*[! ]}"}"
	done
fi
if [ $data_equal -eq 0 ]; then
	echo "different: the data differ: $why_data"
	exit 1
fi
if printf '%s\n' "$diffs" | grep -q '^bad'; then
	echo "different: the data are byte for byte equal, but header cards other than dates and paths differ"
	exit 1
fi
echo "equal but for the header: the data are byte for byte equal; only cards that vary by run (dates, paths) differ"
exit 3
