"""Tests of generators/: the rule and model question generators."""
