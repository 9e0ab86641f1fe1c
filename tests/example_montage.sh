#!/bin/bash
# The real Montage example (examples/montage): generates a 3x3-tile
# synthetic sky and its Makeflow, checks that `locus flow show` reads it
# and finds Montage's stages and patterns, that the Makeflow and
# sequential.sh hold the same commands, that every rule runs with nothing
# but its own sources beside it (as the MPI engine runs a task, in a
# private directory), and that two sequential runs in different
# directories make one and the same valid mosaic.
#
# Usage: tests/example_montage.sh LOCUS_BINARY
# Exit 77 (skipped) when Montage (mProjectPP or mProject, mMakeImg) is
# missing (Debian: apt-get install montage).
set -u
if [ $# -ne 1 ]; then
	echo "usage: example_montage.sh LOCUS_BINARY" >&2
	exit 2
fi
locus=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
if ! command -v mMakeImg >/dev/null ||
	{ ! command -v mProjectPP >/dev/null && ! command -v mProject >/dev/null; }; then
	echo "SKIP example_montage: Montage not found (apt-get install montage)"
	exit 77
fi
example=$(cd "$(dirname "${BASH_SOURCE[0]}")/../examples/montage" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-montage.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

passed=0
failed=0
pass() {
	echo "PASS $1"
	passed=$((passed + 1))
}
fail() {
	echo "FAIL $1"
	[ -z "${2:-}" ] || printf '%s\n' "$2" | head -n 12 | sed 's/^/  /'
	failed=$((failed + 1))
}
# check NAME PATTERN TEXT: TEXT has a line matching PATTERN (grep -E).
check() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then pass "$1"; else fail "$1: no line /$2/" "$3"; fi
}
finish() {
	echo "example_montage: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

# 1. The workflow and its inputs.
if out=$("$example/make-workflow.sh" wf 2>&1) && [ -f wf/Makeflow ] && [ -x wf/sequential.sh ]; then
	pass "make-workflow.sh: $(printf '%s\n' "$out" | tail -n 1 | sed 's/^make-workflow.sh: //')"
else
	fail "make-workflow.sh wf" "$out"
	finish
fi

# 2. locus flow show: 9 tiles, 20 overlapping pairs; the gathers (the fit
# table, the mosaic; the image tables at a threshold of 8) and the
# multicasts (the projected images read by up to 8 mDiff tasks; the
# corrections and image tables read by every mBackground task).
if out=$("$locus" flow show wf/Makeflow 2>&1); then
	pass "flow show wf/Makeflow"
	check "show: tasks and stages" '^workflow wf/Makeflow: 64 tasks in 9 stages' "$out"
	check "show: mProjectPP" '^mProjectPP +9 ' "$out"
	check "show: mImgtbl" '^mImgtbl +2 ' "$out"
	check "show: mOverlaps" '^mOverlaps +1 ' "$out"
	check "show: mDiff multicast" '^mDiff +20 .*multicast' "$out"
	check "show: mFitplane" '^mFitplane +20 .*pipeline' "$out"
	check "show: concat gather" '^concat-fits\.sh +1 .*gather \(1 gathering, up to 22 inputs' "$out"
	check "show: mBgModel" '^mBgModel +1 .*pipeline' "$out"
	check "show: mBackground multicast" '^mBackground +9 .*multicast \(2 files, up to 9 readers' "$out"
	check "show: mAdd gather" '^mAdd +1 .*gather \(1 gathering, up to 20 inputs' "$out"
	check "show: critical path" '^critical path: .* over 8 tasks' "$out"
else
	fail "flow show wf/Makeflow" "$out"
fi
if out=$("$locus" flow show wf/Makeflow --gather 8 2>&1); then
	check "show --gather 8: mImgtbl gathers" '^mImgtbl +2 .*gather \(2 gathering' "$out"
else
	fail "flow show wf/Makeflow --gather 8" "$out"
fi

# 3. One list of commands: the Makeflow's, in order, are sequential.sh's.
mf=$(grep "$(printf '^\t')" wf/Makeflow | sed 's/^\t//')
seq=$(sed -n "s/^step '\\(.*\\)'\$/\\1/p" wf/sequential.sh)
if [ -n "$mf" ] && [ "$mf" = "$seq" ]; then
	pass "Makeflow and sequential.sh: the same $(printf '%s\n' "$mf" | wc -l) commands"
else
	fail "Makeflow and sequential.sh hold different commands" "$(diff <(printf '%s\n' "$mf") <(printf '%s\n' "$seq"))"
fi

# 4. Every rule alone, as the engine runs it: in a directory of its own
# holding its sources only (symbolic links to where the rules before it
# left their targets) and a stray file, rule after rule in the Makeflow's
# order; each must write all its targets and nothing else. (A reader for
# this Makeflow only: no variables, one-line rules.)
isolated() {
	local store=$tmp/iso/store n=0 tg src cmd box f extra
	mkdir -p "$store"
	awk '/^#/ || /^$/ { next }
		/^\t/ { sub(/^\t/, ""); print tg "\t" src "\t" $0; next }
		{ i = index($0, ":"); tg = substr($0, 1, i - 1); src = substr($0, i + 2) }' \
		wf/Makeflow >"$tmp/iso/rules"
	while IFS=$'\t' read -r tg src cmd; do
		n=$((n + 1))
		box=$tmp/iso/task$n
		mkdir -p "$box"
		for f in $src; do
			case $f in */*) mkdir -p "$box/${f%/*}" ;; esac
			if [ -e "$store/$f" ]; then
				ln -s "$store/$f" "$box/$f"
			elif [ -e "wf/$f" ]; then
				ln -s "$tmp/wf/$f" "$box/$f"
			else
				echo "rule $n ($cmd): source $f is neither made by an earlier rule nor an input"
				return 1
			fi
		done
		for f in $tg; do case $f in */*) mkdir -p "$box/${f%/*}" ;; esac; done
		echo stray >"$box/.locus-stderr"
		if ! (cd "$box" && /bin/sh -c "$cmd") >"$tmp/iso/log" 2>&1; then
			echo "rule $n failed: $cmd"
			cat "$tmp/iso/log"
			return 1
		fi
		for f in $tg; do
			if [ ! -f "$box/$f" ] || [ -L "$box/$f" ]; then
				echo "rule $n ($cmd) did not write $f"
				return 1
			fi
			case $f in */*) mkdir -p "$store/${f%/*}" ;; esac
			mv "$box/$f" "$store/$f"
		done
		extra=$(cd "$box" && find . -type f ! -name .locus-stderr)
		if [ -n "$extra" ]; then
			echo "rule $n ($cmd) wrote files it does not list: $extra"
			return 1
		fi
	done <"$tmp/iso/rules"
	echo "$n rules"
}
mkdir -p iso
if out=$(isolated 2>&1); then
	pass "each rule alone with its sources: $out, all targets written, nothing else"
else
	fail "a rule run alone with its sources" "$out"
fi

# 5. The reference run: a valid FITS mosaic with data.
if out=$(wf/sequential.sh run1 2>&1) && [ -f run1/mosaic.fits ]; then
	pass "sequential.sh run1"
else
	fail "sequential.sh run1" "$(printf '%s\n' "$out" | tail -n 12)"
	finish
fi
if [ "$(head -c 6 run1/mosaic.fits)" = SIMPLE ]; then
	pass "mosaic.fits starts with SIMPLE"
else
	fail "mosaic.fits is not a FITS file (no SIMPLE)"
fi
size=$(wc -c <run1/mosaic.fits)
nonzero=$(tail -c +2881 run1/mosaic.fits | tr -d '\000' | head -c 4096 | wc -c)
if [ "$size" -gt 2880 ] && [ $((size % 2880)) -eq 0 ] && [ "$nonzero" -gt 0 ]; then
	pass "mosaic.fits: $size bytes (2,880-byte blocks), nonzero data"
else
	fail "mosaic.fits: $size bytes, $nonzero nonzero data bytes seen"
fi
if command -v mExamine >/dev/null; then
	out=$(mExamine run1/mosaic.fits 2>&1)
	check "mExamine: the mosaic is 554 x 553, its pixels mostly set" \
		'stat="OK".* naxis1=554, naxis2=553,.* npixel=[0-9]+, nnull=[0-9]{1,5},' "$out"
fi
# The background matching did its work: the corrected tiles 0 and 1 agree
# in their overlap (the fitted offset is near 0), where the projected ones
# differ by several units.
if command -v mDiff >/dev/null && command -v mFitplane >/dev/null; then
	mDiff run1/corr/c_00.fits run1/corr/c_01.fits d.fits run1/region.hdr >/dev/null 2>&1
	c=$(mFitplane d.fits 2>&1 | sed -n 's/.* c=\([^,]*\),.*/\1/p')
	if [ -n "$c" ] && awk -v c="$c" 'BEGIN { exit !(c < 1 && c > -1) }'; then
		pass "background matched: corrected tiles 00 and 01 differ by $c in their overlap"
	else
		fail "background not matched: corrected tiles 00 and 01 differ by '$c'"
	fi
fi

# 6. A second run, elsewhere and from another directory: the same mosaic.
mkdir -p elsewhere/deeper
if out=$(cd elsewhere && ../wf/sequential.sh "$tmp/elsewhere/deeper/run2" 2>&1); then
	pass "sequential.sh elsewhere/deeper/run2"
else
	fail "sequential.sh elsewhere/deeper/run2" "$(printf '%s\n' "$out" | tail -n 12)"
	finish
fi
if out=$("$example/check-mosaic.sh" run1/mosaic.fits elsewhere/deeper/run2/mosaic.fits 2>&1); then
	pass "check-mosaic.sh: $out"
else
	fail "check-mosaic.sh run1 run2" "$out"
fi
if out=$("$example/check-mosaic.sh" run1/mosaic.fits iso/store/mosaic.fits 2>&1); then
	pass "check-mosaic.sh: the rules run alone made the same mosaic"
else
	fail "check-mosaic.sh run1 iso" "$out"
fi
# 7. The workflow for real (locus flow run, when locus has MPI): on 2
# emulated nodes under several configurations, the mosaic equals the
# sequential one, and the shared directory gets only the final outputs
# (staging aside).
if "$locus" flow run --help >/dev/null 2>&1 && [ -z "${LOCUS_NO_MPI:-}" ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	. "$(dirname "${BASH_SOURCE[0]}")/mpi/sanitizer-env.sh"
	for how in cache cogather staging; do
		rm -rf "real-$how" && cp -r wf "real-$how"
		if out=$(timeout -s INT -k 10 300 "$locus" flow run "real-$how/Makeflow" -np 5 \
			--emulate-nodes 2 --config "$how" -q --local "$tmp" 2>&1) &&
			out2=$("$example/check-mosaic.sh" run1/mosaic.fits "real-$how/mosaic.fits" 2>&1); then
			pass "flow run --config $how: $out2"
		else
			fail "flow run --config $how" "$(printf '%s\n%s\n' "$out" "${out2:-}" | tail -n 12)"
		fi
		# Staging writes every file back to the shared directory (as
		# Makeflow leaves them in its own); the others only the finals.
		if [ "$how" != staging ] && { [ -e "real-$how/proj" ] || [ -e "real-$how/diffs.tbl" ]; }; then
			fail "flow run --config $how left intermediate files in the shared directory" \
				"$(ls "real-$how")"
		fi
	done
fi
finish
