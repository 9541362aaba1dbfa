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
	"sync/atomic"

	fwk "k8s.io/kube-scheduler/framework"
)

// lastCycle remembers the requirements PreFilter last wrote and the cycle
// state it wrote them into. Filter runs once per node: finding the
// requirements by comparing the state with the remembered one costs a
// pointer comparison, where the CycleState's map hashes the key on every
// call (a third of Filter's time for a pod that needs no build). A state
// of any other cycle, or one the framework cloned (preemption, nominated
// pods), does not match and is read as before, so the result is always
// what the state holds.
type lastCycle struct {
	last atomic.Pointer[cycleRequirements]
}

type cycleRequirements struct {
	state fwk.CycleState
	r     *requirements
}

// remember notes that PreFilter wrote r into state.
func (l *lastCycle) remember(state fwk.CycleState, r *requirements) {
	l.last.Store(&cycleRequirements{state: state, r: r})
}

// requirements returns the requirements remembered for state, if state is
// the one they were written into.
func (l *lastCycle) requirements(state fwk.CycleState) (*requirements, bool) {
	if c := l.last.Load(); c != nil && c.state == state {
		return c.r, true
	}
	return nil, false
}
