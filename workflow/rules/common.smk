# Config validation (before any job is scheduled) and the input/param functions of the rules.

from pathlib import Path

from icdenoise.config import load_yaml, validate_config

validate_config(config, load_yaml(Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml"))

CASES = list(config["cases"])
MODELS = config["training"]["models"]


wildcard_constraints:
    case="|".join(CASES),
    model="|".join(MODELS),


def canonical(block):
    """The block with keys sorted, so that reordering keys in a YAML file re-runs nothing
    (Snakemake compares params by their text)."""
    return {key: canonical(block[key]) if isinstance(block[key], dict) else block[key] for key in sorted(block)}


def get_task_params(wildcards):
    """Only this case's block, so that editing another case does not re-run this case's jobs."""
    return canonical(config["cases"][wildcards.case])


def get_training_params(wildcards):
    """The training block with this case's number of epochs in place of the per-case map."""
    training = {key: value for key, value in config["training"].items() if key not in ("epochs", "models")}
    return canonical({**training, "epochs": config["training"]["epochs"][wildcards.case]})


def get_training_priority(wildcards):
    """Start the costliest training jobs first: cost ∝ epochs × (L for softmax, n for linear,
    whose features are the n×n context second moment). Only the order of priorities matters."""
    case = config["cases"][wildcards.case]
    width = case["L"] if wildcards.model == "softmax" else case["n"]
    return 10 + config["training"]["epochs"][wildcards.case] * width


def get_training_gpus(wildcards):
    return 1 if config["training"]["device"] == "cuda" else 0


def get_fig3_inputs(wildcards):
    cases, models = config["fig3"]["cases"], config["fig3"]["models"]
    return {
        "losses": expand(rules.train_ensemble.output.losses, case=cases, model=models),
        "weights": expand(rules.train_ensemble.output.weights, case=cases, model=models),
        "bayes": expand(rules.evaluate_bayes.output[0], case=cases),
    }
