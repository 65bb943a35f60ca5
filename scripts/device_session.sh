#!/usr/bin/env bash
# One device call, everything measured in one go (docs/performance.md), three things at once on the GPU:
# - a slot of the named run mssa_paper_scale (scripts/advance_run.sh): its trainings in SLOT_TARGETS continue from
#   the checkpoints earlier slots brought home (carried in runs/slots/mssa_paper_scale) and stop, saved, before the
#   call ends; their checkpoints come back in parts of 15 MiB (the tool brings back 8 files of at most 16 MiB,
#   64 MiB in all, and carries 64 MiB with the tree and the wheels: MSSA's checkpoint is 13 MB, MHSA's 25 MB and the
#   transformer's 38 MB, so a slot brings home two MSSA trainings, or one MHSA and one MSSA, or one transformer),
#   the finished ones in slot/finished.tgz; at home `advance_run.sh --home` puts them under runs/slots/mssa_paper_scale;
# - the CUDA-only tests, a captured run stopped at every chunk and continued among them;
# - gpu_check --studies, which runs the device jobs of the onelayer ensembles and of the studies again on the GPU
#   and compares their tables and every verdict with a CPU run of the same ledgers;
# then, if time is left, whether the induction head's GPU runs repeat bit for bit (memory.tools.gpu_determinism
# pipeline). The MSSA step is timed by icdenoise.studies.mssa.tools.step_bench and .kernels when that is the question.
# The slot trains only from a tree equal to its commit (advance_run.sh says why). There .git is the session's starting
# state (seen 2026-11-30: the card named the session's first commit, not the two made before the call), so make the
# call before committing anything in the session.
# Run from the repository root on the device machine
# with the wheels of .whl/ carried (Snakemake and what it needs that the machine's image lacks); every result
# but the checkpoints goes to $OUT, packed as device-session.tgz.
#   bash scripts/device_session.sh [seconds]     (default 540: the whole call's budget)
# The CPU run of --studies is built on the device's cores unless runs/gpucpu/cpu is carried: a run built
# elsewhere, at the same commit, with `gpu_check.py --studies --cpu-only --keep runs/gpucpu`. Its results/datasets
# (most of its bytes) may stay behind: the check draws them again and compares them with its datasets.json.
set -uo pipefail
budget=${1:-540}
end=$(( $(date +%s) + budget ))
left() { echo $(( end - $(date +%s) )); }
out=${OUT:-/tmp/device-out}
mkdir -p "$out"
pack() {  # the device tool brings back only a few files: all but the checkpoints go back as one archive, whatever ends the call
  tar czf /tmp/device-session.tgz --exclude='*.checkpoint.part-*' -C "$out" . &&
    find "$out" -mindepth 1 -type f ! -name '*.checkpoint.part-*' -delete && mv /tmp/device-session.tgz "$out/"
}
trap pack EXIT
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD/src PYTHONUNBUFFERED=1 PATH=/tmp/site/bin:$PATH  # pip --target puts snakemake there
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  python3 -c "import torch, sys; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'python', sys.version.split()[0])"
  nproc; date -u; git log -1 --format='commit %h %s' 2>/dev/null; git diff --stat HEAD | tail -1; } 2>&1 | tee "$out/card.txt"

SLOT_TARGETS=(runs/mssa_paper_scale/results/mssa/regression/{linear,sparse}/mssa/seed0/errors.parquet)
echo "== mssa_paper_scale's slot, in the background: ${SLOT_TARGETS[*]} ($(left) s left)"
bash scripts/advance_run.sh $(( $(left) - 60 )) "$out/slot" runs/slots/mssa_paper_scale config/mssa_paper_scale.yaml \
  "${SLOT_TARGETS[@]}" >"$out/slot.log" 2>&1 &
slot_pid=$!

echo "== CUDA tests, in the background ($(left) s left)"
timeout 150 python3 -m pytest -q -p no:cacheprovider -o addopts= tests/unit/studies/mssa/test_mssa_static_training.py \
  tests/integration/test_gpu_kernels.py tests/unit/maths/test_adam.py tests/unit/maths/test_sgd.py \
  tests/unit/studies/memory/test_memory_induction_static.py >"$out/pytest.log" 2>&1 &
tests_pid=$!

cpu_run=()
[[ -d runs/gpucpu/cpu/benchmarks ]] && cpu_run=(--cpu-run runs/gpucpu/cpu)
echo "== gpu_check --studies ($(left) s left)"  # it leaves the determinism check 90 s and the slot's end 60 s
timeout $(( $(left) - 170 )) python3 scripts/gpu_check.py --studies "${cpu_run[@]}" --keep /tmp/keep 2>&1 | tee "$out/gpu_check_studies.log" | tail -45
for ledger in /tmp/keep/device/figures/*/claims.md /tmp/keep/device/figures/*/claims.parquet; do
  [[ -f $ledger ]] && install -D "$ledger" "$out/ledgers/device/${ledger#/tmp/keep/device/figures/}"
done

wait $tests_pid; echo "== CUDA tests:"; tail -15 "$out/pytest.log"
echo "== gpu_determinism: the induction head as the pipeline trains it, twice in a process, in two processes ($(left) s left)"
if (( $(left) > 130 )); then  # 60 s ended it before the two processes were compared (2026-11-30)
  timeout 90 python3 -m icdenoise.studies.memory.tools.gpu_determinism pipeline 2>&1 | tee "$out/determinism.log" | tail -4
fi
echo "== mssa_paper_scale's slot ends ($(left) s left)"
wait $slot_pid
grep -hE "resuming|checkpointed at|steps/s|finished|checkpoint of|exited" "$out/slot.log" | tail -12
nvidia-smi --query-gpu=name,memory.used --format=csv >>"$out/card.txt" 2>&1
echo "== done ($(left) s left)"
