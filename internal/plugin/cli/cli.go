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

// Package cli is the glue of `kubectl starrocks`: kubectl's flags
// (cli-runtime's ConfigFlags and PrintFlags), the API calls, and the
// render functions of package plugin.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	srv1 "github.com/srscale/starrocks-operator/api/v1"
	"github.com/srscale/starrocks-operator/internal/plugin"
	srscheme "github.com/srscale/starrocks-operator/internal/scheme"
)

// RBACDoc is where the Role a user of the plugin needs is documented.
const RBACDoc = "docs/kubectl-plugin-rbac.yaml"

// Options are what the commands share.
type Options struct {
	Config  *genericclioptions.ConfigFlags
	Streams genericiooptions.IOStreams
	// Now is the clock ages are relative to (time.Now unless a test sets it).
	Now func() time.Time
	// Color: "auto" (when stdout is a terminal and NO_COLOR is unset), "always" or "never".
	Color string
}

// NewCommand is `kubectl starrocks` with its subcommands.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	return NewCommandAt(streams, time.Now)
}

// NewCommandAt is NewCommand with ages relative to now() (tests' golden files).
func NewCommandAt(streams genericiooptions.IOStreams, now func() time.Time) *cobra.Command {
	o := &Options{Config: genericclioptions.NewConfigFlags(true), Streams: streams, Now: now}
	root := &cobra.Command{
		Use:           "kubectl-starrocks",
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl starrocks"},
		Short:         "StarRocks clusters at a glance, from what the operator writes (status, conditions, Events)",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	o.Config.AddFlags(root.PersistentFlags())
	root.PersistentFlags().StringVar(&o.Color, "color", "auto", "colour the output: auto (only on a terminal, not with NO_COLOR), always, never")
	root.AddCommand(newStatus(o), newDescribe(o), newPause(o, true), newPause(o, false))
	return root
}

// Main runs the command with os.Args and returns the exit code, printing
// an error as one line (no stack trace).
func Main(args []string) int {
	cmd := NewCommand(genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	return 0
}

func (o *Options) client() (client.Client, error) {
	cfg, err := o.restConfig()
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: srscheme.New()})
}

// restConfig is the kubeconfig's client configuration. The plugin sends
// one request at a time, so client-go's default throttle (5 per second
// after a burst of 10) would only slow a long paginated list (20 pages at
// 10,000 clusters: 2 s of waiting); the API server's priority and fairness
// still applies. A QPS the caller set is kept.
func (o *Options) restConfig() (*rest.Config, error) {
	cfg, err := o.Config.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("no Kubernetes client configuration (%w): pass --kubeconfig or set KUBECONFIG", err)
	}
	if cfg.QPS == 0 && cfg.RateLimiter == nil {
		cfg.QPS = -1
	}
	return cfg, nil
}

func (o *Options) namespace() (string, error) {
	ns, _, err := o.Config.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", fmt.Errorf("reading the namespace from the kubeconfig: %w", err)
	}
	return ns, nil
}

