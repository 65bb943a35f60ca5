# The shared stage that draws prompts: one fixed dataset per case and context length.


def highest_compute_priority():
    """The highest priority of the planned trainings and closed-form evaluations."""
    training, evaluation = longest_first("train_ensemble"), longest_first("evaluate_bayes")
    priorities = [training({"case": run.case, "model": run.model, "L": run.L}) for run in RUNS]
    priorities += [evaluation({"case": run.case, "L": run.L}) for run in RUNS]
    return max(priorities, default=0)


job_rule(
    "sample_prompts",
    "One fixed dataset per case and context length: the task's clean tokens, corrupted by the case's "
    "corruption; shared by every seed and model (PROTOCOL: Conventions).",
    "../scripts/sample_prompts.py",
    "<results>/datasets/{case}/L{L}.parquet",
    input=dict(task_code=user_task_files),
    params=dict(case=get_case_params, dataset=get_dataset_params),
    # above every training's and evaluation's: a dataset takes about a second, and trainings wait for it
    priority=1 + highest_compute_priority(),
    cache=True,
)
