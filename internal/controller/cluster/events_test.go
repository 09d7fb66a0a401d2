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

package cluster

import (
	"errors"
	"testing"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/reconcile"
)

func TestUpstreamEventReasons(t *testing.T) {
	src := feCluster()
	tests := []struct {
		err  error
		want string
	}{
		{&reconcile.UserError{Reason: srv1.ReasonFeSpecMissing, Message: "spec.starRocksFeSpec is required"}, "SyncFeFailed"},
		{&reconcile.UserError{Reason: srv1.ReasonConfigKeyNotFound, Message: `spec.starRocksCnSpec.configMapInfo.resolveKey: ConfigMap "x" has no key "cn.conf"`}, "SyncCnFailed"},
		{errors.New("applying StatefulSet sr-be: admission webhook said no"), "SyncBeFailed"},
		{errors.New("applying Deployment sr-fe-proxy: forbidden"), "SyncFeProxyFailed"},
		{errors.New("applying Service sr-fe-service: forbidden"), "SyncFeFailed"},
		{errors.New("writing status: conflict"), ""},
	}
	for _, tt := range tests {
		if got := upstreamReason(src, tt.err); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.err, got, tt.want)
		}
	}
}

// Each cluster has a ready gauge for the "not ready for 15 minutes" alert,
// and loses it when the cluster goes.
