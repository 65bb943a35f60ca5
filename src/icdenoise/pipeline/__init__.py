"""The plumbing of the Snakemake workflow: the config and its checks, the study registry, job sizes and
cluster placement, job logging, the warm start and the code inputs of rules. It computes no number, so
editing it re-runs no job (icdenoise.pipeline.codedeps), and it never imports torch."""
