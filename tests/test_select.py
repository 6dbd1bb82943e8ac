"""Best-of-N: every tie rule, empty patches, pairwise tie-breaks in both orders."""

from __future__ import annotations

import pytest

from judge.config import JudgeSettings
from judge.judgement import Judgement
from judge.llm.providers.scripted import install_script
from judge.records import Candidate, Task
from judge.rubric import Criterion, Rubric
from judge.select import Standing, pick, pick_all
from judge.tiebreak import Pair, TieBreakInputs, compare, leader_pairs, round_robin_winner


def standing(cid: str, score: float | None, coverage=1.0, unverified=0.0, size=10, empty=False):
    return Standing("t", cid, score, coverage, unverified, size, empty, {"resolved": cid == "good"})


@pytest.mark.parametrize(
    ("candidates", "epsilon", "winner", "rule"),
    [
        ([standing("a", 0.9), standing("b", 0.5)], 0.0, "a", "score"),
        # within epsilon: higher coverage wins
        ([standing("a", 0.90, coverage=0.8), standing("b", 0.88)], 0.05, "b", "coverage"),
        # then fewer unverified quotes
        (
            [standing("a", 0.9, unverified=2), standing("b", 0.9, unverified=0)],
            0.0,
            "b",
            "unverified_evidence",
        ),
        # then the smaller diff
        ([standing("a", 0.9, size=40), standing("b", 0.9, size=12)], 0.0, "b", "smaller_diff"),
        # then the stable id
        ([standing("b", 0.9), standing("a", 0.9)], 0.0, "a", "stable_id"),
        # outside epsilon the score decides even against better coverage
        ([standing("a", 0.90, coverage=0.5), standing("b", 0.80)], 0.05, "a", "score"),
        # an unknown patch size loses to a known one
        ([standing("a", 0.9, size=None), standing("b", 0.9, size=500)], 0.0, "b", "smaller_diff"),
    ],
)
def test_tie_rules(candidates, epsilon, winner, rule):
    chosen = pick(candidates, epsilon)
    assert (chosen.candidate_id, chosen.decided_by) == (winner, rule)
    assert chosen.candidates == len(candidates)


def test_margin_runner_up_and_tied_list():
    chosen = pick([standing("a", 0.7), standing("b", 0.9), standing("c", 0.88)], epsilon=0.05)
    assert (chosen.candidate_id, chosen.runner_up) == ("b", "c")
    assert chosen.margin == pytest.approx(0.9 - 0.88)
    assert chosen.tied_with == ["c"]
    alone = pick([standing("a", 0.3)])
    assert (alone.decided_by, alone.runner_up, alone.margin) == ("only_candidate", None, None)


def test_empty_patches_are_never_picked_over_non_empty():
    chosen = pick([standing("empty", 0.0, empty=True), standing("weak", 0.0)])
    assert chosen.candidate_id == "weak"
    only_empty = pick([standing("e1", 0.0, empty=True), standing("e2", 0.0, empty=True)])
    assert only_empty.candidate_id == "e1"
    unscored = pick([standing("x", None), standing("y", None, coverage=0.5)])
    assert unscored.candidate_id == "x"


def _judgement(cid: str, run: int, score: float | None, status="scored") -> Judgement:
    return Judgement(
        task_id="t",
        candidate_id=cid,
        run_index=run,
        rubric_hash="h",
        judge_model="m",
        prompt_hash="p",
        status=status,
        score=score,
        coverage=1.0,
        patch_size=5,
    )


def test_pick_all_averages_repeat_runs():
    judgements = [
        _judgement("a", 0, 1.0),
        _judgement("a", 1, 0.2),  # mean 0.6
        _judgement("b", 0, 0.7),
        _judgement("b", 1, None, status="unparsed"),
    ]  # 0.7
    (chosen,) = pick_all(judgements)
    assert chosen.candidate_id == "b"
    assert chosen.score == pytest.approx(0.7)
    assert chosen.margin == pytest.approx(0.7 - 0.6)


def test_the_graded_score_breaks_a_tie_of_binary_scores():
    """Both satisfy every criterion (1.0), but the judge was surer of `b`."""
    a = _judgement("a", 0, 1.0).model_copy(update={"graded_score": 0.81})
    b = _judgement("b", 0, 1.0).model_copy(update={"graded_score": 0.93})
    (chosen,) = pick_all([a, b])
    assert (chosen.candidate_id, chosen.decided_by) == ("b", "score")
    assert chosen.score == pytest.approx(0.93) and chosen.margin == pytest.approx(0.12)
    # without confidence the binary score ranks, and the tie rules decide
    (plain,) = pick_all([_judgement("a", 0, 1.0), _judgement("b", 0, 1.0)])
    assert plain.decided_by == "stable_id" and plain.margin == 0


