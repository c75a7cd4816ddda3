package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// exportResult is one measured download of a bulk export file and its ceiling.
type exportResult struct {
	typ              string
	resources, bytes int64
	ours, ceiling    time.Duration
}

// bulkExport measures the FHIR bulk export of one type: a kick-off and its manifest (the server
// must serve reads publicly), then the type's file downloaded to the end and counted, and as
// the ceiling the same bytes served by net/http from a file over loopback and downloaded the
// same way. The file is kept in dir while the ceiling is measured, then removed.
func bulkExport(base, typ, dir string) (exportResult, error) {
	res := exportResult{typ: typ}
	client := &http.Client{} // a national file takes minutes: no overall timeout
	req, err := http.NewRequest(http.MethodGet, base+"/fhir/$export?_type="+typ, nil)
	if err != nil {
		return res, err
	}
	req.Header.Set("Prefer", "respond-async")
	req.Header.Set("Accept", "application/fhir+json")
	resp, err := client.Do(req)
	if err != nil {
		return res, err
	}
	resp.Body.Close()
	status := resp.Header.Get("Content-Location")
	if resp.StatusCode != http.StatusAccepted || status == "" {
		return res, fmt.Errorf("export kick-off: %s, Content-Location %q", resp.Status, status)
	}
	resp, err = client.Get(status)
	if err != nil {
		return res, err
	}
	var m struct {
		Output []struct {
			Type  string `json:"type"`
			URL   string `json:"url"`
			Count int64  `json:"count"`
		} `json:"output"`
	}
	err = json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || len(m.Output) != 1 {
		return res, fmt.Errorf("export status: %s, %d files (%v)", resp.Status, len(m.Output), err)
	}
	f, err := os.CreateTemp(dir, "export-*.ndjson")
	if err != nil {
		return res, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	if res.ours, res.bytes, res.resources, err = download(client, m.Output[0].URL, w); err != nil {
		return res, err
	}
	if err := w.Flush(); err != nil {
		return res, err
	}
	if res.resources != m.Output[0].Count {
		return res, fmt.Errorf("export file: %d resources, the manifest counts %d", res.resources, m.Output[0].Count)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return res, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/fhir+ndjson")
		http.ServeContent(w, r, "", time.Time{}, f)
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	var n int64
	if res.ceiling, n, _, err = download(client, "http://"+ln.Addr().String()+"/", io.Discard); err == nil && n != res.bytes {
		err = fmt.Errorf("ceiling: %d bytes of %d", n, res.bytes)
	}
	return res, err
}

// download reads a URL to its end into w, timing it and counting its bytes and lines.
func download(client *http.Client, u string, w io.Writer) (time.Duration, int64, int64, error) {
	start := time.Now()
	resp, err := client.Get(u)
	if err != nil {
		return 0, 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, 0, fmt.Errorf("%s: %s", u, resp.Status)
	}
	var bytesRead, lines int64
	buf := make([]byte, 256<<10)
	for {
		n, err := resp.Body.Read(buf)
		bytesRead += int64(n)
		lines += int64(bytes.Count(buf[:n], []byte("\n")))
		if _, werr := w.Write(buf[:n]); werr != nil {
			return 0, 0, 0, werr
		}
		if err == io.EOF {
			return time.Since(start), bytesRead, lines, nil
		}
		if err != nil {
			return 0, 0, 0, err
		}
	}
}

// String is the report's line.
func (r exportResult) String() string {
	rate := func(d time.Duration) float64 { return float64(r.bytes) / d.Seconds() / 1e6 }
	return fmt.Sprintf("FHIR bulk export of %d %s resources (%.2f GB): ours %.1f s, %.0f resources/s, %.0f MB/s / ceiling (the same file served by net/http over loopback) %.0f MB/s: %.2f of the ceiling",
		r.resources, r.typ, float64(r.bytes)/1e9, r.ours.Seconds(), float64(r.resources)/r.ours.Seconds(), rate(r.ours), rate(r.ceiling), r.ceiling.Seconds()/r.ours.Seconds())
}
