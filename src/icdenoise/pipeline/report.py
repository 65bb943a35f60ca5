"""The report's front page (`snakemake --report`): first, what a reader opens it for, each study's verdicts (the
source's claims that hold, fail and are undecided, counted as each ledger's headline counts them, the failing
ones by name, and whether the rows are registered, that is citable), with a banner when the run's settings are
not the paper's; then which config and commit the report's tables were built from, what is not built yet (with
the command that builds it), the settings that differ from the run's parent config (the config it is merged over)
and then from the paper's, and where each study's figures and ledger are.

Snakemake renders the global description with the config alone, so the Snakefile writes this text
to a file while it is read, under `--report` only, and names that file in its `report:` directive. Snakemake's
report stops at a file flagged for it that does not exist, and reports the jobs of the targets it is given (a
partial report); `built_targets` keeps the targets that are built, which the workflow's target rules give it
under `--report`, and the front page lists the rest, with the command that builds it.
"""

from __future__ import annotations

import html
import json
import os
import shlex
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from icdenoise.pipeline.registry import Study

DESCRIPTION = Path(".snakemake") / "icdenoise" / "report.rst"
PAPER_CONFIG = "config/config.yaml"
# Snakemake's report centres the landing page in a flex box, which cuts off the top of a page taller than the
# window; "safe" centring keeps its top (the banner and the verdicts) in view. The style lives while the page does.
# On the landing page (the style lives while it does): the menu no wider than a fifth of the window, its long category
# names wrapped (Snakemake sizes it to the longest), the description as wide as its verdict table needs, and the rule
# graph below it rather than beside it (the sidebar's Workflow shows it too).
PAGE_STYLE = " ".join([
    ".h-screen.overflow-auto.items-center { align-items: safe center; justify-content: safe center; }",
    "nav.min-w-fit.w-1\\/5 { min-width: 16rem; }",
    ".grow.flex.gap-3.p-3.items-start { flex-direction: column; }",
    ".prose.max-w-lg { max-width: 64rem; }",
    "nav svg { flex-shrink: 0; }",
    ".icdenoise-verdicts td, .icdenoise-verdicts th { padding: 0.25em 0.5em; vertical-align: top; }",
    ".icdenoise-verdicts td.number { text-align: right; }",
    ".prose code::before, .prose code::after { content: none; }",
])
BANNER_STYLE = "border: 2px solid #b45309; background: #fef3c7; color: #78350f; padding: 0.8em 1em; margin: 1em 0; font-weight: 600;"


def difference_text(key: str, paper_value: str, value: str) -> str:
    """One changed setting, as `dataset.seed: 0 → 7`."""
    return f"{key}: {paper_value} → {value}"


def study_differences(differences, blocks) -> list[tuple[str, str, str]]:
    """The differences in the config blocks `blocks`, in the order of the blocks, each difference once (a block
    may lie inside an earlier one's: `figure_blocks`)."""
    chosen = [entry for block in blocks for entry in differences if entry[0] == block or entry[0].startswith(block + ".")]
    return list(dict.fromkeys(chosen))


def figure_blocks(study: str, figure: str, study_block, shared) -> list[str]:
    """The config blocks a study's figure names in its footer, in the order it names them: first the sub-block
    of the study's block the figure is named after (its file name is the sub-block's name, or starts with it and
    an underscore: `fig3` → onelayer.fig3, `memory/zipf_n` → memory.zipf; of several, the longest:
    `memory/induction_shakespeare` → memory.induction_shakespeare, not memory.induction), then the shared blocks
    the study reads (`shared`, `Study.shared_keys`: of the cases and models, those it reads), then the rest of the study's block. So the settings the
    figure's own jobs read come before a sibling figure's."""
    name = figure.rsplit("/", 1)[-1]
    named = [key for key in study_block if name == key or name.startswith(f"{key}_")]
    own = [f"{study}.{max(named, key=len)}"] if named else []
    return [*own, *shared, study]


def banner(differences, paper: str = PAPER_CONFIG) -> str:
    """The warning a run whose settings differ from the paper config's carries on the front page; none
    (an empty string) for the paper's own settings."""
    if not differences:
        return ""
    changed = f"{len(differences)} setting" + ("s" if len(differences) > 1 else "")
    return (f"These verdicts are not the paper's: this run changes {changed} of {paper} (listed "
            "below). A smoke or toy run is sized to finish in minutes, so failed and inconclusive claims are expected.")


