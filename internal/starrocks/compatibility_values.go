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
*/package starrocks

// The compatibility pause's values: what it records, sets and restores.

import (
	"fmt"
	"strings"

	"github.com/srscale/starrocks-operator/internal/fe"
)

func recordOf(shown map[string]string) *PauseRecord {
	rec := &PauseRecord{Values: map[string]string{}}
	for _, k := range PauseKeys() {
		if v, ok := shown[k]; ok {
			rec.Values[k] = v
			continue
		}
		rec.Values[k] = documentedRestore[k]
		rec.Assumed = append(rec.Assumed, k)
	}
	return rec
}

// PausedValues are the values the pause sets, by key.
func PausedValues() map[string]string {
	out := map[string]string{}
	for _, kv := range CompatibilityPause {
		out[kv.Key] = kv.Value
	}
	return out
}

func pauseStatements() []fe.Statement {
	out := make([]fe.Statement, len(CompatibilityPause))
	for i, kv := range CompatibilityPause {
		out[i] = fe.SetFrontendConfig{Key: kv.Key, Value: kv.Value}
	}
	return out
}

// restoreValues are the values the restore sets, by key.
func restoreValues(rec *PauseRecord) map[string]string {
	out := map[string]string{}
	for _, st := range restoreStatements(rec) {
		set := st.(fe.SetFrontendConfig)
		out[set.Key] = set.Value
	}
	return out
}

func restoreStatements(rec *PauseRecord) []fe.Statement {
	var out []fe.Statement
	for _, k := range PauseKeys() {
		v, ok := rec.Values[k]
		if !ok {
			v = documentedRestore[k]
		}
		out = append(out, fe.SetFrontendConfig{Key: k, Value: v})
	}
	return out
}

// String lists the recorded values in the pause's key order.
func (r *PauseRecord) String() string {
	if !r.Paused() {
		return "no pause"
	}
	parts := make([]string, 0, len(r.Values))
	for _, k := range PauseKeys() {
		if v, ok := r.Values[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%s", k, v))
		}
	}
	s := strings.Join(parts, ", ")
	if len(r.Assumed) > 0 {
		s += " (not shown by FE, the docs' value: " + strings.Join(r.Assumed, ", ") + ")"
	}
	return s
}
