"""Helpers the tests share: a stub OpenAI endpoint, hostile packages, worker tasks, review runs."""
