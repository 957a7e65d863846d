"""kube-scheduler's resource plugins' arguments after defaulting, and its score scale.

What the config checks build (``policytest.kube``) and the scorer reads
(:mod:`policytest.scoring.kube`), in a module of their own: validating a
KubeSchedulerConfiguration, as the pre-commit hook does on every commit, then loads
neither the scorer nor the cluster model.
"""

from __future__ import annotations

from itertools import pairwise

from policytest.core.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Literal

    Strategy = Literal["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"]

STRATEGIES: Final[tuple[Strategy, ...]] = (
    "LeastAllocated",
    "MostAllocated",
    "RequestedToCapacityRatio",
)
MAX_NODE_SCORE: Final = 100
MAX_CUSTOM_PRIORITY_SCORE: Final = 10  # shape scores are 0..10, scaled by 100 / 10
MAX_UTILIZATION: Final = 100
DEFAULT_RESOURCES: Final = (("cpu", 1), ("memory", 1))


@record(frozen=True, slots=True)
class FitScoring:
    """``NodeResourcesFitArgs.scoringStrategy`` after defaulting.

    ``resources`` are (name, weight) pairs in the configured order (duplicates allowed, as
    in the real scheduler); ``shape`` holds ``requestedToCapacityRatio.shape`` as
    (utilization, score) pairs on the configured 0..10 score scale.
    """

    strategy: Strategy = "LeastAllocated"
    resources: tuple[tuple[str, int], ...] = DEFAULT_RESOURCES
    shape: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown NodeResourcesFit scoring strategy {self.strategy!r}")
        if self.strategy == "RequestedToCapacityRatio" and not self.shape:
            raise ValueError(
                "RequestedToCapacityRatio needs a requestedToCapacityRatio.shape "
                "(without one the real scheduler crashes)"
            )
        utilizations = [utilization for utilization, _ in self.shape]
        if any(later <= earlier for earlier, later in pairwise(utilizations)):
            # The scheduler rejects such a config at start-up; it has no score to reproduce.
            raise ValueError("shape utilization values must be strictly increasing")


@record(frozen=True, slots=True)
class BalancedArgs:
    """``NodeResourcesBalancedAllocationArgs.resources`` after defaulting (weights are
    validated to be 1 and do not enter the score)."""

    resources: tuple[tuple[str, int], ...] = DEFAULT_RESOURCES
