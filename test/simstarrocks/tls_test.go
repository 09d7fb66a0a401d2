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

package simstarrocks_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/test/simstarrocks"
)

// feKind is how an FE is set up for SSL.
type feKind struct {
	name string
	// keystore: ssl_keystore_location is set (FE offers SSL); force:
	// ssl_force_secure_transport = true.
	keystore, force bool
}

var feKinds = []feKind{
	{name: "requires TLS", keystore: true, force: true},
	{name: "offers TLS", keystore: true},
	{name: "no TLS"},
	// ssl_force_secure_transport without a keystore: FE refuses plaintext
	// and has no TLS to offer. Nothing connects; each mode must say why.
	{name: "requires TLS, no keystore", force: true},
}

// outcome is what one connection came to: "TLS" or "plaintext" when it
// logged in and read FE, else the condition reason the operator reports.
func outcome(t *testing.T, s *simstarrocks.StarRocks, tls fe.TLS) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tlsBefore, plainBefore := s.LoginsByTransport()
	c := &fe.Client{Address: s.QueryAddress(), TLS: tls, Attempts: 1}
	rows, err := c.ShowFrontends(ctx)
	switch {
	case fe.InsecureTransportRefused(err):
		return "FEInsecureTransport"
	case fe.TLSFailed(err):
		return "FETLSFailed"
	case err != nil:
		return "error: " + err.Error()
	case len(rows) != 1:
		return fmt.Sprintf("read %d frontends, want 1", len(rows))
	}
	tlsAfter, plainAfter := s.LoginsByTransport()
	switch {
	case tlsAfter == tlsBefore+1 && plainAfter == plainBefore:
		return "TLS"
	case plainAfter == plainBefore+1 && tlsAfter == tlsBefore:
		return "plaintext"
	}
	return fmt.Sprintf("logins over TLS %d->%d, plaintext %d->%d", tlsBefore, tlsAfter, plainBefore, plainAfter)
}

// Every SSL mode against every kind of FE, through the operator's own
// client: each valid combination logs in and reads FE, over the transport
// the mode promises; each invalid one fails with the reason the status
// names, never a silent fall-back. The FE's certificate names the address
// the client dials (127.0.0.1), signed by the CA given to the verifying modes.
func TestSSLModesAgainstEachKindOfFE(t *testing.T) {
	ca := simstarrocks.NewCA(t)
	want := map[fe.SSLMode][]string{ // by feKinds
		fe.SSLDisabled:       {"FEInsecureTransport", "plaintext", "plaintext", "FEInsecureTransport"},
		fe.SSLPreferred:      {"TLS", "TLS", "plaintext", "FEInsecureTransport"},
		fe.SSLRequired:       {"TLS", "TLS", "FETLSFailed", "FETLSFailed"},
		fe.SSLVerifyCA:       {"TLS", "TLS", "FETLSFailed", "FETLSFailed"},
		fe.SSLVerifyIdentity: {"TLS", "TLS", "FETLSFailed", "FETLSFailed"},
	}
	sims := make([]*simstarrocks.StarRocks, len(feKinds))
	for i, k := range feKinds {
		opts := simstarrocks.Options{ForceSecureTransport: k.force}
		if k.keystore {
			opts.TLS = ca.ServerTLS(t, "127.0.0.1")
		}
		sims[i] = simstarrocks.Start(t, opts)
		sims[i].BootstrapFrontend("fe-0", 9010)
	}
	table := []string{"| mode | " + strings.Join(kindNames(), " | ") + " |", "|---" + strings.Repeat("|---", len(feKinds)) + "|"}
	for _, mode := range fe.SSLModes {
		row := []string{string(mode)}
		for i, k := range feKinds {
			got := outcome(t, sims[i], fe.TLS{Mode: mode, RootCAs: ca.Pool()})
			if got != want[mode][i] {
				t.Errorf("%s against an FE that %s: %s, want %s", mode, k.name, got, want[mode][i])
			}
			row = append(row, got)
		}
		table = append(table, "| "+strings.Join(row, " | ")+" |")
	}
	t.Log("mode x FE kind:\n" + strings.Join(table, "\n"))
}

func kindNames() []string {
	out := make([]string, len(feKinds))
	for i, k := range feKinds {
		out[i] = "FE " + k.name
	}
	return out
}

// The verifying modes check what they say, with control cases: a
// certificate from another CA fails both; one that does not name the host
// dialled passes VERIFY_CA (the chain alone) and fails VERIFY_IDENTITY; a
// verifying mode without a CA bundle connects nowhere.
func TestVerifyingModesCheckChainAndName(t *testing.T) {
	ca, other := simstarrocks.NewCA(t), simstarrocks.NewCA(t)
	cases := []struct {
		name  string
		cert  func() *simstarrocks.StarRocks
		roots bool
		want  map[fe.SSLMode]string
	}{{
		name: "certificate of another CA",
		cert: func() *simstarrocks.StarRocks {
			return simstarrocks.Start(t, simstarrocks.Options{TLS: other.ServerTLS(t, "127.0.0.1")})
		},
		roots: true,
		want:  map[fe.SSLMode]string{fe.SSLRequired: "TLS", fe.SSLVerifyCA: "FETLSFailed", fe.SSLVerifyIdentity: "FETLSFailed"},
	}, {
		name: "certificate for another name",
		cert: func() *simstarrocks.StarRocks {
			return simstarrocks.Start(t, simstarrocks.Options{TLS: ca.ServerTLS(t, "kube-starrocks-fe-service.other")})
		},
		roots: true,
		want:  map[fe.SSLMode]string{fe.SSLRequired: "TLS", fe.SSLVerifyCA: "TLS", fe.SSLVerifyIdentity: "FETLSFailed"},
	}, {
		name: "no CA bundle",
		cert: func() *simstarrocks.StarRocks {
			return simstarrocks.Start(t, simstarrocks.Options{TLS: ca.ServerTLS(t, "127.0.0.1")})
		},
		want: map[fe.SSLMode]string{fe.SSLRequired: "TLS", fe.SSLVerifyCA: "FETLSFailed", fe.SSLVerifyIdentity: "FETLSFailed"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.cert()
			s.BootstrapFrontend("fe-0", 9010)
			for _, mode := range []fe.SSLMode{fe.SSLRequired, fe.SSLVerifyCA, fe.SSLVerifyIdentity} {
				tls := fe.TLS{Mode: mode}
				if tc.roots {
					tls.RootCAs = ca.Pool()
				}
				if got := outcome(t, s, tls); got != tc.want[mode] {
					t.Errorf("%s: %s, want %s", mode, got, tc.want[mode])
				}
			}
		})
	}
}

// A plaintext client of an FE that requires TLS gets FE's own error, with
// FE's number, state and text, before its password is even checked.
func TestForcedSecureTransportRefusesPlaintextWithFEsError(t *testing.T) {
	s := simstarrocks.Start(t, simstarrocks.Options{TLS: simstarrocks.NewCA(t).ServerTLS(t, "127.0.0.1"), ForceSecureTransport: true, Password: "secret"})
	db := connect(t, s, "wrong password", 2*time.Second)
	_, _, err := query(db, "SHOW BACKENDS")
	if err == nil || err.Error() != "Error 5205 (HY000): Connections using insecure transport are prohibited" {
		t.Fatalf("plaintext login: %v, want Error 5205 (HY000): Connections using insecure transport are prohibited", err)
	}
	if tlsN, plainN := s.LoginsByTransport(); tlsN+plainN != 0 {
		t.Errorf("logins: %d over TLS, %d plaintext; want none", tlsN, plainN)
	}
}
