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

// Package operator is the operator's main, importable: flags, options, the
// manager and its controllers, and the run until a signal. The shipped
// command (cmd/starrocks-operator) calls Run with the zero Wiring; the
// crash tests' command (test/cmd/simoperator) calls it with the simulated
// StarRocks' resolver, so that both run the same code.
package operator

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/srscale/starrocks-operator/internal/controller"
	"github.com/srscale/starrocks-operator/internal/controller/backup"
	"github.com/srscale/starrocks-operator/internal/crdcheck"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/metrics"
	"github.com/srscale/starrocks-operator/internal/options"
	"github.com/srscale/starrocks-operator/internal/scheme"
)

// Wiring is what a test's main sets apart from the shipped one. The zero
// value is the shipped operator.
type Wiring struct {
	// FE locates a cluster's FE; nil means DNS (fe.DNS), as shipped.
	FE fe.Resolver
	// Backup are the backup controllers' settings; the zero value is
	// shipped. A test's operator shortens their periods, or switches a
	// safety rule off for its control case.
	Backup backup.Config
}

// Run runs the operator with args (the command line without the program
// name) until SIGTERM or SIGINT, logging to stderr, and returns the process
// exit code: 0 after a clean stop, 1 when the operator fails, 2 for bad flags.
func Run(args []string, stderr io.Writer, w Wiring) int {
	fs := flag.NewFlagSet("starrocks-operator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opts := options.Default()
	opts.BindFlags(fs)
	zapOpts := zap.Options{}
	zapOpts.BindFlags(fs)
	config.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	opts.ReadEnv(os.Getenv)
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "starrocks-operator: unexpected arguments %q\n", fs.Args())
		return 2
	}
	warnings, err := opts.Validate()
	if err != nil {
		fmt.Fprintf(stderr, "starrocks-operator: invalid flags:\n%v\n", err)
		return 2
	}
	feTLS, err := opts.FETLS()
	if err != nil {
		fmt.Fprintf(stderr, "starrocks-operator: invalid flags:\n%v\n", err)
		return 2
	}

	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts), zap.WriteTo(stderr)))
	log := ctrl.Log.WithName("setup")
	for _, w := range warnings {
		log.Info("warning: " + w)
	}
	opts.Log(log)
	feCredentials, _ := opts.FECredentials() // checked by Validate

	cfg, err := ctrl.GetConfig()
	if err != nil {
		log.Error(err, "loading the Kubernetes client configuration")
		return 1
	}
	opts.ApplyToRESTConfig(cfg)
	metrics.InstrumentConfig(cfg)
	mgrOpts := opts.ManagerOptions(scheme.New())
	if err := options.UseConnections(&mgrOpts, cfg); err != nil {
		log.Error(err, "building the Kubernetes client")
		return 1
	}
	controller.ScopeCache(&mgrOpts.Cache)
	mgr, err := ctrl.NewManager(cfg, mgrOpts)
	if err != nil {
		log.Error(err, "creating the manager")
		return 1
	}
	if err := controller.SetupWithManager(mgr, controller.Config{
		Controller:    opts.ControllerOptions(),
		DenyList:      opts.DenyList,
		Namespace:     opts.Namespace,
		Build:         opts.BuildOptions(),
		SyncPeriod:    opts.SyncPeriod,
		FETLS:         feTLS,
		FECredentials: feCredentials,
		FE:            w.FE,
		EnableBackup:  opts.EnableBackup,
		Backup:        w.Backup,
	}); err != nil {
		log.Error(err, "setting up the StarRocksCluster controller")
		return 1
	}
	// Helm never upgrades CRDs: say at start when the installed ones are older.
	if err := mgr.Add(crdcheck.Runnable{Reader: mgr.GetAPIReader(), Log: ctrl.Log.WithName("crdcheck")}); err != nil {
		log.Error(err, "adding the CRD check")
		return 1
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		log.Error(err, "adding the health check")
		return 1
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		log.Error(err, "adding the readiness check")
		return 1
	}
	log.Info("starting manager")
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		log.Error(err, "running the manager")
		return 1
	}
	log.Info("stopped")
	return 0
}
