#!/usr/bin/env bash
# Start a one-node Slurm cluster for the test suite: munged, slurmctld and slurmd, without systemd.
#
#   tests/cluster/slurm_up.sh [STATE_DIR]
#
# STATE_DIR (default: $LTRBV_SLURM_DIR, else /tmp/ltrbv-slurm) holds everything the cluster writes:
# slurm.conf (from tests/cluster/slurm.conf.in), a private MUNGE key and socket, the daemons' PID files,
# logs and spool directories. Nothing under /etc is changed; the one thing outside STATE_DIR is the link
# /run/slurm/conf -> STATE_DIR (for srun inside jobs, see below). Clients find the cluster through
# SLURM_CONF=STATE_DIR/slurm.conf. Prints two lines on stdout: LTRBV_SLURM_STARTED=yes|no (no: the cluster
# was already up, so whoever started it stops it) and SLURM_CONF=STATE_DIR/slurm.conf.
#
# Idempotent: when the daemons recorded in STATE_DIR are running and the node answers, it only prints
# those two lines. A half-started cluster is stopped (tests/cluster/slurm_down.sh) and started again.
# Exits non-zero with a message saying what is missing or which daemon failed (and its log).
#
# Settings (environment): LTRBV_SLURM_PARTITION (debug), LTRBV_SLURMCTLD_PORT (6817),
# LTRBV_SLURMD_PORT (6818), LTRBV_SLURM_CPUS (nproc), LTRBV_SLURM_MEM_MB (MemTotal in MB).
# Needs root and the Debian/Ubuntu packages slurm-wlm and munge.
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"

here=$(cd "$(dirname "$0")" && pwd)
state=${1:-${LTRBV_SLURM_DIR:-/tmp/ltrbv-slurm}}
partition=${LTRBV_SLURM_PARTITION:-debug}
ctld_port=${LTRBV_SLURMCTLD_PORT:-6817}
slurmd_port=${LTRBV_SLURMD_PORT:-6818}
cpus=${LTRBV_SLURM_CPUS:-$(nproc)}
mem_mb=${LTRBV_SLURM_MEM_MB:-$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 ))}
conf="$state/slurm.conf"
munge_dir="$state/munge"
sock="$munge_dir/munge.socket"

die() {
    echo "slurm_up.sh: $*" >&2
    exit 1
}

missing=()
for tool in munged mungekey munge unmunge slurmctld slurmd sbatch squeue scontrol sinfo scancel; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
    die "not found: ${missing[*]}. Install Slurm and MUNGE first (Debian/Ubuntu: apt-get install -y slurm-wlm munge)."
