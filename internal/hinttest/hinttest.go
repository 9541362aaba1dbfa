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

// Package hinttest runs a scheduler plugin's queueing hint over a table of
// node events, for the plugins' tests.
package hinttest

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
)

// NodeCase is a node event and the hint it should give for a pod; Old is
// nil for a node added.
type NodeCase struct {
	Name     string
	Pod      *v1.Pod
	Old, New *v1.Node
	Want     fwk.QueueingHint
}

// CheckNodes runs hint on each case, as a subtest.
func CheckNodes(t *testing.T, hint fwk.QueueingHintFn, tests []NodeCase) {
	t.Helper()
	logger, _ := ktesting.NewTestContext(t)
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			var old any
			if tt.Old != nil {
				old = tt.Old
			}
			got, err := hint(logger, tt.Pod, old, tt.New)
			if err != nil || got != tt.Want {
				t.Errorf("hint = %v, %v; want %v", got, err, tt.Want)
			}
		})
	}
}
