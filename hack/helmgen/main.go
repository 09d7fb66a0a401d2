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

// Command helmgen regenerates the Helm chart files that derive from the code:
// the operator chart's CRDs (from config/crd/bases) and RBAC rules (from
// config/rbac/role.yaml), the parent chart's values.yaml (from the subcharts'
// values.yaml, comments kept) and the parent's vendored copies of the subcharts.
//
//	go run ./hack/helmgen          # write
//	go run ./hack/helmgen --check  # exit 1 naming each stale file
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/srscale/starrocks-operator/hack/helmgen/chartgen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("helmgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	check := fs.Bool("check", false, "Change nothing; exit 1 and name each generated file that is stale.")
	root := fs.String("root", "", "Repository root (default: the nearest directory holding go.mod, from the working directory up).")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *root == "" {
		r, err := chartgen.FindRoot(".")
		if err != nil {
			fmt.Fprintf(stderr, "helmgen: %v\n", err)
			return 2
		}
		*root = r
	}
	if *check {
		stale, err := chartgen.Check(*root)
		if err != nil {
			fmt.Fprintf(stderr, "helmgen: %v\n", err)
			return 1
		}
		for _, s := range stale {
			fmt.Fprintf(stderr, "stale: %s\n", s)
		}
		if len(stale) > 0 {
			fmt.Fprintf(stderr, "helmgen: %d generated chart files are stale; run %s\n", len(stale), chartgen.Command)
			return 1
		}
		return 0
	}
	changed, err := chartgen.Generate(*root)
	for _, c := range changed {
		fmt.Fprintf(stdout, "wrote %s\n", c)
	}
	if err != nil {
		fmt.Fprintf(stderr, "helmgen: %v\n", err)
		return 1
	}
	return 0
}
