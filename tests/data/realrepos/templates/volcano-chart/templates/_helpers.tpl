{{/* The kube-scheduler profile the chart's second scheduler runs. */}}
{{- define "volcano-chart.kube-scheduler-config" -}}
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: {{ .Values.kubeScheduler.name | default "bin-packing" }}
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
{{- end }}
