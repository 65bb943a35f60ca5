"""The alltoken study's registration: its title, claims, training run and config checks."""

from .. import Study
from .claims import CLAIMS
from .config import problems, runs

STUDY = Study(
    name="alltoken",
    title="All-token corruption as two-stage empirical Bayes (Smart et al. 2026, via its explainer)",
    claims=CLAIMS,
    runs=runs,
    problems=problems,
)
