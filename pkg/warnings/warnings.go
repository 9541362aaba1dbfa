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

package warnings

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/advice"
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/inventory"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Warner tells, at admission, why a pod or a workload's pod template can
// run on no node the cluster has or can get: no node of its OS, none of a
// build that runs its images, or a conflict between its images or with
// its own selectors. It says it in explain's words (package advice). It
// decides by podneeds.Decider.Decide, the WindowsAware plugin's decision,
// by tags alone unless facts are given, and judges the nodes of an
// inventory by inventory.Snapshot.Judge, one verdict per class.
type Warner struct {
	profile string
	decider *podneeds.Decider
	nodes   Inventory
	// facts, when set, are what registries told of images, looked up and
	// never asked: they are read for every pod, whatever it declares, so
	// that a pod that says it is Linux but whose image its registry lists
	// for Windows alone is a conflict.
	facts podneeds.Facts
	// WithoutInventory words the warnings of a pod that runs on no node
	// without what the inventory holds (node and NodePool counts, pool
	// names, taints, the cluster's builds): cluster-scoped facts that a
	// tenant's own RBAC may deny, and that the full warnings tell anyone
	// who may create an object, or reach the webhook's port. Conflicts,
	// which are about the pod alone, are worded as ever.
	WithoutInventory bool
}

// inventoryFreeWarning is the warning of a pod that runs on no node, with
// WithoutInventory.
const inventoryFreeWarning = "%s runs on no node of the cluster: its OS, the Windows build of its images or a node taint rules out " +
	"every node; kubectl windows-aware explain, run by someone who may read the nodes, tells which"

// Inventory is where the Warner finds the cluster's nodes.
type Inventory interface {
	Snapshot() *inventory.Snapshot
}

// New returns the Warner of a profile's args, validated by
// podneeds.NewForProfile. facts may be nil (tags alone): the webhook asks
// no registry.
func New(profile string, args *config.WindowsAwareArgs, nodes Inventory, facts podneeds.Facts) (*Warner, error) {
	decider, err := podneeds.NewForProfile(profile, args)
	if err != nil {
		return nil, err
	}
	w := &Warner{profile: profile, decider: decider, nodes: nodes}
	if facts != nil {
		w.facts = knownFacts{facts}
	}
	return w, nil
}

// Warnings says why the pod (a pod, or a workload's template as a pod;
// subject names it: "Deployment web") can run nowhere, one line a
// warning, each at most MaxLength characters; none when it runs
// somewhere, or when the inventory has not listed every node yet.
func (w *Warner) Warnings(subject string, pod *v1.Pod) []string {
	d := w.decider.Decide(pod, w.facts)
	if d.Conflict() != "" {
		lines := warningLines(subject + ": " + d.Conflict())
		if fix := advice.ConflictFix(string(d.ConflictKind())); fix != "" {
			lines = append(lines, warningLines("fix: "+fix)...)
		}
		return lines
	}
	s := w.nodes.Snapshot()
	if !s.Synced {
		return nil
	}
	v := s.Judge(d, pod, pod.Spec.SchedulerName == w.profile)
	if v.Runs() {
		return nil
	}
	if w.WithoutInventory {
		return warningLines(fmt.Sprintf(inventoryFreeWarning, subject))
	}
	var fixes []string
	if d.OS() == windows.OSWindows {
		for _, c := range v.Malformed {
			fixes = append(fixes, advice.MalformedBuildFix(inventory.PoolName(c), c.Platform.Build))
		}
	}
	if len(v.TaintedPools) > 0 {
		fixes = append(fixes, advice.TaintFix(joinNames(v.TaintedPools), v.Taints))
	} else {
		fixes = append(fixes, advice.MissingPool(w.needOf(d), w.decider.Catalog(), v.WindowsBuilds))
	}
	summary := fmt.Sprintf("%s runs on none of the cluster's %d node(s)", subject, s.Nodes)
	if len(s.NodePools) > 0 {
		summary += fmt.Sprintf(", nor on those its %d NodePool(s) make", len(s.NodePools))
	}
	lines := warningLines(summary)
	for _, f := range fixes {
		lines = append(lines, warningLines(f)...)
	}
	return lines
}

// needOf is what explain reports of a decision, for advice.MissingPool.
func (w *Warner) needOf(d *podneeds.Decision) advice.Need {
	need := advice.Need{OS: d.OS()}
	if d.OS() != windows.OSWindows {
		return need
	}
	builds, every := d.HostBuilds()
	need.AnyBuild = every
	for _, b := range builds {
		need.HostBuilds = append(need.HostBuilds, b.String())
	}
	if t := d.Target(); !t.IsZero() {
		need.PreferredBuild = t.Build.String()
	}
	for _, img := range d.Images() {
		if img.Source == podneeds.SourceTag {
			need.FromTag = true
		}
	}
	return need
}

func joinNames(names []string) string { return strings.Join(names, ", ") }

// knownFacts reads what is known of every pod's images, whatever OS the
// pod declares, and takes an image nothing is known of, or whose registry
// failed, as one decided by its tag: a warning says only what is known.
type knownFacts struct{ facts podneeds.Facts }

func (k knownFacts) Resolves(string) bool { return true }

func (k knownFacts) PlatformsOf(pod *v1.Pod, ref string) (podneeds.Listing, bool, error) {
	listing, known, err := k.facts.PlatformsOf(pod, ref)
	if err != nil || !known {
		return podneeds.Listing{}, false, nil
	}
	return listing, true, nil
}
