"""The starter study's one claim: the noisy query's MSE/n is σ_z² (noisy_query.py)."""

from __future__ import annotations

from scipy import stats

from icdenoise.records.claims import LEVEL, Claim, Frames, Measurement


def mse_over_noise_variance(frames: Frames, spec: dict) -> Measurement:
    """MSE/n over σ_z², one value per case. Every case is drawn from the same seed, so the cases share their noise
    draws and their errors are not independent: a t-interval over the cases would be too narrow. The interval is
    the cases' mean ± z · the mean of their Monte-Carlo standard errors, exact when the errors are perfectly
    correlated and wider otherwise."""
    table = frames["noisy_query"]
    values = table["ratio"].to_numpy()
    half = float(stats.norm.ppf(0.5 + LEVEL / 2) * (table["sem"] / table["sigma_z_sq"]).mean())
    return Measurement(values, (values.mean() - half, values.mean() + half),
                       "the cases' Monte-Carlo errors, taken as fully correlated (one noise seed)")


CLAIMS = {
    "noisy_query_mse_is_noise_variance": Claim("noisy_query.py", "the noisy query's MSE per coordinate is σ_z²",
                                               mse_over_noise_variance),
}
