"""Warm start: the jobs of a local run continue in a process that has already imported their libraries.

Every job of a Snakemake run is a new Python process, and a training job spends 1.5–3 s importing
torch, pandas and this package before its first step: about a third of the CPU time of
`figures/fig3.pdf`. On Linux, once the config is valid, every `snakemake` call but a dry run starts a
server for one-thread jobs (`start_server`), which imports the shared stages' modules while Snakemake builds
the DAG. At `onstart`, a local run sends it the modules of all its jobs, in the order the jobs start
(`Server.complete`), starts a companion for each other thread count among them (`Server.companion`) and
points its jobs to them (`Server.announce`); any other call (a cluster run, `--touch`, `--dag`) stops the
server or never uses it.

A rule script calls `hand_over()` before its own imports. The job process then sends the server its
script, working directory, environment and standard streams, and the server forks a copy of itself
that runs the script with them. The job process waits and exits with the copy's exit status; a copy
whose job process goes away (Snakemake cancelling the job, Ctrl-C) stops too.

Nothing about a job depends on timing:
- the server forks no copy before it has imported every module of the run, so every copy starts with
  the same modules, whenever its job comes;
- a job runs the ordinary way, importing what it needs itself, whenever the server cannot run it exactly
  as a fresh process would: there is no server (`ICDENOISE_WARMSTART=0`, not Linux, a cluster job),
  the job's interpreter or module search path differs from the server's (a conda or container job), or
  its thread variables do (OpenBLAS and OpenMP read them when they are loaded, so a server imports
  with Snakemake's values for one thread count: one server for one-thread jobs, and one more for each
  other thread count among the run's jobs, `Server.companion`);
- the server exits only after every copy it forked has ended, each logged with its exit status.

The numbers are the same either way: a job imports the same files and runs the same code with the same
thread counts. Each job's log says where it ran (`where_this_job_runs`). Snakemake's benchmark files time
each job's wall clock either way, but in a copy their CPU and memory columns count only the waiting job
process: calibrating job sizes needs jobs in their own processes, `ICDENOISE_WARMSTART=0`
(scripts/calibrate_resources.py checks the logs).
"""

from __future__ import annotations

import atexit
import gc
import importlib
import json
import os
import runpy
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

SWITCH_VARIABLE = "ICDENOISE_WARMSTART"  # 0 turns the warm start off
SOCKET_VARIABLE = "ICDENOISE_WARMSTART_SOCKET"  # the servers' sockets, os.pathsep between: Server.announce
COPY_VARIABLE = "ICDENOISE_WARMSTART_COPY"  # set in a copy: the server's process id
THREAD_VARIABLES = ("OMP_NUM_THREADS", "GOTO_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")  # as Snakemake sets them for a job
SERVER_THREADS = 1  # the thread count of the server a run starts first (`start_server`)
MESSAGE_BYTES = 1 << 20  # a request carries the job's environment
REAP_SECONDS = 60  # at its end, how long the server waits for copies still running (their job processes have gone)


def enabled(environment=os.environ) -> bool:
    """Whether a local run should start a server: on Linux, unless ICDENOISE_WARMSTART is 0 (the config's
    execution.warm_start: false turns it off too, in workflow/rules/common.smk)."""
    return sys.platform.startswith("linux") and environment.get(SWITCH_VARIABLE, "1") != "0"


