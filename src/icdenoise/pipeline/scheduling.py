"""Snakemake's job rate limit, off for a local run that keeps Snakemake's default.

Snakemake 9.27 limits how many jobs start per timespan (`--max-jobs-per-timespan`, default 100 per second). With
the limit on, every scheduling round asks for another round one timespan later, and that round asks for another:
each round that a finished job starts begins a chain that wakes the scheduler once a second until the run ends, so
a run of a few hundred jobs makes thousands of rounds, each of which checks the inputs of every job ready
to run (docs/journal/2026-11-test-suite.md counts them). Without the limit there is one round at the start and one
per finished job.

A local run starts at most as many jobs as it has cores, so the default limit never holds one back there: it is
removed (`drop_default_rate_limit`). A limit given on the command line or in a profile stays, and so does the
limit of a run through a cluster's executor, where it paces the submissions.
"""

from __future__ import annotations

DEFAULT_LIMIT = (100, 1)  # Snakemake's --max-jobs-per-timespan default, 100/1s: (jobs, seconds)


def is_default_limit(limit) -> bool:
    """Whether a `snakemake.settings.types.MaxJobsPerTimespan` is Snakemake's default, 100 jobs per second."""
    return limit is not None and (limit.max_jobs, limit.timespan) == DEFAULT_LIMIT


def drop_default_rate_limit(workflow) -> None:
    """Take the job rate limit off the scheduler of a local run that keeps Snakemake's default limit. Call it from
    `onstart`, where the scheduler exists and has not yet chosen a job."""
    if workflow.local_exec and is_default_limit(workflow.scheduling_settings.max_jobs_per_timespan):
        workflow.scheduler.job_rate_limiter = None
