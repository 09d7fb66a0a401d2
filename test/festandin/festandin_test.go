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

package festandin_test

import (
	"context"
	"slices"
	"testing"

	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/test/festandin"
)

// The operator's FE client against the stand-in, over the real MySQL protocol.
func TestOperatorClientAgainstStandIn(t *testing.T) {
	ctx := context.Background()
	f := festandin.Start(t, festandin.Options{Password: "s3cret", Features: []string{"multi-warehouse"}})
	f.SetComputeNodes(
		festandin.ComputeNode{Host: "c-cn-0.c-cn-search.ns.svc.cluster.local", HeartbeatPort: 9050, Alive: true},
		festandin.ComputeNode{Host: "c-cn-1.c-cn-search.ns.svc.cluster.local", HeartbeatPort: 9050},
	)
	c := &fe.Client{Address: f.QueryAddress(), Password: "s3cret"}

	t.Run("SHOW COMPUTE NODES reads the table", func(t *testing.T) {
		nodes, err := c.ShowComputeNodes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(nodes) != 2 || nodes[0].Host != "c-cn-0.c-cn-search.ns.svc.cluster.local" || nodes[0].HeartbeatPort != 9050 || !nodes[0].Alive || nodes[1].Alive || nodes[0].Warehouse != "default_warehouse" {
			t.Errorf("nodes = %+v", nodes)
		}
	})
	t.Run("DROP COMPUTE NODE removes exactly that node", func(t *testing.T) {
		if err := c.DropComputeNode(ctx, "c-cn-1.c-cn-search.ns.svc.cluster.local", 9050); err != nil {
			t.Fatal(err)
		}
		if got := f.ComputeNodes(); len(got) != 1 || got[0].Host != "c-cn-0.c-cn-search.ns.svc.cluster.local" {
			t.Errorf("table after drop = %+v", got)
		}
		if err := c.DropComputeNode(ctx, "nope", 1); err == nil {
			t.Error("dropping an unknown node succeeded")
		}
	})
	t.Run("DROP WAREHOUSE drops a known one and tolerates a gone one", func(t *testing.T) {
		f.AddWarehouse("wh_1")
		if err := c.DropWarehouse(ctx, "wh_1"); err != nil {
			t.Fatal(err)
		}
		if len(f.Warehouses()) != 0 {
			t.Errorf("warehouses = %v", f.Warehouses())
		}
		if err := c.DropWarehouse(ctx, "wh_1"); err != nil {
			t.Errorf("a second drop is not an error for the operator: %v", err)
		}
	})
	t.Run("every statement was recorded as sent, by root", func(t *testing.T) {
		want := []string{
			"SHOW COMPUTE NODES",
			"ALTER SYSTEM DROP COMPUTE NODE 'c-cn-1.c-cn-search.ns.svc.cluster.local:9050'",
			"ALTER SYSTEM DROP COMPUTE NODE 'nope:1'",
			"DROP WAREHOUSE `wh_1`",
			"DROP WAREHOUSE `wh_1`",
		}
		if got := f.Statements(); !slices.Equal(got, want) {
			t.Errorf("statements = %q\nwant %q", got, want)
		}
		for _, u := range f.Logins() {
			if u != "root" {
				t.Errorf("login as %q", u)
			}
		}
	})
	t.Run("a wrong password is refused and not retried", func(t *testing.T) {
		n := len(f.Statements())
		bad := &fe.Client{Address: f.QueryAddress(), Password: "wrong"}
		if _, err := bad.ShowComputeNodes(ctx); err == nil {
			t.Error("wrong password accepted")
		}
		if len(f.Statements()) != n {
			t.Error("a statement ran without authentication")
		}
	})
	t.Run("the feature API lists multi-warehouse", func(t *testing.T) {
		fs, err := fe.Features(ctx, nil, f.HTTPURL())
		if err != nil || !slices.Contains(fs, fe.FeatureMultiWarehouse) {
			t.Errorf("Features = %v, %v; want %s among them", fs, err, fe.FeatureMultiWarehouse)
		}
	})
	t.Run("a stopped FE refuses, and the client gives up", func(t *testing.T) {
		f.Stop()
		if _, err := (&fe.Client{Address: f.QueryAddress(), Attempts: 2}).ShowComputeNodes(ctx); err == nil {
			t.Error("a stopped FE answered")
		}
	})
}
