"""The alltoken study's registration: its title, claims, training run, config checks and job sizes."""

from icdenoise.pipeline.registry import Study

from .claims import CLAIMS
from .config import problems, runs
from .sizes import SIZES

STUDY = Study(
    name="alltoken",
    title="All-token corruption as two-stage empirical Bayes (Smart et al. 2026, via its explainer)",
    claims=CLAIMS,
    runs=runs,
    problems=problems,
    sizes=SIZES,
    shared_settings=("cases", "models", "dataset", "training", "evaluation"),  # its learned model's run
)
