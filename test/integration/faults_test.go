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

package integration_test

import (
	"encoding/json"
	"os"
	"sync"
	"testing"

	"github.com/srscale/starrocks-operator/test/faulttable"
)

var faultsMu sync.Mutex

// recordFault adds one measured row to docs/reliability.md's StarRocks
// fault table: with STARROCKS_FAULTS set (make starrocks-faults), a test
// that passed appends its row there, as a JSON line; test/cmd/faulttable
// renders them. Without it, nothing is written.
func recordFault(t *testing.T, row faulttable.Row) {
	t.Helper()
	path := os.Getenv("STARROCKS_FAULTS")
	if path == "" || t.Failed() {
		return
	}
	row.Test = t.Name()
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	faultsMu.Lock()
	defer faultsMu.Unlock()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}
