"""The mssa study's config block: it trains no core run (its in-context models train in its own
rules), and the checks that relate its keys to each other and to the shared blocks."""

from __future__ import annotations

from icdenoise.records.claims import reference_problems
from icdenoise.studies.mssa.claims import CLAIMS

DIGITS_PER_CLASS_AT_LEAST, DIGITS_PER_CLASS_AT_MOST = 174, 183  # load_digits' smallest and largest class (digits 8 and 3)


def problems(config: dict) -> list[str]:
    study, cases = config["mssa"], config["cases"]
    problems = []
    snr = study["snr"]
    if snr["K"] * snr["p"] > snr["n"]:
        problems.append(f"mssa.snr.p: K·p = {snr['K'] * snr['p']} orthogonal directions exceed mssa.snr.n = {snr['n']} (allowed: K·p ≤ n)")
    if snr["tokens"] < snr["K"]:
        problems.append(f"mssa.snr.tokens: {snr['tokens']} tokens for K = {snr['K']} subspaces (allowed: at least one per subspace)")
    regression = study["regression"]
    if regression["nonzeros"] > regression["d"]:
        problems.append(f"mssa.regression.nonzeros: {regression['nonzeros']} exceeds mssa.regression.d = {regression['d']}")
    if regression["width"] % regression["heads"]:
        problems.append(f"mssa.regression.heads: {regression['heads']} does not divide mssa.regression.width = {regression['width']}")
    if regression["test_seed"] in regression["seeds"]:
        problems.append(f"mssa.regression.test_seed: {regression['test_seed']} is also a training seed (allowed: any other seed)")
    if "transformer" not in regression["models"]:
        problems.append("mssa.regression.models: the transformer is the reference of every Fig. 6 comparison (allowed: a block with transformer)")
    language = study["language"]
    if "width" not in language["models"]["transformer"]:
        problems.append("mssa.language.models.transformer.width: missing (the attention-only models' counts are matched to the transformer's)")
    for architecture, settings in language["models"].items():
        if settings.get("width", language["head_width"]) % language["head_width"]:
            problems.append(f"mssa.language.models.{architecture}.width: {settings['width']} is not a multiple of mssa.language.head_width = "
                            f"{language['head_width']}")
    vision = study["vision"]
    if vision["width"] % vision["heads"]:
        problems.append(f"mssa.vision.heads: {vision['heads']} does not divide mssa.vision.width = {vision['width']}")
    smallest_training_set = DIGITS_PER_CLASS_AT_LEAST * 10 - round(vision["test_fraction"] * DIGITS_PER_CLASS_AT_MOST) * 10
    if vision["batch"] > smallest_training_set:
        problems.append(f"mssa.vision.batch: {vision['batch']} exceeds the training set, about {smallest_training_set} images at "
                        f"test_fraction {vision['test_fraction']} (allowed: at most that)")
    case = study["leaderboard"]["case"]
    if case not in cases:
        problems.append(f"mssa.leaderboard.case: {case!r} is not configured under cases (configured: {', '.join(cases)})")
    elif cases[case]["task"] != "low_rank_mixture":
        problems.append(f"mssa.leaderboard.case: {case!r} is a {cases[case]['task']} case (allowed: a low_rank_mixture case)")
    claims = study["claims"]
    for claim_id, spec in claims.items():
        if "delta" in spec and spec["delta"] not in snr["deltas"]:
            problems.append(f"mssa.claims.{claim_id}.delta: {spec['delta']} is not in mssa.snr.deltas")
        if "phi" in spec and spec["phi"] not in snr["phis"]:
            problems.append(f"mssa.claims.{claim_id}.phi: {spec['phi']!r} is not in mssa.snr.phis")
        if "regression_task" in spec and spec["regression_task"] not in regression["tasks"]:
            problems.append(f"mssa.claims.{claim_id}.regression_task: {spec['regression_task']!r} is not in mssa.regression.tasks")
        for key in ("architecture", "versus_architecture"):
            if key in spec and spec[key] not in regression["models"]:
                problems.append(f"mssa.claims.{claim_id}.{key}: {spec[key]!r} is not in mssa.regression.models")
        if spec.get("layers", 0) > snr["depth"]:
            problems.append(f"mssa.claims.{claim_id}.layers: {spec['layers']} exceeds mssa.snr.depth = {snr['depth']}")
    return problems + reference_problems(CLAIMS, claims, study, "mssa.claims")
