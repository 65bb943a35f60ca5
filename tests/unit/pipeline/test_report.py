"""The report's front page names the run's config files, its merged-config digest and the commits its
tables were written at (read back from their Parquet metadata)."""

import json

import pyarrow as pa
import pyarrow.parquet as pq

from icdenoise.pipeline.registry import Study
from icdenoise.pipeline.report import front_page

SOURCES = {"run": "mine", "files": [{"file": "config/config.yaml", "sha256": "a" * 64}, {"file": "mine.yaml", "sha256": "b" * 64}],
           "merged_sha256": "0123456789abcdef" * 4}


def table_at(path, commit: str, dirty: bool):
    data = pa.table({"x": [1.0]}).replace_schema_metadata({b"icdenoise": json.dumps({"git_commit": commit, "git_dirty": dirty})})
    pq.write_table(data, path)
    return path


def test_the_front_page_names_config_digest_commits_and_studies(tmp_path):
    tables = [table_at(tmp_path / "a.parquet", "f" * 40, False), table_at(tmp_path / "b.parquet", "e" * 40, True),
              tmp_path / "not_built.parquet"]
    studies = {"onelayer": Study(name="onelayer", title="The core paper", claims={})}
    text = front_page(studies, SOURCES, tables)
    assert "the run ``mine``, built from ``config/config.yaml`` + ``mine.yaml`` (merged config sha256 ``0123456789ab``)" in text
    assert f"commit ``{'e' * 12} + uncommitted changes``, ``{'f' * 12}``." in text
    assert "- ``onelayer``: The core paper" in text


def test_a_report_before_any_table_says_so(tmp_path):
    assert "written at commit not built yet." in front_page({}, SOURCES, [tmp_path / "missing.parquet"])
