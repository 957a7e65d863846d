"""The kube-scheduler rule catalogue (``KS``).

KS001-KS009: the document itself and strict decoding; KS010-KS019: NodeResourcesFit and
NodeResourcesBalancedAllocation args; KS020-KS029: plugins, profiles and the other
top-level settings; KS030: the other plugins' args; KS040-KS049: legal but dead or
surprising configurations (warnings). Errors are exactly what the kube-scheduler release
being judged (``--kubernetes-version``, default 1.36) refuses to start with; each ``doc``
says what the scheduler does and how to fix it.
"""

from __future__ import annotations

from policytest.core.findings import Severity
from policytest.core.rules import rule

KS001_API_VERSION = rule(
    "KS001",
    Severity.ERROR,
    "apiVersion kube-scheduler does not serve (removed beta version, or wrong group)",
    """
    Every judged kube-scheduler release (1.33 to 1.37) decodes
    ``KubeSchedulerConfiguration`` only in ``kubescheduler.config.k8s.io/v1``.
    ``v1beta3`` was removed in Kubernetes 1.29, ``v1beta2`` in 1.28, ``v1beta1`` in
    1.23, the alpha versions in 1.19; with any of
    them the scheduler exits with ``no kind "KubeSchedulerConfiguration" is registered
    for version ...``. ``v1`` exists from 1.25. Change ``apiVersion`` to
    ``kubescheduler.config.k8s.io/v1``: for bin-packing configs (``NodeResourcesFit``
    args, plugin weights) the fields are the same.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1beta3
        kind: KubeSchedulerConfiguration

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
    """,
)

KS002_LEGACY_POLICY = rule(
    "KS002",
    Severity.ERROR,
    "legacy scheduler Policy API: removed in Kubernetes 1.23",
    """
    The ``Policy`` API (``kind: Policy`` with ``predicates`` and ``priorities``, passed
    with ``--policy-config-file``) was removed in Kubernetes 1.23 together with the
    flag; kube-scheduler no longer reads it. Its priorities became score plugins of a
    ``KubeSchedulerConfiguration``: ``RequestedToCapacityRatioPriority`` is
    ``NodeResourcesFit`` with ``scoringStrategy.type: RequestedToCapacityRatio``,
    ``MostRequestedPriority`` is ``MostAllocated``, ``LeastRequestedPriority`` is
    ``LeastAllocated``, a priority's weight is the plugin's score weight. The finding
    shows the equivalent v1 configuration.

    Failing::

        {"kind": "Policy", "apiVersion": "v1",
         "priorities": [{"name": "MostRequestedPriority", "weight": 1}]}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
    """,
)

KS003_UNKNOWN_FIELD = rule(
    "KS003",
    Severity.ERROR,
    "unknown field: kube-scheduler decodes strictly and refuses to start",
    """
    kube-scheduler decodes its configuration strictly: a field it does not know (a typo,
    wrong case such as ``Type`` for ``type``, a field from another plugin's args, or one
    from an older API version) is an error (``strict decoding error: unknown field``),
    not something it ignores. Field names are case-sensitive. Remove the field or
    correct its name (the message suggests the closest one).

    The same holds for the args of out-of-tree plugins whose args kind the scheduler
    build registers: with ``kubeScheduler.distribution: scheduler-plugins`` in the
    project settings, the top-level fields of its args kinds (``CoschedulingArgs``,
    ``TargetLoadPackingArgs``, ...) are checked too.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
                resources:
                - name: cpu
                  wieght: 2

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
                resources:
                - name: cpu
                  weight: 2
    """,
)

KS004_DUPLICATE_KEY = rule(
    "KS004",
    Severity.ERROR,
    "duplicate key: kube-scheduler refuses to start",
    """
    kube-scheduler reads YAML strictly: a key given twice in one mapping is an error
    (``key "type" already set in map``), also when one of them comes from a YAML merge
    key (``<<``). Other tools silently keep the last value, so the file may look fine
    elsewhere. Keep one of the two.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          schedulerName: bin-packing

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: bin-packing
    """,
)

