"""Logging for pipeline jobs: progress goes to the job's log file and to stderr."""

from __future__ import annotations

import logging
import signal
import sys


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"stopped by signal {signal.Signals(signum).name}")


def configure_job_logging(log_path: str, job: str) -> logging.Logger:
    """Send INFO messages of the package to `log_path` and stderr, prefixed with `job`.

    Also turns SIGTERM (scancel, a scheduler's time limit, Snakemake cancelling its jobs) into
    KeyboardInterrupt, as Ctrl-C is: a write cut off this way removes its temporary file
    (icdenoise.artifacts) instead of leaving it behind."""
    signal.signal(signal.SIGTERM, _interrupt)
    formatter = logging.Formatter(f"%(asctime)s [{job}] %(message)s", datefmt="%H:%M:%S")
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    for handler in (logging.FileHandler(log_path, mode="w"), logging.StreamHandler(sys.stderr)):
        handler.setFormatter(formatter)
        root.addHandler(handler)
    return logging.getLogger(f"icdenoise.{job}")
