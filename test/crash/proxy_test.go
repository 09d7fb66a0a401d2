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

package crash

import (
	"bytes"
	"net/http"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
)

// A create names its object in the body; the operator sends built-in kinds
// as protobuf and custom resources as JSON, and a kill point on either
// must find the name (a JSON-only reading never fired on a StatefulSet).
func TestNameInBodyReadsJSONAndProtobufCreates(t *testing.T) {
	sts := &appsv1.StatefulSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"}, ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a-fe"}}
	for _, mediaType := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf} {
		info, ok := runtime.SerializerInfoForMediaType(clientscheme.Codecs.SupportedMediaTypes(), mediaType)
		if !ok {
			t.Fatalf("no serializer for %s", mediaType)
		}
		var body bytes.Buffer
		if err := clientscheme.Codecs.EncoderForVersion(info.Serializer, appsv1.SchemeGroupVersion).Encode(sts, &body); err != nil {
			t.Fatal(err)
		}
		sent := body.String()
		r, err := http.NewRequest(http.MethodPost, "https://x/apis/apps/v1/namespaces/ns/statefulsets", bytes.NewBufferString(sent))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Type", mediaType)
		if got := nameInBody(r); got != "a-fe" {
			t.Errorf("%s create: name %q, want a-fe", mediaType, got)
		}
		var left bytes.Buffer
		if _, err := left.ReadFrom(r.Body); err != nil || left.String() != sent {
			t.Errorf("%s create: the body left for the proxy differs from the one sent (%v)", mediaType, err)
		}
	}
}
