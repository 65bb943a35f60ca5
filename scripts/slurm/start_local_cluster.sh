#!/usr/bin/env bash
# A single-node SLURM cluster on this machine, for the SLURM integration test and for trying the
# profile (docs/cluster.md). Needs root. Idempotent: a running cluster is left as it is.
#
#   sudo scripts/slurm/start_local_cluster.sh     # installs slurm-wlm and munge, starts munged, slurmctld, slurmd
#
# The node is this machine, named `localhost`, with the CPUs and memory `slurmd -C` reports; one
# partition, `main`, is the default. There is no slurmdbd, so `sacct` has no data: the profile asks
# the executor to poll `squeue`, and MinJobAge keeps finished jobs visible to it for 10 minutes.
set -euo pipefail

log() { echo "[slurm] $*"; }

if [[ $EUID -ne 0 ]]; then
    echo "[slurm] this script installs packages and starts daemons: run it as root" >&2
    exit 1
fi

if sinfo --noheader --responding --states=idle,mixed,allocated >/dev/null 2>&1 \
        && [[ -n "$(sinfo --noheader --responding --states=idle,mixed,allocated 2>/dev/null)" ]]; then
    log "a SLURM controller already answers: $(sinfo --noheader --format='%P %D %T %c CPUs %m MB' | head -1)"
    exit 0
fi

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    log "installing slurm-wlm and munge from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq slurm-wlm munge >/dev/null
fi

log "starting munged"
install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
install -d -o munge -g munge -m 0755 /run/munge
if [[ ! -s /etc/munge/munge.key ]]; then
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
fi
chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
munge -n | unmunge >/dev/null

log "writing /etc/slurm/slurm.conf"
install -d /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
hardware=$(slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]+ //; s/ UpTime=.*//')
memory=$(sed -nE 's/.*RealMemory=([0-9]+).*/\1/p' <<<"$hardware")
usable=$((memory * 9 / 10))  # leave a tenth to the system and to Snakemake itself
hardware=$(sed -E "s/RealMemory=[0-9]+/RealMemory=$usable/" <<<"$hardware")
cat > /etc/slurm/slurm.conf <<CONF
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

log "starting slurmctld and slurmd"
failed() {
    echo "[slurm] $1; see /var/log/slurm/slurmctld.log and slurmd.log:" >&2
    tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2
    exit 1
}
pgrep -x slurmctld >/dev/null || slurmctld || failed "slurmctld did not start"
pgrep -x slurmd >/dev/null || slurmd -N localhost || failed "slurmd did not start"
for _ in $(seq 60); do
    if [[ -n "$(sinfo --noheader --responding --states=idle,mixed,allocated 2>/dev/null)" ]]; then
        log "ready: $(sinfo --noheader --format='partition %P, %D node, %c CPUs, %m MB')"
        exit 0
    fi
    sleep 1
done
failed "the node did not come up within a minute"
