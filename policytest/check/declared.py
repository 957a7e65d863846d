"""The release a config's own files say it is for, and judging it as that release.

A config often states its scheduler's release beside it: a kops ``Cluster`` (or a
kubeadm ``ClusterConfiguration``) in the same file has ``kubernetesVersion``; the
scheduler image that mounts it has a tag (``registry.k8s.io/kube-scheduler:v1.30.2``,
``volcanosh/vc-scheduler:v1.9.0``, a fork's ``vc-scheduler:v2.0-vc1.3-arm64``,
scheduler-plugins' ``v0.34.7``, built on Kubernetes 1.34). Judging such a config as the
default release reports what that release does, not what the cluster runs: a kops
cluster on 1.24 reads ``v1beta2``, which 1.36 no longer serves.

Precedence, for each scheduler on its own: a ``--kubernetes-version`` /
``--volcano-version`` flag (and an upgrade preview's target) judges every config as it
says; else the release the config's files state; else the settings file's; else the
default. A stated release outside the table is not judged as another one: the config
gets one PT009 info saying so, and how to judge it anyway.
"""

from __future__ import annotations

import re

from policytest.check.bundle import KUBE, SCHEDULER_PLUGINS, VOLCANO, Bundle, Chart, Runner
from policytest.core.findings import Finding, Severity
from policytest.core.options import CheckOptions
from policytest.core.records import record, replace
from policytest.core.releases import (
    KUBE_RELEASES,
    VOLCANO_RELEASES,
    KubeRelease,
    Version,
    VolcanoRelease,
    parse_release,
    show,
    supported_range,
)
from policytest.core.rules import rule
from policytest.read.nodes import MappingNode
from policytest.read.recognise import (
    SCHEDULER_PLUGINS_VALUES_KEY,
    VOLCANO_VALUES,
    VOLCANO_VALUES_KEY,
)
from policytest.read.source import Document, child, mapping_items, scalar

PT009_UNJUDGED_RELEASE = rule(
    "PT009",
    Severity.INFO,
    "the config's files say it is for a release policytest does not judge",
    """
    A config is judged as the release its own files state: a kops ``Cluster`` or a
    kubeadm ``ClusterConfiguration`` in the same file (``kubernetesVersion``), or the tag
    of the scheduler image that runs it (a Deployment in the same file, or beside it
    mounting it: ``registry.k8s.io/kube-scheduler:v1.30.2``, ``volcanosh/vc-scheduler:
    v1.9.0``, a fork's ``...-vc1.3-...``, scheduler-plugins' ``v0.34.7`` for Kubernetes
    1.34), or its chart (the image tag in its values, ``Chart.yaml``). When that release
    is not one policytest models, judging the config as another one would report what
    that other release does (``v1beta2`` refused by 1.36 in a cluster that runs 1.24), so
    the config is not checked and this info says so. To judge it anyway, pass
    ``--kubernetes-version`` or ``--volcano-version`` (a flag wins over what the files
    say); upgrading the cluster to a release in the table makes it checked. See
    docs/releases.md.

    Failing::

        apiVersion: kops.k8s.io/v1alpha2
        kind: Cluster
        metadata: {name: example.k8s.local}
        spec:
          kubernetesVersion: v1.24.0
        ---
        apiVersion: kubescheduler.config.k8s.io/v1beta2
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler

    Passing::

        apiVersion: kops.k8s.io/v1alpha2
        kind: Cluster
        metadata: {name: example.k8s.local}
        spec:
          kubernetesVersion: v1.34.2
        ---
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
    """,
)

_FIELDS = {
    KUBE: ("kubernetes_version", "--kubernetes-version"),
    VOLCANO: ("volcano_version", "--volcano-version"),
}
_FORK_RELEASE = re.compile(r"(?:^|[-_.])vc-?v?(\d+)\.(\d+)")
"""A fork's tag that names the Volcano release it is built on (``v2.0-vc1.3-arm64``)."""
_TAG_RELEASE = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+][0-9A-Za-z.-]*)?")


@record(frozen=True)
class Declared:
    """A release a config's files state, and where they state it."""

    scheduler: str
    version: Version
    source: str
    """```kubernetesVersion: v1.24.0` of the kops Cluster `example`, line 6``."""

    @property
    def release(self) -> str:
        return show(self.version)


