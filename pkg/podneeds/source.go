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

// Source says where a part of a decision came from.
type Source string

const (
	// SourceSpec: the pod's .spec.os.name.
	SourceSpec Source = "spec"
	// SourceTag: an image reference's tag (or a mcr.microsoft.com/windows
	// repository).
	SourceTag Source = "tag"
	// SourceRegistry: the platforms the image's registry lists.
	SourceRegistry Source = "registry"
	// SourceHostProcess: a HostProcess pod runs on a Windows host.
	SourceHostProcess Source = "hostProcess"
	// SourceSelector: a required node selector or affinity of the pod
	// (with its RuntimeClass's merged in) pins kubernetes.io/os.
	SourceSelector Source = "selector"
	// SourceDefault: the defaultOS of the profile's args.
	SourceDefault Source = "default"
	// SourceDaemonSet: a DaemonSet's pod that says nothing of its OS
	// takes the OS of the node its controller pins it to, as it would
	// under any scheduler: the defaultOS is for choosing among nodes.
	SourceDaemonSet Source = "daemonSet"
)

// Declared reports whether an OS of this source stands whatever a registry
// later tells: the pod's spec, an image's tag, HostProcess. An OS from the
// default or a selector may yet be overruled by a registry.
func (s Source) Declared() bool {
	return s == SourceSpec || s == SourceTag || s == SourceHostProcess
}
