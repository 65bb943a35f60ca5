rule summarise_training_runs:
    """figures/fig3.parquet: α, β, final losses and baselines per (case, model, seed) of the Fig. 3 runs."""
    input:
        unpack(get_training_summary_inputs),
        code=code("onelayer/summarise_training_runs.py"),
    output:
        "figures/fig3.parquet",
    params:
        fig3=canonical(ONELAYER["fig3"]),
    log:
        "logs/summarise_training_runs.log",
    benchmark:
        "benchmarks/summarise_training_runs.tsv"
    resources:
        **job_resources("onelayer/summarise_training_runs.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/summarise_training_runs.py"


rule evaluate_example_prompts:
    """Figures 1(b) and 2 table: one test prompt per n = 3 case with the Bayes and trained estimates."""
    input:
        unpack(get_example_prompt_inputs),
        code=code("onelayer/evaluate_example_prompts.py"),
    output:
        "figures/fig1.parquet",
    params:
        fig1=canonical(ONELAYER["fig1"]),
        order=list(ONELAYER["fig1"]["cases"]),  # the order of the inputs and of the panels
        cases=canonical({case: config["cases"][case] for case in ONELAYER["fig1"]["cases"]}),
        architectures=onelayer_architectures(ONELAYER["fig1"]["cases"].values()),
    log:
        "logs/evaluate_example_prompts.log",
    benchmark:
        "benchmarks/evaluate_example_prompts.tsv"
    resources:
        **job_resources("onelayer/evaluate_example_prompts.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/evaluate_example_prompts.py"


rule summarise_context_sweep:
    """Figure 4(a) tables: γ and best test MSE per (L, seed), the baselines per L, the power-law fit."""
    input:
        unpack(get_context_sweep_inputs),
        code=code("onelayer/summarise_context_sweep.py"),
    output:
        sweep="figures/fig4a.parquet",
        baselines="figures/fig4a_baselines.parquet",
        fit="figures/fig4a_power_law.parquet",
    params:
        fig4a=canonical(ONELAYER["fig4a"]),
        case=onelayer_case_block("fig4a"),
    log:
        "logs/summarise_context_sweep.log",
    benchmark:
        "benchmarks/summarise_context_sweep.tsv"
    resources:
        **job_resources("onelayer/summarise_context_sweep.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/summarise_context_sweep.py"


rule evaluate_subspace_shift:
    """Figure 4(b) table: the model trained at d, L scored on fresh prompts with other d' and L."""
    input:
        training_path(ONELAYER["fig4b"]["case"], ONELAYER["fig4b"]["model"], "weights"),
        code=code("onelayer/evaluate_subspace_shift.py"),
    output:
        "figures/fig4b.parquet",
    params:
        fig4b=canonical(ONELAYER["fig4b"]),
        case=onelayer_case_block("fig4b"),
        architecture=config["models"][ONELAYER["fig4b"]["model"]]["architecture"],
    log:
        "logs/evaluate_subspace_shift.log",
    benchmark:
        "benchmarks/evaluate_subspace_shift.tsv"
    threads: 1
    resources:
        **job_resources("onelayer/evaluate_subspace_shift.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/evaluate_subspace_shift.py"


rule evaluate_descent_steps:
    """Figure 5 companion: MSE/n after k steps of eq. 17 over many fresh prompts (Sec. 4)."""
    input:
        code=code("onelayer/evaluate_descent_steps.py"),
    output:
        "figures/fig5_steps.parquet",
    params:
        fig5=canonical(ONELAYER["fig5"]),
        case=onelayer_case_block("fig5"),
    log:
        "logs/evaluate_descent_steps.log",
    benchmark:
        "benchmarks/evaluate_descent_steps.tsv"
    resources:
        **job_resources("onelayer/evaluate_descent_steps.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/evaluate_descent_steps.py"


rule compare_learned_structure:
    """Figure 8 tables: A, the optimal structures of eq. A.12, learned weights and their cosine similarities."""
    input:
        weights=[training_path(ONELAYER["fig8"]["case"], model, "weights") for model in ONELAYER["fig8"]["models"]],
        code=code("onelayer/compare_learned_structure.py"),
    output:
        matrices="figures/fig8.parquet",
        similarity="figures/fig8_similarity.parquet",
    params:
        fig8=canonical(ONELAYER["fig8"]),
        case=onelayer_case_block("fig8"),
        architectures=onelayer_architectures(ONELAYER["fig8"]["models"]),
    log:
        "logs/compare_learned_structure.log",
    benchmark:
        "benchmarks/compare_learned_structure.tsv"
    resources:
        **job_resources("onelayer/compare_learned_structure.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/compare_learned_structure.py"