def declared_release(
    config: Document,
    scheduler: str,
    documents: tuple[Document, ...],
    runners: tuple[Runner, ...],
    chart: Chart | None = None,
) -> Declared | None:
    """The release the config's own file (a cluster definition, a chart's values), the
    scheduler that runs it or its chart (``Chart.yaml`` beside it, or above the chart's
    ``config/``) states, in that order; ``None`` when nothing states one, or the runners
    disagree."""
    if scheduler == KUBE:
        cluster = _cluster_release(documents)
        if cluster is not None:
            return cluster
    if config.embedding is not None and config.embedding.key == VOLCANO_VALUES_KEY:
        return _values_release(documents) or _chart_release(chart, VOLCANO)
    if config.embedding is not None and config.embedding.key == SCHEDULER_PLUGINS_VALUES_KEY:
        return _image_value_release(documents) or _chart_release(chart, KUBE)
    found = {
        declared.version: declared
        for runner in runners
        if runner.family == scheduler
        for declared in [_image_release(runner)]
        if declared is not None
    }
    if found:
        return next(iter(found.values())) if len(found) == 1 else None
    return _chart_release(chart, scheduler)  # a conf of the chart's own (its config/)


def _cluster_release(documents: tuple[Document, ...]) -> Declared | None:
    """``kubernetesVersion`` of a kops ``Cluster`` or a kubeadm ``ClusterConfiguration``."""
    for document in documents:
        root = document.root
        if not isinstance(root, MappingNode):
            continue
        api_version = scalar(child(root, "apiVersion")) or ""
        kind = scalar(child(root, "kind"))
        if kind == "Cluster" and api_version.startswith("kops.k8s.io/"):
            node, what = child(child(root, "spec") or root, "kubernetesVersion"), "kops Cluster"
        elif kind == "ClusterConfiguration" and api_version.startswith("kubeadm.k8s.io/"):
            node, what = child(root, "kubernetesVersion"), "kubeadm ClusterConfiguration"
        else:
            continue
        written = scalar(node)
        version = parse_release(written) if written else None
        if node is None or version is None:
            continue
        name = scalar(child(child(root, "metadata") or root, "name"))
        named = f"the {what} `{name}`" if name else f"the {what}"
        line = document.position(node).line
        return Declared(KUBE, version, f"`kubernetesVersion: {written}` of {named}, line {line}")
    return None


def _values_release(documents: tuple[Document, ...]) -> Declared | None:
    """The image tag Volcano's chart values give its scheduler (``basic.
    scheduler_image_tag_version``, else ``basic.image_tag_version``), beside the
    ``custom`` that holds the conf; an umbrella chart nests both under the subchart."""
    for document in documents:
        root = document.root
        holders = [root, *(value for _, value in mapping_items(root))]
        for holder in holders:
            if not isinstance(child(holder, VOLCANO_VALUES[0]), MappingNode):
                continue
            basic = child(holder, "basic")
            for key in ("scheduler_image_tag_version", "image_tag_version"):
                node = child(basic, key) if basic is not None else None
                version = _volcano_version(scalar(node) or "")
                if node is not None and version is not None:
                    line = document.position(node).line
                    source = f"`basic.{key}: {scalar(node)}` of the chart's values, line {line}"
                    return Declared(VOLCANO, version, source)
    return None


def _image_value_release(documents: tuple[Document, ...]) -> Declared | None:
    """The tag of scheduler-plugins' chart value ``scheduler.image`` (``v0.34.7``: 1.34)."""
    for document in documents:
        node = child(child(document.root, "scheduler") or document.root, "image")
        image = scalar(node) or ""
        version = _scheduler_plugins_version(image.rsplit(":", 1)[-1]) if ":" in image else None
        if node is not None and version is not None:
            line = document.position(node).line
            source = f"`scheduler.image: {image}` of the chart's values, line {line}"
            return Declared(KUBE, version, source)
    return None


def declared_build(
    config: Document, runners: tuple[Runner, ...], options: CheckOptions
) -> str | None:
    """The known build (``scheduler-plugins``) a config is for when its files say so and
    the settings declare none: scheduler-plugins' image runs it, or it is that chart's
    values; what says so, for ``validate --verbose``."""
    if options.kube_distribution is not None or options.kube_plugins:
        return None
    if config.embedding is not None and config.embedding.key == SCHEDULER_PLUGINS_VALUES_KEY:
        return "a scheduler-plugins build (the chart's values)"
    kube = [runner for runner in runners if runner.family == KUBE]
    if kube and kube[0].build == SCHEDULER_PLUGINS:
        return f"a scheduler-plugins build (`{kube[0].image}`, {kube[0].where})"
    return None


