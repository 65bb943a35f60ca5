"""Attention models as ensembles of S independent weight sets, one per seed (Section 3).

A model class owns its parameters, their initialisation from a seed and their conversion to and
from the long-format weights table (one row per seed, parameter, row and column). Every parameter
has shape (S, ...): slice s is the model of seed s. Because a training loss that is a sum of
per-seed losses and Adam are both separable over seeds, training the stacked ensemble is the same
as training S models one by one.

A model turns a prompt's context into its `features` once (``prepare``), then predicts from features
and query. Features are either shared by all seeds, with shape (B, ...), as when a whole split is
scored, or per seed, with shape (S, B, ...), as when each seed draws its own minibatch.

A training step asks the model for the gradient of its minibatch loss (``set_minibatch_gradients``):
autograd by default; the one-layer models of eqs. 11-12 derive it by hand, which is about twice as
fast on the CPU and is held to autograd by a unit test.

A new architecture is a subclass registered in `MODELS`, the corruptions it denoises in
`icdenoise.maths.architectures.DENOISES`, and its name in the config schema. A user's own class, outside
the package, is named in the config as ``module.path:ClassName`` (`model_class`): a subclass of
`EnsembleModel` that implements `initial_parameters`, `prepare` and `forward` and says which corruptions
it denoises in its class attribute `denoises` (docs/experiments.md).
"""

from __future__ import annotations

import importlib
import math
from typing import Callable, ClassVar

import numpy as np
import pandas as pd
import torch
from torch import nn
from torch.nn import functional as F

from icdenoise.maths.architectures import DENOISES
from icdenoise.maths.corruptions import CORRUPTIONS
from icdenoise.maths.prompts import Prompts
from icdenoise.maths.scoring import squared_error_per_seed
from icdenoise.maths.seeding import seed_generators


def uniform_matrix(rng: np.random.Generator, n: int) -> np.ndarray:
    """An n×n matrix with i.i.d. U[−1/√n, 1/√n] entries (PROTOCOL: Conventions)."""
    bound = 1.0 / math.sqrt(n)
    return rng.uniform(-bound, bound, (n, n))


