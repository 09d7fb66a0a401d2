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

import (
	"slices"
	"strings"
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

// RemovedBackends is what dropping the BEs of a BE spec removed with the
// user's consent is decided on.
type RemovedBackends struct {
	// Names names the removed StatefulSet's pods as FE lists them.
	Names PodNames
	// Removed is true when the spec has no BE and the user consented to
	// its deletion; Running while its StatefulSet or a pod of it is there.
	Removed, Running bool
	// Word is FE's last report, as the health read brought it; nil when
	// there is none.
	Word *Report
	// Every is how soon FE's report is read again.
	Every time.Duration
}

// DropRemovedBackends drops from FE the shared-data BEs of a removed BE
// spec once its pods are gone. A shared-data BE holds no data of its own
// (its tablets live in object storage), but FE keeps its row, Alive=false,
// for ever: only DROP removes a StarOS worker (facts sheet §14), and
// queries still try it (upstream issue #775). FE is read only when its
// last word lists a BE of the removed StatefulSet. A shared-nothing BE's
// row is left alone: it may hold the only replica of a tablet, and FE
// refuses to drop it unless forced (§6).
func DropRemovedBackends(in RemovedBackends, m struct{}, r Reads) (Step[struct{}], struct{}) {
	if !in.Removed || in.Running || len(in.sharedData(in.Word)) == 0 {
		return Step[struct{}]{}, m
	}
	if !r.Read.Report {
		return Step[struct{}]{Needs: Needs{Report: true}}, m
	}
	gone := in.sharedData(r.Report)
	if len(gone) == 0 {
		return Step[struct{}]{}, m // FE's report since lists none: dropped already
	}
	st := Step[struct{}]{Log: &Log{Message: "dropped from FE the shared-data BEs of a removed BE spec", KeysAndValues: []any{"backends", strings.Join(gone, ", ")}},
		Events: []Event{{Reason: srv1.ReasonBackendsDropped, Action: "DropBackend", Note: "dropped from FE the shared-data BEs of the BE spec removed: " + strings.Join(gone, ", ")}}}
	for _, a := range gone {
		st.Statements = append(st.Statements, fe.DropBackend{Backend: a})
	}
	after := in.Every
	st.Failed = func(err error) (Step[struct{}], struct{}) {
		return Step[struct{}]{After: after, Log: &Log{Message: "could not drop the shared-data BEs of a removed BE spec", KeysAndValues: []any{"backends", strings.Join(gone, ", "), "error", err.Error()}}}, m
	}
	return st, m
}

// sharedData are the addresses of the shared-data BEs rep lists under the
// names of the removed StatefulSet's pods, sorted; none without a report.
func (in RemovedBackends) sharedData(rep *Report) []string {
	if rep == nil || rep.Err != nil {
		return nil
	}
	var out []string
	for _, b := range rep.Backends {
		if _, ok := in.Names.Ordinal(b.Host); ok && b.SharedData {
			out = append(out, b.Address())
		}
	}
	slices.Sort(out)
	return out
}
