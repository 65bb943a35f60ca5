"""Tables on disk and what reads them back: Parquet artifacts with their provenance, datasets, trained
ensembles, the claims ledgers and the leaderboard with their Markdown, and the figures' look and files."""
