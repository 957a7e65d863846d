"""Rules for Volcano's other bin-packing plugins: ``VR`` (resource-strategy-fit), ``VD``
(deviceshare) and ``VT`` (network-topology-aware HyperNode bin-packing).

Severity as in :mod:`policytest.volcano.rules`: error where the scheduler stops
(``klog.Fatalf``: it exits, restarts, exits again) or drops what was written, warning
where Volcano silently uses something else, info for advice. Each example is one plugin
entry of a tier's ``plugins:`` list.
"""

from __future__ import annotations

from policytest.core.findings import Severity
from policytest.core.rules import rule

# --- resource-strategy-fit --------------------------------------------------------------

VR001_RSF_FATAL = rule(
    "VR001",
    Severity.ERROR,
    "a resource-strategy-fit argument of the wrong type stops the scheduler",
    """
    resource-strategy-fit reads its arguments with ``framework.Get``, which decodes them
    with mapstructure and calls ``klog.Fatalf`` when a value has the wrong type: the
    scheduler exits at its first scheduling cycle and crash-loops. Wrong types are a
    string or boolean where a number goes (``resourceStrategyFitWeight: "10"``,
    ``weight: high``, ``sra.enable: "true"``), a number where a string goes
    (``type: 5``, ``sra.resources: 5``), a scalar or a list where a mapping goes
    (``resources: [cpu]``, ``cpu: MostAllocated``), and a number or boolean as a
    resource name. A section that is switched off (``enable: false``) is still decoded.
    Write the value with the type shown in the message.

    Failing::

        - name: resource-strategy-fit
          arguments:
            resourceStrategyFitWeight: "10"

    Passing::

        - name: resource-strategy-fit
          arguments:
            resourceStrategyFitWeight: 10
    """,
)

VR002_RSF_NUMBER = rule(
    "VR002",
    Severity.WARNING,
    "a resource-strategy-fit number Volcano reads as another integer",
    """
    Integer arguments accept floats and cut off the fraction (``weight: 1.5`` is 1,
    ``0.5`` is 0, which resource weights then correct to 1), and an integer beyond
    int64 wraps around to a negative number. Write the integer Volcano should use.

    Failing::

        - name: resource-strategy-fit
          arguments:
            resources:
              nvidia.com/gpu:
                type: MostAllocated
                weight: 1.5

    Passing::

        - name: resource-strategy-fit
          arguments:
            resources:
              nvidia.com/gpu:
                type: MostAllocated
                weight: 2
    """,
)

VR003_RSF_WEIGHT_DEFAULTED = rule(
    "VR003",
    Severity.WARNING,
    "a negative resourceStrategyFitWeight: Volcano uses 10",
    """
    A negative ``resourceStrategyFitWeight`` (also one that wrapped around from beyond
    int64) is replaced by the default 10. Use 0 to leave the strategy score out, or the
    positive weight you mean.

    Failing::

        - name: resource-strategy-fit
          arguments:
            resourceStrategyFitWeight: -1

    Passing::

        - name: resource-strategy-fit
          arguments:
            resourceStrategyFitWeight: 10
    """,
)

VR004_RSF_WEIGHT_OFF = rule(
    "VR004",
    Severity.WARNING,
    "resourceStrategyFitWeight 0 or empty: the strategy score is left out",
    """
    With ``resourceStrategyFitWeight: 0``, or the key written without a value (null
    decodes to 0, not to the default 10), the per-resource strategy score is not added;
    when sra is off too the plugin's node-order function is not registered at all.
    Remove the key for the default 10, or write the weight.

    Failing::

        - name: resource-strategy-fit
          arguments:
            resourceStrategyFitWeight:

    Passing::

        - name: resource-strategy-fit
          arguments:
            resourceStrategyFitWeight: 10
    """,
)

VR005_RSF_RESOURCE_WEIGHT = rule(
    "VR005",
    Severity.WARNING,
    "a resource weight <= 0 or null: Volcano uses 1",
    """
    In ``resources``, a ``weight`` of 0, a negative weight, null, a float below 1 or an
    entry without a weight is replaced by 1. To leave a resource out of the score,
    remove its entry.

    Failing::

        - name: resource-strategy-fit
          arguments:
            resources:
              cpu:
                type: LeastAllocated
                weight: 0

    Passing::

        - name: resource-strategy-fit
          arguments:
            resources:
              nvidia.com/gpu:
                type: MostAllocated
                weight: 1
    """,
)

