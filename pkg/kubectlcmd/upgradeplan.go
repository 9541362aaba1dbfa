/*
Copyright The windows-aware Authors.

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
package kubectlcmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/safetext"
)

// Output formats of upgrade-plan besides json and yaml: a table for
// people, and markdown for a change request.
const (
	OutputTable    = "table"
	OutputMarkdown = "markdown"
)

// UpgradePlanOptions are what upgrade-plan is asked. The scheduler's
// configuration and the registries are found and asked by
// SchedulerOptions, explain's.
type UpgradePlanOptions struct {
	SchedulerOptions
	// To is the target: 2025, ltsc2025 or 10.0.26100.
	To string
	// Pool is LABEL=VALUE, the nodes that move; "" for every Windows node
	// of an older build.
	Pool string
	// AllNamespaces plans every namespace, not only Connect's.
	AllNamespaces bool
	// Output is the format: table, json, yaml or markdown.
	Output string
	// Connect returns the cluster's REST config and the namespace to plan.
	Connect func() (*rest.Config, string, error)
}

func newUpgradePlanCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &UpgradePlanOptions{}
	cmd := &cobra.Command{
		Use:   "upgrade-plan --to 2022|2025|ltsc2025|10.0.26100 [--pool LABEL=VALUE] [-A] [--resolve]",
		Short: "Which workloads a Windows Server upgrade breaks, and which pods block draining the old pool",
		Long: `Plan moving Windows nodes to another Windows Server build: for every Deployment,
StatefulSet, DaemonSet, ReplicaSet, Job, CronJob and bare pod that runs on Windows
nodes or whose template would, whether the target build runs it:

  ready     each image has a variant the target build runs (from its tag, or its
            registry with --resolve), or the pod is HostProcess (any build),
            and some node admits it once the nodes move
  rebuild   an image has no such variant: its builds, and the tag that names the
            target where one is spelled like it (…:ltsc2019 → …:ltsc2022)
  retarget  its images run there, but its nodeSelector, required node affinity
            or RuntimeClass pins it to a build no node has once the nodes move:
            the pin, and the patch or RuntimeClass that admits the new build
  nowhere   no node runs it today either: images no host runs together, or a
            pin that selects no node
  unknown   a tag that names no build and no registry answer, a RuntimeClass
            that does not exist, an affinity it cannot map to builds, or a
            workload you may not read, with why

Then the pods that would block draining the nodes that move (their workload
needs a rebuild or a retarget and no node that stays at its build runs them),
whether each Windows DaemonSet keeps a pod on every node that moves (with the
fix where it does not), the counts per verdict and namespace, and the command
that labels the moving nodes retiring. With --pool (any label: agentpool,
kubernetes.azure.com/os-sku, karpenter.sh/nodepool), only that pool moves, and
the plan also says what breaks on it: the pods running there that the new build
would not run, those its pins strand there, and the pending pods and workloads
that would start landing there.

A Windows Server 2025 host runs ltsc2022 images, so 2022 → 2025 needs no rebuild
of ltsc2022 images; 2019 → 2022 always needs one.

The scheduler's configuration and --resolve work as for explain.

Exit status: 0 when every workload is ready and every agent keeps the moved
nodes, 2 when a workload is not ready or an agent loses moved nodes, 1 when the
cluster cannot be read or the input is wrong.`,
		Example: `  kubectl windows-aware upgrade-plan --to 2025 -A
  kubectl windows-aware upgrade-plan --pool agentpool=win22 --to 2025
  kubectl windows-aware upgrade-plan --pool kubernetes.azure.com/os-sku=Windows2022 --to 2025 -A
  kubectl windows-aware upgrade-plan --to ltsc2022 -n web --resolve -o markdown`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Connect = func() (*rest.Config, string, error) { return Connect(flags) }
			if code := o.Run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return &ExitCodeError{Code: code}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.To, "to", "", "the Windows Server release the nodes move to: 2022, 2025, a token such as ltsc2025, or a build such as 10.0.26100")
	fs.StringVar(&o.Pool, "pool", "", "LABEL=VALUE of the nodes that move (default: every Windows node of an older build)")
	fs.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "plan the workloads of every namespace")
	o.SchedulerOptions.AddFlags(fs)
	fs.StringVarP(&o.Output, "output", "o", OutputTable, "output format: table, json, yaml or markdown")
	_ = cmd.MarkFlagRequired("to")
	return cmd
}

// Run plans and returns the exit status.
func (o *UpgradePlanOptions) Run(ctx context.Context, stdout, stderr io.Writer) int {
	client, namespace, err := o.connect()
	if err != nil {
		fmt.Fprintf(stderr, "error: %s\n", safetext.Text(err.Error()))
		return ExitError
	}
	return o.run(ctx, client, namespace, stdout, stderr)
}

func (o *UpgradePlanOptions) connect() (kubernetes.Interface, string, error) {
	cfg, namespace, err := o.Connect()
	if err != nil {
		return nil, "", err
	}
	client, err := kubernetes.NewForConfig(cfg)
	return client, namespace, err
}

// run plans with client, in namespace unless AllNamespaces.
func (o *UpgradePlanOptions) run(ctx context.Context, client kubernetes.Interface, namespace string, stdout, stderr io.Writer) int {
	plan, explainer, err := o.plan(ctx, client, namespace, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "error: %s\n", safetext.Text(err.Error()))
		return ExitError
	}
	switch o.Output {
	case OutputTable:
		err = explain.WriteUpgradeTable(stdout, plan, explainer.Decider.Catalog())
	case OutputMarkdown:
		err = explain.WriteUpgradeMarkdown(stdout, plan, explainer.Decider.Catalog())
	default:
		err = writeStructured(stdout, o.Output, plan)
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: %s\n", safetext.Text(err.Error()))
		return ExitError
	}
	if plan.Summary.Findings() {
		return ExitFinding
	}
	return 0
}

func (o *UpgradePlanOptions) plan(ctx context.Context, client kubernetes.Interface, namespace string, stderr io.Writer) (*explain.UpgradePlan, *explain.Explainer, error) {
	switch o.Output {
	case OutputTable, OutputMarkdown, OutputJSON, OutputYAML:
	default:
		return nil, nil, fmt.Errorf("--output %q: want table, json, yaml or markdown", o.Output)
	}
	if o.To == "" {
		return nil, nil, fmt.Errorf("--to is required: the Windows Server release the nodes move to (2022, 2025, ltsc2025, 10.0.26100)")
	}
	if o.AllNamespaces {
		namespace = metav1.NamespaceAll
	}
	cluster := &explain.Cluster{Client: client, Namespace: namespace}
	explainer, resolve, err := o.explainer(ctx, cluster, stderr)
	if err != nil {
		return nil, nil, err
	}
	target, err := explain.ParseTarget(o.To, explainer.Decider.Catalog())
	if err != nil {
		return nil, nil, err
	}
	nodes, err := cluster.Nodes(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (upgrade-plan needs to list nodes: kubectl auth can-i list nodes says whether you may)", err)
	}
	if _, err := explain.MovingNodes(nodes, o.Pool, target); err != nil {
		return nil, nil, err
	}
	objects, err := readWorkloads(ctx, client, namespace)
	if err != nil {
		return nil, nil, err
	}
	stop, err := resolve(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer stop()
	explainer.Nodes = nodes
	explainer.RuntimeClass = explain.RuntimeClasses(nil, cluster)
	plan, err := explainer.PlanUpgrade(ctx, explain.UpgradeInput{Target: target, Pool: o.Pool, Nodes: nodes, Workloads: explain.GroupWorkloads(objects)})
	return plan, explainer, err
}
