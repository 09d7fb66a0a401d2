#!/usr/bin/env bash
# failed-tests.sh DIR: the tests that failed in go test -json files under DIR,
# each with the first lines its test file printed (file.go:N: ...), so that
# the end of a long CI log names what failed and why.
set -uo pipefail
dir=$1
grep -h '"Action":"fail"' "$dir"/*.json | grep '"Test":' |
	sed -E 's/.*"Package":"([^"]*)","Test":"([^"]*)".*/\1 \2/' | sort -u |
	# a test whose subtest failed is told by the subtest alone
	awk '{ n[NR] = $0 } END { for (i = 1; i <= NR; i++) if (index(n[i+1], n[i] "/") != 1) print n[i] }' |
	while read -r pkg test; do
		echo "FAIL $pkg $test"
		grep -hF "\"Package\":\"$pkg\",\"Test\":\"$test\",\"Output\":" "$dir"/*.json |
			sed -E 's/.*"Output":"(.*)"\}$/\1/; s/\\n$//; s/\\t/\t/g; s/\\"/"/g' |
			grep -E '^ +[A-Za-z0-9_]+\.go:[0-9]+: ' | head -n 3
	done
