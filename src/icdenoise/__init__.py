"""Attention as in-context denoising: tasks, Bayes baselines, attention models and training.

Implements Smart, Bietti & Sengupta, "In-context denoising with one-layer transformers:
connections between attention and associative memory retrieval" (ICML 2025).
"""

__version__ = "0.1.0"
