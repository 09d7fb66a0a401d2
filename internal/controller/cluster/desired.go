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

package cluster

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/apply"
	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/reconcile"
	"github.com/srscale/starrocks-operator/internal/resources"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// The desired state is made in three steps, one way: validate the spec
// alone, gather what else it depends on (the live workloads, the .conf
// files), then build every object from both, without another read.

// clusterInputs is what a cluster's desired state is built from besides its
// spec, read from the cache (and a ConfigMap's data once per change) before
// anything is built.
type clusterInputs struct {
	// live are the StatefulSets of FE, BE and CN as the cache shows them;
	// one that does not exist is absent.
	live map[resources.Component]*appsv1.StatefulSet
	// proxy is the FE proxy's Deployment; nil when absent or not asked for.
	proxy *appsv1.Deployment
	// confs are the .conf files of FE, BE and CN, or why one could not be read.
	confs map[resources.Component]confRead
	// snapshot is why a disaster recovery the spec asks for cannot run (FE
	// has no cluster_snapshot.yaml); nil when it can, or none is asked for.
	snapshot error
	// regrown are the components whose live StatefulSet is the one
	// expandClaims deleted, not made again yet (see regrowing).
	regrown []resources.Component
	// leaving are the regrown components whose deleted StatefulSet the
	// cache still shows: their StatefulSet is made again once it is gone.
	leaving []resources.Component
}

// confRead is a component's .conf file, or why it could not be read.
type confRead struct {
	content string
	err     error
	// fallback is true for a .conf mounted through configMaps[], not
	// configMapInfo (see resources.ConfSource).
	fallback bool
}

// desired is what the spec asks for, built from the spec and the inputs.
type desired struct {
	objects resources.ClusterObjects
	// grow lists, per StatefulSet, the claims that grow (see reconcile.CheckImmutable).
	grow map[resources.Component][]reconcile.ClaimGrowth
	// feConf is fe.conf, for what talks to FE.
	feConf string
	// rollout orders image changes across components (the rollout phase).
	rollout starrocks.Plan
	// notes are what the StarRocks steps say of their progress, in phase
	// order (the pre-flight of the changes that roll with a word, the
	// compatibility pause in force), for Progressing.
	notes []string
	// changes are the pre-flight's verdicts on the image changes still to be
	// written, none refused (nil while it waits for FE, or is off).
	changes []starrocks.ImageCheck
	// changeKey names those changes (starrocks.Preflight.Key).
	changeKey string
	// pathUndecided: the pre-flight waits for FE's report on a pending
	// image change (preflight.go), which changes does not list yet.
	pathUndecided bool
	// hashes memoises the desired StatefulSets' hashes, compared more than once.
	hashes *apply.Hashes
}

// statefulSetComponents are the components that run as StatefulSets.
var statefulSetComponents = []resources.Component{resources.ComponentFE, resources.ComponentBE, resources.ComponentCN}

// gather reads what the cluster's desired state depends on.
func (r *Reconciler) gather(ctx context.Context, src *srv1.StarRocksCluster) *clusterInputs {
	in := &clusterInputs{live: map[resources.Component]*appsv1.StatefulSet{}, confs: map[resources.Component]confRead{}}
	for _, c := range statefulSetComponents {
		cached := r.liveStatefulSet(ctx, src, c)
		sts := cached
		if old := standIn(r.regrowing, client.ObjectKey{Namespace: src.Namespace, Name: resources.StatefulSetName(src, c)}, cached); old != nil {
			sts = old // deleted to grow its claims, not made again yet: what ran is what to build from
			in.regrown = append(in.regrown, c)
			if cached != nil {
				in.leaving = append(in.leaving, c)
			}
		}
		if sts != nil {
			in.live[c] = sts
		}
		in.confs[c] = r.config(ctx, src, c)
	}
	if src.Spec.StarRocksFeProxySpec != nil {
		d := &appsv1.Deployment{}
		if err := r.Client.Get(ctx, client.ObjectKeyFromObject(resources.Named(src).FEProxy.Deployment), d); err == nil {
			in.proxy = d
		}
	}
	if _, ok := recovering(src, in.confs[resources.ComponentFE].content); ok && src.Spec.StarRocksFeSpec != nil {
		in.snapshot = r.clusterSnapshot(ctx, src)
	}
	return in
}

func (r *Reconciler) liveStatefulSet(ctx context.Context, src *srv1.StarRocksCluster, c resources.Component) *appsv1.StatefulSet {
	name := resources.StatefulSetName(src, c)
	if name == "" {
		return nil
	}
	sts := &appsv1.StatefulSet{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: src.Namespace, Name: name}, sts); err != nil {
		return nil
	}
	return sts
}

