"""The docs tell the truth where a test can check them: every repository path they quote exists, and
every `icdenoise.…` name they quote is a module, or an attribute of one. (The targets of the commands
they quote are checked against the workflow's plan in tests/integration/test_conventions.py.)"""

import importlib
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "config" / "README.md"]
QUOTED = re.compile(r"`([^`\n]+)`")
REPOSITORY_PATH = re.compile(r"^(?:src|workflow|scripts|tests|docs|config|profiles|\.ci)/\S*$|^(?:Snakefile|LICENSE)$")
TEMPLATED = re.compile(r"[<{*…]")


def quoted(pattern: re.Pattern) -> list[tuple[str, str]]:
    return [(path.relative_to(REPO).as_posix(), text) for path in DOCS for text in QUOTED.findall(path.read_text())
            if pattern.search(text)]


@pytest.mark.parametrize("doc, path", [(doc, text) for doc, text in quoted(REPOSITORY_PATH) if not TEMPLATED.search(text)])
def test_a_quoted_path_exists(doc, path):
    assert (REPO / path.rstrip(".,:;")).exists(), f"{doc} quotes {path}, which does not exist"


def resolves(name: str) -> bool:
    """A dotted name is a module, or an attribute of the longest module prefix it has."""
    parts = name.split(".")
    for index in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:index]))
        except ImportError:
            continue
        for attribute in parts[index:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


NAMES = sorted({(doc, name) for doc, text in quoted(re.compile(r"\bicdenoise\.")) for name in re.findall(r"\bicdenoise(?:\.\w+)+", text)})


@pytest.mark.parametrize("doc, name", NAMES)
def test_a_quoted_module_or_name_exists(doc, name):
    assert resolves(name), f"{doc} quotes {name}, which is no module or attribute"


def test_the_docs_quote_enough_to_check():
    assert len(quoted(REPOSITORY_PATH)) > 40 and len(NAMES) > 20


def test_the_claim_counts_in_docs_claims_md_are_the_configs():
    import yaml

    text = " ".join((REPO / "docs" / "claims.md").read_text().split())
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    claims = {f"{study}.{name}": block for study in config["studies"] for name, block in config[study].get("claims", {}).items()}
    exploratory = [name for name, block in claims.items() if "exploratory" in block]
    twins = [name for name in claims if name.endswith("_confirmatory")]
    superseded = [name for name, block in claims.items() if "superseded_by" in block]
    assert f"({len(exploratory)} claims in config/config.yaml, {len(twins)} of them with a confirmatory twin, below)" in text
    assert f"{len(superseded)} claims in config/config.yaml are so marked" in text


WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def held_phrases() -> list[tuple[str, str]]:
    """(doc, phrase): each count, size or setting the reference docs state, written from the code or the config it
    states, so that a change of the value fails until the doc says the new one."""
    import yaml

    from icdenoise.maths.training import DIVERGENCE_FACTOR
    from icdenoise.records.figures import IMAGE_DPI
    from icdenoise.records.footers import FOOTER_KEYS

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    cases, dataset, training, onelayer = config["cases"], config["dataset"], config["training"], config["onelayer"]
    claims, theorem31, fig4b, fig5 = onelayer["claims"], onelayer["theorem31"], onelayer["fig4b"], onelayer["fig5"]
    linear, circle = cases["linear"], cases["circle"]
    noise_minimum = min(found for found in _values_of(schema, "sigma_z_sq", "minimum"))
    cublas = re.search(r'setdefault\("CUBLAS_WORKSPACE_CONFIG", "([^"]+)"\)',
                       (REPO / "src" / "icdenoise" / "maths" / "graphs.py").read_text()).group(1)
    packages = [path for path in (REPO / "src" / "icdenoise").iterdir() if (path / "__init__.py").is_file()
                and path.name != "scaffold"]  # beside the sub-packages, as the doc says
    n_test, seeds = dataset["n_prompts"] - dataset["n_train"], training["seeds"]
    gamma_star = 1 / ((linear["sigma0_sq"] + linear["corruption"]["sigma_z_sq"]) * (1 + (linear["d"] + 1) / linear["L"]))
    drawn = {(cases[case]["n"], cases[case]["L"]) for case in onelayer["fig1"]["cases"]}
    near_bayes, rate = claims["fig3_sphere_softmax_near_bayes"], claims["theorem31_excess_rate"]
    minus = lambda value: f"{value:g}".replace("-", "−")
    [(drawn_n, drawn_L)] = drawn
    return [
        ("reproducibility.md", f"over {DIVERGENCE_FACTOR:g} times the zero predictor's on the same split"),
        ("reproducibility.md", f"over {DIVERGENCE_FACTOR:g} times the uniform predictor's, log(classes)"),
        ("reproducibility.md", f"`CUBLAS_WORKSPACE_CONFIG={cublas}`"),
        ("reproducibility.md", f"(σ_z² ≥ {noise_minimum:g}, below which float32 datasets"),
        ("reproducibility.md", f"rule writes a PNG ({IMAGE_DPI} dpi) beside the PDF"),
        ("reproducibility.md", f"the first {WORDS[FOOTER_KEYS]} of the study's settings"),
        ("architecture.md", f"`src/icdenoise/` has {WORDS[len(packages)]} sub-packages"),
        ("architecture.md", f"the first {WORDS[FOOTER_KEYS]} drawn below the figure"),
        ("deviations.md", f"the published line is {claims['fig3_sphere_bayes_line']['paper_value']:g} per coordinate"),
        ("deviations.md", f"**Figure 5 uses σ_z² = {circle['corruption']['sigma_z_sq']:g}.**"),
        ("deviations.md", f"**Figure 4(a) uses {WORDS[len(seeds)]} seeds per L**"),
        ("deviations.md", f"*on the same {n_test} test prompts*"),
        ("deviations.md", f"(κ = {cases['linear_transformed']['transform']['condition_number']:g}, seeded)"),
        ("deviations.md", f"(n = {drawn_n}, L = {drawn_L}, trained models)"),
        ("deviations.md", f"{gamma_star:.4f} on the linear case at d = {linear['d']}, L = {linear['L']}"),
        ("deviations.md", f"Both codes train the {WORDS[len(seeds)]} seeds on one fixed training set of {dataset['n_train']} "
                          f"prompts drawn from dataset seed {dataset['seed']}"),
        ("deviations.md", f"so a run must set {linear['corruption']['sigma_z_sq']:.1f} to match the paper"),
        ("onelayer.md", f"tests the published line {claims['fig3_sphere_bayes_line']['paper_value']:g} against eq. 6"),
        ("onelayer.md", f"on the same {config['evaluation']['n_prompts']:,} fresh prompts"),
        ("onelayer.md", f"on the {n_test}-prompt test split against a {config['evaluation']['n_prompts']:,}-prompt Bayes"),
        ("onelayer.md", f"at L from {min(theorem31['context_lengths'])} to {max(theorem31['context_lengths'])}, "
                        f"{theorem31['n_prompts']} fresh prompts per L"),
        ("onelayer.md", f"over L ≥ {theorem31['fit_from']} against {minus(rate['paper_value'])} ± {rate['tolerance']:g}"),
        ("onelayer.md", f"This issue restores {near_bayes['tolerance']:g}"),
        ("onelayer.md", f"fit range (L ≥ {theorem31['fit_from']}) and tolerance ({rate['tolerance']:g})"),
        ("onelayer.md", f"our training set of {dataset['n_train']} prompts; the population optimum at L = {linear['L']} is"),
        ("onelayer.md", f"= {gamma_star:.4f}, the paper's"),
        ("protocol.md", f"| linear | x = P y, y ~ N(0, σ0² I_n), P projects onto a random d-dim subspace | n={linear['n']}, "
                        f"d={linear['d']}, σ0²={linear['sigma0_sq']:g}, σ_z²={linear['corruption']['sigma_z_sq']:g}, L={linear['L']} |"),
        ("protocol.md", "| sphere | uniform on the radius-R d-sphere inside a random (d+1)-dim subspace | n={n}, d={d}, R={radius:g}, "
                        "σ_z²={z:g}, L={L} |".format(z=cases["sphere"]["corruption"]["sigma_z_sq"], **cases["sphere"])),
        ("protocol.md", "| gmm | K centres uniform on the radius-R sphere in R^n, equal weights, isotropic variance σ0² | n={n}, K={K}, "
                        "R={radius:g}, σ0²={sigma0_sq:g}, σ_z²={z:g}, L={L} |".format(z=cases["gmm"]["corruption"]["sigma_z_sq"],
                                                                                     **cases["gmm"])),
        ("protocol.md", f"{dataset['n_prompts']} prompts per dataset, split {dataset['n_train']} train / {n_test} test"),
        ("protocol.md", f"Adam with lr {training['lr']:g}; the learning rate is multiplied by {training['lr_decay_factor']:g} at "
                        f"{100 * training['lr_decay_at'][0]:g}% and again at {100 * training['lr_decay_at'][1]:g}% of the epochs"),
        ("protocol.md", f"batch size {training['batch_size']}, shuffled"),
        ("protocol.md", "epochs: linear case {linear}, GMM {gmm}, sphere {sphere}".format(**training["epochs"])),
        ("protocol.md", f"{WORDS[len(seeds)]} seeds ({seeds[0]}–{seeds[-1]})"),
        ("protocol.md", f"then every {training['record_every']} optimiser steps"),
        ("protocol.md", f"fresh prompts ({fig4b['n_prompts']} per point) with subspace dimension d' ∈ {{{fig4b['subspace_dims'][0]}, …, "
                        f"{fig4b['subspace_dims'][-1]}}} and context lengths {{{', '.join(map(str, fig4b['context_lengths']))}}}"),
        ("protocol.md", "Setup: n={n}, a circle (d={d}, R={radius:g}), L={L} context points".format(**circle)),
        ("protocol.md", f"Draw a {fig5['grid_size']}×{fig5['grid_size']} contour grid over [−{fig5['extent']:g}, {fig5['extent']:g}]²"),
        ("protocol.md", f"Right panel: {fig5['iterations']} iterated steps"),
        ("protocol.md", f"the MSE over a {onelayer['fig6']['grid_size']}×{onelayer['fig6']['grid_size']} grid of scaled-identity weights"),
        ("protocol.md", f"after {training['epochs']['linear_transformed']} epochs"),
        ("protocol.md", f"α·β = {claims['fig3_linear_alpha_beta']['paper_value']:g} ≈ 1/3"),
        ("protocol.md", f"linear case, softmax: β ≈ {claims['fig3_linear_softmax_beta']['paper_value']:g}, "
                        f"α ≈ {claims['fig3_linear_softmax_alpha']['paper_value']:g}"),
        ("protocol.md", f"gmm, softmax: α ≈ {claims['fig3_gmm_softmax_alpha']['paper_value']:g}, "
                        f"β ≈ {claims['fig3_gmm_softmax_beta']['paper_value']:g}"),
    ]


def _values_of(tree, key: str, field: str):
    """Every `field` of a mapping found under `key` anywhere in `tree` (a loaded schema)."""
    if isinstance(tree, dict):
        for name, value in tree.items():
            if name == key and isinstance(value, dict) and field in value:
                yield value[field]
            yield from _values_of(value, key, field)
    elif isinstance(tree, list):
        for value in tree:
            yield from _values_of(value, key, field)


@pytest.mark.parametrize("doc, phrase", held_phrases())
def test_a_reference_docs_count_or_setting_is_the_code_or_configs(doc, phrase):
    text = " ".join((REPO / "docs" / doc).read_text().split())
    assert " ".join(phrase.split()) in text, f"docs/{doc} no longer says: {phrase}"


def test_the_protocols_fig4a_lengths_are_the_configs():
    """docs/protocol.md writes Fig. 4(a)'s context lengths as two progressions, {a, b, …, c} ∪ {d, e, …, f}."""
    import yaml

    text = (REPO / "docs" / "protocol.md").read_text()
    a, b, c, d, e, f = map(int, re.search(r"L ∈ \{(\d+), (\d+), …, (\d+)\} ∪ \{(\d+), (\d+), …, (\d+)\}", text).groups())
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    assert set(range(a, c + 1, b - a)) | set(range(d, f + 1, e - d)) == set(config["onelayer"]["fig4a"]["context_lengths"])
