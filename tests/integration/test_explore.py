"""`--context explore`: a scripted exploration over a repository the test builds reads the
right files at the base commit only, cannot read outside the repository, respects the step
bound, resumes from the cache after a kill, and ends with a linted rubric; the same loop runs
through both real SDKs against the loopback server's tool-call replies."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.llm.providers.scripted import install_script
from judge.repo.tools import RepoTools
from judge.rubric_store import load_rubrics
from tests.integration.test_task_mode import _writer

pytestmark = pytest.mark.integration
runner = CliRunner(env={"COLUMNS": "250"})

EXPLORATION = [
    {"name": "list_dir", "arguments": {"path": "calc"}},
    {"name": "search", "arguments": {"pattern": "def add"}},
    {"name": "read_file", "arguments": {"path": "calc/ops.py", "start": 1, "end": 40}},
    {"name": "read_file", "arguments": {"path": "../../etc/passwd", "start": 1, "end": 5}},
    {"name": "show_definition", "arguments": {"name": "summary"}},
]


def _explorer(call) -> dict:
    """One tool per turn, in the order above, then the rubric."""
    turns = sum(1 for m in call.messages if m.role == "tool")
    if call.tools and turns < len(EXPLORATION):
        return {"tool_calls": [EXPLORATION[turns]]}
    return _writer(call)


def _rubrics(tasks_file, repos_dir, out, config, generator, *extra):
    return runner.invoke(app, ["rubrics", str(tasks_file), "--generator", generator,
                               "--rubric-source", "task", "--context", "explore",
                               "--repos-dir", str(repos_dir), "--out", str(out),
                               "--config", str(config), *extra])  # fmt: skip


@pytest.fixture
def tasks_file(calc_tasks_file):
    return calc_tasks_file


def test_a_scripted_exploration_reads_the_base_commit_and_writes_a_linted_rubric(
    calc_repo, tasks_file, tmp_path, fast_config
):
    repos_dir, _, _ = calc_repo
    script = install_script("explorer", _explorer)
    out = tmp_path / "rubrics.jsonl"
    result = _rubrics(tasks_file, repos_dir, out, fast_config, "scripted:explorer")
    assert result.exit_code == 0, result.output
    assert len(script.calls) == len(EXPLORATION) + 1
    rubric = load_rubrics(out)["calc-1"]
    steps = rubric.exploration
    assert [s["tool"] for s in steps] == [c["name"] for c in EXPLORATION]
    assert "ops.py" in steps[0]["output"] and "calc/ops.py:4:def add(a, b):" in steps[1]["output"]
    assert "total = a - b" in steps[2]["output"]  # the base commit's code...
    assert all("secret_fixed_sum" not in s["output"] for s in steps)  # ...never the fix's
    assert steps[3]["output"].startswith("error: refused path")
    assert "def summary(xs):" in steps[4]["output"] and steps[4]["chars"] > 0
    assert len(rubric.criteria) == 5 and rubric.source == "task"
    last = script.calls[-1]
    assert [m.role for m in last.messages].count("tool") == len(EXPLORATION)
    assert all("secret_fixed_sum" not in m.content for m in last.messages)
    again = _rubrics(tasks_file, repos_dir, out, fast_config, "scripted:explorer", "--force")
    assert again.exit_code == 0 and len(script.calls) == len(EXPLORATION) + 1  # from the cache


def test_the_step_bound_withdraws_the_tools(calc_repo, tasks_file, tmp_path, fast_config):
    repos_dir, _, _ = calc_repo
    greedy = install_script("greedy", lambda call: {"tool_calls": [EXPLORATION[1]]}
                            if call.tools else _writer(call))  # fmt: skip
    bounded = tmp_path / "bounded.yaml"
    bounded.write_text(fast_config.read_text() + "rubrics:\n  explore_max_steps: 3\n")
    result = _rubrics(tasks_file, repos_dir, tmp_path / "r.jsonl", bounded, "scripted:greedy")
    assert result.exit_code == 0, result.output
    assert len(greedy.calls) == 4 and not greedy.calls[-1].tools  # 3 turns, then answer now
    assert "No more tools" in greedy.calls[-1].messages[-1].content
    assert len(load_rubrics(tmp_path / "r.jsonl")["calc-1"].exploration) == 3


def test_tools_stay_inside_the_repository_and_the_commit(calc_repo):
    repos_dir, base, fix = calc_repo
    tools = RepoTools(repos_dir / "calc" / "calc", base)
    assert "secret_fixed_sum" not in tools.run("read_file", {"path": "calc/ops.py"})
    assert "secret_fixed_sum" in RepoTools(tools.clone, fix).run(
        "read_file", {"path": "calc/ops.py"}
    )  # the same tool at a later commit would show it: the commit is what keeps it out
    for bad in ({"path": "/etc/passwd"}, {"path": "calc/../../x"}):
        assert tools.run("read_file", bad).startswith("error: refused path")
    assert RepoTools(tools.clone, "HEAD").run("list_dir", {"path": ""}).startswith("error")
    assert tools.run("nope", {}).startswith("error: unknown tool")
    assert tools.run("search", {"pattern": "("}).startswith("error: bad pattern")
    assert tools.run("read_file", {"path": "calc/ops.py", "bogus": 1}).startswith("error: bad")
    assert tools.run("show_definition", {"name": "x; rm"}).startswith("error: not a name")
    long = tools.run("search", {"pattern": "."})
    assert len(long) <= 6_000 + 80


@pytest.mark.parametrize("spec", ["openai:gpt-4.1-mini", "anthropic:claude-haiku-4-5"])
async def test_an_exploration_through_both_sdks(spec, calc_repo, tasks_file, tmp_path, server,
                                                http_settings):  # fmt: skip
    from judge.config import load_app_settings
    from rubric_gen.run import RubricJob, generate_rubrics

    repos_dir, _, _ = calc_repo

    def responder(body: dict) -> str:
        turns = sum(1 for m in body["messages"] if m["role"] == "tool" or (
            isinstance(m["content"], list)
            and any(b.get("type") == "tool_result" for b in m["content"])))  # fmt: skip
        if body.get("tools") and turns < 2:
            return json.dumps({"tool_calls": [EXPLORATION[turns + 1]]})
        return json.dumps(_writer(None))

    server.responder = responder
    settings = load_app_settings().model_copy(update={"llm": http_settings})
    out = tmp_path / "rubrics.jsonl"
    job = RubricJob(str(tasks_file), spec, out, repos_dir=repos_dir, source="task",
                    context="explore")  # fmt: skip
    summary = await generate_rubrics(job, settings)
    assert summary.errors == [] and summary.generated == 1
    rubric = load_rubrics(out)["calc-1"]
    assert [s["tool"] for s in rubric.exploration] == ["search", "read_file"]
    assert "total = a - b" in rubric.exploration[1]["output"]
    bodies = [r.body for r in server.requests]
    assert len(bodies) == 3 and all(b.get("tools") for b in bodies)
    second = json.dumps(bodies[1]["messages"])
    assert ("tool_call_id" in second) if spec.startswith("openai") else ("tool_result" in second)


def test_a_killed_exploration_resumes_from_the_cache(calc_repo, tasks_file, tmp_path,
                                                     fast_config):  # fmt: skip
    from judge.llm.types import PermanentError

    repos_dir, _, _ = calc_repo

    def dies_after_two(call):
        if sum(1 for m in call.messages if m.role == "tool") >= 2:
            return PermanentError("the process was killed here")
        return _explorer(call)

    install_script("dying", dies_after_two)
    out = tmp_path / "rubrics.jsonl"
    first = _rubrics(tasks_file, repos_dir, out, fast_config, "scripted:dying")
    assert first.exit_code == 1 and "killed here" in first.output
    resumed = install_script("dying", _explorer)  # same model name: same cache keys
    second = _rubrics(tasks_file, repos_dir, out, fast_config, "scripted:dying")
    assert second.exit_code == 0, second.output
    assert len(resumed.calls) == len(EXPLORATION) + 1 - 2  # the first two turns were cached
    assert len(load_rubrics(out)["calc-1"].exploration) == len(EXPLORATION)


def test_an_exploration_in_batch_mode_runs_as_rounds(calc_repo, tasks_file, tmp_path,
                                                      fast_config):  # fmt: skip
    repos_dir, _, _ = calc_repo
    script = install_script("batch-explorer", _explorer)
    out = tmp_path / "rubrics.jsonl"
    config = tmp_path / "b.yaml"
    config.write_text(fast_config.read_text() + "batch:\n  poll_interval_s: 0\n")
    result = _rubrics(tasks_file, repos_dir, out, config, "scripted:batch-explorer", "--batch")
    assert result.exit_code == 0, result.output
    state = json.loads(out.with_name(out.name + ".batches.json").read_text())
    assert len(state["batches"]) == len(EXPLORATION) + 1  # one batch per turn
    assert len(script.calls) == len(EXPLORATION) + 1  # each turn asked once, in its batch
    assert len(load_rubrics(out)["calc-1"].exploration) == len(EXPLORATION)


def test_the_leak_audit_reads_every_tool_result():
    from judge.llm.types import Message, ToolCall
    from validation.leak_audit import LeakAudit

    audit = LeakAudit()
    fix = "+    total = secret_fixed_sum(a, b)\n"
    audit.add_fix_lines("calc-1", fix, "add() subtracts")
    audit.add_task_tests({"FAIL_TO_PASS": ["tests/t.py::test_add_negative_numbers"]})
    call = ToolCall(id="c0", name="search", arguments={"pattern": "x"})
    transcript = [
        Message(role="system", content="You write grading rubrics."),
        Message(role="user", content="Task calc-1: add() subtracts.\nWrite the rubric."),
        Message(role="assistant", content="", tool_calls=(call,)),
        Message(role="tool", tool_call_id="c0",
                content="total = secret_fixed_sum(a, b)\ntest_add_negative_numbers"),
    ]  # fmt: skip
    audit.scan("scripted:explorer", transcript)
    summary = audit.summary()
    assert summary["fix_line_leaks"] == 1 and summary["pipeline_leaks"] == 1
