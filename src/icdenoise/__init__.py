"""Attention as in-context denoising and associative memory, as a reproducible pipeline.

Sub-packages, from the bottom up: `icdenoise.maths` (tasks, denoisers, models, training, scoring),
`icdenoise.records` (tables on disk and what reads them back), `icdenoise.studies` (one package per
paper or set of experiments) and `icdenoise.pipeline` (the workflow's plumbing). The first study
reproduces Smart, Bietti & Sengupta, "In-context denoising with one-layer transformers: connections
between attention and associative memory retrieval" (ICML 2025).
"""

__version__ = "0.1.0"
