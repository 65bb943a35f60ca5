"""The memory study's config block: it trains no core run, and the checks that relate its keys to each
other (the schema checks each key alone)."""

from __future__ import annotations

from icdenoise.records.claims import reference_problems
from icdenoise.studies.memory.claims import CLAIMS, INDUCTION_CLAIM_RUNS, SHAKESPEARE_CLAIM_RUNS, ZIPF_CLAIM_ALPHAS
from icdenoise.studies.memory.maps import outputs_for


def problems(config: dict) -> list[str]:
    study = config["memory"]
    problems = []
    capacity = study["capacity"]
    for map_name, (low, high) in capacity["curve_span"].items():
        if low >= high:
            problems.append(f"memory.capacity.curve_span.{map_name}: [{low}, {high}] is empty (allowed: low < high)")
    missing = set(capacity["maps"]) - set(capacity["curve_span"])
    if missing:
        problems.append(f"memory.capacity.curve_span: no span for {', '.join(sorted(missing))} (allowed: one per map in memory.capacity.maps)")
    low_rank = study["low_rank"]
    shared = sorted(set(study["capacity_confirmatory"]["seeds"]) & (set(capacity["seeds"]) | set(low_rank["seeds"])))
    if shared:
        problems.append(f"memory.capacity_confirmatory.seeds: {shared} are also seeds of memory.capacity.seeds or memory.low_rank.seeds "
                        "(allowed: fresh seeds only; the low-rank search draws the same embeddings)")
    too_wide = [width for width in low_rank["widths"] if width > min(low_rank["ds"])]
    if too_wide:
        problems.append(f"memory.low_rank.widths: {too_wide} exceed the smallest d = {min(low_rank['ds'])} (allowed: m ≤ d, "
                        "the slides' low-rank regime)")
    shared = sorted(set(study["low_rank_regime"]["seeds"]) & (set(low_rank["seeds"]) | set(study["capacity_confirmatory"]["seeds"])))
    if shared:
        problems.append(f"memory.low_rank_regime.seeds: {shared} are also seeds of memory.low_rank.seeds or "
                        "memory.capacity_confirmatory.seeds (allowed: fresh seeds only)")
    shared = sorted(set(study["induction_order"]["seeds"]) & (set(study["induction"]["seeds"]) | set(study["induction_shakespeare"]["seeds"])))
    if shared:
        problems.append(f"memory.induction_order.seeds: {shared} are also seeds of memory.induction.seeds or "
                        "memory.induction_shakespeare.seeds (allowed: fresh seeds only)")
    if 2 not in study["induction"]["layers"] or 2 not in study["induction_shakespeare"]["layers"]:
        problems.append("memory.induction_order: the order is read on 2-layer runs (allowed: 2 in memory.induction.layers and "
                        "memory.induction_shakespeare.layers)")
    mlp = study["mlp"]
    if mlp["threshold"] <= 1 / mlp["outputs"]:
        problems.append(f"memory.mlp.threshold: {mlp['threshold']} is at or below chance 1/M = {1 / mlp['outputs']:.3g} "
                        "(allowed: above 1/memory.mlp.outputs)")
    variance = study["variance"]
    if variance["samples"] <= max(variance["stored"]):
        problems.append(f"memory.variance.samples: {variance['samples']} gives one memory at N = {max(variance['stored'])} "
                        "(allowed: more than the largest memory.variance.stored, so that every grid point draws at least 2 "
                        "independent memories and its variance has a standard error)")
    for stored in variance["stored"]:
        for outputs in (outputs_for(name, stored, capacity["few_outputs"]) for name in variance["maps"] if name != "injective"):
            if stored % outputs:
                problems.append(f"memory.variance.stored: N = {stored} is not a multiple of M = {outputs} "
                                "(allowed: multiples of every map's M, so that the maps are balanced)")
    problems += [f"memory.zipf: {problem}" for problem in zipf_problems(study["zipf"])]
    shared = sorted(set(study["zipf_confirmatory"]["seeds"]) & set(study["zipf"]["seeds"]))
    if shared:
        problems.append(f"memory.zipf_confirmatory.seeds: {shared} are also draws of memory.zipf.seeds (allowed: fresh draws only)")
    for claim_id in study["claims"]:
        suffix = claim_id.removesuffix("_confirmatory").rsplit("_a", 1)[-1]
        if claim_id.startswith("zipf_") and suffix in ZIPF_CLAIM_ALPHAS and ZIPF_CLAIM_ALPHAS[suffix] not in study["zipf"]["alphas"]:
            problems.append(f"memory.claims.{claim_id}: measured at α = {ZIPF_CLAIM_ALPHAS[suffix]:g}, which is not in memory.zipf.alphas "
                            f"{study['zipf']['alphas']}")
    induction = study["induction"]
    if induction["triggers"] > induction["vocabulary"] - 2:
        problems.append(f"memory.induction.triggers: {induction['triggers']} triggers in a vocabulary of {induction['vocabulary']} "
                        "(allowed: at most vocabulary − 2, so that outputs exist besides the triggers)")
    for claim_id in study["claims"]:
        for runs, name in ((INDUCTION_CLAIM_RUNS, "induction"), (SHAKESPEARE_CLAIM_RUNS, "induction_shakespeare")):
            if claim_id in runs:
                layers, optimizer = runs[claim_id]
                block = study[name]
                if layers not in block["layers"] or optimizer not in block["optimizers"]:
                    problems.append(f"memory.claims.{claim_id}: reads the {layers}-layer {optimizer} runs, which memory.{name} does not "
                                    f"train (layers {block['layers']}, optimizers {', '.join(block['optimizers'])})")
    problems += planted_regime_problems(study["planted"], study["claims"])
    return problems + reference_problems(CLAIMS, study["claims"], study, "memory.claims")


