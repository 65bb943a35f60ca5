"""The family-wise adjustment: Holm's adjusted p-values against a hand computation, each verdict's p-value from its
interval (t, normal approximation, none), the family as the headline counts it, and the verdicts that survive."""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from toy_ledger import LOCKS, write_toy_ledger

from icdenoise.records.history import with_history
from icdenoise.records.holm import AFTER_HOLM, COLUMNS, counts, holm, p_value, with_holm
from icdenoise.records.ledger_snapshots import snapshot_text
from icdenoise.records.ledger_text import conclusions, headline, markdown

REPO = Path(__file__).resolve().parents[3]

Z = 1.959963984540054  # the standard normal's 97.5% quantile
T2 = 4.302652729749464  # Student's t's 97.5% quantile with 2 degrees of freedom


def normal_p(z):
    return math.erfc(z / math.sqrt(2))  # two-sided


def t2_p(t):
    return 1 - t / math.sqrt(2 + t * t)  # two-sided, 2 degrees of freedom (closed form)


def test_holm_against_a_hand_computation():
    # sorted 0.005, 0.01, 0.03, 0.04: 4·0.005 = 0.02; 3·0.01 = 0.03; 2·0.03 = 0.06; max(0.06, 1·0.04) = 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.4]) == pytest.approx([0.8, 0.8])  # 2·0.4, then max(0.8, 0.5)
    assert holm([0.6, 0.7, 0.9]) == pytest.approx([1.0, 1.0, 1.0])  # capped at 1
    assert holm([0.02]) == pytest.approx([0.02]) and holm([]).size == 0


def row(claim, verdict, mean, low, high, paper, comparison, tolerance, n=1, method="", why="", lowest=None, highest=None,
        **marks):
    return {"claim": claim, "verdict": verdict, "ours_mean": mean, "interval_low": low, "interval_high": high,
            "n_values": n, "ours_min": mean if lowest is None else lowest, "ours_max": mean if highest is None else highest,
            "paper_value": paper, "comparison": comparison, "tolerance": tolerance, "why_inconclusive": why,
            "interval_method": method, "self_check": marks.get("self_check", ""), "implied_by": "", "superseded_by": "",
            "exploratory": "", "tolerance_reason": ""}


NAN = float("nan")
TOY = pd.DataFrame([
    row("fit", "PASS", 0.5, 0.3, 0.7, 1.0, "at_most", 0.0, method="95% confidence interval of the least-squares slope"),
    row("seeds", "FAIL", 1.5, 1.5 - T2 * 0.1, 1.5 + T2 * 0.1, 1.0, "within_absolute", 0.2, n=3, method="t-interval over 3 values",
        lowest=1.4, highest=1.6),  # decided by its mean alone: its interval reaches the pass region
    row("mc", "PASS", 0.02, 0.02 - Z * 0.02, 0.02 + Z * 0.02, 0.0, "within_absolute", 0.1,
        method="± 1.96 standard errors over 1000 prompts"),
    row("boot", "PASS", 1.3, 1.05, 1.4, 1.0, "at_least", 0.0, method="bootstrap over 10 contexts"),
    row("straddle", "INCONCLUSIVE", 1.3, 1.1, 1.5, 1.0, "within_absolute", 0.2, method="bootstrap over 10 contexts",
        why="the 95% interval [1.1, 1.5] reaches both sides of the bound"),
    row("own", "INCONCLUSIVE", 1.0, 0.99, 1.01, 1.0, "within_absolute", 0.2, why="plateau: both stay on the plateau"),
    row("exact", "PASS", 2.0, 2.0, 2.0, 2.0, "within_absolute", 0.1, method="closed form"),
    row("single", "FAIL", 3.0, NAN, NAN, 2.0, "at_most", 0.5),
    row("order", "FAIL", 1 / 3, 0.0084, 0.9057, 1.0, "at_least", 0.0, n=3, lowest=0.0, highest=1.0,
        method="Clopper-Pearson interval of the fraction of decided seeds in order"),
    row("check", "PASS", 0.02, 0.02 - Z * 0.02, 0.02 + Z * 0.02, 0.0, "within_absolute", 0.1, method="± 1.96 standard errors",
        self_check="our simulator against our formula"),
    row("measured", "MEASURED", 1.0, 0.9, 1.1, NAN, "", NAN),
])


