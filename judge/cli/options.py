"""Every option the commands share, declared once as an `Annotated` alias.

A command's signature then reads as a list of what it takes; help texts and panels stay the
same wherever an option appears.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer


def _opt(flag: str, help: str, panel: str, **extra: Any) -> Any:
    return typer.Option(flag, help=help, rich_help_panel=panel, **extra)


# Input
TasksArg = Annotated[
    str, typer.Argument(help="Tasks: .jsonl/.json/.parquet, a saved dataset or a hub id.")
]
CandidatesArg = Annotated[str, typer.Argument(help="Candidate patches (JSONL).")]
RunDirArg = Annotated[Path, typer.Argument(help="A run folder written by `score` or `validate`.")]
RubricsOption = Annotated[Path, _opt("--rubrics", "Frozen rubrics JSONL.", "Input")]
SplitOption = Annotated[str, _opt("--split", "Split of a Hugging Face dataset.", "Input")]
ReposDirOption = Annotated[
    Path | None, _opt("--repos-dir", "Local git clones for repository context.", "Input")
]
DataOption = Annotated[
    str | None,
    _opt(
        "--data",
        "SWE-bench instances: file, saved dataset or hub id (default: shipped sample).",
        "Input",
    ),
]
LabelledOption = Annotated[
    list[str] | None,
    _opt(
        "--candidates",
        "Labelled candidates: JSONL, a folder of them, or an experiments run folder.",
        "Input",
    ),
]
LimitOption = Annotated[int | None, _opt("--limit", "Only the first N tasks.", "Input", min=1)]
ReposOption = Annotated[
    list[str] | None, _opt("--repos", "Only tasks of these repositories; repeatable.", "Input")
]
GroupOption = Annotated[
    list[str] | None,
    _opt("--group", "PATTERN=SYSTEM: runs matching the regex are one system; repeatable.", "Input"),
]
SystemsOption = Annotated[
    Path | None, _opt("--systems", "System rules YAML (default configs/systems.yaml).", "Input")
]
HostileOption = Annotated[
    bool,
    _opt("--hostile", "Add attack variants of one patch per task; report score changes.", "Input"),
]

# Model
GeneratorOption = Annotated[
    str, _opt("--generator", "Rubric generator: provider:model or reference.", "Model")
]
JudgeOption = Annotated[
    str, _opt("--judge", "Judge: provider:model, scripted:NAME or reference.", "Model")
]
RunsOption = Annotated[
    int, _opt("--runs", "Repeat runs per candidate (sample indices 0..K-1).", "Model", min=1)
]
HybridOption = Annotated[
    bool, _opt("--hybrid", "Answer criteria that carry a check statically.", "Model")
]

TieBreakOption = Annotated[
    str | None,
    _opt("--tiebreak", "provider:model comparing tied candidates blind, in both orders.", "Model"),
]
TieBreakBudgetOption = Annotated[
    int,
    _opt("--tiebreak-budget", "Most tied resolved/unresolved pairs compared.", "Model", min=0),
]

RubricSourceOption = Annotated[
    str,
    _opt("--rubric-source",
         "task: the generator never sees the merged fix (what users deploy); reference: built "
         "from it (an upper bound); auto: task for an LLM generator.", "Model"),
]  # fmt: skip

ContextOption = Annotated[
    str,
    _opt("--context",
         "With --repos-dir: retrieve (ranked code, one call) or explore (the generator reads "
         "the repository with tools, several calls).", "Model"),
]  # fmt: skip

# Output
RunOutOption = Annotated[Path, _opt("--out", "Run folder (resumed if it exists).", "Output")]
CompareToOption = Annotated[
    Path | None,
    _opt("--compare-to", "An earlier metrics.json: adds a 'since last time' section.", "Output"),
]
FailOnRegressionOption = Annotated[
    bool, _opt("--fail-on-regression", "Exit 1 when a figure regressed beyond its CI.", "Output")
]
NoBaselineOption = Annotated[
    bool, _opt("--no-baseline", "Skip the reference-judge baseline.", "Output")
]

BrowseOption = Annotated[
    bool, _opt("--browse", "Also write the browsable pages of the run (OUT/browse/).", "Output")
]

# Settings
ConfigOption = Annotated[
    Path | None, _opt("--config", "YAML settings file (see configs/default.yaml).", "Settings")
]
NoCacheOption = Annotated[bool, _opt("--no-cache", "Bypass the reply cache.", "Settings")]
ConcurrencyOption = Annotated[
    int | None, _opt("--concurrency", "Requests in flight (default 8).", "Settings")
]
SetOption = Annotated[
    list[str] | None,
    _opt(
        "--set",
        "Override one setting, e.g. llm.providers.openai.base_url=http://localhost:8000/v1.",
        "Settings",
    ),
]
BatchOption = Annotated[
    bool,
    _opt(
        "--batch",
        "Send requests through the provider batch APIs (half price); resumable.",
        "Settings",
    ),
]
