"""All-token corruption as two-stage empirical Bayes (Smart et al. 2026, via the explainer in
shared/papers; docs/alltoken.md): its figures' tables, claims and config checks."""
