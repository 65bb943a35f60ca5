"""Tests of the modules the benchmark scripts share (scripts/ is not part of the package)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