// config reads the .conf file that the component's configMapInfo, or a
// configMaps[] entry mounting it where StarRocks reads it, names; empty when none.
func (r *Reconciler) config(ctx context.Context, src *srv1.StarRocksCluster, c resources.Component) confRead {
	from, ok := resources.ConfSourceOf(c, resources.ComponentSpec(src, c))
	if !ok {
		return confRead{}
	}
	field := configField(c)
	if from.Fallback {
		field = specField(c) + ".configMaps"
	}
	content, err := r.Configs.Content(ctx, src.Namespace, from.ConfigMap, from.Key, field)
	return confRead{content: content, err: err, fallback: from.Fallback}
}

// configStates is what each live workload records of its configuration (see resources.ConfigState).
func (in *clusterInputs) configStates() map[resources.Component]resources.ConfigState {
	out := map[resources.Component]resources.ConfigState{}
	state := func(obj, tmpl map[string]string) resources.ConfigState {
		return resources.ConfigState{Template: tmpl[resources.ConfigHashAnnotation], Recorded: obj[resources.ConfigHashAnnotation]}
	}
	for c, sts := range in.live {
		out[c] = state(sts.Annotations, sts.Spec.Template.Annotations)
	}
	if in.proxy != nil {
		out[resources.ComponentFEProxy] = state(in.proxy.Annotations, in.proxy.Spec.Template.Annotations)
	}
	return out
}

// validate checks what the spec alone decides; a cluster it rejects is left as it runs.
func validate(src *srv1.StarRocksCluster) error {
	if src.Spec.StarRocksFeSpec == nil {
		// Without FE the builders build nothing; deleting BE and CN (and their data) for it would be wrong.
		return &reconcile.UserError{Reason: srv1.ReasonFeSpecMissing, Message: "spec.starRocksFeSpec is required: StarRocks cannot run without FE; nothing was changed"}
	}
	if err := checkNames(src); err != nil {
		return err
	}
	if msg := resources.ResolverError(src); msg != "" {
		return &reconcile.UserError{Reason: srv1.ReasonInvalidResolver, Message: msg + "; nothing was changed"}
	}
	if errs := resources.StorageErrors(src); len(errs) > 0 {
		return &reconcile.UserError{Reason: srv1.ReasonInvalidStorageVolume, Message: strings.Join(errs, "; ") + "; nothing was changed"}
	}
	_, err := feaccess.ClusterTLS(src, fe.TLS{}) // a mode that is not one is the user's to fix
	return err
}

// readConfigs is what the builders read of the components' .conf files,
// and the holds of the running components whose file cannot be read now:
// they keep running as they run.
func readConfigs(in *clusterInputs, opts resources.Options) (resources.Configs, reconcile.Holds, error) {
	cfg := resources.Configs{Options: opts, Live: in.configStates()}
	var hs reconcile.Holds
	for _, c := range statefulSetComponents {
		read := in.confs[c]
		if errs := resources.PortErrors(c, read.content); read.err == nil && len(errs) > 0 {
			return cfg, nil, &reconcile.UserError{Reason: srv1.ReasonInvalidConfig, Message: fmt.Sprintf("%s: %s; nothing was changed", configField(c), strings.Join(errs, "; "))}
		}
		if read.err != nil {
			var user *reconcile.UserError
			switch {
			case !errors.As(read.err, &user):
				return cfg, nil, read.err // a failed read: retried
			case in.live[c] != nil && (!read.fallback || user.Reason == srv1.ReasonConfigMapNotFound):
				// Running: keep it as it runs. A ConfigMap the user mounts
				// that is briefly gone (a GitOps replace, a rename) must not
				// roll the component to default ports into pods that cannot
				// mount it.
				hs = append(hs, reconcile.Hold{Component: c, Reason: user.Reason, Message: user.Message, Report: reconcile.Warns})
			case read.fallback:
				read.content = "" // a mount of the user's without the file: StarRocks' defaults, as the upstream reads it
			default:
				return cfg, nil, read.err // a new component: nothing to keep, say what is wrong
			}
		}
		switch c {
		case resources.ComponentFE:
			cfg.FE = read.content
		case resources.ComponentBE:
			cfg.BE = read.content
		case resources.ComponentCN:
			cfg.CN = read.content
		}
	}
	return cfg, hs, nil
}

