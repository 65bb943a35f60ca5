"""Which corruptions each registered model architecture denoises, readable without importing torch:
config validation runs inside Snakemake's own process. The classes are in `icdenoise.maths.models.MODELS`;
a unit test keeps the two registries' names equal."""

from __future__ import annotations

DENOISES: dict[str, frozenset[str]] = {
    "linear": frozenset({"query"}),  # eq. 11: one noisy query against clean context
    "softmax": frozenset({"query"}),  # eq. 12
    "stacked_self_attention": frozenset({"all_tokens"}),  # every token noisy, every token a target
    "two_stage_attention": frozenset({"all_tokens"}),  # the all-token study's learned particle flow + cross-attention
    "mssa": frozenset({"off_subspace"}),  # Wang et al. 2025: unrolled subspace self-attention on every token
}