VR006_RSF_TYPE = rule(
    "VR006",
    Severity.WARNING,
    "an unknown scoring type: Volcano uses LeastAllocated",
    """
    ``type`` must be exactly ``MostAllocated`` (pack) or ``LeastAllocated`` (spread),
    case-sensitive. Anything else, a missing type or null becomes LeastAllocated, so a
    misspelt ``mostAllocated`` spreads the pods it was meant to pack.

    Failing::

        - name: resource-strategy-fit
          arguments:
            resources:
              nvidia.com/gpu:
                type: mostallocated
                weight: 2

    Passing::

        - name: resource-strategy-fit
          arguments:
            resources:
              nvidia.com/gpu:
                type: MostAllocated
                weight: 2
    """,
)

VR007_RSF_PATTERN = rule(
    "VR007",
    Severity.WARNING,
    "an unsupported wildcard: the resources entry is dropped",
    """
    A resource name may end in one ``*`` to match every resource with that prefix
    (``nvidia.com/*``). ``*`` alone, a ``*`` anywhere else, or two of them drop the
    entry (only a log line): those resources are not scored by it.

    Failing::

        - name: resource-strategy-fit
          arguments:
            resources:
              "*":
                type: MostAllocated
                weight: 1

    Passing::

        - name: resource-strategy-fit
          arguments:
            resources:
              nvidia.com/*:
                type: MostAllocated
                weight: 1
    """,
)

VR008_RSF_UNKNOWN_KEY = rule(
    "VR008",
    Severity.WARNING,
    "a key resource-strategy-fit does not read: ignored",
    """
    The plugin reads ``resourceStrategyFitWeight``, ``resources``, ``sra`` and
    ``proportional`` (exact spelling), and inside the sections their fields (any case:
    ``type``, ``weight``; ``enable``, ``resources``, ``weight``, ``resourceWeight``;
    ``resourceProportion``). Other keys are silently ignored, and of two keys that differ
    only by case one is ignored.

    Failing::

        - name: resource-strategy-fit
          arguments:
            weight: 10

    Passing::

        - name: resource-strategy-fit
          arguments:
            resourceStrategyFitWeight: 10
    """,
)

VR009_RSF_RESOURCES_DEFAULTED = rule(
    "VR009",
    Severity.WARNING,
    "resources empty, missing or only dropped patterns: cpu and memory spread, or nothing",
    """
    An empty or null ``resources`` is replaced by cpu and memory, LeastAllocated, weight
    1: the plugin spreads pods. A ``resources`` map whose every entry is dropped (see
    VR007) stays empty: every node scores 0. List the resources to score. An entry
    without ``resources`` at all (only ``sra`` or ``proportional`` settings, as in
    upstream's examples) gets the same cpu and memory spreading, with the plugin weight
    10: reported as advice (info).

    Failing::

        - name: resource-strategy-fit
          arguments:
            resources: {}

    Passing::

        - name: resource-strategy-fit
          arguments:
            resources:
              cpu:
                type: LeastAllocated
                weight: 1
    """,
)

VR010_RSF_PRECEDENCE = rule(
    "VR010",
    Severity.INFO,
    "which resources entry scores a resource is not obvious",
    """
    A resource takes the entry with its exact name; failing that the wildcard with the
    longest prefix. An entry shadowed that way never scores that resource, and a
    wildcard whose prefix matches ``cpu``, ``memory``, ``pods`` or ``ephemeral-storage``
    scores those too (every pod requests one pod). The message names what wins.

    Failing::

        - name: resource-strategy-fit
          arguments:
            resources:
              nvidia.com/*:
                type: MostAllocated
                weight: 2
              nvidia.com/gpu:
                type: LeastAllocated
                weight: 1

    Passing::

        - name: resource-strategy-fit
          arguments:
            resources:
              nvidia.com/*:
                type: MostAllocated
                weight: 2
    """,
)

VR011_RSF_SRA = rule(
    "VR011",
    Severity.WARNING,
    "an sra setting that does nothing or is corrected",
    """
    sra (scarce resource avoidance) is off unless ``sra.enable`` is true, and adds
    nothing unless ``sra.weight`` is positive; with no ``sra.resources`` it scores 0
    everywhere. A ``resourceWeight`` for a name not listed in ``sra.resources`` is
    ignored, a negative one becomes 1, and a name listed twice counts twice in the
    weight sum.

    Failing::

        - name: resource-strategy-fit
          arguments:
            sra:
              resources: nvidia.com/gpu
              weight: 10

    Passing::

        - name: resource-strategy-fit
          arguments:
            sra:
              enable: true
              resources: nvidia.com/gpu
              weight: 10
    """,
)

