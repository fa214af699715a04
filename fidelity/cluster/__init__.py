"""Per-file work on a Ray cluster: the executor, per-node services, how work items travel."""