FLOOR_CLAIM = "planted_boundary_slope_in_t_above_floor"  # the one claim that reads a floor_factor


def planted_regime_problems(planted: dict, claims: dict) -> list[str]:
    """The planted regime grid (slide 24) keeps its own n, so that its lengths never enter the (d, T) grid's slope
    (planted_boundary_slope_in_t), and has at least two d when it has lengths; the claim that reads it names its
    floor_factor, and no other claim does."""
    problems = []
    regime = planted["regime"]
    if regime["lengths"] and regime["samples"] == planted["samples"]:
        problems.append(f"memory.planted.regime.samples: {regime['samples']} is memory.planted.samples, so the regime's lengths "
                        "would join the (d, T) grid's slope (allowed: another n)")
    if regime["lengths"] and len(regime["ds"]) < 2:
        problems.append(f"memory.planted.regime.ds: {regime['ds']} (allowed: at least 2 d, increasing, when regime.lengths is not empty)")
    for claim_id, spec in claims.items():
        if claim_id == FLOOR_CLAIM and "floor_factor" not in spec:
            problems.append(f"memory.claims.{claim_id}.floor_factor: missing (the claim reads the lengths where slide 24's "
                            "T-term is at least this times √N)")
        if claim_id != FLOOR_CLAIM and "floor_factor" in spec:
            problems.append(f"memory.claims.{claim_id}.floor_factor: only {FLOOR_CLAIM} reads it")
    return problems


def zipf_problems(block: dict) -> list[str]:
    """Every inconsistent key of a `memory.zipf` block (torch-free: Snakemake checks the config before any job)."""
    problems = []
    if any(alpha <= 1 for alpha in block["alphas"]):
        problems.append(f"alphas must exceed 1 (Zipf's tail mass is finite only then), got {block['alphas']}")
    if min(block["vocabularies"]) < 2:
        problems.append(f"vocabularies must hold at least 2 tokens, got {block['vocabularies']}")
    if block["outputs"] < 2:
        problems.append(f"outputs M must be at least 2, got {block['outputs']}")
    if block["d_for_n_sweep"] not in block["ds"]:
        problems.append(f"d_for_n_sweep = {block['d_for_n_sweep']} must be one of ds = {block['ds']}")
    if block["n_for_d_sweep"] < 1 or block["n_max"] < 1:
        problems.append(f"n_for_d_sweep = {block['n_for_d_sweep']} and n_max = {block['n_max']} must be positive")
    low, high = block["top_k_over_d"]
    if not 0 < low <= high:
        problems.append(f"top_k_over_d must be [low, high] with 0 < low ≤ high, got {block['top_k_over_d']}")
    return problems