def counts_text(counts: dict[str, int] | None) -> str:
    """A study's verdict counts in words, or that its ledger is not built yet."""
    if counts is None:
        return "ledger not built yet"
    return ", ".join(f"{number} {verdict.lower()}" for verdict, number in counts.items()) + f" ({sum(counts.values())} claims)"


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


@dataclass
class LedgerSummary:
    """What the front page's verdict table says of a study's ledger, counted as its headline counts
    (icdenoise.records.ledger_text.row_groups): the source's claims, each statement once; those that hold, fail
    and are undecided; the failing ones by name; how many are registered (confirmatory or exploratory) and not; and
    the other failing rows (a self-check, a superseded reading…), by name with what they are."""

    claims: int
    verdicts: dict[str, int]  # PASS, FAIL, INCONCLUSIVE → claims of the source
    failing: list[str]
    confirmatory: int
    exploratory: int
    not_registered: int
    other_failing: list[tuple[str, str]] = field(default_factory=list)  # (claim, what it is)


OTHER_ROWS = {"repeated": "repeated by its confirmatory twin", "superseded": "our superseded reading",
              "self_check": "self-check", "implied": "implied by another claim"}  # row_groups' groups apart from the source's


def ledger_summary(table) -> LedgerSummary:
    """A ledger table's `LedgerSummary` (icdenoise.records.claims.ledger's columns: claim, verdict, registered,
    exploratory, self_check…)."""
    from icdenoise.records.ledger_text import row_groups, source_claims

    groups, source = row_groups(table), source_claims(table)
    verdicts = table["verdict"].astype(str)
    failing = verdicts.eq("FAIL")
    others = {}
    for group, what in OTHER_ROWS.items():
        for claim in table.loc[groups[group] & failing & ~source, "claim"]:
            others.setdefault(str(claim), what)
    return LedgerSummary(
        claims=int(source.sum()),
        verdicts={verdict: int((source & verdicts.eq(verdict)).sum()) for verdict in ("PASS", "FAIL", "INCONCLUSIVE")},
        failing=[str(claim) for claim in table.loc[source & failing, "claim"]],
        confirmatory=int(groups["confirmatory"].sum()),
        exploratory=int(groups["exploratory"].sum()),
        not_registered=int(groups["not_registered"].sum()),
        other_failing=list(others.items()),
    )


def ledger_summaries(ledgers: dict[str, Path]) -> dict[str, LedgerSummary | None]:
    """Study → its ledger's `ledger_summary`, read from its Parquet as built; None for a ledger not built yet."""
    import pandas as pd

    return {study: ledger_summary(pd.read_parquet(path)) if Path(path).is_file() else None for study, path in ledgers.items()}


def registration_text(summary: LedgerSummary) -> str:
    """Whether a study's counted claims are registered (citable): all, none, or how many of them."""
    registered = summary.confirmatory + summary.exploratory
    exploratory = f" ({summary.exploratory} exploratory)" if summary.exploratory else ""
    if summary.claims == 0:
        return "–"
    if registered == summary.claims:
        return f"all {summary.claims}{exploratory}"
    if registered == 0:
        return f"none of {summary.claims}: not citable"
    return f"{registered} of {summary.claims}{exploratory}; {summary.not_registered} not, not citable"


def failing_html(summary: LedgerSummary) -> str:
    """The failing claims of the source by name, then the other failing rows with what they are."""
    names = [f"<code>{html.escape(claim)}</code>" for claim in summary.failing]
    others = [f"<code>{html.escape(claim)}</code> ({html.escape(what)})" for claim, what in summary.other_failing]
    text = ", ".join(names) or "none"
    return text + (f"; also failing: {', '.join(others)}" if others else "")


def verdict_table(studies: dict[str, Study], summaries: dict, commands: dict[str, str]) -> list[str]:
    """The front page's verdict table, as reStructuredText lines (raw HTML): per study, the source's claims and
    those that hold, fail and are undecided (`LedgerSummary`), the failing ones by name, and whether they are
    registered; for a ledger not built yet, the command that builds it (`commands`: study → command)."""
    header = ("<tr><th>study</th><th>claims</th><th>hold</th><th>fail</th><th>undecided</th>"
              "<th>failing claims</th><th>registered</th></tr>")
    rows = []
    for name, study in studies.items():
        summary = summaries.get(name)
        label = f'<td title="{html.escape(study.title)}"><code>{html.escape(name)}</code></td>'
        if summary is None:
            command = commands.get(name, "")
            built = f": <code>{html.escape(command)}</code>" if command else ""
            rows.append(f'<tr class="not-built">{label}<td colspan="6">ledger not built yet{built}</td></tr>')
            continue
        counts = "".join(f'<td class="number">{number}</td>' for number in (summary.claims, *summary.verdicts.values()))
        rows.append(f"<tr>{label}{counts}<td>{failing_html(summary)}</td><td>{html.escape(registration_text(summary))}</td></tr>")
    return [".. raw:: html", "", '   <table class="icdenoise-verdicts">', f"   <thead>{header}</thead><tbody>",
            *(f"   {row}" for row in rows), "   </tbody></table>", ""]


