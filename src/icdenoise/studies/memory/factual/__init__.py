"""Factual recall with associative memories (Bietti 2025 slides 10-13, after Nichani, Lee & Bietti 2024,
"Understanding factual recall in transformers via associative memories").

Slide 10's task: subjects s, relations r and one attribute a*(s, r) ∈ A_r per fact, hidden among noise tokens
before an end token. Slide 11: a one-layer transformer on frozen random embeddings, with or without an MLP, and
the sizes at which it stores every fact (attention + MLP: H·d_h ≳ S + R and m·d ≳ S·R; attention-only:
d ≳ R + A_max and H·d_h ≳ S) - the recall grids of its phase diagram. Slide 13: gradient descent on a
linear-attention model with one-hot embeddings, and its intermediate phase predicting p(a | r).

Modules: `task` (facts and sequences), `model` (the transformer), `training` (training runs and recall grids),
`dynamics` (the linear-attention gradient descent).
"""

from icdenoise.studies.memory.factual.dynamics import (
           DYNAMICS_COLUMNS,
           divergences,
           dynamics,
           dynamics_curves,
           gradients,
           linear_logits,
           token_counts,
)
from icdenoise.studies.memory.factual.model import FactualEmbeddings, FactualTransformer, factual_embeddings, trained_parameters
from icdenoise.studies.memory.factual.task import FactualTask, factual_task
from icdenoise.studies.memory.factual.training import COLUMNS, MODELS, grid_points, needed_sizes, recall_grid, train_point

__all__ = ["COLUMNS", "DYNAMICS_COLUMNS", "FactualEmbeddings", "FactualTask", "FactualTransformer", "MODELS",
           "divergences", "dynamics", "dynamics_curves", "factual_embeddings", "factual_task", "gradients", "grid_points",
           "linear_logits", "needed_sizes", "recall_grid", "token_counts", "train_point", "trained_parameters"]
