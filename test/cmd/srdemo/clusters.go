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

package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

//go:embed sample.yaml
var sampleYAML []byte

// sampleCluster returns the sample manifest under the given name.
func sampleCluster(ns, name string) (*srv1.StarRocksCluster, error) {
	src := &srv1.StarRocksCluster{}
	if err := yaml.UnmarshalStrict(sampleYAML, src); err != nil {
		return nil, fmt.Errorf("reading the sample cluster: %w", err)
	}
	src.Namespace, src.Name = ns, name
	return src, nil
}

// clusterNames are demo-1..demo-n, in the order they are created and shown.
func clusterNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("demo-%d", i+1)
	}
	return names
}

// applied is a cluster the demo created, and when: its time to ready counts from there.
type applied struct {
	name string
	at   time.Time
}

// applyClusters creates the sample clusters demo-1..demo-n.
func applyClusters(ctx context.Context, c client.Client, ns string, n int) ([]applied, error) {
	var out []applied
	for _, name := range clusterNames(n) {
		src, err := sampleCluster(ns, name)
		if err != nil {
			return nil, err
		}
		at := time.Now()
		if err := c.Create(ctx, src); err != nil {
			return nil, fmt.Errorf("creating StarRocksCluster %s/%s: %w", ns, name, err)
		}
		out = append(out, applied{name, at})
	}
	return out, nil
}

// grantOperator binds the ClusterRole generated from the controller's RBAC markers to the operator's user.
func grantOperator(ctx context.Context, c client.Client, rolePath, user string) error {
	data, err := os.ReadFile(rolePath)
	if err != nil {
		return fmt.Errorf("reading the operator's ClusterRole: %w", err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.Unmarshal(data, role); err != nil {
		return fmt.Errorf("reading the operator's ClusterRole %s: %w", rolePath, err)
	}
	if err := c.Create(ctx, role); err != nil {
		return fmt.Errorf("creating ClusterRole %s: %w", role.Name, err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if err := c.Create(ctx, binding); err != nil {
		return fmt.Errorf("creating ClusterRoleBinding %s: %w", binding.Name, err)
	}
	return nil
}

// createNamespace creates the demo's namespace in the fresh control plane.
func createNamespace(ctx context.Context, c client.Client, ns string) error {
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", ns, err)
	}
	return nil
}
