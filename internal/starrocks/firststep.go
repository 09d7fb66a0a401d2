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

package starrocks

import "slices"

// WorkersShort reports whether more reconciles want a worker than there
// are workers: those ready in the queue and those running (the asking one
// included). Only then is a new cluster's first step cut short to free its
// worker; a burst that fits the workers, such as 50 new clusters on 50
// workers, has every cluster written in one reconcile.
func WorkersShort(queued, running, workers int) bool {
	return queued+running > workers
}

// FirstWrites is what a new cluster's first step writes of objs, its FE
// objects: with workers short, the StatefulSet and the headless Service
// that gives FE's pods their DNS names, in one round trip (the client
// Service and the disruption budget follow in the next reconcile, so that
// the worker is free for the next cluster as soon as those two are
// written); otherwise all of them.
func FirstWrites[T comparable](objs []T, statefulSet, headlessService T, short bool) []T {
	if !short {
		return objs
	}
	need := []T{statefulSet, headlessService}
	return slices.DeleteFunc(objs, func(o T) bool { return !slices.Contains(need, o) })
}
