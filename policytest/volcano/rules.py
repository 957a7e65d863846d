"""The Volcano rule catalogue: ``VC`` (the conf), ``VB`` (binpack), ``VN`` (nodeorder).

The other bin-packing plugins' rules, ``VR`` (resource-strategy-fit), ``VD`` (deviceshare)
and ``VT`` (network-topology-aware), are declared in :mod:`policytest.volcano.plugin_rules`.

Each declaration's ``doc`` is the user documentation (``policytest rules VB005`` and
``docs/rules.md``): what Volcano does, how to fix it, a failing and a passing example.
Severity: error where Volcano rejects the file or silently drops what the user wrote,
warning where it is legal but almost certainly unintended, info for advice.
"""

from __future__ import annotations

from policytest.core.findings import Severity
from policytest.core.rules import rule

VC001_LOAD_FAILURE = rule(
    "VC001",
    Severity.ERROR,
    "the file does not load in Volcano (YAML error or a wrongly typed field)",
    """
    Volcano decodes ``volcano-scheduler.conf`` with Go's yaml.v2 into typed fields:
    ``actions`` is a string, ``tiers`` and ``plugins`` are lists, every ``enableXxx``
    flag is a boolean, ``arguments`` is a mapping, ``metrics`` maps names to strings.
    One wrongly typed value (``enableNodeOrder: "true"``, ``enableNodeOrder: 1``,
    ``actions: [allocate]``, ``arguments`` written as a list, a plugin entry written as a
    bare name), a YAML syntax error or an empty conf (no actions) rejects the whole file:
    Volcano logs the error and keeps scheduling with its previous configuration, so the
    change silently never takes effect. Fix the value at the reported position.

    Failing::

        actions: "enqueue, allocate, backfill"
        tiers:
        - plugins:
          - name: binpack
            enableNodeOrder: "true"

    Passing::

        actions: "enqueue, allocate, backfill"
        tiers:
        - plugins:
          - name: binpack
            enableNodeOrder: true
    """,
)

VC002_UNKNOWN_ACTION = rule(
    "VC002",
    Severity.ERROR,
    "unknown action: Volcano rejects the whole file",
    """
    ``actions`` is split on commas and each name is trimmed and looked up exactly
    (case-sensitive). One unknown name rejects the whole file and Volcano keeps its
    previous configuration. Common causes: wrong case (``gangPreempt`` for
    ``gangpreempt``), a trailing or doubled comma (an empty action), another separator
    (``;``, a space, a full-width comma), or an action another release has: ``elect``
    and ``reserve`` were removed in Volcano 1.6, ``gangpreempt``/``gangreclaim`` exist
    from 1.15 (see ``--volcano-version``). Volcano 1.12 and 1.13 only log
    ``Failed to find Action X, ignore it`` and run the other actions: there this is a
    warning, the action silently does not run.

    Failing::

        actions: "enqueue, allocate, backfill,"

    Passing::

        actions: "enqueue, allocate, backfill"
    """,
)

VC003_DRF_PROPORTION = rule(
    "VC003",
    Severity.ERROR,
    "drf with enableHierarchy and proportion in the same tier: rejected",
    """
    Hierarchical DRF and the proportion plugin both decide queue shares; Volcano refuses
    a tier that enables both ("proportion and drf with hierarchy enabled conflicts") and
    keeps its previous configuration. Use one of them per tier.

    Failing::

        actions: "enqueue, allocate, backfill"
        tiers:
        - plugins:
          - name: drf
            enableHierarchy: true
          - name: proportion

    Passing::

        actions: "enqueue, allocate, backfill"
        tiers:
        - plugins:
          - name: drf
            enableHierarchy: true
    """,
)

