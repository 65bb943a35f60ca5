"""The history in a ledger row: when a claim's bound and deciding settings took their current values, when a result
of it was first committed, and so whether the claim was confirmatory (its test fixed before any result of it was
seen), all read from git history by code.

What a claim's verdict reads ("its values"), in the merged config of its run (config/config.yaml, then the run's own
config file merged over it as ``snakemake --configfile`` merges one, ``snakemake.utils.update_config``):

- its **bound**: its block ``<study>.claims.<claim>`` (source value, comparison, tolerance, inconclusive rules, names,
  ``no_verdict``, its own settings such as seeds), less the `ANNOTATIONS` that only label its ledger row
  (``tolerance_reason``, ``exploratory``, ``self_check``, ``implied_by``, ``superseded_by``: no verdict reads them);
- its **deciding settings**: the sub-blocks of ``<study>`` that its registry entry names in ``Claim.needs`` (e.g.
  ``onelayer.fig3``), or, where it names none, the whole block ``<study>`` without its ``claims``; and every shared
  top-level block the study declares (``Study.shared_settings``, e.g. ``cases``, ``training``), less the entries of
  the cases and models the study does not read at HEAD (a `View`, ``Study.reading``: another study's case, or the
  leaderboard's, dates none of its claims; a case removed since makes the older commits' block differ).

Which blocks those are is read from today's registry and study, for every commit. A file that git does not hold at a
commit, or a block it does not hold, is absent there; a run's own file that does not exist yet merges nothing (the
run then reads config/config.yaml's values, as an empty ``--configfile`` would); a file that does not parse counts as
absent. Comments and key order never count, and neither does how a job runs: a key that today's ``execution`` block
holds at the same path (``execution.training.threads`` for ``training.threads``) counts at no commit, so the devices,
threads, chunk sizes and cluster requests that once stood in the science blocks are no deciding settings.

The four columns, for one claim of one run:

- ``first_written``: the oldest commit of the final unchanged stretch of its values, where a sub-block added
  beside the others since (a study's new figure block, a new case) is no change (`same_settings`). The stretch is
  walked along parent links, in the graph of the commits that touched the run's config files with each one's
  parents rewritten to its nearest such ancestors (`Repository.simplified`): from HEAD it continues into a parent
  only while that parent's values equal HEAD's, at a merge into each parent whose values do, and it starts at the
  oldest commit it reached (in the repository's topological order). A claim written on a side branch and merged
  with ``--no-ff`` thus dates from its branch's commit, however git interleaves the main line's commits with the
  branch's; a value changed and changed back dates from the change back, not from its first appearance. A claim's
  values are walked together (every key path the same), so that a claim whose bound was written on one branch
  and a deciding setting changed on another dates from the merge that first joined them.
- ``first_result``: the first commit that holds a result of the claim in this run, on every line of history (a
  commit whose ancestors hold none; the commits that changed a file on every side of every merge,
  `Repository.touching`, so that a result first committed on a merged branch counts from there):
  1. its snapshot ``docs/ledgers/<run>/<study>.csv`` (``<run>`` is ``default`` for config/config.yaml's run) has a
     row for the claim; or
  2. its study's results docs (``Study.results_docs``, default ``docs/<study>.md``) mention the claim's id, as a
     whole word, in their prose: the text outside HTML comments, so that a results marker
     (``<!-- ledger-claim: SNAPSHOT CLAIM -->``) whose snapshot does not exist yet is no result, while a rendered
     ledger block's table, or a number written by hand beside the id before the snapshots existed, is. Any mention
     counts, quoting a number or not: definitions stay out of the results docs (docs/claims.md, "Pre-registration"),
     so a mention there is taken as a result, which can only make a claim look less confirmatory. For a named run,
     a mention counts only in a paragraph that also names the run (``memory_full``), and a named run whose values
     equal the default run's measures what the default run measures: the default run's results count as its own.
  No such commit: no result yet (``none``).
- ``settings_changed_after_result``: ``first_written`` is a strict descendant of a first result: the bound or a
  deciding setting took its current value after a result was committed.
- ``confirmatory``: ``first_written`` is a strict ancestor of every first result (the test was fixed before any
  result), or there is no result yet: then nothing was seen, and the claim is confirmatory so far. The same commit,
  or two commits on branches beside each other, is not confirmatory, and neither is a history that cannot be read.

A ledger row that is not confirmatory by history is exploratory: `with_history` adds the reason to the row's
``exploratory`` text, beside the config's own. What this cannot see: the code a verdict runs (its changes are in the
claim's digest, icdenoise.records.registration), schema defaults, and results quoted outside the study's results docs
and snapshots (commit messages, other docs), or in a snapshot of another run; whether a named run's seeds are fresh is
not checked. The history is the committed one, up to HEAD: uncommitted edits are not in it (a ledger built from them
is not registered anyway).

Git is reached only through one `Git` function (arguments, stdin → stdout), `git_in` by default, and each
`Repository` reads every file version and parses every config once per process; this module is bookkeeping
(icdenoise.pipeline.codedeps.BOOKKEEPING), part of no claim's digest.
"""

