"""Saving figures: one draw per PDF, the same bytes as matplotlib's own save, layout engines kept; a footer
below the axes, and a PNG beside the PDF; the footer after a figure's report caption, every changed setting
listed; the claims ledger's slopes drawn as the ledger reports them."""

from types import SimpleNamespace

import jinja2
import matplotlib.figure
import matplotlib.image
import numpy as np
import pandas as pd
import pytest
from matplotlib import pyplot as plt

from icdenoise.maths.fits import loglog_slope
from icdenoise.records.claims import Claim, Measurement, ledger
from icdenoise.records.figures import (FOOTER_INCHES, IMAGE_DPI, draw_ledger_slope, ledger_text, save_figure,
                                       start_figure)
from icdenoise.records.footers import CAPTIONS, FOOTER_KEYS, footed_caption, footer_text


def draws_while_saving(figure, path, monkeypatch, image=None) -> int:
    count = 0
    draw = matplotlib.figure.Figure.draw

    def counted(self, renderer):
        nonlocal count
        count += 1
        return draw(self, renderer)

    monkeypatch.setattr(matplotlib.figure.Figure, "draw", counted)
    save_figure(figure, path, image=image)
    return count


def tight_figure():
    figure, axes = start_figure(2, 2, figsize=(4, 3))
    for ax in axes.flat:
        ax.plot([0, 1], [1, 0])
        ax.set_title("a title")
    figure.tight_layout()
    return figure


def test_a_tight_layout_figure_is_drawn_once_and_saved_unchanged(tmp_path, monkeypatch):
    reference = tight_figure()
    reference.savefig(tmp_path / "reference.pdf", metadata={"CreationDate": None})
    assert draws_while_saving(tight_figure(), tmp_path / "saved.pdf", monkeypatch) == 1
    assert (tmp_path / "saved.pdf").read_bytes() == (tmp_path / "reference.pdf").read_bytes()


def test_a_constrained_layout_figure_keeps_its_layout(tmp_path, monkeypatch):
    figure, ax = start_figure(1, 1, figsize=(4, 3), layout="constrained")
    ax.set_ylabel("a long label " * 3)
    before = ax.get_position().x0
    assert draws_while_saving(figure, tmp_path / "constrained.pdf", monkeypatch) == 2  # the layout pass, then the paint
    assert ax.get_position().x0 > before


def test_a_constrained_layout_figures_png_is_painted_once_at_the_pdfs_layout(tmp_path, monkeypatch):
    """The PDF is laid out and painted as without a PNG (the same bytes); the PNG is one paint more, at the PDF's
    layout, not a second layout pass."""
    def labelled():
        figure, ax = start_figure(1, 1, figsize=(4, 3), layout="constrained")
        ax.set_ylabel("a long label " * 3)
        return figure, ax

    alone, alone_ax = labelled()
    save_figure(alone, tmp_path / "alone.pdf")
    figure, ax = labelled()
    assert draws_while_saving(figure, tmp_path / "both.pdf", monkeypatch, image=tmp_path / "both.png") == 3
    assert (tmp_path / "both.pdf").read_bytes() == (tmp_path / "alone.pdf").read_bytes()
    assert ax.get_position().bounds == alone_ax.get_position().bounds


def fitted_rate(frames, spec):
    fit = loglog_slope(frames["points"]["x"], frames["points"]["y"])
    return Measurement(np.array([fit["slope"]]), (fit["ci_low"], fit["ci_high"]), "95% interval")


RATE_SPEC = {"paper_value": 1.5, "comparison": "within_absolute", "tolerance": 0.5, "tolerance_reason": "why",
             "inconclusive": ["interval"]}


def test_the_ledger_slope_is_the_ledgers_own_fitted_line_labelled_with_its_claim():
    """draw_ledger_slope draws the ledger's measured slope through the points the claim fits: on those points it is
    the least-squares line itself; its label is the claim id with the ledger's value, interval and verdict."""
    x = np.array([2.0, 4.0, 4.0, 8.0, 16.0, 32.0])
    y = 3.0 * x ** 1.5 * np.exp(np.array([0.1, -0.2, 0.15, 0.05, -0.1, 0.02]))
    frames = {"points": pd.DataFrame({"x": x, "y": y})}
    table = ledger({"rate": Claim("here", "y grows as x^1.5", fitted_rate)}, frames, {"rate": RATE_SPEC})
    fit = loglog_slope(x, y)
    assert ledger_text(table, "rate") == (f"rate (ledger): {fit['slope']:.2f} [{fit['ci_low']:.2f}, {fit['ci_high']:.2f}], "
                                          f"{table['verdict'].iloc[0]}")
    figure, ax = start_figure()
    draw_ledger_slope(ax, table, "rate", x, y)
    (line,) = ax.get_lines()
    assert line.get_label() == "slope, " + ledger_text(table, "rate")
    drawn_x, drawn_y = line.get_data()
    assert drawn_x.min() == x.min() and drawn_x.max() == x.max()
    np.testing.assert_allclose(drawn_y, np.exp(fit["intercept"]) * drawn_x ** fit["slope"], rtol=1e-12)
    plt.close(figure)


