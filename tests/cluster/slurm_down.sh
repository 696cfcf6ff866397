#!/usr/bin/env bash
# Stop the one-node test cluster started by tests/cluster/slurm_up.sh.
#
#   tests/cluster/slurm_down.sh [STATE_DIR]      (default: $LTRBV_SLURM_DIR, else /tmp/ltrbv-slurm)
#
# Cancels the jobs still known to that cluster, then stops only the daemons whose PIDs slurm_up.sh
# recorded in STATE_DIR (slurmd, slurmctld, munged), each checked by name before it is signalled.
# Leaves STATE_DIR (logs, config) in place. Succeeds when nothing is running.
set -uo pipefail
export PATH="$PATH:/usr/sbin:/sbin"

state=${1:-${LTRBV_SLURM_DIR:-/tmp/ltrbv-slurm}}
conf="$state/slurm.conf"

. "$(dirname "${BASH_SOURCE[0]}")/slurm_common.sh"

stop() {  # stop NAME PIDFILE
    local pid
    pid=$(pid_of "$1" "$2") || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || { echo "slurm_down.sh: stopped $1 ($pid)" >&2; return 0; }
        sleep 0.2
    done
    kill -KILL "$pid" 2>/dev/null && echo "slurm_down.sh: killed $1 ($pid)" >&2
    return 0
}

if [ -f "$conf" ] && pid_of slurmctld "$state/slurmctld.pid" >/dev/null; then
    jobs=$(SLURM_CONF="$conf" squeue --noheader --format=%i --states=PENDING,RUNNING,SUSPENDED,CONFIGURING 2>/dev/null | tr '\n' ' ')
    if [ -n "${jobs// /}" ]; then
        # shellcheck disable=SC2086
        SLURM_CONF="$conf" scancel $jobs 2>/dev/null || true
        for _ in $(seq 25); do
            [ -z "$(SLURM_CONF="$conf" squeue --noheader --format=%i --states=RUNNING,COMPLETING 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
fi

stop slurmd "$state/slurmd.pid"
stop slurmctld "$state/slurmctld.pid"
stop munged "$state/munge/munged.pid"
# slurm_up.sh linked /run/slurm/conf to $state; remove that link only.
if [ -L /run/slurm/conf ] && [ "$(readlink /run/slurm/conf)" = "$state" ]; then
    rm -f /run/slurm/conf
fi
exit 0
