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

package apply

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestCovers(t *testing.T) {
	tests := []struct {
		name       string
		live, want map[string]any
		covered    bool
	}{
		{"fields the server defaulted are ignored",
			map[string]any{"spec": map[string]any{"type": "ClusterIP", "clusterIP": "10.96.0.4", "ports": []any{map[string]any{"port": int64(9030), "protocol": "TCP"}}}},
			map[string]any{"spec": map[string]any{"type": "ClusterIP", "ports": []any{map[string]any{"port": int64(9030)}}}}, true},
		{"a changed value is drift",
			map[string]any{"spec": map[string]any{"replicas": int64(5)}},
			map[string]any{"spec": map[string]any{"replicas": int64(3)}}, false},
		{"a missing desired field is drift",
			map[string]any{"spec": map[string]any{}},
			map[string]any{"spec": map[string]any{"replicas": int64(3)}}, false},
		{"a zero desired value matches an omitted field",
			map[string]any{"spec": map[string]any{}},
			map[string]any{"spec": map[string]any{"publishNotReadyAddresses": false, "selector": map[string]any{}}}, true},
		{"an extra list element is drift",
			map[string]any{"spec": map[string]any{"ports": []any{map[string]any{"port": int64(1)}, map[string]any{"port": int64(2)}}}},
			map[string]any{"spec": map[string]any{"ports": []any{map[string]any{"port": int64(1)}}}}, false},
		{"numbers compare by value across int and float",
			map[string]any{"spec": map[string]any{"n": float64(3)}},
			map[string]any{"spec": map[string]any{"n": int64(3)}}, true},
		{"status and server metadata are not compared",
			map[string]any{"metadata": map[string]any{"resourceVersion": "9", "labels": map[string]any{"a": "b", "extra": "x"}}, "status": map[string]any{"x": int64(1)}},
			map[string]any{"metadata": map[string]any{"name": "n", "labels": map[string]any{"a": "b"}}, "status": map[string]any{"x": int64(2)}}, true},
		{"a removed label of ours is drift",
			map[string]any{"metadata": map[string]any{"labels": map[string]any{}}},
			map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "b"}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Covers(tt.live, tt.want); got != tt.covered {
				t.Fatalf("Covers = %v, want %v", got, tt.covered)
			}
		})
	}
}

func TestDesiredHashIsStableAndStripsServerFields(t *testing.T) {
	svc := func(port int32, labels map[string]string) *corev1.Service {
		return &corev1.Service{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: metav1.ObjectMeta{Name: "a-fe-service", Namespace: "ns", Labels: labels, ResourceVersion: "42", Annotations: map[string]string{HashAnnotation: "old"}},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "query", Port: port}}},
		}
	}
	u1, h1, err := Desired(svc(9030, map[string]string{"a": "1", "b": "2"}))
	if err != nil {
		t.Fatal(err)
	}
	_, h2, _ := Desired(svc(9030, map[string]string{"b": "2", "a": "1"}))
	_, h3, _ := Desired(svc(9031, map[string]string{"a": "1", "b": "2"}))
	if h1 != h2 {
		t.Errorf("same object hashed differently: %s vs %s", h1, h2)
	}
	if h1 == h3 {
		t.Errorf("different ports hashed the same")
	}
	if u1.GetResourceVersion() != "" || u1.Object["status"] != nil {
		t.Errorf("apply body keeps server-owned fields: %v", u1.Object)
	}
	if _, ok := u1.Object["metadata"].(map[string]any)["creationTimestamp"]; ok {
		t.Errorf("apply body keeps a null creationTimestamp")
	}
	if got := u1.GetAnnotations()[HashAnnotation]; got != h1 {
		t.Errorf("hash annotation = %q, want %q", got, h1)
	}
}

func TestRecentWritesHideAStaleCacheOnly(t *testing.T) {
	a := Applier{writes: NewRecent[string]()}
	a.writes.Record("Service/ns/a", "100", "h1")
	tests := []struct {
		name   string
		hash   string
		liveRV string
		want   bool
	}{
		{"cache has not seen our create", "h1", "", true},
		{"cache shows an older version", "h1", "99", true},
		{"cache shows a newer version: someone else changed it", "h1", "101", false},
		{"desired state moved on since our write", "h2", "99", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := a.awaited("Service/ns/a", tt.hash, tt.liveRV); got != tt.want {
				t.Fatalf("awaited = %v, want %v", got, tt.want)
			}
		})
	}
	if a.awaited("Service/ns/other", "h1", "") {
		t.Fatal("an object never written is awaited")
	}
}

