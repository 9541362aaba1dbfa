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

// Package osmatch is what the WindowsAware plugin's PreFilter leaves in the
// cycle state for the OSTaintToleration plugin: the OS the pod was matched
// to, as the toleration of that OS's taints, and each node's OS as
// WindowsAware's node classes read it. OSTaintToleration needs nothing
// else of WindowsAware, and does not import it.
package osmatch

import (
	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// StateKey is where WindowsAware's PreFilter writes the pod's Match.
const StateKey fwk.StateKey = "PreFilterWindowsAware"

// Match is WindowsAware's decision, as the cycle state holds it.
type Match interface {
	fwk.StateData
	// OSToleration is the toleration of the OS taints that the pod's OS
	// grants it; nil when it grants none.
	OSToleration() *podneeds.OSToleration
	// OSOf is the node's OS, read from its class where WindowsAware knows
	// it, so that filtering reads no labels.
	OSOf(node *v1.Node) string
}

// Read returns the Match in state, if WindowsAware's PreFilter wrote one.
func Read(state fwk.CycleState) (Match, bool) {
	data, err := state.Read(StateKey)
	if err != nil {
		return nil, false
	}
	m, ok := data.(Match)
	return m, ok
}
