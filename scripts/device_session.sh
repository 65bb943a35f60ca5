#!/usr/bin/env bash
# One device call, everything measured in one go (docs/performance.md): the card; gpu_check --studies, which
# runs the device jobs of the onelayer ensembles and of the studies again on the GPU and compares their tables
# and every verdict with a CPU run of the same ledgers; the CUDA-only tests; the MSSA step at the paper's scale,
# each model alone, in float32, in TF32 and in float32 compiled by torch.compile (max-autotune-no-cudagraphs)
# (timing only, all three); then, with what time is left, one exploratory run of the transformer at the paper's
# scale in TF32 (its recorded curve; it decides no claim). Run from the repository root on the device machine
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

cpu_run=()
[[ -d runs/gpucpu/cpu/benchmarks ]] && cpu_run=(--cpu-run runs/gpucpu/cpu)
echo "== gpu_check --studies ($(left) s left)"
timeout $(( $(left) - 60 )) python3 scripts/gpu_check.py --studies "${cpu_run[@]}" --keep /tmp/keep 2>&1 | tee "$out/gpu_check_studies.log" | tail -45
for ledger in /tmp/keep/device/figures/*/claims.md /tmp/keep/device/figures/*/claims.parquet; do
  [[ -f $ledger ]] && install -D "$ledger" "$out/ledgers/device/${ledger#/tmp/keep/device/figures/}"
done

echo "== CUDA tests ($(left) s left)"
timeout $(( $(left) > 60 ? 60 : $(left) - 5 )) python3 -m pytest -q -p no:cacheprovider -o addopts= tests/unit/studies/mssa/test_mssa_static_training.py tests/unit/maths/test_adam.py 2>&1 | tail -15 | tee "$out/pytest.log"

echo "== mssa_step_bench: each model alone, in float32 and then in TF32 ($(left) s left)"
for precision in highest high; do
  if (( $(left) > 120 )); then
    timeout 50 python3 scripts/mssa_step_bench.py --device cuda --loops static --steps 300 --precision "$precision" \
      --out "$out/mssa_alone_$precision.csv" 2>&1 | tee "$out/bench_alone_$precision.log" | tail -6
  fi
done
echo "== mssa_step_bench: each model alone, in float32, compiled (max-autotune-no-cudagraphs) ($(left) s left)"
if (( $(left) > 150 )); then
  timeout 120 python3 scripts/mssa_step_bench.py --device cuda --loops static --steps 300 --compile max-autotune-no-cudagraphs \
    --out "$out/mssa_compiled.csv" 2>&1 | tee "$out/bench_compiled.log" | tail -6
fi
echo "== exploratory: the transformer at the paper's scale in TF32, as many steps as are left ($(left) s left)"
if (( $(left) > 90 )); then
  precision=high
  ms=$(python3 -c "import pandas as pd; t = pd.read_csv('$out/mssa_alone_high.csv'); print(float(t.loc[t.model == 'transformer', 'static_ms'].iloc[0]))" 2>/dev/null || echo 10)
  steps=$(python3 -c "print(min(49500, int(($(left) - 45) * 1000 / $ms / 500) * 500))")
  echo "$steps steps at about $ms ms"
  timeout $(( $(left) - 5 )) python3 scripts/mssa_step_bench.py --device cuda --loops static --models transformer --precision "$precision" \
    --warmup 500 --steps "$steps" --out "$out/plateau.csv" --curves "$out/plateau_curve.csv" 2>&1 | tail -4 | tee "$out/plateau.log"
fi
echo "== done ($(left) s left)"
