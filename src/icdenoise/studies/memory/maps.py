"""The maps f: [N] → [M] of the capacity and cross-talk experiments (slide 9), torch-free so that config
validation can use them:
- injective: M = N and f(z) = z (with i.i.d. output embeddings every permutation has the same law);
- binary: M = 2, f(z) = z mod 2 (the slides' f*(z) ∈ {0, 1});
- few: M = `few_outputs`, f(z) = z mod M. Both are balanced."""

from __future__ import annotations


def outputs_for(map_name: str, stored: int, few_outputs: int) -> int:
    """M for a map with N = `stored` inputs."""
    return {"injective": stored, "binary": 2, "few": few_outputs}[map_name]
