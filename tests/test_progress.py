"""The progress bar's throttle: the first update shows at once, later ones within the window
are folded into the latest, and the last one is never lost."""

from __future__ import annotations

import pytest

from judge.cli.progress import Throttle


@pytest.fixture
def applied() -> list[tuple]:
    return []


def test_updates_within_the_window_fold_into_the_latest(applied):
    throttle = Throttle(lambda *args: applied.append(args), every_s=3600)
    for done in range(1, 6):
        throttle(done, 5)
    assert applied == [(1, 5)]  # the first at once, the rest waiting
    throttle.flush()
    assert applied == [(1, 5), (5, 5)]  # the last one shown, the ones between skipped
    throttle.flush()
    assert applied == [(1, 5), (5, 5)]  # nothing new: nothing redrawn


def test_without_a_window_every_update_passes(applied):
    throttle = Throttle(lambda *args: applied.append(args), every_s=0)
    for done in range(3):
        throttle(done, 3)
    throttle.flush()
    assert applied == [(0, 3), (1, 3), (2, 3)]
    assert throttle.latest is None
