# The core paper as a study: Smart, Bietti & Sengupta (ICML 2025), Figures 1-8 and its claims ledger.
# Config block `onelayer`; code icdenoise.studies.onelayer. Its figures keep the mission's paths
# (figures/fig1.pdf ... figures/fig8.pdf, figures/claims.{md,parquet}).

ONELAYER = config["onelayer"]
STUDY = "onelayer"
DRAWINGS = "icdenoise.studies.onelayer.plots"  # unused by its figures, which derive theirs; kept: a top-level line is in the claims' wiring digest


def onelayer_case_block(figure):
    """The full config block of the case a figure block names (L included)."""
    return canonical(config["cases"][ONELAYER[figure]["case"]])


def onelayer_architectures(models):
    return {model: config["models"][model]["architecture"] for model in models}


FIG1, FIG3, FIG4A, FIG4B, FIG8 = (ONELAYER[figure] for figure in ("fig1", "fig3", "fig4a", "fig4b", "fig8"))

job_rule(
    "summarise_training_runs",
    "<figures>/fig3.parquet: α, β, final losses and baselines per (case, model, seed) of the Fig. 3 runs.",
    "scripts/summarise_training_runs.py",
    "<figures>/fig3.parquet",
    input=dict(
        losses=training_paths("losses", FIG3["cases"], FIG3["models"]),
        weights=training_paths("weights", FIG3["cases"], FIG3["models"]),
        bayes=[bayes_path(case) for case in FIG3["cases"]],
    ),
    params=dict(fig3=canonical(FIG3)),
    local=True,
)

job_rule(
    "evaluate_example_prompts",
    "Figures 1(b) and 2 table: one test prompt per n = 3 case with the Bayes and trained estimates.",
    "scripts/evaluate_example_prompts.py",
    "<figures>/fig1.parquet",
    input=dict(
        datasets=[dataset_path(case) for case in FIG1["cases"]],
        weights=[training_path(case, model, "weights") for case, model in FIG1["cases"].items()],
        losses=[training_path(case, model, "losses") for case, model in FIG1["cases"].items()],
    ),
    params=dict(
        fig1=canonical(FIG1),
        order=list(FIG1["cases"]),  # the order of the inputs and of the panels
        cases=canonical({case: config["cases"][case] for case in FIG1["cases"]}),
        architectures=onelayer_architectures(FIG1["cases"].values()),
    ),
    cache=True,
)

job_rule(
    "summarise_context_sweep",
    "Figure 4(a) tables: γ and best test MSE per (L, seed), the baselines per L, the power-law fit.",
    "scripts/summarise_context_sweep.py",
    dict(
        sweep="<figures>/fig4a.parquet",
        baselines="<figures>/fig4a_baselines.parquet",
        fit="<figures>/fig4a_power_law.parquet",
    ),
    input=dict(
        datasets=[dataset_path(FIG4A["case"], L) for L in FIG4A["context_lengths"]],
        losses=[training_path(FIG4A["case"], FIG4A["model"], "losses", L) for L in FIG4A["context_lengths"]],
        weights=[training_path(FIG4A["case"], FIG4A["model"], "weights", L) for L in FIG4A["context_lengths"]],
        bayes=[bayes_path(FIG4A["case"], L) for L in FIG4A["context_lengths"]],
    ),
    params=dict(fig4a=canonical(FIG4A), case=onelayer_case_block("fig4a")),
    local=True,
)

job_rule(
    "evaluate_subspace_shift",
    "Figure 4(b) table: the model trained at d, L scored on fresh prompts with other d' and L.",
    "scripts/evaluate_subspace_shift.py",
    "<figures>/fig4b.parquet",
    input=dict(weights=training_path(FIG4B["case"], FIG4B["model"], "weights")),
    params=dict(
        fig4b=canonical(FIG4B),
        case=onelayer_case_block("fig4b"),
        architecture=config["models"][FIG4B["model"]]["architecture"],
    ),
    cache=True,
)

