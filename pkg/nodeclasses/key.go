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

package nodeclasses

import (
	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/podneeds"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

// Key is what sets a node's class apart: what the decision reads of the
// node (its Host), and whether it is retiring, which Score reads. The
// retiring label is part of the class so that Score finds it by the same
// lookup as the verdict, without reading the node's labels.
type Key struct {
	windows.Host
	Retiring bool
}

// KeyOf reads a node's class key. It does not allocate.
func KeyOf(node *v1.Node) Key {
	return Key{Host: podneeds.HostOf(node), Retiring: podneeds.Retiring(node)}
}
