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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/reconcile"
)

// mysqlPasswordEnv is the variable holding root's password, as the upstream
// chart sets it and the mysql client in the entrypoint scripts reads it.
const mysqlPasswordEnv = "MYSQL_PWD"

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

// ClusterTLS is the operator's TLS, with the cluster's FESSLModeAnnotation
// in place of its mode when the annotation asks for a stronger one. The
// annotation is the cluster author's, and a tenant must not weaken what
// the operator's admin chose for the operator's own credentials: a weaker
// value is ignored (IgnoredSSLMode says so). A value that is not a mode
// is a reconcile.UserError: the user must fix it before FE is asked
// anything, and retrying does not help.
func ClusterTLS(src *srv1.StarRocksCluster, operator fe.TLS) (fe.TLS, error) {
	mode, ok, err := annotatedSSLMode(src)
	if err != nil || !ok {
		return operator, err
	}
	if mode.Strength() > operator.Mode.Strength() {
		operator.Mode = mode
	}
	return operator, nil
}

func annotatedSSLMode(src *srv1.StarRocksCluster) (fe.SSLMode, bool, error) {
	v, ok := src.Annotations[srv1.FESSLModeAnnotation]
	if !ok {
		return "", false, nil
	}
	mode, err := fe.ParseSSLMode(v)
	if err != nil {
		return "", false, &reconcile.UserError{Reason: srv1.ReasonInvalidFESSLMode,
			Message: fmt.Sprintf("annotation %s: %v; nothing was changed and nothing is sent to FE until it is fixed", srv1.FESSLModeAnnotation, err)}
	}
	return mode, true, nil
}

// WeakerSSLMode is the warning for a cluster whose FESSLModeAnnotation asks
// for a mode weaker than the operator's: "" when it does not.
func WeakerSSLMode(src *srv1.StarRocksCluster, operator fe.TLS) string {
	mode, ok, err := annotatedSSLMode(src)
	op := operator.Mode
	if op == "" {
		op = fe.DefaultSSLMode
	}
	if err != nil || !ok || mode.Strength() >= op.Strength() {
		return ""
	}
	return fmt.Sprintf("annotation %s=%s asks for a weaker TLS than the operator's --fe-ssl-mode=%s; the annotation may only strengthen it, and %s is used",
		srv1.FESSLModeAnnotation, mode, op, op)
}

// credentials chooses who the operator logs in to a cluster's FE as, the
// one place that does: the Secret of the cluster's FECredentialsAnnotation,
// else the operator's --fe-credentials-secret, else root with the password
// the FE pods have in MYSQL_PWD, as the upstream does.
func (d *door) credentials(ctx context.Context, src *srv1.StarRocksCluster) (user, password string, err error) {
	ref, err := credentialsSecret(src, d.secret)
	if err != nil {
		return "", "", err
	}
	if ref.Name == "" {
		password, err = d.password(ctx, src)
		return fe.RootUser, password, err
	}
	var s corev1.Secret
	if err := d.live.Get(ctx, ref, &s); err != nil {
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
	if name, ok := src.Annotations[srv1.FECredentialsAnnotation]; ok {
		if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
			return types.NamespacedName{}, fmt.Errorf("annotation %s=%q must name a Secret in the cluster's namespace: %s",
				srv1.FECredentialsAnnotation, name, strings.Join(msgs, "; "))
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
func (d *door) password(ctx context.Context, src *srv1.StarRocksCluster) (string, error) {
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
			return d.envValue(ctx, src.Namespace, found)
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
func (d *door) envValue(ctx context.Context, namespace string, e *corev1.EnvVar) (string, error) {
	from := e.ValueFrom
	switch {
	case from == nil:
		return e.Value, nil
	case from.SecretKeyRef != nil:
		ref := from.SecretKeyRef
		var s corev1.Secret
		if err := d.live.Get(ctx, types.NamespacedName{Namespace: namespace, Name: ref.Name}, &s); err != nil {
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
		if err := d.live.Get(ctx, types.NamespacedName{Namespace: namespace, Name: ref.Name}, &cm); err != nil {
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
