"""What the files around a config say about the scheduler that reads it.

A config is not read alone: a Deployment runs the scheduler that mounts it, and that
Deployment's image says which scheduler it is (upstream kube-scheduler, a
scheduler-plugins build, a custom build, a Volcano fork, KAI Scheduler, kube-batch)
and often which release. That is evidence only where it is about *this* config:

- a workload in the same file (an installer bundle, a chart's rendered output), or
- a Deployment, StatefulSet, DaemonSet, ReplicaSet or Pod in the config's directory
  that mounts it: a ``configMap`` volume naming its ConfigMap, or a ``--config`` /
  ``--scheduler-conf`` flag naming its file.

and only a container whose image is a scheduler's (an admission webhook such as
``vc-webhook-manager`` runs no scheduler). A GitOps monorepo deploys many schedulers
side by side; the custom image of one says nothing about another's config.

The directory is read once per run, and a file is parsed only when its text names a
scheduler image or a KAI Scheduler object, so a config beside application manifests pays
for reading them (up to 200 files of up to 1 MiB) and a search of their bytes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from policytest.core.findings import Finding, Severity
from policytest.core.limits import Limits
from policytest.core.records import record, replace
from policytest.read.nodes import MappingNode, Node
from policytest.read.paths import Refused, read_regular
from policytest.read.recognise import SCHEDULER_PLUGINS_VALUES_KEY, VOLCANO_VALUES_KEY
from policytest.read.source import (
    STDIN_NAME,
    Document,
    child,
    is_yaml_path,
    read_bytes,
    scalar,
    sequence_items,
)

KUBE, VOLCANO, KAI, KUBE_BATCH = "kube-scheduler", "Volcano", "KAI Scheduler", "kube-batch"
"""The scheduler families an image can run."""
SCHEDULER_PLUGINS = "scheduler-plugins"

_WORKLOADS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Pod"})
_UPSTREAM_KUBE = frozenset({"registry.k8s.io/kube-scheduler", "k8s.gcr.io/kube-scheduler"})
_SCHEDULER_PLUGINS_IMAGE = "scheduler-plugins/kube-scheduler"
"""scheduler-plugins' image (``registry.k8s.io/scheduler-plugins/kube-scheduler``), also
built locally or mirrored (``localhost:5000/scheduler-plugins/kube-scheduler``)."""
_UPSTREAM_VOLCANO = ("volcanosh/", "docker.io/volcanosh/")
_CONFIG_FLAGS = ("--config", "--scheduler-conf")
_IMAGE_HINT = re.compile(rb"""image["']?[ \t]*:[^\n]*(?:scheduler|kube-batch)""")
_KAI_HINT = b"kai.scheduler/"
"""A file worth parsing names a scheduler image (``image:`` in YAML, ``"image":`` in
JSON) or a KAI Scheduler object. Searched in the file's bytes, case-sensitive as field
and image names are, from the literal ``image`` on, which the regular expression skips
to (a case-insensitive search of the decoded text was most of what a directory of
application manifests cost the hook; see docs/performance.md)."""
MAX_FILES = 200
"""The YAML files of a directory read around a config (``diff`` copies as many out of
each revision)."""


@record(frozen=True)
class Runner:
    """One container of the bundle that runs a scheduler, and what it reads."""

    workload: str
    """``Deployment `kube-arch-scheduler```."""
    path: str
    line: int
    """The line of its image."""
    image: str
    family: str
    build: str | None
    """``None``: the upstream image; ``scheduler-plugins``: that known build; else
    ``"own"``, an image of its own (a custom build, a fork)."""
    configmaps: frozenset[str]
    """The ConfigMaps its pod mounts."""
    config_files: frozenset[str]
    """The base names of the files its ``--config`` / ``--scheduler-conf`` flags name."""
    plugins_dir: bool
    """It runs with ``--plugins-dir`` (Volcano loads plugins from there)."""

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def tag(self) -> str:
        """The image's tag (``""`` when it has none, or only a digest)."""
        name = self.image.split("@", 1)[0]
        last = name.rsplit("/", 1)[-1]
        return last.split(":", 1)[1] if ":" in last else ""

    def mounts(self, config: Document) -> bool:
        """Does this scheduler read ``config`` (its ConfigMap, or its file by name)?"""
        if config.embedding is not None:
            return config.embedding.configmap in self.configmaps
        return os.path.basename(config.path) in self.config_files