KS005_WRONG_TYPE = rule(
    "KS005",
    Severity.ERROR,
    "value of the wrong type or form: kube-scheduler cannot decode it",
    """
    Every field has a Go type and the value must decode into it: a quoted number
    (``weight: "5"``) is a string, ``1.5`` is not an integer (``2.0`` is accepted, it
    is the integer 2), an integer must fit its type (weights of plugins and shape
    points are 32-bit), booleans are unquoted ``true``/``false``, durations are strings
    such as ``15s``, lists and mappings must not be swapped, plugin ``args`` must be a
    mapping, and ``.nan``/``.inf`` cannot be decoded at all. kube-scheduler exits with
    ``json: cannot unmarshal ...``. Write the value in the type the message names.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
                resources:
                - name: cpu
                  weight: "5"

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
                resources:
                - name: cpu
                  weight: 5
    """,
)

KS006_NOT_A_CONFIG = rule(
    "KS006",
    Severity.ERROR,
    "not a KubeSchedulerConfiguration kube-scheduler can read (kind, apiVersion, shape)",
    """
    The file passed with ``--config`` must be one mapping with ``apiVersion`` and
    ``kind: KubeSchedulerConfiguration``. An empty file, a list, a missing ``kind`` or
    ``apiVersion`` (``Object 'Kind' is missing``), another kind (``no kind ... is
    registered``) or a YAML syntax error (in a file that says ``kind:
    KubeSchedulerConfiguration``, or in a ConfigMap value that holds the config) stops
    kube-scheduler at start-up.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfig

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
    """,
)

KS010_FIT_STRATEGY = rule(
    "KS010",
    Severity.ERROR,
    "scoring strategy type of NodeResourcesFit is not LeastAllocated, MostAllocated or "
    "RequestedToCapacityRatio",
    """
    ``scoringStrategy.type`` is required once ``scoringStrategy`` is given, and it is
    case-sensitive: ``LeastAllocated``, ``MostAllocated`` or
    ``RequestedToCapacityRatio``. Anything else (``mostallocated``, the legacy priority
    names ``MostRequested``/``LeastRequestedPriority``, an empty string, a missing
    ``type``) makes kube-scheduler fail while initializing ``NodeResourcesFit``
    (``scoringStrategy.type: Unsupported value``). For bin packing use
    ``MostAllocated``.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: mostallocated

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
    """,
)

KS011_FIT_WEIGHT = rule(
    "KS011",
    Severity.ERROR,
    "resource weight of NodeResourcesFit outside 1..100",
    """
    Each ``scoringStrategy.resources[].weight`` must be between 1 and 100 (a missing,
    null or 0 weight is first defaulted to 1). A negative weight or one above 100 makes
    kube-scheduler fail while initializing ``NodeResourcesFit`` (``resource weight of
    cpu not in valid range (0, 100]``). Only the ratio between weights matters, so scale
    them down.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
                resources:
                - name: nvidia.com/gpu
                  weight: 1000
                - name: cpu
                  weight: 10

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
                resources:
                - name: nvidia.com/gpu
                  weight: 100
                - name: cpu
                  weight: 1
    """,
)

KS012_RTCR_MISSING = rule(
    "KS012",
    Severity.ERROR,
    "type RequestedToCapacityRatio without a requestedToCapacityRatio block: the scheduler crashes",
    """
    With ``type: RequestedToCapacityRatio`` kube-scheduler up to v1.35 reads
    ``scoringStrategy.requestedToCapacityRatio.shape`` without checking that the block
    exists: without it the scheduler panics at start-up (``invalid memory address or
    nil pointer dereference``) and crash-loops. From 1.36 validation refuses it first
    (``Required value: must be specified when type is RequestedToCapacityRatio``). Give
    the shape; for bin packing a rising one.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: RequestedToCapacityRatio

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: RequestedToCapacityRatio
                requestedToCapacityRatio:
                  shape:
                  - {utilization: 0, score: 0}
                  - {utilization: 100, score: 10}
    """,
)

