#!/bin/bash
# locus flow run inside a Slurm allocation, for real (issue 29): a
# one-machine Slurm cluster from Debian's slurm-wlm and munge, two nodes
# (n1, n2: two slurmd on this host, each with its own port, which Debian's
# slurmd allows) of 4 CPUs each (more than the host has, as the
# configuration allows: the job ended by its time limit runs beside the
# others, so that the test waits that minute once). The daemons run as
# this test, from a configuration in a temporary directory, and go with
# it.
#  - an sbatch of `locus flow run` takes its ranks and nodes from the
#    allocation (4 ranks on n1 and n2), keeps node storage in the job's
#    temporary directory (SLURM_TMPDIR) and leaves nothing there, and writes the same outputs as locus flow run
#    under mpirun;
#  - locus run in an allocation runs each chunk of a store on the node
#    that holds it (the store's directories named n1 and n2);
#  - Slurm ending the job at its time limit (sbatch --time=1: SIGTERM,
#    then SIGKILL KillWait seconds later) leaves a journal the next
#    sbatch of the same script resumes from: the tasks it says are done
#    do not run again, and the outputs are the same.
# Skipped (77) without Slurm and munge (scripts/install-deps), MPI, root,
# or when the daemons do not start.
# Usage: cli_slurm.sh LOCUS_BINARY TESTS_DIR.
set -u
locus=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tests=$(cd "$2" && pwd)
skip() {
	echo "SKIP cli_slurm: $*" >&2
	exit 77
}
for p in munged slurmctld slurmd sbatch squeue scancel sinfo; do
	command -v "$p" >/dev/null 2>&1 || skip "no $p (scripts/install-deps installs slurm-wlm and munge)"
