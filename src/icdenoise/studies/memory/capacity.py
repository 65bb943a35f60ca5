"""Capacity of linear associative memories (Bietti 2025, slide 9): the largest number N of stored pairs
(z, f(z)) that an argmax read-out f̂(z) = argmax_y u_yᵀ W x recalls with accuracy ≥ a threshold, found by
bisection in N, and accuracy curves on a grid of N.

The maps f (injective, binary, few) are those of `maps`; f(z) = z mod M, which for the injective map is the
identity and keeps the draws nested in N.

Draws are nested: the embeddings of inputs 0..N−1 are the first N rows of one fixed sequence of 64-row blocks,
so accuracy is close to monotone in N within a draw and bisection is well posed. Accuracy is measured on
the first min(N, queries) stored inputs (exchangeable, so an unbiased subsample), pooled over ⌈queries/N⌉
independent replicas of the memory when N < queries (`ReplicatedMemory`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from icdenoise.studies.memory import memories
from icdenoise.studies.memory.bisection import largest_n_above
from icdenoise.studies.memory.embeddings import gaussian_embeddings, generator
from icdenoise.studies.memory.maps import outputs_for

BLOCK_ROWS = 64  # small, so that the many replicas of a small memory hold little
KIND_CODES = {"input": 0, "output": 1, "position": 2, "projection": 3}
QUERY_CHUNK = 256
MEMORIES = ("hebbian", "gradient_step", "gradient_step_noisy", "low_rank")


def outputs_label(map_name: str, few_outputs: int) -> str:
    """M as the tables show it: "N" for the injective map, else the number."""
    return "N" if map_name == "injective" else str(outputs_for(map_name, 0, few_outputs))


def slides_scale(map_name: str, d: int) -> int:
    """The slides' capacity scale (slide 9): d² for an injective map, d for few outputs."""
    return d * d if map_name == "injective" else d


class NestedEmbeddings:
    """Rows 0..count−1 of a fixed infinite sequence of N(0, I/d) embeddings, drawn in blocks of BLOCK_ROWS from
    generator(seed, d, kind, replica, block) so that a longer prefix extends a shorter one."""

    def __init__(self, seed: int, d: int, kind: str, replica: int = 0):
        self.seed, self.d, self.kind, self.replica = seed, d, kind, replica
        self.blocks: list[torch.Tensor] = []
        self.rows = torch.empty(0, d, dtype=torch.float32)

    def first(self, count: int) -> torch.Tensor:
        if self.rows.shape[0] < count:
            while len(self.blocks) * BLOCK_ROWS < count:
                rng = generator(self.seed, self.d, KIND_CODES[self.kind], self.replica, len(self.blocks))
                self.blocks.append(gaussian_embeddings(rng, BLOCK_ROWS, self.d))
            self.rows = torch.cat(self.blocks)
        return self.rows[:count]


def recalled(memory: torch.Tensor, queries: torch.Tensor, outputs: torch.Tensor, targets: torch.Tensor) -> int:
    """How many queries x (Q, d) have argmax_y u_yᵀ W x equal to their target."""
    hits = 0
    for start in range(0, queries.shape[0], QUERY_CHUNK):
        logits = (queries[start:start + QUERY_CHUNK] @ memory.T) @ outputs.T
        hits += int((logits.argmax(dim=1) == targets[start:start + QUERY_CHUNK]).sum())
    return hits


class MemoryDraw:
    """One draw (seed, d, replica) of every embedding a memory of one map needs."""

    def __init__(self, map_name: str, d: int, seed: int, few_outputs: int, positions: int, width: int | None = None,
                 replica: int = 0):
        self.map_name, self.d, self.few_outputs, self.positions = map_name, d, few_outputs, positions
        self.inputs = NestedEmbeddings(seed, d, "input", replica)
        self.outputs = NestedEmbeddings(seed, d, "output", replica)
        self.position_table = NestedEmbeddings(seed, d, "position", replica).first(positions)
        self.projection = None if width is None else NestedEmbeddings(seed, d, "projection", replica).first(width)

    def hits(self, memory_kind: str, stored: int, queries: int) -> tuple[int, int]:
        """Recalled queries and queries asked, for one memory construction with N = `stored` pairs, asked on
        its first min(N, queries) stored inputs."""
        inputs = self.inputs.first(stored)
        outputs = self.outputs.first(outputs_for(self.map_name, stored, self.few_outputs))
        targets = torch.arange(stored) % outputs.shape[0]
        asked = min(stored, queries)
        query_inputs = inputs[:asked]
        if memory_kind == "hebbian":
            memory = memories.hebbian(inputs, outputs, targets)
        elif memory_kind == "gradient_step":
            memory = memories.gradient_step(inputs, outputs, targets)
        elif memory_kind == "gradient_step_noisy":
            if self.map_name != "injective":
                raise ValueError("the noisy-input step (slide 23) recalls y itself: it needs the injective map")
            memory = memories.noisy_gradient_step(inputs, outputs)
            query_inputs = query_inputs + self.position_table[torch.arange(asked) % self.positions]
        elif memory_kind == "low_rank":
            memory = memories.low_rank(inputs, outputs, targets, self.projection)
        else:
            raise ValueError(f"unknown memory {memory_kind!r}; allowed: {', '.join(MEMORIES)}")
        return recalled(memory, query_inputs, outputs, targets[:asked]), asked


