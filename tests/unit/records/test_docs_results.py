"""The docs' results blocks: filled from a ledger snapshot, checked against it (a hand-edited number fails
and the check names the block), a placeholder while the snapshot does not exist, markers quoted in code left
alone, and the repository's own docs current with their snapshots."""

import importlib.util
from pathlib import Path

import pytest
from toy_ledger import LOCKS, write_toy_ledger

from icdenoise.records.docs_results import INLINE_PLACEHOLDER, DocsResultsError, check, markers, render
from icdenoise.records.ledger_snapshots import snapshot_text

REPO = Path(__file__).resolve().parents[3]
DOC = """# Toy

Why the claim should hold.

<!-- ledger: docs/ledgers/default/toy.csv -->
<!-- /ledger -->

The spread: <!-- ledger-claim: docs/ledgers/default/toy.csv spread ours --><!-- /ledger-claim -->; the single
value <!-- ledger-claim: docs/ledgers/default/toy.csv single --><!-- /ledger-claim -->.

<!-- ledger: docs/ledgers/long/toy.csv -->
<!-- /ledger -->

<!-- ledger: docs/ledgers/default/toy.csv headline -->
<!-- /ledger -->
"""


@pytest.fixture
def script():
    spec = importlib.util.spec_from_file_location("render_docs_results", REPO / "scripts" / "render_docs_results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main


@pytest.fixture
def repository(tmp_path):
    """A toy repository: one snapshot of the default run (docs/ledgers/default/toy.csv), none of the run `long`,
    and docs/toy.md quoting both."""
    target, text = snapshot_text(write_toy_ledger(tmp_path / "figures" / "toy" / "claims.parquet"), LOCKS.get,
                                 shown_as="figures/toy/claims.parquet")
    (tmp_path / target).parent.mkdir(parents=True)
    (tmp_path / target).write_text(text)
    (tmp_path / "docs" / "toy.md").write_text(DOC)
    return tmp_path


def test_rendering_fills_every_marker_and_then_the_check_passes(repository, script, capsys):
    assert script(["--check"], root=repository) == 1
    assert "docs/toy.md:5: block of docs/ledgers/default/toy.csv: differs" in capsys.readouterr().out
    assert script([], root=repository) == 0
    text = (repository / "docs" / "toy.md").read_text()
    assert "2 claims of the source. Registered, confirmatory: 0 pass, 0 fail, 1 inconclusive." in text
    assert "| `spread` | *INCONCLUSIVE*: the 95% interval [0.7516, 1.248] reaches both sides of the bound | 1 (95%: 0.7516 to 1.248); 3 values | 1 ± 0.2 |" in text
    assert "| `single` | **FAIL** (exploratory) | 3 | ≤ 2 + 0.5 |" in text
    assert "The spread: <!-- ledger-claim: docs/ledgers/default/toy.csv spread ours -->1 (95%: 0.7516 to 1.248); 3 values<!--" in text
    assert "-->FAIL: ours 3 against ≤ 2 + 0.5<!--" in text
    assert "built at commit bbbbbbbbbbbb (clean)" in text and "Why the claim should hold." in text
    assert "\n*Not yet built at this commit: no snapshot docs/ledgers/long/toy.csv" in text
    assert script(["--check"], root=repository) == 0 and check(repository) == []
    assert render(repository) == []  # rendering again changes nothing
    assert [marker.line for marker in markers(repository)] == [5, 18, 19, 21, 27]
    short = text[text.index("<!-- ledger: docs/ledgers/default/toy.csv headline -->"):]
    assert "Registered, confirmatory: 0 pass" in short and "| `spread` |" not in short


@pytest.mark.parametrize("edit, named", [
    (("1 ± 0.2 |", "1 ± 0.25 |"), "docs/toy.md:5: block of docs/ledgers/default/toy.csv: differs from its snapshot"),
    (("-->FAIL: ours 3", "-->PASS: ours 3"), "docs/toy.md:19: claim single of docs/ledgers/default/toy.csv: differs"),
    (("Not yet built at this commit", "Not yet built"), "docs/toy.md:21: block of docs/ledgers/long/toy.csv: differs from the placeholder"),
])
def test_a_hand_edit_fails_the_check_which_names_the_marker(repository, script, capsys, edit, named):
    render(repository)
    doc = repository / "docs" / "toy.md"
    doc.write_text(doc.read_text().replace(*edit, 1))
    capsys.readouterr()
    assert script(["--check"], root=repository) == 1
    output = capsys.readouterr().out
    assert named in output and len(output.splitlines()) == 1


def test_a_missing_snapshot_is_accepted_only_as_the_placeholder(repository):
    (repository / "docs" / "ledgers" / "default" / "toy.csv").unlink()
    render(repository)
    text = (repository / "docs" / "toy.md").read_text()
    assert text.count("*Not yet built at this commit") == 3 and text.count(f"-->{INLINE_PLACEHOLDER}<!--") == 2
    assert check(repository) == []


def test_an_unknown_claim_or_a_broken_marker_is_named_and_nothing_is_written(repository):
    doc = repository / "docs" / "toy.md"
    broken = DOC.replace("toy.csv spread ours", "toy.csv spred ours") + "<!-- ledger: docs/ledgers/default/toy.csv -->\n"
    doc.write_text(broken)
    with pytest.raises(DocsResultsError, match=r"docs/toy.md:8: claim spred of docs/ledgers/default/toy.csv: the snapshot has no claim spred"):
        render(repository)
    assert doc.read_text() == broken
    problems = check(repository)
    assert "docs/toy.md: 6 ledger markers open and 5 close, but 5 pairs are well formed" in problems[0]
    assert any("claim spred" in problem for problem in problems)



def test_a_marker_quoted_in_code_is_text(repository):
    quoted = ("Write `<!-- ledger: docs/ledgers/<run>/<study>.csv -->` on a line of its own, or inline\n"
              "`<!-- ledger-claim: docs/ledgers/default/toy.csv spread -->…<!-- /ledger-claim -->`:\n\n"
              "```\n<!-- ledger: docs/ledgers/default/toy.csv -->\n<!-- /ledger -->\n```\n")
    doc = repository / "docs" / "quoted.md"
    doc.write_text(quoted)
    assert render(repository, [doc]) == [] and doc.read_text() == quoted
    assert check(repository, [doc]) == [] and markers(repository, [doc]) == []


def test_the_repository_docs_match_their_ledger_snapshots():
    """Every results block of docs/*.md is what its committed snapshot (docs/ledgers/) gives, or the placeholder
    where none is committed: after scripts/snapshot_ledgers.py, run scripts/render_docs_results.py."""
    found = markers(REPO)
    assert {marker.doc for marker in found} >= {"docs/onelayer.md", "docs/alltoken.md", "docs/memory.md", "docs/mssa.md"}
    assert {marker.snapshot for marker in found if not marker.claim} >= {
        f"docs/ledgers/default/{study}.csv" for study in ("onelayer", "alltoken", "memory", "mssa")}
    problems = check(REPO)
    assert not problems, "the docs differ from their ledger snapshots:\n" + "\n".join(problems)


def test_docs_claims_md_names_every_undecided_claim_of_the_default_and_full_runs():
    """docs/claims.md, "What is still undecided, and why": the inline markers there name exactly the inconclusive
    claims of the sources, each study's full run's verdict taking the place of its default run's."""
    import re

    from icdenoise.records.ledger_snapshots import read_snapshot
    from icdenoise.records.ledger_text import source_claims

    text = (REPO / "docs" / "claims.md").read_text()
    section = text.split("## What is still undecided, and why")[1].split("\n## ")[0]
    named = set(re.findall(r"<!-- ledger-claim: (\S+) ([\w.-]+)", section))
    undecided = set()
    for default in sorted((REPO / "docs" / "ledgers" / "default").glob("*.csv")):
        full = REPO / "docs" / "ledgers" / f"{default.stem}_full" / default.name
        path = full if full.is_file() else default
        table = read_snapshot(path).table
        source = source_claims(table)
        relative = path.relative_to(REPO).as_posix()
        undecided |= {(relative, claim) for claim in table.loc[source & table["verdict"].eq("INCONCLUSIVE"), "claim"]}
    assert undecided, "no inconclusive claim in the snapshots: the section should then say so"
    assert named == undecided, f"missing: {sorted(undecided - named)}; not undecided: {sorted(named - undecided)}"
