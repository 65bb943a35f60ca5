"""Which job rate limits a local run drops: Snakemake's default alone (icdenoise.pipeline.scheduling)."""

from snakemake.cli import get_argument_parser
from snakemake.settings.types import MaxJobsPerTimespan

from icdenoise.pipeline.scheduling import is_default_limit


def test_only_snakemakes_default_limit_is_the_default():
    assert is_default_limit(get_argument_parser().parse_args([]).max_jobs_per_timespan)  # what `snakemake` gives
    assert is_default_limit(MaxJobsPerTimespan.parse_choice("100/1s"))
    assert not is_default_limit(MaxJobsPerTimespan.parse_choice("100/2s"))
    assert not is_default_limit(MaxJobsPerTimespan.parse_choice("50/1s"))
    assert not is_default_limit(None)
