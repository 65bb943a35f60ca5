# One plot rule per figure, each reading Parquet tables only.


rule plot_fig1:
    """Figure 1(b): the three tasks drawn from data in n = 3."""
    input:
        rules.evaluate_example_prompts.output[0],
        code=code("onelayer/plot_fig1.py"),
    output:
        report("figures/fig1.pdf", caption="../../report/onelayer/fig1.rst", category="Figures 1 and 2"),
    params:
        tasks={case: config["cases"][case]["task"] for case in ONELAYER["fig1"]["cases"]},
    log:
        "logs/plot_fig1.log",
    benchmark:
        "benchmarks/plot_fig1.tsv"
    resources:
        **job_resources("onelayer/plot_fig1.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/plot_fig1.py"


rule plot_fig2:
    """Figure 2: the projection P x̃ against the shrunk Bayes estimate (eq. 3)."""
    input:
        rules.evaluate_example_prompts.output[0],
        code=code("onelayer/plot_fig2.py"),
    output:
        report("figures/fig2.pdf", caption="../../report/onelayer/fig2.rst", category="Figures 1 and 2"),
    params:
        fig2=canonical(ONELAYER["fig2"]),
    log:
        "logs/plot_fig2.log",
    benchmark:
        "benchmarks/plot_fig2.tsv"
    resources:
        **job_resources("onelayer/plot_fig2.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/plot_fig2.py"


rule plot_fig3:
    """Figure 3: loss dynamics (a) and learned weights (b)."""
    input:
        unpack(get_training_summary_inputs),
        summary=rules.summarise_training_runs.output[0],
        code=code("onelayer/plot_fig3.py"),
    output:
        report("figures/fig3.pdf", caption="../../report/onelayer/fig3.rst", category="Figure 3"),
    params:
        fig3=canonical(ONELAYER["fig3"]),
    log:
        "logs/plot_fig3.log",
    benchmark:
        "benchmarks/plot_fig3.tsv"
    resources:
        **job_resources("onelayer/plot_fig3.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/plot_fig3.py"


rule plot_fig4a:
    """Figure 4(a): γ, best test MSE and the excess over Bayes against the training context length."""
    input:
        sweep=rules.summarise_context_sweep.output.sweep,
        baselines=rules.summarise_context_sweep.output.baselines,
        fit=rules.summarise_context_sweep.output.fit,
        code=code("onelayer/plot_fig4a.py"),
    output:
        report("figures/fig4a.pdf", caption="../../report/onelayer/fig4a.rst", category="Figure 4"),
    log:
        "logs/plot_fig4a.log",
    benchmark:
        "benchmarks/plot_fig4a.tsv"
    resources:
        **job_resources("onelayer/plot_fig4a.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/plot_fig4a.py"


rule plot_fig4b:
    """Figure 4(b): y = MSE·n/d' against d', trained and untrained, with the Bayes and zero lines."""
    input:
        rules.evaluate_subspace_shift.output[0],
        code=code("onelayer/plot_fig4b.py"),
    output:
        report("figures/fig4b.pdf", caption="../../report/onelayer/fig4b.rst", category="Figure 4"),
    log:
        "logs/plot_fig4b.log",
    benchmark:
        "benchmarks/plot_fig4b.tsv"
    resources:
        **job_resources("onelayer/plot_fig4b.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/plot_fig4b.py"


rule plot_fig5:
    """Figure 5: one step against iterated descent on the energy landscape, and MSE against k."""
    input:
        grid=rules.scan_energy_landscape.output.grid,
        points=rules.scan_energy_landscape.output.points,
        steps=rules.evaluate_descent_steps.output[0],
        code=code("onelayer/plot_fig5.py"),
    output:
        report("figures/fig5.pdf", caption="../../report/onelayer/fig5.rst", category="Figure 5"),
    log:
        "logs/plot_fig5.log",
    benchmark:
        "benchmarks/plot_fig5.tsv"
    resources:
        **job_resources("onelayer/plot_fig5.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/plot_fig5.py"


rule plot_fig6:
    """Figure 6: the (β, α) loss landscapes with their marked points."""
    input:
        tables=expand(rules.scan_loss_landscape.output[0], case=ONELAYER["fig6"]["cases"]),
        code=code("onelayer/plot_fig6.py"),
    output:
        report("figures/fig6.pdf", caption="../../report/onelayer/fig6.rst", category="Figure 6"),
    params:
        cases=ONELAYER["fig6"]["cases"],
    log:
        "logs/plot_fig6.log",
    benchmark:
        "benchmarks/plot_fig6.tsv"
    resources:
        **job_resources("onelayer/plot_fig6.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/plot_fig6.py"


rule plot_fig7:
    """Figure 7: linear against softmax attention, from the same training runs as Figure 3."""
    input:
        losses=training_paths("losses", ONELAYER["fig7"]["cases"], ONELAYER["fig7"]["models"]),
        weights=training_paths("weights", ONELAYER["fig7"]["cases"], ONELAYER["fig7"]["models"]),
        bayes=[bayes_path(case) for case in ONELAYER["fig7"]["cases"]],
        summary=rules.summarise_training_runs.output[0],
        code=code("onelayer/plot_fig7.py"),
    output:
        report("figures/fig7.pdf", caption="../../report/onelayer/fig7.rst", category="Figure 7"),
    params:
        fig7=canonical(ONELAYER["fig7"]),
    log:
        "logs/plot_fig7.log",
    benchmark:
        "benchmarks/plot_fig7.tsv"
    resources:
        **job_resources("onelayer/plot_fig7.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/plot_fig7.py"


rule plot_fig8:
    """Figure 8: A, the optimal structures and the learned weights of both models."""
    input:
        matrices=rules.compare_learned_structure.output.matrices,
        similarity=rules.compare_learned_structure.output.similarity,
        code=code("onelayer/plot_fig8.py"),
    output:
        report("figures/fig8.pdf", caption="../../report/onelayer/fig8.rst", category="Figure 8"),
    params:
        fig8=canonical(ONELAYER["fig8"]),
        epochs=config["training"]["epochs"][ONELAYER["fig8"]["case"]],
        L=context_length(ONELAYER["fig8"]["case"]),
    log:
        "logs/plot_fig8.log",
    benchmark:
        "benchmarks/plot_fig8.tsv"
    resources:
        **job_resources("onelayer/plot_fig8.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/onelayer/plot_fig8.py"
