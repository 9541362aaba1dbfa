{{/*
The KubeSchedulerConfiguration: only the windows-aware profile (the cluster's
own scheduler keeps default-scheduler), with a lease of its own so that the
two elect their leaders independently. The same profile as
manifests/scheduler-config.yaml; clientConnection.kubeconfig is left empty:
the in-cluster service account. clientConnection.qps and burst are written
only when set, so that the defaults give manifests/beside's configuration.
*/}}
{{- define "was.schedulerConfig" -}}
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  resourceNamespace: {{ .Release.Namespace }}
  resourceName: {{ include "was.leaseName" . }}
  leaseDuration: {{ .Values.leaderElection.leaseDuration }}
  renewDeadline: {{ .Values.leaderElection.renewDeadline }}
  retryPeriod: {{ .Values.leaderElection.retryPeriod }}
{{- /* 0 leaves a field to kube-scheduler's default (qps 50, burst 100). */}}
{{- with .Values.clientConnection }}
{{- if or .qps .burst }}
clientConnection:
  {{- with .qps }}
  qps: {{ . }}
  {{- end }}
  {{- with .burst }}
  burst: {{ . }}
  {{- end }}
{{- end }}
{{- end }}
enableProfiling: false
enableContentionProfiling: false
profiles:
  - schedulerName: {{ .Values.schedulerName }}
    plugins:
      multiPoint:
        enabled:
          # DefaultPreemption, with the preemptor activated as soon as its
          # asynchronous preemption ends (kubernetes/kubernetes#141694);
          # first, so that it runs before WindowsAware's PostFilter.
          - name: WindowsAwarePreemption
          - name: WindowsAware
            weight: {{ .Values.scoreWeight }}
          - name: OSTaintToleration
          {{- if .Values.bindGuard }}
          # Beside the stock scheduler, two caches bind onto the same
          # nodes: before each bind, a fresh read of the node's pods
          # (docs/install.md, "Beside the stock scheduler").
          - name: BindGuard
          {{- end }}
        disabled:
          - name: DefaultPreemption
      # Listed again at PreFilter and Filter so that they run first: a node
      # of the wrong OS or build is rejected before the resource, volume and
      # affinity filters look at it.
      preFilter:
        enabled:
          - name: WindowsAware
      filter:
        enabled:
          - name: WindowsAware
          - name: OSTaintToleration
        disabled:
          - name: TaintToleration
    pluginConfig:
      - name: WindowsAware
        args:
          {{- include "was.pluginArgs" . | nindent 10 }}
{{- end }}

{{/*
WindowsAwareArgs as the values give them, with two changes. With scope None
imageResolution is left out: the scheduler reads none of it then, and the
default configuration stays that of manifests/beside. With
imageResolution.credentials.dockerConfigSecret, dockerConfigFile names the
mounted file.
*/}}
{{- define "was.pluginArgs" -}}
{{- $args := deepCopy .Values.pluginArgs }}
{{- $res := $args.imageResolution | default dict }}
{{- if eq (include "was.resolutionOn" .) "true" }}
{{- if .Values.imageResolution.credentials.dockerConfigSecret }}
{{- $creds := $res.credentials | default dict }}
{{- $_ := set $creds "dockerConfigFile" (include "was.dockerConfigFile" .) }}
{{- $_ := set $res "credentials" $creds }}
{{- end }}
{{- else }}
{{- $_ := unset $args "imageResolution" }}
{{- end }}
{{- toYaml $args }}
{{- end }}
