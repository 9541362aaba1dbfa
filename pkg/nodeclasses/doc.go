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

// Package nodeclasses classifies a scheduler's nodes by what the
// windows-aware decision reads of them (OS, architecture, Windows build)
// and by whether they are retiring (the label Score reads),
// so that a pod's verdict is worked out once per class.
//
// A node's OS and build change only when the node object changes, and a
// cluster has a handful of distinct (OS, architecture, build) combinations.
// So each node object is classified once, when the informer delivers it,
// and a pod's verdict is worked out once per class in PreFilter; Filter and
// Score then find the node's class and index the verdict, never touching
// the node's labels.
//
// The table is keyed by the node object's identity. The scheduler's cache
// and snapshot hold the very objects the informer delivers, and replace a
// node's object on every change rather than modifying it, so an entry
// describes its key exactly and can never be stale: a node whose labels
// changed is a new key, which the table either holds with its new facts or
// does not hold yet, and then Filter reads its labels. The table keeps the
// objects it holds alive, so no newer object can reuse an address it knows.
//
// The table also keeps the names of each class's nodes, so that PreFilter
// can name the nodes that fit a pod as a union of a few sets instead of
// walking every node of the snapshot (the plugin's narrowing). A node's status updates
// replace its object without moving it to another class, so they leave the
// sets alone; a set is copied only when a node joins or leaves its class.
package nodeclasses
