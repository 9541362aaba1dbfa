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

{{/* The leader-election lease, in the release's namespace. */}}
{{- define "was.leaseName" -}}
{{- default (include "was.fullname" .) .Values.leaderElection.leaseName }}
{{- end }}

{{- define "was.configMapName" -}}
{{- printf "%s-config" (include "was.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The scheduler's image: by digest, else by tag, else the build for
image.kubernetesMinor of the chart's appVersion, tagged as make image tags it. */}}
{{- define "was.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default (printf "%s-k8s%s" .Chart.AppVersion .Values.image.kubernetesMinor) .Values.image.tag) }}
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
