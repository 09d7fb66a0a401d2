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

package controller

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/srscale/starrocks-operator/internal/controller/backup"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/reconcile"
)

// setupBackup registers the backup controllers when the operator runs
// with --enable-backup (each only when the API server serves its kind);
// without it, it logs so and registers nothing.
func setupBackup(mgr ctrl.Manager, cfg Config, configs *reconcile.ConfigSource, door feaccess.Door) error {
	if !cfg.EnableBackup {
		mgr.GetLogger().WithName("backup").Info("backup is off (--enable-backup): StarRocksBackupRepository, StarRocksBackup, StarRocksBackupSchedule, StarRocksRestore and spec.clusterSnapshot are not reconciled")
		return nil
	}
	opts := cfg.Controller
	return backup.Setup(mgr, cfg.Backup, opts, configs, door)
}
