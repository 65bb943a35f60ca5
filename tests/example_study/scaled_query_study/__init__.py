"""An example study, outside the package: the best scalar shrinkage of the noisy query alone, x̂ = c·x̃.

It shows what a study is (docs/architecture.md, "Adding a study"): one folder, named once in the
config's `studies` block. The tests register it through a config file and build it locally and on SLURM.
"""
