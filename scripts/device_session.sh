#!/usr/bin/env bash
# One device call, everything measured in one go (docs/performance.md): the card, the MSSA step at the paper's
# scale in both loops, the CUDA-only tests, gpu_check --studies, then the paper sweeps' gpu_check with what time is
# left. Run from the repository root on the device machine with the wheels of .whl/ carried (Snakemake and what it
# needs that the machine's image lacks); every result goes to $OUT.
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
echo "== mssa_step_bench ($(left) s left)"
timeout 170 python3 scripts/mssa_step_bench.py --device cuda --out "$out/mssa_step_bench.csv" 2>&1 | tee "$out/bench.log" | tail -12
echo "== CUDA tests ($(left) s left)"
timeout 100 python3 -m pytest -q -p no:cacheprovider tests/unit/studies/mssa/test_mssa_static_training.py tests/unit/maths/test_adam.py 2>&1 | tail -15 | tee "$out/pytest.log"
echo "== gpu_check --studies ($(left) s left)"
timeout $(( $(left) > 330 ? 330 : $(left) - 10 )) python3 scripts/gpu_check.py --studies 2>&1 | tee "$out/gpu_check_studies.log" | tail -40
echo "== gpu_check, paper sweeps, no shared run ($(left) s left)"
if (( $(left) > 60 )); then
  timeout $(( $(left) - 5 )) python3 scripts/gpu_check.py --shared 0 2>&1 | tee "$out/gpu_check_sweeps.log" | tail -30
fi
echo "== done ($(left) s left)"
