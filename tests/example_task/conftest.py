"""The example tasks' own tests import them from this folder (as the workflow does, with PYTHONPATH)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