VC004_UNKNOWN_PLUGIN = rule(
    "VC004",
    Severity.ERROR,
    "unknown plugin name: skipped at every scheduling cycle",
    """
    A plugin whose name is not registered in this Volcano release is skipped with an
    error log at every session: none of its functions run. Names are case-sensitive and
    use the plugin's registered name, not its Go package (``numa-aware``, not
    ``numaaware``; ``task-topology``, not ``tasktopology``). Some plugins exist only in
    some releases (``nodegroup`` from 1.9, ``reservation`` before 1.6). The message
    suggests the closest real name, when one is close enough to be a slip.

    Custom plugins that your scheduler loads with ``--plugins-dir`` (the custom-plugin
    guide's ``magic``, a fork's ``topology910``) are known once listed under
    ``volcano.plugins`` in the project settings file ``.policytest.yaml``.

    Failing::

        tiers:
        - plugins:
          - name: numaaware

    Passing::

        tiers:
        - plugins:
          - name: numa-aware
    """,
)

VC005_DUPLICATE_PLUGIN = rule(
    "VC005",
    Severity.ERROR,
    "the same plugin is listed more than once",
    """
    Each entry opens the plugin again, and its functions are kept per plugin name: the
    last entry's instance wins, and it is then called once for every entry. For
    ``binpack`` that means its node-order score is added once per entry, every time
    with the weights of the last entry whose ``binpack.weight`` is not 0; the other
    entries' arguments do nothing: Volcano silently drops them, hence an error. Keep one
    entry per plugin.

    Failing::

        tiers:
        - plugins:
          - name: binpack
        - plugins:
          - name: binpack
            arguments:
              binpack.weight: 10

    Passing::

        tiers:
        - plugins:
          - name: binpack
            arguments:
              binpack.weight: 10
    """,
)

VC006_UNKNOWN_KEY = rule(
    "VC006",
    Severity.ERROR,
    "unknown key: silently ignored",
    """
    yaml.v2 decodes the conf non-strictly: a key that is not a field of the structure is
    skipped without a word, so a misspelled flag or section does nothing. Mind the flag
    spellings: most are ``enableXxx`` (``enableNodeOrder``), nine are ``enabledXxx``
    (``enabledVictim``, ``enabledOverused``, ``enabledAllocatable``,
    ``enabledClusterOrder``, ``enabledHyperNodeOrder``, ``enabledHyperNodeGradient``,
    ``enabledSubJobReady``, ``enabledSubJobPipelined``, ``enabledSubJobOrder``). The
    message suggests the real spelling.

    Failing::

        tiers:
        - plugins:
          - name: binpack
            enabledNodeOrder: true

    Passing::

        tiers:
        - plugins:
          - name: binpack
            enableNodeOrder: true
    """,
)

VC007_DUPLICATE_KEY = rule(
    "VC007",
    Severity.ERROR,
    "duplicate key in a mapping: yaml.v2 silently keeps the last one",
    """
    Volcano's YAML parser does not reject a key written twice in one mapping: the last
    value wins and the first is dropped without a word. Two ``arguments:`` (or
    ``metrics:``) maps in one entry are merged instead, the later one winning for keys
    both set. Keep one copy of the key with the value you mean.

    Failing::

        tiers:
        - plugins:
          - name: binpack
            arguments:
              binpack.weight: 10
              binpack.weight: 3

    Passing::

        tiers:
        - plugins:
          - name: binpack
            arguments:
              binpack.weight: 10
    """,
)

VC008_ACTIONS_SHAPE = rule(
    "VC008",
    Severity.WARNING,
    "no allocate action, or an action listed twice",
    """
    ``allocate`` is the action that binds pending tasks to nodes; without it only
    backfill and eviction actions run and normal jobs stay pending. An action listed
    twice runs twice in every scheduling cycle.

    Failing::

        actions: "enqueue, backfill"

    Passing::

        actions: "enqueue, allocate, backfill"
    """,
)

