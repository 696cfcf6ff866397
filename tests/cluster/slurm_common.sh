# Shared by slurm_up.sh and slurm_down.sh (sourced).

# pid_of NAME PIDFILE: print the PID recorded in PIDFILE if that process is running and is NAME.
pid_of() {
    local pid
    [ -s "$2" ] || return 1
    pid=$(tr -dc '0-9' < "$2")
    [ -n "$pid" ] && [ -r "/proc/$pid/comm" ] && [ "$(cat "/proc/$pid/comm")" = "$1" ] || return 1
    echo "$pid"
}
