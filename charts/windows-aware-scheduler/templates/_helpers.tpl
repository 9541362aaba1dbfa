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

{{- define "was.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* Where the ConfigMap is mounted, and the configuration file in it. */}}
{{- define "was.configDir" -}}/etc/windows-aware{{- end }}
{{- define "was.configFile" -}}scheduler-config.yaml{{- end }}
