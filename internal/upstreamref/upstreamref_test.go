package upstreamref

import (
	"strings"
	"testing"
)

func TestFindHonoursTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvVar, dir)
	got, err := Find()
	if err != nil || got != dir {
		t.Fatalf("Find() = %q, %v; want %q", got, err, dir)
	}
}

func TestFindRejectsAMissingDirectory(t *testing.T) {
	t.Setenv(EnvVar, "/nonexistent/reference")
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), EnvVar) {
		t.Fatalf("Find() error = %v; want one naming %s", err, EnvVar)
	}
}
