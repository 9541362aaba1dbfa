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
	"errors"
	"fmt"
	"io"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/windows-aware/windows-aware/pkg/explain"
	"github.com/windows-aware/windows-aware/pkg/safetext"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// ExplainOptions are what explain is asked, by either command that runs it.
type ExplainOptions struct {
	// SchedulerOptions say whose args decide, and whether and how the
	// images' registries are asked.
	SchedulerOptions
	// Files are manifest files or directories; "-" is standard input.
	Files []string
	// Refs are live objects (KIND/NAME) of Namespace; AllPods adds every
	// pod of it.
	Refs    []string
	AllPods bool
	Output  string
	// Connect returns the cluster's REST config and the namespace to read
	// live objects from; nil when explain works on files alone.
	Connect func() (*rest.Config, string, error)
}

// Run explains and returns the exit status.
func (o *ExplainOptions) Run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
	report, catalog, err := o.explain(ctx, stdin, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "error: %s\n", safetext.Text(err.Error()))
		return ExitError
	}
	switch o.Output {
	case OutputText:
		err = explain.WriteText(stdout, report, catalog)
	default:
		err = writeStructured(stdout, o.Output, report)
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: %s\n", safetext.Text(err.Error()))
		return ExitError
	}
	if report.Conflicts > 0 || report.NoNode > 0 {
		return ExitFinding
	}
	return 0
}

func (o *ExplainOptions) explain(ctx context.Context, stdin io.Reader, stderr io.Writer) (*explain.Report, *windows.Catalog, error) {
	if err := checkOutput(o.Output); err != nil {
		return nil, nil, err
	}
	live := len(o.Refs) > 0 || o.AllPods
	if live && o.Connect == nil {
		return nil, nil, errors.New("live objects need --kubeconfig (kubectl windows-aware: drop --local)")
	}
	if !live && len(o.Files) == 0 {
		return nil, nil, errors.New("nothing to explain: give -f FILE (- for standard input), or KIND/NAME or --all-pods of a cluster")
	}
	var cluster *explain.Cluster
	if o.Connect != nil {
		cfg, namespace, err := o.Connect()
		if err != nil {
			return nil, nil, err
		}
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, nil, err
		}
		cluster = &explain.Cluster{Client: client, Namespace: namespace}
	}
	explainer, resolve, err := o.explainer(ctx, cluster, stderr)
	if err != nil {
		return nil, nil, err
	}
	stop, err := resolve(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer stop()

	var objects []explain.Object
	var skipped []explain.Skipped
	for _, f := range o.Files {
		objs, skips, err := readManifests(f, stdin)
		if err != nil {
			return nil, nil, err
		}
		objects, skipped = append(objects, objs...), append(skipped, skips...)
	}
	if cluster != nil {
		objs, err := cluster.Objects(ctx, o.Refs, o.AllPods)
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
	return report, explainer.Decider.Catalog(), nil
}