func TestAnAnswerIsTrustedPastRecentWindow(t *testing.T) {
	a := New(nil, "owner")
	a.remember("Service/ns/a", "h1", map[string]any{"spec": map[string]any{"port": int64(1)}},
		&unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"resourceVersion": "100"}, "spec": map[string]any{"port": int64(1)}}})
	// The write is older than the window: a cache behind it is believed again ...
	w := a.writes.m["Service/ns/a"]
	w.at = time.Now().Add(-2 * RecentWindow)
	a.writes.m["Service/ns/a"] = w
	if a.awaited("Service/ns/a", "h1", "99") {
		t.Error("awaited past RecentWindow")
	}
	// ... but a copy at the answer's resourceVersion is that answer still.
	if !a.asWritten("Service/ns/a", "h1", "100") {
		t.Error("the answer at resourceVersion 100 is not trusted past RecentWindow")
	}
	for rv, hash := range map[string]string{"101": "h1", "99": "h1", "": "h1"} {
		if a.asWritten("Service/ns/a", hash, rv) {
			t.Errorf("trusted at resourceVersion %q", rv)
		}
	}
	if a.asWritten("Service/ns/a", "h2", "100") {
		t.Error("trusted for a desired state never written")
	}
	a.answers.drop("Service/ns/a")
	if a.asWritten("Service/ns/a", "h1", "100") {
		t.Error("trusted after the object was forgotten")
	}
}

func TestRecentForgetsAfterItsWindow(t *testing.T) {
	r := NewRecent[string]()
	r.Record("k", "100", "v")
	if v, ok := r.Ahead("k", "99"); !ok || v != "v" {
		t.Fatalf("Ahead = %q, %v right after the write", v, ok)
	}
	r.m["k"] = recentWrite[string]{value: "v", rv: 100, at: time.Now().Add(-RecentWindow - time.Second)}
	if _, ok := r.Ahead("k", "99"); ok {
		t.Fatal("a write older than the window still hides the cache")
	}
	r.Record("other", "not-a-number", "v")
	if _, ok := r.Ahead("other", ""); ok {
		t.Fatal("a write without a numeric resourceVersion is remembered")
	}
}

// Old writes are dropped by a sweep at most once per window, not on every
// write: between sweeps a write only adds its own entry.
func TestRecentSweepsOncePerWindow(t *testing.T) {
	r := NewRecent[string]()
	old := time.Now().Add(-RecentWindow - time.Second)
	r.Record("first", "1", "v") // sweeps: the window starts now
	r.m["stale"] = recentWrite[string]{value: "v", rv: 1, at: old}
	r.Record("second", "2", "v")
	if r.Len() != 3 {
		t.Fatalf("%d entries right after a sweep, want 3: the stale one waits for the next sweep", r.Len())
	}
	r.swept = old
	r.Record("third", "3", "v")
	if _, ok := r.m["stale"]; ok || r.Len() != 3 {
		t.Errorf("after a window, the sweep left %d entries (stale kept: %v), want 3", r.Len(), ok)
	}
	r.Forget("third")
	if _, ok := r.Ahead("third", ""); ok {
		t.Error("a forgotten write is still remembered")
	}
}

func TestHashesWrittenHashesEachObjectOnce(t *testing.T) {
	desired := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: "a-fe-service", Namespace: "ns"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "query", Port: 9030}}},
	}
	_, hash, err := Desired(desired)
	if err != nil {
		t.Fatal(err)
	}
	live := desired.DeepCopy()
	live.Annotations = map[string]string{HashAnnotation: hash}
	h := NewHashes()
	if !h.Written(live, desired) || !NewHashes().Written(live, desired) {
		t.Fatal("live carries desired's hash, but Written says no")
	}
	if h.Written(nil, desired) || h.Written(live, nil) {
		t.Error("Written is true without a live or a desired object")
	}
	// The memo answers for the object it hashed, as it was then: a second
	// comparison costs no conversion.
	desired.Spec.Ports[0].Port = 9031
	if !h.Written(live, desired) {
		t.Error("Hashes hashed the same object again")
	}
	if NewHashes().Written(live, desired) {
		t.Error("a new Hashes kept a hash it should compute afresh")
	}
}
