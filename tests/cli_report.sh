#!/bin/bash
# Reports a workflow user reads (issue 29):
#  - the Gantt chart of a workflow states the bound it knows (the critical
#    path of the tasks' compute times, their work over the workers) and
#    counts the workers' nodes (not the dispatchers'), on workflows whose
#    answers are known; its compute slices are coloured by stage, with a
#    legend of the stages;
#  - --report FILE.html of locus flow sim and locus flow run: one page with
#    the summary, the stage table, the chart inline, where the bytes came
#    from and the failed attempts with their stderr, written whole, that
#    headless chromium renders without a console error (a page with a
#    broken SVG attribute shows the check sees one);
#  - the text summary of locus flow sim and flow run and the load chart
#    count the workers' nodes, and a workflow's load chart gives its
#    inputs' bytes by source, not the share of tasks read "locally".
# The run part is skipped without MPI; the browser part without chromium
# (scripts/install-deps installs it) and under the sanitizers.
# Usage: cli_report.sh LOCUS_BINARY TESTS_DIR.
set -u
locus=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tests=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
. "$tests/lib/cli.sh"
. "$tests/mpi/sanitizer-env.sh"

# A chain of three 2 s tasks on one core: the critical path and the work
# are both 6 s (and a millisecond: a task's time is its compute and the
# write of its output), and the run takes them; one node has workers (the
# dispatcher's node has none).
printf 'b: a\n\tcp a b\nc: b\n\tcp b c\nd: c\n\tcp c d\n' >chain.mf
run chain 0 "$locus" flow sim chain.mf --nodes 1 --cores 1 --work fixed:2 --gantt chain.svg -q &&
	expect chain-sub '>3 tasks on 1 workers, 1 nodes; bound 6(\.00[0-9])? s \(critical path 6(\.00[0-9])? s, work/workers 6(\.00[0-9])? s; makespan/bound 1\.000\)' "$(cat chain.svg)"
# Four 2 s tasks and a join on two cores: the work over the workers (5 s)
# bounds it above the critical path (4 s). Two stages, each its colour
# and legend entry.
printf 'x1: in\n\tcp in x1\nx2: in\n\tcp in x2\nx3: in\n\tcp in x3\nx4: in\n\tcp in x4\nout: x1 x2 x3 x4\n\tcat x1 x2 x3 x4 > out\n' >fan.mf
run fan 0 "$locus" flow sim fan.mf --nodes 2 --cores 1 --work fixed:2 --gantt fan.svg --report fan.html -q &&
	expect fan-sub '>5 tasks on 2 workers, 2 nodes; bound 5(\.00[0-9])? s \(critical path 4(\.00[0-9])? s, work/workers 5(\.00[0-9])? s;' "$(cat fan.svg)" &&
	expect fan-style '\.s0\{fill:#4878d0\}' "$(cat fan.svg)" &&
	expect fan-stage-cp '<rect class="s0" [^>]*>.*stage cp\)' "$(cat fan.svg)" &&
	expect fan-stage-cat '<rect class="s1" [^>]*>.*stage cat\)' "$(cat fan.svg)" &&
	expect fan-legend '>cat</text>' "$(cat fan.svg)"
# The text summary and the load chart count the workers' nodes too (the
# dispatcher's node apart), and the load chart of a workflow says where
# its bytes came from, not a share of tasks that read "locally".
run fan-text 0 "$locus" flow sim fan.mf --nodes 2 --cores 1 --work fixed:2 --load fan-load.svg -q &&
	expect fan-text-nodes ': 2 workers on 2 nodes, 3 schedulers \(.*\) on 1 node without workers$' "$out" &&
	expect fan-load-nodes '>5 tasks, inputs [0-9.]+ MB local, [0-9.]+ MB from peers, [0-9.]+ MB from the shared FS; 2 workers on 2 nodes;' "$(cat fan-load.svg)" &&
	{ grep -q 'read locally' fan-load.svg && fail "fan-load: a workflow's chart speaks of tasks read locally" || ok; }
html=$(cat fan.html 2>/dev/null)
expect sim-html-title '<title>locus flow sim fan\.mf</title>' "$html"
expect sim-html-stage '<tr><td>cp</td><td>4</td>' "$html"
expect sim-html-chart '<section id="chart"><h2>Gantt chart</h2>' "$html"
expect sim-html-svg '<svg xmlns="http://www.w3.org/2000/svg"' "$html"
expect sim-html-ok 'No attempt failed' "$html"
# Self-contained: nothing fetched from elsewhere.
printf '%s\n' "$html" | grep -Eq '(src|href)=' && fail "the report refers to other files" || ok

