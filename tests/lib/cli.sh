# Sourced by the CLI test scripts (tests/cli_*.sh): run, ok, fail, expect
# and the counts; the script sets $tmp, a scratch directory, first.
passed=0
failed=0
out=""
err=""

# run NAME EXPECTED_STATUS CMD...: runs CMD, keeps stdout/stderr in $out/$err.
run() {
	local name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local got=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	if [ "$got" -ne "$want" ]; then
		echo "FAIL $name: exit $got, expected $want" >&2
		echo "  stdout: $out" | head -5 >&2
		echo "  stderr: $err" | head -5 >&2
		failed=$((failed + 1))
		return 1
	fi
	return 0
}
ok() { passed=$((passed + 1)); }
fail() {
	echo "FAIL $1" >&2
	echo "  stdout: $out" | head -8 >&2
	echo "  stderr: $err" | head -8 >&2
	failed=$((failed + 1))
}
# expect NAME PATTERN TEXT: TEXT contains PATTERN (grep -E).
expect() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then ok; else fail "$1: no /$2/"; fi
}
