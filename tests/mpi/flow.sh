#!/bin/bash
# locus flow run: workflows for real on MPI ranks (src/mpi/flow.c), part 1
# (tests/mpi/flow_faults.sh is part 2):
#  - random workflows under every amfs configuration and the taskvine and
#    dask policies: every task runs exactly once (each appends its id to a
#    log), every final output equals the one a sequential run of the same
#    commands writes, the nodes' storage is gone afterwards;
#  - a reduce stage's command runs at every node of the reduction tree
#    and gives the sequential result (Makeflow lines, WfCommons
#    arguments); one naming its inputs by a glob is refused; one whose
#    program cannot start at the tree's root ends the run naming it.
# Usage: flow.sh LOCUS
. "$(dirname "$0")/flow_lib.sh"

# A random workflow (seed $1, $2 tasks) in directory $3: four inputs; task
# i runs one of four checksum programs (its stage) over 1 to 3 earlier
# files, or over 18 of them (a gather), and appends its id; every 7th task
# writes a second file. Files written early are read by many (multicasts).
# LOG: each command appends its id there. Also writes seq.sh, the same
# commands in order in one directory (the reference).
gen_random() {
	local seed=$1 n=$2 dir=$3
	mkdir -p "$dir/in"
	for k in 0 1 2 3; do
		awk -v k="$k" -v s="$seed" 'BEGIN { srand(s * 10 + k); for (i = 0; i < 200 + k * 50; i++) print int(rand() * 1e9) }' >"$dir/in/d$k.txt"
	done
	awk -v seed="$seed" -v n="$n" -v logf="$tmp/log" 'BEGIN {
		srand(seed); progs[0] = "md5sum"; progs[1] = "sha1sum"; progs[2] = "cksum"; progs[3] = "sha256sum"
		nf = 4; for (k = 0; k < 4; k++) files[k] = "in/d" k ".txt"
		for (i = 0; i < n; i++) {
			p = progs[int(i * 4 / n)]
			if (i % 11 == 10 && nf > 24) m = 18; else m = 1 + int(rand() * 3)
			delete used; ins = ""
			for (j = 0; j < m; j++) {
				# Early files more often: they become multicasts.
				f = rand() < 0.3 ? int(rand() * (nf < 6 ? nf : 6)) : int(rand() * nf)
				if (f in used) continue
				used[f] = 1; ins = ins " " files[f]
			}
			out = "mid/t" i ".out"; outs = out
			if (i % 7 == 3) { out2 = "mid/t" i ".extra"; outs = outs " " out2 }
			printf("%s:%s\n\t%s%s > %s && echo %d >> %s", outs, ins, p, ins, out, i, out)
			if (i % 7 == 3) printf(" && echo extra %d > %s", i, out2)
			printf(" && echo %d >> %s\n\n", i, logf)
			files[nf++] = out; if (i % 7 == 3) files[nf++] = out2
		}
	}' >"$dir/Makeflow"
	# The reference: the commands in order, the log left out.
	{ echo "mkdir -p mid"; awk -v logf="$tmp/log" '/^\t/ { line = substr($0, 2); sub(" && echo [0-9]+ >> " logf "$", "", line); print line }' \
		"$dir/Makeflow"; } >"$dir/seq.sh"
}


# Final outputs of the run in $1 equal the sequential ones in $2.
same_finals() {
	local a=$1 b=$2 n=0
	# Finals: files no rule reads.
	for f in $(awk -F: '/^[^\t#].*:/ { n = split($1, o, " "); for (k = 1; k <= n; k++) out[o[k]] = 1;
			m = split($2, s, " "); for (k = 1; k <= m; k++) used[s[k]] = 1 }
			END { for (o2 in out) if (!(o2 in used)) print o2 }' "$b/Makeflow" | sort); do
		n=$((n + 1))
		cmp -s "$a/$f" "$b/$f" || { echo "final $f differs" >>"$tmp/out"; return 1; }
	done
	[ "$n" -gt 0 ]
}

once() { # N: the log holds 0..N-1, each once
	sort -n "$tmp/log" | awk -v n="$1" '$1 != NR - 1 { bad = 1 } END { exit bad || NR != n }'
}

# ---- random workflows under every configuration and policy ---------------
gen_random 5 60 "$tmp/ref"
(cd "$tmp/ref" && sh seq.sh) || fail "sequential reference"
"$locus" flow show "$tmp/ref/Makeflow" >"$tmp/show" 2>&1 || fail "flow show"
grep -q gather "$tmp/show" && grep -q multicast "$tmp/show" || fail "patterns in the random workflow"
k=0
for how in "--config cache" "--config aware" "--config cogather" "--config asgather" \
	"--config staging" "--config shared" "--config auto" "--config aware -o steal=2" \
	"--policy taskvine" "--policy dask"; do
	k=$((k + 1))
	d="$tmp/run$k"
	gen_random 5 60 "$d"
	: >"$tmp/log"
	# shellcheck disable=SC2086
	if run "$d/Makeflow" -np 5 --emulate-nodes 2 --seed $k -q $how --local "$tmp/local" \
		--out "$d/result.json" && once 60 && same_finals "$d" "$tmp/ref" &&
		[ -z "$(ls -A "$tmp/local" 2>/dev/null)" ] &&
		grep -q '"engine": "mpi"' "$d/result.json"; then
		pass "random workflow, $how: every task once, finals equal, storage gone"
	else
		fail "random workflow, $how"
	fi