job_rule(
    "evaluate_descent_steps",
    "Figure 5 companion: MSE/n after k steps of eq. 17 over many fresh prompts (Sec. 4).",
    "scripts/evaluate_descent_steps.py",
    "<figures>/fig5_steps.parquet",
    params=dict(fig5=canonical(ONELAYER["fig5"]), case=onelayer_case_block("fig5")),
    cache=True,
)

job_rule(
    "evaluate_ideal_softmax_convergence",
    "Theorem 3.1: the excess MSE of eq. 13 (W_PV = I, W_KQ = I/σ_z²) over Bayes (eq. 6) against L on the same fresh "
    "prompts, and its fitted rate (App. E: 1/L).",
    "scripts/evaluate_ideal_softmax_convergence.py",
    dict(table="<figures>/theorem31.parquet", fit="<figures>/theorem31_fit.parquet"),
    params=dict(theorem31=canonical(ONELAYER["theorem31"]), case=onelayer_case_block("theorem31")),
    cache=True,
)

job_rule(
    "compare_learned_structure",
    "Figure 8 tables: A, the optimal structures of eq. A.12, learned weights and their cosine similarities.",
    "scripts/compare_learned_structure.py",
    dict(matrices="<figures>/fig8.parquet", similarity="<figures>/fig8_similarity.parquet"),
    input=dict(weights=[training_path(FIG8["case"], model, "weights") for model in FIG8["models"]]),
    params=dict(
        fig8=canonical(FIG8), case=onelayer_case_block("fig8"), architectures=onelayer_architectures(FIG8["models"])
    ),
    cache=True,
)

job_rule(
    "scan_energy_landscape",
    "Figure 5 tables: the eq. 16 energy on a grid for one circle context, and the eq. 17 descent paths.",
    "scripts/scan_energy_landscape.py",
    dict(grid="<figures>/fig5_landscape.parquet", points="<figures>/fig5_points.parquet"),
    params=dict(fig5=canonical(ONELAYER["fig5"]), case=onelayer_case_block("fig5")),
    cache=True,
)

job_rule(
    "scan_loss_landscape",
    "Figure 6 table of one case: MSE/n on a grid of (β, α), with the heuristic, trained and minimum points.",
    "scripts/scan_loss_landscape.py",
    "<results>/landscape/{case}.parquet",
    input=dict(dataset=lambda wildcards: dataset_path(wildcards.case), summary=rules.summarise_training_runs.output[0]),
    params=dict(fig6=canonical(ONELAYER["fig6"]), case=get_case_params),
    cache=True,
)

job_rule(
    "scan_fresh_loss_landscape",
    "The Figure 6 table of one case on the evaluation's fresh prompts (those evaluate_bayes and evaluate_trained score), "
    "not the training prompts: MSE/n on the grid of (β, α), with the heuristic, trained and minimum points.",
    "scripts/scan_fresh_loss_landscape.py",
    "<results>/landscape_fresh/{case}.parquet",
    input=dict(summary=rules.summarise_training_runs.output[0], task_code=user_task_files),
    params=dict(
        fig6=canonical({key: ONELAYER["fig6"][key] for key in ("model", "grid_size", "alpha_range", "beta_range")}),
        case=lambda wildcards: canonical(case_block(wildcards.case)),
        evaluation=canonical(config["evaluation"]),
    ),
    cache=True,
)

