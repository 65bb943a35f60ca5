# The onelayer study's config block and input functions.

ONELAYER = config["onelayer"]


def onelayer_case_block(figure):
    """The full config block of the case a figure block names (L included)."""
    return canonical(config["cases"][ONELAYER[figure]["case"]])


def onelayer_architectures(models):
    return {model: config["models"][model]["architecture"] for model in models}


def get_training_summary_inputs(wildcards):
    cases, models = ONELAYER["fig3"]["cases"], ONELAYER["fig3"]["models"]
    return {
        "losses": training_paths("losses", cases, models),
        "weights": training_paths("weights", cases, models),
        "bayes": [bayes_path(case) for case in cases],
    }


def get_context_sweep_inputs(wildcards):
    fig4a = ONELAYER["fig4a"]
    lengths = fig4a["context_lengths"]
    return {
        "datasets": [dataset_path(fig4a["case"], L) for L in lengths],
        "losses": [training_path(fig4a["case"], fig4a["model"], "losses", L) for L in lengths],
        "weights": [training_path(fig4a["case"], fig4a["model"], "weights", L) for L in lengths],
        "bayes": [bayes_path(fig4a["case"], L) for L in lengths],
    }


def get_example_prompt_inputs(wildcards):
    panels = ONELAYER["fig1"]["cases"]
    return {
        "datasets": [dataset_path(case) for case in panels],
        "weights": [training_path(case, model, "weights") for case, model in panels.items()],
        "losses": [training_path(case, model, "losses") for case, model in panels.items()],
    }
