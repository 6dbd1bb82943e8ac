"""Leak audit: do any prompts carry test content (test names, test-patch lines)?

Every prompt the run sends (or looks up in the cache) is scanned for the FAIL_TO_PASS test names
and the distinctive lines of the `test_patch` of every task. A hit whose text also occurs in a
legitimate input (an issue text, hints, a reference or candidate patch — issues sometimes name
the failing test themselves) is reported as *in the inputs*. A hit that stands only inside text a
model wrote (a rubric's criteria, shown to the judge) is *in model text*: the generator never saw
the tests, so such a hit is the model's own words (e.g. an expected value derived from the
issue's example), not something the pipeline passed on — though the generator's own prompt is
scanned too. Any other hit is a *leak by the pipeline*, and that count must be 0.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from judge.llm.types import Message
from rubric_gen.generator import is_generator_prompt

MIN_LINE_CHARS = 30
MIN_FIX_CHARS = 12  # shorter added lines (`return x`, `pass`) are everywhere
_TEST_NAME = re.compile(r"(test\w{4,})")
MAX_LISTED = 50


def failing_test_names(fail_to_pass: Iterable[str]) -> set[str]:
    """`path::Class::test_x[param]` or `test_x (module.Class)` → `test_x`."""
    names = set()
    for entry in fail_to_pass:
        last = str(entry).split("::")[-1].split("[")[0].split(" ")[0]
        if match := _TEST_NAME.search(last):
            names.add(match.group(1))
    return names


def distinctive_test_lines(test_patch: str) -> set[str]:
    """Added lines of the test patch long enough to be distinctive."""
    lines = set()
    for line in (test_patch or "").splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            text = line[1:].strip()
            if len(text) >= MIN_LINE_CHARS:
                lines.add(text)
    return lines


@dataclass
class LeakAudit:
    """Collects needles once, then scans each prompt as it is sent."""

    needles: dict[str, str] = field(default_factory=dict)  # text -> "test_name" | "test_line"
    legitimate: list[str] = field(default_factory=list)
    model_text: set[str] = field(default_factory=set)
    fix_lines: dict[str, str] = field(default_factory=dict)  # line -> task id
    task_texts: dict[str, str] = field(default_factory=dict)
    at_base: Callable[[str, str], bool] | None = None
    fix_findings: list[dict] = field(default_factory=list)
    prompts_scanned: int = 0
    findings: list[dict] = field(default_factory=list)

    def add_task_tests(self, withheld: dict) -> None:
        for name in failing_test_names(withheld.get("FAIL_TO_PASS") or []):
            self.needles[name] = "test_name"
        for line in distinctive_test_lines(withheld.get("test_patch") or ""):
            self.needles[line] = "test_line"

    def add_legitimate(self, texts: Iterable[str | None]) -> None:
        self.legitimate += [t for t in texts if t]

    def add_fix_lines(self, task_id: str, reference_patch: str | None, task_text: str) -> None:
        """Task mode: lines the merged fix adds must never reach a generator prompt, unless the
        task text itself holds them or they already exist at the base commit."""
        for line in (reference_patch or "").splitlines():
            text = line[1:].strip()
            if line.startswith("+") and not line.startswith("+++") and len(text) >= MIN_FIX_CHARS:
                self.fix_lines[text] = task_id
        self.task_texts[task_id] = task_text

    def _scan_fix_lines(self, model: str, text: str) -> None:
        for needle, task_id in self.fix_lines.items():
            if needle not in text or needle in self.task_texts.get(task_id, ""):
                continue
            exists = self.at_base is not None and self.at_base(task_id, needle)
            self.fix_findings.append(
                {"task_id": task_id, "text": needle[:120], "model": model, "at_base": exists}
            )

    def add_model_text(self, texts: Iterable[str | None]) -> None:
        """Text a model wrote that later prompts carry (rubric questions and anchors)."""
        self.model_text |= {t for t in texts if t}

    def _only_in_model_text(self, needle: str, text: str) -> bool:
        for written in sorted(self.model_text, key=len, reverse=True):
            text = text.replace(written, "")
        return needle not in text

    def scan(self, model: str, messages: Sequence[Message]) -> None:
        self.prompts_scanned += 1
        text = "\n".join(m.content for m in messages)
        if self.fix_lines and is_generator_prompt(messages):
            self._scan_fix_lines(model, text)
        for needle, kind in self.needles.items():
            if needle in text:
                in_inputs = any(needle in source for source in self.legitimate)
                in_model_text = not in_inputs and self._only_in_model_text(needle, text)
                self.findings.append(
                    {
                        "kind": kind,
                        "text": needle[:120],
                        "model": model,
                        "in_inputs": in_inputs,
                        "in_model_text": in_model_text,
                    }
                )

    def summary(self) -> dict:
        in_model = [f for f in self.findings if f.get("in_model_text")]
        leaks = [f for f in self.findings if not f["in_inputs"] and not f.get("in_model_text")]
        return {
            "prompts_scanned": self.prompts_scanned,
            "needles": len(self.needles),
            "hits": len(self.findings),
            "hits_in_inputs": len(self.findings) - len(leaks) - len(in_model),
            "hits_in_model_text": len(in_model),
            "pipeline_leaks": len(leaks),
            "fix_lines": len(self.fix_lines),
            "fix_line_leaks": sum(1 for f in self.fix_findings if not f["at_base"]),
            "fix_line_hits_at_base": sum(1 for f in self.fix_findings if f["at_base"]),
            "examples": self.findings[:MAX_LISTED],
        }
