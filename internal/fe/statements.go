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

package fe

import (
	"context"
	"strings"
)

// Statement is one statement the operator sends FE to change its
// topology: built by a planner (internal/starrocks) as a plain value, and
// sent through the FE door (internal/feaccess), which knows nothing of
// what it says. A new statement is one type here with its Send.
type Statement interface {
	Send(ctx context.Context, c *Client) error
}

// DecommissionBackends drains BEs (host:heartbeat port).
type DecommissionBackends struct{ Backends []string }

// Send sends ALTER SYSTEM DECOMMISSION BACKEND.
func (s DecommissionBackends) Send(ctx context.Context, c *Client) error {
	return c.DecommissionBackends(ctx, s.Backends)
}

// CancelDecommission stops draining BEs. A BE FE no longer has was
// dropped at 0 tablets meanwhile: nothing is left to cancel, and the next
// read shows it missing, to be added again.
type CancelDecommission struct{ Backends []string }

// Send sends CANCEL DECOMMISSION BACKEND; "Backend does not exist" is no error.
func (s CancelDecommission) Send(ctx context.Context, c *Client) error {
	err := c.CancelDecommission(ctx, s.Backends)
	if msg, refused := Refusal(err); refused && strings.HasPrefix(msg, "Backend does not exist") {
		return c.doneAlready()
	}
	return err
}

// AddBackend registers a BE (host:heartbeat port).
type AddBackend struct{ Backend string }

// Send sends ALTER SYSTEM ADD BACKEND.
func (s AddBackend) Send(ctx context.Context, c *Client) error { return c.AddBackend(ctx, s.Backend) }

// DropBackend removes a drained BE (host:heartbeat port).
type DropBackend struct{ Backend string }

// Send sends ALTER SYSTEM DROP BACKEND.
func (s DropBackend) Send(ctx context.Context, c *Client) error { return c.DropBackend(ctx, s.Backend) }

// DropFrontend removes an FE from FE's group.
type DropFrontend struct{ Frontend Frontend }

// Send sends ALTER SYSTEM DROP FOLLOWER or OBSERVER.
func (s DropFrontend) Send(ctx context.Context, c *Client) error {
	return c.DropFrontend(ctx, s.Frontend)
}

// DropComputeNode removes a compute node from FE, from the warehouse FE
// lists it in; one already gone is no error (Client.DropComputeNode).
type DropComputeNode struct{ Node ComputeNode }

// Send sends ALTER SYSTEM DROP COMPUTE NODE.
func (s DropComputeNode) Send(ctx context.Context, c *Client) error {
	return c.DropComputeNode(ctx, s.Node)
}

// DropWarehouse drops a warehouse (FE's name, WarehouseName); one FE has
// not is no error (Client.DropWarehouse).
type DropWarehouse struct{ Name string }

// Send sends DROP WAREHOUSE IF EXISTS.
func (s DropWarehouse) Send(ctx context.Context, c *Client) error {
	return c.DropWarehouse(ctx, s.Name)
}

// SetFrontendConfig sets one FE configuration key, in the memory of every
// alive FE (internal/fe/config.go).
type SetFrontendConfig struct{ Key, Value string }

// Send sends ADMIN SET FRONTEND CONFIG.
func (s SetFrontendConfig) Send(ctx context.Context, c *Client) error {
	return c.exec(ctx, SetFrontendConfigSQL(s.Key, s.Value))
}