# A real run: a task that fails once, then succeeds on its retry. The
# report lists the failed attempt with its stderr; the chart counts the
# two emulated nodes with workers.
if "$locus" flow run --help 2>&1 | grep -q -- '--np'; then
	seq 1 50 >in.txt
	printf 'x: in.txt\n\tif [ -e %s/once ]; then cp in.txt x; else touch %s/once; echo the first attempt failed here >&2; echo "<on two lines>" >&2; exit 3; fi\ny: x\n\tcat x x > y\n' "$PWD" "$PWD" >Run.mf
	run flow-run 0 "$locus" flow run Run.mf -np 3 --emulate-nodes 2 -q --local "$tmp/loc" --report run.html --gantt run.svg &&
		expect run-nodes '>2 tasks on 2 workers, 2 nodes; bound' "$(cat run.svg)" &&
		expect run-text-nodes ': 2 workers on 2 nodes, 3 schedulers \(.*\) on 1 node without workers$' "$out"
	html=$(cat run.html 2>/dev/null)
	expect run-html-failure '<h3>task x, attempt 0 on node00[01]: exited with 3</h3>' "$html"
	# Its stderr whole: escaped, its lines kept.
	expect run-html-stderr '<pre>the first attempt failed here$' "$html"
	expect run-html-stderr2 '^&lt;on two lines&gt;$' "$html"
	expect run-html-summary '<tr><td>engine</td><td>MPI ranks \(a real run\)</td></tr>' "$html"
	# A run that fails (its task out of retries) has no result, yet its
	# report says why: the run's error and each attempt with its stderr.
	printf 'z: in.txt\n\techo always fails here >&2; exit 5\n' >Fail.mf
	run flow-fail 1 "$locus" flow run Fail.mf -np 3 --emulate-nodes 2 -q --local "$tmp/loc" --retries 1 --report fail.html
	html=$(cat fail.html 2>/dev/null)
	expect fail-title '<title>locus flow run Fail\.mf \(failed\)</title>' "$html"
	expect fail-run '<p class="bad">The run failed:</p>' "$html"
	expect fail-why 'task z failed' "$html"
	expect fail-attempt0 '<h3>task z, attempt 0 on node00[01]: exited with 5</h3>' "$html"
	expect fail-attempt1 '<h3>task z, attempt 1 on node00[01]: exited with 5</h3>' "$html"
	expect fail-stderr '<pre>always fails here$' "$html"
	expect fail-nochart 'No chart: the run failed' "$html"
	[ -z "$(ls | grep '\.tmp\.')" ] && ok || fail "a report temporary was left: $(ls)"
else
	echo "cli_report: no MPI, the run part skipped" >&2
fi

# Headless chromium renders the reports without a console error; the
# control page with a negative SVG width makes one, so the check sees them.
# (Once per make check: the sanitizer pass writes the same bytes, and the
# browser's seconds would only repeat the plain pass's.)
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "${ASAN_OPTIONS:-}" ]; then
	echo "cli_report: under the sanitizers, the browser part is the plain pass's" >&2
elif [ -n "$browser" ]; then
	printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad</title></head><body><svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><rect width="-5" height="3"/></svg></body></html>' >bad.html
	open_page() { # FILE: its DOM in FILE.dom, chromium's log in FILE.log
		timeout 90 "$browser" --headless --disable-gpu --no-sandbox --user-data-dir="$tmp/ud-$1" \
			--enable-logging=stderr --v=0 --dump-dom "file://$tmp/$1" >"$1.dom" 2>"$1.log"
	}
	pages="fan.html bad.html"
	[ -e run.html ] && pages="$pages run.html"
	[ -e fail.html ] && pages="$pages fail.html"
	for p in $pages; do open_page "$p" & done
	wait
	expect control 'CONSOLE.*negative value is not valid' "$(cat bad.html.log)"
	for p in ${pages/bad.html/}; do
		grep -q 'CONSOLE' "$p.log" && fail "$p: console messages: $(grep CONSOLE "$p.log")" || ok
		expect "$p-dom" '<section id="failures">' "$(cat "$p.dom")"
		if [ "$p" = fail.html ]; then
			expect "$p-dom-nochart" 'No chart: the run failed' "$(cat "$p.dom")"
		else
			expect "$p-dom-svg" '<svg xmlns="http://www.w3.org/2000/svg"' "$(cat "$p.dom")"
		fi
	done
else
	echo "cli_report: no chromium (scripts/install-deps installs it), the browser part skipped" >&2
fi

echo "cli_report: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
