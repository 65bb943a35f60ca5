#!/usr/bin/env bash
# A single-node SLURM cluster on this machine, for the SLURM integration test and for trying the
# profile (docs/cluster.md). Needs root. Idempotent: a healthy cluster that this script started is
# left as it is; anything else found running is stopped and replaced.
#
#   sudo scripts/slurm/start_local_cluster.sh     # installs slurm-wlm and munge, starts munged, slurmctld, slurmd
#   sudo scripts/slurm/start_local_cluster.sh --started-file F   # also creates F if this call started the daemons
#   sudo scripts/slurm/start_local_cluster.sh --stop             # stops the slurmd and slurmctld this script started
#
# The node is this machine, named `localhost`, with the CPUs and memory `slurmd -C` reports; one
# partition, `main`, is the default. There is no slurmdbd, so `sacct` has no data: the profile asks
# the executor to poll `squeue`, and MinJobAge keeps finished jobs visible to it for 10 minutes.
#
# The script records the slurmctld and slurmd it starts (pid and start time) and the configuration
# they were started with in /run/icdenoise-slurm/daemons (gone at reboot). A running cluster is kept
# only if both daemons are the recorded ones, no other slurmctld or slurmd runs, /etc/slurm/slurm.conf
# is what this script would write now, and the node `localhost` answers in partition `main` in a usable
# state (idle, mixed or allocated), registered by the recorded slurmd (its SlurmdStartTime). A node left DOWN or DRAINED by an earlier run is resumed when the
# daemons are otherwise healthy. In every other case (a daemon missing, a foreign or still-stopping one,
# another configuration, a node that stays unusable) every slurmd and slurmctld is stopped (SIGTERM,
# then SIGKILL after 20 s) and both are started again. If the node is not usable 75 s after that, the
# script fails at once and says which daemon, which node state, and the logs' last lines.
#
# munged is started if absent, and restarted if `munge -n | unmunge` fails.
# --stop stops only the recorded daemons, waiting until they are gone; it leaves munged running (it
# holds no state and other SLURM clients on this machine may use it). --started-file lets a caller
# (.ci/run) stop, when it ends, only what its own call started: the file is created as soon as this
# call starts a daemon, and is not created when a healthy cluster was already running.
set -euo pipefail

CONF=/etc/slurm/slurm.conf
STATE=/run/icdenoise-slurm  # the record of the daemons this script started, and a lock
RECORD=$STATE/daemons
LOGS=(/var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log)
READY_WAIT=75  # seconds for the node to become usable after a (re)start
RESUME_WAIT=15  # seconds for a down or drained node of healthy daemons to come back after a resume
STOP_WAIT=20  # seconds a daemon has to exit after SIGTERM before it is killed
export SLURM_CONF=$CONF  # this script's sinfo, scontrol and daemons read its configuration, whatever the caller's environment

log() { echo "[slurm] $*"; }

usage() {
    echo "usage: $0 [--started-file FILE] | --stop" >&2
}

mode=start started_file=
while (($#)); do
    case $1 in
        --stop) mode=stop ;;
        --started-file) [[ $# -ge 2 ]] || { usage; exit 2; }; started_file=$2; shift ;;
        --started-file=*) started_file=${1#*=} ;;
        -h | --help) usage; exit 0 ;;
        *) usage; exit 2 ;;
    esac
    shift
done

if [[ $EUID -ne 0 ]]; then
    echo "[slurm] this script installs packages and starts daemons: run it as root" >&2
    exit 1
fi

install -d -m 0755 "$STATE"
exec 9>"$STATE/lock"
flock -w 180 9 || { echo "[slurm] another run of this script holds $STATE/lock" >&2; exit 1; }

# --- processes --------------------------------------------------------------------------------------

# "STATE STARTTIME PPID" of a process (fields 3, 22 and 4 of /proc/PID/stat), or nothing if there is none.
proc_stat() {
    local stat fields
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    read -r -a fields <<<"${stat##*) }"
    echo "${fields[0]} ${fields[19]} ${fields[1]}"
}

