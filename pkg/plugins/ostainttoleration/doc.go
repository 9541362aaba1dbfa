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

// Package ostainttoleration holds the OSTaintToleration plugin: upstream
// TaintToleration's Filter, with one addition. A pod that the WindowsAware
// plugin matched to an OS tolerates the taints that keep other OSes off
// that OS's nodes (os=windows:NoSchedule), as WindowsAwareArgs.osTaints
// configures them, without a toleration of its own. It reads that match
// from WindowsAware's cycle state (package osmatch); without it, it is
// upstream TaintToleration. The rule itself is podneeds.Untolerated.
package ostainttoleration
