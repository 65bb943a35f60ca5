"""The mssa study's registration: its title, claims, config checks, job sizes and the rule that can use a GPU."""

from icdenoise.pipeline.registry import Study

from .claims import CLAIMS
from .config import problems
from .sizes import SIZES

STUDY = Study(
    name="mssa",
    title="Attention-only transformers via unrolled subspace denoising (Wang et al., ICML 2025)",
    claims=CLAIMS,
    problems=problems,
    sizes=SIZES,
    devices={"train_mssa_regression": "execution.mssa.regression.device",
             "train_mssa_regression_grid_point": "execution.mssa.regression.device"},
)
