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

package explain

import (
	v1 "k8s.io/api/core/v1"

	"github.com/windows-aware/windows-aware/pkg/inventory"
)

// PoolLabels are the labels that name a node's pool, in the order they are
// read (inventory.PoolLabels: the admission webhook's node inventory reads
// them too).
var PoolLabels = inventory.PoolLabels

// PoolOf names the node's pool; "" when no PoolLabels label is set.
func PoolOf(node *v1.Node) string { return inventory.PoolOf(node) }
