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

// Command testbin builds (or finds in the cache) the control-plane binaries
// that tests, the benchmark and the demo run, showing progress, and prints the
// directory that holds them.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/srscale/starrocks-operator/test/testcluster"
)

func main() {
	simulated := flag.Bool("simulated", true, "also build kube-controller-manager, kube-scheduler and kwok")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	assets, err := testcluster.EnsureBinaries(ctx, *simulated, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testbin:", err)
		os.Exit(1)
	}
	fmt.Println(assets.Dir)
}
