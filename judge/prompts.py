"""Prompts are jinja2 templates under `prompts/`, one file per message role.

`NAME.system.j2` and `NAME.user.j2` form one prompt. Each template starts with a comment that
lists its variables (`{# variables: a, b #}`); loading checks the list against what the template
really uses, and rendering with `StrictUndefined` fails on a missing one. A prompt's version is
the hash of its text, stored with every result it produced.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jinja2 import Environment, StrictUndefined, Template, meta

from judge.llm.paths import prompt_path
from judge.llm.types import ConfigError, Message

_DECLARED = re.compile(r"\{#\s*variables:\s*([^#]*)#\}")
_env = Environment(undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False)


@dataclass(frozen=True)
class Prompt:
    name: str
    system: Template
    user: Template
    variables: frozenset[str]
    hash: str

    def render(self, **variables: Any) -> list[Message]:
        missing = self.variables - variables.keys()
        if missing:
            raise ConfigError(f"prompt {self.name} needs {', '.join(sorted(missing))}")
        return [
            Message(role="system", content=self.system.render(**variables).strip()),
            Message(role="user", content=self.user.render(**variables).strip()),
        ]


def _declared(source: str, file_name: str) -> set[str]:
    match = _DECLARED.search(source)
    if match is None:
        raise ConfigError(f"prompt {file_name} lacks its '{{# variables: ... #}}' header")
    return {v.strip() for v in match.group(1).split(",") if v.strip()}


def _template(name: str, role: str) -> tuple[Template, set[str], str]:
    file_name = f"{name}.{role}.j2"
    source = prompt_path(file_name).read_text(encoding="utf-8")
    used = meta.find_undeclared_variables(_env.parse(source))
    declared = _declared(source, file_name)
    if used != declared:
        raise ConfigError(
            f"prompt {file_name}: header lists {sorted(declared)} but it uses {sorted(used)}"
        )
    return _env.from_string(source), used, source


@lru_cache(maxsize=16)
def load_prompt(name: str) -> Prompt:
    system, system_vars, system_src = _template(name, "system")
    user, user_vars, user_src = _template(name, "user")
    digest = hashlib.sha256(f"{system_src}\0{user_src}".encode()).hexdigest()[:16]
    return Prompt(name, system, user, frozenset(system_vars | user_vars), digest)