class Server:
    """A running server: its process, socket and log. `stop` ends it; it also ends when the Snakemake
    process that started it does (its standard input, a pipe from that process, closes)."""

    def __init__(self, process: subprocess.Popen, directory: Path, log_path: Path, threads: int, groups: list[list[str]]):
        self.process, self.directory, self.log_path, self.threads = process, directory, log_path, threads
        self.groups = list(groups)  # every group of modules it has been given

    @property
    def socket_path(self) -> Path:
        return self.directory / socket_name(self.threads)

    def companion(self, threads: int) -> Server:
        """Another server, for the jobs of `threads` threads: it imports every module this one was given, with
        Snakemake's thread variables for such a job, logs to the same log, and serves once it has imported them."""
        other = start_server(self.groups, self.log_path, threads=threads, new_log=False)
        other.complete([])
        return other

    def complete(self, groups: list[list[str]]) -> None:
        """The rest of the run's modules: the server imports these groups after those given so far
        (skipping those already imported), and only then serves jobs. A server that has ended is left
        to `announce` to report."""
        self.groups += groups
        try:
            self.process.stdin.write((json.dumps(groups) + "\n").encode())
            self.process.stdin.flush()
        except (OSError, ValueError):  # a broken pipe, or one this process has closed (stop)
            pass

    def announce(self, timeout: float = 10.0) -> bool:
        """Once the server listens, point this process's future subprocesses (the run's jobs) to it.
        False, and the server stopped, if it does not listen within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not self.socket_path.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                return False
            time.sleep(0.01)
        os.environ[SOCKET_VARIABLE] = os.pathsep.join([*announced(), str(self.socket_path)])
        return True

    def stop(self) -> None:
        """End the server: it reads the end of its input, waits for its copies and exits. One still
        importing (a call that runs no job may end before the imports do) gets SIGTERM and exits at once;
        one waiting for its copies ignores it and exits when they have ended."""
        others = [path for path in announced() if path != str(self.socket_path)]
        if others:
            os.environ[SOCKET_VARIABLE] = os.pathsep.join(others)
        else:
            os.environ.pop(SOCKET_VARIABLE, None)
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                self.process.terminate()
                try:
                    self.process.wait(timeout=REAP_SECONDS + 10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)


def socket_name(threads: int | str) -> str:
    """The name of the socket of the server for jobs of `threads` threads."""
    return f"threads-{threads}.sock"


def announced() -> list[str]:
    """The sockets of the servers announced to this process's future subprocesses (`Server.announce`)."""
    return [path for path in os.environ.get(SOCKET_VARIABLE, "").split(os.pathsep) if path]


def start_server(groups: list[list[str]], log_path: str | Path, threads: int = SERVER_THREADS, new_log: bool = True) -> Server:
    """Start a server for the jobs of `threads` threads that imports the `groups` of modules in this order (see
    `serve`). It returns at once: jobs use the server once `complete` has named the rest of the run's modules and
    `announce` has found it listening. The server's log is `log_path`, begun anew unless `new_log` is False."""
    directory = Path(tempfile.mkdtemp(prefix="icdenoise-warmstart-"))  # mode 0700: only this user's jobs connect
    environment = {**os.environ, **{name: str(threads) for name in THREAD_VARIABLES}}
    environment.pop(SOCKET_VARIABLE, None)
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    command = "import json, sys; from icdenoise.pipeline.warmstart import serve; serve(sys.argv[1], json.loads(sys.argv[2]))"
    if new_log:
        Path(log_path).write_text("")
    with open(log_path, "a") as log:  # appending: each line of the server and its copies lands at the end, whole
        process = subprocess.Popen([sys.executable, "-c", command, str(directory / socket_name(threads)), json.dumps(groups)],
                                   stdin=subprocess.PIPE, stdout=log, stderr=log, env=environment)
    server = Server(process, directory, Path(log_path), threads, groups)
    atexit.register(server.stop)
    return server


def where_this_job_runs() -> str:
    """Where the calling job runs: in a copy of a warm-start server, or in its own process."""
    server = os.environ.get(COPY_VARIABLE)
    return f"in a warm-start copy (server {server})" if server else "in its own process"


FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGUSR1)  # a stop asked of the job: its copy saves and stops


def forward_signals(pid: int) -> None:
    """Pass SIGTERM, SIGINT and SIGUSR1 that reach this job's process (Ctrl-C, a cluster's time limit) on to its
    copy `pid`, which runs the job: a training there saves its checkpoint and stops (icdenoise.pipeline.checkpoints)."""

    def forward(number, frame) -> None:
        try:
            os.kill(pid, number)
        except ProcessLookupError:  # the copy has ended
            pass

    for number in FORWARDED:
        signal.signal(number, forward)


