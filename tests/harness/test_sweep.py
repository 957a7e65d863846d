"""``simulate --orders`` and ``--vary`` through the real entry point: seeded random
arrival orders, sweeps over a config's weights and strategies, and reports that are the
same, byte for byte, however many workers ran them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from policytest.core.options import CheckOptions
from policytest.harness import runs
from policytest.harness.runs import arrival
from policytest.harness.sweep import SweepError, axis, grid, variants_of
from tests.conftest import RunLine

ROOT = Path(__file__).parent.parent.parent
CONFIGS = ROOT / "fixtures" / "configs"
SNAPSHOT = ROOT / "fixtures" / "snapshots" / "repack.json"
REPACK = ["simulate", "--snapshot", str(SNAPSHOT), "--repack"]


def test_random_orders_are_seeded_permutations() -> None:
    assert arrival(6, 7, 0) == (1, 2, 5, 0, 3, 4)  # the same on every machine and release
    assert arrival(6, 7, 1) == (1, 3, 5, 2, 4, 0)
    assert arrival(6, 8, 0) == (0, 1, 4, 2, 5, 3)
    assert sorted(arrival(1000, 3, 9)) == list(range(1000))


def test_orders_report_the_spread_of_nodes_in_use(run_line: RunLine) -> None:
    args = [*REPACK, "--config", f"Most={CONFIGS / 'kube-most-allocated.yaml'}", "--orders", "3"]
    ran = run_line([*args, "--seed", "7", "--workers", "1", "--format", "json"])
    assert ran.exit_code == 0, ran
    document = json.loads(ran.stdout)
    assert len(document["reports"]) == 1  # the case's own order; the random ones are summed up
    (spread,) = document["orders"]
    assert spread["label"] == "Most" and spread["runs"] == 3 == len(spread["nodesInUse"])
    assert (spread["min"], spread["max"]) == (min(spread["nodesInUse"]), max(spread["nodesInUse"]))
    again = run_line([*args, "--seed", "7", "--workers", "1", "--format", "json"])
    assert again.stdout == ran.stdout
    text = run_line([*args, "--seed", "7", "--workers", "1"]).stdout
    least, median, most = spread["min"], spread["median"], spread["max"]
    assert (
        f"nodes in use over 3 random arrival orders (min, median, max): Most {least}, "
        f"{median:g}, {most}\n"
    ) in text


SWEEP = [
    *REPACK,
    "--config",
    str(CONFIGS / "volcano-binpack-deployment.yaml"),
    "--vary",
    'binpack.weight=1,10,"10"',
    "--vary",
    "podtopologyspread.weight=0,2",
]


def test_a_sweep_names_the_best_candidate_and_leaves_out_corrected_variants(
    run_line: RunLine,
) -> None:
    ran = run_line([*SWEEP, "--workers", "1", "--format", "json"])
    assert ran.exit_code == 0, ran
    document = json.loads(ran.stdout)
    variants = document["sweep"]["variants"]
    assert [v["label"] for v in variants] == [
        "binpack.weight=1 podtopologyspread.weight=0",
        "binpack.weight=1 podtopologyspread.weight=2",
        "binpack.weight=10 podtopologyspread.weight=0",
        "binpack.weight=10 podtopologyspread.weight=2",
        'binpack.weight="10" podtopologyspread.weight=0',
        'binpack.weight="10" podtopologyspread.weight=2',
    ]
    # Volcano ignores a quoted weight (VB001): it runs, as Volcano would run it, but is
    # no candidate
    assert [v["candidate"] for v in variants] == [True] * 4 + [False] * 2
    assert {f["rule"] for f in variants[4]["findings"]} >= {"VB001"}
    nodes = {r["label"]: r["nodesInUse"] for r in document["reports"]}
    assert nodes[variants[4]["label"]] == nodes[variants[0]["label"]]  # weight 1, as ignored
    (best,) = document["sweep"]["best"]
    assert best["label"] == "binpack.weight=10 podtopologyspread.weight=0"
    assert nodes[best["label"]] == min(nodes.values())
    text = run_line([*SWEEP, "--workers", "1"]).stdout
    assert "  best: binpack.weight=10 podtopologyspread.weight=0: 23 nodes in use" in text
    assert "no: corrected" in text


@pytest.mark.parametrize("form", ["text", "json", "html"])
def test_reports_are_the_same_whatever_ran_them(run_line: RunLine, form: str) -> None:
    args = [*SWEEP, "--orders", "2", "--format", form]
    serial = run_line([*args, "--workers", "1"])
    pooled = run_line([*args, "--workers", "2"])
    assert serial.exit_code == pooled.exit_code == 0, pooled
    assert pooled.stdout == serial.stdout


def test_the_html_report_draws_nodes_in_use_against_each_parameter(run_line: RunLine) -> None:
    page = run_line([*SWEEP, "--workers", "1", "--format", "html"]).stdout
    assert page.count('<svg class="sweep"') == 2
    assert 'aria-label="nodes in use against binpack.weight"' in page
    assert "best: <code>binpack.weight=10 podtopologyspread.weight=0</code>" in page


def test_a_value_the_scheduler_refuses_stops_the_sweep_before_any_run(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: Any) -> Any:
        raise AssertionError("a run started")

    monkeypatch.setattr(runs, "pack", never)
    ran = run_line(
        [
            *REPACK,
            "--config",
            str(CONFIGS / "kube-most-allocated.yaml"),
            "--vary",
            "NodeResourcesFit.scoringStrategy.type=MostAllocated,Most",
        ]
    )
    assert ran.exit_code == 1 and ran.stdout == ""
    assert ran.stderr.startswith(
        "policytest: variant NodeResourcesFit.scoringStrategy.type=Most: kube-scheduler "
        "refuses this config and does not start: KS010"
    )


def test_a_run_that_fails_is_named_and_the_others_are_reported(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = runs.pack

    def flaky(workloads: Any, job: runs.PackingJob) -> Any:
        if job.order == 1:
            raise RuntimeError("out of luck")
        return real(workloads, job)

    monkeypatch.setattr(runs, "pack", flaky)
    args = [*REPACK, "--config", str(CONFIGS / "kube-least-allocated.yaml"), "--orders", "3"]
    ran = run_line([*args, "--workers", "1", "--format", "json"])
    assert ran.exit_code == 3
    assert (
        "policytest: run failed: "
        f"{CONFIGS / 'kube-least-allocated.yaml'}, random order 2 of seed 0: "
        "RuntimeError: out of luck\n"
    ) in ran.stderr
    (spread,) = json.loads(ran.stdout)["orders"]
    assert spread["runs"] == 2  # the other orders are reported


def test_kube_scheduler_keys_edit_the_profile_as_a_file_would(tmp_path: Path) -> None:
    keys = [
        axis("NodeResourcesFit.weight=5"),
        axis("NodeResourcesFit.scoringStrategy.resources.cpu=3"),
        axis("NodeResourcesFit.scoringStrategy.resources.nvidia.com/gpu=7"),
        axis("PodTopologySpread.defaultingType=List"),
    ]
    (variant,) = variants_of(str(CONFIGS / "kube-most-allocated.yaml"), keys, None, CheckOptions())
    assert variant.candidate
    fit = variant.scheduler
    assert fit.name == "kube-scheduler"
    text = variant.text
    assert '{"name": "NodeResourcesFit", "weight": 5}' in text
    assert '{"name": "cpu", "weight": 3}' in text and '"defaultingType": List' in text


@pytest.mark.parametrize(
    ("config", "key", "message"),
    [
        ("volcano-binpack-deployment.yaml", "drf.weight=1", "not a binpack or nodeorder argument"),
        ("volcano-binpack-deployment.yaml", "drf:x=1", "the conf has no `drf` plugin"),
        ("kube-most-allocated.yaml", "NodeResourcesFit=1", "expected PLUGIN.weight"),
    ],
)
def test_a_key_with_no_place_in_the_config_is_refused(config: str, key: str, message: str) -> None:
    with pytest.raises(SweepError, match=message):
        variants_of(str(CONFIGS / config), [axis(key)], None, CheckOptions())


def test_the_grid_is_every_combination_and_bounded() -> None:
    assert grid([axis("a=1,2"), axis("b=x,y,z")])[:4] == [
        (("a", "1"), ("b", "x")),
        (("a", "1"), ("b", "y")),
        (("a", "1"), ("b", "z")),
        (("a", "2"), ("b", "x")),
    ]
    with pytest.raises(SweepError, match="more than 1,024"):
        grid([axis("a=" + ",".join(map(str, range(33))))] * 2)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--vary", "binpack.weight"], "expected KEY=VALUE"),
        (
            ["--vary", "binpack.weight=1", "--config", "a.yaml", "--config", "b.yaml"],
            "sweeps one config",
        ),
        (["--orders", "-1"], "expected a count"),
        (["--workers", "0"], "--workers needs at least 1"),
    ],
)
def test_usage_errors(run_line: RunLine, args: list[str], message: str) -> None:
    ran = run_line([*REPACK, "--config", str(CONFIGS / "kube-most-allocated.yaml"), *args])
    assert ran.exit_code == 2
    assert message in ran.stderr