done

# Three nodes, two dispatchers, more workers than nodes.
d="$tmp/run-d2"
gen_random 9 80 "$d"
(cd "$d" && cp -r . ../ref9 && cd ../ref9 && sh seq.sh) || fail "reference 9"
: >"$tmp/log"
if run "$d/Makeflow" -np 8 --emulate-nodes 3 --dispatchers 2 --config cogather -q &&
	once 80 && same_finals "$d" "$tmp/ref9"; then
	pass "80 tasks, 2 dispatchers, 6 workers on 3 nodes"
else
	fail "80 tasks, 2 dispatchers"
fi

# ---- reductions ------------------------------------------------------------------
# A reduce stage (--reduce) runs its own command at every node of the
# policy's tree over the files that node holds and its children's partial
# results, then once more over what reached the root: the result equals
# the sequential one over every input, for random trees (N producers
# spread over 2 to 4 nodes), a minimum and a sum, as a Makeflow line and
# as WfCommons arguments; the command ran once per tree node (more than
# once: a plain gather runs it once), every producer once.
gen_reduce() { # SEED N KIND DIR: N producers of 50 random numbers, one reduction
	local seed=$1 n=$2 kind=$3 dir=$4 ins="" i
	mkdir -p "$dir"
	{
		for ((i = 0; i < n; i++)); do
			printf 'p%d.txt:\n\tseq 50 | awk -v s=%d '\''BEGIN { srand(s) } { print int(rand() * 1e6) - 500000 }'\'' > p%d.txt && echo %d >> %s\n\n' \
				"$i" "$((seed * 100 + i))" "$i" "$i" "$tmp/log"
			ins="$ins p$i.txt"
		done
		case $kind in
		min) printf 'red.txt:%s\n\tsort -n%s | head -n 1 > red.txt && echo r >> %s\n' "$ins" "$ins" "$tmp/rlog" ;;
		sum) printf 'red.txt:%s\n\tawk '\''{ s += \\$1 } END { print s }'\''%s > red.txt && echo r >> %s\n' "$ins" "$ins" "$tmp/rlog" ;;
		esac
	} >"$dir/Makeflow"
	(cd "$dir" && mkdir -p seq && cd seq &&
		for ((i = 0; i < n; i++)); do
			seq 50 | awk -v s=$((seed * 100 + i)) 'BEGIN { srand(s) } { print int(rand() * 1e6) - 500000 }'
		done >all.txt &&
		case $kind in
		min) sort -n all.txt | head -n 1 ;;
		sum) awk '{ s += $1 } END { print s }' all.txt ;;
		esac >red.txt)
}
k=0
# (The last: two worker ranks a node, so that a step's rank may not be the
# one that made its files.)
for spec in "1 12 min 4" "2 17 sum 3" "3 9 min 2" "4 20 sum 4" "5 6 sum 3" "6 16 sum 4 9"; do
	read -r seed n kind nodes np <<<"$spec"
	k=$((k + 1))
	d="$tmp/red$k"
	gen_reduce "$seed" "$n" "$kind" "$d"
	stage=$([ "$kind" = min ] && echo sort || echo awk)
	: >"$tmp/log"
	: >"$tmp/rlog"
	if run "$d/Makeflow" -np "${np:-$((nodes + 1))}" --emulate-nodes "$nodes" --seed "$seed" -q \
		--config cogather --gather 4 --reduce "$stage" --local "$tmp/local" &&
		once "$n" && cmp -s "$d/red.txt" "$d/seq/red.txt" &&
		[ "$(wc -l <"$tmp/rlog")" -gt 1 ] && [ -z "$(ls -A "$tmp/local" 2>/dev/null)" ]; then
		pass "reduction ($kind of $n files on $nodes nodes): equals the sequential one, $(wc -l <"$tmp/rlog") steps"
	else
		fail "reduction ($kind of $n files on $nodes nodes): $(cat "$d/red.txt" 2>/dev/null) against $(cat "$d/seq/red.txt"), $(wc -l <"$tmp/rlog") steps"
	fi
