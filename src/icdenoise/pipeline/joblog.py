"""Logging for pipeline jobs: progress goes to the job's log file and to stderr; where a job's log and
benchmark live (`job_files`, one scheme for every rule)."""

from __future__ import annotations

import logging
import os
import signal
import sys
from pathlib import PurePath

from icdenoise.pipeline.warmstart import where_this_job_runs

RUNS_IN = "runs "  # the first line of every job's log: "runs in its own process (pid …)" or "runs in a warm-start copy …"


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"stopped by signal {signal.Signals(signum).name}")


def _log_uncaught(kind, error, trace) -> None:
    """`sys.excepthook` of a job: the exception that ends it, with its traceback, as a last message of the
    job's log (and so of stderr, where the interpreter would have printed it), after its progress lines.
    Snakemake's `show-failed-logs` then prints why the job failed."""
    try:
        ending = "stopped" if issubclass(kind, KeyboardInterrupt) else "failed"
        logging.getLogger("icdenoise").error("the job %s: %s", ending, kind.__name__, exc_info=(kind, error, trace))
    except Exception:  # a log that cannot be written: the interpreter's own report, on stderr
        sys.__excepthook__(kind, error, trace)


def configure_job_logging(log_path: str, job: str) -> logging.Logger:
    """Send INFO messages of the package to `log_path` and stderr, prefixed with `job`; the first line
    says where the job runs (`RUNS_IN`).

    An exception that ends the job is logged with its traceback (`_log_uncaught`), in the log file
    as on stderr: in its own process the interpreter calls `sys.excepthook`, and so does a warm-start
    copy (icdenoise.pipeline.warmstart).

    Also turns SIGTERM (scancel, a scheduler's time limit, Snakemake cancelling its jobs) into
    KeyboardInterrupt, as Ctrl-C is: a write cut off this way removes its temporary file
    (icdenoise.records.artifacts) instead of leaving it behind."""
    signal.signal(signal.SIGTERM, _interrupt)
    sys.excepthook = _log_uncaught
    formatter = logging.Formatter(f"%(asctime)s [{job}] %(message)s", datefmt="%H:%M:%S")
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    for handler in (logging.FileHandler(log_path, mode="w"), logging.StreamHandler(sys.stderr)):
        handler.setFormatter(formatter)
        root.addHandler(handler)
    log = logging.getLogger(f"icdenoise.{job.split()[0]}")
    log.info("%s%s (pid %d)", RUNS_IN, where_this_job_runs(), os.getpid())
    return log


def start_job(snakemake) -> logging.Logger:
    """A job's logger (`configure_job_logging`), named after its rule and wildcards."""
    wildcards = " ".join(f"{key}={value}" for key, value in snakemake.wildcards.items())
    return configure_job_logging(snakemake.log[0], f"{snakemake.rule} {wildcards}".strip())


def job_files(rule: str, wildcards: list[str]) -> tuple[str, str]:
    """The log and benchmark of a rule's jobs: <logs>/<rule>.log and <benchmarks>/<rule>.tsv, or, for a rule
    with wildcards, <logs>/<rule>/<wildcard>={<wildcard>},….log (and .tsv) in the order given (Snakemake
    patterns; <logs> and <benchmarks> are the run's folders, icdenoise.pipeline.named_runs)."""
    stem = rule if not wildcards else f"{rule}/" + ",".join(f"{name}={{{name}}}" for name in wildcards)
    return f"<logs>/{stem}.log", f"<benchmarks>/{stem}.tsv"


def job_of(path: str | PurePath) -> tuple[str, dict[str, str]]:
    """The rule and wildcards of a job's log or benchmark, from its path relative to logs/ or benchmarks/."""
    relative = PurePath(path).with_suffix("")
    if len(relative.parts) == 1:
        return relative.name, {}
    return relative.parts[0], dict(item.split("=", 1) for item in relative.name.split(","))
