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

package podneeds_test

import (
	"strings"
	"testing"

	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

// TestNewForProfile: the args the plugin's validation refuses build no
// Decider, and the error names the profile; valid args build one.
func TestNewForProfile(t *testing.T) {
	if d, err := podneeds.NewForProfile("windows-aware", scheme.DefaultArgs()); err != nil || d == nil {
		t.Fatalf("the default args: %v, %v", d, err)
	}
	args := scheme.DefaultArgs()
	args.CompatibilityMode = "sideways"
	_, err := podneeds.NewForProfile("windows-aware", args)
	if err == nil || !strings.HasPrefix(err.Error(), `profile "windows-aware": invalid WindowsAwareArgs: `) {
		t.Fatalf("compatibilityMode %q: error %v", args.CompatibilityMode, err)
	}
}
