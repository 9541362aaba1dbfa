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
	"bytes"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/windows-aware/windows-aware/internal/fixture"
)

// TestStatusEscapesWhatTenantsWrite: a gated pod's images, an Event's
// message (a registry's error among them), a changed tag, a staying pod's
// reason and a rejected pod's scheduler (which its author names) reach
// status's text escaped, one line each.
func TestStatusEscapesWhatTenantsWrite(t *testing.T) {
	now := time.Now()
	for _, h := range fixture.HostileText {
		s := &Status{
			Gated:         []GatedPod{{Namespace: "team-a", Name: "held", Since: metav1.NewTime(now), Images: []string{"acme/web:" + h}}},
			Refusals:      []Refusal{{Namespace: "team-a", Pod: "held", Reason: "ImagePlatformsUnknown", Message: "registry said " + h, Last: metav1.NewTime(now)}},
			BuildsChanged: []ChangedTag{{Image: "acme/web:1" + h, Namespace: "team-a", Pod: "p", Message: "now " + h, Last: metav1.NewTime(now)}},
			Retiring:      &RetiringStatus{Nodes: 1, Pods: 1, Staying: []StayingPod{{Namespace: "team-a", Name: "p", Node: "w1", Why: "because " + h}}},
			KubeletRejected: KubeletRejected{Count: 1, Reasons: []Tally{{"OutOf" + h, 1}}, BySchedulers: []Tally{{"mine" + h, 1}},
				Pods: []RejectedPod{{Namespace: "team-a", Name: "p" + h, Node: "w1" + h, Reason: "OutOf" + h, Scheduler: "mine" + h, Rejected: metav1.NewTime(now)}}},
		}
		var out bytes.Buffer
		if err := writeStatus(&out, s, now); err != nil {
			t.Fatal(err)
		}
		fixture.CheckPrintable(t, "status", out.String())
	}
}

// TestCommandOutputEscaped: whatever a report lets through, the plugin's
// streams escape: an error naming a file whose name holds control
// characters reaches the terminal escaped.
func TestCommandOutputEscaped(t *testing.T) {
	for _, h := range fixture.HostileText {
		var out, errOut bytes.Buffer
		cmd := NewCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		cmd.SetArgs([]string{"explain", "--local", "-f", t.TempDir() + "/missing" + h + ".yaml"})
		_ = cmd.Execute()
		fixture.CheckPrintable(t, "standard output", out.String())
		fixture.CheckPrintable(t, "standard error", errOut.String())
		if !strings.Contains(errOut.String(), "missing") {
			t.Errorf("standard error does not name the file: %q", errOut.String())
		}
	}
}