@record(frozen=True)
class KaiObject:
    """A KAI Scheduler object (``kai.scheduler/v1`` ``SchedulingShard``, ``Config``)."""

    kind: str
    where: str


@record(frozen=True)
class Chart:
    """A Helm chart's ``Chart.yaml``: what it says of the release its values are for."""

    name: str
    version: str
    app_version: str
    dependencies: tuple[tuple[str, str], ...]
    """(name, version) of the charts it depends on (an umbrella chart's subcharts)."""
    where: str


@record(frozen=True)
class Bundle:
    """The schedulers (and KAI objects) of one directory, or of standard input, and the
    chart the directory is, if it is one."""

    runners: tuple[Runner, ...] = ()
    kai: tuple[KaiObject, ...] = ()
    chart: Chart | None = None

    def of(self, config: Document) -> tuple[Runner, ...]:
        """The runners that are evidence about ``config``, nearest first: those of its
        own file that mount it, those of other files that mount it, then the others of
        its own file."""
        return tuple(runner for tier in self._tiers(config) for runner in tier)

    def nearest(self, config: Document) -> tuple[Runner, ...]:
        """The nearest runners of ``config`` only (see :meth:`of`): a file that deploys
        its own scheduler outweighs another file's that mounts a ConfigMap of the same
        name (two clusters' overlays in one directory)."""
        return next((tier for tier in self._tiers(config) if tier), ())

    def _tiers(self, config: Document) -> tuple[tuple[Runner, ...], ...]:
        mounting = [runner for runner in self.runners if runner.mounts(config)]
        own = [runner for runner in self.runners if runner.path == config.path]
        return (
            tuple(runner for runner in mounting if runner in own),
            tuple(runner for runner in mounting if runner not in own),
            tuple(runner for runner in own if runner not in mounting),
        )

    def kai_near(self, config: Document) -> KaiObject | None:
        """A KAI object in the config's file, else in its directory."""
        same = [found for found in self.kai if found.where.startswith(f"{config.path}:")]
        near = same or list(self.kai)
        return near[0] if near else None


def read_bundle(
    path: str, documents: tuple[Document, ...], root: str | None, limits: Limits
) -> Bundle:
    """The bundle of ``path``'s directory (``documents``: the file's own, already read;
    standard input is a bundle of its own)."""
    if path == STDIN_NAME:
        return scan([(path, documents)])
    directory = os.path.dirname(path) or "."
    try:
        names = sorted(name for name in os.listdir(directory) if is_yaml_path(name))
    except OSError:
        return scan([(path, documents)])
    files: list[tuple[str, tuple[Document, ...]]] = [(path, documents)]
    above = chart_above(directory)
    chart = _chart_at(above, root, limits) if above is not None else None
    for name in names[:MAX_FILES]:
        sibling = os.path.join(directory, name) if os.path.dirname(path) else name
        if os.path.normpath(sibling) == os.path.normpath(path):
            continue
        data = _sibling_bytes(sibling, root, limits)
        if data is None:
            continue  # what cannot be read is no evidence
        if name == "Chart.yaml":
            chart = _chart(sibling, read_bytes(sibling, data, limits).documents)
        elif _KAI_HINT in data or _IMAGE_HINT.search(data):
            files.append((sibling, read_bytes(sibling, data, limits).documents))
        else:
            limits.charge("file-bytes", len(data))  # read_bytes charges what it reads
    return replace(scan(files), chart=chart)


_MAX_SIBLING_BYTES = 1 << 20
"""A manifest that runs a scheduler, or a ``Chart.yaml``, is a few KiB: a larger file
beside a config is no evidence and is not read further (200 files of 16 MiB would
otherwise be read for every directory holding a config)."""


def _sibling_bytes(path: str, root: str | None, limits: Limits) -> bytes | None:
    """The bytes of a file beside a config, or ``None``: unreadable, larger than
    :data:`_MAX_SIBLING_BYTES`, or past the invocation's ``total-file-bytes``."""
    left = limits.left("file-bytes")
    size = min(limits.max_file_bytes, _MAX_SIBLING_BYTES)
    if left is not None and left < size:
        return None
    try:
        data = read_regular(path, size + 1, root)
    except (Refused, OSError):
        return None
    if len(data) > size:
        limits.charge("file-bytes", len(data))
        return None
    return data


