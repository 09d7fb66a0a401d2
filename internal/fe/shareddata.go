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
	"strconv"
	"strings"
)

// SharedData reports whether an fe.conf runs FE in shared-data mode
// (run_mode = shared_data); the last setting in the file wins, as FE reads it.
func SharedData(feConf string) bool {
	mode, _ := ConfValue(feConf, "run_mode")
	return strings.EqualFold(mode, "shared_data")
}

// ConfValue is the last value of key in a .conf's content, a '#' and what
// follows it left out, without surrounding quotes; ok is false when the
// key is not set.
func ConfValue(conf, key string) (value string, ok bool) {
	for line := range strings.SplitSeq(conf, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		k, v, found := strings.Cut(line, "=")
		if found && strings.TrimSpace(k) == key {
			value, ok = strings.Trim(strings.TrimSpace(v), `"'`), true
		}
	}
	return value, ok
}

// Ordinal is the pod ordinal of host when host is the DNS name of a pod of
// the StatefulSet; ok is false otherwise.
func Ordinal(host, statefulSet, headlessService, namespace string) (int, bool) {
	pod, rest, ok := strings.Cut(host, ".")
	if !ok {
		return 0, false
	}
	if rest != headlessService+"."+namespace && !strings.HasPrefix(rest, headlessService+"."+namespace+".") {
		return 0, false
	}
	num, ok := strings.CutPrefix(pod, statefulSet+"-")
	if !ok || num == "" || (len(num) > 1 && num[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
