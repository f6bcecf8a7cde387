package dom

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

func encode(t *testing.T, enc encoding.Encoding, s string) string {
	t.Helper()
	out, err := enc.NewEncoder().String(s)
	if err != nil {
		t.Fatalf("encode %q: %v", s, err)
	}
	return out
}

func TestToUTF8(t *testing.T) {
	cp1251 := func(s string) string { return encode(t, charmap.Windows1251, s) }
	latin1 := func(s string) string { return encode(t, charmap.ISO8859_1, s) }
	utf16le := func(s string) string {
		return encode(t, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), s)
	}
	utf16be := func(s string) string {
		return encode(t, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), s)
	}
	pad := "<!--" + strings.Repeat("x", 1100) + "-->"

	tests := []struct {
		name, body, contentType, want string
	}{
		{"empty", "", "", ""},
		{"ascii", "<p>hi</p>", "", "<p>hi</p>"},
		{"utf8 no declaration", "<p>café Привет</p>", "", "<p>café Привет</p>"},
		{"utf8 bom", "\xEF\xBB\xBF<p>é</p>", "text/html; charset=windows-1251", "<p>é</p>"},
		{"utf16le bom", "\xFF\xFE" + utf16le("<p>é€</p>"), "text/html; charset=utf-8", "<p>é€</p>"},
		{"utf16be bom", "\xFE\xFF" + utf16be("<p>é€</p>"), "", "<p>é€</p>"},
		{"header utf-16le without bom", utf16le("<p>Ж</p>"), "text/html; charset=UTF-16LE", "<p>Ж</p>"},
		{"header utf-16 but 8-bit body", "<p>é</p>", "text/html; charset=utf-16", "<p>é</p>"},
		{"header windows-1251", cp1251("<p>Привет</p>"), "text/html; charset=windows-1251", "<p>Привет</p>"},
		{"header quoted and upper case", cp1251("<p>Привет</p>"), `text/html;CHARSET="Windows-1251"`, "<p>Привет</p>"},
		{"header latin-1 label is windows-1252", latin1("<p>café</p>") + "\x80", "text/html; charset=iso-8859-1", "<p>café</p>€"},
		{"header beats meta", cp1251(`<meta charset="iso-8859-2"><p>Привет</p>`), "text/html; charset=cp1251", `<meta charset="iso-8859-2"><p>Привет</p>`},
		{"header unknown label ignored", cp1251(`<meta charset="windows-1251"><p>Привет</p>`), "text/html; charset=x-nonsense", `<meta charset="windows-1251"><p>Привет</p>`},
		{"header replacement label ignored", cp1251(`<meta charset="windows-1251"><p>Ы</p>`), "text/html; charset=iso-2022-kr", `<meta charset="windows-1251"><p>Ы</p>`},
		{"meta charset", cp1251(`<html><head><meta charset="windows-1251"></head><p>Привет</p>`), "text/html", `<html><head><meta charset="windows-1251"></head><p>Привет</p>`},
		{"meta http-equiv", cp1251(`<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=windows-1251"><p>Да</p>`), "", `<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=windows-1251"><p>Да</p>`},
		{"meta content without http-equiv ignored", `<meta content="text/html; charset=windows-1251"><p>caf` + "\xe9</p>", "", `<meta content="text/html; charset=windows-1251"><p>café</p>`},
		{"meta in comment ignored", `<!-- <meta charset="windows-1251"> --><p>caf` + "\xe9</p>", "", `<!-- <meta charset="windows-1251"> --><p>café</p>`},
		{"meta in script ignored", `<script>x='<meta charset="windows-1251">'</script><p>caf` + "\xe9</p>", "", `<script>x='<meta charset="windows-1251">'</script><p>café</p>`},
		{"meta after 1024 bytes ignored", pad + `<meta charset="windows-1251"><p>caf` + "\xe9</p>", "", pad + `<meta charset="windows-1251"><p>café</p>`},
		{"meta utf-16 means utf-8", `<meta charset="utf-16"><p>é</p>`, "", `<meta charset="utf-16"><p>é</p>`},
		{"meta gb2312", `<meta charset="gb2312"><p>` + encode(t, simplifiedchinese.GBK, "百度一下") + "</p>", "", `<meta charset="gb2312"><p>百度一下</p>`},
		{"header shift_jis", "<p>" + encode(t, japanese.ShiftJIS, "日本語") + "</p>", "text/html; charset=Shift_JIS", "<p>日本語</p>"},
		{"header iso-2022-jp", encode(t, japanese.ISO2022JP, "<p>日本</p>"), "text/html; charset=iso-2022-jp", "<p>日本</p>"},
		{"xml declaration", `<?xml version="1.0" encoding="ISO-8859-1"?><a>caf` + "\xe9</a>", "", `<?xml version="1.0" encoding="ISO-8859-1"?><a>café</a>`},
		{"xml declaration single quotes", `<?xml version='1.0' encoding='windows-1251'?><a>` + cp1251("Да") + "</a>", "", `<?xml version='1.0' encoding='windows-1251'?><a>Да</a>`},
		// Mislabelled pages.
		{"meta legacy but body utf8", `<meta charset="windows-1251"><p>Привет</p>`, "", `<meta charset="windows-1251"><p>Привет</p>`},
		{"header legacy but body utf8", `<p>café</p>`, "text/html; charset=ISO-8859-1", `<p>café</p>`},
		{"header utf8 but body latin-1", latin1("<p>café crème</p>"), "text/html; charset=utf-8", "<p>café crème</p>"},
		{"meta utf8 but body latin-1", latin1(`<meta charset="utf-8"><p>café</p>`), "", `<meta charset="utf-8"><p>café</p>`},
		{"utf8 with a stray byte", "<p>café crème brûlée \xff</p>", "text/html; charset=utf-8", "<p>café crème brûlée \uFFFD</p>"},
		// No declaration.
		{"fallback windows-1252", "<p>\x93quoted\x94 caf\xe9</p>", "", "<p>“quoted” café</p>"},
		{"fallback with a stray byte", "<p>Привет мир \xff</p>", "", "<p>Привет мир \uFFFD</p>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ToUTF8([]byte(tt.body), tt.contentType)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("ToUTF8 = %q, want %q", got, tt.want)
			}
			if !utf8.Valid(got) {
				t.Errorf("not valid UTF-8: %q", got)
			}
		})
	}
}

