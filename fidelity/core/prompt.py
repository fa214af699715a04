"""Versioned prompt files: fidelity/core/prompts/<name>.md with a front matter and two turns.

    ---
    name: text-questions
    version: 2
    ---
    ## system
    ...
    ## user
    ... {{chunk}} ...

`{{field}}` slots are filled by `messages(...)`; a missing or unused value is an
error, so a prompt and its caller cannot drift apart silently. `tag` ("name@version")
goes into every candidate's provenance.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from fidelity.core.llm.messages import Message, system, user

PROMPT_DIR = Path(__file__).resolve().parent / "prompts"
_SLOT = re.compile(r"\{\{(\w+)\}\}")


@dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    system: str
    user: str

    @property
    def tag(self) -> str:
        return f"{self.name}@{self.version}"

    def messages(
        self, images: Iterable[str] = (), detail: str = "auto", **values: object
    ) -> list[Message]:
        wanted = set(_SLOT.findall(self.system)) | set(_SLOT.findall(self.user))
        if wanted != set(values):
            raise KeyError(f"prompt {self.tag} wants {sorted(wanted)}, got {sorted(values)}")

        def fill(text: str) -> str:
            return _SLOT.sub(lambda match: str(values[match.group(1)]), text)

        return [system(fill(self.system)), user(fill(self.user), images, detail)]


def parse(text: str) -> Prompt:
    match = re.match(r"---\n(.*?)\n---\n(.*)", text, re.DOTALL)
    if not match:
        raise ValueError("prompt file has no front matter")
    front = dict(line.split(":", 1) for line in match.group(1).splitlines() if ":" in line)
    meta = {key.strip(): value.strip() for key, value in front.items()}
    turns = re.split(r"^## (system|user)\s*$", match.group(2), flags=re.MULTILINE)
    sections = dict(zip(turns[1::2], (t.strip() for t in turns[2::2]), strict=True))
    if not {"name", "version"} <= set(meta) or set(sections) != {"system", "user"}:
        raise ValueError("prompt file needs name, version, a '## system' and a '## user' turn")
    return Prompt(meta["name"], meta["version"], sections["system"], sections["user"])


@cache
def load(name: str) -> Prompt:
    prompt = parse((PROMPT_DIR / f"{name}.md").read_text())
    if prompt.name != name:
        raise ValueError(f"{name}.md declares name {prompt.name!r}")
    return prompt