// build makes every component's objects from the spec and the inputs, and
// decides what must keep its live value: a running component whose .conf
// cannot be read (the upstream reads it as empty and carries on), a
// StatefulSet edit Kubernetes cannot make, a removed component holding data.
// It reads nothing.
func build(src *srv1.StarRocksCluster, in *clusterInputs, opts resources.Options) (*desired, reconcile.Holds, error) {
	cfg, hs, err := readConfigs(in, opts)
	if err != nil {
		return nil, nil, err
	}
	if hs.Whole(resources.ComponentFE) {
		// BE, CN and the proxy read FE's ports from fe.conf: keep them all as they run.
		for _, c := range resources.Components[1:] {
			if !hs.Whole(c) {
				hs = append(hs, reconcile.Hold{Component: c, Reason: hs[0].Reason, Message: hs[0].Message, Report: reconcile.Warns})
			}
		}
	}
	d := &desired{objects: resources.Build(src, cfg), hashes: apply.NewHashes(), grow: map[resources.Component][]reconcile.ClaimGrowth{}, feConf: cfg.FE}
	resources.KeepFEQuorum(d.objects.StatefulSet(resources.ComponentFE), in.live[resources.ComponentFE])
	for _, c := range statefulSetComponents {
		if hs.Whole(c) {
			continue // keeps its live objects whatever they say
		}
		check := reconcile.CheckImmutable(in.live[c], d.objects.StatefulSet(c), specField(c))
		if check.Held != "" {
			hs = append(hs, reconcile.Hold{Component: c, Object: d.objects.StatefulSet(c), Reason: srv1.ReasonImmutableFieldChanged, Message: check.Held, Report: reconcile.Refuses})
		} else if len(check.Grow) > 0 {
			d.grow[c] = check.Grow
		}
	}
	return d, append(hs, removalHolds(src, in)...), nil
}

// removalHolds keep the removed components that hold data until the user consents.
func removalHolds(src *srv1.StarRocksCluster, in *clusterInputs) reconcile.Holds {
	var hs reconcile.Holds
	for _, c := range holdsData {
		if removalHeld(src, c) {
			h := reconcile.Hold{Component: c, Reason: srv1.ReasonRemovalHeld, Report: reconcile.AwaitsConsent}
			if in.live[c] != nil {
				h.Message = c.Title() // reported only while its StatefulSet runs
			}
			hs = append(hs, h)
		}
	}
	return hs
}

// holdsData are the components whose pods keep data (BE) or caches (CN).
var holdsData = []resources.Component{resources.ComponentBE, resources.ComponentCN}

// removalHeld is true for a component that holds data, whose spec is gone,
// and whose deletion the user has not agreed to.
func removalHeld(src *srv1.StarRocksCluster, c resources.Component) bool {
	return resources.LoadSpec(src, c) == nil && src.Annotations[srv1.DeleteRemovedComponentsAnnotation] != "true"
}

// Kubernetes limits on the names of a cluster's objects: a Service name is a
// DNS label, and a StatefulSet's name goes with a 10-character revision hash
// into a label value, which is a DNS label too.
const (
	maxServiceName     = 63
	maxStatefulSetName = 63 - 11
)

// checkNames rejects a cluster whose name makes a child's name too long for
// Kubernetes: the writes would fail forever with a message about the child.
func checkNames(src *srv1.StarRocksCluster) error {
	// Services need a DNS-1035 label; Kubernetes lets a cluster be named
	// with '.' or a leading digit (a DNS-1123 subdomain), and every Service
	// create would fail for ever. The user must recreate it.
	if !serviceNamable.MatchString(src.Name) {
		return &reconcile.UserError{Reason: srv1.ReasonInvalidName, Message: fmt.Sprintf(
			"metadata.name: %q cannot name the cluster's Services (%s-fe-service): a name must start with a lower-case letter and hold only "+
				"lower-case letters, digits and '-' (no '.'); nothing was changed: recreate the cluster under such a name", src.Name, src.Name)}
	}
	named := resources.Named(src)
	for _, c := range resources.Components {
		for _, o := range named.Of(c) {
			limit := 0
			switch o.(type) {
			case *corev1.Service:
				limit = maxServiceName
			case *appsv1.StatefulSet:
				limit = maxStatefulSetName
			default:
				continue
			}
			if len(o.GetName()) > limit {
				return &reconcile.UserError{Reason: srv1.ReasonNameTooLong, Message: fmt.Sprintf(
					"metadata.name: %q is too long: its %s would be named %q, %d characters, and Kubernetes allows %d; nothing was changed",
					src.Name, reflect.TypeOf(o).Elem().Name(), o.GetName(), len(o.GetName()), limit)}
			}
		}
	}
	return nil
}

// serviceNamable is a name whose Services Kubernetes takes: a DNS-1035
// label's characters (its length is checked per object below).
var serviceNamable = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// specField is the spec path of a component, for messages.
func specField(c resources.Component) string {
	return map[resources.Component]string{
		resources.ComponentFE:      "spec.starRocksFeSpec",
		resources.ComponentBE:      "spec.starRocksBeSpec",
		resources.ComponentCN:      "spec.starRocksCnSpec",
		resources.ComponentFEProxy: "spec.starRocksFeProxySpec",
	}[c]
}

// configField is the spec path of a component's configMapInfo, for messages.
func configField(c resources.Component) string {
	return specField(c) + ".configMapInfo"
}