# "PID:STARTTIME" of each live (not zombie) process whose command name is exactly $1.
live() {
    local pid stat
    for pid in $(pgrep -x "$1" || true); do
        stat=$(proc_stat "$pid")
        [[ -n $stat && ${stat%% *} != Z ]] || continue
        read -r _ start _ <<<"$stat"
        echo "$pid:$start"
    done
}

# Whether PID:STARTTIME is still that live process (a reused pid has another start time).
alive() {
    local stat
    stat=$(proc_stat "${1%%:*}")
    [[ -n $stat && ${stat%% *} != Z && $(cut -d' ' -f2 <<<"$stat") == "${1#*:}" ]]
}

# The recorded PID:STARTTIME of daemon $1, or nothing.
recorded() {
    [[ -r $RECORD ]] && awk -v name="$1" '$1 == name {print $2; exit}' "$RECORD" || true
}

# Waits up to $1 seconds for the processes PID:STARTTIME... to be gone.
wait_gone() {
    local deadline=$((SECONDS + $1)) id left
    shift
    while :; do
        left=()
        for id in "$@"; do alive "$id" && left+=("$id"); done
        ((${#left[@]} == 0)) && return 0
        ((SECONDS >= deadline)) && return 1
        sleep 0.5
    done
}

# Stops daemon $1, processes PID:STARTTIME...: SIGTERM, then SIGKILL after STOP_WAIT seconds.
stop_procs() {
    local name=$1 id pids=()
    shift
    (($#)) || return 0
    for id in "$@"; do pids+=("${id%%:*}"); done
    log "stopping $name (pid ${pids[*]})"
    kill -TERM "${pids[@]}" 2>/dev/null || true
    wait_gone "$STOP_WAIT" "$@" && return 0
    pids=()
    for id in "$@"; do alive "$id" && pids+=("${id%%:*}"); done
    log "$name (pid ${pids[*]}) still running ${STOP_WAIT} s after SIGTERM: killing it"
    kill -KILL "${pids[@]}" 2>/dev/null || true
    wait_gone 10 "$@" || { echo "[slurm] $name (pid ${pids[*]}) survives SIGKILL" >&2; exit 1; }
}

# Stops every slurmd, then every slurmctld, whoever started them.
stop_all() {
    local ids
    mapfile -t ids < <(live slurmd)
    stop_procs slurmd "${ids[@]}"
    mapfile -t ids < <(live slurmctld)
    stop_procs slurmctld "${ids[@]}"
    rm -f "$RECORD" /run/slurmd.pid /run/slurmctld.pid
}

if [[ $mode == stop ]]; then
    for name in slurmd slurmctld; do
        id=$(recorded "$name")
        if [[ -n $id ]] && alive "$id"; then
            stop_procs "$name" "$id"
        else
            log "no $name started by this script is running"
        fi
    done
    rm -f "$RECORD"
    others=$( (live slurmd; live slurmctld) | cut -d: -f1 | paste -sd' ')
    [[ -z $others ]] || log "left alone: slurmd/slurmctld not started by this script (pid $others)"
    exit 0
fi

# --- the node ---------------------------------------------------------------------------------------

# "STATE|AVAIL|REASON" of node localhost in partition main, as this configuration's controller says, or nothing.
node_state() {
    timeout 10 sinfo --noheader --Node --nodes=localhost --partition=main --format='%T|%a|%E' 2>/dev/null | head -1 || true
}

usable() {  # idle, mixed or allocated, responding (no * or other suffix), and the partition up
    [[ $1 =~ ^(idle|mixed|allocated)\|up\| ]]
}

# Whether the node's SlurmdStartTime, as the controller has it, is the recorded slurmd's start (within 5 s):
# the node answers through this script's slurmd, not through an earlier or a foreign one.
registered() {
    local id shown started
    id=$(recorded slurmd)
    [[ -n $id ]] || return 1
    shown=$(timeout 10 scontrol show node localhost --oneliner 2>/dev/null | grep -o 'SlurmdStartTime=[^ ]*' | cut -d= -f2 || true)
    shown=$(date -d "$shown" +%s 2>/dev/null) || return 1
    started=$(($(awk '$1 == "btime" {print $2}' /proc/stat) + ${id#*:} / $(getconf CLK_TCK)))
    ((shown - started <= 5 && started - shown <= 5))
}

# Whether the node is usable and registered by the recorded slurmd; leaves what was seen in $state.
node_ok() {
    state=$(node_state)
    usable "$state" || return 1
    registered && return 0
    state="$state (registered by another slurmd than pid $(recorded slurmd | cut -d: -f1))"
    return 1
}

describe() {  # the partition and node in words
    timeout 10 sinfo --noheader --format='partition %R, %D node, %T, %c CPUs, %m MB' 2>/dev/null | head -1 || true
}

daemons_report() {
    local name id
    for name in slurmctld slurmd; do
        id=$(recorded "$name")
        if [[ -n $id ]] && alive "$id"; then
            echo "  $name: running (pid ${id%%:*})"
        else
            echo "  $name: NOT running${id:+ (pid ${id%%:*} exited)}"
        fi
    done
}

failed() {
    local state
    state=$(node_state)
    {
        echo "[slurm] FAILED: $1"
        daemons_report
        echo "  node localhost in partition main: ${state:-no answer from slurmctld} (state|partition|reason)"
        echo "  configuration: $CONF; last lines of the logs:"
        tail -n 20 "${LOGS[@]}" 2>&1 | sed 's/^/  /'
    } >&2
    exit 1
}

# Waits up to $1 seconds for the node to be usable; resumes it while it is down, drained or failed but
# responding. Fails as soon as one of the recorded daemons has exited. Leaves the last state in $state.
wait_usable() {
    local deadline=$((SECONDS + $1)) last_resume=-10 name id
    while :; do
        node_ok && return 0
        for name in slurmctld slurmd; do
            id=$(recorded "$name")
            [[ -n $id ]] && alive "$id" || failed "$name exited (node: ${state:-no answer})"
        done
        if [[ $state =~ ^(down|drain|drained|draining|fail|failing)\| ]] && ((SECONDS - last_resume >= 5)); then
            log "node localhost is ${state%%|*} (reason: ${state##*|}): resuming it"
            timeout 10 scontrol update nodename=localhost state=resume || true
            last_resume=$SECONDS
        fi
        ((SECONDS >= deadline)) && return 1
        sleep 1
    done
}

# --- packages, munge, configuration -------------------------------------------------------------------

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    log "installing slurm-wlm and munge from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq slurm-wlm munge >/dev/null
fi

install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
install -d -o munge -g munge -m 0755 /run/munge
if [[ ! -s /etc/munge/munge.key ]]; then
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
fi
chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
munge_ok() { timeout 10 munge -n 2>/dev/null | timeout 10 unmunge >/dev/null 2>&1; }
if [[ -z $(live munged) ]]; then
    log "starting munged"
    runuser -u munge -- /usr/sbin/munged 9>&-
elif ! munge_ok; then
    mapfile -t ids < <(live munged)
    log "munged does not answer: restarting it"
    stop_procs munged "${ids[@]}"
    runuser -u munge -- /usr/sbin/munged 9>&-
fi
munge_ok || { echo "[slurm] munged does not answer (munge -n | unmunge fails)" >&2; tail -n 20 /var/log/munge/munged.log >&2; exit 1; }

install -d /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
hardware=$(slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]+ //; s/ UpTime=.*//')
memory=$(sed -nE 's/.*RealMemory=([0-9]+).*/\1/p' <<<"$hardware")
usable_memory=$((memory * 9 / 10))  # leave a tenth to the system and to Snakemake itself
hardware=$(sed -E "s/RealMemory=[0-9]+/RealMemory=$usable_memory/" <<<"$hardware")
wanted=$(cat <<CONF
# Written by scripts/slurm/start_local_cluster.sh: a one-node cluster on localhost.
ClusterName=icdenoise
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
MinJobAge=600
KillWait=5
NodeName=localhost $hardware State=UNKNOWN
PartitionName=main Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
)
wanted_sum=$(sha256sum <<<"$wanted" | cut -d' ' -f1)

# --- keep what runs, or say why not -------------------------------------------------------------------

# Why the running daemons cannot be kept as they are (nothing if they can).
why_not_ours() {
    local name id others parent ctld_pid
    ctld_pid=$(recorded slurmctld); ctld_pid=${ctld_pid%%:*}
    for name in slurmctld slurmd; do
        id=$(recorded "$name")
        if [[ -z $id ]]; then echo "no $name recorded in $RECORD as started by this script"; return; fi
        alive "$id" || { echo "the recorded $name (pid ${id%%:*}) is not running"; return; }
    done
    # Any other slurmctld or slurmd, except short-lived forks of the recorded ones, is foreign.
    others=()
    for name in slurmctld slurmd; do
        while read -r id; do
            [[ -n $id && $id != "$(recorded "$name")" ]] || continue
            parent=$(proc_stat "${id%%:*}" | cut -d' ' -f3)
            [[ $parent == "$ctld_pid" || $parent == "$(recorded slurmd | cut -d: -f1)" ]] && continue
            others+=("$name pid ${id%%:*}")
        done < <(live "$name")
    done
    ((${#others[@]} == 0)) || { echo "other daemons run beside this script's: ${others[*]}"; return; }
    [[ -r $CONF && $(cat "$CONF") == "$wanted" ]] || { echo "$CONF differs from what this script writes"; return; }
    [[ $(awk '$1 == "conf" {print $2}' "$RECORD") == "$wanted_sum" ]] \
        || { echo "the daemons were started with another configuration"; return; }
}

running=$( (live slurmctld; live slurmd) | wc -l)
if ((running > 0)); then
    reason=$(why_not_ours)
    if [[ -z $reason ]]; then
        if node_ok; then
            log "this script's cluster is running and usable, left as it is: $(describe)"
            exit 0
        fi
        log "this script's daemons run but node localhost is ${state:-not answering}: bringing it back"
        if wait_usable "$RESUME_WAIT"; then
            log "ready: $(describe)"
            exit 0
        fi
        reason="node localhost stayed '${state:-not answering}' for $RESUME_WAIT s"
    fi
    log "restarting SLURM: $reason"
    stop_all
else
    rm -f "$RECORD"
fi

# --- start --------------------------------------------------------------------------------------------

log "writing $CONF"
printf '%s\n' "$wanted" >"$CONF.tmp" && mv "$CONF.tmp" "$CONF"
echo "conf $wanted_sum" >"$RECORD"

# Starts daemon $1 (command "$@"), which forks into the background and writes /run/$1.pid; records it.
start_daemon() {
    local name=$1 pidfile=/run/$1.pid pid stat deadline=$((SECONDS + 15))
    rm -f "$pidfile"
    "$@" 9>&- || failed "$name did not start"  # 9: the lock, not to be held by the daemon
    while :; do
        pid=$(cat "$pidfile" 2>/dev/null || true)
        if [[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == "$name" ]]; then
            stat=$(proc_stat "$pid")
            if [[ -n $stat && ${stat%% *} != Z ]]; then
                echo "$name $pid:$(cut -d' ' -f2 <<<"$stat")" >>"$RECORD"
                [[ -z $started_file ]] || touch "$started_file"
                return 0
            fi
        fi
        ((SECONDS >= deadline)) && failed "$name exited at start (no live pid in $pidfile after 15 s)"
        sleep 0.2
    done
}

log "starting slurmctld and slurmd"
start_daemon slurmctld
start_daemon slurmd -N localhost
wait_usable "$READY_WAIT" || failed "node localhost not usable $READY_WAIT s after the start (last seen: ${state:-no answer})"
log "ready: $(describe)"
