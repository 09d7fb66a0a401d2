{{/* The prefix of the operator's objects (upstream: "kube-starrocks"). */}}
{{- define "operator.name" -}}
{{- .Values.nameOverride | default "kube-starrocks" | trunc 54 | trimSuffix "-" -}}
{{- end -}}

{{/* The name of the Deployment, the ClusterRole and its binding: <name>-operator, as upstream. */}}
{{- define "operator.fullname" -}}
{{- printf "%s-operator" (include "operator.name" .) -}}
{{- end -}}

{{/* The namespace of the operator and of its namespaced objects. */}}
{{- define "operator.namespace" -}}
{{- .Values.starrocksOperator.namespaceOverride | default .Release.Namespace -}}
{{- end -}}

{{- define "operator.serviceAccountName" -}}
{{- .Values.global.rbac.serviceAccount.name | default "starrocks" -}}
{{- end -}}

{{/*
Labels that select the operator pods: upstream's "app" label. A Deployment's
selector is immutable, so it must stay what the upstream chart installed.
*/}}
{{- define "operator.selectorLabels" -}}
app: {{ include "operator.fullname" . }}
{{- end -}}

{{- define "operator.labels" -}}
{{ include "operator.selectorLabels" . }}
app.kubernetes.io/name: operator
app.kubernetes.io/instance: {{ .Release.Name }}
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
- --metrics-secure={{ ternary "true" "false" (ne $op.metricsSecure false) }}
- --health-probe-bind-address=:{{ int64 $op.healthProbePort }}
- --leader-elect
- --leader-election-id={{ $op.leaderElectionID | default "c6c79638.starrocks.com" }}
- --leader-election-namespace={{ include "operator.namespace" . }}
{{- with $op.watchNamespace }}
- --namespace={{ . }}
{{- end }}
{{- with $op.dnsDomainSuffix }}
- --dns-domain-suffix={{ . }}
{{- end }}
- --volume-name-with-hash={{ ternary "true" "false" (ne $op.volumeNameWithHash false) }}
- --fe-ssl-mode={{ $op.feSslMode | default "PREFERRED" }}
{{- if (include "operator.feCaSecret" .) }}
- --fe-ca-file={{ include "operator.feCaDir" . }}/{{ $op.feCaSecret.key | default "ca.crt" }}
{{- end }}
{{- with include "operator.denyList" . }}
- --deny-list={{ . }}
{{- end }}
{{- with $op.feCredentialsSecret }}
- --fe-credentials-secret={{ . }}
{{- end }}
{{- if ($op.backup | default dict).enabled }}
- --enable-backup
{{- end }}
{{- range $op.log }}
- {{ . | quote }}
{{- end }}
{{- end -}}

{{/* The directory the feCaSecret is mounted at. */}}
{{- define "operator.feCaDir" -}}/etc/starrocks-operator/fe-ca{{- end -}}

{{/*
The name of the Secret holding FE's CA bundle, empty without one. The
verifying modes need it: their render fails without it, naming the key.
*/}}
{{- define "operator.feCaSecret" -}}
{{- $op := .Values.starrocksOperator -}}
{{- $name := (($op.feCaSecret | default dict).name | default "") -}}
{{- if and (not $name) (has (upper ($op.feSslMode | default "")) (list "VERIFY_CA" "VERIFY_IDENTITY")) -}}
{{- fail (printf "starrocksOperator.feSslMode=%s verifies FE's certificate and needs starrocksOperator.feCaSecret.name, a Secret holding the CA bundle" $op.feSslMode) -}}
{{- end -}}
{{- $name -}}
{{- end -}}
