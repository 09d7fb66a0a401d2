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

package feaddress

import (
	"strings"
	"testing"

	"github.com/srscale/starrocks-operator/internal/fe"
)

func TestAddressesRoundTripToTheResolver(t *testing.T) {
	in := Addresses{Key("ns", "c-fe-service"): {Query: "127.0.0.1:4000", HTTP: "http://127.0.0.1:4001"}}
	out, err := Parse(in.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resolve := out.Resolver()
	if q, h := resolve(fe.Target{Namespace: "ns", Service: "c-fe-service", QueryPort: 9030, HTTPPort: 8030}); q != "127.0.0.1:4000" || h != "http://127.0.0.1:4001" {
		t.Errorf("a given FE resolves to %s, %s", q, h)
	}
	// Another namespace's cluster of the same name is not given: unreachable, as an unresolvable name.
	if q, h := resolve(fe.Target{Namespace: "other", Service: "c-fe-service"}); q != unreachable || h != "http://"+unreachable {
		t.Errorf("an FE not given resolves to %s, %s, want the unreachable %s", q, h, unreachable)
	}
	if a, err := Parse(""); err != nil || len(a) != 0 {
		t.Errorf("Parse(\"\") = %v, %v; want no FE", a, err)
	}
}

func TestBadAddressesAreRefusedNamingTheValue(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{`not json`, "not a JSON object"},
		{`{"ns/s": {"query": "nohost", "http": "http://127.0.0.1:1"}}`, `ns/s: query address "nohost"`},
		{`{"ns/s": {"query": "127.0.0.1:1", "http": "127.0.0.1:2"}}`, `ns/s: HTTP URL "127.0.0.1:2"`},
	} {
		if _, err := Parse(c.value); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s) = %v, want an error containing %q", c.value, err, c.want)
		}
	}
}
