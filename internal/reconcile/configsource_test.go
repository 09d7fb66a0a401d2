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

package reconcile

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// A ConfigMap's data is dropped once no cluster names it; the data of
// those still named, and of other namespaces, stays.
func TestConfigDataNoClusterNamesIsForgotten(t *testing.T) {
	s := NewConfigSource(nil, nil)
	for _, nn := range []types.NamespacedName{{Namespace: "ns", Name: "used"}, {Namespace: "ns", Name: "unused"}, {Namespace: "other", Name: "unused"}} {
		s.data[nn] = configEntry{resourceVersion: "1", data: map[string]string{"fe.conf": "x"}}
	}
	s.ForgetUnused("ns", func(name string) bool { return name == "used" })
	if _, ok := s.data[types.NamespacedName{Namespace: "ns", Name: "unused"}]; ok || len(s.data) != 2 {
		t.Errorf("data left: %v; want ns/used and other/unused", s.data)
	}
}
