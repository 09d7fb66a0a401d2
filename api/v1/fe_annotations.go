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

package v1

// Annotations on a StarRocksCluster that say how the operator reaches its FE.

// FESSLModeAnnotation on a StarRocksCluster overrides --fe-ssl-mode for
// that cluster's FE, for fleets whose FEs differ (some requiring TLS, some
// without it). Its values are --fe-ssl-mode's, in any case; the CA bundle is
// always --fe-ca-file.
const FESSLModeAnnotation = "starrocks.com/fe-ssl-mode"

// FECredentialsAnnotation on a StarRocksCluster names a Secret in the
// cluster's namespace holding the user (key "username") and password (key
// "password") the operator logs in to FE with; it overrides the operator's
// --fe-credentials-secret for that cluster. An annotation, not a spec field:
// the CRD stays the upstream's (an older CRD, which Helm never upgrades,
// would drop a new field without a word), and, like the other per-cluster
// switches, it is about how the operator works, not about the cluster.
const FECredentialsAnnotation = "starrocks.com/fe-credentials-secret"
