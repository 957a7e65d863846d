"""policytest: validate and test Kubernetes scheduler bin-packing configuration."""

__version__ = "0.1.0"
