"""Where Ray tasks say which stage they are in and since when (read when a task dies or hangs).

One `StageBoard` actor per run. A task's `BoardMark.enter(stage)` waits until the
board has the stage (the worker may crash right after); the board stamps each
task's start with its own clock, so the driver's per-file time limit never
compares clocks of different machines.
"""

from __future__ import annotations

import time
from typing import Any

import ray

START = "start"


class StageBoard:
    """Each running task's current stage and start time (the body of a Ray actor)."""

    def __init__(self) -> None:
        self.stages: dict[int, str] = {}
        self.started: dict[int, float] = {}

    def enter(self, key: int, stage: str) -> None:
        self.stages[key] = stage
        self.started.setdefault(key, time.monotonic())

    def stage(self, key: int) -> str:
        return self.stages.get(key, START)

    def forget(self, key: int) -> None:
        self.stages.pop(key, None)
        self.started.pop(key, None)

    def overdue(self, limit: float) -> list[int]:
        """Tasks that started more than `limit` seconds ago and are still on the board."""
        now = time.monotonic()
        return [key for key, since in self.started.items() if now - since > limit]


class BoardMark:
    """A task's `Progress`: reports each stage to the board (and remembers the last one)."""

    def __init__(self, board: Any, key: int) -> None:
        self.board = board
        self.key = key
        self.stage = START

    def enter(self, stage: str) -> None:
        self.stage = stage
        ray.get(self.board.enter.remote(self.key, stage))
