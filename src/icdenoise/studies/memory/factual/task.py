"""Slide 10's toy model of factual recall (Nichani, Lee & Bietti 2024): subjects s, relations r, one stored
attribute a*(s, r) ∈ A_r per fact, and sequences that hide s and r among noise tokens before an end token.

Input vocabulary (one integer per token): subjects 0..S−1, relations S..S+R−1, noise tokens S+R..S+R+noise−1,
then the end token EOS = S+R+noise. Answer vocabulary (the model's outputs): relation r owns the A answers
r·A..r·A+A−1, so the A_r are disjoint, A_max = A and there are R·A answers."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from icdenoise.studies.memory.embeddings import generator

FACTS = 11  # purpose code of the generator of a*(s, r) (embeddings 12, initial weights 13, noise 14-15, dynamics 16)


@dataclass(frozen=True)
class FactualTask:
    """S subjects, R relations with A answers each, `noise` noise tokens, `length` = T positions before EOS, and
    the stored facts: answers[s, r] = a*(s, r) ∈ A_r = {r·A, …, r·A + A − 1}."""

    subjects: int
    relations: int
    answers_per_relation: int
    noise: int
    length: int
    answers: torch.Tensor  # (S, R) int64

    @property
    def facts(self) -> int:
        return self.subjects * self.relations

    @property
    def answer_count(self) -> int:
        """R·A: the size of the output vocabulary."""
        return self.relations * self.answers_per_relation

    @property
    def vocabulary(self) -> int:
        """S + R + noise + 1: the input vocabulary, EOS included."""
        return self.subjects + self.relations + self.noise + 1

    @property
    def eos(self) -> int:
        return self.subjects + self.relations + self.noise

    def fact_subjects_relations(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Every fact once, as (S·R,) subject and relation indices, fact i = s·R + r."""
        s, r = torch.meshgrid(torch.arange(self.subjects), torch.arange(self.relations), indexing="ij")
        return s.reshape(-1), r.reshape(-1)

    def targets(self) -> torch.Tensor:
        """(S·R,) a*(s, r) in the order of `fact_subjects_relations`."""
        return self.answers.reshape(-1)

    def sample(self, rng: torch.Generator, draws: int) -> tuple[torch.Tensor, torch.Tensor]:
        """`draws` sequences of every fact: tokens (draws·S·R, T + 1) int64 and targets (draws·S·R,), row
        k·S·R + i holding fact i. s and r sit at two distinct positions drawn uniformly among the T; the other
        T − 2 positions hold i.i.d. uniform noise tokens; position T + 1 (index T) holds EOS."""
        if self.length < 2:
            raise ValueError(f"length T = {self.length} must be at least 2 (s and r)")
        subjects, relations = self.fact_subjects_relations()
        count = draws * self.facts
        tokens = self.subjects + self.relations + torch.randint(self.noise, (count, self.length + 1), generator=rng)
        places = torch.argsort(torch.rand(count, self.length, generator=rng), dim=1)[:, :2]  # distinct, uniform
        rows = torch.arange(count)
        tokens[rows, places[:, 0]] = subjects.repeat(draws)
        tokens[rows, places[:, 1]] = self.subjects + relations.repeat(draws)
        tokens[:, self.length] = self.eos
        return tokens, self.targets().repeat(draws)


def factual_task(subjects: int, relations: int, answers_per_relation: int, noise: int, length: int,
                 seed: int) -> FactualTask:
    """The task with a*(s, r) uniform on A_r, i.i.d. over facts, drawn from `seed` (the block's) and the sizes."""
    if min(subjects, relations, answers_per_relation, noise) < 1:
        raise ValueError("subjects, relations, answers and noise must be positive")
    rng = generator(seed, FACTS, subjects, relations, answers_per_relation)
    offsets = torch.randint(answers_per_relation, (subjects, relations), generator=rng)
    answers = torch.arange(relations)[None, :] * answers_per_relation + offsets
    return FactualTask(subjects, relations, answers_per_relation, noise, length, answers)
