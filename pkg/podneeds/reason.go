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

import (
	"slices"

	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Unschedulable reasons, one per verdict, constant so that the scheduler
// aggregates them as "0/N nodes are available: 3 node(s) didn't match
// Pod's OS, ...".
const (
	ReasonOS             = "node(s) didn't match Pod's OS"
	ReasonBuild          = "node(s) had an incompatible Windows build"
	ReasonNoBuild        = "node(s) didn't report a Windows build"
	ReasonMalformedBuild = "node(s) had a malformed Windows build label"
	ReasonArch           = "node(s) didn't match the image's architecture"
)

// reasons maps each verdict but Fits to its reason.
var reasons = [...]string{
	windows.WrongOS:        ReasonOS,
	windows.NoBuild:        ReasonNoBuild,
	windows.MalformedBuild: ReasonMalformedBuild,
	windows.WrongBuild:     ReasonBuild,
	windows.WrongArch:      ReasonArch,
}

// Reason is the unschedulable reason of a verdict, "" for Fits.
func Reason(f windows.Fit) string {
	if int(f) >= len(reasons) {
		return ""
	}
	return reasons[f]
}

// IsFitReason reports whether reason is one the node-fit rule gives (a
// node's OS, build or architecture), rather than another plugin's.
func IsFitReason(reason string) bool {
	return reason != "" && slices.Contains(reasons[:], reason)
}
