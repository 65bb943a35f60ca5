"""The docs' results blocks: every verdict, count or measured claim value in the docs comes from a committed
ledger snapshot (icdenoise.records.ledger_snapshots), written there by ``scripts/render_docs_results.py``.

Two markers, in any Markdown file:

- a block, its markers each on a line of its own::

      <!-- ledger: docs/ledgers/default/memory.csv -->
      (generated)
      <!-- /ledger -->

  filled with the ledger it snapshots (file, run, the commit it was built at), the ledger's headline counts
  (icdenoise.records.claims.headline: the source's claims registered and confirmatory, registered but
  exploratory, not registered; self-checks and implied claims apart) and a table claim | verdict | ours (mean
  and 95% interval) | paper value or bound; ``<!-- ledger: SNAPSHOT headline -->`` leaves out the table;
- one claim inline, on one line: ``<!-- ledger-claim: docs/ledgers/default/memory.csv gamma_mean -->`` (generated)
  ``<!-- /ledger-claim -->``, filled with its verdict, our value and the bound; a third word after the claim
  picks one of them (`FIELDS`).

A marker quoted in code (between backticks, or in a fenced block) is text, not a marker. The snapshot's path is
relative to the repository root. A snapshot that is not there yet (the ledger has not been built and snapshotted
at this commit) gives the one-line `PLACEHOLDER` (inline: `INLINE_PLACEHOLDER`).
`check` lists every marker whose content is not what its snapshot gives, which makes stale docs a failing
test; nothing here reads config/claims.lock, so registering claims never forces a docs edit in the same commit.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from icdenoise.records.claims import headline, markdown_cell
from icdenoise.records.ledger_snapshots import Snapshot, SnapshotError, read_snapshot

RENDERER = "scripts/render_docs_results.py"
BLOCK = re.compile(r"^<!-- ledger: (?P<path>\S+)(?: (?P<form>headline))? -->\n(?P<body>.*?)^<!-- /ledger -->$", re.M | re.S)
INLINE = re.compile(r"<!-- ledger-claim: (?P<path>\S+) (?P<claim>[\w.-]+)(?: (?P<field>\w+))? -->(?P<body>[^\n]*?)"
                    r"<!-- /ledger-claim -->")
CODE = re.compile(r"^```.*?^```|`[^`\n]*`", re.M | re.S)  # fenced blocks and inline code: quoted markers are no markers
OPENERS = re.compile(r"<!-- ledger(?:-claim)?:")
CLOSERS = re.compile(r"<!-- /ledger(?:-claim)? -->")
FIELDS = ("verdict", "ours", "bound")  # an inline marker's third word; none: all three
PLACEHOLDER = "*Not yet built at this commit: no snapshot {path} (written by scripts/snapshot_ledgers.py from the built ledger).*"
INLINE_PLACEHOLDER = "*not yet built at this commit*"


class DocsResultsError(ValueError):
    """A marker cannot be rendered (unknown claim or field, unreadable snapshot); the message names the doc and line."""


@dataclass(frozen=True)
class Marker:
    """One marker of a doc: where it is, the snapshot it quotes, and (inline) the claim and field, or (a block)
    whether it shows the headline only."""

    doc: str
    line: int
    snapshot: str
    claim: str | None = None
    field: str | None = None
    headline_only: bool = False

    def __str__(self) -> str:
        what = f"claim {self.claim} of {self.snapshot}" if self.claim else f"block of {self.snapshot}"
        return f"{self.doc}:{self.line}: {what}"


def bound(row) -> str:
    """The paper's value with the comparison's tolerance, as a reader tests ours against it ('no verdict' for a
    claim measured with none)."""
    if row.verdict == "MEASURED":
        return "no verdict"
    paper, tolerance = f"{row.paper_value:g}", f"{row.tolerance:g}"
    if row.comparison == "within_absolute":
        return f"{paper} ± {tolerance}"
    if row.comparison == "within_relative":
        return f"{paper} ± {100 * row.tolerance:g}%"
    sign, direction = {"at_most": ("≤", "+"), "at_least": ("≥", "−")}[row.comparison]
    return f"{sign} {paper}" + (f" {direction} {tolerance}" if row.tolerance else "")


def ours(row) -> str:
    """Our mean, its 95% interval where there is one, and how many values it is the mean of."""
    text = f"{row.ours_mean:.4g}"
    if math.isfinite(row.interval_low) and math.isfinite(row.interval_high):
        text += f" (95%: {row.interval_low:.4g} to {row.interval_high:.4g})"
    if row.n_values > 1:
        text += f"; {row.n_values} values"
    return text


def verdict(row) -> str:
    """The verdict as the ledger shows it, with why an undecided claim is undecided, and its marks."""
    shown = {"PASS": "PASS", "FAIL": "**FAIL**", "INCONCLUSIVE": f"*INCONCLUSIVE*: {row.why_inconclusive}",
             "MEASURED": "MEASURED (no verdict)"}[row.verdict]
    superseded = getattr(row, "superseded_by", "")
    marks = [mark for mark, on in (("exploratory", row.exploratory), ("self-check", row.self_check),
                                   (f"implied by `{row.implied_by}`", row.implied_by),
                                   (f"our earlier reading, superseded by `{superseded}`", superseded),
                                   ("not registered", not row.registered)) if on]
    return shown + (f" ({'; '.join(marks)})" if marks else "")


def block(snapshot: Snapshot, path: str, headline_only: bool = False) -> str:
    """A block's generated Markdown: which ledger, built where, its headline counts and (unless `headline_only`)
    one row per claim."""
    header, table = snapshot.header, snapshot.table
    commit, _, tree = header["built at"].partition(" ")
    lines = [f"Generated by `{RENDERER}` from `{path}`, the snapshot of the ledger `{header['snapshot of']}` (run "
             f"`{header['run']}`, built at commit {commit[:12]} {tree}, file sha256 {header['ledger sha256'][:12]}); edit "
             "the ledger, not this block.", ""]
    if not snapshot.citable:
        lines += [f"**Not citable**: {header['registration']}.", ""]
    lines.append(headline(table))
    if headline_only:
        return "\n" + "\n".join(lines) + "\n\n"
    lines += ["", "| claim | verdict | ours: mean (95% interval) | paper value or bound |", "|---|---|---|---|"]
    lines += [f"| `{row.claim}` | {markdown_cell(verdict(row))} | {markdown_cell(ours(row))} | {markdown_cell(bound(row))} |"
              for row in table.itertuples()]
    return "\n" + "\n".join(lines) + "\n\n"


def placeholder(path: str) -> str:
    """A block's content while its snapshot does not exist."""
    return "\n" + PLACEHOLDER.format(path=path) + "\n\n"