def test_a_claim_the_ledger_lacks_draws_nothing_and_one_without_a_value_only_says_so():
    frames = {"points": pd.DataFrame({"x": [1.0, 1.0, 1.0], "y": [1.0, 2.0, 3.0]})}  # one x: no slope
    undecided = Claim("here", "y grows as x^1.5", lambda frames, spec: Measurement(np.array([np.nan])),
                      rules={"one_x": lambda frames, spec: "a single x"})
    table = ledger({"rate": undecided}, frames, {"rate": {**RATE_SPEC, "inconclusive": ["interval", "one_x"]}})
    assert ledger_text(table, "rate") == "rate (ledger): no value, INCONCLUSIVE"
    assert ledger_text(table, "other") is None
    figure, ax = start_figure()
    draw_ledger_slope(ax, table, "other", [1.0, 2.0], [1.0, 2.0])
    assert ax.get_lines() == []
    draw_ledger_slope(ax, table, "rate", [1.0, 2.0], [1.0, 2.0])
    (line,) = ax.get_lines()
    assert line.get_label() == "slope, rate (ledger): no value, INCONCLUSIVE" and len(line.get_xdata()) == 0
    plt.close(figure)
def test_a_footer_names_the_run_and_its_first_changed_settings():
    assert footer_text("paper", []) == "run: paper"
    differences = [("onelayer.theorem31.n_prompts", "4000", "200"), ("dataset.seed", "0", "7"), ("cases.linear.n", "16", "4")]
    assert footer_text("smoke", differences) == ("run: smoke; differs from config/config.yaml in onelayer.theorem31.n_prompts: "
                                                 "4000 → 200; dataset.seed: 0 → 7 and 1 more")
    assert footer_text("long", [("k", "x" * 40, "y")]) == f"run: long; differs from config/config.yaml in k: {'x' * 23}… → y"


def rendered_caption(path, run: str, differences: list[str]) -> str:
    """A caption as Snakemake's report renders it: a Jinja template (with its environment's settings), given the job."""
    template = jinja2.Environment(trim_blocks=True, lstrip_blocks=True).from_string(path.read_text())
    return template.render(snakemake=SimpleNamespace(config={"run": {"name": run}}, params=SimpleNamespace(differences=differences)))


def test_a_report_caption_is_copied_with_a_footer_naming_the_run_and_every_changed_setting(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "fig.rst").write_text(f"Figure of {folder}.\n")
    first, second = footed_caption(tmp_path / "a" / "fig.rst"), footed_caption(tmp_path / "b" / "fig.rst")
    assert first.is_absolute() and first.parent == (tmp_path / CAPTIONS).resolve() and first != second  # same name, kept apart
    changed = [f"key{index}: {index} → {index + 1}" for index in range(FOOTER_KEYS + 2)]  # more than the drawn footer spells out
    text = rendered_caption(first, "smoke", changed)
    assert text.startswith("Figure of a.\n\nRun ``smoke``: this figure's settings that differ from ``config/config.yaml``\n(4):\n\n")
    assert text.splitlines()[-len(changed):] == [f"- ``{entry}``" for entry in changed]
    assert rendered_caption(second, "paper", []) == "Figure of b.\n\nRun ``paper``.\n"


def test_a_footer_grows_the_figure_below_its_axes_and_a_png_is_saved_beside_the_pdf(tmp_path):
    figure = tight_figure()
    height, boxes = figure.get_figheight(), [ax.get_position() for ax in figure.axes]
    save_figure(figure, tmp_path / "f.pdf", image=tmp_path / "f.png", footer="run: smoke")
    grown = figure.get_figheight()
    assert grown > height
    for ax, box in zip(figure.axes, boxes):
        after = ax.get_position()
        assert after.height * grown == pytest.approx(box.height * height)
        assert (1 - after.y1) * grown == pytest.approx((1 - box.y1) * height)
    assert any(text.get_text() == "run: smoke" and text.get_position()[1] * grown < FOOTER_INCHES for text in figure.texts)
    image = matplotlib.image.imread(tmp_path / "f.png")
    assert image.shape[0] == round(grown * IMAGE_DPI)
    assert (tmp_path / "f.pdf").read_bytes().startswith(b"%PDF")


def test_a_footer_wider_than_its_figure_is_cut_short_to_fit_and_a_short_one_is_left_whole(tmp_path):
    for footer, whole in (("run: smoke; differs in " + "k: 1 → 2; " * 40, False), ("run: smoke", True)):
        figure, ax = start_figure(1, 1, figsize=(3, 2))
        save_figure(figure, tmp_path / "w.pdf", footer=footer)
        (label,) = [text for text in figure.texts if text.get_text().startswith("run: smoke")]
        assert label.get_window_extent().x1 <= figure.bbox.width
        assert (label.get_text() == footer) == whole and (whole or label.get_text().endswith("…"))
        plt.close(figure)


def test_a_constrained_layout_figure_keeps_the_footer_strip_free(tmp_path):
    figure, ax = start_figure(1, 1, figsize=(4, 3), layout="constrained")
    ax.set_xlabel("a label")
    save_figure(figure, tmp_path / "c.pdf", image=tmp_path / "c.png", footer="run: smoke")  # the PNG is drawn last, at IMAGE_DPI
    label = ax.xaxis.label.get_window_extent().y0 / IMAGE_DPI
    assert label > FOOTER_INCHES
