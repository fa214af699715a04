"""A dict's entry made on first use, without building a default on every lookup."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def get_or_make(mapping: dict[K, V], key: K, make: Callable[[], V]) -> V:
    """`mapping[key]`, set to `make()` first if absent (like setdefault, but `make` runs only
    then: a tally over 100,000 candidates built 500,000 unused Counters with setdefault)."""
    value = mapping.get(key)
    if value is None:
        value = mapping[key] = make()
    return value