def hand_over() -> None:
    """Run the rest of this job in a copy of the warm server for its thread count (Snakemake's OMP_NUM_THREADS for
    it) and exit with its status; return at once (the job goes on here) if there is no server or it cannot run this
    job exactly. With no server for its thread count, the first server is asked, which says why it cannot."""
    servers = announced()  # a server's copy runs the script without them
    if not servers:
        return
    own = socket_name(os.environ.get("OMP_NUM_THREADS", SERVER_THREADS))
    path = next((server for server in servers if Path(server).name == own), servers[0])
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        connection.connect(path)
        label = Path(getattr(sys.modules["__main__"], "__file__", sys.argv[0])).name  # Snakemake names the rule's script
        request = {"script": sys.argv[0], "label": label, "cwd": os.getcwd(), "environment": dict(os.environ),
                   "path": sys.path, "executable": sys.executable}
        socket.send_fds(connection, [json.dumps(request).encode()], [0, 1, 2])
        reply = connection.recv(MESSAGE_BYTES)
    except OSError:
        connection.close()
        return
    if not reply or not json.loads(reply)["accepted"]:
        connection.close()
        return
    forward_signals(json.loads(reply)["pid"])
    status = connection.recv(MESSAGE_BYTES)  # waits until the job ends
    if not status:
        sys.exit("the warm-started copy of this job ended without an exit status (killed by a signal, "
                 "e.g. for memory?); ICDENOISE_WARMSTART=0 runs jobs in their own processes")
    sys.exit(json.loads(status)["exit"])


def _log(message: str) -> None:
    """A line of the server's log (its standard error), in one write: the server and its copies share the
    log, and `print` wrote a line in pieces, so one process's line could land inside another's."""
    sys.stderr.flush()
    os.write(sys.stderr.fileno(), f"{time.strftime('%H:%M:%S')} {message}\n".encode())


def _incompatibility(request: dict, server_path: list[str]) -> str | None:
    """Why this process cannot run the request as a fresh process would, or None."""
    if request["executable"] != sys.executable:
        return "another interpreter"
    if request["path"][1 : len(server_path)] != server_path[1:]:  # [0] is each program's own directory
        return "another module search path"
    if any(request["environment"].get(name) != os.environ.get(name) for name in THREAD_VARIABLES):
        return "other thread variables"
    return None


def _stop_when_client_leaves(connection: socket.socket) -> None:
    """Interrupt the job (SIGTERM, which jobs turn into KeyboardInterrupt) once its job process is
    gone: the connection then reads as closed. After the job has ended, SIGTERM is ignored."""
    try:
        connection.recv(1)
    except OSError:
        pass
    os.kill(os.getpid(), signal.SIGTERM)


def _exit_code(stop: SystemExit) -> int:
    """The status a fresh interpreter exits with after `sys.exit(code)` (a message is printed, then 1)."""
    if stop.code is None or isinstance(stop.code, int):
        return stop.code or 0
    print(stop.code, file=sys.stderr)
    return 1


def _from_script(trace, script: str):
    """The traceback from the script's first frame on, as a fresh interpreter reports it (without this
    module's and runpy's frames); the whole traceback if no frame is the script's (a syntax error)."""
    frame = trace
    while frame is not None and frame.tb_frame.f_code.co_filename != script:
        frame = frame.tb_next
    return trace if frame is None else frame


def _run_request(connection: socket.socket, server_path: list[str]) -> int:
    """In a forked copy: take the job process's streams, directory and environment, run its script
    and report its exit status, which is returned. An exception that ends the script goes to
    `sys.excepthook`, as in a fresh interpreter (a job's hook writes it to the job's log)."""
    message, descriptors, _, _ = socket.recv_fds(connection, MESSAGE_BYTES, 3)
    request = json.loads(message)
    reason = _incompatibility(request, server_path) if len(descriptors) == 3 else "no standard streams"
    _log(f"{request['label']}: " + (f"runs in its own process ({reason})" if reason else f"runs in copy {os.getpid()}"))
    if reason is not None:
        connection.send(json.dumps({"accepted": False, "reason": reason}).encode())
        return 0
    signal.signal(signal.SIGINT, signal.default_int_handler)  # the server's handlers, back to a fresh process's
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for target, descriptor in enumerate(descriptors):
        os.dup2(descriptor, target)
        os.close(descriptor)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update({name: value for name, value in request["environment"].items() if name != SOCKET_VARIABLE})
    os.environ[COPY_VARIABLE] = str(os.getppid())
    sys.argv = [request["script"]]
    sys.path[:] = [request["path"][0], *server_path[1:]]
    connection.send(json.dumps({"accepted": True, "pid": os.getpid()}).encode())
    threading.Thread(target=_stop_when_client_leaves, args=(connection,), daemon=True).start()
    code = 1
    try:
        runpy.run_path(request["script"], run_name="__main__")
        code = 0
    except SystemExit as stop:
        code = _exit_code(stop)
    except BaseException:
        kind, error, trace = sys.exc_info()
        trace = _from_script(trace, request["script"])
        sys.excepthook(kind, error.with_traceback(trace), trace)  # a job's hook writes it to its log (joblog)
    atexit._run_exitfuncs()  # what a fresh interpreter runs at exit (logging.shutdown closes the job's log file)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the job is over: its process may now go
    sys.stdout.flush()
    sys.stderr.flush()
    connection.send(json.dumps({"exit": code}).encode())
    return code