done
[ "$(id -u)" -eq 0 ] || skip "the daemons of a test cluster run as root"
"$locus" flow run --help 2>&1 | grep -q -- '--np' || skip "locus built without MPI"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/locus-slurm.XXXXXX")
chmod 755 "$tmp"
D=$tmp/slurm
stop() {
	local f
	for f in "$D"/slurmd-n1.pid "$D"/slurmd-n2.pid "$D"/slurmctld.pid "$D"/munged.pid; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	# The daemons remove their pid files as they end.
	for _ in $(seq 50); do
		ls "$D"/*.pid >/dev/null 2>&1 || break
		sleep 0.1
	done
	rm -rf "$tmp"
}
trap stop EXIT
cd "$tmp" || exit 1
. "$tests/lib/cli.sh"
. "$tests/mpi/sanitizer-env.sh"

# ---- the cluster ------------------------------------------------------------
mkdir -p "$D/state"
head -c 1024 /dev/urandom >"$D/munge.key"
chmod 400 "$D/munge.key"
munged --key-file="$D/munge.key" --socket="$D/munge.sock" --pid-file="$D/munged.pid" \
	--log-file="$D/munged.log" --seed-file="$D/munge.seed" --force ||
	skip "munged did not start"
base=$((20000 + RANDOM % 20000))
cat >"$D/slurm.conf" <<EOF
ClusterName=locustest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$base
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge.sock
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool-%n
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd-%n.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
KillWait=2
NodeName=n[1-2] NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 Port=[$((base + 1))-$((base + 2))] CPUs=4 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$D/slurm.conf
slurmctld -i -f "$SLURM_CONF" || skip "slurmctld did not start: $(tail -n 3 "$D/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" -N n1 && slurmd -f "$SLURM_CONF" -N n2 ||
	skip "slurmd did not start: $(tail -n 3 "$D"/slurmd-n*.log 2>/dev/null)"
for _ in $(seq 100); do
	[ "$(sinfo -h -o '%T %D' 2>/dev/null)" = "idle 2" ] && break
	sleep 0.2
done
[ "$(sinfo -h -o '%T %D' 2>/dev/null)" = "idle 2" ] ||
	skip "the nodes did not come up: $(sinfo 2>&1 | tail -n 2)"

# ---- a workflow -------------------------------------------------------------
# Four tasks over one input, two gathering them, and one that waits while
# HOLD exists (the job is ended under it); each task appends its name to
# LOG. Usage: mkworkflow DIR LOG [HOLD].
mkworkflow() {
	local dir=$1 log=$2 hold=${3:-$tmp/no-hold}
	mkdir -p "$dir"
	seq 1 500 >"$dir/in.txt"
	cat >"$dir/Makeflow" <<EOF
a1.txt: in.txt
	sort -rn in.txt > a1.txt && echo a1 >> $log
a2.txt: in.txt
	md5sum in.txt > a2.txt && echo a2 >> $log
a3.txt: in.txt
	cksum in.txt > a3.txt && echo a3 >> $log
a4.txt: in.txt
	tail -n 7 in.txt > a4.txt && echo a4 >> $log
b.txt: a1.txt a2.txt a3.txt a4.txt
	while [ -e $hold ]; do sleep 0.1; done; cat a1.txt a2.txt a3.txt a4.txt | sha1sum > b.txt && echo b >> $log
c.txt: b.txt a4.txt
	cat b.txt a4.txt > c.txt && echo c >> $log
EOF
}
# Same outputs: every file the reference left in its directory (its
# input and final output; intermediates stay on the nodes), byte for
# byte, and no other.
same_as_ref() {
	local f n=0 dir=${2:-sb}
	for f in $(cd ref && ls | grep -v '^Makeflow$'); do
		n=$((n + 1))
		cmp -s "ref/$f" "$dir/$f" || { fail "$1: $f differs from the mpirun run's"; return; }
	done
	[ "$(cd ref && ls)" = "$(cd "$dir" && ls | grep -v '^run\.journal')" ] && [ "$n" -eq 2 ] && ok ||
		fail "$1: files $(cd "$dir" && ls | tr '\n' ' '), the mpirun run's $(cd ref && ls | tr '\n' ' ')"
}

# ---- sbatch ---------------------------------------------------------------
# Two slurmd on one host share its name: Open MPI's shared-memory
# transport would name its segments alike on both (ranks of n1 and n2
# with the same local rank), so the job uses TCP between all ranks; a
# cluster of real nodes needs nothing of the kind.
# The job's local temporary directory as a site sets it (SLURM_TMPDIR),
# one per workflow directory (the script's argument) so that two jobs at
# once each find theirs empty at the end. Two ranks a node: Slurm would
# pack them on one node's 4 CPUs otherwise.
cat >job.sh <<EOF
#!/bin/bash
#SBATCH --nodes=2 --ntasks=4 --ntasks-per-node=2
export OMPI_MCA_btl=self,tcp
export SLURM_TMPDIR=$tmp/jobtmp-\$1
mkdir -p \$SLURM_TMPDIR
cd $tmp/\$1
exec $locus flow run Makeflow --journal run.journal
EOF

# ---- the job ended by Slurm (started first, checked below) ------------------
# The job's time limit: 1 minute (Slurm's least), which slurmctld checks
# every 30 s; the job is ended, SIGTERM then SIGKILL KillWait s later,
# 60 to 90 s after it starts. Its task b waits while tl.hold exists.
mkworkflow tl "$tmp/tl.log" "$tmp/tl.hold"
touch tl.hold
job=$(sbatch --parsable --time=1 -o "$tmp/job2.out" job.sh tl)

# The reference: locus flow run under mpirun, outside Slurm.
mkworkflow ref "$tmp/ref.log"
run reference 0 env -u SLURM_JOB_ID "$locus" flow run ref/Makeflow --np 3 -q

# ---- sbatch ---------------------------------------------------------------
mkworkflow sb "$tmp/sb.log"
run sbatch 0 sbatch --wait -o "$tmp/job1.out" job.sh sb
out=$(cat "$tmp/job1.out")
expect sbatch-alloc "in Slurm job [0-9]+: 4 ranks on 2 nodes \\(n\\[1-2\\]\\), node storage under $tmp/jobtmp-sb" "$out"
expect sbatch-done 'status +complete' "$out"
same_as_ref sbatch
[ "$(sort sb.log | tr '\n' ' ')" = "a1 a2 a3 a4 b c " ] && ok || fail "sbatch: tasks ran $(sort sb.log | tr '\n' ' ')"
# Both nodes ran tasks: the journal says where each file was kept.
expect sbatch-nodes 'n1' "$(cat sb/run.journal)"
expect sbatch-nodes2 'n2' "$(cat sb/run.journal)"
# Node storage was the job's temporary directory, and is gone.
[ -d jobtmp-sb ] && [ -z "$(ls -A jobtmp-sb)" ] && ok || fail "node storage left in the job's directory: $(ls -A jobtmp-sb 2>&1)"

# ---- locus run over a store of the allocation's nodes -------------------------
# Chunks on n1 and n2 (the store's node directories named after them):
# each is run on the node that holds it, whose name the allocation gives
# the rank (SLURMD_NODENAME).
"$locus" place --generate 256K --chunk-size 64K --nodes 2 --racks 1 --replicas 1 --store st \
	--dataset d >/dev/null && mv st/node01 st/n1 && mv st/node02 st/n2 || fail "place into st"
cat >runjob.sh <<'EOF'
#!/bin/bash
#SBATCH --nodes=2 --ntasks=3 --ntasks-per-node=2
export OMPI_MCA_btl=self,tcp
exec "$1" run --store "$2" -q -- sh -c 'echo "on $SLURMD_NODENAME: $1"' sh {}
EOF
run chunks 0 sbatch --wait -o "$tmp/job4.out" runjob.sh "$locus" "$tmp/st"
out=$(cat "$tmp/job4.out")
[ "$(printf '%s\n' "$out" | grep -c '^on n1: .*/st/n1/d/chunk-')" -ge 1 ] &&
	[ "$(printf '%s\n' "$out" | grep -c '^on n2: .*/st/n2/d/chunk-')" -ge 1 ] &&
	[ "$(printf '%s\n' "$out" | grep -c '^on n[12]: ')" -eq 4 ] &&
	! printf '%s\n' "$out" | grep -Eq '^on n1: .*/st/n2/|^on n2: .*/st/n1/' && ok ||
	fail "locus run in the allocation: $out"

# ---- the job ended by Slurm, then resumed -----------------------------------
# Its four first tasks are in the journal (b waits on tl.hold).
for _ in $(seq 300); do
	[ "$(grep -c '^task' tl/run.journal 2>/dev/null)" = 4 ] && break
	sleep 0.1
done
expect killed-journal '^task	a4.txt' "$(cat tl/run.journal 2>/dev/null)"
# Meanwhile the nodes keep their files in the job's directory.
expect killed-storage 'locus-flow-.*/(n1|n2)' "$(cd jobtmp-tl 2>/dev/null && ls -d locus-flow-*/* 2>&1)"
for _ in $(seq 1500); do
	[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break
	sleep 0.1
done
[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && ok || fail "job $job still there 150 s after the test's jobs began"
# Ended by its time limit, and locus flow run by the SIGTERM it got.
expect timeout-state 'JobState=TIMEOUT' "$(scontrol show job "$job" 2>&1)"
expect timeout-said 'DUE TO TIME LIMIT' "$(cat "$tmp/job2.out")"
# Said by the launcher (its ranks ended by the signal before rank 0 could
# say why), or by rank 0 itself when it ended first.
cut='the job was cut short|cancelled \(a signal\)'
grep -Eq "$cut" "$tmp/job2.out" || sed 's/^/  job2.out: /' "$tmp/job2.out" | tail -n 12 >&2
expect timeout-cut "$cut" "$(cat "$tmp/job2.out")"
# The journal holds the four tasks, whole: the status its run left says
# so, the run killed.
expect timeout-status 'tasks 6: .*4 done' "$("$locus" flow status tl/run.journal 2>&1)"
[ ! -e tl/b.txt ] && ok || fail "b.txt written though its task was ended"
rm -f tl.hold
run resumed 0 sbatch --wait -o "$tmp/job3.out" job.sh tl
out=$(cat "$tmp/job3.out")
expect resumed-journal 'the journal says 4 tasks are done' "$out"
expect resumed-done 'status +complete' "$out"
same_as_ref resumed tl
[ -z "$(ls -A jobtmp-tl)" ] && ok || fail "resumed: node storage left in the job's directory: $(ls -A jobtmp-tl 2>&1)"
# a1..a4 ran once (in the killed job), b and c once (in the resumed one).
[ "$(sort tl.log | tr '\n' ' ')" = "a1 a2 a3 a4 b c " ] && ok || fail "resumed: tasks ran $(sort tl.log | tr '\n' ' ')"

echo "cli_slurm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
