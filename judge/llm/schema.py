"""A reply model's JSON schema with its top-level keys listed in a given order.

Structured output makes a model write the keys in schema order, so the judge lists criteria in
an order shuffled per candidate (against position bias). A pydantic model per order would cost
a class build and two schema walks, about a millisecond, for nearly every candidate of a rubric
with 8–12 criteria. Instead one model per set of keys validates every reply, and its schema,
walked once, is reordered: the result equals the schema of a model declared in that order.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel


def reordered(schema: dict, order: tuple[str, ...]) -> dict:
    """`schema` with `properties` and `required` in `order` (which must name every property);
    an empty order leaves it as it is."""
    if not order:
        return schema
    properties = schema["properties"]
    if sorted(order) != sorted(properties):
        raise ValueError(f"order {list(order)} does not name the schema's keys {list(properties)}")
    changed = {**schema, "properties": {key: properties[key] for key in order}}
    if "required" in schema:
        required = set(schema["required"])
        changed["required"] = [key for key in order if key in required]
    return changed


@lru_cache(maxsize=1024)
def _plain_schema(response_model: type[BaseModel]) -> dict:
    return response_model.model_json_schema()


def json_schema(response_model: type[BaseModel], order: tuple[str, ...] = ()) -> dict:
    """The model's JSON schema (by alias, as pydantic writes it) in `order`."""
    return reordered(_plain_schema(response_model), order)
