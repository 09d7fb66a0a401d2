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
	defer stop()
	assets, err := testcluster.EnsureBinaries(ctx, *simulated, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testbin:", err)
		os.Exit(1)
	}
	fmt.Println(assets.Dir)
}
