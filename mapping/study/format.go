package study

import (
	"strconv"
	"strings"
)

// FormatCount writes a count or a population with comma thousands separators, as U.S. figures
// are read: the web pages and the evidence answers write a study's figures the same way.
func FormatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	digits := strings.TrimPrefix(s, "-")
	var b strings.Builder
	b.Grow(len(s) + len(digits)/3)
	if len(digits) < len(s) {
		b.WriteByte('-')
	}
	for i := range len(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(digits[i])
	}
	return b.String()
}