KS013_SHAPE = rule(
    "KS013",
    Severity.ERROR,
    "invalid requestedToCapacityRatio shape (empty, utilization not 0..100 and strictly "
    "increasing, or score not 0..10)",
    """
    Whenever ``requestedToCapacityRatio`` is given (even with ``MostAllocated`` or
    ``LeastAllocated``, which ignore it) kube-scheduler checks its shape: at least one
    point, ``utilization`` between 0 and 100 and strictly increasing from point to
    point, ``score`` between 0 and 10. The score scale is 0..10 (kube-scheduler
    multiplies it by 10); ``score: 100`` is the old 0..100 habit. Any violation stops
    the scheduler while initializing ``NodeResourcesFit``.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: RequestedToCapacityRatio
                requestedToCapacityRatio:
                  shape:
                  - {utilization: 0, score: 0}
                  - {utilization: 100, score: 100}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: RequestedToCapacityRatio
                requestedToCapacityRatio:
                  shape:
                  - {utilization: 0, score: 0}
                  - {utilization: 100, score: 10}
    """,
)

KS014_BALANCED_WEIGHT = rule(
    "KS014",
    Severity.ERROR,
    "resource weight of NodeResourcesBalancedAllocation other than 1",
    """
    BalancedAllocation does not weight resources: every
    ``resources[].weight`` must be exactly 1 (a missing or 0 weight is defaulted to 1).
    Any other value is rejected at validation (``must be 1``). To make the plugin count
    more, raise its score weight under ``plugins.score.enabled`` instead.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesBalancedAllocation
            args:
              resources:
              - {name: cpu, weight: 2}
              - {name: memory, weight: 1}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesBalancedAllocation
            args:
              resources:
              - {name: cpu}
              - {name: memory}
    """,
)

KS015_BALANCED_DUPLICATE = rule(
    "KS015",
    Severity.ERROR,
    "resource listed twice in NodeResourcesBalancedAllocation",
    """
    BalancedAllocation rejects a resource name that appears twice in ``resources``
    (``Duplicate value``); NodeResourcesFit accepts duplicates, BalancedAllocation does
    not. Remove the second entry.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesBalancedAllocation
            args:
              resources:
              - {name: cpu}
              - {name: cpu}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesBalancedAllocation
            args:
              resources:
              - {name: cpu}
              - {name: memory}
    """,
)

KS016_FIT_IGNORED = rule(
    "KS016",
    Severity.ERROR,
    "invalid NodeResourcesFit ignoredResources or ignoredResourceGroups",
    """
    ``ignoredResources`` entries must be valid resource names (``example.com/foo``) and
    ``ignoredResourceGroups`` entries must be domain prefixes without a ``/``
    (``example.com``). Otherwise kube-scheduler fails while initializing
    ``NodeResourcesFit``. Put full names in ``ignoredResources``, prefixes in
    ``ignoredResourceGroups``.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              ignoredResourceGroups: [example.com/foo]

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              ignoredResources: [example.com/foo]
    """,
)

KS017_RATIO_BLOCK = rule(
    "KS017",
    Severity.ERROR,
    "requestedToCapacityRatio beside another scoring strategy type (refused from 1.36)",
    """
    From kube-scheduler 1.36, ``scoringStrategy.requestedToCapacityRatio`` must be nil
    unless ``type`` is ``RequestedToCapacityRatio``: a block (even an empty one) beside
    ``LeastAllocated`` or ``MostAllocated`` stops the scheduler at start-up with
    ``Forbidden: must be nil when type is not RequestedToCapacityRatio``. Up to 1.35 the
    block was checked and then ignored (KS045). An explicit ``null`` is accepted.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: LeastAllocated
                requestedToCapacityRatio:
                  shape:
                  - {utilization: 0, score: 0}
                  - {utilization: 100, score: 10}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: LeastAllocated
    """,
)

