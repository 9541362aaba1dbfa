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

package webhookcert

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// jsonPatchOp is one operation of an RFC 6902 JSON patch.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// CABundlePatch is the JSON patch that sets want as the caBundle of every
// webhook of a configuration that lacks it, the webhooks being named
// names and holding have, in order. It first tests each webhook's name at
// its index, so that a configuration changed in between is not patched at
// the wrong place. It returns nil and 0 when every webhook has want, else
// the patch and the number of webhooks it sets. The mutating and the
// validating configurations alike take it.
func CABundlePatch(want []byte, names []string, have [][]byte) ([]byte, int, error) {
	var ops []jsonPatchOp
	for i, name := range names {
		if bytes.Equal(have[i], want) {
			continue
		}
		ops = append(ops,
			jsonPatchOp{Op: "test", Path: fmt.Sprintf("/webhooks/%d/name", i), Value: name},
			jsonPatchOp{Op: "add", Path: fmt.Sprintf("/webhooks/%d/clientConfig/caBundle", i), Value: want})
	}
	if len(ops) == 0 {
		return nil, 0, nil
	}
	patch, err := json.Marshal(ops)
	return patch, len(ops) / 2, err
}
