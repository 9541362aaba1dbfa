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

package podneeds

import "fmt"

// ConflictKind names the way a pod contradicts itself, for metrics and for
// tools that lint manifests: a small fixed set, unlike the messages, which
// name images and builds.
type ConflictKind string

const (
	// ConflictOSVsImage: .spec.os.name linux with a Windows image.
	ConflictOSVsImage ConflictKind = "os_vs_image"
	// ConflictBuildsNoHost: images that need builds no single host runs.
	ConflictBuildsNoHost ConflictKind = "builds_no_host"
	// ConflictTagTwoBuilds: one tag names two builds (1809-ltsc2022).
	ConflictTagTwoBuilds ConflictKind = "tag_two_builds"
	// ConflictSelectorOS: a selector pins kubernetes.io/os to another OS.
	ConflictSelectorOS ConflictKind = "selector_os"
	// ConflictSelectorBuild: a selector pins node.kubernetes.io/windows-build
	// to builds that cannot run the images.
	ConflictSelectorBuild ConflictKind = "selector_build"
	// ConflictOther: a conflict of none of the kinds above, such as an
	// image whose registry could not tell under onFailure Reject.
	ConflictOther ConflictKind = "other"
)

// ConflictKinds lists every kind.
var ConflictKinds = []ConflictKind{
	ConflictOSVsImage, ConflictBuildsNoHost, ConflictTagTwoBuilds,
	ConflictSelectorOS, ConflictSelectorBuild, ConflictOther,
}

// Conflict is a pod that no node can run, whatever the cluster holds: the
// scheduler rejects it as UnschedulableAndUnresolvable with Message, which
// names the images and builds that contradict each other, and counts it by
// Kind.
type Conflict struct {
	Kind    ConflictKind
	Message string
}

func (c *Conflict) Error() string { return c.Message }

func conflictf(kind ConflictKind, format string, args ...any) *Conflict {
	return &Conflict{Kind: kind, Message: fmt.Sprintf(format, args...)}
}