def build_command(snakemake: str, target: str, configfiles=(), overrides=None) -> str:
    """The command that builds `target` in this run: `snakemake --cores 2 TARGET` with the run's config files (those
    after config/config.yaml) and its --config values."""
    configfiles = [os.path.relpath(path) if Path(path).resolve().is_relative_to(Path.cwd().resolve()) else str(path)
                   for path in configfiles]  # as the README writes them: relative to the working directory
    arguments = ["--cores", "2", target]
    if overrides:
        arguments += ["--config", *(f"{key}={json.dumps(value)}" for key, value in overrides.items())]
    if configfiles:
        arguments += ["--configfile", *configfiles]  # last: it takes several values
    return f"{snakemake} {shlex.join(arguments)}"  # `snakemake` as typed (icdenoise.pipeline.named_runs.snakemake_command)


def built_targets(paths: Iterable[str], resolve: Callable[[str], str] = str) -> list[str]:
    """The paths of `paths` whose job has written every one of them, in their order: paths of one stem (a figure's PDF
    and PNG; a ledger's table, text and page) are one job's outputs, kept when each exists. `resolve`: a path as
    written (`<figures>/fig3.pdf`) → the file's path."""
    paths = list(paths)
    built = {}
    for path in paths:
        stem = str(Path(path).with_suffix(""))
        built[stem] = built.get(stem, True) and Path(resolve(path)).exists()
    return [path for path in paths if built[str(Path(path).with_suffix(""))]]


def not_built_items(paths: Iterable[str], resolve: Callable[[str], str] = str, folder: str = "") -> list[str]:
    """The items of `paths` not built (`built_targets`), each named once by its stem, relative to `folder`."""
    paths = list(paths)
    built = set(built_targets(paths, resolve))
    stems = [str(Path(path).with_suffix("")) for path in paths if path not in built]
    return [stem.removeprefix(folder).lstrip("/") if folder else stem for stem in dict.fromkeys(stems)]


def not_built_section(missing: list[tuple[str, list[str], str]], everything: str) -> list[str]:
    """What the report cannot show yet, as reStructuredText lines: per part (a study, the leaderboard), its items
    not built and the command that builds them (`missing`: (part, items, command)); `everything`: the command that
    builds them all."""
    if not missing:
        return []
    lines = ["**Not built yet**, so not in this report (each command builds the part's missing items and what they need;",
             f"``{everything}`` builds everything):", ""]
    lines += [f"- ``{part}``: {', '.join(items)} — ``{command}``" for part, items, command in missing]
    return [*lines, ""]


@dataclass
class Parent:
    """The config a run is merged over (icdenoise.experiments.comparison.parent_config): its files, in merge order,
    and (key, its value, this run's value) of each setting the run changes over it."""

    files: list[str] = field(default_factory=list)
    differences: list[tuple[str, str, str]] = field(default_factory=list)

    def is_paper(self) -> bool:
        """The parent is the paper's config alone (or there is none): its differences are the paper's."""
        return self.files in ([], [PAPER_CONFIG])


