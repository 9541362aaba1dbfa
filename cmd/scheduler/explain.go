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
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Exit statuses of explain: a conflict is a finding, as a linter's is, told
// apart from an input that could not be read.
const (
	exitError    = 1
	exitConflict = 2
)

// explainOptions are explain's flags and arguments.
type explainOptions struct {
	files      []string
	config     string
	profile    string
	kubeconfig string
	namespace  string
	allPods    bool
	output     string
	refs       []string
}

// newExplainCommand is "scheduler explain". exit is called with the exit
// status when it is not zero (os.Exit, except in tests).
func newExplainCommand(exit func(int)) *cobra.Command {
	o := &explainOptions{}
	cmd := &cobra.Command{
		Use:   "explain [-f FILE]... [--kubeconfig FILE [-n NAMESPACE] [KIND/NAME... | --all-pods]]",
		Short: "Tell what the windows-aware profile decides about pod templates, before they are deployed",
		Long: `Tell what the windows-aware profile decides about pod templates: for every Pod
and every pod template of a Deployment, StatefulSet, DaemonSet, ReplicaSet, Job,
CronJob, ReplicationController or PodTemplate, the OS and Windows builds it needs,
where each came from, and the conflict the scheduler would reject it with. Given
a kubeconfig, also how many nodes of each OS and build fit, and why the others
do not (by the WindowsAware rule and the OS taints; resources and other
constraints are not looked at).

Manifests are read from files, directories (their .yaml, .yml and .json files)
or standard input (-f -), such as the output of helm template. A RuntimeClass a
template names is merged in, as RuntimeClass admission merges it, when it is in
the input or, given a kubeconfig, in the cluster.

The exit status is 0 when no template has a conflict, 2 when one has (so that
CI can lint manifests), and 1 when the input cannot be read.`,
		Example: `  scheduler explain -f manifests/examples/
  helm template my-chart | scheduler explain -f - -o json
  scheduler explain --config scheduler-config.yaml -f app.yaml --kubeconfig ~/.kube/config
  scheduler explain --kubeconfig ~/.kube/config -n web deployment/iis pod/iis-7d9c
  scheduler explain --kubeconfig ~/.kube/config -n web --all-pods`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.refs = args
			if code := o.run(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				exit(code)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVarP(&o.files, "filename", "f", nil, "manifest file or directory to read; - for standard input (repeatable)")
	fs.StringVar(&o.config, "config", "", "the scheduler's KubeSchedulerConfiguration file, for its WindowsAware args (default: the default args)")
	fs.StringVar(&o.profile, "profile", "", "the profile (schedulerName) whose args decide (default: the one that enables WindowsAware)")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of a cluster: judge its nodes, read RuntimeClasses and live objects from it")
	fs.StringVarP(&o.namespace, "namespace", "n", "", "namespace of the live objects (default: the kubeconfig context's)")
	fs.BoolVar(&o.allPods, "all-pods", false, "explain every pod of the namespace")
	fs.StringVarP(&o.output, "output", "o", "text", "output format: text or json")
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

// run explains and returns the exit status.
func (o *explainOptions) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
	report, releases, err := o.explain(ctx, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	if o.output == "json" {
		err = explain.WriteJSON(stdout, report)
	} else {
		err = explain.WriteText(stdout, report, releases)
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitError
	}
	if report.Conflicts > 0 {
		return exitConflict
	}
	return 0
}

func (o *explainOptions) explain(ctx context.Context, stdin io.Reader) (*explain.Report, []windows.Release, error) {
	if o.output != "text" && o.output != "json" {
		return nil, nil, fmt.Errorf("--output %q: want text or json", o.output)
	}
	live := len(o.refs) > 0 || o.allPods
	if live && o.kubeconfig == "" {
		return nil, nil, errors.New("live objects need --kubeconfig")
	}
	if !live && len(o.files) == 0 {
		return nil, nil, errors.New("nothing to explain: give -f FILE (- for standard input), or --kubeconfig with KIND/NAME or --all-pods")
	}
	profile, err := explain.LoadProfile(o.config, o.profile)
	if err != nil {
		return nil, nil, err
	}
	explainer, err := explain.NewExplainer(ctx, profile)
	if err != nil {
		return nil, nil, err
	}

	var objects []explain.Object
	var skipped []explain.Skipped
	for _, f := range o.files {
		objs, skips, err := readManifests(f, stdin)
		if err != nil {
			return nil, nil, err
		}
		objects, skipped = append(objects, objs...), append(skipped, skips...)
	}
	var cluster *explain.Cluster
	if o.kubeconfig != "" {
		if cluster, err = o.cluster(); err != nil {
			return nil, nil, err
		}
		objs, err := cluster.Objects(ctx, o.refs, o.allPods)
		if err != nil {
			return nil, nil, err
		}
		objects = append(objects, objs...)
		if explainer.Nodes, err = cluster.Nodes(ctx); err != nil {
			return nil, nil, err
		}
	}
	templates, runtimeClasses, others := explain.Inputs(objects)
	explainer.RuntimeClass = explain.RuntimeClasses(runtimeClasses, cluster)
	report, err := explainer.Explain(ctx, templates)
	if err != nil {
		return nil, nil, err
	}
	report.Skipped = append(skipped, others...)
	return report, explainer.Releases, nil
}

// cluster connects to the kubeconfig's cluster, in the namespace asked for
// or the context's.
func (o *explainOptions) cluster() (*explain.Cluster, error) {
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: o.kubeconfig}, &clientcmd.ConfigOverrides{})
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ns := o.namespace
	if ns == "" {
		if ns, _, err = loader.Namespace(); err != nil {
			return nil, err
		}
		if ns == "" {
			ns = v1.NamespaceDefault
		}
	}
	return &explain.Cluster{Client: client, Namespace: ns}, nil
}

// readManifests reads a file, the manifest files of a directory, or
// standard input for "-".
func readManifests(path string, stdin io.Reader) ([]explain.Object, []explain.Skipped, error) {
	if path == "-" {
		return explain.ReadManifests(stdin, "-")
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	files := []string{path}
	if info.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, nil, err
		}
		files = nil
		for _, e := range entries {
			if ext := strings.ToLower(filepath.Ext(e.Name())); !e.IsDir() && slices.Contains([]string{".yaml", ".yml", ".json"}, ext) {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
	}
	var objects []explain.Object
	var skipped []explain.Skipped
	for _, f := range files {
		objs, skips, err := readFile(f)
		if err != nil {
			return nil, nil, err
		}
		objects, skipped = append(objects, objs...), append(skipped, skips...)
	}
	return objects, skipped, nil
}

func readFile(path string) ([]explain.Object, []explain.Skipped, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return explain.ReadManifests(f, path)
}
