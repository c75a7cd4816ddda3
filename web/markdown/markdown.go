// Package markdown renders the Markdown of the published documents (docs/limitations.md,
// docs/methodology/*.md) as HTML for the pages, so the documents stay written in Markdown. It
// knows the constructs those files use and no more: ATX headings, paragraphs, bulleted and
// numbered lists whose items continue on indented lines, pipe tables, and inline code and
// strong emphasis. Everything else is text: every character of the source is escaped, so no
// document can put markup of its own into a page.
package markdown

import (
	"html"
	"html/template"
	"strconv"
	"strings"
)

// Document is a rendered document: its first level-1 heading and its body.
type Document struct {
	Title string
	Body  template.HTML
}

// Render renders a Markdown document.
func Render(src string) Document {
	r := renderer{lines: strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")}
	r.blocks()
	return Document{Title: r.title, Body: template.HTML(r.out.String())}
}

type renderer struct {
	lines []string
	i     int
	out   strings.Builder
	title string
	ids   map[string]int
}

// blocks renders the lines as a sequence of blocks.
func (r *renderer) blocks() {
	for r.i < len(r.lines) {
		line := r.lines[r.i]
		switch {
		case strings.TrimSpace(line) == "":
			r.i++
		case headingLevel(line) > 0:
			r.heading(line)
		case listMarker(line) != "":
			r.list(listMarker(line))
		case r.tableStarts():
			r.table()
		default:
			r.paragraph()
		}
	}
}

// headingLevel is the level of an ATX heading line ("## Title"), 0 for any other line.
func headingLevel(line string) int {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n >= len(line) || line[n] != ' ' {
		return 0
	}
	return n
}

func (r *renderer) heading(line string) {
	level := headingLevel(line)
	text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[level:]), "#"))
	r.i++
	tag := "h" + strconv.Itoa(level)
	if level == 1 && r.title == "" {
		r.title = text
	}
	r.out.WriteString("<" + tag + ` id="` + r.id(text) + `">` + inline(text) + "</" + tag + ">\n")
}

// id is a heading's anchor: its words in lower case joined by hyphens, numbered when repeated.
func (r *renderer) id(text string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(text) {
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(c)
			dash = false
		} else {
			dash = true
		}
	}
	id := b.String()
	if id == "" {
		id = "section"
	}
	if r.ids == nil {
		r.ids = map[string]int{}
	}
	r.ids[id]++
	if n := r.ids[id]; n > 1 {
		id += "-" + strconv.Itoa(n)
	}
	return id
}

// listMarker is "ul" for a line starting a bulleted item ("- ", "* "), "ol" for a numbered one
// ("1. "), "" otherwise.
func listMarker(line string) string {
	if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") {
		return "ul"
	}
	digits := 0
	for digits < len(line) && digits < 9 && line[digits] >= '0' && line[digits] <= '9' {
		digits++
	}
	if digits > 0 && strings.HasPrefix(line[digits:], ". ") {
		return "ol"
	}
	return ""
}

// itemText is an item line without its marker.
func itemText(line string) string {
	if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") {
		return line[2:]
	}
	return line[strings.Index(line, ". ")+2:]
}

// list renders the items of one kind that follow, each with its indented continuation lines.
func (r *renderer) list(kind string) {
	r.out.WriteString("<" + kind + ">\n")
	for r.i < len(r.lines) && listMarker(r.lines[r.i]) == kind {
		text := []string{strings.TrimSpace(itemText(r.lines[r.i]))}
		r.i++
		for r.i < len(r.lines) && strings.HasPrefix(r.lines[r.i], " ") && strings.TrimSpace(r.lines[r.i]) != "" {
			text = append(text, strings.TrimSpace(r.lines[r.i]))
			r.i++
		}
		r.out.WriteString("<li>" + inline(strings.Join(text, " ")) + "</li>\n")
	}
	r.out.WriteString("</" + kind + ">\n")
}

