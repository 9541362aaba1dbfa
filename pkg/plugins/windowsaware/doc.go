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

// Package windowsaware holds the scheduler plugins of the windows-aware
// profile, a thin layer over the rules of package windows:
//
//   - WindowsAware works out in PreFilter which OS and which Windows build a
//     pod needs, rejects in Filter the nodes that cannot run it, and prefers
//     in Score the node whose build is the closest match;
//   - OSTaintToleration takes the place of TaintToleration's Filter, letting
//     a pod that WindowsAware matched to an OS tolerate that OS's taints
//     (os=windows:NoSchedule) without a toleration of its own.
package windowsaware
