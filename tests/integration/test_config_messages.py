"""What a user sees of a bad config: the real `snakemake -n` on a temporary copy of the workflow prints the
problems alone, each under the config file that sets its key, with the nearest allowed name, and no traceback."""

import pytest
from runner import copy_workflow, snakemake

pytestmark = pytest.mark.integration


def test_a_bad_config_shows_its_problems_under_their_file_with_suggestions_and_no_traceback(repo, tmp_path):
    workdir = copy_workflow(repo, tmp_path / "workflow")
    (workdir / "bad.yaml").write_text("training: {epocks: 3}\ncases:\n  linear: {task: lineer}\n")
    result = snakemake(workdir, "-n", configfile=["config/smoke.yaml", "bad.yaml"], timeout=120)
    output = result.stdout + result.stderr  # a dry run logs to stdout, a run to stderr
    assert result.returncode == 1, output[-3000:]
    assert "invalid configuration (" in output
    first_file = output.index("  in bad.yaml:\n")
    assert first_file < output.index("'epocks' was unexpected); did you mean epochs? (allowed keys: batch_size, epochs")
    assert first_file < output.index("cases.linear.task: 'lineer' is not an allowed value; did you mean linear?")
    assert "Traceback" not in output and 'File "' not in output and "ConfigError" not in output, output[-3000:]
