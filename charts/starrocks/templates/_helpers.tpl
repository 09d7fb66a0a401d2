{{/* Name of the StarRocksCluster. */}}
{{- define "starrocks.clusterName" -}}
{{- .Values.starrocksCluster.name | default .Values.nameOverride | default .Release.Name -}}
{{- end -}}

{{/* Namespace of the StarRocksCluster and of its ConfigMaps. */}}
{{- define "starrocks.namespace" -}}
{{- .Values.starrocksCluster.namespace | default .Release.Namespace -}}
{{- end -}}

{{/* Name of a component's .conf ConfigMap; takes (list root component). */}}
{{- define "starrocks.configMapName" -}}
{{- printf "%s-%s-cm" (include "starrocks.clusterName" (index . 0)) (index . 1) -}}
{{- end -}}

{{/*
A .conf file as stored in its ConfigMap: without leading or trailing blank lines,
ending with one newline. The config hash is computed over exactly this text.
*/}}
{{- define "starrocks.conf" -}}
{{- printf "%s\n" (trimAll "\n" .) -}}
{{- end -}}

{{- define "starrocks.labels" -}}
app.kubernetes.io/name: starrocks
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: kube-starrocks
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/*
A component's spec in the StarRocksCluster, as YAML, from its values. Takes a dict:
  values        the component's values (starrocksFESpec, ...)
  keys          values copied unchanged when set (their names are the CRD's)
  defaultTag    image tag when image.tag is empty
  storage       mount paths for storageSpec: dataSuffix, dataPath, logPath (none for the FE proxy)
  confKey       key of the .conf file in the ConfigMap (none for the FE proxy)
  configMapName the ConfigMap holding the .conf file
Numbers are copied even when 0 (a probe's 0 disables it); other empty values are left out.
*/}}
{{- define "starrocks.componentSpec" -}}
{{- $v := .values -}}
{{- $out := dict -}}
{{- $image := $v.image | default dict -}}
{{- if $image.repository -}}
{{- $_ := set $out "image" (printf "%s:%s" $image.repository (toString ($image.tag | default .defaultTag))) -}}
{{- end -}}
{{- range $key := .keys -}}
{{- $x := index $v $key -}}
{{- if or $x (kindIs "float64" $x) (kindIs "int64" $x) (kindIs "int" $x) -}}
{{- $_ := set $out $key $x -}}
{{- end -}}
{{- end -}}
{{- $res := $v.resources | default dict -}}
{{- with $res.requests }}{{ $_ := set $out "requests" . }}{{ end -}}
{{- with $res.limits }}{{ $_ := set $out "limits" . }}{{ end -}}
{{- $s := $v.service | default dict -}}
{{- $svc := dict -}}
{{- range $k := list "type" "annotations" "labels" "ports" "loadBalancerSourceRanges" -}}
{{- with index $s $k }}{{ $_ := set $svc $k . }}{{ end -}}
{{- end -}}
{{- with $s.loadBalancerIP | default $s.loadbalancerIP }}{{ $_ := set $svc "loadBalancerIP" . }}{{ end -}}
{{- if $svc }}{{ $_ := set $out "service" $svc }}{{ end -}}
{{- $vols := list -}}
{{- $st := $v.storageSpec | default dict -}}
{{- $paths := .storage -}}
{{- if and $paths $st.name -}}
{{- $data := dict "name" (printf "%s%s" $st.name $paths.dataSuffix) "mountPath" ($st.storageMountPath | default $paths.dataPath) -}}
{{- with $st.storageClassName }}{{ $_ := set $data "storageClassName" . }}{{ end -}}
{{- with $st.storageSize }}{{ $_ := set $data "storageSize" (toString .) }}{{ end -}}
{{- $vols = append $vols $data -}}
{{- if $st.logStorageSize -}}
{{- $log := dict "name" (printf "%s-log" $st.name) "mountPath" ($st.logMountPath | default $paths.logPath) "storageSize" (toString $st.logStorageSize) -}}
{{- with $st.logStorageClassName | default $st.storageClassName }}{{ $_ := set $log "storageClassName" . }}{{ end -}}
{{- $vols = append $vols $log -}}
{{- end -}}
{{- end -}}
{{- range $v.emptyDirs -}}
{{- $vols = append $vols (dict "name" .name "mountPath" .mountPath "storageClassName" "emptyDir") -}}
{{- end -}}
{{- range $v.hostPaths -}}
{{- $vols = append $vols (dict "name" .name "mountPath" .mountPath "storageClassName" "hostPath" "hostPath" .hostPath) -}}
{{- end -}}
{{- range $v.storageVolumes -}}
{{- $vols = append $vols . -}}
{{- end -}}
{{- if $vols }}{{ $_ := set $out "storageVolumes" $vols }}{{ end -}}
{{- $annotations := dict -}}
{{- with $v.annotations }}{{ $annotations = deepCopy . }}{{ end -}}
{{- if and .confKey (trim ($v.config | default "")) -}}
{{- /* A changed .conf changes the pod template, so that the pods restart and read it. */ -}}
{{- $_ := set $annotations "starrocks.com/config-hash" (sha256sum (include "starrocks.conf" $v.config)) -}}
{{- $_ := set $out "configMapInfo" (dict "configMapName" .configMapName "resolveKey" .confKey) -}}
{{- end -}}
{{- if $annotations }}{{ $_ := set $out "annotations" $annotations }}{{ end -}}
{{- toYaml $out -}}
{{- end -}}
