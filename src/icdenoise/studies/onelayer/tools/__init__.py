"""The onelayer study's tools outside the DAG: measurements that no rule reads and no claim decides, each run as
`python -m icdenoise.studies.onelayer.tools.<name>` from the repository's root."""
