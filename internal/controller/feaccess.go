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

package controller

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
)

// mysqlPasswordEnv is the variable holding root's password, as the upstream
// chart sets it and the mysql client in the entrypoint scripts reads it.
const mysqlPasswordEnv = "MYSQL_PWD"

// FESSLModeAnnotation on a StarRocksCluster overrides --fe-ssl-mode for
// that cluster's FE, for fleets whose FEs differ (some requiring TLS, some
// without it). Its values are --fe-ssl-mode's, in any case; the CA bundle is
// always --fe-ca-file.
const FESSLModeAnnotation = "starrocks.com/fe-ssl-mode"

// feAccess reaches a cluster's FE through its Service: the MySQL port for
// statements, the HTTP port for the feature list. Nothing here runs unless a
// feature that needs FE asks: warehouses, shared-data CN cleanup.
type feAccess struct {
	// live reads the Secret holding the FE credentials or MYSQL_PWD, once
	// per use: Secrets are not cached.
	live client.Reader
	// secret is the operator's --fe-credentials-secret; an empty Name logs
	// in as root, an empty Namespace means each cluster's own.
	secret  types.NamespacedName
	resolve fe.Resolver
	http    *http.Client
	// tls is the operator's --fe-ssl-mode and CA bundle.
	tls fe.TLS

	mu sync.Mutex
	// features remembers FE's feature list per cluster (by name) and FE
	// image (the key): it changes only with FE's version, so it is asked
	// once, not per reconcile; one entry per cluster, dropped with it.
	features map[types.NamespacedName]featureList
	// cache reads FE's StatefulSet (the informer cache); nil reads through live.
	cache client.Reader
	// cleanup drops compute nodes removed by scale-in (cn_cleanup.go).
	cleanup *computeNodeCleanup
	// views reads what FE says of its nodes and tablets (feview.go).
	views *feViews
	// recorder tells what the cleanup dropped, when it ends.
	recorder events.EventRecorder
}

func newFEAccess(live client.Reader, resolve fe.Resolver, tls fe.TLS) *feAccess {
	if resolve == nil {
		resolve = fe.DNS
	}
	return &feAccess{live: live, resolve: resolve, tls: tls, http: &http.Client{Timeout: fe.DefaultHTTPTimeout},
		features: map[types.NamespacedName]featureList{}, cleanup: newComputeNodeCleanup(), views: newFEViews(0)}
}

// featureList is FE's features, for the cluster UID and FE image in key.
type featureList struct {
	key      string
	features []string
}

// forget drops what is known of a cluster that is gone: its features and
// the cleanup state of its CN StatefulSet.
func (a *feAccess) forget(cluster types.NamespacedName) {
	if a == nil {
		return
	}
	a.mu.Lock()
	delete(a.features, cluster)
	a.mu.Unlock()
	gone := &srv1.StarRocksCluster{}
	gone.Namespace, gone.Name = cluster.Namespace, cluster.Name
	a.cleanup.forget(types.NamespacedName{Namespace: cluster.Namespace, Name: gone.CnStatefulSetName()}, cluster.String())
}

func (a *feAccess) target(src *srv1.StarRocksCluster, feConf string) (string, string) {
	query, httpPort := resources.FEServicePorts(src, feConf)
	return a.resolve(fe.Target{Namespace: src.Namespace, Service: src.FeServiceName(), QueryPort: query, HTTPPort: httpPort})
}

// owner is the object a cleanup of sts is told on: the warehouse that owns
// sts, or the cluster.
func (a *feAccess) owner(src *srv1.StarRocksCluster, sts *appsv1.StatefulSet) runtime.Object {
	if ref := metav1.GetControllerOfNoCopy(sts); ref != nil && ref.Kind == "StarRocksWarehouse" {
		wh := &srv1.StarRocksWarehouse{}
		wh.Namespace, wh.Name, wh.UID = sts.Namespace, ref.Name, ref.UID
		wh.SetGroupVersionKind(srv1.GroupVersion.WithKind("StarRocksWarehouse"))
		return wh
	}
	return src
}

// sql returns a client for the cluster's FE, logging in as credentials
// says, over the cluster's TLS.
func (a *feAccess) sql(ctx context.Context, src *srv1.StarRocksCluster, feConf string) (*fe.Client, error) {
	tls, err := clusterTLS(src, a.tls)
	if err != nil {
		return nil, err
	}
	user, pw, err := a.credentials(ctx, src)
	if err != nil {
		return nil, &credentialsError{err: err}
	}
	addr, _ := a.target(src, feConf)
	return &fe.Client{Address: addr, User: user, Password: pw, TLS: tls}, nil
}

