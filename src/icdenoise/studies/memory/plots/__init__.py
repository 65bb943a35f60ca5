"""The memory study's figures, by name: each takes its tables keyed by file name and draws."""

from .capacity_curves import render as capacity_curves
from .capacity_fit import render as capacity_fit
from .gradient_step import render as gradient_step
from .induction import render as induction
from .variance import render as variance
from .width import render as width
from .zipf import render_d as zipf_d
from .zipf import render_n as zipf_n
from .zipf import render_optimum as zipf_optimum

FIGURES = {"capacity_curves": capacity_curves, "capacity_fit": capacity_fit, "gradient_step": gradient_step, "variance": variance,
           "width": width, "zipf_n": zipf_n, "zipf_d": zipf_d, "zipf_optimum": zipf_optimum, "induction": induction}
