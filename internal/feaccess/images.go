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

package feaccess

import (
	"context"
	"fmt"
	"strings"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

// Images asks each FE listed for its own image (fe.ReadHAInfo on its
// host and HTTP port as FE lists them, not the Service: the Service's
// answer would not say which FE gave it), keyed by FE name. An FE that
// does not answer is left out, with its error joined into err. Basic
// authentication is sent only when fe.conf sets enable_http_auth, the one
// case FE asks for it (ShowMetaInfoAction.needAuth): the HTTP port is
// plain text.
func (d Door) Images(ctx context.Context, src *srv1.StarRocksCluster, feConf string, frontends []fe.Frontend) (map[string]fe.HAInfo, error) {
	if d.d == nil {
		return nil, ErrNoFE
	}
	var auth fe.Auth
	if v, _ := fe.ConfValue(feConf, "enable_http_auth"); strings.EqualFold(v, "true") {
		user, pw, err := d.d.credentials(ctx, src)
		if err != nil {
			return nil, &credentialsError{err: err}
		}
		auth = fe.Auth{User: user, Password: pw}
	}
	out := map[string]fe.HAInfo{}
	var errs []string
	for _, f := range frontends {
		_, url := d.d.resolve(fe.Target{Namespace: src.Namespace, Service: src.FeServiceName(), Host: f.Host, HTTPPort: int32(f.HTTPPort)})
		info, err := fe.ReadHAInfo(ctx, d.d.http, url, auth)
		if err != nil {
			errs = append(errs, fmt.Sprintf("FE %s (%s): %v", f.Name, url, err))
			continue
		}
		out[f.Name] = info
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return out, nil
}
