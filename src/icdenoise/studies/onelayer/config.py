"""The onelayer study's config block: the training runs its figures need and the checks that relate
its keys to each other and to the shared blocks (cases, models, training)."""

from __future__ import annotations

from icdenoise.pipeline.registry import Run
from icdenoise.records.claims import reference_problems
from icdenoise.studies.onelayer.claims import CLAIMS


def runs(config: dict) -> set[Run]:
    """Every (case, model, L) a figure trains: Figs. 3 (and 6, 7, 4b), 4(a)'s sweep, 8 and 1(b)."""
    study, cases = config["onelayer"], config["cases"]
    own = lambda case, model: Run(case, model, cases[case]["L"])  # noqa: E731
    found = {own(case, model) for case in study["fig3"]["cases"] for model in study["fig3"]["models"]}
    found |= {Run(study["fig4a"]["case"], study["fig4a"]["model"], length) for length in study["fig4a"]["context_lengths"]}
    found.add(own(study["fig4b"]["case"], study["fig4b"]["model"]))
    found |= {own(study["fig8"]["case"], model) for model in study["fig8"]["models"]}
    found |= {own(case, model) for case, model in study["fig1"]["cases"].items()}
    return found


def problems(config: dict) -> list[str]:
    """Figure blocks must name configured cases of the right task, configured models and trained seeds."""
    study, cases, models, seeds = config["onelayer"], config["cases"], config["models"], config["training"]["seeds"]
    problems = []

    def check_case(key: str, case: str, task: str | None = None, n: int | None = None) -> None:
        if case not in cases:
            problems.append(f"{key}: {case!r} is not configured under cases (configured: {', '.join(cases)})")
        elif task and cases[case]["task"] != task:
            problems.append(f"{key}: {case!r} is a {cases[case]['task']} case (allowed: a {task} case)")
        elif n and cases[case]["n"] != n:
            problems.append(f"{key}: {case!r} has n = {cases[case]['n']} (allowed: n = {n})")
        elif cases[case]["corruption"]["kind"] != "query":
            problems.append(f"{key}: {case!r} has {cases[case]['corruption']['kind']} corruption (allowed: query, the paper's setting)")

    def check_model(key: str, model: str, allowed: list[str] | None = None) -> None:
        allowed = list(models) if allowed is None else allowed
        if model not in allowed:
            problems.append(f"{key}: {model!r} is not in {', '.join(allowed)}")

    def check_seed(key: str, seed: int) -> None:
        if seed not in seeds:
            problems.append(f"{key}: {seed} is not in training.seeds {seeds}")

    fig1, fig3, fig4a, fig4b, fig5, fig6, fig7, fig8 = (study[key] for key in ("fig1", "fig3", "fig4a", "fig4b", "fig5", "fig6", "fig7", "fig8"))
    for case in fig3["cases"]:
        check_case("onelayer.fig3.cases", case)
    for model in fig3["models"]:
        check_model("onelayer.fig3.models", model)
    check_seed("onelayer.fig3.representative_seed", fig3["representative_seed"])
    for case, model in fig1["cases"].items():
        check_case("onelayer.fig1.cases", case, n=3)
        check_model(f"onelayer.fig1.cases.{case}", model)
    if fig1["representative_seed"] != "best":
        check_seed("onelayer.fig1.representative_seed", fig1["representative_seed"])
    if fig1["test_prompt"] >= config["dataset"]["n_prompts"] - config["dataset"]["n_train"]:
        problems.append(f"onelayer.fig1.test_prompt: {fig1['test_prompt']} is not below the number of test prompts")
    if study["fig2"]["case"] not in fig1["cases"]:
        problems.append(f"onelayer.fig2.case: {study['fig2']['case']!r} is not in onelayer.fig1.cases ({', '.join(fig1['cases'])})")
    check_case("onelayer.fig2.case", study["fig2"]["case"], task="linear")
    for name, block in (("fig4a", fig4a), ("fig4b", fig4b)):
        check_case(f"onelayer.{name}.case", block["case"], task="linear")
        check_model(f"onelayer.{name}.model", block["model"])
    if len(fig4a["context_lengths"]) < 2:
        problems.append("onelayer.fig4a.context_lengths: the power-law fit needs at least 2 lengths")
    if fig4b["case"] in cases and max(fig4b["subspace_dims"]) > cases[fig4b["case"]]["n"]:
        problems.append(f"onelayer.fig4b.subspace_dims: {max(fig4b['subspace_dims'])} exceeds the case's n")
    if fig4b["seed"] == config["dataset"]["seed"]:
        problems.append("onelayer.fig4b.seed: equals dataset.seed, so the 'fresh' prompts would repeat the dataset (allowed: any other seed)")
    theorem = study["theorem31"]
    check_case("onelayer.theorem31.case", theorem["case"], task="sphere")
    if sum(length >= theorem["fit_from"] for length in theorem["context_lengths"]) < 3:
        problems.append(f"onelayer.theorem31.fit_from: {theorem['fit_from']} leaves fewer than 3 context lengths for the rate fit "
                        f"(allowed: at most the third largest of {sorted(theorem['context_lengths'])})")
    if theorem["seed"] == config["dataset"]["seed"]:
        problems.append("onelayer.theorem31.seed: equals dataset.seed, so the 'fresh' prompts would repeat the dataset (allowed: any other seed)")
    check_case("onelayer.fig5.case", fig5["case"], task="sphere", n=2)
    if 1 not in fig5["step_counts"]:
        problems.append(f"onelayer.fig5.step_counts: {fig5['step_counts']} must include 1 (the attention step)")
    for name, block in (("fig6", fig6), ("fig7", fig7)):
        for case in block["cases"]:
            if case not in fig3["cases"]:
                problems.append(f"onelayer.{name}.cases: {case!r} is not in onelayer.fig3.cases (its Fig. 3 run is reused)")
    check_model("onelayer.fig6.model", fig6["model"], fig3["models"])
    for model in fig7["models"]:
        check_model("onelayer.fig7.models", model, fig3["models"])
    check_seed("onelayer.fig7.representative_seed", fig7["representative_seed"])
    for key in ("alpha_range", "beta_range"):
        low, high = fig6[key]
        if low >= high:
            problems.append(f"onelayer.fig6.{key}: [{low}, {high}] must be increasing")
    check_case("onelayer.fig8.case", fig8["case"], task="linear")
    if fig8["case"] in cases and "transform" not in cases[fig8["case"]]:
        problems.append(f"onelayer.fig8.case: {fig8['case']!r} has no transform (Fig. 8 needs one)")
    for model in fig8["models"]:
        check_model("onelayer.fig8.models", model)
    check_seed("onelayer.fig8.representative_seed", fig8["representative_seed"])
    for name, listed in (("fig3", fig3["models"]), ("fig4a", [fig4a["model"]]), ("fig8", fig8["models"])):
        for model in listed:
            if model in models and models[model]["architecture"] not in ("linear", "softmax"):
                problems.append(f"onelayer.{name}.models: {model!r} is a {models[model]['architecture']} model "
                                "(allowed: linear or softmax attention, whose α and β the figure reads)")
    return problems + reference_problems(CLAIMS, study["claims"], study, "onelayer.claims")
