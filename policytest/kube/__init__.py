"""kube-scheduler (``KubeSchedulerConfiguration``): strict decoding, v1 defaulting, its
rules and checks as start-up validation runs them, and its executable scheduler."""
