#!/bin/bash
# The mtcBLAST example (examples/mtcblast): its generated Makeflow parses
# with `locus flow show`, which finds its four stages, the scatter of the
# database into fragments and the per-query gathers of the hits; its tasks,
# run one after another (once in one directory, once each in a directory
# holding only its listed sources, as `locus flow run` runs them), merge to
# the hits of one blastn over the whole database, and find what they should.
# Usage: example_mtcblast.sh LOCUS_BINARY. Exit 77 without ncbi-blast+.
set -u
[ $# = 1 ] || { echo "usage: $0 LOCUS_BINARY" >&2; exit 2; }
if ! command -v blastn >/dev/null || ! command -v makeblastdb >/dev/null; then
	echo "SKIP: blastn/makeblastdb not found (apt-get install ncbi-blast+)"
	exit 77
fi
locus=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
example=$(cd "$(dirname "${BASH_SOURCE[0]}")/../examples/mtcblast" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-mtcblast.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

failed=0
pass() { echo "PASS $1"; }
fail() {
	echo "FAIL $1" >&2
	[ -z "${2:-}" ] || printf '%s\n' "$2" | head -12 | sed 's/^/  /' >&2
	failed=$((failed + 1))
}
# has NAME PATTERN TEXT: TEXT has a line matching PATTERN (grep -E).
has() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then pass "$1"; else fail "$1: no /$2/" "$3"; fi
}
hasnt() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then fail "$1: /$2/" "$3"; else pass "$1"; fi
}

# The default workflow: 4 fragments, 2 query files.
w=$tmp/w4
if out=$("$example/make-workflow.sh" "$w" 2>&1); then pass "make-workflow (4 fragments, 2 query files)"; else
	fail "make-workflow" "$out"
	exit 1
fi
for f in Makeflow sequential.sh db.fa queries.fa q0.fa q1.fa fastasplitn merge; do
	[ -s "$w/$f" ] || fail "make-workflow wrote no $f"
done
# The data are examples/blast's: 600 database sequences, 12 queries.
has data-db '^600$' "$(grep -c '^>' "$w/db.fa")"
has data-queries '^12$' "$(cat "$w"/q0.fa "$w"/q1.fa | grep -c '^>')"
# Commands: relative paths only.
hasnt relative-paths '^	.*( /|\.\.)' "$(cat "$w/Makeflow")"

# show: the stages, the scatter and the gathers (a task reading 4 produced
# files gathers at --gather 4; blastn, reading a database of 7 files, does
# too: the threshold counts files, not their producers).
if out=$("$locus" flow show "$w/Makeflow" --gather 4 --scatter 4 2>&1); then
	pass "flow show parses the Makeflow"
	has show-head 'Makeflow: 15 tasks in 4 stages' "$out"
	has show-split '^fastasplitn +1 .*scatter \(1 scattering\)' "$out"
	has show-makeblastdb '^makeblastdb +4 ' "$out"
	has show-blastn '^blastn +8 ' "$out"
	has show-merge '^merge +2 .*gather \(2 gathering' "$out"
	has show-cp 'critical path: .* over 4 tasks' "$out"
else
	fail "flow show" "$out"
fi
if out=$("$locus" flow show "$w/Makeflow" --gather 4 --scatter 4 --reduce merge 2>&1); then
	has show-reduce '^merge +2 .*reduce' "$out"
else
	fail "flow show --reduce merge" "$out"
fi

# The tasks one after another, then the reference; merged = reference.
start=$(date +%s)
if out=$("$w/sequential.sh" 2>&1); then pass "sequential.sh: $out"; else fail "sequential.sh" "$out"; fi
if out=$("$example/check-hits.sh" "$w/merged" "$w/reference" 2>&1); then
	pass "merged hits equal the whole-database reference ($(printf '%s\n' "$out" | tail -1 | sed 's/^ok *//'))"
else
	fail "check-hits" "$out"
fi
# What they should find: each of the 11 stretches its source sequence, the
# random query nothing; the E-values are the whole database's.
found=$(cat "$w"/merged/q*.tsv | awk -F '\t' 'substr($1, 10) == $2 { print $1 }' | sort -u | wc -l)
has hits-sources '^11$' "$found"
hasnt hits-random '^q11_random' "$(cat "$w"/merged/q*.tsv)"
# After the run, show sizes the files the tasks wrote.
out=$("$locus" flow show "$w/Makeflow" 2>&1)
hasnt show-sizes 'intermediate \(0\.0 MB\)' "$out"

# 8 fragments, each task in its own directory with only its listed
# sources: the rules list every file their commands read and write.
w=$tmp/w8
if out=$("$example/make-workflow.sh" "$w" 8 3 2>&1); then pass "make-workflow (8 fragments, 3 query files)"; else
	fail "make-workflow 8 3" "$out"
	exit 1
fi
if out=$("$locus" flow show "$w/Makeflow" --gather 8 --multicast 3 2>&1); then
	has show8-head 'Makeflow: 36 tasks in 4 stages' "$out"
	has show8-split '^fastasplitn +1 .*scatter' "$out"
	has show8-merge '^merge +3 .*gather \(3 gathering, up to 9 inputs' "$out"
	has show8-multicast '^blastn +24 .*multicast' "$out"
	hasnt show8-blastn '^blastn .*gather' "$out"
else
	fail "flow show (8 fragments)" "$out"
fi
if out=$("$w/sequential.sh" --isolated 2>&1); then pass "sequential.sh --isolated: $out"; else
	fail "sequential.sh --isolated" "$out"
fi
if out=$("$example/check-hits.sh" "$w" 2>&1); then
	pass "isolated merged hits equal the reference ($(printf '%s\n' "$out" | tail -1 | sed 's/^ok *//'))"
else
	fail "check-hits (8 fragments)" "$out"
fi
# The same hits whatever the split.
if cmp -s <(cat "$tmp"/w4/merged/q*.tsv | LC_ALL=C sort) <(cat "$w"/merged/q*.tsv | LC_ALL=C sort); then
	pass "4 and 8 fragments find the same hits"
else
	fail "4 and 8 fragments find different hits"
fi

# The workflow for real (locus flow run, when locus has MPI): 8 fragments
# on 2 emulated nodes; the merged hits equal the sequential reference.
if "$locus" flow run --help >/dev/null 2>&1; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	. "$(dirname "${BASH_SOURCE[0]}")/mpi/sanitizer-env.sh"
	for how in cogather aware; do
		r=$tmp/real-$how
		"$example/make-workflow.sh" "$r" 8 3 >/dev/null 2>&1
		if out=$(timeout -s INT -k 10 300 "$locus" flow run "$r/Makeflow" -np 5 --emulate-nodes 2 \
			--config "$how" --gather 8 -q --local "$tmp" 2>&1) &&
			out2=$("$example/check-hits.sh" "$r/merged" "$w/reference" 2>&1); then
			pass "flow run --config $how: merged hits equal the reference"
		else
			fail "flow run --config $how" "$(printf '%s\n%s\n' "$out" "${out2:-}" | tail -n 12)"
		fi
	done
fi

if [ $failed -gt 0 ]; then
	echo "FAIL: $failed checks failed ($(($(date +%s) - start)) s)" >&2
	exit 1
fi
echo "PASS: all mtcBLAST checks ($(($(date +%s) - start)) s)"
