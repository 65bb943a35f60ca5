"""The Snakemake conventions users rely on, checked with the real tools: `snakemake --lint` and
`snakefmt --check` find nothing, a plain `snakemake` call loads the default profile, and every target
of a command the docs quote is a rule or an output the workflow plans."""

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from runner import SNAKEMAKE, copy_workflow, planned_jobs, smoke_target, snakemake

pytestmark = pytest.mark.integration

SNAKEFMT = str(Path(sys.executable).parent / "snakefmt")


def test_lint_is_clean(repo):
    result = subprocess.run([SNAKEMAKE, "--lint"], cwd=repo, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Lints for" not in result.stdout + result.stderr


def test_snakefmt_finds_nothing_to_change(repo):
    """The Snakefile, the shared rules and every study's rules.smk, at pyproject.toml's [tool.snakefmt] settings."""
    result = subprocess.run([SNAKEFMT, "--check", "."], cwd=repo, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr + result.stdout
    assert re.search(r"All \d+ file\(s\) would be left unchanged", result.stderr + result.stdout)


def test_a_plain_snakemake_call_loads_the_default_profile(repo, tmp_path):
    """profiles/default is where Snakemake looks beside a top-level Snakefile: its `show-failed-logs`
    prints a failed job's log, with no option given. The job fails because a `torch` that cannot be
    imported comes first on the path (Snakemake's own process never imports torch)."""
    workdir = copy_workflow(repo, tmp_path / "workflow")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "torch.py").write_text("raise ImportError('torch is blocked for this test')\n")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path / "broken"), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([SNAKEMAKE, smoke_target("results/train/gmm/L20/softmax/losses.parquet"), "--cores", "1",
                             "--configfile", "config/smoke.yaml"], cwd=workdir, capture_output=True, text=True, timeout=600,
                            env=environment)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "Using workflow specific profile profiles/default" in output
    assert "Error in rule train_ensemble" in output and "torch is blocked for this test" in output
    assert f"Logfile {smoke_target('logs/train_ensemble/case=gmm,L=20,model=softmax.log')}" in output  # show-failed-logs


def quoted_commands(repo: Path) -> list[tuple[str, str]]:
    """(doc, command) for every `snakemake …` command the README and docs quote, in code or backticks."""
    found = []
    for path in [repo / "README.md", *sorted((repo / "docs").glob("*.md"))]:
        for line in path.read_text().splitlines():
            for command in re.findall(r"(?:^|`|\$ |\s)((?:\.venv(?:-slurm)?/bin/)?snakemake [^`#\n]*)", line):
                found.append((path.name, command.strip()))
    return found


TAKES_A_VALUE = {"--cores", "-j", "--jobs", "--profile", "--report", "--set-resources", "--resources", "--executor",
                 "--summary", "-s", "--snakefile"}


def targets_of(command: str) -> list[str]:
    """The targets of a snakemake command: its words that are not options or their values; --configfile,
    which takes every word after it, ends them."""
    words, targets, index = command.replace("\\", " ").split()[1:], [], 0
    while index < len(words):
        word = words[index]
        if word == "--configfile":
            break
        if word in TAKES_A_VALUE:
            index += 2
            continue
        if not word.startswith("-") and "=" not in word and "<" not in word and word not in ("...", "…"):
            targets.append(word)
        index += 1
    return targets


def configfiles_of(command: str) -> list[str]:
    """The files a snakemake command's --configfile names (the words after it, up to the next option)."""
    words = command.replace("\\", " ").split()
    if "--configfile" not in words:
        return []
    files = []
    for word in words[words.index("--configfile") + 1:]:
        if word.startswith("-"):
            break
        files.append(word)
    return files


def in_parallel(call, configs: list[tuple[str, ...]], repo: Path, folder: Path) -> dict[tuple[str, ...], set[str]]:
    """configfiles → call(workdir, configfiles, environment), each config in a copy of the workflow of its own under
    `folder`, side by side, as many at a time as the machine has cores: only parsing and planning, so no warm start
    (ICDENOISE_WARMSTART=0) imports the jobs' libraries beside them."""
    environment = {**os.environ, "ICDENOISE_WARMSTART": "0"}
    folder.mkdir()

    def one(numbered: tuple[int, tuple[str, ...]]) -> set[str]:
        number, configfiles = numbered
        return call(copy_workflow(repo, folder / f"workflow{number}"), configfiles, environment)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(zip(configs, pool.map(one, enumerate(configs))))


def listed_rules(workdir: Path, configfiles: tuple[str, ...], environment: dict) -> set[str]:
    """The rules the workflow defines with these config files: the first word of each line of `snakemake
    --list-rules` (a rule's name, then its docstring in parentheses)."""
    listed = subprocess.run([SNAKEMAKE, "--list-rules", "--configfile", *configfiles], cwd=workdir, capture_output=True,
                            text=True, timeout=300, env=environment)
    assert listed.returncode == 0, listed.stderr[-3000:]
    return {line.split()[0] for line in listed.stdout.splitlines() if line.strip()}


def planned_outputs_of_all(workdir: Path, configfiles: tuple[str, ...], environment: dict) -> set[str]:
    """The outputs of the plan of `all` with these config files (`snakemake -n all`)."""
    planned = snakemake(workdir, "-n", "all", configfile=list(configfiles), env=environment)
    assert planned.returncode == 0, planned.stderr[-3000:]
    return {path for _, paths in planned_jobs(planned) for path in paths}


def test_every_target_the_docs_quote_is_a_rule_or_a_planned_output(repo, tmp_path):
    """Against the rules (`--list-rules`) and, for the configs where a quoted target is no rule, the plan of `all`,
    with the command's own config files where the repository has them (a smoke target is under runs/smoke/), else
    with the paper config; a doc's own example config (not in the repository) may add the sweeps its YAML declares,
    sweep_<name>."""
    commands = quoted_commands(repo)
    assert len(commands) > 10
    checked = []
    for doc, command in commands:
        configfiles = tuple(configfiles_of(command))
        in_repo = bool(configfiles) and all((repo / path).is_file() for path in configfiles)
        text = (repo / ("README.md" if doc == "README.md" else f"docs/{doc}")).read_text()
        for target in targets_of(command):
            if not in_repo and target.startswith("sweep_") and re.search(rf"^\s*{target[6:]}:", text, flags=re.M):
                continue  # declared by the doc's own example config
            checked.append((doc, command, configfiles if in_repo else ("config/config.yaml",), target))
    rules = in_parallel(listed_rules, sorted({configfiles for _, _, configfiles, _ in checked}), repo, tmp_path / "rules")
    unplanned = sorted({configfiles for _, _, configfiles, target in checked if target not in rules[configfiles]})
    outputs = in_parallel(planned_outputs_of_all, unplanned, repo, tmp_path / "plans")
    assert unplanned, "no quoted target is an output: the plan of `all` is never consulted"
    for doc, command, configfiles, target in checked:
        valid = rules[configfiles] | outputs.get(configfiles, set())
        assert target in valid, f"{doc}: `{command}` names {target}, no rule or output of the workflow"
