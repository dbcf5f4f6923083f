#!/usr/bin/env bash
# A throwaway one-node Slurm on this machine, to test scripts/datagen-slurm.sh
# without a cluster (a test aid, not for production). Everything lives under
# one directory: its own munge key and socket, slurm.conf, state, logs.
#
#   scripts/slurm-local.sh start     # then: export SLURM_CONF=$DIR/slurm.conf
#   scripts/slurm-local.sh status
#   scripts/slurm-local.sh stop      # scontrol shutdown, munged stopped
#
# Needs Debian's `slurm-wlm` and `munge` (apt-get install slurm-wlm munge).
# Environment: SLURM_LOCAL_DIR (default /tmp/slurm-local), SLURM_LOCAL_CPUS
# (default: the cores here). Runs as the calling user (root is fine too).
set -euo pipefail

dir=${SLURM_LOCAL_DIR:-/tmp/slurm-local}
cpus=${SLURM_LOCAL_CPUS:-$(nproc)}
node=$(hostname -s)
user=$(id -un)
conf=$dir/slurm.conf

usage() {
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
}

start() {
    for tool in munged slurmctld slurmd scontrol; do
        command -v "$tool" >/dev/null 2>&1 || [[ -x /usr/sbin/$tool ]] ||
            { echo "slurm-local: $tool not found (apt-get install slurm-wlm munge)" >&2; exit 1; }
    done
    if [[ -f $dir/slurmctld.pid ]] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
        echo "slurm-local: already running in $dir" >&2
        exit 1
    fi
    mkdir -p "$dir"/{munge,state,spool,log}
    chmod 700 "$dir/munge"
    if [[ ! -f $dir/munge/munge.key ]]; then
        (umask 077 && head -c 1024 /dev/urandom >"$dir/munge/munge.key")
    fi
    PATH=$PATH:/usr/sbin munged --force --key-file="$dir/munge/munge.key" \
        --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
        --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed"
    cat >"$conf" <<EOF
# Written by scripts/slurm-local.sh: one node, one partition, no accounting.
ClusterName=local
SlurmctldHost=$node
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MpiDefault=none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF=$conf
    PATH=$PATH:/usr/sbin slurmctld -f "$conf"
    PATH=$PATH:/usr/sbin slurmd -f "$conf"
    for _ in $(seq 30); do
        if sinfo -h -o '%t' 2>/dev/null | grep -qx 'idle'; then
            echo "slurm-local: up in $dir; export SLURM_CONF=$conf"
            return 0
        fi
        sleep 1
    done
    echo "slurm-local: the node did not come up; see $dir/log" >&2
    exit 1
}

stop() {
    export SLURM_CONF=$conf
    # The daemons' pids, read before they remove their pid files.
    local daemons=() file pid alive
    for file in "$dir/slurmctld.pid" "$dir/slurmd.pid"; do
        [[ -s $file ]] && daemons+=("$(cat "$file")")
    done
    if [[ -f $conf ]]; then
        scontrol shutdown >/dev/null 2>&1 || true
    fi
    for _ in $(seq 20); do
        alive=false
        for pid in "${daemons[@]}"; do
            kill -0 "$pid" 2>/dev/null && alive=true
        done
        $alive || break
        sleep 1
    done
    for pid in "${daemons[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    # munged last: the Slurm daemons use it until they end.
    if [[ -s $dir/munge/munged.pid ]]; then
        kill "$(cat "$dir/munge/munged.pid")" 2>/dev/null || true
    fi
    echo "slurm-local: stopped ($dir kept: logs and state)"
}

case ${1:-} in
    start) start ;;
    stop) stop ;;
    status) SLURM_CONF=$conf sinfo && SLURM_CONF=$conf squeue ;;
    -h | --help | help) usage ;;
    *) usage >&2; exit 2 ;;
esac
