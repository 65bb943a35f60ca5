"""The memory study's registration: its title, claims, config checks, job sizes and the rule that can use a GPU."""

from icdenoise.pipeline.registry import Study

from .claims import CLAIMS
from .config import problems
from .sizes import SIZES

STUDY = Study(
    name="memory",
    title="Associative memories in transformers: capacity, gradient steps, scaling laws and the induction head (Bietti, 2025)",
    claims=CLAIMS,
    problems=problems,
    sizes=SIZES,
    devices={"train_memory_induction": "execution.memory.induction.device",
             "train_memory_induction_shakespeare": "execution.memory.induction.device"},
)
