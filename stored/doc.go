// Package stored holds the shapes of what ingest writes and every surface reads: each source
// record as stored and served, the 14-key provenance it carries, the datasets it comes from,
// the document codec (Body, NewDocument, DecodeBody) and the search keys with the text folding
// that stored keys and queries share. It knows no federal file: package mapping fills these
// shapes from the source readers, so the read side depends on the stored shapes alone.
package stored
