package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// FerretDB 1.24 does not apply a conditional write atomically: for update, findAndModify and
// delete it runs the query, evaluates the filter in Go, and then writes by _id alone
// (UPDATE ... WHERE _id = $2). Two compare-and-swaps on the same version therefore both
// succeed, and concurrent $inc operations lose or repeat increments. MongoDB applies each
// single-document write atomically, and the store's mongo backend relies on exactly that.
//
// So that the tests check the backend against MongoDB's semantics rather than against this
// FerretDB defect, the server is reached through serializer: a wire-protocol relay that lets one
// update, findAndModify or delete command at a time run per collection name. Reads, inserts
// (whose unique _id PostgreSQL enforces) and other commands pass through untouched. Without it
// (-serialize-writes=false) the store's concurrency tests fail on FerretDB, which is what a
// deployment on FerretDB 1.x with concurrent writers would see.

// serializedCommands are the commands that read, decide and write.
var serializedCommands = map[string]bool{
	"update": true, "findAndModify": true, "findandmodify": true, "delete": true,
}

const (
	opMsg           = 2013
	flagMoreToCome  = 1 << 1
	maxMessageBytes = 48 << 20
)

// serializer relays connections to upstream, one upstream connection per client connection.
type serializer struct {
	upstream string

	mu    sync.Mutex
	locks map[string]*sync.Mutex // per collection name
}

func newSerializer(upstream string) *serializer {
	return &serializer{upstream: upstream, locks: map[string]*sync.Mutex{}}
}

func (s *serializer) lockFor(coll string) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.locks[coll]
	if l == nil {
		l = new(sync.Mutex)
		s.locks[coll] = l
	}
	return l
}

// serve accepts connections until ln is closed.
func (s *serializer) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go s.relay(c)
	}
}

// relay pumps messages both ways. A serialized command takes its collection's lock before it is
// forwarded, and the lock is released when the response to it (matched by responseTo) comes
// back, or when either side hangs up. The driver has at most one request in flight per
// connection, so a connection holds at most one lock and waits for nothing else while it does.
func (s *serializer) relay(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", s.upstream)
	if err != nil {
		return
	}
	defer server.Close()

	var mu sync.Mutex
	held := map[int32]*sync.Mutex{} // requestID -> lock held for it
	release := func(id int32) {
		mu.Lock()
		l := held[id]
		delete(held, id)
		mu.Unlock()
		if l != nil {
			l.Unlock()
		}
	}
	defer func() {
		mu.Lock()
		ids := make([]int32, 0, len(held))
		for id := range held {
			ids = append(ids, id)
		}
		mu.Unlock()
		for _, id := range ids {
			release(id)
		}
	}()

	responses := make(chan struct{})
	go func() {
		defer close(responses)
		defer client.Close()
		for {
			msg, err := readMessage(server)
			if err != nil {
				return
			}
			release(int32(binary.LittleEndian.Uint32(msg[8:12])))
			if _, err := client.Write(msg); err != nil {
				return
			}
		}
	}()

	for {
		msg, err := readMessage(client)
		if err != nil {
			break
		}
		if coll, ok := serializedTarget(msg); ok {
			l := s.lockFor(coll)
			l.Lock()
			mu.Lock()
			held[int32(binary.LittleEndian.Uint32(msg[4:8]))] = l
			mu.Unlock()
		}
		if _, err := server.Write(msg); err != nil {
			break
		}
	}
	server.Close()
	<-responses
}

// readMessage reads one whole wire-protocol message (header included).
func readMessage(r io.Reader) ([]byte, error) {
	var header [16]byte
	if _, err := io.ReadFull(r, header[:]); err != nil {
		return nil, err
	}
	n := int(binary.LittleEndian.Uint32(header[:4]))
	if n < 16 || n > maxMessageBytes {
		return nil, fmt.Errorf("bad message length %d", n)
	}
	msg := make([]byte, n)
	copy(msg, header[:])
	if _, err := io.ReadFull(r, msg[16:]); err != nil {
		return nil, err
	}
	return msg, nil
}

// serializedTarget returns the collection of an OP_MSG that runs a serialized command and
// expects a response. The command is the first element of the body section (kind 0), and its
// value is the collection name.
func serializedTarget(msg []byte) (string, bool) {
	if len(msg) < 21 || binary.LittleEndian.Uint32(msg[12:16]) != opMsg {
		return "", false
	}
	if binary.LittleEndian.Uint32(msg[16:20])&flagMoreToCome != 0 {
		return "", false // no response will come to release the lock
	}
	for rest := msg[20:]; len(rest) > 0; {
		kind := rest[0]
		rest = rest[1:]
		if len(rest) < 4 {
			return "", false
		}
		size := int(binary.LittleEndian.Uint32(rest[:4]))
		if size < 5 || size > len(rest) {
			return "", false
		}
		if kind == 0 {
			name, value, err := firstString(rest[:size])
			if err != nil || !serializedCommands[name] {
				return "", false
			}
			return value, true
		}
		rest = rest[size:]
	}
	return "", false
}

// firstString decodes the first element of a BSON document when it is a string.
func firstString(doc []byte) (name, value string, err error) {
	bad := errors.New("not a command with a string value")
	if len(doc) < 7 || doc[4] != 0x02 {
		return "", "", bad
	}
	elem := doc[5:]
	end := 0
	for end < len(elem) && elem[end] != 0 {
		end++
	}
	if end+5 > len(elem) {
		return "", "", bad
	}
	name = string(elem[:end])
	elem = elem[end+1:]
	n := int(binary.LittleEndian.Uint32(elem[:4]))
	if n < 1 || 4+n > len(elem) {
		return "", "", bad
	}
	return name, string(elem[4 : 4+n-1]), nil
}
