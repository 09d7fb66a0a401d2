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

package reconcile

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// ConfigMapIndex is the field index of clusters and warehouses by the
// ConfigMaps they read, so that a ConfigMap's change reaches them.
const ConfigMapIndex = "spec.configMapInfo.configMapName"

// ConfigSource reads the ConfigMaps that clusters name in configMapInfo. Those
// belong to users and carry no label of ours, so the operator keeps only their
// metadata in an informer (cheap, cluster-wide) and fetches a ConfigMap's data
// once per resourceVersion: a resync of an unchanged cluster reads nothing.
type ConfigSource struct {
	metadata client.Reader // cache of ConfigMap metadata
	live     client.Reader // the API server

	mu   sync.Mutex
	data map[types.NamespacedName]configEntry
}

type configEntry struct {
	resourceVersion string
	data            map[string]string
}

// NewConfigSource reads ConfigMaps' metadata from metadata (a cache) and
// their data from live (the API server).
func NewConfigSource(metadata, live client.Reader) *ConfigSource {
	return &ConfigSource{metadata: metadata, live: live, data: map[types.NamespacedName]configEntry{}}
}

// Content returns the value of key in the ConfigMap, for the component named in messages.
func (s *ConfigSource) Content(ctx context.Context, namespace, name, key, field string) (string, error) {
	nn := types.NamespacedName{Namespace: namespace, Name: name}
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	if err := s.metadata.Get(ctx, nn, meta); err != nil {
		if apierrors.IsNotFound(err) {
			return "", &UserError{Reason: srv1.ReasonConfigMapNotFound, Message: fmt.Sprintf("%s.configMapName: ConfigMap %q not found in namespace %q", field, name, namespace)}
		}
		return "", err
	}
	s.mu.Lock()
	entry, ok := s.data[nn]
	s.mu.Unlock()
	if !ok || entry.resourceVersion != meta.ResourceVersion {
		var cm corev1.ConfigMap
		if err := s.live.Get(ctx, nn, &cm); err != nil {
			if apierrors.IsNotFound(err) {
				return "", &UserError{Reason: srv1.ReasonConfigMapNotFound, Message: fmt.Sprintf("%s.configMapName: ConfigMap %q not found in namespace %q", field, name, namespace)}
			}
			return "", fmt.Errorf("reading ConfigMap %s: %w", nn, err)
		}
		entry = configEntry{resourceVersion: cm.ResourceVersion, data: cm.Data}
		s.mu.Lock()
		s.data[nn] = entry
		s.mu.Unlock()
	}
	v, ok := entry.data[key]
	if !ok {
		return "", &UserError{Reason: srv1.ReasonConfigKeyNotFound, Message: fmt.Sprintf("%s.resolveKey: ConfigMap %q has no key %q", field, name, key)}
	}
	return v, nil
}

// ForgetUnused drops the data of the ConfigMaps in namespace for which used
// is false: a cluster that named them is gone, and data no one reads would
// otherwise stay for as long as the ConfigMap. A reader that still wants one
// (a warehouse) reads it again once.
func (s *ConfigSource) ForgetUnused(namespace string, used func(name string) bool) {
	s.mu.Lock()
	var names []types.NamespacedName
	for nn := range s.data {
		if nn.Namespace == namespace {
			names = append(names, nn)
		}
	}
	s.mu.Unlock()
	for _, nn := range names {
		if !used(nn.Name) {
			s.Forget(nn)
		}
	}
}

// Forget drops a ConfigMap's data when it is deleted.
func (s *ConfigSource) Forget(nn types.NamespacedName) {
	s.mu.Lock()
	delete(s.data, nn)
	s.mu.Unlock()
}
