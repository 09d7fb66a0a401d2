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

package cluster

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/scheme"
)

// The pre-flight's glue without an FE to ask: an image change goes on, not
// checked, and says why; no change, or the user's "off", says nothing and
// remembers nothing.
func TestThePreflightWithoutFE(t *testing.T) {
	fe := resources.ComponentFE
	for _, tc := range []struct {
		name, image, annotation string
		note                    string // a part of the note; "" for none
	}{
		{name: "no image change says nothing", image: "starrocks/fe-ubuntu:3.3.2"},
		{name: "an image change FE cannot be asked about rolls, not checked", image: "starrocks/fe-ubuntu:3.2.2",
			note: "FE image starrocks/fe-ubuntu:3.2.2: an unknown version to 3.2.2 not checked"},
		{name: "a tag that names no version rolls, not checked", image: "starrocks/fe-ubuntu:latest", note: `image tag "latest" names no version`},
		{name: "the user's off skips the check", image: "starrocks/fe-ubuntu:3.2.2", annotation: srv1.UpgradePathCheckOff},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := feCluster()
			live := running(src, fe, 1)
			src.Spec.StarRocksFeSpec.Image = tc.image
			if tc.annotation != "" {
				src.Annotations = map[string]string{srv1.UpgradePathCheckAnnotation: tc.annotation}
			}
			s := scopeOf(t, src, map[resources.Component]*appsv1.StatefulSet{fe: live})
			recorder := events.NewFakeRecorder(10)
			r := NewReconciler(fake.NewClientBuilder().WithScheme(scheme.New()).Build(), recorder, nil, nil)
			built := len(s.holds)
			if !r.preflight(t.Context(), s) {
				t.Fatal("the pre-flight ended the reconcile")
			}
			if len(s.holds) > built {
				t.Errorf("holds %+v, want none: FE's word is not waited for when FE cannot be asked", s.holds[built:])
			}
			if resources.Image(s.want.objects.StatefulSet(fe)) != tc.image {
				t.Errorf("desired FE image %s, want %s", resources.Image(s.want.objects.StatefulSet(fe)), tc.image)
			}
			if note := strings.Join(s.want.notes, "; "); !strings.Contains(note, tc.note) || (tc.note == "" && note != "") {
				t.Errorf("notes %q, want them to say %q", s.want.notes, tc.note)
			}
			if tc.note == "" && (r.pathChecks.Len() > 0) {
				t.Errorf("remembers %d checks, want none", r.pathChecks.Len())
			}
			if len(recorder.Events) > 0 {
				t.Errorf("Event %s, want none: a path not checked is told in the condition", <-recorder.Events)
			}
		})
	}
}
