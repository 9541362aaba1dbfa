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

package windows

import "strings"

// Summary is what the scheduler's decisions read of one image's
// platforms. It is worked out once, when the platforms become known (the
// resolver stores it beside them), so that deciding for a pod costs the
// same for an index at the entry limit as for a single image.
type Summary struct {
	// Linux and Windows are set when some platform is of that OS.
	Linux, Windows bool
	// Newest is the newest build a Windows platform names, any
	// architecture; zero when none names one. A host of that build runs
	// that entry, so it is where a pod of this image alone fits best
	// (SomeHostRuns).
	Newest Build
}

// NamesBuilds reports whether some Windows platform names a build: only
// such an image narrows the Windows hosts that run it.
func (s Summary) NamesBuilds() bool { return !s.Newest.IsZero() }

// Summarize reads platforms once.
func Summarize(platforms []Platform) Summary {
	var s Summary
	for i := range platforms {
		p := &platforms[i]
		switch {
		case strings.EqualFold(p.OS, OSLinux):
			s.Linux = true
		case strings.EqualFold(p.OS, OSWindows):
			s.Windows = true
			if b := p.Version.Build; !b.IsZero() && newer(b, s.Newest) {
				s.Newest = b
			}
		}
	}
	return s
}
