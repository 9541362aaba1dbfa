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
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
)

// statusOptions are status's flags.
type statusOptions struct {
	allNamespaces bool
	output        string
	since         time.Duration
	limit         int
}

func newStatusCommand(flags *genericclioptions.ConfigFlags) *cobra.Command {
	o := &statusOptions{}
	cmd := &cobra.Command{
		Use:   "status [-A]",
		Short: "Gated pods, recent refusals, and the cluster's pools by OS and build",
		Long: `Show what a cluster's operator checks first: the node pools by OS, Windows build
and architecture, with their Ready nodes and taints; the pods publish mode holds
at their scheduling gate until their images' platforms are known; and the newest
Events that say a pod was not placed (FailedScheduling, AutoscalerBlind,
ImagePlatformsUnknown, PlatformConflict, PublishRefused), in the namespace
kubectl would use, or every namespace with -A; and the tags whose Windows
builds changed since they were last read (ImageBuildsChanged). When nodes are labelled
windows-aware.x-k8s.io/retiring=true, it counts them and the pods on them, and
lists the pods that cannot move: no node but a retiring one runs them. It lists
the DaemonSets whose pods go to nodes their images cannot run, and the Windows
DaemonSets that reach no Windows node, each with the kubectl patch that fixes
it (kubectl windows-aware explain daemonset/NAME tells the detail). It counts
the pods their node's kubelet rejected for want of room (OutOfcpu, OutOfmemory,
OutOfpods ...) by the scheduler that bound them, and lists the newest: two
schedulers whose caches filled the same room.`,
		Example: `  kubectl windows-aware status -A
  kubectl windows-aware status -n web --since 10m -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(o.output); err != nil {
				return err
			}
			cfg, ns, err := Connect(flags)
			if err != nil {
				return err
			}
			client, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				return err
			}
			if o.allNamespaces {
				ns = metav1.NamespaceAll
			}
			s, err := readStatus(cmd.Context(), client, ns, time.Now().Add(-o.since), o.limit)
			if err != nil {
				return err
			}
			if o.output != OutputText {
				return writeStructured(cmd.OutOrStdout(), o.output, s)
			}
			return writeStatus(cmd.OutOrStdout(), s, time.Now())
		},
	}
	fs := cmd.Flags()
	fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "gated pods, refusals and kubelet-rejected pods of every namespace")
	fs.StringVarP(&o.output, "output", "o", OutputText, "output format: text, json or yaml")
	fs.DurationVar(&o.since, "since", time.Hour, "show refusals and pods the kubelet rejected this recent")
	fs.IntVar(&o.limit, "limit", 20, "show at most this many refusals, changed tags and pods the kubelet rejected")
	return cmd
}