TASK = Task(task_id="t", description="Fix `area`.")
RUBRIC = Rubric(
    task_id="t",
    generator="g",
    prompt_hash="p",
    criteria=[
        Criterion(id="c1", question="Does `area` use `math.pi`?", weight=5, category="root_cause")
    ],
)


def _candidate(cid: str, line: str) -> Candidate:
    patch = f"diff --git a/g.py b/g.py\n--- a/g.py\n+++ b/g.py\n@@ -1 +1 @@\n-x\n+{line}\n"
    return Candidate(task_id="t", candidate_id=cid, patch=patch, labels={"model": f"secret-{cid}"})


def _prefers(marker: str):
    """A scripted model that prefers the patch containing `marker`, wherever it is shown."""

    def respond(call):
        prompt = call.prompt
        a = prompt.index("Patch A")
        b = prompt.index("Patch B")
        better = "A" if marker in prompt[a:b] else "B"
        return {"reason": "r", "better": better}

    return respond


def _inputs(model: str, *candidates: Candidate, tasks=None) -> TieBreakInputs:
    tasks = tasks or {"t": TASK}
    return TieBreakInputs(
        model, tasks, {c.candidate_id: c for c in candidates}, dict.fromkeys(tasks, RUBRIC)
    )


async def test_consistent_preference_wins_in_both_orders(make_client):
    script = install_script("pw-consistent", _prefers("math.pi"))
    good, bad = _candidate("good", "return math.pi * r * r"), _candidate("bad", "return 3")
    pair = Pair("t", "bad", "good")
    verdicts = await compare(make_client(), _inputs("scripted:pw-consistent", good, bad), [pair],
                             JudgeSettings())  # fmt: skip
    assert verdicts == {pair: "good"}
    assert len(script.calls) == 2
    first, second = script.calls
    assert first.prompt.index("return 3") < first.prompt.index("math.pi * r")  # bad shown as A
    assert second.prompt.index("math.pi * r") < second.prompt.index("return 3")  # then as B
    assert "secret-good" not in first.prompt and "secret-bad" not in second.prompt


async def test_position_bias_is_a_tie(make_client):
    install_script("pw-biased", lambda call: {"reason": "first looks fine", "better": "A"})
    a, b = _candidate("a", "return 1"), _candidate("b", "return 2")
    verdicts = await compare(make_client(), _inputs("scripted:pw-biased", a, b),
                             [Pair("t", "a", "b")], JudgeSettings())  # fmt: skip
    assert verdicts == {Pair("t", "a", "b"): None}


async def test_round_robin_among_three(make_client):
    install_script("pw-robin", _prefers("math.pi"))
    leaders = [
        _candidate("x", "return 1"),
        _candidate("good", "return math.pi * r * r"),
        _candidate("y", "return 2"),
    ]
    ids = [c.candidate_id for c in leaders]
    pairs = leader_pairs("t", ids, top_k=3)
    verdicts = await compare(make_client(), _inputs("scripted:pw-robin", *leaders), pairs,
                             JudgeSettings())  # fmt: skip
    winner, details = round_robin_winner(ids, verdicts)
    assert winner == "good"
    assert details["wins"] == {"x": 0, "good": 2, "y": 0}  # x vs y: always "B", orders disagree
    assert details["order_disagreements_or_ties"] == 1
    assert details["comparisons"] == 6


async def test_comparisons_run_concurrently_within_the_bound(make_client, settings):
    """20 tied tasks with three leaders: 120 requests, in flight together up to the bound."""
    script = install_script("pw-many", _prefers("math.pi"), delay_s=0.01)
    tasks = {
        f"t{i}": Task(task_id=f"t{i}", description=f"Fix `area` in module {i}.") for i in range(20)
    }  # distinct prompts: no cache hit between tasks
    candidates = [
        Candidate(task_id=t, candidate_id=f"{t}@{n}", patch=_candidate(n, line).patch)
        for t in tasks
        for n, line in (("x", "return 1"), ("good", "return math.pi"), ("y", "return 2"))
    ]
    pairs = [p for t in tasks for p in leader_pairs(t, [f"{t}@x", f"{t}@good", f"{t}@y"], 3)]
    client = make_client(settings.model_copy(update={"concurrency": 8}))
    verdicts = await compare(client, _inputs("scripted:pw-many", *candidates, tasks=tasks),
                             pairs, JudgeSettings())  # fmt: skip
    assert len(script.calls) == 120 and len(verdicts) == 60
    assert script.most_in_flight == 8  # bounded, and never one at a time
    assert sum(v is not None and v.endswith("@good") for v in verdicts.values()) == 40
