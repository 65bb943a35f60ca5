"""The smoke run's `snakemake --report` of all, its sweeps and its comparison with a second run
(conftest.experiments_run), opened in a real headless Chromium through Playwright: the page loads without
script errors; its first screen (1400 × 1000) warns that the smoke run's verdicts are not the paper's and shows
each study's verdict counts (the source's claims, as each ledger's headline counts them), its failing claims by
name and whether they are registered; its front page names the run, config and commit, counts the verdicts of
every ledger row and lists the settings that differ from config/config.yaml;
every figure is shown as an image (its PNG, the PDF beside it), and its caption ends with the run's name and
every setting of the blocks it reads that differs from config/config.yaml (its study's block and the shared
blocks the study reads; a sweep's block; none for the comparison); every ledger and the leaderboard show their
rows as HTML tables, a ledger's no wider than its page and its verdicts without Markdown marks.

`scripts/browser/install_chromium.sh` installs Chromium (.ci/run calls it). Where Chromium or Playwright
is missing, the test skips and says why, except under ICDENOISE_REQUIRE_BROWSER=1 (CI), where it fails.
Screenshots of the front page, Figure 3 and the core ledger are kept in test-artifacts/report/.
"""

from __future__ import annotations

import importlib.util
import io
import os
import shutil
import time
from pathlib import Path

import matplotlib.image
import pandas as pd
import pytest
from runner import EXPERIMENT_CONFIGS, SMOKE, snakemake

from icdenoise.experiments.comparison import config_differences
from icdenoise.pipeline.config import load_schema, load_yaml, registered_studies
from icdenoise.pipeline.report import difference_text, figure_blocks, study_differences
from icdenoise.records.artifacts import read_metadata
from icdenoise.records.ledger_text import source_claims

pytestmark = pytest.mark.integration

DRAWN = 0.001  # a drawn figure has at least this fraction of coloured pixels; an empty or grey panel has none
PANEL_DEADLINE = 60  # seconds a panel may take to draw before the test fails
SCREEN = {"width": 1400, "height": 1000}  # the first screen: what the report shows when it opens


def unavailable_reason() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "Playwright is not installed: pip install -e '.[test]'"
    if shutil.which("chromium") is None:
        return "Chromium is not installed: sudo scripts/browser/install_chromium.sh"
    return None


