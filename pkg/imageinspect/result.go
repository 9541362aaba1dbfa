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

package imageinspect

import "github.com/windows-aware/windows-aware/pkg/windows"

// State is where the resolution of an image stands.
type State uint8

// The states of a Result.
const (
	// StatePending: the resolver has been asked and has no answer yet.
	StatePending State = iota
	// StateResolved: Platforms holds the image's platforms.
	StateResolved
	// StateFailed: the registry could not tell; Class and Err say why.
	StateFailed
)

func (s State) String() string {
	switch s {
	case StatePending:
		return "pending"
	case StateResolved:
		return "resolved"
	case StateFailed:
		return "failed"
	}
	return "unknown"
}

// Result is what the resolver knows of one image. It is a value: the
// Platforms slice is shared and must not be modified.
type Result struct {
	State State
	// Platforms are the image's platforms: one per index entry (attestation
	// entries left out), or the single image's. A Windows platform with a
	// zero Version runs on any build.
	Platforms []windows.Platform
	// Summary is what the scheduler reads of Platforms, worked out once
	// when they were stored.
	Summary windows.Summary
	// Digest is the manifest or index digest the facts were read from.
	Digest string
	// Class says why a failed resolution failed.
	Class ErrorClass
	// Err is the failure, naming the image and the registry host.
	Err error
	// Stale is set on the facts of a tag older than the tag TTL: they are
	// still served, and Want refreshes them in the background.
	Stale bool
	// Changed is set on a tag's facts when its last resolution found
	// other Windows builds than the facts it replaced; Claim it to tell
	// of it once.
	Changed *BuildsChange
}
