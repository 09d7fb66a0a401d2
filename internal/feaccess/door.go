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

// Package feaccess is the one door to a cluster's FE: who the operator logs
// in as (credentials), over what TLS, at which address; the statements it
// sends (Exec, which marks the cluster's FE view stale itself); the reads of
// what FE says of its nodes and tablets, off the reconcile workers, under
// one read policy (Look, Word, and ComputeNodes for the list a compute-node
// DROP is decided on); each FE's own word on its metadata image (Images);
// the features cache; and what FE's answers mean (Classify). It knows
// nothing of the reconcilers: the executor of StarRocks steps
// (internal/controller/frontend) is what reads and sends through it.
package feaccess

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
)

// Door reaches a cluster's FE through its Service: the MySQL port for
// statements and reads, the HTTP port for the feature list. Nothing here
// runs unless a step that needs FE asks.
//
// The zero Door reaches no FE, as an operator built without one (unit
// tests): Configured is false, it reads nothing (Look and Word return nil),
// Exec sends nothing, and the rest keeps nothing.
type Door struct{ d *door }

type door struct {
	// live reads the Secret holding the FE credentials or MYSQL_PWD, once
	// per use: Secrets are not cached.
	live client.Reader
	// cache reads FE's StatefulSet (the informer cache); nil reads through live.
	cache client.Reader
	// secret is the operator's --fe-credentials-secret; an empty Name logs
	// in as root, an empty Namespace means each cluster's own.
	secret  types.NamespacedName
	resolve fe.Resolver
	http    *http.Client
	// tls is the operator's --fe-ssl-mode and CA bundle.
	tls fe.TLS
	// dnsSuffix is the cluster's DNS domain, of the FE pods' names.
	dnsSuffix string

	mu sync.Mutex
	// features remembers FE's feature list per cluster (by name) and FE
	// image (the key): it changes only with FE's version, so it is asked
	// once, not per reconcile; one entry per cluster, dropped with it.
	features map[types.NamespacedName]featureList
	// views reads what FE says of its nodes and tablets (views.go).
	views *views
	// toldSSL holds, per cluster, the weaker fe-ssl-mode annotation value
	// last told (IgnoredSSLMode).
	toldSSL map[types.NamespacedName]string
}

// Options are the operator's settings of the door.
type Options struct {
	// Resolve locates a cluster's FE; nil is DNS.
	Resolve fe.Resolver
	// TLS is --fe-ssl-mode and --fe-ca-file.
	TLS fe.TLS
	// Credentials is --fe-credentials-secret; empty logs in as root.
	Credentials types.NamespacedName
	// LookEvery is the least time between two reads of one cluster's FE;
	// 0 is DefaultLookEvery.
	LookEvery time.Duration
	// Cache reads FE's StatefulSet for the features cache, and FE's pods
	// (the hosts HTTP reads may go to); nil reads live.
	Cache client.Reader
	// DNSDomainSuffix is the cluster's DNS domain; "" is cluster.local.
	DNSDomainSuffix string
}

// New is the door of an operator whose uncached reads (Secrets) go to live.
func New(live client.Reader, o Options) Door {
	if o.Resolve == nil {
		o.Resolve = fe.DNS
	}
	if o.DNSDomainSuffix == "" {
		o.DNSDomainSuffix = "cluster.local"
	}
	return Door{&door{live: live, cache: o.Cache, secret: o.Credentials, resolve: o.Resolve, tls: o.TLS, dnsSuffix: o.DNSDomainSuffix,
		http: fe.NewHTTPClient(), features: map[types.NamespacedName]featureList{}, views: newViews(o.LookEvery), toldSSL: map[types.NamespacedName]string{}}}
}

// Live reads the API server uncached (the operator's API reader); nil on
// the zero Door or when none was given.
func (d Door) Live() client.Reader {
	if d.d == nil {
		return nil
	}
	return d.d.live
}

// Configured is false for the zero Door: the steps that need FE's word
// (scale-in, CN cleanup) are skipped, as without FE.
func (d Door) Configured() bool { return d.d != nil }

// ErrNoFE is what Exec returns on the zero Door.
var ErrNoFE = errors.New("the operator has no access to FE")

// ErrNotOwnFE is what ExecOn returns, wrapped, for a host that is none of
// the cluster's own FE pods: nothing was asked.
var ErrNotOwnFE = errors.New("none of this cluster's FE pods")

// Exec runs do with a client of src's FE (logged in as the credentials
// say, over the cluster's TLS) and then, when a statement may have changed
// FE (one succeeded, or one got no answer), marks what FE said of src out
// of date: nothing more is decided until FE is read again. A statement FE
// answered with an error (a refusal, a missing privilege), or none sent,
// changed nothing, and the last report stands: the status keeps telling
// why the step waits instead of "reading FE". It is the only way
// statements reach FE.
func (d Door) Exec(ctx context.Context, src *srv1.StarRocksCluster, feConf string, do func(*fe.Client) error) error {
	if d.d == nil {
		return ErrNoFE
	}
	c, err := d.d.client(ctx, src, feConf)
	if err != nil {
		return err
	}
	defer func() {
		if c.MayHaveActed() {
			d.changed(src)
		}
	}()
	return do(c)
}