class EnsembleModel(nn.Module):
    """Parameters: a dict of named tensors of shape (S, ...), in a fixed order."""

    architecture: ClassVar[str]
    denoises: ClassVar[frozenset[str]] = frozenset()  # a user's class: the corruptions it denoises (DENOISES for ours)
    snapshots_per_pass: ClassVar[int] = 1  # training's recorded losses: parameter snapshots scored in one pass (see `stacked`)

    def __init__(self, parameters: dict[str, torch.Tensor], **options):
        """`options`: the model block's other keys; architectures whose forward pass needs fixed,
        unlearned settings (`SubspaceSelfAttention`'s η, τ, φ) read them, the others need none."""
        super().__init__()
        self.weights = nn.ParameterDict({name: nn.Parameter(value.clone()) for name, value in parameters.items()})
        self.options = options

    def snapshot(self) -> dict[str, torch.Tensor]:
        """A copy of the current parameters, e.g. to score them later (`stacked`)."""
        return {name: tensor.detach().clone() for name, tensor in self.weights.items()}

    def stacked(self, snapshots: list[dict[str, torch.Tensor]]) -> "EnsembleModel":
        """One ensemble of R snapshots of this S-seed ensemble, R·S models with snapshot r's seed s at
        index r·S + s: its losses, viewed as (R, S), are every snapshot's. Scoring many snapshots at
        once turns a shared prompt's thin products into wide ones (`snapshots_per_pass`)."""
        parameters = {name: torch.cat([snapshot[name] for snapshot in snapshots]) for name in self.weights}
        return type(self)(parameters, **self.options)

    @classmethod
    def initial_parameters(cls, rng: np.random.Generator, n: int, **options) -> dict[str, np.ndarray]:
        """One seed's initial parameters, drawn from its initialisation generator."""
        raise NotImplementedError

    @classmethod
    def initialise(cls, seeds: list[int], n: int, dtype=torch.float32, **options) -> "EnsembleModel":
        """The ensemble of `seeds`, seed s initialised from its own initialisation generator."""
        per_seed = [cls.initial_parameters(seed_generators(seed)[0], n, **options) for seed in seeds]
        return cls({name: torch.as_tensor(np.stack([p[name] for p in per_seed]), dtype=dtype) for name in per_seed[0]}, **options)

    @classmethod
    def corruptions(cls) -> frozenset[str]:
        """The corruptions whose prompts this architecture denoises."""
        registered = getattr(cls, "architecture", None)
        return DENOISES[registered] if registered in DENOISES else frozenset(cls.denoises)

    @property
    def ensemble_size(self) -> int:
        return next(iter(self.weights.values())).shape[0]

    def to_frame(self, seeds: list[int], stage: str) -> pd.DataFrame:
        """Long format: columns seed, stage, matrix (the parameter's name), row, col, value."""
        frames = []
        for name, tensor in self.weights.items():
            values = tensor.detach().cpu().double().numpy()
            values = values.reshape(*values.shape[:2], -1) if values.ndim > 1 else values.reshape(-1, 1, 1)
            seed_index, row, col = np.meshgrid(*(np.arange(k) for k in values.shape), indexing="ij")
            frames.append(pd.DataFrame({
                "seed": np.asarray(seeds)[seed_index.ravel()], "stage": stage, "matrix": name,
                "row": row.ravel(), "col": col.ravel(), "value": values.ravel(),
            }))
        return pd.concat(frames, ignore_index=True)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, stage: str, **options) -> tuple[list[int], "EnsembleModel"]:
        """The inverse of `to_frame` for one stage (initial | final): (seeds, float64 ensemble); `options`
        are the model block's other keys."""
        selected = frame[frame["stage"] == stage]
        seeds = sorted(int(seed) for seed in selected["seed"].unique())
        parameters = {}
        for name in dict.fromkeys(selected["matrix"]):
            rows = selected[selected["matrix"] == name].sort_values(["seed", "row", "col"])
            shape = (len(seeds), int(rows["row"].max()) + 1, int(rows["col"].max()) + 1)
            parameters[name] = torch.tensor(rows["value"].to_numpy().reshape(shape), dtype=torch.float64)
        return seeds, cls(parameters, **options)

    @staticmethod
    def prepare(context: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def set_minibatch_gradients(self, minibatch: Callable, index: torch.Tensor) -> None:
        """Set each parameter's .grad to the gradient of Σ_s MSE_s, seed s's per-coordinate squared
        error (eq. 9 / (B n)) on its own minibatch index[s]; `minibatch(index)` gathers the
        (features, query, target) of an index. By autograd; an architecture may derive it by hand."""
        features, query, target = minibatch(index)
        squared_error_per_seed(self(features, query), target).sum().backward()

    def predict(self, prompts: Prompts) -> np.ndarray:
        """(S, N, *target) predictions of every seed's model, in the model's dtype, as numpy."""
        dtype = next(iter(self.weights.values())).dtype
        with torch.no_grad():
            features = self.prepare(torch.as_tensor(prompts.context, dtype=dtype))
            return self(features, torch.as_tensor(prompts.query, dtype=dtype)).numpy()


class OneLayerAttention(EnsembleModel):
    """Common parameters of eqs. 11 and 12: W_KQ, W_PV of shape (S, n, n); query-only corruption.

    Training's recorded losses score up to 64 parameter snapshots in one pass: each shared prompt
    then meets R·S query vectors in one (R·S × n) @ (n × L) product, where one snapshot's S = 6 make a
    product too thin to run fast. A record of the gmm, L = 500 softmax job took about 9 ms alone and
    about 5 ms in a pass of 50, on one core of the 2-core EPYC.
    """

    snapshots_per_pass: ClassVar[int] = 64

    @classmethod
    def from_weights(cls, w_kq: torch.Tensor, w_pv: torch.Tensor) -> "OneLayerAttention":
        """The ensemble with these (S, n, n) key-query and value matrices."""
        return cls({"W_KQ": w_kq, "W_PV": w_pv})

    @classmethod
    def initial_parameters(cls, rng, n, **options):
        w_kq = uniform_matrix(rng, n)
        return {"W_KQ": w_kq, "W_PV": uniform_matrix(rng, n)}

    def _apply_value(self, mixed: torch.Tensor) -> torch.Tensor:
        """W_PV applied to (S, B, n) vectors, as one (S, n, n) @ (S, n, B) batched matmul."""
        return (self.weights["W_PV"] @ mixed.transpose(1, 2)).transpose(1, 2)

    def _key_query(self, query: torch.Tensor) -> torch.Tensor:
        """W_KQ x̃ for every seed: query (B, n) or (S, B, n) → (S, B, n)."""
        return (self.weights["W_KQ"] @ query.transpose(-1, -2)).transpose(1, 2)

    def _key_query_prompt_major(self, query: torch.Tensor) -> torch.Tensor:
        """W_KQ x̃ for every seed of a shared query (B, n), as a contiguous (B, S, n): one (B, n) @ (n, S·n) product."""
        w_kq = self.weights["W_KQ"]
        seeds, n = w_kq.shape[0], w_kq.shape[-1]
        return (query @ w_kq.permute(2, 0, 1).reshape(n, seeds * n)).view(query.shape[0], seeds, n)


class LinearAttention(OneLayerAttention):
    """Eq. 11: x̂ = (1/L) W_PV X Xᵀ W_KQ x̃ = W_PV C W_KQ x̃, C = (1/L) X Xᵀ the context's second moment.

    Features are C, shape (..., n, n): the model needs nothing else from the context.
    """

    architecture: ClassVar[str] = "linear"

    @staticmethod
    def prepare(context: torch.Tensor) -> torch.Tensor:
        """context (N, L, n) → C (N, n, n)."""
        return context.transpose(1, 2) @ context / context.shape[1]

    def forward(self, features: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
        if features.dim() == 3 and query.dim() == 2:  # shared: one batched product, C_b (n, n) @ (n, S) per prompt
            mixed = (features @ self._key_query_prompt_major(query).transpose(1, 2)).permute(2, 0, 1)  # (S, B, n)
        else:
            key_query = self._key_query(query)  # (S, B, n)
            mixed = (features * key_query.unsqueeze(-2)).sum(-1)  # C (…, B, n, n) times (S, B, 1, n) → (S, B, n)
        return self._apply_value(mixed)

    @torch.no_grad()
    def set_minibatch_gradients(self, minibatch: Callable, index: torch.Tensor) -> None:
        """The gradient of Σ_s MSE_s for eq. 11, derived by hand, all seeds at once.

        For one prompt, with q = W_KQ x̃, m = C q, x̂ = W_PV m and g = ∂MSE/∂x̂ = 2 (x̂ − x) / (B n):
            ∂/∂W_PV = g mᵀ,   ∂/∂q = Cᵀ W_PVᵀ g,   ∂/∂W_KQ = (∂/∂q) x̃ᵀ.
        Autograd's bookkeeping costs more than these n × n products. `tests/unit/test_models.py`
        holds it to autograd.
        """
        features, query, target = minibatch(index)  # (S, B, n, n), (S, B, n), (S, B, n)
        w_kq, w_pv = self.weights["W_KQ"], self.weights["W_PV"]
        key_query = query @ w_kq.transpose(1, 2)
        mixed = (features @ key_query.unsqueeze(-1)).squeeze(-1)
        error_gradient = (mixed @ w_pv.transpose(1, 2) - target) * (2.0 / target[0].numel())
        w_pv.grad = error_gradient.transpose(1, 2) @ mixed
        key_query_gradient = (features.transpose(-1, -2) @ (error_gradient @ w_pv).unsqueeze(-1)).squeeze(-1)
        w_kq.grad = key_query_gradient.transpose(1, 2) @ query


class SoftmaxAttention(OneLayerAttention):
    """Eq. 12: x̂ = W_PV X softmax(Xᵀ W_KQ x̃), no temperature.

    Features are the context stored key-major, Xᵀ of shape (..., n, L): then both the scores
    (W_KQ x̃)ᵀ Xᵀ and the mixture softmax(·) X are row-vector-times-matrix products with the long
    axis L contiguous, several times faster on the CPU than the token-major layout. With shared
    features every seed is scored against the batch in one matmul, (B, S, n) @ (B, n, L).
    """

    architecture: ClassVar[str] = "softmax"
    seeds_per_chunk: ClassVar[int] = 1  # seeds whose minibatch gradients are computed together (see below)

    @staticmethod
    def prepare(context: torch.Tensor) -> torch.Tensor:
        """context (N, L, n) → Xᵀ (N, n, L), contiguous."""
        return context.transpose(1, 2).contiguous()

    def forward(self, features: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
        if features.dim() == 3:
            # every seed's query of a prompt against its shared context, as attention with B batches of
            # S queries: torch's fused kernel scores, normalises and mixes a block of keys while it is
            # cached, without writing the (B, S, L) weights (about 1.5× faster on the CPU than the
            # two products and the softmax; the sums run over blocks of keys, a different float order)
            key_query = self._key_query_prompt_major(query) if query.dim() == 2 else self._key_query(query).transpose(0, 1)
            tokens = features.transpose(1, 2).contiguous().unsqueeze(1)  # (B, 1, L, n)
            mixed = F.scaled_dot_product_attention(key_query.contiguous().unsqueeze(1), tokens, tokens, scale=1.0)
            mixed = mixed.squeeze(1).transpose(0, 1)  # (B, S, n) → (S, B, n)
        else:
            key_query = self._key_query(query)  # (S, B, n)
            scores = key_query.unsqueeze(-2) @ features  # (S, B, 1, n) @ (S, B, n, L) → (S, B, 1, L)
            weights = torch.softmax(scores, dim=-1)
            mixed = (weights @ features.transpose(-1, -2)).squeeze(-2)  # (S, B, n)
        return self._apply_value(mixed)

    @torch.no_grad()
    def set_minibatch_gradients(self, minibatch: Callable, index: torch.Tensor) -> None:
        """The gradient of Σ_s MSE_s for eq. 12, derived by hand and computed a few seeds at a time.

        For one prompt, with X (n × L) the context, q = W_KQ x̃, w = softmax(Xᵀ q), m = X w and
        x̂ = W_PV m, and g = ∂MSE/∂x̂ = 2 (x̂ − x) / (B n):
            ∂/∂W_PV = g mᵀ,   g_m = W_PVᵀ g,   ∂/∂q = X (w ⊙ Xᵀ g_m) − (mᵀ g_m) m,   ∂/∂W_KQ = (∂/∂q) x̃ᵀ,
        the softmax Jacobian diag(w) − w wᵀ applied to Xᵀ g_m (its w wᵀ part is m mᵀ g_m). The four
        products with X (scores, mixture, Xᵀ g_m, X (w ⊙ ·)) run while `seeds_per_chunk` seeds'
        contexts are still in the cache. On the 2-core EPYC (L = 500, B = 80, 6 seeds) one seed per
        chunk took 2.5 ms a step, two about the same, three 2.8 ms and all six 4.7 ms; autograd over all
        seeds took 2.9 ms. `tests/unit/test_models.py` holds it to autograd.
        """
        w_kq, w_pv = self.weights["W_KQ"], self.weights["W_PV"]
        w_kq.grad, w_pv.grad = torch.empty_like(w_kq), torch.empty_like(w_pv)
        for first in range(0, index.shape[0], self.seeds_per_chunk):
            chunk = slice(first, first + self.seeds_per_chunk)
            features, query, target = minibatch(index[chunk])  # (k, B, n, L), (k, B, n), (k, B, n)
            key_query = query @ w_kq[chunk].transpose(1, 2)
            weights = torch.softmax((key_query.unsqueeze(2) @ features).squeeze(2), dim=-1)  # (k, B, L)
            mixed = (weights.unsqueeze(2) @ features.transpose(2, 3)).squeeze(2)  # (k, B, n); row times Xᵀ: the fast kernel
            error_gradient = (mixed @ w_pv[chunk].transpose(1, 2) - target) * (2.0 / target[0].numel())
            w_pv.grad[chunk] = error_gradient.transpose(1, 2) @ mixed
            mixed_gradient = error_gradient @ w_pv[chunk]  # (k, B, n)
            weight_gradient = (mixed_gradient.unsqueeze(2) @ features).squeeze(2)  # Xᵀ g_m, (k, B, L)
            key_query_gradient = (((weights * weight_gradient).unsqueeze(2) @ features.transpose(2, 3)).squeeze(2)
                                  - (mixed * mixed_gradient).sum(-1, keepdim=True) * mixed)
            w_kq.grad[chunk] = key_query_gradient.transpose(1, 2) @ query


class StackedSelfAttention(EnsembleModel):
    """`layers` softmax self-attention layers over all tokens, each with its own W_KQ and W_PV and a
    residual connection: Z ← Z + W_PV Z softmax(Zᵀ W_KQ Z), the softmax over keys for each query
    token. Under all-token corruption Z starts at the noisy tokens and the last layer estimates every
    clean token. Parameters W_KQ_ℓ, W_PV_ℓ for ℓ = 1..layers, each (S, n, n).
    """

    architecture: ClassVar[str] = "stacked_self_attention"

    @classmethod
    def initial_parameters(cls, rng, n, layers: int = 1, **options):
        parameters = {}
        for layer in range(1, layers + 1):
            parameters[f"W_KQ_{layer}"] = uniform_matrix(rng, n)
            parameters[f"W_PV_{layer}"] = uniform_matrix(rng, n)
        return parameters

    @property
    def layers(self) -> int:
        return len(self.weights) // 2

    @staticmethod
    def prepare(context: torch.Tensor) -> torch.Tensor:
        return context

    def layer_outputs(self, features: torch.Tensor) -> torch.Tensor:
        """Every layer's tokens, (layers + 1, S, B, T, n): index 0 is the input."""
        tokens = features if features.dim() == 4 else features.expand(self.ensemble_size, *features.shape)
        outputs = [tokens]
        for layer in range(1, self.layers + 1):
            w_kq = self.weights[f"W_KQ_{layer}"].unsqueeze(1)  # (S, 1, n, n)
            w_pv = self.weights[f"W_PV_{layer}"].unsqueeze(1)
            scores = (tokens @ w_kq.transpose(-1, -2)) @ tokens.transpose(-1, -2)  # (W_KQ z_i)·z_j: (S, B, T, T)
            mixed = torch.softmax(scores, dim=-1) @ tokens  # Σ_j a_ij z_j
            tokens = tokens + mixed @ w_pv.transpose(-1, -2)
            outputs.append(tokens)
        return torch.stack(outputs)

    def forward(self, features: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
        return self.layer_outputs(features)[-1]


class TwoStageAttention(EnsembleModel):
    """The all-token study's learned depth (docs/alltoken.md): `layers` Gaussian-kernel self-attention
    layers, each with its own learned bandwidth β_ℓ and step η_ℓ,
    z ← z + η_ℓ (Σ_j softmax_j(−β_ℓ/2 ‖z − z_j‖²) z_j − z), then a cross-attention with learned β_c
    from each noisy token y_i (the long-range skip) to the refined particles. At β_ℓ = β, η_ℓ = η and
    β_c = 1/σ² it is the two-stage estimator of `icdenoise.studies.alltoken.empirical_bayes`.

    Parameters: log_beta and eta (S, layers, 1), log_beta_c (S, 1, 1); bandwidths are learned in logs
    so that they stay positive.
    """

    architecture: ClassVar[str] = "two_stage_attention"
    INITIAL_BETA = (1.0, 20.0)  # log-uniform
    INITIAL_ETA = (0.1, 0.5)
    INITIAL_BETA_C = (0.5, 5.0)  # log-uniform

    @classmethod
    def initial_parameters(cls, rng, n, layers: int = 1, **options):
        log_uniform = lambda bounds, size: rng.uniform(*np.log(bounds), size)  # noqa: E731
        return {"log_beta": log_uniform(cls.INITIAL_BETA, (layers, 1)), "eta": rng.uniform(*cls.INITIAL_ETA, (layers, 1)),
                "log_beta_c": log_uniform(cls.INITIAL_BETA_C, (1, 1))}

    @staticmethod
    def prepare(context: torch.Tensor) -> torch.Tensor:
        return context

    @staticmethod
    def _kernel_mean(queries: torch.Tensor, keys: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
        """Σ_j softmax_j(−β/2 ‖q_i − k_j‖²) k_j; queries, keys (S, B, T, n), beta (S, 1, 1, 1)."""
        return torch.softmax(-beta / 2 * torch.cdist(queries, keys).square(), dim=-1) @ keys

    def forward(self, features: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
        noisy = features if features.dim() == 4 else features.expand(self.ensemble_size, *features.shape)
        particles = noisy
        betas, etas = self.weights["log_beta"].exp(), self.weights["eta"]
        for layer in range(betas.shape[1]):
            beta, eta = betas[:, layer].view(-1, 1, 1, 1), etas[:, layer].view(-1, 1, 1, 1)
            particles = particles + eta * (self._kernel_mean(particles, particles, beta) - particles)
        return self._kernel_mean(noisy, particles, self.weights["log_beta_c"].exp().view(-1, 1, 1, 1))


class SubspaceSelfAttention(EnsembleModel):
    """Wang et al. (2025), eqs. 3-4: `layers` multi-head subspace self-attention (MSSA) steps
    Z ← Z + η Σ_k U_k U_kᵀ Z φ(Zᵀ U_k U_kᵀ Z), one head per subspace, query, key and value all U_kᵀ Z.

    φ acts column by column (on each query token's scores over the keys):
    - ``softmax``: the plain softmax (the paper's experiments);
    - ``thresholded``: h(softmax(·)) with h(x) = τ·1{x > τ} (Theorem 3.1).
    Tokens are rows here, so Z φ(M) is φ(M)ᵀ applied to the (T, n) token matrix; M is symmetric.

    Parameters U_ℓ (S, n, K·p) for ℓ = 1..layers, the K bases [U_1 … U_K] side by side (head k in
    columns k·p … (k+1)·p − 1). With known bases every layer has the same U (`from_bases`); trained,
    each layer learns its own (Sec. 3.1, "The role of backward propagation").

    As a denoiser its estimate of the clean tokens is the last layer's tokens divided by the gain
    (1 + ητ)^layers (τ = 1 for the softmax), the factor by which Theorem 3.1 amplifies the signal: in
    the theorem's regime the signal comes back unchanged and the noise shrinks by that factor.
    """

    architecture: ClassVar[str] = "mssa"
    PHIS: ClassVar[tuple[str, ...]] = ("thresholded", "softmax")

    def __init__(self, parameters, heads: int = 1, eta: float = 1.0, tau: float = 1.0, phi: str = "softmax", **options):
        super().__init__(parameters, heads=heads, eta=eta, tau=tau, phi=phi, **options)
        if phi not in self.PHIS:
            raise ValueError(f"phi must be one of {self.PHIS}, got {phi!r}")
        self.heads, self.eta, self.tau, self.phi = heads, eta, tau, phi

    @classmethod
    def initial_parameters(cls, rng, n, layers: int = 1, heads: int = 1, head_dim: int = 1, **options):
        """Each layer's bases: the columns of a Haar-random (n, heads·head_dim) orthonormal matrix."""
        from icdenoise.maths.tasks import haar_orthonormal_basis

        return {f"U_{layer}": haar_orthonormal_basis(rng, n, heads * head_dim) for layer in range(1, layers + 1)}

    @classmethod
    def from_bases(cls, bases: torch.Tensor, layers: int, eta: float, tau: float, phi: str) -> "SubspaceSelfAttention":
        """The unrolled operator with known bases (S, K, n, p), the same in every layer (eq. 3)."""
        seeds, heads, n, p = bases.shape
        side_by_side = bases.permute(0, 2, 1, 3).reshape(seeds, n, heads * p)
        return cls({f"U_{layer}": side_by_side for layer in range(1, layers + 1)}, heads=heads, eta=eta, tau=tau, phi=phi)

    @property
    def layers(self) -> int:
        return len(self.weights)

    @property
    def gain(self) -> float:
        """(1 + ητ)^layers, Theorem 3.1's signal gain over the whole stack (τ = 1 for the softmax)."""
        return (1.0 + self.eta * (self.tau if self.phi == "thresholded" else 1.0)) ** self.layers

    @staticmethod
    def prepare(context: torch.Tensor) -> torch.Tensor:
        return context

    def head_coordinates(self, tokens: torch.Tensor, layer: int) -> torch.Tensor:
        """U_kᵀ z for every head: tokens (S, B, T, n) → (S, B, K, T, p)."""
        basis = self.weights[f"U_{layer}"]
        coordinates = tokens @ basis.unsqueeze(1)  # (S, B, T, K·p)
        return coordinates.unflatten(-1, (self.heads, -1)).transpose(2, 3)

    def attention(self, coordinates: torch.Tensor) -> torch.Tensor:
        """φ of each head's scores: (S, B, K, T, p) → (S, B, K, T, T), row i the query token's weights."""
        weights = torch.softmax(coordinates @ coordinates.transpose(-1, -2), dim=-1)
        if self.phi == "thresholded":
            weights = self.tau * (weights > self.tau).to(weights.dtype)
        return weights

    def layer_outputs(self, features: torch.Tensor) -> torch.Tensor:
        """Every layer's tokens, (layers + 1, S, B, T, n): index 0 is the input Z⁽⁰⁾."""
        tokens = features if features.dim() == 4 else features.expand(self.ensemble_size, *features.shape)
        outputs = [tokens]
        for layer in range(1, self.layers + 1):
            coordinates = self.head_coordinates(tokens, layer)
            mixed = self.attention(coordinates) @ coordinates  # Σ_j φ_ij U_kᵀ z_j: (S, B, K, T, p)
            update = mixed.transpose(2, 3).flatten(-2) @ self.weights[f"U_{layer}"].transpose(-1, -2).unsqueeze(1)
            tokens = tokens + self.eta * update
            outputs.append(tokens)
        return torch.stack(outputs)

    def forward(self, features: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
        return self.layer_outputs(features)[-1] / self.gain


MODELS: dict[str, type[EnsembleModel]] = {
    cls.architecture: cls
    for cls in (LinearAttention, SoftmaxAttention, StackedSelfAttention, TwoStageAttention, SubspaceSelfAttention)
}


def model_class(architecture: str) -> type[EnsembleModel]:
    """A registered architecture by its name, or a user's class by ``module.path:ClassName``."""
    if ":" not in architecture:
        return MODELS[architecture]
    module, name = architecture.split(":")
    return getattr(importlib.import_module(module), name)


def interface_problems(cls) -> list[str]:
    """What a user's class lacks of the model interface: an `EnsembleModel` subclass implementing
    `initial_parameters`, `prepare` and `forward`, whose `denoises` names registered corruptions."""
    if not (isinstance(cls, type) and issubclass(cls, EnsembleModel)):
        return [f"{cls!r} is not a subclass of icdenoise.maths.models.EnsembleModel"]
    unimplemented = {
        "initial_parameters": cls.initial_parameters.__func__ is EnsembleModel.initial_parameters.__func__,
        "prepare": cls.prepare is EnsembleModel.prepare,
        "forward": cls.forward is nn.Module.forward,
    }
    problems = [f"it does not implement {method}" for method, missing in unimplemented.items() if missing]
    unknown = set(cls.denoises) - set(CORRUPTIONS)
    if not cls.denoises or unknown:
        problems.append(f"its `denoises` ({sorted(cls.denoises)}) must name one or more corruptions of {sorted(CORRUPTIONS)}")
    return problems


def make_model(block: dict, seeds: list[int], n: int) -> EnsembleModel:
    """The ensemble of a config model block (``architecture`` and its options), initialised from `seeds`."""
    options = {key: value for key, value in block.items() if key != "architecture"}
    return model_class(block["architecture"]).initialise(seeds, n, **options)
