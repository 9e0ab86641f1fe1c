#!/bin/bash
# End-to-end tests of `locus plan`: the table, --compare, JSON and SVG
# outputs, workers files, determinism, the search, and clear errors.
# Usage: cli_plan.sh LOCUS_BINARY TESTS_DIR.
set -u
locus=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tests=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-plan.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
. "$tests/lib/cli.sh"

field() { # FILE KEY: the first value of KEY in a JSON document
	grep -o "\"$2\": [^,}]*" "$1" | head -n 1 | sed 's/^[^:]*: *//; s/"//g'
}
t_real() { # FILE: the plan's T_real (not a candidate's)
	grep -o '"t_real": [^,]*, "t_bound"' "$1" | sed 's/^[^:]*: *//; s/,.*//'
}
# less A B: A < B as numbers
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }

run help 0 "$locus" plan --help && expect help 'Grouping Threshold' "$out"
expect help-example 'locus plan --workers 100' "$out"

# The paper's Sect. 5 setting: PTUMR beats UMR, and the simulated
# execution of each plan lands on its T_real or below.
run compare 0 "$locus" plan --workers 100 --het 0.433 --b0 1000 --compare umr,ptumr-nogt,ptumr &&
	expect compare-umr '^umr +one each +100 ' "$out" &&
	expect compare-gt '^ptumr +lambda 10 ' "$out"
umr=$(printf '%s\n' "$out" | awk '$1 == "umr" { print $NF }')
gt=$(printf '%s\n' "$out" | awk '$1 == "ptumr" { print $NF }')
less "$gt" "$umr" && ok || fail "ptumr ($gt) not below umr ($umr)"
printf '%s\n' "$out" | awk 'NR > 3 && $8 > $7 * (1 + 1e-9) { bad = 1 } END { exit bad }' && ok ||
	fail "a simulated makespan exceeds its T_real"

# Alike workers: the simulated makespan is T_real.
run json 0 "$locus" plan --workers 40 --mean-b 120 --mean-delta 0.5 --b0 600 --json plan.json \
	--svg plan.svg && expect json-table 'simulated / T_real 1.0000' "$out"
[ "$(field plan.json format)" = locus-plan ] && ok || fail "json: no format"
tr=$(t_real plan.json)
ms=$(field plan.json makespan)
awk -v a="$tr" -v b="$ms" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 1e-6 * a) }' &&
	ok || fail "json: makespan $ms is not T_real $tr"
head -c 4 plan.svg | grep -q '<svg' && tail -n 1 plan.svg | grep -q '</svg>' && ok ||
	fail "svg: not a whole SVG document"

# --json - writes JSON instead of the table; the same seed, the same bytes.
run stdout 0 "$locus" plan --workers 30 --het 0.3 --seed 5 --json - &&
	expect stdout '^\{"format": "locus-plan"' "$out"
first=$out
run again 0 "$locus" plan --workers 30 --het 0.3 --seed 5 --json -
[ "$out" = "$first" ] && ok || fail "the same seed gave different plans"
run other 0 "$locus" plan --workers 30 --het 0.3 --seed 6 --json -
[ "$out" != "$first" ] && ok || fail "another seed gave the same plan"

# A workers file, with counts and b0; --b0 wins over the file's.
cat >workers.json <<'W'
{"format": "locus-workers", "version": 1, "b0": 600,
 "workers": [{"s": 1, "b": 120, "delta": 0.5, "eps": 0.01, "count": 30},
             {"s": 2, "b": 240, "delta": 0.5, "eps": 0.01, "count": 10}]}
W
run file 0 "$locus" plan --workers-file workers.json -W 500 &&
	expect file 'W 500 over 40 workers, b0 600' "$out"
run file-b0 0 "$locus" plan --workers-file workers.json --b0 900 &&
	expect file-b0 'over 40 workers, b0 900' "$out"

# The search never does worse than lambda 10.
run default 0 "$locus" plan --workers 100 --het 0.433 --json d.json
run search 0 "$locus" plan --workers 100 --het 0.433 --search --json s.json
d=$(t_real d.json)
s=$(t_real s.json)
awk -v a="$s" -v b="$d" 'BEGIN { exit !(a <= b) }' && ok || fail "search $s worse than $d"

# Errors: usage (2) and input (1), each saying what is wrong.
run bad-method 2 "$locus" plan --method fast && expect bad-method 'umr, ptumr or ptumr-nogt' "$err"
run bad-het 2 "$locus" plan --het 0.6 && expect bad-het '1/sqrt\(3\)' "$err"
run bad-load 2 "$locus" plan -W -3 && expect bad-load '--load expects a number > 0' "$err"
run tiny-load 1 "$locus" plan --workers 3 -W 1e-320 && expect tiny-load 'W and b0 must lie in \[1e-09, 1e\+12\]' "$err"
run both 2 "$locus" plan --workers 3 --workers-file workers.json && expect both 'not both' "$err"
run no-file 1 "$locus" plan --workers-file none.json && expect no-file 'none.json' "$err"
printf '{"format": "locus-workers", "version": 1,\n "workers": [{"s": 1, "b": 0}]}\n' >bad.json
run bad-file 1 "$locus" plan --workers-file bad.json &&
	expect bad-file 'bad.json: workers\[0\].b: expected a number > 0' "$err"
run many-rounds 1 "$locus" plan --workers 60 --het 0.4 --seed 7 -W 20000 --rounds 6 &&
	expect many-rounds 'some chunk would be negative' "$err"
run stray 2 "$locus" plan extra && expect stray 'unexpected argument' "$err"
[ ! -e none.json ] && ok || fail "a failed run left a file"
# Both outputs or neither: a bad --svg is found before the plan is written.
rm -f ok.json
run partial 1 "$locus" plan --workers 3 --json ok.json --svg nodir/p.svg &&
	expect partial 'nodir/p.svg: cannot write an output there' "$err"
[ ! -e ok.json ] && [ -z "$out" ] && ok || fail "plan with a bad --svg left ok.json"
run partial-compare 1 "$locus" plan --workers 3 --compare umr,ptumr --json ok.json --svg . &&
	expect partial-compare 'it is a directory' "$err"
[ ! -e ok.json ] && ok || fail "plan --compare with a bad --svg left ok.json"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
