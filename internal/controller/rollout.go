package controller

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/internal/status"
)

// rolloutOrder holds back StatefulSets whose image change must wait: on an
// upgrade BE and CN roll before FE, on a downgrade FE rolls first (StarRocks
// requires FE metadata to stay readable by the older of the two).
type rolloutOrder struct {
	held    map[string]string // StatefulSet name -> why it waits
	message string
}

// filter drops held StatefulSets from objs; a held component keeps its live spec.
func (o rolloutOrder) filter(objs []client.Object) []client.Object {
	if len(o.held) == 0 {
		return objs
	}
	out := make([]client.Object, 0, len(objs))
	for _, obj := range objs {
		if _, held := o.held[obj.GetName()]; held {
			if _, ok := obj.(*appsv1.StatefulSet); ok {
				continue
			}
		}
		out = append(out, obj)
	}
	return out
}

type workloadChange struct {
	name      string // FE, BE, CN
	live      *appsv1.StatefulSet
	desired   *appsv1.StatefulSet
	changing  bool // the image differs from the live one
	direction int  // >0 upgrade, <0 downgrade, 0 unknown
}

func planRollout(liveFE *appsv1.StatefulSet, fe []client.Object, liveBE *appsv1.StatefulSet, be []client.Object, liveCN *appsv1.StatefulSet, cn []client.Object) rolloutOrder {
	feC := change("FE", liveFE, fe)
	others := []workloadChange{change("BE", liveBE, be), change("CN", liveCN, cn)}
	order := rolloutOrder{held: map[string]string{}}
	var busy, downgrading []string
	for _, o := range others {
		if o.live != nil && o.desired != nil && (o.changing || !status.RolledOut(o.live)) {
			busy = append(busy, o.name)
		}
	}
	// Upgrade (or a version we cannot compare): FE waits for BE and CN.
	if feC.changing && feC.direction >= 0 && len(busy) > 0 {
		order.held[feC.desired.Name] = fmt.Sprintf("upgrade: waiting for %s to finish rolling out before FE", strings.Join(busy, " and "))
		order.message = fmt.Sprintf("upgrading to %s: %s roll first, FE waits", image(feC.desired), strings.Join(busy, " and "))
	}
	// Downgrade: BE and CN wait for FE.
	feBusy := feC.live != nil && feC.desired != nil && (feC.changing || !status.RolledOut(feC.live))
	for _, o := range others {
		if o.changing && o.direction < 0 && feBusy {
			order.held[o.desired.Name] = "downgrade: waiting for FE to finish rolling out first"
			downgrading = append(downgrading, o.name)
		}
	}
	if len(downgrading) > 0 {
		order.message = fmt.Sprintf("downgrading: FE rolls first, %s wait", strings.Join(downgrading, " and "))
	}
	return order
}

func change(name string, live *appsv1.StatefulSet, objs []client.Object) workloadChange {
	c := workloadChange{name: name, live: live}
	for _, o := range objs {
		if sts, ok := o.(*appsv1.StatefulSet); ok {
			c.desired = sts
		}
	}
	if c.live == nil || c.desired == nil {
		return c
	}
	from, to := image(c.live), image(c.desired)
	c.changing = from != to
	c.direction = compareVersions(tag(to), tag(from))
	return c
}

func image(sts *appsv1.StatefulSet) string {
	if len(sts.Spec.Template.Spec.Containers) == 0 {
		return ""
	}
	return sts.Spec.Template.Spec.Containers[0].Image
}

// tag returns an image reference's tag ("3.3.2" of "starrocks/fe-ubuntu:3.3.2").
func tag(ref string) string {
	ref, _, _ = strings.Cut(ref, "@")
	if i := strings.LastIndex(ref, ":"); i >= 0 && !strings.Contains(ref[i:], "/") {
		return ref[i+1:]
	}
	return ""
}

var versionPrefix = regexp.MustCompile(`^v?(\d+(?:\.\d+)*)`)

// compareVersions compares the numeric prefixes of two tags ("3.3.2-ubuntu");
// 0 when equal or when either has none.
func compareVersions(a, b string) int {
	ma, mb := versionPrefix.FindStringSubmatch(a), versionPrefix.FindStringSubmatch(b)
	if ma == nil || mb == nil {
		return 0
	}
	pa, pb := strings.Split(ma[1], "."), strings.Split(mb[1], ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			if x > y {
				return 1
			}
			return -1
		}
	}
	return 0
}