VC009_IGNORED_DOCUMENT = rule(
    "VC009",
    Severity.WARNING,
    "Volcano reads only the first YAML document of its conf",
    """
    Volcano unmarshals the conf file once, which reads the first YAML document and
    ignores everything after a ``---`` or ``...`` line. A second document in the conf
    (or in the ConfigMap value) never takes effect. Merge it into the first, or remove
    the separator (a ``...`` line copied from documentation truncates the conf there).

    Failing::

        actions: "enqueue, allocate, backfill"
        ...
        configurations:
        - name: allocate

    Passing::

        actions: "enqueue, allocate, backfill"
        configurations:
        - name: allocate
    """,
)

VC010_NULL_FLAG = rule(
    "VC010",
    Severity.WARNING,
    "a flag written as Null or NULL is false, not unset",
    """
    yaml.v2 leaves a flag unset (so its default, true, applies) only for ``null``,
    ``~`` or an empty value; ``Null`` and ``NULL`` allocate the flag and set it to
    false, switching that function of the plugin off. Write ``true``/``false``, or
    remove the key to get the default.

    Failing::

        tiers:
        - plugins:
          - name: binpack
            enableNodeOrder: Null

    Passing::

        tiers:
        - plugins:
          - name: binpack
    """,
)

VC011_IDLE_CONFIGURATION = rule(
    "VC011",
    Severity.WARNING,
    "configuration for an action that does not run: ignored",
    """
    ``configurations`` entries are looked up by action name when that action runs. An
    entry whose name is not an action listed in ``actions`` (or not an action at all)
    is never read. Fix the name or add the action.

    Failing::

        actions: "enqueue, allocate, backfill"
        configurations:
        - name: preempt
          arguments: {}

    Passing::

        actions: "enqueue, allocate, backfill, preempt"
        configurations:
        - name: preempt
          arguments: {}
    """,
)

VC012_UNREAD_ARGUMENT = rule(
    "VC012",
    Severity.WARNING,
    "a plugin or action argument nothing reads in this release: silently ignored",
    """
    A plugin reads the argument keys it knows and ignores every other key without a
    word; an action reads the ``arguments`` of the first ``configurations`` entry with
    its name, the same way. So a misspelled key, a key another plugin or action reads, or
    a key an older release read does nothing. Real confs carry ``predicate.VGPUEnable``
    (predicates has never read it in the releases policytest models: deviceshare reads
    ``deviceshare.VGPUEnable``), ``cpu-overcommit-ratio`` for overcommit (which reads one
    ``overcommit-factor`` for every resource), ``overcommit-factor`` in enqueue's
    configuration (no action reads it: the overcommit plugin does), preempt options no
    release reads, ``predicate.ProportionalEnable`` (read up to Volcano 1.12;
    resource-strategy-fit's ``proportional`` took its place), and arguments for plugins
    that read none (drf, gang, proportion, priority, ...). The message names the key that
    was probably meant; where the owner reads arbitrary keys (tdm reads every key
    containing ``tdm.revocable-zone.``) it says so and guesses nothing. Keys are modelled
    per release, from Volcano 1.9, for every plugin and action; binpack, nodeorder,
    deviceshare, resource-strategy-fit and network-topology-aware have their own rules
    (VB009, VN003, VD004, VR008, VT003). A warning, not an error: a fork loaded with
    ``--plugins-dir`` may read more keys.

    Failing::

        actions: "enqueue, allocate, backfill"
        tiers:
        - plugins:
          - name: overcommit
            arguments:
              cpu-overcommit-ratio: 2.0

    Passing::

        actions: "enqueue, allocate, backfill"
        tiers:
        - plugins:
          - name: overcommit
            arguments:
              overcommit-factor: 2.0
    """,
)

VC013_ARGUMENT_TYPE = rule(
    "VC013",
    Severity.WARNING,
    "a plugin or action argument of a type it does not read: ignored, default kept",
    """
    Plugins and actions read their arguments with ``GetBool``, ``GetInt``, ``GetFloat64`` and
    ``GetString``, which ignore a value of another type (only a log line) and keep the
    default: ``predicate.CacheEnable: "true"`` is a string (parsed from Volcano 1.15,
    ignored before), ``overcommit-factor: "1.5"`` is a string, not a number. Write the
    value unquoted, in the type the plugin reads.

    Failing::

        actions: "enqueue, allocate, backfill"
        tiers:
        - plugins:
          - name: overcommit
            arguments:
              overcommit-factor: "1.5"

    Passing::

        actions: "enqueue, allocate, backfill"
        tiers:
        - plugins:
          - name: overcommit
            arguments:
              overcommit-factor: 1.5
    """,
)

