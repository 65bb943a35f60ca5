"""The alltoken study's config block: its training run (the learned depth) and the checks that relate
its keys to each other and to the shared blocks."""

from __future__ import annotations

from icdenoise.pipeline.registry import Run
from icdenoise.records.claims import reference_problems
from icdenoise.studies.alltoken.claims import CLAIMS, REPLICATE_SEED_CLAIMS


def runs(config: dict) -> set[Run]:
    """The learned-depth model, trained on the Fig. 4(a) case at the case's own L."""
    study = config["alltoken"]
    case = study["mse"]["case"]
    return {Run(case, study["learned"]["model"], config["cases"][case]["L"])}


def problems(config: dict) -> list[str]:
    study, cases, models = config["alltoken"], config["cases"], config["models"]
    problems = []
    case = study["mse"]["case"]
    if case not in cases:
        problems.append(f"alltoken.mse.case: {case!r} is not configured under cases (configured: {', '.join(cases)})")
    elif cases[case]["task"] != "mixture" or cases[case]["corruption"]["kind"] != "all_tokens":
        problems.append(f"alltoken.mse.case: {case!r} is a {cases[case]['task']} case with {cases[case]['corruption']['kind']} "
                        "corruption (allowed: a mixture case with all_tokens corruption)")
    model = study["learned"]["model"]
    if model not in models:
        problems.append(f"alltoken.learned.model: {model!r} is not configured under models (configured: {', '.join(models)})")
    elif models[model]["architecture"] != "two_stage_attention":
        problems.append(f"alltoken.learned.model: {model!r} is a {models[model]['architecture']} model (allowed: a two_stage_attention model)")
    for name in ("mse", "learned"):
        block = study[name]
        if len(block["n_tokens"]) != len(block["contexts"]):
            problems.append(f"alltoken.{name}.contexts: {len(block['contexts'])} entries for {len(block['n_tokens'])} n_tokens (allowed: one per N)")
    mse = study["mse"]
    if mse["depth"] > mse["max_depth"]:
        problems.append(f"alltoken.mse.depth: {mse['depth']} exceeds alltoken.mse.max_depth = {mse['max_depth']}")
    if len(mse["n_tokens"]) < 2:
        problems.append("alltoken.mse.n_tokens: the gap-closing claim needs at least 2 values of N")
    if min(mse["contexts"]) < 2:
        problems.append(f"alltoken.mse.contexts: {min(mse['contexts'])} (allowed: at least 2 per N, for the error bars)")
    before_after = study["before_after"]
    if before_after["tokens"] < 2:
        problems.append("alltoken.before_after.tokens: the query and at least one other token (allowed: ≥ 2)")
    for name in ("before_after", "particle_flow"):
        centres = study[name]["centres"]
        if any(len(centre) != 1 for centre in centres):
            problems.append(f"alltoken.{name}.centres: the figure draws 1-D tokens (allowed: centres of one coordinate each)")
    gaussian = study["gaussian"]
    if len(gaussian["mean"]) != len(gaussian["covariance_eigenvalues"]):
        problems.append(f"alltoken.gaussian.mean: {len(gaussian['mean'])} coordinates for {len(gaussian['covariance_eigenvalues'])} eigenvalues")
    claims = study["claims"]
    for claim_id in ("variance_beta5_reaches_zero", "variance_beta1_follows_ode"):
        if claim_id in claims and claims[claim_id].get("beta") not in study["variance"]["betas"]:
            problems.append(f"alltoken.claims.{claim_id}.beta: {claims[claim_id].get('beta')} is not in alltoken.variance.betas")
    claim = claims.get("flow_beta20_premature_clusters")
    if claim and claim.get("beta") not in study["particle_flow"]["betas"]:
        problems.append(f"alltoken.claims.flow_beta20_premature_clusters.beta: {claim.get('beta')} is not in alltoken.particle_flow.betas")
    problems += replicate_seed_problems(claims, study["particle_flow"]["replicate_seeds"])
    return problems + reference_problems(CLAIMS, claims, study, "alltoken.claims")


def replicate_seed_problems(claims: dict, replicate_seeds: list[int]) -> list[str]:
    """Each claim over the replicate flows lists its own seeds (`seeds`), all among
    alltoken.particle_flow.replicate_seeds, and a confirmatory twin's share none with the claim it confirms;
    no other claim has `seeds`."""
    problems = []
    for claim_id, spec in claims.items():
        if claim_id not in REPLICATE_SEED_CLAIMS:
            if "seeds" in spec:
                problems.append(f"alltoken.claims.{claim_id}.seeds: the claim reads no replicate flows (allowed only on "
                                f"{', '.join(REPLICATE_SEED_CLAIMS)})")
            continue
        if "seeds" not in spec:
            problems.append(f"alltoken.claims.{claim_id}.seeds: missing (the claim reads the replicate flows of the seeds it lists)")
            continue
        absent = sorted(set(spec["seeds"]) - set(replicate_seeds))
        if absent:
            problems.append(f"alltoken.claims.{claim_id}.seeds: {absent} are not in alltoken.particle_flow.replicate_seeds")
        original = REPLICATE_SEED_CLAIMS[claim_id]
        shared = sorted(set(spec["seeds"]) & set(claims.get(original, {}).get("seeds", [])))
        if shared:
            problems.append(f"alltoken.claims.{claim_id}.seeds: {shared} are also seeds of {original}, the claim it confirms "
                            "(allowed: fresh seeds only)")
    return problems
