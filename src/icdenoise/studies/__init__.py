"""The built-in studies, one package each: a paper or a set of experiments on the common core.

A study package holds its maths and tables (analysis modules), its drawings (``plots/``), its claims,
its config checks and job sizes (``study.py``), and its workflow (``workflow/``: rules, schema, scripts
and report captions). The config's ``studies`` block names the packages a run builds
(icdenoise.pipeline.registry); nothing outside a study names it.
"""
