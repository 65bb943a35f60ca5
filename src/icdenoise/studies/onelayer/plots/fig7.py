"""Figure 7: linear against softmax attention, drawn like Figure 3 from the same training runs."""

from __future__ import annotations

import pandas as pd

from .fig3 import render as render_fig3


def render(weights: pd.DataFrame, losses: pd.DataFrame, bayes: pd.DataFrame, summary: pd.DataFrame, cases: list[str],
           models: list[str], representative_seed: int):
    """Loss dynamics of `models` on `cases` and the weights of `representative_seed`, without initial weights."""
    return render_fig3(weights, losses, bayes, summary, cases, models, representative_seed, [],
                       title="Figure 7: linear against softmax attention")
