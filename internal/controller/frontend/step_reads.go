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

package frontend

import (
	"context"
	"errors"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/srscale/starrocks-operator/internal/fe"
	"github.com/srscale/starrocks-operator/internal/feaccess"
	"github.com/srscale/starrocks-operator/internal/starrocks"
)

// read reads what a step needs into r, and notes it read:
//   - Fresh marks FE's report out of date through the door (Changing):
//     the report of the next read is the first that counts;
//   - Report is the door's Look: FE's last report, read off the reconcile
//     workers at the door's rate; nil until one is in;
//   - Config asks FE for its configuration (ADMIN SHOW FRONTEND CONFIG),
//     with Leader the leader of the report on its own address;
//   - Images asks each FE of the report for its own metadata image;
//   - ComputeNodes is the door's list of compute nodes read since a time,
//     off the reconcile workers too;
//   - SingleReplica asks the leader of the report for its partitions of
//     replication_num 1, on its own address;
//   - StatefulSet reads the step's StatefulSet from the API server,
//     uncached (without a live reader, as in unit tests, the cache's
//     copy stands);
//   - Frontends asks the leader of the report for FE's group, on its own
//     address, synchronously within a short timeout (leaderFrontends).
func (x Steps) read(ctx context.Context, t Target, need starrocks.Needs, r *starrocks.Reads) {
	if need.Fresh {
		_ = x.Door.Changing(t.Cluster, func() error { return nil })
		r.Read.Fresh = true
	}
	if need.Report || ((need.Images || need.Frontends || need.SingleReplica) && !r.Read.Report) {
		rep := x.Door.Look(t.Cluster, t.FEConf)
		r.Report, r.Unanswered = rep.Pure(), rep == nil || rep.Err != nil && feaccess.KindOf(rep.Err) == feaccess.Unreachable
		r.Read.Report = true
	}
	if len(need.Config) > 0 {
		read := func(c *fe.Client) error {
			var err error
			r.Config, err = c.FrontendConfig(ctx, need.Config)
			return err
		}
		var err error
		if need.Leader {
			err = errors.New("FE's report names no leader")
			if host := leaderHost(r.Report); host != "" {
				err = x.Door.ExecOn(ctx, t.Cluster, t.FEConf, host, read)
			}
		} else {
			err = x.Door.Exec(ctx, t.Cluster, t.FEConf, read)
		}
		r.ConfigErr, r.ConfigUnanswered = err, err != nil && feaccess.KindOf(err) == feaccess.Unreachable
		r.Read.Config = need.Config
	}
	if need.Images {
		if r.Report != nil {
			// An FE that does not answer is left out: the plan waits for it.
			r.Images, r.ImagesErr = x.Door.Images(ctx, t.Cluster, t.FEConf, r.Report.Frontends)
		}
		r.Read.Images = true
	}
	if need.ComputeNodes {
		r.ComputeNodes = x.Door.ComputeNodes(t.Cluster, t.FEConf, need.Since)
		r.Read.ComputeNodes = true
	}
	if need.SingleReplica {
		// On the leader: a follower answers information_schema from the
		// catalog it replayed, which trails the leader's, and may not list
		// a table of replication_num 1 created since. No leader named yet:
		// unanswered, the step waits for FE's next report.
		r.SingleReplicaErr, r.SingleReplicaUnanswered = errors.New("FE's report names no leader"), true
		if host := leaderHost(r.Report); host != "" {
			r.SingleReplicaErr = x.Door.ExecOn(ctx, t.Cluster, t.FEConf, host, func(c *fe.Client) error {
				var err error
				r.SingleReplica, err = c.SingleReplicaPartitions(ctx)
				return err
			})
			r.SingleReplicaUnanswered = r.SingleReplicaErr != nil && feaccess.KindOf(r.SingleReplicaErr) == feaccess.Unreachable
		}
		r.Read.SingleReplica = true
	}
	if need.StatefulSet {
		r.StatefulSet, r.StatefulSetErr = x.live(ctx, t.StatefulSet)
		r.Read.StatefulSet = true
	}
	if need.Frontends {
		r.Frontends = x.leaderFrontends(ctx, t, r.Report)
		r.Read.Frontends = true
	}
}

// leaderReadTimeout bounds the read of FE's group on its leader
// (Needs.Frontends): it runs on the reconcile worker, right before a change
// of FE's group, and an answer that does not come in time changes nothing
// (the step waits for the next report).
const leaderReadTimeout = 5 * time.Second

// leaderFrontends is FE's group as the leader of rep lists it now: SHOW
// FRONTENDS on its own address, one attempt within leaderReadTimeout. An
// FE reached on its own address answers it as its leader does (FE forwards
// SHOW FRONTENDS, FORWARD_NO_SYNC), so a leader that lost its place since
// the report answers with the new leader's list, or fails.
func (x Steps) leaderFrontends(ctx context.Context, t Target, rep *starrocks.Report) *starrocks.FrontendsRead {
	out := &starrocks.FrontendsRead{At: time.Now(), Leader: leaderHost(rep)}
	if out.Leader == "" {
		out.Err = errors.New("FE's report names no leader")
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, leaderReadTimeout)
	defer cancel()
	read := func(c *fe.Client) error {
		c.Attempts, c.ReadTimeout = 1, leaderReadTimeout
		var err error
		out.Frontends, err = c.ShowFrontends(ctx)
		return err
	}
	out.Err = x.Door.ExecOn(ctx, t.Cluster, t.FEConf, out.Leader, read)
	if errors.Is(out.Err, feaccess.ErrNotOwnFE) || out.Err != nil && feaccess.KindOf(out.Err) == feaccess.Unreachable && ctx.Err() == nil {
		// Registered under another name than the operator gives its pods
		// (an adopted StatefulSet's own serviceName), or its own address
		// not reached: through the Service, whose FE forwards SHOW
		// FRONTENDS to the leader it knows of (FORWARD_NO_SYNC), and fails
		// rather than answer from its own view when that is no leader.
		out.Err = x.Door.Exec(ctx, t.Cluster, t.FEConf, read)
	}
	return out
}

// leaderHost is the host of the FE that leads in rep; "" when none.
func leaderHost(rep *starrocks.Report) string {
	if rep == nil || rep.Err != nil {
		return ""
	}
	for _, f := range rep.Frontends {
		if f.Role == "LEADER" {
			return f.Host
		}
	}
	return ""
}

// live is sts as the API server has it; nil when it is gone.
func (x Steps) live(ctx context.Context, sts *appsv1.StatefulSet) (*appsv1.StatefulSet, error) {
	reader := x.Door.Live()
	if reader == nil || sts == nil {
		return sts, nil
	}
	now := &appsv1.StatefulSet{}
	err := reader.Get(ctx, client.ObjectKeyFromObject(sts), now)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return now, nil
}
