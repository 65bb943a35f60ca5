"""The onelayer study's job sizes (icdenoise.pipeline.resources): its trainings are the shared stage's;
its own compute jobs (evaluations of a few prompts, scans) stay small."""

from __future__ import annotations

from icdenoise.pipeline.resources import SizeModel, light

SIZES: dict[str, SizeModel] = dict.fromkeys(("evaluate_example_prompts", "evaluate_subspace_shift", "evaluate_descent_steps",
                                             "compare_learned_structure", "scan_energy_landscape", "scan_loss_landscape",
                                             "scan_fresh_loss_landscape",
                                             "evaluate_ideal_softmax_convergence"), light)
