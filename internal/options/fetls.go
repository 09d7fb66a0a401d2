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

package options

import (
	"flag"
	"fmt"

	"github.com/srscale/starrocks-operator/internal/fe"
)

// bindFETLSFlags registers --fe-ssl-mode and --fe-ca-file.
func (o *Options) bindFETLSFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.FESSLMode, "fe-ssl-mode", o.FESSLMode,
		"TLS of the operator's MySQL connections to FE: DISABLED (plaintext), PREFERRED (TLS when FE offers it, certificate not checked), "+
			"REQUIRED (always TLS, certificate not checked), VERIFY_CA (always TLS, certificate chained to --fe-ca-file), "+
			"VERIFY_IDENTITY (VERIFY_CA, and the certificate names the host dialled). Case does not matter; "+
			"a cluster's annotation starrocks.com/fe-ssl-mode may make it stronger, never weaker.")
	fs.StringVar(&o.FECAFile, "fe-ca-file", o.FECAFile,
		"PEM file of the CA certificates FE's certificate must chain to under VERIFY_CA and VERIFY_IDENTITY.")
}

// FETLS is the transport security of the operator's FE connections: the
// mode and the CA bundle read from --fe-ca-file. Errors name the flag.
func (o Options) FETLS() (fe.TLS, error) {
	mode, err := fe.ParseSSLMode(o.FESSLMode)
	if err != nil {
		return fe.TLS{}, fmt.Errorf("--fe-ssl-mode: %w", err)
	}
	t := fe.TLS{Mode: mode}
	if o.FECAFile == "" {
		if mode.Verifies() {
			return fe.TLS{}, fmt.Errorf("--fe-ssl-mode=%s verifies FE's certificate and needs --fe-ca-file, the CA bundle to verify it with", mode)
		}
		return t, nil
	}
	if t.RootCAs, err = fe.LoadCABundle(o.FECAFile); err != nil {
		return fe.TLS{}, fmt.Errorf("--fe-ca-file: %w", err)
	}
	return t, nil
}

// feTLSWarnings are settings that work but are probably not what was meant,
// or that risk more than an admin may know.
//
// One Secret for every cluster (--fe-credentials-secret=<namespace>/<name>)
// makes one user and password valid on every tenant's FE. The login never
// carries the password (mysql_native_password only, whatever FE asks:
// internal/fe/wire.go), but under a mode weaker than VERIFY_IDENTITY
// whoever sits between the operator and an FE can take the session, run
// statements as that user, and try the scramble offline; under VERIFY_CA
// one tenant's certificate passes for another's FE when one CA signs them
// all. The operator starts all the same, and says so: the upstream's
// default is PREFERRED, and an operator that refused to start would break
// the switch from it. docs/security.md recommends one Secret per cluster.
func (o Options) feTLSWarnings(t fe.TLS) []string {
	var out []string
	if o.FECAFile != "" && !t.Mode.Verifies() {
		out = append(out, fmt.Sprintf("--fe-ca-file has no effect with --fe-ssl-mode=%s; a cluster annotated starrocks.com/fe-ssl-mode=VERIFY_CA or VERIFY_IDENTITY uses it", t.Mode))
	}
	if ref, err := o.FECredentials(); err == nil && ref.Namespace != "" && t.Mode != fe.SSLVerifyIdentity {
		out = append(out, fmt.Sprintf("SECURITY: --fe-credentials-secret=%s is one login for every cluster's FE, and --fe-ssl-mode=%s does not verify "+
			"that the FE reached is the cluster's own (VERIFY_IDENTITY does): whoever can intercept one connection can act on any cluster's FE as that user. "+
			"Use --fe-ssl-mode=VERIFY_IDENTITY, or one Secret per cluster (--fe-credentials-secret=<name> or the starrocks.com/fe-credentials-secret annotation); see docs/security.md",
			o.FECredentialsSecret, t.Mode))
	}
	return out
}
