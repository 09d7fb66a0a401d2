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
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/reconcile"
)

// The status paths of both kinds (reconcile.StatusPath): how each is read,
// and where its status is.

func clusterStatusPath(c client.Client, memos *reconcile.Memos) *reconcile.StatusPath[*srv1.StarRocksCluster, srv1.StarRocksClusterStatus] {
	return reconcile.NewStatusPath(c, reconcile.FieldOwner, "StarRocksCluster", func() *srv1.StarRocksCluster { return &srv1.StarRocksCluster{} },
		func(o *srv1.StarRocksCluster) *srv1.StarRocksClusterStatus { return &o.Status }, memos)
}
