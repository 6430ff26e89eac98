package eval

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// LOCATE as MariaDB's my_instr_mb finds a string in another:
//
//	seqd_mariadb_locate(sub, s, start, ci)
//	    the position in characters of sub's first occurrence in s at or
//	    after character start (1: the first), 0 for none. Each window of
//	    s as many bytes long as sub, from a character's start, is
//	    compared with sub by utf8mb4_general_ci's weights (ci; no
//	    padding: 'É' finds 'é', 'E' not 'é') or by its bytes. A start
//	    below 1 or past s's bytes is 0, as is a window past s's end; an
//	    empty sub is found where the search starts.

func init() {
	Define("seqd_mariadb_locate", TInt4, true, func(_ *Env, a []Datum) (Datum, error) {
		return Int(mariadbLocate(a[0].S, a[1].S, a[2].I, a[3].I != 0)), nil
	}, TText, TText, TInt8, TBool)
}

// mariadbLocate is seqd_mariadb_locate.
func mariadbLocate(sub, s string, start int64, ci bool) int64 {
	if start < 1 || start > int64(len(s)) && start > 1 {
		return 0
	}
	off, chars := 0, start-1
	for i := int64(0); i < chars && off < len(s); i++ {
		_, n := utf8.DecodeRuneInString(s[off:])
		off += n
	}
	if off+len(sub) > len(s) {
		return 0
	}
	if sub == "" {
		return int64(off) + 1
	}
	for ; off+len(sub) <= len(s); chars++ {
		if w := s[off : off+len(sub)]; w == sub || ci && sameGeneralCI(w, sub) {
			return chars + 1
		}
		_, n := utf8.DecodeRuneInString(s[off:])
		off += n
	}
	return 0
}

// sameGeneralCI reports whether a and b weigh alike, character by
// character, in utf8mb4_general_ci, without padding the shorter.
func sameGeneralCI(a, b string) bool {
	for a != "" && b != "" {
		var x, y rune
		x, a = generalCINext(a)
		y, b = generalCINext(b)
		if x != y {
			return false
		}
	}
	return a == "" && b == ""
}

// ASCII and ORD as MariaDB computes them, of a string's bytes:
//
//	seqd_mariadb_ascii(s)  s's first byte, 0 for an empty s
//	seqd_mariadb_ord(s)    s's first character's bytes as a number in base
//	                       256 (ORD('é') is 0xC3A9), a byte that begins
//	                       no UTF-8 character by itself; 0 for an empty s

func init() {
	Define("seqd_mariadb_ascii", TInt4, true, func(_ *Env, a []Datum) (Datum, error) {
		if a[0].S == "" {
			return Int(0), nil
		}
		return Int(int64(a[0].S[0])), nil
	}, TText)
	Define("seqd_mariadb_ord", TInt8, true, func(_ *Env, a []Datum) (Datum, error) {
		s := a[0].S
		if s == "" {
			return Int(0), nil
		}
		_, n := utf8.DecodeRuneInString(s)
		var v int64
		for i := range n {
			v = v<<8 | int64(s[i])
		}
		return Int(v), nil
	}, TText)
}

// SUBSTRING_INDEX as MariaDB's Item_func_substr_index computes it:
//
//	seqd_mariadb_substring_index(s, delim, count, mb)
//	    s up to its count-th delim from the left (count > 0), or after
//	    its -count-th from the right (count < 0), delim matched by its
//	    bytes; s where there are not so many; empty for an empty s or
//	    delim or a count of 0. count is read as an INT (MariaDB's int32
//	    of the BIGINT). Occurrences do not overlap, counted from the left
//	    for text (mb: MariaDB's multi-byte path, so 'a' after the last
//	    'aa' of 'aaa'), from the right for a binary string.

func init() {
	Define("seqd_mariadb_substring_index", TText, true, func(_ *Env, a []Datum) (Datum, error) {
		return Text(substringIndex(a[0].S, a[1].S, int32(a[2].I), a[3].I != 0)), nil
	}, TText, TText, TInt8, TBool)
}

