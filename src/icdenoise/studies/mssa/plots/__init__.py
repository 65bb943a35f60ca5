"""The mssa study's figures, by name: each takes its tables keyed by file name and draws."""

from .regression import render as regression
from .snr import render as snr
from .sweep import render as sweep
from .training import render as training

FIGURES = {"snr": snr, "sweep": sweep, "regression": regression, "training": training}
