#!/bin/bash
# Fault injection for `locus flow run` (issue 28): random small Makeflows
# run under random kills, resumed with their journal until done, each
# checked against a sequential run of the same rules.
#
# Workflow w (seed SEED + w) has 3 to 8 rules over two input files; rule k
# reads one to three of the inputs and earlier rules' outputs and writes
# tK.out with one of sort, sort -r, cat, tac, sha256sum, md5sum, wc, cut
# or uniq (deterministic in its inputs), after a sleep of 0 to 0.6 s, then
# appends "tK" to a log: one line per finished command. Each run (-np 3,
# two emulated nodes, --journal, --retries 2) is killed, with probability
# 3/4 while attempts remain (at most 3 kills per workflow), at a random
# moment 0.3 to 2.7 s after it starts, in one of three ways: a command (a
# running rule's shell, SIGKILL: a failed attempt, retried), a rank (one
# of the three MPI ranks, SIGKILL, once the run has started), or the launcher (SIGINT, SIGTERM or
# SIGKILL). Then the run is resumed with the same journal, until one
# succeeds (at most 8 runs). Asserted after the last run:
#
#   - every output in the shared directory (each sink, and any other tK.out
#     there) is byte-identical to the sequential run's (sh, rules in order);
#   - no rule that a journal had recorded as done ran again (log lines after
#     the journal's record), unless the run said its files were lost;
#   - nothing left behind: no *.locus-tmp-* in the shared directory, no
#     locus-flow-* under --local, nothing in the runs' TMPDIR (but Open
#     MPI's session directories ompi.*/pid.*, counted apart);
#   - every run ended by itself within 30 s of its kill (else: a hang).
#
# Every random choice comes from bash's RANDOM seeded per workflow, so a
# seed names the same workflows and kill plans (the moment a kill lands
# in a run is the machine's). Prints a line per workflow and the totals.
#
#   bench/mpi/flow_faults.sh [--locus PATH] [--seed S] [--first W] [--count N]
#                            [--keep]
# (LOCUS: build/locus; S 1; W 0; N 200.) make check runs --count 2.
set -u
locus=build/locus seed=1 first=0 count=200 keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--locus) locus=$2 && shift ;;
	--seed) seed=$2 && shift ;;
	--first) first=$2 && shift ;;
	--count) count=$2 && shift ;;
	--keep) keep=1 ;;
	*) echo "usage: $0 [--locus PATH] [--seed S] [--first W] [--count N] [--keep]" >&2 && exit 2 ;;
	esac
	shift
done
locus=$(cd "$(dirname "$locus")" && pwd)/$(basename "$locus")
command -v mpiexec >/dev/null || command -v mpirun >/dev/null || {
	echo "no MPI launcher: skipped"
	exit 77
}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Under ASan (make check's sanitizer run), MPI's own allocations are not
# leaks: the options every MPI test uses.
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/../../tests/mpi" && pwd)/sanitizer-env.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-faults.XXXXXX")
# Kept when something was found (its workflows' directories are there).
trap '[ "$keep" = 1 ] || [ $failures != 0 ] || rm -rf "$tmp"' EXIT

workflows=0 runs=0 resumes=0 failures=0 hangs=0 explained=0 ompi_left=0
kills_cmd=0 kills_rank=0 kills_int=0 kills_term=0 kills_kill=0 kills_missed=0

finding() { # W WHAT: one failure found
	failures=$((failures + 1))
	echo "FAIL workflow $1: $2 (runs:$plan)"
}

# gen DIR: the workflow's Makeflow (commands logging to DIR/log) and the
# sequential script ref.sh; sets $sinks.
gen() {
	local d=$1 n=$((3 + RANDOM % 6)) k i m pick files cmd ins
	local -a avail=(in0.txt in1.txt) read_by=()
	printf 'a\nc\nb\na\n' >"$d/shared/in0.txt"
	seq $((RANDOM % 50 + 1)) | sed 's/^/line /' >"$d/shared/in1.txt"
	: >"$d/Makeflow.body"
	: >"$d/ref.sh"
	for ((k = 0; k < n; k++)); do
		m=$((1 + RANDOM % 3))
		ins=""
		for ((i = 0; i < m; i++)); do
			pick=${avail[RANDOM % ${#avail[@]}]}
			case " $ins " in *" $pick "*) continue ;; esac
			ins="$ins $pick"
			read_by+=("$pick")
		done
		ins=${ins# }
		case $((RANDOM % 9)) in
		0) cmd="sort $ins" ;;
		1) cmd="sort -r $ins" ;;
		2) cmd="cat $ins" ;;
		3) cmd="cat $ins | tac" ;;
		4) cmd="sha256sum $ins" ;;
		5) cmd="md5sum $ins" ;;
		6) cmd="wc $ins" ;;
		7) cmd="cat $ins | cut -c1-3" ;;
		8) cmd="sort $ins | uniq -c" ;;
		esac
		printf 't%d.out: %s\n\tsleep 0.%d; %s > t%d.out; echo t%d >> %s/log\n\n' \
			"$k" "$ins" $((RANDOM % 7)) "$cmd" "$k" "$k" "$d" >>"$d/Makeflow.body"
		printf '%s > t%d.out\n' "$cmd" "$k" >>"$d/ref.sh"
		avail+=("t$k.out")
	done
	mv "$d/Makeflow.body" "$d/shared/Makeflow"
	sinks=""
	for ((k = 0; k < n; k++)); do
		case " ${read_by[*]} " in *" t$k.out "*) ;; *) sinks="$sinks t$k.out" ;; esac
	done
}

