"""Grouping runs into systems: repeat runs and prompt variants of one agent+model are one
system; runs under a changed task (e.g. the issue text removed) are a separate condition."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from judge.llm.paths import config_path
from judge.llm.settings import read_yaml
from judge.llm.types import ConfigError

STANDARD = "standard"


class SystemRule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str
    system: str
    condition: str = STANDARD


class SystemRules(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: list[SystemRule] = []

    def assign(self, run: str) -> tuple[str, str]:
        """(system, condition) of a run name; an unmatched run is its own system."""
        for rule in self.rules:
            if re.search(rule.pattern, run):
                return rule.system, rule.condition
        return run, STANDARD


def load_system_rules(path: Path | None = None) -> SystemRules:
    source = path or config_path("systems.yaml")
    try:
        rules = SystemRules.model_validate(read_yaml(source))
        for rule in rules.rules:
            re.compile(rule.pattern)
    except (ValidationError, re.error) as exc:
        raise ConfigError(f"invalid system rules {source}: {exc}") from exc
    return rules


def parse_group_option(values: list[str]) -> SystemRules:
    """`--group PATTERN=SYSTEM` options, checked before the file rules."""
    rules = []
    for value in values:
        pattern, sep, system = value.partition("=")
        if not sep or not pattern or not system:
            raise ConfigError(f"--group {value!r}: write PATTERN=SYSTEM")
        rules.append(SystemRule(pattern=pattern, system=system))
    return SystemRules(rules=rules)