from __future__ import annotations

import csv
import io
import re
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

Git = Callable[[Sequence[str], bytes], bytes]  # (git's arguments, its stdin) → its stdout; raises GitError
SHORT = 7  # the hex digits of a commit as the ledger shows it (as `defined_in`)
NO_RESULT = "none"
DEFAULT_RUN = "default"  # the snapshot folder of config/config.yaml's run (icdenoise.records.ledger_snapshots)
SNAPSHOTS = "docs/ledgers"
COLUMNS = ("first_written", "first_result", "settings_changed_after_result", "confirmatory")
WORD = re.compile(r"[A-Za-z0-9_]+")
COMMENT = re.compile(r"<!--.*?-->", re.S)
PARAGRAPH = re.compile(r"\n[ \t]*\n")
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class GitError(RuntimeError):
    """A git command failed; the message names it."""


def git_in(root: str | Path) -> Git:
    """The `Git` of the repository at `root`: runs the git command line there."""

    def git(arguments: Sequence[str], stdin: bytes = b"") -> bytes:
        try:
            return subprocess.run(["git", "-C", str(root), *arguments], input=stdin, capture_output=True, check=True).stdout
        except subprocess.CalledProcessError as error:
            raise GitError(f"git {' '.join(arguments)}: {error.stderr.decode(errors='replace').strip()}") from None
        except OSError as error:
            raise GitError(f"git {' '.join(arguments)}: {error}") from None

    return git


TOP_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:", re.M)  # a top-level key of a block-style YAML file


class Config(Mapping):
    """A block-style YAML file's top-level mapping, each block parsed only when asked for (a claim reads a few of a
    large config's blocks at every commit). The text is cut at its top-level keys; where a block does not parse on its
    own (an alias to another block's anchor), the whole file is parsed instead."""

    def __init__(self, sections: dict[str, str], text: str):
        self._sections, self._text, self._values = sections, text, {}

    @classmethod
    def of(cls, text: str):
        """The `Config` of `text`; `UNREADABLE` if it is no YAML mapping."""
        starts = [(match.start(), match.group(1)) for match in TOP_KEY.finditer(text)]
        sections = {key: text[start:(starts[index + 1][0] if index + 1 < len(starts) else len(text))]
                    for index, (start, key) in enumerate(starts)}
        config = cls(sections, text)
        if not sections:
            whole = config._whole()
            return whole if whole is UNREADABLE else cls({}, text)._with(whole)
        return config

    def _with(self, values: dict):
        self._sections = dict.fromkeys(values, "")
        self._values = dict(values)
        return self

    def _whole(self):
        try:
            value = yaml.load(self._text, Loader=SAFE_LOADER)
        except yaml.YAMLError:
            return UNREADABLE
        return (value or {}) if value is None or isinstance(value, Mapping) else UNREADABLE

    def __getitem__(self, key):
        if key not in self._sections:
            raise KeyError(key)
        if key not in self._values:
            try:
                self._values[key] = (yaml.load(self._sections[key], Loader=SAFE_LOADER) or {}).get(key)
            except (yaml.YAMLError, AttributeError):
                whole = self._whole()
                self._values = dict(whole) if isinstance(whole, Mapping) else {name: None for name in self._sections}
        return self._values[key]

    def __iter__(self):
        return iter(self._sections)

    def __len__(self):
        return len(self._sections)


