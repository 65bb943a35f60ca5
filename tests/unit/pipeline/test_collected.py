"""A collection of the rule files (icdenoise.pipeline.collected) is read when the DAG is built; read while the
rule files are still read, it is either refused or sealed against later additions, each naming the fix."""

import pytest

from icdenoise.pipeline.collected import Collected, IncludeOrderError


class Reading:
    """The rule file Snakemake reads now (None: it has read them all)."""

    def __init__(self):
        self.file = "workflow/rules/helpers.smk"

    def __call__(self):
        return self.file


def test_entries_added_while_the_files_are_read_are_read_when_the_dag_is_built():
    reading = Reading()
    tables = Collected("SCORE_TABLES", "the studies' score tables", reading)
    reading.file = "studies/mssa/workflow/rules.smk"
    tables.add("a.parquet", "b.parquet")
    reading.file = "studies/memory/workflow/rules.smk"
    tables.add("c.parquet")
    reading.file = None
    assert tables.read() == ["a.parquet", "b.parquet", "c.parquet"]


def test_reading_while_the_files_are_read_is_refused_naming_the_reader_and_the_fix():
    reading = Reading()
    tables = Collected("SCORE_TABLES", "the studies' score tables", reading)
    reading.file = "workflow/rules/leaderboard.smk"
    with pytest.raises(IncludeOrderError) as refused:
        tables.read()
    assert str(refused.value).startswith("workflow/rules/leaderboard.smk reads SCORE_TABLES (the studies' score tables) "
                                         "while the rule files are read")
    assert "read it in an input function" in str(refused.value)


def test_an_entry_added_after_a_read_now_is_refused_naming_both_files_and_the_order_to_include_them_in():
    reading = Reading()
    tables = Collected("REPORTED_TABLES", "the tables the report captions", reading)
    reading.file = "studies/onelayer/workflow/rules.smk"
    tables.add("claims.parquet")
    reading.file = "workflow/rules/targets.smk"
    assert tables.read_now() == ["claims.parquet"]
    reading.file = "studies/memory/workflow/rules.smk"
    with pytest.raises(IncludeOrderError) as refused:
        tables.add("memory/claims.parquet")
    assert str(refused.value).endswith("include studies/memory/workflow/rules.smk before workflow/rules/targets.smk in the "
                                       "Snakefile")
    reading.file = None
    assert tables.read() == ["claims.parquet"]
