"""Judge prompts built ahead in worker processes, handed back in input order.

Scoring from the cache, and exporting a batch, spend their time on CPU work per candidate:
blinding, parsing and budgeting the diff, rendering the prompt (about 150 µs of the 380 µs a
candidate costs in one process). The model call is then a cache lookup. On a machine with more
than one core, workers build the prompts of the next candidates while the main process asks,
validates and writes; the prompts are pure functions of their inputs, so the judgements are
byte-identical to a run without workers.

Memory stays bounded: candidates go out in chunks and only a few chunks are in flight. Workers
start from a fork server (not from the running process, whose other threads could hold locks
at fork time) and get the tasks, rubrics and settings once, when they start.

A fork server imports the program's main module again, which re-runs a script that lacks an
`if __name__ == "__main__":` guard. So workers start on their own (`prompt_workers` unset) only
under the command line, whose entry points are guarded; a library caller sets the number.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from judge.blind_judge import JudgePrompt, build_judge_prompt
from judge.config import JudgeSettings
from judge.diff import DiffError
from judge.records import Candidate, Task
from judge.rubric import Rubric

CHUNK = 64
CHUNKS_AHEAD_PER_WORKER = 2
MAX_AUTO_WORKERS = 4
MIN_AUTO_ITEMS = 2_000  # below this, starting workers costs more than it saves

class BuildFailure(Exception):
    """Any other error building one candidate's prompt, as text (an exception from a worker
    may not pickle); it fails that candidate alone, with the message it has in-process."""


Built = JudgePrompt | DiffError | BuildFailure | None
"""A prompt; the error building it raised; None for an empty patch (no prompt)."""


@dataclass(frozen=True)
class PromptJob:
    """Everything a worker needs besides the candidates: sent once per worker."""

    tasks: dict[str, Task]
    rubrics: dict[str, Rubric]
    settings: JudgeSettings
    hybrid: bool
    confidence: str


def asked_rubric(rubric: Rubric, hybrid: bool) -> Rubric:
    """The criteria the model is asked: all of them, or with `hybrid` those without a check
    (the checked ones are answered statically)."""
    if not hybrid:
        return rubric
    return rubric.model_copy(update={"criteria": [c for c in rubric.criteria if c.check is None]})


def build_prompt(job: PromptJob, candidate: Candidate, run: int) -> Built:
    if not candidate.patch.strip():
        return None
    try:
        task = job.tasks[candidate.task_id]
        rubric = asked_rubric(job.rubrics[candidate.task_id], job.hybrid)
        return build_judge_prompt(task, candidate, rubric, job.settings, run, None, job.confidence)
    except DiffError as exc:
        return exc
    except Exception as exc:  # one candidate's failure, never the whole run's
        return BuildFailure(str(exc))


_JOB: PromptJob | None = None


def _start_worker(job: PromptJob) -> None:
    global _JOB
    _JOB = job


def _build_chunk(chunk: list[tuple[Candidate, int]]) -> list[Built]:
    assert _JOB is not None, "worker started without its job"
    return [build_prompt(_JOB, candidate, run) for candidate, run in chunk]


_AUTO = {"allowed": False}


def allow_auto_workers(allowed: bool = True) -> None:
    """The command line calls this: its main modules are guarded (see the module docstring)."""
    _AUTO["allowed"] = allowed


def auto_workers(setting: int | None, planned: int, cores: int | None = None) -> int:
    """Workers to start: the setting when given (0: none); else, under the command line, one
    less than the cores, at most four, and none for a small run or a one-core machine."""
    if setting is not None:
        return setting
    cores = cores if cores is not None else (os.cpu_count() or 1)
    if not _AUTO["allowed"] or planned < MIN_AUTO_ITEMS:
        return 0
    return min(max(cores - 1, 0), MAX_AUTO_WORKERS)


class PromptPool:
    """`with PromptPool(job, workers) as pool: for candidate, run, built in pool.build(work)`."""

    def __init__(self, job: PromptJob, workers: int) -> None:
        self.workers = workers
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__])
        self._executor = ProcessPoolExecutor(
            workers, mp_context=context, initializer=_start_worker, initargs=(job,)
        )

    def __enter__(self) -> PromptPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def build(
        self, work: Iterable[tuple[Candidate, int]]
    ) -> Iterator[tuple[Candidate, int, Built]]:
        """Each (candidate, run) with its prompt, in input order, at most a few chunks ahead."""
        window: deque = deque()
        ahead = max(self.workers * CHUNKS_AHEAD_PER_WORKER, 1)
        items = iter(work)
        while chunk := list(itertools.islice(items, CHUNK)):
            window.append((chunk, self._executor.submit(_build_chunk, chunk)))
            if len(window) > ahead:
                yield from _joined(*window.popleft())
        while window:
            yield from _joined(*window.popleft())


def _joined(chunk: list[tuple[Candidate, int]], future) -> Iterator[tuple[Candidate, int, Built]]:
    for (candidate, run), built in zip(chunk, future.result(), strict=True):
        yield candidate, run, built
