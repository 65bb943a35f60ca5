"""What the rule files collect for rules defined in other files, whatever the order of their `include:`s.

A helper call adds to a collection as it defines a rule (`score_rule` adds its study's score tables, which the
leaderboard reads; `figure_rule` and `ledger_rule` a study's targets); a consumer reads it. Read while
Snakemake is still reading the rule files, a collection would hold only what the files included so far have
added, and a rule file moved below its consumer in the Snakefile would silently drop its entries (the
studies' score jobs, once, when the leaderboard was included above them). So a collection is read when the
DAG is built (`read`, from an input function), once every rule file has added to it; a consumer that cannot
wait, such as the report's front page, reads it with `read_now`, which refuses any later addition, naming
the file to include earlier. Reading it with `read` while the rule files are read is refused too.
"""

from __future__ import annotations

from collections.abc import Callable


class IncludeOrderError(RuntimeError):
    """A collection was read before every rule file that adds to it was included."""


class Collected:
    """Entries that rule files add while Snakemake reads them (`add`), read when the DAG is built (`read`) or,
    sealing it, while the files are still read (`read_now`).

    name: the collection's name in the workflow (SCORE_TABLES); what: what it holds, in a few words;
    reading: the rule file Snakemake is reading now, or None once it has read them all (the DAG is being built)."""

    def __init__(self, name: str, what: str, reading: Callable[[], str | None]):
        self.name, self.what, self._reading = name, what, reading
        self._entries: list = []
        self._read_by: str | None = None  # the file that read it with read_now

    def add(self, *entries) -> None:
        """Add `entries`; refused once a file has read the collection with `read_now`."""
        if self._read_by is not None:
            adder = self._reading() or "a rule"
            raise IncludeOrderError(
                f"{adder} adds to {self.name} ({self.what}) after {self._read_by} read it, while Snakemake read the "
                f"rule files, and would be missed there: include {adder} before {self._read_by} in the Snakefile"
            )
        self._entries.extend(entries)

    def read(self) -> list:
        """Every entry, once Snakemake has read every rule file (in an input function, or after parsing);
        refused while it is still reading them."""
        reader = self._reading()
        if reader is not None:
            raise IncludeOrderError(
                f"{reader} reads {self.name} ({self.what}) while the rule files are read, before every file that adds "
                f"to it may have been included: read it in an input function (when the DAG is built), or with "
                f"{self.name}.read_now(...), which refuses any later addition"
            )
        return list(self._entries)

    def read_now(self) -> list:
        """Every entry added so far, read while the rule files are read (by the file being read, which a later
        addition names): any later `add` is refused."""
        self._read_by = self._read_by or self._reading() or "a rule file"
        return list(self._entries)