KS020_UNKNOWN_PLUGIN = rule(
    "KS020",
    Severity.ERROR,
    "unknown or removed plugin enabled under plugins",
    """
    Every plugin enabled under ``plugins`` (any extension point or ``multiPoint``) must
    exist in kube-scheduler's registry; names are case-sensitive. An unknown name stops
    the scheduler (``ScorePlugin "NodeResourcesMostAllocated" does not exist``);
    ``EBSLimits``, ``GCEPDLimits``, ``AzureDiskLimits`` and ``CinderLimits`` were
    removed from v1 (use ``NodeVolumeLimits``). Old bin-packing plugins
    (``NodeResourcesMostAllocated``, ``RequestedToCapacityRatio``) are now strategies of
    ``NodeResourcesFit``.

    A scheduler built with out-of-tree plugins (kubernetes-sigs/scheduler-plugins'
    ``Coscheduling``, ``NodeResourcesAllocatable``, ``TargetLoadPacking``...; an
    in-house plugin) knows more names: say so in the project settings file
    ``.policytest.yaml`` (``kubeScheduler.distribution: scheduler-plugins``, or
    ``kubeScheduler.plugins``), and those names are checked at the extension points they
    implement instead. Removed in-tree names stay errors whatever the build.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          plugins:
            score:
              enabled:
              - name: NodeResourcesMostAllocated

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
    """,
)

KS021_WRONG_EXTENSION_POINT = rule(
    "KS021",
    Severity.ERROR,
    "plugin enabled at an extension point it does not implement",
    """
    A plugin listed under a specific extension point must implement it: ``NodeName`` is
    a filter, not a score plugin (``plugin "NodeName" does not extend ScorePlugin``).
    Move it to an extension point it has, or enable it under ``multiPoint``, which
    registers a plugin at exactly the points it implements.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          plugins:
            score:
              enabled:
              - name: NodeName

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          plugins:
            filter:
              enabled:
              - name: NodeName
    """,
)

KS022_PLUGIN_TWICE = rule(
    "KS022",
    Severity.ERROR,
    "plugin enabled twice at one extension point",
    """
    A plugin may appear once per extension point (and once in ``multiPoint``); a
    second entry stops the scheduler (``plugin "NodeResourcesFit" already registered as
    "ScorePlugin"``). To change a default plugin's weight, list it once with the new
    weight: it replaces the default entry.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          plugins:
            score:
              enabled:
              - {name: NodeResourcesFit, weight: 2}
              - {name: NodeResourcesFit, weight: 3}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          plugins:
            score:
              enabled:
              - {name: NodeResourcesFit, weight: 5}
    """,
)

KS023_NEGATIVE_WEIGHT = rule(
    "KS023",
    Severity.ERROR,
    "negative score plugin weight",
    """
    kube-scheduler guards the sum of score weights against overflow; a negative weight
    breaks that check so that the next score plugin makes the scheduler refuse to start
    (``total score of Score plugins could overflow``). If the negative weight happens to
    be the last one checked it is accepted and inverts the plugin (reported as a
    warning). Use a positive weight; to turn a plugin off, disable it.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          plugins:
            score:
              enabled:
              - {name: NodeResourcesFit, weight: -1}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          plugins:
            score:
              disabled:
              - name: NodeResourcesFit
    """,
)

KS024_QUEUE_SORT_BIND = rule(
    "KS024",
    Severity.ERROR,
    "queue sort or bind plugins misconfigured (not exactly one queue sort, no binder, "
    "or queue sort differs between profiles)",
    """
    Every profile needs exactly one queue sort plugin and at least one bind plugin, and
    all profiles must use the same queue sort plugin and settings (they share one
    queue). Disabling ``"*"`` under ``multiPoint`` also removes ``PrioritySort`` and
    ``DefaultBinder``: enable them again.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          plugins:
            multiPoint:
              disabled:
              - name: "*"
              enabled:
              - name: NodeResourcesFit

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          plugins:
            multiPoint:
              disabled:
              - name: "*"
              enabled:
              - name: PrioritySort
              - name: NodeResourcesFit
              - name: DefaultBinder
    """,
)

