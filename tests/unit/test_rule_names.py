"""Every rule's name appears literally where it is defined: each rule the workflow defines for the paper
config, the smoke config, the scaffold's template study and a scaffolded study is a quoted literal or `rule NAME:`
in the Snakefile or a .smk file of the repository (workflow/, the studies', the template's) or in the rules file
the scaffold writes. Only the rules the config names cannot be: sweep_<name>, one per sweep (the config's
and those a study declares in its block)."""

import re
import sys
from pathlib import Path

import pytest

from icdenoise.scaffold import NAME, TEMPLATE, Renamed, scaffold

REPO = Path(__file__).resolve().parents[2]
STUDY = "rule_names_toy"  # the scaffolded study's name: no package of the repository's
sys.path.insert(0, str(REPO / "scripts"))
from figure_table import load_workflow  # noqa: E402

RULES_FILES = [
    REPO / "Snakefile",
    *sorted((REPO / "workflow").rglob("*.smk")),
    *sorted((REPO / "src" / "icdenoise" / "studies").rglob("*.smk")),
    *sorted(TEMPLATE.rglob("*.smk")),
]
LITERAL = re.compile(r"""["'](\w+)["']|^\s*rule (\w+):""", flags=re.M)


def literal_names(texts) -> set[str]:
    """The words written as a quoted literal or as `rule NAME:` in the texts."""
    return {quoted or ruled for text in texts for quoted, ruled in LITERAL.findall(text)}


def forget(*packages):
    """Drop the packages' modules that a parsed workflow imported, so later tests import them afresh or not at all."""
    for module in [name for name in sys.modules if name.split(".")[0] in packages]:
        del sys.modules[module]


def unnamed_rules(workflow, texts) -> list[str]:
    """The rules of the parsed workflow whose names appear in none of the texts, but for sweep_<name>."""
    sweeps = {f"sweep_{sweep}" for sweep in workflow.globals["SWEEPS"]}
    written = literal_names(texts)
    return sorted(rule.name for rule in workflow.rules if rule.name not in written | sweeps)


@pytest.fixture(scope="module")
def parsed(tmp_path_factory):
    """Configured name → the workflow parsed with it (in this process, without the warm start's server): the paper
    config, the smoke config, the scaffold's template study's and a study the scaffold wrote outside the repository."""
    outside = tmp_path_factory.mktemp("outside")
    scaffold(STUDY, outside=outside)
    configs = {
        "paper": ["config/config.yaml"],
        "smoke": ["config/config.yaml", "config/smoke.yaml"],
        "starter": ["config/config.yaml", TEMPLATE / f"{NAME}.yaml"],
        "scaffolded": ["config/config.yaml", outside / f"{STUDY}.yaml"],
    }
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ICDENOISE_WARMSTART", "0")
        patch.syspath_prepend(str(TEMPLATE))
        patch.syspath_prepend(str(outside))
        workflows = {name: load_workflow(configfiles=files) for name, files in configs.items()}
    forget(STUDY, NAME)
    return workflows, outside


@pytest.mark.parametrize("config", ["paper", "smoke", "starter"])
def test_every_rule_is_named_literally_in_the_repositorys_rules_files(parsed, config):
    workflow = parsed[0][config]
    assert len(workflow.rules) > 50
    assert unnamed_rules(workflow, [path.read_text() for path in RULES_FILES]) == []


def test_the_smoke_configs_sweep_targets_are_the_only_rules_named_by_the_config(parsed):
    workflow = parsed[0]["smoke"]
    sweeps = {f"sweep_{sweep}" for sweep in workflow.config["sweeps"]}
    assert sweeps and sweeps <= {rule.name for rule in workflow.rules}
    assert not sweeps & literal_names(path.read_text() for path in RULES_FILES)


def test_every_rule_of_a_scaffolded_study_is_named_literally_in_the_file_the_scaffold_writes(parsed):
    workflow, outside = parsed[0]["scaffolded"], parsed[1]
    own = {f"compute_{STUDY}", f"plot_{STUDY}_noisy_query", f"write_{STUDY}_ledger", f"score_{STUDY}_denoisers"}
    assert own <= {rule.name for rule in workflow.rules}
    template = Renamed(STUDY, STUDY)((TEMPLATE / NAME / "workflow" / "rules.smk").read_text())
    assert (outside / STUDY / "workflow" / "rules.smk").read_text() == template
    assert own <= literal_names([template])
    assert unnamed_rules(workflow, [path.read_text() for path in RULES_FILES] + [template]) == []


def scaffolded_refusal(tmp_path) -> str:
    """The message that stops the read of the workflow with the study scaffolded under `tmp_path` merged in."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ICDENOISE_WARMSTART", "0")
        patch.syspath_prepend(str(tmp_path))
        with pytest.raises(Exception) as refused:
            load_workflow(configfiles=["config/config.yaml", tmp_path / f"{STUDY}.yaml"])
    forget(STUDY)
    return str(refused.value)


@pytest.mark.parametrize("helper, conventional", [
    ("figure_rule", f"plot_{STUDY}_noisy_query"),
    ("ledger_rule", f"write_{STUDY}_ledger"),
    ("score_rule", f"score_{STUDY}_denoisers"),
])
def test_a_template_refuses_a_name_other_than_its_conventions_with_the_name_to_write(tmp_path, helper, conventional):
    scaffold(STUDY, outside=tmp_path)
    rules = tmp_path / STUDY / "workflow" / "rules.smk"
    rules.write_text(rules.read_text().replace(f'"{conventional}"', '"draw_it"'))
    refused = scaffolded_refusal(tmp_path)
    assert f"{helper} gives its rule the name" in refused
    assert f"not 'draw_it'; write '{conventional}' as its first argument" in refused


@pytest.mark.parametrize("caption", ["noisy_query.rst", "claims.rst"])
def test_a_missing_report_caption_is_refused_when_the_workflow_is_read_naming_where_it_belongs(tmp_path, caption):
    """A figure's or a ledger's caption that is not where its rule says (relative to the rules file) stops the read,
    naming the path: Snakemake itself would read it only under --report."""
    scaffold(STUDY, outside=tmp_path)
    missing = tmp_path / STUDY / "workflow" / "report" / caption
    missing.rename(tmp_path / caption)
    assert f"no report caption {missing}: write it there" in scaffolded_refusal(tmp_path)


def test_a_sweep_whose_target_rule_takes_a_job_rules_name_is_refused_naming_the_sweep(tmp_path):
    """mssa's job rule sweep_mssa_snr and the target rule of a config sweep named mssa_snr would share a name:
    the read stops with the sweep's key, not with Snakemake's bare "already used by another rule"."""
    mine = tmp_path / "mine.yaml"
    mine.write_text("sweeps:\n  mssa_snr: {cases: [gmm], models: [softmax], seeds: [0, 1], grid: {case.n: [2, 4]}}\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ICDENOISE_WARMSTART", "0")
        with pytest.raises(Exception) as refused:
            load_workflow(configfiles=["config/config.yaml", "config/smoke.yaml", mine])
    assert "config sweeps.mssa_snr: its target rule sweep_mssa_snr is also the name of a job rule" in str(refused.value)
