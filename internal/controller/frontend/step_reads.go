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
//   - SingleReplica asks FE for its partitions of replication_num 1;
//   - StatefulSet reads the step's StatefulSet from the API server,
//     uncached (without a live reader, as in unit tests, the cache's
//     copy stands).
func (x Steps) read(ctx context.Context, t Target, need starrocks.Needs, r *starrocks.Reads) {
	if need.Fresh {
		_ = x.Door.Changing(t.Cluster, func() error { return nil })
		r.Read.Fresh = true
	}
	if need.Report || (need.Images && !r.Read.Report) {
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
		r.SingleReplicaErr = x.Door.Exec(ctx, t.Cluster, t.FEConf, func(c *fe.Client) error {
			var err error
			r.SingleReplica, err = c.SingleReplicaPartitions(ctx)
			return err
		})
		r.SingleReplicaUnanswered = r.SingleReplicaErr != nil && feaccess.KindOf(r.SingleReplicaErr) == feaccess.Unreachable
		r.Read.SingleReplica = true
	}
	if need.StatefulSet {
		r.StatefulSet, r.StatefulSetErr = x.live(ctx, t.StatefulSet)
		r.Read.StatefulSet = true
	}
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
