package windowsaware

import (
	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	configv1 "github.com/windows-aware/windows-aware/pkg/apis/config/v1"
)

// DefaultArgs returns the args a configuration that leaves them out gets,
// defaulted and converted by the same scheme as a written configuration.
func DefaultArgs() *config.WindowsAwareArgs {
	versioned := &configv1.WindowsAwareArgs{}
	scheme.Scheme.Default(versioned)
	internal := &config.WindowsAwareArgs{}
	if err := scheme.Scheme.Convert(versioned, internal, nil); err != nil {
		panic(err) // the types are this package's own: a bug, not input
	}
	return internal
}