VR012_RSF_PROPORTIONAL = rule(
    "VR012",
    Severity.WARNING,
    "a proportional setting that does nothing or is corrected",
    """
    The proportional filter is off unless ``proportional.enable`` is true. Its rates are
    ``<resource>.cpu`` and ``<resource>.memory`` under ``resourceProportion`` for the
    resources listed in ``proportional.resources``; other keys are ignored and a
    negative rate becomes 1.

    Failing::

        - name: resource-strategy-fit
          arguments:
            proportional:
              enable: true
              resources: nvidia.com/gpu
              resourceProportion:
                nvidia.com/gpu.cpu: -4

    Passing::

        - name: resource-strategy-fit
          arguments:
            proportional:
              enable: true
              resources: nvidia.com/gpu
              resourceProportion:
                nvidia.com/gpu.cpu: 4
    """,
)

VR013_RSF_SWITCHED_OFF = rule(
    "VR013",
    Severity.WARNING,
    "resource-strategy-fit with its function switched off by a flag",
    """
    With ``enableNodeOrder: false`` Volcano never calls the plugin's score, so its
    strategy and sra settings do nothing; with ``enablePredicate: false`` the
    proportional filter never runs. Remove the flag, or the settings.

    Failing::

        - name: resource-strategy-fit
          enableNodeOrder: false
          arguments:
            resourceStrategyFitWeight: 10

    Passing::

        - name: resource-strategy-fit
          arguments:
            resourceStrategyFitWeight: 10
    """,
)

VR014_RSF_RESOURCE_NAME = rule(
    "VR014",
    Severity.WARNING,
    "a resource name no node reports",
    """
    Resource names are case-sensitive and must be the device plugin's exact name
    (``nvidia.com/gpu``, ``amd.com/gpu``); a name no node has never scores.

    Failing::

        - name: resource-strategy-fit
          arguments:
            resources:
              nvidia.com/GPU:
                type: MostAllocated
                weight: 1

    Passing::

        - name: resource-strategy-fit
          arguments:
            resources:
              nvidia.com/gpu:
                type: MostAllocated
                weight: 1
    """,
)

# --- deviceshare --------------------------------------------------------------------------

VD001_DEVICESHARE_FATAL = rule(
    "VD001",
    Severity.ERROR,
    "deviceshare flags that cannot be combined stop the scheduler",
    """
    deviceshare calls ``klog.Fatal`` (the scheduler exits and crash-loops) when both
    ``deviceshare.GPUSharingEnable`` and ``deviceshare.GPUNumberEnable`` are true, or
    when either of them is true together with ``deviceshare.VGPUEnable``. Enable one
    GPU mode.

    Failing::

        - name: deviceshare
          arguments:
            deviceshare.GPUSharingEnable: true
            deviceshare.GPUNumberEnable: true

    Passing::

        - name: deviceshare
          arguments:
            deviceshare.GPUSharingEnable: true
    """,
)

VD002_DEVICESHARE_NOT_BOOL = rule(
    "VD002",
    Severity.WARNING,
    "a deviceshare flag that is not a boolean: ignored",
    """
    deviceshare reads its ``...Enable`` flags with ``GetBool``: a value that is not a
    YAML boolean is ignored with a log line and the flag stays false. Volcano 1.15 and
    later also accept a string that Go's ``strconv.ParseBool`` reads (``"true"``,
    ``"1"``, ``"T"``); earlier releases ignore every string. Write ``true``/``false``.

    Failing::

        - name: deviceshare
          arguments:
            deviceshare.VGPUEnable: 1

    Passing::

        - name: deviceshare
          arguments:
            deviceshare.VGPUEnable: true
    """,
)

VD003_DEVICESHARE_SCORING = rule(
    "VD003",
    Severity.WARNING,
    "deviceshare device scoring that does not happen",
    """
    Devices are scored only when ``deviceshare.ScheduleWeight`` is a positive integer
    (default 0: no device scoring at all), with ``deviceshare.SchedulePolicy``
    ``binpack`` or ``spread`` (a string, case-sensitive). A policy without a weight, a
    weight without a policy, an unknown policy, a weight that is not an integer, or a
    policy that is not a string leaves the devices unscored (GPU sharing in
    ``GPUSharingEnable`` mode never scores).

    Failing::

        - name: deviceshare
          arguments:
            deviceshare.VGPUEnable: true
            deviceshare.SchedulePolicy: binpack

    Passing::

        - name: deviceshare
          arguments:
            deviceshare.VGPUEnable: true
            deviceshare.SchedulePolicy: binpack
            deviceshare.ScheduleWeight: 10
    """,
)