def front_page(studies: dict[str, Study], sources: dict, tables, counts: dict | None = None, differences=(), *,
               summaries: dict | None = None, parent: Parent | None = None, missing=(), everything: str = "") -> str:
    """The front page's reStructuredText. counts: study → its verdict counts over every row, or None where its ledger
    is not built (icdenoise.experiments.comparison.study_verdict_counts); differences: (key, paper's value, this run's
    value) of each changed setting, the run's own first (icdenoise.experiments.comparison.config_differences);
    summaries: study → its `LedgerSummary` or None (`ledger_summaries`), the verdict table at the top; parent: the
    config the run is merged over; missing, everything: what is not built and how to build it (`not_built_section`).
    Wrapped in a Jinja raw block, since Snakemake renders the page as a template and config values may hold
    braces."""
    files = " + ".join(f"``{entry['file']}``" for entry in sources["files"])
    commits = ", ".join(f"``{commit}``" for commit in built_at(tables)) or "not built yet"
    counts = counts or {}
    warning = banner(differences)
    commands = {part: command for part, _, command in missing}
    lines = [
        "{% raw %}",
        ".. raw:: html",
        "",
        f"   <style>{PAGE_STYLE}</style>",
        "",
        "Attention as in-context denoising and associative memory",
        "=========================================================",
        "",
        *([".. raw:: html", "", f'   <div class="icdenoise-banner" role="alert" style="{BANNER_STYLE}">{html.escape(warning)}</div>', ""]
          if warning else []),
        *([f"**Verdicts** of run ``{sources['run']}``: the source's claims, each statement once (as each ledger's first line counts",
           "them: without self-checks, implied claims, superseded readings and measurements with no verdict); a registered",
           "claim's tolerance and deciding settings were committed before its result, and only a registered one is citable.",
           "", *verdict_table(studies, summaries, commands)] if summaries is not None else []),
        f"**This report** shows the run ``{sources['run']}``, built from {files} (merged config sha256 ``{sources['merged_sha256'][:12]}``);",
        f"its ledgers and leaderboard were written at commit {commits}.",
        "",
        *not_built_section(list(missing), everything),
        *differences_section(sources["run"], differences, parent or Parent()),
        "A reproducible pipeline for the theory of attention as in-context denoising and associative memory:",
        "datasets, trained attention ensembles, Bayes-optimal baselines, scans and figures, each a Parquet-backed",
        "target of one Snakemake DAG.",
        "",
        "Studies in this run, with the verdicts of every row of their ledgers (as built):",
        "",
        *[f"- ``{name}``: {study.title}" + (f" — {counts_text(counts[name])}" if name in counts else "")
          for name, study in studies.items()],
        "",
        "**Results** has one category per study, each with its figures (label *item*: the figure's name; each shown as a PNG, its PDF beside it) and its",
        "claims ledger (pass or fail, with the tolerance written before the run), and the leaderboard: every",
        "denoiser on every configured case, scored against the Bayes posterior mean on the same prompts. A report",
        "asked for them (``snakemake --report report.html all sweeps comparison``) also has the run's sweeps and its",
        "comparison with the runs its config names.",
        "",
        "{% endraw %}",
        "",
    ]
    return "\n".join(lines)


def differences_section(run: str, differences, parent: Parent) -> list[str]:
    """The settings that differ, key by key, as reStructuredText lines: first those that differ from the run's parent
    config (the config it is merged over: its own changes), in view, where the parent is not the paper config alone;
    then those that differ from the paper config, the run's own first, as a list folded away (an HTML <details>
    block), so that a long one leaves the page's top in view."""
    not_compared = "how jobs run, the execution block, is not compared"
    lines = []
    if not parent.is_paper():
        names = " + ".join(parent.files)
        own = [f"   <li><code>{html.escape(difference_text(*entry))}</code></li>" for entry in parent.differences]
        lines += [".. raw:: html", "",
                  f"   <p>{len(parent.differences)} {'setting of' if len(parent.differences) == 1 else 'settings of'} "
                  f"{html.escape(run)} {'differs' if len(parent.differences) == 1 else 'differ'} from its "
                  f"parent config, {html.escape(names)}, the config it is merged over ({not_compared}){':' * bool(own)}</p>",
                  *(["   <ul>", *own, "   </ul>"] if own else []), ""]
    if not differences:
        return [*lines, f"Settings: the paper's own (``{PAPER_CONFIG}``; {not_compared}).", ""]
    own = " (the run's own changes first)" if not parent.is_paper() and parent.differences else ""
    summary = f"{len(differences)} settings of {run} differ from {PAPER_CONFIG}{own} ({not_compared}); open to list them"
    items = [f"   <li><code>{html.escape(difference_text(*entry))}</code></li>" for entry in differences]
    return [*lines, ".. raw:: html", "", f"   <details><summary>{html.escape(summary)}</summary><ul>", *items, "   </ul></details>", ""]


def write_front_page(studies: dict[str, Study], sources: dict, tables, counts: dict, differences, **parts) -> Path:
    """Write the front page (`front_page`; `parts`: its keyword arguments) to DESCRIPTION (in the working directory)
    and return its absolute path."""
    DESCRIPTION.parent.mkdir(parents=True, exist_ok=True)
    DESCRIPTION.write_text(front_page(studies, sources, tables, counts, differences, **parts))
    return DESCRIPTION.resolve()
