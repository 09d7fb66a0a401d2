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

package starrocks

import (
	"fmt"
	"slices"
	"strings"
	"time"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/fe"
)

// FE's metadata image around a version change of FE (docs/upgrades.md):
// ALTER SYSTEM CREATE IMAGE once every FE runs the new version, and before
// a downgrade's first FE pod, each time awaited on every FE.

// ImageWaitLimit bounds each image step (the image before FE's downgrade,
// the image after the change), from the first plan that begins it: five
// checkpoint rounds of 60 s (FeConstants.checkpoint_interval_second) past
// the 10 s the journal takes to roll. Whatever keeps it (an FE's image
// late, FE's HTTP port not answering SHOW_HA, ALTER SYSTEM CREATE IMAGE
// refused), after it clone and balancing are restored (they must not stay
// off for a proof the operator cannot get), said in the status and one
// Warning Event, and the image is still waited for before FE's next
// change. An image before FE's downgrade keeps the downgrade held: only
// the Warning is added.
const ImageWaitLimit = 5*time.Minute + 10*time.Second

// planImage is the image after FE's change: read every FE's image; send
// ALTER SYSTEM CREATE IMAGE once (per operator process: a second one only
// asks FE to roll its journal again) after reading the leader's journal
// id; done once every FE of FE's report that is Alive, and whose pod is
// Ready, has an image past that id (an FE that does not run cannot answer
// and must not hold a rollback that would fix it; it is named). A newer
// image can only come from a checkpoint that replayed the journal past the
// moment every FE ran the new version (docs/upgrades.md).
func planImage(in CompatibilityIn) (CompatibilityPlan, bool) {
	plan, done := imageStep(in)
	if done {
		return plan, true
	}
	plan.ImageStep = true
	rec := in.Record
	if in.ImageFrom.IsZero() || in.Now.Sub(in.ImageFrom) <= in.imageLimit() {
		return plan, false
	}
	why := plan.Message
	if in.ImageWhy != nil {
		why += " (last: " + in.ImageWhy.Error() + ")"
	}
	late := fmt.Sprintf("FE's metadata image not confirmed on every FE within %s of the step's start: %s", in.imageLimit(), why)
	switch {
	case rec.ImageBefore:
		out := CompatibilityPlan{Wait: true, ImageStep: true, Message: late + "; FE's downgrade stays held until it is (the operator reads each FE's image on its own HTTP port: let it through, with the account of fe.conf's enable_http_auth)"}
		if !in.ImageTold {
			out.ImageTold = true
			out.Events = []*Event{{Reason: srv1.ReasonMetadataImage, Action: "Upgrade", Warning: true, Note: out.Message}}
		}
		return out, false
	case rec.Paused():
		return CompatibilityPlan{Statements: restoreStatements(rec), Want: restoreValues(rec), After: &PauseRecord{Image: rec.Image}, ImageStep: true,
			Message: late + "; tablet clone and balancing restored to " + rec.String() + "; FE's next image change waits for the image",
			Events: []*Event{{Reason: srv1.ReasonMetadataImage, Action: "Upgrade", Warning: true,
				Note: late + "; tablet clone and balancing restored to " + rec.String() + " meanwhile; FE's next image change waits for the image"}}}, false
	}
	plan.Message = late + "; FE's next image change waits for it"
	return plan, false
}

// imageStep is planImage without its bound.
func imageStep(in CompatibilityIn) (CompatibilityPlan, bool) {
	if in.Report == nil || in.Report.Err != nil || len(in.Report.Frontends) == 0 {
		return CompatibilityPlan{Wait: true, Message: "waiting for FE's report of its FEs, to take the metadata image"}, false
	}
	if in.Images == nil {
		return CompatibilityPlan{ReadImages: true, Message: "reading each FE's metadata image"}, false
	}
	if in.ImageAfter == 0 {
		leader, ok := leaderJournal(in.Report, in.Images)
		if !ok {
			return CompatibilityPlan{Wait: true, Message: "waiting for FE's leader to tell its journal id on its HTTP port (SHOW_HA), to take the metadata image"}, false
		}
		return CompatibilityPlan{Statements: []fe.Statement{fe.CreateImage{}}, ImageAfter: leader,
			Message: fmt.Sprintf("taking FE's metadata image (ALTER SYSTEM CREATE IMAGE at journal %d)", leader)}, false
	}
	var lacking, left []string
	for _, f := range in.Report.Frontends {
		if f.Unjoined {
			continue
		}
		if why := notRunning(in, f); why != "" {
			left = append(left, f.Name+" ("+why+")")
			continue
		}
		info, ok := in.Images[f.Name]
		switch {
		case !ok:
			lacking = append(lacking, f.Name+" (did not answer SHOW_HA)")
		case info.ImageVersion <= in.ImageAfter:
			lacking = append(lacking, fmt.Sprintf("%s (image %d)", f.Name, info.ImageVersion))
		}
	}
	var leftOut string
	if len(left) > 0 {
		leftOut = "; not waited for: " + strings.Join(left, ", ")
	}
	if len(lacking) > 0 {
		return CompatibilityPlan{Wait: true, Message: fmt.Sprintf("waiting for FE's metadata image past journal %d on every FE (FE makes one at its next 60 s checkpoint round and pushes it): not yet on %s%s",
			in.ImageAfter, strings.Join(lacking, ", "), leftOut)}, false
	}
	return CompatibilityPlan{Events: []*Event{{Reason: srv1.ReasonMetadataImage, Action: "Upgrade",
		Note: fmt.Sprintf("every FE has a metadata image past journal %d, taken after every FE ran %s%s", in.ImageAfter, in.Record.Image, leftOut)}}}, true
}

// notRunning says why FE f is not waited for: FE lists it not Alive, or
// its pod is not Ready; "" when it is.
func notRunning(in CompatibilityIn, f fe.Frontend) string {
	if !f.Alive {
		return "not Alive in FE's list"
	}
	if ord, ok := in.FENames.Ordinal(f.Host); ok && in.FENotReady[ord] {
		return "its pod is not Ready"
	}
	return ""
}

// leaderJournal is the leader's journal id, from the leader's own answer.
func leaderJournal(r *Report, images map[string]fe.HAInfo) (int64, bool) {
	if r == nil || r.Err != nil {
		return 0, false
	}
	for _, f := range r.Frontends {
		if f.Role != "LEADER" {
			continue
		}
		if info, ok := images[f.Name]; ok && info.JournalID > 0 {
			return info.JournalID, true
		}
	}
	return 0, false
}

// feImageChange is FE's new image when an allowed change of FE's image
// that asks for an image after it is among the changes (every version
// change, a patch too, and one whose version cannot be read; not an image
// of the same version); "" when none.
func feImageChange(checks []ImageCheck) string {
	for _, c := range checks {
		if c.Name == "FE" && c.Verdict.Allowed() && c.Verdict.ImageAfter {
			return c.To
		}
	}
	return ""
}

// imageBefore: FE's change is a downgrade, which takes an image first.
func imageBefore(checks []ImageCheck) bool {
	return slices.ContainsFunc(checks, func(c ImageCheck) bool {
		return c.Name == "FE" && c.Verdict.Allowed() && c.Verdict.ImageBeforeFE
	})
}