// ExecOn is Exec on the own address of one FE (its host as FE lists it,
// the cluster's query port), not the Service: a read of what that FE holds
// in its own memory (ADMIN SHOW FRONTEND CONFIG on the leader). FE's list
// is the tenant's word, so, as for Images, only a host that is one of the
// cluster's own FE pods is reached with the operator's credentials.
func (d Door) ExecOn(ctx context.Context, src *srv1.StarRocksCluster, feConf, host string, do func(*fe.Client) error) error {
	if d.d == nil {
		return ErrNoFE
	}
	own, err := d.d.ownFEHosts(ctx, src)
	if err != nil {
		return err
	}
	if !own[host] {
		return fmt.Errorf("FE lists host %q, which is %w; not asked", host, ErrNotOwnFE)
	}
	c, err := d.d.client(ctx, src, feConf)
	if err != nil {
		return err
	}
	query, httpPort := resources.FEServicePorts(src, feConf)
	c.Address, _ = d.d.resolve(fe.Target{Namespace: src.Namespace, Service: src.FeServiceName(), QueryPort: query, HTTPPort: httpPort, Host: host})
	defer func() {
		if c.MayHaveActed() {
			d.changed(src)
		}
	}()
	return do(c)
}

// Changing runs act, a change the operator makes to src's FE topology
// other than by a statement (an FE pod deleted, a scale-in begun), and
// then marks what FE said of src out of date, whatever act returned (an
// act that failed may have done part of its work): nothing more is decided
// on a report read before it. With Exec, it is the only way the door's
// view of a cluster is marked stale.
func (d Door) Changing(src *srv1.StarRocksCluster, act func() error) error {
	defer d.changed(src)
	return act()
}

// changed marks what FE said of src out of date.
func (d Door) changed(src *srv1.StarRocksCluster) {
	if d.d != nil {
		d.d.views.changed(client.ObjectKeyFromObject(src).String())
	}
}

// Forget drops all the door keeps of a cluster that is gone: its feature
// list, FE's last report and its last change.
func (d Door) Forget(cluster types.NamespacedName) {
	if d.d == nil {
		return
	}
	d.d.mu.Lock()
	delete(d.d.features, cluster)
	delete(d.d.toldSSL, cluster)
	d.d.mu.Unlock()
	d.d.views.forget(cluster.String())
}

// Remembers reports whether the door keeps anything of the cluster.
func (d Door) Remembers(cluster types.NamespacedName) bool {
	if d.d == nil {
		return false
	}
	d.d.mu.Lock()
	_, known := d.d.features[cluster]
	d.d.mu.Unlock()
	return known || d.d.views.remembers(cluster.String())
}

// IgnoredSSLMode is the warning for src's fe-ssl-mode annotation when it
// asks for a weaker mode than the operator's (WeakerSSLMode), and whether
// this is the first time the door tells it for that value: the caller
// emits one Warning Event then.
func (d Door) IgnoredSSLMode(src *srv1.StarRocksCluster) (msg string, first bool) {
	if d.d == nil {
		return "", false
	}
	msg = WeakerSSLMode(src, d.d.tls)
	key := client.ObjectKeyFromObject(src)
	d.d.mu.Lock()
	defer d.d.mu.Unlock()
	if msg == "" {
		delete(d.d.toldSSL, key)
		return "", false
	}
	v := string(src.UID) + "/" + src.Annotations[srv1.FESSLModeAnnotation]
	first = d.d.toldSSL[key] != v
	d.d.toldSSL[key] = v
	return msg, first
}

func (d *door) target(src *srv1.StarRocksCluster, feConf string) (string, string) {
	query, httpPort := resources.FEServicePorts(src, feConf)
	return d.resolve(fe.Target{Namespace: src.Namespace, Service: src.FeServiceName(), QueryPort: query, HTTPPort: httpPort})
}

// client returns a client for the cluster's FE, logging in as credentials
// says, over the cluster's TLS.
func (d *door) client(ctx context.Context, src *srv1.StarRocksCluster, feConf string) (*fe.Client, error) {
	tls, err := ClusterTLS(src, d.tls)
	if err != nil {
		return nil, err
	}
	user, pw, err := d.credentials(ctx, src)
	if err != nil {
		return nil, &credentialsError{err: err}
	}
	addr, _ := d.target(src, feConf)
	rows, bytes := answerBounds(src)
	return &fe.Client{Address: addr, User: user, Password: pw, TLS: tls, MaxRows: rows, MaxBytes: bytes}, nil
}
