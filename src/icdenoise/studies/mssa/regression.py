"""In-context regression (Wang et al. 2025, Sec. 4.2.2 and Fig. 6; the setup of Garg et al. 2022).

A task draws a function g(x) = wᵀx per prompt: `linear` with w ~ N(0, I_d), `sparse` with only
`nonzeros` coordinates of such a w kept, at positions chosen uniformly at random per prompt. The
inputs are x_i ~ N(0, I_d) and a prompt of k examples is (x_1, g(x_1), …, x_k, g(x_k)); a predictor
sees the prefix (x_1, y_1, …, x_{i-1}, y_{i-1}, x_i) and predicts y_i.

Prompt i of a seed is drawn from its own generator, `default_rng([seed, start + i])`, so a prompt
does not depend on how prompts are batched: training batch t of size B is prompts tB … tB + B − 1 of
the training seed, and evaluation prompts come from a separate seed (choose it different from every
training seed, or the evaluation prompts are training prompts).

`TrainingBatches` draws a run's training batches ahead of its steps, in chunks of steps, each chunk in
a worker process (or in the calling thread when there are no workers); every batch is exactly
`sample_prompts`' batch of its step, whoever draws it, and the chunks come back in step order.

The baselines (least squares, ridge, Lasso) share one call, `baseline_predictions`, which predicts
every y_i from the i − 1 examples before it, as the models do. `error_table` scores any predictions
by the normalized squared error of Fig. 6: the squared error divided by E[y²] (= d for `linear`,
= `nonzeros` for `sparse`), so the zero predictor scores 1.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from concurrent.futures import Executor, ProcessPoolExecutor

import numpy as np
import pandas as pd
import torch

TASKS = ("linear", "sparse")
BASELINES = ("least_squares", "ridge", "lasso")


def _check_task(task: str, d: int, nonzeros: int) -> None:
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    if task == "sparse" and not 1 <= nonzeros <= d:
        raise ValueError(f"a sparse task needs 1 <= nonzeros <= d, got nonzeros={nonzeros}, d={d}")


def expected_squared_label(task: str, d: int, nonzeros: int) -> float:
    """E[y²] = E‖w‖² for x ~ N(0, I_d): d for `linear`, `nonzeros` for `sparse` (Fig. 6's normaliser)."""
    _check_task(task, d, nonzeros)
    return float(d if task == "linear" else nonzeros)


def sample_prompts(task: str, d: int, nonzeros: int, n_prompts: int, examples: int, seed: int, start: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """xs (n_prompts, examples, d) float32, ys (n_prompts, examples); prompt i from its own generator [seed, start + i].

    Each generator draws the inputs, then w, then (for `sparse`) the support, so the two tasks share
    their inputs and the non-zero values of w at the same seed.
    """
    _check_task(task, d, nonzeros)
    xs = np.empty((n_prompts, examples, d), dtype=np.float32)
    weights = np.empty((n_prompts, d), dtype=np.float32)
    for prompt in range(n_prompts):
        generator = np.random.default_rng([seed, start + prompt])
        xs[prompt] = generator.standard_normal((examples, d), dtype=np.float32)
        weights[prompt] = generator.standard_normal(d, dtype=np.float32)
        if task == "sparse":
            support = generator.choice(d, size=nonzeros, replace=False)
            off_support = np.ones(d, dtype=bool)
            off_support[support] = False
            weights[prompt, off_support] = 0.0
    xs_tensor = torch.from_numpy(xs)
    ys = torch.einsum("nkd,nd->nk", xs_tensor, torch.from_numpy(weights))
    return xs_tensor, ys


def draw_steps(task: str, d: int, nonzeros: int, batch: int, examples: int, seed: int, first_step: int, n_steps: int) -> tuple[np.ndarray, np.ndarray]:
    """xs (n_steps, batch, examples, d), ys (n_steps, batch, examples) float32: the training batches of steps
    first_step, …, first_step + n_steps − 1, batch t being `sample_prompts(…, batch, examples, seed, start=t·batch)`."""
    parts = [sample_prompts(task, d, nonzeros, batch, examples, seed, start=step * batch) for step in range(first_step, first_step + n_steps)]
    return np.stack([xs.numpy() for xs, _ in parts]), np.stack([ys.numpy() for _, ys in parts])


def one_thread_worker() -> None:
    """A worker process draws on one thread: its batches are small, and its siblings share the cores."""
    torch.set_num_threads(1)


def default_workers() -> int:
    """Worker processes for a GPU run's prompts: the cores this process may use less one for the training loop, at most 8."""
    return max(1, min(8, len(os.sched_getaffinity(0)) - 1))


class TrainingBatches:
    """The batches of steps `start` … steps − 1 (`draw_steps`; `start` a multiple of `chunk_steps`), drawn ahead: iterating yields (first_step, xs, ys)
    for chunks of `chunk_steps` steps (the last one shorter when steps is no multiple), in step order.

    With `workers` = 0 (and no `executor`) each chunk is drawn when it is asked for. Otherwise `ahead`
    chunks (default 2 per worker) are always being drawn by an executor, so at most `ahead` chunks wait in
    memory: the given `executor`, or a pool of `workers` processes forked (not spawned: a spawned process
    would run an unguarded script's top level again) when the object is entered as a context manager,
    which shuts it down on leaving, cancelling the chunks not yet drawn, on an error too.
    """

    def __init__(self, task: str, d: int, nonzeros: int, batch: int, examples: int, seed: int, steps: int, chunk_steps: int,
                 workers: int = 0, ahead: int | None = None, executor: Executor | None = None, start: int = 0):
        _check_task(task, d, nonzeros)
        if chunk_steps < 1 or workers < 0 or start % chunk_steps:
            raise ValueError(f"chunk_steps must be positive, workers not negative and start a multiple of chunk_steps, got "
                             f"{chunk_steps}, {workers} and {start}")
        self.draw = (task, d, nonzeros, batch, examples, seed)
        self.chunks = [(first, min(chunk_steps, steps - first)) for first in range(start, steps, chunk_steps)]
        self.workers = workers
        self.ahead = ahead or 2 * max(1, workers)
        self.executor = executor
        self.owns_executor = False

    def __enter__(self) -> TrainingBatches:
        if self.executor is None and self.workers:
            self.executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("fork"), initializer=one_thread_worker)
            self.owns_executor = True
        return self

    def __exit__(self, *exception) -> None:
        if self.owns_executor:
            self.executor.shutdown(wait=True, cancel_futures=True)
            self.executor, self.owns_executor = None, False

    def __iter__(self):
        if self.executor is None:
            for first, n_steps in self.chunks:
                yield (first, *draw_steps(*self.draw, first, n_steps))
            return
        upcoming = iter(self.chunks)
        pending = deque()
        for first, n_steps in upcoming:
            pending.append((first, self.executor.submit(draw_steps, *self.draw, first, n_steps)))
            if len(pending) == self.ahead:
                break
        while pending:
            first, future = pending.popleft()
            xs, ys = future.result()
            following = next(upcoming, None)
            if following is not None:
                pending.append((following[0], self.executor.submit(draw_steps, *self.draw, *following)))
            yield first, xs, ys


def least_squares_weights(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(n, d): the minimum-norm least-squares solution pinv(X) y of every prompt (an exact fit below d
    examples), by numpy's batched SVD. Not torch's lstsq: its LAPACK gave results that differ in the last
    bits with the number of cores the job may use (a SLURM job against a local one)."""
    return np.einsum("ndi,ni->nd", np.linalg.pinv(x), y)


def ridge_weights(x: np.ndarray, y: np.ndarray, ridge: float) -> np.ndarray:
    """(n, d): argmin ‖y − Xw‖² + ridge·‖w‖², solved in the primal (XᵀX + ridge·I)⁻¹Xᵀy from d examples on
    and in the dual Xᵀ(XXᵀ + ridge·I)⁻¹y below d, so that ridge → 0 stays well conditioned and tends to
    the minimum-norm least-squares solution."""
    if ridge <= 0:
        raise ValueError(f"ridge must be positive, got {ridge}")
    n_examples, d = x.shape[1], x.shape[2]
    if n_examples >= d:
        gram = np.einsum("nid,nie->nde", x, x) + ridge * np.eye(d)
        return np.linalg.solve(gram, np.einsum("nid,ni->nd", x, y)[..., None])[..., 0]
    kernel = np.einsum("nid,njd->nij", x, x) + ridge * np.eye(n_examples)
    return np.einsum("nid,ni->nd", x, np.linalg.solve(kernel, y[..., None])[..., 0])


def lasso_weights(x: np.ndarray, y: np.ndarray, lasso: float, max_kinks: int | None = None) -> np.ndarray:
    """(n, d): argmin ‖y − Xw‖²/(2m) + lasso·‖w‖₁ for m examples (scikit-learn's scaling), every prompt at once.

    Its optimality (KKT) conditions, with G = XᵀX/m, c = Xᵀy/m and g = c − Gw = Xᵀ(y − Xw)/m:
    g_j = lasso·sign(w_j) where w_j ≠ 0 and |g_j| ≤ lasso elsewhere. Solved exactly by the Lasso
    homotopy (LARS with the Lasso modification; Efron et al. 2004): from t = max_j |c_j|, where w = 0,
    t decreases to `lasso` along the piecewise-linear path w_A(t) = G_AA⁻¹(c_A − t·s_A) of the active
    set A with signs s, which changes where an inactive |g_j| reaches t (j joins with the sign of g_j)
    or an active w_j reaches 0 (j leaves). Each segment is solved afresh, so errors do not accumulate.
    The root at the segment's start of the event that just happened (a coordinate that just joined
    reaching 0, one that just left reaching its old boundary) is no event.
    """
    if lasso <= 0:
        raise ValueError(f"lasso must be positive, got {lasso}")
    n_prompts, n_examples, d = x.shape
    gram = np.einsum("nid,nie->nde", x, x) / n_examples
    correlation = np.einsum("nid,ni->nd", x, y) / n_examples
    first = np.argmax(np.abs(correlation), axis=1)
    level = np.abs(correlation[np.arange(n_prompts), first])
    active = np.zeros((n_prompts, d), dtype=bool)
    active[np.arange(n_prompts), first] = True
    signs = np.zeros((n_prompts, d))
    signs[np.arange(n_prompts), first] = np.sign(correlation[np.arange(n_prompts), first])
    sign_on_leaving = np.zeros((n_prompts, d))
    just_joined = active.copy()
    weights = np.zeros((n_prompts, d))
    on_path = np.flatnonzero(level > lasso)
    for _ in range(max_kinks or 8 * d):
        if len(on_path) == 0:
            return weights
        in_set, set_signs, current = active[on_path], signs[on_path], level[on_path]
        gram_now, correlation_now = gram[on_path], correlation[on_path]
        restricted = gram_now * (in_set[:, :, None] & in_set[:, None, :]) + np.eye(d) * ~in_set[:, None, :]
        segment_start = np.linalg.solve(restricted, (in_set * (correlation_now - current[:, None] * set_signs))[..., None])[..., 0]
        direction = np.linalg.solve(restricted, (in_set * set_signs)[..., None])[..., 0]
        gradient = correlation_now - np.einsum("nde,ne->nd", gram_now, segment_start)
        slope = np.einsum("nde,ne->nd", gram_now, direction)
        with np.errstate(divide="ignore", invalid="ignore"):
            joins_positive = np.where(1 - slope > 0, (current[:, None] - gradient) / (1 - slope), np.inf)
            joins_negative = np.where(1 + slope > 0, (current[:, None] + gradient) / (1 + slope), np.inf)
            leaves = np.where(in_set & ~just_joined[on_path] & (-segment_start / direction > 0), -segment_start / direction, np.inf)
        left = sign_on_leaving[on_path]
        joins_positive = np.where(~in_set & (left != 1) & (joins_positive > 0), joins_positive, np.inf)
        joins_negative = np.where(~in_set & (left != -1) & (joins_negative > 0), joins_negative, np.inf)
        # event kinds, by block of d columns: 0 joins at +t, 1 joins at −t, 2 leaves; column 3d: t reaches lasso
        events = np.concatenate([joins_positive, joins_negative, leaves, (current - lasso)[:, None]], axis=1)
        event = np.argmin(events, axis=1)
        step = events[np.arange(len(on_path)), event]
        kind, coordinate = event // d, event % d
        weights[on_path] = segment_start + step[:, None] * direction
        level[on_path] = current - step
        sign_on_leaving[on_path] = 0.0
        just_joined[on_path] = False
        joining = kind < 2
        active[on_path[joining], coordinate[joining]] = True
        signs[on_path[joining], coordinate[joining]] = np.where(kind[joining] == 0, 1.0, -1.0)
        just_joined[on_path[joining], coordinate[joining]] = True
        leaving = kind == 2
        active[on_path[leaving], coordinate[leaving]] = False
        sign_on_leaving[on_path[leaving], coordinate[leaving]] = signs[on_path[leaving], coordinate[leaving]]
        signs[on_path[leaving], coordinate[leaving]] = 0.0
        weights[on_path[leaving], coordinate[leaving]] = 0.0
        on_path = on_path[kind < 3]
    raise RuntimeError(f"the Lasso homotopy left {len(on_path)} prompts unfinished after {max_kinks or 8 * d} kinks")


def baseline_predictions(name: str, xs, ys, **options) -> np.ndarray:
    """(n_prompts, examples) float64: baseline `name` predicting each y_i from (x_1..x_{i-1}, y_1..y_{i-1}).

    Names: `least_squares` (minimum norm), `ridge` (option `ridge`), `lasso` (option `lasso`); the
    prediction with no example is 0.
    """
    if name not in BASELINES:
        raise ValueError(f"baseline must be one of {BASELINES}, got {name!r}")
    xs = np.asarray(xs, dtype=np.float64)
    ys = np.asarray(ys, dtype=np.float64)
    n_prompts, examples, _ = xs.shape
    predictions = np.zeros((n_prompts, examples))
    for seen in range(1, examples):
        context_x, context_y = xs[:, :seen], ys[:, :seen]
        if name == "least_squares":
            weights = least_squares_weights(context_x, context_y)
        elif name == "ridge":
            weights = ridge_weights(context_x, context_y, options["ridge"])
        else:
            weights = lasso_weights(context_x, context_y, options["lasso"])
        predictions[:, seen] = np.einsum("nd,nd->n", xs[:, seen], weights)
    return predictions


def error_table(predictions: dict[str, np.ndarray], ys, task: str, d: int, nonzeros: int) -> pd.DataFrame:
    """Long table: columns model, examples (number of in-context examples seen, 0..k−1), mse, sem, normalized_mse, normalized_sem.

    mse is the mean over prompts of (ŷ_i − y_i)², sem its standard error (sample standard deviation
    over prompts / √n_prompts); the normalized columns divide both by E[y²] (Fig. 6's y-axis).
    """
    ys = np.asarray(ys, dtype=np.float64)
    normaliser = expected_squared_label(task, d, nonzeros)
    n_prompts, examples = ys.shape
    tables = []
    for model, predicted in predictions.items():
        predicted = np.asarray(predicted, dtype=np.float64)
        if predicted.shape != ys.shape:
            raise ValueError(f"predictions of {model!r} have shape {predicted.shape}, the labels {ys.shape}")
        squared_error = (predicted - ys) ** 2
        mse = squared_error.mean(axis=0)
        sem = squared_error.std(axis=0, ddof=1) / np.sqrt(n_prompts)
        tables.append(pd.DataFrame({
            "model": model, "examples": np.arange(examples), "mse": mse, "sem": sem,
            "normalized_mse": mse / normaliser, "normalized_sem": sem / normaliser,
        }))
    return pd.concat(tables, ignore_index=True)
