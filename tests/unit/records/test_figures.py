"""Saving figures: one draw per PDF, the same bytes as matplotlib's own save, layout engines kept; the claims
ledger's slopes drawn as the ledger reports them."""

import matplotlib.figure
import numpy as np
import pandas as pd
from matplotlib import pyplot as plt

from icdenoise.maths.fits import loglog_slope
from icdenoise.records.claims import Claim, Measurement, ledger
from icdenoise.records.figures import draw_ledger_slope, ledger_text, save_figure, start_figure


def draws_while_saving(figure, path, monkeypatch) -> int:
    count = 0
    draw = matplotlib.figure.Figure.draw

    def counted(self, renderer):
        nonlocal count
        count += 1
        return draw(self, renderer)

    monkeypatch.setattr(matplotlib.figure.Figure, "draw", counted)
    save_figure(figure, path)
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
