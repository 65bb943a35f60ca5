"""Config validation: shipped configs pass, bad ones name the key and the allowed values."""

import copy
import subprocess
import sys

import pytest

from icdenoise.config import ConfigError, load_yaml, validate_config


@pytest.fixture(scope="module")
def schema(repo):
    return load_yaml(repo / "workflow" / "schemas" / "config.schema.yaml")


@pytest.fixture(scope="module")
def paper(repo):
    return load_yaml(repo / "config" / "config.yaml")


def merged(base: dict, overlay: dict) -> dict:
    """`overlay` merged into `base` key by key, as `snakemake --configfile` does."""
    result = copy.deepcopy(base)
    for key, value in overlay.items():
        result[key] = merged(result[key], value) if isinstance(value, dict) and isinstance(result.get(key), dict) else value
    return result


def test_shipped_configs_are_valid(repo, schema, paper):
    validate_config(paper, schema)
    validate_config(merged(paper, load_yaml(repo / "config" / "smoke.yaml")), schema)


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
        assert "description" in resolved, f"{path} has no description"
        assert "type" in resolved, f"{path} has no type"
        if resolved["type"] == "object":  # unknown keys are refused, or validated by a schema of their own
            assert resolved.get("additionalProperties") is False or isinstance(resolved.get("additionalProperties"), dict), \
                f"{path} allows unknown keys"
        if resolved["type"] in ("integer", "number"):
            assert {"minimum", "exclusiveMinimum"} & resolved.keys(), f"{path} has no lower bound"


BAD = [
    (lambda c: c["cases"]["linear"].update(d=20), "cases.linear.d", "1 ≤ d ≤ n"),
    (lambda c: c["cases"]["sphere"].update(d=16), "cases.sphere.d", "d ≤ n − 1"),
    (lambda c: c["cases"]["gmm"].update(sigma0_sq=-1.0), "cases.gmm.sigma0_sq", "> 0"),
    (lambda c: c["cases"].update(torus={"task": "torus", "n": 3}), "cases.torus.task", "linear, sphere, gmm"),
    (lambda c: c["cases"].update(Bad_Name=c["cases"]["linear"]), "cases", "^[a-z][a-z0-9_]*$"),
    (lambda c: c["cases"]["linear"].update(K=3), "cases.linear", "allowed keys"),
    (lambda c: c["training"].update(lrr=0.1), "training", "allowed keys"),
    (lambda c: c["cases"]["linear"].update(L=0), "cases.linear.L", "≥ 1"),
    (lambda c: c["training"].update(device="tpu"), "training.device", "auto, cpu, cuda"),
    (lambda c: c["bayes"].update(n_prompts=200), "bayes.n_prompts", "≥ 10000"),
    (lambda c: c["dataset"].update(n_train=1000), "dataset.n_train", "n_train < n_prompts"),
    (lambda c: c["fig3"].update(representative_seed=9), "fig3.representative_seed", "not in training.seeds"),
    (lambda c: c["training"]["epochs"].pop("gmm"), "training.epochs.gmm", "missing"),
    (lambda c: c["cases"]["linear_transformed"].pop("transform"), "fig8.case", "has no transform"),
    (lambda c: c["fig5"].update(step_counts=[0, 2, 50]), "fig5.step_counts", "must include 1"),
    (lambda c: c["fig5"].update(case="sphere"), "fig5.case", "allowed: n = 2"),
    (lambda c: c["fig6"].update(cases=["linear_3d"]), "fig6.cases", "not in fig3.cases"),
    (lambda c: c["fig4a"].update(case="gmm"), "fig4a.case", "allowed: a linear case"),
    (lambda c: c["fig1"]["cases"].update(linear="linear"), "fig1.cases", "allowed: n = 3"),
    (lambda c: c["claims"].update(made_up={}), "claims", "allowed keys"),
    (lambda c: c["claims"]["fig4a_power_law"].update(comparison="roughly"), "claims.fig4a_power_law.comparison", "at_most"),
]


@pytest.mark.parametrize("mutate,key,allowed", BAD, ids=[b[1] for b in BAD])
def test_bad_config_names_key_and_allowed_values(schema, paper, mutate, key, allowed):
    config = copy.deepcopy(paper)
    mutate(config)
    with pytest.raises(ConfigError) as error:
        validate_config(config, schema)
    assert f"{key}:" in str(error.value)
    assert allowed in str(error.value)


def test_readme_holds_the_current_config_table(repo, schema):
    """The README's key table is exactly what scripts/config_table.py generates from the schema,
    and it names every key reachable through `properties`."""
    result = subprocess.run([sys.executable, str(repo / "scripts" / "config_table.py")], capture_output=True, text=True, check=True)
    readme = (repo / "README.md").read_text()
    assert result.stdout in readme, "README config table is stale: rerun scripts/config_table.py"
    for path, _ in walk({"properties": schema["properties"]}):  # the top-level tree, without $defs
        assert f"`{path[1:]}`" in result.stdout, f"the table misses {path[1:]}"
