"""A progress bar for long runs: items done, cost so far, cache hits."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from judge.llm.pricing import Ledger, money


def ledger_line(ledger: Ledger, done: int = 0, planned: int = 0) -> str:
    """Cost so far, and once some work is done an estimate for all of it at the same rate."""
    total = ledger.total()
    estimate = ""
    if total.cost_usd is not None and 0 < done < planned:
        estimate = f" (≈ ${total.cost_usd / done * planned:.4f} for all {planned})"
    bill = ledger.bill()
    batch = f", batch {money(bill['batch_usd'])}" if bill["batch_requests"] else ""
    saved = f" (saved {money(bill['saved_usd'])})" if total.cache_hits else ""
    return (
        f"cost {money(total.cost_usd)}{batch}{estimate} · {total.calls} calls · "
        f"{total.cache_hits} cache hits{saved}"
    )


@contextmanager
def progress_bar(console: Console, label: str) -> Iterator[Callable[[int, int, Ledger], None]]:
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[money]}"),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(label, total=None, money="")
        throttle = Throttle(
            lambda done, total, ledger: bar.update(
                task, completed=done, total=total, money=ledger_line(ledger, done, total)
            )
        )
        try:
            yield throttle
        finally:
            throttle.flush()


class Throttle:
    """Passes on at most one update per `every_s` (and always the last one, on `flush`): the
    bar redraws ten times a second, and formatting the ledger for each of 100,000 items cost
    more than a tenth of a run's time."""

    def __init__(self, apply: Callable[..., None], every_s: float = 0.1) -> None:
        self.apply, self.every_s = apply, every_s
        self.last = -every_s
        self.latest: tuple | None = None

    def __call__(self, *args) -> None:
        self.latest = args
        if time.monotonic() - self.last >= self.every_s:
            self.flush()

    def flush(self) -> None:
        if self.latest is not None:
            self.apply(*self.latest)
            self.latest, self.last = None, time.monotonic()
