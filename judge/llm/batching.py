"""Deferring requests to a batch: one request format for every stage.

In defer mode the LLM client answers what it can from the cache and, instead of calling the
provider on a miss, records the request (keyed by its cache key, which becomes the batch
`custom_id`) and fails that item with `DeferredRequest`. The stage's other work goes on. Once
the batch results are imported into the cache, re-running the stage completes from the cache.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from judge.llm.types import LLMError, LLMRequest

BATCH_URL = "/v1/chat/completions"


class DeferredRequest(LLMError):
    """Not an error: the request waits for a batch."""


@dataclass(frozen=True)
class PendingRequest:
    custom_id: str
    spec: str
    request: LLMRequest
    structured: str = "json_schema"

    @property
    def provider(self) -> str:
        return self.spec.partition(":")[0]

    @property
    def model(self) -> str:
        return self.spec.partition(":")[2]

    def openai_body(self) -> dict:
        from judge.llm.providers import openai_provider  # the SDK loads only when batching

        r = self.request
        return openai_provider.request_body(
            self.model, list(r.messages), r.response_model, r.options, r.tools, r.response_order
        )

    def anthropic_body(self) -> dict:
        from judge.llm.providers import anthropic_provider

        r = self.request
        return anthropic_provider.request_body(
            self.model,
            list(r.messages),
            r.response_model,
            r.options,
            self.structured,
            r.tools,
            r.response_order,
        )

    def openai_line(self) -> dict:
        return {
            "custom_id": self.custom_id,
            "method": "POST",
            "url": BATCH_URL,
            "body": self.openai_body(),
        }

    def anthropic_request(self) -> dict:
        return {"custom_id": self.custom_id, "params": self.anthropic_body()}


@dataclass
class BatchCollector:
    pending: dict[str, PendingRequest] = field(default_factory=dict)

    def add(self, pending: PendingRequest) -> None:
        self.pending.setdefault(pending.custom_id, pending)

    def __len__(self) -> int:
        return len(self.pending)
