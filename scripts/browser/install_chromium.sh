#!/usr/bin/env bash
# Chromium from Debian's packages, for the report's browser test (tests/integration/test_report_browser.py,
# driven through Playwright from the `test` extra). Needs root; does nothing if `chromium` already runs.
#
#   sudo scripts/browser/install_chromium.sh
#
# The full `chromium` package, not `chromium-headless-shell`: the report shows each figure as a PDF,
# and only the full browser has the PDF viewer that draws it.
set -euo pipefail
if chromium --headless --no-sandbox --version >/dev/null 2>&1; then
    echo "[browser] $(chromium --version 2>/dev/null) already installed"
    exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
    echo "[browser] chromium is missing and installing it needs root: sudo $0" >&2
    exit 1
fi
echo "[browser] installing chromium (Debian package)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
echo "[browser] $(chromium --version 2>/dev/null) installed"
