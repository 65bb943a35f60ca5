"""scripts/render_findings.py: docs/findings.md and README.md's verdict headline are what the ledger snapshots and
docs/findings.yaml give; every finding is a FAIL in its snapshot (a finding cannot outlive its verdict) and every
failure of the default run is a finding or says why it is not; the derivations' closed-form and Monte-Carlo numbers are right."""

import math
import shutil

import numpy as np
import pytest
import yaml
from helpers import figure_3_sphere_losses
from render_findings import (FINDINGS, README, REPO, Key, Snapshots, default_failures, load_findings, main, misquoted, stale, titles,
                             unbacked)
from scipy import special, stats


def test_the_committed_page_and_readme_headline_are_the_scripts_output():
    assert stale(REPO) == [], "run python scripts/render_findings.py"


def test_every_finding_is_a_fail_in_its_snapshot():
    findings, others = load_findings(REPO)
    snapshots = Snapshots(REPO)
    assert findings
    for key in [*findings, *others]:
        _, row = snapshots.row(key)
        assert row.verdict == "FAIL", f"{key} is {row.verdict} in {key.snapshot}: remove it from {FINDINGS}"
    assert unbacked(REPO) == []


def test_every_failure_of_the_default_run_is_a_finding_or_says_why_not():
    findings, others = load_findings(REPO)
    failed = default_failures(Snapshots(REPO), titles(REPO))
    assert failed and set(failed) == set(findings) | set(others)


@pytest.fixture
def copy(tmp_path):
    """The files the script reads, copied: the README, the findings, the snapshots, the configs and the cited tests."""
    for path in [README, FINDINGS, FINDINGS.with_suffix(".md")]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / path, tmp_path / path)
    shutil.copytree(REPO / "docs" / "ledgers", tmp_path / "docs" / "ledgers")
    shutil.copytree(REPO / "config", tmp_path / "config")
    for finding in load_findings(REPO)[0].values():
        for test in finding["tests"]:
            path = test.partition("::")[0]
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(REPO / path, tmp_path / path)
    return tmp_path


def test_a_finding_whose_claim_no_longer_fails_fails_the_check(copy, capsys):
    assert main(["--check"], root=copy) == 0
    snapshot = copy / "docs" / "ledgers" / "default" / "mssa.csv"
    text = snapshot.read_text()
    assert "\ntheorem31_rate_every_layer,FAIL," in text
    snapshot.write_text(text.replace("\ntheorem31_rate_every_layer,FAIL,", "\ntheorem31_rate_every_layer,PASS,"))
    capsys.readouterr()
    assert main(["--check"], root=copy) == 1
    output = capsys.readouterr().out
    assert "default/mssa.theorem31_rate_every_layer is an entry of docs/findings.yaml but PASS" in output
    assert "README.md's verdict headline is stale" in output and "docs/findings.md is stale" in output


def test_a_new_failure_of_the_default_run_must_be_a_finding_or_explained(copy, capsys):
    snapshot = copy / "docs" / "ledgers" / "default" / "onelayer.csv"
    text = snapshot.read_text()
    assert "\nfig4a_gamma_limit,PASS," in text
    snapshot.write_text(text.replace("\nfig4a_gamma_limit,PASS,", "\nfig4a_gamma_limit,FAIL,"))
    assert main(["--check"], root=copy) == 1
    assert "default/onelayer.fig4a_gamma_limit FAILs in docs/ledgers/default/onelayer.csv but is neither" in capsys.readouterr().out
    assert main([], root=copy) == 1  # written, with the problem named: the page lists it as not yet reviewed
    assert "`onelayer.fig4a_gamma_limit`: **FAIL**" in (copy / "docs" / "findings.md").read_text()


def test_quotes_are_checked_word_for_word_against_the_source_texts(tmp_path):
    findings, _ = load_findings(REPO)
    papers = tmp_path / "papers"
    papers.mkdir()
    texts = {}
    for finding in findings.values():
        texts.setdefault(finding["source"].split("/")[-1], []).extend("\n ".join(quote["text"].split(" ")) for quote in finding["quotes"])
    for name, quotes in texts.items():
        (papers / name).write_text("Before.\n" + "\n\n".join(quotes) + "\nAfter.")
    assert misquoted(REPO, papers) == []  # line breaks and spaces aside, each quote is there
    first = next(iter(texts))
    (papers / first).write_text((papers / first).read_text().replace("the", "a", 1))
    assert len(misquoted(REPO, papers)) == 1


