"""Custom Volcano plugins (loaded with --plugins-dir) are known once the project settings
list them under ``volcano.plugins``; until then VC004 points at the settings file and
suggests no unrelated real plugin."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import DATA, RunLine

CUSTOM_PLUGIN_DOC = DATA / "volcano" / "corpus" / "docs" / "custom-plugin-1.yaml"
FORK = DATA / "realrepos" / "custom-builds" / "volcano-custom-plugins.yaml"


@pytest.mark.parametrize(
    ("path", "plugins"), [(CUSTOM_PLUGIN_DOC, ["magic"]), (FORK, ["magic", "topology910"])]
)
def test_custom_plugins_are_vc004_until_declared(
    run_line: RunLine, tmp_path: Path, path: Path, plugins: list[str]
) -> None:
    settings = tmp_path / "settings.yaml"
    settings.write_text("ignore: [VB012]\n")
    result = run_line(["validate", "--settings", settings, path])
    assert result.exit_code == 1, result
    for name in plugins:
        assert f"VC004 error: unknown plugin `{name}`" in result.stdout
    assert "did you mean" not in result.stdout
    assert "list it under `volcano.plugins` in the project settings file" in result.stdout
    settings.write_text(f"ignore: [VB012]\nvolcano:\n  plugins: [{', '.join(plugins)}]\n")
    result = run_line(["validate", "--settings", settings, path])
    assert result.exit_code == 0, result


def test_a_slip_in_a_real_plugin_name_is_still_suggested(run_line: RunLine, tmp_path: Path) -> None:
    conf = tmp_path / "volcano-scheduler.conf"
    conf.write_text(
        'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: binpak\n  - name: magic\n'
    )
    settings = tmp_path / "settings.yaml"
    settings.write_text("volcano:\n  plugins: [magic]\n")
    result = run_line(["validate", "--settings", settings, conf])
    assert "unknown plugin `binpak`" in result.stdout
    assert "did you mean `binpack`?" in result.stdout
    assert "`magic`" not in result.stdout