func (o *Options) color() bool {
	switch o.Color {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := o.Streams.Out.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// explain turns an API error into what the user should do, naming what it is about.
func explain(err error, what, ns string) error {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%s not found: list the clusters with `kubectl starrocks status -n %s` (or -A)", what, ns)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%s: not allowed (%s); your user needs get and list on starrocksclusters and events, and patch on starrocksclusters to pause or resume (the Role in %s)", what, apierrors.ReasonForError(err), RBACDoc)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%s: the API server does not know your credentials: log in again or check --kubeconfig and --context", what)
	case meta.IsNoMatchError(err):
		return fmt.Errorf("%s: the API server does not serve starrocks.com/v1 StarRocksCluster: install the operator's CRDs (kubectl apply --server-side -f config/crd/bases)", what)
	case errors.As(err, &dns), errors.As(err, &op):
		return fmt.Errorf("%s: cannot reach the API server (%w): check --kubeconfig, --context and --server", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

func newStatus(o *Options) *cobra.Command {
	var all bool
	var selector string
	var chunk int64
	printFlags := genericclioptions.NewPrintFlags("")
	cmd := &cobra.Command{
		Use:   "status [-A | -n NAMESPACE] [-l SELECTOR]",
		Short: "One line per cluster, those needing a person first, and a summary",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ns, err := o.namespace()
			if err != nil {
				return err
			}
			where := "namespace " + ns
			if all {
				ns, where = "", "all namespaces"
			}
			cfg, err := o.restConfig()
			if err != nil {
				return err
			}
			c, err := client.New(cfg, client.Options{Scheme: srscheme.New()})
			if err != nil {
				return err
			}
			// The backups are listed beside the clusters, not after them.
			var backups plugin.BackupIndex
			var backupsErr error
			listed := make(chan struct{})
			go func() {
				defer close(listed)
				backups, backupsErr = ListBackups(cmd.Context(), c, ns, chunk)
			}()
			format := ptr.Deref(printFlags.OutputFormat, "")
			table := format == ""
			var rows []plugin.Row
			var clusters []srv1.StarRocksCluster
			if table {
				// The fleet at a glance: each cluster's row of a
				// server-side table (its status.summary).
				rows, err = ListRows(cmd.Context(), cfg, c, ns, selector, chunk)
			} else {
				// -o wide, json, yaml: every field of the lines, their
				// times exact, from the objects.
				clusters, err = List(cmd.Context(), cfg, ns, selector, chunk)
			}
			<-listed
			if err != nil {
				return explain(err, "listing StarRocks clusters in "+where, ns)
			}
			if backupsErr != nil {
				o.warnBackups(backupsErr, where)
			}
			if table {
				lines := plugin.LinesOf(rows, backups, o.Now())
				return plugin.WriteStatus(o.Streams.Out, lines, plugin.TableOptions{AllNamespaces: all, Color: o.color(), Now: o.Now()})
			}
			return RenderStatus(o.Streams.Out, clusters, backups, printFlags, all, o.color(), o.Now())
		},
	}
	cmd.Flags().BoolVarP(&all, "all-namespaces", "A", false, "every namespace's clusters")
	cmd.Flags().StringVarP(&selector, "selector", "l", "", "label selector (=, ==, !=, in, notin), as kubectl's")
	cmd.Flags().Int64Var(&chunk, "chunk-size", 500, "list this many clusters per request (kubectl's default); 0 lists all in one")
	printFlags.AddFlags(cmd)
	cmd.Flag("output").Usage = "output format: wide, json, yaml, jsonpath=..., go-template=...; default a table"
	return cmd
}

// ListBackups indexes the StarRocksBackups and StarRocksBackupSchedules
// of ns ("" for all) by cluster: one paginated list per kind, whatever the
// number of clusters. An API server without the backup kinds has no
// backups; any other error gives a nil index (the backups unknown) and
// the error.
func ListBackups(ctx context.Context, c client.Client, ns string, chunk int64) (plugin.BackupIndex, error) {
	var backups []srv1.StarRocksBackup
	var bl srv1.StarRocksBackupList
	if err := paged(ctx, c, &bl, ns, chunk, func() { backups = append(backups, bl.Items...) }); err != nil {
		if meta.IsNoMatchError(err) {
			return plugin.BackupIndex{}, nil
		}
		return nil, fmt.Errorf("listing starrocksbackups: %w", err)
	}
	var schedules []srv1.StarRocksBackupSchedule
	var sl srv1.StarRocksBackupScheduleList
	if err := paged(ctx, c, &sl, ns, chunk, func() { schedules = append(schedules, sl.Items...) }); err != nil && !meta.IsNoMatchError(err) {
		return nil, fmt.Errorf("listing starrocksbackupschedules: %w", err)
	}
	return plugin.IndexBackups(backups, schedules), nil
}

// paged lists list's kind in ns in pages of chunk, calling take after each page.
func paged(ctx context.Context, c client.Client, list client.ObjectList, ns string, chunk int64, take func()) error {
	token := ""
	for {
		if err := c.List(ctx, list, client.InNamespace(ns), client.Limit(chunk), client.Continue(token)); err != nil {
			return err
		}
		take()
		if token = list.GetContinue(); token == "" {
			return nil
		}
	}
}

// warnBackups says on stderr that the backups could not be read, and what to do.
func (o *Options) warnBackups(err error, where string) {
	hint := ""
	if apierrors.IsForbidden(err) {
		hint = fmt.Sprintf("; your user needs get and list on starrocksbackups and starrocksbackupschedules (the Role in %s)", RBACDoc)
	}
	fmt.Fprintf(o.Streams.ErrOut, "warning: the backups in %s are not shown (%v)%s\n", where, err, hint)
}

// RenderStatus prints clusters as status does, with their backups (nil:
// unknown): a table (wide with -o wide), or the StatusList through
// cli-runtime's printers.
func RenderStatus(w io.Writer, clusters []srv1.StarRocksCluster, backups plugin.BackupIndex, printFlags *genericclioptions.PrintFlags, all, color bool, now time.Time) error {
	lines := plugin.Lines(clusters, backups, now)
	format := ""
	if printFlags != nil && printFlags.OutputFormat != nil {
		format = *printFlags.OutputFormat
	}
	if format == "" || format == "wide" {
		return plugin.WriteStatus(w, lines, plugin.TableOptions{AllNamespaces: all, Wide: format == "wide", Color: color, Now: now})
	}
	p, err := printFlags.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintObj(plugin.NewStatusList(lines), w)
}

func newDescribe(o *Options) *cobra.Command {
	printFlags := genericclioptions.NewPrintFlags("")
	cmd := &cobra.Command{
		Use:   "describe CLUSTER",
		Short: "One cluster's story: conditions, FE's word on its nodes, holds, escape hatches, backups, Events",
		Args:  exactlyOneCluster,
		RunE: func(cmd *cobra.Command, args []string) error {
			ns, err := o.namespace()
			if err != nil {
				return err
			}
			c, err := o.client()
			if err != nil {
				return err
			}
			what := fmt.Sprintf("StarRocks cluster %s/%s", ns, args[0])
			var src srv1.StarRocksCluster
			if err := c.Get(cmd.Context(), types.NamespacedName{Namespace: ns, Name: args[0]}, &src); err != nil {
				return explain(err, what, ns)
			}
			var events corev1.EventList
			if err := c.List(cmd.Context(), &events, client.InNamespace(ns), client.MatchingFields{"involvedObject.uid": string(src.UID)}); err != nil {
				return explain(err, "listing the Events of "+what, ns)
			}
			// The backup kinds have no field index on their cluster: the
			// namespace's backups are listed and sorted by cluster.
			var cb *plugin.ClusterBackups
			unknown := ""
			if idx, err := ListBackups(cmd.Context(), c, ns, 500); err != nil {
				unknown = err.Error()
				if apierrors.IsForbidden(err) {
					unknown += fmt.Sprintf(" (your user needs get and list on starrocksbackups and starrocksbackupschedules: the Role in %s)", RBACDoc)
				}
			} else {
				cb = idx[types.NamespacedName{Namespace: ns, Name: src.Name}]
			}
			return RenderDescribe(o.Streams.Out, plugin.NewStory(&src, events.Items, cb, unknown, o.Now()), printFlags, o.Now())
		},
	}
	printFlags.AddFlags(cmd)
	cmd.Flag("output").Usage = "output format: json, yaml, jsonpath=..., go-template=...; default the story in words"
	return cmd
}

// RenderDescribe prints a story in words, or through cli-runtime's
// printers with -o json, yaml, jsonpath or go-template.
func RenderDescribe(w io.Writer, s *plugin.Story, printFlags *genericclioptions.PrintFlags, now time.Time) error {
	if printFlags == nil || printFlags.OutputFormat == nil || *printFlags.OutputFormat == "" {
		return plugin.WriteDescribe(w, s, now)
	}
	p, err := printFlags.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintObj(s, w)
}

func exactlyOneCluster(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return errors.New("name one cluster: kubectl starrocks <command> CLUSTER [-n NAMESPACE]")
	}
	return nil
}

// newPause is `pause` (pause true) or `resume`: the operator's own
// starrocks.com/ignored annotation, set to "true" or removed, and nothing else.
func newPause(o *Options, pause bool) *cobra.Command {
	use, short := "resume CLUSTER", "Let the operator reconcile the cluster again (removes "+srv1.IgnoredAnnotation+")"
	if pause {
		use, short = "pause CLUSTER", "Make the operator leave the cluster alone: no write, no FE statement ("+srv1.IgnoredAnnotation+"=true)"
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  exactlyOneCluster,
		RunE: func(cmd *cobra.Command, args []string) error {
			ns, err := o.namespace()
			if err != nil {
				return err
			}
			c, err := o.client()
			if err != nil {
				return err
			}
			what := fmt.Sprintf("StarRocks cluster %s/%s", ns, args[0])
			src := &srv1.StarRocksCluster{}
			if err := c.Get(cmd.Context(), types.NamespacedName{Namespace: ns, Name: args[0]}, src); err != nil {
				return explain(err, what, ns)
			}
			if plugin.Paused(src) == pause {
				fmt.Fprintf(o.Streams.Out, "%s is %s already\n", what, map[bool]string{true: "paused", false: "not paused"}[pause])
				return nil
			}
			if err := c.Patch(cmd.Context(), src, client.RawPatch(types.MergePatchType, PausePatch(pause))); err != nil {
				return explain(err, "annotating "+what, ns)
			}
			if pause {
				fmt.Fprintf(o.Streams.Out, "%s paused: the operator leaves it alone until `kubectl starrocks resume -n %s %s`\n", what, ns, args[0])
			} else {
				fmt.Fprintf(o.Streams.Out, "%s resumed: the operator reconciles it again\n", what)
			}
			return nil
		},
	}
}

// PausePatch is the merge patch that pauses (sets starrocks.com/ignored
// "true") or resumes (removes it) a cluster.
func PausePatch(pause bool) []byte {
	if pause {
		return fmt.Appendf(nil, `{"metadata":{"annotations":{%q:"true"}}}`, srv1.IgnoredAnnotation)
	}
	return fmt.Appendf(nil, `{"metadata":{"annotations":{%q:null}}}`, srv1.IgnoredAnnotation)
}
