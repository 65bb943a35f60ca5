"""The warm start: a job script handed over to a server that has already imported its modules runs
there exactly as in its own process (directory, environment, streams, exit status), and runs in its
own process whenever the server could not run it exactly; no copy starts before every module of the
run is imported, and the server accounts for every copy before it exits. Real processes throughout."""

import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from runner import copy_workflow, planned_jobs, smoke_target, snakemake

from icdenoise.pipeline import warmstart

pytestmark = pytest.mark.integration

SCRIPT = '''
import json, os, sys, time
from icdenoise.pipeline.warmstart import hand_over
hand_over()
import warm_marker
checked = os.environ.get("CHECK_MODULE")
print(json.dumps({"pid": os.getpid(), "parent": os.getppid(), "marker_imported_by": warm_marker.IMPORTED_BY,
                  "checked_module_loaded": checked in sys.modules if checked else None,
                  "cwd": os.getcwd(), "variable": os.environ.get("JOB_VARIABLE"), "argv": sys.argv,
                  "socket": os.environ.get("ICDENOISE_WARMSTART_SOCKET"), "stdin": sys.stdin.read()}))
if os.environ.get("RAISE"):
    raise ValueError("boom")
if os.environ.get("PID_FILE"):
    open(os.environ["PID_FILE"], "w").write(str(os.getpid()))
    time.sleep(60)
sys.exit(int(os.environ.get("EXIT_CODE", "0")))
'''


def importable_modules(tmp_path, monkeypatch, **sources: str) -> None:
    """Modules named and written from `sources`, importable by the servers and jobs started from now on."""
    modules = tmp_path / "modules"
    modules.mkdir(exist_ok=True)
    for name, source in sources.items():
        (modules / f"{name}.py").write_text(source)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(modules), os.environ.get("PYTHONPATH")])))
    monkeypatch.delenv(warmstart.SOCKET_VARIABLE, raising=False)


@pytest.fixture
def server(tmp_path, monkeypatch):
    """A server that has imported `warm_marker` (a module that records the process importing it)."""
    importable_modules(tmp_path, monkeypatch, warm_marker="import os\nIMPORTED_BY = os.getpid()\n")
    log = tmp_path / "warmstart.log"
    running = warmstart.start_server([["warm_marker"]], log)
    running.complete([])
    assert running.announce()
    deadline = time.time() + 60
    while "imported warm_marker" not in log.read_text():
        assert running.process.poll() is None and time.time() < deadline, log.read_text()
        time.sleep(0.05)
    yield running
    running.stop()