KS025_DUPLICATE_PLUGIN_CONFIG = rule(
    "KS025",
    Severity.ERROR,
    "pluginConfig configures the same plugin twice",
    """
    A profile's ``pluginConfig`` may hold one entry per plugin name; a second one is
    rejected (``Duplicate value: "NodeResourcesFit"``). Merge the two ``args``.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args: {scoringStrategy: {type: MostAllocated}}
          - name: NodeResourcesFit
            args: {ignoredResources: [example.com/foo]}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy: {type: MostAllocated}
              ignoredResources: [example.com/foo]
    """,
)

KS026_SCHEDULER_NAME = rule(
    "KS026",
    Severity.ERROR,
    "profile schedulerName empty or used twice",
    """
    Pods choose a profile by ``spec.schedulerName``, so every profile needs a non-empty
    ``schedulerName`` that no other profile uses. Only a single profile without a name
    is named ``default-scheduler`` automatically.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
        - schedulerName: default-scheduler

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
        - schedulerName: bin-packing-scheduler
    """,
)

KS027_PERCENTAGE = rule(
    "KS027",
    Severity.ERROR,
    "percentageOfNodesToScore outside 0..100",
    """
    ``percentageOfNodesToScore`` (top level or per profile) must be between 0 and 100;
    0 means the adaptive default. Other values are rejected at validation.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        percentageOfNodesToScore: 101

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        percentageOfNodesToScore: 100
    """,
)

KS028_SETTINGS = rule(
    "KS028",
    Severity.ERROR,
    "invalid scheduler setting (parallelism, pod backoff, leader election, client connection)",
    """
    kube-scheduler validates its process settings at start-up: ``parallelism`` must be
    above 0, ``podInitialBackoffSeconds`` above 0 and ``podMaxBackoffSeconds`` at least
    as large (defaults 1 and 10), ``clientConnection.burst`` not negative; with leader
    election on (the default) ``leaseDuration`` must exceed ``renewDeadline``, all
    durations be positive and ``resourceLock`` be ``leases``.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        podInitialBackoffSeconds: 20

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        podInitialBackoffSeconds: 20
        podMaxBackoffSeconds: 60
    """,
)

KS029_EXTENDERS = rule(
    "KS029",
    Severity.ERROR,
    "invalid scheduler extender",
    """
    An extender with a ``prioritizeVerb`` needs a positive ``weight``; at most one
    extender may implement ``bindVerb``; ``managedResources`` names must be extended
    resource names (``example.com/foo``, not ``cpu``) and appear once.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        extenders:
        - urlPrefix: http://extender:8888
          prioritizeVerb: prioritize

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        extenders:
        - urlPrefix: http://extender:8888
          prioritizeVerb: prioritize
          weight: 1
    """,
)

KS030_PLUGIN_ARGS = rule(
    "KS030",
    Severity.ERROR,
    "invalid args for another in-tree plugin (DefaultPreemption, InterPodAffinity, "
    "NodeAffinity, PodTopologySpread, VolumeBinding, DynamicResources), or a pluginConfig "
    "named NodeResourcesFitArgs",
    """
    kube-scheduler validates the args of its in-tree plugins at start-up: for example
    ``InterPodAffinity.hardPodAffinityWeight`` 0..100,
    ``DefaultPreemption.minCandidateNodesPercentage`` 0..100, ``PodTopologySpread``
    default constraints only with ``defaultingType: List``, ``VolumeBinding``
    ``bindTimeoutSeconds`` not negative and no ``shape`` (the StorageCapacityScoring
    feature gate is off), ``NodeAffinity.addedAffinity`` a valid node selector,
    ``DynamicResources.filterTimeout`` not negative and ``bindingTimeout`` per release:
    forbidden in 1.35 (its feature gates are off), at least 1s from 1.36.

    Its table of args validators is keyed by name, and one key is the args kind rather
    than the plugin: ``NodeResourcesFitArgs``. A ``pluginConfig`` entry named so (the
    kind written where the plugin's name belongs) is validated as NodeResourcesFit's
    args, but kube-scheduler decoded none of that type for it, so it refuses to start
    with ``has to match plugin args`` (1.35 and 1.36). Name the entry
    ``NodeResourcesFit``.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: InterPodAffinity
            args:
              hardPodAffinityWeight: 101

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: InterPodAffinity
            args:
              hardPodAffinityWeight: 100
    """,
)

