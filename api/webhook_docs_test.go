package api_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"asa/api"
	"asa/docs"
)

// webhookDoc reads docs/webhooks.md: its test vector and its code blocks by language.
func webhookDoc(t *testing.T) (vec map[string]string, blocks map[string]string) {
	t.Helper()
	b, err := docs.FS.ReadFile("webhooks.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks = map[string]string{}
	re := regexp.MustCompile("(?s)```(go|python|js|)\n(.*?)```")
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		lang, code := m[1], m[2]
		if lang == "" {
			if strings.Contains(code, "secret:") && strings.Contains(code, "body:") {
				vec = map[string]string{}
				for _, line := range strings.Split(code, "\n") {
					k, v, ok := strings.Cut(line, ":")
					if ok {
						vec[k] = strings.TrimSpace(v)
					}
				}
			}
			continue
		}
		if _, dup := blocks[lang]; !dup {
			blocks[lang] = code
		}
	}
	if vec == nil {
		t.Fatal("docs/webhooks.md has no test vector")
	}
	return vec, blocks
}

// TestWebhookDocsVector: the published test vector is what the server signs, and the vector's body
// has the shape of a batch record.
func TestWebhookDocsVector(t *testing.T) {
	vec, _ := webhookDoc(t)
	ts, err := strconv.ParseInt(vec["webhook-timestamp"], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	asaSig, stdSig := api.SignWebhook(vec["secret"], vec["webhook-id"], ts, []byte(vec["body"]))
	if asaSig != vec["X-ASA-Signature"] || stdSig != vec["webhook-signature"] {
		t.Fatalf("the documented signatures are stale:\n%s\n%s", asaSig, stdSig)
	}
	if !api.VerifyWebhookSignature(vec["secret"], []byte(vec["body"]), asaSig) {
		t.Fatal("VerifyWebhookSignature refuses the vector")
	}
	for _, k := range []string{`"webhook_delivery_status":"pending"`, `"results":[`, `"credits_charged":5`, `"poll_url":`} {
		if !strings.Contains(vec["body"], k) {
			t.Errorf("the vector's body lacks %s", k)
		}
	}
}

// TestWebhookDocs runs the Go, Python and Node snippets of docs/webhooks.md on the test vector: each
// must accept it and refuse a changed body, another secret and a stale timestamp.
func TestWebhookDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go, python3 and node")
	}
	vec, blocks := webhookDoc(t)
	q := strconv.Quote
	secret, id, ts, body := q(vec["secret"]), q(vec["webhook-id"]), vec["webhook-timestamp"], q(vec["body"])
	asa, std := q(vec["X-ASA-Signature"]), q(vec["webhook-signature"])
	dir := t.TempDir()
	run := func(name, tool string, args ...string) {
		if _, err := exec.LookPath(tool); err != nil {
			t.Logf("%s: %s not installed, skipped", name, tool)
			return
		}
		cmd := exec.Command(tool, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GO111MODULE=off")
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "ok" {
			t.Errorf("%s snippet: %v\n%s", name, err, out)
		}
	}

	goSrc := "package main\n\n" + blocks["go"] + `
func main() {
	now := time.Unix(` + ts + `, 0).Add(time.Minute)
	body := []byte(` + body + `)
	ok := verifyASA(` + secret + `, body, ` + asa + `) &&
		verifyStandard(` + secret + `, ` + id + `, "` + ts + `", ` + std + `, body, now) &&
		!verifyASA(` + secret + `, append(body, ' '), ` + asa + `) &&
		!verifyASA("whsec_AAAA", body, ` + asa + `) &&
		!verifyStandard(` + secret + `, ` + id + `, "` + ts + `", ` + std + `, body, now.Add(10*time.Minute)) &&
		!verifyStandard(` + secret + `, ` + id + `, "` + ts + `", ` + std + `, append(body, ' '), now)
	_ = webhookHandler
	if !ok {
		panic("refused")
	}
	println("ok")
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(goSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	run("Go", "go", "run", "main.go")

	py := blocks["python"] + `
body = ` + body + `.encode()
now = ` + ts + ` + 60
ok = (verify_asa(` + secret + `, body, ` + asa + `)
      and verify_standard(` + secret + `, ` + id + `, "` + ts + `", ` + std + `, body, now)
      and not verify_asa(` + secret + `, body + b" ", ` + asa + `)
      and not verify_asa("whsec_AAAA", body, ` + asa + `)
      and not verify_standard(` + secret + `, ` + id + `, "` + ts + `", ` + std + `, body, now + 600)
      and not verify_standard(` + secret + `, ` + id + `, "` + ts + `", ` + std + `, body + b" ", now))
print("ok" if ok else "refused")
`
	if err := os.WriteFile(filepath.Join(dir, "verify.py"), []byte(py), 0o644); err != nil {
		t.Fatal(err)
	}
	run("Python", "python3", "verify.py")

	js := blocks["js"] + `
const body = Buffer.from(` + body + `);
const now = ` + ts + ` + 60;
const ok = verifyASA(` + secret + `, body, ` + asa + `)
  && verifyStandard(` + secret + `, ` + id + `, "` + ts + `", ` + std + `, body, now)
  && !verifyASA(` + secret + `, Buffer.concat([body, Buffer.from(" ")]), ` + asa + `)
  && !verifyASA("whsec_AAAA", body, ` + asa + `)
  && !verifyStandard(` + secret + `, ` + id + `, "` + ts + `", ` + std + `, body, now + 600)
  && !verifyStandard(` + secret + `, ` + id + `, "` + ts + `", ` + std + `, Buffer.concat([body, Buffer.from(" ")]), now);
console.log(ok ? "ok" : "refused");
`
	if err := os.WriteFile(filepath.Join(dir, "verify.js"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	run("Node", "node", "verify.js")
}
