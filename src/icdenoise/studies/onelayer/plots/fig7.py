"""Figure 7: linear against softmax attention, drawn like Figure 3 from the same training runs."""

from __future__ import annotations

import pandas as pd

from icdenoise.studies.onelayer.plots.fig3 import render as render_fig3


def render(tables: dict[str, pd.DataFrame], cases: list[str], models: list[str], representative_seed: int):
    """Loss dynamics of `models` on `cases` and the weights of `representative_seed`, without initial weights,
    from the tables Figure 3 reads."""
    return render_fig3(tables, cases, models, representative_seed, [], title="Figure 7: linear against softmax attention")
