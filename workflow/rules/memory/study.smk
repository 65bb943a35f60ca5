# Associative memories (Bietti 2025 slides): capacity by bisection in N, the cross-talk variance, one
# gradient step, low-rank and MLP memories, Zipf scaling laws, the induction head and the claims ledger.
# Config block `memory`; code icdenoise.studies.memory; protocol and choices in docs/memory.md.

MEMORY = config["memory"]
MEMORY_FIGURES = ["capacity_curves", "capacity_fit", "gradient_step", "variance", "width", "zipf_n", "zipf_d", "zipf_optimum", "induction"]
MEMORY_ALPHAS = [f"{alpha:g}" for alpha in MEMORY["zipf"]["alphas"]]
MEMORY_INDUCTION_RUNS = expand("results/memory/induction/layers{layers}_{optimizer}_seed{seed}.parquet",
                               layers=MEMORY["induction"]["layers"], optimizer=list(MEMORY["induction"]["optimizers"]),
                               seed=MEMORY["induction"]["seeds"])


RULE_DEVICES["memory_train_induction"] = MEMORY["induction"]["device"]


wildcard_constraints:
    memory_map="|".join(MEMORY["capacity"]["maps"]),
    mlp_d=r"\d+",
    alpha="|".join(MEMORY_ALPHAS).replace(".", r"\."),
    induction_layers=r"\d+",
    optimizer="|".join(MEMORY["induction"]["optimizers"]),
    induction_seed=r"\d+",


