"""The memory study's probes outside the DAG: exploratory measurements that no rule reads and no claim decides,
each run as `python -m icdenoise.studies.memory.tools.<name>` from the repository's root."""