# kill_one W PID: one kill of run PID, chosen at random; $what says
# which ("" when its target was gone).
kill_one() {
	local w=$1 pid=$2 how=$((RANDOM % 5)) victims v
	what=""
	case $how in
	0) # a command: a rule's shell under a rank (the next to start, if
		# none runs now, within 3 s)
		local t
		for ((t = 0; t < 30; t++)); do
			victims=$(pgrep -f "echo t[0-9]* >> $tmp/w$w/log" | head -1)
			[ -n "$victims" ] || ! kill -0 "$pid" 2>/dev/null && break
			sleep 0.1
		done
		if [ -n "$victims" ]; then
			kill -KILL $victims 2>/dev/null && kills_cmd=$((kills_cmd + 1)) && what=command && return
		fi
		kills_missed=$((kills_missed + 1)) ;;
	1) # a rank: one of mpiexec's children, once they all run (the
		# run's status written: Open MPI's mpiexec may hang for ever
		# when a rank dies inside MPI_Init, docs/results/faults.md)
		local mpx t
		for ((t = 0; t < 30; t++)); do
			[ "$tmp/w$w/j.status" -nt "$tmp/w$w/started" ] && break
			sleep 0.1
		done
		mpx=$(pgrep -P "$pid" | head -1)
		mapfile -t victims < <(pgrep -P "${mpx:-0}" 2>/dev/null)
		if [ ${#victims[@]} -gt 0 ]; then
			v=${victims[RANDOM % ${#victims[@]}]}
			kill -KILL "$v" 2>/dev/null && kills_rank=$((kills_rank + 1)) && what=rank && return
		fi
		kills_missed=$((kills_missed + 1)) ;;
	2) kill -INT "$pid" 2>/dev/null && kills_int=$((kills_int + 1)) && what=SIGINT ||
		kills_missed=$((kills_missed + 1)) ;;
	3) kill -TERM "$pid" 2>/dev/null && kills_term=$((kills_term + 1)) && what=SIGTERM ||
		kills_missed=$((kills_missed + 1)) ;;
	4) kill -KILL "$pid" 2>/dev/null && kills_kill=$((kills_kill + 1)) && what=SIGKILL ||
		kills_missed=$((kills_missed + 1)) ;;
	esac
}

# tree PID: PID and every process under it.
tree() {
	local c
	echo "$1"
	for c in $(pgrep -P "$1"); do tree "$c"; done
}

# leftovers W: the processes of workflow W's runs still there (by their
# --journal, which names W's directory).
leftovers() { pgrep -f -- "--journal $tmp/w$1/j( |$)"; }

# recorded J: the tasks journal J says are done, one a line.
recorded() { [ -f "$1" ] && awk -F'\t' '$1 == "task" { print $2 }' "$1" | sort -u; }

for ((w = first; w < first + count; w++)); do
	RANDOM=$((seed * 100003 + w))
	d=$tmp/w$w
	mkdir -p "$d/shared" "$d/ref" "$d/local" "$d/tmp"
	gen "$d"
	cp "$d/shared"/in*.txt "$d/ref/"
	(cd "$d/ref" && sh "$d/ref.sh")
	: >"$d/log"
	workflows=$((workflows + 1))
	found=$failures
	ok=0 kills=0 wruns=0 done_before="" lines_before=0 plan=""
	while [ $wruns -lt 8 ]; do
		wruns=$((wruns + 1))
		runs=$((runs + 1))
		[ $wruns -gt 1 ] && resumes=$((resumes + 1))
		lines_before=$(wc -l <"$d/log")
		touch "$d/started"
		sleep 0.01
		done_before=$(recorded "$d/j")
		TMPDIR=$d/tmp "$locus" flow run "$d/shared/Makeflow" -np 3 --emulate-nodes 2 -q \
			--journal "$d/j" --local "$d/local" --retries 2 >"$d/out.$wruns" 2>&1 &
		pid=$!
		killed=0
		if [ $kills -lt 3 ] && [ $((RANDOM % 4)) -ne 0 ]; then
			delay=$((3 + RANDOM % 25))
			# Sleep in tenths, stopping early if the run ends first.
			for ((t = 0; t < delay; t++)); do
				kill -0 $pid 2>/dev/null || break
				sleep 0.1
			done
			if kill -0 $pid 2>/dev/null; then
				kill_one "$w" "$pid"
				if [ -n "$what" ]; then
					kills=$((kills + 1))
					killed=1
				fi
				plan="$plan ${what:-missed}@$((delay / 10)).$((delay % 10))s"
			fi
		fi
		# Every run ends by itself: 30 s after its kill (or 120 s in
		# all), it hangs.
		for ((t = 0; t < 1200; t++)); do
			kill -0 $pid 2>/dev/null || break
			[ $killed = 1 ] && [ $t -ge 300 ] && break
			sleep 0.1
		done
		if kill -0 $pid 2>/dev/null; then
			hangs=$((hangs + 1))
			# What each process of the run waits in, for the report.
			ps -o pid,ppid,stat,wchan:24,etime,args -p "$(tree $pid | paste -sd,)" \
				>"$d/hang.$wruns" 2>&1
			finding "$w" "run $wruns hung (killed: $killed; $d/hang.$wruns); $(tail -2 "$d/out.$wruns" | tr '\n' ' ')"
			kill -KILL $(tree $pid) 2>/dev/null
		fi
		wait $pid 2>/dev/null
		rc=$?
		# A launcher's end ends its ranks (within a second or two).
		for ((t = 0; t < 50; t++)); do
			[ -z "$(leftovers "$w")" ] && break
			sleep 0.1
		done
		stray=$(leftovers "$w" | tr '\n' ' ')
		if [ -n "$stray" ]; then
			finding "$w" "run $wruns: processes left 5 s after the launcher ended: $stray"
			kill -KILL $stray 2>/dev/null
		fi
		# A rule recorded done before this run that logged again in it.
		again=""
		if [ -n "$done_before" ]; then
			for t in $(tail -n +$((lines_before + 1)) "$d/log" | sort -u); do
				printf '%s\n' "$done_before" | grep -qx "$t.out" && again="$again $t"
			done
		fi
		if [ -n "$again" ]; then
			if grep -q "run again, their files lost" "$d/out.$wruns"; then
				explained=$((explained + 1))
			else
				finding "$w" "run $wruns ran again what the journal had done:$again"
			fi
		fi
		[ $killed = 0 ] && plan="$plan none"
		[ $rc = 0 ] && ok=1 && break
	done
	if [ $ok = 0 ]; then
		finding "$w" "not done after $wruns runs: $(tail -3 "$d/out.$wruns" | tr '\n' ' ')"
		continue
	fi
	# Every output the shared directory has, and every sink, as sh made it.
	for f in $sinks; do
		[ -f "$d/shared/$f" ] || finding "$w" "sink $f missing"
	done
	for f in "$d"/shared/t*.out; do
		[ -e "$f" ] || continue
		cmp -s "$f" "$d/ref/$(basename "$f")" || finding "$w" "$(basename "$f") differs from the sequential run's"
	done
	# Open MPI's session directory (ompi.HOST.UID/pid.N), which an
	# mpiexec killed by SIGKILL (its parent, the launcher, was) leaves:
	# the next launcher there sweeps it; counted apart. (The directory
	# ompi.HOST.UID above, shared by this user's jobs, may stay.)
	ompi=""
	if ls -d "$d"/tmp/ompi.*/pid.* >/dev/null 2>&1; then
		ompi_left=$((ompi_left + 1))
		ompi=" (an Open MPI session directory left: $(cd "$d/tmp" && ls -d ompi.*/pid.* | tr '\n' ' '))"
	fi
	left=$(cd "$d" && { ls shared | grep 'locus-tmp'; ls local | grep '^locus-flow-'; ls tmp | grep -v '^ompi\.'; } 2>/dev/null | tr '\n' ' ')
	[ -z "$left" ] || finding "$w" "left behind: $left"
	echo "workflow $w: $(grep -c . "$d/ref.sh") rules, $wruns runs:$plan$ompi"
	# A workflow with a finding is kept for its report.
	[ "$keep" = 1 ] || [ $failures != "$found" ] || rm -rf "$d"
done

echo "workflows $workflows (seed $seed, $first to $((first + count - 1))), runs $runs, resumes $resumes"
echo "kills: commands $kills_cmd, ranks $kills_rank, launcher SIGINT $kills_int, SIGTERM $kills_term, SIGKILL $kills_kill (missed: $kills_missed, the target gone)"
echo "reruns explained by lost files $explained, Open MPI session directories left $ompi_left, hangs $hangs, failures $failures"
[ $failures = 0 ]
