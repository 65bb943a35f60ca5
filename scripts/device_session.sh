#!/usr/bin/env bash
# One device call, everything measured in one go (docs/performance.md): the card; the CUDA-only tests;
# gpu_check --studies, which runs the device jobs of the onelayer ensembles and of the studies again on the GPU
# and compares their tables and every verdict with a CPU run of the same ledgers; whether the induction head's GPU
# runs repeat bit for bit (memory.tools.gpu_determinism pipeline); the MSSA step at the paper's
# scale, each model alone in float32 as train_static runs it. TF32 and torch.compile are left out: TF32 costs float32's
# accuracy (about 1e-3 of each product) and torch.compile bought 7% (docs/performance.md, 2026-11-27);
# icdenoise.studies.mssa.tools.kernels times the step's parts and the precisions when that is the question.
# Run from the repository root on the device machine
# with the wheels of .whl/ carried (Snakemake and what it needs that the machine's image lacks); every result
# goes to $OUT, packed as device-session.tgz.
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
pack() {  # the device tool brings back only a few files: everything goes back as one archive, whatever ends the call
  tar czf /tmp/device-session.tgz -C "$out" . && find "$out" -mindepth 1 -delete && mv /tmp/device-session.tgz "$out/"
}
trap pack EXIT
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD/src PYTHONUNBUFFERED=1
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  python3 -c "import torch, sys; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'python', sys.version.split()[0])"
  nproc; date -u; git log -1 --format='commit %h %s' 2>/dev/null; } 2>&1 | tee "$out/card.txt"

echo "== CUDA tests ($(left) s left)"
timeout $(( $(left) > 90 ? 90 : $(left) - 5 )) python3 -m pytest -q -p no:cacheprovider -o addopts= tests/unit/studies/mssa/test_mssa_static_training.py \
  tests/integration/test_gpu_kernels.py tests/unit/maths/test_adam.py tests/unit/maths/test_sgd.py tests/unit/studies/memory/test_memory_induction_static.py 2>&1 | tail -15 | tee "$out/pytest.log"

cpu_run=()
[[ -d runs/gpucpu/cpu/benchmarks ]] && cpu_run=(--cpu-run runs/gpucpu/cpu)
echo "== gpu_check --studies ($(left) s left)"  # it leaves the determinism check 60 s and the step bench 65 s
timeout $(( $(left) - 125 )) python3 scripts/gpu_check.py --studies "${cpu_run[@]}" --keep /tmp/keep 2>&1 | tee "$out/gpu_check_studies.log" | tail -45
for ledger in /tmp/keep/device/figures/*/claims.md /tmp/keep/device/figures/*/claims.parquet; do
  [[ -f $ledger ]] && install -D "$ledger" "$out/ledgers/device/${ledger#/tmp/keep/device/figures/}"
done

echo "== gpu_determinism: the induction head as the pipeline trains it, twice in a process, in two processes ($(left) s left)"
if (( $(left) > 110 )); then
  timeout 60 python3 -m icdenoise.studies.memory.tools.gpu_determinism pipeline 2>&1 | tee "$out/determinism.log" | tail -4
fi
echo "== mssa step_bench: each model alone, in float32 ($(left) s left)"
if (( $(left) > 55 )); then
  timeout 50 python3 -m icdenoise.studies.mssa.tools.step_bench --device cuda --loops static --steps 300 \
    --out "$out/mssa_alone_highest.csv" 2>&1 | tee "$out/bench_alone_highest.log" | tail -6
fi
echo "== done ($(left) s left)"