KS040_ZERO_WEIGHT = rule(
    "KS040",
    Severity.WARNING,
    "weight 0 is silently raised to 1",
    """
    kube-scheduler treats a weight of 0 as "not set" and uses 1: a score plugin with
    ``weight: 0`` still scores with weight 1, and a ``NodeResourcesFit`` or
    ``NodeResourcesBalancedAllocation`` resource with ``weight: 0`` counts like any
    other. To stop a plugin from scoring, disable it; to drop a resource, remove it.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          plugins:
            score:
              enabled:
              - {name: NodeResourcesBalancedAllocation, weight: 0}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          plugins:
            score:
              disabled:
              - name: NodeResourcesBalancedAllocation
    """,
)

KS041_UNKNOWN_PLUGIN_CONFIG = rule(
    "KS041",
    Severity.WARNING,
    "pluginConfig or disabled entry names a plugin that does not exist: ignored",
    """
    ``pluginConfig`` args for a plugin name kube-scheduler does not know are accepted
    and never used (they are meant for out-of-tree plugins), and disabling an unknown
    plugin disables nothing. A typo (``NodeResourceFit``) or a removed plugin
    (``NodeResourcesMostAllocated``) therefore silently leaves the default behaviour in
    place. Use the exact plugin name.

    Out-of-tree plugins of the scheduler build named in the project settings file
    (``kubeScheduler.distribution`` or ``kubeScheduler.plugins``) are known, and their
    args accepted; a distribution plugin that takes no args (scheduler-plugins'
    ``CapacityScheduling``, ``PodState``, ``QOSSort``) gets this warning for args given
    to it, which it ignores.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourceFit
            args:
              scoringStrategy: {type: MostAllocated}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy: {type: MostAllocated}
    """,
)

KS042_FIT_NOT_SCORING = rule(
    "KS042",
    Severity.WARNING,
    "scoring strategy of NodeResourcesFit configured while Fit does not score",
    """
    The scoring strategy only matters when ``NodeResourcesFit`` is a score plugin of the
    profile. With Fit disabled for scoring (``score.disabled``, ``multiPoint.disabled``
    or ``"*"``) the strategy does nothing; with Fit disabled everywhere the scheduler
    does not even validate its args. Enable Fit for scoring or drop the strategy.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          plugins:
            score:
              disabled:
              - name: NodeResourcesFit
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy: {type: MostAllocated}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy: {type: MostAllocated}
    """,
)

KS043_FIT_DUPLICATE = rule(
    "KS043",
    Severity.WARNING,
    "resource listed twice in NodeResourcesFit (accepted; the weights add up)",
    """
    NodeResourcesFit accepts the same resource twice in ``scoringStrategy.resources``
    and scores it twice, so its effective weight is the sum of both entries, probably
    not what was meant. (BalancedAllocation rejects duplicates.) Keep one entry with
    the intended weight.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
                resources:
                - {name: cpu, weight: 1}
                - {name: cpu, weight: 2}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
                resources:
                - {name: cpu, weight: 3}
    """,
)

