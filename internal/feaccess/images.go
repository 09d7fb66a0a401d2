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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// Images asks each FE listed for its own image (fe.ReadHAInfo on its host
// as FE lists it, not the Service: the Service's answer would not say
// which FE gave it), keyed by FE name. An FE that does not answer is left
// out, with its error joined into err.
//
// FE's list is the tenant's word: a forged row could name another
// tenant's pod or a host outside the cluster. So only a host that is one
// of this cluster's own FE pods is asked (ownFEHosts: its IP, or its name
// under the FE search Service), at the HTTP port of the cluster's
// fe.conf; any other row is left out, named in err. HTTP basic
// authentication, the operator's FE user and password, is sent only when
// fe.conf sets enable_http_auth, the one case FE asks for it
// (ShowMetaInfoAction.needAuth), and only when the cluster's SSL mode does
// not ask for TLS: FE's HTTP port is plain text, and a mode that keeps the
// password off plaintext MySQL keeps it off plaintext HTTP too.
func (d Door) Images(ctx context.Context, src *srv1.StarRocksCluster, feConf string, frontends []fe.Frontend) (map[string]fe.HAInfo, error) {
	if d.d == nil {
		return nil, ErrNoFE
	}
	tls, err := ClusterTLS(src, d.d.tls)
	if err != nil {
		return nil, err
	}
	var auth fe.Auth
	var errs []string
	if v, _ := fe.ConfValue(feConf, "enable_http_auth"); strings.EqualFold(v, "true") {
		if tls.Mode.NeedsTLS() {
			errs = append(errs, fmt.Sprintf("fe.conf sets enable_http_auth, and the SSL mode %s asks for TLS: "+
				"FE's HTTP port is plain text, so the operator sends no credentials to it", tls.Mode))
		} else {
			user, pw, err := d.d.credentials(ctx, src)
			if err != nil {
				return nil, &credentialsError{err: err}
			}
			auth = fe.Auth{User: user, Password: pw}
		}
	}
	own, err := d.d.ownFEHosts(ctx, src)
	if err != nil {
		return nil, err
	}
	_, httpPort := resources.FEServicePorts(src, feConf)
	out := map[string]fe.HAInfo{}
	for _, f := range frontends {
		if !own[f.Host] {
			errs = append(errs, fmt.Sprintf("FE %s: FE lists host %q, which is none of this cluster's FE pods; not asked", f.Name, f.Host))
			continue
		}
		_, url := d.d.resolve(fe.Target{Namespace: src.Namespace, Service: src.FeServiceName(), Host: f.Host, HTTPPort: httpPort})
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

// ownFEHosts are the hosts FE may list for src's own FE pods: each pod's
// IPs, and its DNS names under the FE search Service
// (<pod>.<cluster>-fe-search.<namespace>[.svc[.<suffix>]]). A pod is the
// cluster's when it is in its namespace, carries its FE selector labels and
// is controlled by its FE StatefulSet.
func (d *door) ownFEHosts(ctx context.Context, src *srv1.StarRocksCluster) (map[string]bool, error) {
	reader := d.cache
	if reader == nil {
		reader = d.live
	}
	var pods corev1.PodList
	if err := reader.List(ctx, &pods, client.InNamespace(src.Namespace), client.MatchingLabels(resources.SelectorLabels(src, resources.ComponentFE))); err != nil {
		return nil, fmt.Errorf("listing the cluster's FE pods: %w", err)
	}
	own := map[string]bool{}
	search := src.FeSearchServiceName()
	for i := range pods.Items {
		p := &pods.Items[i]
		if ref := metav1.GetControllerOf(p); ref == nil || ref.Kind != "StatefulSet" || ref.Name != src.FeStatefulSetName() {
			continue
		}
		if p.Status.PodIP != "" {
			own[p.Status.PodIP] = true
		}
		for _, ip := range p.Status.PodIPs {
			own[ip.IP] = true
		}
		name := p.Name + "." + search + "." + src.Namespace
		own[name], own[name+".svc"], own[name+".svc."+d.dnsSuffix] = true, true, true
	}
	return own, nil
}
