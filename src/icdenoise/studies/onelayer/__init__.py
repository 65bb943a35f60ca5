"""The core paper as a study: Smart, Bietti & Sengupta, "In-context denoising with one-layer
transformers: connections between attention and associative memory retrieval" (ICML 2025).

Figures 1-8 and the claims ledger; its outputs keep the mission's paths (figures/fig1.pdf ...
figures/fig8.pdf, figures/claims.{md,parquet}). Its `Study` is in `study.py`.
"""
