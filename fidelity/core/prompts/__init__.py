"""Versioned prompt files of the model generators, read by generators.model.prompt."""
