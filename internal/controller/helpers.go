package controller

import (
	"cmp"
	"iter"
	"maps"
	"sort"
	"strings"
)

// labelsString renders a selector as the scale subresource expects: k=v,k=v, sorted.
func labelsString(m map[string]string) string {
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func mapKeys[K cmp.Ordered, V any](m map[K]V) iter.Seq[K] { return maps.Keys(m) }