VD004_DEVICESHARE_UNKNOWN_KEY = rule(
    "VD004",
    Severity.WARNING,
    "a key deviceshare does not read: ignored",
    """
    deviceshare reads ``deviceshare.GPUSharingEnable``, ``GPUNumberEnable``,
    ``NodeLockEnable``, ``VGPUEnable``, ``AscendMindClusterVNPUEnable``,
    ``AscendHAMiVNPUEnable``, ``SchedulePolicy``, ``ScheduleWeight``,
    ``KnownGeometriesCMName`` and ``KnownGeometriesCMNamespace``, each with the
    ``deviceshare.`` prefix, case-sensitive. Other keys are ignored.

    Failing::

        - name: deviceshare
          arguments:
            deviceshare.vgpuEnable: true

    Passing::

        - name: deviceshare
          arguments:
            deviceshare.VGPUEnable: true
    """,
)

# --- network-topology-aware HyperNode bin-packing -------------------------------------------

VT001_HYPERNODE_VALUE = rule(
    "VT001",
    Severity.WARNING,
    "a HyperNode bin-packing argument Volcano ignores or corrects",
    """
    network-topology-aware reads ``weight``, ``hypernode.binpack.cpu``, ``.memory`` and
    ``.resources.<name>`` as integers (anything else is ignored: the default 1 stays; a
    negative value becomes 1), ``hypernode.binpack.normal-pod.enable`` as a boolean
    (strings only from Volcano 1.15) and ``hypernode.binpack.normal-pod.fading`` as a
    number (a string is ignored and a negative value becomes 0.8).

    Failing::

        - name: network-topology-aware
          arguments:
            hypernode.binpack.cpu: "5"

    Passing::

        - name: network-topology-aware
          arguments:
            hypernode.binpack.cpu: 5
    """,
)

VT002_HYPERNODE_RESOURCES = rule(
    "VT002",
    Severity.WARNING,
    "HyperNode bin-packing resources that are not scored as written",
    """
    ``hypernode.binpack.resources`` must be one comma-separated string (a list is
    treated as empty); ``hypernode.binpack.resources.<name>`` is read only for a name
    listed there; cpu and memory always take ``hypernode.binpack.cpu`` /
    ``hypernode.binpack.memory``.

    Failing::

        - name: network-topology-aware
          arguments:
            hypernode.binpack.resources.nvidia.com/gpu: 2

    Passing::

        - name: network-topology-aware
          arguments:
            hypernode.binpack.resources: nvidia.com/gpu
            hypernode.binpack.resources.nvidia.com/gpu: 2
    """,
)

VT003_HYPERNODE_UNKNOWN_KEY = rule(
    "VT003",
    Severity.WARNING,
    "a HyperNode bin-packing key this Volcano release does not read",
    """
    The ``hypernode.binpack.*`` arguments exist from Volcano 1.14; earlier releases, and
    every release for a misspelt key, ignore them.

    Failing::

        - name: network-topology-aware
          arguments:
            hypernode.binpack.gpu: 2

    Passing::

        - name: network-topology-aware
          arguments:
            hypernode.binpack.cpu: 2
    """,
)

VR015_RSF_CANCELLED = rule(
    "VR015",
    Severity.WARNING,
    "nodeorder's leastrequested outweighs resource-strategy-fit's packing",
    """
    Volcano adds every plugin's node score. resource-strategy-fit scores up to
    ``100 x resourceStrategyFitWeight``, nodeorder's ``leastrequested`` (which prefers
    the emptiest nodes) up to ``100 x leastrequested.weight``; with the spreading weight as
    large as the packing weight, MostAllocated packing is cancelled or reversed. Keep the
    default ``resourceStrategyFitWeight: 10``, or set ``leastrequested.weight: 0``.

    Failing::

        - name: nodeorder
        - name: resource-strategy-fit
          arguments:
            resourceStrategyFitWeight: 1
            resources:
              nvidia.com/gpu:
                type: MostAllocated
                weight: 1

    Passing::

        - name: nodeorder
        - name: resource-strategy-fit
          arguments:
            resourceStrategyFitWeight: 10
            resources:
              nvidia.com/gpu:
                type: MostAllocated
                weight: 1
    """,
)
