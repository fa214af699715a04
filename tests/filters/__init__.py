"""Tests of filters/: guessability, leakage, answerability, dedup, quality."""
