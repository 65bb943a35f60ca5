"""Config validation: shipped configs pass, bad ones name the key and the allowed values; the schema's
names equal the registries'; config/README.md is what the schema generates."""

import copy
import importlib.util

import pytest
import yaml

from icdenoise.pipeline.config import ConfigError, load_schema, load_yaml, registry_names, validate_config


@pytest.fixture(scope="module")
def schema_dir(repo):
    return repo / "workflow" / "schemas"


@pytest.fixture(scope="module")
def paper(repo):
    return load_yaml(repo / "config" / "config.yaml")


@pytest.fixture(scope="module")
def studies(paper, schema_dir):
    return validate_config(paper, schema_dir)


@pytest.fixture(scope="module")
def schema(schema_dir, studies):
    """The paper config's full schema: the core's and every registered study's."""
    return load_schema(schema_dir, studies)


def merged(base: dict, overlay: dict) -> dict:
    """`overlay` merged into `base` key by key, as `snakemake --configfile` does."""
    result = copy.deepcopy(base)
    for key, value in overlay.items():
        result[key] = merged(result[key], value) if isinstance(value, dict) and isinstance(result.get(key), dict) else value
    return result


def test_shipped_configs_are_valid(repo, schema_dir, paper):
    assert list(validate_config(paper, schema_dir)) == list(paper["studies"])
    overlays = sorted(path for path in (repo / "config").glob("*.yaml") if path.name != "config.yaml")
    assert {"smoke.yaml", "mssa_full.yaml", "mssa_paper_scale.yaml"} <= {path.name for path in overlays}
    for overlay in overlays:
        validate_config(merged(paper, load_yaml(overlay)), schema_dir)


def walk(node, path=""):
    if isinstance(node, dict):
        if "properties" in node:
            for key, child in node["properties"].items():
                yield f"{path}.{key}", child
                yield from walk(child, f"{path}.{key}")
        for key in ("$defs",):
            for name, child in node.get(key, {}).items():
                yield from walk(child, f"{path}.{name}")


def test_every_schema_key_is_described_and_typed(schema):
    defs = schema["$defs"]
    for path, node in walk(schema):
        resolved = {**defs[node["$ref"].split("/")[-1]], **node} if "$ref" in node else node
        if resolved == {}:  # `architecture: {}` inside an if/then branch: described by the enclosing property
            continue
        assert "description" in resolved, f"{path} has no description"
        assert "type" in resolved, f"{path} has no type"
        if resolved["type"] == "object":  # unknown keys are refused, or validated by a schema of their own
            assert resolved.get("additionalProperties") is False or isinstance(resolved.get("additionalProperties"), dict) \
                or "allOf" in resolved, f"{path} allows unknown keys"
        if resolved["type"] in ("integer", "number"):
            assert {"minimum", "exclusiveMinimum"} & resolved.keys(), f"{path} has no lower bound"


def references(node, target: str):
    """Every sub-schema of `node` that refers to the definition `target`."""
    if isinstance(node, dict):
        if node.get("$ref") == f"#/$defs/{target}":
            yield node
        for child in node.values():
            yield from references(child, target)
    elif isinstance(node, list):
        for child in node:
            yield from references(child, target)


def test_the_open_claim_base_is_closed_wherever_it_is_used(schema):
    """claim_test names what every claim holds and lets a study add settings: each schema that refers to
    it refuses every other key (unevaluatedProperties), so a misspelled claim key is an error everywhere."""
    users = list(references(schema, "claim_test"))
    assert len(users) >= 4  # the shared claim and the onelayer, alltoken and mssa claims
    for user in users:
        assert user.get("unevaluatedProperties") is False, f"{user.get('description')} leaves claim_test open"


def test_schema_names_equal_the_registries(schema, studies):
    """Tasks, corruptions, model architectures and every study's claims: the schema lists exactly what is registered."""
    defs, properties = schema["$defs"], schema["properties"]
    listed = {
        "task": set(defs["case"]["properties"]["task"]["anyOf"][0]["enum"]),
        "corruption": set(defs["corruption"]["properties"]["kind"]["enum"]),
        "architecture": set(defs["model"]["properties"]["architecture"]["anyOf"][0]["enum"]),
    }
    for name, names in registry_names(studies).items():
        if name.endswith(".claims"):
            study = name.split(".")[0]
            listed[name] = set(properties[study]["properties"]["claims"]["propertyNames"]["enum"])
        assert listed[name] == names, name


def test_model_classes_and_their_corruptions_are_one_registry():
    from icdenoise.maths.architectures import DENOISES
    from icdenoise.maths.corruptions import CORRUPTIONS
    from icdenoise.maths.models import MODELS

    assert set(MODELS) == set(DENOISES)
    assert all(corruptions <= set(CORRUPTIONS) for corruptions in DENOISES.values())


