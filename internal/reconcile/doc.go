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

// Package reconcile is the kit both reconcilers (StarRocksCluster and
// StarRocksWarehouse) are built from: the phases and how they run, the
// holds and the one step that applies them to the built objects, the
// error and back-off policy, the status path, the Events, and the registry
// of what the process remembers per object between reconciles. It also
// holds the Kubernetes pieces both read and write through: the source of
// the users' ConfigMaps (ConfigSource), the check of the StatefulSet fields
// Kubernetes cannot change (CheckImmutable), the applier and the
// operator's field manager (NewApplier, FieldOwner), and the watch filters
// and follow-up priority their controllers are set up with.
//
// It knows Kubernetes objects, not StarRocks: what StarRocks decides is in
// internal/starrocks, and talking to FE goes through internal/feaccess.
package reconcile
