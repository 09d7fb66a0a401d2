#!/usr/bin/env bash
# Prepends the licence header (hack/boilerplate.go.txt) to every tracked Go
# file that lacks it; make lint (goheader) fails on those that do. A file has
# it when the boilerplate follows its build constraint (if any), so running
# this twice changes nothing. A //go:build line stays first, as gofmt wants.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
header=hack/boilerplate.go.txt
n=$(wc -l < "$header")
for f in $(git ls-files '*.go' | grep -v zz_generated); do
  if head -1 "$f" | grep -q '^//go:build'; then
    # The constraint, the blank line after it, then the header.
    if tail -n +3 "$f" | head -"$n" | cmp -s - "$header"; then continue; fi
    { head -2 "$f"; cat "$header"; echo; tail -n +3 "$f"; } > "$f.tmp"
  else
    if head -"$n" "$f" | cmp -s - "$header"; then continue; fi
    { cat "$header"; echo; cat "$f"; } > "$f.tmp"
  fi
  mv "$f.tmp" "$f"
done
