"""Saving figures: one draw per PDF, the same bytes as matplotlib's own save, layout engines kept."""

import matplotlib.figure

from icdenoise.records.figures import save_figure, start_figure


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
