// lower.go holds AppendLower, the one lower-casing of token values that
// templates and the transition search's word keys share.

package feature

import (
	"unicode"
	"unicode/utf8"
)

// AppendLower appends the lower-case form of s to dst without allocating
// (strings.ToLower allocates whenever anything changes).
func AppendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
		i += size
	}
	return dst
}
