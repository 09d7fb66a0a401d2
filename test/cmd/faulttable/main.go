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

// Command faulttable renders the rows the integration tests recorded
// (STARROCKS_FAULTS) into docs/reliability.md's StarRocks faults section.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/srscale/starrocks-operator/test/faulttable"
)

func main() {
	in := flag.String("in", "", "the JSON lines the tests wrote (STARROCKS_FAULTS)")
	doc := flag.String("doc", "", "docs/reliability.md")
	flag.Parse()
	if *in == "" || *doc == "" {
		fmt.Fprintln(os.Stderr, "faulttable: -in and -doc are required")
		os.Exit(2)
	}
	rows, err := faulttable.Read(*in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "faulttable:", err)
		os.Exit(1)
	}
	old, err := os.ReadFile(*doc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "faulttable:", err)
		os.Exit(1)
	}
	load := "unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	// Measured when the tests wrote their last row, not when this renders.
	at := time.Now()
	if st, err := os.Stat(*in); err == nil {
		at = st.ModTime()
	}
	out := faulttable.Replace(string(old), faulttable.Section(rows, at, load))
	if err := os.WriteFile(*doc, []byte(out), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "faulttable:", err)
		os.Exit(1)
	}
	fmt.Printf("faulttable: %d rows into %s\n", len(rows), *doc)
}