// ToUTF8 must not copy a body that is already UTF-8.
func TestToUTF8NoCopy(t *testing.T) {
	for _, tc := range []struct{ body, contentType string }{
		{"<p>café</p>", ""},
		{"<p>café</p>", "text/html; charset=utf-8"},
		{"<p>café</p>", "text/html; charset=windows-1252"},
		{`<meta charset="koi8-r"><p>Привет</p>`, ""},
		{"<p>plain ascii</p>", "text/html; charset=windows-1251"},
		{"\xEF\xBB\xBF<p>é</p>", ""},
	} {
		body := []byte(tc.body)
		got, err := ToUTF8(body, tc.contentType)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || &got[len(got)-1] != &body[len(body)-1] {
			t.Errorf("ToUTF8(%q, %q) copied the body", tc.body, tc.contentType)
		}
	}
	body := []byte(strings.Repeat("<p>é</p>", 1000))
	if n := testing.AllocsPerRun(10, func() { _, _ = ToUTF8(body, "text/html; charset=utf-8") }); n != 0 {
		t.Errorf("ToUTF8 on UTF-8: %v allocs, want 0", n)
	}
	if n := testing.AllocsPerRun(10, func() { _, _ = ToUTF8(body, "") }); n != 0 {
		t.Errorf("ToUTF8 on UTF-8 without header: %v allocs, want 0", n)
	}
}

func TestExtractCharset(t *testing.T) {
	for in, want := range map[string]string{
		"":                                    "",
		"text/html":                           "",
		"text/html; charset=utf-8":            "utf-8",
		"text/html;charset=UTF-8;":            "UTF-8",
		`text/html; charset="koi8-r"`:         "koi8-r",
		"text/html; charset = 'x'":            "x",
		"text/html; charset":                  "",
		"text/html; charsetx; charset=latin1": "latin1",
		`text/html; charset="unterminated`:    "",
	} {
		if got := extractCharset(in); got != want {
			t.Errorf("extractCharset(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMostlyUTF8(t *testing.T) {
	if mostlyUTF8([]byte("caf\xe9 cr\xe8me")) {
		t.Error("latin-1 text taken for UTF-8")
	}
	if !mostlyUTF8(bytes.Repeat([]byte("é"), 3)) {
		t.Error("UTF-8 text not taken for UTF-8")
	}
}

var utf16LE = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
