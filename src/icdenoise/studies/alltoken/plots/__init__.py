"""The all-token study's figures, by name: each takes its tables keyed by file name and draws."""

from .before_after import render as before_after
from .gaussian import render as gaussian
from .learned_depth import render as learned_depth
from .mse_by_n import render as mse_by_n
from .particle_flow import render as particle_flow
from .variance import render as variance

FIGURES = {"before_after": before_after, "particle_flow": particle_flow, "variance": variance, "gaussian": gaussian,
           "mse_by_n": mse_by_n, "learned_depth": learned_depth}
