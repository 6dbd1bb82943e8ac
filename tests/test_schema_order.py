"""One reply model per set of criteria, its schema reordered per candidate: the same schema a
model declared in that order would have, for the cache key and for both providers."""

from __future__ import annotations

import itertools
import json

import anthropic
import pytest
from openai.lib._parsing import type_to_response_format_param
from pydantic import ConfigDict, Field, create_model

from judge.blind_judge import CriterionAnswer, RatedAnswer, reply_model
from judge.llm.providers.anthropic_provider import _reply_schema
from judge.llm.providers.openai_provider import _response_format
from judge.llm.schema import json_schema, reordered

IDS = ("fix-applied", "keeps_api", "Zeta", "c3")


def _declared(order: tuple[str, ...], rated: bool):
    """The model as it was built before: one class per order."""
    entry = RatedAnswer if rated else CriterionAnswer
    fields = {f"c{i}": (entry, Field(alias=cid)) for i, cid in enumerate(order)}
    return create_model("JudgeReply", __config__=ConfigDict(extra="forbid"), **fields)


@pytest.mark.parametrize("rated", [False, True])
@pytest.mark.parametrize("order", list(itertools.permutations(IDS))[::5])
def test_a_reordered_schema_is_the_declared_one_byte_for_byte(order, rated):
    declared, shared = _declared(order, rated), reply_model(order, rated)
    assert shared is reply_model(sorted(order), rated)
    assert json.dumps(json_schema(shared, order)) == json.dumps(declared.model_json_schema())
    assert json.dumps(_response_format(shared, order)) == json.dumps(
        type_to_response_format_param(declared)
    )
    assert json.dumps(_reply_schema(shared, order)) == json.dumps(
        anthropic.transform_schema(declared)
    )


def test_reordering_checks_the_keys_and_keeps_what_is_absent():
    schema = {"type": "object", "properties": {"a": {}, "b": {}}, "title": "T"}
    assert reordered(schema, ()) is schema
    assert reordered(schema, ("b", "a")) == {
        "type": "object",
        "properties": {"b": {}, "a": {}},
        "title": "T",
    }  # no `required` made up where there was none
    assert list(reordered({**schema, "required": ["a"]}, ("b", "a"))["required"]) == ["a"]
    for wrong in (("a",), ("a", "b", "c"), ("a", "x")):
        with pytest.raises(ValueError, match="does not name"):
            reordered(schema, wrong)
