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
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/scheme"
)

func TestFETroubleNamesTheCredentialsFamily(t *testing.T) {
	denied := &fe.StatementError{Statement: "SHOW PROC '/statistic'", Address: "fe:9030",
		Err: &mysql.MySQLError{Number: 5203, Message: "Access denied; you need (at least one of) the OPERATE privilege(s) on SYSTEM for this operation."}}
	cases := []struct {
		name, reason, what string
		err                error
	}{
		{"Secret unreadable", srv1.ReasonFECredentialsMissing, "cannot read its FE credentials", &credentialsError{err: errors.New("not found")}},
		{"wrong password", srv1.ReasonFECredentialsRejected, "refused the operator's login", &fe.StatementError{Statement: "SHOW BACKENDS", Err: &mysql.MySQLError{Number: 1045}}},
		{"missing grant names the statement", srv1.ReasonFEPermissionDenied, "lacks a privilege for SHOW PROC '/statistic'", errors.Join(nil, denied)},
		{"no answer", srv1.ReasonFEUnreachable, "did not answer", errors.New("connection refused")},
		{"another refusal is not the family's", srv1.ReasonFEUnreachable, "did not answer", &mysql.MySQLError{Number: 1064}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := Classify(c.err)
			reason, what := tr.Reason, tr.What
			if reason != c.reason || !strings.Contains(what, c.what) {
				t.Errorf("feTrouble = %s, %q; want %s, ...%s...", reason, what, c.reason, c.what)
			}
		})
	}
}

func TestCredentialsAreChosenInOrder(t *testing.T) {
	secret := func(ns, name string, data map[string]string) *corev1.Secret {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string][]byte{}}
		for k, v := range data {
			s.Data[k] = []byte(v)
		}
		return s
	}
	live := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		secret("ns", "root-pw", map[string]string{"pw": "rootpw"}),
		secret("ns", "per-cluster", map[string]string{"username": "cluster_op", "password": "c"}),
		secret("ns", "fleet", map[string]string{"username": "fleet_op", "password": "f"}),
		secret("ops", "central", map[string]string{"username": "central_op", "password": "o"}),
		secret("ns", "no-user", map[string]string{"password": "x"}),
	).Build()
	cluster := func(annotation string) *srv1.StarRocksCluster {
		c := &srv1.StarRocksCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}
		if annotation != "" {
			c.Annotations = map[string]string{srv1.FECredentialsAnnotation: annotation}
		}
		c.Spec.StarRocksFeSpec = &srv1.StarRocksFeSpec{}
		c.Spec.StarRocksFeSpec.FeEnvVars = []corev1.EnvVar{{Name: "MYSQL_PWD", ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "root-pw"}, Key: "pw"}}}}
		return c
	}
	cases := []struct {
		name, annotation   string
		operator           types.NamespacedName
		wantUser, wantPass string
		wantErr            string
	}{
		{"nothing set: root and MYSQL_PWD, as today", "", types.NamespacedName{}, "root", "rootpw", ""},
		{"the operator's Secret by namespace and name", "", types.NamespacedName{Namespace: "ops", Name: "central"}, "central_op", "o", ""},
		{"the operator's bare name is each cluster's namespace", "", types.NamespacedName{Name: "fleet"}, "fleet_op", "f", ""},
		{"the annotation wins", "per-cluster", types.NamespacedName{Namespace: "ops", Name: "central"}, "cluster_op", "c", ""},
		{"the annotation cannot leave the namespace", "ops/central", types.NamespacedName{}, "", "", "annotation starrocks.com/fe-credentials-secret=\"ops/central\" must name a Secret in the cluster's namespace"},
		{"a missing Secret is named", "gone", types.NamespacedName{}, "", "", "reading the FE credentials Secret ns/gone"},
		{"a missing key is named", "no-user", types.NamespacedName{}, "", "", "has no key \"username\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := New(live, Options{Credentials: c.operator})
			user, pw, err := a.d.credentials(context.Background(), cluster(c.annotation))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || user != c.wantUser || pw != c.wantPass {
				t.Fatalf("credentials = %q, %q, %v; want %q, %q", user, pw, err, c.wantUser, c.wantPass)
			}
		})
	}
}
