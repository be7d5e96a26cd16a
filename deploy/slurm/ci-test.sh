#!/usr/bin/env bash
# A real Slurm test of deploy/slurm/sweep.sbatch and merge.sbatch: brings up a private single-node Slurm cluster
# (munged, slurmctld, slurmd) on this machine, runs a tiny spec as a 4-task job array with the merge as a dependent
# job, exactly as the scripts' comments tell users to, and checks that the merged runs.parquet is byte-identical to an
# unsharded `sweep` run of the same spec.
#
# Needs: Debian (or Ubuntu), root, Go (only if bin/sweep must be built). No systemd: the daemons run in the
# foreground as children of this script. Installs slurmctld, slurmd, slurm-client and munge with apt-get when they are
# missing (with a temporary policy-rc.d so that their packages start no service). Everything else lives in one temp
# dir: its own munge key and socket, slurm.conf (pointed to by SLURM_CONF), state, spool and logs. Nothing in /etc is
# read or written, and a system munged or Slurm, if any, is not touched: the ports are 16817/16818 (set
# LBSWEEP_SLURM_PORT to move them to PORT and PORT+1). On exit (success, failure or a signal) it cancels its jobs,
# stops only the daemons it started (by their recorded PIDs), and removes the temp dir. Every wait is bounded.
#
# Usage: deploy/slurm/ci-test.sh        (from anywhere; SWEEP=/path/to/sweep to test another binary)
# Prints "1 passed, 0 failed" and exits 0, or prints the logs, "0 passed, 1 failed" and exits 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
t0=$SECONDS

port=${LBSWEEP_SLURM_PORT:-16817}
start_timeout=${LBSWEEP_SLURM_START_TIMEOUT:-60} # s for the node to come up idle
jobs_timeout=${LBSWEEP_SLURM_JOBS_TIMEOUT:-300}   # s for the array and the merge to finish

tmp=""
policy_rc_created=""
passed=""
waiter="" # a background `timeout ... sbatch --wait`, waited for with `wait` so that a signal is handled at once
declare -A daemon_pid=()
daemon_order=()

log() { echo "slurm-ci: $*" >&2; }
die() {
  log "FAIL: $*"
  exit 1
}

# stop PID NAME: SIGTERM, up to 15 s to exit, then SIGKILL; reaps it.
stop() {
  local pid=$1 name=$2 i state
  kill -TERM "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
  for ((i = 0; i < 150; i++)); do
    state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1) || state=""
    if [ -z "$state" ] || [ "$state" = Z ]; then break; fi
    sleep 0.1
  done
  if [ -n "$state" ] && [ "$state" != Z ]; then
    log "$name (pid $pid) ignored SIGTERM for 15 s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
  return 0
}

