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

// Command chartpkg packages Helm charts into .tgz archives with Helm's Go SDK,
// as `helm package` does (make release).
package main

import (
	"flag"
	"fmt"
	"os"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
)

func main() {
	out := flag.String("out", "dist/charts", "directory for the packaged charts")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: chartpkg -out DIR CHART_DIR...")
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "chartpkg:", err)
		os.Exit(1)
	}
	for _, dir := range flag.Args() {
		ch, err := loader.LoadDir(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "chartpkg: loading %s: %v\n", dir, err)
			os.Exit(1)
		}
		if err := ch.Validate(); err != nil {
			fmt.Fprintf(os.Stderr, "chartpkg: %s: %v\n", dir, err)
			os.Exit(1)
		}
		path, err := chartutil.Save(ch, *out)
		if err != nil {
			fmt.Fprintf(os.Stderr, "chartpkg: packaging %s: %v\n", dir, err)
			os.Exit(1)
		}
		fmt.Println(path)
	}
}