// tableStarts reports whether a pipe table starts here: a row, then a delimiter row.
func (r *renderer) tableStarts() bool {
	if r.i+1 >= len(r.lines) || !strings.HasPrefix(strings.TrimSpace(r.lines[r.i]), "|") {
		return false
	}
	return isDelimiterRow(r.lines[r.i+1])
}

// isDelimiterRow reports whether a line is a table's delimiter row ("|---|:---:|").
func isDelimiterRow(line string) bool {
	cells := cells(line)
	if len(cells) == 0 {
		return false
	}
	for _, c := range cells {
		c = strings.Trim(c, ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return true
}

// cells splits a table row at its pipes, outer pipes optional; a pipe inside backticks or
// escaped with a backslash stays in its cell.
func cells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, `\|`) {
		line = line[:len(line)-1]
	}
	var out []string
	var cell strings.Builder
	code := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line) && line[i+1] == '|':
			cell.WriteByte('|')
			i++
		case c == '`':
			code = !code
			cell.WriteByte(c)
		case c == '|' && !code:
			out = append(out, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(c)
		}
	}
	return append(out, strings.TrimSpace(cell.String()))
}

func (r *renderer) table() {
	head := cells(r.lines[r.i])
	r.i += 2
	r.out.WriteString("<table>\n<thead><tr>")
	for _, c := range head {
		r.out.WriteString(`<th scope="col">` + inline(c) + "</th>")
	}
	r.out.WriteString("</tr></thead>\n<tbody>\n")
	for r.i < len(r.lines) && strings.HasPrefix(strings.TrimSpace(r.lines[r.i]), "|") {
		row := cells(r.lines[r.i])
		r.i++
		r.out.WriteString("<tr>")
		for j := range max(len(head), len(row)) {
			c := ""
			if j < len(row) {
				c = row[j]
			}
			r.out.WriteString("<td>" + inline(c) + "</td>")
		}
		r.out.WriteString("</tr>\n")
	}
	r.out.WriteString("</tbody>\n</table>\n")
}

// paragraph renders the lines up to a blank line or the start of another block.
func (r *renderer) paragraph() {
	var text []string
	for r.i < len(r.lines) {
		line := r.lines[r.i]
		if strings.TrimSpace(line) == "" || (len(text) > 0 && (headingLevel(line) > 0 || listMarker(line) != "" || r.tableStarts())) {
			break
		}
		text = append(text, strings.TrimSpace(line))
		r.i++
	}
	r.out.WriteString("<p>" + inline(strings.Join(text, " ")) + "</p>\n")
}

// inline renders a run of text: `code` and **strong** (which may hold code); an unpaired
// marker is text.
func inline(s string) string {
	var b strings.Builder
	for s != "" {
		tick := strings.IndexByte(s, '`')
		star := strings.Index(s, "**")
		switch {
		case tick >= 0 && (star < 0 || tick < star):
			end := strings.IndexByte(s[tick+1:], '`')
			if end < 0 {
				b.WriteString(html.EscapeString(s))
				return b.String()
			}
			b.WriteString(html.EscapeString(s[:tick]))
			b.WriteString("<code>" + html.EscapeString(s[tick+1:tick+1+end]) + "</code>")
			s = s[tick+2+end:]
		case star >= 0:
			end := closingStars(s[star+2:])
			if end < 0 {
				b.WriteString(html.EscapeString(s))
				return b.String()
			}
			b.WriteString(html.EscapeString(s[:star]))
			b.WriteString("<strong>" + inline(s[star+2:star+2+end]) + "</strong>")
			s = s[star+4+end:]
		default:
			b.WriteString(html.EscapeString(s))
			return b.String()
		}
	}
	return b.String()
}

// closingStars finds the "**" that closes a strong run, skipping code spans; -1 when none does.
func closingStars(s string) int {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '`':
			end := strings.IndexByte(s[i+1:], '`')
			if end < 0 { // an unpaired backtick is text
				if j := strings.Index(s[i:], "**"); j >= 0 {
					return i + j
				}
				return -1
			}
			i += end + 1
		case strings.HasPrefix(s[i:], "**"):
			return i
		}
	}
	return -1
}
