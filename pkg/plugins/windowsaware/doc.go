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

// Package windowsaware holds the WindowsAware scheduler plugin of the
// windows-aware profile. The rules live in package windows (what an image
// needs, which host runs it, windows.Mode.Verdict) and the decision built on
// them in package podneeds (what a pod needs, Decision.Verdict), which the
// webhook, the gate controller and explain call too; this package feeds
// them from the scheduler and keeps them off the per-node path.
//
// PreFilter asks podneeds which OS and which Windows platforms a pod needs
// (requirements.go) and its verdict on each node class (package
// nodeclasses: nodes alike in OS, architecture and build, classified once
// per node object from the node informer); Filter and Score look a node's
// class up and index the verdict, reading labels only for a node object
// the class table does not hold yet. For a Windows pod PreFilter also names
// the nodes that can run it (narrow.go). What PreFilter decides is left in
// the cycle state as an osmatch.Match for the OSTaintToleration plugin
// (package ostainttoleration), which takes the place of TaintToleration's
// Filter.
package windowsaware