BAD = [
    (lambda c: c["cases"]["linear"].update(d=20), "cases.linear.d", "1 ≤ d ≤ n"),
    (lambda c: c["cases"]["sphere"].update(d=16), "cases.sphere.d", "d ≤ n − 1"),
    (lambda c: c["cases"]["gmm"].update(sigma0_sq=-1.0), "cases.gmm.sigma0_sq", "≥ 1e-12"),
    (lambda c: c["cases"]["gmm"]["corruption"].update(sigma_z_sq=float("nan")), "cases.gmm.corruption.sigma_z_sq", "not a finite number"),
    (lambda c: c["cases"]["sphere"].update(radius=float("inf")), "cases.sphere.radius", "inf is not a finite number"),
    (lambda c: c["cases"]["sphere"]["corruption"].update(sigma_z_sq=1e-300), "cases.sphere.corruption.sigma_z_sq", "≥ 1e-12"),
    (lambda c: c["cases"]["linear"].update(n=4.0), "cases.linear.n", "4.0 is not of type 'integer'"),
    (lambda c: c["cases"]["linear"].update(L=20.0), "cases.linear.L", "20.0 is not of type 'integer'"),
    (lambda c: c["training"].update(seeds=[0, True]), "training.seeds.1", "is not of type 'integer'"),
    (lambda c: c["cases"].update(torus={"task": "torus", "n": 3}), "cases.torus.task", "linear, sphere, gmm"),
    (lambda c: c["cases"].update(torus={"task": "torus", "n": 3}), "cases.torus.task", "or a task of your own as module.path:ClassName"),
    (lambda c: c["cases"]["linear"].update(task="lineer"), "cases.linear.task", "'lineer' is not an allowed value; did you mean linear?"),
    (lambda c: c["cases"].update(own={**c["cases"]["gmm"], "task": "my tasks:Ring"}), "cases.own.task", "module.path:ClassName"),
    (lambda c: c["cases"].update(own={"task": "mine:Ring", "n": 3, "radius": 1.0, "L": 5}), "cases.own", "required keys: task, n, corruption, L"),
    (lambda c: c["cases"].update(own={**c["cases"]["gmm"], "task": "mine:Ring", "n": 0}), "cases.own.n", "≥ 1"),
    (lambda c: c["models"].update(deep={"architecture": "sofmax"}), "models.deep.architecture", "did you mean softmax?"),
    (lambda c: c["cases"].update(Bad_Name=c["cases"]["linear"]), "cases", "^[a-z][a-z0-9_]*$"),
    (lambda c: c["cases"]["linear"].update(K=3), "cases.linear", "allowed keys"),
    (lambda c: c["cases"]["linear"]["corruption"].update(kind="blur"), "cases.linear.corruption.kind", "query, all_tokens"),
    (lambda c: c["cases"]["linear"].pop("corruption"), "cases.linear", "required keys"),
    (lambda c: c["training"].update(lrr=0.1), "training", "allowed keys"),
    (lambda c: c["training"].update(learning_rate=0.01), "training", "'learning_rate' was unexpected"),
    (lambda c: c["cases"]["linear"].update(L=0), "cases.linear.L", "≥ 1"),
    (lambda c: c["execution"]["training"].update(device="tpu"), "execution.training.device", "auto, cpu, cuda"),
    (lambda c: c["evaluation"].update(n_prompts=200), "evaluation.n_prompts", "≥ 10000"),
    (lambda c: c["dataset"].update(n_train=1000), "dataset.n_train", "n_train < n_prompts"),
    (lambda c: c["models"].update(deep={"architecture": "transformer"}), "models.deep.architecture", "stacked_self_attention"),
    (lambda c: c["models"].update(deep={"architecture": "stacked_self_attention"}), "models.deep", "layers"),
    (lambda c: c["onelayer"]["fig3"].update(representative_seed=9), "onelayer.fig3.representative_seed", "not in training.seeds"),
    (lambda c: c["training"]["epochs"].pop("gmm"), "training.epochs.gmm", "missing"),
    (lambda c: c["cases"]["linear_transformed"].pop("transform"), "onelayer.fig8.case", "has no transform"),
    (lambda c: c["onelayer"]["fig5"].update(step_counts=[0, 2, 50]), "onelayer.fig5.step_counts", "must include 1"),
    (lambda c: c["onelayer"]["fig5"].update(case="sphere"), "onelayer.fig5.case", "allowed: n = 2"),
    (lambda c: c["onelayer"]["fig6"].update(cases=["linear_3d"]), "onelayer.fig6.cases", "not in onelayer.fig3.cases"),
    (lambda c: c["onelayer"]["fig4a"].update(case="gmm"), "onelayer.fig4a.case", "allowed: a linear case"),
    (lambda c: c["onelayer"]["fig1"]["cases"].update(linear="linear"), "onelayer.fig1.cases", "allowed: n = 3"),
    (lambda c: c["onelayer"]["fig3"].update(models=["linear", "unknown"]), "onelayer.fig3.models", "'unknown' is not in linear, softmax"),
    (lambda c: c["cases"]["sphere"]["corruption"].update(kind="all_tokens"), "onelayer.fig3.cases", "allowed: query"),
    (lambda c: c["onelayer"]["claims"].update(made_up={}), "onelayer.claims", "made_up"),
    (lambda c: c["onelayer"]["claims"]["fig4a_power_law"].update(comparison="roughly"), "onelayer.claims.fig4a_power_law.comparison", "at_most"),
    (lambda c: c["onelayer"]["claims"]["fig3_gmm_softmax_beta"].update(case="linear_3d"), "onelayer.claims.fig3_gmm_softmax_beta.case",
     "not in fig3.cases"),
    (lambda c: c["onelayer"]["claims"]["fig8_linear_structure"].pop("model"), "onelayer.claims.fig8_linear_structure.model", "missing"),
    (lambda c: c["onelayer"]["claims"]["fig4a_power_law"].update(delta=0.2), "onelayer.claims.fig4a_power_law",
     "allowed keys: case, comparison, exploratory, implied_by, inconclusive, model, no_verdict, paper_value, self_check, superseded_by, tolerance, tolerance_reason, versus"),
    (lambda c: c["mssa"]["claims"]["fig4_delta02_on_theory_line"].update(tolerence=0.1), "mssa.claims.fig4_delta02_on_theory_line",
     "allowed keys: architecture, band, comparison, delta, exploratory, implied_by, inconclusive, layers, model, near_chance, no_verdict, "
     "paper_value, phi, plateau, regression_task, self_check, superseded_by, tolerance, tolerance_reason, unigram_fraction, versus, "
     "versus_architecture"),
    (lambda c: c["memory"]["claims"]["zipf_seen_n_exponent_a20"].update(case="gmm"), "memory.claims.zipf_seen_n_exponent_a20",
     "allowed keys: bootstrap_seed, comparison, exploratory, floor_factor, implied_by, inconclusive, level, no_verdict, paper_value, "
     "regime_factor, resamples, self_check, superseded_by, tolerance, tolerance_reason"),
    (lambda c: c["alltoken"]["claims"]["fig4a_stage1_only_bar"].pop("tolerance_reason"), "alltoken.claims.fig4a_stage1_only_bar",
     "required keys: paper_value, comparison, tolerance, tolerance_reason, inconclusive"),
    (lambda c: c["alltoken"]["claims"]["fig4a_stage1_only_bar"].update(no_verdict="the source gives no number to test"),
     "alltoken.claims.fig4a_stage1_only_bar", "not allowed beside no_verdict"),
    (lambda c: c["alltoken"]["claims"]["depth_l_star_is_best"].update(inconclusive=["plateau"]), "alltoken.claims.depth_l_star_is_best.inconclusive",
     "allowed: interval, grid_edge"),
    (lambda c: c["leaderboard"]["extra_runs"].update(gmm=["ghost"]), "leaderboard.extra_runs.gmm", "'ghost' is not configured"),
    (lambda c: c["alltoken"]["claims"]["flow_beta20_premature_clusters_confirmatory"].pop("seeds"),
     "alltoken.claims.flow_beta20_premature_clusters_confirmatory.seeds", "missing"),
    (lambda c: c["alltoken"]["claims"]["flow_beta20_premature_clusters_confirmatory"].update(seeds=[2000, 5000]),
     "alltoken.claims.flow_beta20_premature_clusters_confirmatory.seeds", "[5000] are not in alltoken.particle_flow.replicate_seeds"),
    (lambda c: c["alltoken"]["claims"]["flow_beta20_premature_clusters_confirmatory"].update(seeds=[1019, 2000]),
     "alltoken.claims.flow_beta20_premature_clusters_confirmatory.seeds", "[1019] are also seeds of flow_beta20_premature_clusters_over_seeds"),
    (lambda c: c["alltoken"]["claims"]["depth_l_star_is_best"].update(seeds=[1000]), "alltoken.claims.depth_l_star_is_best.seeds",
     "reads no replicate flows"),
    (lambda c: c["cases"]["linear"]["corruption"].update(kind="off_subspace"), "cases.linear.corruption.kind", "off_subspace exactly with task low_rank_mixture"),
    (lambda c: c["cases"]["mssa_lowrank"].update(p=32), "cases.mssa_lowrank.p", "K·p ≤ n"),
    (lambda c: c["mssa"]["snr"].update(tau=0.4), "mssa.snr.tau", "> 0.5"),
    (lambda c: c["mssa"]["regression"].update(heads=5), "mssa.regression.heads", "does not divide"),
    (lambda c: c["mssa"]["regression"].update(test_seed=0), "mssa.regression.test_seed", "also a training seed"),
    (lambda c: c["mssa"]["leaderboard"].update(case="gmm"), "mssa.leaderboard.case", "allowed: a low_rank_mixture case"),
    (lambda c: c["mssa"]["claims"]["fig4_delta02_on_theory_line"].update(delta=0.3), "mssa.claims.fig4_delta02_on_theory_line.delta",
     "not in mssa.snr.deltas"),
    (lambda c: c["memory"]["capacity"].update(maps=["injective", "ternary"]), "memory.capacity.maps.1", "injective, binary, few"),
    (lambda c: c["memory"]["capacity"]["curve_span"].update(binary=[10.0, 0.1]), "memory.capacity.curve_span.binary", "low < high"),
    (lambda c: c["memory"]["low_rank"].update(widths=[4, 128]), "memory.low_rank.widths", "m ≤ d"),
    (lambda c: c["memory"]["capacity_confirmatory"].update(seeds=[2, 200]), "memory.capacity_confirmatory.seeds",
     "[2] are also seeds of memory.capacity.seeds or memory.low_rank.seeds (allowed: fresh seeds only"),
    (lambda c: c["memory"]["capacity_confirmatory"].update(seed=200), "memory.capacity_confirmatory", "allowed keys"),
    (lambda c: c["memory"].pop("capacity_confirmatory"), "memory", "capacity_confirmatory"),
    (lambda c: c["memory"]["zipf_confirmatory"].update(seeds=[4, 400]), "memory.zipf_confirmatory.seeds",
     "[4] are also draws of memory.zipf.seeds (allowed: fresh draws only)"),
    (lambda c: c["memory"]["zipf"].update(alphas=[2.0]), "memory.claims.zipf_counts_d_exponent_a15_confirmatory", "not in memory.zipf.alphas"),
    (lambda c: c["memory"]["mlp"].update(threshold=0.5), "memory.mlp.threshold", "above 1/memory.mlp.outputs"),
    (lambda c: c["memory"]["variance"].update(stored=[16, 24]), "memory.variance.stored", "multiples of every map's M"),
    (lambda c: c["memory"]["zipf"].update(alphas=[1.5]), "memory.claims.zipf_seen_n_exponent_a20", "not in memory.zipf.alphas"),
    (lambda c: c["memory"]["zipf"].update(d_for_n_sweep=100), "memory.zipf", "must be one of ds"),
    (lambda c: c["memory"]["induction"].update(layers=[2]), "memory.claims.induction_one_layer_adam_accuracy", "does not train"),
    (lambda c: c["memory"]["induction_shakespeare"].update(optimizers={"adam": {"learning_rate": 0.01}}),
     "memory.claims.induction_two_layer_sgd_accuracy_shakespeare", "memory.induction_shakespeare does not train"),
    (lambda c: c["memory"]["induction"]["optimizers"].update(rmsprop={"learning_rate": 0.1}), "memory.induction.optimizers", "allowed keys"),
    (lambda c: (c["models"].update(deep={"architecture": "stacked_self_attention", "layers": 2}),
                c["leaderboard"]["extra_runs"].update(gmm=["deep"])), "models.deep", "cannot denoise case 'gmm' with query corruption"),
]