def run_job(tmp_path, **variables) -> subprocess.Popen:
    """The script as Snakemake starts a one-thread job: its own interpreter, Snakemake's thread variables.
    The script and its input are written once: a job started earlier may be reading them."""
    script, work, stdin = tmp_path / "job.py", tmp_path / "work", tmp_path / "stdin.txt"
    if not script.exists():
        script.write_text(SCRIPT)
        work.mkdir()
        stdin.write_text("from the job's standard input")
    environment = {**os.environ, **{name: "1" for name in warmstart.THREAD_VARIABLES}, "JOB_VARIABLE": "job", **variables}
    return subprocess.Popen([sys.executable, str(script)], cwd=work, env=environment, stdin=open(stdin),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finished(process: subprocess.Popen) -> tuple[int, dict, str]:
    out, err = process.communicate(timeout=120)
    return process.returncode, (json.loads(out) if out else {}), err


def test_a_handed_over_job_runs_in_a_copy_of_the_server_with_its_own_directory_environment_streams_and_status(tmp_path, server):
    code, seen, err = finished(run_job(tmp_path, EXIT_CODE="3"))
    assert code == 3, err
    assert seen["parent"] == server.process.pid and seen["marker_imported_by"] == server.process.pid  # already imported
    assert seen["cwd"] == str(tmp_path / "work") and seen["variable"] == "job"
    assert seen["argv"] == [str(tmp_path / "job.py")] and seen["stdin"] == "from the job's standard input"
    assert seen["socket"] is None  # the copy's subprocesses never hand over again
    assert f"job.py: runs in copy {seen['pid']}" in (tmp_path / "warmstart.log").read_text()


def test_a_job_with_other_thread_variables_runs_in_its_own_process(tmp_path, server):
    code, seen, err = finished(run_job(tmp_path, OMP_NUM_THREADS="2"))
    assert code == 0, err
    assert seen["parent"] == os.getpid() and seen["marker_imported_by"] == seen["pid"]
    assert "job.py: runs in its own process (other thread variables)" in (tmp_path / "warmstart.log").read_text()


def test_an_exception_in_a_handed_over_job_fails_it_with_its_traceback(tmp_path, server):
    """The copy reports it through `sys.excepthook` as the job's own process does, with the same traceback
    (from the script's frame, without the copy's own)."""
    code, seen, err = finished(run_job(tmp_path, RAISE="1"))
    assert code == 1 and seen["parent"] == server.process.pid
    assert "ValueError: boom" in err
    fresh_code, fresh_seen, fresh_err = finished(run_job(tmp_path, RAISE="1", **{warmstart.SOCKET_VARIABLE: ""}))
    assert fresh_seen["parent"] != server.process.pid
    assert (code, err) == (fresh_code, fresh_err)


def test_killing_the_job_process_stops_its_copy(tmp_path, server):
    pid_file = tmp_path / "copy.pid"
    job = run_job(tmp_path, PID_FILE=str(pid_file))
    deadline = time.time() + 60
    while not (pid_file.is_file() and pid_file.read_text()):
        assert time.time() < deadline and job.poll() is None
        time.sleep(0.05)
    copy = int(pid_file.read_text())
    assert copy != job.pid
    job.kill()
    job.wait()
    deadline = time.time() + 10
    while Path(f"/proc/{copy}").exists():
        assert time.time() < deadline, "the copy outlived its job process"
        time.sleep(0.05)


def test_after_the_server_stops_jobs_run_in_their_own_processes(tmp_path, server):
    server.stop()
    assert server.process.returncode == 0 and not server.directory.exists()
    server.complete([["json"]])  # onstart after a server has ended: no error here, announce reports it
    assert not server.announce(timeout=1)
    code, seen, err = finished(run_job(tmp_path))
    assert code == 0 and seen["parent"] == os.getpid(), err


def test_the_server_ends_with_the_process_that_started_it(tmp_path, server):
    server.process.stdin.close()  # what the Snakemake process's exit does
    assert server.process.wait(timeout=10) == 0
    assert not server.socket_path.exists()


def test_a_job_that_connects_before_the_runs_modules_are_imported_waits_for_all_of_them(tmp_path, monkeypatch):
    """Every copy starts with the same modules whenever its job comes: the job here connects while the
    server is still importing, and finds both groups imported."""
    importable_modules(tmp_path, monkeypatch, warm_marker="import os, time\ntime.sleep(1)\nIMPORTED_BY = os.getpid()\n",
                       late_marker="import time\ntime.sleep(1)\n")
    server = warmstart.start_server([["warm_marker"]], tmp_path / "warmstart.log")
    assert server.announce()
    try:
        job = run_job(tmp_path, CHECK_MODULE="late_marker")  # starts at once: the server is still importing
        server.complete([["late_marker"]])
        code, seen, err = finished(job)
        assert code == 0 and seen["parent"] == seen["marker_imported_by"] == server.process.pid, err
        assert seen["checked_module_loaded"] is True
    finally:
        server.stop()


def test_the_server_logs_every_copy_before_it_exits_even_those_still_ending(tmp_path, server):
    """What a run's end does: the last jobs have their exit status, their copies may still be ending (the
    server looks for ended copies only 5 times a second while it serves), and Snakemake's exit closes the
    server's input at once. The log must still say how each copy ended."""
    jobs = [run_job(tmp_path) for _ in range(6)]
    results = [finished(job) for job in jobs]
    assert all(code == 0 for code, _, _ in results), [err for _, _, err in results]
    server.stop()
    log = server.log_path.read_text()
    for _, seen, _ in results:
        assert f"copy {seen['pid']} ended with status 0 " in log, log


def test_a_server_not_listening_in_time_is_stopped_and_never_announced(tmp_path, monkeypatch):
    monkeypatch.delenv(warmstart.SOCKET_VARIABLE, raising=False)
    directories = set(Path(tempfile.gettempdir()).glob("icdenoise-warmstart-*"))
    assert not warmstart.start_server([["json"]], tmp_path / "warmstart.log").announce(timeout=0)
    assert warmstart.SOCKET_VARIABLE not in os.environ
    assert set(Path(tempfile.gettempdir()).glob("icdenoise-warmstart-*")) <= directories  # its directory is removed


def test_every_rule_script_hands_over_before_its_other_imports(repo):
    scripts = [*(repo / "workflow" / "scripts").glob("*.py"), *(repo / "src" / "icdenoise" / "studies").glob("*/workflow/scripts/*.py")]
    assert len(scripts) > 30
    for script in scripts:
        body = ast.parse(script.read_text()).body
        assert ast.unparse(body[1]) == "from icdenoise.pipeline.warmstart import hand_over" and ast.unparse(body[2]) == "hand_over()", script


def test_the_runs_modules_sent_at_its_start_are_imported_once_and_jobs_find_them(tmp_path, monkeypatch):
    importable_modules(tmp_path, monkeypatch, warm_marker="import os\nIMPORTED_BY = os.getpid()\n",
                       late_marker="import os\nIMPORTED_BY = os.getpid()\n")
    server = warmstart.start_server([["warm_marker"]], tmp_path / "warmstart.log")
    server.complete([["warm_marker", "late_marker"]])
    assert server.announce()
    try:
        job = tmp_path / "late.py"
        job.write_text("from icdenoise.pipeline.warmstart import hand_over\nhand_over()\nimport os, late_marker\nprint(late_marker.IMPORTED_BY)\n")
        environment = {**os.environ, **{name: "1" for name in warmstart.THREAD_VARIABLES}}
        result = subprocess.run([sys.executable, str(job)], env=environment, capture_output=True, text=True, timeout=60)
        assert result.stdout.strip() == str(server.process.pid), result.stderr
    finally:
        server.stop()
    assert server.log_path.read_text().count("imported warm_marker") == 1  # an imported module is not imported again


def test_a_server_still_importing_stops_at_once(tmp_path, monkeypatch):
    """What the exit of a call that runs no job does (a report, `--touch`): its server may be in the middle of
    importing torch."""
    importable_modules(tmp_path, monkeypatch, slow_marker="import time\ntime.sleep(60)\n")
    server = warmstart.start_server([["slow_marker"]], tmp_path / "warmstart.log")
    assert server.announce()
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 5 and server.process.returncode == 0 and not server.directory.exists()


def test_a_dry_run_starts_no_server_and_a_run_does(repo, tmp_path):
    """A dry run parses the workflow as a run does, but runs no job: it imports nothing for jobs (a server's log is
    begun as it starts)."""
    workdir = copy_workflow(repo, tmp_path / "workflow")
    log = workdir / ".snakemake" / "icdenoise" / "warmstart.log"
    plan = snakemake(workdir, "-n", smoke_target("results/datasets/linear/L10.parquet"))
    assert plan.returncode == 0, plan.stderr[-3000:]
    assert planned_jobs(plan) and (workdir / ".snakemake").is_dir() and not log.exists()
    built = snakemake(workdir, smoke_target("results/datasets/linear/L10.parquet"))
    assert built.returncode == 0, built.stderr[-3000:]
    assert "imported" in log.read_text()


def test_the_switch_turns_the_warm_start_off():
    assert not warmstart.enabled({warmstart.SWITCH_VARIABLE: "0"})
    assert warmstart.enabled({}) == sys.platform.startswith("linux")


def test_lines_logged_at_once_by_the_server_and_its_copies_stay_whole(tmp_path):
    """The server and its forked copies share one log: each line is one write, so lines never interleave
    (with `print`, a copy's line once landed between another line's timestamp and its text)."""
    writers, lines = 4, 300
    program = (
        "import os\n"
        "from icdenoise.pipeline.warmstart import _log\n"
        "children = []\n"
        f"for writer in range({writers}):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        f"        for line in range({lines}):\n"
        "            _log(f'writer {writer} line {line}: runs in copy {os.getpid()}')\n"
        "        os._exit(0)\n"
        "    children.append(pid)\n"
        f"for line in range({lines}):\n"
        "    _log(f'server line {line}: copy 1 ended with status 0')\n"
        "for pid in children:\n"
        "    os.waitpid(pid, 0)\n"
    )
    log = tmp_path / "server.log"
    log.write_text("")
    with open(log, "a") as handle:
        subprocess.run([sys.executable, "-c", program], stderr=handle, check=True, timeout=120)
    written = log.read_text().splitlines()
    assert len(written) == (writers + 1) * lines
    pattern = r"\d\d:\d\d:\d\d (writer \d+ line \d+: runs in copy \d+|server line \d+: copy 1 ended with status 0)"
    assert [line for line in written if not re.fullmatch(pattern, line)] == []


def test_a_job_of_another_thread_count_runs_in_a_copy_of_the_server_for_it(tmp_path, server):
    """A companion server imports with two threads' variables; a two-thread job goes to it, a one-thread job still
    to the first server, and once the companion stops, two-thread jobs run in their own processes again."""
    companion = server.companion(2)
    assert companion.announce() and companion.socket_path.name == "threads-2.sock"
    two = {name: "2" for name in warmstart.THREAD_VARIABLES}
    code, seen, err = finished(run_job(tmp_path, **two))
    assert code == 0, err
    assert seen["parent"] == companion.process.pid and seen["marker_imported_by"] == companion.process.pid
    code, seen, err = finished(run_job(tmp_path))
    assert code == 0 and seen["parent"] == server.process.pid, err
    companion.stop()
    assert warmstart.announced() == [str(server.socket_path)]
    code, seen, err = finished(run_job(tmp_path, **two))
    assert code == 0 and seen["parent"] == os.getpid(), err
    log = (tmp_path / "warmstart.log").read_text()
    assert "serving jobs of 2 threads" in log and "job.py: runs in its own process (other thread variables)" in log


PARALLEL_SCRIPT = """
import hashlib, os, sys
from icdenoise.pipeline.warmstart import hand_over
hand_over()
import numpy, torch
generator = torch.Generator().manual_seed(0)
a, b = torch.randn(600, 600, generator=generator), torch.randn(600, 600, generator=generator)
m = numpy.random.default_rng(0).standard_normal((500, 500))  # OpenBLAS splits a product this large over its threads
sums = [(a @ b).sum(dim=1).numpy(), (torch.softmax(a, dim=1) @ b).numpy(), m @ m.T]
print(os.getppid(), torch.get_num_threads(), hashlib.sha256(b"".join(x.tobytes() for x in sums)).hexdigest())
"""


def test_a_two_thread_copy_of_a_server_that_imported_torch_computes_what_a_two_thread_process_does(tmp_path, monkeypatch):
    """Products and sums (OpenBLAS's order depends on the thread count), in a copy of a server that imported torch
    and numpy with two threads' variables, and in a process of their own with the same variables: the same bits,
    and other bits with one thread, so a copy that ran on one thread would fail."""
    monkeypatch.delenv(warmstart.SOCKET_VARIABLE, raising=False)
    script = tmp_path / "parallel.py"
    script.write_text(PARALLEL_SCRIPT)

    def run(threads: int) -> list[str]:
        environment = {**os.environ, **{name: str(threads) for name in warmstart.THREAD_VARIABLES}}
        done = subprocess.run([sys.executable, str(script)], env=environment, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    own, one_thread = run(2), run(1)
    first = warmstart.start_server([["numpy", "torch"]], tmp_path / "warmstart.log")
    first.complete([])
    companion = first.companion(2)
    try:
        assert first.announce() and companion.announce()
        copied = run(2)
    finally:
        companion.stop()
        first.stop()
    assert copied[0] == str(companion.process.pid) and own[0] != copied[0]
    assert copied[1:] == own[1:] == ["2", own[2]] and one_thread[1:] == ["1", one_thread[2]] and one_thread[2] != own[2]