VB001_BINPACK_NOT_INT = rule(
    "VB001",
    Severity.ERROR,
    "binpack argument that Volcano does not read as an integer: default kept",
    """
    binpack reads ``binpack.weight``, ``binpack.cpu``, ``binpack.memory`` and
    ``binpack.resources.<name>`` with ``GetInt``, which accepts only a value yaml.v2
    decoded as an integer. A quoted number (``"10"``), a float (``1.5``, ``1.0``,
    ``1e3``, ``08``), a boolean (``yes``, ``on``), null, or an integer beyond int64 is
    ignored with only a log line, and the default (1) is kept. A literal such as ``010``
    (octal 8) or ``0o17`` is read, but differently from other YAML tools: that is
    reported as a warning. (Up to Volcano 1.5 arguments were strings read with
    ``strconv.Atoi``, so ``"10"`` worked there and ``0x0A`` did not.)

    Failing::

        - name: binpack
          arguments:
            binpack.weight: "10"

    Passing::

        - name: binpack
          arguments:
            binpack.weight: 10
    """,
)

VB002_BINPACK_NEGATIVE = rule(
    "VB002",
    Severity.ERROR,
    "negative binpack resource weight: reset to 1",
    """
    A negative ``binpack.cpu``, ``binpack.memory`` or ``binpack.resources.<name>`` is
    replaced by 1 without a word, so the resource is packed with weight 1. To leave a
    resource out of the score, use 0 (or do not list it).

    Failing::

        - name: binpack
          arguments:
            binpack.memory: -1

    Passing::

        - name: binpack
          arguments:
            binpack.memory: 0
    """,
)

VB003_BINPACK_OFF = rule(
    "VB003",
    Severity.ERROR,
    "binpack.weight: 0 switches binpack's node scoring off",
    """
    With ``binpack.weight`` 0 the plugin does not register its node-order function at
    all: every other binpack argument does nothing, and pods are no longer packed. Remove
    the plugin if that is the intent, or give it a positive weight (the upstream docs use
    10). An error, as bin-packing silently switched off is the mistake this tool exists
    for; a project that means it can say so in ``.policytest.yaml`` with
    ``severity: {VB003: warning}``.

    Failing::

        - name: binpack
          arguments:
            binpack.weight: 0
            binpack.cpu: 5

    Passing::

        - name: binpack
          arguments:
            binpack.weight: 10
            binpack.cpu: 5
    """,
)

VB004_BINPACK_SPREADS = rule(
    "VB004",
    Severity.WARNING,
    "negative binpack.weight: packing turns into spreading",
    """
    ``binpack.weight`` multiplies the whole score and is not clamped: a negative weight
    makes the fullest node score lowest, so pods are spread instead of packed. Use a
    positive weight to pack (or ``nodeorder``'s ``leastrequested.weight`` to spread).

    Failing::

        - name: binpack
          arguments:
            binpack.weight: -10

    Passing::

        - name: binpack
          arguments:
            binpack.weight: 10
    """,
)

VB005_BINPACK_UNDECLARED = rule(
    "VB005",
    Severity.ERROR,
    "weight for a resource not declared in binpack.resources: ignored",
    """
    binpack only reads ``binpack.resources.<name>`` for the names listed in the
    comma-separated string ``binpack.resources``; any other such key is ignored and the
    resource does not take part in the score. Add the name to ``binpack.resources``
    (exact spelling, case-sensitive).

    Failing::

        - name: binpack
          arguments:
            binpack.resources.nvidia.com/gpu: 5

    Passing::

        - name: binpack
          arguments:
            binpack.resources: nvidia.com/gpu
            binpack.resources.nvidia.com/gpu: 5
    """,
)

