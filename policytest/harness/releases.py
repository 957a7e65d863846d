"""Which release a fixture is judged as.

A fixture may state the release its expectations describe, beside its config:
``scheduler.kubernetesVersion`` and ``scheduler.volcanoVersion`` (the settings file's
names). How the sources combine, for each scheduler on its own:

1. the fixture's own release, when it states one: whatever the settings file or the
   default says (its expectations were written for it);
2. else ``--kubernetes-version`` / ``--volcano-version``;
3. else the settings file's ``kubernetesVersion`` / ``volcanoVersion``;
4. else the default release.

A flag that names another release than the fixture's is a contradiction: the fixture's
cases are refused (PT003) rather than judged as either one. A release outside the table
is refused the same way. An upgrade preview's target release is the one exception: it
judges every fixture as the target (``CheckOptions.forced_releases``).
"""

from __future__ import annotations

from dataclasses import replace

from policytest.core.findings import Finding
from policytest.core.options import CheckOptions
from policytest.core.releases import (
    UnsupportedRelease,
    kube_release,
    parse_release,
    volcano_release,
)
from policytest.harness.model import PT003_FIXTURE_ERROR, Fixture
from policytest.read.source import child

FIXTURE_RELEASES = (
    ("kubernetesVersion", "kubernetes_version", "--kubernetes-version", "kube-scheduler"),
    ("volcanoVersion", "volcano_version", "--volcano-version", "Volcano"),
)
"""(fixture key, ``CheckOptions`` field, flag, scheduler) for each release a fixture pins."""

SCHEDULER_NAMES = {"kube-scheduler": "kubernetes_version", "volcano": "volcano_version"}
"""A :class:`~policytest.scoring.protocol.Scheduler`'s ``name`` -> the release it runs."""


def fixture_options(fixture: Fixture, options: CheckOptions) -> CheckOptions | Finding:
    """``options`` with the releases the fixture states, or the PT003 finding that
    refuses them (a release outside the table, or one a flag contradicts)."""
    for key, field, flag, scheduler in FIXTURE_RELEASES:
        written = fixture.scheduler.releases.get(key)
        if written is None or field in options.forced_releases:
            continue
        node = child(fixture.scheduler.node, key) or fixture.scheduler.node
        select = kube_release if field == "kubernetes_version" else volcano_release
        try:
            select(written)
        except UnsupportedRelease as refused:
            message = f"`scheduler.{key}`: {refused}"
            return PT003_FIXTURE_ERROR.at(fixture.document, node, message)
        given = getattr(options, field)
        if field in options.release_flags and parse_release(given) != parse_release(written):
            return PT003_FIXTURE_ERROR.at(
                fixture.document,
                node,
                f'this fixture describes {scheduler} {written} (`scheduler.{key}: "{written}"`) '
                f"but {flag} {given} asks for {given}: policytest does not choose between "
                f"them; drop {flag} to judge every fixture as its own release, or change the "
                "fixture's release",
            )
        options = with_release(options, field, written)
    return options


def with_release(options: CheckOptions, field: str, release: str) -> CheckOptions:
    """``options`` judging ``field`` (``kubernetes_version`` / ``volcano_version``) as
    ``release``."""
    if field == "kubernetes_version":
        return replace(options, kubernetes_version=release)
    return replace(options, volcano_version=release)


def release_label(scheduler: str | None, options: CheckOptions) -> str:
    """``kube-scheduler 1.36`` / ``Volcano 1.15`` for a scheduler's ``name`` ("" when
    it is unknown: no config was loaded)."""
    field = SCHEDULER_NAMES.get(scheduler or "")
    if field is None:
        return ""
    written = getattr(options, field)
    version = parse_release(written)
    shown = f"{version[0]}.{version[1]}" if version else written
    return f"{'kube-scheduler' if field == 'kubernetes_version' else 'Volcano'} {shown}"