@pytest.mark.parametrize("mutate,key,allowed", BAD, ids=[b[1] for b in BAD])
def test_bad_config_names_key_and_allowed_values(schema_dir, paper, mutate, key, allowed):
    config = copy.deepcopy(paper)
    mutate(config)
    with pytest.raises(ConfigError) as error:
        validate_config(config, schema_dir)
    assert f"{key}:" in str(error.value)
    assert allowed in str(error.value)


def test_a_claim_with_no_verdict_needs_no_test(schema_dir, paper):
    """`no_verdict` replaces the test: a block with it and none of paper_value, comparison, tolerance,
    tolerance_reason and inconclusive is valid."""
    config = copy.deepcopy(paper)
    config["alltoken"]["claims"]["fig4a_stage1_only_bar"] = {"no_verdict": "the source gives no number to test"}
    assert "alltoken" in validate_config(config, schema_dir)


def test_config_readme_is_generated_from_the_schema(repo, schema, studies):
    """config/README.md is exactly what scripts/config_table.py prints, names every key reachable
    through `properties`, and describes a claim's fields once per study, not once per claim."""
    spec = importlib.util.spec_from_file_location("config_table", repo / "scripts" / "config_table.py")
    config_table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(config_table)
    text = config_table.table()
    assert (repo / "config" / "README.md").read_text() == text, "config/README.md is stale: rerun scripts/config_table.py"
    for path, _ in walk({"properties": schema["properties"]}):  # the top-level tree, without $defs
        if ".claims." not in path:
            assert f"`{path[1:]}`" in text, f"the table misses {path[1:]}"
    assert text.count(".paper_value`") == len(studies)  # every study has a ledger: its claims' fields once