VB006_BINPACK_DEFAULT_WEIGHT = rule(
    "VB006",
    Severity.INFO,
    "resource declared in binpack.resources without its weight key: weight 1",
    """
    A resource listed in ``binpack.resources`` without a ``binpack.resources.<name>``
    key gets weight 1. That may be intended; write the weight to make it explicit.

    Failing::

        - name: binpack
          arguments:
            binpack.resources: nvidia.com/gpu

    Passing::

        - name: binpack
          arguments:
            binpack.resources: nvidia.com/gpu
            binpack.resources.nvidia.com/gpu: 1
    """,
)

VB007_BINPACK_RESOURCES_TYPE = rule(
    "VB007",
    Severity.ERROR,
    "binpack.resources that is not a string: treated as empty",
    """
    ``binpack.resources`` must be one comma-separated string. A YAML list, a number, a
    boolean or null is silently treated as empty: no extra resource is packed and every
    ``binpack.resources.<name>`` weight is ignored. (Up to Volcano 1.5 a list rejected
    the whole file.)

    Failing::

        - name: binpack
          arguments:
            binpack.resources: [nvidia.com/gpu]
            binpack.resources.nvidia.com/gpu: 5

    Passing::

        - name: binpack
          arguments:
            binpack.resources: nvidia.com/gpu
            binpack.resources.nvidia.com/gpu: 5
    """,
)

VB008_BINPACK_CPU_MEMORY = rule(
    "VB008",
    Severity.WARNING,
    "cpu or memory in binpack.resources: overridden by binpack.cpu / binpack.memory",
    """
    cpu and memory always take part in the binpack score with the weights
    ``binpack.cpu`` and ``binpack.memory``; listing them in ``binpack.resources`` adds
    nothing, and a ``binpack.resources.cpu`` or ``binpack.resources.memory`` weight is
    overwritten by those keys (an error when it would have changed the weight).

    Failing::

        - name: binpack
          arguments:
            binpack.resources: cpu
            binpack.resources.cpu: 5

    Passing::

        - name: binpack
          arguments:
            binpack.cpu: 5
    """,
)

VB009_BINPACK_UNKNOWN_KEY = rule(
    "VB009",
    Severity.ERROR,
    "unknown binpack argument: ignored",
    """
    binpack reads exactly ``binpack.weight``, ``binpack.cpu``, ``binpack.memory``,
    ``binpack.resources`` and ``binpack.resources.<name>``; any other key (``weight``,
    ``binpack.gpu``, ``binpack.weights``, ``binpack.resource``) is ignored. A GPU or
    other extended resource is declared in ``binpack.resources`` and weighted with
    ``binpack.resources.<name>``.

    Failing::

        - name: binpack
          arguments:
            binpack.gpu: 5

    Passing::

        - name: binpack
          arguments:
            binpack.resources: nvidia.com/gpu
            binpack.resources.nvidia.com/gpu: 5
    """,
)

VB010_BINPACK_ALL_ZERO = rule(
    "VB010",
    Severity.WARNING,
    "every binpack resource weight is 0: binpack scores 0 everywhere",
    """
    With ``binpack.cpu``, ``binpack.memory`` and every declared resource weight at 0,
    each resource scores 0 and the plugin adds nothing to any node's score. Give at
    least one resource a positive weight, or remove the plugin.

    Failing::

        - name: binpack
          arguments:
            binpack.cpu: 0
            binpack.memory: 0

    Passing::

        - name: binpack
          arguments:
            binpack.cpu: 1
            binpack.memory: 0
    """,
)

VB011_BINPACK_NO_NODE_ORDER = rule(
    "VB011",
    Severity.WARNING,
    "binpack with enableNodeOrder: false: its weights do nothing",
    """
    binpack's only function is its node-order score. With ``enableNodeOrder: false`` on
    its entry Volcano never calls it, so the plugin and all its weights do nothing.

    Failing::

        - name: binpack
          enableNodeOrder: false
          arguments:
            binpack.weight: 10

    Passing::

        - name: binpack
          arguments:
            binpack.weight: 10
    """,
)

