{{/*
Publish mode: the admission webhook's names. "windows-aware-publish" when
the chart's full name is "windows-aware-scheduler" (the names of
manifests/publish), else the full name with "-publish" for "-scheduler".
*/}}
{{- define "was.publishName" -}}
{{- printf "%s-publish" (include "was.fullname" . | trimSuffix "-scheduler") | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The ValidatingWebhookConfiguration of warnings at apply time. */}}
{{- define "was.warningsWebhookName" -}}
{{- printf "%s-warnings" (include "was.publishName" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The MutatingWebhookConfiguration: named to sort before other mutating webhooks. */}}
{{- define "was.publishWebhookName" -}}
{{- printf "00-%s" (include "was.publishName" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The ValidatingAdmissionPolicy that lets the webhook's identity change the
caBundle of its configuration and nothing else (publish-webhook-policy.yaml).
*/}}
{{- define "was.publishCABundlePolicyName" -}}
{{- printf "%s-cabundle" (include "was.publishName" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* "true" when the webhook keeps its own CA and certificate (no cert-manager). */}}
{{- define "was.publishSelfManagedTLS" -}}
{{- not .Values.publish.certManager.enabled }}
{{- end }}

{{/*
The Secret of the serving certificate: kept by the webhook itself, or
written by cert-manager (another name, so that switching modes never hands
one's Secret to the other).
*/}}
{{- define "was.publishTLSSecretName" -}}
{{- if eq (include "was.publishSelfManagedTLS" .) "true" }}
{{- printf "%s-tls" (include "was.publishName" .) | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-cert-manager-tls" (include "was.publishName" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* Labels that select the webhook's pods, apart from the scheduler's. */}}
{{- define "was.publishSelectorLabels" -}}
app.kubernetes.io/name: windows-aware-publish
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "was.publishLabels" -}}
{{ include "was.publishSelectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: publish-webhook
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
"true" when the webhook gates pods for their registry (imageResolution on,
with a gateTimeout): the replica holding the Lease was.publishUngateLease
then resolves them and removes the gates.
*/}}
{{- define "was.publishGates" -}}
{{- $res := .Values.pluginArgs.imageResolution | default dict }}
{{- and (eq (include "was.resolutionOn" .) "true") (not (regexMatch "^(0|(0+(\\.0+)?(ns|us|µs|ms|s|m|h))+)$" (toString ($res.gateTimeout | default "10s")))) }}
{{- end }}

{{/*
The taint keys whose OS tolerations publishing writes, as a JSON array:
pluginArgs.osTaints.keys, the scheduler's defaults when it names none
(pkg/apis/config/v1), none when osTaints.tolerate is false. The gate
remover's policy lets it add tolerations of these keys only.
*/}}
{{- define "was.osTaintKeys" -}}
{{- $t := .Values.pluginArgs.osTaints | default dict }}
{{- if eq (toString $t.tolerate) "false" }}
{{- list | toJson }}
{{- else if kindIs "invalid" $t.keys }}
{{- list "os" "node.kubernetes.io/os" | toJson }}
{{- else }}
{{- $t.keys | toJson }}
{{- end }}
{{- end }}

{{/* A list of strings as a CEL list literal: ['a', 'b']. */}}
{{- define "was.celStrings" -}}
[{{ range $i, $s := . }}{{ if $i }}, {{ end }}'{{ $s }}'{{ end }}]
{{- end }}

{{- define "was.publishUngateLease" -}}
{{- printf "%s-ungate" (include "was.publishName" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The gate remover: the admission binary with --webhook=false --ungate, in a
Deployment, ServiceAccount and roles of this name (the Lease's), apart from
the webhook's.
*/}}
{{- define "was.publishUngateName" -}}
{{- include "was.publishUngateLease" . }}
{{- end }}

{{- define "was.publishUngateSelectorLabels" -}}
app.kubernetes.io/name: windows-aware-publish-ungate
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "was.publishUngateLabels" -}}
{{ include "was.publishUngateSelectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: publish-ungate
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The webhook's rules in its own namespace and cluster-wide, as YAML lists;
the Role and ClusterRole are rendered only when there are some. Self-managed
TLS needs its Secret and its webhook configuration, each by name; with
cert-manager it needs nothing. It never has a right on pods: removing gates
is the gate remover's, under its own ServiceAccount (publish-ungate-*.yaml).
*/}}
{{- define "was.publishRoleRules" -}}
{{- if eq (include "was.publishSelfManagedTLS" .) "true" }}
# Self-managed TLS: its Secret, by name (list and watch with a field
# selector on metadata.name).
- apiGroups: [""]
  resources: ["secrets"]
  resourceNames: [{{ include "was.publishTLSSecretName" . | quote }}]
  verbs: ["get", "list", "watch", "update"]
{{- end }}
{{- if eq (include "was.publishFollowsScheduler" .) "true" }}
# The opt-in follows the scheduler: its leader-election Lease, by name,
# read only.
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  resourceNames: [{{ include "was.leaseName" . | quote }}]
  verbs: ["get", "list", "watch"]
{{- end }}
{{- end }}

{{/*
"true" when pods opt in only while the scheduler runs: the webhook reads
the scheduler's Lease (--scheduler-lease).
*/}}
{{- define "was.publishFollowsScheduler" -}}
{{- and (or .Values.publish.namespaceOptIn .Values.publish.clusterWideOptIn) .Values.publish.optInFollowsScheduler }}
{{- end }}

{{- define "was.publishClusterRoleRules" -}}
{{- if eq (include "was.publishSelfManagedTLS" .) "true" }}
# Self-managed TLS: the CA bundle of its webhook configuration (and, by
# the policy of publish-webhook-policy.yaml, nothing but the CA bundle).
- apiGroups: ["admissionregistration.k8s.io"]
  resources: ["mutatingwebhookconfigurations"]
  resourceNames: [{{ include "was.publishWebhookName" . | quote }}]
  verbs: ["get", "patch"]
{{- end }}
{{- end }}

{{/* "true" when the webhook calls the API server at all: it needs a token then. */}}
{{- define "was.publishUsesAPI" -}}
{{- or (include "was.publishRoleRules" . | trim) (include "was.publishClusterRoleRules" . | trim) | ne "" }}
{{- end }}

{{/* The webhook's ServiceAccount: the chart's, or one named by the user. */}}
{{- define "was.publishServiceAccountName" -}}
{{- include "was.accountName" (dict "sa" .Values.publish.serviceAccount "default" (include "was.publishName" .) "field" "publish.serviceAccount") }}
{{- end }}

{{/* The gate remover's ServiceAccount: the chart's, or one named by the user. */}}
{{- define "was.publishUngateServiceAccountName" -}}
{{- include "was.accountName" (dict "sa" .Values.publish.ungate.serviceAccount "default" (include "was.publishUngateName" .) "field" "publish.ungate.serviceAccount") }}
{{- end }}

{{/*
The chart's identities stay apart, whoever creates the accounts: the
webhook has no right on pods and the scheduler reads no webhook Secret, which
holds only while each runs under an account of its own.
*/}}
{{- define "was.checkServiceAccounts" -}}
{{- if .Values.publish.enabled }}
{{- $scheduler := include "was.serviceAccountName" . }}
{{- $webhook := include "was.publishServiceAccountName" . }}
{{- if eq $scheduler $webhook }}
{{- fail (printf "serviceAccount and publish.serviceAccount both name %q: the scheduler and the webhook need accounts of their own" $scheduler) }}
{{- end }}
{{- if eq (include "was.publishGates" .) "true" }}
{{- $ungate := include "was.publishUngateServiceAccountName" . }}
{{- if or (eq $ungate $scheduler) (eq $ungate $webhook) }}
{{- fail (printf "publish.ungate.serviceAccount names %q, the scheduler's or the webhook's: the gate remover, which may patch pods, needs an account of its own" $ungate) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The uninstall hook: a pre-delete Job, under a ServiceAccount and roles of
this name, that removes the gate from every gated pod (admission
ungate-all).
*/}}
{{- define "was.publishUninstallName" -}}
{{- printf "%s-uninstall" (include "was.publishName" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "was.publishUninstallLabels" -}}
app.kubernetes.io/name: windows-aware-publish-uninstall
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: publish-uninstall
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The namespaces of the cluster-wide opt-in: every namespace but kube-system,
the release's own and those labelled windows-aware.x-k8s.io/opt-in=false;
those labelled "true" too unless the namespace opt-in's webhooks call for
them already (one call per object, never two).
*/}}
{{- define "was.clusterWideNamespaces" -}}
matchExpressions:
  - key: windows-aware.x-k8s.io/opt-in
    operator: NotIn
    values: {{ if .Values.publish.namespaceOptIn }}["false", "true"]{{ else }}["false"]{{ end }}
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values: {{ list "kube-system" .Release.Namespace | uniq | toJson }}
{{- end }}

{{/* The resources of publish.templates.kinds, by API group. */}}
{{- define "was.templateResources" -}}
{{- $resources := dict "DaemonSet" (list "apps" "daemonsets") "Deployment" (list "apps" "deployments") "StatefulSet" (list "apps" "statefulsets") "ReplicaSet" (list "apps" "replicasets") "Job" (list "batch" "jobs") "CronJob" (list "batch" "cronjobs") }}
{{- $apps := list }}
{{- $batch := list }}
{{- range (.Values.publish.templates | default dict).kinds }}
{{- $r := get $resources . }}
{{- if eq (index $r 0) "apps" }}{{ $apps = append $apps (index $r 1) }}{{ else }}{{ $batch = append $batch (index $r 1) }}{{ end }}
{{- end }}
{{- if not (or $apps $batch) }}
{{- fail "publish.templates.kinds names no kind" }}
{{- end }}
{{- if $apps }}
- apiGroups: ["apps"]
  apiVersions: ["v1"]
  operations: ["CREATE", "UPDATE"]
  resources: {{ $apps | toJson }}
  scope: Namespaced
{{- end }}
{{- if $batch }}
- apiGroups: ["batch"]
  apiVersions: ["v1"]
  operations: ["CREATE", "UPDATE"]
  resources: {{ $batch | toJson }}
  scope: Namespaced
{{- end }}
{{- end }}

{{/* A templates webhook but its name and namespaceSelector. */}}
{{- define "was.templatesWebhook" -}}
admissionReviewVersions: ["v1"]
clientConfig:
  service:
    name: {{ include "was.publishName" . }}
    namespace: {{ .Release.Namespace }}
    path: /templates
    port: 443
rules:
  {{- include "was.templateResources" . | trim | nindent 2 }}
matchPolicy: Equivalent
matchConditions:
  - name: not-controlled
    expression: "!has(object.metadata.ownerReferences) || !object.metadata.ownerReferences.exists(r, has(r.controller) && r.controller)"
  - name: not-opted-out
    expression: "!has(object.metadata.labels) || ((!('windows-aware.x-k8s.io/opt-in' in object.metadata.labels) || object.metadata.labels['windows-aware.x-k8s.io/opt-in'] != 'false') && (!('windows-aware.x-k8s.io/publish' in object.metadata.labels) || object.metadata.labels['windows-aware.x-k8s.io/publish'] != 'false'))"
failurePolicy: {{ .Values.publish.failurePolicy }}
timeoutSeconds: {{ .Values.publish.timeoutSeconds }}
sideEffects: None
reinvocationPolicy: Never
{{- end }}
