{{/*
The names below are the upstream chart's: a helm upgrade from an upstream
release must find the same StarRocksCluster and ConfigMaps, or Helm deletes them
and the operator starts an empty cluster on new volumes.
*/}}

{{/* Name of the StarRocksCluster: starrocksCluster.name, else nameOverride (upstream default "kube-starrocks"). */}}
{{- define "starrocks.clusterName" -}}
{{- .Values.starrocksCluster.name | default .Values.nameOverride | default "kube-starrocks" -}}
{{- end -}}

{{/* Namespace of the StarRocksCluster and of the objects around it. */}}
{{- define "starrocks.namespace" -}}
{{- .Values.starrocksCluster.namespace | default .Release.Namespace -}}
{{- end -}}

{{/* Labels of the StarRocksCluster, as upstream. */}}
{{- define "starrocks.labels" -}}
cluster: {{ include "starrocks.clusterName" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Name of the Secret holding the root password set by initPassword. */}}
{{- define "starrocks.initPasswordSecret" -}}
{{- .Values.initPassword.passwordSecret | default (printf "%s-credential" (include "starrocks.clusterName" .)) -}}
{{- end -}}

{{/*
A component's .conf text: configyaml ("key = value" lines, sorted by key) when
it is set, else config; without surrounding blank lines, ending with one newline.
Takes the component's values.
*/}}
{{- define "starrocks.confText" -}}
{{- if .configyaml -}}
{{- range $k := keys .configyaml | sortAlpha -}}
{{ $k }} = {{ index $.configyaml $k | toString }}
{{ end -}}
{{- else -}}
{{- printf "%s\n" (trimAll "\n" (.config | default "")) -}}
{{- end -}}
{{- end -}}

{{/*
The hash that restarts the pods when their .conf changes: the first 8 hex digits
of the sha256 of the JSON of configyaml (when set) or config. The upstream chart
writes the same value, so an upgrade does not restart the pods.
*/}}
{{- define "starrocks.confHash" -}}
{{- if .configyaml -}}
{{- toJson .configyaml | sha256sum | trunc 8 -}}
{{- else -}}
{{- toJson .config | sha256sum | trunc 8 -}}
{{- end -}}
{{- end -}}

{{/* The value of key in a .conf text ("key = value"), or "" when it is not set. Takes (list text key). */}}
{{- define "starrocks.confValue" -}}
{{- $line := regexFind (printf "(?m)^\\s*%s\\s*=\\s*\\S+" (index . 1)) (index . 0) -}}
{{- if $line }}{{ regexReplaceAll "^[^=]*=\\s*" $line "" | trim }}{{ end -}}
{{- end -}}

{{/*
Probe seconds as an integer: upstream values files give them as numbers or as
strings such as "0" (which disables the probe); the CRD wants integers. Unset
(null or "") leaves the operator's default.
*/}}
{{- define "starrocks.seconds" -}}
{{- int . -}}
{{- end -}}

{{/*
requests and limits from a component's resources, leaving out any limit set to
"unlimited" (the upstream chart's way to remove one limit).
*/}}
{{- define "starrocks.resources" -}}
{{- $out := dict -}}
{{- range $k := list "requests" "limits" -}}
{{- $in := index $ $k | default dict -}}
{{- $kept := dict -}}
{{- range $name, $q := $in -}}
{{- if ne (toString $q) "unlimited" }}{{ $_ := set $kept $name $q }}{{ end -}}
{{- end -}}
{{- if $kept }}{{ $_ := set $out $k $kept }}{{ end -}}
{{- end -}}
{{- if $out }}{{ toYaml $out }}{{ end -}}
{{- end -}}