class ReplicatedMemory:
    """The recall accuracy of a memory with N pairs for one (map, d, seed), pooled over ⌈queries/N⌉ independent
    replicas when N < queries, so that every accuracy rests on at least `queries` recalls (standard error
    ≤ 0.01 at 0.9 for 1024) rather than on the N pairs of a single small memory."""

    def __init__(self, map_name: str, d: int, seed: int, few_outputs: int, positions: int, width: int | None = None):
        self.settings = (map_name, d, seed, few_outputs, positions, width)
        self.draws: list[MemoryDraw] = []

    def accuracy(self, memory_kind: str, stored: int, queries: int) -> float:
        replicas = -(-queries // stored)
        while len(self.draws) < replicas:
            self.draws.append(MemoryDraw(*self.settings, replica=len(self.draws)))
        recalled = asked = 0
        for draw in self.draws[:replicas]:
            hits, count = draw.hits(memory_kind, stored, queries)
            recalled, asked = recalled + hits, asked + count
        return recalled / asked


def search(draw: ReplicatedMemory, memory_kind: str, block: dict, start: int) -> tuple[int, list[tuple[int, float]]]:
    """The capacity of one memory on one draw, by bisection in N (block: threshold, queries, precision, max_pairs)."""
    return largest_n_above(lambda stored: draw.accuracy(memory_kind, stored, block["queries"]), block["threshold"],
                           start, block["max_pairs"], block["precision"])


def capacity_table(block: dict, map_name: str, noisy: bool = True) -> pd.DataFrame:
    """One row per (memory, d, seed): the capacity of the Hebbian memory and the one-step memory (and, for
    the injective map when `noisy`, the one-step memory on noisy inputs) with `map_name`, and the N evaluated."""
    rows = []
    kinds = ["hebbian", "gradient_step"] + (["gradient_step_noisy"] if noisy and map_name == "injective" else [])
    for d in block["ds"]:
        for seed in block["seeds"]:
            draw = ReplicatedMemory(map_name, d, seed, block["few_outputs"], block["positions"])
            start = max(1, slides_scale(map_name, d) // 8)
            for kind in kinds:
                capacity, evaluations = search(draw, kind, block, start)
                rows.append({"map": map_name, "outputs": outputs_label(map_name, block["few_outputs"]),
                             "memory": kind, "d": d, "seed": seed, "capacity": capacity, "evaluations": len(evaluations),
                             "slides_scale": slides_scale(map_name, d), "threshold": block["threshold"],
                             "positions": block["positions"]})
    return pd.DataFrame(rows)


def curve_table(block: dict, map_name: str) -> pd.DataFrame:
    """One row per (d, N, seed): the Hebbian memory's recall accuracy, on `curve_points` values of N spaced
    geometrically over curve_span[map] × the slides' scale (d² or d)."""
    low, high = block["curve_span"][map_name]
    rows = []
    for d in block["ds"]:
        scale = slides_scale(map_name, d)
        grid = np.unique(np.round(np.geomspace(max(1.0, low * scale), high * scale, block["curve_points"])).astype(int))
        for seed in block["seeds"]:
            draw = ReplicatedMemory(map_name, d, seed, block["few_outputs"], block["positions"])
            for stored in grid:
                rows.append({"map": map_name, "outputs": outputs_label(map_name, block["few_outputs"]), "d": d, "seed": seed,
                             "stored": int(stored),
                             "accuracy": draw.accuracy("hebbian", int(stored), block["queries"]), "threshold": block["threshold"]})
    return pd.DataFrame(rows)


def low_rank_table(block: dict, capacity_block: dict) -> pd.DataFrame:
    """One row per (d, m, seed): the capacity of the low-rank memory W₁ᵀW₂ (slide 9) with the injective map."""
    rows = []
    for d in block["ds"]:
        for width in block["widths"]:
            if width > d:
                continue
            for seed in block["seeds"]:
                draw = ReplicatedMemory("injective", d, seed, capacity_block["few_outputs"], capacity_block["positions"], width)
                capacity, evaluations = search(draw, "low_rank", capacity_block, max(1, width * d // 8))
                rows.append({"memory": "low_rank", "map": "injective", "d": d, "m": width, "params_md": width * d, "seed": seed,
                             "capacity": capacity, "evaluations": len(evaluations)})
    return pd.DataFrame(rows)
