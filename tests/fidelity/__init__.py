"""Tests of fidelity/: pipeline, workers and Ray, model client, review, report, coverage, regen."""
