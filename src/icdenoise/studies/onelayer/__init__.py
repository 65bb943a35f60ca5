"""The core paper as a study: Smart, Bietti & Sengupta, "In-context denoising with one-layer
transformers: connections between attention and associative memory retrieval" (ICML 2025).

Figures 1-8 and the claims ledger; its outputs keep the mission's paths (figures/fig1.pdf ...
figures/fig8.pdf, figures/claims.{md,parquet}).
"""

from .. import Study
from .claims import CLAIMS
from .config import problems, runs

STUDY = Study(
    name="onelayer",
    title="Smart, Bietti & Sengupta (ICML 2025)",
    claims=CLAIMS,
    runs=runs,
    problems=problems,
)
