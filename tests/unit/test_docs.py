"""The docs tell the truth where a test can check them: every repository path they quote exists, and
every `icdenoise.…` name they quote is a module, or an attribute of one. (The targets of the commands
they quote are checked against the workflow's plan in tests/integration/test_conventions.py.)"""

import importlib
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "config" / "README.md",
        REPO / "tests" / "example_study" / "README.md"]
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
