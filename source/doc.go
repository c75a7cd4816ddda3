// Package source holds what every reader of a federal provider file shares, written once: the
// opener that turns published bytes (UTF-8 or ISO-8859-1, with or without a byte-order mark, LF
// or CRLF) into UTF-8 text; the header mapping that finds the columns a reader needs by name and
// names the missing ones when a file is mis-headed; the streaming Reader that yields one typed
// record at a time in bounded memory; the Row accessors that parse and validate fields; and the
// Report that counts rows read and rejected and keeps the first few row errors.
//
// The readers themselves live one package per source family below this one (source/nppes,
// source/leie, ...). They differ only in their column lists and record types.
//
// Bad rows never stop a read. A row with the wrong number of columns, an NPI failing its check
// digit, an impossible date or a malformed CCN is counted in the Report with its file, line,
// column and reason, and skipped. Only file-level problems end a read with an error: a missing
// or unreadable file, a header lacking required columns, or a record so long that reading on
// would break the memory bound (almost always an unbalanced quote).
//
// Every reader has the same shape:
//
//	r, err := nppes.Open(path)
//	if err != nil { ... }        // missing file, mis-headed file
//	defer r.Close()
//	for {
//		p, err := r.Next()
//		if err == io.EOF { break }
//		if err != nil { ... }    // the file could not be read to the end
//		use(p)
//	}
//	rep := r.Report()             // rows, rejected rows, first errors, reasons
//
// OpenFS does the same for a file of any fs.FS, given the package's NewReader, so that the
// reference files built into the binaries (source/reference) and a directory (os.DirFS) are read
// alike; LoadFS reads a small table whole.
package source
