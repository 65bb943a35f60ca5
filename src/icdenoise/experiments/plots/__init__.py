"""The drawings of the sweeps and of the comparison across runs: each reads its tables and draws."""
