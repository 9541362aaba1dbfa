{{/*
The chart's name, and the full name every object carries:
"windows-aware-scheduler" when the release is called so (or contains it),
else "<release>-windows-aware-scheduler".
*/}}
{{- define "was.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "was.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels that select the scheduler's pods; they never change on upgrade. */}}
{{- define "was.selectorLabels" -}}
app.kubernetes.io/name: {{ include "was.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "was.labels" -}}
{{ include "was.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: scheduler
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The labels of a pod the chart runs: the user's (.labels, from the values
field .field) and windows-aware.x-k8s.io/opt-in: "false". In a namespace
labelled windows-aware.x-k8s.io/opt-in=true, the opt-in webhook makes every
pod that names no scheduler of its own the profile's: were the release's
namespace opted in, the scheduler's, the webhook's and the gate remover's
pods would wait for a profile that only the scheduler serves, and none would
ever run again. The label keeps them with the stock scheduler; podLabels
may not say otherwise.
*/}}
{{- define "was.podLabels" -}}
{{- $key := "windows-aware.x-k8s.io/opt-in" }}
{{- $labels := .labels | default dict }}
{{- if and (hasKey $labels $key) (ne (toString (get $labels $key)) "false") }}
{{- fail (printf "%s sets %s: %q; the chart's own pods keep \"false\", or opting their namespace in would leave them to a profile nothing schedules" .field $key (toString (get $labels $key))) }}
{{- end }}
{{- $rest := omit $labels $key }}
{{- if $rest }}
{{- toYaml $rest }}
{{ end }}
{{- $key }}: "false"
{{- end }}

{{/* The leader-election lease, in the release's namespace. */}}
{{- define "was.leaseName" -}}
{{- default (include "was.fullname" .) .Values.leaderElection.leaseName }}
{{- end }}

{{- define "was.configMapName" -}}
{{- printf "%s-config" (include "was.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The Kubernetes minors the image is built for, oldest first: those of
hack/k8s.sh minors (a test holds the two together).
*/}}
{{- define "was.builtMinors" -}}1.35 1.36 1.37{{- end }}

{{/*
The Kubernetes minor of the image: image.kubernetesMinor when set, else the
cluster's (.Capabilities.KubeVersion; helm template without --kube-version
takes its own default). A scheduler may be one minor older than its
kube-apiserver, never newer, so a cluster one minor past the newest build
runs the newest build, and a cluster older than the oldest build or newer
than that has no build that may serve it: refused. Chart.yaml's kubeVersion
says the same, but only helm's own commands read it.
*/}}
{{- define "was.kubernetesMinor" -}}
{{- $built := splitList " " (include "was.builtMinors" .) }}
{{- if .Values.image.kubernetesMinor }}
{{- .Values.image.kubernetesMinor }}
{{- else }}
{{- $kube := .Capabilities.KubeVersion.Version }}
{{- $v := semver $kube }}
{{- $oldest := semver (printf "%s.0" (first $built)) }}
{{- $newest := semver (printf "%s.0" (last $built)) }}
{{- if or (ne $v.Major $oldest.Major) (lt $v.Minor $oldest.Minor) (gt $v.Minor (add1 $newest.Minor)) }}
{{- fail (printf "Kubernetes %s: the scheduler is built for %s, and a build serves its own minor's kube-apiserver and the next one's (%d.%d to %d.%d); pin image.kubernetesMinor or image.tag to run another build at your own risk" $kube (join ", " $built) $oldest.Major $oldest.Minor $newest.Major (add1 $newest.Minor)) }}
{{- end }}
{{- $minor := printf "%d.%d" $v.Major $v.Minor }}
{{- if has $minor $built }}
{{- $minor }}
{{- else }}
{{- last $built }}
{{- end }}
{{- end }}
{{- end }}

{{/* The scheduler's image: by digest, else by tag, else the build of
was.kubernetesMinor for the chart's appVersion, tagged as make image tags it. */}}
{{- define "was.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else if .Values.image.tag }}
{{- printf "%s:%s" .Values.image.repository .Values.image.tag }}
{{- else }}
{{- printf "%s:%s-k8s%s" .Values.image.repository .Chart.AppVersion (include "was.kubernetesMinor" .) }}
{{- end }}
{{- end }}

{{/* The scheduler's ServiceAccount: the chart's, or one named by the user. */}}
{{- define "was.serviceAccountName" -}}
{{- include "was.accountName" (dict "sa" .Values.serviceAccount "default" (include "was.fullname" .) "field" "serviceAccount") }}
{{- end }}

{{/*
The name of a ServiceAccount from values of the form {create, name}:
name, else the default when the chart creates it. An account the chart
does not create must be named: falling back to the namespace's "default"
account would hand the chart's RBAC to every pod that runs as it.
*/}}
{{- define "was.accountName" -}}
{{- if .sa.name }}
{{- .sa.name }}
{{- else if .sa.create }}
{{- .default }}
{{- else }}
{{- fail (printf "%s.create=false needs %s.name: the account the chart's RBAC binds" .field .field) }}
{{- end }}
{{- end }}

{{/*
A pod's affinity: the user's (affinity), and, unless it sets
podAntiAffinity itself or mode is "none", the anti-affinity that keeps
the replicas apart over topologyKey (preferred or required). Takes a dict:
affinity, mode, topologyKey, selector (the pods' selector labels as YAML).
*/}}
{{- define "was.affinity" -}}
{{- $affinity := deepCopy (.affinity | default dict) }}
{{- if and (not (hasKey $affinity "podAntiAffinity")) (ne .mode "none") }}
{{- $term := dict "topologyKey" .topologyKey "labelSelector" (dict "matchLabels" (fromYaml .selector)) }}
{{- if eq .mode "required" }}
{{- $_ := set $affinity "podAntiAffinity" (dict "requiredDuringSchedulingIgnoredDuringExecution" (list $term)) }}
{{- else }}
{{- $_ := set $affinity "podAntiAffinity" (dict "preferredDuringSchedulingIgnoredDuringExecution" (list (dict "weight" 100 "podAffinityTerm" $term))) }}
{{- end }}
{{- end }}
{{- with $affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
A pod's topologySpreadConstraints; one without a labelSelector spreads the
pods it is written for (selector: their selector labels as YAML), which is
what a constraint on a Deployment's own pods nearly always means.
*/}}
{{- define "was.topologySpread" -}}
{{- $out := list }}
{{- range .constraints }}
{{- $c := deepCopy . }}
{{- if not (hasKey $c "labelSelector") }}
{{- $_ := set $c "labelSelector" (dict "matchLabels" (fromYaml $.selector)) }}
{{- end }}
{{- $out = append $out $c }}
{{- end }}
{{- with $out }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* Where the ConfigMap is mounted, and the configuration file in it. */}}
{{- define "was.configDir" -}}/etc/windows-aware{{- end }}
{{- define "was.configFile" -}}scheduler-config.yaml{{- end }}

{{/* "true" when pluginArgs.imageResolution asks registries at all. */}}
{{- define "was.resolutionOn" -}}
{{- $res := .Values.pluginArgs.imageResolution | default dict }}
{{- ne (toString ($res.scope | default "None")) "None" }}
{{- end }}

{{/*
Where the files of image resolution are mounted: beside the configuration
directory, not inside it (a ConfigMap volume is read-only, so no mount
point can be made in it).
*/}}
{{- define "was.registryDir" -}}/etc/windows-aware-registry{{- end }}
{{- define "was.dockerConfigDir" -}}{{ include "was.registryDir" . }}/docker{{- end }}
{{- define "was.dockerConfigFile" -}}{{ include "was.dockerConfigDir" . }}/config.json{{- end }}
{{- define "was.caDir" -}}{{ include "was.registryDir" . }}/ca{{- end }}

{{/*
Checks of the imageResolution values that the schema cannot make: each
file the args name must be in the pod, and Secrets may be read only where
the scheduler reads them.
*/}}
{{- define "was.checkResolution" -}}
{{- $res := .Values.pluginArgs.imageResolution | default dict }}
{{- $on := eq (include "was.resolutionOn" .) "true" }}
{{- $chart := .Values.imageResolution }}
{{- $file := ($res.credentials | default dict).dockerConfigFile }}
{{- if and $chart.credentials.dockerConfigSecret $file (ne $file (include "was.dockerConfigFile" .)) }}
{{- fail (printf "pluginArgs.imageResolution.credentials.dockerConfigFile %q: leave it empty with imageResolution.credentials.dockerConfigSecret, which sets it" $file) }}
{{- end }}
{{- if and $on $file (not $chart.credentials.dockerConfigSecret) }}
{{- fail (printf "pluginArgs.imageResolution.credentials.dockerConfigFile %q is not in the scheduler's pod: set imageResolution.credentials.dockerConfigSecret instead" $file) }}
{{- end }}
{{- $caDir := printf "%s/" (include "was.caDir" .) }}
{{- $hasCA := or $chart.caBundle.configMap $chart.caBundle.secret }}
{{- if $on }}
{{- range $i, $r := $res.registries }}
{{- if and $r.caFile (or (not $hasCA) (not (hasPrefix $caDir $r.caFile))) }}
{{- fail (printf "pluginArgs.imageResolution.registries[%d].caFile %q is not in the scheduler's pod: set imageResolution.caBundle and name a key of it, %s<key>" $i $r.caFile $caDir) }}
{{- end }}
{{- end }}
{{- end }}
{{- if and $chart.pullSecretNamespaces (not (and $on ($res.credentials | default dict).podPullSecrets)) }}
{{- fail "imageResolution.pullSecretNamespaces lets the scheduler read Secrets it would not use: it needs pluginArgs.imageResolution.credentials.podPullSecrets=true and a scope other than None" }}
{{- end }}
{{- if and $chart.pullSecretNames (not $chart.pullSecretNamespaces) }}
{{- fail "imageResolution.pullSecretNames names the Secrets of the Roles of imageResolution.pullSecretNamespaces, which lists no namespace" }}
{{- end }}
{{- end }}
