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

package cli

import (
	"bytes"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// The lean types below are the parts of a StarRocksCluster that status's
// line reads (plugin.StatusLine): their JSON names are the API's, and
// every other field of an item (managedFields, the spec beyond images and
// replicas, FE's node counts, the instances' Services, ...) is stepped
// over by encoding/json without being built. TestLeanDecodeGivesTheFullDecodesLines
// fails when the view reads a field these types drop. `describe` and
// `pause` get the whole object; `status -o json|yaml` prints the lines,
// not the objects.

type leanPage struct {
	metav1.ListMeta `json:"metadata"`
	Items           []leanCluster `json:"items"`
}

type leanCluster struct {
	Metadata struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		Generation        int64             `json:"generation"`
		CreationTimestamp metav1.Time       `json:"creationTimestamp"`
		Annotations       map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		FE *leanComponentSpec `json:"starRocksFeSpec"`
		BE *leanComponentSpec `json:"starRocksBeSpec"`
		CN *struct {
			leanComponentSpec
			AutoScalingPolicy *present `json:"autoScalingPolicy"`
		} `json:"starRocksCnSpec"`
	} `json:"spec"`
	Status struct {
		ObservedGeneration int64                `json:"observedGeneration"`
		Conditions         []leanCondition      `json:"conditions"`
		Phase              srv1.Phase           `json:"phase"`
		Reason             string               `json:"reason"`
		FE                 *leanComponentStatus `json:"starRocksFeStatus"`
		BE                 *leanComponentStatus `json:"starRocksBeStatus"`
		CN                 *struct {
			leanComponentStatus
			Replicas int32 `json:"replicas"`
		} `json:"starRocksCnStatus"`
		DisasterRecovery *struct {
			Phase          srv1.DisasterRecoveryPhase `json:"phase"`
			Reason         string                     `json:"reason"`
			StartTimestamp int64                      `json:"startTimestamp"`
		} `json:"disasterRecoveryStatus"`
	} `json:"status"`
}

type leanComponentSpec struct {
	Replicas *int32 `json:"replicas"`
	Image    string `json:"image"`
}

type leanCondition struct {
	Type               string                 `json:"type"`
	Status             metav1.ConditionStatus `json:"status"`
	LastTransitionTime metav1.Time            `json:"lastTransitionTime"`
	Reason             string                 `json:"reason"`
	Message            string                 `json:"message"`
}

type leanComponentStatus struct {
	FailedInstances   []string `json:"failedInstances"`
	CreatingInstances []string `json:"creatingInstances"`
	RunningInstances  []string `json:"runningInstances"`
	Nodes             *struct {
		UnhealthyTablets *int32   `json:"unhealthyTablets"`
		Versions         []string `json:"versions"`
	} `json:"nodes"`
}

// present is a JSON value whose presence alone is kept: a *present is
// non-nil when the field is there and not null, as the full type's pointer.
type present struct{}

func (*present) UnmarshalJSON([]byte) error { return nil }

// decodePage decodes a page of the list into clusters that carry only
// what status's line reads (the lean types above). It overwrites raw.
func decodePage(raw []byte) (*srv1.StarRocksClusterList, error) {
	var page leanPage
	if err := json.Unmarshal(withoutManagedFields(raw), &page); err != nil {
		return nil, err
	}
	out := &srv1.StarRocksClusterList{ListMeta: page.ListMeta, Items: make([]srv1.StarRocksCluster, len(page.Items))}
	for i := range page.Items {
		page.Items[i].into(&out.Items[i])
	}
	return out, nil
}

