"""A user's mistake (a missing input, a bad setting): one line per problem, exit status 2."""

from __future__ import annotations


class Mistake(Exception):
    """Something the user asked that cannot be done as asked; each problem is one line."""

    def __init__(self, *problems: str) -> None:
        super().__init__("\n".join(problems))
        self.problems = list(problems)
