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

package explain

import (
	"io"
	"strings"
)

// writeDaemonSet writes where a DaemonSet's controller places its pods,
// under its template's block.
func writeDaemonSet(w io.Writer, d *DaemonSetReport) {
	if d == nil {
		return
	}
	field(w, "daemonset", "the DaemonSet controller runs a pod on %d node(s), %d of them wrong", d.Nodes, d.Wrong)
	if len(d.WrongOn) > 0 {
		field(w, "", "wrong: %s", strings.Join(d.WrongOn, ", "))
	}
	if d.RuntimeClass != "" {
		field(w, "", "the controller ignores RuntimeClass %s's nodeSelector and tolerations (kubernetes#111590)", d.RuntimeClass)
	}
	if d.Why != "" {
		field(w, "", "%s", d.Why)
	}
	if d.Fix != "" {
		field(w, "fix", "%s", d.Fix)
	}
}
