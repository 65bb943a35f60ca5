"""The maths of in-context denoising, free of files and of the pipeline: tasks and corruptions (how
prompts are drawn), the closed-form denoisers and their Bayes formulas, the attention models, their
training, and scoring. Nothing here reads or writes a table, or imports the records or the pipeline."""
