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

package latencyrelay

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// TestRelayDelays: a round trip through the relay takes at least twice the
// one-way delay, and the bytes arrive whole and in order.
func TestRelayDelays(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				s := bufio.NewScanner(c)
				for s.Scan() {
					if _, err := c.Write(append(s.Bytes(), '\n')); err != nil {
						return
					}
				}
			}()
		}
	}()
	const oneWay = 40 * time.Millisecond
	r, err := Start(echo.Addr().String(), oneWay)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reader := bufio.NewReader(c)
	for _, line := range []string{"first", "second, longer line", "third"} {
		start := time.Now()
		if _, err := c.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
		got, err := reader.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took < 2*oneWay {
			t.Errorf("round trip of %q took %s, want at least %s", line, took, 2*oneWay)
		}
		if got != line+"\n" {
			t.Errorf("got %q back, want %q", got, line)
		}
	}
}
