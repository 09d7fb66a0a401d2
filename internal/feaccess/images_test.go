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

package feaccess

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/scheme"
)

// FE's SHOW FRONTENDS is the tenant's word. A forged list names the
// cluster's own FE pod, another tenant's FE pod and a host outside; the
// operator's HTTP reads (and its password, under enable_http_auth) go to
// its own pod alone, and the password only while the SSL mode does not
// ask for TLS.
func TestImageReadsGoOnlyToTheClustersOwnFEPods(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]string{} // host -> Authorization it got
	servers := map[string]*httptest.Server{}
	hosts := []string{"10.1.0.5", "c-fe-1.c-fe-search.ns.svc.cluster.local", "10.2.0.9", "other-fe-0.other-fe-search.other", "collector.example.com"}
	for _, h := range hosts {
		servers[h] = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			asked[h] = r.Header.Get("Authorization")
			mu.Unlock()
			fmt.Fprint(w, `{"role":"FOLLOWER","current_journal_id":"10","last_checkpoint_version":"9"}`)
		}))
		t.Cleanup(servers[h].Close)
	}
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"},
		Spec: srv1.StarRocksClusterSpec{StarRocksFeSpec: &srv1.StarRocksFeSpec{}}}
	pod := func(ns, name, ip, owner string, labels map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: owner, UID: "u", Controller: ptr.To(true)}}},
			Status: corev1.PodStatus{PodIP: ip}}
	}
	feLabels := resources.SelectorLabels(src, resources.ComponentFE)
	other := src.DeepCopy()
	other.Namespace, other.Name = "other", "other"
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		pod("ns", "c-fe-0", "10.1.0.5", "c-fe", feLabels),
		pod("ns", "c-fe-1", "10.1.0.6", "c-fe", feLabels),
		pod("other", "other-fe-0", "10.2.0.9", "other-fe", resources.SelectorLabels(other, resources.ComponentFE)),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "op"}, Data: map[string][]byte{"username": []byte("op"), "password": []byte("s3cret")}},
	).Build()
	var frontends []fe.Frontend
	for i, h := range hosts {
		frontends = append(frontends, fe.Frontend{Name: fmt.Sprintf("fe%d", i), Host: h, HTTPPort: 8030})
	}
	for _, tc := range []struct {
		mode     fe.SSLMode
		wantAuth bool
	}{{fe.SSLPreferred, true}, {fe.SSLRequired, false}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			clear(asked)
			access := New(c, Options{TLS: fe.TLS{Mode: tc.mode}, Credentials: types.NamespacedName{Namespace: "ns", Name: "op"},
				Resolve: func(t fe.Target) (string, string) { return "", servers[t.Host].URL }})
			got, err := access.Images(t.Context(), src, "enable_http_auth = true\n", frontends)
			var keys []string
			for h, a := range asked {
				keys = append(keys, h+" auth="+fmt.Sprint(a != ""))
			}
			sort.Strings(keys)
			t.Logf("asked: %v; error: %v", keys, err)
			if _, ok := asked["10.1.0.5"]; len(asked) != 2 || !ok {
				t.Errorf("asked %v; want only the cluster's own FE pods 10.1.0.5 and c-fe-1", keys)
			}
			for _, h := range []string{"10.2.0.9", "other-fe-0.other-fe-search.other", "collector.example.com"} {
				if _, ok := asked[h]; ok {
					t.Errorf("the operator asked %s, which is not one of the cluster's FE pods", h)
				}
				if err == nil || !strings.Contains(err.Error(), h) {
					t.Errorf("the error does not name the forged host %s: %v", h, err)
				}
			}
			for h, a := range asked {
				if (a != "") != tc.wantAuth {
					t.Errorf("%s got Authorization %q under %s; want sent: %v", h, a, tc.mode, tc.wantAuth)
				}
			}
			if len(got) != 2 {
				t.Errorf("images of %d FEs, want the 2 own ones", len(got))
			}
		})
	}
}

// The read on FE's leader (ExecOn) goes to the cluster's own FE pod alone:
// a leader row FE lists on a host outside the cluster is not dialled with
// the operator's credentials. The control: the own pod's host is.
func TestExecOnGoesOnlyToTheClustersOwnFEPods(t *testing.T) {
	src := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"},
		Spec: srv1.StarRocksClusterSpec{StarRocksFeSpec: &srv1.StarRocksFeSpec{}}}
	own := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c-fe-0", Labels: resources.SelectorLabels(src, resources.ComponentFE),
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "c-fe", UID: "u", Controller: ptr.To(true)}}},
		Status: corev1.PodStatus{PodIP: "10.1.0.5"}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(own).Build()
	var dialled []string
	access := New(c, Options{Resolve: func(t fe.Target) (string, string) {
		dialled = append(dialled, t.Host)
		return "127.0.0.1:1", "http://127.0.0.1:1"
	}})
	ran := 0
	err := access.ExecOn(t.Context(), src, "", "collector.example.com", func(*fe.Client) error { ran++; return nil })
	if err == nil || !strings.Contains(err.Error(), "collector.example.com") || ran != 0 || len(dialled) != 0 {
		t.Errorf("a foreign host: error %v, ran %d, resolved %v; want refused before any dial", err, ran, dialled)
	}
	if err := access.ExecOn(t.Context(), src, "", "10.1.0.5", func(*fe.Client) error { ran++; return nil }); err != nil || ran != 1 || dialled[len(dialled)-1] != "10.1.0.5" {
		t.Errorf("control, the own pod: error %v, ran %d, resolved %v", err, ran, dialled)
	}
}
