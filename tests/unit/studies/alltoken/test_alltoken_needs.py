"""Every all-token claim names the sub-blocks of `alltoken` whose tables it reads (Claim.needs), so that the ledger's
history dates it by those settings alone; each is a block of the shipped config, and the blocks follow the frames its
measure reads (the ledger rule's inputs: before_after ← before_after, flow ← particle_flow, …)."""

import inspect

from icdenoise.pipeline.config import load_yaml
from icdenoise.studies.alltoken.claims import CLAIMS

FRAME_BLOCKS = {"before_after": "before_after", "flow": "particle_flow", "flow_replicates": "particle_flow",
                "variance": "variance", "gaussian": "gaussian", "gaussian_trend": "gaussian", "mse_by_n": "mse",
                "mse_per_context": "mse", "mse_by_depth": "mse", "cross_bandwidth": "cross_bandwidth"}


def _frames_read(function, seen=None) -> set[str]:
    """The frame names a measure's source (and the module functions it calls) subscript `frames` with."""
    import icdenoise.studies.alltoken.claims as module

    seen = set() if seen is None else seen
    if function in seen:
        return set()
    seen.add(function)
    source = inspect.getsource(function)
    frames = {name for name in FRAME_BLOCKS if f'frames["{name}"]' in source}
    for name, value in vars(module).items():
        if callable(value) and getattr(value, "__module__", "") == module.__name__ and f"{name}(" in source:
            frames |= _frames_read(value, seen)
    return frames


def test_every_claim_names_the_blocks_of_the_frames_it_reads(repo):
    config = load_yaml(repo / "config" / "config.yaml")["alltoken"]
    for claim_id, claim in CLAIMS.items():
        blocks = {block for key, block in claim.needs if key == ""}
        assert blocks and blocks <= set(config), claim_id
        read = {FRAME_BLOCKS[frame] for frame in _frames_read(claim.measure)}
        assert read <= blocks, (claim_id, read - blocks)
