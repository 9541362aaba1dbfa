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

package v1

import (
	"k8s.io/apimachinery/pkg/conversion"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
)

// Convert_v1_WindowsAwareArgs_To_config_WindowsAwareArgs converts the
// optional versioned OSTaints and ImageResolution into the always-present
// internal ones.
func Convert_v1_WindowsAwareArgs_To_config_WindowsAwareArgs(in *WindowsAwareArgs, out *config.WindowsAwareArgs, s conversion.Scope) error {
	if err := autoConvert_v1_WindowsAwareArgs_To_config_WindowsAwareArgs(in, out, s); err != nil {
		return err
	}
	out.OSTaints = config.OSTaints{}
	if in.OSTaints != nil {
		if err := Convert_v1_OSTaints_To_config_OSTaints(in.OSTaints, &out.OSTaints, s); err != nil {
			return err
		}
	}
	out.ImageResolution = config.ImageResolution{}
	if in.ImageResolution == nil {
		return nil
	}
	return Convert_v1_ImageResolution_To_config_ImageResolution(in.ImageResolution, &out.ImageResolution, s)
}

// Convert_config_WindowsAwareArgs_To_v1_WindowsAwareArgs is the reverse of
// Convert_v1_WindowsAwareArgs_To_config_WindowsAwareArgs.
func Convert_config_WindowsAwareArgs_To_v1_WindowsAwareArgs(in *config.WindowsAwareArgs, out *WindowsAwareArgs, s conversion.Scope) error {
	if err := autoConvert_config_WindowsAwareArgs_To_v1_WindowsAwareArgs(in, out, s); err != nil {
		return err
	}
	out.OSTaints = &OSTaints{}
	if err := Convert_config_OSTaints_To_v1_OSTaints(&in.OSTaints, out.OSTaints, s); err != nil {
		return err
	}
	out.ImageResolution = &ImageResolution{}
	return Convert_config_ImageResolution_To_v1_ImageResolution(&in.ImageResolution, out.ImageResolution, s)
}
