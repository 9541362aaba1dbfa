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

package windowsaware

import (
	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/nodeclasses"
	"github.com/windows-aware/windows-aware/pkg/plugins/osmatch"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// requirements is what PreFilter leaves for Filter, Score and
// OSTaintToleration: the pod's decision, worked out once per scheduling
// cycle by package podneeds, and what the plugin derives from it so that
// Filter and Score only look up. Nothing in it changes once PreFilter has
// written it.
type requirements struct {
	*podneeds.Decision
	// uniformScore is set when every node that fits scores alike (the
	// target build, no revision asked for, and all retiring or none):
	// Score would rank them all alike.
	uniformScore bool
	// classes are the node classes known when PreFilter ran, and verdicts
	// and scores the pod's verdict and raw score for each: Filter and Score
	// find a node's class and index these. Nil when PreFilter did not run;
	// scores also when Score would rank every class alike (the pod names
	// no build and no class is retiring).
	classes  *nodeclasses.Table
	verdicts []windows.Fit
	scores   []int64
	// complete is set when classes held every node of the snapshot: then
	// a nil scores means that no node is retiring.
	complete bool
}

var _ osmatch.Match = &requirements{}

// OSOf is a node's OS: its class's, so that a pod's filtering reads no
// labels, else its label.
func (r *requirements) OSOf(node *v1.Node) string {
	if c, ok := r.classes.Class(node); ok {
		return r.classes.Host(c).OS
	}
	return podneeds.NodeOS(node)
}

// requirementsOf works out what pod needs of a node. The error, always a
// *podneeds.Conflict, names the images and builds that contradict each
// other. It may ask the resolver for images it does not know yet and
// record an Event for one its registry could not tell; requirementsQuiet
// does neither, for queueing hints (which run under the queue's lock).
func (pl *WindowsAware) requirementsOf(pod *v1.Pod) (*requirements, error) {
	return pl.requirementsFor(pod, false)
}

// requirementsQuiet is requirementsOf without side effects.
func (pl *WindowsAware) requirementsQuiet(pod *v1.Pod) (*requirements, error) {
	return pl.requirementsFor(pod, true)
}

func (pl *WindowsAware) requirementsFor(pod *v1.Pod, quiet bool) (*requirements, error) {
	d := pl.decider.Decide(pod, pl.facts(quiet))
	if err := d.Err(); err != nil {
		return nil, err
	}
	return &requirements{Decision: d}, nil
}

// facts is what the resolver knows of images, for the decision; nil when
// resolution is off. Quiet facts neither ask the resolver nor record
// Events.
func (pl *WindowsAware) facts(quiet bool) podneeds.Facts {
	switch {
	case pl.resolution == nil:
		return nil
	case quiet:
		return pl.resolution.facts
	}
	return preFilterFacts{res: pl.resolution}
}
