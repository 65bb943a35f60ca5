"""Experiments beside the papers: sweeps declared in config and comparisons across named runs (docs/experiments.md)."""