VB012_BINPACK_CANCELLED = rule(
    "VB012",
    Severity.WARNING,
    "nodeorder's leastrequested score cancels binpack's packing score",
    """
    Volcano adds every plugin's node score. The default ``nodeorder`` plugin scores
    least-allocated nodes highest (``leastrequested.weight``, default 1) on the same
    0-100 scale as binpack. When it holds: for a pod that requests both cpu and memory
    (and none of binpack's other resources), a node fuller in both gains
    ``binpack.weight + mostrequested.weight - leastrequested.weight`` per unit of
    utilisation, so with ``leastrequested.weight >= binpack.weight +
    mostrequested.weight`` the spreading score cancels (equal weights, and
    ``binpack.cpu == binpack.memory``: exactly, up to leastrequested's integer rounding)
    or outweighs the packing score, and those pods do not pack. It does not hold for pods
    that request only one of cpu and memory, or a resource binpack weights
    (``nvidia.com/gpu``): binpack skips what a pod does not request, while leastrequested
    always averages cpu and memory, so binpack still draws such pods to nodes fuller in
    what they request. The upstream docs set ``binpack.weight: 10``; or set
    ``leastrequested.weight: 0``.

    Volcano's shipped default conf lists ``binpack`` without arguments: there the
    finding is an ``info`` note (nothing asked for packing); once any binpack argument
    is written, it is a warning.

    Failing::

        - name: nodeorder
        - name: binpack

    Passing::

        - name: nodeorder
        - name: binpack
          arguments:
            binpack.weight: 10
    """,
)

VB013_BINPACK_RESOURCE_NAME = rule(
    "VB013",
    Severity.WARNING,
    "resource name that no node reports (case, whitespace, GPU spelling)",
    """
    Resource names are matched exactly against what nodes report. A name that differs
    from a standard one only by case or whitespace (``nvidia.com/GPU``, ``Memory``), or
    that looks like a GPU but is not a device plugin's name (``gpu``,
    ``nvidia/gpu``), never matches, so the resource does not take part in the score.

    Failing::

        - name: binpack
          arguments:
            binpack.resources: nvidia.com/GPU

    Passing::

        - name: binpack
          arguments:
            binpack.resources: nvidia.com/gpu
    """,
)

VB014_BINPACK_OVERFLOW = rule(
    "VB014",
    Severity.WARNING,
    "binpack.weight so large that 100 x weight overflows: scores wrap",
    """
    binpack multiplies its score by ``100 * binpack.weight`` in Go int64 arithmetic; a
    weight beyond about 9.2e16 wraps around and turns the scores negative or
    meaningless. Use a weight in the tens.

    Failing::

        - name: binpack
          arguments:
            binpack.weight: 9223372036854775807

    Passing::

        - name: binpack
          arguments:
            binpack.weight: 10
    """,
)

VB015_SPREADING_BEATS_BINPACK = rule(
    "VB015",
    Severity.WARNING,
    "nodeorder's default pod spreading outweighs binpack for Deployment pods",
    """
    ``nodeorder`` scores with kube-scheduler's PodTopologySpread and always uses its
    system default constraints (``defaultingType: System``: hostname maxSkew 3, zone
    maxSkew 5, ScheduleAnyway), so every pod a Service, ReplicaSet,
    ReplicationController or StatefulSet selects is spread over nodes and zones, for up
    to ``100 * podtopologyspread.weight`` points (default weight 2: 200). The pods of a
    Volcano Job are selected by the Service its ``svc`` plugin creates, so they are
    spread too. binpack pulls such a pod towards fuller nodes by about ``binpack.weight
    + mostrequested.weight - leastrequested.weight`` points per percent of the node it
    takes: with the upstream docs' ``binpack.weight: 10``, replicas that each take a
    small share of a node (1.5% in policytest's bundled fixture
    ``volcano-binpack-deployment``) are spread over every node, and only larger ones
    pack. The rule fires when that net weight is below ten times
    ``podtopologyspread.weight`` (the threshold of kube-scheduler's KS047). Fix it
    with ``podtopologyspread.weight: 0`` on nodeorder (pods' own ScheduleAnyway
    constraints are then not scored either; their DoNotSchedule constraints still
    filter in ``predicates``), or a binpack.weight that is large enough.
    When the net weight is not positive, VB012 reports that instead.

    Failing::

        - name: nodeorder
        - name: binpack
          arguments:
            binpack.weight: 10

    Passing::

        - name: nodeorder
          arguments:
            podtopologyspread.weight: 0
        - name: binpack
          arguments:
            binpack.weight: 10
    """,
)

