"""Versioned prompt files of the LLM generators and checks, read by fidelity.core.prompt."""
