{{- /* Code generated from config/rbac/role.yaml by "make helm"; DO NOT EDIT. */ -}}
{{- define "operator.rules" -}}
- apiGroups:
  - ""
  resources:
  - configmaps
  - services
  verbs:
  - create
  - delete
  - get
  - list
  - patch
  - update
  - watch
- apiGroups:
  - ""
  resources:
  - persistentvolumeclaims
  verbs:
  - delete
  - get
  - list
  - patch
- apiGroups:
  - ""
  resources:
  - pods
  verbs:
  - delete
  - get
  - list
  - patch
  - watch
- apiGroups:
  - ""
  resources:
  - pods/eviction
  verbs:
  - create
- apiGroups:
  - ""
  resources:
  - secrets
  verbs:
  - get
- apiGroups:
  - ""
  - events.k8s.io
  resources:
  - events
  verbs:
  - create
  - patch
- apiGroups:
  - apiextensions.k8s.io
  resourceNames:
  - starrocksclusters.starrocks.com
  - starrockswarehouses.starrocks.com
  resources:
  - customresourcedefinitions
  verbs:
  - get
- apiGroups:
  - apps
  resources:
  - deployments
  - statefulsets
  verbs:
  - create
  - delete
  - get
  - list
  - patch
  - update
  - watch
- apiGroups:
  - autoscaling
  resources:
  - horizontalpodautoscalers
  verbs:
  - create
  - delete
  - get
  - list
  - patch
  - update
  - watch
- apiGroups:
  - policy
  resources:
  - poddisruptionbudgets
  verbs:
  - create
  - delete
  - get
  - list
  - patch
  - update
  - watch
- apiGroups:
  - starrocks.com
  resources:
  - starrocksbackuprepositories
  - starrocksrestores
  - starrockswarehouses
  verbs:
  - get
  - list
  - patch
  - update
  - watch
- apiGroups:
  - starrocks.com
  resources:
  - starrocksbackuprepositories/finalizers
  - starrocksbackups/finalizers
  - starrocksclusters/finalizers
  - starrocksrestores/finalizers
  - starrockswarehouses/finalizers
  verbs:
  - update
- apiGroups:
  - starrocks.com
  resources:
  - starrocksbackuprepositories/status
  - starrocksbackups/status
  - starrocksbackupschedules/status
  - starrocksclusters/status
  - starrocksrestores/status
  - starrockswarehouses/status
  verbs:
  - get
  - patch
  - update
- apiGroups:
  - starrocks.com
  resources:
  - starrocksbackups
  verbs:
  - create
  - delete
  - get
  - list
  - patch
  - update
  - watch
- apiGroups:
  - starrocks.com
  resources:
  - starrocksbackupschedules
  verbs:
  - get
  - list
  - watch
- apiGroups:
  - starrocks.com
  resources:
  - starrocksclusters
  verbs:
  - get
  - list
  - patch
  - watch
- apiGroups:
  - storage.k8s.io
  resources:
  - storageclasses
  verbs:
  - get
  - list
{{- end -}}
