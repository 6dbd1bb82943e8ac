"""A progress bar for long runs: items done, cost so far, cache hits."""

from __future__ import annotations

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

        def update(done: int, total: int, ledger: Ledger) -> None:
            bar.update(task, completed=done, total=total, money=ledger_line(ledger, done, total))

        yield update
