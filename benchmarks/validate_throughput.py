"""Figure 2, validation throughput: a tree of 1,000 mixed config files, one process.

The tree (generated into a temp dir): Volcano confs and KubeSchedulerConfigurations,
raw and inside ConfigMaps, with varied weights, a few with findings. Compared with
check-jsonschema run over the same files, each kind with its own bundled schema
(it cannot look inside a ConfigMap, so those are checked against the outer document:
the same parsing work, fewer rules). Run:

    python benchmarks/validate_throughput.py [--files 1000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from importlib import resources

from workloads import calibration, configmap, median, policytest_command, runs, volcano_conf

KUBE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: scheduler-{index}
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: {strategy}
        resources:
        - name: cpu
          weight: {cpu}
        - name: memory
          weight: 1
"""
STRATEGIES = ("MostAllocated", "LeastAllocated", "MostAllocated", "MostAlocated")


def write_tree(root: str, count: int) -> dict[str, list[str]]:
    """``count`` files under ``root``; returns the paths by the schema that fits them."""
    groups: dict[str, list[str]] = {"volcano-scheduler-conf": [], "kubescheduler-config-v1": []}
    for index in range(count):
        team = os.path.join(root, f"team-{index % 20:02d}")
        os.makedirs(team, exist_ok=True)
        volcano = volcano_conf(weight=index % 12, least=index % 2, gpu=index % 7 - 1)
        kube = KUBE.format(
            index=index, strategy=STRATEGIES[index % len(STRATEGIES)], cpu=1 + index % 120
        )
        shape = index % 4
        if shape == 0:
            path, text, schema = f"volcano-{index}.yaml", volcano, "volcano-scheduler-conf"
        elif shape == 1:
            path = f"volcano-cm-{index}.yaml"
            text = configmap("volcano-scheduler-configmap", "volcano-scheduler.conf", volcano)
            schema = "volcano-scheduler-conf"
        elif shape == 2:
            path, text, schema = f"kube-{index}.yaml", kube, "kubescheduler-config-v1"
        else:
            path = f"kube-cm-{index}.yaml"
            text = configmap("scheduler-config", "scheduler-config.yaml", kube)
            schema = "kubescheduler-config-v1"
        full = os.path.join(team, path)
        with open(full, "w", encoding="utf-8") as handle:
            handle.write(text)
        groups[schema].append(full)
    return groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(calibration())
    with tempfile.TemporaryDirectory() as scratch:
        tree = os.path.join(scratch, "tree")
        groups = write_tree(tree, args.files)
        ours = runs(policytest_command("validate", tree), args.runs)
        wall = median([r.wall for r in ours])
        print(
            f"policytest validate {args.files} files: median {wall:.2f} s "
            f"({args.files / wall:.0f} files/s; CPU {median([r.cpu for r in ours]):.2f} s; "
            f"{args.runs} runs); target <= 3 s -> {'met' if wall <= 3 else 'MISSED'}"
        )
        checker = shutil.which("check-jsonschema")
        if checker is None:
            print("check-jsonschema not installed: comparison skipped")
            return
        total = []
        for _ in range(args.runs):
            spent = 0.0
            for schema, paths in groups.items():
                schema_path = os.path.join(scratch, f"{schema}.schema.json")
                with open(schema_path, "w", encoding="utf-8") as handle:
                    handle.write(
                        (resources.files("policytest.schemas") / f"{schema}.schema.json").read_text(
                            "utf-8"
                        )
                    )
                (run,) = runs([checker, "--schemafile", schema_path, *paths], 1, warm=0)
                spent += run.wall
            total.append(spent)
        theirs = median(total)
        print(
            f"check-jsonschema on the same {args.files} files (one process per schema): "
            f"median {theirs:.2f} s ({args.files / theirs:.0f} files/s)"
        )


if __name__ == "__main__":
    main()