@pytest.fixture(scope="module")
def browser():
    reason = unavailable_reason()
    if reason:
        if os.environ.get("ICDENOISE_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def report(experiments_run, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("report") / "report.html"
    result = snakemake(experiments_run["workdir"], "--report", str(path), "all", "sweeps", "comparison", configfile=EXPERIMENT_CONFIGS)
    assert result.returncode == 0, result.stderr[-4000:]
    return path


def coloured_fraction(png: bytes) -> float:
    rgb = matplotlib.image.imread(io.BytesIO(png), format="png")[..., :3]
    return float(((rgb.max(axis=2) - rgb.min(axis=2)) > 0.25).mean())


def inked_fraction(png: bytes) -> float:
    """The fraction of pixels darker than light grey in some channel: lines, text and fills of any colour."""
    rgb = matplotlib.image.imread(io.BytesIO(png), format="png")[..., :3]
    return float((rgb.min(axis=2) < 0.6).mean())


def wait_until_drawn(panel, measure=coloured_fraction) -> float:
    """Poll the panel's pixels until the figure is drawn (or the deadline passes)."""
    deadline, fraction = time.monotonic() + PANEL_DEADLINE, 0.0
    while time.monotonic() < deadline:
        fraction = measure(panel.screenshot())
        if fraction > DRAWN:
            break
        time.sleep(0.25)
    return fraction


PANELS = "iframe, img[src^='data:image/png']"  # an HTML page's frame, or a figure's image


def shown_source(page, previous: str | None) -> str:
    """The panel's source once it is no longer the previous item's (the report swaps it when an item is clicked)."""
    deadline = time.monotonic() + PANEL_DEADLINE
    while time.monotonic() < deadline:
        panel = page.locator(PANELS)
        source = panel.get_attribute("src") if panel.count() else None
        if source and source != previous:
            return source
        time.sleep(0.1)
    pytest.fail(f"no new panel {PANEL_DEADLINE} s after the click")


def first_screen_row(ledger: pd.DataFrame, name: str) -> tuple[list[str], list[str]]:
    """A study's row of the front page's verdict table as it should read (study, claims of the source, hold, fail,
    undecided; the registration cell's start), counted as the ledger's headline counts, and its failing claims."""
    source = ledger[source_claims(ledger)]
    found = source["verdict"].value_counts()
    registered = int(source["registered"].sum())
    expected = [name, str(len(source)), *(str(found.get(verdict, 0)) for verdict in ("PASS", "FAIL", "INCONCLUSIVE")),
                "all" if registered == len(source) else "none" if registered == 0 else f"{registered} of {len(source)}"]
    return expected, list(source.loc[source["verdict"] == "FAIL", "claim"])


def expected_counts(ledger: pd.DataFrame) -> str:
    found = ledger["verdict"].value_counts()
    return (", ".join(f"{found.get(verdict, 0)} {verdict.lower()}" for verdict in ("PASS", "FAIL", "INCONCLUSIVE", "MEASURED"))
            + f" ({len(ledger)} claims)")


BROKEN_HEADER_WORDS = """table => {
  const broken = [];
  for (const header of table.querySelectorAll('th')) {
    const walker = document.createTreeWalker(header, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.data.matchAll(/[^\\s\u00ad]+/g)) {
        const lines = new Set();
        for (let index = word.index; index < word.index + word[0].length; index++) {
          const range = document.createRange();
          range.setStart(node, index);
          range.setEnd(node, index + 1);
          const rects = [...range.getClientRects()];  // a hyphen drawn at a soft hyphen's break comes first
          if (rects.length) lines.add(Math.round(rects[rects.length - 1].top));
        }
        if (lines.size > 1) broken.push(word[0]);
      }
    }
  }
  return broken;
}"""  # the words of a table's headers (between soft hyphens) that the page shows broken over two or more lines


CAPTION = "xpath=//li[normalize-space(.)='Description']/following-sibling::li[1]"  # in the sidebar an item's ⓘ opens


def caption_footer(page, row, category: str) -> tuple[str, list[str]]:
    """The last paragraph of the caption the report shows for the row's item, and the entries of the list after
    it (none where no list follows it); then the sidebar is taken back to the category's items."""
    row.locator("a[iconname=information-circle]").click()
    caption = page.locator(CAPTION)
    footer = caption.locator("xpath=./p[last()]").inner_text().strip()
    entries = [entry.inner_text().strip() for entry in caption.locator("xpath=./p[last()]/following-sibling::ul[1]/li").all()]
    page.locator("nav ol").get_by_role("link", name=category, exact=True).click()
    return footer, entries


def claim_ids(frame) -> tuple[str, ...]:
    """The first column of the page's first table (a ledger's claims; an appendix may follow)."""
    return tuple(cell.inner_text().strip() for cell in frame.locator("table").first.locator("tbody tr td:first-child").all())


def test_the_report_opens_and_shows_every_figure_ledger_and_the_leaderboard(browser, report, experiments_run, repo):
    artifacts = repo / "test-artifacts" / "report"
    artifacts.mkdir(parents=True, exist_ok=True)
    studies = registered_studies(load_yaml(repo / "config" / "config.yaml"), load_schema(repo / "workflow" / "schemas"))
    categories = [study.title for study in studies.values()] + ["Leaderboard", "Sweeps", "Comparison"]
    figures = experiments_run["workdir"] / SMOKE / "figures"
    ledgers = {tuple(pd.read_parquet(path)["claim"]) for path in figures.rglob("claims.parquet")}
    leaderboard_rows = len(pd.read_parquet(figures / "leaderboard.parquet"))
    not_reported = {"lr_grid"}  # the learning-rate grid's figure: built beside the run, by no target the report names
    images = sorted(path for path in figures.rglob("*.png") if path.stem not in not_reported)
    assert images and all(image.with_suffix(".pdf").is_file() for image in images)
    assert len(images) == len([path for path in figures.rglob("*.pdf") if path.stem not in not_reported])
    expected_items = len(images) + len(ledgers) + 1
    run = SMOKE.name
    run_config = load_yaml(figures.parent / "results" / "config.yaml")
    differences = config_differences(run_config, load_yaml(repo / "config" / "config.yaml"))
    study_of = {study.title: (name, study.shared_keys(run_config)) for name, study in studies.items()}  # by category

    page = browser.new_page(viewport=SCREEN)
    errors = []
    page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
    page.on("console", lambda message: errors.append(f"console: {message.text}") if message.type == "error" else None)
    page.goto(report.as_uri())
    page.screenshot(path=artifacts / "front_page.png")
    front = page.inner_text("body")
    assert "This report shows the run smoke, built from config/config.yaml + config/smoke.yaml + compare.yaml" in front
    assert "its ledgers and leaderboard were written at commit" in front
    ledger_of = {read_metadata(path)["params"]["params"]["study"]: path for path in figures.rglob("claims.parquet")}
    for name, study in studies.items():
        assert f"{name}: {study.title} — {expected_counts(pd.read_parquet(ledger_of[name]))}" in front
    alert = page.get_by_role("alert")
    assert alert.is_visible() and "These verdicts are not the paper's" in alert.inner_text()
    assert 0 <= alert.bounding_box()["y"] < SCREEN["height"]  # in view when the report opens
    assert alert.bounding_box()["y"] < page.get_by_text("Studies in this run").bounding_box()["y"]

    def on_first_screen(locator) -> bool:
        box = locator.bounding_box()
        return locator.is_visible() and box is not None and 0 <= box["y"] and box["y"] + box["height"] <= SCREEN["height"]

    rows, failing_shown = page.locator("table.icdenoise-verdicts tbody tr"), []
    assert rows.count() == len(studies)
    for index, name in enumerate(studies):  # the table's rows in the config's order, each study's whole row in view
        expected, failing = first_screen_row(pd.read_parquet(ledger_of[name]), name)
        row = rows.nth(index)
        cells = [cell.strip() for cell in row.locator("td").all_inner_texts()]
        assert cells[:5] == expected[:5] and cells[6].startswith(expected[5]), (name, cells, expected)
        assert on_first_screen(row), f"{name}'s verdicts are below the first {SCREEN['height']} px"
        for claim in failing:  # each failing claim of the source, by name, in view
            shown = row.get_by_text(claim, exact=True)
            assert on_first_screen(shown), f"{name}'s failing claim {claim} is not in the first screen"
            failing_shown.append(claim)
    assert failing_shown  # the smoke run has failing claims: the check above ran
    page.locator("summary", has_text="settings of smoke differ from config/config.yaml").click()
    assert page.get_by_text("cases.linear.n: 16 → 4", exact=True).is_visible()  # config/smoke.yaml's change, key by key

    shown, figures_shown, seen_ledgers = 0, 0, set()
    for category in categories:
        page.goto(report.as_uri())
        page.get_by_role("link", name=category, exact=True).click()
        source = None
        rows = page.locator("tr", has=page.locator("a[iconname=eye]"))
        assert rows.count() > 0, category
        for index in range(rows.count()):
            row = rows.nth(index)
            item = [label.strip() for label in row.inner_text().split("\t") if label.strip()][-1]  # study, item
            row.locator("a[iconname=eye]").click()
            source = shown_source(page, source)
            panel = page.locator(PANELS)
            shown += 1
            if source.startswith("data:text/html"):
                frame = panel.content_frame
                frame.locator("table").first.wait_for()
                if item == "leaderboard":
                    assert frame.locator("tbody tr").count() == leaderboard_rows
                else:
                    claims = claim_ids(frame)
                    assert claims in ledgers, f"{category}: the ledger page's claims {claims} are no ledger's"
                    seen_ledgers.add(claims)
                    fits = frame.locator("html").evaluate("page => page.scrollWidth <= page.clientWidth")
                    assert fits, f"{category}: the ledger table is wider than its page"
                    broken = frame.locator("table").first.evaluate(BROKEN_HEADER_WORDS)
                    assert not broken, f"{category}: header words broken across lines: {broken}"
                    text = frame.locator("body").inner_text()
                    assert "*INCONCLUSIVE*" not in text and "**FAIL**" not in text, f"{category}: the ledger shows Markdown marks"
                    if category == categories[0]:
                        page.screenshot(path=artifacts / "ledger.png")
            else:
                assert source.startswith("data:image/png"), f"{category}: {item} is not shown as an image"
                figures_shown += 1
                fraction = wait_until_drawn(panel, inked_fraction)
                assert panel.evaluate("image => image.complete && image.naturalWidth > 0"), f"{category}: {item}'s image did not load"
                assert fraction > DRAWN, f"{category}: {item}'s image shows no figure in {PANEL_DEADLINE} s"
                if item in ("fig3", "noise", "comparison"):
                    page.screenshot(path=artifacts / f"{item}.png")
                if category in study_of:
                    name, shared = study_of[category]
                    read = figure_blocks(name, item, run_config[name], shared)
                else:
                    study, _, block = item.partition("_")  # a study's own sweep, <study>_<block>, reads <study>.<block>
                    read = ([f"sweeps.{item}"] if item in run_config["sweeps"] else [f"{study}.{block}"]) if category == "Sweeps" else []
                expected = [difference_text(*entry) for entry in study_differences(differences, read)]
                assert expected or category == "Comparison", f"{category}: {item} reads no setting the smoke run changes"
                footer, entries = caption_footer(page, row, category)
                named = f"Run {run}: this figure's settings that differ from config/config.yaml ({len(expected)}):" if expected else f"Run {run}."
                assert footer == named, f"{category}: {item}'s caption ends with {footer!r}, not {named!r}"
                assert entries == expected, f"{category}: {item}'s caption lists {entries}, not its changed settings {expected}"
                if item == "fig3":
                    assert "cases.linear.n: 16 → 4" in entries  # config/smoke.yaml's change, as on the front page
                    # its own block's and the shared blocks' settings before a sibling figure's (onelayer.fig4a…)
                    siblings = [index for index, entry in enumerate(entries) if entry.startswith("onelayer.") and not entry.startswith("onelayer.fig3")]
                    assert siblings and siblings[0] > entries.index("cases.linear.n: 16 → 4"), entries
    assert seen_ledgers == ledgers
    assert figures_shown == len(images)
    assert shown == expected_items
    assert errors == []