def chart_above(directory: str) -> str | None:
    """The ``Chart.yaml`` of the chart whose ``config/`` is ``directory`` (Volcano's chart
    keeps the confs its ``basic.scheduler_config_file`` names there), else ``None``."""
    if os.path.basename(directory) != "config":
        return None
    return os.path.join(os.path.dirname(directory), "Chart.yaml")


def _chart_at(path: str, root: str | None, limits: Limits) -> Chart | None:
    data = _sibling_bytes(path, root, limits)
    return None if data is None else _chart(path, read_bytes(path, data, limits).documents)


_CLUSTER_KINDS = frozenset({"Cluster", "ClusterConfiguration"})
_CHART_VALUES_KEYS = frozenset({VOLCANO_VALUES_KEY, SCHEDULER_PLUGINS_VALUES_KEY})


def may_state(config: Document, documents: tuple[Document, ...], bundle: Bundle) -> bool:
    """Can anything around ``config`` state its release or build (a scheduler that runs
    it, a chart's values, a cluster definition in its file)? When nothing can, the
    release rules (:mod:`policytest.check.declared`) are not even imported."""
    if bundle.nearest(config):
        return True
    if config.embedding is not None and config.embedding.key in _CHART_VALUES_KEYS:
        return True
    if bundle.chart is not None:
        return True
    return any(scalar(child(document.root, "kind")) in _CLUSTER_KINDS for document in documents)


def _chart(path: str, documents: tuple[Document, ...]) -> Chart | None:
    root = documents[0].root if documents else None
    if not isinstance(root, MappingNode):
        return None
    dependencies = tuple(
        (scalar(child(item, "name")) or "", scalar(child(item, "version")) or "")
        for item in sequence_items(child(root, "dependencies"))
    )
    return Chart(
        scalar(child(root, "name")) or "",
        scalar(child(root, "version")) or "",
        scalar(child(root, "appVersion")) or "",
        dependencies,
        path,
    )


def scan(files: list[tuple[str, tuple[Document, ...]]]) -> Bundle:
    """The runners and KAI objects of these files' documents."""
    runners: list[Runner] = []
    kai: list[KaiObject] = []
    for path, documents in files:
        for document in documents:
            for node in _objects(document.root):
                api_version = scalar(child(node, "apiVersion")) or ""
                kind = scalar(child(node, "kind")) or ""
                if api_version.startswith("kai.scheduler/"):
                    where = f"{path}:{document.position(node).line}"
                    kai.append(KaiObject(kind, where))
                elif kind in _WORKLOADS:
                    runners.extend(_runners(path, document, node, kind))
    return Bundle(tuple(runners), tuple(kai))


def _objects(root: Node) -> Iterator[MappingNode]:
    """The manifest and the items of a ``kind: List``."""
    if not isinstance(root, MappingNode):
        return
    if scalar(child(root, "kind")) == "List":
        for item in sequence_items(child(root, "items")):
            if isinstance(item, MappingNode):
                yield item
    else:
        yield root


def _runners(path: str, document: Document, workload: MappingNode, kind: str) -> Iterator[Runner]:
    spec = child(workload, "spec")
    if kind != "Pod":
        spec = child(child(spec, "template") or workload, "spec") if spec is not None else None
    if not isinstance(spec, MappingNode):
        return
    name = scalar(child(child(workload, "metadata") or workload, "name")) or ""
    configmaps = frozenset(_mounted_configmaps(spec))
    for container in sequence_items(child(spec, "containers")):
        image_node = child(container, "image")
        image = scalar(image_node) or ""
        family, build = scheduler_image(image)
        if family is None or image_node is None:
            continue
        words = [
            scalar(item) or ""
            for key in ("command", "args")
            for item in sequence_items(child(container, key))
        ]
        yield Runner(
            f"{kind} `{name}`" if name else kind,
            path,
            document.position(image_node).line,
            image,
            family,
            build,
            configmaps,
            frozenset(_config_files(words)),
            any(word == "--plugins-dir" or word.startswith("--plugins-dir=") for word in words),
        )


