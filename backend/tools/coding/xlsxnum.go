package coding

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// builtinCodes are the format codes of the built-in number format ids (ECMA-376 §18.8.30);
// an array of constants, not a map, so that it costs nothing at package init.
var builtinCodes = [...]string{
	0: "General", 1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00",
	9: "0%", 10: "0.00%", 11: "0.00E+00", 12: "# ?/?", 13: "# ??/??",
	14: "mm-dd-yy", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy",
	18: "h:mm AM/PM", 19: "h:mm:ss AM/PM", 20: "h:mm", 21: "h:mm:ss", 22: "m/d/yy h:mm",
	37: "#,##0 ;(#,##0)", 38: "#,##0 ;[Red](#,##0)", 39: "#,##0.00;(#,##0.00)", 40: "#,##0.00;[Red](#,##0.00)",
	45: "mm:ss", 46: "[h]:mm:ss", 47: "mmss.0", 48: "##0.0E+0", 49: "@",
}

func builtinFormat(id int) string {
	if id < 0 || id >= len(builtinCodes) {
		return ""
	}
	return builtinCodes[id]
}

// formatNumber renders a cell's number under its format code the way a reader needs it:
// dates and times in ISO form, percentages, fixed decimals and thousands separators as the
// code asks; anything else as General (up to 15 significant digits, no float noise).
func formatNumber(v float64, code string, date1904 bool) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	// The first section is the one for positive numbers (and all, when it is the only one).
	section, _, _ := strings.Cut(code, ";")
	bare := bareFormat(section)
	switch {
	case bare == "" || strings.EqualFold(bare, "general") || bare == "@":
		return general(v)
	case isDateFormat(bare):
		return serialTime(v, bare, date1904)
	case strings.Contains(bare, "%"):
		return strconv.FormatFloat(v*100, 'f', decimals(bare), 64) + "%"
	case strings.ContainsAny(bare, "Ee") && strings.Contains(bare, "0"):
		return strconv.FormatFloat(v, 'E', decimals(bare), 64)
	case strings.ContainsAny(bare, "0#"):
		s := strconv.FormatFloat(v, 'f', decimals(bare), 64)
		if strings.Contains(bare, ",") {
			s = thousands(s)
		}
		return s
	}
	return general(v)
}

// bareFormat drops what a format code shows around the number: quoted text, escaped
// characters, [colour] and [$-locale] tags, padding and spacing directives.
func bareFormat(code string) string {
	var b strings.Builder
	for i := 0; i < len(code); i++ {
		switch c := code[i]; c {
		case '"':
			for i++; i < len(code) && code[i] != '"'; i++ {
			}
		case '\\', '_', '*':
			i++
		case '[':
			j := strings.IndexByte(code[i:], ']')
			if j < 0 {
				return b.String()
			}
			// [h], [m] and [s] are elapsed-time parts: keep them as letters.
			if tag := strings.ToLower(code[i+1 : i+j]); tag == "h" || tag == "hh" || tag == "m" || tag == "mm" || tag == "s" || tag == "ss" {
				b.WriteString(tag)
			}
			i += j
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// isDateFormat reports whether a bare code shows a date or a time.
func isDateFormat(bare string) bool {
	return strings.ContainsAny(strings.ToLower(bare), "ymdhs")
}

// serialTime renders an Excel serial date (days since 1899-12-30, or 1904-01-01) as
// 2006-01-02, 15:04:05 or both, as the code shows a date, a time or both.
func serialTime(v float64, bare string, date1904 bool) string {
	lower := strings.ToLower(bare)
	hasDate := strings.ContainsAny(lower, "yd") || (strings.Contains(lower, "m") && !strings.ContainsAny(lower, "hs"))
	hasTime := strings.ContainsAny(lower, "hs")
	epoch := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	if date1904 {
		epoch = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	t := epoch.Add(time.Duration(math.Round(v*86400)) * time.Second)
	switch {
	case hasDate && hasTime:
		return t.Format("2006-01-02 15:04:05")
	case hasTime:
		return t.Format("15:04:05")
	default:
		return t.Format("2006-01-02")
	}
}

// decimals counts the digit places after the decimal point of a bare code.
func decimals(bare string) int {
	_, frac, ok := strings.Cut(bare, ".")
	if !ok {
		return 0
	}
	n := 0
	for _, c := range frac {
		if c != '0' && c != '#' && c != '?' || n == maxDecimals {
			break
		}
		n++
	}
	return n
}

// clipFormat keeps the first 255 bytes of a number format code, the longest Excel takes: every
// cell of its style is formatted with it, and a code of a megabyte over 10,000 cells (a 28 KB
// file) took 60 s of CPU.
func clipFormat(code string) string {
	if len(code) > 255 {
		return code[:255]
	}
	return code
}

// maxDecimals is the most decimal places Excel shows. A format is the file's claim, and each
// cell of the style is formatted with it: a format of a million zeros over 10,000 cells (a
// 28 KB file) made 10 GB of text, a fatal out-of-memory.
const maxDecimals = 30

// thousands puts commas between groups of three digits of a formatted number.
func thousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// general is Excel's General format: the number to 15 significant digits, without the
// binary noise (0.1+0.2 shows 0.3), in plain notation unless very large or small.
func general(v float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
	if a := math.Abs(r); a != 0 && (a >= 1e15 || a < 1e-9) {
		return strconv.FormatFloat(r, 'E', -1, 64)
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}