def test_the_derivations_closed_form_numbers():
    """Every number the derivations in docs/findings.yaml compute, recomputed here, appears there as written (the
    Monte-Carlo ones with their seed, tests/unit/helpers.py)."""
    findings, _ = load_findings(REPO)
    text = {key.claim: " ".join(finding["derivation"].split()) for key, finding in findings.items()}

    # Figure 3's sphere line (0.0302) under Proposition 3's S⁸ ⊂ R⁹ and under "fixed norm in R^d", S⁷ ⊂ R⁸.
    (_, authors_s8), (posterior_mean_s7, authors_s7) = figure_3_sphere_losses(8), figure_3_sphere_losses(7)
    for shown in (f"posterior mean's loss is {posterior_mean_s7:.4f}", f"authors' orders give {authors_s7:.4f}",
                  f"they give for S⁸ ({authors_s8:.4f};"):
        assert shown in text["fig3_sphere_bayes_line"], shown

    # Stage 1 alone at L* on the modes ±1, σ² = 0.5: tokens on the wrong side of 0 err by 2.
    wrong = stats.norm.cdf(-1 / math.sqrt(0.5))
    assert wrong == pytest.approx(stats.norm.cdf(-math.sqrt(2)))
    for shown in (f"Φ(−√2) = {wrong:.3f}", f"8Φ(−√2) = {8 * wrong:.2f}", f"{1.76 / 8:.0%} of the tokens"):
        assert shown in text["fig4a_stage1_only_bar"], shown
    assert 4 * wrong / 0.5 == pytest.approx(8 * wrong)

    # Stage 2 at depth 0, N → ∞: the posterior mean under ½N(±2, σ²) with noise σ², at y = 1.4.
    y, sigma_sq, modes = 1.4, 0.5, np.array([-2.0, 2.0])
    weights = np.exp(-(y - modes) ** 2 / (4 * sigma_sq))
    weights /= weights.sum()
    estimate = weights @ ((modes + y) / 2)
    assert (3.4 ** 2 - 0.6 ** 2) / 2 == pytest.approx(5.6) and weights[0] / weights[1] == pytest.approx(math.exp(-5.6))
    for shown in (f"e^{{−5.6}} = {math.exp(-5.6):.4f}", f"{100 * weights[1]:.1f} to {100 * weights[0]:.1f}",
                  f"the estimate is {estimate:.2f}", f"standard deviation {math.sqrt(sigma_sq):.2f}"):
        assert shown in text["fig1_depth0_near_center"], shown

    # The finite-β law at β = 5 from σ² = 0.25, at T* = σ²/2: v = W(βσ²)/β.
    beta, sigma_sq = 5.0, 0.25
    v = special.lambertw(beta * sigma_sq).real / beta
    assert math.log(v) + beta * v == pytest.approx(math.log(sigma_sq) + beta * sigma_sq - 2 * beta * sigma_sq / 2)
    for shown in (f"W({beta * sigma_sq:g})/5 = {v:.3f}", f"{v / sigma_sq:.2f} σ²"):
        assert shown in text["variance_beta5_reaches_zero"], shown

    # Theorem 3.1's conditions at the Fig. 4 setting of config/config.yaml (log: natural).
    snr = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["mssa"]["snr"]
    setting = (f"n = {snr['n']}, K = {snr['K']}, p = {snr['p']}, N = {snr['tokens']}, η = {snr['eta']:g}, τ = {snr['tau']:g}, "
               f"δ = {snr['deltas'][0]:g}, thresholded φ")
    assert setting in text["theorem31_rate_every_layer"], setting
    log_n, p = math.log(snr["tokens"]), snr["p"]
    for shown in (f"log N = {log_n:.1f}", f"√(log N / p) = {math.sqrt(log_n / p):.2f}",
                  f"(0.5, {1 / (1 + snr['tokens'] * math.exp(-9 * p / 32)):.3f}]",
                  f"64(√log N + 1)² = {64 * (math.sqrt(log_n) + 1) ** 2:.0f}"):
        assert shown in text["theorem31_rate_every_layer"], shown


def test_the_readme_stays_short_and_keeps_its_two_opening_commands():
    readme = (REPO / README).read_text()
    assert len(readme.splitlines()) <= 150
    assert ("python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/snakemake --cores 2 figures/fig3.pdf" in readme
            and "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest" in readme)
    assert readme.index("## Quick start") < readme.index("<!-- verdicts:")  # it opens with the two commands
    first_screen = "\n".join(readme.splitlines()[:50])
    assert "<!-- end of verdicts -->" in first_screen and "docs/findings.md" in first_screen  # and the headline after


def test_a_key_names_a_claim_of_a_runs_snapshot():
    key = Key.parse("alltoken_full/alltoken.fig4a_stage1_only_bar")
    assert (key.run, key.study, key.claim) == ("alltoken_full", "alltoken", "fig4a_stage1_only_bar")
    assert key.snapshot.as_posix() == "docs/ledgers/alltoken_full/alltoken.csv"
