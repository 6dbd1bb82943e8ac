"""The model layer: everything that talks to a model and knows nothing of rubrics or patches.

Start with `types.py` (the provider protocol, one screen). `client.py` is what every stage calls;
`providers/` holds one small class per backend; `retry`, `structured`, `cache`, `pricing` and
`runner` are the client's parts; `batching`, `batch_files` and `batch_runner` turn calls into
provider batches. Nothing here imports from outside `judge.llm`.
"""