def inline(row, field: str | None) -> str:
    """One claim inline: its verdict, ours and the bound, or the one `field` of them."""
    parts = {"verdict": row.verdict, "ours": ours(row), "bound": bound(row)}
    return parts[field] if field else f"{row.verdict}: ours {parts['ours']} against {parts['bound']}"


class _Snapshots:
    """Snapshots read once per run, by their path relative to the root; None where there is none."""

    def __init__(self, root: Path):
        self.root, self.read = root, {}

    def __call__(self, path: str) -> Snapshot | None:
        if path not in self.read:
            file = self.root / path
            if Path(path).is_absolute() or ".." in Path(path).parts:
                raise SnapshotError(f"{path}: a snapshot is named by its path relative to the repository root")
            self.read[path] = read_snapshot(file) if file.is_file() else None
        return self.read[path]


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _without_code(text: str) -> str:
    """The text with every code span and fenced block blanked (same length and lines), where markers are looked for."""
    return CODE.sub(lambda match: re.sub(r"[^\n]", " ", match[0]), text)


def _found(text: str, doc: str) -> tuple[list[tuple[Marker, re.Match]], str | None]:
    """Every well-formed marker of a doc's text with its match (offsets into `text`), in order, and what is wrong
    with the markers that are not well formed (None if nothing)."""
    searched = _without_code(text)
    blocks = list(BLOCK.finditer(searched))
    inside = lambda offset: any(match.start() <= offset < match.end() for match in blocks)  # noqa: E731
    inlines = [match for match in INLINE.finditer(searched) if not inside(match.start())]
    opened, closed = len(OPENERS.findall(searched)), len(CLOSERS.findall(searched))
    problem = None
    if opened != len(blocks) + len(inlines) or closed != opened:
        problem = (f"{doc}: {opened} ledger markers open and {closed} close, but {len(blocks) + len(inlines)} pairs are well "
                   "formed (a block's two markers each on a line of its own, an inline marker and its end on one line)")
    found = [(Marker(doc, _line(text, match.start()), match["path"], match["claim"], match["field"]) if match.re is INLINE
              else Marker(doc, _line(text, match.start()), match["path"], headline_only=bool(match["form"])), match)
             for match in sorted(blocks + inlines, key=lambda match: match.start())]
    return found, problem


