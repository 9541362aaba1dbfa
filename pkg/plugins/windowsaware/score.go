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
	"context"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Raw scores, before NormalizeScore maps them onto 0-100: a node that is
// not retiring outranks any retiring one; then an exact build outranks any
// compatible one; among exact builds, the revision closest to the one the
// tag names ranks highest.
const (
	revisionSpan = 1 << 16          // revisions further apart than this rank alike
	exactBuild   = 2 * revisionSpan // above any revision closeness
	// stayingNode is above any build's score: a pod that can run off the
	// retiring nodes goes elsewhere even from its exact build (an ltsc2022
	// pod leaves a retiring 2022 pool for 2025 nodes), so that the old
	// pool drains. A pod that only retiring nodes run ranks them alike.
	stayingNode = 2 * exactBuild
)

// PreScore skips pods that Score would rank every node alike for: those
// that need no particular build while no node is retiring, and those whose
// nodes all score alike (PreFilter saw them).
func (pl *WindowsAware) PreScore(_ context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) *fwk.Status {
	r, status := pl.readOrWorkOut(state, pod)
	if r == nil {
		if status.IsSuccess() {
			return fwk.NewStatus(fwk.Skip)
		}
		return status
	}
	if r.uniformScore || !r.ranks(nodes) {
		return fwk.NewStatus(fwk.Skip)
	}
	return nil
}

// ranks reports whether Score may rank the pod's feasible nodes apart: the
// pod names builds, or some node is retiring. PreFilter's classes say so
// when they held every node; otherwise (PreFilter did not run, or the
// informer has not delivered every node yet) the feasible nodes' labels do.
func (r *requirements) ranks(nodes []fwk.NodeInfo) bool {
	if r.NamesBuilds() || r.scores != nil {
		return true
	}
	if r.complete {
		return false
	}
	for _, ni := range nodes {
		if podneeds.Retiring(ni.Node()) {
			return true
		}
	}
	return false
}

// Score ranks a feasible node by whether it is retiring and how closely
// its build matches the pod's: its class's score, or, for a node object the class table does not hold
// yet, the score of its labels.
func (pl *WindowsAware) Score(_ context.Context, state fwk.CycleState, pod *v1.Pod, nodeInfo fwk.NodeInfo) (int64, *fwk.Status) {
	r, status := pl.readOrWorkOut(state, pod)
	if r == nil {
		return 0, status
	}
	node := nodeInfo.Node()
	if c, ok := r.classes.Class(node); ok && r.scores != nil {
		return r.scores[c], nil
	}
	host := podneeds.HostOf(node)
	return r.score(&host, podneeds.Retiring(node)), nil
}

// score is the raw score of a host: not retiring, then an exact build,
// then the closeness of its revision to the one a tag named.
func (r *requirements) score(host *windows.Host, retiring bool) int64 {
	var score int64
	if !retiring {
		score = stayingNode
	}
	if !r.Exact(host) {
		return score
	}
	score += exactBuild
	v, target := host.Version, r.Target()
	if target.HasRevision && v.HasRevision && v.Build == target.Build {
		d := int64(v.Revision) - int64(target.Revision)
		if d < 0 {
			d = -d
		}
		score += revisionSpan - min(d, revisionSpan)
	}
	return score
}

// ScoreExtensions returns the plugin, for NormalizeScore.
func (pl *WindowsAware) ScoreExtensions() fwk.ScoreExtensions { return pl }

// NormalizeScore maps the raw scores linearly onto 0-100, the worst node at
// 0 and the best at 100, so that a closer revision always wins.
func (pl *WindowsAware) NormalizeScore(_ context.Context, _ fwk.CycleState, _ *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	if len(scores) == 0 {
		return nil
	}
	lo, hi := scores[0].Score, scores[0].Score
	for _, s := range scores {
		lo, hi = min(lo, s.Score), max(hi, s.Score)
	}
	for i := range scores {
		if hi == lo {
			scores[i].Score = 0
			continue
		}
		scores[i].Score = (scores[i].Score - lo) * fwk.MaxNodeScore / (hi - lo)
	}
	return nil
}