// substringIndex is seqd_mariadb_substring_index.
func substringIndex(s, delim string, count int32, mb bool) string {
	if s == "" || delim == "" || count == 0 {
		return ""
	}
	// The starts of delim's occurrences in s, not overlapping, from the
	// left.
	var at []int
	for i := 0; i+len(delim) <= len(s); {
		if s[i:i+len(delim)] == delim {
			at = append(at, i)
			i += len(delim)
			continue
		}
		if _, n := utf8.DecodeRuneInString(s[i:]); mb && n > 1 {
			i += n
		} else {
			i++
		}
	}
	switch {
	case count > 0:
		if int(count) > len(at) {
			return s
		}
		return s[:at[count-1]]
	case mb:
		c := int(count) + len(at) + 1 // the occurrence from the left
		if c <= 0 {
			return s
		}
		return s[at[c-1]+len(delim):]
	}
	// A binary string's from the right, not overlapping.
	end := len(s)
	for n := int(-count); ; n-- {
		i := strings.LastIndex(s[:end], delim)
		if i < 0 {
			return s
		}
		if n == 1 {
			return s[i+len(delim):]
		}
		end = i
	}
}

// FIND_IN_SET, STRCMP and SPACE as MariaDB computes them:
//
//	seqd_mariadb_find_in_set(s, list)
//	    the position of s among list's comma-separated items, compared
//	    by utf8mb4_general_ci's weights without padding; 0 where s holds
//	    a comma, list is empty or none matches
//	seqd_mariadb_strcmp(a, b)  -1, 0 or 1: a and b ordered by
//	                           utf8mb4_general_ci (PAD SPACE)
//	seqd_mariadb_space(n, max) n spaces; NULL past max bytes, with
//	                           MariaDB's 1301
//	seqd_mariadb_find_in_set_bytes(s, list), seqd_mariadb_strcmp_bytes(a, b)
//	    the same of binary strings: items equal byte for byte; a and b
//	    ordered by their bytes, no padding
//	seqd_mariadb_bytes(s)      s with each byte made the character of
//	                           its value, for LIKE of binary strings to
//	                           read a byte where it reads a character

func init() {
	Define("seqd_mariadb_find_in_set", TInt4, true, func(_ *Env, a []Datum) (Datum, error) {
		s, list := a[0].S, a[1].S
		if list == "" || strings.Contains(s, ",") {
			return Int(0), nil
		}
		for i, item := range strings.Split(list, ",") {
			if sameGeneralCI(item, s) {
				return Int(int64(i) + 1), nil
			}
		}
		return Int(0), nil
	}, TText, TText)
	Define("seqd_mariadb_strcmp", TInt4, true, func(_ *Env, a []Datum) (Datum, error) {
		return Int(int64(compareGeneralCI(a[0].S, a[1].S))), nil
	}, TText, TText)
	Define("seqd_mariadb_find_in_set_bytes", TInt4, true, func(_ *Env, a []Datum) (Datum, error) {
		s, list := a[0].S, a[1].S
		if list == "" || strings.Contains(s, ",") {
			return Int(0), nil
		}
		for i, item := range strings.Split(list, ",") {
			if item == s {
				return Int(int64(i) + 1), nil
			}
		}
		return Int(0), nil
	}, TText, TText)
	Define("seqd_mariadb_strcmp_bytes", TInt4, true, func(_ *Env, a []Datum) (Datum, error) {
		return Int(int64(strings.Compare(a[0].S, a[1].S))), nil
	}, TText, TText)
	Define("seqd_mariadb_bytes", TText, true, func(e *Env, a []Datum) (Datum, error) {
		s := a[0].S
		if err := e.chargeMade(int64(2 * len(s))); err != nil {
			return Null, err
		}
		out := make([]rune, len(s))
		for i := 0; i < len(s); i++ {
			out[i] = rune(s[i])
		}
		return Text(string(out)), nil
	}, TText)
	Define("seqd_mariadb_space", TText, true, func(e *Env, a []Datum) (Datum, error) {
		n, limit := a[0].I, a[1].I
		if n < 1 {
			return Text(""), nil
		}
		if n > limit {
			e.Warn(Warning{Kind: PacketOverflow, Type: "space", Value: strconv.FormatInt(limit, 10)})
			return Null, nil
		}
		if err := e.chargeMade(n); err != nil {
			return Null, err
		}
		return Text(strings.Repeat(" ", int(n))), nil
	}, TInt8, TInt8)
}