def _chart_release(chart: Chart | None, scheduler: str) -> Declared | None:
    """What ``Chart.yaml`` beside the values says: Volcano's chart's ``version`` is its
    release from 1.9 on (its ``appVersion`` said 0.1 until 1.14), an umbrella chart's
    ``volcano`` dependency has one, scheduler-plugins' ``appVersion`` 0.34.7 is built on
    Kubernetes 1.34."""
    if chart is None:
        return None
    named = f"the chart `{chart.name}`, {chart.where}"
    written: list[tuple[str, str]] = []
    if scheduler == VOLCANO:
        if chart.name == "volcano":
            written = [
                (chart.version, f"`version: {chart.version}` of {named}"),
                (chart.app_version, f"`appVersion: {chart.app_version}` of {named}"),
            ]
        written += [
            (version, f"the dependency `volcano` {version} of {named}")
            for name, version in chart.dependencies
            if name == "volcano"
        ]
        parse = _volcano_version
    elif chart.name == SCHEDULER_PLUGINS:
        written = [
            (chart.app_version, f"`appVersion: {chart.app_version}` of {named}"),
            (chart.version, f"`version: {chart.version}` of {named}"),
        ]
        parse = _scheduler_plugins_version
    for text, source in written:
        version = parse(text)
        if version is not None:
            return Declared(scheduler, version, source)
    return None


def _volcano_version(tag: str) -> Version | None:
    """A Volcano release in a tag: a fork's ``vc1.3`` marker, else ``v1.N...``."""
    fork = _FORK_RELEASE.search(tag)
    match = fork or _TAG_RELEASE.fullmatch(tag)
    if match is None or (fork is None and match.group(1) != "1"):
        return None
    return int(match.group(1)), int(match.group(2))


def _scheduler_plugins_version(tag: str) -> Version | None:
    """scheduler-plugins ``v0.34.7`` is built on Kubernetes 1.34."""
    match = _TAG_RELEASE.fullmatch(tag)
    if match is None or match.group(1) != "0":
        return None
    return 1, int(match.group(2))


def _image_release(runner: Runner) -> Declared | None:
    """The release a scheduler image's tag names: Kubernetes' for kube-scheduler (a
    scheduler-plugins ``v0.34.7`` is built on 1.34), Volcano's for vc-scheduler (a fork's
    ``vc1.3`` marker first). A custom kube-scheduler build's tag is its own version."""
    tag = runner.tag
    if runner.family == VOLCANO:
        version = _volcano_version(tag)
    elif runner.family == KUBE and runner.build == SCHEDULER_PLUGINS:
        version = _scheduler_plugins_version(tag)
    elif runner.family == KUBE and runner.build is None:
        match = _TAG_RELEASE.fullmatch(tag)
        version = (int(match.group(1)), int(match.group(2))) if match else None
    else:
        version = None
    return None if version is None else _declared(runner, version)


def _declared(runner: Runner, version: Version) -> Declared:
    return Declared(
        runner.family,
        version,
        f"the scheduler image `{runner.image}` of {runner.workload}, {runner.where}",
    )


def judge(
    config: Document,
    scheduler: str,
    documents: tuple[Document, ...],
    bundle: Bundle,
    options: CheckOptions,
) -> tuple[CheckOptions | Finding, tuple[str, ...]]:
    """The options ``config`` is judged with (the release and the build its files state)
    or the PT009 finding that it is not judged, and what was taken from its files, for
    ``validate --verbose``."""
    runners = bundle.nearest(config)
    stated = declared_release(config, scheduler, documents, runners, bundle.chart)
    judged = judged_options(config, stated, options)
    if isinstance(judged, Finding):
        return judged, ()
    said = []
    if stated is not None and judged is not options:
        said.append(f"{stated.scheduler} {stated.release} ({stated.source})")
    build = declared_build(config, runners, judged)
    if build is not None:
        judged = replace(judged, kube_distribution=SCHEDULER_PLUGINS)
        said.append(build)
    return judged, tuple(said)


def judged_options(
    config: Document, declared: Declared | None, options: CheckOptions
) -> CheckOptions | Finding:
    """``options`` judging ``config`` as its declared release, or the PT009 finding
    when that release is not in the table (a flag or an upgrade target wins)."""
    if declared is None:
        return options
    field, flag = _FIELDS[declared.scheduler]
    if field in options.release_flags or field in options.forced_releases:
        return options
    rows: tuple[KubeRelease, ...] | tuple[VolcanoRelease, ...] = (
        KUBE_RELEASES if declared.scheduler == KUBE else VOLCANO_RELEASES
    )
    if any(row.version == declared.version for row in rows):
        if declared.scheduler == KUBE:
            return replace(options, kubernetes_version=declared.release)
        return replace(options, volcano_version=declared.release)
    nearest = min((row.version for row in rows), key=lambda v: abs(v[1] - declared.version[1]))
    return PT009_UNJUDGED_RELEASE.at(
        config,
        config.root,
        f"this config targets {declared.scheduler} {declared.release} ({declared.source}), "
        f"which policytest does not judge (it judges {supported_range(rows)}), so it is not "
        "checked: judged as another release, it would get that release's verdicts; to "
        f"judge it as one anyway, pass {flag} {show(nearest)}",
    )
