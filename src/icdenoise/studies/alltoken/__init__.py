"""All-token corruption as two-stage empirical Bayes (Smart et al. 2026, via its explainer "When Every Token
Is Noisy"; docs/alltoken.md): its figures' tables, claims and config checks."""
