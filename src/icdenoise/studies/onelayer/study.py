"""The onelayer study's registration: its title, claims, training runs, config checks and job sizes."""

from icdenoise.pipeline.registry import Study

from .claims import CLAIMS
from .config import problems, runs
from .sizes import SIZES

STUDY = Study(
    name="onelayer",
    title="Smart, Bietti & Sengupta (ICML 2025)",
    claims=CLAIMS,
    runs=runs,
    problems=problems,
    sizes=SIZES,
    shared_settings=("cases", "models", "dataset", "training", "evaluation"),
    sweeps=("datasets",),
)