KS044_NEVER_SCORED = rule(
    "KS044",
    Severity.WARNING,
    "resource name that is never scored (no domain, wrong case)",
    """
    Besides ``cpu``, ``memory`` and ``ephemeral-storage``, kube-scheduler only tracks
    resources with a domain (``nvidia.com/gpu``, ``example.com/foo``) and the
    ``hugepages-*`` family. Any other name (``gpu``, ``CPU``, ``Memory``) is accepted
    but never found on a node: it scores nothing and drops out of the weighted mean.
    Use the exact resource name.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
                resources:
                - {name: gpu, weight: 5}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
                resources:
                - {name: nvidia.com/gpu, weight: 5}
    """,
)

KS045_SHAPE_IGNORED = rule(
    "KS045",
    Severity.WARNING,
    "requestedToCapacityRatio shape given with MostAllocated or LeastAllocated: ignored",
    """
    Only ``type: RequestedToCapacityRatio`` uses the shape. With ``MostAllocated`` or
    ``LeastAllocated`` kube-scheduler up to 1.35 validates it and then ignores it, so the
    scores follow the fixed strategy, not the shape (from 1.36 the block is refused:
    KS017; the examples below are judged as 1.35). Set ``type: RequestedToCapacityRatio``
    or remove the shape.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
                requestedToCapacityRatio:
                  shape:
                  - {utilization: 0, score: 0}
                  - {utilization: 100, score: 10}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: RequestedToCapacityRatio
                requestedToCapacityRatio:
                  shape:
                  - {utilization: 0, score: 0}
                  - {utilization: 100, score: 10}
    """,
)

KS046_SHAPE_SPREADS = rule(
    "KS046",
    Severity.WARNING,
    "shape of RequestedToCapacityRatio that falls or is flat: it spreads rather than packs",
    """
    The shape maps a node's utilization (after placing the pod) to a score. A shape
    whose score falls as utilization rises prefers emptier nodes, i.e. it spreads pods
    like ``LeastAllocated``; a flat shape gives every node the same score. Both are
    legal, but rarely what a bin-packing config means. For packing, make the score rise
    with utilization.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: RequestedToCapacityRatio
                requestedToCapacityRatio:
                  shape:
                  - {utilization: 0, score: 10}
                  - {utilization: 100, score: 0}

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: RequestedToCapacityRatio
                requestedToCapacityRatio:
                  shape:
                  - {utilization: 0, score: 0}
                  - {utilization: 100, score: 10}
    """,
)

KS047_SPREADING_BEATS_PACKING = rule(
    "KS047",
    Severity.WARNING,
    "default spreading outweighs bin-packing for the pods of Deployments and StatefulSets",
    """
    PodTopologySpread's default constraints (``defaultingType: System``: hostname
    maxSkew 3, zone maxSkew 5, ``ScheduleAnyway``) apply to every pod that a Service,
    ReplicaSet, ReplicationController or StatefulSet selects, i.e. to nearly every pod
    of a real cluster, and score each node from 0 to 100 times PodTopologySpread's
    weight (2 by default): a node already holding replicas of the same workload loses
    up to that much. A bin-packing strategy (``MostAllocated``, or
    ``RequestedToCapacityRatio`` with a rising shape) gains only about the pod's share
    of the node times NodeResourcesFit's weight (1 by default): a pod taking 5% of a
    node moves it by about 5 points. So the scheduler spreads a Deployment's replicas
    over every node, as ``LeastAllocated`` would: twelve 500m replicas on five empty
    8-CPU nodes land 3/2/2/2/3 until NodeResourcesFit's weight reaches 20, ten times
    PodTopologySpread's (``fixtures/kube-most-allocated-deployment.policytest.yaml``).
    The rule fires when a packing profile scores with PodTopologySpread, its default
    constraints apply, and NodeResourcesFit's weight is below ten times
    PodTopologySpread's. Fix it by switching the defaults off (``defaultingType: List``
    with no ``defaultConstraints``: pods that write their own constraints still
    spread), by disabling PodTopologySpread's score, or by raising NodeResourcesFit's
    weight to at least ten times PodTopologySpread's.

    Failing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated

    Passing::

        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy:
                type: MostAllocated
          - name: PodTopologySpread
            args:
              defaultingType: List
    """,
)