def rendered(text: str, doc: str, snapshots: _Snapshots) -> tuple[str, list[tuple[Marker, bool]], list[str]]:
    """(the doc's text with every marker filled, each marker with whether its content already was what its
    snapshot gives, the problems that leave a marker unfilled: malformed markers, unknown claims or fields,
    unreadable snapshots)."""
    found, problem = _found(text, doc)
    errors = [problem] if problem else []
    markers, edits = [], []  # edits: (start, end, new body) of each filled marker's body
    for marker, match in found:
        if marker.field and marker.field not in FIELDS:
            errors.append(f"{marker}: unknown field {marker.field!r} (allowed: {', '.join(FIELDS)}, or none for all three)")
            continue
        try:
            snapshot = snapshots(marker.snapshot)
        except SnapshotError as error:
            errors.append(f"{marker}: {error}")
            continue
        if match.re is BLOCK:
            body = placeholder(marker.snapshot) if snapshot is None else block(snapshot, marker.snapshot, marker.headline_only)
        elif snapshot is None:
            body = INLINE_PLACEHOLDER
        else:
            rows = snapshot.table[snapshot.table["claim"] == marker.claim]
            if rows.empty:
                errors.append(f"{marker}: the snapshot has no claim {marker.claim} (it has: {', '.join(snapshot.table['claim'])})")
                continue
            body = inline(next(rows.itertuples()), marker.field)
        markers.append((marker, body == text[match.start("body"):match.end("body")]))
        edits.append((match.start("body"), match.end("body"), body))
    for start, end, body in reversed(edits):
        text = text[:start] + body + text[end:]
    return text, markers, errors


def markdown_files(root: Path, paths: list[Path] | None = None) -> list[Path]:
    """The files to render or check: `paths`, else every docs/*.md."""
    return sorted(paths) if paths else sorted((root / "docs").glob("*.md"))


def _name(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def render(root: Path, paths: list[Path] | None = None) -> list[Path]:
    """Fill every marker of the files (default: docs/*.md) from its snapshot; return the files that changed.
    A marker that cannot be filled is a DocsResultsError listing every such marker, and no file is written."""
    snapshots, results, errors = _Snapshots(root), [], []
    for path in markdown_files(root, paths):
        text = path.read_text()
        new, _, problems = rendered(text, _name(path, root), snapshots)
        errors += problems
        results.append((path, text, new))
    if errors:
        raise DocsResultsError("cannot render:\n" + "\n".join(errors))
    changed = [path for path, text, new in results if new != text]
    for path in changed:
        path.write_text(next(new for file, _, new in results if file == path))
    return changed


def check(root: Path, paths: list[Path] | None = None) -> list[str]:
    """Every marker of the files (default: docs/*.md) whose content differs from what its snapshot gives (a
    missing snapshot gives the placeholder), and every marker that cannot be filled; [] when the docs are current."""
    snapshots, problems = _Snapshots(root), []
    for path in markdown_files(root, paths):
        _, markers, errors = rendered(path.read_text(), _name(path, root), snapshots)
        problems += errors
        for marker, same in markers:
            if not same:
                missing = snapshots(marker.snapshot) is None
                expected = f"the placeholder (no snapshot {marker.snapshot} exists)" if missing else "its snapshot"
                problems.append(f"{marker}: differs from {expected}; run {RENDERER}")
    return problems


def markers(root: Path, paths: list[Path] | None = None) -> list[Marker]:
    """Every well-formed marker of the files (default: docs/*.md)."""
    return [marker for path in markdown_files(root, paths) for marker, _ in _found(path.read_text(), _name(path, root))[0]]
