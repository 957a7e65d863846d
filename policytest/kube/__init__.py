"""kube-scheduler (``KubeSchedulerConfiguration``): model and rules."""
