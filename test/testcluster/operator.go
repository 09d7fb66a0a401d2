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

package testcluster

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// BuildOperator builds ./cmd/starrocks-operator of the checkout at root into
// dir and returns the binary's path, for tests, the benchmark and the demo that
// run the operator as users do. Go's build cache makes a rebuild fast.
func BuildOperator(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "starrocks-operator")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/starrocks-operator")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the operator (go build ./cmd/starrocks-operator): %w\n%s", err, out)
	}
	return bin, nil
}