// clusterTLS is the operator's TLS with the cluster's FESSLModeAnnotation,
// if any, in place of its mode.
func clusterTLS(src *srv1.StarRocksCluster, operator fe.TLS) (fe.TLS, error) {
	v, ok := src.Annotations[FESSLModeAnnotation]
	if !ok {
		return operator, nil
	}
	mode, err := fe.ParseSSLMode(v)
	if err != nil {
		return fe.TLS{}, &reconcile.UserError{Reason: srv1.ReasonInvalidFESSLMode,
			Message: fmt.Sprintf("annotation %s: %v; nothing was changed and nothing is sent to FE until it is fixed", FESSLModeAnnotation, err)}
	}
	operator.Mode = mode
	return operator, nil
}

// FECredentialsAnnotation on a StarRocksCluster names a Secret in the
// cluster's namespace holding the user (key "username") and password (key
// "password") the operator logs in to FE with; it overrides the operator's
// --fe-credentials-secret for that cluster. An annotation, not a spec field:
// the CRD stays the upstream's (an older CRD, which Helm never upgrades,
// would drop a new field without a word), and, like the other per-cluster
// switches, it is about how the operator works, not about the cluster.
const FECredentialsAnnotation = "starrocks.com/fe-credentials-secret"

// Keys of the credentials Secret: those of a kubernetes.io/basic-auth Secret.
const (
	credentialsUserKey     = "username"
	credentialsPasswordKey = "password"
)

// credentialsError is a login the operator cannot put together: the
// credentials Secret, or root's MYSQL_PWD source, cannot be read.
type credentialsError struct{ err error }

func (e *credentialsError) Error() string { return e.err.Error() }
func (e *credentialsError) Unwrap() error { return e.err }

// +kubebuilder:rbac:groups="",resources=secrets,verbs=get

// credentials chooses who the operator logs in to a cluster's FE as, the
// one place that does: the Secret of the cluster's FECredentialsAnnotation,
// else the operator's --fe-credentials-secret, else root with the password
// the FE pods have in MYSQL_PWD, as the upstream does.
func (a *feAccess) credentials(ctx context.Context, src *srv1.StarRocksCluster) (user, password string, err error) {
	ref, err := credentialsSecret(src, a.secret)
	if err != nil {
		return "", "", err
	}
	if ref.Name == "" {
		password, err = a.password(ctx, src)
		return fe.RootUser, password, err
	}
	var s corev1.Secret
	if err := a.live.Get(ctx, ref, &s); err != nil {
		return "", "", fmt.Errorf("reading the FE credentials Secret %s: %w", ref, err)
	}
	user = string(s.Data[credentialsUserKey])
	if user == "" {
		return "", "", fmt.Errorf("the FE credentials Secret %s has no key %q (or it is empty)", ref, credentialsUserKey)
	}
	pw, ok := s.Data[credentialsPasswordKey]
	if !ok {
		return "", "", fmt.Errorf("the FE credentials Secret %s has no key %q", ref, credentialsPasswordKey)
	}
	return user, string(pw), nil
}

// credentialsSecret is the Secret src's FE is logged in to with: the
// annotation's (always in src's namespace: a cluster's author cannot make
// the operator read another namespace's Secret), else the operator's
// (a bare name is looked up in src's namespace); no name means root.
func credentialsSecret(src *srv1.StarRocksCluster, operator types.NamespacedName) (types.NamespacedName, error) {
	if name, ok := src.Annotations[FECredentialsAnnotation]; ok {
		if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
			return types.NamespacedName{}, fmt.Errorf("annotation %s=%q must name a Secret in the cluster's namespace: %s",
				FECredentialsAnnotation, name, strings.Join(msgs, "; "))
		}
		return types.NamespacedName{Namespace: src.Namespace, Name: name}, nil
	}
	if operator.Name != "" && operator.Namespace == "" {
		operator.Namespace = src.Namespace
	}
	return operator, nil
}

