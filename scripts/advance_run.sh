#!/usr/bin/env bash
# One slot of a named run whose trainings outlast a slot (a lent GPU's call, a cluster allocation): put back what
# earlier slots brought home, train for at most SECONDS (execution.checkpoint.budget_s, so each job saves and stops
# cleanly: docs/experiments.md, "Long trainings: stop and continue"), and leave in OUT what the next slot needs.
#   bash scripts/advance_run.sh SECONDS OUT CARRIED CONFIGFILE TARGET...
#   bash scripts/advance_run.sh --home OUT CARRIED      (at home: put what a slot left in OUT under CARRIED)
# CARRIED holds files from earlier slots at their paths in the repository (runs/<name>/...): checkpoints and
# finished outputs. They are copied into place first; finished outputs count as done (no mtime trigger: the
# checkpoints' identity already names the code they were trained with). In OUT, each unfinished target's checkpoint
# is named by its path with '/' written '__' (the device tool brings back flat names only), in parts of at most
# PART_BYTES (default 15 MiB: the tool brings back files of at most 16 MiB), and the finished targets' folders
# (outputs, logs, benchmarks) are finished.tgz. --home joins the parts, puts each checkpoint back at its path under
# CARRIED, removes those of the targets that finished, and unpacks finished.tgz there.
# A table trained from a tree that differs from its commit is never registered (icdenoise.records.registration), so
# the slot refuses such a tree: commit first. On a lent GPU, .git is the session's starting state: make the call
# before committing anything in that session, or the tree differs from it there.
set -uo pipefail
if [[ ${1:-} == --home ]]; then
  out=$2 carried=$3
  for first in "$out"/*.checkpoint.part-aa; do
    [[ -f $first ]] || continue
    name=$(basename "${first%.part-aa}")
    install -D /dev/null "$carried/${name//__//}"
    cat "${first%-aa}"-* >"$carried/${name//__//}"
    echo "checkpoint put back: $carried/${name//__//}"
  done
  if [[ -f $out/finished.tgz ]]; then
    tar tzf "$out/finished.tgz" | grep '\.parquet$' | while read -r table; do
      rm -fv "$carried/$(dirname "$table")/.$(basename "$table").checkpoint"
    done
    tar xzf "$out/finished.tgz" -C "$carried" && echo "finished tables put back: $(tar tzf "$out/finished.tgz" | grep -c 'parquet$')"
  fi
  exit 0
fi
seconds=$1 out=$2 carried=$3 configfile=$4
shift 4
targets=("$@")
mkdir -p "$out"
if ! git diff --quiet HEAD; then
  echo "advance_run: the tree differs from $(git rev-parse --short HEAD) (git diff --stat HEAD below); tables trained" \
    "here could not be registered, so nothing is trained. Commit first, and on a lent GPU make the call before" \
    "any commit of the session." >&2
  git diff --stat HEAD | tail -5 >&2
  exit 1
fi
if [[ -d $carried ]]; then
  (cd "$carried" && find . -type f -printf '%P\n') | while read -r path; do install -D -m 644 "$carried/$path" "$path"; done
  echo "put back from $carried: $(find "$carried" -type f | wc -l) file(s)"
fi
slot=$(mktemp --suffix=.yaml)
printf 'execution:\n  checkpoint: {every_s: 60, every_steps: null, budget_s: %s}\n' "$seconds" >"$slot"
snakemake "${targets[@]}" --cores "${#targets[@]}" --keep-going --rerun-triggers params input code software-env \
  --configfile "$configfile" "$slot"
echo "snakemake exited with $?"
finished=()
for target in "${targets[@]}"; do
  checkpoint=$(dirname "$target")/.$(basename "$target").checkpoint
  if [[ -f $target ]]; then
    finished+=("$(dirname "$target")")
  elif [[ -f $checkpoint ]]; then
    split -a 2 -b "${PART_BYTES:-15728640}" "$checkpoint" "$out/${checkpoint//\//__}.part-"
    echo "$target: checkpoint of $(du -h "$checkpoint" | cut -f1) to bring home," \
      "$(find "$out" -name "${checkpoint//\//__}.part-*" | wc -l) part(s)"
  else
    echo "$target: neither finished nor checkpointed; see its log"
  fi
done
run=$(cut -d/ -f1-2 <<<"${targets[0]}")  # runs/<name>
logs=$(find "$run/logs" "$run/benchmarks" -newer "$slot" -type f 2>/dev/null)
if ((${#finished[@]})); then
  tar czf "$out/finished.tgz" "${finished[@]}" $logs
  echo "finished: ${finished[*]}"
fi
[[ -n $logs ]] && tar czf "$out/slot-logs.tgz" $logs
rm -f "$slot"
