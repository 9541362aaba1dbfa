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

package wellknown

// The reasons of the Events the project's programs put on pods. kubectl
// windows-aware status reads them back (its RefusalReasons, its
// ImageBuildsChanged tags).
const (
	// EventImagePlatformsUnknown is the reason of the Event a pod gets
	// when the registry did not tell an image's platforms in time, and the
	// pod is placed by the tag rules or kept unschedulable, as onFailure
	// says: from the scheduler's WindowsAware, and from the gate remover
	// when it removed the gate under onFailure, so that one name covers
	// both.
	EventImagePlatformsUnknown = "ImagePlatformsUnknown"

	// EventImageBuildsChanged is the reason of the Warning Event the next
	// pod of a tag gets from the scheduler when the tag's Windows builds
	// changed since it was last read.
	EventImageBuildsChanged = "ImageBuildsChanged"

	// EventAutoscalerBlind is the reason of the Event a pod gets from the
	// scheduler when some node that its own constraints admit was rejected
	// for its OS or build.
	EventAutoscalerBlind = "AutoscalerBlind"

	// EventNoRoomAtBind is the reason of the Warning Event on a pod whose
	// bind BindGuard refused.
	EventNoRoomAtBind = "NoRoomAtBind"

	// EventPlatformConflict is the reason of the gate remover's Event when
	// it removed the gate without constraints, as the pod's own
	// constraints contradict what its images need.
	EventPlatformConflict = "PlatformConflict"

	// EventPublishRefused is the reason of the gate remover's Event when
	// the API server refused the constraints (an admission policy, a
	// webhook, a quota, validation); the gate was removed alone.
	EventPublishRefused = "PublishRefused"
)
