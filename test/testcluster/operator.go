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