{{/*
A container's environment from its values: a list as in a Pod spec, or a map of
name to a string value or to the rest of an EnvVar (e.g. valueFrom), sorted by name.
*/}}
{{- define "starrocks.envList" -}}
{{- $out := list -}}
{{- if kindIs "map" . -}}
{{- range $name := keys . | sortAlpha -}}
{{- $v := index $ $name -}}
{{- if kindIs "map" $v -}}
{{- $out = append $out (merge (dict "name" $name) $v) -}}
{{- else -}}
{{- $out = append $out (dict "name" $name "value" (toString $v)) -}}
{{- end -}}
{{- end -}}
{{- else if . -}}
{{- $out = . -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/*
A component's spec in the StarRocksCluster (FE, BE or CN) as YAML. Takes a dict:
  root       the chart's root context
  kind       fe, be or cn
  v          the component's values (starrocksFESpec, ...)
  envKey     feEnvVars, beEnvVars or cnEnvVars
  dataSuffix -meta (FE) or -data (BE, CN)
  dataPath   default mount path of the data volume
  spill      whether storageSpec has spill volumes (BE, CN)
  httpKey    the .conf key of the HTTP port Prometheus scrapes, and its default
*/}}
{{- define "starrocks.componentSpec" -}}
{{- $root := .root -}}
{{- $v := .v -}}
{{- $kind := .kind -}}
{{- $cv := $root.Values.starrocksCluster.componentValues | default dict -}}
{{- $name := include "starrocks.clusterName" $root -}}
{{- $out := dict -}}
{{- $image := $v.image | default dict -}}
{{- $cvImage := $cv.image | default dict -}}
{{- $_ := set $out "image" (printf "%s:%s" $image.repository (toString ($image.tag | default $cvImage.tag | default $root.Chart.AppVersion))) -}}
{{- $script := ($v.entrypoint | default dict).script -}}
{{- if $v.entrypoint -}}
{{- $_ := set $out "command" (list "bash" "-c") -}}
{{- $_ := set $out "args" (list "/etc/starrocks/entrypoint.sh") -}}
{{- end -}}
{{- if not (kindIs "invalid" $v.replicas) }}{{ $_ := set $out "replicas" $v.replicas }}{{ end -}}
{{- $_ := set $out "imagePullPolicy" $v.imagePullPolicy -}}
{{- with $v.maxUnavailablePods }}{{ $_ := set $out "updateStrategy" (dict "rollingUpdate" (dict "maxUnavailable" .)) }}{{ end -}}
{{- with include "starrocks.resources" ($v.resources | default $v.resource | default dict) }}{{ $out = merge $out (fromYaml .) }}{{ end -}}
{{- $conf := include "starrocks.confText" $v -}}
{{- $s := $v.service | default dict -}}
{{- with $s.externalTrafficPolicy }}{{ fail (printf "starrocks%sSpec.service.externalTrafficPolicy=%q: the upstream chart's key (after v1.11.5) is not supported by this chart yet; remove it (docs/helm-migration.md)" (ternary "FE" (title $kind) (eq $kind "fe")) .) }}{{ end -}}
{{- if $s.type -}}
{{- $svc := dict "type" $s.type -}}
{{- if eq $s.type "LoadBalancer" -}}
{{- with $s.loadbalancerIP }}{{ $_ := set $svc "loadBalancerIP" . }}{{ end -}}
{{- with $s.loadBalancerSourceRanges }}{{ $_ := set $svc "loadBalancerSourceRanges" . }}{{ end -}}
{{- end -}}
{{- with $s.ports }}{{ $_ := set $svc "ports" . }}{{ end -}}
{{- $svcAnnotations := dict -}}
{{- if $root.Values.datadog.metrics.enabled -}}
{{- $port := include "starrocks.confValue" (list $conf (index .httpKey 0)) | default (index .httpKey 1) -}}
{{- $svcAnnotations = dict "prometheus.io/path" "/metrics" "prometheus.io/port" (toString $port) "prometheus.io/scrape" "true" -}}
{{- end -}}
{{- with $s.annotations }}{{ $svcAnnotations = merge (deepCopy .) $svcAnnotations }}{{ end -}}
{{- if $svcAnnotations }}{{ $_ := set $svc "annotations" $svcAnnotations }}{{ end -}}
{{- with $s.labels }}{{ $_ := set $svc "labels" . }}{{ end -}}
{{- $_ := set $out "service" $svc -}}
{{- end -}}
{{- $annotations := dict (printf "app.starrocks.io/%s-config-hash" $kind) (include "starrocks.confHash" $v) -}}
{{- if $root.Values.datadog.log.enabled -}}
{{- $logConfig := merge (fromJson ($root.Values.datadog.log.logConfig | default "{}")) (dict "service" "starrocks" "source" $kind) -}}
{{- $_ := set $annotations (printf "ad.datadoghq.com/%s.logs" $kind) (toJson (list $logConfig)) -}}
{{- end -}}
{{- if $v.entrypoint -}}
{{- $_ := set $annotations (printf "app.starrocks.io/%s-entrypoint-hash" $kind) (toJson $script | sha256sum | trunc 8) -}}
{{- end -}}
{{- with $v.annotations }}{{ $annotations = merge (deepCopy .) $annotations }}{{ end -}}
{{- $_ := set $out "annotations" $annotations -}}
{{- /* Shared scheduling keys: the component's own value replaces componentValues'. */ -}}
{{- range $k := list "imagePullSecrets" "serviceAccount" "nodeSelector" "hostAliases" "schedulerName" "affinity" "tolerations" "topologySpreadConstraints" -}}
{{- with index $v $k | default (index $cv $k) }}{{ $_ := set $out $k . }}{{ end -}}
{{- end -}}
{{- $podLabels := $v.podLabels | default $cv.podLabels | default dict | deepCopy -}}
{{- if index ($root.Values.datadog.profiling | default dict) $kind -}}
{{- $_ := set $podLabels "admission.datadoghq.com/config.mode" $root.Values.datadog.profiling.configMode -}}
{{- $_ := set $podLabels "admission.datadoghq.com/enabled" "true" -}}
{{- end -}}
{{- if $podLabels }}{{ $_ := set $out "podLabels" $podLabels }}{{ end -}}
{{- $_ := set $out "runAsNonRoot" (or $v.runAsNonRoot $cv.runAsNonRoot | default false) -}}
{{- range $k := list "readOnlyRootFilesystem" "capabilities" "sysctls" "lifecycle" "initContainers" "shareProcessNamespace" "persistentVolumeClaimRetentionPolicy" "seccompProfile" "dnsPolicy" "dnsConfig" -}}
{{- with index $v $k }}{{ $_ := set $out $k . }}{{ end -}}
{{- end -}}
{{- /* Environment: TZ, Datadog's, the root password, profiling, then the user's. */ -}}
{{- $userEnv := index $v .envKey -}}
{{- $env := list (dict "name" "TZ" "value" (toString $root.Values.timeZone)) -}}
{{- if $root.Values.datadog.log.enabled }}{{ $env = append $env (dict "name" "LOG_CONSOLE" "value" "1") }}{{ end -}}
{{- if and $root.Values.initPassword.enabled (not (contains "MYSQL_PWD" (toJson $userEnv))) -}}
{{- $env = append $env (dict "name" "MYSQL_PWD" "valueFrom" (dict "secretKeyRef" (dict "name" (include "starrocks.initPasswordSecret" $root) "key" "password"))) -}}
{{- end -}}
{{- if index ($root.Values.datadog.profiling | default dict) $kind -}}
{{- $env = append $env (dict "name" "ENABLE_DATADOG_PROFILE" "value" "true") -}}
{{- $env = append $env (dict "name" "DD_PROFILING_ENABLED" "value" "true") -}}
{{- $env = append $env (dict "name" "DD_SERVICE" "value" (printf "starrocks-%s" $kind)) -}}
{{- $env = append $env (dict "name" "DD_ENV" "value" (toString $root.Values.datadog.profiling.env)) -}}
{{- $env = append $env (dict "name" "DD_VERSION" "value" (toString ($image.tag | default $cvImage.tag | default $root.Chart.AppVersion))) -}}
{{- end -}}
{{- $env = concat $env (fromYamlArray (include "starrocks.envList" $userEnv)) -}}
{{- $_ := set $out .envKey $env -}}
{{- $_ := set $out "terminationGracePeriodSeconds" $v.terminationGracePeriodSeconds -}}
{{- range $k := list "startupProbeFailureSeconds" "livenessProbeFailureSeconds" "readinessProbeFailureSeconds" -}}
{{- $x := index $v $k -}}
{{- if and (not (kindIs "invalid" $x)) (ne (toString $x) "") }}{{ $_ := set $out $k (int $x) }}{{ end -}}
{{- end -}}
{{- $_ := set $out "minReadySeconds" ($v.minReadySeconds | default 0) -}}
{{- $_ := set $out "podManagementPolicy" $v.podManagementPolicy -}}
{{- if and $v.sidecarsMap $v.sidecars -}}
{{- fail (printf "starrocks%sSpec: set sidecarsMap or sidecars, not both" (ternary "FE" (title $kind) (eq $kind "fe"))) -}}
{{- end -}}
{{- if $v.sidecarsMap -}}
{{- $sidecars := list -}}
{{- range $n := keys $v.sidecarsMap | sortAlpha }}{{ $sidecars = append $sidecars (merge (dict "name" $n) (index $v.sidecarsMap $n)) }}{{ end -}}
{{- $_ := set $out "sidecars" $sidecars -}}
{{- else if $v.sidecars -}}
{{- $_ := set $out "sidecars" $v.sidecars -}}
{{- end -}}
{{- with $v.secrets -}}
{{- $mounts := list -}}
{{- range . }}{{ $mounts = append $mounts (dict "name" .name "mountPath" .mountPath "subPath" .subPath) }}{{ end -}}
{{- $_ := set $out "secrets" $mounts -}}
{{- end -}}
{{- $cms := list -}}
{{- range $v.configMaps }}{{ $cms = append $cms (dict "name" .name "mountPath" .mountPath "subPath" .subPath) }}{{ end -}}
{{- if $v.entrypoint -}}
{{- $cms = append $cms (dict "name" (printf "%s-%s-entrypoint-script" $name $kind) "mountPath" "/etc/starrocks/entrypoint.sh" "subPath" "entrypoint.sh") -}}
{{- end -}}
{{- if $cms }}{{ $_ := set $out "configMaps" $cms }}{{ end -}}
{{- $_ := set $out "configMapInfo" (dict "configMapName" (printf "%s-%s-cm" $name $kind) "resolveKey" (printf "%s.conf" $kind)) -}}
{{- /* Volumes: storageSpec's claims, then emptyDirs and hostPaths. */ -}}
{{- $vols := list -}}
{{- $st := $v.storageSpec | default dict -}}
{{- if $st.name -}}
{{- /*
A claim's storageClassName is rendered only when a class is named. Unset, null
and "" alike render no key, and the claim gets the cluster's default
StorageClass. This is what the upstream chart does: it writes the value
unquoted, so that its default "" (or a "" the user writes) becomes a null, and
it cannot ask for "no class" either. A "" here would bind the claims only to a
pre-made PersistentVolume without a class, and leave them Pending.
*/ -}}
{{- $class := toString ($st.storageClassName | default "") -}}
{{- $dataPath := $st.storageMountPath | default .dataPath -}}
{{- $count := int ($st.storageCount | default 1) -}}
{{- /* Each claim: name, size, mount path, class ("" for none). */ -}}
{{- $claims := list -}}
{{- if gt $count 1 -}}
{{- range $i := until $count -}}
{{- $claims = append $claims (list (printf "%s%d-data" $st.name $i) $st.storageSize (printf "%s%d" $dataPath $i) $class) -}}
{{- end -}}
{{- else -}}
{{- $claims = append $claims (list (printf "%s%s" $st.name .dataSuffix) $st.storageSize $dataPath $class) -}}
{{- end -}}
{{- $claims = append $claims (list (printf "%s-log" $st.name) $st.logStorageSize ($st.logMountPath | default (printf "/opt/starrocks/%s/log" $kind)) (toString ($st.logStorageClassName | default $class))) -}}
{{- if .spill -}}
{{- $claims = append $claims (list (printf "%s-spill" $st.name) $st.spillStorageSize ($st.spillMountPath | default (printf "/opt/starrocks/%s/spill" $kind)) (toString ($st.spillStorageClassName | default $class))) -}}
{{- end -}}
{{- range $claims -}}
{{- $d := dict "name" (index . 0) "storageSize" (toString (index . 1)) "mountPath" (index . 2) -}}
{{- with index . 3 }}{{ $_ := set $d "storageClassName" . }}{{ end -}}
{{- $vols = append $vols $d -}}
{{- end -}}
{{- end -}}
{{- range $v.emptyDirs -}}
{{- $d := dict "name" .name "mountPath" .mountPath "storageClassName" "emptyDir" -}}
{{- if .readOnly }}{{ $_ := set $d "readOnly" .readOnly }}{{ end -}}
{{- $vols = append $vols $d -}}
{{- end -}}
{{- range $v.hostPaths -}}
{{- $d := dict "name" .name "mountPath" .mountPath "storageClassName" "hostPath" "hostPath" .hostPath -}}
{{- if .readOnly }}{{ $_ := set $d "readOnly" .readOnly }}{{ end -}}
{{- $vols = append $vols $d -}}
{{- end -}}
{{- if $vols }}{{ $_ := set $out "storageVolumes" $vols }}{{ end -}}
{{- with $v.autoScalingPolicy }}{{ $_ := set $out "autoScalingPolicy" . }}{{ end -}}
{{- toYaml $out -}}
{{- end -}}