// into fills dst with what l holds.
func (l *leanCluster) into(dst *srv1.StarRocksCluster) {
	m, sp, st := &l.Metadata, &l.Spec, &l.Status
	dst.Name, dst.Namespace, dst.Generation, dst.CreationTimestamp, dst.Annotations = m.Name, m.Namespace, m.Generation, m.CreationTimestamp, m.Annotations
	if sp.FE != nil {
		dst.Spec.StarRocksFeSpec = &srv1.StarRocksFeSpec{StarRocksComponentSpec: sp.FE.full()}
	}
	if sp.BE != nil {
		dst.Spec.StarRocksBeSpec = &srv1.StarRocksBeSpec{StarRocksComponentSpec: sp.BE.full()}
	}
	if sp.CN != nil {
		dst.Spec.StarRocksCnSpec = &srv1.StarRocksCnSpec{StarRocksComponentSpec: sp.CN.full()}
		if sp.CN.AutoScalingPolicy != nil {
			dst.Spec.StarRocksCnSpec.AutoScalingPolicy = &srv1.AutoScalingPolicy{}
		}
	}
	out := &dst.Status
	out.ObservedGeneration, out.Phase, out.Reason = st.ObservedGeneration, st.Phase, st.Reason
	if st.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(st.Conditions))
		for i, c := range st.Conditions {
			out.Conditions[i] = metav1.Condition{Type: c.Type, Status: c.Status, LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message}
		}
	}
	out.StarRocksFeStatus = st.FE.full()
	out.StarRocksBeStatus = st.BE.full()
	if st.CN != nil {
		out.StarRocksCnStatus = &srv1.StarRocksCnStatus{Replicas: st.CN.Replicas}
		if cs := st.CN.full(); cs != nil {
			out.StarRocksCnStatus.StarRocksComponentStatus = *cs
		}
	}
	if dr := st.DisasterRecovery; dr != nil {
		out.DisasterRecoveryStatus = &srv1.DisasterRecoveryStatus{Phase: dr.Phase, Reason: dr.Reason, StartTimestamp: dr.StartTimestamp}
	}
}

func (s *leanComponentSpec) full() srv1.StarRocksComponentSpec {
	return srv1.StarRocksComponentSpec{StarRocksLoadSpec: srv1.StarRocksLoadSpec{Replicas: s.Replicas, Image: s.Image}}
}

func (s *leanComponentStatus) full() *srv1.StarRocksComponentStatus {
	if s == nil {
		return nil
	}
	out := &srv1.StarRocksComponentStatus{FailedInstances: s.FailedInstances, CreatingInstances: s.CreatingInstances, RunningInstances: s.RunningInstances}
	if s.Nodes != nil {
		out.Nodes = &srv1.StarRocksNodesStatus{UnhealthyTablets: s.Nodes.UnhealthyTablets, Versions: s.Nodes.Versions}
	}
	return out
}

// managedFieldsKey starts an object's managedFields in the API server's
// compact JSON.
var managedFieldsKey = []byte(`"managedFields":`)

// withoutManagedFields cuts each object's "managedFields" (half of a
// cluster's bytes; no view reads them) out of raw, in place, and returns
// what is left: encoding/json steps over a field it does not keep, but
// still scans it twice, byte by byte (once to check the page, once to
// skip it). raw is returned as it is when a cut is not plain: a value
// other than a list, or white space around the key.
//
// A match preceded by "," or "{" is an object key: inside a string the
// unescaped quote that follows would end the string and leave invalid
// JSON, which the API server does not send.
func withoutManagedFields(raw []byte) []byte {
	w, last := 0, 0 // raw[:w] is kept; raw[last:] not yet looked at
	for i := 0; ; {
		j := bytes.Index(raw[i:], managedFieldsKey)
		if j < 0 {
			break
		}
		start := i + j
		end, ok := skipList(raw, start+len(managedFieldsKey))
		if !ok || start == 0 {
			break
		}
		var cutFrom, cutTo int
		switch {
		case raw[start-1] == ',':
			cutFrom, cutTo = start-1, end
		case raw[start-1] == '{' && end < len(raw) && raw[end] == ',':
			cutFrom, cutTo = start, end+1
		default:
			i = end
			continue
		}
		w += copy(raw[w:], raw[last:cutFrom])
		last, i = cutTo, end
	}
	w += copy(raw[w:], raw[last:])
	return raw[:w]
}

// skipList is the index after the JSON list that starts at raw[i], its
// strings' escapes honoured; false when raw[i] starts no list or the
// list does not end.
func skipList(raw []byte, i int) (int, bool) {
	if i >= len(raw) || raw[i] != '[' {
		return 0, false
	}
	depth := 0
	for ; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}
