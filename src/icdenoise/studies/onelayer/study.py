"""The onelayer study's registration: its title, claims, training runs and config checks."""

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
