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

package scheme

import (
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	configv1 "github.com/windows-aware/windows-aware/pkg/apis/config/v1"
)

// DefaultArgs returns the args a configuration that leaves them out gets,
// defaulted and converted by the same scheme as a written configuration.
func DefaultArgs() *config.WindowsAwareArgs {
	versioned := &configv1.WindowsAwareArgs{}
	Scheme.Default(versioned)
	internal := &config.WindowsAwareArgs{}
	if err := Scheme.Convert(versioned, internal, nil); err != nil {
		panic(err) // the types are this package's own: a bug, not input
	}
	return internal
}
