"""Evidence of a custom scheduler build in the same bundle as a config.

A repository that deploys its own scheduler image (``ghcr.io/acme/kube-arch-scheduler``)
or runs Volcano with ``--plugins-dir`` next to the config it ships is configuring a
build that registers plugins upstream does not have. An unknown plugin there is most
likely one of that build's: policytest cannot know, so instead of the upstream
scheduler's refusal it gives a warning that names the evidence and asks for the build's
plugins to be declared in the project settings file (then they are checked).

The bundle is the config's own directory (a chart's ``templates/``, a kustomize base):
its YAML files are read as text (templates included) only when a config there names an
unknown plugin, so clean configs never pay for it.
"""

from __future__ import annotations

import os
import re

from policytest.core.findings import Finding, Severity
from policytest.core.records import record, replace
from policytest.read.paths import Refused, read_regular
from policytest.read.source import STDIN_NAME, is_yaml_path

KUBE_UNKNOWN, VOLCANO_UNKNOWN = "KS020", "VC004"
"""The rules this softens (:mod:`policytest.check.validate` names them too, to read a
bundle only when one of them is found)."""
_KUBE_CUSTOMISABLE = "if your scheduler is a custom build"
_VOLCANO_CUSTOMISABLE = "if your scheduler loads it from --plugins-dir"
"""The endings of the findings that may name a custom build's plugin (no slip, no
removed name)."""

_IMAGE = re.compile(r"""^[ \t-]*image:[ \t]*["']?([^\s"'#{}]+)""", re.MULTILINE)
_PLUGINS_DIR = re.compile(r"""(?:^|[\s"'\[,])--plugins-dir(?:=|[ \t]+)[^\s,"'\]]""", re.MULTILINE)
"""The flag with a value (``--plugins-dir=plugins``), not a mention in prose."""
_UPSTREAM_KUBE = ("registry.k8s.io/kube-scheduler", "k8s.gcr.io/kube-scheduler")
_UPSTREAM_VOLCANO = ("volcanosh/vc-scheduler", "docker.io/volcanosh/vc-scheduler")
_MAX_FILES = 200


@record(frozen=True)
class Evidence:
    """What shows a custom build, and where (``file:line``)."""

    what: str
    where: str


@record(frozen=True)
class BundleEvidence:
    """The custom-build evidence of one bundle, for each scheduler."""

    kube: Evidence | None = None
    volcano: Evidence | None = None


def scan(texts: list[tuple[str, str]]) -> BundleEvidence:
    """The first evidence for each scheduler in ``(path, text)`` pairs."""
    kube: Evidence | None = None
    volcano: Evidence | None = None
    for path, text in texts:
        for found in _IMAGE.finditer(text):
            if _commented(text, found.start(1)):
                continue
            image = found.group(1)
            name = image.rsplit("/", 1)[-1].split(":", 1)[0].split("@", 1)[0]
            where = f"{path}:{text.count(chr(10), 0, found.start(1)) + 1}"
            volcano_like = "volcano" in image or name.startswith("vc-")
            if volcano_like and not image.startswith(_UPSTREAM_VOLCANO):
                volcano = volcano or Evidence(f"deploys its own scheduler image `{image}`", where)
            elif "scheduler" in name and not volcano_like and not image.startswith(_UPSTREAM_KUBE):
                kube = kube or Evidence(f"deploys its own scheduler image `{image}`", where)
        flag = next((f for f in _PLUGINS_DIR.finditer(text) if not _commented(text, f.end())), None)
        if flag is not None and volcano is None:
            line = text.count("\n", 0, flag.start()) + 1
            volcano = Evidence("runs the scheduler with `--plugins-dir`", f"{path}:{line}")
    return BundleEvidence(kube, volcano)


def _commented(text: str, index: int) -> bool:
    """Is ``index`` inside a comment (a ``#`` earlier on its line)?"""
    return "#" in text[text.rfind("\n", 0, index) + 1 : index]


def bundle_texts(path: str, head: str, root: str | None, limit: int) -> list[tuple[str, str]]:
    """The file itself and the YAML files beside it, as text (what cannot be read is
    left out: this only softens findings)."""
    if path == STDIN_NAME:
        return [(path, head)]
    directory = os.path.dirname(path) or "."
    try:
        names = sorted(name for name in os.listdir(directory) if is_yaml_path(name))
    except OSError:
        return [(path, head)]
    texts = []
    for name in names[:_MAX_FILES]:
        sibling = os.path.join(directory, name) if os.path.dirname(path) else name
        try:
            data = read_regular(sibling, limit, root)
        except (Refused, OSError):
            continue
        texts.append((sibling, data.decode("utf-8", "replace")))
    return texts


def as_custom_build(finding: Finding, evidence: BundleEvidence) -> Finding:
    """An unknown-plugin error as a warning naming the bundle's custom build, if any."""
    if finding.rule == KUBE_UNKNOWN and _KUBE_CUSTOMISABLE in finding.message:
        found, declare = evidence.kube, "`kubeScheduler.plugins` (or `kubeScheduler.distribution`)"
        head = finding.message.split(": kube-scheduler refuses to start", 1)[0] + " upstream"
        upstream = "the upstream kube-scheduler refuses to start with this config"
    elif finding.rule == VOLCANO_UNKNOWN and _VOLCANO_CUSTOMISABLE in finding.message:
        found, declare = evidence.volcano, "`volcano.plugins`"
        name = finding.message.split(": Volcano skips it", 1)[0].removeprefix("unknown ")
        head = f"{name} is not a plugin of upstream Volcano"
        upstream = "a Volcano without it skips it at every scheduling cycle"
    else:
        return finding
    if found is None:
        return finding
    return replace(
        finding,
        severity=Severity.WARNING,
        message=(
            f"{head}, but {found.where} {found.what} beside this config: a custom "
            f"build, which probably has it; declare the build's plugins under {declare} "
            f"in the project settings file .policytest.yaml so they are checked ({upstream})"
        ),
    )