figure_rule(
    "plot_fig1",
    "fig1",
    "Figure 1(b): the three tasks drawn from data in n = 3.",
    dict(points=rules.evaluate_example_prompts.output[0]),
    settings=dict(tasks={case: config["cases"][case]["task"] for case in FIG1["cases"]}),
)
figure_rule(
    "plot_fig2",
    "fig2",
    "Figure 2: the projection P x̃ against the shrunk Bayes estimate (eq. 3).",
    dict(points=rules.evaluate_example_prompts.output[0]),
    settings=dict(case=ONELAYER["fig2"]["case"]),
)
figure_rule(
    "plot_fig3",
    "fig3",
    "Figure 3: loss dynamics (a) and learned weights (b).",
    dict(
        losses=training_paths("losses", FIG3["cases"], FIG3["models"]),
        weights=training_paths("weights", FIG3["cases"], FIG3["models"]),
        summary=rules.summarise_training_runs.output[0],
    ),
    settings={key: FIG3[key] for key in ("cases", "models", "representative_seed", "initial_weights_cases")},
)
figure_rule(
    "plot_fig4a",
    "fig4a",
    "Figure 4(a): γ, best test MSE and the excess over Bayes against the training context length.",
    named_tables(rules.summarise_context_sweep.output),
)
figure_rule(
    "plot_fig4b",
    "fig4b",
    "Figure 4(b): y = MSE·n/d' against d', trained and untrained, with the Bayes and zero lines.",
    dict(shift=rules.evaluate_subspace_shift.output[0]),
)
figure_rule(
    "plot_fig5",
    "fig5",
    "Figure 5: one step against iterated descent on the energy landscape, and MSE against k.",
    dict(**named_tables(rules.scan_energy_landscape.output), steps=rules.evaluate_descent_steps.output[0]),
)
figure_rule(
    "plot_theorem31",
    "theorem31",
    "Theorem 3.1: the excess MSE of ideal softmax attention (eq. 13) over Bayes against L on the sphere, with its rate.",
    named_tables(rules.evaluate_ideal_softmax_convergence.output),
)
figure_rule(
    "plot_fig6",
    "fig6",
    "Figure 6: the (β, α) loss landscapes with their marked points.",
    dict(landscapes=expand(rules.scan_loss_landscape.output[0], case=ONELAYER["fig6"]["cases"])),
    settings=dict(cases=ONELAYER["fig6"]["cases"]),
)
figure_rule(
    "plot_fig7",
    "fig7",
    "Figure 7: linear against softmax attention, from the same training runs as Figure 3.",
    dict(
        losses=training_paths("losses", ONELAYER["fig7"]["cases"], ONELAYER["fig7"]["models"]),
        weights=training_paths("weights", ONELAYER["fig7"]["cases"], ONELAYER["fig7"]["models"]),
        summary=rules.summarise_training_runs.output[0],
    ),
    settings={key: ONELAYER["fig7"][key] for key in ("cases", "models", "representative_seed")},
)
figure_rule(
    "plot_fig8",
    "fig8",
    "Figure 8: A, the optimal structures and the learned weights of both models.",
    named_tables(rules.compare_learned_structure.output),
    settings=dict(
        models=FIG8["models"],
        representative_seed=FIG8["representative_seed"],
        epochs=config["training"]["epochs"][FIG8["case"]],
        context_length=context_length(FIG8["case"]),
    ),
)

ledger_rule(
    "write_onelayer_ledger",
    STUDY,
    dict(
        fig3=rules.summarise_training_runs.output[0],
        bayes=[bayes_path(case) for case in FIG3["cases"]],
        trained=[trained_scores_path(case) for case in FIG3["cases"]],
        fig4a=rules.summarise_context_sweep.output.sweep,
        fig4a_fit=rules.summarise_context_sweep.output.fit,
        fig4b=rules.evaluate_subspace_shift.output[0],
        fig5_steps=rules.evaluate_descent_steps.output[0],
        fig6=expand(rules.scan_loss_landscape.output[0], case=ONELAYER["fig6"]["cases"]),
        fig6_fresh=expand(rules.scan_fresh_loss_landscape.output[0], case=ONELAYER["fig6"]["cases"]),
        fig8=rules.compare_learned_structure.output.similarity,
        theorem31_fit=rules.evaluate_ideal_softmax_convergence.output.fit,
        datasets=f"<results>/sweeps/{STUDY}_datasets.parquet",  # the study's sweep `datasets` (sweeps.smk)
    ),
    dict(table="<figures>/claims.parquet", text="<figures>/claims.md"),
    "report/claims.rst",
)
