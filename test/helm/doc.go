/*
Copyright 2026 The srscale authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package helm tests the Helm charts under charts/ with Helm's Go SDK: lint,
// rendering of the operator's knobs and of every upstream key, the values
// schemas, freshness of the generated chart files, equality with the upstream
// kube-starrocks chart v1.11.5's renderings up to an allow-list of intended
// differences, acceptance of the rendered manifests by a real kube-apiserver,
// the CRD step and a helm upgrade from an upstream release against a real API
// server, and the operator running with exactly the RBAC the chart grants.
package helm