def test_every_problem_is_reported_at_once(schema_dir, paper):
    """A schema problem, a cross-key problem of the shared blocks and one of the study, in one message."""
    config = copy.deepcopy(paper)
    config["cases"]["linear"]["corruption"]["sigma_z_sq"] = float("nan")
    config["training"]["batch_size"] = 5000
    config["onelayer"]["fig5"]["step_counts"] = [0, 2]
    with pytest.raises(ConfigError) as error:
        validate_config(config, schema_dir)
    message = str(error.value)
    assert message.startswith("invalid configuration (3 problems)")
    for key in ("cases.linear.corruption.sigma_z_sq", "training.batch_size", "onelayer.fig5.step_counts"):
        assert f"{key}:" in message


def test_a_job_too_large_for_the_machine_is_refused_with_its_estimate(schema_dir, paper):
    config = copy.deepcopy(paper)
    config["cases"]["gmm"].update(n=4096, L=100000)
    with pytest.raises(ConfigError, match=r"\(case gmm, L = 100000\): needs an estimated [\d,]+ MB"):
        validate_config(config, schema_dir, available_mb=24_000)
    validate_config(paper, schema_dir, available_mb=24_000)  # the paper's largest job fits easily


def test_a_yaml_syntax_error_names_the_file_and_line(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("cases:\n  linear: {task: linear,\n  sphere: 1\n")
    with pytest.raises(ConfigError, match=r"broken.yaml, line \d+, column \d+: not valid YAML"):
        load_yaml(path)
    with pytest.raises(ConfigError, match="missing.yaml not found"):
        load_yaml(tmp_path / "missing.yaml")


STUDIES_BLOCKS = [
    ({"onelayer": "icdenoise.studies.onelayer", "bad name": "x"}, "studies", "^[a-z][a-z0-9_]*$"),
    ({"onelayer": "icdenoise.studies.onelayer", "ghost": "no_such_package"}, "studies.ghost", "cannot import no_such_package.study"),
    ({"onelayer": "icdenoise.studies.alltoken"}, "studies.onelayer", "registers the study 'alltoken'"),
    ({"onelayer": "icdenoise.maths"}, "studies.onelayer", "cannot import icdenoise.maths.study"),
    ({}, "studies", "should be non-empty"),
]


@pytest.mark.parametrize("block,key,message", STUDIES_BLOCKS, ids=[b[1] + "-" + b[2][:12] for b in STUDIES_BLOCKS])
def test_a_bad_studies_block_names_the_study_before_anything_is_imported(schema_dir, paper, block, key, message):
    config = {**copy.deepcopy(paper), "studies": block}
    with pytest.raises(ConfigError) as error:
        validate_config(config, schema_dir)
    assert f"{key}:" in str(error.value) and message in str(error.value)


def test_a_config_without_studies_is_refused(schema_dir, paper):
    config = {key: value for key, value in paper.items() if key != "studies"}
    with pytest.raises(ConfigError, match="'studies' is a required property"):
        validate_config(config, schema_dir)


def test_a_study_needs_its_block(schema_dir, paper):
    config = {key: value for key, value in copy.deepcopy(paper).items() if key != "mssa"}
    with pytest.raises(ConfigError, match="'mssa' is a required property"):
        validate_config(config, schema_dir)


def test_the_config_sources_name_the_files_that_set_settings_and_leave_out_how_jobs_run(tmp_path):
    from icdenoise.pipeline.config import config_sources

    (tmp_path / "base.yaml").write_text("run: {name: paper}\ntraining: {lr: 0.01}\nexecution: {training: {device: cpu}}\n")
    (tmp_path / "gpu.yaml").write_text("execution: {training: {device: cuda}}\n")
    (tmp_path / "other_gpu.yaml").write_text("execution: {training: {device: auto, threads: 4}}\n")
    config = {"run": {"name": "paper"}, "training": {"lr": 0.01}, "execution": {"training": {"device": "cuda"}}}
    files = lambda *names: [tmp_path / name for name in names]  # noqa: E731
    plain = config_sources(files("base.yaml"), {**config, "execution": {}}, tmp_path)
    on_gpu = config_sources(files("base.yaml", "gpu.yaml"), config, tmp_path)
    assert on_gpu == plain == config_sources(files("base.yaml", "other_gpu.yaml"), config, tmp_path)
    assert [entry["file"] for entry in on_gpu["files"]] == ["base.yaml"]
    (tmp_path / "lr.yaml").write_text("training: {lr: 0.02}\n")
    listed = config_sources(files("base.yaml", "lr.yaml"), config, tmp_path)["files"]
    assert [entry["file"] for entry in listed] == ["base.yaml", "lr.yaml"]


MISSPELT = [
    (lambda c: c["training"].update(epocks=3), "training: Additional properties are not allowed ('epocks' was unexpected); "
     "did you mean epochs? (allowed keys: batch_size, epochs, lr"),
    (lambda c: c["dataset"].update(n_promts=1000), "did you mean n_prompts?"),
    (lambda c: c["cases"]["linear"].update(task="lineer"), "cases.linear.task: 'lineer' is not an allowed value; did you mean linear?"),
    (lambda c: c["cases"]["linear"].update(task="lineer"), "did you mean linear? (allowed values: linear, sphere, gmm"),
    (lambda c: c["mssa"]["claims"]["fig4_delta02_on_theory_line"].update(tolerence=0.1), "did you mean tolerance?"),
    (lambda c: c["onelayer"]["claims"].update(fig4a_power_lw={}), "onelayer.claims: 'fig4a_power_lw' is not an allowed key; "
     "did you mean fig4a_power_law? (allowed keys: fig3_linear_alpha_beta, "),
    (lambda c: (c["training"].update(epocks=3), c["training"].update(lrr=0.1)), "did you mean epochs (for epocks) and lr (for lrr)?"),
    (lambda c: c["cases"]["gmm"].update(sigma_z_sqq=0.1), "cases.gmm: Additional properties are not allowed ('sigma_z_sqq' was "
     "unexpected); did you mean corruption.sigma_z_sq? (allowed keys: K, L, corruption,"),  # a nested key, not sigma0_sq
    (lambda c: c.update(traning=c["training"]), "<top level>: Additional properties are not allowed ('traning' was "
     "unexpected); did you mean training? (allowed keys: "),  # the top-level block, not execution.training, as alike
    (lambda c: c["training"].update(learning_rate=0.1), "training: Additional properties are not allowed ('learning_rate' "
     "was unexpected); did you mean lr? (allowed keys: batch_size, epochs, lr,"),  # lr is learning_rate's initials
]


@pytest.mark.parametrize("mutate,expected", MISSPELT, ids=[m[1][:40] for m in MISSPELT])
def test_a_misspelt_key_or_value_gets_the_nearest_allowed_name(schema_dir, paper, mutate, expected):
    config = copy.deepcopy(paper)
    mutate(config)
    with pytest.raises(ConfigError) as error:
        validate_config(config, schema_dir)
    assert expected in str(error.value)


@pytest.mark.parametrize("name, allowed, expected", [
    ("traning", ["execution.training", "training"], "training"),  # as alike: the key at the name's level
    ("traning", ["training", "execution.training"], "training"),  # whatever the order the schema lists them in
    ("sigma_z_sqq", ["sigma0_sq", "corruption.sigma_z_sq"], "corruption.sigma_z_sq"),  # far more alike a level down
    ("learning_rate", ["lr_decay_at", "lr", "seeds"], "lr"),  # its initials
    ("bs", ["batch_size", "seeds"], "batch_size"),  # a name that is an allowed name's initials
    ("corruption.learning_rate", ["lr"], "lr"),  # a dotted name by its last part
    ("rate", ["r", "lr"], None),  # one word has no initials: no single-letter key is suggested for it
    ("banana", ["bs", "batch_size"], None),
])
def test_nearest_ranks_the_keys_at_the_names_level_first_and_knows_initials(name, allowed, expected):
    from icdenoise.pipeline.suggestions import nearest

    assert nearest(name, allowed) == expected


@pytest.mark.parametrize("mutate", [
    lambda c: c["training"].update(banana=3),
    lambda c: c["cases"]["linear"].update(task="torus"),
    lambda c: c["execution"]["training"].update(device="tpu"),  # cpu is 0.67 alike: below the cutoff
    lambda c: c["onelayer"]["claims"].update(made_up={}),
])
def test_a_far_off_key_or_value_gets_no_suggestion_but_the_allowed_names(schema_dir, paper, mutate):
    config = copy.deepcopy(paper)
    mutate(config)
    with pytest.raises(ConfigError) as error:
        validate_config(config, schema_dir)
    assert "did you mean" not in str(error.value) and "(allowed " in str(error.value)


def test_a_key_outside_its_enum_is_one_problem_that_lists_the_allowed_names_once(repo, schema_dir, paper, studies, tmp_path):
    """An unknown claim id is reported once, under the file that sets it, with its nearest claim id and the
    claim ids listed once; what its block lacks as a claim ('paper_value' is a required property, …) is not
    reported, while an unrelated problem of the same file still is."""
    from icdenoise.pipeline.config import ConfigFiles

    (tmp_path / "mine.yaml").write_text("onelayer:\n  claims:\n    fig3_linear_alpha_bet: {}\ntraining: {lrr: 0.1}\n")
    config = merged(paper, load_yaml(tmp_path / "mine.yaml"))
    sources = ConfigFiles([repo / "config" / "config.yaml", tmp_path / "mine.yaml"], workdir=repo)
    with pytest.raises(ConfigError) as error:
        validate_config(config, schema_dir, sources=sources)
    message = str(error.value)
    assert message.splitlines()[:2] == ["invalid configuration (2 problems):", f"  in {tmp_path / 'mine.yaml'}:"]
    assert "    - onelayer.claims: 'fig3_linear_alpha_bet' is not an allowed key; did you mean fig3_linear_alpha_beta? (allowed keys: " \
        in message
    for claim in studies["onelayer"].claims:
        assert message.count(f"{claim},") + message.count(f"{claim})") == 1, claim
    assert "required property" not in message and "onelayer.claims.fig3_linear_alpha_bet" not in message
    assert "    - training: Additional properties are not allowed ('lrr' was unexpected)" in message


def test_a_value_outside_its_enum_lists_the_allowed_values_once(schema_dir, paper):
    config = copy.deepcopy(paper)
    config["execution"]["training"]["device"] = "tpu"
    with pytest.raises(ConfigError) as error:
        validate_config(config, schema_dir)
    assert "execution.training.device: 'tpu' is not an allowed value (allowed values: auto, cpu, cuda)" in str(error.value)
    assert str(error.value).count("cuda") == 1


def test_a_key_refused_by_its_form_still_has_its_value_checked(schema_dir, paper):
    """A case named against the pattern is not an unknown name: its block is checked as any case's is."""
    config = copy.deepcopy(paper)
    config["cases"]["Bad_Name"] = {**config["cases"]["linear"], "task": "torus"}
    with pytest.raises(ConfigError) as error:
        validate_config(config, schema_dir)
    assert "cases: 'Bad_Name' does not match" in str(error.value)
    assert "cases.Bad_Name.task: 'torus' is not an allowed value" in str(error.value)


def test_each_problem_is_listed_under_the_file_that_sets_its_key(repo, schema_dir, paper, tmp_path):
    """The last source in merge order that sets the key (config/config.yaml when only it does, the command
    line's --config last); the file just given comes first."""
    from icdenoise.pipeline.config import ConfigFiles

    overlay = {"training": {"epocks": 3}, "cases": {"linear": {"task": "lineer"}}, "dataset": {"seed": 5}}
    (tmp_path / "mine.yaml").write_text("training: {epocks: 3}\ncases:\n  linear: {task: lineer}\ndataset: {seed: 5}\n")
    config = merged(merged(paper, overlay), {"evaluation": {"seed": 5}})
    sources = ConfigFiles([repo / "config" / "config.yaml", tmp_path / "mine.yaml"], {"evaluation": {"seed": 5}}, workdir=repo)
    with pytest.raises(ConfigError) as error:
        validate_config(config, schema_dir, sources=sources)
    lines = str(error.value).splitlines()
    assert lines[0] == "invalid configuration (5 problems):"
    headers = [line for line in lines if not line.startswith("    - ")][1:]
    assert headers == ["  in --config:", f"  in {tmp_path / 'mine.yaml'}:", "  in config/config.yaml:"]
    under = {header: [] for header in headers}
    for line in lines[1:]:
        if line in under:
            current = line
        else:
            under[current].append(line.split(":")[0].strip("- "))
    assert under == {
        "  in --config:": ["evaluation.seed"],  # equals dataset.seed: the key named is evaluation.seed
        f"  in {tmp_path / 'mine.yaml'}:": ["cases.linear.task", "training"],
        "  in config/config.yaml:": ["onelayer.fig4a.case", "onelayer.fig4b.case"],  # the cases' uses, set by the base only
    }


def test_a_problem_between_keys_is_listed_under_the_file_that_set_the_last_of_them(repo, schema_dir, paper, tmp_path):
    """sphere's d (set by the smoke config) against n (set by mine.yaml), and a task class that the case's keys
    cannot build (per_class, set by mine.yaml): both under mine.yaml, the file being edited."""
    from icdenoise.pipeline.config import ConfigFiles

    mine = tmp_path / "mine.yaml"
    mine.write_text("cases:\n  sphere: {n: 1}\n  digits: {per_class: 175}\n")
    config = merged(merged(paper, load_yaml(repo / "config" / "smoke.yaml")), load_yaml(mine))
    sources = ConfigFiles([repo / "config" / "config.yaml", repo / "config" / "smoke.yaml", mine], workdir=repo)
    with pytest.raises(ConfigError) as error:
        validate_config(config, schema_dir, sources=sources)
    lines = str(error.value).splitlines()
    assert lines[:2] == ["invalid configuration (2 problems):", f"  in {mine}:"]
    listed = sorted(lines[2:])
    assert listed[0].startswith("    - cases.digits: icdenoise.maths.digits:Digits (") and "per_class: 175" in listed[0]
    assert listed[1].startswith("    - cases.sphere.d: 1 needs a 2-dim subspace but cases.sphere.n = 1")


def test_a_key_no_file_sets_is_listed_last_and_the_files_are_read_only_on_a_problem(repo, schema_dir, paper, tmp_path):
    from icdenoise.pipeline.config import ConfigFiles

    missing = ConfigFiles([tmp_path / "never_written.yaml"], workdir=repo)
    validate_config(paper, schema_dir, sources=missing)  # valid: the (missing) file is never read
    config = {key: value for key, value in copy.deepcopy(paper).items() if key != "mssa"}
    with pytest.raises(ConfigError) as error:
        validate_config(config, schema_dir, sources=ConfigFiles([repo / "config" / "config.yaml"], workdir=repo))
    lines = str(error.value).splitlines()
    assert len(lines) == 3 and lines[1] == "  in the merged config (set by no file):"
    assert lines[2].startswith("    - <top level>: 'mssa' is a required property")


def test_a_config_error_in_the_workflow_ends_the_run_with_its_message_alone(caplog):
    from icdenoise.pipeline.config import config_errors_end_the_run

    with pytest.raises(SystemExit) as ended, config_errors_end_the_run():
        raise ConfigError("invalid configuration (1 problem):\n  - training.lr: bad")
    assert ended.value.code == 1 and ended.value.__cause__ is None and ended.value.__suppress_context__
    assert caplog.messages == ["invalid configuration (1 problem):\n  - training.lr: bad"]
    with config_errors_end_the_run():  # nothing raised, nothing logged
        pass
    with pytest.raises(KeyError), config_errors_end_the_run():  # any other error is Snakemake's to show
        raise KeyError("x")


@pytest.mark.parametrize("replace", [False, True])
def test_the_base_config_merges_as_snakemakes_configfile_directive_merges_it(tmp_path, replace):
    """merge_base_config against Snakemake's own `configfile:`, parsed in this process: the same config (the
    command line's --configfile and --config over the base file's settings, or those alone under
    --replace-workflow-config) and the same config files; the base settings handed in stay as they were."""
    import contextlib
    import io
    from pathlib import Path

    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings, StorageSettings

    from icdenoise.pipeline.config import load_yaml, merge_base_config

    base = {"a": {"x": 1, "y": [1, 2]}, "b": {"z": "base"}, "c": 3}
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(base))
    (tmp_path / "over.yaml").write_text(yaml.safe_dump({"a": {"x": 2}, "d": 4}))
    snakefiles = {"directive": 'configfile: "base.yaml"\n',
                  "merged": 'from icdenoise.pipeline.config import load_yaml, merge_base_config\n'
                            'BASE = load_yaml("base.yaml")\nmerge_base_config(workflow, "base.yaml", BASE)\n'}
    parsed = {}
    for name, text in snakefiles.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "Snakefile").write_text(text + "rule all:\n    output: 'x'\n")
        for file in ("base.yaml", "over.yaml"):
            (tmp_path / name / file).write_text((tmp_path / file).read_text())
        settings = ConfigSettings(configfiles=[tmp_path / name / "over.yaml"], config={"b": {"z": "cli"}},
                                  replace_workflow_config=replace)
        with contextlib.redirect_stdout(io.StringIO()), SnakemakeApi(OutputSettings(quiet={"all"})) as api:
            workflow = api.workflow(resource_settings=ResourceSettings(cores=1), config_settings=settings,
                                    storage_settings=StorageSettings(), snakefile=tmp_path / name / "Snakefile",
                                    workdir=tmp_path / name)._workflow
            config = workflow.globals["config"]
            parsed[name] = (copy.deepcopy(config), list(workflow.configfiles), workflow.globals.get("BASE"))
            config.get("a", {}).get("y", []).append(3)
    (directive, files, _), (merged, merged_files, handed) = parsed["directive"], parsed["merged"]
    assert merged == directive
    assert directive == ({"a": {"x": 2}, "b": {"z": "cli"}, "d": 4} if replace else
                         {"a": {"x": 2, "y": [1, 2]}, "b": {"z": "cli"}, "c": 3, "d": 4})
    assert [Path(file).name for file in merged_files] == [Path(file).name for file in files]
    assert handed == base  # an edit of the config (appended to a.y) changes the config, not the base settings