class Repository:
    """One repository's history up to `revision`, read through `git`: its commits in topological order with their
    parents, which commits touched some paths (as a list, and as a graph), and the text of files at commits (each
    read once, many per git call)."""

    def __init__(self, git: Git, revision: str = "HEAD"):
        self.git = git
        self.parents: dict[str, tuple[str, ...]] = {}  # commit → its parents, oldest commit first
        for line in git(["rev-list", "--parents", "--topo-order", "--reverse", revision], b"").decode().splitlines():
            commit, *parents = line.split()
            self.parents[commit] = tuple(parents)
        if not self.parents:
            raise GitError(f"git rev-list {revision}: no commits")
        self.order = {commit: index for index, commit in enumerate(self.parents)}  # oldest first
        self.head = next(reversed(self.parents))
        self._touching: dict[tuple[str, ...], list[str]] = {}
        self._simplified: dict[tuple[str, ...], dict[str, tuple[str, ...]]] = {}
        self._texts: dict[tuple[str, str], tuple[str, str] | None] = {}  # (commit, path) → (blob id, text)
        self._parsed: dict[str, object] = {}  # blob id → its Config
        self._ancestors: dict[str, frozenset[str]] = {}

    def touching(self, paths: Sequence[str]) -> list[str]:
        """The commits that changed any of `paths`, newest first, in topological order, on every side of every
        merge (``git log --full-history``). Git's default simplification follows only a merge's side whose files
        the merge took whole, and hides the other side's commits: a result first committed on a branch that main
        had already caught up with would be dated from main's later copy, and its claim would look confirmatory
        when its settings were written between the two."""
        key = tuple(sorted(paths))
        if key not in self._touching:
            log = self.git(["log", "--format=%H", "--topo-order", "--full-history", self.head, "--", *key],
                           b"").decode().split()
            self._touching[key] = [commit for commit in log if commit in self.order]
        return self._touching[key]

    def simplified(self, paths: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The commits that changed any of `paths`, newest first in topological order, each with its parents
        rewritten to its nearest such ancestors (``git log --parents --full-history --simplify-merges``): a merge
        whose sides both changed `paths` since they parted stays, with both sides as parents; a merge left with one
        parent (a side that changed nothing, or one an ancestor of the other) is replaced by that parent.

        Not git's default simplification (``--parents`` alone), which at a merge whose `paths` equal one parent's
        follows that parent alone and hides every commit of the other side, whatever that side's values. Main
        merged into a branch that had made main's edit first is such a merge: the merge holds main's files whole,
        and the default would hide the branch's own commit that wrote the value and date it from main's copy. Which
        sides continue a claim's stretch is for the claim's values to decide (`first_written`), not for the files as
        a whole; the walk reads only the commits and parents listed here."""
        key = tuple(sorted(paths))
        if key not in self._simplified:
            log = self.git(["log", "--format=%H %P", "--topo-order", "--parents", "--full-history", "--simplify-merges",
                            self.head, "--", *key], b"").decode().splitlines()
            graph = {}
            for line in log:
                commit, *parents = line.split()
                if commit in self.order:
                    graph[commit] = tuple(parent for parent in parents if parent in self.order)
            self._simplified[key] = graph
        return self._simplified[key]

    def read(self, pairs: Sequence[tuple[str, str]]) -> list[str | None]:
        """The text of each (commit, path), None where the commit holds no such file; the unread ones in one
        `git cat-file --batch`."""
        return [None if blob is None else blob[1] for blob in self._blobs(pairs)]

    def _blobs(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str] | None]:
        """(blob id, text) of each (commit, path), None where there is no such file."""
        wanted = list(dict.fromkeys(pair for pair in pairs if pair not in self._texts))
        if wanted:
            out = self.git(["cat-file", "--batch"], "".join(f"{commit}:{path}\n" for commit, path in wanted).encode())
            position = 0
            for pair in wanted:
                end = out.index(b"\n", position)
                header = out[position:end].split()
                position = end + 1
                if len(header) == 3 and header[1] in (b"blob", b"tree", b"commit", b"tag"):
                    size = int(header[2])
                    body = out[position:position + size]
                    position += size + 1
                    self._texts[pair] = (header[0].decode(), body.decode("utf-8", errors="replace")) if header[1] == b"blob" else None
                else:  # "<object> missing" (or ambiguous)
                    self._texts[pair] = None
        return [self._texts[pair] for pair in pairs]

    def config(self, commit: str, path: str):
        """A YAML file at a commit: a `Config` (its top-level blocks, each parsed when first asked for), None where
        the file is missing, `UNREADABLE` where it does not parse. One parse per version of the file."""
        (blob,) = self._blobs([(commit, path)])
        if blob is None:
            return None
        if blob[0] not in self._parsed:
            self._parsed[blob[0]] = Config.of(blob[1])
        return self._parsed[blob[0]]

    def is_ancestor(self, ancestor: str, descendant: str, strict: bool = False) -> bool:
        """Whether `ancestor` is `descendant` or one of its ancestors (`strict`: and not the same commit)."""
        if ancestor == descendant:
            return not strict
        return ancestor in self.ancestors(descendant)

    def ancestors(self, commit: str) -> frozenset[str]:
        """Every strict ancestor of `commit`."""
        if commit not in self._ancestors:
            found: set[str] = set()
            pending = list(self.parents.get(commit, ()))
            while pending:
                parent = pending.pop()
                if parent in found:
                    continue
                if parent in self._ancestors:
                    found.add(parent)
                    found |= self._ancestors[parent]
                    continue
                found.add(parent)
                pending.extend(self.parents.get(parent, ()))
            self._ancestors[commit] = frozenset(found)
        return self._ancestors[commit]

    def earliest(self, commits) -> tuple[str, ...]:
        """The commits of `commits` that have none of the others as an ancestor, in topological order: where each
        line of history first holds something."""
        commits = set(commits)
        return tuple(sorted((commit for commit in commits if not commits & self.ancestors(commit)),
                            key=self.order.__getitem__))


ANNOTATIONS = ("tolerance_reason", "exploratory", "self_check", "implied_by", "superseded_by")  # a claim block's keys that
# only label its ledger row (icdenoise.records.claims.ledger copies them as text): no verdict reads them
UNREADABLE = "<unreadable>"  # a config file that does not parse at a commit: every block absent
WITHOUT_CLAIMS = "<block without claims>"  # a path's last key: the study's whole block less its claims


@dataclass(frozen=True)
class View:
    """A path's last key: the block as a study's claims read it, `show(block)`: a shared block less the entries of
    the cases and models the study does not read (icdenoise.pipeline.registry.Study.reading)."""

    show: Callable

    def __str__(self):
        return "<as read>"


def merged(base, override):
    """`override` merged over `base` as snakemake.utils.update_config merges a --configfile, without changing either."""
    if not isinstance(override, Mapping):
        return override
    result = dict(base) if isinstance(base, Mapping) else base
    for key, value in override.items():
        if not isinstance(result, Mapping):
            result = {}
        result[key] = merged(result.get(key, {}), value) if isinstance(value, Mapping) else value
    return result


def top_value(layers: Sequence, key: str):
    """The top-level block `key` of the config files `layers` (parsed, in merge order) merged; None where absent. A
    missing first file (config/config.yaml): everything absent. The first file's block is not copied, only what a
    later file overrides."""
    if not layers or not isinstance(layers[0], Mapping):
        return None
    found = [layer[key] for layer in layers if isinstance(layer, Mapping) and key in layer]
    value = found[0] if found else None
    for override in found[1:]:
        value = merged(value, override)
    return value


def below(value, path: Sequence[str]):
    """The value at the key path `path` under `value` (`WITHOUT_CLAIMS`: the block less its claims); None where absent."""
    for key in path:
        if not isinstance(value, Mapping):
            return None
        if isinstance(key, View):
            value = key.show(value)
        else:
            value = {name: item for name, item in value.items() if name != "claims"} if key == WITHOUT_CLAIMS else value.get(key)
    return value


def value_at(layers: Sequence, path: tuple[str, ...]):
    """The value at a key path (`WITHOUT_CLAIMS` last: the block less its claims) of the config files `layers` merged."""
    return below(top_value(layers, path[0]), path[1:])


def claim_paths(study: str, claim_id: str, needs: Sequence[tuple[str, str]], shared: Sequence[str],
                born_with: Sequence[str] | None = None, view: View | None = None) -> list[tuple[str, ...]]:
    """The key paths a claim's verdict reads: its block, the sub-blocks of its study that `needs` names (else each key
    of the study block that `born_with` names, the keys its study block had when the claim's own block first appeared,
    or, where that is not known, the study block without its claims), and the study's shared top-level blocks, as
    `view` shows them where given (the entries of the cases and models the study reads)."""
    blocks = list(dict.fromkeys(block for _, block in needs))
    paths = [(study, "claims", claim_id)]
    if blocks:
        paths += [(study, block) for block in blocks]
    elif born_with is not None:
        paths += [(study, key) for key in born_with]
    else:
        paths += [(study, WITHOUT_CLAIMS)]
    return paths + [(block, view) if view else (block,) for block in shared]


def births(repository: "Repository", files: Sequence[str], study: str, claims: Sequence[str]) -> dict[str, list[str]]:
    """Claim → the keys of today's study block (without its claims) that the block already had at the oldest commit
    holding the claim's own block: the sub-blocks the claim can have been written against. A sub-block first written
    after the claim (a later claim's block, a twin's draws) is none of its deciding settings; reading it would take
    new code, which the claim's digest covers. Claims never found in the history get today's keys."""
    layers = lambda commit: [repository.config(commit, file) for file in files]  # noqa: E731
    today = value_at(layers(repository.head), (study, WITHOUT_CLAIMS))
    today_keys = list(today) if isinstance(today, Mapping) else []
    found = {claim: today_keys for claim in claims}
    for commit in [repository.head, *repository.touching(files)]:
        block = value_at(layers(commit), (study, "claims"))
        present = [claim for claim in claims if isinstance(block, Mapping) and claim in block]
        if not present:
            continue
        then = value_at(layers(commit), (study, WITHOUT_CLAIMS))
        keys = [key for key in today_keys if isinstance(then, Mapping) and key in then]
        for claim in present:
            found[claim] = keys
    return found


def without_execution(value, execution):
    """`value` less every key that `execution` (the part of HEAD's ``execution`` block at the same path) holds: how a
    job runs, which the project moved out of the science blocks into ``execution`` (devices, threads, chunk sizes,
    cluster requests), is no deciding setting at any commit. A block emptied by it is left out too."""
    if not isinstance(value, Mapping) or not isinstance(execution, Mapping):
        return value
    kept = {}
    for key, item in value.items():
        if key not in execution:
            kept[key] = item
        elif isinstance(execution[key], Mapping) and isinstance(item, Mapping):
            stripped = without_execution(item, execution[key])
            if stripped or not item:
                kept[key] = stripped
    return kept


def _values(repository: Repository, commit: str, files: Sequence[str], paths: Sequence[tuple[str, ...]],
            execution: Mapping) -> list:
    """The values at `paths` of the merged `files` at `commit`, each top-level block merged once, less what
    `execution` (HEAD's merged execution block) names (`without_execution`)."""
    layers = [repository.config(commit, file) for file in files]
    tops = {key: top_value(layers, key) for key in dict.fromkeys(path[0] for path in paths)}
    return [deciding(path, without_execution(below(tops[path[0]], path[1:]),
                                             below(execution, [key for key in path if not _marker(key)])))
            for path in paths]


def _marker(key) -> bool:
    """Whether a path's key is a marker (`WITHOUT_CLAIMS`, a `View`) rather than a config key."""
    return key == WITHOUT_CLAIMS or isinstance(key, View)


def deciding(path: Sequence[str], value):
    """A claim's block (path ``<study>.claims.<claim>``) less its `ANNOTATIONS`, which label the ledger row and decide
    no verdict; any other value as it is."""
    if len(path) == 3 and path[1] == "claims" and isinstance(value, Mapping):
        return {key: item for key, item in value.items() if key not in ANNOTATIONS}
    return value


def same_settings(before, after) -> bool:
    """Whether a key path's value `before` (at an older commit) is today's `after`, but for sub-blocks added since:
    a mapping that `after` holds beside the others and `before` lacks (a study's new figure block, a new case or
    model) is a setting of the claims that came with it, not a change of an older claim's. A changed or removed
    key, or a new key whose value is not a mapping (a new training setting), is a change."""
    if before == after:
        return True
    if not isinstance(before, Mapping) or not isinstance(after, Mapping):
        return False
    added = set(after) - set(before)
    return (set(before) <= set(after) and all(isinstance(after[key], Mapping) for key in added)
            and all(before[key] == after[key] for key in before))


def shown_path(path: Sequence[str]) -> str:
    """A key path as a dotted key (``memory`` for the study block less its claims)."""
    return ".".join(key for key in path if not _marker(key))


def changed_keys(path: Sequence[str], before, after) -> list[str]:
    """The dotted keys at which the values `before` and `after` of key path `path` differ: the path itself, or the
    keys of a block one level down."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        keys = [key for key in dict.fromkeys([*before, *after]) if before.get(key) != after.get(key)]
        return [f"{shown_path(path)}.{key}" for key in keys]
    return [shown_path(path)]


@dataclass(frozen=True)
class Written:
    """When a claim's values took their current form: `commit`, and the keys (dotted) that differ from today's at
    its parents, the boundary of the stretch (none where it has no parent: the values were never different from
    today's since the first commit of the files)."""

    commit: str
    changed: tuple[str, ...] = ()


def first_written(repository: Repository, files: Sequence[str], claims: Mapping[str, Sequence[tuple[str, ...]]]) -> dict[str, Written]:
    """Claim → the oldest commit of the final unchanged stretch of its values (`claims`: claim → its key paths,
    `claim_paths`) in the merged `files`, walked from HEAD along the parent links of the commits that touched `files`
    (`Repository.simplified`; module docstring), with the keys that changed at the stretch's boundary: those that
    differ from today's at any parent of its oldest commit. A parent continues the stretch where every one of the
    claim's paths is the same there (`same_settings`)."""
    graph = repository.simplified(files)
    head = repository.head
    children = {parent for parents in graph.values() for parent in parents}
    tips = tuple(commit for commit in graph if commit not in children and commit != head)  # HEAD's simplification
    parents_of = lambda commit: graph.get(commit, tips if commit == head else ())  # noqa: E731
    paths = list(dict.fromkeys(path for claim_paths_ in claims.values() for path in claim_paths_))
    repository.read([(commit, file) for commit in [head, *graph] for file in files])
    execution = top_value([repository.config(head, file) for file in files], "execution") or {}
    current = dict(zip(paths, _values(repository, head, files, paths, execution)))
    values: dict[str, dict[tuple, object]] = {head: current}

    def value(commit: str, path: tuple) -> object:
        if commit not in values:
            values[commit] = dict(zip(paths, _values(repository, commit, files, paths, execution)))
        return values[commit][path]

    same = lambda commit, path: same_settings(value(commit, path), current[path])  # noqa: E731
    found = {}
    for claim, claim_paths_ in claims.items():
        reached, pending = {head}, [head]
        while pending:
            for parent in parents_of(pending.pop()):
                if parent not in reached and all(same(parent, path) for path in claim_paths_):
                    reached.add(parent)
                    pending.append(parent)
        commit = min(reached, key=repository.order.__getitem__)
        changed = [key for parent in parents_of(commit) for path in claim_paths_ if not same(parent, path)
                   for key in changed_keys(path, value(parent, path), current[path])]
        found[claim] = Written(commit, tuple(dict.fromkeys(changed)))
    return found


def prose_paragraphs(text: str) -> list[frozenset[str]]:
    """A Markdown text's words, one set per paragraph, HTML comments (the results markers) left out."""
    return [frozenset(WORD.findall(paragraph)) for paragraph in PARAGRAPH.split(COMMENT.sub(" ", text))]


def snapshot_claims(text: str) -> set[str]:
    """The claims a ledger snapshot has a row for (any version of its format: `# ` header lines, then CSV with a
    ``claim`` column)."""
    lines = [line for line in text.splitlines() if not line.startswith("# ")]
    return {row.get("claim", "") for row in csv.DictReader(io.StringIO("\n".join(lines)))} - {""}


def mentions(repository: Repository, path: str, words: set[str], run: str | None = None) -> dict[str, set[str]]:
    """Word of `words` → every commit at which file `path` mentions it in its prose (`prose_paragraphs`) and that
    changed the file (`Repository.touching`, on every side of every merge); `run`: only in a paragraph that also
    names that word."""
    found: dict[str, set[str]] = {}
    commits = repository.touching([path])
    for commit, text in zip(commits, repository.read([(commit, path) for commit in commits])):
        if text is not None:
            for paragraph in prose_paragraphs(text):
                if run is None or run in paragraph:
                    for word in words & paragraph:
                        found.setdefault(word, set()).add(commit)
    return found


def snapshot_rows(repository: Repository, path: str, claims: set[str]) -> dict[str, set[str]]:
    """Claim of `claims` → every commit that changed the snapshot `path` (on every side of every merge) and holds a
    row for it."""
    found: dict[str, set[str]] = {}
    commits = repository.touching([path])
    for commit, text in zip(commits, repository.read([(commit, path) for commit in commits])):
        if text is not None:
            for claim in snapshot_claims(text) & claims:
                found.setdefault(claim, set()).add(commit)
    return found


def first_results(repository: Repository, study: str, docs: Sequence[str], run: str, claims: set[str]) -> dict[str, tuple[str, ...]]:
    """Claim → the first commits holding a result of it in run `run` (`DEFAULT_RUN` or a named run's name): its row in
    the run's snapshot, or its id in the study's results `docs` (for a named run, in a paragraph naming the run).
    First on every line of history (`Repository.earliest`): a result committed on a merged branch is one, beside
    the first on main; no claim is left without one it has."""
    holding: dict[str, set[str]] = {claim: set() for claim in claims}
    sources = [snapshot_rows(repository, f"{SNAPSHOTS}/{run}/{study}.csv", claims)]
    sources += [mentions(repository, doc, claims, None if run == DEFAULT_RUN else run) for doc in docs]
    for source in sources:
        for claim, commits in source.items():
            holding[claim] |= commits
    return {claim: repository.earliest(commits) for claim, commits in holding.items() if commits}


@dataclass(frozen=True)
class ClaimHistory:
    """One claim's history in one run (module docstring): full commit hashes; `first_result` None where no result
    is committed yet; `changed`: the keys that took their current values in `first_written`; `why`: why the claim is
    not confirmatory ('' when it is)."""

    first_written: str | None
    first_result: str | None
    settings_changed_after_result: bool
    confirmatory: bool
    why: str = ""
    changed: tuple[str, ...] = ()

    def columns(self) -> dict:
        """The ledger row's columns `COLUMNS`: short hashes, `NO_RESULT` for no result."""
        return {"first_written": short(self.first_written) if self.first_written else "unknown",
                "first_result": short(self.first_result) if self.first_result else (NO_RESULT if self.first_written else "unknown"),
                "settings_changed_after_result": self.settings_changed_after_result, "confirmatory": self.confirmatory}

    @property
    def exploratory(self) -> str:
        """The row's exploratory reason by history, '' when confirmatory."""
        return "" if self.confirmatory else f"by history: {self.why}"


def short(commit: str) -> str:
    return commit[:SHORT]


def judged(repository: Repository, written: Written, results: Sequence[str] = ()) -> ClaimHistory:
    """The history of a claim whose values date from `written` and whose first results are `results` (the first on
    each line of history, `first_results`; none: no result yet). It is confirmatory only if its values are a strict
    ancestor of every one of them; its `first_result` is the first in topological order, or the one it fails on."""
    commit, changed = written.commit, written.changed
    what = f" ({', '.join(changed[:3])}{', ...' if len(changed) > 3 else ''})" if changed else ""
    if not results:
        return ClaimHistory(commit, None, False, True, "", changed)
    before = [result for result in results if repository.is_ancestor(result, commit, strict=True)]
    if before:
        return ClaimHistory(commit, before[0], True, False, f"its bound or deciding settings{what} last changed in "
                                                            f"{short(commit)}, after its first result in {short(before[0])}", changed)
    if commit in results:
        return ClaimHistory(commit, commit, False, False, f"its bound or deciding settings{what} took their current values in "
                                                          f"{short(commit)}, the commit of its first result", changed)
    beside = [result for result in results if not repository.is_ancestor(commit, result, strict=True)]
    if beside:
        return ClaimHistory(commit, beside[0], False, False, f"its bound or deciding settings{what} took their current values "
                                                             f"in {short(commit)}, on a branch beside its first result in "
                                                             f"{short(beside[0])}", changed)
    return ClaimHistory(commit, results[0], False, True, "", changed)


def unknown(why: str) -> ClaimHistory:
    """The history of a claim whose history cannot be read: not confirmatory, and why."""
    return ClaimHistory(None, None, False, False, f"unknown ({why})")


def run_folder(run_prefix: str) -> str:
    """A run's snapshot folder from its lock-key prefix: `DEFAULT_RUN` for '' (config/config.yaml's run), else its name."""
    return run_prefix.rstrip("/") or DEFAULT_RUN


def study_history(repository: Repository, study, files: Sequence[str], run_prefix: str = "") -> dict[str, ClaimHistory]:
    """Claim id → its `ClaimHistory` in one run, for every claim of `study` (an icdenoise.pipeline.registry.Study: its
    `name`, `claims` registry, `shared_settings` and `docs`) configured at HEAD. `files`: the run's config files,
    relative to the repository's root, in merge order (config/config.yaml first); `run_prefix`: its lock-key prefix
    ('' for config/config.yaml's run, `<run>/` for a named one)."""
    files = list(files)
    claims_block = value_at([repository.config(repository.head, file) for file in files], (study.name, "claims")) or {}
    configured = [claim for claim in study.claims if claim in claims_block]
    born = births(repository, files, study.name, [claim for claim in configured if not study.claims[claim].needs])
    head = [repository.config(repository.head, file) for file in files]
    view = View(study.reading({key: top_value(head, key) for layer in head if isinstance(layer, Mapping) for key in layer}))
    paths = {claim: claim_paths(study.name, claim, study.claims[claim].needs, study.shared_settings, born.get(claim), view)
             for claim in configured}
    written = first_written(repository, files, paths)
    run = run_folder(run_prefix)
    results = first_results(repository, study.name, study.docs, run, set(configured))
    if run != DEFAULT_RUN:
        execution = top_value([repository.config(repository.head, file) for file in files], "execution") or {}
        same = {claim for claim in configured
                if _values(repository, repository.head, files, paths[claim], execution)
                == _values(repository, repository.head, files[:1], paths[claim], execution)}
        if same:
            inherited = first_results(repository, study.name, study.docs, DEFAULT_RUN, same)
            results = {claim: repository.earliest([*results.get(claim, ()), *inherited.get(claim, ())]) for claim in configured}
    return {claim: judged(repository, written[claim], results.get(claim, ())) for claim in configured}


_REPOSITORIES: dict[tuple[str, str], Repository] = {}


def repository_at(root: str | Path, revision: str = "HEAD") -> Repository:
    """The `Repository` of the git checkout at `root`, read once per process."""
    key = (str(Path(root).resolve()), revision)
    if key not in _REPOSITORIES:
        _REPOSITORIES[key] = Repository(git_in(key[0]), revision)
    return _REPOSITORIES[key]


def ledger_history(root: Path | None, study, config_files: Sequence[str | Path], run_prefix: str,
                   workdir: Path | None = None) -> dict[str, ClaimHistory]:
    """`study_history` for a ledger job: `root` the repository of the workflow (None: none), `config_files` the run's
    config files in merge order, as the run names them (relative to `workdir`, default the current folder). Every
    claim's history is `unknown` where there is no repository, a file lies outside it or is not committed, or git fails."""
    configured = list(study.claims)
    if root is None:
        return {claim: unknown("the workflow is in no git repository") for claim in configured}
    root, workdir = Path(root).resolve(), Path(workdir or Path.cwd()).resolve()
    files = []
    for file in config_files:
        path = (workdir / file).resolve()
        if not path.is_relative_to(root):
            return {claim: unknown(f"the config file {file} is outside the repository") for claim in configured}
        files.append(path.relative_to(root).as_posix())
    try:
        repository = repository_at(root)
        missing = [file for file in files if repository.config(repository.head, file) is None]
        if missing:
            return {claim: unknown(f"{missing[0]} is not committed") for claim in configured}
        found = study_history(repository, study, files, run_prefix)
        return {claim: found.get(claim) or unknown("its block is not in the committed config") for claim in configured}
    except GitError as error:
        return {claim: unknown(str(error)) for claim in configured}


def with_history(table, histories: Mapping[str, ClaimHistory]):
    """The ledger table (icdenoise.records.claims.ledger) with the history columns `COLUMNS` of each row's claim, and
    each row that is not confirmatory by history marked exploratory: its reason joins the config's own in
    ``exploratory``. A claim without a history gets an unknown one."""
    table = table.copy()
    rows = [histories.get(claim) or unknown("no history was looked up") for claim in table["claim"]]
    for column in COLUMNS:
        table[column] = [history.columns()[column] for history in rows]
    table["exploratory"] = ["; ".join(part for part in (str(own or ""), history.exploratory) if part)
                            for own, history in zip(table["exploratory"], rows)]
    return table
