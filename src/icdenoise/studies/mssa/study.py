"""The mssa study's registration: its title, claims and config checks."""

from .. import Study
from .claims import CLAIMS
from .config import problems, runs

STUDY = Study(
    name="mssa",
    title="Attention-only transformers via unrolled subspace denoising (Wang et al., ICML 2025)",
    claims=CLAIMS,
    runs=runs,
    problems=problems,
)
