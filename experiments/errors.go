package experiments

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Error is a problem with a spec: the file, the line where it could be found (0 when unknown), the key's dotted path
// (e.g. "sweep.lambda", "figure[2].kind") and what is wrong.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(printable(e.Key))
		b.WriteString(": ")
	}
	b.WriteString(oneLine(e.Msg))
	return b.String()
}

// oneLine escapes the newlines and other non-printable characters of s (a TOML library message may quote the raw
// input, e.g. "not a binary number: '0b⏎'"), so that an error stays one line.
func oneLine(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsPrint(r) {
			b.WriteRune(r)
		} else {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
	}
	return b.String()
}

// printable returns s, or s quoted when it holds a newline or another non-printable character (a quoted TOML key
// such as "a\nb"), so that an error stays one line.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

var (
	elementRE = regexp.MustCompile(`^element ([0-9]+)\b`)
	headerRE  = regexp.MustCompile(`^\s*(\[\[?)\s*([A-Za-z0-9_.\-" ]+?)\s*\]\]?`)
)

// locate finds the line (1-based) of key in table (table "" is the root; for an array of tables, idx picks the
// element). It reads the text line by line; it does not understand multi-line strings, which specs do not need.
// It returns 0 when the key is not found, and the table's header line when key is "".
func locate(text, table string, idx int, key string) int {
	cur, count := "", -1
	inTable := table == ""
	for i, line := range strings.Split(text, "\n") {
		if m := headerRE.FindStringSubmatch(line); m != nil {
			cur = strings.ReplaceAll(m[2], " ", "")
			if cur == table {
				count++
			}
			inTable = cur == table && (m[1] == "[" || count == idx)
			if inTable && key == "" {
				return i + 1
			}
			continue
		}
		path := dottedKey(line)
		if len(path) == 0 || key == "" {
			continue
		}
		switch {
		case inTable && path[0] == key: // key = ..., or key.sub = ... (a dotted key) inside the table
			return i + 1
		case cur == "" && table != "" && idx < 0 && len(path) > 1 && path[0] == table && path[1] == key:
			return i + 1 // table.key = ... at the top level (a dotted key)
		}
	}
	return 0
}

// dottedKeyRE matches a key/value line's key: bare or quoted segments joined by dots.
var dottedKeyRE = regexp.MustCompile(`^\s*((?:[A-Za-z0-9_\-]+|"[^"\n]*"|'[^'\n]*')(?:\s*\.\s*(?:[A-Za-z0-9_\-]+|"[^"\n]*"|'[^'\n]*'))*)\s*=`)

// dottedKey returns the segments of a key/value line's key ("sweep.lambda = ..." gives [sweep lambda], quotes
// removed), or nil when the line is not one.
func dottedKey(line string) []string {
	m := dottedKeyRE.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	var out []string
	for _, seg := range strings.Split(m[1], ".") { // a quoted segment holding a dot is rare in a spec: split anyway
		out = append(out, strings.Trim(strings.TrimSpace(seg), `"'`))
	}
	return out
}

// locateElement finds the line (1-based) of the i-th (1-based) inline table of the list whose key is on line keyLine,
// e.g. element 2 of "timeline = [⏎ {at = 1, ...},⏎ {at = 2, ...},⏎ ]" is on keyLine+2. It skips strings and comments,
// and returns 0 when the value is not a list holding that many inline tables.
func locateElement(text string, keyLine, i int) int {
	lines := strings.SplitAfter(text, "\n")
	if keyLine < 1 || keyLine > len(lines) {
		return 0
	}
	rest := strings.Join(lines[keyLine-1:], "")
	eq := strings.IndexByte(rest, '=')
	if eq < 0 {
		return 0
	}
	line, depth, count := keyLine, 0, 0 // depth: open brackets and braces; the list's own bracket is depth 1
	for j := eq + 1; j < len(rest); j++ {
		switch c := rest[j]; c {
		case '\n':
			line++
		case '#':
			for j+1 < len(rest) && rest[j+1] != '\n' {
				j++
			}
		case '"', '\'':
			for j++; j < len(rest) && rest[j] != c && rest[j] != '\n'; j++ {
				if c == '"' && rest[j] == '\\' {
					j++
				}
			}
		case '[', '{':
			if c == '{' && depth == 1 {
				if count++; count == i {
					return line
				}
			}
			if depth == 0 && c != '[' {
				return 0
			}
			depth++
		case ']', '}':
			if depth--; depth <= 0 {
				return 0
			}
		}
	}
	return 0
}
