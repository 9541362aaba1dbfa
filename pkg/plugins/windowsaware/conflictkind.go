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

package windowsaware

import "github.com/windows-aware/windows-aware/pkg/podneeds"

// conflictKindOfError classifies an error of requirementsOf, which is a
// *podneeds.Conflict itself (a type assertion: errors.As would allocate on
// the scheduling path).
func conflictKindOfError(err error) podneeds.ConflictKind {
	if conflict, ok := err.(*podneeds.Conflict); ok {
		return conflict.Kind
	}
	return podneeds.ConflictOther
}