fi
[ "$(id -u)" = 0 ] || die "must run as root: slurmd launches jobs as the submitting user and munged runs as user munge."
id munge >/dev/null 2>&1 || die "user 'munge' does not exist (the munge package creates it)."
command -v runuser >/dev/null 2>&1 || die "runuser (util-linux) not found; it starts munged as user munge."
case "$state" in /*) ;; *) state="$(pwd)/$state"; conf="$state/slurm.conf"; munge_dir="$state/munge"; sock="$munge_dir/munge.socket" ;; esac

. "$(dirname "${BASH_SOURCE[0]}")/slurm_common.sh"

node_state() {
    SLURM_CONF="$conf" sinfo --noheader --nodes=localhost --format=%T 2>/dev/null | head -n 1 | tr -d '*~#!%$@^-'
}

cluster_ready() {
    pid_of munged "$munge_dir/munged.pid" >/dev/null \
        && pid_of slurmctld "$state/slurmctld.pid" >/dev/null \
        && pid_of slurmd "$state/slurmd.pid" >/dev/null \
        && SLURM_CONF="$conf" scontrol ping 2>/dev/null | grep -q "is UP" \
        && case "$(node_state)" in idle | mixed | allocated | completing) true ;; *) false ;; esac
}

show_log() {
    echo "---- last lines of $1 ----" >&2
    tail -n 25 "$1" >&2 2>/dev/null || echo "(no log)" >&2
}

if [ -f "$conf" ] && cluster_ready; then
    echo "slurm_up.sh: cluster in $state is already running (partition $partition)." >&2
    echo "LTRBV_SLURM_STARTED=no"
    echo "SLURM_CONF=$conf"
    exit 0
fi

# Slurm commands run inside a job without SLURM_CONF (snakemake-executor-plugin-slurm-jobstep drops it
# before its nested `srun`) read /etc/slurm/slurm.conf, else /run/slurm/conf/slurm.conf (where a configless
# slurmd keeps its copy). Link /run/slurm/conf to $state, unless another Slurm set-up owns either place.
if [ -e /etc/slurm/slurm.conf ]; then
    die "/etc/slurm/slurm.conf exists (another Slurm set-up): srun inside the test jobs would read it instead of $conf."
fi
if [ -e /run/slurm/conf ] || [ -L /run/slurm/conf ]; then
    [ -L /run/slurm/conf ] && [ "$(readlink /run/slurm/conf)" = "$state" ] \
        || die "/run/slurm/conf exists and is not a link to $state (a configless slurmd of another cluster?)."
fi

# Anything half-started from an earlier attempt: stop it (only the daemons recorded in $state).
"$here/slurm_down.sh" "$state" >/dev/null 2>&1 || true

mkdir -p "$state/ctld" "$state/slurmd" "$state/log" "$munge_dir"
chmod 0755 "$state"
chown munge:munge "$munge_dir"
chmod 0755 "$munge_dir"  # munged: clients need to reach the socket; the key file itself is 0600

# MUNGE: a private key, socket, PID and log file under $state; started as user munge.
if [ ! -s "$munge_dir/munge.key" ]; then
    runuser -u munge -- mungekey --create --keyfile="$munge_dir/munge.key" \
        || die "could not create a MUNGE key in $munge_dir"
fi
runuser -u munge -- munged --socket="$sock" --key-file="$munge_dir/munge.key" \
    --pid-file="$munge_dir/munged.pid" --log-file="$munge_dir/munged.log" \
    --seed-file="$munge_dir/munged.seed" \
    || { show_log "$munge_dir/munged.log"; die "munged did not start"; }
for _ in $(seq 50); do
    munge -n -S "$sock" 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1 && break
    sleep 0.2
done
munge -n -S "$sock" | unmunge -S "$sock" >/dev/null \
    || { show_log "$munge_dir/munged.log"; die "munged is not answering on $sock"; }

sed -e "s|@STATE@|$state|g" -e "s|@MUNGE_SOCKET@|$sock|g" -e "s|@CTLD_PORT@|$ctld_port|g" \
    -e "s|@SLURMD_PORT@|$slurmd_port|g" -e "s|@CPUS@|$cpus|g" -e "s|@MEM@|$mem_mb|g" \
    -e "s|@PARTITION@|$partition|g" "$here/slurm.conf.in" > "$conf"
export SLURM_CONF="$conf"
mkdir -p /run/slurm
ln -sfn "$state" /run/slurm/conf

# -c: start with no jobs from an earlier run of this test cluster.
slurmctld -c -f "$conf" || { show_log "$state/log/slurmctld.log"; die "slurmctld did not start"; }
for _ in $(seq 50); do
    scontrol ping 2>/dev/null | grep -q "is UP" && break
    sleep 0.2
done
scontrol ping 2>/dev/null | grep -q "is UP" \
    || { show_log "$state/log/slurmctld.log"; die "slurmctld is not answering on port $ctld_port (in use by another Slurm? set LTRBV_SLURMCTLD_PORT)"; }

slurmd -f "$conf" -N localhost || { show_log "$state/log/slurmd.log"; die "slurmd did not start"; }
for _ in $(seq 100); do
    case "$(node_state)" in idle | mixed | allocated) break ;; esac
    sleep 0.3
done
case "$(node_state)" in
    idle | mixed | allocated) ;;
    down | drained | draining | drain)
        scontrol update nodename=localhost state=resume >/dev/null 2>&1 || true
        sleep 1
        ;;
esac
if ! cluster_ready; then
    show_log "$state/log/slurmctld.log"
    show_log "$state/log/slurmd.log"
    die "node 'localhost' is not ready (state: '$(node_state)'); see the logs above"
fi

echo "slurm_up.sh: one-node cluster up in $state: partition $partition, $cpus CPUs, $mem_mb MB" \
    "(munged $(cat "$munge_dir/munged.pid"), slurmctld $(cat "$state/slurmctld.pid"), slurmd $(cat "$state/slurmd.pid"))." >&2
echo "LTRBV_SLURM_STARTED=yes"
echo "SLURM_CONF=$conf"
