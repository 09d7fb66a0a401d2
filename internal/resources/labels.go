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

package resources

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
)

// Component identifies one part of a cluster.
type Component string

// The components of a StarRocksCluster. (The Component prefix keeps the names
// free for the builders FE, BE, CN and FEProxy.)
const (
	ComponentFE      Component = "fe"
	ComponentBE      Component = "be"
	ComponentCN      Component = "cn"
	ComponentFEProxy Component = "fe-proxy"
)

// Labels and annotations the builders put on the objects they make.
const (
	// ComponentLabel holds the Component (fe, be, cn or fe-proxy).
	ComponentLabel = "app.kubernetes.io/component"
	// OwnerLabel holds <cluster>-<component>, as the upstream operator does; the
	// operator's informer caches select on its existence.
	OwnerLabel = "app.starrocks.ownerreference/name"
	// ClusterLabel holds the cluster's name.
	ClusterLabel = "app.kubernetes.io/instance"
	// ManagedByLabel holds ManagedByValue.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	// NameLabel holds NameValue.
	NameLabel = "app.kubernetes.io/name"

	// ManagedByValue is the value of ManagedByLabel.
	ManagedByValue = "starrocks-operator"
	// NameValue is the value of NameLabel.
	NameValue = "starrocks"

	// ConfigHashAnnotation is set on pod templates to a hash of the component's
	// configuration file, so that a configuration change rolls the pods.
	ConfigHashAnnotation = "starrocks.com/config-hash"
)

// SelectorLabels are the labels a component's StatefulSet or Deployment selects
// its pods by, and its Services select endpoints by. StatefulSet selectors are
// immutable, so this set stays minimal and never changes for a given cluster.
func SelectorLabels(src *srv1.StarRocksCluster, c Component) map[string]string {
	return map[string]string{
		OwnerLabel:     labelValue(src.Name + "-" + string(c)),
		ComponentLabel: string(c),
	}
}

// Labels are the labels of every object of a component: the selector labels
// plus the cluster, managed-by and name labels.
func Labels(src *srv1.StarRocksCluster, c Component) map[string]string {
	l := SelectorLabels(src, c)
	l[ClusterLabel] = labelValue(src.Name)
	l[ManagedByLabel] = ManagedByValue
	l[NameLabel] = NameValue
	return l
}

// mergeLabels returns user's entries overlaid with ours: our labels always win,
// because selectors and cache scoping depend on them.
func mergeLabels(ours, user map[string]string) map[string]string {
	out := make(map[string]string, len(ours)+len(user))
	for k, v := range user {
		out[k] = v
	}
	for k, v := range ours {
		out[k] = v
	}
	return out
}

// copyMap is a copy of m, nil when m is empty.
func copyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// labelValue makes s a valid label value. Names longer than 63 characters (a
// cluster name may have up to 253) are cut and suffixed with a hash of the whole
// name, so that distinct clusters keep distinct labels; shorter names are unchanged.
func labelValue(s string) string {
	if len(validation.IsValidLabelValue(s)) == 0 {
		return s
	}
	return shorten(s, validation.LabelValueMaxLength)
}

// shorten cuts s to at most limit characters, replacing the tail with a short
// hash of s, and trims characters a label or DNS label may not end with.
func shorten(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	h := shortHash(s)[:8]
	head := strings.TrimRight(s[:limit-len(h)-1], "-_.")
	return head + "-" + h
}

// shortHash is the first 16 hex characters of the SHA-256 of s.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:16]
}

// objectMeta is the metadata of a component's object called name.
func objectMeta(src *srv1.StarRocksCluster, c Component, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:            name,
		Namespace:       src.Namespace,
		Labels:          Labels(src, c),
		OwnerReferences: []metav1.OwnerReference{ownerReference(src)},
	}
}

// ownerReference makes the cluster the controller of a child, so that garbage
// collection deletes the child with the cluster and owner watches map it back.
func ownerReference(src *srv1.StarRocksCluster) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion:         srv1.GroupVersion.String(),
		Kind:               "StarRocksCluster",
		Name:               src.Name,
		UID:                src.UID,
		Controller:         ptr.To(true),
		BlockOwnerDeletion: ptr.To(true),
	}
}
