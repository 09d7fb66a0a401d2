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

// Package resources builds the Kubernetes objects a StarRocksCluster needs.
//
// Every builder is a pure function: spec (plus the component's .conf
// content) in, objects out. Nothing here talks to the API server, reads the
// clock or depends on map iteration order, so building the same input twice
// gives deep-equal objects and the apply layer can hash them.
//
// Every returned object has its TypeMeta, namespace, labels (see Labels) and a
// controller owner reference to the cluster set. Status, resourceVersion,
// creationTimestamp and the apply layer's own hash annotation are never set.
package resources
