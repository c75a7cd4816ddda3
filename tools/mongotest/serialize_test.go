package main

import (
	"bytes"
	"encoding/binary"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
)

// opMsgBytes builds an OP_MSG with a document sequence section before the body, which the
// protocol allows and the parser must step over.
func opMsgBytes(t *testing.T, flags uint32, body bson.D) []byte {
	t.Helper()
	raw, err := bson.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := bson.Marshal(bson.D{{Key: "_id", Value: 1}})
	seq := append(binary.LittleEndian.AppendUint32(nil, uint32(4+len("documents")+1+len(doc))), "documents\x00"...)
	seq = append(seq, doc...)

	var b bytes.Buffer
	b.Write(make([]byte, 16))
	b.Write(binary.LittleEndian.AppendUint32(nil, flags))
	b.WriteByte(1)
	b.Write(seq)
	b.WriteByte(0)
	b.Write(raw)
	msg := b.Bytes()
	binary.LittleEndian.PutUint32(msg[0:4], uint32(len(msg)))
	binary.LittleEndian.PutUint32(msg[4:8], 7)
	binary.LittleEndian.PutUint32(msg[12:16], opMsg)
	return msg
}

func TestSerializedTarget(t *testing.T) {
	cases := []struct {
		name  string
		flags uint32
		body  bson.D
		coll  string
		ok    bool
	}{
		{"update", 0, bson.D{{Key: "update", Value: "records"}, {Key: "$db", Value: "d"}}, "records", true},
		{"findAndModify", 0, bson.D{{Key: "findAndModify", Value: "counters"}}, "counters", true},
		{"delete", 0, bson.D{{Key: "delete", Value: "data~g~c"}}, "data~g~c", true},
		{"find passes", 0, bson.D{{Key: "find", Value: "records"}}, "", false},
		{"insert passes", 0, bson.D{{Key: "insert", Value: "records"}}, "", false},
		{"no response expected", flagMoreToCome, bson.D{{Key: "update", Value: "records"}}, "", false},
		{"non-string command value", 0, bson.D{{Key: "update", Value: 1}}, "", false},
	}
	for _, tc := range cases {
		coll, ok := serializedTarget(opMsgBytes(t, tc.flags, tc.body))
		if coll != tc.coll || ok != tc.ok {
			t.Errorf("%s: serializedTarget = %q, %v; want %q, %v", tc.name, coll, ok, tc.coll, tc.ok)
		}
	}
	// Truncated messages are passed through, never misread.
	msg := opMsgBytes(t, 0, bson.D{{Key: "update", Value: "records"}})
	for n := 0; n < len(msg)-1; n++ {
		if _, ok := serializedTarget(msg[:n]); ok {
			t.Errorf("serializedTarget accepted a message cut to %d of %d bytes", n, len(msg))
		}
	}
}
