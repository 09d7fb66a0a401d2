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

// Package crdcheck tells, at start-up, whether the installed CRDs hold the
// status fields this operator writes.
//
// Helm installs a chart's crds/ on the first install only and never upgrades
// them. After `helm upgrade` from the upstream kube-starrocks chart the cluster
// still serves the upstream CRDs, whose status has no conditions and no
// observedGeneration: the API server prunes both from every status this
// operator writes, silently. The operator keeps reconciling (specs are
// compatible), but says so once per start, in the log and in a metric, with
// the command that fixes it.
package crdcheck

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Version is the served version of the StarRocks CRDs.
const Version = "v1"

// FixCommand is what a user runs to install the CRDs this operator needs.
const FixCommand = "kubectl apply --server-side --force-conflicts -f charts/operator/crds/"

// Required are, per CRD, the status fields the operator writes that the
// upstream CRDs (or this operator's older ones) lack; a dotted field is
// nested ("starRocksFeStatus.nodes").
var Required = map[string][]string{
	"starrocksclusters.starrocks.com":   {"conditions", "observedGeneration", "starRocksFeStatus.nodes"},
	"starrockswarehouses.starrocks.com": {"conditions", "observedGeneration"},
}

// Outdated is 1 for each CRD whose installed schema lacks a status field the
// operator writes, 0 once it has them all.
var Outdated = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: "starrocks_operator_crd_outdated",
	Help: "1 when the installed CRD lacks status fields this operator writes (they are pruned): " + FixCommand,
}, []string{"crd"})

func init() {
	crmetrics.Registry.MustRegister(Outdated)
}

var crdGVK = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}

// MissingStatusFields returns the fields of want that version's status schema
// of crd does not declare. A version that is not served, or has no schema,
// misses every field.
func MissingStatusFields(crd *unstructured.Unstructured, version string, want []string) []string {
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	var status map[string]any
	for _, v := range versions {
		m, _ := v.(map[string]any)
		if m["name"] != version {
			continue
		}
		status, _, _ = unstructured.NestedMap(m, "schema", "openAPIV3Schema", "properties", "status", "properties")
	}
	var missing []string
	for _, f := range want {
		if !declares(status, strings.Split(f, ".")) {
			missing = append(missing, f)
		}
	}
	return missing
}

// declares reports whether the properties props declare the field path.
func declares(props map[string]any, path []string) bool {
	prop, ok := props[path[0]].(map[string]any)
	if !ok {
		return false
	}
	if len(path) == 1 {
		return true
	}
	nested, _, _ := unstructured.NestedMap(prop, "properties")
	return declares(nested, path[1:])
}

// Finding is a CRD that lacks status fields.
type Finding struct {
	CRD     string
	Missing []string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s lacks status.%s", f.CRD, strings.Join(f.Missing, ", status."))
}

// Check reads each CRD of Required and returns those that lack fields. A CRD
// that cannot be read is an error (the caller decides what to say).
func Check(ctx context.Context, r client.Reader) ([]Finding, error) {
	var findings []Finding
	for _, name := range slices.Sorted(maps.Keys(Required)) {
		crd := &unstructured.Unstructured{}
		crd.SetGroupVersionKind(crdGVK)
		if err := r.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return findings, fmt.Errorf("reading CustomResourceDefinition %s: %w", name, err)
		}
		missing := MissingStatusFields(crd, Version, Required[name])
		if len(missing) > 0 {
			findings = append(findings, Finding{CRD: name, Missing: missing})
			Outdated.WithLabelValues(name).Set(1)
		} else {
			Outdated.WithLabelValues(name).Set(0)
		}
	}
	return findings, nil
}

// Runnable runs Check once when the manager starts and logs the outcome. It
// never stops the operator: an outdated CRD loses status fields, not clusters.
type Runnable struct {
	Reader client.Reader
	Log    logr.Logger
}

// Start implements manager.Runnable.
func (c Runnable) Start(ctx context.Context) error {
	findings, err := Check(ctx, c.Reader)
	switch {
	case apierrors.IsForbidden(err):
		c.Log.Info("cannot read the CRDs to check their status fields (grant get on customresourcedefinitions to check)", "error", err.Error())
	case err != nil:
		c.Log.Error(err, "checking the installed CRDs")
	}
	for _, f := range findings {
		c.Log.Error(nil, "the installed CRD is older than this operator: the API server drops the status fields it lacks, so "+
			"status.conditions and status.observedGeneration stay empty. Helm does not upgrade CRDs: install them with "+FixCommand,
			"crd", f.CRD, "missing", f.Missing)
	}
	if err == nil && len(findings) == 0 {
		c.Log.Info("installed CRDs have every status field this operator writes")
	}
	return nil
}

// NeedLeaderElection implements manager.LeaderElectionRunnable: every replica checks.
func (Runnable) NeedLeaderElection() bool { return false }
