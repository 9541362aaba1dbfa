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

package main

import (
	"strings"
	"testing"
)

// TestTLSFlags: the flags choose exactly one source of certificates, and
// self-managed TLS has what it needs to name the certificate and patch the
// configuration.
func TestTLSFlags(t *testing.T) {
	selfManaged := []string{"--tls-secret=kube-system/windows-aware-publish-tls", "--tls-service=windows-aware-publish", "--webhook-configuration=00-windows-aware-publish"}
	files := []string{"--tls-cert-file=/tls/tls.crt", "--tls-private-key-file=/tls/tls.key"}
	for _, tc := range []struct {
		name string
		args []string
		// want is a part of the error; "" when the flags are valid.
		want string
	}{
		{name: "files", args: files},
		{name: "self-managed", args: selfManaged},
		{name: "self-managed with an extra name", args: append(selfManaged, "--tls-extra-names=127.0.0.1,webhook.local")},
		{name: "nothing", want: "--tls-cert-file"},
		{name: "a certificate without its key", args: files[:1], want: "--tls-private-key-file"},
		{name: "both sources", args: append(selfManaged, files...), want: "two sources"},
		{name: "Secret without a namespace", args: []string{"--tls-secret=windows-aware-publish-tls", selfManaged[1], selfManaged[2]}, want: "NAMESPACE/NAME"},
		{name: "Secret with two slashes", args: []string{"--tls-secret=a/b/c", selfManaged[1], selfManaged[2]}, want: "NAMESPACE/NAME"},
		{name: "Secret without a Service", args: []string{selfManaged[0], selfManaged[2]}, want: "--tls-service"},
		{name: "Secret without a configuration", args: selfManaged[:2], want: "--webhook-configuration"},
		{name: "a Service that is no DNS label", args: []string{selfManaged[0], "--tls-service=Publish.Svc", selfManaged[2]}, want: "--tls-service"},
		{name: "a configuration with files", args: append(files, "--webhook-configuration=x"), want: "go with --tls-secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &options{}
			cmd := newCommand()
			if err := cmd.Flags().Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			// The command's flags fill its own options; read them back.
			get := func(name string) string { v, _ := cmd.Flags().GetString(name); return v }
			o.certFile, o.keyFile = get("tls-cert-file"), get("tls-private-key-file")
			o.selfTLS.secret, o.selfTLS.service, o.selfTLS.webhookConfiguration = get("tls-secret"), get("tls-service"), get("webhook-configuration")
			o.selfTLS.extraNames, _ = cmd.Flags().GetStringSlice("tls-extra-names")
			err := o.validateTLS()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("valid flags refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
}
