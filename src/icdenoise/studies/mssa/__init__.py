"""Attention-only transformers via unrolled subspace denoising (Wang et al. 2025): SNR and in-context regression."""