def serve(socket_path: str, groups: list[list[str]]) -> None:
    """Listen on `socket_path`, import the `groups` of modules, then the groups that arrive on standard
    input (one JSON list of groups, `Server.complete`), and only then fork a copy for each job that
    connects (jobs that connect earlier wait). When standard input closes, stop serving, wait for every
    copy still running, log how each ended, and exit (this process, without the interpreter's teardown).
    Waiting for the copies also makes their CPU time count in the server's, and in Snakemake's once it
    waits for the server."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the jobs; the server ends when Snakemake does
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(0))  # Server.stop while importing: end at once
    server_path = list(sys.path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(f"{socket_path}.binding")
    listener.listen(64)
    os.rename(f"{socket_path}.binding", socket_path)  # the path appears listening: a job never finds it refusing
    copies: dict[int, float] = {}  # running copies: pid → start
    try:
        started = time.perf_counter()
        import_all(groups, started)
        complete = _read_complete_groups()
        if complete is None:  # stdin closed before the run began: --touch, a cluster run, a report
            return
        import_all(complete, started)
        gc.freeze()  # a copy's collections then skip the imported objects, and so never copy their pages (as Python advises)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # from here on, Server.stop waits for the copies
        _log(f"serving jobs of {os.environ.get('OMP_NUM_THREADS')} threads: every module of the run is imported "
             f"({time.perf_counter() - started:.1f} s)")
        serve_jobs(listener, copies, server_path)
    finally:
        listener.close()
        Path(socket_path).unlink(missing_ok=True)
        reap(copies, block=True)
        sys.stderr.flush()
        os._exit(0)  # at once: a teardown with torch loaded takes about 0.5 s, and Snakemake's exit waits for it


def import_all(groups: list[list[str]], started: float) -> None:
    for module in (module for group in groups for module in group):
        if module in sys.modules:
            continue
        try:
            importlib.import_module(module)
        except Exception:  # the job that imports it will raise it
            traceback.print_exc()
        _log(f"imported {module} ({time.perf_counter() - started:.1f} s)")


def _read_complete_groups() -> list[list[str]] | None:
    """The one line `Server.complete` writes, or None if standard input closes first."""
    line = sys.stdin.buffer.readline()
    return json.loads(line) if line.strip() else None


def serve_jobs(listener: socket.socket, copies: dict[int, float], server_path: list[str]) -> None:
    """Fork a copy for each job that connects, until standard input closes; reap ended copies as they end."""
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(sys.stdin, selectors.EVENT_READ)
    while True:
        for key, _ in selector.select(0.2 if copies else None):  # ended copies are looked for 5 times a second
            if key.fileobj is sys.stdin:
                if not os.read(sys.stdin.fileno(), 1 << 16):
                    selector.close()
                    return
                continue
            connection, _ = listener.accept()
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    selector.close()
                    listener.close()
                    code = _run_request(connection, server_path)
                finally:
                    os._exit(code)  # a copy never returns to the server's loop
            copies[pid] = time.perf_counter()
            connection.close()
        reap(copies, block=False)


def reap(copies: dict[int, float], block: bool) -> None:
    """Wait for ended copies (every copy, if `block`) and log each one's exit status and duration. A copy
    still running `REAP_SECONDS` after a blocking wait began is killed, and logged as such."""
    deadline = time.monotonic() + REAP_SECONDS
    while copies:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0 and not block:
            return
        if pid == 0:
            if time.monotonic() > deadline:
                for running in copies:
                    os.kill(running, signal.SIGKILL)
                deadline = float("inf")
            time.sleep(0.02)
            continue
        if pid in copies:
            _log(f"copy {pid} ended with status {os.waitstatus_to_exitcode(status)} after {time.perf_counter() - copies.pop(pid):.1f} s")
