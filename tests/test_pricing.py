"""Cost arithmetic from configs/prices.yaml, and the run ledger."""

from __future__ import annotations

import logging

import pytest

from judge.llm.pricing import Ledger, PriceTable, cost_usd, load_prices
from judge.llm.types import ConfigError, Usage


@pytest.fixture(scope="module")
def prices() -> PriceTable:
    return load_prices()


@pytest.mark.parametrize(
    ("model", "tokens", "expected"),
    [
        # gpt-4.1-mini: 0.40 input, 0.10 cached input, 1.60 output per million
        ("openai:gpt-4.1-mini", (1000, 200, 500), (800 * 0.40 + 200 * 0.10 + 500 * 1.60) / 1e6),
        # claude-sonnet-4-6: 3.00 input, 0.30 cached input, 15.00 output per million
        ("anthropic:claude-sonnet-4-6", (2000, 0, 100), (2000 * 3.00 + 100 * 15.00) / 1e6),
        # a glob entry: every local model is free
        ("local:qwen2.5-coder-32b", (10_000, 0, 5_000), 0.0),
    ],
)
def test_cost_is_tokens_times_price(prices, model, tokens, expected):
    assert cost_usd(prices, model, *tokens) == pytest.approx(expected)


def test_batch_discount_halves_the_cost(prices):
    full = cost_usd(prices, "openai:gpt-4.1", 1000, 0, 1000)
    assert full == pytest.approx((1000 * 2.00 + 1000 * 8.00) / 1e6)
    assert cost_usd(prices, "openai:gpt-4.1", 1000, 0, 1000, batch=True) == pytest.approx(
        full * 0.5
    )


def test_unknown_model_costs_none_with_a_warning(prices, caplog):
    with caplog.at_level(logging.WARNING):
        assert cost_usd(prices, "openai:gpt-unknown-model", 100, 0, 100) is None
    assert "gpt-unknown-model" in caplog.text
    assert "unknown" in caplog.text


def test_missing_cached_rate_falls_back_to_input_rate():
    table = PriceTable.model_validate({"models": {"x:y": {"input": 1.0, "output": 2.0}}})
    assert cost_usd(table, "x:y", 1000, 400, 0) == pytest.approx((600 * 1.0 + 400 * 1.0) / 1e6)


def test_bad_price_table_names_the_file(tmp_path):
    bad = tmp_path / "prices.yaml"
    bad.write_text("models:\n  a:b: {input: -1, output: 1}\n")
    with pytest.raises(ConfigError, match=r"prices\.yaml"):
        load_prices(bad)


def test_usage_sum_keeps_unknown_cost_unknown():
    known = Usage(model="m", input_tokens=10, output_tokens=5, cost_usd=0.25)
    unknown = Usage(model="m", input_tokens=1, output_tokens=1, cost_usd=None)
    assert (known + known).cost_usd == pytest.approx(0.25 + 0.25)
    assert (known + unknown).cost_usd is None
    assert (known + unknown).input_tokens == 10 + 1
    assert (known + known).calls == 2


def test_ledger_totals_per_model_and_ignores_cached_tokens():
    ledger = Ledger()
    ledger.add(Usage(model="a", input_tokens=100, output_tokens=10, cost_usd=0.5))
    ledger.add(Usage(model="a", input_tokens=100, output_tokens=10, cost_usd=0.0, cache_hits=1))
    ledger.add(Usage(model="b", input_tokens=50, output_tokens=5, cost_usd=0.25))
    rows = ledger.as_dict()
    assert rows["a"]["calls"] == 2 and rows["a"]["cache_hits"] == 1
    assert rows["a"]["input_tokens"] == 100  # the hit's tokens were paid for earlier
    assert rows["total"]["cost_usd"] == pytest.approx(0.5 + 0.25)
    assert rows["total"]["output_tokens"] == 10 + 5


def test_bill_separates_batch_live_and_savings():
    from judge.llm.pricing import Ledger, money
    from judge.llm.types import Usage

    ledger = Ledger()
    ledger.add_batch("k1", Usage(model="m", input_tokens=10, cost_usd=0.25))
    ledger.add(Usage(model="m", input_tokens=5, cost_usd=1.0))  # a live call
    ledger.add(Usage(model="m", cache_hits=1))  # a hit on k1: bought by this run
    ledger.add_saving("k1", 0.5)
    ledger.add(Usage(model="m", cache_hits=1))  # a hit on an older reply
    ledger.add_saving("k0", 0.75)
    bill = ledger.bill()
    assert bill["spent_usd"] == 0.25 + 1.0
    assert (bill["batch_usd"], bill["batch_requests"]) == (0.25, 1)
    assert (bill["live_usd"], bill["live_calls"]) == (1.0, 1)
    assert (bill["cache_hits"], bill["saved_usd"]) == (2, 0.75)
    ledger.add_saving("k2", None)  # an unknown price makes the saving unknown, never 0
    assert ledger.bill()["saved_usd"] is None and money(None) == "unknown"