show_logs() {
  local f
  [ -n "$tmp" ] && [ -d "$tmp" ] || return 0
  for f in "$tmp"/log/* "$tmp"/out/*; do
    [ -f "$f" ] || continue
    echo "----- ${f#"$tmp"/} (last 80 lines)"
    tail -n 80 "$f"
  done
  echo "-----"
}

cleanup() {
  local rc=$? i name
  set +e
  trap - INT TERM HUP
  if [ -n "$waiter" ]; then
    kill -TERM "$waiter" 2>/dev/null # timeout passes it on to sbatch
    wait "$waiter" 2>/dev/null
  fi
  if [ -n "${daemon_pid[slurmctld]:-}" ] && kill -0 "${daemon_pid[slurmctld]}" 2>/dev/null; then
    # Cancel whatever jobs of this private cluster are left (only after a failure or a time-out), so that no
    # slurmstepd or sweep outlives the test, and give them a bounded time to go.
    if [ -n "$(timeout 10 squeue -h -o %i 2>/dev/null)" ]; then
      timeout 10 scancel --quiet --user=root
      for ((i = 0; i < 30; i++)); do
        [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
        sleep 0.5
      done
    fi
  fi
  if [ -n "$tmp" ] && [ -d "$tmp/spool" ]; then
    # Each job's slurmstepd (a daemon of its own, not slurmd's child) keeps a socket in the spool dir until it exits:
    # give cancelled jobs a bounded time (KillWait=5) to end before slurmd goes.
    for ((i = 0; i < 30; i++)); do
      [ -z "$(find "$tmp/spool" -maxdepth 1 -type s 2>/dev/null)" ] && break
      sleep 0.5
    done
  fi
  if [ -z "$passed" ]; then
    show_logs >&2
    echo "0 passed, 1 failed"
    [ "$rc" -eq 0 ] && rc=1
  fi
  for ((i = ${#daemon_order[@]} - 1; i >= 0; i--)); do
    name=${daemon_order[i]}
    stop "${daemon_pid[$name]}" "$name"
  done
  if [ -n "$policy_rc_created" ]; then rm -f /usr/sbin/policy-rc.d; fi
  if [ -n "$tmp" ]; then rm -rf "$tmp"; fi
  log "done in $((SECONDS - t0)) s"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

[ "$(id -u)" -eq 0 ] || die "run as root (it installs packages and runs slurmd, which starts jobs as their user)"

# 1. Packages.
need=()
command -v slurmctld >/dev/null || need+=(slurmctld)
command -v slurmd >/dev/null || need+=(slurmd)
command -v sbatch >/dev/null || need+=(slurm-client)
command -v munged >/dev/null || need+=(munge)
if [ ${#need[@]} -gt 0 ]; then
  command -v apt-get >/dev/null || die "missing ${need[*]} and no apt-get to install them"
  log "installing ${need[*]}"
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    # Keep the packages' maintainer scripts from starting munged/slurmctld/slurmd as services.
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    policy_rc_created=1
  fi
  export DEBIAN_FRONTEND=noninteractive
  timeout 600 apt-get -q -o DPkg::Lock::Timeout=120 update >/dev/null || die "apt-get update failed"
  timeout 900 apt-get -q -y -o DPkg::Lock::Timeout=120 install --no-install-recommends "${need[@]}" >/dev/null ||
    die "apt-get install ${need[*]} failed"
  if [ -n "$policy_rc_created" ]; then
    rm -f /usr/sbin/policy-rc.d
    policy_rc_created=""
  fi
fi
for c in munged munge slurmctld slurmd sbatch squeue sinfo scancel; do
  command -v "$c" >/dev/null || die "$c is not on PATH after the install"
done

# 2. The sweep binary: $SWEEP as given, or bin/sweep, built when missing or too old to know `sweep merge`.
if [ -z "${SWEEP:-}" ]; then
  SWEEP=$repo/bin/sweep
  if [ ! -x "$SWEEP" ] || ! "$SWEEP" -h 2>&1 | grep -q 'sweep merge'; then
    command -v go >/dev/null || die "bin/sweep is missing (or predates sweep merge) and go is not installed to build it"
    log "building bin/sweep"
    timeout 600 go build -o bin/ ./cmd/sweep || die "go build ./cmd/sweep failed"
  fi
fi
case $SWEEP in /*) ;; *) SWEEP=$PWD/$SWEEP ;; esac
[ -x "$SWEEP" ] || die "$SWEEP is not an executable"
export SWEEP

tmp=$(mktemp -d /tmp/lbsweep-slurm-ci.XXXXXX)
chmod 755 "$tmp"
mkdir -p "$tmp/munge" "$tmp/log" "$tmp/out" "$tmp/state" "$tmp/spool" "$tmp/run"

# 3. munged with its own key and socket (in the foreground it logs to stderr only).
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
sock=$tmp/munge/munge.socket
munged --foreground --force --socket="$sock" --key-file="$tmp/munge/munge.key" --pid-file="$tmp/run/munged.pid" \
  --seed-file="$tmp/munge/munged.seed" >"$tmp/log/munged.log" 2>&1 &
daemon_pid[munged]=$!
daemon_order+=(munged)
for ((i = 0; ; i++)); do
  if timeout 5 munge -n -S "$sock" 2>/dev/null | timeout 5 unmunge -S "$sock" >/dev/null 2>&1; then break; fi
  kill -0 "${daemon_pid[munged]}" 2>/dev/null || die "munged exited"
  [ "$i" -lt 100 ] || die "munged does not answer on $sock after 10 s"
  sleep 0.1
done

# 4. Slurm: a private cluster of one node, localhost, with all of this machine's CPUs.
export SLURM_CONF=$tmp/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=lbsweepci
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MailProg=/bin/true
InactiveLimit=0
KillWait=5
MinJobAge=300
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=256 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

# In the foreground (-D) with no log file configured, they log to stderr.
slurmctld -D -i -f "$SLURM_CONF" >"$tmp/log/slurmctld.log" 2>&1 &
daemon_pid[slurmctld]=$!
daemon_order+=(slurmctld)
slurmd -D -N localhost -f "$SLURM_CONF" >"$tmp/log/slurmd.log" 2>&1 &
daemon_pid[slurmd]=$!
daemon_order+=(slurmd)

deadline=$((SECONDS + start_timeout))
while :; do
  state=$(timeout 5 sinfo -h -n localhost -o %t 2>/dev/null) || state=""
  [ "$state" = idle ] && break
  for d in slurmctld slurmd; do
    kill -0 "${daemon_pid[$d]}" 2>/dev/null || die "$d exited"
  done
  [ "$SECONDS" -lt "$deadline" ] || die "node localhost not idle after ${start_timeout} s (state: ${state:-none})"
  sleep 0.5
done
log "slurm up in $((SECONDS - t0)) s: $(timeout 5 sinfo -h -o '%P %a %D %t %C' | head -n 1)"

# 5. The test: a tiny spec, unsharded reference, then the documented array + dependent merge.
spec=$tmp/slurm-ci.toml
cat >"$spec" <<'EOF'
name = "slurm-ci"
model = "supermarket"
seed = 1
replications = 4

[params]
n = 10
horizon = 2000.0
warmup = 200.0

[sweep]
lambda = [0.5, 0.7, 0.9]
policy = ["random", { name = "jsq_d", d = 2 }]
EOF
timeout 120 "$SWEEP" -q -o "$tmp/ref" "$spec" || die "the unsharded reference run failed"

export SWEEP_ARGS=-q
jid=$(timeout 30 sbatch --parsable --array=0-3 --cpus-per-task=1 --time=10 --output="$tmp/out/sweep-%A_%a.out" \
  "$repo/deploy/slurm/sweep.sbatch" "$spec" "$tmp/results") || die "sbatch sweep.sbatch failed"
jid=${jid%%;*}
log "array job $jid submitted"
merge_rc=0
timeout "$jobs_timeout" sbatch --parsable --wait --dependency="afterok:$jid" --kill-on-invalid-dep=yes --time=10 \
  --output="$tmp/out/merge-%j.out" "$repo/deploy/slurm/merge.sbatch" "$tmp/results/slurm-ci" >"$tmp/merge.jid" &
waiter=$!
wait "$waiter" || merge_rc=$?
waiter=""
[ "$merge_rc" -ne 124 ] || die "the array and merge jobs did not finish in ${jobs_timeout} s"
mid=$(cat "$tmp/merge.jid")
mid=${mid%%;*}
states() { timeout 10 scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]*' | sed 's/JobState=//' | sort | uniq -c |
  awk '{ printf "%s%d %s", (NR > 1 ? ", " : ""), $1, $2 }'; }
tasks=$(states "$jid") || tasks="?"
merge="?"
[ -z "$mid" ] || merge=$(states "$mid") || merge="?"
log "array job $jid: $tasks; merge job ${mid:-?}: $merge (sbatch --wait exit $merge_rc)"
[ "$tasks" = "4 COMPLETED" ] || die "the array tasks did not all complete"
if [ "$merge_rc" -ne 0 ] || [ "$merge" != "1 COMPLETED" ]; then die "the merge job did not complete"; fi
[ -f "$tmp/results/slurm-ci/runs.parquet" ] || die "no merged runs.parquet"
cmp "$tmp/results/slurm-ci/runs.parquet" "$tmp/ref/slurm-ci/runs.parquet" ||
  die "merged runs.parquet differs from the unsharded run"

log "merged runs.parquet ($(wc -c <"$tmp/results/slurm-ci/runs.parquet") bytes) is byte-identical to the unsharded run"
passed=1
echo "1 passed, 0 failed"
