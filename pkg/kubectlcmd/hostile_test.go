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
)

// hostile are what a tenant or a registry may write where status quotes
// it: a cursor move, OSC 52 (a command put on the clipboard), BEL, a
// carriage return, a newline that forges a row.
var hostile = []string{
	"\x1b[2K\x1b[1A",
	"\x1b]52;c;a3ViZWN0bCBkZWxldGUgbnMgcHJvZA==\x07",
	"\x07",
	"\rfix: kubectl delete ns prod",
	"\nteam-b/web  1m  ready",
}

func checkNoControl(t *testing.T, what, out string) {
	t.Helper()
	for _, c := range []byte(out) {
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			t.Fatalf("%s holds control byte %#x:\n%q", what, c, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "team-b/web") || strings.HasPrefix(l, "fix: kubectl delete") {
			t.Fatalf("%s holds a forged line %q:\n%s", what, line, out)
		}
	}
}

// TestStatusEscapesWhatTenantsWrite: a gated pod's images, an Event's
// message (a registry's error among them), a changed tag and a staying
// pod's reason reach status's text escaped, one line each.
func TestStatusEscapesWhatTenantsWrite(t *testing.T) {
	now := time.Now()
	for _, h := range hostile {
		s := &Status{
			Gated:         []GatedPod{{Namespace: "team-a", Name: "held", Since: metav1.NewTime(now), Images: []string{"acme/web:" + h}}},
			Refusals:      []Refusal{{Namespace: "team-a", Pod: "held", Reason: "ImagePlatformsUnknown", Message: "registry said " + h, Last: metav1.NewTime(now)}},
			BuildsChanged: []ChangedTag{{Image: "acme/web:1" + h, Namespace: "team-a", Pod: "p", Message: "now " + h, Last: metav1.NewTime(now)}},
			Retiring:      &RetiringStatus{Nodes: 1, Pods: 1, Staying: []StayingPod{{Namespace: "team-a", Name: "p", Node: "w1", Why: "because " + h}}},
		}
		var out bytes.Buffer
		if err := writeStatus(&out, s, now); err != nil {
			t.Fatal(err)
		}
		checkNoControl(t, "status", out.String())
	}
}

// TestCommandOutputEscaped: whatever a report lets through, the plugin's
// streams escape: an error naming a file whose name holds control
// characters reaches the terminal escaped.
func TestCommandOutputEscaped(t *testing.T) {
	for _, h := range hostile {
		var out, errOut bytes.Buffer
		cmd := NewCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		cmd.SetArgs([]string{"explain", "--local", "-f", t.TempDir() + "/missing" + h + ".yaml"})
		_ = cmd.Execute()
		checkNoControl(t, "standard output", out.String())
		checkNoControl(t, "standard error", errOut.String())
		if !strings.Contains(errOut.String(), "missing") {
			t.Errorf("standard error does not name the file: %q", errOut.String())
		}
	}
}
