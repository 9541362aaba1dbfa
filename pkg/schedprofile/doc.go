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

// Package schedprofile reads the windows-aware profile of a
// KubeSchedulerConfiguration as the scheduler reads it (decoded, defaulted
// and converted by its scheme): its schedulerName and its WindowsAware
// args. The publish and warnings webhooks, the gate remover, the kubectl
// plugin and the demo load the scheduler's own configuration through it,
// so that each decides by the args the scheduler runs with.
package schedprofile
