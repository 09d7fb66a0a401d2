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

package faulttable

import (
	"strings"
	"testing"
	"time"
)

func TestTheSectionReplacesItselfAndListsWhatNoTestCovers(t *testing.T) {
	rows := []Row{{Fault: Wanted[2], Injected: "i", Converged: "c", Lost: "0", Control: "10", Test: "TestX/y"}}
	sec := Section(rows, time.Unix(0, 0), "0.1 0.2 0.3")
	if !strings.Contains(sec, "| "+Wanted[2]+" | i | c | 0 | 10 | `TestX/y` |") {
		t.Errorf("the measured row is missing:\n%s", sec)
	}
	if !strings.Contains(sec, "| "+Wanted[0]+" | not tested yet |") {
		t.Errorf("a wanted fault no test recorded is not listed as untested:\n%s", sec)
	}
	doc := "# R\n\n| Fault |\n\n## Reproduce\n\nx\n\n## Fuzzing\n\n<!-- Not generated: by hand -->\n"
	once := Replace(doc, sec)
	if !strings.Contains(once, "x\n\n"+Heading) || !strings.HasSuffix(once, "## Fuzzing\n\n<!-- Not generated: by hand -->\n") {
		t.Errorf("first render not placed before Fuzzing:\n%s", once)
	}
	twice := Replace(once, Section(nil, time.Unix(0, 0), "0"))
	if strings.Count(twice, Heading) != 1 || strings.Contains(twice, "`TestX/y`") || !strings.HasSuffix(twice, "<!-- Not generated: by hand -->\n") {
		t.Errorf("second render did not replace the first:\n%s", twice)
	}
}
