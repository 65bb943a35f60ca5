"""The memory study's registration: its title, claims and config checks."""

from .. import Study
from .claims import CLAIMS
from .config import problems, runs

STUDY = Study(
    name="memory",
    title="Associative memories in transformers: capacity, gradient steps, scaling laws and the induction head (Bietti, 2025)",
    claims=CLAIMS,
    runs=runs,
    problems=problems,
)
