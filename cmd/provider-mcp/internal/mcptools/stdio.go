package mcptools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one message line on standard input, as the SDK bounds it
// (mcp.DefaultMaxLineLength).
const MaxLineBytes = mcp.DefaultMaxLineLength

// JSON-RPC's codes for a message that is not JSON, and for JSON that is no request.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
)

// Stdio is the tool server's transport over in and out (standard input and output): the SDK's
// newline-delimited JSON-RPC, except that a line that is not JSON (or is over MaxLineBytes) is
// answered with a JSON-RPC parse error (-32700, id null), and a JSON line that is no JSON-RPC
// message nor batch of them with an invalid request error (-32600, id null); the line is
// skipped and the session goes on, where the SDK's own transport would end it. Blank lines are
// skipped.
func Stdio(in io.Reader, out io.Writer) mcp.Transport { return stdio{in: in, out: &lineWriter{w: out}} }

type stdio struct {
	in  io.Reader
	out *lineWriter
}

// Connect starts passing the JSON lines of in to the SDK's transport.
func (t stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(forward(t.in, pw, t.out, MaxLineBytes)) }()
	return (&mcp.IOTransport{Reader: pr, Writer: t.out}).Connect(ctx)
}

// lineWriter writes whole messages, one Write each, one at a time: the SDK's answers and the
// parse errors share the output.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves the output open: it is the process's standard output.
func (l *lineWriter) Close() error { return nil }

// forward copies each line of in that is a JSON-RPC message or batch, of at most max bytes, to
// messages, newline-terminated, and answers each other non-blank line on errs with a JSON-RPC
// error. It returns nil at the end of in, or the error that stopped it.
func forward(in io.Reader, messages io.Writer, errs io.Writer, max int) error {
	r := bufio.NewReader(in)
	for {
		line, over, err := readLine(r, max)
		if len(bytes.TrimSpace(line)) > 0 || over {
			var werr error
			switch {
			case over:
				werr = answerError(errs, CodeParseError, fmt.Sprintf("Parse error: the line is over %d bytes", max))
			case !json.Valid(line):
				werr = answerError(errs, CodeParseError, "Parse error: the line is not JSON")
			case notMessage(line) != nil:
				werr = answerError(errs, CodeInvalidRequest, "Invalid Request: "+notMessage(line).Error())
			default:
				_, werr = messages.Write(append(line, '\n'))
			}
			if werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads one line without its line ending, at most max bytes of it; over says the line
// was longer, its rest read and dropped.
func readLine(r *bufio.Reader, max int) (line []byte, over bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		if !over && len(line)+len(frag) <= max+2 { // room for the line ending
			line = append(line, frag...)
		} else {
			over, line = true, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) > max {
			over, line = true, nil
		}
		return line, over, err
	}
}

// notMessage says why a JSON value is no JSON-RPC message nor non-empty batch of them; nil when
// it is one.
func notMessage(line []byte) error {
	var batch []json.RawMessage
	if json.Unmarshal(line, &batch) != nil {
		_, err := jsonrpc.DecodeMessage(line)
		return err
	}
	if len(batch) == 0 {
		return errors.New("an empty batch")
	}
	for _, m := range batch {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			return err
		}
	}
	return nil
}

// answerError writes the JSON-RPC error answer to a line that is no message: its id is null,
// no id being readable from it.
func answerError(w io.Writer, code int, message string) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": message}})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
