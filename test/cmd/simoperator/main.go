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

// Command simoperator is the operator for crash tests against a simulated
// StarRocks: the shipped main (internal/operator.Run, the same flags,
// environment and manager), except that it finds each cluster's FE at the
// addresses given in SIMOPERATOR_FE instead of by DNS, which the simulated
// cluster does not serve (the simulated FEs run in the test process). See
// docs/testing.md. Built and run by test/crash.
//
// SIMOPERATOR_BACKUP, when set, is JSON of the backup controllers' test
// settings: {"pollEvery": "1s", "talkEvery": "500ms", "labelFromWallClock":
// true}; the last is a control case's (backup.Safety), never the shipped
// operator's.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/srscale/starrocks-operator/internal/operator"
	"github.com/srscale/starrocks-operator/test/crash/feaddress"
)

// BackupVar names the backup settings' variable.
const BackupVar = "SIMOPERATOR_BACKUP"

type backupSettings struct {
	PollEvery          string `json:"pollEvery"`
	TalkEvery          string `json:"talkEvery"`
	LabelFromWallClock bool   `json:"labelFromWallClock"`
}

func main() {
	addrs, err := feaddress.Parse(os.Getenv(feaddress.Var))
	if err != nil {
		fmt.Fprintf(os.Stderr, "simoperator: %s: %v\n", feaddress.Var, err)
		os.Exit(2)
	}
	w := operator.Wiring{FE: addrs.Resolver()}
	if v := os.Getenv(BackupVar); v != "" {
		var s backupSettings
		if err := json.Unmarshal([]byte(v), &s); err != nil {
			fmt.Fprintf(os.Stderr, "simoperator: %s: %v\n", BackupVar, err)
			os.Exit(2)
		}
		w.Backup.PollEvery, _ = time.ParseDuration(s.PollEvery)
		w.Backup.TalkEvery, _ = time.ParseDuration(s.TalkEvery)
		w.Backup.Safety.LabelFromWallClock = s.LabelFromWallClock
	}
	os.Exit(operator.Run(os.Args[1:], os.Stderr, w))
}
