"""The report's front page (`snakemake --report`): what the pipeline is, which config and commit the
report's tables were built from, and where each study's figures and ledger are.

Snakemake renders the global description with the config alone, so the Snakefile writes this text
to a file while it is read, under `--report` only, and names that file in its `report:` directive.
"""

from __future__ import annotations

from pathlib import Path

from icdenoise.pipeline.registry import Study

DESCRIPTION = Path(".snakemake") / "icdenoise" / "report.rst"


def built_at(tables) -> list[str]:
    """The commits the tables were written at (short, with "+ uncommitted changes" where the tree was dirty)."""
    from icdenoise.records.artifacts import read_metadata

    commits = []
    for table in map(Path, tables):
        if table.is_file():
            metadata = read_metadata(table)
            commit = str(metadata.get("git_commit", "unknown"))[:12]
            commits.append(commit + (" + uncommitted changes" if metadata.get("git_dirty") else ""))
    return sorted(set(commits))


def front_page(studies: dict[str, Study], sources: dict, tables) -> str:
    """The front page's reStructuredText."""
    files = " + ".join(f"``{entry['file']}``" for entry in sources["files"])
    commits = ", ".join(f"``{commit}``" for commit in built_at(tables)) or "not built yet"
    lines = [
        "Attention as in-context denoising and associative memory",
        "=========================================================",
        "",
        "A reproducible pipeline for the theory of attention as in-context denoising and associative memory:",
        "datasets, trained attention ensembles, Bayes-optimal baselines, scans and figures, each a Parquet-backed",
        "target of one Snakemake DAG.",
        "",
        f"**This report** shows the run ``{sources['run']}``, built from {files} (merged config sha256 ``{sources['merged_sha256'][:12]}``);",
        f"its ledgers and leaderboard were written at commit {commits}.",
        "",
        "**Results** has one category per study, each with its figures (label *item*: the figure's name) and its",
        "claims ledger (pass or fail, with the tolerance written before the run), and the leaderboard: every",
        "denoiser on every configured case, scored against the Bayes posterior mean on the same prompts. A report",
        "asked for them (``snakemake --report report.html all sweeps comparison``) also has the run's sweeps and its",
        "comparison with the runs its config names.",
        "",
        "Studies in this run:",
        "",
        *[f"- ``{name}``: {study.title}" for name, study in studies.items()],
        "",
    ]
    return "\n".join(lines)


def write_front_page(studies: dict[str, Study], sources: dict, tables) -> Path:
    """Write the front page to DESCRIPTION (in the working directory) and return its absolute path."""
    DESCRIPTION.parent.mkdir(parents=True, exist_ok=True)
    DESCRIPTION.write_text(front_page(studies, sources, tables))
    return DESCRIPTION.resolve()
