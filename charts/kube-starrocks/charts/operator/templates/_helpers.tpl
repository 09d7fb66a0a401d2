{{/* The short name of the chart's objects: the chart name unless overridden. */}}
{{- define "operator.name" -}}
{{- .Values.nameOverride | default .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The name of the chart's objects: <release>-<name>, without repeating the name. */}}
{{- define "operator.fullname" -}}
{{- $name := include "operator.name" . -}}
{{- $full := ternary .Release.Name (printf "%s-%s" .Release.Name $name) (contains $name .Release.Name) -}}
{{- .Values.fullnameOverride | default $full | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The namespace of the operator and of its namespaced objects. */}}
{{- define "operator.namespace" -}}
{{- .Values.starrocksOperator.namespaceOverride | default .Release.Namespace -}}
{{- end -}}

{{- define "operator.serviceAccountName" -}}
{{- $sa := .Values.starrocksOperator.serviceAccount -}}
{{- if $sa.create -}}
{{- $sa.name | default (include "operator.fullname" .) -}}
{{- else -}}
{{- $sa.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/* Labels that select the operator pods; they never change after install. */}}
{{- define "operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "operator.labels" -}}
{{ include "operator.selectorLabels" . }}
app.kubernetes.io/component: operator
app.kubernetes.io/part-of: kube-starrocks
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "operator.image" -}}
{{- $image := .Values.starrocksOperator.image -}}
{{- printf "%s:%s" $image.repository ($image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/* The value of --deny-list: a list or a comma-separated string in values. */}}
{{- define "operator.denyList" -}}
{{- $deny := .Values.starrocksOperator.denyList -}}
{{- if kindIs "slice" $deny -}}
{{- join "," $deny -}}
{{- else -}}
{{- $deny -}}
{{- end -}}
{{- end -}}

{{/*
The operator's command-line arguments. The four tuning knobs follow the contract
of the operator: --max-concurrent-reconciles and --sync-period always, the rate
limit flags only when set (0 means the operator's default of 20/30).
*/}}
{{- define "operator.args" -}}
{{- $op := .Values.starrocksOperator -}}
- --max-concurrent-reconciles={{ int64 $op.maxConcurrentReconciles }}
- --sync-period={{ $op.syncPeriod }}
{{- if $op.kubeApiQps }}
- --kube-api-qps={{ $op.kubeApiQps }}
{{- end }}
{{- if $op.kubeApiBurst }}
- --kube-api-burst={{ int64 $op.kubeApiBurst }}
{{- end }}
- --metrics-bind-address=:{{ int64 $op.metricsPort }}
- --health-probe-bind-address=:{{ int64 $op.healthProbePort }}
- --leader-elect
- --leader-election-id={{ include "operator.fullname" . }}
- --leader-election-namespace={{ .Release.Namespace }}
{{- with $op.watchNamespace }}
- --namespace={{ . }}
{{- end }}
{{- with include "operator.denyList" . }}
- --deny-list={{ . }}
{{- end }}
{{- range $op.log }}
- {{ . | quote }}
{{- end }}
{{- end -}}
