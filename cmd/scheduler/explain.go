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

package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"

	"github.com/windows-aware/windows-aware/pkg/kubectlcmd"
	"github.com/windows-aware/windows-aware/pkg/safetext"
)

// Exit statuses of explain: a conflict is a finding, as a linter's is, told
// apart from an input that could not be read.
const (
	exitError    = kubectlcmd.ExitError
	exitConflict = kubectlcmd.ExitFinding
)

// newExplainCommand is "scheduler explain", which kubectl windows-aware
// explain runs too; here, a cluster is read only when --kubeconfig names
// one. exit is called with the exit status when it is not zero (os.Exit,
// except in tests).
func newExplainCommand(exit func(int)) *cobra.Command {
	o := &kubectlcmd.ExplainOptions{}
	var kubeconfig, namespace string
	cmd := &cobra.Command{
		Use:   "explain [-f FILE]... [--kubeconfig FILE [-n NAMESPACE] [KIND/NAME... | --all-pods]]",
		Short: "Tell what the windows-aware profile decides about pod templates, before they are deployed",
		Long: `Tell what the windows-aware profile decides about pod templates: for every Pod
and every pod template of a Deployment, StatefulSet, DaemonSet, ReplicaSet, Job,
CronJob, ReplicationController or PodTemplate, the OS and Windows builds it needs,
where each came from, and the conflict the scheduler would reject it with. Given
a kubeconfig, also how many nodes of each pool, OS and build fit, why the others
do not (OS, build, the pod's own selector, a taint; resources and other
constraints are not looked at), and a fix when there is one.

Manifests are read from files, directories (their .yaml, .yml and .json files)
or standard input (-f -), such as the output of helm template. A RuntimeClass a
template names is merged in, as RuntimeClass admission merges it, when it is in
the input or, given a kubeconfig, in the cluster.

The kubectl plugin, kubectl windows-aware explain, is the same command with
kubectl's flags (--context, $KUBECONFIG) and --resolve.

The exit status is 0 when no template has a conflict (and, given a cluster,
every one runs on some node), 2 when one has (so that CI can lint manifests),
and 1 when the input cannot be read.`,
		Example: `  scheduler explain -f manifests/examples/
  helm template my-chart | scheduler explain -f - -o json
  scheduler explain --config scheduler-config.yaml -f app.yaml --kubeconfig ~/.kube/config
  scheduler explain --kubeconfig ~/.kube/config -n web deployment/iis pod/iis-7d9c
  scheduler explain --kubeconfig ~/.kube/config -n web --all-pods`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Refs = args
			if kubeconfig != "" {
				flags := genericclioptions.NewConfigFlags(false)
				flags.KubeConfig, flags.Namespace = &kubeconfig, &namespace
				o.Connect = func() (*rest.Config, string, error) { return kubectlcmd.Connect(flags) }
			}
			// What tenants and registries wrote reaches the terminal
			// escaped (pkg/safetext).
			out, errOut := safetext.NewWriter(cmd.OutOrStdout()), safetext.NewWriter(cmd.ErrOrStderr())
			if code := o.Run(cmd.Context(), cmd.InOrStdin(), out, errOut); code != 0 {
				exit(code)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVarP(&o.Files, "filename", "f", nil, "manifest file or directory to read; - for standard input (repeatable)")
	fs.StringVar(&o.Config, "config", "", "the scheduler's KubeSchedulerConfiguration file, for its WindowsAware args (default: the default args)")
	fs.StringVar(&o.Profile, "profile", "", "the profile (schedulerName) whose args decide (default: the one that enables WindowsAware)")
	fs.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig of a cluster: judge its nodes, read RuntimeClasses and live objects from it")
	fs.StringVarP(&namespace, "namespace", "n", "", "namespace of the live objects (default: the kubeconfig context's)")
	fs.BoolVar(&o.AllPods, "all-pods", false, "explain every pod of the namespace")
	fs.StringVarP(&o.Output, "output", "o", "text", "output format: text, json or yaml")
	// The scheduler command's help prints its own flag sections; explain
	// has flags of its own.
	cmd.SetUsageFunc(func(c *cobra.Command) error {
		fmt.Fprintf(c.OutOrStderr(), "Usage:\n  scheduler %s\n\nExamples:\n%s\n\nFlags:\n%s", c.Use, c.Example, c.LocalFlags().FlagUsages())
		return nil
	})
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) {
		fmt.Fprintf(c.OutOrStdout(), "%s\n\n", c.Long)
		c.SetErr(c.OutOrStdout())
		_ = c.Usage()
	})
	return cmd
}
