"""scripts/calibrate_resources.py: docs/cluster.md's range of the cluster requests is the one the calibration table
(tests/data/paper_benchmarks.tsv) and the size models give the paper config's jobs."""

from pathlib import Path

import pandas as pd
from calibrate_resources import request_sentence, with_estimates

from icdenoise.pipeline.config import load_yaml

REPO = Path(__file__).resolve().parents[3]


def test_docs_cluster_md_gives_the_requests_of_the_calibration_tables_jobs():
    table = pd.read_csv(REPO / "tests" / "data" / "paper_benchmarks.tsv", sep="\t", keep_default_na=False)
    sentence = request_sentence(with_estimates(table, load_yaml(REPO / "config" / "config.yaml")))
    doc = " ".join((REPO / "docs" / "cluster.md").read_text().split())
    assert sentence in doc, f"docs/cluster.md's requests are stale: write there\n{sentence}\n(scripts/calibrate_resources.py prints it)"


def test_the_sentence_names_the_range_and_the_largest_request():
    report = pd.DataFrame({"rule": ["a", "b", "c"], "mem_mb": [400, 900, 600], "runtime_minutes": [2, 3, 30],
                           "max_rss_mb": [200.0, 500.0, 100.0]})
    assert request_sentence(report) == (
        "Over the jobs of the calibration table the paper config asks for 400–900 MB (the most for `b`) and 2–30 minutes "
        "(the most for `c`), and every job's `mem_mb` is at least 1.8 × its measured peak.")
