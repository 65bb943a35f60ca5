"""docs/performance.md's tables of the latest measurements are held by the journal and the scripts: each row links to
its dated entry in docs/journal/, whose text has the row's date, commit and every number of its wall and "against"
cells; each row's command runs a script that exists with options that script defines; and every study, named run and
sweep of the config has a row. A row cannot drift from the record it quotes, nor its command from its script."""

import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
DOC = REPO / "docs" / "performance.md"
LINK = re.compile(r"\[[^\]]+\]\((?P<file>journal/[^)#]+)#(?P<anchor>[^)]+)\)")
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def slug(heading: str) -> str:
    """A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def sections(path: Path) -> dict[str, str]:
    """Anchor → the heading and the text under it, up to the next heading."""
    found, anchor = {}, None
    for line in path.read_text().splitlines():
        heading = re.match(r"#+ (.*)", line)
        if heading:
            anchor = slug(heading.group(1))
            found[anchor] = ""
        if anchor is not None:
            found[anchor] += line + "\n"
    return found


def rows() -> list[dict]:
    """Every table row of the doc that links to a journal entry: its cells by the header's names."""
    found, header = [], None
    for line in DOC.read_text().splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if header is None:
            header = cells
        elif LINK.search(line):
            found.append(dict(zip(header, cells)))
    return found


def target_of(row: dict) -> str:
    quoted = re.match(r"`([^`]+)`", row["target"])
    return quoted.group(1) if quoted else row["target"]


def command_of(row: dict) -> list[str]:
    return row["reproduce with"].strip("`").split()


ROWS = rows()
CONFIG = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
NAMED_RUNS = {yaml.safe_load(path.read_text())["run"]["name"]: path.relative_to(REPO).as_posix()
              for path in sorted((REPO / "config").glob("*.yaml")) if path.name not in ("config.yaml", "smoke.yaml")}


def test_the_doc_has_its_tables():
    assert len(ROWS) > 15 and all(set(row) >= {"target", "latest", "wall", "against", "reproduce with", "entry"} for row in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=target_of)
def test_a_row_is_what_its_journal_entry_says(row):
    link = LINK.search(row["entry"])
    entries = sections(DOC.parent / link["file"])
    assert link["anchor"] in entries, f"{target_of(row)}: no heading #{link['anchor']} in docs/{link['file']}"
    text = " ".join(entries[link["anchor"]].split())
    date, commit = [part.strip() for part in row["latest"].split(",")[:2]]
    assert date in text and commit in text, f"{target_of(row)}: {date} or {commit} is not in its entry"
    for number in NUMBER.findall(row["wall"] + " " + row["against"]):
        assert re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", text), f"{target_of(row)}: {number} is not in its entry"


@pytest.mark.parametrize("row", ROWS, ids=target_of)
def test_a_rows_command_runs_an_existing_script_with_its_own_options(row):
    words = command_of(row)
    if words[0] == "snakemake":  # a build not yet run, priced: its config files exist and it names a target
        files = words[words.index("--configfile") + 1:] if "--configfile" in words else []
        assert files and all((REPO / name).is_file() for name in files), f"{target_of(row)}: a config file does not exist"
        assert target_of(row) in words, f"{target_of(row)}: the command builds another target"
        return
    words = words[1:] if words[0] in ("python3", "python", "bash") else words
    if words[0] == "-m":  # a module of the package: a study's tool
        words = [f"src/{words[1].replace('.', '/')}.py", *words[2:]]
    script = REPO / words[0]
    assert script.is_file(), f"{target_of(row)}: {words[0]} does not exist"
    source = script.read_text()
    for option in (word for word in words[1:] if word.startswith("--")):
        assert f'"{option}"' in source, f"{target_of(row)}: {words[0]} has no option {option}"


@pytest.mark.parametrize("row", [row for row in ROWS if "scripts/benchmark.py" in row["reproduce with"]], ids=target_of)
def test_a_benchmark_command_builds_its_rows_target(row):
    words, target = command_of(row), target_of(row)
    built = words[words.index("--target") + 1]
    if target in NAMED_RUNS:
        assert words[words.index("--configfile") + 1] == NAMED_RUNS[target] and built in CONFIG["studies"]
    else:
        assert built == target and "--configfile" not in words


def test_every_study_named_run_and_sweep_has_a_row():
    targets = {target_of(row) for row in ROWS}
    expected = {"figures/fig3.pdf", "all", *CONFIG["studies"], *(f"sweep_{name}" for name in CONFIG["sweeps"]), *NAMED_RUNS}
    assert expected <= targets, f"no row in docs/performance.md for {sorted(expected - targets)}"


def test_every_journal_file_is_listed_in_its_readme():
    readme = (REPO / "docs" / "journal" / "README.md").read_text()
    for path in sorted((REPO / "docs" / "journal").glob("*.md")):
        assert path.name == "README.md" or f"({path.name})" in readme, f"docs/journal/README.md does not list {path.name}"
