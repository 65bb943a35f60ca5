#!/usr/bin/env bash
# Install the icdenoise package of this repository into the freshly created conda environment.
set -euo pipefail
python -m pip install --no-deps --editable "$(dirname "${BASH_SOURCE[0]}")/../.."