def _mounted_configmaps(spec: MappingNode) -> Iterator[str]:
    for volume in sequence_items(child(spec, "volumes")):
        name = scalar(child(child(volume, "configMap") or volume, "name"))
        if child(volume, "configMap") is not None and name:
            yield name
        for source in sequence_items(child(child(volume, "projected") or volume, "sources")):
            projected = scalar(child(child(source, "configMap") or source, "name"))
            if child(source, "configMap") is not None and projected:
                yield projected


def _config_files(words: list[str]) -> Iterator[str]:
    """The base names of the files ``--config=PATH`` / ``--config PATH`` name."""
    for position, word in enumerate(words):
        flag, equals, value = word.partition("=")
        if flag not in _CONFIG_FLAGS:
            continue
        if not equals and position + 1 < len(words):
            value = words[position + 1]
        if value:
            yield os.path.basename(value)


def scheduler_image(image: str) -> tuple[str | None, str | None]:
    """The scheduler family an image runs and its build (see :attr:`Runner.build`), or
    ``(None, None)`` for an image that runs no scheduler (an admission webhook, a
    controller, a templated image)."""
    if not image or "{" in image:
        return None, None
    head, _, last = image.split("@", 1)[0].rpartition("/")
    name = last.split(":", 1)[0]
    repository = f"{head}/{name}" if head else name  # no tag, no digest
    if name == "kube-batch":
        return KUBE_BATCH, None if repository == "kubesigs/kube-batch" else "own"
    if "scheduler" not in name:
        return None, None  # vc-webhook-manager, vc-controller-manager, koord-manager
    if "kai-scheduler" in repository:
        return KAI, None
    if name.startswith("vc-") or "volcano" in repository:
        return VOLCANO, None if repository.startswith(_UPSTREAM_VOLCANO) else "own"
    if repository in _UPSTREAM_KUBE:
        return KUBE, None
    if repository.endswith(_SCHEDULER_PLUGINS_IMAGE):
        return KUBE, SCHEDULER_PLUGINS
    return KUBE, "own"


# --- custom builds ---------------------------------------------------------------------


KUBE_UNKNOWN, VOLCANO_UNKNOWN = "KS020", "VC004"
"""The rules a custom build softens."""
_KUBE_CUSTOMISABLE = "if your scheduler is a custom build"
_VOLCANO_CUSTOMISABLE = "if your scheduler loads it from --plugins-dir"
"""The endings of the findings that may name a custom build's plugin (no slip, no
truncated or removed name: those stay errors whatever runs the config)."""


def custom_build(config: Document, scheduler: str, bundle: Bundle) -> Runner | None:
    """The runner that shows a custom build of ``scheduler`` reads ``config``: an image
    of its own, or (Volcano) ``--plugins-dir``."""
    for runner in bundle.of(config):
        if runner.family != scheduler:
            continue
        if runner.build == "own" or (scheduler == VOLCANO and runner.plugins_dir):
            return runner
    return None


def as_custom_build(finding: Finding, config: Document, runner: Runner | None) -> Finding:
    """An unknown-plugin error as a warning naming the custom build that runs ``config``."""
    if runner is None:
        return finding
    if finding.rule == KUBE_UNKNOWN and _KUBE_CUSTOMISABLE in finding.message:
        declare = "`kubeScheduler.plugins` (or `kubeScheduler.distribution`)"
        head = finding.message.split(": kube-scheduler refuses to start", 1)[0] + " upstream"
        upstream = "the upstream kube-scheduler refuses to start with this config"
    elif finding.rule == VOLCANO_UNKNOWN and _VOLCANO_CUSTOMISABLE in finding.message:
        declare = "`volcano.plugins`"
        name = finding.message.split(": Volcano skips it", 1)[0].removeprefix("unknown plugin ")
        head = f"plugin {name} is not upstream Volcano's"
        upstream = "a Volcano without it skips it at every scheduling cycle"
    else:
        return finding
    what = (
        f"runs its own scheduler image `{runner.image}`"
        if runner.build == "own"
        else "runs the scheduler with `--plugins-dir`"
    )
    which = (
        f"{runner.workload} ({runner.where}) mounts this config and {what}"
        if runner.mounts(config)
        else f"{runner.workload} in this file ({runner.where}) {what}"
    )
    return replace(
        finding,
        severity=Severity.WARNING,
        message=(
            f"{head}, but {which}: a custom build, which probably has it; declare the "
            f"build's plugins under {declare} in the project settings file .policytest.yaml "
            f"so they are checked ({upstream})"
        ),
    )
