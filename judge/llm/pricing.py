"""Token prices and the usage ledger: what a run cost, with unknown prices kept unknown."""

from __future__ import annotations

import fnmatch
import logging
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge.llm.paths import config_path
from judge.llm.settings import read_yaml
from judge.llm.types import ConfigError, Usage

log = logging.getLogger(__name__)


class Price(BaseModel):
    """USD per million tokens."""

    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0)
    cached_input: float | None = Field(default=None, ge=0)
    output: float = Field(ge=0)


class PriceTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    batch_discount: float = Field(default=0.5, gt=0, le=1)
    models: dict[str, Price] = Field(default_factory=dict)

    def lookup(self, model: str) -> Price | None:
        """Exact `provider:model` first, then glob patterns such as `local:*`."""
        if model in self.models:
            return self.models[model]
        matches = [p for key, p in self.models.items() if fnmatch.fnmatchcase(model, key)]
        return matches[0] if matches else None


def load_prices(path: Path | None = None) -> PriceTable:
    source = path or config_path("prices.yaml")
    try:
        return PriceTable.model_validate(read_yaml(source))
    except ValidationError as exc:
        raise ConfigError(f"invalid price table {source}: {exc}") from exc


_warned: set[str] = set()


def cost_usd(
    table: PriceTable,
    model: str,
    input_tokens: int,
    cached_input_tokens: int,
    output_tokens: int,
    batch: bool = False,
) -> float | None:
    """Cost of one call; None (with one warning per model) when the model has no price."""
    price = table.lookup(model)
    if price is None:
        if model not in _warned:
            _warned.add(model)
            log.warning(
                "no price for %s in the price table: its cost is reported as unknown", model
            )
        return None
    cached_rate = price.input if price.cached_input is None else price.cached_input
    uncached = max(input_tokens - cached_input_tokens, 0)
    total = (
        uncached * price.input + cached_input_tokens * cached_rate + output_tokens * price.output
    )
    discount = table.batch_discount if batch else 1.0
    return total / 1_000_000 * discount


@dataclass
class Ledger:
    """Running totals per model for one run; cache hits count as calls that cost nothing.

    Apart from the totals it keeps what a user asks of a run's bill: how much went through
    provider batches (at the batch price), and what the cache hits saved at live prices —
    leaving out hits on replies this run's own batches bought, which were paid for here."""

    by_model: dict[str, Usage] = field(default_factory=dict)
    batch_cost_usd: float | None = 0.0
    batch_requests: int = 0
    saved_usd: float | None = 0.0
    imported: set[str] = field(default_factory=set)

    def add(self, usage: Usage) -> None:
        """A cache hit counts as a call and a hit; its tokens were paid for by an earlier run."""
        if usage.cache_hits:
            usage = Usage(model=usage.model, calls=usage.calls, cache_hits=usage.cache_hits)
        current = self.by_model.get(usage.model)
        self.by_model[usage.model] = usage if current is None else current + usage

    def add_batch(self, key: str, usage: Usage) -> None:
        """A reply bought through a batch of this run; a later cache hit on it saves nothing."""
        self.add(usage)
        self.imported.add(key)
        self.batch_requests += 1
        self.batch_cost_usd = add_costs(self.batch_cost_usd, usage.cost_usd)

    def add_saving(self, key: str, live_cost: float | None) -> None:
        if key not in self.imported:
            self.saved_usd = add_costs(self.saved_usd, live_cost)

    def total(self) -> Usage:
        total = Usage(model="total", calls=0)
        for usage in self.by_model.values():
            total = total + usage
        return total.model_copy(update={"model": "total"})

    def bill(self) -> dict[str, float | int | None]:
        """What this run spent (batch and live apart) and what its cache hits saved."""
        total = self.total()
        live = (
            None
            if total.cost_usd is None or self.batch_cost_usd is None
            else total.cost_usd - self.batch_cost_usd
        )
        return {
            "spent_usd": total.cost_usd,
            "batch_usd": self.batch_cost_usd,
            "batch_requests": self.batch_requests,
            "live_usd": live,
            "live_calls": total.calls - total.cache_hits - self.batch_requests,
            "cache_hits": total.cache_hits,
            "saved_usd": self.saved_usd,
        }

    def as_dict(self) -> dict[str, dict]:
        rows = {name: u.model_dump() for name, u in self.by_model.items()}
        rows["total"] = self.total().model_dump()
        return rows


def add_costs(total: float | None, cost: float | None) -> float | None:
    return None if total is None or cost is None else total + cost


def money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"
