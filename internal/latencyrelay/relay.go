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

// Package latencyrelay is a TCP relay on loopback that delays every byte
// by a fixed time in each direction, as a network hop to a managed control
// plane does. TLS passes through untouched, so a client sees the server
// itself, later. Tests put it between a component and the API server.
package latencyrelay

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// Relay forwards connections on Addr to a target, each byte delayed.
type Relay struct {
	listener net.Listener
	target   string
	delay    time.Duration

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Start listens on 127.0.0.1 and relays to target ("host:port"), each
// direction delayed by oneWay.
func Start(target string, oneWay time.Duration) (*Relay, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Relay{listener: l, target: target, delay: oneWay, conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// Addr is the relay's "127.0.0.1:port".
func (r *Relay) Addr() string { return r.listener.Addr().String() }

// Close stops accepting, cuts every relayed connection and waits for them.
func (r *Relay) Close() error {
	r.mu.Lock()
	r.closed = true
	for c := range r.conns {
		_ = c.Close()
	}
	r.mu.Unlock()
	err := r.listener.Close()
	r.wg.Wait()
	return err
}

func (r *Relay) accept() {
	defer r.wg.Done()
	for {
		client, err := r.listener.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", r.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		if !r.track(client, server) {
			return
		}
		r.wg.Add(2)
		go r.pipe(server, client)
		go r.pipe(client, server)
	}
}

// track records both ends, or closes them when the relay is closing.
func (r *Relay) track(conns ...net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	for _, c := range conns {
		r.conns[c] = struct{}{}
	}
	return true
}

// chunk is what one read got, and when.
type chunk struct {
	data []byte
	at   time.Time
}

// pipe copies from src to dst, writing each chunk delay after it was read
// and in order, so that the delay adds latency and takes no throughput.
// When either side ends, both are closed.
func (r *Relay) pipe(dst, src net.Conn) {
	defer r.wg.Done()
	chunks := make(chan chunk, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for c := range chunks {
			time.Sleep(time.Until(c.at.Add(r.delay)))
			if _, err := dst.Write(c.data); err != nil {
				_ = src.Close()
				for range chunks { // drain until the reader ends
				}
				return
			}
		}
		// Half-close where TCP allows it, so that a peer that reads to
		// EOF sees one; else close.
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		} else {
			_ = dst.Close()
		}
	}()
	for {
		buf := make([]byte, 32<<10)
		n, err := src.Read(buf)
		if n > 0 {
			chunks <- chunk{data: buf[:n], at: time.Now()}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				_ = dst.Close()
			}
			break
		}
	}
	close(chunks)
	<-done
	r.mu.Lock()
	delete(r.conns, src)
	r.mu.Unlock()
}