def test_each_verdicts_p_value_is_read_from_its_interval():
    p = {claim: value for claim, value in zip(TOY["claim"], with_holm(TOY)["p_value"])}
    assert p["fit"] == pytest.approx(normal_p(0.5 / (0.2 / Z)))  # the edge 1 above: the upper half is 1.96 SE
    assert p["seeds"] == pytest.approx(t2_p(0.3 / 0.1))  # beyond the edge 1.2 by 0.3, SE 0.1, 2 degrees of freedom
    assert p["seeds"] > 0.05  # a verdict of its mean alone
    assert p["mc"] == pytest.approx(max(normal_p(0.12 / 0.02), normal_p(0.08 / 0.02)))  # both edges; the nearer decides
    assert p["boot"] == pytest.approx(normal_p(0.3 / (0.25 / Z)))  # the lower half faces the edge 1
    assert p["straddle"] == pytest.approx(normal_p(0.1 / (0.2 / Z))) and p["straddle"] > 0.05
    assert p["check"] == pytest.approx(p["mc"])  # outside the family, but its p-value is shown
    assert all(math.isnan(p[claim]) for claim in ("own", "exact", "single", "order", "measured"))
    bases = dict(zip(TOY["claim"], with_holm(TOY)["p_basis"]))
    assert bases["seeds"] == "t, 2 degrees of freedom" and bases["fit"] == "normal approximation"
    assert (bases["own"], bases["exact"], bases["single"], bases["order"], bases["measured"]) == (
        "undecided by a rule of its own", "an interval of zero width", "one value and no interval", "0/1 outcomes per seed",
        "no verdict")


def test_holm_over_the_family_by_hand():
    table = with_holm(TOY)
    p = dict(zip(table["claim"], table["p_value"]))
    # the family: every row but the self-check and the measurement; tested: the five with a p-value, m = 5
    # sorted: fit < mc < boot < seeds < straddle
    assert p["fit"] < p["mc"] < p["boot"] < p["seeds"] < p["straddle"]
    fit = 5 * p["fit"]
    mc = max(fit, 4 * p["mc"])
    boot = max(mc, 3 * p["boot"])
    seeds = max(boot, 2 * p["seeds"])
    straddle = min(1.0, max(seeds, 1 * p["straddle"]))
    adjusted = dict(zip(table["claim"], table["holm_p"]))
    assert [adjusted[claim] for claim in ("fit", "mc", "boot", "seeds", "straddle")] == pytest.approx([fit, mc, boot, seeds, straddle])
    assert p["boot"] < 0.05 < boot  # passes alone, not after Holm
    assert all(math.isnan(adjusted[claim]) for claim in ("own", "exact", "single", "order", "check", "measured"))
    assert dict(zip(table["claim"], table["holm_verdict"])) == {
        "fit": "PASS", "seeds": AFTER_HOLM, "mc": "PASS", "boot": AFTER_HOLM, "straddle": "INCONCLUSIVE",
        "own": "INCONCLUSIVE", "exact": "PASS (not adjustable)", "single": "FAIL (not adjustable)",
        "order": "FAIL (not adjustable)", "check": "", "measured": ""}
    assert list(table["verdict"]) == list(TOY["verdict"])  # the per-claim verdict is never changed
    assert counts(table) == {"family": 9, "tested": 5, "decided": 4, "hold": 2, "not_adjustable": 3}
    assert "p_value" not in TOY  # the table given is left as it was


def test_a_verdict_the_interval_rule_decides_alone_keeps_it_after_holm():
    touching = pd.DataFrame([row("edge", "PASS", 1.0, 0.8, 1.2, 1.0, "within_absolute", 0.2, method="bootstrap")])
    table = with_holm(touching)
    assert table["p_value"].iloc[0] == pytest.approx(0.05) and table["holm_verdict"].iloc[0] == "PASS"
    on_the_bound = pd.DataFrame([row("bound", "PASS", 0.75, 0.75, 1.0, 1.0, "within_relative", 0.25, method="bootstrap")])
    assert with_holm(on_the_bound)["p_value"].iloc[0] == 1.0  # the mean on the edge: no evidence either way


