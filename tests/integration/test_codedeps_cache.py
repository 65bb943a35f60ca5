"""The import cache on disk, in fresh processes: the next process parses nothing it has read before, and
a file edited since is read again."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration

DEPENDENCIES_IN_A_FRESH_PROCESS = """
import ast, sys
from icdenoise.pipeline import codedeps
if sys.argv[3] == "without-parser":
    ast.parse = None  # any file read again from source fails
codedeps.use_disk_cache(sys.argv[2])
print(sorted(path.split("src/icdenoise/")[1] for path in codedeps.code_dependencies(sys.argv[1])))
"""


def test_the_import_cache_on_disk_spares_the_next_process_parsing_and_notices_an_edit(tmp_path):
    script, cache = tmp_path / "rule_script.py", tmp_path / "cache" / "imports.json"
    script.write_text("from icdenoise.maths import seeding\n")

    def dependencies(parser: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", DEPENDENCIES_IN_A_FRESH_PROCESS, str(script), str(cache), parser],
                              capture_output=True, text=True)

    first = dependencies("with-parser")
    assert first.returncode == 0 and "maths/seeding.py" in first.stdout and cache.is_file(), first.stderr
    assert dependencies("without-parser").stdout == first.stdout  # everything came from the cache
    script.write_text("from icdenoise.maths import seeding, tasks\n")  # an edit: another size, so another version
    assert dependencies("without-parser").returncode != 0
    assert "maths/tasks.py" in dependencies("with-parser").stdout
