# Config validation (before any job is scheduled), output paths and the input/param functions.

from pathlib import Path

from icdenoise.config import load_yaml, validate_config

validate_config(config, load_yaml(Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml"))

CASES = list(config["cases"])
MODELS = config["training"]["models"]


wildcard_constraints:
    case="|".join(CASES),
    model="|".join(MODELS),
    L=r"\d+",


def canonical(block):
    """The block with keys sorted, so that reordering keys in a YAML file re-runs nothing
    (Snakemake compares params by their text)."""
    if isinstance(block, dict):
        return {key: canonical(block[key]) for key in sorted(block)}
    return block


def context_length(case):
    return config["cases"][case]["L"]


def dataset_path(case, L=None):
    """The fixed dataset of a case at context length L (default: the case's own L)."""
    return f"results/datasets/{case}/L{L or context_length(case)}.parquet"


def bayes_path(case, L=None):
    return f"results/bayes/{case}/L{L or context_length(case)}.parquet"


def training_path(case, model, kind, L=None):
    """kind: losses or weights. Figures 3, 4(a), 4(b), 6 and 7 share these runs."""
    return f"results/train/{case}/L{L or context_length(case)}/{model}/{kind}.parquet"


def training_paths(kind, cases, models):
    return [training_path(case, model, kind) for case in cases for model in models]


def get_task_params(wildcards):
    """This case's block without L (L is the wildcard), so that editing another case, or this
    case's L, re-runs nothing that does not depend on it."""
    return canonical({key: value for key, value in config["cases"][wildcards.case].items() if key != "L"})


def get_training_params(wildcards):
    """The training block with this case's number of epochs in place of the per-case map."""
    training = {key: value for key, value in config["training"].items() if key not in ("epochs", "models")}
    return canonical({**training, "epochs": config["training"]["epochs"][wildcards.case]})


def get_training_priority(wildcards):
    """Start the costliest training jobs first: cost ∝ epochs × (L for softmax, n for linear,
    whose features are the n×n context second moment). Only the order of priorities matters."""
    width = int(wildcards.L) if wildcards.model == "softmax" else config["cases"][wildcards.case]["n"]
    return 10 + config["training"]["epochs"][wildcards.case] * width


def get_training_gpus(wildcards):
    return 1 if config["training"]["device"] == "cuda" else 0


def get_fig3_inputs(wildcards):
    cases, models = config["fig3"]["cases"], config["fig3"]["models"]
    return {
        "losses": training_paths("losses", cases, models),
        "weights": training_paths("weights", cases, models),
        "bayes": [bayes_path(case) for case in cases],
    }


def get_fig4a_inputs(wildcards):
    fig4a = config["fig4a"]
    lengths = fig4a["context_lengths"]
    return {
        "datasets": [dataset_path(fig4a["case"], L) for L in lengths],
        "losses": [training_path(fig4a["case"], fig4a["model"], "losses", L) for L in lengths],
        "weights": [training_path(fig4a["case"], fig4a["model"], "weights", L) for L in lengths],
        "bayes": [bayes_path(fig4a["case"], L) for L in lengths],
    }


def get_fig1_inputs(wildcards):
    panels = config["fig1"]["cases"]
    return {
        "datasets": [dataset_path(case) for case in panels],
        "weights": [training_path(case, model, "weights") for case, model in panels.items()],
        "losses": [training_path(case, model, "losses") for case, model in panels.items()],
    }


def get_fig8_inputs(wildcards):
    fig8 = config["fig8"]
    return {"weights": [training_path(fig8["case"], model, "weights") for model in fig8["models"]]}