def test_an_interval_of_unknown_method_is_read_as_a_t_interval_where_symmetric_and_as_0_1_outcomes_where_it_looks_so():
    symmetric = row("old", "PASS", 1.0, 1.0 - T2 * 0.05, 1.0 + T2 * 0.05, 1.0, "within_absolute", 0.2, n=3, lowest=0.95,
                    highest=1.05)
    p, basis = p_value(symmetric)
    assert p == pytest.approx(t2_p(0.2 / 0.05)) and basis == "t, 2 degrees of freedom, method inferred"
    lopsided = {**symmetric, "interval_high": 1.5}  # not symmetric: the normal approximation, each half facing its edge
    expected = max(normal_p(0.2 / (T2 * 0.05 / Z)), normal_p(0.2 / (0.5 / Z)))  # 0.8 below, 1.2 above: the upper decides
    assert p_value(lopsided) == (pytest.approx(expected), "normal approximation, method inferred")
    outcomes = row("old_order", "FAIL", 0.0, 0.0, 0.7076, 1.0, "at_least", 0.0, n=3, lowest=0.0, highest=0.0)
    assert np.isnan(p_value(outcomes)[0]) and p_value(outcomes)[1] == "0/1 outcomes per seed"
    fractions = {**outcomes, "ours_mean": 0.5, "ours_max": 1.0}  # 3 · 0.5 is no whole number: not 0/1 outcomes
    assert p_value(fractions)[1] == "normal approximation, method inferred"


def test_the_ledger_states_how_many_claims_were_tested_and_how_many_verdicts_hold(tmp_path):
    table = with_holm(TOY).assign(registered=True)
    assert ("9 claims of the source. Registered, confirmatory: 4 pass, 3 fail, 2 inconclusive. 5 claims tested; 2 verdicts "
            "hold after Holm's adjustment (of the 4 that pass or fail among them, at family-wise α = 0.05: docs/claims.md). "
            "3 verdicts with no p-value") in headline(table)
    assert "tested" not in headline(TOY.assign(registered=True))  # a table without the columns (an old snapshot)
    after = "\n".join(conclusions(table))
    assert "inconclusive after Holm's adjustment** (2):\n  - `seeds`: FAIL, p 0.095, Holm 0.19\n  - `boot`: PASS" in after
    ledger = pd.read_parquet(write_toy_ledger(tmp_path / "claims.parquet"))
    text = markdown(ledger, "toy", "snakemake toy", {"run": "paper", "files": [], "merged_sha256": "0" * 64})
    assert "1 claim tested; 0 verdicts hold after Holm's adjustment" in text
    assert "| `spread` | INCONCLUSIVE | p 0.074, Holm 0.074: INCONCLUSIVE |" in text  # a table of its own
    assert "| no p-value (one value and no interval): FAIL (not adjustable) |" in text


def test_the_ledger_script_adds_the_adjustment_after_the_history():
    script = (REPO / "workflow" / "scripts" / "write_ledger.py").read_text()
    assert script.index("table = with_history(") < script.index("table = with_holm(table)") < script.index("write_job_parquet(")
    assert set(COLUMNS) <= set(with_holm(with_history(TOY, {})))


def test_the_script_adjusts_old_and_new_snapshots_alike(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("holm_snapshots", REPO / "scripts" / "holm_snapshots.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    for prefix, holm_columns in (("", True), ("long/", False)):  # the run `long`'s snapshot written before the columns
        target, text = snapshot_text(write_toy_ledger(tmp_path / prefix / "claims.parquet", run_prefix=prefix, holm=holm_columns),
                                     LOCKS.get)
        (tmp_path / target).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / target).write_text(text)
    assert script.main(["--claims"], root=tmp_path) == 0
    out = capsys.readouterr().out
    assert "| default | toy | 2 | 1 | 0 | 0 | 1 | recorded |" in out and "| long | toy | 2 | 1 | 0 | 0 | 1 | computed |" in out
    assert "t, 2 degrees of freedom, method inferred" in out  # the old snapshot has no interval_method
