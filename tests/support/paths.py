"""Where the project's own test corpus lives: real Office files copied into tests/corpus."""

from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
