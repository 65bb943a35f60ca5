#!/usr/bin/env bash
# One device call, everything measured in one go (docs/performance.md): the card; gpu_check --studies, which
# builds the ledgers its device jobs feed on the CPU, runs those jobs again on the GPU and compares their
# tables and every verdict; the CUDA-only tests; then, with what time is left, the MSSA step at the paper's
# scale in both loops. Run from the repository root on the device machine with the wheels of .whl/ carried
# (Snakemake and what it needs that the machine's image lacks); every result goes to $OUT.
#   bash scripts/device_session.sh [seconds]     (default 540: the whole call's budget)
set -uo pipefail
budget=${1:-540}
end=$(( $(date +%s) + budget ))
left() { echo $(( end - $(date +%s) )); }
out=${OUT:-/tmp/device-out}
mkdir -p "$out"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD/src PYTHONUNBUFFERED=1
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  python3 -c "import torch, sys; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'python', sys.version.split()[0])"
  nproc; date -u; } 2>&1 | tee "$out/card.txt"
echo "== gpu_check --studies ($(left) s left)"
timeout $(( $(left) - 90 )) python3 scripts/gpu_check.py --studies --keep /tmp/keep 2>&1 | tee "$out/gpu_check_studies.log" | tail -45
for run in cpu device; do
  for ledger in /tmp/keep/$run/figures/*/claims.md /tmp/keep/$run/figures/*/claims.parquet; do
    [[ -f $ledger ]] && install -D "$ledger" "$out/ledgers/$run/${ledger#/tmp/keep/$run/figures/}"
  done
done
echo "== CUDA tests ($(left) s left)"
timeout $(( $(left) > 100 ? 100 : $(left) - 5 )) python3 -m pytest -q -p no:cacheprovider tests/unit/studies/mssa/test_mssa_static_training.py tests/unit/maths/test_adam.py 2>&1 | tail -15 | tee "$out/pytest.log"
echo "== mssa_step_bench ($(left) s left)"
if (( $(left) > 60 )); then
  timeout $(( $(left) - 5 )) python3 scripts/mssa_step_bench.py --device cuda --out "$out/mssa_step_bench.csv" 2>&1 | tee "$out/bench.log" | tail -12
fi
echo "== done ($(left) s left)"
