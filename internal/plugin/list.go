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

package plugin

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// StatusList is what `status -o json|yaml` prints: the lines and their
// summary, for scripts. It is no API object; its apiVersion says so.
type StatusList struct {
	metav1.TypeMeta `json:",inline"`
	Summary         Summary `json:"summary"`
	Items           []Line  `json:"items"`
}

// StatusListAPIVersion and StatusListKind name StatusList in its output.
const (
	StatusListAPIVersion = "kubectl-starrocks.starrocks.com/v1"
	StatusListKind       = "StatusList"
)

// DeepCopyObject makes StatusList a runtime.Object, for cli-runtime's printers.
func (l *StatusList) DeepCopyObject() runtime.Object {
	out := *l
	out.Items = append([]Line(nil), l.Items...)
	return &out
}

// Lines are the status lines of clusters at now, with their backups
// (a nil index: they could not be read), sorted for a person.
func Lines(clusters []srv1.StarRocksCluster, backups BackupIndex, now time.Time) []Line {
	lines := make([]Line, len(clusters))
	for i := range clusters {
		src := &clusters[i]
		lines[i] = StatusLine(src, now)
		lines[i].SetBackups(backups[types.NamespacedName{Namespace: src.Namespace, Name: src.Name}], backups != nil, now)
	}
	Sort(lines)
	return lines
}

// LinesOf are the status lines of rows at now, with their backups (a
// nil index: they could not be read), sorted for a person.
func LinesOf(rows []Row, backups BackupIndex, now time.Time) []Line {
	lines := make([]Line, len(rows))
	for i, r := range rows {
		lines[i] = LineOf(r, now)
		lines[i].SetBackups(backups[types.NamespacedName{Namespace: r.Namespace, Name: r.Name}], backups != nil, now)
	}
	Sort(lines)
	return lines
}

// NewStatusList wraps lines for the printers.
func NewStatusList(lines []Line) *StatusList {
	if lines == nil {
		lines = []Line{}
	}
	return &StatusList{TypeMeta: metav1.TypeMeta{APIVersion: StatusListAPIVersion, Kind: StatusListKind}, Summary: Count(lines), Items: lines}
}
