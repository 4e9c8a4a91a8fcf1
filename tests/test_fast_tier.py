"""The fast tier (`./test.sh fast`: `-m "not slow and not engine"`): a test whose fixtures need
the built engine or the tiny models is marked `engine` from its fixtures, and an engine build
asked for in the fast tier fails the asking test instead of building."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests import conftest


class _Item(SimpleNamespace):
    def add_marker(self, mark: pytest.MarkDecorator) -> None:
        self.marks.append(mark.name)


def test_a_test_using_an_engine_fixture_is_marked_engine() -> None:
    names = sorted(conftest.ENGINE_FIXTURES)
    items = [_Item(fixturenames=["tmp_path", name], marks=[]) for name in names]
    plain = _Item(fixturenames=["tmp_path", "qtbot"], marks=[])
    conftest.pytest_collection_modifyitems(None, [*items, plain])  # type: ignore[arg-type]
    assert all(item.marks == ["engine"] for item in items)
    assert plain.marks == []


def test_the_engine_fixtures_are_the_ones_that_build(request: pytest.FixtureRequest) -> None:
    """Each name is a fixture (a renamed one would leave its tests in the fast tier), and the
    fixtures that build or generate are among them."""
    manager = request._fixturemanager
    for name in conftest.ENGINE_FIXTURES:
        assert manager.getfixturedefs(name, request.node), name
    assert {"sd_stage", "sd_stage_vulkan", "tiny_models"} <= conftest.ENGINE_FIXTURES


def test_the_fast_tier_refuses_an_engine_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(conftest.FAST_TIER_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="mark this test `engine`"):
        conftest._build_engine("--test-hooks")
    monkeypatch.delenv(conftest.FAST_TIER_ENV)
    conftest.refuse_in_fast_tier("engine build")  # outside the fast tier: no refusal