VN001_NODEORDER_NOT_INT = rule(
    "VN001",
    Severity.ERROR,
    "nodeorder weight that Volcano does not read as an integer: default kept",
    """
    nodeorder reads its eight ``*.weight`` arguments with ``GetInt`` like binpack: a
    quoted number, a float, a boolean, null or an out-of-range integer is ignored and
    the default weight is kept (leastrequested 1, mostrequested 0, balancedresource 1,
    nodeaffinity 2, podaffinity 2, tainttoleration 3, imagelocality 1,
    podtopologyspread 2).

    Failing::

        - name: nodeorder
          arguments:
            leastrequested.weight: "0"

    Passing::

        - name: nodeorder
          arguments:
            leastrequested.weight: 0
    """,
)

VN002_NODEORDER_NEGATIVE = rule(
    "VN002",
    Severity.WARNING,
    "negative nodeorder weight: inverts that score",
    """
    nodeorder weights are not clamped: a negative weight turns a preference into an
    aversion (``nodeaffinity.weight: -2`` prefers nodes the pod's affinity does not
    want). Use 0 to switch a score off.

    Failing::

        - name: nodeorder
          arguments:
            leastrequested.weight: -1

    Passing::

        - name: nodeorder
          arguments:
            leastrequested.weight: 0
    """,
)

VN003_NODEORDER_UNKNOWN_KEY = rule(
    "VN003",
    Severity.ERROR,
    "unknown nodeorder argument: ignored",
    """
    nodeorder reads exactly ``leastrequested.weight``, ``mostrequested.weight``,
    ``balancedresource.weight``, ``nodeaffinity.weight``, ``podaffinity.weight``,
    ``tainttoleration.weight``, ``imagelocality.weight`` and
    ``podtopologyspread.weight``; any other key is ignored (including
    ``selectorspread.weight`` and ``volumebinding.weight`` from vendor builds).

    Failing::

        - name: nodeorder
          arguments:
            leastrequested: 0

    Passing::

        - name: nodeorder
          arguments:
            leastrequested.weight: 0
    """,
)

VN004_NODEORDER_FIGHT = rule(
    "VN004",
    Severity.WARNING,
    "leastrequested and mostrequested both positive: they fight",
    """
    ``leastrequested`` prefers empty nodes and ``mostrequested`` full ones; with both
    weights positive the two scores largely cancel. Set the one you do not want to 0.

    Failing::

        - name: nodeorder
          arguments:
            mostrequested.weight: 1

    Passing::

        - name: nodeorder
          arguments:
            leastrequested.weight: 0
            mostrequested.weight: 1
    """,
)

VN005_NODEORDER_NO_NODE_ORDER = rule(
    "VN005",
    Severity.WARNING,
    "nodeorder weights with enableNodeOrder: false: they do nothing",
    """
    With ``enableNodeOrder: false`` on the nodeorder entry Volcano calls none of its
    scores, so its weights do nothing. Remove the arguments, or the flag.

    Failing::

        - name: nodeorder
          enableNodeOrder: false
          arguments:
            leastrequested.weight: 0

    Passing::

        - name: nodeorder
          arguments:
            leastrequested.weight: 0
    """,
)