// password is root's password as the upstream operator finds it: MYSQL_PWD
// of the CN container (the upstream reads the CN StatefulSet's env), else of
// FE, else of BE; the init-password chart sets it in all three (facts sheet
// §11, §13). A literal value, a ConfigMap key or a Secret key; none means no
// password.
func (a *feAccess) password(ctx context.Context, src *srv1.StarRocksCluster) (string, error) {
	var envs [][]corev1.EnvVar
	if cn := src.Spec.StarRocksCnSpec; cn != nil {
		envs = append(envs, cn.CnEnvVars)
	}
	if feSpec := src.Spec.StarRocksFeSpec; feSpec != nil {
		envs = append(envs, feSpec.FeEnvVars)
	}
	if be := src.Spec.StarRocksBeSpec; be != nil {
		envs = append(envs, be.BeEnvVars)
	}
	for _, env := range envs {
		if found := lastEnv(env, mysqlPasswordEnv); found != nil {
			return a.envValue(ctx, src.Namespace, found)
		}
	}
	return "", nil
}

// lastEnv is the variable name in env; the last one wins, as in a container.
func lastEnv(env []corev1.EnvVar, name string) *corev1.EnvVar {
	var found *corev1.EnvVar
	for i := range env {
		if env[i].Name == name {
			found = &env[i]
		}
	}
	return found
}

// envValue reads a variable as the kubelet would: its value, or the key of
// the Secret or ConfigMap it names.
func (a *feAccess) envValue(ctx context.Context, namespace string, e *corev1.EnvVar) (string, error) {
	from := e.ValueFrom
	switch {
	case from == nil:
		return e.Value, nil
	case from.SecretKeyRef != nil:
		ref := from.SecretKeyRef
		var s corev1.Secret
		if err := a.live.Get(ctx, types.NamespacedName{Namespace: namespace, Name: ref.Name}, &s); err != nil {
			return "", fmt.Errorf("reading %s from Secret %s/%s: %w", e.Name, namespace, ref.Name, err)
		}
		v, ok := s.Data[ref.Key]
		if !ok {
			return "", fmt.Errorf("reading %s: Secret %s/%s has no key %q", e.Name, namespace, ref.Name, ref.Key)
		}
		return string(v), nil
	case from.ConfigMapKeyRef != nil:
		ref := from.ConfigMapKeyRef
		var cm corev1.ConfigMap
		if err := a.live.Get(ctx, types.NamespacedName{Namespace: namespace, Name: ref.Name}, &cm); err != nil {
			return "", fmt.Errorf("reading %s from ConfigMap %s/%s: %w", e.Name, namespace, ref.Name, err)
		}
		v, ok := cm.Data[ref.Key]
		if !ok {
			return "", fmt.Errorf("reading %s: ConfigMap %s/%s has no key %q", e.Name, namespace, ref.Name, ref.Key)
		}
		return v, nil
	}
	return "", fmt.Errorf("%s comes from neither a value, a Secret key nor a ConfigMap key; the operator cannot read it", e.Name)
}

// hasFeature asks FE's /api/v2/feature once per cluster and FE image. The
// image is the one FE runs, read from its live StatefulSet (the cache) once
// every pod runs that template: during an FE rollout the answer may come
// from an FE of either version, so it is used, not remembered.
func (a *feAccess) hasFeature(ctx context.Context, src *srv1.StarRocksCluster, feConf, feature string) (bool, error) {
	key, settled := a.runningImage(ctx, src)
	nn := types.NamespacedName{Namespace: src.Namespace, Name: src.Name}
	a.mu.Lock()
	entry, known := a.features[nn]
	a.mu.Unlock()
	fs := entry.features
	known = known && entry.key == key
	if !settled || !known {
		_, url := a.target(src, feConf)
		var err error
		if fs, err = fe.Features(ctx, a.http, url); err != nil {
			return false, fmt.Errorf("FE %s of cluster %s: %w", url, src.Name, err)
		}
		if settled {
			a.mu.Lock()
			a.features[nn] = featureList{key: key, features: fs}
			a.mu.Unlock()
		}
	}
	return slices.Contains(fs, feature), nil
}

// runningImage keys the feature list: the cluster and the image every FE
// pod runs; settled is false while FE rolls, or its StatefulSet cannot be read.
func (a *feAccess) runningImage(ctx context.Context, src *srv1.StarRocksCluster) (key string, settled bool) {
	reader := a.cache
	if reader == nil {
		reader = a.live
	}
	sts := &appsv1.StatefulSet{}
	if reader == nil || reader.Get(ctx, types.NamespacedName{Namespace: src.Namespace, Name: src.FeStatefulSetName()}, sts) != nil ||
		!status.RolledOut(sts) || len(sts.Spec.Template.Spec.Containers) == 0 {
		return "", false
	}
	return string(src.UID) + "/" + sts.Spec.Template.Spec.Containers[0].Image, true
}