done
# WfCommons: the command's arguments, without a shell; the program takes
# its output first, then its inputs.
gen_redwf() { # DIR [THEN]: 10 producers, one reduction by DIR/minof (which
	# runs the shell command THEN after its work)
	local d=$1 then=${2:-:} args="" files="" parents="" i
	mkdir -p "$d"
	printf '#!/bin/sh\nout=$1\nshift\nsort -n "$@" | head -n 1 >"$out" && echo r >>"%s" && %s\n' \
		"$tmp/rlog" "$then" >"$d/minof"
	chmod +x "$d/minof"
	{
		printf '{"name": "reduce", "schemaVersion": "1.4",\n "workflow": {"executedAt": "20240101T000000+0000", "makespanInSeconds": 1,\n  "tasks": [\n'
		for ((i = 0; i < 10; i++)); do
			printf '   {"name": "p%d", "id": "p%d", "type": "compute", "runtimeInSeconds": 0.1, "parents": [], "children": ["red"],\n' "$i" "$i"
			printf '    "command": {"program": "sh", "arguments": ["-c", "seq 40 | awk -v s=%d '\''BEGIN { srand(s) } { print int(rand() * 1e6) }'\'' > p%d.txt"]},\n' "$((i + 50))" "$i"
			printf '    "files": [{"link": "output", "name": "p%d.txt", "sizeInBytes": 300}]},\n' "$i"
			args="$args, \"p$i.txt\""
			files="$files, {\"link\": \"input\", \"name\": \"p$i.txt\", \"sizeInBytes\": 300}"
			parents="$parents${parents:+, }\"p$i\""
		done
		printf '   {"name": "red", "id": "red", "type": "compute", "runtimeInSeconds": 0.1, "parents": [%s], "children": [],\n' "$parents"
		printf '    "command": {"program": "%s", "arguments": ["min.txt"%s]},\n' "$d/minof" "$args"
		printf '    "files": [{"link": "output", "name": "min.txt", "sizeInBytes": 8}%s]}\n  ]}}\n' "$files"
	} >"$d/wf.json"
}
d="$tmp/redwf"
gen_redwf "$d"
want=$(for ((i = 0; i < 10; i++)); do seq 40 | awk -v s=$((i + 50)) 'BEGIN { srand(s) } { print int(rand() * 1e6) }'; done | sort -n | head -n 1)
: >"$tmp/rlog"
if run "wfcommons:$d/wf.json" -np 5 --emulate-nodes 4 -q --config cogather --gather 4 \
	--reduce minof --local "$tmp/local" && [ "$(cat "$d/min.txt")" = "$want" ] &&
	[ "$(wc -l <"$tmp/rlog")" -gt 1 ]; then
	pass "reduction (WfCommons arguments): equals the sequential one, $(wc -l <"$tmp/rlog") steps"
else
	fail "reduction (WfCommons arguments): $(cat "$d/min.txt" 2>/dev/null) against $want"
fi
# A program that cannot start at the tree's root: minof makes itself
# non-executable after its first run, the one step of a tree over two
# nodes, so the task's own run there (its argv rewritten over the step's
# partial result: work.c's launch, whose message once read that argv
# freed) fails to start (EACCES), and so does its retry with all its
# inputs. The run ends with status 1 (not a time-out, not a rank killed
# by a sanitizer) naming the program and why; no output, no temporary in
# the shared directory, nothing left in the nodes' storage or $TMPDIR.
d="$tmp/redexec"
gen_redwf "$d" 'chmod -x "$0"'
: >"$tmp/rlog"
mkdir -p "$tmp/rtmp"
TMPDIR=$tmp/rtmp run "wfcommons:$d/wf.json" -np 3 --emulate-nodes 2 -q --config cogather --gather 4 \
	--reduce minof --local "$tmp/local"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/rlog")" -eq 1 ] &&
	grep -qF "task red failed on 2 attempts" "$tmp/out" &&
	grep -qF "cannot start its command ($d/minof): Permission denied" "$tmp/out" &&
	[ ! -e "$d/min.txt" ] && [ -z "$(find "$d" -name '*.locus-tmp-*')" ] &&
	[ -z "$(ls -A "$tmp/local" 2>/dev/null)" ] && [ -z "$(ls -A "$tmp/rtmp")" ]; then
	pass "reduction whose program cannot start at the root: the run fails naming it"
else
	fail "reduction whose program cannot start at the root: exit $rc, $(wc -l <"$tmp/rlog") steps, left: $(ls -A "$d" "$tmp/local" "$tmp/rtmp" 2>/dev/null | tr '\n' ' ') $(grep -m 1 'ERROR: .*Sanitizer' "$tmp/out")"
fi
# Not executable from the start: the tree's first step cannot start, and
# the run says which step, which program and why (reduce.c's message, the
# same as a task's).
chmod -x "$d/minof"
rm -rf "$tmp/local"
fails_saying "reduction whose program cannot start at its first step" \
	"reduction of task red's inputs on node .* failed: cannot start its command ($d/minof): Permission denied" -- \
	"wfcommons:$d/wf.json" -np 3 --emulate-nodes 2 -q --config cogather --gather 4 \
	--reduce minof --local "$tmp/local"
# A command that does not name its inputs as words (a glob) cannot run
# over part of them: the run says so.
d="$tmp/redglob"
gen_reduce 7 8 min "$d"
sed -i 's/sort -n p[^|]*|/sort -n p*.txt |/' "$d/Makeflow"
fails_saying "reduction over a glob: refused, saying why" \
	"does not name its input p[0-9]*.txt as a word of its own" -- \
	"$d/Makeflow" -np 4 --emulate-nodes 3 -q --config cogather --gather 4 --reduce sort --local "$tmp/local"

finish flow
