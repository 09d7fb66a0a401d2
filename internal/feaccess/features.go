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
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/status"
)

// featureList is FE's features, for the cluster UID and FE image in key.
type featureList struct {
	key      string
	features []string
}

// HasFeature asks FE's /api/v2/feature once per cluster and FE image. The
// image is the one FE runs, read from its live StatefulSet (the cache) once
// every pod runs that template: during an FE rollout the answer may come
// from an FE of either version, so it is used, not remembered.
func (d Door) HasFeature(ctx context.Context, src *srv1.StarRocksCluster, feConf, feature string) (bool, error) {
	if d.d == nil {
		return false, ErrNoFE
	}
	a := d.d
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
func (d *door) runningImage(ctx context.Context, src *srv1.StarRocksCluster) (key string, settled bool) {
	reader := d.cache
	if reader == nil {
		reader = d.live
	}
	sts := &appsv1.StatefulSet{}
	if reader == nil || reader.Get(ctx, types.NamespacedName{Namespace: src.Namespace, Name: src.FeStatefulSetName()}, sts) != nil ||
		!status.RolledOut(sts) || resources.Image(sts) == "" {
		return "", false
	}
	return string(src.UID) + "/" + resources.Image(sts), true
}