rule memory_capacity:
    """Slides 8, 9 and 23: the bisected capacity of the Hebbian and one-step memories for one map, per d and seed."""
    input:
        code=code("memory/memory_capacity.py"),
    output:
        "results/memory/capacity/{memory_map}.parquet",
    params:
        block=canonical(MEMORY["capacity"]),
    log:
        "logs/memory/capacity_{memory_map}.log",
    benchmark:
        "benchmarks/memory_capacity/{memory_map}.tsv"
    priority: longest_first("memory/memory_capacity.py")
    resources:
        **job_resources("memory/memory_capacity.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/memory/memory_capacity.py"


rule memory_curves:
    """Slide 9: the Hebbian memory's recall accuracy on a grid of N, for one map, per d and seed."""
    input:
        code=code("memory/memory_curves.py"),
    output:
        "results/memory/curves/{memory_map}.parquet",
    params:
        block=canonical(MEMORY["capacity"]),
    log:
        "logs/memory/curves_{memory_map}.log",
    benchmark:
        "benchmarks/memory_curves/{memory_map}.tsv"
    priority: longest_first("memory/memory_curves.py")
    resources:
        **job_resources("memory/memory_curves.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/memory/memory_curves.py"


rule memory_variance:
    """Slide 9: the simulated mean and variance of the cross-talk γ against the slides' and the exact variance."""
    input:
        code=code("memory/memory_variance.py"),
    output:
        "figures/memory/variance.parquet",
    params:
        block=canonical(MEMORY["variance"]),
        few_outputs=MEMORY["capacity"]["few_outputs"],
    log:
        "logs/memory/variance.log",
    benchmark:
        "benchmarks/memory_variance.tsv"
    priority: longest_first("memory/memory_variance.py")
    resources:
        **job_resources("memory/memory_variance.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/memory/memory_variance.py"


rule memory_low_rank:
    """Slide 9: the bisected capacity of the low-rank memory W₁ᵀW₂ per d, m and seed."""
    input:
        code=code("memory/memory_low_rank.py"),
    output:
        "results/memory/low_rank.parquet",
    params:
        block=canonical(MEMORY["low_rank"]),
        capacity=canonical(MEMORY["capacity"]),
    log:
        "logs/memory/low_rank.log",
    benchmark:
        "benchmarks/memory_low_rank.tsv"
    priority: longest_first("memory/memory_low_rank.py")
    resources:
        **job_resources("memory/memory_low_rank.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/memory/memory_low_rank.py"


rule memory_mlp:
    """Slide 9: the capacity of a trained one-hidden-layer MLP per width m and seed, at one d."""
    input:
        code=code("memory/memory_mlp.py"),
    output:
        "results/memory/mlp/d{mlp_d}.parquet",
    params:
        block=canonical(MEMORY["mlp"]),
    log:
        "logs/memory/mlp_d{mlp_d}.log",
    benchmark:
        "benchmarks/memory_mlp/d{mlp_d}.tsv"
    priority: longest_first("memory/memory_mlp.py")
    resources:
        **job_resources("memory/memory_mlp.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/memory/memory_mlp.py"


rule memory_capacity_fit:
    """Slide 9: every capacity in one table, the accuracy curves in one table, and the fitted exponents with 95% CIs."""
    input:
        capacity=expand("results/memory/capacity/{memory_map}.parquet", memory_map=MEMORY["capacity"]["maps"]),
        curves=expand("results/memory/curves/{memory_map}.parquet", memory_map=MEMORY["capacity"]["maps"]),
        low_rank="results/memory/low_rank.parquet",
        mlp=expand("results/memory/mlp/d{mlp_d}.parquet", mlp_d=MEMORY["mlp"]["ds"]),
        code=code("memory/memory_capacity_fit.py"),
    output:
        fits="figures/memory/capacity_fit.parquet",
        capacity="results/memory/capacity.parquet",
        curves="results/memory/curves.parquet",
        width="results/memory/width.parquet",
    log:
        "logs/memory/capacity_fit.log",
    benchmark:
        "benchmarks/memory_capacity_fit.tsv"
    resources:
        **job_resources("memory/memory_capacity_fit.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/memory/memory_capacity_fit.py"


rule memory_zipf:
    """Slides 29-32: the exact test error of the finite memories under Zipf(α) tokens, per estimator, d, n and seed."""
    input:
        code=code("memory/memory_zipf.py"),
    output:
        "results/memory/zipf/alpha{alpha}.parquet",
    params:
        block=canonical(MEMORY["zipf"]),
    log:
        "logs/memory/zipf_alpha{alpha}.log",
    benchmark:
        "benchmarks/memory_zipf/alpha{alpha}.tsv"
    priority: longest_first("memory/memory_zipf.py")
    resources:
        **job_resources("memory/memory_zipf.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/memory/memory_zipf.py"


rule memory_zipf_fit:
    """Slide 32: the Zipf errors in one table and their fitted exponents with 95% CIs against the slides' rates."""
    input:
        tables=expand("results/memory/zipf/alpha{alpha}.parquet", alpha=MEMORY_ALPHAS),
        code=code("memory/memory_zipf_fit.py"),
    output:
        fits="figures/memory/zipf_fit.parquet",
        errors="results/memory/zipf.parquet",
    params:
        block=canonical(MEMORY["zipf"]),
    log:
        "logs/memory/zipf_fit.log",
    benchmark:
        "benchmarks/memory_zipf_fit.tsv"
    resources:
        **job_resources("memory/memory_zipf_fit.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/memory/memory_zipf_fit.py"


rule memory_train_induction:
    """Slides 15-21: one attention-only model on the bigram task with triggers, trained from one seed with one optimiser."""
    input:
        code=code("memory/memory_train_induction.py"),
    output:
        "results/memory/induction/layers{induction_layers}_{optimizer}_seed{induction_seed}.parquet",
    params:
        block=canonical(MEMORY["induction"]),
    log:
        "logs/memory/induction/layers{induction_layers}_{optimizer}_seed{induction_seed}.log",
    benchmark:
        "benchmarks/memory_train_induction/layers{induction_layers}_{optimizer}_seed{induction_seed}.tsv"
    priority: longest_first("memory/memory_train_induction.py")
    resources:
        **job_resources("memory/memory_train_induction.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/memory/memory_train_induction.py"


rule memory_summarise_induction:
    """Slides 19-21: every induction-head run's curves in one table, and the step at which each probe is learned."""
    input:
        runs=MEMORY_INDUCTION_RUNS,
        code=code("memory/memory_summarise_induction.py"),
    output:
        curves="figures/memory/induction.parquet",
        order="figures/memory/induction_order.parquet",
    params:
        block=canonical(MEMORY["induction"]),
    log:
        "logs/memory/summarise_induction.log",
    benchmark:
        "benchmarks/memory_summarise_induction.tsv"
    resources:
        **job_resources("memory/memory_summarise_induction.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/memory/memory_summarise_induction.py"


MEMORY_PLOT_INPUTS = {
    "capacity_curves": [rules.memory_capacity_fit.output.curves, rules.memory_capacity_fit.output.capacity],
    "capacity_fit": [rules.memory_capacity_fit.output.capacity, rules.memory_capacity_fit.output.fits],
    "gradient_step": [rules.memory_capacity_fit.output.capacity],
    "variance": rules.memory_variance.output,
    "width": [rules.memory_capacity_fit.output.width, rules.memory_capacity_fit.output.fits],
    "zipf_n": rules.memory_zipf_fit.output,
    "zipf_d": rules.memory_zipf_fit.output,
    "zipf_optimum": rules.memory_zipf_fit.output,
    "induction": rules.memory_summarise_induction.output,
}


rule memory_plot:
    """One figure of the study, from its Parquet tables only."""
    input:
        tables=lambda wildcards: MEMORY_PLOT_INPUTS[wildcards.figure],
        code=code("memory/memory_plot.py"),
    output:
        report("figures/memory/{figure}.pdf", caption="../../report/memory/figure.rst", category="Memory"),
    wildcard_constraints:
        figure="|".join(MEMORY_FIGURES),
    log:
        "logs/memory/plot_{figure}.log",
    benchmark:
        "benchmarks/memory_plot/{figure}.tsv"
    resources:
        **job_resources("memory/memory_plot.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/memory/memory_plot.py"


rule memory_claims:
    """The slides' claims ledger: every configured claim, our value, pass or fail."""
    input:
        capacity=rules.memory_capacity_fit.output.capacity,
        capacity_fit=rules.memory_capacity_fit.output.fits,
        variance=rules.memory_variance.output[0],
        zipf_fit=rules.memory_zipf_fit.output.fits,
        zipf=rules.memory_zipf_fit.output.errors,
        induction=rules.memory_summarise_induction.output.curves,
        induction_order=rules.memory_summarise_induction.output.order,
        code=code("memory/memory_claims.py"),
    output:
        table="figures/memory/claims.parquet",
        text=report("figures/memory/claims.md", caption="../../report/memory/claims.rst", category="Memory"),
    params:
        claims=canonical(MEMORY["claims"]),
        config_sources=CONFIG_SOURCES,
    log:
        "logs/memory/claims.log",
    benchmark:
        "benchmarks/memory_claims.tsv"
    resources:
        **job_resources("memory/memory_claims.py"),
    conda:
        "../../envs/icdenoise.yaml"
    script:
        "../../scripts/memory/memory_claims.py"


rule memory:
    """Target: every figure of the memory study, its capacity and Zipf fits and its claims ledger."""
    input:
        expand("figures/memory/{figure}.pdf", figure=MEMORY_FIGURES),
        rules.memory_claims.output,
